/* zkr integration: transactions (zkr/txn.h) against the ensemble: all or
 * nothing with and without a namespace, which operation failed, bad input
 * refused with nothing sent, writes fenced by a held lock (a mutex, a
 * lease, a latch's term) and the fence failing the moment the holder's
 * session is expired, before the holder hears anything; the commit's
 * deadline and cancel on a black-holed link, SUSPENDED, LOST and CLOSED.
 * Every test removes its nodes and checks that nothing is left. */

#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "proxy.h"
#include "zkr-test.h"

#define CALL_MS 10000
#define WAIT_MS 30000
/* How late a deadline or cancel may be answered (as test-node.c). */
#define MARGIN_MS 750
#define SHORT_TIMEOUT_MS 1000
/* Cut off but not noticed for 2/3 of it. */
#define UNNOTICED_SESSION_MS 15000
/* SUSPENDED 6 s after the last byte, LOST about 8 s after it. */
#define SUSPENDED_SESSION_MS 9000
/* LOST about 3.5 s into the black hole. */
#define LOST_SESSION_MS 4000

static const char *name_space;  /* "zkr-it-txn-<pid>", set in main() */

/* The data of @path (under @session's namespace) is @text. */
static gboolean
data_is (ZkrSession *session, const char *path, const char *text)
{
  g_autoptr (GBytes) data = zkr_node_get (session, path, CALL_MS, NULL, NULL, NULL);

  return itest_bytes_equal (data, text);
}

static gboolean
node_exists (ZkrSession *session, const char *path)
{
  g_autoptr (GError) error = NULL;
  gboolean exists = zkr_node_exists (session, path, CALL_MS, NULL, NULL, &error);

  CU_ASSERT_PTR_NULL (error);
  return exists;
}

static void
make_node (ZkrSession *session, const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;

  CU_ASSERT_TRUE (zkr_node_create (session, path, text, text != NULL ? strlen (text) : 0,
                                   ZKR_CREATE_PERSISTENT, ZKR_CREATE_PARENTS_CONTAINER, CALL_MS,
                                   NULL, NULL, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
}

/* ---- all or nothing --------------------------------------------------- */

static void
all_operations_commit_together (const char *ns)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), ns, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("txn-commit");
  g_autofree char *a = g_strdup_printf ("%s/a", root);
  g_autofree char *b = g_strdup_printf ("%s/b", root);
  g_autofree char *c = g_strdup_printf ("%s/c", root);
  g_autofree char *d = g_strdup_printf ("%s/d", root);
  g_autofree char *seq = g_strdup_printf ("%s/seq-", root);
  g_autofree char *a_on_server = itest_server_path (ns, a);
  g_autoptr (ZkrTxn) txn = NULL;
  g_autoptr (GError) error = NULL;
  const char *created;
  ZkrStat stat;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  make_node (session, b, "old");
  make_node (session, c, NULL);
  make_node (session, d, NULL);
  txn = zkr_txn_new (session);
  CU_ASSERT_EQUAL (zkr_txn_create (txn, a, "1", 1, ZKR_CREATE_PERSISTENT), 0);
  CU_ASSERT_EQUAL (zkr_txn_create (txn, seq, NULL, 0, ZKR_CREATE_PERSISTENT_SEQUENTIAL), 1);
  CU_ASSERT_EQUAL (zkr_txn_set (txn, b, "new", 3, 0), 2);
  CU_ASSERT_EQUAL (zkr_txn_check (txn, c, -1), 3);
  CU_ASSERT_EQUAL (zkr_txn_delete (txn, d, 0), 4);
  CU_ASSERT_EQUAL (zkr_txn_get_n_ops (txn), 5);
  CU_ASSERT_PTR_NULL (zkr_txn_get_created_path (txn, 0));
  CU_ASSERT_TRUE (zkr_txn_commit (txn, CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_EQUAL (zkr_txn_get_failed_index (txn), -1);
  /* Results, without the namespace. */
  CU_ASSERT_STRING_EQUAL (zkr_txn_get_created_path (txn, 0), a);
  created = zkr_txn_get_created_path (txn, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL (created);
  CU_ASSERT_TRUE (g_str_has_prefix (created, seq) && strlen (created) == strlen (seq) + 10);
  CU_ASSERT_TRUE (zkr_txn_get_stat (txn, 2, &stat));
  CU_ASSERT_EQUAL (stat.version, 1);
  CU_ASSERT_EQUAL (stat.data_length, 3);
  CU_ASSERT_FALSE (zkr_txn_get_stat (txn, 0, NULL));
  CU_ASSERT_PTR_NULL (zkr_txn_get_created_path (txn, 2));
  CU_ASSERT_PTR_NULL (zkr_txn_get_created_path (txn, 99));
  /* On the server, where the namespace puts it (read through another
   * session, maybe on a follower behind the commit: synced first). */
  zkr__op_sync_path_sync (direct, a_on_server);
  CU_ASSERT_EQUAL (zkr__op_test_exists (direct, a_on_server, NULL), ZOK);
  CU_ASSERT_TRUE (data_is (session, a, "1"));
  CU_ASSERT_TRUE (data_is (session, b, "new"));
  CU_ASSERT_TRUE (node_exists (session, created));
  CU_ASSERT_FALSE (node_exists (session, d));
  itest_cleanup_root (direct, ns, root);
}

static void
test_txn__all_operations_commit_together (void)
{
  all_operations_commit_together (NULL);
}

static void
test_txn__all_operations_commit_together_with_namespace (void)
{
  all_operations_commit_together (name_space);
}

static void
test_txn__a_refused_operation_applies_nothing (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("txn-refused");
  g_autofree char *x = g_strdup_printf ("%s/x", root);
  g_autofree char *b = g_strdup_printf ("%s/b", root);
  g_autofree char *missing = g_strdup_printf ("%s/missing", root);
  g_autoptr (ZkrTxn) txn = NULL;
  g_autoptr (ZkrTxn) stale = NULL;
  g_autoptr (GError) error = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  make_node (session, b, "old");
  /* A set of a missing node, second: the create before it is undone. */
  txn = zkr_txn_new (session);
  zkr_txn_create (txn, x, "x", 1, ZKR_CREATE_PERSISTENT);
  zkr_txn_set (txn, missing, "y", 1, -1);
  zkr_txn_set (txn, b, "new", 3, -1);
  CU_ASSERT_FALSE (zkr_txn_commit (txn, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  CU_ASSERT_EQUAL (zkr_txn_get_failed_index (txn), 1);
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, missing) : NULL);
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "operation 1 (set)") : NULL);
  CU_ASSERT_PTR_NULL (zkr_txn_get_created_path (txn, 0));
  CU_ASSERT_FALSE (node_exists (session, x));
  CU_ASSERT_TRUE (data_is (session, b, "old"));
  g_clear_error (&error);
  /* A stale version check, first. */
  stale = zkr_txn_new (session);
  zkr_txn_check (stale, b, 5);
  zkr_txn_delete (stale, b, -1);
  CU_ASSERT_FALSE (zkr_txn_commit (stale, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_BAD_VERSION);
  CU_ASSERT_EQUAL (zkr_txn_get_failed_index (stale), 0);
  CU_ASSERT_TRUE (node_exists (session, b));
  itest_cleanup_root (direct, name_space, root);
}

static void
test_txn__bad_input_is_refused_with_nothing_sent (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("txn-bad");
  g_autofree char *ok = g_strdup_printf ("%s/ok", root);
  g_autoptr (GError) error = NULL;
  struct {
    const char *what;
    ZkrTxn *txn;
  } cases[5];

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  make_node (session, root, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      cases[i].txn = zkr_txn_new (session);
      zkr_txn_create (cases[i].txn, ok, NULL, 0, ZKR_CREATE_PERSISTENT);
    }
  cases[0].what = "a/b";
  zkr_txn_set (cases[0].txn, "a/b", "v", 1, -1);
  cases[1].what = "-2";
  zkr_txn_delete (cases[1].txn, ok, -2);
  cases[2].what = "NULL";
  zkr_txn_set (cases[2].txn, ok, NULL, 4, -1);
  cases[3].what = "99";
  zkr_txn_create (cases[3].txn, ok, NULL, 0, (ZkrCreateMode) 99);
  cases[4].what = "//";
  zkr_txn_fence (cases[4].txn, "//");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CU_ASSERT_FALSE (zkr_txn_commit (cases[i].txn, CALL_MS, NULL, &error));
      ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
      if (error != NULL && strstr (error->message, cases[i].what) == NULL)
        g_printerr ("message does not name %s: %s\n", cases[i].what, error->message);
      CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, cases[i].what) : NULL);
      g_clear_error (&error);
      zkr_txn_unref (cases[i].txn);
    }
  /* No operation at all. */
  cases[0].txn = zkr_txn_new (session);
  CU_ASSERT_FALSE (zkr_txn_commit (cases[0].txn, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* Programming errors: a critical each. */
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_txn_commit (cases[0].txn, CALL_MS, NULL,
                                                                 NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_EQUAL (zkr_txn_set (cases[0].txn, ok, "v", 1, -1), 0));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_txn_new (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_txn_commit (NULL, CALL_MS, NULL, NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_txn_fence_mutex (cases[0].txn, NULL));
  zkr_txn_unref (cases[0].txn);
  /* Nothing reached the server. */
  CU_ASSERT_FALSE (node_exists (session, ok));
  itest_cleanup_root (direct, name_space, root);
}

/* ---- fences ------------------------------------------------------------- */

static gboolean
fenced_set (ZkrSession *session, const char *fence, const char *path, const char *text,
            GError **error)
{
  g_autoptr (ZkrTxn) txn = zkr_txn_new (session);

  zkr_txn_fence (txn, fence);
  zkr_txn_set (txn, path, text, strlen (text), -1);
  return zkr_txn_commit (txn, CALL_MS, NULL, error);
}

static void
test_txn__fenced_by_a_held_lock (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("txn-fenced");
  g_autofree char *lock_path = g_strdup_printf ("%s/lock", root);
  g_autofree char *sem_path = g_strdup_printf ("%s/sem", root);
  g_autofree char *latch_path = g_strdup_printf ("%s/latch", root);
  g_autofree char *state = g_strdup_printf ("%s/state", root);
  g_autofree char *node = NULL;
  g_autoptr (ZkrMutex) mutex = NULL;
  g_autoptr (ZkrSemaphore) semaphore = NULL;
  g_autoptr (ZkrLeaderLatch) latch = NULL;
  g_autoptr (GPtrArray) leases = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrTxn) txn = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  make_node (session, state, "0");
  mutex = zkr_mutex_new (session, lock_path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, CALL_MS, NULL, &error));
  /* Held: the write lands. */
  txn = zkr_txn_new (session);
  zkr_txn_fence_mutex (txn, mutex);
  zkr_txn_set (txn, state, "1", 1, -1);
  CU_ASSERT_TRUE (zkr_txn_commit (txn, CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  g_clear_pointer (&txn, zkr_txn_unref);
  CU_ASSERT_TRUE (data_is (session, state, "1"));
  /* Released: refused before sending, naming what is not held. */
  node = zkr_mutex_dup_node_path (mutex);
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, &error));
  txn = zkr_txn_new (session);
  zkr_txn_fence_mutex (txn, mutex);
  zkr_txn_set (txn, state, "2", 1, -1);
  CU_ASSERT_FALSE (zkr_txn_commit (txn, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_LOCK_LOST);
  g_clear_error (&error);
  g_clear_pointer (&txn, zkr_txn_unref);
  /* The old hold's node, by path: the server refuses, naming it. */
  CU_ASSERT_FALSE (fenced_set (session, node, state, "3", &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_LOCK_LOST);
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, node) : NULL);
  g_clear_error (&error);
  CU_ASSERT_TRUE (data_is (session, state, "1"));

  /* A semaphore lease and a latch's term fence the same way. */
  semaphore = zkr_semaphore_new (session, sem_path, 1, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (semaphore);
  leases = zkr_semaphore_acquire (semaphore, 1, CALL_MS, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leases);
  latch = zkr_leader_latch_new (session, latch_path, "me", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (latch);
  CU_ASSERT_TRUE (zkr_leader_latch_start (latch, &error));
  CU_ASSERT_TRUE (zkr_leader_latch_await (latch, CALL_MS, NULL, &error));
  txn = zkr_txn_new (session);
  zkr_txn_fence_lease (txn, g_ptr_array_index (leases, 0));
  zkr_txn_fence_leader_latch (txn, latch);
  zkr_txn_set (txn, state, "4", 1, -1);
  CU_ASSERT_TRUE (zkr_txn_commit (txn, CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  g_clear_pointer (&txn, zkr_txn_unref);
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (leases, 0), &error));
  txn = zkr_txn_new (session);
  zkr_txn_fence_lease (txn, g_ptr_array_index (leases, 0));
  zkr_txn_set (txn, state, "5", 1, -1);
  CU_ASSERT_FALSE (zkr_txn_commit (txn, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_LOCK_LOST);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_leader_latch_close (latch, ZKR_LEADER_CLOSE_SILENT, &error));
  CU_ASSERT_TRUE (data_is (session, state, "4"));
  g_clear_pointer (&leases, g_ptr_array_unref);
  itest_cleanup_root (direct, name_space, root);
}

/* The holder is cut off (a black-holed proxy) and its session expired by
 * the server; its writes go through another session (another process of
 * the same service, say). The first fenced write after the expiry fails,
 * while the holder still believes it holds the lock; the next holder's
 * write lands and no write fenced by the old hold lands after it. */
static void
test_txn__fence_fails_once_the_holder_is_expired_before_it_hears (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSessionOptions) options = NULL;
  g_autofree char *address = NULL;
  g_autofree char *root = itest_scratch_path ("txn-expired");
  g_autofree char *lock_path = g_strdup_printf ("%s/lock", root);
  g_autofree char *state = g_strdup_printf ("%s/state", root);
  g_autofree char *old_node = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  ZkrSession *holder;
  ZkrSession *writer = itest_connect_ns (itest_hosts (), name_space, 10000);
  ZkrSession *next = itest_connect_ns (itest_hosts (), name_space, 10000);
  ZkrSession *direct = itest_connect (itest_hosts (), 10000);
  ZkrMutex *holder_mutex;
  ZkrMutex *next_mutex;
  g_autoptr (ZkrTxn) txn = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  CU_ASSERT_PTR_NOT_NULL_FATAL (writer);
  CU_ASSERT_PTR_NOT_NULL_FATAL (next);
  address = zkr_test_proxy_dup_address (proxy);
  options = itest_options (address, UNNOTICED_SESSION_MS);
  zkr_session_options_set_namespace (options, name_space);
  holder = zkr_session_connect (options, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (holder);
  make_node (writer, state, "0");
  holder_mutex = zkr_mutex_new (holder, lock_path, &error);
  next_mutex = zkr_mutex_new (next, lock_path, &error);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (holder_mutex, CALL_MS, NULL, &error));
  old_node = zkr_mutex_dup_node_path (holder_mutex);
  CU_ASSERT_TRUE (fenced_set (writer, old_node, state, "holder-1", &error));
  CU_ASSERT_PTR_NULL (error);

  /* Cut off, then expired by the server. */
  CU_ASSERT_TRUE (zkr_node_exists (holder, "/", CALL_MS, NULL, NULL, NULL));
  zkr_test_proxy_blackhole (proxy);
  CU_ASSERT_TRUE_FATAL (zkr__session_test_expire_once (holder, itest_hosts ()));
  CU_ASSERT_FALSE (fenced_set (writer, old_node, state, "holder-2", &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_LOCK_LOST);
  g_clear_error (&error);
  /* The holder has heard nothing yet. */
  CU_ASSERT_TRUE (zkr_mutex_is_held (holder_mutex));
  CU_ASSERT_EQUAL (zkr_session_get_state (holder), ZKR_SESSION_STATE_CONNECTED);

  /* The next holder gets the lock and writes, fenced by its own hold. */
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (next_mutex, CALL_MS, NULL, &error));
  txn = zkr_txn_new (next);
  zkr_txn_fence_mutex (txn, next_mutex);
  zkr_txn_set (txn, state, "next-1", 6, -1);
  CU_ASSERT_TRUE (zkr_txn_commit (txn, CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  /* The old hold's writes keep failing. */
  CU_ASSERT_FALSE (fenced_set (writer, old_node, state, "holder-3", &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_LOCK_LOST);
  g_clear_error (&error);
  CU_ASSERT_TRUE (data_is (writer, state, "next-1"));

  CU_ASSERT_TRUE (zkr_mutex_release (next_mutex, &error));
  zkr_test_proxy_heal (proxy);
  zkr_mutex_unref (holder_mutex);
  zkr_mutex_unref (next_mutex);
  zkr_session_unref (holder);
  zkr_session_unref (next);
  zkr_session_unref (writer);
  /* The holder's node went with its session. */
  itest_cleanup_root (direct, name_space, root);
  zkr_session_unref (direct);
  zkr_test_proxy_free (proxy);
}

/* ---- deadlines, cancel, states ---------------------------------------- */

/* An ephemeral create: if it lands once healed, it goes with the session. */
static ZkrTxn *
ephemeral_txn (ItestProxied *f)
{
  g_autofree char *node = g_strdup_printf ("%s/n", f->root);
  ZkrTxn *txn = zkr_txn_new (f->proxied);

  zkr_txn_create (txn, node, "x", 1, ZKR_CREATE_EPHEMERAL);
  return txn;
}

static gboolean
cancel_later (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static void
test_txn__commit_answers_by_its_deadline_on_a_black_holed_link (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (ZkrTxn) timed = NULL;
  g_autoptr (ZkrTxn) cancelled = NULL;
  ItestAsync wait;
  gint64 start;

  itest_proxied_init (&f, name_space, "txn-blackhole", UNNOTICED_SESSION_MS);
  itest_proxied_black_hole (&f);
  timed = ephemeral_txn (&f);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_txn_commit (timed, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_error (&error);

  /* Async, no deadline, cancelled from the caller's context. */
  cancelled = ephemeral_txn (&f);
  itest_async_begin (&wait);
  zkr_txn_commit_async (cancelled, -1, cancellable, itest_async_done, &wait);
  g_timeout_add (200, cancel_later, cancellable);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_txn_commit_finish (cancelled, itest_async_wait (&wait, WAIT_MS), &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= 200 + MARGIN_MS);
  g_clear_error (&error);
  itest_async_end (&wait);
  /* Their references on the session go before it is closed. */
  g_clear_pointer (&timed, zkr_txn_unref);
  g_clear_pointer (&cancelled, zkr_txn_unref);
  itest_proxied_finish (&f, TRUE);
}

static gboolean
session_is_suspended (gpointer data)
{
  return zkr_session_get_state (data) == ZKR_SESSION_STATE_SUSPENDED;
}

static void
test_txn__commit_while_suspended_answers_by_its_deadline (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrTxn) txn = NULL;
  gint64 start;

  itest_proxied_init (&f, name_space, "txn-suspended", SUSPENDED_SESSION_MS);
  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE_FATAL (itest_wait_for (session_is_suspended, f.proxied, WAIT_MS));
  txn = ephemeral_txn (&f);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_txn_commit (txn, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_pointer (&txn, zkr_txn_unref);
  itest_proxied_finish (&f, TRUE);
}

static gboolean
session_is_lost (gpointer data)
{
  return zkr_session_get_state (data) == ZKR_SESSION_STATE_LOST;
}

static void
test_txn__commit_in_flight_answers_session_expired_at_lost (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrTxn) txn = NULL;
  g_autoptr (ZkrTxn) after = NULL;

  itest_proxied_init (&f, name_space, "txn-lost", LOST_SESSION_MS);
  itest_proxied_black_hole (&f);
  txn = ephemeral_txn (&f);
  /* No deadline: a write that left is not sent again, so libzookeeper
   * giving the connection up (2/3 of the session timeout) answers it
   * CONNECTION_LOSS; at the latest LOST answers it. */
  CU_ASSERT_FALSE (zkr_txn_commit (txn, -1, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS) ||
                  g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED));
  g_clear_error (&error);
  /* While LOST: at once. */
  CU_ASSERT_TRUE_FATAL (itest_wait_for (session_is_lost, f.proxied, WAIT_MS));
  after = ephemeral_txn (&f);
  CU_ASSERT_FALSE (zkr_txn_commit (after, -1, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_EXPIRED);
  g_clear_pointer (&txn, zkr_txn_unref);
  g_clear_pointer (&after, zkr_txn_unref);
  itest_proxied_finish (&f, TRUE);
}

static void
test_txn__commit_on_a_closed_session_fails_at_once (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrTxn) txn = NULL;
  g_autoptr (GError) error = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  txn = zkr_txn_new (session);
  zkr_txn_create (txn, "/never", NULL, 0, ZKR_CREATE_EPHEMERAL);
  zkr_session_close (session);
  CU_ASSERT_FALSE (zkr_txn_commit (txn, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
}

static void
test_txn__async_commit_outlives_its_references (void)
{
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("txn-async");
  g_autofree char *node = g_strdup_printf ("%s/a", root);
  g_autoptr (GError) error = NULL;
  ZkrSession *session = itest_connect_ns (itest_hosts (), name_space, 10000);
  ZkrTxn *txn;
  ItestAsync wait;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  make_node (session, root, NULL);
  txn = zkr_txn_new (session);
  zkr_txn_create (txn, node, "v", 1, ZKR_CREATE_PERSISTENT);
  itest_async_begin (&wait);
  zkr_txn_commit_async (txn, CALL_MS, NULL, itest_async_done, &wait);
  /* The caller's references go; the commit keeps what it needs. */
  zkr_session_unref (session);
  CU_ASSERT_TRUE (zkr_txn_commit_finish (txn, itest_async_wait (&wait, CALL_MS), &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_STRING_EQUAL (zkr_txn_get_created_path (txn, 0), node);
  itest_async_end (&wait);
  zkr_txn_unref (txn);
  /* The transaction's own last reference dropped right after the commit
   * started: the commit holds it, lands, and answers (ASan: nothing
   * touched after its free, nothing leaked). */
  txn = zkr_txn_new (direct);
  zkr_txn_create (txn, "/zkr-it-txn-dropped", NULL, 0, ZKR_CREATE_EPHEMERAL);
  itest_async_begin (&wait);
  zkr_txn_commit_async (txn, CALL_MS, NULL, itest_async_done, &wait);
  zkr_txn_unref (txn);
  CU_ASSERT_PTR_NOT_NULL (itest_async_wait (&wait, CALL_MS));
  itest_async_end (&wait);
  CU_ASSERT_TRUE (node_exists (direct, "/zkr-it-txn-dropped"));
  CU_ASSERT_TRUE (zkr_node_delete (direct, "/zkr-it-txn-dropped", -1, CALL_MS, NULL, NULL));
  itest_cleanup_root (direct, name_space, root);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_txn__all_operations_commit_together),
  ZKR_TEST_CASE (test_txn__all_operations_commit_together_with_namespace),
  ZKR_TEST_CASE (test_txn__a_refused_operation_applies_nothing),
  ZKR_TEST_CASE (test_txn__bad_input_is_refused_with_nothing_sent),
  ZKR_TEST_CASE (test_txn__fenced_by_a_held_lock),
  ZKR_TEST_CASE (test_txn__fence_fails_once_the_holder_is_expired_before_it_hears),
  ZKR_TEST_CASE (test_txn__commit_answers_by_its_deadline_on_a_black_holed_link),
  ZKR_TEST_CASE (test_txn__commit_while_suspended_answers_by_its_deadline),
  ZKR_TEST_CASE (test_txn__commit_in_flight_answers_session_expired_at_lost),
  ZKR_TEST_CASE (test_txn__commit_on_a_closed_session_fails_at_once),
  ZKR_TEST_CASE (test_txn__async_commit_outlives_its_references),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  g_autofree char *own_namespace = itest_suite_namespace ("txn");

  name_space = own_namespace;
  return zkr_test_main (argc, argv, "txn", NULL, NULL, tests);
}
