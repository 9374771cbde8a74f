/* zkr integration: the node calls beyond the basic five (zkr/node.h)
 * against the ensemble: zkr_node_create_full (TTL, container, protected
 * with a lost reply recovered), zkr_node_delete_full and
 * zkr_node_delete_tree (children, version, guaranteed), zkr_node_sync; on
 * a black-holed link, deadlines kept and nothing left once healed, a
 * cancelled protected create leaving nothing. Their SUSPENDED, LOST and
 * CLOSED answers are checked with the others' in test-node.c. */

#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "nodes.h"
#include "path.h"
#include "proxy.h"
#include "zkr-test.h"

#define CALL_MS 10000       /* a call that should simply succeed */
#define WAIT_MS 30000       /* waits for facts no event reports */
#define MARGIN_MS 750       /* as test-node.c: a late answer is seconds late */
#define SHORT_TIMEOUT_MS 1000
/* Cut off but not noticed for 2/3 of it: every deadline below comes first. */
#define UNNOTICED_SESSION_MS 15000

static const char *name_space;  /* "zkr-it-node-full-<pid>", set in main() */

/* TTL nodes (the ensemble runs with extended types), containers, and a
 * TTL mode refused where no TTL can be given. */
static void
test_node__ttl_and_container_modes (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-ttl");
  g_autofree char *ttl_node = g_strdup_printf ("%s/ttl", root);
  g_autofree char *seq_prefix = g_strdup_printf ("%s/s-", root);
  g_autofree char *container = g_strdup_printf ("%s/box", root);
  g_autofree char *created = NULL;
  g_autoptr (GError) error = NULL;
  ZkrCreateOptions ttl = { .mode = ZKR_CREATE_PERSISTENT_WITH_TTL, .ttl_ms = 60000,
                           .parents = ZKR_CREATE_PARENTS_CONTAINER };
  ZkrCreateOptions seq_ttl = { .mode = ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL,
                               .ttl_ms = 60000 };
  ZkrCreateOptions box = { .mode = ZKR_CREATE_CONTAINER };
  ZkrStat stat = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE (zkr_node_create_full (session, ttl_node, "t", 1, &ttl, CALL_MS, NULL, &created,
                                        &stat, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_STRING_EQUAL (created, ttl_node);
  CU_ASSERT_EQUAL (stat.data_length, 1);
  g_clear_pointer (&created, g_free);
  CU_ASSERT_TRUE (zkr_node_create_full (session, seq_prefix, NULL, 0, &seq_ttl, CALL_MS, NULL,
                                        &created, NULL, &error));
  CU_ASSERT_TRUE (created != NULL && g_str_has_prefix (created, seq_prefix) &&
                  strlen (created) == strlen (seq_prefix) + 10);
  CU_ASSERT_TRUE (zkr_node_create_full (session, container, NULL, 0, &box, CALL_MS, NULL, NULL,
                                        NULL, &error));
  CU_ASSERT_TRUE (zkr_node_exists (session, container, CALL_MS, NULL, NULL, &error));
  {
    g_autofree char *on_server = itest_server_path (name_space, root);

    zkr__op_sync_path_sync (direct, on_server);
    CU_ASSERT_EQUAL (itest_count_children (direct, on_server), 3);
  }
  /* A TTL mode through a call that takes no TTL. */
  CU_ASSERT_FALSE (zkr_node_create (session, ttl_node, NULL, 0, ZKR_CREATE_PERSISTENT_WITH_TTL,
                                    ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_delete_tree (session, root, CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  itest_cleanup_root (direct, name_space, root);
}

/* Curator's withProtection: the name carries "_c_<uuid>-"; a create whose
 * reply is lost is found again, not made twice. */
static void
test_node__protected_create_recovers_a_lost_reply (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-protected");
  g_autofree char *prefix = g_strdup_printf ("%s/job-", root);
  g_autofree char *plain = g_strdup_printf ("%s/plain", root);
  g_autofree char *first = NULL, *second = NULL;
  g_autofree char *on_server = itest_server_path (name_space, root);
  g_autoptr (GError) error = NULL;
  ZkrCreateOptions options = { .mode = ZKR_CREATE_EPHEMERAL_SEQUENTIAL, .protection = TRUE,
                               .parents = ZKR_CREATE_PARENTS_CONTAINER };
  ZkrCreateOptions persistent = { .mode = ZKR_CREATE_PERSISTENT, .protection = TRUE };
  ZkrStat stat = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE (zkr_node_create_full (session, prefix, "p", 1, &options, CALL_MS, NULL, &first,
                                        &stat, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (first != NULL && g_str_has_prefix (zkr__path_basename (first), "_c_") &&
                  g_str_has_suffix (first, "-job-0000000000"));
  CU_ASSERT_EQUAL (stat.ephemeral_owner, zkr_session_get_id (session));
  /* The server makes the node, the reply is "lost": found by its uuid. */
  zkr__session_test_drop_next_create_reply (session);
  CU_ASSERT_TRUE (zkr_node_create_full (session, prefix, "p", 1, &options, CALL_MS, NULL,
                                        &second, &stat, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (second != NULL && g_str_has_suffix (second, "-job-0000000001"));
  CU_ASSERT_EQUAL (stat.ephemeral_owner, zkr_session_get_id (session));
  zkr__op_sync_path_sync (direct, on_server);
  CU_ASSERT_EQUAL (itest_count_children (direct, on_server), 2);
  g_clear_pointer (&second, g_free);
  /* Persistent, not sequential: the protected name is "_c_<uuid>-plain". */
  zkr__session_test_drop_next_create_reply (session);
  CU_ASSERT_TRUE (zkr_node_create_full (session, plain, NULL, 0, &persistent, CALL_MS, NULL,
                                        &second, &stat, &error));
  CU_ASSERT_TRUE (second != NULL && g_str_has_suffix (second, "-plain") &&
                  g_str_has_prefix (zkr__path_basename (second), "_c_"));
  CU_ASSERT_EQUAL (stat.ephemeral_owner, 0);
  zkr__op_sync_path_sync (direct, on_server);
  CU_ASSERT_EQUAL (itest_count_children (direct, on_server), 3);
  g_clear_pointer (&second, g_free);
  {
    /* Under missing parents, the reply lost is a parent's: the parents go
     * on (a parent is the same whoever made it), then our one node, for a
     * protected create and a plain one alike. */
    g_autofree char *deep_prefix = g_strdup_printf ("%s/deep/er/job-", root);
    g_autofree char *deep_plain = g_strdup_printf ("%s/deep2/er/plain", root);
    g_autofree char *deep_dir = g_strdup_printf ("%s/deep/er", on_server);
    ZkrCreateOptions plain_with_parents = { .mode = ZKR_CREATE_PERSISTENT,
                                            .parents = ZKR_CREATE_PARENTS_CONTAINER };

    zkr__session_test_drop_next_create_reply (session);
    CU_ASSERT_TRUE (zkr_node_create_full (session, deep_prefix, "p", 1, &options, CALL_MS, NULL,
                                          &second, NULL, &error));
    CU_ASSERT_PTR_NULL (error);
    g_clear_error (&error);
    CU_ASSERT_TRUE (second != NULL && g_str_has_suffix (second, "-job-0000000000"));
    zkr__op_sync_path_sync (direct, deep_dir);
    CU_ASSERT_EQUAL (itest_count_children (direct, deep_dir), 1);
    zkr__session_test_drop_next_create_reply (session);
    CU_ASSERT_TRUE (zkr_node_create_full (session, deep_plain, "q", 1, &plain_with_parents,
                                          CALL_MS, NULL, NULL, NULL, &error));
    CU_ASSERT_PTR_NULL (error);
    g_clear_error (&error);
    CU_ASSERT_TRUE (zkr_node_exists (session, deep_plain, CALL_MS, NULL, NULL, &error));
    CU_ASSERT_FALSE (zkr__session_test_take_drop_create_reply (session));
  }
  CU_ASSERT_TRUE (zkr_node_delete_tree (session, root, CALL_MS, NULL, &error));
  itest_cleanup_root (direct, name_space, root);
}

/* Deletes with children, with a version, a missing node. */
static void
test_node__delete_tree_deletes_children_first (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-tree");
  g_autofree char *top = g_strdup_printf ("%s/t", root);
  g_autoptr (GError) error = NULL;
  const char *const leaves[] = { "a/b/c", "a/d", "e", "f/g/h/i" };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (gsize i = 0; i < G_N_ELEMENTS (leaves); i++)
    {
      g_autofree char *leaf = g_strdup_printf ("%s/%s", top, leaves[i]);

      CU_ASSERT_TRUE (zkr_node_create (session, leaf, "x", 1, ZKR_CREATE_PERSISTENT,
                                       ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL, NULL,
                                       &error));
    }
  CU_ASSERT_PTR_NULL (error);
  /* Not empty without the flag; the wrong version of the top: refused
   * before anything goes (the server checks the version first). */
  CU_ASSERT_FALSE (zkr_node_delete (session, top, -1, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NOT_EMPTY);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_delete_full (session, top, 7, ZKR_DELETE_CHILDREN, CALL_MS, NULL,
                                         &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_BAD_VERSION);
  g_clear_error (&error);
  {
    g_auto (GStrv) left = zkr_node_get_children (session, top, CALL_MS, NULL, NULL, &error);

    CU_ASSERT_TRUE (left != NULL && g_strv_length (left) == 3);
  }
  CU_ASSERT_TRUE (zkr_node_delete_full (session, top, 0, ZKR_DELETE_CHILDREN, CALL_MS, NULL,
                                        &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_FALSE (zkr_node_exists (session, top, CALL_MS, NULL, NULL, &error));
  CU_ASSERT_FALSE (zkr_node_delete_tree (session, top, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  /* sync: the other session's reads now see it all. */
  CU_ASSERT_TRUE (zkr_node_sync (session, root, CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  itest_cleanup_root (direct, name_space, root);
}

static gboolean
pending_deletes_done (gpointer data)
{
  return zkr__session_get_pending_deletes (data) == 0;
}

/* Curator's guaranteed(): the call fails by its deadline while the link is
 * down, the delete goes through once healed; protected creates that time
 * out leave nothing. */
static void
test_node__guaranteed_delete_and_protected_create_while_the_link_is_down (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *single = NULL, *tree = NULL, *leaf = NULL, *on_server = NULL;
  ZkrCreateOptions protected_create = { .mode = ZKR_CREATE_PERSISTENT_SEQUENTIAL,
                                        .protection = TRUE };
  ZkrCreateOptions ttl = { .mode = ZKR_CREATE_PERSISTENT_WITH_TTL, .ttl_ms = 600000 };
  gint64 start;

  itest_proxied_init (&f, name_space, "node-guaranteed", UNNOTICED_SESSION_MS);
  single = g_strdup_printf ("%s/one", f.root);
  tree = g_strdup_printf ("%s/tree", f.root);
  leaf = g_strdup_printf ("%s/tree/a/b", f.root);
  on_server = itest_server_path (name_space, f.root);
  CU_ASSERT_TRUE (zkr_node_create (f.proxied, single, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_create (f.proxied, leaf, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL, NULL,
                                   &error));
  itest_proxied_black_hole (&f);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_node_delete_full (f.proxied, single, -1, ZKR_DELETE_GUARANTEED,
                                         SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_error (&error);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_node_delete_full (f.proxied, tree, -1,
                                         ZKR_DELETE_GUARANTEED | ZKR_DELETE_CHILDREN,
                                         SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr__session_get_pending_deletes (f.proxied) >= 1);
  /* Protected creates, one timed out, one TTL node: whatever they made
   * goes once healed. sync and a TTL create answer by the deadline. */
  CU_ASSERT_FALSE (zkr_node_create_full (f.proxied, f.root, "x", 1, &protected_create,
                                         SHORT_TIMEOUT_MS, NULL, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  ttl.protection = TRUE;
  CU_ASSERT_FALSE (zkr_node_create_full (f.proxied, single, NULL, 0, &ttl, SHORT_TIMEOUT_MS,
                                         NULL, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_node_sync (f.proxied, f.root, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_error (&error);
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (itest_wait_for (pending_deletes_done, f.proxied, WAIT_MS));
  CU_ASSERT_TRUE (itest_wait_for_children (f.direct, on_server, 0, WAIT_MS));
  itest_proxied_finish (&f, TRUE);
}

/* A protected create cancelled while its create is out (black hole):
 * answered at once; what the server made once healed is removed. */
static void
test_node__cancelled_protected_create_leaves_nothing (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *on_server = NULL;
  ZkrCreateOptions options = { .mode = ZKR_CREATE_PERSISTENT, .protection = TRUE };
  ItestAsync wait;
  gint64 cancelled_at;

  itest_proxied_init (&f, name_space, "node-protected-cancel", UNNOTICED_SESSION_MS);
  on_server = itest_server_path (name_space, f.root);
  g_autofree char *node = g_strdup_printf ("%s/p", f.root);
  itest_proxied_black_hole (&f);
  itest_async_begin (&wait);
  zkr_node_create_full_async (f.proxied, node, NULL, 0, &options, -1, cancellable, itest_async_done,
                              &wait);
  cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (zkr_node_create_full_finish (f.proxied, itest_async_wait (&wait, WAIT_MS), NULL,
                                                NULL, &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_TRUE (itest_elapsed_ms (cancelled_at) <= MARGIN_MS);
  itest_async_end (&wait);
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (itest_wait_for (itest_session_answers, f.proxied, WAIT_MS));
  /* The create landed when healed, then went. */
  CU_ASSERT_TRUE (itest_wait_for_children (f.direct, on_server, 0, WAIT_MS));
  itest_proxied_finish (&f, TRUE);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_node__ttl_and_container_modes),
  ZKR_TEST_CASE (test_node__protected_create_recovers_a_lost_reply),
  ZKR_TEST_CASE (test_node__delete_tree_deletes_children_first),
  ZKR_TEST_CASE (test_node__guaranteed_delete_and_protected_create_while_the_link_is_down),
  ZKR_TEST_CASE (test_node__cancelled_protected_create_leaves_nothing),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  g_autofree char *own_namespace = itest_suite_namespace ("node-full");

  name_space = own_namespace;
  return zkr_test_main (argc, argv, "node-full", NULL, NULL, tests);
}
