/* zkr integration: the public node operations (zkr/node.h) against the
 * ensemble: every call and mode, with and without a namespace; bad input
 * refused with nothing sent; deadlines and cancels answered on a
 * black-holed link, SUSPENDED, LOST and CLOSED; an async call outliving
 * its session's last user reference. Every test removes its nodes and
 * checks that nothing is left. */

#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "nodes.h"
#include "path.h"
#include "proxy.h"
#include "zkr-test.h"

#define CALL_MS 10000       /* a call that should simply succeed */
#define WAIT_MS 30000       /* waits for facts no event reports */
/* How late a deadline or a cancel may be answered: the answer's hand-offs
 * (worker, the caller's context) on a sanitizer build of a loaded machine,
 * as in test-deadlines.c. Generous: the defect it guards against is
 * seconds late. */
#define MARGIN_MS 750
#define EARLY_MS 20         /* timers count whole ms */
#define SHORT_TIMEOUT_MS 1000
/* Cut off but not noticed for 2/3 of it: every deadline below comes first. */
#define UNNOTICED_SESSION_MS 15000
/* SUSPENDED 6 s after the last byte, LOST about 8 s after it. */
#define SUSPENDED_SESSION_MS 9000
/* LOST about 3.5 s into the black hole; the fresh session cannot connect
 * through it, so the session stays LOST until healed. */
#define LOST_SESSION_MS 4000

static const char *name_space;  /* "zkr-it-node-<pid>", set in main() */

/* ---- every call, every mode ------------------------------------------------ */

static void
roundtrip (const char *ns)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), ns, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-roundtrip");
  g_autofree char *node = g_strdup_printf ("%s/a", root);
  g_autofree char *on_server = itest_server_path (ns, node);
  g_autofree char *created = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  ZkrStat stat = { 0 }, created_stat = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (direct);
  CU_ASSERT_TRUE (zkr_node_create (session, root, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                   &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (zkr_node_create (session, node, "hello", 5, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, &created,
                                   &created_stat, &error));
  CU_ASSERT_STRING_EQUAL (created, node);
  CU_ASSERT_EQUAL (created_stat.version, 0);
  CU_ASSERT_EQUAL (created_stat.data_length, 5);
  CU_ASSERT_EQUAL (created_stat.ephemeral_owner, 0);
  /* The namespace is applied on the server. */
  zkr__op_sync_path_sync (direct, on_server);
  CU_ASSERT_EQUAL (zkr__op_test_exists (direct, on_server, NULL), ZOK);

  data = zkr_node_get (session, node, CALL_MS, NULL, &stat, &error);
  CU_ASSERT_TRUE (itest_bytes_equal (data, "hello"));
  CU_ASSERT_EQUAL (stat.version, 0);
  CU_ASSERT_EQUAL (stat.data_length, 5);
  CU_ASSERT_EQUAL (stat.czxid, created_stat.czxid);
  g_clear_pointer (&data, g_bytes_unref);

  CU_ASSERT_TRUE (zkr_node_set (session, node, "world!", 6, 0, CALL_MS, NULL, &stat, &error));
  CU_ASSERT_EQUAL (stat.version, 1);
  CU_ASSERT_EQUAL (stat.data_length, 6);
  CU_ASSERT_FALSE (zkr_node_set (session, node, "stale", 5, 0, CALL_MS, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_BAD_VERSION);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_set (session, node, "any", 3, -1, CALL_MS, NULL, &stat, &error));
  CU_ASSERT_EQUAL (stat.version, 2);
  data = zkr_node_get (session, node, CALL_MS, NULL, &stat, &error);
  CU_ASSERT_TRUE (itest_bytes_equal (data, "any"));
  CU_ASSERT_EQUAL (stat.version, 2);
  g_clear_pointer (&data, g_bytes_unref);

  CU_ASSERT_FALSE (zkr_node_delete (session, node, 1, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_BAD_VERSION);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_exists (session, node, CALL_MS, NULL, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_delete (session, node, 2, CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);

  /* Missing: exists says FALSE without an error, the others NO_NODE. */
  memset (&stat, 0x55, sizeof stat);
  CU_ASSERT_FALSE (zkr_node_exists (session, node, CALL_MS, NULL, &stat, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_EQUAL (stat.version, 0x55555555);
  CU_ASSERT_PTR_NULL (zkr_node_get (session, node, CALL_MS, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_set (session, node, "x", 1, -1, CALL_MS, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_delete (session, node, -1, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, node) : NULL);
  g_clear_error (&error);

  /* No data, then NODE_EXISTS, then NOT_EMPTY. */
  CU_ASSERT_TRUE (zkr_node_create (session, node, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  data = zkr_node_get (session, node, CALL_MS, NULL, &stat, &error);
  CU_ASSERT_TRUE (itest_bytes_equal (data, ""));
  CU_ASSERT_EQUAL (stat.data_length, 0);
  CU_ASSERT_FALSE (zkr_node_create (session, node, "x", 1, ZKR_CREATE_PERSISTENT,
                                    ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NODE_EXISTS);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_delete (session, root, -1, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NOT_EMPTY);
  g_clear_error (&error);

  itest_cleanup_root (direct, ns, root);
}

static void
test_node__roundtrip_without_namespace (void)
{
  roundtrip (NULL);
}

static void
test_node__roundtrip_with_namespace (void)
{
  roundtrip (name_space);
}

static int
name_compare (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
sequential_and_children (const char *ns)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), ns, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-children");
  g_autofree char *prefix = g_strdup_printf ("%s/job-", root);
  g_autofree char *queue = g_strdup_printf ("%s/q/", root);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) children = NULL;
  g_autoptr (GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);
  ZkrStat stat = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (direct);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, root, NULL, 0, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                         &error));
  for (int i = 0; i < 3; i++)
    {
      char *created = NULL;
      g_autofree char *want = g_strdup_printf ("%s%010d", prefix, i);

      CU_ASSERT_TRUE (zkr_node_create (session, prefix, "j", 1, ZKR_CREATE_PERSISTENT_SEQUENTIAL,
                                       ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, &created, NULL,
                                       &error));
      CU_ASSERT_STRING_EQUAL (created, want);
      g_ptr_array_add (expected, g_strdup (zkr__path_basename (want)));
      g_free (created);
    }
  /* A prefix ending in '/', its parent made on the way. */
  {
    g_autofree char *created = NULL;
    g_autofree char *want = g_strdup_printf ("%s0000000000", queue);

    CU_ASSERT_TRUE (zkr_node_create (session, queue, NULL, 0, ZKR_CREATE_PERSISTENT_SEQUENTIAL,
                                     ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, &created, NULL,
                                     &error));
    CU_ASSERT_PTR_NULL (error);
    CU_ASSERT_STRING_EQUAL (created, want);
    g_ptr_array_add (expected, g_strdup ("q"));
  }
  {
    g_autofree char *eph = g_strdup_printf ("%s/eph-", root);
    g_autofree char *created = NULL;

    CU_ASSERT_TRUE (zkr_node_create (session, eph, NULL, 0, ZKR_CREATE_EPHEMERAL_SEQUENTIAL,
                                     ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, &created, &stat,
                                     &error));
    CU_ASSERT_EQUAL (stat.ephemeral_owner, zkr_session_get_id (session));
    CU_ASSERT_TRUE (g_str_has_prefix (created, eph) && strlen (created) == strlen (eph) + 10);
    if (created != NULL)
      g_ptr_array_add (expected, g_strdup (zkr__path_basename (created)));
  }
  /* Sorted in byte order: "eph-..." < "job-..." < "q". */
  g_ptr_array_sort (expected, name_compare);
  children = zkr_node_get_children (session, root, CALL_MS, NULL, &stat, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (children);
  CU_ASSERT_EQUAL (g_strv_length (children), expected->len);
  for (guint i = 0; i < expected->len && children[i] != NULL; i++)
    CU_ASSERT_STRING_EQUAL (children[i], g_ptr_array_index (expected, i));
  CU_ASSERT_EQUAL ((guint) stat.num_children, expected->len);
  g_clear_pointer (&children, g_strfreev);
  /* No children: an empty array, not NULL. */
  {
    g_autofree char *leaf = g_strdup_printf ("%s0000000000", prefix);

    children = zkr_node_get_children (session, leaf, CALL_MS, NULL, NULL, &error);
    CU_ASSERT_PTR_NOT_NULL (children);
    CU_ASSERT_EQUAL (children != NULL ? g_strv_length (children) : 99, 0);
  }
  g_clear_pointer (&children, g_strfreev);
  {
    g_autofree char *missing = g_strdup_printf ("%s/missing", root);

    CU_ASSERT_PTR_NULL (zkr_node_get_children (session, missing, CALL_MS, NULL, NULL, &error));
    ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
    g_clear_error (&error);
  }
  itest_cleanup_root (direct, ns, root);
}

static void
test_node__sequential_names_and_children (void)
{
  sequential_and_children (NULL);
}

static void
test_node__sequential_names_and_children_with_namespace (void)
{
  sequential_and_children (name_space);
}

typedef struct {
  ZkrSession *session;
  const char *path;
} NodeOn;

static gboolean
node_gone (gpointer data)
{
  NodeOn *on = data;

  return !zkr_node_exists (on->session, on->path, CALL_MS, NULL, NULL, NULL);
}

static void
test_node__ephemeral_goes_with_its_session (void)
{
  g_autoptr (ZkrSession) owner = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) other = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-ephemeral");
  g_autofree char *node = g_strdup_printf ("%s/eph", root);
  g_autofree char *child = g_strdup_printf ("%s/child", node);
  g_autoptr (GError) error = NULL;
  ZkrStat stat = { 0 };
  NodeOn on = { other, node };

  CU_ASSERT_PTR_NOT_NULL_FATAL (owner);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other);
  CU_ASSERT_TRUE (zkr_node_create (owner, node, "e", 1, ZKR_CREATE_EPHEMERAL,
                                   ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL, &stat,
                                   &error));
  CU_ASSERT_EQUAL (stat.ephemeral_owner, zkr_session_get_id (owner));
  CU_ASSERT_FALSE (zkr_node_create (owner, child, NULL, 0, ZKR_CREATE_PERSISTENT,
                                    ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_exists (other, node, CALL_MS, NULL, &stat, &error));
  CU_ASSERT_EQUAL (stat.ephemeral_owner, zkr_session_get_id (owner));
  zkr_session_close (owner);
  CU_ASSERT_TRUE (itest_wait_for (node_gone, &on, WAIT_MS));
  itest_cleanup_root (direct, name_space, root);
}

static void
test_node__create_parents_persistent_or_container (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-parents");
  g_autofree char *deep_p = g_strdup_printf ("%s/p1/p2/leaf", root);
  g_autofree char *mid_p = g_strdup_printf ("%s/p1/p2", root);
  g_autofree char *deep_c = g_strdup_printf ("%s/c1/c2/leaf", root);
  g_autofree char *mid_c = g_strdup_printf ("%s/c1/c2", root);
  g_autofree char *container = g_strdup_printf ("%s/box", root);
  g_autoptr (GError) error = NULL;
  ZkrStat stat = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_FALSE (zkr_node_create (session, deep_p, NULL, 0, ZKR_CREATE_PERSISTENT,
                                    ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_create (session, deep_p, "x", 1, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL, NULL,
                                   &error));
  CU_ASSERT_TRUE (zkr_node_exists (session, mid_p, CALL_MS, NULL, &stat, &error));
  CU_ASSERT_EQUAL (stat.ephemeral_owner, 0);
  CU_ASSERT_TRUE (zkr_node_create (session, deep_c, "x", 1, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                   &error));
  /* A container shows as persistent in its Stat: only the server's reaping
   * (a minute later by default) tells them apart, too slow for this test. */
  CU_ASSERT_TRUE (zkr_node_exists (session, mid_c, CALL_MS, NULL, &stat, &error));
  CU_ASSERT_EQUAL (stat.num_children, 1);
  CU_ASSERT_TRUE (zkr_node_create (session, container, NULL, 0, ZKR_CREATE_CONTAINER,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, &stat, &error));
  CU_ASSERT_EQUAL (stat.ephemeral_owner, 0);
  CU_ASSERT_PTR_NULL (error);
  itest_cleanup_root (direct, name_space, root);
}

/* An ancestor made or found while the parents are made vanishes before the
 * next one is made (a container the server reaped once emptied): the chain
 * is made again from the top and the create goes on. Two answers under
 * the test's root are rewritten to "no node": the node's own create (truly
 * "no node", its parents are missing) and the root's create as a parent
 * (made, but seen as gone). Before, the create failed with NO_NODE. */
static void
test_node__an_ancestor_gone_while_parents_are_made_is_made_again (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-ancestor-gone");
  g_autofree char *leaf = g_strdup_printf ("%s/a/b/leaf", root);
  g_autofree char *full_root = g_strdup_printf ("/%s%s", name_space, root);
  g_autoptr (GError) error = NULL;
  guint before;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  /* The namespace's root exists: its first use is behind us. */
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, root, NULL, 0, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                         &error));
  CU_ASSERT_TRUE_FATAL (zkr_node_delete (session, root, -1, CALL_MS, NULL, &error));
  before = zkr__session_test_count_rewritten (session);
  zkr__session_test_rewrite_answers_under (session, full_root, ZNONODE, 2);
  CU_ASSERT_TRUE (zkr_node_create (session, leaf, "x", 1, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                   &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_EQUAL (zkr__session_test_count_rewritten (session) - before, 2);
  zkr__session_test_rewrite_answers (session, 0, 0);
  CU_ASSERT_TRUE (zkr_node_exists (session, leaf, CALL_MS, NULL, NULL, &error));
  itest_cleanup_root (direct, name_space, root);
}

/* ---- async calls ------------------------------------------------------------- */

static void
test_node__async_calls_answer_in_the_callers_context (void)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (ZkrSession) session = NULL;
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-async");
  g_autofree char *node = g_strdup_printf ("%s/a/b", root);
  g_autofree char *created = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  g_auto (GStrv) children = NULL;
  ItestAsync wait;
  ZkrStat stat = { 0 };

  g_main_context_push_thread_default (context);
  session = itest_connect_ns (itest_hosts (), name_space, 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);

  itest_async_begin (&wait);
  zkr_node_create_async (session, node, "v", 1, ZKR_CREATE_PERSISTENT,
                         ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, itest_async_done, &wait);
  CU_ASSERT_TRUE (zkr_node_create_finish (session, itest_async_wait (&wait, CALL_MS), &created,
                                          &stat, &error));
  CU_ASSERT_STRING_EQUAL (created, node);
  itest_async_end (&wait);

  itest_async_begin (&wait);
  zkr_node_get_async (session, node, CALL_MS, NULL, itest_async_done, &wait);
  data = zkr_node_get_finish (session, itest_async_wait (&wait, CALL_MS), &stat, &error);
  CU_ASSERT_TRUE (itest_bytes_equal (data, "v"));
  itest_async_end (&wait);

  itest_async_begin (&wait);
  zkr_node_set_async (session, node, "w", 1, 0, CALL_MS, NULL, itest_async_done, &wait);
  CU_ASSERT_TRUE (zkr_node_set_finish (session, itest_async_wait (&wait, CALL_MS), &stat, &error));
  CU_ASSERT_EQUAL (stat.version, 1);
  itest_async_end (&wait);

  itest_async_begin (&wait);
  zkr_node_exists_async (session, node, CALL_MS, NULL, itest_async_done, &wait);
  CU_ASSERT_TRUE (zkr_node_exists_finish (session, itest_async_wait (&wait, CALL_MS), &stat,
                                          &error));
  CU_ASSERT_EQUAL (stat.data_length, 1);
  itest_async_end (&wait);

  itest_async_begin (&wait);
  {
    g_autofree char *parent = g_strdup_printf ("%s/a", root);

    zkr_node_get_children_async (session, parent, CALL_MS, NULL, itest_async_done, &wait);
    children = zkr_node_get_children_finish (session, itest_async_wait (&wait, CALL_MS), NULL,
                                             &error);
  }
  CU_ASSERT_TRUE (children != NULL && g_strv_length (children) == 1 &&
                  strcmp (children[0], "b") == 0);
  itest_async_end (&wait);

  itest_async_begin (&wait);
  zkr_node_delete_async (session, node, 3, CALL_MS, NULL, itest_async_done, &wait);
  CU_ASSERT_FALSE (zkr_node_delete_finish (session, itest_async_wait (&wait, CALL_MS), &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_BAD_VERSION);
  g_clear_error (&error);
  itest_async_end (&wait);

  itest_async_begin (&wait);
  zkr_node_delete_async (session, node, 1, CALL_MS, NULL, itest_async_done, &wait);
  CU_ASSERT_TRUE (zkr_node_delete_finish (session, itest_async_wait (&wait, CALL_MS), &error));
  CU_ASSERT_PTR_NULL (error);
  itest_async_end (&wait);

  itest_cleanup_root (direct, name_space, root);
  g_clear_pointer (&session, zkr_session_unref);
  g_main_context_pop_thread_default (context);
}

/* ---- bad input ----------------------------------------------------------------- */

static const char *const bad_paths[] = { "", "a", "/a/", "//", "/a/./b", "/a/../b", "/a//b",
                                         "/a\001b" };

static void
test_node__bad_input_is_refused_with_nothing_sent (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-bad-input");
  g_autofree char *node = g_strdup_printf ("%s/n", root);
  g_autofree char *on_server = itest_server_path (name_space, root);
  GError *error = NULL;
  ItestAsync wait;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, root, NULL, 0, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                         &error));
  for (gsize i = 0; i < G_N_ELEMENTS (bad_paths); i++)
    {
      const char *bad = bad_paths[i];

#define EXPECT_INVALID(call)                                                       \
      G_STMT_START {                                                               \
        CU_ASSERT_FALSE (call);                                                    \
        itest_assert_invalid_naming (error, bad);                                        \
        g_clear_error (&error);                                                    \
      } G_STMT_END
      EXPECT_INVALID (zkr_node_create (session, bad, NULL, 0, ZKR_CREATE_PERSISTENT,
                                       ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL, NULL,
                                       &error));
      EXPECT_INVALID (zkr_node_get (session, bad, CALL_MS, NULL, NULL, &error) != NULL);
      EXPECT_INVALID (zkr_node_set (session, bad, "x", 1, -1, CALL_MS, NULL, NULL, &error));
      EXPECT_INVALID (zkr_node_delete (session, bad, -1, CALL_MS, NULL, &error));
      EXPECT_INVALID (zkr_node_exists (session, bad, CALL_MS, NULL, NULL, &error));
      EXPECT_INVALID (zkr_node_get_children (session, bad, CALL_MS, NULL, NULL, &error) != NULL);
    }
  /* The root cannot be created nor deleted. */
  CU_ASSERT_FALSE (zkr_node_create (session, "/", NULL, 0, ZKR_CREATE_PERSISTENT,
                                    ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  itest_assert_invalid_naming (error, "/");
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_delete (session, "/", -1, CALL_MS, NULL, &error));
  itest_assert_invalid_naming (error, "/");
  g_clear_error (&error);
  /* Mode, parents, data, version. */
  CU_ASSERT_FALSE (zkr_node_create (session, node, NULL, 0, (ZkrCreateMode) 42,
                                    ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  itest_assert_invalid_naming (error, "42");
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_create (session, node, NULL, 0, ZKR_CREATE_PERSISTENT,
                                    (ZkrCreateParents) 7, CALL_MS, NULL, NULL, NULL, &error));
  itest_assert_invalid_naming (error, "7");
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_create (session, node, NULL, 3, ZKR_CREATE_PERSISTENT,
                                    ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  itest_assert_invalid_naming (error, "NULL");
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_set (session, root, NULL, 3, -1, CALL_MS, NULL, NULL, &error));
  itest_assert_invalid_naming (error, "NULL");
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_set (session, root, "x", 1, -2, CALL_MS, NULL, NULL, &error));
  itest_assert_invalid_naming (error, "-2");
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_delete (session, root, -7, CALL_MS, NULL, &error));
  itest_assert_invalid_naming (error, "-7");
  g_clear_error (&error);
  /* Async: the same answer, through the callback. */
  itest_async_begin (&wait);
  zkr_node_create_async (session, "a/b", NULL, 0, ZKR_CREATE_PERSISTENT, ZKR_CREATE_PARENTS_NONE,
                         CALL_MS, NULL, itest_async_done, &wait);
  CU_ASSERT_FALSE (zkr_node_create_finish (session, itest_async_wait (&wait, CALL_MS), NULL, NULL,
                                           &error));
  itest_assert_invalid_naming (error, "a/b");
  g_clear_error (&error);
  itest_async_end (&wait);
  /* Programming errors: one critical each, the failure value. */
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_node_get (NULL, "/a", 0, NULL, NULL,
                                                                  NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_node_exists (session, NULL, 0, NULL, NULL,
                                                                  NULL)));
  /* Nothing reached the server. */
  CU_ASSERT_EQUAL (itest_count_children (direct, on_server), 0);
  itest_cleanup_root (direct, name_space, root);
}

/* ---- deadlines, cancel, states --------------------------------------------------- */

static void
test_node__black_holed_calls_answer_timeout_by_the_deadline (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  ItestAsync wait;
  gint64 start;

  itest_proxied_init (&f, name_space, "node-blackhole", UNNOTICED_SESSION_MS);
  node = g_strdup_printf ("%s/e", f.root);
  itest_proxied_black_hole (&f);
  start = g_get_monotonic_time ();
  CU_ASSERT_PTR_NULL (zkr_node_get (f.proxied, f.root, SHORT_TIMEOUT_MS, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) >= SHORT_TIMEOUT_MS - EARLY_MS);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_error (&error);

  itest_async_begin (&wait);
  start = g_get_monotonic_time ();
  /* Ephemeral: if it lands once healed, it goes with the session. */
  zkr_node_create_async (f.proxied, node, "x", 1, ZKR_CREATE_EPHEMERAL, ZKR_CREATE_PARENTS_NONE,
                         SHORT_TIMEOUT_MS, NULL, itest_async_done, &wait);
  CU_ASSERT_FALSE (zkr_node_create_finish (f.proxied, itest_async_wait (&wait, WAIT_MS), NULL, NULL,
                                           &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_error (&error);
  itest_async_end (&wait);
  /* Healed, the node may have landed: remove it (the proxied session
   * still owns it). */
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (itest_wait_for (itest_session_answers, f.proxied, WAIT_MS));
  (void) zkr_node_delete (f.proxied, node, -1, CALL_MS, NULL, NULL);
  itest_proxied_finish (&f, TRUE);
}

typedef struct {
  ZkrSession *session;
  const char *path;
  int timeout_ms;
  GCancellable *cancellable;
  GError *error;
  gint64 answered;
} BlockingGet;

static gpointer
blocking_get_thread (gpointer data)
{
  BlockingGet *get = data;
  GBytes *bytes = zkr_node_get (get->session, get->path, get->timeout_ms, get->cancellable,
                                NULL, &get->error);

  g_clear_pointer (&bytes, g_bytes_unref);
  get->answered = g_get_monotonic_time ();
  return NULL;
}

static void
test_node__cancel_answers_promptly_on_a_black_holed_link (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GCancellable) already = g_cancellable_new ();
  BlockingGet get = { 0 };
  ItestAsync wait;
  GThread *thread;
  gint64 cancelled_at;

  itest_proxied_init (&f, name_space, "node-cancel", UNNOTICED_SESSION_MS);
  itest_proxied_black_hole (&f);
  /* A blocking read with no deadline, cancelled from another thread. */
  get.session = f.proxied;
  get.path = f.root;
  get.timeout_ms = -1;
  get.cancellable = cancellable;
  thread = g_thread_new ("blocking-get", blocking_get_thread, &get);
  g_usleep (200 * 1000); /* let it be in flight; the answer is what is checked */
  cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  g_thread_join (thread);
  ITEST_ASSERT_CANCELLED (get.error);
  CU_ASSERT_TRUE ((get.answered - cancelled_at) / 1000 <= MARGIN_MS);
  g_clear_error (&get.error);

  /* An async exists, cancelled from this thread. */
  g_cancellable_reset (cancellable);
  itest_async_begin (&wait);
  zkr_node_exists_async (f.proxied, f.root, -1, cancellable, itest_async_done, &wait);
  cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (zkr_node_exists_finish (f.proxied, itest_async_wait (&wait, WAIT_MS), NULL,
                                           &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_TRUE (itest_elapsed_ms (cancelled_at) <= MARGIN_MS);
  g_clear_error (&error);
  itest_async_end (&wait);

  /* Already cancelled: answered at once. */
  g_cancellable_cancel (already);
  cancelled_at = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_node_delete (f.proxied, f.root, -1, -1, already, &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_TRUE (itest_elapsed_ms (cancelled_at) <= MARGIN_MS);
  g_clear_error (&error);
  itest_proxied_finish (&f, TRUE);
}

static void
test_node__calls_while_suspended_answer_by_the_deadline (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  guint from;
  gint64 start;

  itest_proxied_init (&f, name_space, "node-suspended", SUSPENDED_SESSION_MS);
  from = itest_recorder_count (f.recorder);
  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE_FATAL (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_SUSPENDED, from,
                                                   WAIT_MS, NULL) >= 0);
  /* SUSPENDED: a timeout 0 call does not wait; others wait until their
   * deadline. */
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_node_exists (f.proxied, f.root, 0, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_CONNECTION_LOSS);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= MARGIN_MS);
  g_clear_error (&error);
  if (zkr_session_get_state (f.proxied) == ZKR_SESSION_STATE_SUSPENDED)
    {
      start = g_get_monotonic_time ();
      CU_ASSERT_FALSE (zkr_node_set (f.proxied, f.root, "x", 1, -1, 300, NULL, NULL, &error));
      ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
      CU_ASSERT_TRUE (itest_elapsed_ms (start) <= 300 + MARGIN_MS);
      g_clear_error (&error);
      start = g_get_monotonic_time ();
      CU_ASSERT_FALSE (zkr_node_delete_tree (f.proxied, f.root, 300, NULL, &error));
      ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
      CU_ASSERT_TRUE (itest_elapsed_ms (start) <= 300 + MARGIN_MS);
      g_clear_error (&error);
      start = g_get_monotonic_time ();
      CU_ASSERT_FALSE (zkr_node_sync (f.proxied, f.root, 300, NULL, &error));
      ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
      CU_ASSERT_TRUE (itest_elapsed_ms (start) <= 300 + MARGIN_MS);
      g_clear_error (&error);
    }
  itest_proxied_finish (&f, TRUE);
}

static void
test_node__call_in_flight_answers_session_expired_at_lost (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  BlockingGet get = { 0 };
  GThread *thread;
  gint64 lost_at = 0, start;
  guint from;

  itest_proxied_init (&f, name_space, "node-lost", LOST_SESSION_MS);
  from = itest_recorder_count (f.recorder);
  itest_proxied_black_hole (&f);
  /* No deadline: retried through the connection loss, answered at LOST. */
  get.session = f.proxied;
  get.path = f.root;
  get.timeout_ms = -1;
  thread = g_thread_new ("blocking-get", blocking_get_thread, &get);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_LOST, from, WAIT_MS,
                                             &lost_at) >= 0);
  g_thread_join (thread);
  ITEST_ASSERT_CODE (get.error, ZKR_ERROR_SESSION_EXPIRED);
  CU_ASSERT_TRUE (lost_at != 0 && (get.answered - lost_at) / 1000 <= MARGIN_MS);
  g_clear_error (&get.error);
  /* Still LOST (the fresh session cannot connect through the black
   * hole): a new call fails at once, with or without a deadline. */
  CU_ASSERT_EQUAL (zkr_session_get_state (f.proxied), ZKR_SESSION_STATE_LOST);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_node_create (f.proxied, f.root, NULL, 0, ZKR_CREATE_PERSISTENT,
                                    ZKR_CREATE_PARENTS_NONE, -1, NULL, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_EXPIRED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_exists (f.proxied, f.root, SHORT_TIMEOUT_MS, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_EXPIRED);
  g_clear_error (&error);
  {
    ZkrCreateOptions protected_create = { .protection = TRUE };

    CU_ASSERT_FALSE (zkr_node_create_full (f.proxied, f.root, NULL, 0, &protected_create, -1,
                                           NULL, NULL, NULL, &error));
    ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_EXPIRED);
    g_clear_error (&error);
  }
  CU_ASSERT_FALSE (zkr_node_delete_tree (f.proxied, f.root, -1, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_EXPIRED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_sync (f.proxied, f.root, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_EXPIRED);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= MARGIN_MS);
  itest_proxied_finish (&f, TRUE);
}

static void
test_node__calls_on_a_closed_session_fail_at_once (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (GError) error = NULL;
  ItestAsync wait;
  gint64 start;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  zkr_session_close (session);
  start = g_get_monotonic_time ();
  CU_ASSERT_PTR_NULL (zkr_node_get (session, "/x", -1, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_sync (session, "/x", -1, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_delete_full (session, "/x", -1,
                                         ZKR_DELETE_CHILDREN | ZKR_DELETE_GUARANTEED, -1, NULL,
                                         &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_create_full (session, "/x", NULL, 0, NULL, -1, NULL, NULL, NULL,
                                         &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_node_create (session, "/x", NULL, 0, ZKR_CREATE_EPHEMERAL,
                                    ZKR_CREATE_PARENTS_NONE, -1, NULL, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  itest_async_begin (&wait);
  zkr_node_get_children_async (session, "/", 0, NULL, itest_async_done, &wait);
  CU_ASSERT_PTR_NULL (zkr_node_get_children_finish (session, itest_async_wait (&wait, WAIT_MS),
                                                    NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  itest_async_end (&wait);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= MARGIN_MS);
}

/* The session's last user reference goes while an async create (with a
 * deadline) and an async read (without) are in flight on a silent link:
 * each answers once, the session goes after the last answer, nothing is
 * touched after it is freed (asan, valgrind). */
static void
test_node__session_unreffed_while_requests_are_in_flight (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  ItestAsync create_wait, get_wait;

  itest_proxied_init (&f, name_space, "node-unref", LOST_SESSION_MS);
  node = g_strdup_printf ("%s/e", f.root);
  itest_proxied_black_hole (&f);
  itest_async_begin (&create_wait);
  itest_async_begin (&get_wait);
  zkr_node_create_async (f.proxied, node, "x", 1, ZKR_CREATE_EPHEMERAL, ZKR_CREATE_PARENTS_NONE,
                         SHORT_TIMEOUT_MS, NULL, itest_async_done, &create_wait);
  zkr_node_get_async (f.proxied, f.root, -1, NULL, itest_async_done, &get_wait);
  itest_recorder_free (f.recorder);
  zkr_session_unref (g_steal_pointer (&f.proxied));
  CU_ASSERT_FALSE (zkr_node_create_finish (f.direct, itest_async_wait (&create_wait, WAIT_MS), NULL,
                                           NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  /* Answered at the latest when the session is presumed LOST. */
  CU_ASSERT_PTR_NULL (zkr_node_get_finish (f.direct, itest_async_wait (&get_wait, WAIT_MS), NULL,
                                           &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED) ||
                  g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS));
  itest_async_end (&create_wait);
  itest_async_end (&get_wait);
  itest_proxied_finish (&f, TRUE);
}

/* Reads are retried on a retryable answer, writes are not. */
static void
test_node__reads_retry_writes_do_not (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), name_space, 10000);
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("node-retry");
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  guint before;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, root, "r", 1, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                         &error));
  /* Every answer throttled: a write fails at once, a read keeps trying
   * until its deadline. */
  zkr__session_test_rewrite_answers (session, ZTHROTTLEDOP, -1);
  before = zkr__session_test_count_rewritten (session);
  CU_ASSERT_FALSE (zkr_node_set (session, root, "s", 1, -1, CALL_MS, NULL, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_CONNECTION_LOSS);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr__session_test_count_rewritten (session) - before >= 1);
  before = zkr__session_test_count_rewritten (session);
  CU_ASSERT_PTR_NULL (zkr_node_get (session, root, SHORT_TIMEOUT_MS, NULL, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT) ||
                  g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS));
  CU_ASSERT_TRUE (zkr__session_test_count_rewritten (session) - before >= 2);
  g_clear_error (&error);
  /* Two throttled answers, then a read gets through. */
  zkr__session_test_rewrite_answers (session, ZTHROTTLEDOP, 2);
  data = zkr_node_get (session, root, CALL_MS, NULL, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL (data);
  CU_ASSERT_PTR_NULL (error);
  zkr__session_test_rewrite_answers (session, 0, 0);
  itest_cleanup_root (direct, name_space, root);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_node__roundtrip_without_namespace),
  ZKR_TEST_CASE (test_node__roundtrip_with_namespace),
  ZKR_TEST_CASE (test_node__sequential_names_and_children),
  ZKR_TEST_CASE (test_node__sequential_names_and_children_with_namespace),
  ZKR_TEST_CASE (test_node__ephemeral_goes_with_its_session),
  ZKR_TEST_CASE (test_node__create_parents_persistent_or_container),
  ZKR_TEST_CASE (test_node__an_ancestor_gone_while_parents_are_made_is_made_again),
  ZKR_TEST_CASE (test_node__async_calls_answer_in_the_callers_context),
  ZKR_TEST_CASE (test_node__bad_input_is_refused_with_nothing_sent),
  ZKR_TEST_CASE (test_node__black_holed_calls_answer_timeout_by_the_deadline),
  ZKR_TEST_CASE (test_node__cancel_answers_promptly_on_a_black_holed_link),
  ZKR_TEST_CASE (test_node__calls_while_suspended_answer_by_the_deadline),
  ZKR_TEST_CASE (test_node__call_in_flight_answers_session_expired_at_lost),
  ZKR_TEST_CASE (test_node__calls_on_a_closed_session_fail_at_once),
  ZKR_TEST_CASE (test_node__session_unreffed_while_requests_are_in_flight),
  ZKR_TEST_CASE (test_node__reads_retry_writes_do_not),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  g_autofree char *own_namespace = itest_suite_namespace ("node");

  name_space = own_namespace;
  return zkr_test_main (argc, argv, "node", NULL, NULL, tests);
}
