/* zkr integration: the zkr tool's node and watch commands against the
 * real ensemble, run as a user runs them (a subprocess): get, set, ls, rm
 * and create with their exit statuses and --json, binary-safe data,
 * fenced writes (--fenced, --fenced-by), zkr watch through changes,
 * signals and a lost session, and where credentials come from. */

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "cli-proc.h"
#include "itest.h"
#include "proxy.h"
#include "zkr-test.h"

#define WAIT_MS CLI_WAIT_MS

/* ---- node commands: get, set, ls, rm, create ----------------------------- */

/* Runs zkr to completion; *@out gets stdout byte for byte. */
static int
zkr_run_bytes_v (const char *const *args, GBytes **out, char **err)
{
  g_autoptr (Proc) proc = zkr_spawn_v (args);
  char *contents = NULL;
  gsize len = 0;
  int status;

  *out = NULL;
  if (proc == NULL)
    return -1;
  status = proc_finish (proc, WAIT_MS, NULL, err);
  if (g_file_get_contents (proc->out_path, &contents, &len, NULL))
    *out = g_bytes_new_take (contents, len);
  return status;
}

#define zkr_run_bytes(out, err, ...) \
  zkr_run_bytes_v ((const char *const[]) { __VA_ARGS__, NULL }, out, err)

/* The node's data as text ("" for none), NULL if it does not exist. */
static char *
node_text (ZkrSession *session, const char *path)
{
  g_autoptr (GBytes) data = zkr_node_get (session, path, 10000, NULL, NULL, NULL);

  return data != NULL ? g_strndup (g_bytes_get_data (data, NULL), g_bytes_get_size (data)) : NULL;
}

static void
assert_stat_json (const char *json)
{
  const char *fields[] = { "\"czxid\":", "\"mzxid\":", "\"pzxid\":", "\"ctime\":", "\"mtime\":",
                           "\"version\":", "\"cversion\":", "\"aversion\":",
                           "\"ephemeral_owner\":\"0x", "\"data_length\":", "\"num_children\":" };

  CU_ASSERT_TRUE (text_index (json, "\"stat\":{") > 0);
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    CU_ASSERT_TRUE (text_index (json, fields[i]) > 0);
}

static void
test_cli__node_get_set_and_create_round_trip_with_json (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-node");
  g_autofree char *out = NULL, *err = NULL, *json = NULL, *set_json = NULL, *stored = NULL;
  g_autofree char *expected = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "create", "--parents", path, "hello world"), 0);
  expected = g_strconcat (path, "\n", NULL);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", expected);
  g_clear_pointer (&out, g_free);
  /* As stored: no newline added. */
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "get", path), 0);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "hello world");
  CU_ASSERT_EQUAL (zkr_run (&json, NULL, "get", "--json", path), 0);
  CU_ASSERT_EQUAL (text_index (json, "{\"path\":\""), 0);
  CU_ASSERT_TRUE (text_index (json, "\"data\":\"hello world\",") > 0);
  CU_ASSERT_TRUE (text_index (json, "\"data_base64\":\"aGVsbG8gd29ybGQ=\"") > 0);
  CU_ASSERT_TRUE (text_index (json, "\"version\":0,") > 0);
  CU_ASSERT_TRUE (text_index (json, "\"data_length\":11,") > 0);
  CU_ASSERT_TRUE (text_index (json, "\"ephemeral_owner\":\"0x0000000000000000\"") > 0);
  assert_stat_json (json);
  /* A value that looks like an option, after "--". */
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "set", path, "--", "-5"), 0);
  CU_ASSERT_STRING_EQUAL ((stored = node_text (session, path)) ?: "?", "-5");
  g_clear_pointer (&stored, g_free);
  CU_ASSERT_EQUAL (zkr_run (&set_json, NULL, "set", "--json", "--version=1", path, "v2"), 0);
  CU_ASSERT_TRUE (text_index (set_json, "\"version\":2,") > 0);
  assert_stat_json (set_json);
  /* Refusals: each its own status, nothing written. */
  CU_ASSERT_EQUAL (zkr_run (NULL, &err, "set", "--version=0", path, "stale"), 65);
  CU_ASSERT_TRUE (text_index (err, path) >= 0);
  CU_ASSERT_STRING_EQUAL ((stored = node_text (session, path)) ?: "?", "v2");
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "create", path, "again"), 73);
  CU_ASSERT_STRING_EQUAL ((stored = (g_free (stored), node_text (session, path))) ?: "?", "v2");
  g_clear_pointer (&err, g_free);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "rm", "--version=5", path), 65);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "rm", "--version=2", path), 0);
  CU_ASSERT_TRUE (itest_node_absent (session, path));
  CU_ASSERT_EQUAL (zkr_run (NULL, &err, "get", path), 66);
  CU_ASSERT_TRUE (text_index (err, path) >= 0);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "set", path, "x"), 66);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "rm", path), 66);
  CU_ASSERT_TRUE (itest_node_absent (session, path));
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* Data is bytes: a NUL, bytes that are not UTF-8, no newline. */
static void
test_cli__node_data_is_binary_safe (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-binary");
  g_autofree char *copy = g_strconcat (path, "/copy", NULL);
  g_autofree char *dir = scratch_dir ();
  g_autofree char *file = g_build_filename (dir, "data", NULL);
  const char data[] = { 'a', '\0', '\xff', '\xfe', '\n', 'b' };
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) copied = NULL;
  g_autoptr (GBytes) json = NULL;
  g_autofree char *base64 = g_base64_encode ((const guchar *) data, sizeof data);
  g_autofree char *field = g_strdup_printf ("\"data\":null,\"data_base64\":\"%s\"", base64);
  g_autofree char *json_text = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, path, data, sizeof data, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_PERSISTENT, 10000, NULL, NULL, NULL,
                                         NULL));
  CU_ASSERT_EQUAL (zkr_run_bytes (&out, NULL, "get", path), 0);
  CU_ASSERT_TRUE (out != NULL && g_bytes_get_size (out) == sizeof data
                  && memcmp (g_bytes_get_data (out, NULL), data, sizeof data) == 0);
  CU_ASSERT_EQUAL (zkr_run_bytes (&json, NULL, "get", "--json", path), 0);
  json_text = json != NULL ? g_strndup (g_bytes_get_data (json, NULL), g_bytes_get_size (json)) : NULL;
  CU_ASSERT_TRUE (text_index (json_text, field) > 0);
  /* And back in from a file, byte for byte. */
  CU_ASSERT_TRUE (g_file_set_contents (file, data, sizeof data, NULL));
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "create", "--file", file, copy), 0);
  copied = zkr_node_get (session, copy, 10000, NULL, NULL, NULL);
  CU_ASSERT_TRUE (copied != NULL && g_bytes_equal (copied, out));
  scratch_dir_remove (dir);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static void
test_cli__node_ls_and_rm_walk_the_tree (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-tree");
  g_autofree char *deep = g_strconcat (path, "/b/c", NULL);
  g_autofree char *a = g_strconcat (path, "/a", NULL);
  g_autofree char *out = NULL, *tree = NULL, *json = NULL, *tree_json = NULL, *rm_json = NULL;
  g_autofree char *expected = NULL, *listed = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "create", "-p", deep, "c"), 0);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "create", a), 0);
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "ls", path), 0);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "a\nb\n");
  CU_ASSERT_EQUAL (zkr_run (&tree, NULL, "ls", "-R", path), 0);
  expected = g_strdup_printf ("%s/a\n%s/b\n%s/b/c\n", path, path, path);
  CU_ASSERT_STRING_EQUAL (tree != NULL ? tree : "?", expected);
  CU_ASSERT_EQUAL (zkr_run (&json, NULL, "ls", "--json", path), 0);
  CU_ASSERT_TRUE (text_index (json, "\"children\":[\"a\",\"b\"]}") > 0);
  CU_ASSERT_TRUE (text_index (json, "\"num_children\":2") > 0);
  assert_stat_json (json);
  CU_ASSERT_EQUAL (zkr_run (&tree_json, NULL, "ls", "-R", "--json", path), 0);
  listed = g_strdup_printf ("{\"path\":\"%s\",\"stat\":{", deep);
  CU_ASSERT_TRUE (text_index (tree_json, listed) > 0);
  CU_ASSERT_TRUE (text_index (tree_json, "\"children\":[]}]}]}") > 0);
  /* Not empty: refused without -r, nothing deleted. */
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "rm", path), 67);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 2);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "ls", "-R", a, "/extra"), 64);
  /* -r checks the version before anything goes. */
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "rm", "-r", "--version=5", path), 65);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 2);
  CU_ASSERT_FALSE (itest_node_absent (session, deep));
  CU_ASSERT_EQUAL (zkr_run (&rm_json, NULL, "rm", "-r", "--json", "--version=0", path), 0);
  g_free (expected);
  expected = g_strdup_printf ("{\"path\":\"%s\",\"recursive\":true}\n", path);
  CU_ASSERT_STRING_EQUAL (rm_json != NULL ? rm_json : "?", expected);
  CU_ASSERT_TRUE (itest_node_absent (session, path));
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "ls", path), 66);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "rm", "-r", path), 66);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static void
test_cli__node_create_modes_and_namespace (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-modes");
  g_autofree char *prefix = g_strconcat (path, "/job-", NULL);
  g_autofree char *ephemeral = g_strconcat (path, "/gone", NULL);
  g_autofree char *container = g_strconcat (path, "/box", NULL);
  g_autofree char *seq = NULL, *eph_json = NULL, *ns_out = NULL, *ns_data = NULL;
  g_autofree char *ns_full = NULL;
  const char *ns = path + strlen ("/");

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (&seq, NULL, "create", "--parents", "--sequential", prefix, "1"), 0);
  CU_ASSERT_TRUE (g_str_has_prefix (seq != NULL ? seq : "", prefix));
  CU_ASSERT_EQUAL (seq != NULL ? strlen (seq) : 0, strlen (prefix) + 10 + 1);
  /* Ephemeral: zkr's session owns it, so it is gone once zkr exits. */
  CU_ASSERT_EQUAL (zkr_run (&eph_json, NULL, "create", "--json", "--ephemeral", ephemeral), 0);
  CU_ASSERT_TRUE (text_index (eph_json, "\"ephemeral_owner\":\"0x") > 0);
  CU_ASSERT_EQUAL (text_index (eph_json, "\"ephemeral_owner\":\"0x0000000000000000\""), -1);
  CU_ASSERT_TRUE (itest_node_absent (session, ephemeral));
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "create", "--container", container), 0);
  CU_ASSERT_FALSE (itest_node_absent (session, container));
  /* --namespace: "/x" is /NAMESPACE/x on the server; output without it. */
  ns_full = g_strconcat (path, "/x", NULL);
  CU_ASSERT_EQUAL (zkr_run (&ns_out, NULL, "create", "--namespace", ns, "/x", "in-ns"), 0);
  CU_ASSERT_STRING_EQUAL (ns_out != NULL ? ns_out : "?", "/x\n");
  CU_ASSERT_STRING_EQUAL ((ns_data = node_text (session, ns_full)) ?: "?", "in-ns");
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "rm", "--namespace", ns, "/x"), 0);
  CU_ASSERT_TRUE (itest_node_absent (session, ns_full));
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static void
test_cli__node_bad_input_names_the_value_and_exits_64 (void)
{
  const char *const cases[][7] = {
    /* argument, the text the message must show */
    { "relative/path", "get", "relative/path", NULL },
    { "--version", "set", "--version=abc", "/zkr-it/x", "v", NULL },
    { "-2", "set", "--version=-2", "/zkr-it/x", "v", NULL },
    { "VALUE", "set", "/zkr-it/x", NULL },
    { "-1", "get", "--timeout=-1", "/zkr-it/x", NULL },
    { "ZKR_LOCK_NODE", "set", "--fenced", "/zkr-it/x", "v", NULL },
    { "exclude", "set", "--fenced", "--fenced-by=/n", "/zkr-it/x", "v", NULL },
    { "lock-1", "set", "--fenced-by=lock-1", "/zkr-it/x", "v", NULL },
    { "--container", "create", "--container", "--ephemeral", "/zkr-it/x", NULL },
    { "/nonexistent/file", "create", "--file=/nonexistent/file", "/zkr-it/x", NULL },
    /* Read up to one byte over what a node holds, never whole. */
    { "ZKR_NODE_MAX_DATA_SIZE", "create", "--file=/dev/zero", "/zkr-it/x", NULL },
    { "'/'", "rm", "-r", "/", NULL },
    { "'/b'", "ls", "/a", "/b", NULL },
    { "PATH", "ls", NULL },
    { "--bogus", "create", "--bogus", "/zkr-it/x", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      CU_ASSERT_EQUAL (zkr_run_v (&cases[i][1], &out, &err), 64);
      CU_ASSERT_TRUE (text_index (err, "Usage") >= 0);
      CU_ASSERT_TRUE (text_index (err, cases[i][0]) >= 0);
      if (text_index (err, cases[i][0]) < 0)
        fprintf (stderr, "case %zu: %s\n", i, err);
      CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "");
    }
  /* Nothing was made by a refused command line. */
  {
    ZkrSession *session = itest_connect (itest_hosts (), 10000);

    CU_ASSERT_PTR_NOT_NULL_FATAL (session);
    CU_ASSERT_TRUE (itest_node_absent (session, "/zkr-it/x"));
    zkr_session_unref (session);
  }
}

/* ---- fenced writes ------------------------------------------------------ */

/* Inside `zkr lock`, --fenced writes land; with the lock node gone every
 * write is refused with 70 and nothing is written. */
static void
test_cli__fenced_writes_land_while_held_and_exit_70_once_the_node_is_gone (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *lock = itest_scratch_path ("cli-fence-lock");
  g_autofree char *path = itest_scratch_path ("cli-fence-data");
  g_autofree char *parent = g_strconcat (path, "/new", NULL);
  g_autofree char *child = g_strconcat (parent, "/deep", NULL);
  g_autofree char *held_node = NULL, *err = NULL, *stored = NULL, *created = NULL;
  g_autoptr (ZkrMutex) mutex = NULL;
  g_autoptr (GError) error = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, path, "v0", 2, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_PERSISTENT, 10000, NULL, NULL, NULL,
                                         NULL));
  /* zkr lock's CMD: $ZKR_LOCK_NODE is the fence. */
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", lock, "--", zkr_path (), "set", "--fenced", path,
                            "v1"), 0);
  CU_ASSERT_STRING_EQUAL ((stored = node_text (session, path)) ?: "?", "v1");
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", lock, "--", zkr_path (), "create", "--fenced",
                            "--parents", child, "c"), 0);
  CU_ASSERT_STRING_EQUAL ((created = node_text (session, child)) ?: "?", "c");
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", lock, "--", zkr_path (), "rm", "-r", "--fenced",
                            "--version=7", parent), 65);
  CU_ASSERT_STRING_EQUAL ((stored = (g_free (stored), node_text (session, child))) ?: "?", "c");
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", lock, "--", zkr_path (), "rm", "-r", "--fenced",
                            parent), 0);
  CU_ASSERT_TRUE (itest_node_absent (session, parent));
  /* A live lock held here, its node passed with --fenced-by. */
  mutex = zkr_mutex_new (session, lock, &error);
  CU_ASSERT_TRUE_FATAL (mutex != NULL && zkr_mutex_acquire (mutex, 10000, NULL, &error));
  held_node = zkr_mutex_dup_node_path (mutex);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "set", "--fenced-by", held_node, path, "v2"), 0);
  g_clear_pointer (&stored, g_free);
  CU_ASSERT_STRING_EQUAL ((stored = node_text (session, path)) ?: "?", "v2");
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, &error));
  /* Released: the node is gone; nothing is written any more. */
  CU_ASSERT_EQUAL (zkr_run (NULL, &err, "set", "--fenced-by", held_node, path, "v3"), 70);
  CU_ASSERT_TRUE (text_index (err, held_node) >= 0);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "create", "--fenced-by", held_node, "--parents", child),
                   70);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "rm", "--fenced-by", held_node, path), 70);
  g_clear_pointer (&stored, g_free);
  CU_ASSERT_STRING_EQUAL ((stored = node_text (session, path)) ?: "?", "v2");
  CU_ASSERT_TRUE (itest_node_absent (session, parent));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  itest_assert_path_clean (session, path);
  itest_assert_path_clean (session, lock);
  zkr_session_unref (session);
}

/* ---- zkr watch --------------------------------------------------------- */

static void
test_cli__watch_prints_each_change_and_exits_0_on_sigterm (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-watch");
  g_autofree char *child = g_strconcat (path, "/kid", NULL);
  g_autofree char *out = NULL, *expected = NULL, *stored = NULL;
  g_autoptr (Proc) proc = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  /* PATH need not exist. */
  proc = zkr_spawn ("watch", path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (wait_output (proc->err_path, "watching", 1));
  CU_ASSERT_TRUE (zkr_node_create (session, path, "a", 1, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_PERSISTENT, 10000, NULL, NULL, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->out_path, "CREATED", 1));
  CU_ASSERT_TRUE (zkr_node_set (session, path, "b", 1, -1, 10000, NULL, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->out_path, "DATA_CHANGED", 1));
  CU_ASSERT_TRUE (zkr_node_create (session, child, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, 10000, NULL, NULL, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->out_path, "CHILDREN_CHANGED", 1));
  CU_ASSERT_TRUE (zkr_node_delete (session, child, -1, 10000, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->out_path, "CHILDREN_CHANGED", 2));
  CU_ASSERT_TRUE (zkr_node_delete (session, path, -1, 10000, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->out_path, "DELETED", 1));
  /* Watching on after the delete: the node comes back. */
  CU_ASSERT_TRUE (zkr_node_create (session, path, "c", 1, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, 10000, NULL, NULL, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->out_path, "CREATED", 2));
  proc_signal (proc, SIGTERM);
  CU_ASSERT_EQUAL (proc_finish (proc, WAIT_MS, &out, NULL), 0);
  expected = g_strdup_printf ("CREATED %s\nDATA_CHANGED %s\nCHILDREN_CHANGED %s\n"
                              "CHILDREN_CHANGED %s\nDELETED %s\nCREATED %s\n",
                              path, path, path, path, path, path);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", expected);
  /* The node is left as it was. */
  CU_ASSERT_STRING_EQUAL ((stored = node_text (session, path)) ?: "?", "c");
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static void
test_cli__watch_json_carries_the_node_as_read_again (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-watch-json");
  g_autofree char *child = g_strconcat (path, "/kid", NULL);
  g_autofree char *out = NULL, *err = NULL, *stored = NULL;
  g_autoptr (Proc) proc = NULL;
  g_auto (GStrv) lines = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, path, "v1", 2, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_PERSISTENT, 10000, NULL, NULL, NULL,
                                         NULL));
  proc = zkr_spawn ("watch", "--json", path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (wait_output (proc->err_path, "watching", 1));
  CU_ASSERT_TRUE (zkr_node_set (session, path, "v2", 2, -1, 10000, NULL, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->out_path, "\n", 1));
  CU_ASSERT_TRUE (zkr_node_create (session, child, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, 10000, NULL, NULL, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->out_path, "\n", 2));
  /* SIGINT too ends it cleanly, leaving the nodes. */
  proc_signal (proc, SIGINT);
  CU_ASSERT_EQUAL (proc_finish (proc, WAIT_MS, &out, &err), 0);
  lines = g_strsplit (out != NULL ? out : "", "\n", -1);
  CU_ASSERT_EQUAL_FATAL (g_strv_length (lines), 3);
  CU_ASSERT_EQUAL (text_index (lines[0], "{\"event\":\"DATA_CHANGED\",\"path\":\""), 0);
  CU_ASSERT_TRUE (text_index (lines[0], "\"exists\":true,\"stat\":{") > 0);
  CU_ASSERT_TRUE (text_index (lines[0], "\"version\":1,") > 0);
  CU_ASSERT_TRUE (text_index (lines[0], "\"data\":\"v2\",\"data_base64\":\"djI=\"") > 0);
  CU_ASSERT_EQUAL (text_index (lines[1], "{\"event\":\"CHILDREN_CHANGED\""), 0);
  CU_ASSERT_TRUE (text_index (lines[1], "\"children\":[\"kid\"]}") > 0);
  CU_ASSERT_STRING_EQUAL (lines[2], "");
  CU_ASSERT_STRING_EQUAL ((stored = node_text (session, path)) ?: "?", "v2");
  CU_ASSERT_EQUAL (itest_count_children (session, path), 1);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* A session lost under the watch (partitioned past its timeout through
 * the proxy): SESSION_LOST, with the node read again on the fresh
 * session, so a change made meanwhile is not missed; then watching on. */
static void
test_cli__watch_says_session_lost_and_reads_again (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-watch-lost");
  g_autofree char *address = NULL, *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (Proc) proc = NULL;
  g_auto (GStrv) lines = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, path, "v1", 2, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_PERSISTENT, 10000, NULL, NULL, NULL,
                                         NULL));
  address = zkr_test_proxy_dup_address (proxy);
  proc = zkr_spawn ("watch", "--json", "--hosts", address, "--session-timeout=2", path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (wait_output (proc->err_path, "watching", 1));
  zkr_test_proxy_blackhole (proxy);
  /* Written while zkr cannot hear of it. */
  CU_ASSERT_TRUE (zkr_node_set (session, path, "v2", 2, -1, 10000, NULL, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->err_path, "session lost", 1));
  zkr_test_proxy_heal (proxy);
  CU_ASSERT_TRUE (wait_output (proc->out_path, "SESSION_LOST", 1));
  CU_ASSERT_TRUE (zkr_node_set (session, path, "v3", 2, -1, 10000, NULL, NULL, NULL));
  CU_ASSERT_TRUE (wait_output (proc->out_path, "DATA_CHANGED", 1));
  proc_signal (proc, SIGTERM);
  CU_ASSERT_EQUAL (proc_finish (proc, WAIT_MS, &out, &err), 0);
  lines = g_strsplit (out != NULL ? out : "", "\n", -1);
  CU_ASSERT_EQUAL_FATAL (g_strv_length (lines), 3);
  CU_ASSERT_EQUAL (text_index (lines[0], "{\"event\":\"SESSION_LOST\""), 0);
  CU_ASSERT_TRUE (text_index (lines[0], "\"data\":\"v2\"") > 0);
  CU_ASSERT_EQUAL (text_index (lines[1], "{\"event\":\"DATA_CHANGED\""), 0);
  CU_ASSERT_TRUE (text_index (lines[1], "\"data\":\"v3\"") > 0);
  zkr_test_proxy_free (proxy);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* ---- credentials: --auth-file, $ZKR_AUTH, --auth ------------------------- */

#define AUTH_USER "cli-user"
#define AUTH_SECRET "s3cret-never-shown"

/* A node only AUTH_USER reads (the creator's ACL), with data "hidden". */
static ZkrSession *
auth_session_new (void)
{
  g_autoptr (ZkrSessionOptions) options = itest_options (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  ZkrSession *session;

  zkr_session_options_set_digest_auth (options, AUTH_USER, AUTH_SECRET);
  session = zkr_session_connect (options, &error);
  g_assert_no_error (error);
  return session;
}

/* The credentials reach zkr from a file, from $ZKR_AUTH and (warned
 * against) from the command line, where they are starred out once zkr
 * runs; no output ever holds the password; without them (or with bad
 * ones) the node is refused (77); a missing or malformed file is a usage
 * error (64) that names the file and not its contents. */
static void
test_cli__credentials_from_a_file_or_the_environment_never_shown (void)
{
  g_autoptr (ZkrSession) owner = auth_session_new ();
  g_autofree char *root = itest_scratch_path ("cli-auth");
  g_autofree char *node = g_strconcat (root, "/secret", NULL);
  g_autofree char *dir = scratch_dir ();
  g_autofree char *file = g_build_filename (dir, "auth", NULL);
  g_autofree char *bad_file = g_build_filename (dir, "bad", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autofree char *file_arg = g_strconcat ("--auth-file=", file, NULL);
  g_autofree char *bad_arg = g_strconcat ("--auth-file=", bad_file, NULL);
  g_autofree char *missing_arg = g_strconcat ("--auth-file=", missing, NULL);
  const ZkrAclEntry creator_only[] = { { ZKR_PERM_ALL, "auth", "" } };
  ZkrCreateOptions only_owner = { .acl = creator_only, .n_acl = 1,
                                  .parents = ZKR_CREATE_PARENTS_CONTAINER };
  const char *const env_auth[] = { "ZKR_AUTH=" AUTH_USER ":" AUTH_SECRET, NULL };
  const char *const env_bad[] = { "ZKR_AUTH=" AUTH_USER ":wrong", NULL };
  g_autoptr (GError) error = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (owner);
  CU_ASSERT_TRUE_FATAL (zkr_node_create_full (owner, node, "hidden", 6, &only_owner, 10000,
                                              NULL, NULL, NULL, &error));
  CU_ASSERT_TRUE (g_file_set_contents (file, AUTH_USER ":" AUTH_SECRET "\n", -1, NULL));
  CU_ASSERT_TRUE (g_file_set_contents (bad_file, "no-colon-" AUTH_SECRET "\n", -1, NULL));
  {
    g_autofree char *out = NULL, *err = NULL;

    CU_ASSERT_EQUAL (zkr_run (&out, &err, "get", file_arg, node), 0);
    CU_ASSERT_STRING_EQUAL (out != NULL ? out : "", "hidden");
    CU_ASSERT_EQUAL (text_index (err, AUTH_SECRET), -1);
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *const args[] = { zkr_path (), "get", node, NULL };
    g_autoptr (Proc) proc = proc_spawn (args, env_auth);

    CU_ASSERT_EQUAL (proc != NULL ? proc_finish (proc, WAIT_MS, &out, &err) : -1, 0);
    CU_ASSERT_STRING_EQUAL (out != NULL ? out : "", "hidden");
    CU_ASSERT_EQUAL (text_index (err, AUTH_SECRET), -1);
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *const args[] = { zkr_path (), "get", node, NULL };
    g_autoptr (Proc) proc = proc_spawn (args, env_bad);

    CU_ASSERT_EQUAL (proc != NULL ? proc_finish (proc, WAIT_MS, &out, &err) : -1, 77);
    CU_ASSERT_EQUAL (text_index (err, "wrong"), -1);
  }
  {
    g_autofree char *out = NULL, *err = NULL;

    CU_ASSERT_EQUAL (zkr_run (&out, &err, "get", node), 77);
  }
  {
    /* On the command line: it works, with a warning, and the command line
     * zkr's child reads back holds stars, not the password. */
    g_autofree char *out = NULL, *err = NULL;
    g_autofree char *lock = g_strconcat (root, "/lock", NULL);

    CU_ASSERT_EQUAL (zkr_run (&out, &err, "lock", "--auth=" AUTH_USER ":" AUTH_SECRET, lock,
                              "--", "sh", "-c", "tr '\\0' ' ' < /proc/$PPID/cmdline"), 0);
    CU_ASSERT_NOT_EQUAL (text_index (out, "--auth=****"), -1);
    CU_ASSERT_EQUAL (text_index (out, AUTH_SECRET), -1);
    CU_ASSERT_NOT_EQUAL (text_index (err, "warning: --auth"), -1);
    CU_ASSERT_EQUAL (text_index (err, AUTH_SECRET), -1);
  }
  {
    g_autofree char *out = NULL, *err = NULL;

    CU_ASSERT_EQUAL (zkr_run (&out, &err, "get", bad_arg, node), 64);
    CU_ASSERT_NOT_EQUAL (text_index (err, "--auth-file"), -1);
    CU_ASSERT_EQUAL (text_index (err, AUTH_SECRET), -1);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    CU_ASSERT_EQUAL (zkr_run (&out, &err, "get", missing_arg, node), 64);
    CU_ASSERT_NOT_EQUAL (text_index (err, missing), -1);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    CU_ASSERT_EQUAL (zkr_run (&out, &err, "get", file_arg, "--auth=" AUTH_USER ":x", node), 64);
  }
  scratch_dir_remove (dir);
  itest_cleanup_root (owner, NULL, root);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_cli__node_get_set_and_create_round_trip_with_json),
  ZKR_TEST_CASE (test_cli__node_data_is_binary_safe),
  ZKR_TEST_CASE (test_cli__node_ls_and_rm_walk_the_tree),
  ZKR_TEST_CASE (test_cli__node_create_modes_and_namespace),
  ZKR_TEST_CASE (test_cli__node_bad_input_names_the_value_and_exits_64),
  ZKR_TEST_CASE (test_cli__fenced_writes_land_while_held_and_exit_70_once_the_node_is_gone),
  ZKR_TEST_CASE (test_cli__watch_prints_each_change_and_exits_0_on_sigterm),
  ZKR_TEST_CASE (test_cli__watch_json_carries_the_node_as_read_again),
  ZKR_TEST_CASE (test_cli__watch_says_session_lost_and_reads_again),
  ZKR_TEST_CASE (test_cli__credentials_from_a_file_or_the_environment_never_shown),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "cli-node", NULL, NULL, tests);
}
