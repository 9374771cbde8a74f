/* zkr integration: group membership against the real ensemble: members on
 * separate sessions see each other's ids and payloads, a payload change,
 * a member that closes, a member back after its session's expiry; bad
 * input. */
#include <string.h>

#include "itest.h"
#include "zkr-test.h"

#define SESSION_MS 6000
#define MEMBERS 3

/* ---- events heard on a thread of their own ---------------------------------- */

typedef struct {
  ItestLoopThread runner;
  GMutex lock;
  GPtrArray *seen;              /* "JOINED a pa": lock */
} Heard;

static const char *
event_name (ZkrGroupEvent event)
{
  return event == ZKR_GROUP_MEMBER_JOINED    ? "JOINED"
         : event == ZKR_GROUP_MEMBER_CHANGED ? "CHANGED"
                                             : "LEFT";
}

static void
member_heard (ZkrGroupMember *member, ZkrGroupEvent event, const char *id, GBytes *payload,
              gpointer data)
{
  Heard *heard = data;
  gsize len = 0;
  const char *bytes = payload != NULL ? g_bytes_get_data (payload, &len) : NULL;

  (void) member;
  g_mutex_lock (&heard->lock);
  g_ptr_array_add (heard->seen, g_strdup_printf ("%s %s %.*s", event_name (event), id, (int) len,
                                                 bytes != NULL ? bytes : ""));
  g_mutex_unlock (&heard->lock);
}

static void
heard_start (Heard *heard, ZkrGroupMember *member)
{
  g_mutex_init (&heard->lock);
  heard->seen = g_ptr_array_new_with_free_func (g_free);
  itest_loop_thread_init (&heard->runner);
  g_main_context_push_thread_default (heard->runner.context);
  CU_ASSERT_TRUE (zkr_group_member_add_listener (member, member_heard, heard, NULL) > 0);
  g_main_context_pop_thread_default (heard->runner.context);
  itest_loop_thread_start (&heard->runner, "group-heard");
}

static void
heard_stop (Heard *heard)
{
  itest_loop_thread_stop (&heard->runner, NULL, NULL);
  g_ptr_array_unref (heard->seen);
  g_mutex_clear (&heard->lock);
}

typedef struct {
  Heard *heard;
  const char *line;
} HeardWait;

static gboolean
heard_line (gpointer data)
{
  HeardWait *wait = data;
  gboolean found = FALSE;

  g_mutex_lock (&wait->heard->lock);
  for (guint i = 0; i < wait->heard->seen->len && !found; i++)
    found = strcmp (g_ptr_array_index (wait->heard->seen, i), wait->line) == 0;
  g_mutex_unlock (&wait->heard->lock);
  return found;
}

static gboolean
wait_heard (Heard *heard, const char *line)
{
  HeardWait wait = { heard, line };

  return itest_wait_for (heard_line, &wait, ITEST_WAIT_MS);
}

/* ---- views ------------------------------------------------------------------------ */

static gint
compare_ids (gconstpointer a, gconstpointer b, gpointer data)
{
  (void) data;
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* A member's view as "a=pa,b=pb" (ids sorted). (transfer full) */
static char *
describe_view (ZkrGroupMember *member)
{
  g_autoptr (GHashTable) members = zkr_group_member_dup_members (member);
  guint n = 0;
  gpointer *ids = g_hash_table_get_keys_as_array (members, &n);
  GString *text = g_string_new (NULL);

  g_qsort_with_data (ids, n, sizeof (gpointer), compare_ids, NULL);
  for (guint i = 0; i < n; i++)
    {
      GBytes *payload = g_hash_table_lookup (members, ids[i]);
      gsize len = 0;
      const char *bytes = g_bytes_get_data (payload, &len);

      g_string_append_printf (text, "%s%s=%.*s", i > 0 ? "," : "", (const char *) ids[i],
                              (int) len, bytes != NULL ? bytes : "");
    }
  g_free (ids);
  return g_string_free (text, FALSE);
}

typedef struct {
  ZkrGroupMember *member;
  const char *expected;
} ViewWait;

static gboolean
view_is (gpointer data)
{
  ViewWait *wait = data;
  g_autofree char *view = describe_view (wait->member);

  return strcmp (view, wait->expected) == 0;
}

static void
assert_view_becomes (ZkrGroupMember *member, const char *expected)
{
  ViewWait wait = { member, expected };

  if (!itest_wait_for (view_is, &wait, ITEST_WAIT_MS))
    {
      g_autofree char *view = describe_view (member);

      g_printerr ("member %s sees \"%s\", not \"%s\"\n", zkr_group_member_get_id (member), view,
                  expected);
      CU_FAIL ("the view did not become what the server has");
    }
}

/* ---- a group of members on sessions of their own ---------------------------------- */

typedef struct {
  ZkrSession *sessions[MEMBERS];
  ZkrGroupMember *members[MEMBERS];
  ZkrSession *direct;
  char *root;
  char *group;
} Group;

static const char *const ids[MEMBERS] = { "a", "b", "c" };
static const char *const payloads[MEMBERS] = { "pa", "pb", "pc" };

static void
group_join (Group *g, const char *name, guint count)
{
  memset (g, 0, sizeof *g);
  g->direct = itest_connect (itest_hosts (), SESSION_MS);
  g->root = itest_scratch_path (name);
  g->group = g_strconcat (g->root, "/group", NULL);
  for (guint i = 0; i < count; i++)
    {
      g_autoptr (GError) error = NULL;

      g->sessions[i] = itest_connect (itest_hosts (), SESSION_MS);
      g->members[i] = zkr_group_member_new (g->sessions[i], g->group, ids[i], payloads[i],
                                            strlen (payloads[i]), &error);
      CU_ASSERT_PTR_NOT_NULL_FATAL (g->members[i]);
    }
}

static void
group_start (Group *g, guint count)
{
  for (guint i = 0; i < count; i++)
    {
      g_autoptr (GError) error = NULL;

      CU_ASSERT_TRUE (zkr_group_member_start (g->members[i], &error));
      CU_ASSERT_TRUE (zkr_group_member_wait_joined (g->members[i], ITEST_CALL_MS, NULL, &error));
      CU_ASSERT_TRUE (error == NULL);
    }
}

static void
group_leave (Group *g)
{
  for (guint i = 0; i < MEMBERS; i++)
    if (g->members[i] != NULL)
      {
        CU_ASSERT_TRUE (zkr_group_member_close (g->members[i], ITEST_CALL_MS, NULL, NULL));
        zkr_group_member_unref (g->members[i]);
        zkr_session_unref (g->sessions[i]);
      }
  CU_ASSERT_EQUAL (itest_count_children (g->direct, g->group), 0);
  itest_cleanup_root (g->direct, NULL, g->root);
  zkr_session_unref (g->direct);
  g_free (g->group);
  g_free (g->root);
}

/* ---- tests ------------------------------------------------------------------------ */

static void
test_group_member__members_see_each_others_ids_and_payloads (void)
{
  Group g;
  g_auto (GStrv) children = NULL;

  group_join (&g, "group-see", MEMBERS);
  group_start (&g, MEMBERS);
  for (guint i = 0; i < MEMBERS; i++)
    assert_view_becomes (g.members[i], "a=pa,b=pb,c=pc");
  CU_ASSERT_TRUE (zkr_node_sync (g.direct, g.group, ITEST_CALL_MS, NULL, NULL));
  children = zkr_node_get_children (g.direct, g.group, ITEST_CALL_MS, NULL, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (children);
  CU_ASSERT_EQUAL (g_strv_length (children), MEMBERS);
  CU_ASSERT_STRING_EQUAL (zkr_group_member_get_id (g.members[1]), "b");
  CU_ASSERT_STRING_EQUAL (zkr_group_member_get_path (g.members[1]), g.group);
  group_leave (&g);
}

static void
test_group_member__a_payload_change_is_seen_by_the_others (void)
{
  Group g;
  Heard heard;
  g_autoptr (GError) error = NULL;

  group_join (&g, "group-change", 2);
  heard_start (&heard, g.members[1]);
  group_start (&g, 2);
  assert_view_becomes (g.members[1], "a=pa,b=pb");
  CU_ASSERT_TRUE (wait_heard (&heard, "JOINED a pa"));
  CU_ASSERT_TRUE (zkr_group_member_set_payload (g.members[0], "pa2", 3, &error));
  assert_view_becomes (g.members[1], "a=pa2,b=pb");
  assert_view_becomes (g.members[0], "a=pa2,b=pb");
  CU_ASSERT_TRUE (wait_heard (&heard, "CHANGED a pa2"));
  group_leave (&g);
  heard_stop (&heard);
}

static void
test_group_member__a_member_that_closes_leaves_the_others_views (void)
{
  Group g;
  Heard heard;
  g_autofree char *node = NULL;

  group_join (&g, "group-leave", MEMBERS);
  heard_start (&heard, g.members[2]);
  group_start (&g, MEMBERS);
  assert_view_becomes (g.members[2], "a=pa,b=pb,c=pc");
  CU_ASSERT_TRUE (zkr_group_member_close (g.members[0], ITEST_CALL_MS, NULL, NULL));
  assert_view_becomes (g.members[1], "b=pb,c=pc");
  assert_view_becomes (g.members[2], "b=pb,c=pc");
  CU_ASSERT_TRUE (wait_heard (&heard, "LEFT a pa"));
  node = g_strconcat (g.group, "/a", NULL);
  CU_ASSERT_TRUE (itest_node_absent (g.direct, node));
  /* Closed: its own view is empty. */
  {
    g_autoptr (GHashTable) view = zkr_group_member_dup_members (g.members[0]);

    CU_ASSERT_EQUAL (g_hash_table_size (view), 0);
  }
  group_leave (&g);
  heard_stop (&heard);
}

typedef struct {
  ZkrSession *direct;
  const char *path;
  ZkrSession *owner;
} OwnedWait;

static gboolean
owned_by_current_session (gpointer data)
{
  OwnedWait *wait = data;
  ZkrStat stat = { 0 };

  return zkr_node_exists (wait->direct, wait->path, ITEST_CALL_MS, NULL, &stat, NULL) &&
         stat.ephemeral_owner == zkr_session_get_id (wait->owner);
}

static void
test_group_member__a_member_is_back_after_its_session_expired (void)
{
  Group g;
  g_autofree char *node = NULL;
  OwnedWait owned;
  gint64 old_id;

  group_join (&g, "group-expire", 2);
  group_start (&g, 2);
  assert_view_becomes (g.members[1], "a=pa,b=pb");
  node = g_strconcat (g.group, "/a", NULL);
  owned = (OwnedWait) { g.direct, node, g.sessions[0] };
  for (int round = 0; round < 3; round++)
    {
      old_id = zkr_session_get_id (g.sessions[0]);
      CU_ASSERT_TRUE_FATAL (itest_expire_session (g.sessions[0]));
      CU_ASSERT_TRUE (zkr_session_wait_connected (g.sessions[0], ITEST_CALL_MS, NULL, NULL));
      CU_ASSERT_NOT_EQUAL (zkr_session_get_id (g.sessions[0]), old_id);
      CU_ASSERT_TRUE (itest_wait_for (owned_by_current_session, &owned, ITEST_WAIT_MS));
      assert_view_becomes (g.members[1], "a=pa,b=pb");
      assert_view_becomes (g.members[0], "a=pa,b=pb");
    }
  group_leave (&g);
}

static void
test_group_member__bad_input_is_named (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (GError) error = NULL;
  static const char *const bad_ids[] = { "", ".", "..", "x/y", "tab\there" };

  for (guint i = 0; i < G_N_ELEMENTS (bad_ids); i++)
    {
      CU_ASSERT_PTR_NULL (zkr_group_member_new (session, "/g", bad_ids[i], NULL, 0, &error));
      itest_assert_invalid_naming (error, bad_ids[i]);
      g_clear_error (&error);
    }
  CU_ASSERT_PTR_NULL (zkr_group_member_new (session, "/", "a", NULL, 0, &error));
  itest_assert_invalid_naming (error, "/");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_group_member_new (session, "g", "a", NULL, 0, &error));
  itest_assert_invalid_naming (error, "g");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_group_member_new (session, "/g", "a", NULL, 5, &error));
  itest_assert_invalid_naming (error, "5");
  g_clear_error (&error);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_group_member__members_see_each_others_ids_and_payloads),
  ZKR_TEST_CASE (test_group_member__a_payload_change_is_seen_by_the_others),
  ZKR_TEST_CASE (test_group_member__a_member_that_closes_leaves_the_others_views),
  ZKR_TEST_CASE (test_group_member__a_member_is_back_after_its_session_expired),
  ZKR_TEST_CASE (test_group_member__bad_input_is_named),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "group-member", NULL, NULL, tests);
}
