/* zkr integration: every call that takes a timeout or a GCancellable
 * answers by its deadline, or soon after a cancel, in every session state:
 * connected but cut off (a black hole the client has not noticed yet),
 * queued behind a holder and cut off, SUSPENDED, and LOST before the fresh
 * session connects. Such calls once answered only when the
 * client noticed the partition (2/3 of the session timeout) or healed.
 * The calls that take a cancellable but no timeout (verify, the listings,
 * the leader's id, the shared count's first read) answer a cancel before
 * the client notices anything, send nothing when cancelled before, and
 * answer at once when the session is not connected. */

#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "proxy.h"
#include "zkr-test.h"

#define WAIT_MS 30000
/* How much later than its deadline (or its cancel) a call may answer: its
 * answer's hand-offs (worker, completion thread, the caller's context) on
 * a sanitizer build of a loaded 2-core machine. The defect this guards
 * against is 9-15 s late, so the margin can be tight. */
#define MARGIN_MS 750
/* A timeout is not answered before its deadline (timers count whole ms). */
#define EARLY_MS 20
#define CALL_TIMEOUT_MS 1000
#define CANCEL_AFTER_MS 300
/* Cut off but not noticed: libzookeeper gives up on a silent connection
 * 2/3 of the session timeout after its last byte (10 s here), long after
 * every deadline below. */
#define UNNOTICED_SESSION_MS 15000
/* SUSPENDED comes 2/3 T after the last byte, LOST T after the last
 * answered request: with a round trip just before the black hole, 3 s of
 * SUSPENDED (from 6 s to 9 s) for a 1 s call. */
#define SUSPENDED_SESSION_MS 9000
/* LOST 4 s into the black hole; the fresh session cannot connect through
 * it, so the session stays LOST as long as the test wants. */
#define LOST_SESSION_MS 4000
#define DIRECT_SESSION_MS 10000
/* How long a late answer is waited for before the partition is healed to
 * free the caller: past the moment the client notices the black hole of an
 * unnoticed session (10 s), so that how late a late answer is shows. */
#define LATE_CAP_MS 12000

/* ---- what is called: one Kind per recipe and call ---------------------- */

typedef struct {
  const char *name;
  /* Sub-paths of the test's base path whose children are queue nodes,
   * NULL-terminated ("" is the base itself); a queued waiter's node shows
   * in the first. */
  const char *queues[3];
  /* The call waits only behind a holder (the latch's await returns at
   * once while it leads): it gets one in every session state. */
  gboolean needs_holder;
  gpointer (*waiter_new) (ZkrSession *session, const char *base);
  /* (nullable) Joins the queue before the call (the latch's start). */
  void (*waiter_start) (gpointer waiter);
  gboolean (*call) (gpointer waiter, int timeout_ms, GCancellable *cancellable, GError **error);
  /* (nullable) The async twin of @call and its finish. */
  void (*call_async) (gpointer waiter, int timeout_ms, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data);
  gboolean (*call_finish) (gpointer waiter, GAsyncResult *result, GError **error);
  /* (nullable) After a call that succeeded (which no test expects), from
   * the calling thread: gives back what it took. */
  void (*give_back) (gpointer waiter);
  /* After healing; may block on a delete. */
  void (*waiter_free) (gpointer waiter);
  /* (nullable) Returns once every request the waiter sent by itself is
   * answered (a held lock's deferred node watch), so that what the session
   * sends from then on is the call's. */
  void (*settle) (gpointer waiter, ZkrSession *session);
  /* (nullable) Right after a cancelled call: checks the waiter is as it
   * was before the call. */
  void (*check_unchanged) (gpointer waiter);
  /* On another, direct session: holds (or leads) when it returns. */
  gpointer (*holder_new) (ZkrSession *session, const char *base);
  void (*holder_free) (gpointer holder);
} Kind;

static char *
queue_path (const char *base, const char *sub)
{
  return *sub == '\0' ? g_strdup (base) : g_strdup_printf ("%s/%s", base, sub);
}

/* -- mutex -- */

static gpointer
mutex_waiter_new (ZkrSession *session, const char *base)
{
  g_autoptr (GError) error = NULL;
  ZkrMutex *mutex = zkr_mutex_new (session, base, &error);

  CU_ASSERT_PTR_NOT_NULL (mutex);
  return mutex;
}

static gboolean
mutex_call (gpointer waiter, int timeout_ms, GCancellable *cancellable, GError **error)
{
  return zkr_mutex_acquire (waiter, timeout_ms, cancellable, error);
}

static void
mutex_call_async (gpointer waiter, int timeout_ms, GCancellable *cancellable,
                  GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_mutex_acquire_async (waiter, timeout_ms, cancellable, callback, user_data);
}

static gboolean
mutex_call_finish (gpointer waiter, GAsyncResult *result, GError **error)
{
  return zkr_mutex_acquire_finish (waiter, result, error);
}

static void
mutex_give_back (gpointer waiter)
{
  zkr_mutex_release (waiter, NULL);
}

static void
mutex_free (gpointer mutex)
{
  zkr_mutex_unref (mutex);
}

static gpointer
mutex_holder_at (ZkrSession *session, const char *path)
{
  ZkrMutex *mutex = mutex_waiter_new (session, path);

  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, WAIT_MS, NULL, NULL));
  return mutex;
}

static gpointer
mutex_holder_new (ZkrSession *session, const char *base)
{
  return mutex_holder_at (session, base);
}

static void
mutex_holder_free (gpointer holder)
{
  CU_ASSERT_TRUE (zkr_mutex_release (holder, NULL));
  zkr_mutex_unref (holder);
}

static const Kind mutex_kind = {
  .name = "mutex",
  .queues = { "", NULL },
  .waiter_new = mutex_waiter_new,
  .call = mutex_call,
  .call_async = mutex_call_async,
  .call_finish = mutex_call_finish,
  .give_back = mutex_give_back,
  .waiter_free = mutex_free,
  .holder_new = mutex_holder_new,
  .holder_free = mutex_holder_free,
};

/* -- rwlock: a reader behind a writer, a writer behind a reader -- */

static gpointer
rwlock_waiter_new (ZkrSession *session, const char *base)
{
  g_autoptr (GError) error = NULL;
  ZkrRwlock *rwlock = zkr_rwlock_new (session, base, &error);

  CU_ASSERT_PTR_NOT_NULL (rwlock);
  return rwlock;
}

static void
rwlock_free (gpointer rwlock)
{
  zkr_rwlock_unref (rwlock);
}

static gboolean
read_call (gpointer waiter, int timeout_ms, GCancellable *cancellable, GError **error)
{
  return zkr_rwlock_acquire_read (waiter, timeout_ms, cancellable, error);
}

static void
read_call_async (gpointer waiter, int timeout_ms, GCancellable *cancellable,
                 GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_rwlock_acquire_read_async (waiter, timeout_ms, cancellable, callback, user_data);
}

static gboolean
read_call_finish (gpointer waiter, GAsyncResult *result, GError **error)
{
  return zkr_rwlock_acquire_read_finish (waiter, result, error);
}

static void
read_give_back (gpointer waiter)
{
  zkr_rwlock_release_read (waiter, NULL);
}

static gboolean
write_call (gpointer waiter, int timeout_ms, GCancellable *cancellable, GError **error)
{
  return zkr_rwlock_acquire_write (waiter, timeout_ms, cancellable, error);
}

static void
write_call_async (gpointer waiter, int timeout_ms, GCancellable *cancellable,
                  GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_rwlock_acquire_write_async (waiter, timeout_ms, cancellable, callback, user_data);
}

static gboolean
write_call_finish (gpointer waiter, GAsyncResult *result, GError **error)
{
  return zkr_rwlock_acquire_write_finish (waiter, result, error);
}

static void
write_give_back (gpointer waiter)
{
  zkr_rwlock_release_write (waiter, NULL);
}

/* Holders hold from the test's thread (the rwlock's holds are per thread)
 * and are released from it. */
static gpointer
writer_holder_new (ZkrSession *session, const char *base)
{
  ZkrRwlock *rwlock = rwlock_waiter_new (session, base);

  CU_ASSERT_PTR_NOT_NULL_FATAL (rwlock);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (rwlock, WAIT_MS, NULL, NULL));
  return rwlock;
}

static void
writer_holder_free (gpointer holder)
{
  CU_ASSERT_TRUE (zkr_rwlock_release_write (holder, NULL));
  zkr_rwlock_unref (holder);
}

static gpointer
reader_holder_new (ZkrSession *session, const char *base)
{
  ZkrRwlock *rwlock = rwlock_waiter_new (session, base);

  CU_ASSERT_PTR_NOT_NULL_FATAL (rwlock);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (rwlock, WAIT_MS, NULL, NULL));
  return rwlock;
}

static void
reader_holder_free (gpointer holder)
{
  CU_ASSERT_TRUE (zkr_rwlock_release_read (holder, NULL));
  zkr_rwlock_unref (holder);
}

static const Kind read_kind = {
  .name = "rwlock-read",
  .queues = { "", NULL },
  .waiter_new = rwlock_waiter_new,
  .call = read_call,
  .call_async = read_call_async,
  .call_finish = read_call_finish,
  .give_back = read_give_back,
  .waiter_free = rwlock_free,
  .holder_new = writer_holder_new,
  .holder_free = writer_holder_free,
};

static const Kind write_kind = {
  .name = "rwlock-write",
  .queues = { "", NULL },
  .waiter_new = rwlock_waiter_new,
  .call = write_call,
  .call_async = write_call_async,
  .call_finish = write_call_finish,
  .give_back = write_give_back,
  .waiter_free = rwlock_free,
  .holder_new = reader_holder_new,
  .holder_free = reader_holder_free,
};

/* -- semaphore: one lease; a waiter behind the holder of the only one -- */

typedef struct {
  ZkrSemaphore *semaphore;
  GPtrArray *leases;   /* (nullable) what the last acquire took */
} Leases;

static gpointer
semaphore_waiter_new (ZkrSession *session, const char *base)
{
  g_autoptr (GError) error = NULL;
  Leases *leases = g_new0 (Leases, 1);

  leases->semaphore = zkr_semaphore_new (session, base, 1, &error);
  CU_ASSERT_PTR_NOT_NULL (leases->semaphore);
  if (leases->semaphore == NULL)
    g_clear_pointer (&leases, g_free);
  return leases;
}

static gboolean
semaphore_call (gpointer waiter, int timeout_ms, GCancellable *cancellable, GError **error)
{
  Leases *leases = waiter;

  leases->leases = zkr_semaphore_acquire (leases->semaphore, 1, timeout_ms, cancellable, error);
  return leases->leases != NULL;
}

static void
semaphore_give_back (gpointer waiter)
{
  Leases *leases = waiter;

  for (guint i = 0; leases->leases != NULL && i < leases->leases->len; i++)
    CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (leases->leases, i), NULL));
  g_clear_pointer (&leases->leases, g_ptr_array_unref);
}

static void
semaphore_free (gpointer waiter)
{
  Leases *leases = waiter;

  semaphore_give_back (leases);
  zkr_semaphore_unref (leases->semaphore);
  g_free (leases);
}

static gpointer
semaphore_holder_new (ZkrSession *session, const char *base)
{
  Leases *leases = semaphore_waiter_new (session, base);

  CU_ASSERT_PTR_NOT_NULL_FATAL (leases);
  CU_ASSERT_TRUE_FATAL (semaphore_call (leases, WAIT_MS, NULL, NULL));
  return leases;
}

static const Kind semaphore_kind = {
  .name = "semaphore",
  .queues = { "leases", "locks", NULL },
  .waiter_new = semaphore_waiter_new,
  .call = semaphore_call,
  .give_back = semaphore_give_back,
  .waiter_free = semaphore_free,
  .holder_new = semaphore_holder_new,
  .holder_free = semaphore_free,
};

/* -- multi-lock over a and b: the holder has b, so a waiter holds a
 * (taken first: the paths are sorted) while it waits for b -- */

static gpointer
multi_lock_waiter_new (ZkrSession *session, const char *base)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *a = queue_path (base, "a");
  g_autofree char *b = queue_path (base, "b");
  const char *const paths[] = { a, b, NULL };
  ZkrMultiLock *multi = zkr_multi_lock_new (session, paths, &error);

  CU_ASSERT_PTR_NOT_NULL (multi);
  return multi;
}

static gboolean
multi_lock_call (gpointer waiter, int timeout_ms, GCancellable *cancellable, GError **error)
{
  return zkr_multi_lock_acquire (waiter, timeout_ms, cancellable, error);
}

static void
multi_lock_give_back (gpointer waiter)
{
  zkr_multi_lock_release (waiter, NULL);
}

static void
multi_lock_free (gpointer multi)
{
  zkr_multi_lock_unref (multi);
}

static gpointer
multi_lock_holder_new (ZkrSession *session, const char *base)
{
  g_autofree char *b = queue_path (base, "b");

  return mutex_holder_at (session, b);
}

static const Kind multi_lock_kind = {
  .name = "multi-lock",
  .queues = { "b", "a", NULL },
  .waiter_new = multi_lock_waiter_new,
  .call = multi_lock_call,
  .give_back = multi_lock_give_back,
  .waiter_free = multi_lock_free,
  .holder_new = multi_lock_holder_new,
  .holder_free = mutex_holder_free,
};

/* -- leader latch: await behind a leader -- */

static gpointer
latch_new (ZkrSession *session, const char *base, const char *id)
{
  g_autoptr (GError) error = NULL;
  ZkrLeaderLatch *latch = zkr_leader_latch_new (session, base, id, &error);

  CU_ASSERT_PTR_NOT_NULL (latch);
  return latch;
}

static gpointer
latch_waiter_new (ZkrSession *session, const char *base)
{
  return latch_new (session, base, "waiter");
}

static void
latch_start (gpointer latch)
{
  CU_ASSERT_TRUE (zkr_leader_latch_start (latch, NULL));
}

static gboolean
latch_call (gpointer latch, int timeout_ms, GCancellable *cancellable, GError **error)
{
  return zkr_leader_latch_await (latch, timeout_ms, cancellable, error);
}

static void
latch_call_async (gpointer latch, int timeout_ms, GCancellable *cancellable,
                  GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_leader_latch_await_async (latch, timeout_ms, cancellable, callback, user_data);
}

static gboolean
latch_call_finish (gpointer latch, GAsyncResult *result, GError **error)
{
  return zkr_leader_latch_await_finish (latch, result, error);
}

/* Closed once the partition healed: the close waits for its delete. */
static void
latch_free (gpointer latch)
{
  g_autoptr (GError) error = NULL;

  if (!zkr_leader_latch_close (latch, ZKR_LEADER_CLOSE_SILENT, &error))
    g_printerr ("leader latch close: %s\n", error->message);
  CU_ASSERT_PTR_NULL (error);
  zkr_leader_latch_unref (latch);
}

static gpointer
latch_holder_new (ZkrSession *session, const char *base)
{
  ZkrLeaderLatch *latch = latch_new (session, base, "leader");

  CU_ASSERT_PTR_NOT_NULL_FATAL (latch);
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_start (latch, NULL));
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (latch, WAIT_MS, NULL, NULL));
  return latch;
}

static const Kind latch_kind = {
  .name = "leader-latch",
  .queues = { "", NULL },
  .needs_holder = TRUE,
  .waiter_new = latch_waiter_new,
  .waiter_start = latch_start,
  .call = latch_call,
  .call_async = latch_call_async,
  .call_finish = latch_call_finish,
  .waiter_free = latch_free,
  .holder_new = latch_holder_new,
  .holder_free = latch_free,
};

/* -- mutex release: the waiter holds the mutex; the call gives it back -- */

static gpointer
mutex_held_new (ZkrSession *session, const char *base)
{
  return mutex_holder_at (session, base);
}

static gboolean
release_call (gpointer mutex, int timeout_ms, GCancellable *cancellable, GError **error)
{
  (void) timeout_ms;
  (void) cancellable;
  return zkr_mutex_release (mutex, error);
}

static void
release_call_async (gpointer mutex, int timeout_ms, GCancellable *cancellable,
                    GAsyncReadyCallback callback, gpointer user_data)
{
  (void) timeout_ms;
  zkr_mutex_release_async (mutex, cancellable, callback, user_data);
}

static gboolean
release_call_finish (gpointer mutex, GAsyncResult *result, GError **error)
{
  return zkr_mutex_release_finish (mutex, result, error);
}

/* Unref'd once healed: the delete a failed release left pending is done
 * then (fixture_finish waits for the queue to be empty). */
static const Kind mutex_release_kind = {
  .name = "mutex-release",
  .queues = { "", NULL },
  .waiter_new = mutex_held_new,
  .call = release_call,
  .call_async = release_call_async,
  .call_finish = release_call_finish,
  .waiter_free = mutex_free,
};

/* ---- calls with a cancellable and no deadline of their own --------------
 * Each request sent once: answered at once when the session is not
 * connected, by libzookeeper giving up on a silent link (2/3 of the
 * session timeout), or by a cancel. */

/* -- verify: the waiter holds the mutex -- */

static gboolean
verify_call (gpointer mutex, int timeout_ms, GCancellable *cancellable, GError **error)
{
  (void) timeout_ms;
  return zkr_mutex_verify (mutex, cancellable, error);
}

/* A held mutex watches its node from about 100 ms after the grant: once
 * the server lists that watch, one round trip behind it sees its reply
 * in (a session's replies come in order). */
static void
mutex_hold_settle (gpointer mutex, ZkrSession *session)
{
  g_autofree char *node = zkr_mutex_dup_node_path (mutex);
  ItestWatchOn on = { node, zkr_session_get_id (session) };

  CU_ASSERT_PTR_NOT_NULL_FATAL (node);
  CU_ASSERT_TRUE (itest_wait_for (itest_watch_is_set, &on, WAIT_MS));
  CU_ASSERT_EQUAL (zkr__op_test_exists (session, "/", NULL), ZOK);
}

static void
mutex_still_held (gpointer mutex)
{
  CU_ASSERT_TRUE (zkr_mutex_is_held (mutex));
}

static const Kind mutex_verify_kind = {
  .name = "mutex-verify",
  .queues = { "", NULL },
  .waiter_new = mutex_held_new,
  .call = verify_call,
  .waiter_free = mutex_free,
  .settle = mutex_hold_settle,
  .check_unchanged = mutex_still_held,
};

/* -- list_participants: the waiter's mutex lists the holder's queue -- */

static gboolean
list_call (gpointer mutex, int timeout_ms, GCancellable *cancellable, GError **error)
{
  g_autoptr (GPtrArray) participants = NULL;

  (void) timeout_ms;
  participants = zkr_mutex_list_participants (mutex, cancellable, error);
  return participants != NULL;
}

static const Kind mutex_list_kind = {
  .name = "mutex-list",
  .queues = { "", NULL },
  .waiter_new = mutex_waiter_new,
  .call = list_call,
  .waiter_free = mutex_free,
  .holder_new = mutex_holder_new,
  .holder_free = mutex_holder_free,
};

/* -- dup_leader_id: a latch that does not take part asks who leads -- */

static gboolean
leader_id_call (gpointer latch, int timeout_ms, GCancellable *cancellable, GError **error)
{
  g_autofree char *leader = NULL;

  (void) timeout_ms;
  leader = zkr_leader_latch_dup_leader_id (latch, cancellable, error);
  return leader != NULL;
}

static void
latch_unref (gpointer latch)
{
  zkr_leader_latch_unref (latch);
}

static const Kind latch_leader_id_kind = {
  .name = "leader-latch-id",
  .queues = { "", NULL },
  .waiter_new = latch_waiter_new,
  .call = leader_id_call,
  .waiter_free = latch_unref,
  .holder_new = latch_holder_new,
  .holder_free = latch_free,
};

/* -- new_shared_count: a semaphore made from a count node -- */

typedef struct {
  ZkrSession *session;     /* borrowed: the fixture's */
  char *path;
  char *count_path;
  ZkrSemaphore *semaphore; /* (nullable) what a call that succeeded made */
} SharedCount;

static gpointer
shared_count_new (ZkrSession *session, const char *base)
{
  static const char two[4] = { 0, 0, 0, 2 };
  SharedCount *shared = g_new0 (SharedCount, 1);

  shared->session = session;
  shared->path = queue_path (base, "semaphore");
  shared->count_path = queue_path (base, "count");
  CU_ASSERT_EQUAL (zkr__op_test_create (session, shared->count_path, two, sizeof two, 0, NULL,
                                        NULL),
                   ZOK);
  return shared;
}

static gboolean
shared_count_call (gpointer waiter, int timeout_ms, GCancellable *cancellable, GError **error)
{
  SharedCount *shared = waiter;

  (void) timeout_ms;
  g_clear_pointer (&shared->semaphore, zkr_semaphore_unref);
  shared->semaphore = zkr_semaphore_new_shared_count (shared->session, shared->path,
                                                      shared->count_path, cancellable, error);
  return shared->semaphore != NULL;
}

/* After healing. The count node goes through the session that made it:
 * the direct session's server may not list it yet, and its delete of the
 * base would then find the base not empty. */
static void
shared_count_free (gpointer waiter)
{
  SharedCount *shared = waiter;

  g_clear_pointer (&shared->semaphore, zkr_semaphore_unref);
  CU_ASSERT_EQUAL (zkr__op_delete_sync (shared->session, shared->count_path, -1), ZOK);
  g_free (shared->path);
  g_free (shared->count_path);
  g_free (shared);
}

/* Nothing is made under the base but the count node. */
static const Kind shared_count_kind = {
  .name = "semaphore-shared-count",
  .queues = { NULL },
  .waiter_new = shared_count_new,
  .call = shared_count_call,
  .waiter_free = shared_count_free,
};

/* ---- the fixture: a session through the proxy, one straight in --------- */

typedef struct {
  const Kind *kind;
  ZkrTestProxy *proxy;
  ZkrSession *proxied;      /* the session under test, through the proxy */
  ItestRecorder *recorder;  /* its states */
  ZkrSession *direct;       /* holders, checks and clean-up */
  char *base;               /* the test's scratch path, made up front */
  gpointer waiter;          /* the kind's object on the proxied session */
  gpointer holder;          /* (nullable) on the direct session */
  char *what;               /* "mutex timeout", for messages */
} Fixture;

static void
fixture_init (Fixture *f, const Kind *kind, const char *scenario, int session_timeout_ms)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_strdup_printf ("deadlines-%s-%s", kind->name, scenario);
  g_autofree char *address = NULL;

  memset (f, 0, sizeof *f);
  f->kind = kind;
  f->what = g_strdup_printf ("%s %s", kind->name, scenario);
  f->proxy = zkr_test_proxy_new (itest_hosts (), &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->proxy);
  address = zkr_test_proxy_dup_address (f->proxy);
  f->proxied = itest_connect_recorded (address, session_timeout_ms, &f->recorder);
  f->direct = itest_connect (itest_hosts (), DIRECT_SESSION_MS);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->proxied);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->direct);
  f->base = itest_scratch_path (name);
  CU_ASSERT_EQUAL_FATAL (itest_create_with_retries (f->direct, f->base, WAIT_MS), ZOK);
  f->waiter = kind->waiter_new (f->proxied, f->base);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->waiter);
}

/* A holder on the direct session. */
static void
fixture_hold (Fixture *f)
{
  f->holder = f->kind->holder_new (f->direct, f->base);
}

static void
fixture_start_waiter (Fixture *f)
{
  if (f->kind->waiter_start != NULL)
    f->kind->waiter_start (f->waiter);
}

/* TRUE once the waiter's node shows behind the holder's, by @until. */
static gboolean
fixture_wait_queued (Fixture *f, gint64 until)
{
  g_autofree char *path = queue_path (f->base, f->kind->queues[0]);
  gint64 left_ms = (until - g_get_monotonic_time ()) / 1000;

  return left_ms > 0 && itest_wait_for_children (f->direct, path, 2, (int) left_ms);
}

/* Cuts the session under test off. The round trip first makes its last
 * byte now: the client notices the silence 2/3 of the session timeout
 * from here, and the liveness clock says LOST a whole timeout from here. */
static void
fixture_black_hole (Fixture *f)
{
  CU_ASSERT_EQUAL (zkr__op_test_exists (f->proxied, "/", NULL), ZOK);
  zkr_test_proxy_blackhole (f->proxy);
}

/* Black-holes and waits until the session under test reports @state. */
static void
fixture_black_hole_until (Fixture *f, ZkrSessionState state)
{
  guint from = itest_recorder_count (f->recorder);

  fixture_black_hole (f);
  CU_ASSERT_TRUE_FATAL (itest_recorder_wait_state (f->recorder, state, from, WAIT_MS, NULL) >= 0);
  /* Still in it: the call below is made in @state. */
  CU_ASSERT_EQUAL (zkr_session_get_state (f->proxied), state);
}

static gboolean
session_answers (gpointer data)
{
  return zkr__op_test_exists (data, "/", NULL) == ZOK;
}

/* Heals, gives the objects back, waits until the background deletes of
 * failed calls are done, and checks that nothing is left. */
static void
fixture_finish (Fixture *f)
{
  zkr_test_proxy_heal (f->proxy);
  /* ZooKeeper answers a session's requests in order: once one is
   * answered, every create the session under test sent is settled. */
  CU_ASSERT_TRUE (itest_wait_for (session_answers, f->proxied, WAIT_MS));
  f->kind->waiter_free (f->waiter);
  if (f->holder != NULL)
    f->kind->holder_free (f->holder);
  for (guint i = 0; f->kind->queues[i] != NULL; i++)
    {
      g_autofree char *path = queue_path (f->base, f->kind->queues[i]);

      if (!itest_wait_for_children (f->direct, path, 0, WAIT_MS))
        {
          g_printerr ("%s: %u node(s) left under %s\n", f->what,
                      itest_count_children (f->direct, path), path);
          CU_FAIL ("a node was left behind");
        }
    }
  CU_ASSERT_TRUE (itest_delete_tree (f->direct, f->base));
  CU_ASSERT_TRUE (itest_node_absent (f->direct, f->base));
  itest_recorder_free (f->recorder);
  zkr_session_unref (f->proxied);
  zkr_session_unref (f->direct);
  zkr_test_proxy_free (f->proxy);
  g_free (f->base);
  g_free (f->what);
}

/* ---- the call under test, timed ----------------------------------------
 * A blocking call runs on a thread of its own; an async one is started
 * from the test's thread, whose context (thread-default) runs its
 * callback. Either way the answer's time is taken where it arrives. */

typedef struct {
  const Kind *kind;
  gpointer waiter;
  int timeout_ms;
  GCancellable *cancellable;  /* (owned) (nullable) */
  GMainContext *context;      /* (owned) (nullable) async: the test thread's */
  GThread *thread;            /* (nullable) blocking: the caller */
  GMutex lock;
  GCond cond;
  gint64 started;             /* monotonic µs; under lock */
  gint64 answered;            /* 0 until answered; under lock */
  gboolean ok;
  GError *error;
} Call;

static void
call_answer (Call *call, gint64 at, gboolean ok, GError *error)
{
  g_mutex_lock (&call->lock);
  call->answered = at;
  call->ok = ok;
  call->error = error;
  g_cond_broadcast (&call->cond);
  g_mutex_unlock (&call->lock);
}

static gpointer
call_run (gpointer data)
{
  Call *call = data;
  GError *error = NULL;
  gboolean ok;
  gint64 at;

  g_mutex_lock (&call->lock);
  call->started = g_get_monotonic_time ();
  g_cond_broadcast (&call->cond);
  g_mutex_unlock (&call->lock);
  ok = call->kind->call (call->waiter, call->timeout_ms, call->cancellable, &error);
  at = g_get_monotonic_time ();
  if (ok && call->kind->give_back != NULL)
    call->kind->give_back (call->waiter);
  call_answer (call, at, ok, error);
  return NULL;
}

static void
call_async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  gint64 at = g_get_monotonic_time ();
  GError *error = NULL;
  gboolean ok;

  (void) source;
  ok = call->kind->call_finish (call->waiter, result, &error);
  if (ok && call->kind->give_back != NULL)
    call->kind->give_back (call->waiter);
  call_answer (call, at, ok, error);
}

/* Starts the call; returns once it has started. @cancellable: (transfer full). */
static Call *
call_start (Fixture *f, int timeout_ms, GCancellable *cancellable, gboolean async)
{
  Call *call = g_new0 (Call, 1);

  call->kind = f->kind;
  call->waiter = f->waiter;
  call->timeout_ms = timeout_ms;
  call->cancellable = cancellable;
  g_mutex_init (&call->lock);
  g_cond_init (&call->cond);
  if (async)
    {
      call->context = g_main_context_new ();
      g_main_context_push_thread_default (call->context);
      call->started = g_get_monotonic_time ();
      f->kind->call_async (call->waiter, timeout_ms, cancellable, call_async_done, call);
      return call;
    }
  call->thread = g_thread_new ("deadline-call", call_run, call);
  g_mutex_lock (&call->lock);
  while (call->started == 0)
    g_cond_wait (&call->cond, &call->lock);
  g_mutex_unlock (&call->lock);
  return call;
}

static gint64
call_answered_at (Call *call)
{
  gint64 at;

  g_mutex_lock (&call->lock);
  at = call->answered;
  g_mutex_unlock (&call->lock);
  return at;
}

static gboolean
flag_raise (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Waits until the call answered or the time @until came; TRUE if it
 * answered. An async call's context runs meanwhile, a timeout source
 * ending the wait at @until. */
static gboolean
call_wait_until (Call *call, gint64 until)
{
  gint64 now = g_get_monotonic_time ();
  gboolean woken = FALSE;
  GSource *timer;

  if (call->context == NULL)
    {
      g_mutex_lock (&call->lock);
      while (call->answered == 0 && g_cond_wait_until (&call->cond, &call->lock, until))
        ;
      g_mutex_unlock (&call->lock);
      return call_answered_at (call) != 0;
    }
  timer = g_timeout_source_new (until > now ? (guint) ((until - now + 999) / 1000) : 0);
  g_source_set_callback (timer, flag_raise, &woken, NULL);
  g_source_attach (timer, call->context);
  while (call_answered_at (call) == 0 && !woken)
    g_main_context_iteration (call->context, TRUE);
  g_source_destroy (timer);
  g_source_unref (timer);
  return call_answered_at (call) != 0;
}

/* Cancels at CANCEL_AFTER_MS into the call; returns when it did. */
static gint64
call_cancel_on_time (Call *call)
{
  call_wait_until (call, call->started + CANCEL_AFTER_MS * 1000);
  g_cancellable_cancel (call->cancellable);
  return g_get_monotonic_time ();
}

static void
call_free (Call *call)
{
  if (call->context != NULL)
    g_main_context_pop_thread_default (call->context);
  if (call_answered_at (call) == 0)
    {
      CU_FAIL ("the call did not answer even after the partition healed");
      return; /* leaked: its thread, or a callback to come, still uses it */
    }
  if (call->thread != NULL)
    g_thread_join (call->thread);
  if (call->context != NULL)
    {
      while (g_main_context_pending (call->context))
        g_main_context_iteration (call->context, FALSE);
      g_main_context_unref (call->context);
    }
  g_clear_error (&call->error);
  g_clear_object (&call->cancellable);
  g_mutex_clear (&call->lock);
  g_cond_clear (&call->cond);
  g_free (call);
}

/* Checks that @call answered @code no later than @due + MARGIN_MS
 * (monotonic µs), and not before @due for a timeout. */
static void
call_check (Fixture *f, Call *call, GQuark domain, int code, gint64 due)
{
  gint64 answered = call_answered_at (call);
  gint64 due_ms = (due - call->started) / 1000;
  gint64 after_ms = (answered - call->started) / 1000;

  if (answered == 0)
    {
      g_printerr ("%s: no answer %d ms into the call (due %" G_GINT64_FORMAT " ms + %d ms)\n",
                  f->what, LATE_CAP_MS, due_ms, MARGIN_MS);
      CU_FAIL ("no answer by the deadline");
      return;
    }
  g_debug ("%s: %s after %" G_GINT64_FORMAT " ms, due after %" G_GINT64_FORMAT " ms", f->what,
           call->ok ? "success" : call->error->message, after_ms, due_ms);
  CU_ASSERT_FALSE (call->ok);
  if (!g_error_matches (call->error, domain, code))
    {
      g_printerr ("%s: expected %s %d, got %s (%s)\n", f->what, g_quark_to_string (domain), code,
                  zkr_error_name (call->error),
                  call->error != NULL ? call->error->message : "success");
      CU_FAIL ("not the expected answer");
    }
  if (answered > due + MARGIN_MS * 1000)
    {
      g_printerr ("%s: answered %" G_GINT64_FORMAT " ms into the call, due %" G_GINT64_FORMAT
                  " ms (+%d ms margin): %" G_GINT64_FORMAT " ms late\n",
                  f->what, after_ms, due_ms, MARGIN_MS, after_ms - due_ms);
      CU_FAIL ("answered after its deadline");
    }
  if (domain == ZKR_ERROR && code == ZKR_ERROR_TIMEOUT)
    CU_ASSERT_TRUE (answered >= due - EARLY_MS * 1000);
}

/* Waits for the answer (up to LATE_CAP_MS into the call), checks it, then
 * frees the caller of a late one by healing. */
static void
call_expect (Fixture *f, Call *call, GQuark domain, int code, gint64 due)
{
  call_wait_until (call, call->started + (gint64) LATE_CAP_MS * 1000);
  call_check (f, call, domain, code, due);
  if (call_answered_at (call) == 0)
    {
      zkr_test_proxy_heal (f->proxy);
      call_wait_until (call, g_get_monotonic_time () + (gint64) WAIT_MS * 1000);
      if (call_answered_at (call) != 0)
        g_printerr ("%s: answered %" G_GINT64_FORMAT " ms into the call, once healed\n",
                    f->what, (call_answered_at (call) - call->started) / 1000);
    }
  call_free (call);
}

/* ---- the scenarios ------------------------------------------------------ */

/* (a) Cut off, not noticed: a timeout comes on time. Uncontended: the
 * call's first request is stuck in the black hole. */
static void
times_out_while_black_holed (const Kind *kind, gboolean async)
{
  Fixture f;
  Call *call;

  fixture_init (&f, kind, async ? "async-timeout" : "timeout", UNNOTICED_SESSION_MS);
  fixture_black_hole (&f);
  /* The latch joins now: its node's create is stuck in the black hole. */
  fixture_start_waiter (&f);
  call = call_start (&f, CALL_TIMEOUT_MS, NULL, async);
  call_expect (&f, call, ZKR_ERROR, ZKR_ERROR_TIMEOUT, call->started + CALL_TIMEOUT_MS * 1000);
  fixture_finish (&f);
}

/* (b) Cut off, not noticed: a cancel of a call without a deadline is
 * answered at once. */
static void
cancel_answers_while_black_holed (const Kind *kind, gboolean async)
{
  Fixture f;
  Call *call;
  gint64 cancelled;

  fixture_init (&f, kind, async ? "async-cancel" : "cancel", UNNOTICED_SESSION_MS);
  fixture_black_hole (&f);
  fixture_start_waiter (&f);
  call = call_start (&f, -1, g_cancellable_new (), async);
  cancelled = call_cancel_on_time (call);
  call_expect (&f, call, G_IO_ERROR, G_IO_ERROR_CANCELLED, cancelled);
  fixture_finish (&f);
}

/* (c) Queued behind a holder (on another session), then cut off before
 * the deadline: the timeout comes on time, the delete of our node goes on
 * in the background. */
static void
queued_times_out_while_black_holed (const Kind *kind, gboolean async)
{
  Fixture f;
  Call *call;
  gint64 due;

  fixture_init (&f, kind, async ? "async-queued" : "queued", UNNOTICED_SESSION_MS);
  fixture_hold (&f);
  fixture_start_waiter (&f);
  call = call_start (&f, CALL_TIMEOUT_MS, NULL, async);
  due = call->started + CALL_TIMEOUT_MS * 1000;
  /* Queued, and cut off well before the deadline (or the case is not
   * the one under test). */
  CU_ASSERT_TRUE (fixture_wait_queued (&f, due - 300 * 1000));
  fixture_black_hole (&f);
  CU_ASSERT_TRUE (g_get_monotonic_time () < due - 200 * 1000);
  call_expect (&f, call, ZKR_ERROR, ZKR_ERROR_TIMEOUT, due);
  fixture_finish (&f);
}

/* Queues the waiter behind a holder when it waits only behind one. */
static void
fixture_queue_if_needed (Fixture *f)
{
  if (!f->kind->needs_holder)
    return;
  fixture_hold (f);
  fixture_start_waiter (f);
  CU_ASSERT_TRUE_FATAL (fixture_wait_queued (f, g_get_monotonic_time () + WAIT_MS * G_GINT64_CONSTANT (1000)));
}

/* (d) SUSPENDED (the client noticed the black hole): a timeout comes on
 * time. */
static void
times_out_while_suspended (const Kind *kind, gboolean async)
{
  Fixture f;
  Call *call;

  fixture_init (&f, kind, async ? "async-suspended" : "suspended", SUSPENDED_SESSION_MS);
  fixture_queue_if_needed (&f);
  fixture_black_hole_until (&f, ZKR_SESSION_STATE_SUSPENDED);
  call = call_start (&f, CALL_TIMEOUT_MS, NULL, async);
  call_expect (&f, call, ZKR_ERROR, ZKR_ERROR_TIMEOUT, call->started + CALL_TIMEOUT_MS * 1000);
  fixture_finish (&f);
}

/* (e) LOST, the fresh session not connected yet (it cannot, through the
 * black hole): a timeout comes on time. */
static void
times_out_while_lost (const Kind *kind)
{
  Fixture f;
  Call *call;

  fixture_init (&f, kind, "lost", LOST_SESSION_MS);
  fixture_queue_if_needed (&f);
  fixture_black_hole_until (&f, ZKR_SESSION_STATE_LOST);
  call = call_start (&f, CALL_TIMEOUT_MS, NULL, FALSE);
  call_expect (&f, call, ZKR_ERROR, ZKR_ERROR_TIMEOUT, call->started + CALL_TIMEOUT_MS * 1000);
  fixture_finish (&f);
}

/* (e) A call without a deadline, queued behind a holder, when its session
 * is expired from outside (the proxy passing bytes): answered
 * ZKR_ERROR_SESSION_EXPIRED once the session reports LOST. */
static void
waiter_answers_when_its_session_expires (const Kind *kind)
{
  Fixture f;
  Call *call;
  gint64 lost_at = 0;
  guint from;

  fixture_init (&f, kind, "expired", DIRECT_SESSION_MS);
  fixture_hold (&f);
  call = call_start (&f, -1, NULL, FALSE);
  CU_ASSERT_TRUE_FATAL (fixture_wait_queued (&f, g_get_monotonic_time () + WAIT_MS * G_GINT64_CONSTANT (1000)));
  from = itest_recorder_count (f.recorder);
  CU_ASSERT_TRUE_FATAL (itest_expire_session (f.proxied));
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_LOST, from, WAIT_MS,
                                             &lost_at) >= 0);
  call_expect (&f, call, ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED,
               lost_at > 0 ? lost_at : g_get_monotonic_time ());
  fixture_finish (&f);
}

/* How long the test hook makes a lost handle's close wait: longer than a
 * call's deadline plus its margin. libzookeeper's own close waits up to
 * 1.5 s (4 s session) for a server that does not answer its closeSession,
 * as on a connection whose session another client took over and closed. */
#define CLOSE_STALL_MS 3000

/* (e') The same, while the old handle's close after LOST takes long: the
 * caller, standing in for the worker, is handed the LOST and answers
 * SESSION_EXPIRED then, not once the close is over. */
static void
waiter_answers_at_lost_while_its_handle_closes (const Kind *kind)
{
  Fixture f;
  Call *call;
  gint64 lost_at = 0;
  guint from;

  fixture_init (&f, kind, "expired-closing", DIRECT_SESSION_MS);
  fixture_hold (&f);
  call = call_start (&f, -1, NULL, FALSE);
  CU_ASSERT_TRUE_FATAL (fixture_wait_queued (&f, g_get_monotonic_time () + WAIT_MS * G_GINT64_CONSTANT (1000)));
  zkr__session_test_stall_next_close (f.proxied, CLOSE_STALL_MS);
  from = itest_recorder_count (f.recorder);
  CU_ASSERT_TRUE_FATAL (itest_expire_session (f.proxied));
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_LOST, from, WAIT_MS,
                                             &lost_at) >= 0);
  call_expect (&f, call, ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED,
               lost_at > 0 ? lost_at : g_get_monotonic_time ());
  fixture_finish (&f);
}

/* (e'') A call made right after LOST, while the old handle's close takes
 * long: queued behind a holder on the fresh session, it times out on
 * time; its start does not wait for the close. */
static void
times_out_while_the_lost_handle_closes (const Kind *kind, gboolean async)
{
  Fixture f;
  Call *call;

  fixture_init (&f, kind, async ? "async-lost-closing" : "lost-closing", DIRECT_SESSION_MS);
  fixture_hold (&f);
  zkr__session_test_stall_next_close (f.proxied, CLOSE_STALL_MS);
  CU_ASSERT_TRUE_FATAL (itest_expire_session (f.proxied));
  call = call_start (&f, CALL_TIMEOUT_MS, NULL, async);
  call_expect (&f, call, ZKR_ERROR, ZKR_ERROR_TIMEOUT, call->started + CALL_TIMEOUT_MS * 1000);
  fixture_finish (&f);
}

/* (f) A release has no deadline of its own: cut off and not noticed, its
 * delete is stuck in the black hole, and it answers CONNECTION_LOSS when
 * the session reports SUSPENDED (docs/design.md §5.4), not later. */
static void
release_answers_by_suspended_while_black_holed (const Kind *kind)
{
  Fixture f;
  Call *call;
  gint64 suspended_at = 0;
  guint from;

  fixture_init (&f, kind, "suspended", SUSPENDED_SESSION_MS);
  from = itest_recorder_count (f.recorder);
  fixture_black_hole (&f);
  call = call_start (&f, -1, NULL, TRUE);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_SUSPENDED, from,
                                             WAIT_MS, &suspended_at) >= 0);
  call_expect (&f, call, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS,
               suspended_at > 0 ? suspended_at : g_get_monotonic_time ());
  fixture_finish (&f);
}

/* ---- calls with a cancellable only: the scenarios -------------------------- */

static void
fixture_hold_if_any (Fixture *f)
{
  if (f->kind->holder_new != NULL)
    fixture_hold (f);
}

/* (g) Cut off, not noticed: a call stuck in the black hole answers
 * G_IO_ERROR_CANCELLED once cancelled, before the session notices
 * anything. Without the cancel it would answer CONNECTION_LOSS when
 * libzookeeper gives up (10 s in), with SUSPENDED. The waiter is left as
 * it was. */
static void
query_cancel_answers_while_black_holed (const Kind *kind)
{
  Fixture f;
  Call *call;
  gint64 cancelled, answered;
  guint from;

  fixture_init (&f, kind, "cancel", UNNOTICED_SESSION_MS);
  fixture_hold_if_any (&f);
  from = itest_recorder_count (f.recorder);
  fixture_black_hole (&f);
  call = call_start (&f, -1, g_cancellable_new (), FALSE);
  cancelled = call_cancel_on_time (call);
  call_wait_until (call, call->started + (gint64) LATE_CAP_MS * 1000);
  answered = call_answered_at (call);
  CU_ASSERT_TRUE (answered != 0);
  if (answered != 0)
    {
      g_print ("  %s: answered %s %" G_GINT64_FORMAT " ms after the cancel\n", f.what,
               zkr_error_name (call->error), (answered - cancelled) / 1000);
      CU_ASSERT_FALSE (call->ok);
      itest_assert_cancelled (call->error, __FILE__, __LINE__);
      /* No state change since the black hole: answered before the client
       * noticed it, so not by libzookeeper giving up. */
      CU_ASSERT_EQUAL (itest_recorder_count (f.recorder), from);
      if (kind->check_unchanged != NULL)
        kind->check_unchanged (f.waiter);
    }
  else
    {
      zkr_test_proxy_heal (f.proxy);
      call_wait_until (call, g_get_monotonic_time () + (gint64) WAIT_MS * 1000);
    }
  call_free (call);
  fixture_finish (&f);
}

/* Every answer under the fixture's base is rewritten ZBADVERSION, once,
 * from now on: the probe of fixture_sent_nothing() gets it only if nothing
 * else under the base was answered first. Returns the rewrite count. */
static guint
fixture_count_sends (Fixture *f)
{
  guint before = zkr__session_test_count_rewritten (f->proxied);

  zkr__session_test_rewrite_answers_under (f->proxied, f->base, ZBADVERSION, 1);
  return before;
}

/* ZooKeeper answers a session's requests in order: a probe sent now is
 * answered after anything the call sent. */
static void
fixture_check_sent_nothing (Fixture *f, guint before)
{
  CU_ASSERT_EQUAL (zkr__op_test_exists (f->proxied, f->base, NULL), ZBADVERSION);
  CU_ASSERT_EQUAL (zkr__session_test_count_rewritten (f->proxied) - before, 1);
  zkr__session_test_rewrite_answers (f->proxied, ZOK, 0);
}

/* Runs the call on this thread with @cancellable; checks its error. */
static void
query_expect (Fixture *f, GCancellable *cancellable, GQuark domain, int code)
{
  g_autoptr (GError) error = NULL;
  gint64 started = g_get_monotonic_time ();
  gboolean ok = f->kind->call (f->waiter, -1, cancellable, &error);

  g_print ("  %s: answered %s after %" G_GINT64_FORMAT " ms\n", f->what,
           ok ? "success" : zkr_error_name (error), itest_elapsed_ms (started));
  CU_ASSERT_FALSE (ok);
  if (!g_error_matches (error, domain, code))
    {
      g_printerr ("%s: expected %s %d, got %s (%s)\n", f->what, g_quark_to_string (domain), code,
                  zkr_error_name (error), error != NULL ? error->message : "success");
      CU_FAIL ("not the expected answer");
    }
}

/* (h) A cancellable cancelled before the call: G_IO_ERROR_CANCELLED, and
 * nothing sent (the session's next answer under the base is the probe's). */
static void
query_cancelled_before_sends_nothing (const Kind *kind)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  Fixture f;
  guint before;

  fixture_init (&f, kind, "cancelled-before", DIRECT_SESSION_MS);
  fixture_hold_if_any (&f);
  if (kind->settle != NULL)
    kind->settle (f.waiter, f.proxied);
  before = fixture_count_sends (&f);
  g_cancellable_cancel (cancellable);
  query_expect (&f, cancellable, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  fixture_check_sent_nothing (&f, before);
  if (kind->check_unchanged != NULL)
    kind->check_unchanged (f.waiter);
  fixture_finish (&f);
}

/* (i) SUSPENDED or LOST: the call answers at once, without a cancel
 * (CONNECTION_LOSS, SESSION_EXPIRED: nothing to wait for with each request
 * sent once) and with one (CANCELLED); the session is still in @state
 * after both answers. */
static void
query_answers_at_once_in_state (const Kind *kind, ZkrSessionState state, GQuark domain,
                                int code)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  gboolean lost = state == ZKR_SESSION_STATE_LOST;
  Fixture f;

  fixture_init (&f, kind, lost ? "lost" : "suspended",
                lost ? LOST_SESSION_MS : SUSPENDED_SESSION_MS);
  fixture_hold_if_any (&f);
  fixture_black_hole_until (&f, state);
  query_expect (&f, NULL, domain, code);
  g_cancellable_cancel (cancellable);
  query_expect (&f, cancellable, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  CU_ASSERT_EQUAL (zkr_session_get_state (f.proxied), state);
  if (kind->check_unchanged != NULL)
    kind->check_unchanged (f.waiter);
  fixture_finish (&f);
}

/* ---- tests --------------------------------------------------------------- */

/* Once answered at 9.9 s, when the client noticed. */
static void
test_deadlines__mutex_times_out_while_black_holed (void)
{
  times_out_while_black_holed (&mutex_kind, FALSE);
}

/* Once: a cancel at 2.5 s answered at 9.9 s. */
static void
test_deadlines__mutex_cancel_answers_while_black_holed (void)
{
  cancel_answers_while_black_holed (&mutex_kind, FALSE);
}

/* Once answered only when the partition healed. */
static void
test_deadlines__mutex_queued_waiter_times_out_while_black_holed (void)
{
  queued_times_out_while_black_holed (&mutex_kind, FALSE);
}

static void
test_deadlines__mutex_times_out_while_suspended (void)
{
  times_out_while_suspended (&mutex_kind, FALSE);
}

static void
test_deadlines__mutex_times_out_while_lost (void)
{
  times_out_while_lost (&mutex_kind);
}

static void
test_deadlines__mutex_waiter_answers_when_its_session_expires (void)
{
  waiter_answers_when_its_session_expires (&mutex_kind);
}

/* Answered SESSION_EXPIRED 3 s late: the caller, standing in, ran the old
 * handle's close before returning. */
static void
test_deadlines__mutex_waiter_answers_at_lost_while_its_handle_closes (void)
{
  waiter_answers_at_lost_while_its_handle_closes (&mutex_kind);
}

/* Timed out 3 s late: the call's start waited for the turn, which the
 * worker held while closing the old handle. */
static void
test_deadlines__mutex_times_out_while_the_lost_handle_closes (void)
{
  times_out_while_the_lost_handle_closes (&mutex_kind, FALSE);
}

static void
test_deadlines__mutex_async_times_out_while_the_lost_handle_closes (void)
{
  times_out_while_the_lost_handle_closes (&mutex_kind, TRUE);
}

static void
test_deadlines__mutex_async_times_out_while_black_holed (void)
{
  times_out_while_black_holed (&mutex_kind, TRUE);
}

static void
test_deadlines__mutex_async_cancel_answers_while_black_holed (void)
{
  cancel_answers_while_black_holed (&mutex_kind, TRUE);
}

static void
test_deadlines__mutex_async_queued_waiter_times_out_while_black_holed (void)
{
  queued_times_out_while_black_holed (&mutex_kind, TRUE);
}

static void
test_deadlines__mutex_async_times_out_while_suspended (void)
{
  times_out_while_suspended (&mutex_kind, TRUE);
}

static void
test_deadlines__rwlock_read_times_out_while_black_holed (void)
{
  times_out_while_black_holed (&read_kind, FALSE);
}

static void
test_deadlines__rwlock_read_cancel_answers_while_black_holed (void)
{
  cancel_answers_while_black_holed (&read_kind, FALSE);
}

static void
test_deadlines__rwlock_reader_behind_a_writer_times_out_while_black_holed (void)
{
  queued_times_out_while_black_holed (&read_kind, FALSE);
}

static void
test_deadlines__rwlock_read_times_out_while_suspended (void)
{
  times_out_while_suspended (&read_kind, FALSE);
}

static void
test_deadlines__rwlock_read_times_out_while_lost (void)
{
  times_out_while_lost (&read_kind);
}

static void
test_deadlines__rwlock_write_times_out_while_black_holed (void)
{
  times_out_while_black_holed (&write_kind, FALSE);
}

static void
test_deadlines__rwlock_write_cancel_answers_while_black_holed (void)
{
  cancel_answers_while_black_holed (&write_kind, FALSE);
}

static void
test_deadlines__rwlock_writer_behind_a_reader_times_out_while_black_holed (void)
{
  queued_times_out_while_black_holed (&write_kind, FALSE);
}

static void
test_deadlines__rwlock_write_times_out_while_suspended (void)
{
  times_out_while_suspended (&write_kind, FALSE);
}

static void
test_deadlines__rwlock_write_times_out_while_lost (void)
{
  times_out_while_lost (&write_kind);
}

static void
test_deadlines__rwlock_async_writer_behind_a_reader_times_out_while_black_holed (void)
{
  queued_times_out_while_black_holed (&write_kind, TRUE);
}

static void
test_deadlines__semaphore_times_out_while_black_holed (void)
{
  times_out_while_black_holed (&semaphore_kind, FALSE);
}

static void
test_deadlines__semaphore_cancel_answers_while_black_holed (void)
{
  cancel_answers_while_black_holed (&semaphore_kind, FALSE);
}

/* The waiter holds the locks/ mutex while its lease waits: giving that
 * back is part of the answer. */
static void
test_deadlines__semaphore_waiter_behind_the_last_lease_times_out_while_black_holed (void)
{
  queued_times_out_while_black_holed (&semaphore_kind, FALSE);
}

static void
test_deadlines__semaphore_times_out_while_suspended (void)
{
  times_out_while_suspended (&semaphore_kind, FALSE);
}

static void
test_deadlines__semaphore_times_out_while_lost (void)
{
  times_out_while_lost (&semaphore_kind);
}

static void
test_deadlines__semaphore_waiter_answers_when_its_session_expires (void)
{
  waiter_answers_when_its_session_expires (&semaphore_kind);
}

static void
test_deadlines__multi_lock_times_out_while_black_holed (void)
{
  times_out_while_black_holed (&multi_lock_kind, FALSE);
}

static void
test_deadlines__multi_lock_cancel_answers_while_black_holed (void)
{
  cancel_answers_while_black_holed (&multi_lock_kind, FALSE);
}

/* The waiter holds its first lock while it waits for the second: giving
 * that back is part of the answer. */
static void
test_deadlines__multi_lock_holding_one_lock_times_out_while_black_holed (void)
{
  queued_times_out_while_black_holed (&multi_lock_kind, FALSE);
}

static void
test_deadlines__multi_lock_times_out_while_suspended (void)
{
  times_out_while_suspended (&multi_lock_kind, FALSE);
}

static void
test_deadlines__multi_lock_times_out_while_lost (void)
{
  times_out_while_lost (&multi_lock_kind);
}

static void
test_deadlines__multi_lock_waiter_answers_when_its_session_expires (void)
{
  waiter_answers_when_its_session_expires (&multi_lock_kind);
}

/* Started while cut off: its node cannot even be created. */
static void
test_deadlines__leader_latch_await_times_out_while_black_holed (void)
{
  times_out_while_black_holed (&latch_kind, FALSE);
}

static void
test_deadlines__leader_latch_await_cancel_answers_while_black_holed (void)
{
  cancel_answers_while_black_holed (&latch_kind, FALSE);
}

static void
test_deadlines__leader_latch_await_behind_a_leader_times_out_while_black_holed (void)
{
  queued_times_out_while_black_holed (&latch_kind, FALSE);
}

static void
test_deadlines__leader_latch_await_times_out_while_suspended (void)
{
  times_out_while_suspended (&latch_kind, FALSE);
}

static void
test_deadlines__leader_latch_await_times_out_while_lost (void)
{
  times_out_while_lost (&latch_kind);
}

static void
test_deadlines__leader_latch_await_async_times_out_while_black_holed (void)
{
  times_out_while_black_holed (&latch_kind, TRUE);
}

static void
test_deadlines__leader_latch_await_async_cancel_answers_while_black_holed (void)
{
  cancel_answers_while_black_holed (&latch_kind, TRUE);
}

static void
test_deadlines__leader_latch_await_async_behind_a_leader_times_out_while_black_holed (void)
{
  queued_times_out_while_black_holed (&latch_kind, TRUE);
}

static void
test_deadlines__leader_latch_await_async_times_out_while_suspended (void)
{
  times_out_while_suspended (&latch_kind, TRUE);
}

static void
test_deadlines__mutex_release_async_answers_connection_loss_by_suspended_while_black_holed (void)
{
  release_answers_by_suspended_while_black_holed (&mutex_release_kind);
}

/* The delete stuck in the black hole: a cancel answers at once. */
static void
test_deadlines__mutex_release_async_cancel_answers_while_black_holed (void)
{
  cancel_answers_while_black_holed (&mutex_release_kind, TRUE);
}

/* Verify, the listings, the leader's id and the shared count's
 * first read take a cancellable. */
static void
test_deadlines__mutex_verify_cancel_answers_while_black_holed (void)
{
  query_cancel_answers_while_black_holed (&mutex_verify_kind);
}

static void
test_deadlines__mutex_verify_cancelled_before_sends_nothing (void)
{
  query_cancelled_before_sends_nothing (&mutex_verify_kind);
}

/* In doubt, still held: neither answer marks the lock lost. */
static void
test_deadlines__mutex_verify_answers_at_once_while_suspended (void)
{
  query_answers_at_once_in_state (&mutex_verify_kind, ZKR_SESSION_STATE_SUSPENDED, ZKR_ERROR,
                                  ZKR_ERROR_CONNECTION_LOSS);
}

static void
test_deadlines__mutex_list_participants_cancel_answers_while_black_holed (void)
{
  query_cancel_answers_while_black_holed (&mutex_list_kind);
}

static void
test_deadlines__mutex_list_participants_cancelled_before_sends_nothing (void)
{
  query_cancelled_before_sends_nothing (&mutex_list_kind);
}

static void
test_deadlines__mutex_list_participants_answers_at_once_while_lost (void)
{
  query_answers_at_once_in_state (&mutex_list_kind, ZKR_SESSION_STATE_LOST, ZKR_ERROR,
                                  ZKR_ERROR_SESSION_EXPIRED);
}

static void
test_deadlines__leader_latch_dup_leader_id_cancel_answers_while_black_holed (void)
{
  query_cancel_answers_while_black_holed (&latch_leader_id_kind);
}

static void
test_deadlines__leader_latch_dup_leader_id_cancelled_before_sends_nothing (void)
{
  query_cancelled_before_sends_nothing (&latch_leader_id_kind);
}

static void
test_deadlines__semaphore_new_shared_count_cancel_answers_while_black_holed (void)
{
  query_cancel_answers_while_black_holed (&shared_count_kind);
}

static void
test_deadlines__semaphore_new_shared_count_cancelled_before_sends_nothing (void)
{
  query_cancelled_before_sends_nothing (&shared_count_kind);
}

/* Every test cleaned up after itself: nothing of this process is left. */
static void
test_deadlines__no_node_left_behind (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), DIRECT_SESSION_MS);
  g_autoptr (GPtrArray) children = NULL;
  g_autofree char *mine = NULL;
  int rc;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mine = g_strdup_printf ("-%d-", (int) getpid ());
  rc = zkr__op_test_get_children (session, "/zkr-it", &children);
  CU_ASSERT_TRUE (rc == ZOK || rc == ZNONODE);
  for (guint i = 0; children != NULL && i < children->len; i++)
    {
      const char *child = g_ptr_array_index (children, i);

      if (g_str_has_prefix (child, "deadlines-") && strstr (child, mine) != NULL)
        {
          g_printerr ("left behind: /zkr-it/%s\n", child);
          CU_FAIL ("a node was left behind");
        }
    }
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_deadlines__mutex_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_queued_waiter_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_times_out_while_suspended),
  ZKR_TEST_CASE (test_deadlines__mutex_times_out_while_lost),
  ZKR_TEST_CASE (test_deadlines__mutex_waiter_answers_when_its_session_expires),
  ZKR_TEST_CASE (test_deadlines__mutex_waiter_answers_at_lost_while_its_handle_closes),
  ZKR_TEST_CASE (test_deadlines__mutex_times_out_while_the_lost_handle_closes),
  ZKR_TEST_CASE (test_deadlines__mutex_async_times_out_while_the_lost_handle_closes),
  ZKR_TEST_CASE (test_deadlines__mutex_async_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_async_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_async_queued_waiter_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_async_times_out_while_suspended),
  ZKR_TEST_CASE (test_deadlines__rwlock_read_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__rwlock_read_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__rwlock_reader_behind_a_writer_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__rwlock_read_times_out_while_suspended),
  ZKR_TEST_CASE (test_deadlines__rwlock_read_times_out_while_lost),
  ZKR_TEST_CASE (test_deadlines__rwlock_write_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__rwlock_write_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__rwlock_writer_behind_a_reader_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__rwlock_write_times_out_while_suspended),
  ZKR_TEST_CASE (test_deadlines__rwlock_write_times_out_while_lost),
  ZKR_TEST_CASE (test_deadlines__rwlock_async_writer_behind_a_reader_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__semaphore_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__semaphore_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__semaphore_waiter_behind_the_last_lease_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__semaphore_times_out_while_suspended),
  ZKR_TEST_CASE (test_deadlines__semaphore_times_out_while_lost),
  ZKR_TEST_CASE (test_deadlines__semaphore_waiter_answers_when_its_session_expires),
  ZKR_TEST_CASE (test_deadlines__multi_lock_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__multi_lock_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__multi_lock_holding_one_lock_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__multi_lock_times_out_while_suspended),
  ZKR_TEST_CASE (test_deadlines__multi_lock_times_out_while_lost),
  ZKR_TEST_CASE (test_deadlines__multi_lock_waiter_answers_when_its_session_expires),
  ZKR_TEST_CASE (test_deadlines__leader_latch_await_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__leader_latch_await_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__leader_latch_await_behind_a_leader_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__leader_latch_await_times_out_while_suspended),
  ZKR_TEST_CASE (test_deadlines__leader_latch_await_times_out_while_lost),
  ZKR_TEST_CASE (test_deadlines__leader_latch_await_async_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__leader_latch_await_async_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__leader_latch_await_async_behind_a_leader_times_out_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__leader_latch_await_async_times_out_while_suspended),
  ZKR_TEST_CASE (test_deadlines__mutex_release_async_answers_connection_loss_by_suspended_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_release_async_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_verify_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_verify_cancelled_before_sends_nothing),
  ZKR_TEST_CASE (test_deadlines__mutex_verify_answers_at_once_while_suspended),
  ZKR_TEST_CASE (test_deadlines__mutex_list_participants_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__mutex_list_participants_cancelled_before_sends_nothing),
  ZKR_TEST_CASE (test_deadlines__mutex_list_participants_answers_at_once_while_lost),
  ZKR_TEST_CASE (test_deadlines__leader_latch_dup_leader_id_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__leader_latch_dup_leader_id_cancelled_before_sends_nothing),
  ZKR_TEST_CASE (test_deadlines__semaphore_new_shared_count_cancel_answers_while_black_holed),
  ZKR_TEST_CASE (test_deadlines__semaphore_new_shared_count_cancelled_before_sends_nothing),
  ZKR_TEST_CASE (test_deadlines__no_node_left_behind),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "deadlines", NULL, NULL, tests);
}
