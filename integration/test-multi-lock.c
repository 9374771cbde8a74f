/* zkr integration: the multi-lock against the real ensemble: opposite
 * orders never deadlock and exclude each other, all or nothing with
 * rollback, path order in and reverse order out, one loss story, cancel,
 * async, bad input. */

#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "zkr-test.h"

#define WAIT_MS 30000

/* ---- helpers ---------------------------------------------------------- */

static char *
child_path (const char *path, const char *child)
{
  return g_strdup_printf ("%s/%s", path, child);
}

/* A mutex on @path that @session holds (another client, for the tests
 * whose multi-lock finds one of its paths busy). */
static ZkrMutex *
held_mutex (ZkrSession *session, const char *path)
{
  g_autoptr (GError) error = NULL;
  ZkrMutex *mutex = zkr_mutex_new (session, path, &error);

  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, 5000, NULL, &error));
  return mutex;
}

static ZkrMultiLock *
multi_new (ZkrSession *session, const char *first, const char *second)
{
  const char *paths[] = { first, second, NULL };
  g_autoptr (GError) error = NULL;
  ZkrMultiLock *multi = zkr_multi_lock_new (session, paths, &error);

  CU_ASSERT_PTR_NOT_NULL (multi);
  return multi;
}

/* Creates /zkr-it, @base and its children @names as plain (persistent)
 * nodes, so that no container reaper touches them during the test. */
static void
make_tree (ZkrSession *session, const char *base, const char *const *names)
{
  zkr__op_test_create (session, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL);
  CU_ASSERT_EQUAL (zkr__op_test_create (session, base, NULL, -1, 0, NULL, NULL), ZOK);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *path = child_path (base, names[i]);
      CU_ASSERT_EQUAL (zkr__op_test_create (session, path, NULL, -1, 0, NULL, NULL), ZOK);
    }
}

/* ---- loss ------------------------------------------------------------- */

static void
multi_add_loss (gpointer lock, ZkrLockLossFunc func, gpointer user_data)
{
  zkr_multi_lock_add_loss_listener (lock, func, user_data, NULL);
}

/* One story for the whole, not one per entry: IN_DOUBT and RESTORED
 * alternate (an expiry from outside may first show a reconnect), and LOST
 * comes once, last. */
static gboolean
loss_story_is_whole (ItestLossRecorder *recorder)
{
  g_autoptr (GArray) events = itest_loss_events (recorder);
  gboolean in_doubt = FALSE, lost = FALSE, ok = TRUE;

  for (guint i = 0; ok && i < events->len; i++)
    switch (g_array_index (events, ZkrLockEvent, i))
      {
      case ZKR_LOCK_IN_DOUBT:
        ok = !lost && !in_doubt;
        in_doubt = TRUE;
        break;
      case ZKR_LOCK_RESTORED:
        ok = !lost && in_doubt;
        in_doubt = FALSE;
        break;
      case ZKR_LOCK_LOST:
      default:
        ok = !lost;
        lost = TRUE;
        break;
      }
  return ok && lost;
}

/* ---- opposite orders --------------------------------------------------- */

#define ROUNDS 20

typedef struct {
  ZkrMultiLock *multi;
  gint *inside;          /* atomic: holders of both locks right now */
  gint *overlaps;        /* atomic: times two were inside at once */
  gint *done;            /* atomic: clients finished */
  gint failures;
} Client;

static gpointer
client_run (gpointer data)
{
  Client *client = data;

  for (int round = 0; round < ROUNDS; round++)
    {
      g_autoptr (GError) error = NULL;

      if (!zkr_multi_lock_acquire (client->multi, 20000, NULL, &error))
        {
          g_printerr ("multi-lock client: %s\n", error->message);
          client->failures++;
          break;
        }
      if (g_atomic_int_add (client->inside, 1) != 0)
        g_atomic_int_inc (client->overlaps);
      g_thread_yield ();
      g_atomic_int_add (client->inside, -1);
      if (!zkr_multi_lock_release (client->multi, &error))
        client->failures++;
    }
  g_atomic_int_inc (client->done);
  return NULL;
}

static gboolean
both_done (gpointer data)
{
  return g_atomic_int_get ((gint *) data) == 2;
}

static void
test_multi_lock__opposite_orders_never_deadlock_and_exclude_each_other (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("multi-orders");
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;
  gint inside = 0, overlaps = 0, done = 0;
  Client clients[2];
  GThread *threads[2];

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  path_a = child_path (base, "A");
  path_b = child_path (base, "B");
  clients[0] = (Client) { multi_new (a, path_a, path_b), &inside, &overlaps, &done, 0 };
  clients[1] = (Client) { multi_new (b, path_b, path_a), &inside, &overlaps, &done, 0 };
  CU_ASSERT_PTR_NOT_NULL_FATAL (clients[0].multi);
  CU_ASSERT_PTR_NOT_NULL_FATAL (clients[1].multi);
  for (int i = 0; i < 2; i++)
    threads[i] = g_thread_new ("client", client_run, &clients[i]);
  /* A deadlock would keep them both waiting until their timeouts. */
  CU_ASSERT_TRUE (itest_wait_for (both_done, &done, 60000));
  for (int i = 0; i < 2; i++)
    {
      g_thread_join (threads[i]);
      CU_ASSERT_EQUAL (clients[i].failures, 0);
      zkr_multi_lock_unref (clients[i].multi);
    }
  CU_ASSERT_EQUAL (overlaps, 0);
  CU_ASSERT_EQUAL (itest_count_children (a, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (a, path_b), 0);
  CU_ASSERT_TRUE (itest_delete_tree (a, base));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* ---- all or nothing ---------------------------------------------------- */

static void
test_multi_lock__a_busy_lock_rolls_back_the_ones_taken (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("multi-rollback");
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;
  g_autoptr (GError) error = NULL;
  ZkrMultiLock *multi;
  ZkrMutex *holder;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  path_a = child_path (base, "A");
  path_b = child_path (base, "B");
  holder = held_mutex (b, path_b);
  multi = multi_new (a, path_b, path_a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (multi);

  /* A is free and taken first, B is not: A must be given back. */
  CU_ASSERT_FALSE (zkr_multi_lock_acquire (multi, 500, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_multi_lock_is_held (multi));
  CU_ASSERT_EQUAL (zkr_multi_lock_get_fencing_token (multi, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (a, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (a, path_b), 1);
  CU_ASSERT_TRUE (zkr_mutex_is_held (holder));

  /* Try-once: the same. */
  CU_ASSERT_FALSE (zkr_multi_lock_acquire (multi, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_EQUAL (itest_count_children (a, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (a, path_b), 1);

  /* B free: both. */
  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));
  CU_ASSERT_TRUE (zkr_multi_lock_acquire (multi, 5000, NULL, &error));
  CU_ASSERT_TRUE (zkr_multi_lock_is_held (multi));
  CU_ASSERT_TRUE (zkr_multi_lock_verify (multi, NULL, &error));
  CU_ASSERT_FALSE (zkr_mutex_acquire (holder, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_multi_lock_release (multi, &error));
  CU_ASSERT_FALSE (zkr_multi_lock_is_held (multi));
  CU_ASSERT_EQUAL (itest_count_children (a, path_a), 0);
  /* Through b: the holder's failed try sent its delete before answering,
   * so b's next request sees it gone; a may see it for one more round
   * trip, sync or not. */
  CU_ASSERT_EQUAL (itest_count_children (b, path_b), 0);
  zkr_multi_lock_unref (multi);
  zkr_mutex_unref (holder);
  CU_ASSERT_TRUE (itest_delete_tree (a, base));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* Children of @path through @session with nothing sent before: the first
 * request after a call's answer. No sync: only this session's own nodes
 * are asked about. */
static guint
children_now (ZkrSession *session, const char *path)
{
  g_autoptr (GPtrArray) children = NULL;
  int rc = zkr__op_test_get_children (session, path, &children);

  CU_ASSERT_EQUAL (rc, ZOK);
  return rc == ZOK ? children->len : G_MAXUINT;
}

/* README "Deadlines": a failed acquire's rollback deletes are sent before
 * it answers, so what the session sends next sees the nodes gone. Rounds
 * of it, timed out and tried once: each takes A, then fails on B. */
static void
test_multi_lock__the_first_request_after_a_failed_acquire_sees_the_rollback (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("multi-rollback-order");
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;
  g_autoptr (GError) error = NULL;
  const char *names[] = { "A", "B", NULL };
  ZkrMultiLock *multi;
  ZkrMutex *holder;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  path_a = child_path (base, "A");
  path_b = child_path (base, "B");
  make_tree (a, base, names);
  holder = held_mutex (b, path_b);
  multi = multi_new (a, path_a, path_b);
  CU_ASSERT_PTR_NOT_NULL_FATAL (multi);

  for (guint round = 0; round < 20; round++)
    {
      CU_ASSERT_FALSE (zkr_multi_lock_acquire (multi, round % 2 == 0 ? 100 : 0, NULL, &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
      g_clear_error (&error);
      CU_ASSERT_EQUAL (children_now (a, path_a), 0);
    }
  CU_ASSERT_FALSE (zkr_multi_lock_is_held (multi));
  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));
  zkr_multi_lock_unref (multi);
  zkr_mutex_unref (holder);
  CU_ASSERT_EQUAL (itest_count_children (a, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (a, path_b), 0);
  CU_ASSERT_TRUE (itest_delete_tree (a, base));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* ---- order in, order out ----------------------------------------------- */

static gint64
pzxid_of (ZkrSession *session, const char *path)
{
  struct Stat stat;

  CU_ASSERT_EQUAL (zkr__op_test_exists (session, path, &stat), ZOK);
  return stat.pzxid;
}

static void
test_multi_lock__acquires_in_path_order_and_releases_in_reverse (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("multi-order");
  const char *names[] = { "a", "b", "c", NULL };
  g_autofree char *pa = NULL;
  g_autofree char *pb = NULL;
  g_autofree char *pc = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) participants = NULL;
  const char *const *sorted;
  ZkrMultiLock *multi;
  gint64 ta, tb, tc;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  make_tree (session, base, names);
  pa = child_path (base, "a");
  pb = child_path (base, "b");
  pc = child_path (base, "c");
  {
    const char *paths[] = { pc, pa, pb, NULL };
    multi = zkr_multi_lock_new (session, paths, &error);
  }
  CU_ASSERT_PTR_NOT_NULL_FATAL (multi);
  sorted = zkr_multi_lock_get_paths (multi);
  CU_ASSERT_STRING_EQUAL (sorted[0], pa);
  CU_ASSERT_STRING_EQUAL (sorted[1], pb);
  CU_ASSERT_STRING_EQUAL (sorted[2], pc);
  CU_ASSERT_PTR_NULL (sorted[3]);

  CU_ASSERT_TRUE_FATAL (zkr_multi_lock_acquire (multi, 5000, NULL, &error));
  ta = zkr_multi_lock_get_fencing_token (multi, pa);
  tb = zkr_multi_lock_get_fencing_token (multi, pb);
  tc = zkr_multi_lock_get_fencing_token (multi, pc);
  /* Nodes created in path order: their czxids increase. */
  CU_ASSERT_TRUE (ta > 0 && ta < tb && tb < tc);
  {
    g_autofree char *node = zkr_multi_lock_dup_node_path (multi, pb);
    CU_ASSERT_TRUE (node != NULL && g_str_has_prefix (node, pb) && strstr (node, "-lock-") != NULL);
  }
  participants = zkr_multi_lock_list_participants (multi, pc, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
  CU_ASSERT_EQUAL (participants->len, 1);
  if (participants->len == 1)
    CU_ASSERT_EQUAL (((ZkrParticipant *) g_ptr_array_index (participants, 0))->token, tc);

  CU_ASSERT_TRUE (zkr_multi_lock_release (multi, &error));
  /* Each parent's pzxid is the zxid of its last child change, here the
   * delete of our node: c went first, a last. */
  CU_ASSERT_TRUE (pzxid_of (session, pc) < pzxid_of (session, pb));
  CU_ASSERT_TRUE (pzxid_of (session, pb) < pzxid_of (session, pa));
  CU_ASSERT_EQUAL (itest_count_children (session, pa), 0);
  CU_ASSERT_EQUAL (itest_count_children (session, pb), 0);
  CU_ASSERT_EQUAL (itest_count_children (session, pc), 0);
  zkr_multi_lock_unref (multi);
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  zkr_session_unref (session);
}

/* ---- loss -------------------------------------------------------------- */

static gboolean
session_renewed (gpointer data)
{
  return zkr_session_get_lost_count (data) > 0 && zkr_session_is_connected (data);
}

/* No entry holds a node any more. */
static gboolean
entries_dropped (gpointer data)
{
  ZkrMultiLock *multi = data;
  const char *const *paths = zkr_multi_lock_get_paths (multi);

  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autofree char *node = zkr_multi_lock_dup_node_path (multi, paths[i]);
      if (node != NULL)
        return FALSE;
    }
  return TRUE;
}

static void
test_multi_lock__expiry_is_one_lost_event_for_the_whole (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *observer = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("multi-loss");
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;
  g_autoptr (GError) error = NULL;
  ItestLossRecorder *recorder;
  ZkrMultiLock *multi;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (observer);
  path_a = child_path (base, "A");
  path_b = child_path (base, "B");
  multi = multi_new (session, path_a, path_b);
  CU_ASSERT_PTR_NOT_NULL_FATAL (multi);
  recorder = itest_loss_recorder_new (multi, multi_add_loss);
  CU_ASSERT_TRUE_FATAL (zkr_multi_lock_acquire (multi, 5000, NULL, &error));
  CU_ASSERT_FATAL (itest_expire_session (session));
  CU_ASSERT_TRUE (itest_loss_wait (recorder, ZKR_LOCK_LOST, 1, WAIT_MS) > 0);
  CU_ASSERT_FALSE (zkr_multi_lock_is_held (multi));
  CU_ASSERT_FALSE (zkr_multi_lock_verify (multi, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  /* The whole is lost with its first entry; the other follows. */
  CU_ASSERT_TRUE (itest_wait_for (entries_dropped, multi, WAIT_MS));
  /* Both entries are lost: nothing to release. */
  CU_ASSERT_FALSE (zkr_multi_lock_release (multi, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  /* The fresh session (an expiry from outside may first show a reconnect
   * of the old one) takes it again; by then both entries' losses went
   * through the worker, and their deliveries through the recorder. */
  CU_ASSERT_TRUE (itest_wait_for (session_renewed, session, WAIT_MS));
  CU_ASSERT_TRUE (zkr_multi_lock_acquire (multi, 5000, NULL, &error));
  itest_loss_flush (recorder);
  CU_ASSERT_EQUAL (itest_loss_count (recorder, ZKR_LOCK_LOST), 1);
  CU_ASSERT_TRUE (loss_story_is_whole (recorder));
  CU_ASSERT_TRUE (zkr_multi_lock_release (multi, &error));
  CU_ASSERT_EQUAL (itest_count_children (observer, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (observer, path_b), 0);
  CU_ASSERT_TRUE (itest_loss_right_source (recorder));
  itest_loss_recorder_free (recorder);
  zkr_multi_lock_unref (multi);
  CU_ASSERT_TRUE (itest_delete_tree (observer, base));
  zkr_session_unref (session);
  zkr_session_unref (observer);
}

/* ---- cancel, async ----------------------------------------------------- */

typedef struct {
  GMainLoop *loop;
  ZkrMultiLock *multi;
  gboolean ok;
  gboolean finished;
  GThread *thread;
  GError *error;
} AsyncAcquire;

static void
async_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncAcquire *async = user_data;

  (void) source;
  async->thread = g_thread_self ();
  async->ok = zkr_multi_lock_acquire_finish (async->multi, result, &async->error);
  async->finished = TRUE;
  g_main_loop_quit (async->loop);
}

typedef struct {
  ZkrSession *session;
  const char *path;
  guint children;
} ChildCount;

static gboolean
children_are (gpointer data)
{
  ChildCount *want = data;

  return itest_count_children (want->session, want->path) == want->children;
}

static gboolean
cancel_when_waiting (gpointer data)
{
  gpointer *args = data;

  /* Our node in B's queue, behind the holder's: we wait on B. */
  if (!children_are (args[0]))
    return G_SOURCE_CONTINUE;
  g_cancellable_cancel (args[1]);
  return G_SOURCE_REMOVE;
}

static void
test_multi_lock__async_acquire_and_cancel_in_the_callers_context (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("multi-async");
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;
  g_autoptr (GError) error = NULL;
  GMainContext *context = g_main_context_new ();
  GCancellable *cancellable = g_cancellable_new ();
  AsyncAcquire async = { 0 };
  ChildCount waiting;
  gpointer args[2];
  ZkrMutex *holder;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  path_a = child_path (base, "A");
  path_b = child_path (base, "B");
  g_main_context_push_thread_default (context);
  async.loop = g_main_loop_new (context, FALSE);
  async.multi = multi_new (a, path_a, path_b);
  CU_ASSERT_PTR_NOT_NULL_FATAL (async.multi);

  zkr_multi_lock_acquire_async (async.multi, 5000, NULL, async_acquired, &async);
  CU_ASSERT_FALSE (async.finished);
  g_main_loop_run (async.loop);
  CU_ASSERT_TRUE (async.ok);
  CU_ASSERT_PTR_EQUAL (async.thread, g_thread_self ());
  /* A second acquire while held is refused, in the context too. */
  async.finished = FALSE;
  zkr_multi_lock_acquire_async (async.multi, 5000, NULL, async_acquired, &async);
  CU_ASSERT_FALSE (async.finished);
  g_main_loop_run (async.loop);
  CU_ASSERT_FALSE (async.ok);
  CU_ASSERT_TRUE (g_error_matches (async.error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD));
  g_clear_error (&async.error);
  CU_ASSERT_TRUE (zkr_multi_lock_release (async.multi, &error));

  /* Cancel while waiting for B: A is given back. */
  holder = zkr_mutex_new (b, path_b, &error);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (holder, 5000, NULL, &error));
  waiting = (ChildCount) { a, path_b, 2 };
  args[0] = &waiting;
  args[1] = cancellable;
  {
    GSource *poll = g_timeout_source_new (20);
    g_source_set_callback (poll, cancel_when_waiting, args, NULL);
    g_source_attach (poll, context);
    g_source_unref (poll);
  }
  async.finished = FALSE;
  zkr_multi_lock_acquire_async (async.multi, WAIT_MS, cancellable, async_acquired, &async);
  g_main_loop_run (async.loop);
  CU_ASSERT_FALSE (async.ok);
  CU_ASSERT_TRUE (g_error_matches (async.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  g_clear_error (&async.error);
  CU_ASSERT_FALSE (zkr_multi_lock_is_held (async.multi));
  CU_ASSERT_EQUAL (itest_count_children (a, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (a, path_b), 1);
  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));

  g_main_context_pop_thread_default (context);
  g_main_loop_unref (async.loop);
  g_main_context_unref (context);
  g_object_unref (cancellable);
  zkr_multi_lock_unref (async.multi);
  zkr_mutex_unref (holder);
  CU_ASSERT_EQUAL (itest_count_children (a, path_b), 0);
  CU_ASSERT_TRUE (itest_delete_tree (a, base));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* ---- bad input --------------------------------------------------------- */

static void
test_multi_lock__bad_input_gets_clear_errors (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *closed = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("multi-bad");
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;
  g_autoptr (GError) error = NULL;
  const char *empty[] = { NULL };
  ZkrMultiLock *multi;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (closed);
  path_a = child_path (base, "A");
  path_b = child_path (base, "B");

  CU_ASSERT_PTR_NULL (zkr_multi_lock_new (session, empty, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_multi_lock_new (session, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  {
    const char *twice[] = { path_b, path_a, path_b, NULL };
    CU_ASSERT_PTR_NULL (zkr_multi_lock_new (session, twice, &error));
    CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
    CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, path_b) : NULL);
    g_clear_error (&error);
  }
  {
    const char *bad[] = { path_a, "/x//y", NULL };
    CU_ASSERT_PTR_NULL (zkr_multi_lock_new (session, bad, &error));
    CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
    CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "/x//y") : NULL);
    g_clear_error (&error);
  }
  {
    const char *root[] = { "/", NULL };
    CU_ASSERT_PTR_NULL (zkr_multi_lock_new (session, root, &error));
    CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
    g_clear_error (&error);
  }
  zkr_test_expect_criticals_begin ();
  {
    const char *one[] = { path_a, NULL };
    CU_ASSERT_PTR_NULL (zkr_multi_lock_new (NULL, one, &error));
  }
  CU_ASSERT_EQUAL (zkr_test_expect_criticals_end (), 1);

  multi = multi_new (session, path_a, path_b);
  CU_ASSERT_PTR_NOT_NULL_FATAL (multi);
  CU_ASSERT_FALSE (zkr_multi_lock_release (multi, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_EQUAL (zkr_multi_lock_get_fencing_token (multi, "/not/ours"), 0);
  CU_ASSERT_PTR_NULL (zkr_multi_lock_list_participants (multi, "/not/ours", NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_multi_lock_acquire (multi, 5000, NULL, &error));
  CU_ASSERT_FALSE (zkr_multi_lock_acquire (multi, 1000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_multi_lock_release (multi, &error));
  CU_ASSERT_FALSE (zkr_multi_lock_release (multi, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  zkr_multi_lock_unref (multi);

  /* A multi-lock whose session was closed. */
  multi = multi_new (closed, path_a, path_b);
  zkr_session_close (closed);
  CU_ASSERT_FALSE (zkr_multi_lock_acquire (multi, 1000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  zkr_multi_lock_unref (multi);
  CU_ASSERT_EQUAL (itest_count_children (session, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (session, path_b), 0);
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  zkr_session_unref (session);
  zkr_session_unref (closed);
}

/* ---- release_async ------------------------------------------------------ */

static void
multi_release_start (gpointer multi, GCancellable *cancellable, GAsyncReadyCallback callback,
                     gpointer user_data)
{
  zkr_multi_lock_release_async (multi, cancellable, callback, user_data);
}

static gboolean
multi_release_finish (gpointer multi, GAsyncResult *result, GError **error)
{
  return zkr_multi_lock_release_finish (multi, result, error);
}

static gboolean
multi_is_held (gpointer multi)
{
  return zkr_multi_lock_is_held (multi);
}

static gboolean
multi_is_release_pending (gpointer multi)
{
  return zkr_multi_lock_is_release_pending (multi);
}

static const ItestRelease multi_release = {
  multi_release_start, multi_release_finish, multi_is_held, multi_is_release_pending
};

/* release_async answers TRUE once every node is gone: another session's
 * multi-lock on the same paths takes them with a single try. Not held,
 * it answers NOT_HELD. */
static void
test_multi_lock__release_async_deletes_every_node_and_refuses_when_not_held (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *other_session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("multi-release-async");
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;
  g_autoptr (GError) error = NULL;
  ZkrMultiLock *multi, *other;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other_session);
  path_a = child_path (base, "a");
  path_b = child_path (base, "b");
  multi = multi_new (session, path_a, path_b);
  other = multi_new (other_session, path_b, path_a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (multi);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other);
  CU_ASSERT_TRUE_FATAL (zkr_multi_lock_acquire (multi, WAIT_MS, NULL, &error));
  itest_assert_release_async_releases (multi, &multi_release);
  CU_ASSERT_EQUAL (itest_count_children (other_session, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (other_session, path_b), 0);
  CU_ASSERT_TRUE (zkr_multi_lock_acquire (other, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_multi_lock_release (other, &error));
  itest_assert_release_async_not_held (multi, &multi_release, NULL);
  zkr_multi_lock_unref (other);
  zkr_multi_lock_unref (multi);
  itest_assert_path_clean (session, base);
  zkr_session_unref (other_session);
  zkr_session_unref (session);
}

typedef struct {
  ZkrMultiLock *multi;
  const char *path;
} MemberOf;

static gboolean
member_dropped (gpointer data)
{
  MemberOf *member = data;
  g_autofree char *node = zkr_multi_lock_dup_node_path (member->multi, member->path);

  return node == NULL;
}

/* A cancelled release_async answers CANCELLED and every node goes all the
 * same. With one lock lost (its node deleted by hand), release_async still
 * gives the other back and answers NOT_HELD naming the lost path. */
static void
test_multi_lock__release_async_answers_a_cancel_and_names_a_lost_lock (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("multi-release-cancelled");
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;
  g_autofree char *node_a = NULL;
  g_autoptr (GError) error = NULL;
  ZkrMultiLock *multi;
  MemberOf member;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  path_a = child_path (base, "a");
  path_b = child_path (base, "b");
  multi = multi_new (session, path_a, path_b);
  CU_ASSERT_PTR_NOT_NULL_FATAL (multi);
  CU_ASSERT_TRUE_FATAL (zkr_multi_lock_acquire (multi, WAIT_MS, NULL, &error));
  itest_assert_release_async_cancelled (multi, &multi_release);
  CU_ASSERT_EQUAL (itest_count_children (session, path_a), 0);
  CU_ASSERT_EQUAL (itest_count_children (session, path_b), 0);

  CU_ASSERT_TRUE_FATAL (zkr_multi_lock_acquire (multi, WAIT_MS, NULL, &error));
  node_a = zkr_multi_lock_dup_node_path (multi, path_a);
  CU_ASSERT_EQUAL (zkr__op_delete_sync (session, node_a, -1), ZOK);
  member = (MemberOf) { multi, path_a };
  CU_ASSERT_TRUE (itest_wait_for (member_dropped, &member, WAIT_MS));
  itest_assert_release_async_not_held (multi, &multi_release, path_a);
  CU_ASSERT_EQUAL (itest_count_children (session, path_b), 0);
  zkr_multi_lock_unref (multi);
  itest_assert_path_clean (session, base);
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_multi_lock__opposite_orders_never_deadlock_and_exclude_each_other),
  ZKR_TEST_CASE (test_multi_lock__a_busy_lock_rolls_back_the_ones_taken),
  ZKR_TEST_CASE (test_multi_lock__the_first_request_after_a_failed_acquire_sees_the_rollback),
  ZKR_TEST_CASE (test_multi_lock__acquires_in_path_order_and_releases_in_reverse),
  ZKR_TEST_CASE (test_multi_lock__expiry_is_one_lost_event_for_the_whole),
  ZKR_TEST_CASE (test_multi_lock__async_acquire_and_cancel_in_the_callers_context),
  ZKR_TEST_CASE (test_multi_lock__bad_input_gets_clear_errors),
  ZKR_TEST_CASE (test_multi_lock__release_async_deletes_every_node_and_refuses_when_not_held),
  ZKR_TEST_CASE (test_multi_lock__release_async_answers_a_cancel_and_names_a_lost_lock),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "multi-lock", NULL, NULL, tests);
}
