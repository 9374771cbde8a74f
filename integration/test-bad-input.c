/* zkr integration: a sweep of bad input through every public entry point
 * that takes it. A bad value gets a ZKR_ERROR_INVALID_ARGUMENT (or the
 * documented code) whose message names the value; a NULL where the API
 * documents a programming error gets one zkr critical and the documented
 * failure value; a lock used after its session was closed answers with an
 * error. Never a crash, a leak (run it under the asan setup) or a node. */

#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "zkr-test.h"

#define LONG_PATH_BYTES 10240
#define PREFIX_BYTES 40

static char *long_path;
static char *control_path;

/* The invalid paths every constructor must refuse. */
static const char *
bad_path (guint i)
{
  static const char *const fixed[] = { "", "a", "/a/", "//", "/a/./b", "/a/../b", "/",
                                       "/a//b", "/a/b/" };

  if (i < G_N_ELEMENTS (fixed))
    return fixed[i];
  if (i == G_N_ELEMENTS (fixed))
    return long_path;
  if (i == G_N_ELEMENTS (fixed) + 1)
    return control_path;
  return NULL;
}

/* The text a message naming @value must contain: the value as the library
 * quotes it (escaped), or its first bytes when it is long. (transfer full) */
static char *
named_fragment (const char *value)
{
  g_autofree char *prefix = NULL;

  if (value == NULL)
    return g_strdup ("NULL");
  prefix = g_strndup (value, PREFIX_BYTES);
  return g_strescape (prefix, NULL);
}

/* @error is @code in ZKR_ERROR and its message contains @value. */
#define ASSERT_ERROR_NAMES(error, code, value) \
  assert_error_names ((error), (code), (value), __FILE__, __LINE__)

static void
assert_error_names (GError *error, ZkrError code, const char *value, const char *file, int line)
{
  g_autofree char *fragment = named_fragment (value);
  gboolean ok = error != NULL && g_error_matches (error, ZKR_ERROR, code) &&
                strstr (error->message, fragment) != NULL;

  if (!ok)
    g_printerr ("%s:%d: expected %s naming \"%s\", got %s: %s\n", file, line,
                zkr_error_code_name (code), fragment,
                error == NULL ? "no error"
                : error->domain == ZKR_ERROR ? zkr_error_code_name (error->code)
                : g_quark_to_string (error->domain),
                error != NULL ? error->message : "");
  CU_ASSERT_TRUE (ok);
}

static ZkrSessionOptions *
good_options (void)
{
  return itest_options (itest_hosts (), 10000);
}

/* zkr_session_new() on @options refuses them, naming @value. Consumes
 * @options. */
static void
assert_options_refused (ZkrSessionOptions *options, const char *value)
{
  g_autoptr (GError) error = NULL;
  ZkrSession *session = zkr_session_new (options, &error);

  CU_ASSERT_PTR_NULL (session);
  if (session != NULL)
    zkr_session_unref (session);
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, value);
  zkr_session_options_free (options);
}

static void
noop_lead (ZkrLeaderSelector *selector, gint64 token, GCancellable *interrupt, gpointer data)
{
  (void) selector;
  (void) token;
  (void) interrupt;
  (void) data;
}

static void
noop_loss (gpointer lock, ZkrLockEvent event, gpointer user_data)
{
  (void) lock;
  (void) event;
  (void) user_data;
}

static gint never_called_count;

static void
never_called (GObject *source, GAsyncResult *result, gpointer user_data)
{
  (void) source;
  (void) result;
  (void) user_data;
  g_atomic_int_inc (&never_called_count);
}

/* ---- session and options ---------------------------------------------- */

static void
test_bad_input__session_options (void)
{
  ZkrSessionOptions *options;
  ZkrSession *session;
  g_autoptr (GError) error = NULL;
  g_autofree char *long_name = g_strnfill (5000, 'n');
  g_autofree char *long_client = g_strnfill (2000, 'c');
  static const char *const bad_hosts[] = { "", "nohost", "127.0.0.1:99999", "127.0.0.1:",
                                           ":2181", "127.0.0.1:2181/a/../b",
                                           "127.0.0.1:abc", NULL };
  static const char *const bad_namespaces[] = { "/a", "a/", "a//b", "a/./b", "a/../b",
                                                "a\001b", NULL };

  for (guint i = 0; bad_hosts[i] != NULL; i++)
    {
      options = good_options ();
      zkr_session_options_set_hosts (options, bad_hosts[i]);
      assert_options_refused (options, bad_hosts[i]);
    }
  options = good_options ();
  zkr_session_options_set_hosts (options, NULL);
  session = zkr_session_new (options, &error);
  CU_ASSERT_PTR_NULL (session);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  zkr_session_options_free (options);

  for (int t = -5; t <= 0; t += 5)
    {
      g_autofree char *text = g_strdup_printf ("%d", t);

      options = good_options ();
      zkr_session_options_set_session_timeout_ms (options, t);
      assert_options_refused (options, text);
      options = good_options ();
      zkr_session_options_set_connection_timeout_ms (options, t);
      assert_options_refused (options, text);
    }

  for (guint i = 0; bad_namespaces[i] != NULL; i++)
    {
      options = good_options ();
      zkr_session_options_set_namespace (options, bad_namespaces[i]);
      assert_options_refused (options, bad_namespaces[i]);
    }
  options = good_options ();
  zkr_session_options_set_namespace (options, long_name);
  assert_options_refused (options, long_name);

  /* Digest user: empty, with ':', without a password. */
  options = good_options ();
  zkr_session_options_set_digest_auth (options, "", "pw");
  assert_options_refused (options, "");
  options = good_options ();
  zkr_session_options_set_digest_auth (options, "a:b", "pw");
  assert_options_refused (options, "a:b");
  options = good_options ();
  zkr_session_options_set_digest_auth (options, "bob", NULL);
  assert_options_refused (options, "bob");

  /* Credentials over the bound: refused naming the bound, never the
   * password. */
  {
    g_autofree char *password = g_strnfill (4096, 'p');
    g_autoptr (ZkrSession) refused = NULL;

    options = good_options ();
    zkr_session_options_set_digest_auth (options, "bob", password);
    refused = zkr_session_new (options, &error);
    CU_ASSERT_PTR_NULL (refused);
    CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
    CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "4096") : NULL);
    CU_ASSERT_PTR_NULL (error != NULL ? strstr (error->message, "pppp") : "pppp");
    g_clear_error (&error);
    zkr_session_options_free (options);
    /* One byte less: taken. */
    password[4096 - 4 - 1] = '\0';
    options = good_options ();
    zkr_session_options_set_digest_auth (options, "bob", password);
    refused = zkr_session_new (options, &error);
    CU_ASSERT_PTR_NOT_NULL (refused);
    g_assert_no_error (error);
    zkr_session_options_free (options);
  }

  /* ACL: out of range; creator-only without credentials. */
  options = good_options ();
  zkr_session_options_set_digest_auth (options, "bob", "pw");
  zkr_session_options_set_acl (options, (ZkrAclMode) 99);
  assert_options_refused (options, "99");
  options = good_options ();
  zkr_session_options_set_acl (options, ZKR_ACL_CREATOR_ALL);
  assert_options_refused (options, "1");

  /* Client id: NULL, not UTF-8, too long. */
  options = good_options ();
  zkr_session_options_set_client_id (options, NULL);
  assert_options_refused (options, NULL);
  options = good_options ();
  zkr_session_options_set_client_id (options, "bad\xff");
  assert_options_refused (options, "bad");
  options = good_options ();
  zkr_session_options_set_client_id (options, long_client);
  assert_options_refused (options, long_client);

  /* Liveness: drift outside [0, 0.5), NaN, margin below -1. */
  options = good_options ();
  zkr_session_options_set_liveness (options, 0.5, -1);
  assert_options_refused (options, "0.5");
  options = good_options ();
  zkr_session_options_set_liveness (options, -0.1, -1);
  assert_options_refused (options, "-0.1");
  options = good_options ();
  zkr_session_options_set_liveness (options, NAN, -1);
  assert_options_refused (options, "nan");
  options = good_options ();
  zkr_session_options_set_liveness (options, 0.02, -2);
  assert_options_refused (options, "-2");

  /* NULLs: programming errors. */
  options = good_options ();
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_session_options_copy (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_hosts (NULL, "x"));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_session_timeout_ms (NULL, 1));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_connection_timeout_ms (NULL, 1));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_retry_policy (NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_retry_policy (options, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_namespace (NULL, "x"));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_digest_auth (NULL, "u", "p"));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_acl (NULL, ZKR_ACL_OPEN));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_client_id (NULL, "x"));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_options_set_liveness (NULL, 0.0, 0));
  zkr_session_options_free (NULL);
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_session_new (NULL, &error)));
  CU_ASSERT_PTR_NULL (error);
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_session_connect (NULL, &error)));
  CU_ASSERT_PTR_NULL (error);
  /* The options are still good after all that. */
  session = zkr_session_new (options, &error);
  CU_ASSERT_PTR_NOT_NULL (session);
  if (session != NULL)
    {
      ZKR_TEST_EXPECT_ONE_CRITICAL (
        CU_ASSERT_EQUAL (zkr_session_add_state_listener (session, NULL, NULL, NULL), 0));
      /* An id that was never handed out: nothing happens. */
      zkr_session_remove_state_listener (session, 12345);
      zkr_session_remove_state_listener (session, 0);
      zkr_session_unref (session);
    }
  zkr_session_options_free (options);

  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_session_wait_connected (NULL, 0, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_close (NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_EQUAL (zkr_session_get_id (NULL), 0));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_session_is_connected (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_session_ref (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_session_unref (NULL));
  CU_ASSERT_PTR_NULL (error);

  /* Names of values out of range. */
  CU_ASSERT_STRING_EQUAL (zkr_session_state_name ((ZkrSessionState) 99), "INVALID");
  CU_ASSERT_STRING_EQUAL (zkr_session_state_name ((ZkrSessionState) -1), "INVALID");
  CU_ASSERT_STRING_EQUAL (zkr_lock_event_name ((ZkrLockEvent) 99), "INVALID");
  CU_ASSERT_STRING_EQUAL (zkr_error_code_name ((ZkrError) 0), "ZKR_ERROR_UNKNOWN");
  CU_ASSERT_STRING_EQUAL (zkr_error_code_name ((ZkrError) 999), "ZKR_ERROR_UNKNOWN");
  CU_ASSERT_STRING_EQUAL (zkr_error_code_name ((ZkrError) -3), "ZKR_ERROR_UNKNOWN");
  CU_ASSERT_FALSE (zkr_error_is_retryable (NULL));
  zkr_participant_free (NULL);
}

static void
test_bad_input__retry_policies (void)
{
  g_autoptr (ZkrRetryPolicy) policy = zkr_retry_policy_n_times_new (3, 10);

  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_retry_policy_exponential_new (0, 100, 3)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_retry_policy_exponential_new (100, 50, 3)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_retry_policy_exponential_new (100, 200, 30)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_retry_policy_ref (NULL)));
  zkr_retry_policy_unref (NULL);
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_retry_policy_allow (NULL, 0, 0, 0, NULL)));
  CU_ASSERT_PTR_NOT_NULL_FATAL (policy);
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_retry_policy_allow (policy, 0, -1, 0, NULL)));
  /* Edge values that are allowed. */
  CU_ASSERT_FALSE (zkr_retry_policy_allow (policy, G_MAXUINT, 0, 0, NULL));
  CU_ASSERT_TRUE (zkr_retry_policy_allow (policy, 0, G_MAXINT64, G_MAXUINT32, NULL));
}

/* ---- recipes: constructors --------------------------------------------- */

static void
test_bad_input__recipe_constructors (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("bad-input");
  g_autofree char *good = g_strconcat (base, "/good", NULL);
  g_autofree char *count_path = g_strconcat (base, "/count", NULL);
  g_autofree char *missing = g_strconcat (base, "/missing", NULL);
  g_autoptr (GError) error = NULL;
  const char *bad;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);

  for (guint i = 0; (bad = bad_path (i)) != NULL; i++)
    {
      const char *two[] = { good, bad, NULL };

      CU_ASSERT_PTR_NULL (zkr_mutex_new (session, bad, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_reentrant_mutex_new (session, bad, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_rwlock_new (session, bad, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_semaphore_new (session, bad, 1, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, bad, good, NULL, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, good, bad, NULL, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_multi_lock_new (session, two, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, bad, "id", &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_leader_selector_new (session, bad, "id", noop_lead, NULL, NULL, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
    }

  /* Counts: a max of 0; a count node that is missing or not 4 bytes. */
  CU_ASSERT_PTR_NULL (zkr_semaphore_new (session, good, 0, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, "0");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, good, missing, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_NO_NODE, missing);
  g_clear_error (&error);
  CU_ASSERT_EQUAL (itest_create_with_retries (session, base, 10000), ZOK);
  CU_ASSERT_EQUAL (zkr__op_test_create (session, count_path, "abc", 3, 0, NULL, NULL), ZOK);
  CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, good, count_path, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, count_path);
  g_clear_error (&error);
  CU_ASSERT_EQUAL (zkr__op_test_set (session, count_path, NULL, -1), ZOK);
  CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, good, count_path, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, count_path);
  g_clear_error (&error);

  /* Multi-lock lists: empty, NULL, a path twice. */
  {
    const char *empty[] = { NULL };
    const char *twice[] = { good, missing, good, NULL };

    CU_ASSERT_PTR_NULL (zkr_multi_lock_new (session, empty, &error));
    CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
    g_clear_error (&error);
    CU_ASSERT_PTR_NULL (zkr_multi_lock_new (session, NULL, &error));
    CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
    g_clear_error (&error);
    CU_ASSERT_PTR_NULL (zkr_multi_lock_new (session, twice, &error));
    ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, good);
    g_clear_error (&error);
  }

  /* NULL session or path: programming errors. */
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_mutex_new (NULL, good, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_mutex_new (session, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_reentrant_mutex_new (NULL, good, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_reentrant_mutex_new (session, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_rwlock_new (NULL, good, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_rwlock_new (session, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_semaphore_new (NULL, good, 1, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_semaphore_new (session, NULL, 1, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (NULL, good, count_path, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, NULL, count_path, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, good, NULL, NULL, &error)));
  {
    const char *one[] = { good, NULL };

    ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_multi_lock_new (NULL, one, &error)));
  }
  CU_ASSERT_PTR_NULL (error);

  /* Nothing was created: only the count node, which goes now. */
  CU_ASSERT_EQUAL (zkr__op_delete_sync (session, count_path, -1), ZOK);
  CU_ASSERT_EQUAL (itest_count_children (session, base), 0);
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  CU_ASSERT_TRUE (itest_node_absent (session, base));
  zkr_session_unref (session);
}

/* ---- recipes: NULL objects and bad arguments to methods ---------------- */

static void
test_bad_input__recipe_methods (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("bad-input");
  g_autofree char *mutex_path = g_strconcat (base, "/mutex", NULL);
  g_autofree char *semaphore_path = g_strconcat (base, "/semaphore", NULL);
  g_autofree char *other = g_strconcat (base, "/other", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSemaphore) semaphore = NULL;
  g_autoptr (ZkrMultiLock) multi = NULL;
  const char *paths[] = { mutex_path, NULL };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);

  /* NULL objects. */
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_mutex_acquire (NULL, 0, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_mutex_release (NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_mutex_release_async (NULL, NULL, NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_mutex_release_finish (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_mutex_verify (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_mutex_is_held (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_EQUAL (zkr_mutex_get_fencing_token (NULL), 0));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_mutex_dup_node_path (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_mutex_list_participants (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_EQUAL (zkr_mutex_add_loss_listener (NULL, noop_loss, NULL, NULL), 0));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_mutex_unref (NULL));

  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_reentrant_mutex_acquire (NULL, 0, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_reentrant_mutex_release (NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_reentrant_mutex_release_async (NULL, NULL, NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_reentrant_mutex_release_finish (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_reentrant_mutex_is_release_pending (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_reentrant_mutex_verify (NULL, NULL, &error)));

  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_rwlock_acquire_read (NULL, 0, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_rwlock_acquire_write (NULL, 0, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_rwlock_release_read (NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_rwlock_release_write (NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_rwlock_release_read_async (NULL, NULL, NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_rwlock_release_write_async (NULL, NULL, NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_rwlock_release_read_finish (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_rwlock_release_write_finish (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_rwlock_verify (NULL, NULL, &error)));

  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_semaphore_acquire (NULL, 1, 0, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_EQUAL (zkr_semaphore_get_max_leases (NULL), 0));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_lease_release (NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_lease_release_async (NULL, NULL, NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_lease_release_finish (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_lease_verify (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_lease_is_held (NULL)));
  zkr_lease_free (NULL);

  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_multi_lock_acquire (NULL, 0, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_multi_lock_release (NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_multi_lock_release_async (NULL, NULL, NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_multi_lock_release_finish (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_multi_lock_verify (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_multi_lock_get_paths (NULL)));
  CU_ASSERT_PTR_NULL (error);

  /* Counts: 0 leases, more than a fixed max. */
  semaphore = zkr_semaphore_new (session, semaphore_path, 2, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (semaphore);
  CU_ASSERT_PTR_NULL (zkr_semaphore_acquire (semaphore, 0, 1000, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, "0");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_semaphore_acquire (semaphore, 3, 1000, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, "3");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_semaphore_acquire (semaphore, G_MAXUINT, 1000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_EQUAL (zkr_semaphore_add_loss_listener (semaphore, NULL, NULL, NULL), 0));

  /* Multi-lock: a path that is not one of ours. */
  multi = zkr_multi_lock_new (session, paths, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (multi);
  CU_ASSERT_EQUAL (zkr_multi_lock_get_fencing_token (multi, other), 0);
  CU_ASSERT_PTR_NULL (zkr_multi_lock_dup_node_path (multi, other));
  CU_ASSERT_PTR_NULL (zkr_multi_lock_list_participants (multi, other, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, other);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_multi_lock_list_participants (multi, long_path, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, long_path);
  g_clear_error (&error);
  CU_ASSERT_EQUAL (zkr_multi_lock_get_fencing_token (multi, NULL), 0);
  CU_ASSERT_PTR_NULL (zkr_multi_lock_dup_node_path (multi, NULL));
  CU_ASSERT_PTR_NULL (zkr_multi_lock_list_participants (multi, NULL, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, "(null)");
  g_clear_error (&error);
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_EQUAL (zkr_multi_lock_add_loss_listener (multi, NULL, NULL, NULL), 0));

  /* A max above G_MAXINT. */
  {
    g_autofree char *text = g_strdup_printf ("%u", (guint) G_MAXINT + 1);

    CU_ASSERT_PTR_NULL (zkr_semaphore_new (session, semaphore_path, (guint) G_MAXINT + 1,
                                           &error));
    ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, text);
    g_clear_error (&error);
  }

  /* Async starts on NULL objects: a critical, and no callback ever. */
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_mutex_acquire_async (NULL, 0, NULL, never_called, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    zkr_reentrant_mutex_acquire_async (NULL, 0, NULL, never_called, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    zkr_rwlock_acquire_read_async (NULL, 0, NULL, never_called, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    zkr_rwlock_acquire_write_async (NULL, 0, NULL, never_called, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    zkr_semaphore_acquire_async (NULL, 1, 0, NULL, never_called, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    zkr_multi_lock_acquire_async (NULL, 0, NULL, never_called, NULL));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  CU_ASSERT_EQUAL (g_atomic_int_get (&never_called_count), 0);

  /* Nothing was sent that left a node. */
  CU_ASSERT_EQUAL (itest_count_children (session, base), 0);
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  zkr_session_unref (session);
}

typedef struct {
  ZkrMutex *mutex;
  gboolean done;
  gboolean ok;
  GError *error;
  gboolean timed_out;
} AsyncOutcome;

static void
release_start (gpointer mutex, GCancellable *cancellable, GAsyncReadyCallback callback,
               gpointer user_data)
{
  zkr_mutex_release_async (mutex, cancellable, callback, user_data);
}

static gboolean
release_finish (gpointer mutex, GAsyncResult *result, GError **error)
{
  return zkr_mutex_release_finish (mutex, result, error);
}

static void
async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncOutcome *outcome = user_data;

  (void) source;
  outcome->ok = zkr_mutex_acquire_finish (outcome->mutex, result, &outcome->error);
  outcome->done = TRUE;
}

static gboolean
async_deadline (gpointer user_data)
{
  AsyncOutcome *outcome = user_data;

  CU_FAIL ("async acquire on a closed session never called back");
  outcome->timed_out = TRUE;
  outcome->done = TRUE;
  return G_SOURCE_REMOVE;
}

/* ---- leader recipes ---------------------------------------------------- */

static void
noop_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  (void) latch;
  (void) user_data;
}

static void
test_bad_input__leader_recipes (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("bad-input-leader");
  g_autoptr (GError) error = NULL;
  static const char *const bad_ids[] = { "", "a\nb", "\x01" };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  /* Bad participant ids, named in the error. */
  for (guint i = 0; i < G_N_ELEMENTS (bad_ids); i++)
    {
      CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, base, bad_ids[i], &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_leader_selector_new (session, base, bad_ids[i], noop_lead, NULL,
                                                   NULL, &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
      g_clear_error (&error);
    }
  /* NULL arguments and objects: one critical each, the documented value. */
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_latch_new (NULL, base, "id", &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, NULL, "id", &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, base, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_leader_latch_start (NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_leader_latch_close (NULL, ZKR_LEADER_CLOSE_SILENT, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    zkr_leader_latch_close_async (NULL, ZKR_LEADER_CLOSE_SILENT, NULL, NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_leader_latch_close_finish (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_leader_latch_has_leadership (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_leader_latch_await (NULL, 0, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_leader_latch_await_async (NULL, 0, NULL, NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_leader_latch_await_finish (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_EQUAL (zkr_leader_latch_get_fencing_token (NULL), 0));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_latch_dup_node_path (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_latch_get_id (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_EQUAL (zkr_leader_latch_add_listener (NULL, noop_leader, NULL, NULL, NULL), 0));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_latch_list_participants (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_latch_dup_leader_id (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_leader_latch_unref (NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_leader_selector_new (session, base, "id", NULL, NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_leader_selector_start (NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_leader_selector_requeue (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_leader_selector_interrupt (NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_leader_selector_close (NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_leader_selector_close_async (NULL, NULL, NULL, NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_FALSE (zkr_leader_selector_close_finish (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_leader_selector_has_leadership (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_EQUAL (zkr_leader_selector_get_fencing_token (NULL), 0));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_selector_get_id (NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_leader_selector_list_participants (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_selector_dup_leader_id (NULL, NULL, &error)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_leader_selector_unref (NULL));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (itest_node_absent (session, base));
  /* Should that fail, leave nothing behind for the next run to find. */
  itest_delete_tree (session, base);
  zkr_session_unref (session);
}

/* ---- use after close --------------------------------------------------- */

static void
test_bad_input__locks_used_after_their_session_closed (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *observer = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("bad-input-closed");
  g_autofree char *mutex_path = g_strconcat (base, "/mutex", NULL);
  g_autofree char *idle_path = g_strconcat (base, "/idle", NULL);
  g_autofree char *rmutex_path = g_strconcat (base, "/rmutex", NULL);
  g_autofree char *rwlock_path = g_strconcat (base, "/rwlock", NULL);
  g_autofree char *semaphore_path = g_strconcat (base, "/semaphore", NULL);
  g_autofree char *multi_path = g_strconcat (base, "/multi", NULL);
  g_autofree char *leases_path = g_strconcat (semaphore_path, "/leases", NULL);
  g_autoptr (GError) error = NULL;
  const char *multi_paths[] = { multi_path, NULL };
  ZkrMutex *mutex, *idle;
  ZkrReentrantMutex *rmutex;
  ZkrRwlock *rwlock;
  ZkrSemaphore *semaphore;
  ZkrMultiLock *multi;
  GPtrArray *leases, *listed;
  ZkrLease *lease;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (observer);
  CU_ASSERT_EQUAL_FATAL (itest_create_with_retries (observer, base, 10000), ZOK);
  mutex = zkr_mutex_new (session, mutex_path, &error);
  idle = zkr_mutex_new (session, idle_path, &error);
  rmutex = zkr_reentrant_mutex_new (session, rmutex_path, &error);
  rwlock = zkr_rwlock_new (session, rwlock_path, &error);
  semaphore = zkr_semaphore_new (session, semaphore_path, 1, &error);
  multi = zkr_multi_lock_new (session, multi_paths, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_PTR_NOT_NULL_FATAL (idle);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rmutex);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rwlock);
  CU_ASSERT_PTR_NOT_NULL_FATAL (semaphore);
  CU_ASSERT_PTR_NOT_NULL_FATAL (multi);

  /* Held when the session closes: mutex, reentrant mutex, read lock,
   * lease, multi-lock. The idle mutex is never acquired. */
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, 10000, NULL, &error));
  CU_ASSERT_TRUE_FATAL (zkr_reentrant_mutex_acquire (rmutex, 10000, NULL, &error));
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (rwlock, 10000, NULL, &error));
  leases = zkr_semaphore_acquire (semaphore, 1, 10000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leases);
  lease = g_ptr_array_steal_index (leases, 0);
  g_ptr_array_unref (leases);
  CU_ASSERT_TRUE_FATAL (zkr_multi_lock_acquire (multi, 10000, NULL, &error));

  zkr_session_close (session);
  zkr_session_close (session); /* idempotent */
  CU_ASSERT_EQUAL (zkr_session_get_state (session), ZKR_SESSION_STATE_CLOSED);
  CU_ASSERT_FALSE (zkr_session_wait_connected (session, 1000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);

  /* Nothing is held any more; release and verify say so. */
  CU_ASSERT_FALSE (zkr_mutex_is_held (mutex));
  CU_ASSERT_FALSE (zkr_mutex_release (mutex, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_mutex_verify (mutex, NULL, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_reentrant_mutex_is_held (rmutex));
  CU_ASSERT_FALSE (zkr_reentrant_mutex_release (rmutex, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_reentrant_mutex_verify (rmutex, NULL, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_is_read_held (rwlock));
  CU_ASSERT_FALSE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_verify (rwlock, NULL, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_lease_is_held (lease));
  CU_ASSERT_FALSE (zkr_lease_release (lease, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_lease_verify (lease, NULL, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_multi_lock_is_held (multi));
  CU_ASSERT_FALSE (zkr_multi_lock_verify (multi, NULL, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_multi_lock_release (multi, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_mutex_verify (idle, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_mutex_release (idle, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);

  /* New acquires: SESSION_CLOSED, at once (no waiting for a timeout). */
  CU_ASSERT_FALSE (zkr_mutex_acquire (mutex, 5000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_mutex_acquire (idle, -1, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_reentrant_mutex_acquire (rmutex, 5000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_acquire_read (rwlock, 5000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_acquire_write (rwlock, 5000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  leases = zkr_semaphore_acquire (semaphore, 1, 5000, NULL, &error);
  CU_ASSERT_PTR_NULL (leases);
  if (leases != NULL)
    g_ptr_array_unref (leases);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_multi_lock_acquire (multi, 5000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);

  /* The async form says the same, through its callback. */
  {
    AsyncOutcome outcome = { idle, FALSE, FALSE, NULL, FALSE };
    guint deadline = g_timeout_add (30000, async_deadline, &outcome);

    zkr_mutex_acquire_async (idle, 1000, NULL, async_done, &outcome);
    while (!outcome.done)
      g_main_context_iteration (NULL, TRUE);
    /* Called back, not the deadline: the deadline must not fire later on
     * this stack frame's outcome. */
    if (!outcome.timed_out)
      g_source_remove (deadline);
    CU_ASSERT_FALSE (outcome.ok);
    CU_ASSERT_TRUE (g_error_matches (outcome.error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
    g_clear_error (&outcome.error);
  }

  /* So does a release_async. */
  CU_ASSERT_FALSE (itest_async_call (idle, release_start, release_finish, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);

  /* Reads and new objects on the closed session. */
  listed = zkr_mutex_list_participants (idle, NULL, &error);
  CU_ASSERT_PTR_NULL (listed);
  if (listed != NULL)
    g_ptr_array_unref (listed);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  {
    g_autoptr (ZkrSemaphore) shared =
      zkr_semaphore_new_shared_count (session, semaphore_path, mutex_path, NULL, &error);

    CU_ASSERT_PTR_NULL (shared);
    CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
    g_clear_error (&error);
  }
  {
    g_autoptr (ZkrMutex) late = zkr_mutex_new (session, mutex_path, &error);

    /* Sends nothing: it may be made; it cannot be acquired. */
    if (late != NULL)
      {
        CU_ASSERT_FALSE (zkr_mutex_acquire (late, 0, NULL, &error));
        CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
      }
    else
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
    g_clear_error (&error);
  }

  /* The session goes first, the locks after it: they keep what they need. */
  zkr_session_unref (session);
  zkr_mutex_unref (mutex);
  zkr_mutex_unref (idle);
  zkr_reentrant_mutex_unref (rmutex);
  zkr_rwlock_unref (rwlock);
  zkr_semaphore_unref (semaphore);
  zkr_multi_lock_unref (multi);
  zkr_lease_free (lease);

  /* The closed session's ephemeral nodes are gone; only the persistent
   * lock paths are left, and they go now. */
  CU_ASSERT_EQUAL (itest_count_children (observer, mutex_path), 0);
  CU_ASSERT_EQUAL (itest_count_children (observer, rmutex_path), 0);
  CU_ASSERT_EQUAL (itest_count_children (observer, rwlock_path), 0);
  CU_ASSERT_EQUAL (itest_count_children (observer, leases_path), 0);
  CU_ASSERT_EQUAL (itest_count_children (observer, multi_path), 0);
  CU_ASSERT_TRUE (itest_delete_tree (observer, base));
  CU_ASSERT_TRUE (itest_node_absent (observer, base));
  zkr_session_unref (observer);
}


/* ---- node calls --------------------------------------------------------- */

static void
node_result_ready (GObject *source, GAsyncResult *result, gpointer user_data)
{
  (void) source;
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* The node calls of zkr/node.h beyond the first six (create_full,
 * delete_full, delete_tree, sync): every bad value refused and named,
 * nothing sent; NULLs critical; the data limit itself accepted. */
static void
test_bad_input__node_calls (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("bad-input-node");
  g_autofree char *node = NULL, *long_name = NULL, *at_limit = NULL;
  g_autofree char *big = g_malloc0 (ZKR_NODE_MAX_DATA_SIZE + 1);
  g_autofree char *over = g_strdup_printf ("%d", ZKR_NODE_MAX_DATA_SIZE + 1);
  g_autofree char *too_long_ttl = g_strdup_printf ("%" G_GINT64_FORMAT, ZKR_NODE_TTL_MAX_MS + 1);
  GError *error = NULL;
  const ZkrAclEntry world = { ZKR_PERM_ALL, "world", "anyone" };
  const ZkrAclEntry no_scheme = { ZKR_PERM_ALL, NULL, "anyone" };
  const ZkrAclEntry odd_perms = { 0x40, "world", "anyone" };
  GAsyncResult *result = NULL;
  ZkrTxn *txn;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL_FATAL (itest_create_with_retries (session, base, 10000), ZOK);
  node = g_strdup_printf ("%s/n", base);
  for (guint i = 0; bad_path (i) != NULL; i++)
    {
      const char *bad = bad_path (i);
      ZkrCreateOptions options = { .mode = ZKR_CREATE_PERSISTENT };

      if (strcmp (bad, "/") != 0)
        {
          CU_ASSERT_FALSE (zkr_node_sync (session, bad, 1000, NULL, &error));
          ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
          g_clear_error (&error);
        }
      CU_ASSERT_FALSE (zkr_node_create_full (session, bad, NULL, 0, &options, 1000, NULL, NULL,
                                             NULL, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_FALSE (zkr_node_delete_full (session, bad, -1, ZKR_DELETE_GUARANTEED, 1000, NULL,
                                             &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
      CU_ASSERT_FALSE (zkr_node_delete_tree (session, bad, 1000, NULL, &error));
      ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, bad);
      g_clear_error (&error);
    }

#define CREATE_REFUSED(options, data, len, value)                                        \
  G_STMT_START {                                                                         \
    CU_ASSERT_FALSE (zkr_node_create_full (session, node, (data), (len), (options), 1000, \
                                           NULL, NULL, NULL, &error));                   \
    ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, (value));                     \
    g_clear_error (&error);                                                              \
  } G_STMT_END
  {
    ZkrCreateOptions bad_mode = { .mode = 99 };
    ZkrCreateOptions no_ttl = { .mode = ZKR_CREATE_PERSISTENT_WITH_TTL, .ttl_ms = -5 };
    ZkrCreateOptions zero_ttl = { .mode = ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL };
    ZkrCreateOptions huge_ttl = { .mode = ZKR_CREATE_PERSISTENT_WITH_TTL,
                                  .ttl_ms = ZKR_NODE_TTL_MAX_MS + 1 };
    ZkrCreateOptions stray_ttl = { .mode = ZKR_CREATE_EPHEMERAL, .ttl_ms = 1234 };
    ZkrCreateOptions bad_parents = { .parents = 9 };
    ZkrCreateOptions empty_acl = { .acl = &world, .n_acl = 0 };
    ZkrCreateOptions null_acl = { .acl = NULL, .n_acl = 2 };
    ZkrCreateOptions acl_no_scheme = { .acl = &no_scheme, .n_acl = 1 };
    ZkrCreateOptions acl_odd_perms = { .acl = &odd_perms, .n_acl = 1 };
    ZkrCreateOptions plain = { 0 };

    CREATE_REFUSED (&bad_mode, NULL, 0, "99");
    CREATE_REFUSED (&no_ttl, NULL, 0, "-5");
    CREATE_REFUSED (&zero_ttl, NULL, 0, "TTL 0");
    CREATE_REFUSED (&huge_ttl, NULL, 0, too_long_ttl);
    CREATE_REFUSED (&stray_ttl, NULL, 0, "1234");
    CREATE_REFUSED (&bad_parents, NULL, 0, "9");
    CREATE_REFUSED (&empty_acl, NULL, 0, "n_acl 0");
    CREATE_REFUSED (&null_acl, NULL, 0, "2 entries");
    CREATE_REFUSED (&acl_no_scheme, NULL, 0, "NULL scheme");
    CREATE_REFUSED (&acl_odd_perms, NULL, 0, "0x40");
    CREATE_REFUSED (&plain, NULL, 3, "NULL");
    CREATE_REFUSED (&plain, big, ZKR_NODE_MAX_DATA_SIZE + 1, over);
    /* At the data limit but with a long path: the request is too big. */
    long_name = g_strdup_printf ("%s/%0*d", base, 2000, 0);
    CU_ASSERT_FALSE (zkr_node_create_full (session, long_name, big, ZKR_NODE_MAX_DATA_SIZE,
                                           &plain, 1000, NULL, NULL, NULL, &error));
    ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, "ZKR_NODE_MAX_REQUEST_SIZE");
    g_clear_error (&error);
  }
  CU_ASSERT_FALSE (zkr_node_set (session, base, big, ZKR_NODE_MAX_DATA_SIZE + 1, -1, 1000, NULL,
                                 NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, over);
  g_clear_error (&error);
  /* A TTL mode where no TTL can be given. */
  CU_ASSERT_FALSE (zkr_node_create (session, node, NULL, 0, ZKR_CREATE_PERSISTENT_WITH_TTL,
                                    ZKR_CREATE_PARENTS_NONE, 1000, NULL, NULL, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, "5");
  g_clear_error (&error);
  txn = zkr_txn_new (session);
  zkr_txn_create (txn, node, NULL, 0, ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL);
  CU_ASSERT_FALSE (zkr_txn_commit (txn, 1000, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, "6");
  g_clear_error (&error);
  zkr_txn_unref (txn);
  CU_ASSERT_FALSE (zkr_node_delete_full (session, base, -2, ZKR_DELETE_CHILDREN, 1000, NULL,
                                         &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, "-2");
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_delete_full (session, base, -1, 0x10, 1000, NULL, &error));
  ASSERT_ERROR_NAMES (error, ZKR_ERROR_INVALID_ARGUMENT, "0x10");
  g_clear_error (&error);

  /* NULLs: one critical each, the failure value. */
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_node_create_full (NULL, node, NULL, 0, NULL,
                                                                       1000, NULL, NULL, NULL,
                                                                       NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_node_create_full (session, NULL, NULL, 0,
                                                                       NULL, 1000, NULL, NULL,
                                                                       NULL, NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_node_delete_full (NULL, node, -1, 0, 1000,
                                                                       NULL, NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_node_delete_tree (session, NULL, 1000, NULL,
                                                                       NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_node_sync (NULL, "/", 1000, NULL, NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_node_sync (session, NULL, 1000, NULL,
                                                                NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_node_sync_async (session, NULL, 1000, NULL, never_called,
                                                     NULL));
  /* A _finish given another call's result. */
  zkr_node_sync_async (session, "/", 1000, NULL, node_result_ready, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_node_create_full_finish (session, result,
                                                                              NULL, NULL,
                                                                              NULL)));
  CU_ASSERT_TRUE (zkr_node_sync_finish (session, result, NULL));
  g_object_unref (result);

  /* Nothing reached the server; the limit itself does. */
  CU_ASSERT_EQUAL (itest_count_children (session, base), 0);
  at_limit = g_strdup_printf ("%s/limit", base);
  CU_ASSERT_TRUE (zkr_node_create (session, at_limit, big, ZKR_NODE_MAX_DATA_SIZE,
                                   ZKR_CREATE_PERSISTENT, ZKR_CREATE_PARENTS_NONE, 10000, NULL,
                                   NULL, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_delete_tree (session, base, 10000, NULL, NULL));
  CU_ASSERT_TRUE (itest_node_absent (session, base));
  CU_ASSERT_EQUAL (g_atomic_int_get (&never_called_count), 0);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_bad_input__session_options),
  ZKR_TEST_CASE (test_bad_input__retry_policies),
  ZKR_TEST_CASE (test_bad_input__recipe_constructors),
  ZKR_TEST_CASE (test_bad_input__recipe_methods),
  ZKR_TEST_CASE (test_bad_input__leader_recipes),
  ZKR_TEST_CASE (test_bad_input__locks_used_after_their_session_closed),
  ZKR_TEST_CASE (test_bad_input__node_calls),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  GString *path = g_string_new ("/zkr-it/");
  int rc;

  /* Criticals are counted by the zkr-test capture, never fatal here. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK);
  while (path->len < LONG_PATH_BYTES)
    g_string_append (path, "segment/");
  g_string_append (path, "end");
  long_path = g_string_free (path, FALSE);
  control_path = g_strdup ("/zkr-it/bad\001name");
  rc = zkr_test_main (argc, argv, "bad-input", NULL, NULL, tests);
  g_free (long_path);
  g_free (control_path);
  return rc;
}
