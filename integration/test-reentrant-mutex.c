/* zkr integration: the reentrant mutex: per-thread counts kept in the
 * client, one node per holding thread, and exclusion with zkr_mutex on the
 * same path (the shared "lock-" layout). */

#include <CUnit/CUnit.h>

#include "itest.h"
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

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_reentrant_mutex__reacquire_counts_without_a_second_node),
  ZKR_TEST_CASE (test_reentrant_mutex__threads_of_one_object_exclude_each_other),
  ZKR_TEST_CASE (test_reentrant_mutex__excludes_a_plain_mutex_on_the_same_path),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "reentrant_mutex", NULL, NULL, tests);
}
