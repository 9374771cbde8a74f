/* zkr integration tests: the ensemble, scratch paths, and a recorder of
 * session states running its own GMainContext. */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "context.h"
#include "itest.h"
#include "log.h"

const char *
itest_hosts (void)
{
  const char *hosts = g_getenv ("ZKR_TEST_HOSTS");

  if (hosts == NULL || *hosts == '\0')
    {
      CU_FAIL ("ZKR_TEST_HOSTS is not set: start the ensemble (./run test does)");
      return NULL;
    }
  return hosts;
}

char *
itest_server_host (guint n)
{
  const char *hosts = itest_hosts ();
  g_auto (GStrv) parts = NULL;

  if (hosts == NULL)
    return NULL;
  parts = g_strsplit (hosts, ",", -1);
  if (n == 0 || n > g_strv_length (parts))
    return NULL;
  return g_strdup (parts[n - 1]);
}

guint
itest_server_index (const char *host)
{
  const char *hosts = itest_hosts ();
  g_auto (GStrv) parts = NULL;

  if (hosts == NULL || host == NULL)
    return 0;
  parts = g_strsplit (hosts, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (strcmp (parts[i], host) == 0)
      return i + 1;
  return 0;
}

gboolean
itest_ensemble (const char *command)
{
  const char *script = g_getenv ("ZKR_ENSEMBLE_SH");
  g_autofree char *line = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  if (script == NULL)
    {
      CU_FAIL ("ZKR_ENSEMBLE_SH is not set");
      return FALSE;
    }
  line = g_strdup_printf ("bash '%s' %s", script, command);
  if (!g_spawn_command_line_sync (line, &out, &err, &status, &error) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      g_printerr ("ensemble %s failed: %s%s\n", command,
                  error != NULL ? error->message : "", err != NULL ? err : "");
      return FALSE;
    }
  return TRUE;
}

char *
itest_fourlw (guint n, const char *word)
{
  const char *script = g_getenv ("ZKR_ENSEMBLE_SH");
  g_autofree char *line = NULL;
  char *out = NULL;
  int status = 0;

  if (script == NULL)
    return NULL;
  line = g_strdup_printf ("bash '%s' fourlw %u %s", script, n, word);
  if (!g_spawn_command_line_sync (line, &out, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      g_free (out);
      return NULL;
    }
  return out;
}

/* The members whose "srvr" answer names @mode ("follower", "leader"), as
 * 1-based indexes, once at least @want of them do or 30 s have passed. */
static GArray *
members_in_mode (const char *mode, guint want)
{
  g_autofree char *needle = g_strconcat ("Mode: ", mode, "\n", NULL);
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  for (;;)
    {
      GArray *members = g_array_new (FALSE, FALSE, sizeof (guint));

      for (guint n = 1; n <= 3; n++)
        {
          g_autofree char *srvr = itest_fourlw (n, "srvr");

          if (srvr != NULL && strstr (srvr, needle) != NULL)
            g_array_append_val (members, n);
        }
      if (members->len >= want || g_get_monotonic_time () > deadline)
        return members;
      g_array_unref (members);
      g_usleep (200 * 1000);
    }
}

char *
itest_followers_hosts (void)
{
  g_autoptr (GArray) members = members_in_mode ("follower", 2);
  g_autoptr (GPtrArray) hosts = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < members->len; i++)
    g_ptr_array_add (hosts, itest_server_host (g_array_index (members, guint, i)));
  g_ptr_array_add (hosts, NULL);
  return g_strjoinv (",", (char **) hosts->pdata);
}

guint
itest_leader_index (void)
{
  g_autoptr (GArray) members = members_in_mode ("leader", 1);

  return members->len > 0 ? g_array_index (members, guint, 0) : 0;
}

ZkrSessionOptions *
itest_options (const char *hosts, int session_timeout_ms)
{
  ZkrSessionOptions *options = zkr_session_options_new ();

  zkr_session_options_set_hosts (options, hosts);
  zkr_session_options_set_session_timeout_ms (options, session_timeout_ms);
  zkr_session_options_set_connection_timeout_ms (options, 20000);
  zkr_session_options_set_client_id (options, "zkr-integration-test");
  return options;
}

ZkrSession *
itest_connect (const char *hosts, int session_timeout_ms)
{
  g_autoptr (ZkrSessionOptions) options = NULL;
  g_autoptr (GError) error = NULL;
  ZkrSession *session;

  if (hosts == NULL)
    return NULL;
  options = itest_options (hosts, session_timeout_ms);
  session = zkr_session_connect (options, &error);
  if (session == NULL)
    g_printerr ("connect to %s failed: %s\n", hosts, error->message);
  CU_ASSERT_PTR_NOT_NULL (session);
  return session;
}

ZkrSession *
itest_connect_recorded (const char *hosts, int session_timeout_ms, ItestRecorder **recorder)
{
  g_autoptr (ZkrSessionOptions) options = NULL;
  g_autoptr (GError) error = NULL;
  ZkrSession *session;

  *recorder = NULL;
  if (hosts == NULL)
    return NULL;
  options = itest_options (hosts, session_timeout_ms);
  session = zkr_session_new (options, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  *recorder = itest_recorder_new (session);
  if (!zkr_session_wait_connected (session, 20000, NULL, &error))
    {
      g_printerr ("connect to %s failed: %s\n", hosts, error->message);
      CU_FAIL ("could not connect");
    }
  return session;
}

char *
itest_scratch_path (const char *name)
{
  static gint counter = 0;

  return g_strdup_printf ("/zkr-it/%s-%d-%d", name, (int) getpid (),
                          g_atomic_int_add (&counter, 1));
}

gboolean
itest_delete_tree (ZkrSession *session, const char *path)
{
  g_autoptr (GPtrArray) children = NULL;
  int rc = zkr__op_test_get_children (session, path, &children);

  if (rc == ZNONODE)
    return TRUE;
  if (rc != ZOK)
    return FALSE;
  for (guint i = 0; i < children->len; i++)
    {
      g_autofree char *child = g_strdup_printf ("%s/%s", path, (char *) g_ptr_array_index (children, i));
      if (!itest_delete_tree (session, child))
        return FALSE;
    }
  rc = zkr__op_delete_sync (session, path, -1);
  return (rc == ZOK || rc == ZNONODE) && itest_node_absent (session, path);
}

guint
itest_count_children (ZkrSession *session, const char *path)
{
  g_autoptr (GPtrArray) children = NULL;

  /* Another session's writes may not have reached our server yet. */
  zkr__op_sync_path_sync (session, path);
  if (zkr__op_test_get_children (session, path, &children) != ZOK)
    return 0;
  return children->len;
}

typedef struct {
  ZkrSession *session;
  const char *path;
  guint count;
} ChildrenCount;

static gboolean
children_count_reached (gpointer data)
{
  ChildrenCount *want = data;

  return itest_count_children (want->session, want->path) == want->count;
}

gboolean
itest_wait_for_children (ZkrSession *session, const char *path, guint count, int timeout_ms)
{
  ChildrenCount want = { session, path, count };

  return itest_wait_for (children_count_reached, &want, timeout_ms);
}

static gboolean
parent_is_scratch_root (const char *path)
{
  return g_str_has_prefix (path, "/zkr-it/") && strchr (path + strlen ("/zkr-it/"), '/') == NULL;
}

int
itest_create_with_retries (ZkrSession *session, const char *path, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gboolean retried = FALSE;
  int rc;

  for (;;)
    {
      zkr_session_wait_connected (session, timeout_ms, NULL, NULL);
      zkr__op_test_create (session, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL);
      rc = zkr__op_test_create (session, path, "v", 1, 0, NULL, NULL);
      if (rc == ZNODEEXISTS && retried)
        return ZOK;
      /* ZNONODE right under /zkr-it: the server's container sweep deleted
       * the emptied /zkr-it between our two creates (it happens when the
       * suite before us emptied it); make it again. */
      if (rc == ZOK ||
          !(rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZSESSIONMOVED ||
            (rc == ZNONODE && parent_is_scratch_root (path))) ||
          g_get_monotonic_time () > deadline)
        return rc;
      retried = TRUE;
    }
}

gboolean
itest_node_absent (ZkrSession *session, const char *path)
{
  zkr__op_sync_path_sync (session, path);
  return zkr__op_test_exists (session, path, NULL) == ZNONODE;
}

gboolean
itest_node_gone (gpointer data)
{
  ItestNodeAt *at = data;

  return itest_node_absent (at->session, at->path);
}

static gpointer
in_thread_run (gpointer data)
{
  ItestInThread *run = data;

  run->func (run->object);
  g_atomic_int_set (&run->returned, TRUE);
  return NULL;
}

void
itest_in_thread_start (ItestInThread *run, const char *name, GDestroyNotify func,
                       gpointer object)
{
  *run = (ItestInThread) { .func = func, .object = object };
  run->thread = g_thread_new (name, in_thread_run, run);
}

gboolean
itest_in_thread_returned (gpointer data)
{
  return g_atomic_int_get (&((ItestInThread *) data)->returned);
}

void
itest_in_thread_join (ItestInThread *run)
{
  g_thread_join (g_steal_pointer (&run->thread));
}

/* GLib's slice allocator hands a freed GThread out again only every so
 * often: enough threads for it to happen. */
#define LATER_THREADS 64

void
itest_assert_dead_threads_hold_stays (ZkrSession *session, const char *path, gpointer lock,
                                      GThreadFunc take, GThreadFunc look)
{
  ItestThreadHold first = { .lock = lock };
  guint reused = 0;

  g_thread_join (g_thread_new ("first", take, &first));
  CU_ASSERT_TRUE_FATAL (first.acquired);
  for (int i = 0; i < LATER_THREADS; i++)
    {
      ItestThreadHold later = { .lock = lock, .try_also = i < 4 };

      g_thread_join (g_thread_new ("later", look, &later));
      reused += later.self == first.self;
      CU_ASSERT_FALSE (later.held);
      CU_ASSERT_EQUAL (later.count, 0);
      CU_ASSERT_TRUE (later.release_refused);
      CU_ASSERT_EQUAL (later.try_refused, later.try_also);
    }
  g_printerr ("(%u of %d later threads had the first one's GThread address) ", reused,
              LATER_THREADS);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 1);
}

gboolean
itest_wait_for (gboolean (*predicate) (gpointer data), gpointer data, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!predicate (data))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_usleep (20 * 1000);
    }
  return TRUE;
}



static gboolean
lost_count_grew (gpointer data)
{
  gpointer *args = data;

  return zkr_session_get_lost_count (args[0]) > GPOINTER_TO_UINT (args[1]);
}

/* Expires @session and waits until it has seen the LOST. A close of the
 * second handle that does not reach the ensemble (rare, on a loaded
 * machine) is retried, up to three times. */
gboolean
itest_expire_session (ZkrSession *session)
{
  gpointer args[2] = { session, GUINT_TO_POINTER (zkr_session_get_lost_count (session)) };

  for (int attempt = 0; attempt < 3; attempt++)
    {
      if (!zkr_session_wait_connected (session, 20000, NULL, NULL))
        return FALSE;
      if (zkr__session_test_expire_once (session, itest_hosts ()) && itest_wait_for (lost_count_grew, args, 20000))
        return TRUE;
      if (lost_count_grew (args))
        return TRUE;
    }
  return FALSE;
}

gboolean
itest_watch_is_set (gpointer data)
{
  ItestWatchOn *on = data;
  g_autofree char *id = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", on->session_id);

  for (guint n = 1; n <= 3; n++)
    {
      g_autofree char *answer = itest_fourlw (n, "wchp");
      g_auto (GStrv) lines = g_strsplit (answer != NULL ? answer : "", "\n", -1);
      gboolean in_node = FALSE;

      for (guint i = 0; lines[i] != NULL; i++)
        {
          const char *line = g_strstrip (lines[i]);

          if (line[0] == '/')
            in_node = strcmp (line, on->node_path) == 0;
          else if (in_node && g_ascii_strcasecmp (line, id) == 0)
            return TRUE;
        }
    }
  return FALSE;
}

/* ---- a context on a thread of its own ------------------------------- */

void
itest_loop_thread_init (ItestLoopThread *runner)
{
  runner->context = g_main_context_new ();
  runner->loop = g_main_loop_new (runner->context, FALSE);
  runner->thread = NULL;
}

static gpointer
loop_thread_run (gpointer data)
{
  ItestLoopThread *runner = data;

  g_main_context_push_thread_default (runner->context);
  g_main_loop_run (runner->loop);
  g_main_context_pop_thread_default (runner->context);
  return NULL;
}

void
itest_loop_thread_start (ItestLoopThread *runner, const char *name)
{
  runner->thread = g_thread_new (name, loop_thread_run, runner);
}

typedef struct {
  ItestLoopThread *runner;
  GSourceFunc last;
  gpointer data;
} LoopThreadStop;

static gboolean
loop_thread_quit (gpointer data)
{
  LoopThreadStop *stop = data;

  if (stop->last != NULL)
    stop->last (stop->data);
  g_main_loop_quit (stop->runner->loop);
  return G_SOURCE_REMOVE;
}

void
itest_loop_thread_stop (ItestLoopThread *runner, GSourceFunc last, gpointer data)
{
  LoopThreadStop stop = { runner, last, data };

  /* zkr__context_post, not g_main_context_invoke: its publishing store lets
   * ThreadSanitizer see that @stop was written before the thread reads it
   * (GLib's own locking is invisible to it). */
  zkr__context_post (runner->context, loop_thread_quit, &stop, NULL);
  g_thread_join (runner->thread);
  while (g_main_context_pending (runner->context))
    g_main_context_iteration (runner->context, FALSE);
  g_main_loop_unref (runner->loop);
  g_main_context_unref (runner->context);
  runner->thread = NULL;
  runner->loop = NULL;
  runner->context = NULL;
}

/* ---- the recorder -------------------------------------------------- */

typedef struct {
  ZkrSessionState state;
  gint64 at;
} Record;

struct _ItestRecorder {
  ZkrSession *session;  /* (owned) */
  GMutex lock;
  GCond cond;
  GArray *records;      /* of Record; protected by lock */
  gboolean wrong_thread;
  ItestLoopThread runner;
  guint listener_id;
};

static void
recorder_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ItestRecorder *recorder = user_data;
  Record record = { state, g_get_monotonic_time () };

  (void) session;
  g_mutex_lock (&recorder->lock);
  if (g_thread_self () != recorder->runner.thread)
    recorder->wrong_thread = TRUE;
  g_array_append_val (recorder->records, record);
  g_cond_broadcast (&recorder->cond);
  g_mutex_unlock (&recorder->lock);
}

ItestRecorder *
itest_recorder_new (ZkrSession *session)
{
  ItestRecorder *recorder = g_new0 (ItestRecorder, 1);

  recorder->session = zkr_session_ref (session);
  g_mutex_init (&recorder->lock);
  g_cond_init (&recorder->cond);
  recorder->records = g_array_new (FALSE, FALSE, sizeof (Record));
  itest_loop_thread_init (&recorder->runner);
  /* Added from this thread at once, not from the recorder's thread once it
   * runs: a session just created reports CONNECTED a network round trip
   * later, and starting a thread first (slow under TSan) could miss it.
   * The listener's context is the recorder's all the same. */
  g_main_context_push_thread_default (recorder->runner.context);
  recorder->listener_id = zkr_session_add_state_listener (session, recorder_on_state,
                                                          recorder, NULL);
  g_main_context_pop_thread_default (recorder->runner.context);
  g_mutex_lock (&recorder->lock);
  itest_loop_thread_start (&recorder->runner, "itest-recorder");
  g_mutex_unlock (&recorder->lock);
  return recorder;
}

static gboolean
recorder_remove_listener (gpointer data)
{
  ItestRecorder *recorder = data;

  zkr_session_remove_state_listener (recorder->session, recorder->listener_id);
  return G_SOURCE_REMOVE;
}

void
itest_recorder_free (ItestRecorder *recorder)
{
  if (recorder == NULL)
    return;
  itest_loop_thread_stop (&recorder->runner, recorder_remove_listener, recorder);
  zkr_session_unref (recorder->session);
  g_array_unref (recorder->records);
  g_mutex_clear (&recorder->lock);
  g_cond_clear (&recorder->cond);
  g_free (recorder);
}

int
itest_recorder_wait_nth (ItestRecorder *recorder, guint index, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  int state = -1;

  g_mutex_lock (&recorder->lock);
  while (recorder->records->len <= index)
    if (!g_cond_wait_until (&recorder->cond, &recorder->lock, deadline))
      break;
  if (recorder->records->len > index)
    state = g_array_index (recorder->records, Record, index).state;
  g_mutex_unlock (&recorder->lock);
  return state;
}

int
itest_recorder_wait_state (ItestRecorder *recorder, ZkrSessionState state,
                           guint from, int timeout_ms, gint64 *at)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  guint checked = from;

  g_mutex_lock (&recorder->lock);
  for (;;)
    {
      for (; checked < recorder->records->len; checked++)
        {
          Record *record = &g_array_index (recorder->records, Record, checked);
          if (record->state == state)
            {
              if (at != NULL)
                *at = record->at;
              g_mutex_unlock (&recorder->lock);
              return (int) checked;
            }
        }
      if (!g_cond_wait_until (&recorder->cond, &recorder->lock, deadline) &&
          checked >= recorder->records->len)
        break;
    }
  g_mutex_unlock (&recorder->lock);
  return -1;
}

guint
itest_recorder_count (ItestRecorder *recorder)
{
  guint count;

  g_mutex_lock (&recorder->lock);
  count = recorder->records->len;
  g_mutex_unlock (&recorder->lock);
  return count;
}

char *
itest_recorder_describe (ItestRecorder *recorder)
{
  GString *text = g_string_new (NULL);

  g_mutex_lock (&recorder->lock);
  for (guint i = 0; i < recorder->records->len; i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "," : "",
                            zkr_session_state_name (g_array_index (recorder->records, Record, i).state));
  g_mutex_unlock (&recorder->lock);
  return g_string_free (text, FALSE);
}

gboolean
itest_recorder_all_on_own_thread (ItestRecorder *recorder)
{
  gboolean ok;

  g_mutex_lock (&recorder->lock);
  ok = !recorder->wrong_thread;
  g_mutex_unlock (&recorder->lock);
  return ok;
}

/* ---- loss recorder ---------------------------------------------------- */

struct _ItestLossRecorder {
  GMutex lock;
  GCond cond;
  gpointer source;          /* the lock listened to */
  ItestAddLossListener add;
  GArray *events;           /* of ZkrLockEvent */
  GArray *times;            /* of gint64 */
  gboolean wrong_source;
  gboolean ready;
  ItestLoopThread runner;
};

static void
loss_recorder_on_loss (gpointer lock, ZkrLockEvent event, gpointer user_data)
{
  ItestLossRecorder *recorder = user_data;
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&recorder->lock);
  recorder->wrong_source |= lock != recorder->source;
  g_array_append_val (recorder->events, event);
  g_array_append_val (recorder->times, now);
  g_cond_broadcast (&recorder->cond);
  g_mutex_unlock (&recorder->lock);
}

static gboolean loss_recorder_mark_ready (gpointer data);

static gboolean
loss_recorder_add (gpointer data)
{
  ItestLossRecorder *recorder = data;

  recorder->add (recorder->source, loss_recorder_on_loss, recorder);
  return loss_recorder_mark_ready (recorder);
}

ItestLossRecorder *
itest_loss_recorder_new (gpointer lock, ItestAddLossListener add)
{
  ItestLossRecorder *recorder = g_new0 (ItestLossRecorder, 1);

  g_mutex_init (&recorder->lock);
  g_cond_init (&recorder->cond);
  recorder->source = lock;
  recorder->add = add;
  recorder->events = g_array_new (FALSE, FALSE, sizeof (ZkrLockEvent));
  recorder->times = g_array_new (FALSE, FALSE, sizeof (gint64));
  itest_loop_thread_init (&recorder->runner);
  itest_loop_thread_start (&recorder->runner, "loss-recorder");
  g_main_context_invoke (recorder->runner.context, loss_recorder_add, recorder);
  g_mutex_lock (&recorder->lock);
  while (!recorder->ready)
    g_cond_wait (&recorder->cond, &recorder->lock);
  g_mutex_unlock (&recorder->lock);
  return recorder;
}

static gboolean
loss_recorder_mark_ready (gpointer data)
{
  ItestLossRecorder *recorder = data;

  g_mutex_lock (&recorder->lock);
  recorder->ready = TRUE;
  g_cond_broadcast (&recorder->cond);
  g_mutex_unlock (&recorder->lock);
  return G_SOURCE_REMOVE;
}

void
itest_loss_flush (ItestLossRecorder *recorder)
{
  GSource *source = g_idle_source_new ();

  g_mutex_lock (&recorder->lock);
  recorder->ready = FALSE;
  g_mutex_unlock (&recorder->lock);
  /* Lowest priority: behind anything already queued in the context. */
  g_source_set_priority (source, G_PRIORITY_LOW);
  g_source_set_callback (source, loss_recorder_mark_ready, recorder, NULL);
  g_source_attach (source, recorder->runner.context);
  g_source_unref (source);
  g_mutex_lock (&recorder->lock);
  while (!recorder->ready)
    g_cond_wait (&recorder->cond, &recorder->lock);
  g_mutex_unlock (&recorder->lock);
}

void
itest_loss_recorder_free (ItestLossRecorder *recorder)
{
  if (recorder == NULL)
    return;
  itest_loop_thread_stop (&recorder->runner, NULL, NULL);
  g_array_unref (recorder->events);
  g_array_unref (recorder->times);
  g_mutex_clear (&recorder->lock);
  g_cond_clear (&recorder->cond);
  g_free (recorder);
}

/* Under recorder->lock: the time of the @times-th @event, or 0. */
static gint64
loss_recorder_find (ItestLossRecorder *recorder, ZkrLockEvent event, guint times)
{
  guint seen = 0;

  for (guint i = 0; i < recorder->events->len; i++)
    if (g_array_index (recorder->events, ZkrLockEvent, i) == event && ++seen == times)
      return g_array_index (recorder->times, gint64, i);
  return 0;
}

gint64
itest_loss_wait (ItestLossRecorder *recorder, ZkrLockEvent event, guint times, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gint64 at;

  g_mutex_lock (&recorder->lock);
  for (;;)
    {
      at = loss_recorder_find (recorder, event, MAX (times, 1));
      if (at != 0)
        break;
      if (!g_cond_wait_until (&recorder->cond, &recorder->lock, deadline))
        {
          at = loss_recorder_find (recorder, event, MAX (times, 1));
          break;
        }
    }
  g_mutex_unlock (&recorder->lock);
  return at;
}

guint
itest_loss_count (ItestLossRecorder *recorder, ZkrLockEvent event)
{
  guint seen = 0;

  g_mutex_lock (&recorder->lock);
  for (guint i = 0; i < recorder->events->len; i++)
    seen += g_array_index (recorder->events, ZkrLockEvent, i) == event;
  g_mutex_unlock (&recorder->lock);
  return seen;
}

gboolean
itest_loss_right_source (ItestLossRecorder *recorder)
{
  gboolean right;

  g_mutex_lock (&recorder->lock);
  right = !recorder->wrong_source;
  g_mutex_unlock (&recorder->lock);
  return right;
}

GArray *
itest_loss_events (ItestLossRecorder *recorder)
{
  GArray *events;

  g_mutex_lock (&recorder->lock);
  events = g_array_copy (recorder->events);
  g_mutex_unlock (&recorder->lock);
  return events;
}
