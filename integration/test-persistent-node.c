/* zkr integration: the persistent node against the real ensemble: made and
 * waited for, its data set, made again after a delete from outside and
 * after 20 expiries in a row (exactly one node of ours each time), deleted
 * by close, deadlines through a black-holed proxy, unref from inside its
 * listener. */
#include <string.h>

#include "itest.h"
#include "zkr-test.h"

#define SESSION_MS 6000
#define SHORT_TIMEOUT_MS 1000
#define MARGIN_MS 750
#define EARLY_MS 20
#define EXPIRIES 20

/* ---- creations, heard on a thread of their own --------------------------- */

typedef struct {
  ItestLoopThread runner;
  gint count;                   /* atomic */
  gint wrong_node;              /* atomic: a call named another node */
  ZkrPersistentNode *expected;  /* not owned */
} Creations;

static void
creation_heard (ZkrPersistentNode *node, const char *path, gpointer data)
{
  Creations *creations = data;

  (void) path;
  if (node != creations->expected)
    g_atomic_int_inc (&creations->wrong_node);
  g_atomic_int_inc (&creations->count);
}

/* Adds the listener in the runner's context, then starts the runner. */
static void
creations_start (Creations *creations, ZkrPersistentNode *node)
{
  memset (creations, 0, sizeof *creations);
  creations->expected = node;
  itest_loop_thread_init (&creations->runner);
  g_main_context_push_thread_default (creations->runner.context);
  zkr_persistent_node_add_listener (node, creation_heard, creations, NULL);
  g_main_context_pop_thread_default (creations->runner.context);
  itest_loop_thread_start (&creations->runner, "pn-creations");
}

typedef struct {
  Creations *creations;
  gint at_least;
} CountWait;

static gboolean
count_reached (gpointer data)
{
  CountWait *wait = data;

  return g_atomic_int_get (&wait->creations->count) >= wait->at_least;
}

static gboolean
creations_wait (Creations *creations, gint at_least)
{
  CountWait wait = { creations, at_least };

  return itest_wait_for (count_reached, &wait, ITEST_WAIT_MS);
}

/* ---- server-side facts ------------------------------------------------------ */

typedef struct {
  ZkrSession *session;
  const char *path;
  const char *text;
} DataWait;

/* A sync before each read: the last write may have come through another
 * session, on another member, which the reading one's member may not
 * have applied yet (it would show the data from before, maybe @text of a
 * node since replaced). */
static gboolean
node_holds (gpointer data)
{
  DataWait *wait = data;
  g_autoptr (GBytes) bytes = NULL;

  if (!zkr_node_sync (wait->session, wait->path, ITEST_CALL_MS, NULL, NULL))
    return FALSE;
  bytes = zkr_node_get (wait->session, wait->path, ITEST_CALL_MS, NULL, NULL, NULL);
  return bytes != NULL && itest_bytes_equal (bytes, wait->text);
}

static gboolean
wait_node_holds (ZkrSession *session, const char *path, const char *text)
{
  DataWait wait = { session, path, text };

  return itest_wait_for (node_holds, &wait, ITEST_WAIT_MS);
}

/* The parent's children seen from @direct: exactly one, @node's, holding
 * @text. */
static void
assert_exactly_one_of_ours (ZkrSession *direct, const char *parent, ZkrPersistentNode *node,
                            const char *text)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) children = NULL;
  g_autofree char *actual = zkr_persistent_node_dup_actual_path (node);
  g_autofree char *child = NULL;
  g_autoptr (GBytes) data = NULL;

  CU_ASSERT_TRUE (zkr_node_sync (direct, parent, ITEST_CALL_MS, NULL, NULL));
  children = zkr_node_get_children (direct, parent, ITEST_CALL_MS, NULL, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (children);
  CU_ASSERT_EQUAL (g_strv_length (children), 1);
  if (g_strv_length (children) != 1)
    {
      for (guint i = 0; children[i] != NULL; i++)
        g_printerr ("  child %s\n", children[i]);
      return;
    }
  CU_ASSERT_PTR_NOT_NULL_FATAL (actual);
  child = g_strconcat (parent, "/", children[0], NULL);
  CU_ASSERT_STRING_EQUAL (child, actual);
  data = zkr_node_get (direct, child, ITEST_CALL_MS, NULL, NULL, &error);
  CU_ASSERT_TRUE (data != NULL && itest_bytes_equal (data, text));
}

static ZkrPersistentNode *
node_new (ZkrSession *session, const char *path, ZkrCreateMode mode, gboolean protection,
          const char *text)
{
  g_autoptr (GError) error = NULL;
  ZkrPersistentNode *node = zkr_persistent_node_new (session, path, mode, protection, text,
                                                     strlen (text), &error);

  CU_ASSERT_PTR_NOT_NULL_FATAL (node);
  CU_ASSERT_TRUE (error == NULL);
  return node;
}

static void
close_and_check (ZkrPersistentNode *node, ZkrSession *direct, const char *parent)
{
  g_autoptr (GError) error = NULL;

  CU_ASSERT_TRUE (zkr_persistent_node_close (node, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (error == NULL);
  CU_ASSERT_EQUAL (itest_count_children (direct, parent), 0);
}

/* ---- tests ------------------------------------------------------------------ */

static void
test_persistent_node__is_created_and_waited_for (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("pn-create");
  g_autofree char *path = g_strconcat (root, "/group/member", NULL);
  g_autofree char *parent = g_strconcat (root, "/group", NULL);
  g_autoptr (GError) error = NULL;
  ZkrPersistentNode *node;
  ItestAsync wait;
  GAsyncResult *result;
  g_autofree char *actual = NULL;

  node = node_new (session, path, ZKR_CREATE_EPHEMERAL, FALSE, "hello");
  /* Not started: the wait says so at once. */
  CU_ASSERT_FALSE (zkr_persistent_node_wait_for_initial_create (node, SHORT_TIMEOUT_MS, NULL,
                                                                &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_FALSE (zkr_persistent_node_start (node, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                               &error));
  CU_ASSERT_TRUE (error == NULL);
  /* The async twin, once created: answered in our context. */
  itest_async_begin (&wait);
  zkr_persistent_node_wait_for_initial_create_async (node, ITEST_CALL_MS, NULL,
                                                     itest_async_done, &wait);
  result = itest_async_wait (&wait, ITEST_CALL_MS);
  CU_ASSERT_TRUE (result != NULL &&
                  zkr_persistent_node_wait_for_initial_create_finish (node, result, NULL));
  itest_async_end (&wait);
  actual = zkr_persistent_node_dup_actual_path (node);
  CU_ASSERT_STRING_EQUAL (actual, path);
  CU_ASSERT_TRUE (wait_node_holds (direct, path, "hello"));
  assert_exactly_one_of_ours (direct, parent, node, "hello");
  close_and_check (node, direct, parent);
  /* Closed: a second close is fine, data can no longer be set. */
  CU_ASSERT_TRUE (zkr_persistent_node_close (node, ITEST_CALL_MS, NULL, NULL));
  CU_ASSERT_FALSE (zkr_persistent_node_set_data (node, "x", 1, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  zkr_persistent_node_unref (node);
  itest_cleanup_root (direct, NULL, root);
}

static void
test_persistent_node__set_data_reaches_the_node_and_later_creations (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("pn-data");
  g_autofree char *path = g_strconcat (root, "/member", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) kept = NULL;
  ZkrPersistentNode *node;
  Creations creations;

  node = node_new (session, path, ZKR_CREATE_EPHEMERAL, TRUE, "one");
  creations_start (&creations, node);
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_TRUE (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                               &error));
  CU_ASSERT_TRUE (zkr_persistent_node_set_data (node, "two", 3, &error));
  kept = zkr_persistent_node_dup_data (node);
  CU_ASSERT_TRUE (itest_bytes_equal (kept, "two"));
  {
    g_autofree char *actual = zkr_persistent_node_dup_actual_path (node);

    CU_ASSERT_TRUE (wait_node_holds (direct, actual, "two"));
  }
  /* Deleted from outside: made again, with the data set last. */
  {
    g_autofree char *actual = zkr_persistent_node_dup_actual_path (node);

    CU_ASSERT_TRUE (creations_wait (&creations, 1));
    CU_ASSERT_TRUE (zkr_node_delete (direct, actual, -1, ITEST_CALL_MS, NULL, &error));
  }
  CU_ASSERT_TRUE (creations_wait (&creations, 2));
  assert_exactly_one_of_ours (direct, root, node, "two");
  /* Bad data is refused and named; the node keeps its data. */
  CU_ASSERT_FALSE (zkr_persistent_node_set_data (node, NULL, 4, &error));
  itest_assert_invalid_naming (error, "4");
  g_clear_error (&error);
  close_and_check (node, direct, root);
  itest_loop_thread_stop (&creations.runner, NULL, NULL);
  CU_ASSERT_EQUAL (g_atomic_int_get (&creations.wrong_node), 0);
  zkr_persistent_node_unref (node);
  itest_cleanup_root (direct, NULL, root);
}

/* @mode at @root/member (a prefix for a sequential mode): after each
 * expiry, made again, and exactly one node of ours with our data. */
static void
expire_many_times (const char *name, ZkrCreateMode mode, gboolean protection)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path (name);
  g_autofree char *path = g_strconcat (root, "/member", NULL);
  g_autoptr (GError) error = NULL;
  ZkrPersistentNode *node;
  Creations creations;

  node = node_new (session, path, mode, protection, "ours");
  creations_start (&creations, node);
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_TRUE_FATAL (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                                     &error));
  CU_ASSERT_TRUE (creations_wait (&creations, 1));
  for (int i = 0; i < EXPIRIES; i++)
    {
      gint64 lost_before = zkr_session_get_lost_count (session);

      CU_ASSERT_TRUE_FATAL (itest_expire_session (session));
      CU_ASSERT_TRUE (zkr_session_get_lost_count (session) > lost_before);
      CU_ASSERT_TRUE_FATAL (creations_wait (&creations, i + 2));
      assert_exactly_one_of_ours (direct, root, node, "ours");
    }
  CU_ASSERT_EQUAL (g_atomic_int_get (&creations.count), EXPIRIES + 1);
  close_and_check (node, direct, root);
  itest_loop_thread_stop (&creations.runner, NULL, NULL);
  zkr_persistent_node_unref (node);
  itest_cleanup_root (direct, NULL, root);
}

static void
test_persistent_node__twenty_expiries_leave_exactly_one_ephemeral_of_ours (void)
{
  expire_many_times ("pn-expire", ZKR_CREATE_EPHEMERAL, FALSE);
}

static void
test_persistent_node__twenty_expiries_leave_exactly_one_ephemeral_sequential_of_ours (void)
{
  expire_many_times ("pn-expire-seq", ZKR_CREATE_EPHEMERAL_SEQUENTIAL, TRUE);
}

static void
test_persistent_node__close_deletes_a_persistent_node (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("pn-close");
  g_autofree char *path = g_strconcat (root, "/config", NULL);
  g_autoptr (GError) error = NULL;
  ZkrPersistentNode *node;
  g_autofree char *actual = NULL;

  node = node_new (session, path, ZKR_CREATE_PERSISTENT_SEQUENTIAL, TRUE, "p");
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_TRUE (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                               &error));
  actual = zkr_persistent_node_dup_actual_path (node);
  CU_ASSERT_FALSE (itest_node_absent (direct, actual));
  /* A persistent node outlives its session's expiry and stays one. */
  CU_ASSERT_TRUE_FATAL (itest_expire_session (session));
  CU_ASSERT_TRUE (zkr_session_wait_connected (session, ITEST_CALL_MS, NULL, NULL));
  CU_ASSERT_TRUE (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                               &error));
  assert_exactly_one_of_ours (direct, root, node, "p");
  close_and_check (node, direct, root);
  CU_ASSERT_TRUE (itest_node_absent (direct, actual));
  CU_ASSERT_PTR_NULL (zkr_persistent_node_dup_actual_path (node));
  zkr_persistent_node_unref (node);
  itest_cleanup_root (direct, NULL, root);
}

static void
assert_timeout_by_deadline (gboolean ok, GError *error, gint64 start)
{
  CU_ASSERT_FALSE (ok);
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) >= SHORT_TIMEOUT_MS - EARLY_MS);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
}

/* Started on a black-holed link: the wait answers by its deadline,
 * blocking and async, and to a cancel; close leaves nothing behind. */
static void
test_persistent_node__wait_answers_by_its_deadline_while_black_holed (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *path = NULL;
  ZkrPersistentNode *node;
  ItestAsync wait;
  GAsyncResult *result;
  gint64 start;
  gboolean ok;

  itest_proxied_init (&f, NULL, "pn-deadline", 4000);
  path = g_strconcat (f.root, "/member", NULL);
  node = node_new (f.proxied, path, ZKR_CREATE_EPHEMERAL, TRUE, "d");
  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  start = g_get_monotonic_time ();
  ok = zkr_persistent_node_wait_for_initial_create (node, SHORT_TIMEOUT_MS, NULL, &error);
  assert_timeout_by_deadline (ok, error, start);
  g_clear_error (&error);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_SUSPENDED, 0,
                                             ITEST_WAIT_MS, NULL) >= 0);
  itest_async_begin (&wait);
  start = g_get_monotonic_time ();
  zkr_persistent_node_wait_for_initial_create_async (node, SHORT_TIMEOUT_MS, NULL,
                                                     itest_async_done, &wait);
  result = itest_async_wait (&wait, ITEST_WAIT_MS);
  CU_ASSERT_PTR_NOT_NULL_FATAL (result);
  ok = zkr_persistent_node_wait_for_initial_create_finish (node, result, &error);
  assert_timeout_by_deadline (ok, error, start);
  g_clear_error (&error);
  itest_async_end (&wait);
  CU_ASSERT_FALSE (zkr_persistent_node_wait_for_initial_create (node, 0, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (zkr_persistent_node_wait_for_initial_create (node, -1, cancellable, &error));
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);
  /* The session closed: at once. */
  zkr_session_close (f.proxied);
  CU_ASSERT_FALSE (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                                &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  zkr_persistent_node_close (node, ITEST_CALL_MS, NULL, NULL);
  zkr_persistent_node_unref (node);
  itest_recorder_free (f.recorder);
  g_clear_pointer (&f.proxied, zkr_session_unref);
  itest_proxied_finish (&f, TRUE);
}

static gboolean
set_reply_dropped (gpointer session)
{
  return !zkr__session_test_drop_set_reply_armed (session);
}

/* A create whose reply is lost (the server made the node): adopted, not
 * made twice; a set whose reply is lost: written again. Both for a
 * protected EPHEMERAL_SEQUENTIAL node and a plain EPHEMERAL one. */
static void
lost_replies (const char *name, ZkrCreateMode mode, gboolean protection)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path (name);
  g_autofree char *path = g_strconcat (root, "/member", NULL);
  g_autofree char *actual = NULL;
  g_autoptr (GError) error = NULL;
  ZkrPersistentNode *node;
  Creations creations;

  /* The parent first: the hook drops the reply of the next create that
   * succeeds, which must be our node's, not its parent's. */
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, root, NULL, 0, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, ITEST_CALL_MS, NULL,
                                         NULL, NULL, &error));
  node = node_new (session, path, mode, protection, "first");
  creations_start (&creations, node);
  zkr__session_test_drop_next_create_reply (session);
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_TRUE_FATAL (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                                     &error));
  /* The hook was used: the one create was answered "lost". */
  CU_ASSERT_FALSE (zkr__session_test_take_drop_create_reply (session));
  assert_exactly_one_of_ours (direct, root, node, "first");
  zkr__session_test_drop_next_set_reply (session);
  CU_ASSERT_TRUE (zkr_persistent_node_set_data (node, "second", 6, &error));
  actual = zkr_persistent_node_dup_actual_path (node);
  /* The hook used (the set's reply dropped) is seen once that reply came
   * back, which may be after the data is visible to another session. */
  CU_ASSERT_TRUE (itest_wait_for (set_reply_dropped, session, ITEST_WAIT_MS));
  CU_ASSERT_TRUE (wait_node_holds (direct, actual, "second"));
  CU_ASSERT_FALSE (zkr__session_test_take_drop_set_reply (session));
  assert_exactly_one_of_ours (direct, root, node, "second");
  close_and_check (node, direct, root);
  itest_loop_thread_stop (&creations.runner, NULL, NULL);
  /* Adopted by the protected create itself (one creation), or read back
   * and found ours (none: not made by this object's create). */
  CU_ASSERT_EQUAL (g_atomic_int_get (&creations.count), protection ? 1 : 0);
  zkr_persistent_node_unref (node);
  itest_cleanup_root (direct, NULL, root);
}

static void
test_persistent_node__a_lost_create_reply_is_adopted_not_repeated (void)
{
  lost_replies ("pn-lost-seq", ZKR_CREATE_EPHEMERAL_SEQUENTIAL, TRUE);
  lost_replies ("pn-lost-plain", ZKR_CREATE_EPHEMERAL, FALSE);
}

/* CURATOR-483: a reconnect of the same session (SUSPENDED, RECONNECTED)
 * re-created a protected sequential node beside the one still there. zkr
 * reads first: the same node stays, nothing is made. */
static void
test_persistent_node__a_reconnect_keeps_the_same_node_curator_483 (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  ZkrPersistentNode *node;
  Creations creations;
  guint from;

  itest_proxied_init (&f, NULL, "pn-reconnect", SESSION_MS);
  path = g_strconcat (f.root, "/member", NULL);
  node = node_new (f.proxied, path, ZKR_CREATE_EPHEMERAL_SEQUENTIAL, TRUE, "r1");
  creations_start (&creations, node);
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_TRUE_FATAL (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                                     &error));
  before = zkr_persistent_node_dup_actual_path (node);
  for (int round = 0; round < 3; round++)
    {
      g_autofree char *text = g_strdup_printf ("r%d", round + 2);

      from = itest_recorder_count (f.recorder);
      zkr_test_proxy_reset (f.proxy);
      CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_RECONNECTED, from,
                                                 ITEST_WAIT_MS, NULL) >= 0);
      /* The thread works in order: once this write landed, its check
       * after the reconnect was done. */
      CU_ASSERT_TRUE (zkr_persistent_node_set_data (node, text, strlen (text), &error));
      CU_ASSERT_TRUE (wait_node_holds (f.direct, before, text));
      assert_exactly_one_of_ours (f.direct, f.root, node, text);
    }
  after = zkr_persistent_node_dup_actual_path (node);
  CU_ASSERT_STRING_EQUAL (before, after);
  CU_ASSERT_EQUAL (g_atomic_int_get (&creations.count), 1);
  CU_ASSERT_EQUAL (zkr_session_get_lost_count (f.proxied), 0);
  close_and_check (node, f.direct, f.root);
  itest_loop_thread_stop (&creations.runner, NULL, NULL);
  zkr_persistent_node_unref (node);
  itest_proxied_finish (&f, TRUE);
}

typedef struct {
  ZkrSession *direct;
  const char *path;
  ZkrSession *owner;
} OwnedWait;

static gboolean
owned_by (gpointer data)
{
  OwnedWait *wait = data;
  ZkrStat stat = { 0 };

  return zkr_node_exists (wait->direct, wait->path, ITEST_CALL_MS, NULL, &stat, NULL) &&
         stat.ephemeral_owner == zkr_session_get_id (wait->owner);
}

/* Another session's ephemeral node at our plain path is not ours (Curator
 * writes its data into it and calls it created): we wait for it to go,
 * then make ours. */
static void
test_persistent_node__another_sessions_node_at_our_path_is_not_taken_over (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  ZkrSession *other = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("pn-foreign");
  g_autofree char *path = g_strconcat (root, "/member", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) theirs = NULL;
  ZkrPersistentNode *node;
  OwnedWait owned = { direct, path, session };

  CU_ASSERT_TRUE_FATAL (zkr_node_create (other, path, "theirs", 6, ZKR_CREATE_EPHEMERAL,
                                         ZKR_CREATE_PARENTS_CONTAINER, ITEST_CALL_MS, NULL,
                                         NULL, NULL, &error));
  node = node_new (session, path, ZKR_CREATE_EPHEMERAL, FALSE, "ours");
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_FALSE (zkr_persistent_node_wait_for_initial_create (node, SHORT_TIMEOUT_MS, NULL,
                                                                &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  theirs = zkr_node_get (direct, path, ITEST_CALL_MS, NULL, NULL, &error);
  CU_ASSERT_TRUE (theirs != NULL && itest_bytes_equal (theirs, "theirs"));
  {
    /* Closed while it waits for theirs to go: theirs stays (the close
     * once deleted it blindly). */
    g_autofree char *path2 = g_strconcat (root, "/member2", NULL);
    g_autoptr (GBytes) still = NULL;
    ZkrPersistentNode *blocked;

    CU_ASSERT_TRUE (zkr_node_create (other, path2, "theirs", 6, ZKR_CREATE_EPHEMERAL,
                                     ZKR_CREATE_PARENTS_CONTAINER, ITEST_CALL_MS, NULL, NULL,
                                     NULL, &error));
    blocked = node_new (session, path2, ZKR_CREATE_EPHEMERAL, FALSE, "ours");
    CU_ASSERT_TRUE (zkr_persistent_node_start (blocked, &error));
    CU_ASSERT_FALSE (zkr_persistent_node_wait_for_initial_create (blocked, SHORT_TIMEOUT_MS,
                                                                  NULL, &error));
    g_clear_error (&error);
    CU_ASSERT_TRUE (zkr_persistent_node_close (blocked, ITEST_CALL_MS, NULL, &error));
    CU_ASSERT_PTR_NULL (error);
    g_clear_error (&error);
    zkr_persistent_node_unref (blocked);
    CU_ASSERT_TRUE (zkr_node_sync (direct, path2, ITEST_CALL_MS, NULL, NULL));
    still = zkr_node_get (direct, path2, ITEST_CALL_MS, NULL, NULL, &error);
    CU_ASSERT_TRUE (still != NULL && itest_bytes_equal (still, "theirs"));
    g_clear_error (&error);
  }
  /* Theirs goes with its session: ours is made. */
  zkr_session_close (other);
  zkr_session_unref (other);
  CU_ASSERT_TRUE (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                               &error));
  CU_ASSERT_TRUE (itest_wait_for (owned_by, &owned, ITEST_WAIT_MS));
  assert_exactly_one_of_ours (direct, root, node, "ours");
  close_and_check (node, direct, root);
  zkr_persistent_node_unref (node);
  itest_cleanup_root (direct, NULL, root);
}

/* ---- unref from inside the listener ------------------------------------------ */

typedef struct {
  GMutex lock;
  GCond cond;
  gboolean released;
  gint calls;                   /* atomic */
  gint wrong_node;              /* atomic: a call named another node */
  ZkrPersistentNode *node;      /* the listener's to drop */
  ZkrPersistentNode *expected;  /* not owned: never dereferenced */
} Dropper;

static void
drop_in_listener (ZkrPersistentNode *node, const char *path, gpointer data)
{
  Dropper *dropper = data;

  (void) path;
  if (node != dropper->expected)
    g_atomic_int_inc (&dropper->wrong_node);
  if (g_atomic_int_add (&dropper->calls, 1) == 0)
    zkr_persistent_node_unref (g_steal_pointer (&dropper->node));
}

/* Holds the runner's thread until released, so that events queue. */
static gboolean
hold_runner (gpointer data)
{
  Dropper *dropper = data;

  g_mutex_lock (&dropper->lock);
  while (!dropper->released)
    g_cond_wait (&dropper->cond, &dropper->lock);
  g_mutex_unlock (&dropper->lock);
  return G_SOURCE_REMOVE;
}

typedef struct {
  ZkrSession *direct;
  const char *path;
  gint64 not_czxid;
} Remade;

static gboolean
node_remade (gpointer data)
{
  Remade *remade = data;
  ZkrStat stat = { 0 };

  return zkr_node_exists (remade->direct, remade->path, ITEST_CALL_MS, NULL, &stat, NULL) &&
         stat.czxid != remade->not_czxid;
}

static gboolean
node_absent (gpointer data)
{
  Remade *remade = data;

  return itest_node_absent (remade->direct, remade->path);
}

static void
test_persistent_node__unref_inside_its_listener_with_events_queued (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("pn-unref");
  g_autofree char *path = g_strconcat (root, "/member", NULL);
  g_autoptr (GError) error = NULL;
  ItestLoopThread runner;
  Dropper dropper = { 0 };
  Remade remade = { direct, path, 0 };
  ZkrStat stat = { 0 };
  GSource *hold;

  g_mutex_init (&dropper.lock);
  g_cond_init (&dropper.cond);
  dropper.node = node_new (session, path, ZKR_CREATE_EPHEMERAL, FALSE, "u");
  dropper.expected = dropper.node;
  itest_loop_thread_init (&runner);
  g_main_context_push_thread_default (runner.context);
  zkr_persistent_node_add_listener (dropper.node, drop_in_listener, &dropper, NULL);
  g_main_context_pop_thread_default (runner.context);
  hold = g_idle_source_new ();
  g_source_set_callback (hold, hold_runner, &dropper, NULL);
  g_source_attach (hold, runner.context);
  g_source_unref (hold);
  itest_loop_thread_start (&runner, "pn-dropper");
  CU_ASSERT_TRUE (zkr_persistent_node_start (dropper.node, &error));
  /* Made, deleted from outside, made again: two creations queued for a
   * listener that cannot run yet. */
  CU_ASSERT_TRUE (zkr_persistent_node_wait_for_initial_create (dropper.node, ITEST_CALL_MS,
                                                               NULL, &error));
  CU_ASSERT_TRUE (zkr_node_sync (direct, path, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_exists (direct, path, ITEST_CALL_MS, NULL, &stat, &error));
  remade.not_czxid = stat.czxid;
  CU_ASSERT_TRUE (zkr_node_delete (direct, path, -1, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (itest_wait_for (node_remade, &remade, ITEST_WAIT_MS));
  g_mutex_lock (&dropper.lock);
  dropper.released = TRUE;
  g_cond_signal (&dropper.cond);
  g_mutex_unlock (&dropper.lock);
  /* The first call drops the test's last reference: once the queued
   * calls are over the node is closed and deleted. */
  CU_ASSERT_TRUE (itest_wait_for (node_absent, &remade, ITEST_WAIT_MS));
  itest_loop_thread_stop (&runner, NULL, NULL);
  /* The second creation was queued with its own reference: delivered to
   * a node that lived until that call returned, then went. */
  CU_ASSERT_EQUAL (g_atomic_int_get (&dropper.calls), 2);
  CU_ASSERT_EQUAL (g_atomic_int_get (&dropper.wrong_node), 0);
  CU_ASSERT_PTR_NULL (dropper.node);
  g_mutex_clear (&dropper.lock);
  g_cond_clear (&dropper.cond);
  itest_cleanup_root (direct, NULL, root);
}

/* The last unref without a close deletes the node in the background; an
 * unref right after start (the node's thread not yet running) is safe. */
static void
test_persistent_node__last_unref_deletes_the_node_in_the_background (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("pn-last-unref");
  g_autofree char *path = g_strconcat (root, "/member", NULL);
  g_autofree char *early = g_strconcat (root, "/early", NULL);
  g_autoptr (GError) error = NULL;
  ZkrPersistentNode *node;
  Remade gone = { direct, path, 0 };

  node = node_new (session, path, ZKR_CREATE_PERSISTENT, FALSE, "v");
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_TRUE (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                               &error));
  CU_ASSERT_TRUE (zkr_node_sync (direct, path, ITEST_CALL_MS, NULL, NULL));
  CU_ASSERT_FALSE (itest_node_absent (direct, path));
  zkr_persistent_node_unref (node);
  CU_ASSERT_TRUE (itest_wait_for (node_absent, &gone, ITEST_WAIT_MS));
  for (int i = 0; i < 20; i++)
    {
      node = node_new (session, early, ZKR_CREATE_EPHEMERAL, TRUE, "e");
      CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
      zkr_persistent_node_unref (node);
    }
  /* Whatever those made goes with the session (once the server has
   * processed its close). */
  zkr_session_close (session);
  CU_ASSERT_TRUE (itest_wait_for_children (direct, root, 0, ITEST_WAIT_MS));
  itest_cleanup_root (direct, NULL, root);
}

/* ---- a cancel racing the wait's answer ------------------------------------------ */

static void
cancel_now (gpointer cancellable)
{
  g_cancellable_cancel (cancellable);
}

/* A blocking wait runs in a GMainContext of its own, finalized as it
 * returns; a cancel made meanwhile in another thread must never reach it
 * after that (a GCancellableSource there could: GLib 2.74 then locked the
 * freed context, and a fault-suite worker hung so). Each wait answers at
 * once (the node is made) while another thread cancels it: every answer
 * is TRUE or CANCELLED, and none hangs or touches freed memory (ASan). */
static void
test_persistent_node__a_cancel_racing_the_waits_answer_from_another_thread (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("pn-cancel-race");
  g_autofree char *path = g_strconcat (root, "/member", NULL);
  g_autoptr (GError) error = NULL;
  ZkrPersistentNode *node;
  guint wrong = 0;

  node = node_new (session, path, ZKR_CREATE_EPHEMERAL, FALSE, "x");
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_TRUE_FATAL (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                                     &error));
  for (int i = 0; i < 3000; i++)
    {
      g_autoptr (GCancellable) cancellable = g_cancellable_new ();
      g_autoptr (GError) answer = NULL;
      ItestInThread run;

      itest_in_thread_start (&run, "pn-cancel", cancel_now, cancellable);
      if (!zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, cancellable,
                                                        &answer) &&
          !g_error_matches (answer, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        wrong++;
      itest_in_thread_join (&run);
    }
  CU_ASSERT_EQUAL (wrong, 0);
  close_and_check (node, direct, root);
  zkr_persistent_node_unref (node);
  itest_cleanup_root (direct, NULL, root);
}

/* ---- bad input ------------------------------------------------------------------ */

/* ---- our node deleted and made again by someone else ------------------------ */

/* A foreign writer sets our node five times (each time we put our data
 * back, so its version climbs), then deletes it and makes it again with
 * its own data at version 0: another node, with another czxid. Connected,
 * or (@expire) right after our session was expired. A PERSISTENT node at
 * our path is ours to keep whoever made it: it ends holding our data,
 * exactly one node. An EPHEMERAL one the foreign session owns is not ours:
 * never written, and ours is made once it goes. */
static void
foreign_recreate (const char *name, ZkrCreateMode mode, gboolean expire)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrSession) foreign = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path (name);
  g_autofree char *path = g_strconcat (root, "/config", NULL);
  g_autoptr (GError) error = NULL;
  ZkrPersistentNode *node;
  ZkrStat stat = { 0 };

  node = node_new (session, path, mode, FALSE, "mine");
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_TRUE_FATAL (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL,
                                                                     &error));
  for (int i = 1; i <= 5; i++)
    {
      g_autofree char *text = g_strdup_printf ("theirs-%d", i);

      CU_ASSERT_TRUE (zkr_node_set (direct, path, text, strlen (text), -1, ITEST_CALL_MS, NULL,
                                    NULL, &error));
      CU_ASSERT_TRUE (wait_node_holds (direct, path, "mine"));
    }
  if (expire)
    CU_ASSERT_TRUE (zkr__session_test_expire_once (session, itest_hosts ()));
  /* Deleted and made again in one transaction: the foreign node is there
   * before we could make ours. */
  {
    g_autoptr (ZkrTxn) txn = zkr_txn_new (foreign);

    zkr_txn_delete (txn, path, -1);
    zkr_txn_create (txn, path, "theirs", 6, mode);
    CU_ASSERT_TRUE (zkr_txn_commit (txn, ITEST_CALL_MS, NULL, &error));
  }
  if (mode == ZKR_CREATE_PERSISTENT)
    {
      /* Ours to keep: our data goes back on it. */
      CU_ASSERT_TRUE (wait_node_holds (direct, path, "mine"));
      assert_exactly_one_of_ours (direct, root, node, "mine");
    }
  else
    {
      ItestWatchOn on = { path, zkr_session_get_id (session) };
      g_autoptr (GBytes) held = NULL;
      g_autoptr (GBytes) ours = NULL;

      /* Read and watched by us since (so judged): not ours, left as it is. */
      CU_ASSERT_TRUE (itest_wait_for (itest_watch_is_set, &on, ITEST_WAIT_MS));
      held = zkr_node_get (direct, path, ITEST_CALL_MS, NULL, &stat, NULL);
      CU_ASSERT_TRUE (held != NULL && itest_bytes_equal (held, "theirs") && stat.version == 0);
      CU_ASSERT_EQUAL (stat.ephemeral_owner, zkr_session_get_id (foreign));
      zkr_session_close (foreign);
      CU_ASSERT_TRUE (wait_node_holds (direct, path, "mine"));
      ours = zkr_node_get (direct, path, ITEST_CALL_MS, NULL, &stat, NULL);
      CU_ASSERT_PTR_NOT_NULL (ours);
      CU_ASSERT_EQUAL (stat.ephemeral_owner, zkr_session_get_id (session));
    }
  close_and_check (node, direct, root);
  zkr_persistent_node_unref (node);
  itest_cleanup_root (direct, NULL, root);
}

static void
test_persistent_node__a_persistent_node_recreated_by_another_at_a_lower_version_is_kept (void)
{
  foreign_recreate ("pn-foreign", ZKR_CREATE_PERSISTENT, FALSE);
}

static void
test_persistent_node__a_persistent_node_recreated_by_another_across_an_expiry_is_kept (void)
{
  foreign_recreate ("pn-foreign-exp", ZKR_CREATE_PERSISTENT, TRUE);
}

static void
test_persistent_node__an_ephemeral_recreated_by_another_session_is_not_taken (void)
{
  foreign_recreate ("pn-foreign-eph", ZKR_CREATE_EPHEMERAL, FALSE);
}

static void
test_persistent_node__bad_input_is_named (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (GError) error = NULL;

  CU_ASSERT_PTR_NULL (zkr_persistent_node_new (session, "no/slash", ZKR_CREATE_EPHEMERAL, FALSE,
                                               NULL, 0, &error));
  itest_assert_invalid_naming (error, "no/slash");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_persistent_node_new (session, "/", ZKR_CREATE_EPHEMERAL, FALSE, NULL,
                                               0, &error));
  itest_assert_invalid_naming (error, "/");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_persistent_node_new (session, "/a", ZKR_CREATE_CONTAINER, FALSE, NULL,
                                               0, &error));
  itest_assert_invalid_naming (error, "4");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_persistent_node_new (session, "/a", (ZkrCreateMode) 99, FALSE, NULL,
                                               0, &error));
  itest_assert_invalid_naming (error, "99");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_persistent_node_new (session, "/a", ZKR_CREATE_EPHEMERAL, FALSE, NULL,
                                               3, &error));
  itest_assert_invalid_naming (error, "3");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_persistent_node_new (session, "/a", ZKR_CREATE_EPHEMERAL, FALSE, "x",
                                               ZKR_NODE_MAX_DATA_SIZE + 1, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_persistent_node__is_created_and_waited_for),
  ZKR_TEST_CASE (test_persistent_node__set_data_reaches_the_node_and_later_creations),
  ZKR_TEST_CASE (test_persistent_node__twenty_expiries_leave_exactly_one_ephemeral_of_ours),
  ZKR_TEST_CASE (test_persistent_node__twenty_expiries_leave_exactly_one_ephemeral_sequential_of_ours),
  ZKR_TEST_CASE (test_persistent_node__close_deletes_a_persistent_node),
  ZKR_TEST_CASE (test_persistent_node__wait_answers_by_its_deadline_while_black_holed),
  ZKR_TEST_CASE (test_persistent_node__a_lost_create_reply_is_adopted_not_repeated),
  ZKR_TEST_CASE (test_persistent_node__a_reconnect_keeps_the_same_node_curator_483),
  ZKR_TEST_CASE (test_persistent_node__another_sessions_node_at_our_path_is_not_taken_over),
  ZKR_TEST_CASE (test_persistent_node__unref_inside_its_listener_with_events_queued),
  ZKR_TEST_CASE (test_persistent_node__last_unref_deletes_the_node_in_the_background),
  ZKR_TEST_CASE (test_persistent_node__bad_input_is_named),
  ZKR_TEST_CASE (test_persistent_node__a_persistent_node_recreated_by_another_at_a_lower_version_is_kept),
  ZKR_TEST_CASE (test_persistent_node__a_persistent_node_recreated_by_another_across_an_expiry_is_kept),
  ZKR_TEST_CASE (test_persistent_node__an_ephemeral_recreated_by_another_session_is_not_taken),
  ZKR_TEST_CASE (test_persistent_node__a_cancel_racing_the_waits_answer_from_another_thread),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "persistent-node", NULL, NULL, tests);
}
