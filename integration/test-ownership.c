/* zkr integration: who may drop the last reference, and when
 * (docs/design.md, "Ownership and unref"). Every public object that a
 * callback can name is unreffed from inside each of its callbacks, and
 * while each kind of event is queued ahead of its free; callbacks must run
 * in their own context, never on a thread running a session's code; every
 * node made is gone afterwards.
 *
 * An event "queued ahead of the free" is made deterministic by holding
 * the session's turn (zkr__session_stand_in_begin): the worker then runs
 * nothing, the event is posted, the object is dropped, and only then does
 * the worker go on. */

#include <string.h>

#include <CUnit/CUnit.h>
#include <gio/gio.h>

#include "context.h"
#include "itest.h"
#include "proxy.h"
#include "session-private.h"
#include "zkr-test.h"

#define WAIT_MS 30000
#define SESSION_MS 10000

/* ==== waiting for a flag set by another thread ============================= */

typedef struct {
  GMutex lock;
  GCond cond;
} Signal;

static void
signal_init (Signal *signal)
{
  g_mutex_init (&signal->lock);
  g_cond_init (&signal->cond);
}

static void
signal_clear (Signal *signal)
{
  g_mutex_clear (&signal->lock);
  g_cond_clear (&signal->cond);
}

static void
signal_set (Signal *signal, gboolean *flag)
{
  g_mutex_lock (&signal->lock);
  *flag = TRUE;
  g_cond_broadcast (&signal->cond);
  g_mutex_unlock (&signal->lock);
}

/* TRUE once *@flag is set, FALSE if @timeout_ms passed first. */
static gboolean
signal_wait (Signal *signal, const gboolean *flag, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gboolean set;

  g_mutex_lock (&signal->lock);
  while (!*flag && g_cond_wait_until (&signal->cond, &signal->lock, deadline))
    ;
  set = *flag;
  g_mutex_unlock (&signal->lock);
  return set;
}

/* A context's thread held up until opened, so that deliveries queue there. */
typedef struct {
  Signal signal;
  gboolean entered;
  gboolean open;
} Gate;

static gboolean
gate_block (gpointer data)
{
  Gate *gate = data;

  signal_set (&gate->signal, &gate->entered);
  /* Bounded, so that a failing test cannot hang the suite. */
  signal_wait (&gate->signal, &gate->open, 2 * WAIT_MS);
  return G_SOURCE_REMOVE;
}

static gboolean
gate_close_on (Gate *gate, GMainContext *context)
{
  signal_init (&gate->signal);
  gate->entered = gate->open = FALSE;
  zkr__context_post (context, gate_block, gate, NULL);
  return signal_wait (&gate->signal, &gate->entered, WAIT_MS);
}

/* ==== the fixture: a session through the proxy, an observer, a context ==== */

typedef struct {
  ZkrTestProxy *proxy;
  ZkrSession *session;      /* through the proxy */
  ZkrSession *observer;     /* straight to the ensemble */
  char *path;
  ItestLoopThread runner;   /* where the listeners run */
  ItestLoopThread second;   /* a second one, for queued deliveries */
} Fixture;

static gboolean
fixture_init (Fixture *f, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *address = NULL;

  memset (f, 0, sizeof *f);
  f->proxy = zkr_test_proxy_new (itest_hosts (), &error);
  CU_ASSERT_PTR_NOT_NULL (f->proxy);
  if (f->proxy == NULL)
    return FALSE;
  address = zkr_test_proxy_dup_address (f->proxy);
  f->session = itest_connect (address, SESSION_MS);
  f->observer = itest_connect (itest_hosts (), SESSION_MS);
  f->path = itest_scratch_path (name);
  itest_loop_thread_init (&f->runner);
  itest_loop_thread_init (&f->second);
  return f->session != NULL && f->observer != NULL;
}

/* Listeners added between push and pop run on @runner's thread. */
static void
runner_push (ItestLoopThread *runner)
{
  g_main_context_push_thread_default (runner->context);
}

static void
runner_pop_and_start (ItestLoopThread *runner, const char *name)
{
  g_main_context_pop_thread_default (runner->context);
  itest_loop_thread_start (runner, name);
}

/* Stops @runner, started or not, running what is left in its context. */
static void
runner_stop (ItestLoopThread *runner)
{
  if (runner->thread != NULL)
    {
      itest_loop_thread_stop (runner, NULL, NULL);
      return;
    }
  while (g_main_context_pending (runner->context))
    g_main_context_iteration (runner->context, FALSE);
  g_main_loop_unref (runner->loop);
  g_main_context_unref (runner->context);
}

/* Our ephemeral nodes at or below @path. */
static guint
ephemerals_below (ZkrSession *session, const char *path)
{
  g_autoptr (GPtrArray) children = NULL;
  struct Stat stat;
  guint count = 0;

  if (zkr__op_test_exists (session, path, &stat) != ZOK)
    return 0;
  count = stat.ephemeralOwner != 0;
  if (zkr__op_test_get_children (session, path, &children) != ZOK)
    return count;
  for (guint i = 0; i < children->len; i++)
    {
      g_autofree char *child = g_strdup_printf ("%s/%s", path,
                                                (char *) g_ptr_array_index (children, i));

      count += ephemerals_below (session, child);
    }
  return count;
}

static gboolean
no_ephemerals_left (gpointer data)
{
  Fixture *f = data;

  zkr__op_sync_path_sync (f->observer, "/");
  return ephemerals_below (f->observer, f->path) == 0;
}

/* Heals the proxy, asserts that every node the test made goes (a drop
 * gives holds up in the background), deletes the scratch tree. */
static void
fixture_clear (Fixture *f)
{
  if (f->proxy != NULL)
    zkr_test_proxy_heal (f->proxy);
  if (f->observer != NULL)
    {
      CU_ASSERT_TRUE (itest_wait_for (no_ephemerals_left, f, WAIT_MS));
      CU_ASSERT_TRUE (itest_delete_tree (f->observer, f->path));
    }
  runner_stop (&f->runner);
  runner_stop (&f->second);
  g_clear_pointer (&f->session, zkr_session_unref);
  g_clear_pointer (&f->observer, zkr_session_unref);
  g_clear_pointer (&f->proxy, zkr_test_proxy_free);
  g_free (f->path);
}

/* ==== making session events ============================================== */

/* The connection breaks at once: black-holed, then reset (the client sees
 * the reset and reports SUSPENDED; its reconnects get nothing until
 * healed). */
static void
break_connection (Fixture *f)
{
  zkr_test_proxy_blackhole (f->proxy);
  zkr_test_proxy_reset (f->proxy);
}

typedef struct {
  Signal signal;
  gboolean done;
  int rc;
} RawExists;

/* libzookeeper's completion thread. */
static void
raw_exists_done (int rc, const struct Stat *stat, const void *data)
{
  RawExists *raw = (RawExists *) data;

  (void) stat;
  g_mutex_lock (&raw->signal.lock);
  raw->rc = rc;
  raw->done = TRUE;
  g_cond_broadcast (&raw->signal.cond);
  g_mutex_unlock (&raw->signal.lock);
}

/* An exists of @path on @session's own handle, past zkr: its answer comes
 * through the same completion queue as the session's events and watches,
 * after everything the client received before it. Returns its rc, or
 * ZSYSTEMERROR when it was not sent or not answered in time. */
static int
raw_exists_started (ZkrSession *session, const char *path, RawExists *raw)
{
  zhandle_t *zh = zkr__session_handle_lock (session, NULL, NULL);
  int rc;

  signal_init (&raw->signal);
  raw->done = FALSE;
  if (zh == NULL)
    return ZSYSTEMERROR;
  rc = zoo_aexists (zh, path, 0, raw_exists_done, raw);
  zkr__session_handle_unlock (session);
  return rc;
}

static int
raw_exists_finish (RawExists *raw)
{
  int rc = signal_wait (&raw->signal, &raw->done, WAIT_MS) ? raw->rc : ZSYSTEMERROR;

  signal_clear (&raw->signal);
  return rc;
}

/* This thread holds @f's session's turn. Breaks the connection and
 * returns once the session's SUSPENDED is posted to the (held up) worker:
 * libzookeeper queues the session event first, then fails the requests in
 * flight, in one completion queue; so once a request sent into the black
 * hole has failed, the event was handed to zkr. */
static gboolean
queue_suspended (Fixture *f)
{
  RawExists raw;
  int rc;

  zkr_test_proxy_blackhole (f->proxy);
  rc = raw_exists_started (f->session, "/", &raw);
  zkr_test_proxy_reset (f->proxy);
  if (rc != ZOK)
    return FALSE;
  return raw_exists_finish (&raw) == ZCONNECTIONLOSS;
}

/* This thread holds the session's turn. A request answered "session
 * expired": the worker declares the session LOST when it next runs. */
static gboolean
queue_lost (Fixture *f)
{
  zkr__session_handle_note_expired (f->session, zkr_session_get_id (f->session), 0);
  return TRUE;
}

/* This thread holds the session's turn; the session watches @node. The
 * observer deletes it; once an exists of ours says it is gone, the watch
 * event came before that answer (ZooKeeper sends a watch event before any
 * answer that shows the change) and is posted to the worker. */
static gboolean
queue_node_deleted (Fixture *f, const char *node)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;

  if (zkr__op_delete_sync (f->observer, node, -1) != ZOK)
    return FALSE;
  while (g_get_monotonic_time () < deadline)
    {
      RawExists raw;

      if (raw_exists_started (f->session, node, &raw) != ZOK)
        return FALSE;
      if (raw_exists_finish (&raw) == ZNONODE)
        return TRUE;
    }
  return FALSE;
}

/* ==== the lock-like objects =============================================== */

typedef struct _Held Held;

typedef struct {
  const char *name;
  gpointer (*create) (ZkrSession *session, const char *path);
  gboolean (*acquire) (Held *held, GError **error);
  void (*acquire_async) (Held *held, GAsyncReadyCallback callback, gpointer user_data);
  gboolean (*acquire_finish) (Held *held, GAsyncResult *result, GError **error);
  guint (*add_loss) (gpointer object, ZkrLockLossFunc func, gpointer user_data,
                     GDestroyNotify destroy);
  void (*unref) (gpointer object);
  const char *node_parent;  /* where our one node is, below the path */
} Kind;

struct _Held {
  const Kind *kind;
  gpointer object;          /* (owned) (nullable once dropped) */
  GPtrArray *leases;        /* (owned) (nullable) a semaphore's */
};

static void
held_drop (Held *held)
{
  g_clear_pointer (&held->object, held->kind->unref);
  g_clear_pointer (&held->leases, g_ptr_array_unref);
}

/* -- mutex -- */

static gpointer
mutex_create (ZkrSession *session, const char *path)
{
  return zkr_mutex_new (session, path, NULL);
}

static gboolean
mutex_acquire (Held *held, GError **error)
{
  return zkr_mutex_acquire (held->object, WAIT_MS, NULL, error);
}

static void
mutex_acquire_async (Held *held, GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_mutex_acquire_async (held->object, WAIT_MS, NULL, callback, user_data);
}

static gboolean
mutex_acquire_finish (Held *held, GAsyncResult *result, GError **error)
{
  return zkr_mutex_acquire_finish (held->object, result, error);
}

static guint
mutex_add_loss (gpointer object, ZkrLockLossFunc func, gpointer user_data, GDestroyNotify destroy)
{
  return zkr_mutex_add_loss_listener (object, func, user_data, destroy);
}

static void
mutex_unref (gpointer object)
{
  zkr_mutex_unref (object);
}

static const Kind mutex_kind = {
  "mutex", mutex_create, mutex_acquire, mutex_acquire_async, mutex_acquire_finish,
  mutex_add_loss, mutex_unref, "",
};

/* -- reentrant mutex -- */

static gpointer
reentrant_create (ZkrSession *session, const char *path)
{
  return zkr_reentrant_mutex_new (session, path, NULL);
}

static gboolean
reentrant_acquire (Held *held, GError **error)
{
  return zkr_reentrant_mutex_acquire (held->object, WAIT_MS, NULL, error);
}

static void
reentrant_acquire_async (Held *held, GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_reentrant_mutex_acquire_async (held->object, WAIT_MS, NULL, callback, user_data);
}

static gboolean
reentrant_acquire_finish (Held *held, GAsyncResult *result, GError **error)
{
  return zkr_reentrant_mutex_acquire_finish (held->object, result, error);
}

static guint
reentrant_add_loss (gpointer object, ZkrLockLossFunc func, gpointer user_data,
                    GDestroyNotify destroy)
{
  return zkr_reentrant_mutex_add_loss_listener (object, func, user_data, destroy);
}

static void
reentrant_unref (gpointer object)
{
  zkr_reentrant_mutex_unref (object);
}

static const Kind reentrant_kind = {
  "reentrant mutex", reentrant_create, reentrant_acquire, reentrant_acquire_async,
  reentrant_acquire_finish, reentrant_add_loss, reentrant_unref, "",
};

/* -- read-write lock (its write side) -- */

static gpointer
rwlock_create (ZkrSession *session, const char *path)
{
  return zkr_rwlock_new (session, path, NULL);
}

static gboolean
rwlock_acquire (Held *held, GError **error)
{
  return zkr_rwlock_acquire_write (held->object, WAIT_MS, NULL, error);
}

static void
rwlock_acquire_async (Held *held, GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_rwlock_acquire_write_async (held->object, WAIT_MS, NULL, callback, user_data);
}

static gboolean
rwlock_acquire_finish (Held *held, GAsyncResult *result, GError **error)
{
  return zkr_rwlock_acquire_write_finish (held->object, result, error);
}

static guint
rwlock_add_loss (gpointer object, ZkrLockLossFunc func, gpointer user_data, GDestroyNotify destroy)
{
  return zkr_rwlock_add_loss_listener (object, func, user_data, destroy);
}

static void
rwlock_unref (gpointer object)
{
  zkr_rwlock_unref (object);
}

static const Kind rwlock_kind = {
  "read-write lock", rwlock_create, rwlock_acquire, rwlock_acquire_async,
  rwlock_acquire_finish, rwlock_add_loss, rwlock_unref, "",
};

/* -- semaphore: the object and its lease -- */

static gpointer
semaphore_create (ZkrSession *session, const char *path)
{
  return zkr_semaphore_new (session, path, 1, NULL);
}

static gboolean
semaphore_acquire (Held *held, GError **error)
{
  held->leases = zkr_semaphore_acquire (held->object, 1, WAIT_MS, NULL, error);
  return held->leases != NULL;
}

static void
semaphore_acquire_async (Held *held, GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_semaphore_acquire_async (held->object, 1, WAIT_MS, NULL, callback, user_data);
}

static gboolean
semaphore_acquire_finish (Held *held, GAsyncResult *result, GError **error)
{
  held->leases = zkr_semaphore_acquire_finish (held->object, result, error);
  return held->leases != NULL;
}

static guint
semaphore_add_loss (gpointer object, ZkrLockLossFunc func, gpointer user_data,
                    GDestroyNotify destroy)
{
  return zkr_semaphore_add_loss_listener (object, func, user_data, destroy);
}

static void
semaphore_unref (gpointer object)
{
  zkr_semaphore_unref (object);
}

static const Kind semaphore_kind = {
  "semaphore", semaphore_create, semaphore_acquire, semaphore_acquire_async,
  semaphore_acquire_finish, semaphore_add_loss, semaphore_unref, "/leases",
};

/* -- multi-lock over PATH/a and PATH/b -- */

static gpointer
multi_create (ZkrSession *session, const char *path)
{
  g_autofree char *a = g_strconcat (path, "/a", NULL);
  g_autofree char *b = g_strconcat (path, "/b", NULL);
  const char *paths[] = { a, b, NULL };

  return zkr_multi_lock_new (session, paths, NULL);
}

static gboolean
multi_acquire (Held *held, GError **error)
{
  return zkr_multi_lock_acquire (held->object, WAIT_MS, NULL, error);
}

static void
multi_acquire_async (Held *held, GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_multi_lock_acquire_async (held->object, WAIT_MS, NULL, callback, user_data);
}

static gboolean
multi_acquire_finish (Held *held, GAsyncResult *result, GError **error)
{
  return zkr_multi_lock_acquire_finish (held->object, result, error);
}

static guint
multi_add_loss (gpointer object, ZkrLockLossFunc func, gpointer user_data, GDestroyNotify destroy)
{
  return zkr_multi_lock_add_loss_listener (object, func, user_data, destroy);
}

static void
multi_unref (gpointer object)
{
  zkr_multi_lock_unref (object);
}

static const Kind multi_kind = {
  "multi-lock", multi_create, multi_acquire, multi_acquire_async, multi_acquire_finish,
  multi_add_loss, multi_unref, "/a",
};

/* The one node @held holds under its parent (transfer full) (nullable). */
static char *
held_node (Fixture *f, const Kind *kind)
{
  g_autofree char *parent = g_strconcat (f->path, kind->node_parent, NULL);
  g_autoptr (GPtrArray) children = NULL;

  zkr__op_sync_path_sync (f->observer, parent);
  if (zkr__op_test_get_children (f->observer, parent, &children) != ZOK || children->len != 1)
    return NULL;
  return g_strdup_printf ("%s/%s", parent, (char *) g_ptr_array_index (children, 0));
}

/* ==== a loss listener that may drop the object ============================ */

typedef struct {
  Signal signal;
  Held *held;               /* dropped from inside on @drop_on, once armed;
                             * signal.lock */
  int drop_on;              /* a ZkrLockEvent, or -1: never */
  gpointer object;          /* what the listener must be given (not owned) */
  GArray *events;           /* of ZkrLockEvent; signal.lock */
  gboolean dropped;
  gboolean destroyed;
  gboolean wrong_source;
  gboolean on_session_thread;
  GThread *thread;          /* where it must run */
} Probe;

static void
probe_init (Probe *probe, Held *held, int drop_on, GThread *thread)
{
  memset (probe, 0, sizeof *probe);
  signal_init (&probe->signal);
  probe->drop_on = drop_on;
  probe->object = held->object;
  probe->events = g_array_new (FALSE, FALSE, sizeof (ZkrLockEvent));
  probe->thread = thread;
}

/* Checks made in callbacks are recorded, and asserted by the test's
 * thread: CUnit is not thread-safe. */
static void
probe_clear (Probe *probe)
{
  CU_ASSERT_FALSE (probe->wrong_source);
  CU_ASSERT_FALSE (probe->on_session_thread);
  g_array_unref (probe->events);
  signal_clear (&probe->signal);
}

static void
probe_on_loss (gpointer lock, ZkrLockEvent event, gpointer user_data)
{
  Probe *probe = user_data;
  Held *drop = NULL;

  g_mutex_lock (&probe->signal.lock);
  g_array_append_val (probe->events, event);
  probe->wrong_source |= lock != probe->object;
  probe->on_session_thread |= zkr__session_code_running () || g_thread_self () != probe->thread;
  if ((int) event == probe->drop_on)
    drop = g_steal_pointer (&probe->held);
  g_cond_broadcast (&probe->signal.cond);
  g_mutex_unlock (&probe->signal.lock);
  if (drop != NULL)
    {
      /* The last reference, from inside the object's own callback. */
      held_drop (drop);
      signal_set (&probe->signal, &probe->dropped);
    }
}

static void
probe_destroyed (gpointer user_data)
{
  Probe *probe = user_data;

  signal_set (&probe->signal, &probe->destroyed);
}

static guint
probe_events (Probe *probe)
{
  guint n;

  g_mutex_lock (&probe->signal.lock);
  n = probe->events->len;
  g_mutex_unlock (&probe->signal.lock);
  return n;
}

/* TRUE once @probe heard @event. */
static gboolean
probe_wait_event (Probe *probe, ZkrLockEvent event)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  gboolean heard = FALSE;

  g_mutex_lock (&probe->signal.lock);
  for (;;)
    {
      for (guint i = 0; i < probe->events->len && !heard; i++)
        heard = g_array_index (probe->events, ZkrLockEvent, i) == event;
      if (heard || !g_cond_wait_until (&probe->signal.cond, &probe->signal.lock, deadline))
        break;
    }
  g_mutex_unlock (&probe->signal.lock);
  return heard;
}

/* Makes the object with @probe listening on @f's runner, takes it. */
static gboolean
held_start (Fixture *f, Held *held, const Kind *kind, Probe *probe, int drop_on)
{
  g_autoptr (GError) error = NULL;

  held->kind = kind;
  held->object = kind->create (f->session, f->path);
  CU_ASSERT_PTR_NOT_NULL (held->object);
  if (held->object == NULL)
    return FALSE;
  runner_push (&f->runner);
  probe_init (probe, held, drop_on, NULL);
  kind->add_loss (held->object, probe_on_loss, probe, probe_destroyed);
  runner_pop_and_start (&f->runner, "listeners");
  g_mutex_lock (&probe->signal.lock);
  probe->thread = f->runner.thread;
  g_mutex_unlock (&probe->signal.lock);
  if (!kind->acquire (held, &error))
    {
      g_printerr ("%s: acquire failed: %s\n", kind->name, error->message);
      CU_FAIL ("acquire failed");
      return FALSE;
    }
  /* Armed under the lock the listener takes, so that what the acquire
   * wrote is visible to it (even to ThreadSanitizer, which cannot follow
   * the event's way through a socket). */
  g_mutex_lock (&probe->signal.lock);
  probe->held = drop_on >= 0 ? held : NULL;
  g_mutex_unlock (&probe->signal.lock);
  return TRUE;
}

/* ==== scenarios for every lock-like object ================================ */

/* The listener drops the last reference when it hears @event (IN_DOUBT on
 * a partition, LOST on an expiry): the object is finalized afterwards (its
 * listener's destroy runs) and gives its hold up. */
static void
drop_inside_loss_listener (const Kind *kind, ZkrLockEvent event)
{
  Fixture f;
  Held held = { 0 };
  Probe probe;

  if (!fixture_init (&f, "inside-listener") || !held_start (&f, &held, kind, &probe, event))
    {
      held_drop (&held);
      fixture_clear (&f);
      return;
    }
  if (event == ZKR_LOCK_IN_DOUBT)
    break_connection (&f);
  else
    CU_ASSERT_TRUE (itest_expire_session (f.session));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.dropped, WAIT_MS));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  fixture_clear (&f);
  probe_clear (&probe);
}

typedef struct {
  Held *held;
  gboolean done;
  gboolean ok;
  gboolean wrong_thread;
  GThread *thread;
  GError *error;
} AsyncRun;

static void
async_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncRun *run = user_data;

  (void) source;
  run->ok = run->held->kind->acquire_finish (run->held, result, &run->error);
  run->wrong_thread = zkr__session_code_running () || g_thread_self () != run->thread;
  /* The last reference, from inside the async acquire's callback. */
  held_drop (run->held);
  run->done = TRUE;
}

static gboolean
deadline_passed (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The async acquire's callback drops the last reference to the object it
 * was just granted: the hold is given up in the background. */
static void
drop_inside_async_callback (const Kind *kind)
{
  GMainContext *context = g_main_context_new ();
  AsyncRun run = { 0 };
  Held held = { 0 };
  gboolean timed_out = FALSE;
  GSource *timeout;
  Fixture f;

  if (!fixture_init (&f, "inside-async"))
    {
      fixture_clear (&f);
      g_main_context_unref (context);
      return;
    }
  held.kind = kind;
  held.object = kind->create (f.session, f.path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (held.object);
  run.held = &held;
  run.thread = g_thread_self ();
  g_main_context_push_thread_default (context);
  timeout = g_timeout_source_new (WAIT_MS);
  g_source_set_callback (timeout, deadline_passed, &timed_out, NULL);
  g_source_attach (timeout, context);
  kind->acquire_async (&held, async_acquired, &run);
  while (!run.done && !timed_out)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (timeout);
  g_source_unref (timeout);
  while (g_main_context_pending (context))
    g_main_context_iteration (context, FALSE);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
  CU_ASSERT_TRUE (run.done);
  CU_ASSERT_TRUE (run.ok);
  CU_ASSERT_FALSE (run.wrong_thread);
  if (run.error != NULL)
    g_printerr ("%s: async acquire failed: %s\n", kind->name, run.error->message);
  g_clear_error (&run.error);
  held_drop (&held);
  fixture_clear (&f);
}

typedef enum {
  QUEUED_SUSPENDED,
  QUEUED_LOST,
  QUEUED_NODE_DELETED,
} QueuedEvent;

/* The last reference goes while a session event (or our node's deletion)
 * is queued for the worker ahead of the object's free: the worker handles
 * the event after the object is gone and must not touch it; nobody hears
 * anything, the listener's destroy runs, the session goes on, and nothing
 * is left. (The mutex freed itself at once while its queue entry's
 * notifier still named it: the worker's loss event then read the freed
 * mutex, a heap-use-after-free under ASan.) */
static void
drop_with_event_queued (const Kind *kind, QueuedEvent queued)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  Held held = { 0 };
  gboolean queued_ok;
  Probe probe;
  Fixture f;

  if (!fixture_init (&f, "event-queued") || !held_start (&f, &held, kind, &probe, -1))
    {
      held_drop (&held);
      fixture_clear (&f);
      return;
    }
  if (queued == QUEUED_NODE_DELETED)
    {
      ItestWatchOn on;

      node = held_node (&f, kind);
      CU_ASSERT_PTR_NOT_NULL_FATAL (node);
      on.node_path = node;
      on.session_id = zkr_session_get_id (f.session);
      CU_ASSERT_TRUE (itest_wait_for (itest_watch_is_set, &on, WAIT_MS));
    }
  zkr__session_stand_in_begin (f.session);
  switch (queued)
    {
    case QUEUED_SUSPENDED:
      queued_ok = queue_suspended (&f);
      break;
    case QUEUED_LOST:
      queued_ok = queue_lost (&f);
      break;
    case QUEUED_NODE_DELETED:
    default:
      queued_ok = queue_node_deleted (&f, node);
      break;
    }
  held_drop (&held);
  zkr__session_stand_in_end (f.session);
  CU_ASSERT_TRUE (queued_ok);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (zkr_session_wait_connected (f.session, WAIT_MS, NULL, &error));
  CU_ASSERT_EQUAL (probe_events (&probe), 0);
  fixture_clear (&f);
  probe_clear (&probe);
}

/* A loss event is on its way to a listener whose context is held up when
 * the last reference goes (another listener, on a free context, proves
 * that the event was emitted to both): the delivery either still runs
 * with a live object (it holds it) or is dropped, and the object is
 * finalized once it is over. */
static void
drop_with_delivery_queued (const Kind *kind)
{
  Held held = { 0 };
  Probe probe, witness;
  Gate gate;
  Fixture f;

  if (!fixture_init (&f, "delivery-queued") || !held_start (&f, &held, kind, &probe, -1))
    {
      held_drop (&held);
      fixture_clear (&f);
      return;
    }
  runner_push (&f.second);
  probe_init (&witness, &held, -1, NULL);
  kind->add_loss (held.object, probe_on_loss, &witness, probe_destroyed);
  runner_pop_and_start (&f.second, "witness");
  g_mutex_lock (&witness.signal.lock);
  witness.thread = f.second.thread;
  g_mutex_unlock (&witness.signal.lock);
  CU_ASSERT_TRUE_FATAL (gate_close_on (&gate, f.runner.context));
  break_connection (&f);
  CU_ASSERT_TRUE (probe_wait_event (&witness, ZKR_LOCK_IN_DOUBT));
  held_drop (&held);
  signal_set (&gate.signal, &gate.open);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  CU_ASSERT_TRUE (signal_wait (&witness.signal, &witness.destroyed, WAIT_MS));
  fixture_clear (&f);
  probe_clear (&probe);
  probe_clear (&witness);
  signal_clear (&gate.signal);
}

/* ==== session state listeners ============================================= */

typedef struct {
  Signal signal;
  ZkrSession *session;      /* (owned) dropped from inside on drop_on */
  gpointer expected;        /* what the listener must be given (not owned) */
  int drop_on;              /* a ZkrSessionState, or -1 */
  GArray *states;           /* of ZkrSessionState; signal.lock */
  gboolean dropped;
  gboolean destroyed;
  gboolean wrong_source;
  gboolean on_session_thread;
  GThread *thread;
} StateProbe;

static void
state_probe_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  StateProbe *probe = user_data;
  ZkrSession *drop = NULL;

  g_mutex_lock (&probe->signal.lock);
  g_array_append_val (probe->states, state);
  probe->wrong_source |= session != probe->expected;
  probe->on_session_thread |= zkr__session_code_running () || g_thread_self () != probe->thread;
  if ((int) state == probe->drop_on)
    drop = g_steal_pointer (&probe->session);
  g_cond_broadcast (&probe->signal.cond);
  g_mutex_unlock (&probe->signal.lock);
  if (drop != NULL)
    {
      zkr_session_unref (drop);
      signal_set (&probe->signal, &probe->dropped);
    }
}

static void
state_probe_destroyed (gpointer user_data)
{
  StateProbe *probe = user_data;

  signal_set (&probe->signal, &probe->destroyed);
}

/* Adds @probe to @f's session on @runner (started here). */
static void
state_probe_start (StateProbe *probe, Fixture *f, ItestLoopThread *runner, int drop_on)
{
  memset (probe, 0, sizeof *probe);
  signal_init (&probe->signal);
  probe->expected = f->session;
  probe->drop_on = drop_on;
  probe->states = g_array_new (FALSE, FALSE, sizeof (ZkrSessionState));
  runner_push (runner);
  zkr_session_add_state_listener (f->session, state_probe_on_state, probe, state_probe_destroyed);
  runner_pop_and_start (runner, "state-listener");
  g_mutex_lock (&probe->signal.lock);
  probe->thread = runner->thread;
  g_mutex_unlock (&probe->signal.lock);
}

static gboolean
state_probe_wait (StateProbe *probe, ZkrSessionState state)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  gboolean heard = FALSE;

  g_mutex_lock (&probe->signal.lock);
  for (;;)
    {
      for (guint i = 0; i < probe->states->len && !heard; i++)
        heard = g_array_index (probe->states, ZkrSessionState, i) == state;
      if (heard || !g_cond_wait_until (&probe->signal.cond, &probe->signal.lock, deadline))
        break;
    }
  g_mutex_unlock (&probe->signal.lock);
  return heard;
}

static void
state_probe_clear (StateProbe *probe)
{
  CU_ASSERT_FALSE (probe->wrong_source);
  CU_ASSERT_FALSE (probe->on_session_thread);
  g_clear_pointer (&probe->session, zkr_session_unref);
  g_array_unref (probe->states);
  signal_clear (&probe->signal);
}

/* The state listener drops the session's last reference when it hears
 * @state (SUSPENDED on a partition, LOST on an expiry): the session closes
 * and is finalized in the listener's context, and its listener's destroy
 * runs. */
static void
session_drop_inside_listener (ZkrSessionState state)
{
  StateProbe probe;
  Fixture f;

  if (!fixture_init (&f, "session-inside"))
    {
      fixture_clear (&f);
      return;
    }
  state_probe_start (&probe, &f, &f.runner, state);
  g_mutex_lock (&probe.signal.lock);
  probe.session = g_steal_pointer (&f.session);
  g_mutex_unlock (&probe.signal.lock);
  if (state == ZKR_SESSION_STATE_SUSPENDED)
    break_connection (&f);
  else
    /* The session is used at the start only: the listener may drop it
     * before this returns. */
    CU_ASSERT_TRUE (zkr__session_test_expire_once (probe.expected, itest_hosts ()));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.dropped, WAIT_MS));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  fixture_clear (&f);
  state_probe_clear (&probe);
}

static void
test_ownership__session_unref_inside_its_suspended_listener (void)
{
  session_drop_inside_listener (ZKR_SESSION_STATE_SUSPENDED);
}

static void
test_ownership__session_unref_inside_its_lost_listener (void)
{
  session_drop_inside_listener (ZKR_SESSION_STATE_LOST);
}

/* A SUSPENDED is on its way to a listener whose context is held up when
 * the user's last reference goes: the delivery holds the session, runs
 * with it alive, and the session is finalized once it is over. */
static void
test_ownership__session_unref_while_a_delivery_is_queued (void)
{
  StateProbe probe, witness;
  Gate gate;
  Fixture f;

  if (!fixture_init (&f, "session-delivery"))
    {
      fixture_clear (&f);
      return;
    }
  state_probe_start (&probe, &f, &f.runner, -1);
  state_probe_start (&witness, &f, &f.second, -1);
  CU_ASSERT_TRUE_FATAL (gate_close_on (&gate, f.runner.context));
  break_connection (&f);
  CU_ASSERT_TRUE (state_probe_wait (&witness, ZKR_SESSION_STATE_SUSPENDED));
  g_clear_pointer (&f.session, zkr_session_unref);
  signal_set (&gate.signal, &gate.open);
  CU_ASSERT_TRUE (state_probe_wait (&probe, ZKR_SESSION_STATE_SUSPENDED));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  CU_ASSERT_TRUE (signal_wait (&witness.signal, &witness.destroyed, WAIT_MS));
  fixture_clear (&f);
  state_probe_clear (&probe);
  state_probe_clear (&witness);
  signal_clear (&gate.signal);
}

/* ==== dropping from another thread while an event is queued ============== */

typedef struct {
  Signal signal;
  void (*unref) (gpointer object);
  gpointer object;
  gboolean done;
} Dropper;

static gpointer
dropper_main (gpointer data)
{
  Dropper *dropper = data;

  dropper->unref (dropper->object);
  signal_set (&dropper->signal, &dropper->done);
  return NULL;
}

/* An object whose last unref waits for the worker (it closes and deletes
 * its node first: the latch, the selector) is dropped by another thread
 * while a SUSPENDED is queued ahead of everything that unref sends. */
static gboolean
drop_elsewhere_with_suspended_queued (Fixture *f, void (*unref) (gpointer), gpointer object)
{
  Dropper dropper = { .unref = unref, .object = object };
  gboolean queued, done;
  GThread *thread;

  signal_init (&dropper.signal);
  zkr__session_stand_in_begin (f->session);
  queued = queue_suspended (f);
  thread = g_thread_new ("dropper", dropper_main, &dropper);
  zkr__session_stand_in_end (f->session);
  /* Its delete waits for the connection. */
  zkr_test_proxy_heal (f->proxy);
  done = signal_wait (&dropper.signal, &dropper.done, 2 * WAIT_MS);
  if (done)
    g_thread_join (thread);
  else
    g_thread_unref (thread);
  signal_clear (&dropper.signal);
  return queued && done;
}

/* ==== the leader latch ==================================================== */

typedef struct {
  Signal signal;
  ZkrLeaderLatch *latch;    /* (owned) dropped from inside on drop_on */
  gboolean drop_on_not_leader;
  gboolean leader;
  gboolean not_leader;
  gboolean dropped;
  gboolean destroyed;
  gboolean on_session_thread;
  GThread *thread;
} LatchProbe;

static void
latch_probe_heard (LatchProbe *probe, gboolean is_leader)
{
  ZkrLeaderLatch *drop = NULL;

  g_mutex_lock (&probe->signal.lock);
  probe->on_session_thread |= zkr__session_code_running () || g_thread_self () != probe->thread;
  if (is_leader)
    probe->leader = TRUE;
  else
    probe->not_leader = TRUE;
  if (is_leader != probe->drop_on_not_leader)
    drop = g_steal_pointer (&probe->latch);
  g_cond_broadcast (&probe->signal.cond);
  g_mutex_unlock (&probe->signal.lock);
  if (drop != NULL)
    {
      zkr_leader_latch_unref (drop);
      signal_set (&probe->signal, &probe->dropped);
    }
}

static void
latch_probe_is_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  (void) latch;
  latch_probe_heard (user_data, TRUE);
}

static void
latch_probe_not_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  (void) latch;
  latch_probe_heard (user_data, FALSE);
}

static void
latch_probe_destroyed (gpointer user_data)
{
  LatchProbe *probe = user_data;

  signal_set (&probe->signal, &probe->destroyed);
}

/* A started latch with @probe listening on @f's runner; the probe drops it
 * on is_leader, or on not_leader, or (@keep) never. */
static ZkrLeaderLatch *
latch_start (Fixture *f, LatchProbe *probe, gboolean drop_on_not_leader, gboolean keep)
{
  g_autoptr (GError) error = NULL;
  ZkrLeaderLatch *latch = zkr_leader_latch_new (f->session, f->path, "ownership", &error);

  CU_ASSERT_PTR_NOT_NULL_FATAL (latch);
  memset (probe, 0, sizeof *probe);
  signal_init (&probe->signal);
  probe->drop_on_not_leader = drop_on_not_leader;
  runner_push (&f->runner);
  zkr_leader_latch_add_listener (latch, latch_probe_is_leader, latch_probe_not_leader, probe,
                                 latch_probe_destroyed);
  runner_pop_and_start (&f->runner, "latch-listener");
  g_mutex_lock (&probe->signal.lock);
  probe->thread = f->runner.thread;
  probe->latch = keep ? NULL : latch;
  g_mutex_unlock (&probe->signal.lock);
  CU_ASSERT_TRUE (zkr_leader_latch_start (latch, &error));
  return latch;
}

static void
latch_probe_clear (LatchProbe *probe)
{
  CU_ASSERT_FALSE (probe->on_session_thread);
  g_clear_pointer (&probe->latch, zkr_leader_latch_unref);
  signal_clear (&probe->signal);
}

/* is_leader drops the latch's last reference: it closes from inside its
 * listener, its node goes, its listener's destroy runs. */
static void
test_ownership__leader_latch_unref_inside_is_leader (void)
{
  LatchProbe probe;
  Fixture f;

  if (!fixture_init (&f, "latch-is-leader"))
    {
      fixture_clear (&f);
      return;
    }
  (void) latch_start (&f, &probe, FALSE, FALSE);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.dropped, WAIT_MS));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  fixture_clear (&f);
  latch_probe_clear (&probe);
}

/* not_leader (on SUSPENDED) drops the latch's last reference. */
static void
test_ownership__leader_latch_unref_inside_not_leader (void)
{
  LatchProbe probe;
  Fixture f;

  if (!fixture_init (&f, "latch-not-leader"))
    {
      fixture_clear (&f);
      return;
    }
  (void) latch_start (&f, &probe, TRUE, FALSE);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.leader, WAIT_MS));
  break_connection (&f);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.dropped, WAIT_MS));
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  fixture_clear (&f);
  latch_probe_clear (&probe);
}

static void
latch_unref (gpointer latch)
{
  zkr_leader_latch_unref (latch);
}

/* The leading latch's last reference goes with a SUSPENDED queued ahead. */
static void
test_ownership__leader_latch_unref_with_suspended_queued (void)
{
  ZkrLeaderLatch *latch;
  LatchProbe probe;
  Fixture f;

  if (!fixture_init (&f, "latch-queued"))
    {
      fixture_clear (&f);
      return;
    }
  latch = latch_start (&f, &probe, FALSE, TRUE);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.leader, WAIT_MS));
  CU_ASSERT_TRUE (drop_elsewhere_with_suspended_queued (&f, latch_unref, latch));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  fixture_clear (&f);
  latch_probe_clear (&probe);
}

/* ==== the leader selector ================================================= */

typedef enum {
  LEAD_DROP_ON_INTERRUPT,   /* drop the last reference once interrupted */
  LEAD_BLOCK_IN_HANDLER,    /* a handler of the interrupt blocks on a gate */
  LEAD_UNTIL_INTERRUPT,     /* return once interrupted */
} LeadMode;

typedef struct {
  Signal signal;
  LeadMode mode;
  ZkrLeaderSelector *selector;  /* (owned) dropped by the term (DROP mode) */
  Gate gate;                /* LEAD_BLOCK_IN_HANDLER */
  gboolean leading;
  gboolean interrupted;
  gboolean handler_ran;
  gboolean handler_on_session_thread;
  gboolean dropped;
  gboolean destroyed;
} LeadProbe;

/* Runs on whichever thread cancels the interrupt. */
static void
lead_probe_interrupted (GCancellable *interrupt, gpointer user_data)
{
  LeadProbe *probe = user_data;

  (void) interrupt;
  g_mutex_lock (&probe->signal.lock);
  probe->handler_on_session_thread |= zkr__session_code_running ();
  g_mutex_unlock (&probe->signal.lock);
  signal_set (&probe->signal, &probe->handler_ran);
  if (probe->mode == LEAD_BLOCK_IN_HANDLER)
    signal_wait (&probe->gate.signal, &probe->gate.open, 2 * WAIT_MS);
}

static void
lead_probe_lead (ZkrLeaderSelector *selector, gint64 token, GCancellable *interrupt,
                 gpointer user_data)
{
  LeadProbe *probe = user_data;
  gint64 deadline = g_get_monotonic_time () + 2 * (gint64) WAIT_MS * 1000;
  ZkrLeaderSelector *drop = NULL;

  (void) selector;
  (void) token;
  g_cancellable_connect (interrupt, G_CALLBACK (lead_probe_interrupted), probe, NULL);
  signal_set (&probe->signal, &probe->leading);
  /* Polls, as a leader working in steps does. */
  while (!g_cancellable_is_cancelled (interrupt) && g_get_monotonic_time () < deadline)
    g_usleep (2000);
  signal_set (&probe->signal, &probe->interrupted);
  g_mutex_lock (&probe->signal.lock);
  if (probe->mode == LEAD_DROP_ON_INTERRUPT)
    drop = g_steal_pointer (&probe->selector);
  g_mutex_unlock (&probe->signal.lock);
  if (drop != NULL)
    {
      zkr_leader_selector_unref (drop);
      signal_set (&probe->signal, &probe->dropped);
    }
}

static void
lead_probe_destroyed (gpointer user_data)
{
  LeadProbe *probe = user_data;

  signal_set (&probe->signal, &probe->destroyed);
}

static ZkrLeaderSelector *
selector_start (Fixture *f, LeadProbe *probe, LeadMode mode)
{
  g_autoptr (GError) error = NULL;
  ZkrLeaderSelector *selector;

  memset (probe, 0, sizeof *probe);
  signal_init (&probe->signal);
  signal_init (&probe->gate.signal);
  probe->mode = mode;
  selector = zkr_leader_selector_new (f->session, f->path, "ownership", lead_probe_lead, probe,
                                      lead_probe_destroyed, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (selector);
  g_mutex_lock (&probe->signal.lock);
  if (mode == LEAD_DROP_ON_INTERRUPT)
    probe->selector = selector;
  g_mutex_unlock (&probe->signal.lock);
  CU_ASSERT_TRUE (zkr_leader_selector_start (selector, &error));
  CU_ASSERT_TRUE (signal_wait (&probe->signal, &probe->leading, WAIT_MS));
  return selector;
}

static void
lead_probe_clear (LeadProbe *probe)
{
  CU_ASSERT_FALSE (probe->handler_on_session_thread);
  g_clear_pointer (&probe->selector, zkr_leader_selector_unref);
  signal_clear (&probe->signal);
  signal_clear (&probe->gate.signal);
}

/* The term, interrupted by SUSPENDED, drops the selector's last reference
 * from inside the lead callback; the interrupt's handlers ran off the
 * session's threads. */
static void
test_ownership__leader_selector_unref_inside_lead_on_interrupt (void)
{
  LeadProbe probe;
  Fixture f;

  if (!fixture_init (&f, "selector-inside"))
    {
      fixture_clear (&f);
      return;
    }
  (void) selector_start (&f, &probe, LEAD_DROP_ON_INTERRUPT);
  break_connection (&f);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.dropped, WAIT_MS));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.handler_ran, WAIT_MS));
  fixture_clear (&f);
  lead_probe_clear (&probe);
}

/* A handler of the interrupt that blocks does not stall the session: the
 * interrupt is raised off the session's threads, so the session still
 * reconnects while the handler waits. */
static void
test_ownership__leader_selector_interrupt_handlers_do_not_run_on_the_session (void)
{
  g_autoptr (GError) error = NULL;
  ZkrLeaderSelector *selector;
  LeadProbe probe;
  Fixture f;

  if (!fixture_init (&f, "selector-handler"))
    {
      fixture_clear (&f);
      return;
    }
  selector = selector_start (&f, &probe, LEAD_BLOCK_IN_HANDLER);
  break_connection (&f);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.handler_ran, WAIT_MS));
  CU_ASSERT_FALSE (zkr_leader_selector_has_leadership (selector));
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (zkr_session_wait_connected (f.session, WAIT_MS, NULL, &error));
  signal_set (&probe.gate.signal, &probe.gate.open);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.interrupted, WAIT_MS));
  zkr_leader_selector_unref (selector);
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  fixture_clear (&f);
  lead_probe_clear (&probe);
}

static void
selector_unref (gpointer selector)
{
  zkr_leader_selector_unref (selector);
}

/* The leading selector's last reference goes with a SUSPENDED queued
 * ahead. */
static void
test_ownership__leader_selector_unref_with_suspended_queued (void)
{
  ZkrLeaderSelector *selector;
  LeadProbe probe;
  Fixture f;

  if (!fixture_init (&f, "selector-queued"))
    {
      fixture_clear (&f);
      return;
    }
  selector = selector_start (&f, &probe, LEAD_UNTIL_INTERRUPT);
  CU_ASSERT_TRUE (drop_elsewhere_with_suspended_queued (&f, selector_unref, selector));
  CU_ASSERT_TRUE (signal_wait (&probe.signal, &probe.destroyed, WAIT_MS));
  fixture_clear (&f);
  lead_probe_clear (&probe);
}

/* ==== per-thread holds ===================================================== */

static gpointer
rwlock_thread_take (gpointer data)
{
  ItestThreadHold *run = data;

  run->self = g_thread_self ();
  run->acquired = zkr_rwlock_acquire_write (run->lock, WAIT_MS, NULL, NULL);
  return NULL; /* ends holding it */
}

static gpointer
rwlock_thread_look (gpointer data)
{
  ItestThreadHold *run = data;
  g_autoptr (GError) error = NULL;

  run->self = g_thread_self ();
  run->held = zkr_rwlock_is_write_held (run->lock);
  run->count = zkr_rwlock_get_write_hold_count (run->lock);
  run->release_refused = !zkr_rwlock_release_write (run->lock, &error) &&
                         g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD);
  g_clear_error (&error);
  run->try_refused = run->try_also && !zkr_rwlock_acquire_write (run->lock, 0, NULL, &error) &&
                     g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT);
  return NULL;
}

/* A thread that ended holding the write lock keeps it (until the object
 * goes); threads started after it, often at the same GThread address, do
 * not inherit it: they neither hold it nor can release it, and they queue
 * behind it. */
static void
test_ownership__rwlock_a_new_thread_does_not_inherit_a_dead_threads_hold (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *path = itest_scratch_path ("rwlock-dead-thread");
  ZkrRwlock *rwlock;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  rwlock = zkr_rwlock_new (session, path, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rwlock);
  itest_assert_dead_threads_hold_stays (session, path, rwlock, rwlock_thread_take,
                                        rwlock_thread_look);
  zkr_rwlock_unref (rwlock);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* ==== the context rule's check ============================================ */

typedef struct {
  Signal signal;
  gboolean ran;
} WorkerPost;

static gboolean
worker_post_run (gpointer data)
{
  WorkerPost *post = data;

  signal_set (&post->signal, &post->ran);
  return G_SOURCE_REMOVE;
}

/* What delivers user code (zkr__context_post) says so, in debug builds,
 * when it runs on a thread that runs a session's code: here a post to the
 * worker's own context, as a GTask made on the worker would get. */
static void
test_ownership__user_code_on_the_worker_is_reported (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), SESSION_MS);
  WorkerPost post = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_FALSE (zkr__session_code_running ());
  signal_init (&post.signal);
  zkr_test_expect_criticals_begin ();
  zkr__context_post (zkr__session_get_worker_context (session), worker_post_run, &post, NULL);
  CU_ASSERT_TRUE (signal_wait (&post.signal, &post.ran, WAIT_MS));
#ifndef NDEBUG
  CU_ASSERT_EQUAL (zkr_test_expect_criticals_end (), 1);
#else
  CU_ASSERT_EQUAL (zkr_test_expect_criticals_end (), 0);
#endif
  signal_clear (&post.signal);
  zkr_session_unref (session);
}

/* ==== the table ============================================================ */

#define LOCK_TESTS(kind)                                                              \
  static void test_ownership__##kind##_unref_inside_in_doubt_listener (void)          \
  {                                                                                   \
    drop_inside_loss_listener (&kind##_kind, ZKR_LOCK_IN_DOUBT);                      \
  }                                                                                   \
  static void test_ownership__##kind##_unref_inside_lost_listener (void)              \
  {                                                                                   \
    drop_inside_loss_listener (&kind##_kind, ZKR_LOCK_LOST);                          \
  }                                                                                   \
  static void test_ownership__##kind##_unref_inside_async_acquire_callback (void)     \
  {                                                                                   \
    drop_inside_async_callback (&kind##_kind);                                        \
  }                                                                                   \
  static void test_ownership__##kind##_unref_with_suspended_queued (void)             \
  {                                                                                   \
    drop_with_event_queued (&kind##_kind, QUEUED_SUSPENDED);                          \
  }                                                                                   \
  static void test_ownership__##kind##_unref_with_lost_queued (void)                  \
  {                                                                                   \
    drop_with_event_queued (&kind##_kind, QUEUED_LOST);                               \
  }                                                                                   \
  static void test_ownership__##kind##_unref_with_node_deletion_queued (void)         \
  {                                                                                   \
    drop_with_event_queued (&kind##_kind, QUEUED_NODE_DELETED);                       \
  }                                                                                   \
  static void test_ownership__##kind##_unref_while_a_loss_delivery_is_queued (void)   \
  {                                                                                   \
    drop_with_delivery_queued (&kind##_kind);                                         \
  }

#define LOCK_CASES(kind)                                                    \
  ZKR_TEST_CASE (test_ownership__##kind##_unref_with_suspended_queued),     \
  ZKR_TEST_CASE (test_ownership__##kind##_unref_with_lost_queued),          \
  ZKR_TEST_CASE (test_ownership__##kind##_unref_with_node_deletion_queued), \
  ZKR_TEST_CASE (test_ownership__##kind##_unref_inside_in_doubt_listener),  \
  ZKR_TEST_CASE (test_ownership__##kind##_unref_inside_lost_listener),      \
  ZKR_TEST_CASE (test_ownership__##kind##_unref_inside_async_acquire_callback), \
  ZKR_TEST_CASE (test_ownership__##kind##_unref_while_a_loss_delivery_is_queued)

LOCK_TESTS (mutex)
LOCK_TESTS (reentrant)
LOCK_TESTS (rwlock)
LOCK_TESTS (semaphore)
LOCK_TESTS (multi)

static const ZkrTestCase tests[] = {
  LOCK_CASES (mutex),
  LOCK_CASES (reentrant),
  LOCK_CASES (rwlock),
  LOCK_CASES (semaphore),
  LOCK_CASES (multi),
  ZKR_TEST_CASE (test_ownership__session_unref_inside_its_suspended_listener),
  ZKR_TEST_CASE (test_ownership__session_unref_inside_its_lost_listener),
  ZKR_TEST_CASE (test_ownership__session_unref_while_a_delivery_is_queued),
  ZKR_TEST_CASE (test_ownership__leader_latch_unref_inside_is_leader),
  ZKR_TEST_CASE (test_ownership__leader_latch_unref_inside_not_leader),
  ZKR_TEST_CASE (test_ownership__leader_latch_unref_with_suspended_queued),
  ZKR_TEST_CASE (test_ownership__leader_selector_unref_inside_lead_on_interrupt),
  ZKR_TEST_CASE (test_ownership__leader_selector_interrupt_handlers_do_not_run_on_the_session),
  ZKR_TEST_CASE (test_ownership__leader_selector_unref_with_suspended_queued),
  ZKR_TEST_CASE (test_ownership__rwlock_a_new_thread_does_not_inherit_a_dead_threads_hold),
  ZKR_TEST_CASE (test_ownership__user_code_on_the_worker_is_reported),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "ownership", NULL, NULL, tests);
}
