/* zkr integration: the mutex (and through it the queue engine) against the
 * real ensemble: exclusion across processes with fencing tokens, timeouts,
 * cancel, loss on expiry and on partition. */

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "queue-lock.h"
#include "path.h"
#include "proxy.h"
#include "zkr-test.h"

#define WAIT_MS 30000

static char *self_path;

static void
mutex_add_loss (gpointer lock, ZkrLockLossFunc func, gpointer user_data)
{
  zkr_mutex_add_loss_listener (lock, func, user_data, NULL);
}

/* ---- helpers ---------------------------------------------------------- */


static ZkrMutex *
mutex_new (ZkrSession *session, const char *path)
{
  g_autoptr (GError) error = NULL;
  ZkrMutex *mutex = zkr_mutex_new (session, path, &error);

  CU_ASSERT_PTR_NOT_NULL (mutex);
  return mutex;
}

/* ---- tests ------------------------------------------------------------ */

static void
test_mutex__acquire_release_and_tokens_increase (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("mutex-basic");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) participants = NULL;
  ZkrMutex *mutex;
  gint64 first, second;
  g_autofree char *node = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mutex = mutex_new (session, path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_FALSE (zkr_mutex_is_held (mutex));
  CU_ASSERT_TRUE (zkr_mutex_acquire (mutex, 5000, NULL, &error));
  CU_ASSERT_TRUE (zkr_mutex_is_held (mutex));
  first = zkr_mutex_get_fencing_token (mutex);
  CU_ASSERT_TRUE (first > 0);
  node = zkr_mutex_dup_node_path (mutex);
  CU_ASSERT_PTR_NOT_NULL (node);
  CU_ASSERT_PTR_NOT_NULL (node != NULL ? strstr (node, "-lock-") : NULL);
  CU_ASSERT_TRUE (zkr_mutex_verify (mutex, NULL, &error));
  participants = zkr_mutex_list_participants (mutex, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
  CU_ASSERT_EQUAL (participants->len, 1);
  if (participants->len == 1)
    {
      ZkrParticipant *p = g_ptr_array_index (participants, 0);
      CU_ASSERT_TRUE (p->is_holder);
      CU_ASSERT_EQUAL (p->token, first);
      CU_ASSERT_EQUAL (p->session_id, zkr_session_get_id (session));
      CU_ASSERT_STRING_EQUAL (p->client_id, "zkr-integration-test");
    }
  /* Not reentrant: refused, not deadlocked. */
  CU_ASSERT_FALSE (zkr_mutex_acquire (mutex, 1000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, &error));
  CU_ASSERT_FALSE (zkr_mutex_is_held (mutex));
  CU_ASSERT_EQUAL (zkr_mutex_get_fencing_token (mutex), 0);
  CU_ASSERT_TRUE (itest_node_absent (session, node));
  CU_ASSERT_FALSE (zkr_mutex_release (mutex, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_mutex_acquire (mutex, 5000, NULL, &error));
  second = zkr_mutex_get_fencing_token (mutex);
  CU_ASSERT_TRUE (second > first);
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, &error));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_mutex_unref (mutex);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

static void
test_mutex__bad_input_gets_clear_errors (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  const char *bad[] = { "", "a", "/a/", "//", "/a/./b", "/", NULL };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (guint i = 0; bad[i] != NULL; i++)
    {
      CU_ASSERT_PTR_NULL (zkr_mutex_new (session, bad[i], &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
      g_clear_error (&error);
    }
  zkr_test_expect_criticals_begin ();
  CU_ASSERT_PTR_NULL (zkr_mutex_new (NULL, "/x", &error));
  CU_ASSERT_EQUAL (zkr_test_expect_criticals_end (), 1);
  zkr_session_unref (session);
}

static void
test_mutex__try_lock_and_timeout_leave_no_node (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("mutex-try");
  g_autoptr (GError) error = NULL;
  ZkrMutex *holder, *other;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  holder = mutex_new (a, path);
  other = mutex_new (b, path);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (holder, 5000, NULL, &error));
  CU_ASSERT_FALSE (zkr_mutex_acquire (other, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_EQUAL (itest_count_children (b, path), 1);
  CU_ASSERT_FALSE (zkr_mutex_acquire (other, 300, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_EQUAL (itest_count_children (b, path), 1);
  CU_ASSERT_FALSE (zkr_mutex_is_held (other));
  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));
  CU_ASSERT_TRUE (zkr_mutex_acquire (other, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_mutex_release (other, &error));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_mutex_unref (holder);
  zkr_mutex_unref (other);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

typedef struct {
  ZkrMutex *mutex;
  GCancellable *cancellable;
  gboolean ok;
  GError *error;
} Waiter;

static gpointer
waiter_run (gpointer data)
{
  Waiter *waiter = data;

  waiter->ok = zkr_mutex_acquire (waiter->mutex, -1, waiter->cancellable, &waiter->error);
  return NULL;
}

static gboolean
has_children (gpointer data)
{
  gpointer *args = data;
  return itest_count_children (args[0], args[1]) == GPOINTER_TO_UINT (args[2]);
}

static void
test_mutex__cancel_wakes_a_blocked_waiter (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("mutex-cancel");
  g_autoptr (GError) error = NULL;
  Waiter waiter = { 0 };
  ZkrMutex *holder;
  GThread *thread;
  gpointer args[3];

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  holder = mutex_new (session, path);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (holder, 5000, NULL, &error));
  waiter.mutex = mutex_new (session, path);
  waiter.cancellable = g_cancellable_new ();
  thread = g_thread_new ("waiter", waiter_run, &waiter);
  args[0] = session;
  args[1] = path;
  args[2] = GUINT_TO_POINTER (2);
  CU_ASSERT_TRUE (itest_wait_for (has_children, args, WAIT_MS));
  g_cancellable_cancel (waiter.cancellable);
  g_thread_join (thread);
  CU_ASSERT_FALSE (waiter.ok);
  CU_ASSERT_TRUE (g_error_matches (waiter.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  g_clear_error (&waiter.error);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 1);
  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));
  zkr_mutex_unref (holder);
  zkr_mutex_unref (waiter.mutex);
  g_object_unref (waiter.cancellable);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* The waiter behind a partitioned holder gets the lock; the holder hears
 * LOST first, and no longer believes it holds. */
static void
partitioned_holder_round (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = itest_scratch_path ("mutex-expiry");
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  ZkrSession *holder_session, *waiter_session;
  ZkrMutex *holder;
  Waiter waiter = { 0 };
  ItestLossRecorder *recorder;
  GThread *thread;
  gint64 lost_at, doubt_at, granted_at;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  address = zkr_test_proxy_dup_address (proxy);
  holder_session = itest_connect (address, 4000);
  waiter_session = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (holder_session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (waiter_session);
  holder = mutex_new (holder_session, path);
  recorder = itest_loss_recorder_new (holder, mutex_add_loss);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (holder, 5000, NULL, &error));
  waiter.mutex = mutex_new (waiter_session, path);
  thread = g_thread_new ("waiter", waiter_run, &waiter);

  /* The fault that breaks naive locks: the holder is cut off. */
  zkr_test_proxy_blackhole (proxy);
  doubt_at = itest_loss_wait (recorder, ZKR_LOCK_IN_DOUBT, 1, WAIT_MS);
  CU_ASSERT_TRUE (doubt_at > 0);
  lost_at = itest_loss_wait (recorder, ZKR_LOCK_LOST, 1, WAIT_MS);
  CU_ASSERT_TRUE (lost_at > 0);
  g_thread_join (thread);
  granted_at = g_get_monotonic_time ();
  CU_ASSERT_TRUE (waiter.ok);
  CU_ASSERT_FALSE (zkr_mutex_is_held (holder));
  /* Told "lost" strictly before the other client could hold the lock. */
  CU_ASSERT_TRUE (lost_at < granted_at);
  CU_ASSERT_TRUE (zkr_mutex_release (waiter.mutex, &error));
  zkr_test_proxy_heal (proxy);
  CU_ASSERT_FALSE (zkr_mutex_release (holder, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  itest_loss_recorder_free (recorder);
  zkr_mutex_unref (holder);
  zkr_mutex_unref (waiter.mutex);
  CU_ASSERT_TRUE (itest_delete_tree (waiter_session, path));
  zkr_session_unref (holder_session);
  zkr_session_unref (waiter_session);
  zkr_test_proxy_free (proxy);
}

/* ---- exclusion across processes --------------------------------------- */

#define WORKERS 8
#define CYCLES 50

/* The shared resource is a znode holding "count token": every holder does
 * an unprotected read-modify-write, and refuses a token not above the last
 * one it saw (a fenced resource). */
static int
worker_main (const char *hosts, const char *path, const char *resource)
{
  g_autoptr (ZkrSessionOptions) options = itest_options (hosts, 10000);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSession) session = zkr_session_connect (options, &error);
  g_autoptr (ZkrMutex) mutex = NULL;
  int failures = 0;

  if (session == NULL)
    return 2;
  mutex = zkr_mutex_new (session, path, &error);
  for (int i = 0; i < CYCLES && mutex != NULL; i++)
    {
      g_autoptr (GBytes) data = NULL;
      gint64 count = 0, last = 0, token;
      g_autofree char *value = NULL;

      if (!zkr_mutex_acquire (mutex, 60000, NULL, &error))
        {
          g_printerr ("worker: acquire failed: %s\n", error->message);
          return 3;
        }
      token = zkr_mutex_get_fencing_token (mutex);
      if (zkr__op_test_get (session, resource, &data, NULL) != ZOK)
        return 4;
      value = g_strndup (g_bytes_get_data (data, NULL), g_bytes_get_size (data));
      if (sscanf (value, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &count, &last) != 2)
        return 5;
      if (token <= last)
        failures++;
      g_free (value);
      value = g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, count + 1, token);
      if (zkr__op_test_set (session, resource, value, (int) strlen (value)) != ZOK)
        return 6;
      if (!zkr_mutex_release (mutex, &error))
        return 7;
    }
  return failures > 0 ? 8 : 0;
}

static void
test_mutex__excludes_across_processes_with_increasing_tokens (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("mutex-procs");
  g_autofree char *path = NULL;
  g_autofree char *resource = NULL;
  g_autoptr (GBytes) data = NULL;
  g_autofree char *value = NULL;
  GPid pids[WORKERS];
  gint64 count = 0, last = 0;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  path = g_strdup_printf ("%s/lock", base);
  resource = g_strdup_printf ("%s/resource", base);
  zkr__op_test_create (session, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (session, base, NULL, -1, 0, NULL, NULL), ZOK);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (session, resource, "0 0", 3, 0, NULL, NULL), ZOK);
  for (int i = 0; i < WORKERS; i++)
    {
      char *argv[] = { self_path, (char *) "--worker", (char *) itest_hosts (), path, resource, NULL };
      g_autoptr (GError) error = NULL;
      CU_ASSERT_FATAL (g_spawn_async (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                      &pids[i], &error));
    }
  for (int i = 0; i < WORKERS; i++)
    {
      int status = 0;
      waitpid (pids[i], &status, 0);
      CU_ASSERT_TRUE (WIFEXITED (status) && WEXITSTATUS (status) == 0);
      if (!(WIFEXITED (status) && WEXITSTATUS (status) == 0))
        g_printerr ("worker %d exited with status %d\n", i, WEXITSTATUS (status));
      g_spawn_close_pid (pids[i]);
    }
  /* The workers wrote through their own sessions: this session's server
   * may not have applied the last write yet (reads are ordered per
   * session), so catch it up first. A worker's own read needs no sync: it
   * follows its acquire, which saw the previous holder's release on the
   * same server, and that release came after the holder's write. */
  CU_ASSERT_TRUE (zkr_node_sync (session, resource, 10000, NULL, NULL));
  CU_ASSERT_EQUAL (zkr__op_test_get (session, resource, &data, NULL), ZOK);
  value = g_strndup (g_bytes_get_data (data, NULL), g_bytes_get_size (data));
  CU_ASSERT_EQUAL (sscanf (value, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &count, &last), 2);
  /* No lost update: every acquisition's write is there. */
  CU_ASSERT_EQUAL (count, WORKERS * CYCLES);
  CU_ASSERT_TRUE (last > 0);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  zkr_session_unref (session);
}

static gboolean
session_was_lost (gpointer data)
{
  return zkr_session_get_lost_count (data) > 0;
}

/* Expired from outside while holding: told LOST, no longer held, node gone,
 * and the waiter gets the lock. */
static void
test_mutex__expired_holder_hears_lost_and_the_waiter_gets_the_lock (void)
{
  g_autofree char *path = itest_scratch_path ("mutex-expired");
  g_autoptr (GError) error = NULL;
  ZkrSession *holder_session = itest_connect (itest_hosts (), 10000);
  ZkrSession *waiter_session = itest_connect (itest_hosts (), 10000);
  g_autofree char *node = NULL;
  Waiter waiter = { 0 };
  ItestLossRecorder *recorder;
  ZkrMutex *holder;
  GThread *thread;

  CU_ASSERT_PTR_NOT_NULL_FATAL (holder_session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (waiter_session);
  holder = mutex_new (holder_session, path);
  recorder = itest_loss_recorder_new (holder, mutex_add_loss);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (holder, 5000, NULL, &error));
  node = zkr_mutex_dup_node_path (holder);
  waiter.mutex = mutex_new (waiter_session, path);
  thread = g_thread_new ("waiter", waiter_run, &waiter);
  CU_ASSERT_FATAL (itest_expire_session (holder_session));
  CU_ASSERT_TRUE (itest_loss_wait (recorder, ZKR_LOCK_LOST, 1, WAIT_MS) > 0);
  CU_ASSERT_FALSE (zkr_mutex_is_held (holder));
  g_thread_join (thread);
  CU_ASSERT_TRUE (waiter.ok);
  CU_ASSERT_TRUE (itest_node_absent (waiter_session, node));
  CU_ASSERT_FALSE (zkr_mutex_verify (holder, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_mutex_release (waiter.mutex, &error));
  /* The holder's session is fresh again and the lock works for it (wait
   * for the LOST first: a brief RECONNECTED of the old session may come
   * before the expiry reaches us). */
  CU_ASSERT_TRUE (itest_wait_for (session_was_lost, holder_session, WAIT_MS));
  CU_ASSERT_TRUE (zkr_session_wait_connected (holder_session, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_mutex_acquire (holder, 5000, NULL, &error));
  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));
  itest_loss_recorder_free (recorder);
  zkr_mutex_unref (holder);
  zkr_mutex_unref (waiter.mutex);
  CU_ASSERT_TRUE (itest_delete_tree (waiter_session, path));
  zkr_session_unref (holder_session);
  zkr_session_unref (waiter_session);
}

/* Someone deletes the holder's node by hand: the holder hears LOST and
 * is_held turns false, whether that happens right after the grant (before
 * the deferred node watch is set) or once the server lists that watch. */
static void
test_mutex__node_deleted_by_hand_is_lost (void)
{
  g_autofree char *path = itest_scratch_path ("mutex-node-deleted");
  g_autoptr (GError) error = NULL;
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *admin = itest_connect (itest_hosts (), 10000);

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (admin);
  for (int watch_set_first = 0; watch_set_first <= 1; watch_set_first++)
    {
      ZkrMutex *mutex = mutex_new (session, path);
      ItestLossRecorder *recorder = itest_loss_recorder_new (mutex, mutex_add_loss);
      g_autofree char *node = NULL;
      ItestWatchOn on;

      CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, 5000, NULL, &error));
      node = zkr_mutex_dup_node_path (mutex);
      on.node_path = node;
      on.session_id = zkr_session_get_id (session);
      if (watch_set_first)
        CU_ASSERT_TRUE (itest_wait_for (itest_watch_is_set, &on, WAIT_MS));
      CU_ASSERT_EQUAL (zkr__op_delete_sync (admin, node, -1), ZOK);
      CU_ASSERT_TRUE (itest_loss_wait (recorder, ZKR_LOCK_LOST, 1, WAIT_MS) > 0);
      CU_ASSERT_FALSE (zkr_mutex_is_held (mutex));
      CU_ASSERT_FALSE (zkr_mutex_verify (mutex, NULL, &error));
      g_clear_error (&error);
      itest_loss_recorder_free (recorder);
      zkr_mutex_unref (mutex);
    }
  CU_ASSERT_TRUE (itest_delete_tree (admin, path));
  zkr_session_unref (session);
  zkr_session_unref (admin);
}

/* itest_wait_for predicate: an acquire read its own node since *@data. */
static gboolean
own_check_sent (gpointer data)
{
  return zkr__queue_test_get_own_checks () > *(guint *) data;
}

typedef struct {
  GMainLoop *loop;
  ZkrMutex *mutex;
  gboolean ok;
  GThread *thread;
  GError *error;
} AsyncAcquire;

static void
async_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncAcquire *async = user_data;

  (void) source;
  async->thread = g_thread_self ();
  async->ok = zkr_mutex_acquire_finish (async->mutex, result, &async->error);
  g_main_loop_quit (async->loop);
}

/* The async acquire calls back once, in the caller's context, after the
 * call returned. */
static void
test_mutex__async_acquire_calls_back_in_the_callers_context (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("mutex-async");
  g_autoptr (GError) error = NULL;
  GMainContext *context = g_main_context_new ();
  AsyncAcquire async = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  g_main_context_push_thread_default (context);
  async.loop = g_main_loop_new (context, FALSE);
  async.mutex = mutex_new (session, path);
  zkr_mutex_acquire_async (async.mutex, 5000, NULL, async_acquired, &async);
  CU_ASSERT_PTR_NULL (async.thread);
  g_main_loop_run (async.loop);
  CU_ASSERT_TRUE (async.ok);
  CU_ASSERT_PTR_EQUAL (async.thread, g_thread_self ());
  CU_ASSERT_TRUE (zkr_mutex_is_held (async.mutex));
  CU_ASSERT_TRUE (zkr_mutex_release (async.mutex, &error));
  g_main_context_pop_thread_default (context);
  g_main_loop_unref (async.loop);
  g_main_context_unref (context);
  zkr_mutex_unref (async.mutex);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* A holder on one session and an async waiter on another, the waiter's
 * answer in a context of the test's own. */
typedef struct {
  ZkrSession *session;      /* the holder's */
  ZkrSession *other;        /* the waiter's */
  char *path;
  GMainContext *context;
  ZkrMutex *holder;
  AsyncAcquire async;
} HandOff;

/* Connects both sessions and takes the lock with the holder; FALSE (with
 * failed assertions) if that did not work: hand_off_finish() all the
 * same. */
static gboolean
hand_off_start (HandOff *hand, const char *name)
{
  memset (hand, 0, sizeof *hand);
  hand->session = itest_connect (itest_hosts (), 10000);
  hand->other = itest_connect (itest_hosts (), 10000);
  hand->path = itest_scratch_path (name);
  hand->context = g_main_context_new ();
  g_main_context_push_thread_default (hand->context);
  hand->async.loop = g_main_loop_new (hand->context, FALSE);
  CU_ASSERT_PTR_NOT_NULL (hand->session);
  CU_ASSERT_PTR_NOT_NULL (hand->other);
  if (hand->session == NULL || hand->other == NULL)
    return FALSE;
  hand->holder = mutex_new (hand->session, hand->path);
  hand->async.mutex = mutex_new (hand->other, hand->path);
  CU_ASSERT_TRUE (zkr_mutex_acquire (hand->holder, 5000, NULL, NULL));
  return zkr_mutex_is_held (hand->holder);
}

/* Releases what the waiter got, frees everything and checks that no node
 * is left. */
static void
hand_off_finish (HandOff *hand)
{
  if (hand->async.ok)
    CU_ASSERT_TRUE (zkr_mutex_release (hand->async.mutex, NULL));
  if (hand->holder != NULL && zkr_mutex_is_held (hand->holder))
    CU_ASSERT_TRUE (zkr_mutex_release (hand->holder, NULL));
  g_main_context_pop_thread_default (hand->context);
  g_main_loop_unref (hand->async.loop);
  g_main_context_unref (hand->context);
  g_clear_error (&hand->async.error);
  g_clear_pointer (&hand->async.mutex, zkr_mutex_unref);
  g_clear_pointer (&hand->holder, zkr_mutex_unref);
  if (hand->session != NULL)
    {
      CU_ASSERT_EQUAL (itest_count_children (hand->session, hand->path), 0);
      CU_ASSERT_TRUE (itest_delete_tree (hand->session, hand->path));
    }
  g_clear_pointer (&hand->other, zkr_session_unref);
  g_clear_pointer (&hand->session, zkr_session_unref);
  g_free (hand->path);
}

/* A waiter's listing shows the holder, which releases before the waiter's
 * watch request gets there ("no node"). The holder's going alone lets the
 * waiter through, so the waiter sent a read of its own node (with a
 * watch) right behind that request instead of a listing, and takes the
 * lock on it: one listing in all (the one behind the create), no round
 * trip after the "no node". The test holds the waiter's turn so that its
 * replies wait until the holder is gone. */
static void
test_mutex__a_waiter_behind_a_holder_that_left_needs_no_more_listing (void)
{
  HandOff hand;
  guint listings, after_no_node, own_checks;

  if (hand_off_start (&hand, "mutex-holder-left"))
    {
      listings = zkr__queue_test_get_listings ();
      after_no_node = zkr__queue_test_get_listings_after_no_node ();
      own_checks = zkr__queue_test_get_own_checks ();
      zkr_mutex_acquire_async (hand.async.mutex, WAIT_MS, NULL, async_acquired, &hand.async);
      zkr__session_stand_in_begin (hand.other);
      /* The waiter's node is there (its listing went out right behind it). */
      CU_ASSERT_TRUE (itest_wait_for_children (hand.session, hand.path, 2, WAIT_MS));
      CU_ASSERT_TRUE (zkr_mutex_release (hand.holder, NULL));
      zkr__session_stand_in_end (hand.other);
      g_main_loop_run (hand.async.loop);
      CU_ASSERT_TRUE (hand.async.ok);
      /* The one behind the create only; and the read of its own node
       * behind the watch request (unless the listing came after the holder
       * left, which the wait for two children makes unlikely: then
       * neither). */
      CU_ASSERT_EQUAL (zkr__queue_test_get_listings () - listings, 1);
      CU_ASSERT_TRUE (zkr__queue_test_get_own_checks () - own_checks <= 1);
      CU_ASSERT_EQUAL (zkr__queue_test_get_listings_after_no_node () - after_no_node, 0);
    }
  hand_off_finish (&hand);
}

/* The name of the one child of @path that is not @held's (NULL: none). */
static char *
other_child (ZkrSession *session, const char *path, const char *held)
{
  g_auto (GStrv) children = zkr_node_get_children (session, path, WAIT_MS, NULL, NULL, NULL);

  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    if (!g_str_has_suffix (held, children[i]))
      return g_strdup (children[i]);
  return NULL;
}

/* A waiter whose own node someone deletes by hand while it waits behind
 * the holder must not take the lock on that node when the holder goes,
 * even though the holder's going alone would let it through and it lists
 * nothing more: the watch on its own node tells it first (ZooKeeper sends
 * the two events in the order of the changes), and it queues again with a
 * new node. The waiter's turn is held while both changes happen, so that
 * both events wait, queued in that order. */
static void
test_mutex__a_waiter_whose_node_is_deleted_while_the_holder_leaves_queues_again (void)
{
  HandOff hand;
  g_autofree char *held = NULL;
  g_autofree char *waiting = NULL;
  g_autofree char *waiting_path = NULL;
  g_autofree char *granted = NULL;
  guint own_checks;

  if (hand_off_start (&hand, "mutex-own-node-deleted"))
    {
      held = zkr_mutex_dup_node_path (hand.holder);
      own_checks = zkr__queue_test_get_own_checks ();
      zkr_mutex_acquire_async (hand.async.mutex, WAIT_MS, NULL, async_acquired, &hand.async);
      /* Waiting: its watch on the holder and the read of its own node
       * sent, and answered (the sync's reply comes after theirs). */
      CU_ASSERT_TRUE (itest_wait_for_children (hand.session, hand.path, 2, WAIT_MS));
      CU_ASSERT_TRUE (itest_wait_for (own_check_sent, &own_checks, WAIT_MS));
      CU_ASSERT_TRUE (zkr_node_sync (hand.other, hand.path, WAIT_MS, NULL, NULL));
      waiting = other_child (hand.session, hand.path, held);
      CU_ASSERT_PTR_NOT_NULL (waiting);
      if (waiting != NULL)
        waiting_path = zkr__path_join (hand.path, waiting);
      zkr__session_stand_in_begin (hand.other);
      /* Internal calls: public ones refuse a thread standing in for a
       * session's worker. */
      if (waiting_path != NULL)
        CU_ASSERT_EQUAL (zkr__op_delete_sync (hand.session, waiting_path, -1), ZOK);
      CU_ASSERT_TRUE (zkr_mutex_release (hand.holder, NULL));
      zkr__session_stand_in_end (hand.other);
      g_main_loop_run (hand.async.loop);
      CU_ASSERT_TRUE (hand.async.ok);
      granted = zkr_mutex_dup_node_path (hand.async.mutex);
      CU_ASSERT_PTR_NOT_NULL (granted);
      /* Granted on a new node, never on the one deleted. */
      if (granted != NULL && waiting != NULL)
        CU_ASSERT_FALSE (g_str_has_suffix (granted, waiting));
    }
  hand_off_finish (&hand);
}

static void
test_mutex__partitioned_holder_is_told_lost_before_anyone_else_holds (void)
{
  for (int round = 0; round < 5; round++)
    partitioned_holder_round ();
}

/* ---- no herd ----------------------------------------------------------- */

#define HERD_SESSIONS 10
#define HERD_WAITERS 100

typedef struct {
  ZkrMutex *mutex;
  gint *order;
  gint position;
  gboolean ok;
} HerdWaiter;

static gpointer
herd_waiter_run (gpointer data)
{
  HerdWaiter *waiter = data;
  g_autoptr (GError) error = NULL;

  waiter->ok = zkr_mutex_acquire (waiter->mutex, 120000, NULL, &error);
  waiter->position = g_atomic_int_add (waiter->order, 1);
  if (waiter->ok)
    waiter->ok = zkr_mutex_release (waiter->mutex, &error);
  return NULL;
}

/* The watches on the queue's nodes, as "NODE SESSION" strings (ZooKeeper
 * keeps one per session and node), over every server's `wchp`; `NULL`
 * when a server did not answer. */
static GHashTable *
herd_watches_seen (const char *prefix)
{
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint n = 1; n <= 3; n++)
    {
      g_autofree char *answer = itest_fourlw (n, "wchp");
      g_auto (GStrv) lines = NULL;
      const char *current = NULL;

      if (answer == NULL)
        {
          g_hash_table_unref (seen);
          return NULL;
        }
      lines = g_strsplit (answer, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        {
          if (lines[i][0] == '/')
            current = g_str_has_prefix (lines[i], prefix) ? lines[i] : NULL;
          else if (current != NULL && g_str_has_prefix (g_strstrip (lines[i]), "0x"))
            g_hash_table_add (seen, g_strdup_printf ("%s %s", current, lines[i]));
        }
    }
  return seen;
}

static int
herd_compare_sequence (gconstpointer a, gconstpointer b)
{
  return strcmp (strrchr (*(const char *const *) a, '-'), strrchr (*(const char *const *) b, '-'));
}

/* The watches the queue's nodes should have once every waiter waits:
 * each waiter's on the node right ahead of its own; the first waiter's on
 * its own node as well (the head's going alone lets it through, and the
 * watch tells that its node was still there then: docs/design.md §3.1);
 * the holder's loss watch on its node, which it sets a moment after the
 * grant (§3.6), so before or after the waiters', as the machine goes.
 * Waiters share sessions: two of these may be one watch. */
static GHashTable *
herd_watches_expected (ZkrSession *session, const char *path)
{
  GHashTable *expected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) children = zkr_node_get_children (session, path, 10000, NULL, NULL, NULL);
  guint count = children != NULL ? g_strv_length (children) : 0;
  g_autofree gint64 *owners = g_new0 (gint64, count + 1);
  g_autofree char **full = g_new0 (char *, count + 1);

  qsort (children, count, sizeof (char *), herd_compare_sequence);
  for (guint i = 0; i < count; i++)
    {
      ZkrStat stat = { 0 };

      full[i] = zkr__path_join (path, children[i]);
      CU_ASSERT_TRUE (zkr_node_exists (session, full[i], 10000, NULL, &stat, NULL));
      owners[i] = stat.ephemeral_owner;
    }
  for (guint i = 0; i + 1 < count; i++)
    g_hash_table_add (expected, g_strdup_printf ("%s 0x%" G_GINT64_MODIFIER "x", full[i],
                                                 owners[i + 1]));
  for (guint i = 0; i < MIN (count, 2); i++)
    g_hash_table_add (expected, g_strdup_printf ("%s 0x%" G_GINT64_MODIFIER "x", full[i],
                                                 owners[i]));
  for (guint i = 0; i < count; i++)
    g_free (full[i]);
  return expected;
}

typedef struct {
  const char *prefix;
  GHashTable *expected;
  GHashTable *seen; /* (nullable) the last look */
} HerdWatches;

/* Exactly the expected watches, none missing, none more. */
static gboolean
herd_watches_as_expected (gpointer data)
{
  HerdWatches *watches = data;
  GHashTableIter iter;
  gpointer key;

  g_clear_pointer (&watches->seen, g_hash_table_unref);
  watches->seen = herd_watches_seen (watches->prefix);
  if (watches->seen == NULL ||
      g_hash_table_size (watches->seen) != g_hash_table_size (watches->expected))
    return FALSE;
  g_hash_table_iter_init (&iter, watches->seen);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (watches->expected, key))
      return FALSE;
  return TRUE;
}

/* Names, on stderr, the watches in @a that @b lacks. */
static void
herd_watches_print_difference (const char *what, GHashTable *a, GHashTable *b)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (b == NULL || !g_hash_table_contains (b, key))
      g_printerr ("%s: %s\n", what, (const char *) key);
}

static void
test_mutex__waiter_watches_only_predecessor (void)
{
  g_autofree char *path = itest_scratch_path ("mutex-herd");
  g_autofree char *prefix = g_strdup_printf ("%s/", path);
  ZkrSession *sessions[HERD_SESSIONS];
  HerdWaiter waiters[HERD_WAITERS];
  GThread *threads[HERD_WAITERS];
  g_autoptr (GError) error = NULL;
  HerdWatches watches = { prefix, NULL, NULL };
  gpointer args[3];
  ZkrSession *holder_session;
  ZkrMutex *holder;
  gint order = 0;
  guint wakeups_before;

  for (int i = 0; i < HERD_SESSIONS; i++)
    {
      sessions[i] = itest_connect (itest_hosts (), 20000);
      CU_ASSERT_PTR_NOT_NULL_FATAL (sessions[i]);
    }
  /* The holder has a session of its own: ZooKeeper counts one watch per
   * session and path, and the holder's loss watch is on the node its first
   * waiter watches. */
  holder_session = itest_connect (itest_hosts (), 20000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (holder_session);
  holder = mutex_new (holder_session, path);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (holder, 10000, NULL, &error));
  wakeups_before = zkr__queue_test_get_watch_wakeups ();
  for (int i = 0; i < HERD_WAITERS; i++)
    {
      waiters[i].mutex = mutex_new (sessions[i % HERD_SESSIONS], path);
      waiters[i].order = &order;
      waiters[i].ok = FALSE;
      threads[i] = g_thread_new ("herd", herd_waiter_run, &waiters[i]);
    }
  args[0] = sessions[0];
  args[1] = path;
  args[2] = GUINT_TO_POINTER (HERD_WAITERS + 1);
  CU_ASSERT_TRUE (itest_wait_for (has_children, args, 60000));
  /* One watch per waiter, on the node right ahead of its own, and no
   * other but the first waiter's and the holder's on their own nodes. */
  watches.expected = herd_watches_expected (sessions[0], path);
  /* 102, or 101 when the first two waiters share a session. */
  CU_ASSERT_TRUE (g_hash_table_size (watches.expected) >= HERD_WAITERS + 1);
  if (!itest_wait_for (herd_watches_as_expected, &watches, 60000))
    {
      CU_FAIL ("the watches on the queue are not one per waiter on its predecessor");
      herd_watches_print_difference ("missing", watches.expected, watches.seen);
      if (watches.seen != NULL)
        herd_watches_print_difference ("more", watches.seen, watches.expected);
    }
  g_clear_pointer (&watches.seen, g_hash_table_unref);
  g_hash_table_unref (watches.expected);

  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));
  for (int i = 0; i < HERD_WAITERS; i++)
    {
      g_thread_join (threads[i]);
      CU_ASSERT_TRUE (waiters[i].ok);
      zkr_mutex_unref (waiters[i].mutex);
    }
  /* Each release woke exactly one waiter: one wakeup per waiter. */
  CU_ASSERT_EQUAL (zkr__queue_test_get_watch_wakeups () - wakeups_before, HERD_WAITERS);
  CU_ASSERT_EQUAL (itest_count_children (sessions[0], path), 0);
  zkr_mutex_unref (holder);
  CU_ASSERT_TRUE (itest_delete_tree (sessions[0], path));
  for (int i = 0; i < HERD_SESSIONS; i++)
    zkr_session_unref (sessions[i]);
  zkr_session_unref (holder_session);
}

/* A waiter in a thread of its own: acquires (30 s at most), verifies,
 * notes its node and releases. */
typedef struct {
  ZkrMutex *mutex;
  gboolean acquired;
  gboolean verified;
  char *node;
} CheckedWaiter;

static gpointer
checked_waiter_run (gpointer data)
{
  CheckedWaiter *waiter = data;
  g_autoptr (GError) error = NULL;

  waiter->acquired = zkr_mutex_acquire (waiter->mutex, WAIT_MS, NULL, &error);
  if (waiter->acquired)
    {
      waiter->verified = zkr_mutex_verify (waiter->mutex, NULL, NULL);
      waiter->node = zkr_mutex_dup_node_path (waiter->mutex);
      zkr_mutex_release (waiter->mutex, NULL);
    }
  return NULL;
}

/* A holder (its own session) and a checked waiter (another session, its
 * own thread) queued behind it, watching the holder's node. */
typedef struct {
  char *path;
  ZkrSession *session;   /* the holder's */
  ZkrSession *other;     /* the waiter's */
  ZkrMutex *holder;
  char *holder_node;
  CheckedWaiter waiter;
  GThread *thread;
} QueuedWaiter;

/* FALSE (with a failure) when the pair could not be set up; call
 * queued_waiter_finish() either way. */
static gboolean
queued_waiter_start (QueuedWaiter *queued, const char *name)
{
  g_autoptr (GError) error = NULL;
  ItestWatchOn on;

  memset (queued, 0, sizeof *queued);
  queued->path = itest_scratch_path (name);
  queued->session = itest_connect (itest_hosts (), 10000);
  queued->other = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL (queued->session);
  CU_ASSERT_PTR_NOT_NULL (queued->other);
  if (queued->session == NULL || queued->other == NULL)
    return FALSE;
  queued->holder = mutex_new (queued->session, queued->path);
  queued->waiter.mutex = mutex_new (queued->other, queued->path);
  if (queued->holder == NULL || queued->waiter.mutex == NULL)
    return FALSE;
  CU_ASSERT_TRUE (zkr_mutex_acquire (queued->holder, 5000, NULL, &error));
  if (error != NULL)
    return FALSE;
  queued->holder_node = zkr_mutex_dup_node_path (queued->holder);
  queued->thread = g_thread_new (name, checked_waiter_run, &queued->waiter);
  on.node_path = queued->holder_node;
  on.session_id = zkr_session_get_id (queued->other);
  CU_ASSERT_TRUE (itest_wait_for (itest_watch_is_set, &on, WAIT_MS));
  return TRUE;
}

/* Releases the holder, joins the waiter and checks that nothing is left. */
static void
queued_waiter_finish (QueuedWaiter *queued)
{
  if (queued->holder != NULL && zkr_mutex_is_held (queued->holder))
    CU_ASSERT_TRUE (zkr_mutex_release (queued->holder, NULL));
  if (queued->thread != NULL)
    g_thread_join (queued->thread);
  g_free (queued->waiter.node);
  if (queued->session != NULL)
    {
      CU_ASSERT_EQUAL (itest_count_children (queued->session, queued->path), 0);
      CU_ASSERT_TRUE (itest_delete_tree (queued->session, queued->path));
    }
  g_clear_pointer (&queued->waiter.mutex, zkr_mutex_unref);
  g_clear_pointer (&queued->holder, zkr_mutex_unref);
  g_clear_pointer (&queued->other, zkr_session_unref);
  g_clear_pointer (&queued->session, zkr_session_unref);
  g_free (queued->holder_node);
  g_free (queued->path);
}

/* A waiter whose node someone deletes while it waits must not claim the
 * lock on the strength of an old listing: it finds its node gone on the
 * next listing and queues again with a new one (as Curator does). */
static void
test_mutex__waiter_whose_node_vanished_queues_again (void)
{
  g_autofree char *waiter_node = NULL;
  g_autoptr (GPtrArray) children = NULL;
  QueuedWaiter queued;

  /* No fatal assertion before the join: the thread uses the waiter. */
  if (queued_waiter_start (&queued, "mutex-waiter-node-gone"))
    {
      CU_ASSERT_EQUAL (zkr__op_test_get_children (queued.session, queued.path, &children), ZOK);
      CU_ASSERT_EQUAL (children != NULL ? children->len : 0, 2);
      for (guint i = 0; children != NULL && i < children->len; i++)
        if (!g_str_has_suffix (queued.holder_node, g_ptr_array_index (children, i)))
          waiter_node = zkr__path_join (queued.path, g_ptr_array_index (children, i));
      CU_ASSERT_PTR_NOT_NULL (waiter_node);
      if (waiter_node != NULL)
        CU_ASSERT_EQUAL (zkr__op_delete_sync (queued.session, waiter_node, -1), ZOK);
      CU_ASSERT_TRUE (zkr_mutex_release (queued.holder, NULL));
      g_thread_join (g_steal_pointer (&queued.thread));
      CU_ASSERT_TRUE (queued.waiter.acquired);
      CU_ASSERT_TRUE (queued.waiter.verified);
      CU_ASSERT_STRING_NOT_EQUAL (queued.waiter.node != NULL ? queued.waiter.node : "",
                                  waiter_node != NULL ? waiter_node : "");
    }
  queued_waiter_finish (&queued);
}

/* itest_wait_for predicate: the session (@data) rewrote the three answers
 * it was asked to. */
static gboolean
rewrites_done (gpointer data)
{
  return zkr__session_test_count_rewritten (data) >= 3;
}

/* A server that sheds load answers "throttled" and keeps the connection:
 * no reconnect will come to make a waiter look again. A write to the
 * waiter's own node (as a revoker's would be) makes it read its node
 * again; that read is throttled three times (or the listings it then
 * sends); the waiter looks again after short pauses, and gets the lock
 * once the holder goes. Before, it waited for a reconnect that never
 * came, until its timeout. */
static void
test_mutex__waiter_gets_the_lock_through_throttled_answers (void)
{
  g_autoptr (GPtrArray) children = NULL;
  g_autofree char *waiter_node = NULL;
  QueuedWaiter queued;

  if (queued_waiter_start (&queued, "mutex-throttled"))
    {
      CU_ASSERT_EQUAL (zkr__op_test_get_children (queued.session, queued.path, &children), ZOK);
      for (guint i = 0; children != NULL && i < children->len; i++)
        if (!g_str_has_suffix (queued.holder_node, g_ptr_array_index (children, i)))
          waiter_node = zkr__path_join (queued.path, g_ptr_array_index (children, i));
      CU_ASSERT_PTR_NOT_NULL (waiter_node);
      zkr__session_test_rewrite_answers (queued.other, ZTHROTTLEDOP, 3);
      if (waiter_node != NULL)
        CU_ASSERT_EQUAL (zkr__op_test_set (queued.session, waiter_node, "x", 1), ZOK);
      CU_ASSERT_TRUE (itest_wait_for (rewrites_done, queued.other, WAIT_MS));
      CU_ASSERT_TRUE (zkr_mutex_release (queued.holder, NULL));
      g_thread_join (g_steal_pointer (&queued.thread));
      CU_ASSERT_TRUE (queued.waiter.acquired);
      CU_ASSERT_TRUE (queued.waiter.verified);
      CU_ASSERT_EQUAL (zkr__session_test_count_rewritten (queued.other), 3);
    }
  queued_waiter_finish (&queued);
}

/* A waiter blocked in acquire runs its session's posts itself when they
 * come (zkr__session_block_standing_in): the reply that grants it the lock
 * wakes its own thread, not the worker, which would then wake it. */
static void
test_mutex__a_blocked_waiter_runs_its_hand_off_itself (void)
{
  QueuedWaiter queued;
  guint before;

  if (queued_waiter_start (&queued, "mutex-stand-in"))
    {
      before = zkr__session_test_count_stand_in_posts (queued.other);
      CU_ASSERT_TRUE (zkr_mutex_release (queued.holder, NULL));
      g_thread_join (g_steal_pointer (&queued.thread));
      CU_ASSERT_TRUE (queued.waiter.acquired);
      CU_ASSERT_TRUE (queued.waiter.verified);
      /* At least the event (its going lets the waiter through: no
       * request follows it). */
      CU_ASSERT_TRUE (zkr__session_test_count_stand_in_posts (queued.other) >= before + 1);
    }
  queued_waiter_finish (&queued);
}

/* A waiter's listing (the one sent behind its create) shows a holder
 * ahead: its reply runs in place on the completion thread, which sends the
 * watch request itself (ACQUIRE_IN_PLACE) instead of waking the blocked
 * caller to do it. The grant still reaches the caller. (A listing that
 * comes back before the caller gave back the turn it sent with is handled
 * as usual: tried again then.) */
static void
test_mutex__a_waiters_listing_is_handled_in_place (void)
{
  QueuedWaiter queued;
  gboolean in_place = FALSE;

  for (int attempt = 0; attempt < 5 && !in_place; attempt++)
    {
      if (queued_waiter_start (&queued, "mutex-in-place"))
        {
          in_place = zkr__session_test_count_in_place_posts (queued.other) > 0;
          CU_ASSERT_TRUE (zkr_mutex_release (queued.holder, NULL));
          g_thread_join (g_steal_pointer (&queued.thread));
          CU_ASSERT_TRUE (queued.waiter.acquired);
          CU_ASSERT_TRUE (queued.waiter.verified);
        }
      queued_waiter_finish (&queued);
    }
  CU_ASSERT_TRUE (in_place);
}

/* An acquire whose cancellable is already cancelled is answered CANCELLED
 * by the call itself and sends nothing: the lock's path is never made. */
static void
test_mutex__an_acquire_cancelled_before_the_call_sends_nothing (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("mutex-cancelled-before");
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  ZkrMutex *mutex;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mutex = mutex_new (session, path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (zkr_mutex_acquire (mutex, 10000, cancellable, &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_FALSE (zkr_mutex_is_held (mutex));
  CU_ASSERT_TRUE (itest_node_absent (session, path));
  /* The object is usable afterwards. */
  CU_ASSERT_TRUE (zkr_mutex_acquire (mutex, 10000, NULL, NULL));
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, NULL));
  zkr_mutex_unref (mutex);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* An ancestor made or found while the lock's parents are made vanishes
 * before the next one is made (a container the server reaped once emptied:
 * the fresh-clone run of 4b8b8ae failed a semaphore's acquire with "no
 * node" so). The chain is made again from the top and the acquire goes on.
 * Three answers under the lock's root are rewritten to "no node": the lock
 * node's create and the listing behind it (both truly "no node": nothing
 * exists yet) and the root's create as a parent (made, but seen as gone). Before, the acquire
 * failed with NO_NODE. */
static void
test_mutex__an_ancestor_gone_while_parents_are_made_is_made_again (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("mutex-ancestor-gone");
  g_autofree char *path = g_strdup_printf ("%s/a/b", root);
  g_autoptr (GError) error = NULL;
  ZkrMutex *mutex;
  guint before;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mutex = mutex_new (session, path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  before = zkr__session_test_count_rewritten (session);
  zkr__session_test_rewrite_answers_under (session, root, ZNONODE, 3);
  CU_ASSERT_TRUE (zkr_mutex_acquire (mutex, 10000, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  if (error != NULL)
    g_printerr ("acquire: %s\n", error->message);
  CU_ASSERT_EQUAL (zkr__session_test_count_rewritten (session) - before, 3);
  zkr__session_test_rewrite_answers (session, 0, 0);
  CU_ASSERT_TRUE (zkr_mutex_is_held (mutex));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 1);
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, NULL));
  zkr_mutex_unref (mutex);
  CU_ASSERT_TRUE (itest_delete_tree (session, root));
  zkr_session_unref (session);
}

/* ---- release_async ------------------------------------------------------ */

static void
mutex_release_start (gpointer mutex, GCancellable *cancellable, GAsyncReadyCallback callback,
                     gpointer user_data)
{
  zkr_mutex_release_async (mutex, cancellable, callback, user_data);
}

static gboolean
mutex_release_finish (gpointer mutex, GAsyncResult *result, GError **error)
{
  return zkr_mutex_release_finish (mutex, result, error);
}

static gboolean
mutex_is_held (gpointer mutex)
{
  return zkr_mutex_is_held (mutex);
}

static gboolean
mutex_is_release_pending (gpointer mutex)
{
  return zkr_mutex_is_release_pending (mutex);
}

static const ItestRelease mutex_release = {
  mutex_release_start, mutex_release_finish, mutex_is_held, mutex_is_release_pending
};

/* release_async of a held mutex answers TRUE, in the caller's context and
 * after the call returned, once its node is gone: another session takes
 * the lock with a single try. Not held, it answers NOT_HELD. */
static void
test_mutex__release_async_deletes_the_node_and_refuses_when_not_held (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *other_session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("mutex-release-async");
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  ZkrMutex *mutex, *other;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other_session);
  mutex = mutex_new (session, path);
  other = mutex_new (other_session, path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, WAIT_MS, NULL, &error));
  node = zkr_mutex_dup_node_path (mutex);
  itest_assert_release_async_releases (mutex, &mutex_release);
  CU_ASSERT_TRUE (itest_node_absent (other_session, node));
  CU_ASSERT_TRUE (zkr_mutex_acquire (other, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_mutex_release (other, &error));
  itest_assert_release_async_not_held (mutex, &mutex_release, NULL);
  zkr_mutex_unref (other);
  zkr_mutex_unref (mutex);
  itest_assert_path_clean (session, path);
  zkr_session_unref (other_session);
  zkr_session_unref (session);
}

/* A release_async whose cancellable is cancelled answers CANCELLED; the
 * mutex is no longer held all the same, and its node goes in the
 * background. */
static void
test_mutex__a_cancelled_release_async_answers_cancelled_and_the_node_goes (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("mutex-release-cancelled");
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  ZkrMutex *mutex;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mutex = mutex_new (session, path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, WAIT_MS, NULL, &error));
  node = zkr_mutex_dup_node_path (mutex);
  itest_assert_release_async_cancelled (mutex, &mutex_release);
  CU_ASSERT_TRUE (itest_node_absent (session, node));
  zkr_mutex_unref (mutex);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_mutex__acquire_release_and_tokens_increase),
  ZKR_TEST_CASE (test_mutex__bad_input_gets_clear_errors),
  ZKR_TEST_CASE (test_mutex__try_lock_and_timeout_leave_no_node),
  ZKR_TEST_CASE (test_mutex__cancel_wakes_a_blocked_waiter),
  ZKR_TEST_CASE (test_mutex__excludes_across_processes_with_increasing_tokens),
  ZKR_TEST_CASE (test_mutex__waiter_watches_only_predecessor),
  ZKR_TEST_CASE (test_mutex__async_acquire_calls_back_in_the_callers_context),
  ZKR_TEST_CASE (test_mutex__expired_holder_hears_lost_and_the_waiter_gets_the_lock),
  ZKR_TEST_CASE (test_mutex__node_deleted_by_hand_is_lost),
  ZKR_TEST_CASE (test_mutex__waiter_whose_node_vanished_queues_again),
  ZKR_TEST_CASE (test_mutex__waiter_gets_the_lock_through_throttled_answers),
  ZKR_TEST_CASE (test_mutex__a_blocked_waiter_runs_its_hand_off_itself),
  ZKR_TEST_CASE (test_mutex__a_waiters_listing_is_handled_in_place),
  ZKR_TEST_CASE (test_mutex__a_waiter_behind_a_holder_that_left_needs_no_more_listing),
  ZKR_TEST_CASE (test_mutex__a_waiter_whose_node_is_deleted_while_the_holder_leaves_queues_again),
  ZKR_TEST_CASE (test_mutex__partitioned_holder_is_told_lost_before_anyone_else_holds),
  ZKR_TEST_CASE (test_mutex__an_ancestor_gone_while_parents_are_made_is_made_again),
  ZKR_TEST_CASE (test_mutex__an_acquire_cancelled_before_the_call_sends_nothing),
  ZKR_TEST_CASE (test_mutex__release_async_deletes_the_node_and_refuses_when_not_held),
  ZKR_TEST_CASE (test_mutex__a_cancelled_release_async_answers_cancelled_and_the_node_goes),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  self_path = g_file_read_link ("/proc/self/exe", NULL);
  if (argc == 5 && strcmp (argv[1], "--worker") == 0)
    return worker_main (argv[2], argv[3], argv[4]);
  return zkr_test_main (argc, argv, "mutex", NULL, NULL, tests);
}
