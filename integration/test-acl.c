/* zkr integration: security. Recipe nodes carry the session's ACL: a
 * client with other credentials, or none, can neither delete nor overwrite
 * another's lock nodes, nor queue for its locks; it gets ZKR_ERROR_AUTH
 * naming the path (never a timeout), and the holder keeps its locks.
 * Credentials never reach a log message or an error message. */

#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "zkr-test.h"

#define SECRET "secretpw"
#define OTHER_SECRET "otherpw"
#define DENIED_TIMEOUT_MS 3000

/* A's scratch base while the test runs: only A may delete it, so when a
 * FATAL assertion skips the test's own clean-up, the suite's does it. */
static char *owned_base;

/* ---- capture of every log message and every error message ------------ */

static GMutex capture_lock;
static GPtrArray *captured; /* every log line and error message, as text */
static guint captured_logs;

static GLogWriterOutput
capture_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                gpointer user_data)
{
  GString *line = g_string_new (NULL);

  for (gsize i = 0; i < n_fields; i++)
    {
      /* Every string field: MESSAGE, GLIB_DOMAIN, CODE_FILE, ... */
      if (fields[i].length < 0)
        g_string_append_printf (line, "%s=%s ", fields[i].key, (const char *) fields[i].value);
      else
        g_string_append_printf (line, "%s=%.*s ", fields[i].key, (int) fields[i].length,
                                (const char *) fields[i].value);
    }
  g_mutex_lock (&capture_lock);
  g_ptr_array_add (captured, g_string_free (line, FALSE));
  captured_logs++;
  g_mutex_unlock (&capture_lock);
  /* Captured at every level; only what is not debug chatter is shown. */
  if ((level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO)) != 0)
    return G_LOG_WRITER_HANDLED;
  return g_log_writer_default (level, fields, n_fields, user_data);
}

static void
capture_error (const GError *error)
{
  if (error == NULL)
    return;
  g_mutex_lock (&capture_lock);
  g_ptr_array_add (captured, g_strdup (error->message));
  g_mutex_unlock (&capture_lock);
}

/* How many captured texts contain @needle. */
static guint
captured_count (const char *needle)
{
  guint n = 0;

  g_mutex_lock (&capture_lock);
  for (guint i = 0; i < captured->len; i++)
    if (strstr (g_ptr_array_index (captured, i), needle) != NULL)
      n++;
  g_mutex_unlock (&capture_lock);
  return n;
}

/* ---- helpers ---------------------------------------------------------- */

static ZkrSession *
connect_as (const char *user, const char *password, ZkrAclMode acl)
{
  g_autoptr (ZkrSessionOptions) options = itest_options (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  ZkrSession *session;

  if (user != NULL)
    zkr_session_options_set_digest_auth (options, user, password);
  zkr_session_options_set_acl (options, acl);
  session = zkr_session_connect (options, &error);
  capture_error (error);
  if (session == NULL)
    g_printerr ("connect as %s failed: %s\n", user != NULL ? user : "(nobody)",
                error->message);
  CU_ASSERT_PTR_NOT_NULL (session);
  return session;
}

/* @error is a ZKR_ERROR_AUTH that names @path, and no timeout. */
static void
assert_denied (const GError *error, const char *path)
{
  capture_error (error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (error);
  if (!g_error_matches (error, ZKR_ERROR, ZKR_ERROR_AUTH) ||
      strstr (error->message, path) == NULL)
    g_printerr ("expected ZKR_ERROR_AUTH naming %s, got %s: %s\n", path,
                error->domain == ZKR_ERROR ? zkr_error_code_name (error->code) : "(other domain)",
                error->message);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_AUTH));
  CU_ASSERT_PTR_NOT_NULL (strstr (error->message, path));
  CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "ZNOAUTH"));
  CU_ASSERT_PTR_NULL (strstr (error->message, "timeout"));
}

/* What an intruder (another identity, or none) may try against A's locks. */
static void
intrude (ZkrSession *intruder, const char *mutex_path, const char *rwlock_path,
         const char *semaphore_path, const char *const *held_nodes)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrMutex) mutex = NULL;
  g_autoptr (ZkrRwlock) rwlock = NULL;
  g_autoptr (ZkrSemaphore) semaphore = NULL;
  GPtrArray *leases;

  /* Raw writes to A's nodes: refused by the server. */
  for (guint i = 0; held_nodes[i] != NULL; i++)
    {
      CU_ASSERT_EQUAL (zkr__op_delete_sync (intruder, held_nodes[i], -1), ZNOAUTH);
      CU_ASSERT_EQUAL (zkr__op_test_set (intruder, held_nodes[i], "x", 1), ZNOAUTH);
    }
  /* Nor may the lock paths themselves go. */
  CU_ASSERT_EQUAL (zkr__op_delete_sync (intruder, mutex_path, -1), ZNOAUTH);
  CU_ASSERT_EQUAL (zkr__op_delete_sync (intruder, rwlock_path, -1), ZNOAUTH);
  CU_ASSERT_EQUAL (zkr__op_delete_sync (intruder, semaphore_path, -1), ZNOAUTH);

  /* Queueing needs a node under A's path: refused at once, with the path,
   * not a timeout after waiting. */
  mutex = zkr_mutex_new (intruder, mutex_path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_FALSE (zkr_mutex_acquire (mutex, DENIED_TIMEOUT_MS, NULL, &error));
  assert_denied (error, mutex_path);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_mutex_is_held (mutex));

  rwlock = zkr_rwlock_new (intruder, rwlock_path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rwlock);
  CU_ASSERT_FALSE (zkr_rwlock_acquire_write (rwlock, DENIED_TIMEOUT_MS, NULL, &error));
  assert_denied (error, rwlock_path);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_acquire_read (rwlock, DENIED_TIMEOUT_MS, NULL, &error));
  assert_denied (error, rwlock_path);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_is_write_held (rwlock));
  CU_ASSERT_FALSE (zkr_rwlock_is_read_held (rwlock));

  semaphore = zkr_semaphore_new (intruder, semaphore_path, 1, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (semaphore);
  leases = zkr_semaphore_acquire (semaphore, 1, DENIED_TIMEOUT_MS, NULL, &error);
  CU_ASSERT_PTR_NULL (leases);
  if (leases != NULL)
    g_ptr_array_unref (leases);
  assert_denied (error, semaphore_path);
  g_clear_error (&error);
}

/* ---- tests ------------------------------------------------------------ */

static void
test_acl__other_identities_cannot_touch_or_take_a_held_lock (void)
{
  g_autofree char *base = itest_scratch_path ("acl");
  g_autofree char *mutex_path = g_strconcat (base, "/mutex", NULL);
  g_autofree char *rwlock_path = g_strconcat (base, "/rwlock", NULL);
  g_autofree char *semaphore_path = g_strconcat (base, "/semaphore", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) leases = NULL;
  ZkrSession *alice, *mallory, *nobody;
  ZkrMutex *mutex;
  ZkrRwlock *rwlock;
  ZkrSemaphore *semaphore;
  ZkrLease *lease;
  char *nodes[4] = { NULL };
  gint64 mutex_token, write_token, lease_token;
  guint logs_before;

  g_mutex_lock (&capture_lock);
  logs_before = captured_logs;
  g_mutex_unlock (&capture_lock);

  alice = connect_as ("alice", SECRET, ZKR_ACL_CREATOR_ALL_WORLD_READ);
  mallory = connect_as ("mallory", OTHER_SECRET, ZKR_ACL_CREATOR_ALL_WORLD_READ);
  nobody = connect_as (NULL, NULL, ZKR_ACL_OPEN);
  CU_ASSERT_PTR_NOT_NULL_FATAL (alice);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mallory);
  CU_ASSERT_PTR_NOT_NULL_FATAL (nobody);
  /* The scratch root stays open to every suite: made by the client
   * without credentials, before A could make it with A's ACL (it is a
   * container, so the server may have removed it since the last suite). */
  zkr__op_test_create (nobody, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL);
  /* The scratch base is A's too (the session's ACL applies to it). */
  owned_base = g_strdup (base);
  CU_ASSERT_EQUAL_FATAL (itest_create_with_retries (alice, base, 10000), ZOK);

  /* A holds a mutex, a write lock and a lease. */
  mutex = zkr_mutex_new (alice, mutex_path, &error);
  rwlock = zkr_rwlock_new (alice, rwlock_path, &error);
  semaphore = zkr_semaphore_new (alice, semaphore_path, 1, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rwlock);
  CU_ASSERT_PTR_NOT_NULL_FATAL (semaphore);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, 10000, NULL, &error));
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (rwlock, 10000, NULL, &error));
  leases = zkr_semaphore_acquire (semaphore, 1, 10000, NULL, &error);
  capture_error (error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leases);
  lease = g_ptr_array_index (leases, 0);
  nodes[0] = zkr_mutex_dup_node_path (mutex);
  nodes[1] = zkr_rwlock_dup_write_node_path (rwlock);
  nodes[2] = zkr_lease_dup_node_path (lease);
  CU_ASSERT_PTR_NOT_NULL_FATAL (nodes[0]);
  CU_ASSERT_PTR_NOT_NULL_FATAL (nodes[1]);
  CU_ASSERT_PTR_NOT_NULL_FATAL (nodes[2]);
  mutex_token = zkr_mutex_get_fencing_token (mutex);
  write_token = zkr_rwlock_get_write_token (rwlock);
  lease_token = zkr_lease_get_fencing_token (lease);

  /* World may read (CREATOR_ALL_WORLD_READ): the intruders see the nodes,
   * so the refusals below are about permission, not existence. */
  for (guint i = 0; i < 3; i++)
    {
      struct Stat stat;

      CU_ASSERT_EQUAL (zkr__op_test_exists (nobody, nodes[i], &stat), ZOK);
    }

  intrude (mallory, mutex_path, rwlock_path, semaphore_path, (const char *const *) nodes);
  intrude (nobody, mutex_path, rwlock_path, semaphore_path, (const char *const *) nodes);

  /* A leads a latch: its node is A's too, nobody else may delete or
   * overwrite it, and A keeps leading with the same term token. */
  {
    g_autofree char *latch_path = g_strconcat (base, "/latch", NULL);
    g_autofree char *latch_node = NULL;
    ZkrLeaderLatch *latch = zkr_leader_latch_new (alice, latch_path, "alice-latch", &error);
    gint64 term_token;

    CU_ASSERT_PTR_NOT_NULL_FATAL (latch);
    CU_ASSERT_TRUE_FATAL (zkr_leader_latch_start (latch, &error));
    CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (latch, 10000, NULL, &error));
    latch_node = zkr_leader_latch_dup_node_path (latch);
    CU_ASSERT_PTR_NOT_NULL_FATAL (latch_node);
    term_token = zkr_leader_latch_get_fencing_token (latch);
    CU_ASSERT_EQUAL (zkr__op_delete_sync (mallory, latch_node, -1), ZNOAUTH);
    CU_ASSERT_EQUAL (zkr__op_delete_sync (nobody, latch_node, -1), ZNOAUTH);
    CU_ASSERT_EQUAL (zkr__op_test_set (mallory, latch_node, "x", 1), ZNOAUTH);
    CU_ASSERT_EQUAL (zkr__op_delete_sync (mallory, latch_path, -1), ZNOAUTH);
    CU_ASSERT_TRUE (zkr_leader_latch_has_leadership (latch));
    CU_ASSERT_EQUAL (zkr_leader_latch_get_fencing_token (latch), term_token);
    CU_ASSERT_EQUAL (itest_count_children (alice, latch_path), 1);
    CU_ASSERT_TRUE (zkr_leader_latch_close (latch, ZKR_LEADER_CLOSE_SILENT, &error));
    capture_error (error);
    g_clear_error (&error);
    CU_ASSERT_EQUAL (itest_count_children (alice, latch_path), 0);
    zkr_leader_latch_unref (latch);
  }

  /* A still holds all three, with the same tokens, and nothing of the
   * intruders is left in the queues. */
  CU_ASSERT_TRUE (zkr_mutex_verify (mutex, NULL, &error));
  capture_error (error);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_rwlock_verify (rwlock, NULL, &error));
  capture_error (error);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_lease_verify (lease, NULL, &error));
  capture_error (error);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_mutex_is_held (mutex));
  CU_ASSERT_TRUE (zkr_rwlock_is_write_held (rwlock));
  CU_ASSERT_TRUE (zkr_lease_is_held (lease));
  CU_ASSERT_EQUAL (zkr_mutex_get_fencing_token (mutex), mutex_token);
  CU_ASSERT_EQUAL (zkr_rwlock_get_write_token (rwlock), write_token);
  CU_ASSERT_EQUAL (zkr_lease_get_fencing_token (lease), lease_token);
  CU_ASSERT_EQUAL (itest_count_children (alice, mutex_path), 1);
  CU_ASSERT_EQUAL (itest_count_children (alice, rwlock_path), 1);
  {
    g_autofree char *leases_path = g_strconcat (semaphore_path, "/leases", NULL);
    g_autofree char *locks_path = g_strconcat (semaphore_path, "/locks", NULL);

    CU_ASSERT_EQUAL (itest_count_children (alice, leases_path), 1);
    CU_ASSERT_EQUAL (itest_count_children (alice, locks_path), 0);
  }

  /* A cleans up: it alone may. */
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_TRUE (zkr_lease_release (lease, &error));
  capture_error (error);
  g_clear_error (&error);
  zkr_mutex_unref (mutex);
  zkr_rwlock_unref (rwlock);
  zkr_semaphore_unref (semaphore);
  g_clear_pointer (&leases, g_ptr_array_unref);
  CU_ASSERT_FALSE (itest_delete_tree (mallory, base));
  CU_ASSERT_TRUE (itest_delete_tree (alice, base));
  CU_ASSERT_TRUE (itest_node_absent (nobody, base));
  if (itest_node_absent (alice, base))
    g_clear_pointer (&owned_base, g_free);
  for (guint i = 0; i < 3; i++)
    g_free (nodes[i]);

  zkr_session_unref (nobody);
  zkr_session_unref (mallory);
  zkr_session_unref (alice);

  /* The capture saw the scenario's log messages (so the checks below are
   * not vacuous) and none of them, nor any error, holds a password. */
  g_mutex_lock (&capture_lock);
  CU_ASSERT_TRUE (captured_logs > logs_before);
  g_mutex_unlock (&capture_lock);
  CU_ASSERT_TRUE (captured_count ("ZNOAUTH") > 0);
  /* ZooKeeper's own client log (where the auth exchange is reported) and
   * zkr's debug messages were seen too. */
  CU_ASSERT_TRUE (captured_count ("zookeeper: ") > 0);
  CU_ASSERT_TRUE (captured_count ("CONNECTING -> CONNECTED") >= 3);
  CU_ASSERT_EQUAL (captured_count (SECRET), 0);
  CU_ASSERT_EQUAL (captured_count (OTHER_SECRET), 0);
}

static void
test_acl__bad_credentials_settings_are_refused_without_the_password (void)
{
  g_autoptr (ZkrSessionOptions) options = itest_options (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  ZkrSession *session;

  /* A ':' in the user name would change the identity: refused, the user
   * named, the password not. */
  zkr_session_options_set_digest_auth (options, "ali:ce", SECRET);
  session = zkr_session_new (options, &error);
  CU_ASSERT_PTR_NULL (session);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  capture_error (error);
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "ali:ce") : NULL);
  g_clear_error (&error);

  /* A creator-only ACL without credentials would lock everyone out. */
  zkr_session_options_set_digest_auth (options, NULL, NULL);
  zkr_session_options_set_acl (options, ZKR_ACL_CREATOR_ALL);
  session = zkr_session_new (options, &error);
  CU_ASSERT_PTR_NULL (session);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  capture_error (error);
  g_clear_error (&error);

  CU_ASSERT_EQUAL (captured_count (SECRET), 0);
}


/* ---- ACLs given to the node calls ----------------------------------------- */

/* ZooKeeper's digest id for @user: "user:base64(sha1(user:password))".
 * (transfer full) */
static char *
digest_id (const char *user, const char *password)
{
  g_autofree char *pair = g_strdup_printf ("%s:%s", user, password);
  guint8 sha[20];
  gsize len = sizeof sha;
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA1);
  g_autofree char *hash = NULL;

  g_checksum_update (checksum, (const guchar *) pair, -1);
  g_checksum_get_digest (checksum, sha, &len);
  hash = g_base64_encode (sha, len);
  return g_strdup_printf ("%s:%s", user, hash);
}

/* A node's own ACL given per create: the creator alone (auth), a named
 * digest identity, world read; the server's refusals (ZINVALIDACL,
 * ZNOAUTH) mapped; ids and passwords in no message. */
static void
test_acl__node_calls_take_a_given_acl (void)
{
  g_autoptr (ZkrSession) alice = connect_as ("alice", SECRET, ZKR_ACL_OPEN);
  g_autoptr (ZkrSession) bob = connect_as ("bob", OTHER_SECRET, ZKR_ACL_OPEN);
  g_autoptr (ZkrSession) nobody = connect_as (NULL, NULL, ZKR_ACL_OPEN);
  g_autofree char *base = itest_scratch_path ("acl-node");
  g_autofree char *mine = g_strdup_printf ("%s/mine", base);
  g_autofree char *child = g_strdup_printf ("%s/mine/child", base);
  g_autofree char *shared = g_strdup_printf ("%s/shared", base);
  g_autofree char *bad = g_strdup_printf ("%s/bad", base);
  g_autofree char *under_mine = g_strdup_printf ("%s/mine/p-", base);
  g_autofree char *bob_id = digest_id ("bob", OTHER_SECRET);
  g_autofree char *protected_path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  const ZkrAclEntry creator_only[] = { { ZKR_PERM_ALL, "auth", "" } };
  const ZkrAclEntry bob_writes[] = { { ZKR_PERM_ALL, "digest", bob_id },
                                     { ZKR_PERM_READ, "world", "anyone" } };
  const ZkrAclEntry unknown_scheme[] = { { ZKR_PERM_ALL, "nosuchscheme", "x" } };
  ZkrCreateOptions only_alice = { .acl = creator_only, .n_acl = 1 };
  ZkrCreateOptions for_bob = { .acl = bob_writes, .n_acl = 2 };
  ZkrCreateOptions refused = { .acl = unknown_scheme, .n_acl = 1 };
  ZkrCreateOptions protected_alice = { .mode = ZKR_CREATE_EPHEMERAL_SEQUENTIAL,
                                       .acl = creator_only, .n_acl = 1, .protection = TRUE };

  CU_ASSERT_PTR_NOT_NULL_FATAL (alice);
  CU_ASSERT_PTR_NOT_NULL_FATAL (bob);
  CU_ASSERT_PTR_NOT_NULL_FATAL (nobody);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (alice, base, NULL, 0, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, 10000, NULL, NULL, NULL,
                                         &error));
  CU_ASSERT_TRUE (zkr_node_create_full (alice, mine, "a", 1, &only_alice, 10000, NULL, NULL, NULL,
                                        &error));
  CU_ASSERT_TRUE (zkr_node_create_full (alice, child, "c", 1, &only_alice, 10000, NULL, NULL,
                                        NULL, &error));
  CU_ASSERT_TRUE (zkr_node_create_full (alice, shared, "s", 1, &for_bob, 10000, NULL, NULL, NULL,
                                        &error));
  CU_ASSERT_TRUE (zkr_node_create_full (alice, under_mine, NULL, 0, &protected_alice, 10000, NULL,
                                        &protected_path, NULL, &error));
  CU_ASSERT_PTR_NULL (error);

  /* Alice's own node: nobody else reads, writes, lists or deletes under it. */
  CU_ASSERT_PTR_NULL (data = zkr_node_get (bob, mine, 10000, NULL, NULL, &error));
  assert_denied (error, mine);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_set (nobody, mine, "x", 1, -1, 10000, NULL, NULL, &error));
  assert_denied (error, mine);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_delete_tree (bob, mine, 10000, NULL, &error));
  assert_denied (error, mine);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_delete (bob, protected_path, -1, 10000, NULL, &error));
  assert_denied (error, protected_path);
  g_clear_error (&error);
  /* The node Alice made for Bob: Bob writes, Alice only reads. */
  CU_ASSERT_TRUE (zkr_node_set (bob, shared, "b", 1, -1, 10000, NULL, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_FALSE (zkr_node_set (alice, shared, "a", 1, -1, 10000, NULL, NULL, &error));
  assert_denied (error, shared);
  g_clear_error (&error);
  data = zkr_node_get (alice, shared, 10000, NULL, NULL, &error);
  CU_ASSERT_TRUE (itest_bytes_equal (data, "b"));
  /* ACLs the server refuses: unknown scheme, "auth" without credentials. */
  CU_ASSERT_FALSE (zkr_node_create_full (alice, bad, NULL, 0, &refused, 10000, NULL, NULL, NULL,
                                         &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ACL);
  capture_error (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_create_full (nobody, bad, NULL, 0, &only_alice, 10000, NULL, NULL,
                                         NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ACL);
  capture_error (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_exists (alice, bad, 10000, NULL, NULL, &error));

  /* Alice removes it all. */
  CU_ASSERT_TRUE (zkr_node_delete_tree (alice, base, 10000, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (itest_node_absent (alice, base));
  CU_ASSERT_EQUAL (captured_count (SECRET), 0);
  CU_ASSERT_EQUAL (captured_count (OTHER_SECRET), 0);
  CU_ASSERT_EQUAL (captured_count (strchr (bob_id, ':') + 1), 0);
}

/* The suite's cleanup: removes what a failed test left under A's ACL. */
static int
remove_owned_base (void)
{
  g_autoptr (ZkrSessionOptions) options = NULL;
  ZkrSession *alice;
  gboolean removed;

  if (owned_base == NULL)
    return 0;
  options = itest_options (g_getenv ("ZKR_TEST_HOSTS"), 10000);
  zkr_session_options_set_digest_auth (options, "alice", SECRET);
  zkr_session_options_set_acl (options, ZKR_ACL_CREATOR_ALL_WORLD_READ);
  alice = zkr_session_connect (options, NULL);
  removed = alice != NULL && itest_delete_tree (alice, owned_base);
  if (!removed)
    g_printerr ("could not remove %s\n", owned_base);
  g_clear_pointer (&alice, zkr_session_unref);
  g_clear_pointer (&owned_base, g_free);
  return removed ? 0 : 1;
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_acl__other_identities_cannot_touch_or_take_a_held_lock),
  ZKR_TEST_CASE (test_acl__bad_credentials_settings_are_refused_without_the_password),
  ZKR_TEST_CASE (test_acl__node_calls_take_a_given_acl),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  /* Before anything logs: every level of every domain reaches the writer. */
  g_setenv ("G_MESSAGES_DEBUG", "all", TRUE);
  captured = g_ptr_array_new_with_free_func (g_free);
  g_log_set_writer_func (capture_writer, NULL, NULL);
  return zkr_test_main (argc, argv, "acl", NULL, remove_owned_base, tests);
}
