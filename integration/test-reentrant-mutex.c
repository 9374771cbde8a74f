/* zkr integration: the reentrant mutex: per-thread counts kept in the
 * client, one node per holding thread, and exclusion with zkr_mutex on the
 * same path (the shared "lock-" layout). */

#include <CUnit/CUnit.h>

#include "itest.h"
#include "per-thread.h"
#include "zkr-test.h"


static void
test_reentrant_mutex__reacquire_counts_without_a_second_node (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("reentrant");
  g_autoptr (GError) error = NULL;
  ZkrReentrantMutex *mutex;
  gint64 token;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mutex = zkr_reentrant_mutex_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_TRUE (zkr_reentrant_mutex_acquire (mutex, 5000, NULL, &error));
  token = zkr_reentrant_mutex_get_fencing_token (mutex);
  CU_ASSERT_TRUE (token > 0);
  CU_ASSERT_TRUE (zkr_reentrant_mutex_acquire (mutex, 5000, NULL, &error));
  CU_ASSERT_TRUE (zkr_reentrant_mutex_acquire (mutex, 0, NULL, &error));
  CU_ASSERT_EQUAL (zkr_reentrant_mutex_get_hold_count (mutex), 3);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 1);
  CU_ASSERT_EQUAL (zkr_reentrant_mutex_get_fencing_token (mutex), token);
  CU_ASSERT_TRUE (zkr_reentrant_mutex_release (mutex, &error));
  CU_ASSERT_TRUE (zkr_reentrant_mutex_release (mutex, &error));
  CU_ASSERT_TRUE (zkr_reentrant_mutex_is_held (mutex));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 1);
  CU_ASSERT_TRUE (zkr_reentrant_mutex_release (mutex, &error));
  CU_ASSERT_FALSE (zkr_reentrant_mutex_is_held (mutex));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  CU_ASSERT_FALSE (zkr_reentrant_mutex_release (mutex, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  zkr_reentrant_mutex_unref (mutex);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

typedef struct {
  ZkrReentrantMutex *mutex;
  gboolean got;
  GError *error;
} OtherThread;

static gpointer
other_thread_try (gpointer data)
{
  OtherThread *other = data;

  other->got = zkr_reentrant_mutex_acquire (other->mutex, 300, NULL, &other->error);
  if (other->got)
    zkr_reentrant_mutex_release (other->mutex, NULL);
  return NULL;
}

static void
test_reentrant_mutex__threads_of_one_object_exclude_each_other (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("reentrant-threads");
  g_autoptr (GError) error = NULL;
  OtherThread other = { 0 };
  GThread *thread;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  other.mutex = zkr_reentrant_mutex_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other.mutex);
  CU_ASSERT_TRUE_FATAL (zkr_reentrant_mutex_acquire (other.mutex, 5000, NULL, &error));
  thread = g_thread_new ("other", other_thread_try, &other);
  g_thread_join (thread);
  CU_ASSERT_FALSE (other.got);
  CU_ASSERT_TRUE (g_error_matches (other.error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&other.error);
  CU_ASSERT_TRUE (zkr_reentrant_mutex_release (other.mutex, &error));
  thread = g_thread_new ("other", other_thread_try, &other);
  g_thread_join (thread);
  CU_ASSERT_TRUE (other.got);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_reentrant_mutex_unref (other.mutex);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* Same "lock-" layout: a reentrant mutex and a plain mutex exclude. */
static void
test_reentrant_mutex__excludes_a_plain_mutex_on_the_same_path (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("reentrant-plain");
  g_autoptr (GError) error = NULL;
  ZkrReentrantMutex *reentrant;
  ZkrMutex *plain;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  reentrant = zkr_reentrant_mutex_new (session, path, &error);
  plain = zkr_mutex_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (reentrant);
  CU_ASSERT_PTR_NOT_NULL_FATAL (plain);
  CU_ASSERT_TRUE (zkr_mutex_acquire (plain, 5000, NULL, &error));
  CU_ASSERT_FALSE (zkr_reentrant_mutex_acquire (reentrant, 300, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_mutex_release (plain, &error));
  CU_ASSERT_TRUE (zkr_reentrant_mutex_acquire (reentrant, 5000, NULL, &error));
  CU_ASSERT_FALSE (zkr_mutex_acquire (plain, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_reentrant_mutex_release (reentrant, &error));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_reentrant_mutex_unref (reentrant);
  zkr_mutex_unref (plain);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

static gpointer
dead_holder_take (gpointer data)
{
  ItestThreadHold *run = data;

  run->self = g_thread_self ();
  run->acquired = zkr_reentrant_mutex_acquire (run->lock, 5000, NULL, NULL) &&
                  zkr_reentrant_mutex_acquire (run->lock, 5000, NULL, NULL);
  return NULL; /* ends holding it, twice */
}

static gpointer
later_thread_look (gpointer data)
{
  ItestThreadHold *run = data;
  g_autoptr (GError) error = NULL;

  run->self = g_thread_self ();
  run->held = zkr_reentrant_mutex_is_held (run->lock);
  run->count = zkr_reentrant_mutex_get_hold_count (run->lock);
  run->release_refused = !zkr_reentrant_mutex_release (run->lock, &error) &&
                         g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD);
  g_clear_error (&error);
  run->try_refused = run->try_also &&
                     !zkr_reentrant_mutex_acquire (run->lock, 0, NULL, &error) &&
                     g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT);
  return NULL;
}

/* Holds were kept per GThread address, and a thread started after another
 * ended often gets its address: it inherited the dead thread's hold (held,
 * count 2, could release it). A thread that ended holding keeps its hold
 * until the object goes; later threads neither hold it nor can release it,
 * and queue behind it. */
static void
test_reentrant_mutex__a_new_thread_does_not_inherit_a_dead_threads_hold (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("reentrant-dead-thread");
  ZkrReentrantMutex *mutex;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mutex = zkr_reentrant_mutex_new (session, path, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  itest_assert_dead_threads_hold_stays (session, path, mutex, dead_holder_take,
                                        later_thread_look);
  zkr_reentrant_mutex_unref (mutex);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, 30000));
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

static gpointer
take_and_give_back (gpointer data)
{
  ZkrReentrantMutex *mutex = data;

  if (zkr_reentrant_mutex_acquire (mutex, 5000, NULL, NULL))
    zkr_reentrant_mutex_release (mutex, NULL);
  return NULL;
}

static guint
entries_of (ZkrReentrantMutex *mutex)
{
  /* White box: the object starts with its ZkrPerThread (per-thread.h). */
  ZkrPerThread *pt = (ZkrPerThread *) mutex;
  guint n;

  g_mutex_lock (&pt->lock);
  n = g_hash_table_size (pt->entries);
  g_mutex_unlock (&pt->lock);
  return n;
}

/* Threads that used the mutex and ended holding nothing do not stay in
 * its table: a long-lived mutex used by many short-lived threads does not
 * grow. */
static void
test_reentrant_mutex__entries_of_ended_threads_are_dropped (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("reentrant-table");
  ZkrReentrantMutex *mutex;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mutex = zkr_reentrant_mutex_new (session, path, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  for (int i = 0; i < 8; i++)
    g_thread_join (g_thread_new ("short-lived", take_and_give_back, mutex));
  /* The last one's entry stays until someone new comes. */
  CU_ASSERT_TRUE (entries_of (mutex) >= 1);
  CU_ASSERT_TRUE (zkr_reentrant_mutex_acquire (mutex, 5000, NULL, NULL));
  CU_ASSERT_EQUAL (entries_of (mutex), 1);
  CU_ASSERT_TRUE (zkr_reentrant_mutex_release (mutex, NULL));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_reentrant_mutex_unref (mutex);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* ---- release_async ------------------------------------------------------ */

static void
reentrant_release_start (gpointer mutex, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_reentrant_mutex_release_async (mutex, cancellable, callback, user_data);
}

static gboolean
reentrant_release_finish (gpointer mutex, GAsyncResult *result, GError **error)
{
  return zkr_reentrant_mutex_release_finish (mutex, result, error);
}

static gboolean
reentrant_release_settled (gpointer mutex)
{
  return !zkr_reentrant_mutex_is_release_pending (mutex);
}

/* release_async counts down first (TRUE, the node stays), then at zero
 * answers TRUE once the node is gone: a plain mutex of another session
 * takes the path with a single try. Not held, it answers NOT_HELD. */
static void
test_reentrant_mutex__release_async_counts_down_then_deletes_the_node (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *other_session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("reentrant-release-async");
  g_autoptr (GError) error = NULL;
  ZkrReentrantMutex *mutex;
  ZkrMutex *other;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other_session);
  mutex = zkr_reentrant_mutex_new (session, path, &error);
  other = zkr_mutex_new (other_session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other);
  CU_ASSERT_TRUE_FATAL (zkr_reentrant_mutex_acquire (mutex, 5000, NULL, &error));
  CU_ASSERT_TRUE_FATAL (zkr_reentrant_mutex_acquire (mutex, 5000, NULL, &error));
  CU_ASSERT_TRUE (itest_async_call (mutex, reentrant_release_start, reentrant_release_finish,
                                    NULL, &error));
  CU_ASSERT_EQUAL (zkr_reentrant_mutex_get_hold_count (mutex), 1);
  CU_ASSERT_EQUAL (itest_count_children (other_session, path), 1);
  CU_ASSERT_TRUE (itest_async_call (mutex, reentrant_release_start, reentrant_release_finish,
                                    NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_FALSE (zkr_reentrant_mutex_is_held (mutex));
  CU_ASSERT_FALSE (zkr_reentrant_mutex_is_release_pending (mutex));
  CU_ASSERT_EQUAL (itest_count_children (other_session, path), 0);
  CU_ASSERT_TRUE (zkr_mutex_acquire (other, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_mutex_release (other, &error));
  CU_ASSERT_FALSE (itest_async_call (mutex, reentrant_release_start, reentrant_release_finish,
                                     NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NOT_HELD);
  zkr_mutex_unref (other);
  zkr_reentrant_mutex_unref (mutex);
  itest_assert_path_clean (session, path);
  zkr_session_unref (other_session);
  zkr_session_unref (session);
}

/* At zero, a cancelled release_async answers CANCELLED; the thread no
 * longer holds the mutex and the node goes in the background. */
static void
test_reentrant_mutex__a_cancelled_release_async_answers_cancelled_and_the_node_goes (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("reentrant-release-cancelled");
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  ZkrReentrantMutex *mutex;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mutex = zkr_reentrant_mutex_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_TRUE_FATAL (zkr_reentrant_mutex_acquire (mutex, 5000, NULL, &error));
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (itest_async_call (mutex, reentrant_release_start, reentrant_release_finish,
                                     cancellable, &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_FALSE (zkr_reentrant_mutex_is_held (mutex));
  CU_ASSERT_TRUE (itest_wait_for (reentrant_release_settled, mutex, ITEST_WAIT_MS));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_reentrant_mutex_unref (mutex);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_reentrant_mutex__reacquire_counts_without_a_second_node),
  ZKR_TEST_CASE (test_reentrant_mutex__threads_of_one_object_exclude_each_other),
  ZKR_TEST_CASE (test_reentrant_mutex__excludes_a_plain_mutex_on_the_same_path),
  ZKR_TEST_CASE (test_reentrant_mutex__a_new_thread_does_not_inherit_a_dead_threads_hold),
  ZKR_TEST_CASE (test_reentrant_mutex__entries_of_ended_threads_are_dropped),
  ZKR_TEST_CASE (test_reentrant_mutex__release_async_counts_down_then_deletes_the_node),
  ZKR_TEST_CASE (test_reentrant_mutex__a_cancelled_release_async_answers_cancelled_and_the_node_goes),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "reentrant_mutex", NULL, NULL, tests);
}
