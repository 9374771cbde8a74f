/* zkr integration: revocation from the shell: `zkr lock --revocable` stops
 * its CMD on a `zkr revoke` request as it does on loss (SIGTERM, then
 * SIGKILL after the grace) and exits 79; `zkr revoke PATH [NODE]` and its
 * exit statuses. */
#include <signal.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "cli-proc.h"
#include "itest.h"
#include "zkr-test.h"

#define WAIT_MS CLI_WAIT_MS
#define EXIT_REVOKED 79

/* A revocable `zkr lock` running @script, once it printed "started". */
static Proc *
start_revocable (const char *path, const char *mode, const char *script)
{
  Proc *proc;

  if (mode != NULL)
    proc = zkr_spawn ("lock", "--revocable", mode, path, "--", "sh", "-c", script);
  else
    proc = zkr_spawn ("lock", "--revocable", path, "--", "sh", "-c", script);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE (wait_output (proc->out_path, "started", 1));
  return proc;
}

static void
test_cli_revoke__revocable_lock_stops_cmd_and_exits_79 (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-revoke-term");
  g_autofree char *out = NULL, *err = NULL, *revoke_out = NULL;
  g_autoptr (Proc) proc = NULL;

  proc = start_revocable (path, NULL, "echo started; echo \"$ZKR_LOCK_NODE\"; exec sleep 60");
  CU_ASSERT_EQUAL (zkr_run (&revoke_out, NULL, "revoke", path), 0);
  CU_ASSERT_EQUAL (proc_finish (proc, WAIT_MS, &out, &err), EXIT_REVOKED);
  /* The node asked is the holder's own ($ZKR_LOCK_NODE). */
  CU_ASSERT_TRUE (revoke_out != NULL && revoke_out[0] == '/' &&
                  text_index (out, revoke_out) >= 0);
  CU_ASSERT_TRUE (text_index (err, "lock revoked") >= 0);
  CU_ASSERT_TRUE (text_index (err, "SIGTERM") >= 0);
  /* Released: the queue is empty. */
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* A CMD that ignores SIGTERM gets SIGKILL after the grace. */
static void
test_cli_revoke__cmd_ignoring_sigterm_is_killed (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-revoke-kill");
  g_autofree char *err = NULL;
  g_autoptr (Proc) proc = NULL;

  proc = start_revocable (path, NULL, "trap '' TERM; echo started; while :; do sleep 1; done");
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "revoke", path), 0);
  CU_ASSERT_EQUAL (proc_finish (proc, WAIT_MS, NULL, &err), EXIT_REVOKED);
  CU_ASSERT_TRUE (text_index (err, "SIGKILL") >= 0);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* --shared: the read lock is revocable too, asked by its node. */
static void
test_cli_revoke__shared_lock_revoked_by_node_name (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-revoke-shared");
  g_autoptr (ZkrRwlock) rwlock = NULL;
  g_autoptr (GPtrArray) queue = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (Proc) proc = NULL;
  const char *name;

  proc = start_revocable (path, "--shared", "echo started; exec sleep 60");
  rwlock = zkr_rwlock_new (session, path, &error);
  queue = zkr_rwlock_list_participants (rwlock, NULL, &error);
  CU_ASSERT_TRUE_FATAL (queue != NULL && queue->len == 1);
  name = ((ZkrParticipant *) g_ptr_array_index (queue, 0))->node;
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "revoke", path, name), 0);
  CU_ASSERT_EQUAL (proc_finish (proc, WAIT_MS, NULL, NULL), EXIT_REVOKED);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* A lock that is not revocable keeps its hold: the request is written,
 * nobody stops; zkr lock without --revocable runs its CMD to the end. */
static void
test_cli_revoke__not_revocable_keeps_running (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-revoke-plain");
  g_autofree char *dir = scratch_dir ();
  g_autofree char *go = g_build_filename (dir, "go", NULL);
  g_autofree char *script = g_strdup_printf ("echo started; while [ ! -e '%s' ]; do sleep 0.05; "
                                             "done; exit 3", go);
  g_autofree char *node = NULL;
  g_autoptr (GBytes) data = NULL;
  g_autoptr (Proc) proc = NULL;

  proc = zkr_spawn ("lock", path, "--", "sh", "-c", script);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE (wait_output (proc->out_path, "started", 1));
  CU_ASSERT_EQUAL (zkr_run (&node, NULL, "revoke", path), 0);
  g_strchomp (node);
  data = zkr_node_get (session, node, 10000, NULL, NULL, NULL);
  CU_ASSERT_TRUE (data != NULL && itest_bytes_equal (data, "__REVOKE__"));
  CU_ASSERT_TRUE (g_file_set_contents (go, "", 0, NULL));
  CU_ASSERT_EQUAL (proc_finish (proc, WAIT_MS, NULL, NULL), 3);
  scratch_dir_remove (dir);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static void
test_cli_revoke__exit_statuses (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-revoke-status");
  g_autofree char *err = NULL, *json = NULL;

  CU_ASSERT_EQUAL (zkr_run (NULL, &err, "revoke", path), 66);
  CU_ASSERT_TRUE (text_index (err, path) >= 0);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "revoke", path, "_c_0-lock-0000000000"), 66);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "revoke"), 64);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "revoke", "no-slash"), 64);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "revoke", path, "a", "b"), 64);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", "--revocable", "--semaphore", "2", path, "--",
                            "true"), 64);
  /* --json names the node asked. */
  CU_ASSERT_TRUE (zkr_node_create (session, path, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_PERSISTENT, 10000, NULL, NULL, NULL, NULL));
  g_autofree char *node = g_strdup_printf ("%s/x-lock-0000000007", path);
  CU_ASSERT_TRUE (zkr_node_create (session, node, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, 10000, NULL, NULL, NULL, NULL));
  CU_ASSERT_EQUAL (zkr_run (&json, NULL, "revoke", "--json", path), 0);
  g_autofree char *expected = g_strdup_printf ("{\"node\":\"%s\"}", node);
  CU_ASSERT_TRUE (text_index (json, expected) >= 0);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_cli_revoke__revocable_lock_stops_cmd_and_exits_79),
  ZKR_TEST_CASE (test_cli_revoke__cmd_ignoring_sigterm_is_killed),
  ZKR_TEST_CASE (test_cli_revoke__shared_lock_revoked_by_node_name),
  ZKR_TEST_CASE (test_cli_revoke__not_revocable_keeps_running),
  ZKR_TEST_CASE (test_cli_revoke__exit_statuses),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "cli-revoke", NULL, NULL, tests);
}
