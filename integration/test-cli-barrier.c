/* zkr integration: the barriers from the shell, run as a user runs them
 * (subprocesses): `zkr barrier --members N PATH -- CMD` with N processes
 * (nobody's CMD before all entered, nobody out before all left, CMD's
 * status passed through, a killed member, signals), its timeout, `set`, `remove`
 * and `wait` with their exit statuses, and bad command lines. */
#include <signal.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "cli-proc.h"
#include "itest.h"
#include "zkr-test.h"

#define WAIT_MS CLI_WAIT_MS

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* TRUE while @proc runs (one look, nothing reaped if it does). */
static gboolean
proc_running (Proc *proc)
{
  return proc_finish (proc, 0, NULL, NULL) == -1;
}

/* The wall-clock microseconds a member's CMD wrote to @file (`date
 * +%s%N`: the one clock a shell and this program share), -1 if none. */
static gint64
stamp_us (const char *file)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents (file, &text, NULL, NULL))
    return -1;
  return g_ascii_strtoll (text, NULL, 10) / 1000;
}

/* A member of a double barrier of @members around a CMD that stamps
 * DIR/start.I, prints its member node and session, runs @rest and exits
 * with @status. */
static Proc *
spawn_member (const char *path, const char *members, const char *dir, int i, const char *rest,
              int status)
{
  g_autofree char *script = g_strdup_printf ("date +%%s%%N > '%s/start.%d'; "
                                             "echo \"node $ZKR_BARRIER_NODE\"; "
                                             "echo \"session $ZKR_SESSION_ID\"; %s; exit %d",
                                             dir, i, rest, status);
  Proc *proc = zkr_spawn ("barrier", "--members", members, "--timeout", "60", path, "--", "sh",
                          "-c", script);

  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  return proc;
}

/* Three members: the first two wait for the third; every CMD starts after
 * the third was started; each CMD's status comes back from its zkr. */
static void
test_cli_barrier__members_run_cmd_only_once_all_entered (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-barrier-enter");
  g_autofree char *dir = scratch_dir ();
  g_autofree char *prefix = g_strdup_printf ("node %s/", path);
  const int statuses[3] = { 0, 3, 5 };
  Proc *procs[3] = { NULL };
  gint64 third_started_us;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (int i = 0; i < 2; i++)
    procs[i] = spawn_member (path, "3", dir, i, "true", statuses[i]);
  /* Both in (their member nodes made), neither through. */
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 2, WAIT_MS));
  for (int i = 0; i < 2; i++)
    {
      g_autofree char *start = g_strdup_printf ("%s/start.%d", dir, i);

      CU_ASSERT_FALSE (file_exists (start));
      CU_ASSERT_TRUE (proc_running (procs[i]));
    }
  third_started_us = g_get_real_time ();
  procs[2] = spawn_member (path, "3", dir, 2, "true", statuses[2]);
  for (int i = 0; i < 3; i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *start = g_strdup_printf ("%s/start.%d", dir, i);

      CU_ASSERT_EQUAL (proc_finish (procs[i], WAIT_MS, &out, NULL), statuses[i]);
      CU_ASSERT_TRUE (stamp_us (start) >= third_started_us);
      /* The CMD knew its member node: PATH/<uuid>. */
      CU_ASSERT_EQUAL (text_index (out, prefix), 0);
      CU_ASSERT_EQUAL (text_count (out, "\n"), 2);
      g_clear_pointer (&procs[i], proc_free);
    }
  /* Everybody left: no member, no PATH/ready. */
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  scratch_dir_remove (dir);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* What a member's CMD printed after @label ("node ", "session "), from
 * its output file. (transfer full) (nullable) */
static char *
member_said (Proc *proc, const char *label)
{
  g_autofree char *out = NULL;
  gssize at;

  if (!wait_output (proc->out_path, "\n", 2) ||
      !g_file_get_contents (proc->out_path, &out, NULL, NULL) ||
      (at = text_index (out, label)) < 0)
    return NULL;
  return g_strndup (out + at + strlen (label), strcspn (out + at + strlen (label), "\n"));
}

/* Two members; the fast one's CMD ends at once, the slow one's when told.
 * In its leave, whether it went first or stays last, the fast member
 * watches the only other member node: it must still run then. With
 * @terminate it gets SIGTERM there and exits 128+15 without waiting (its
 * node goes, so the slow one is not held either). */
static void
leave_with_a_slow_member (const char *name, gboolean terminate)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path (name);
  g_autofree char *dir = scratch_dir ();
  g_autofree char *go = g_build_filename (dir, "go", NULL);
  g_autofree char *slow_rest = g_strdup_printf ("while [ ! -e '%s' ]; do sleep 0.05; done", go);
  g_autofree char *fast_session = NULL, *slow_node = NULL;
  g_autoptr (Proc) fast = NULL;
  g_autoptr (Proc) slow = NULL;
  ItestWatchOn watch;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  fast = spawn_member (path, "2", dir, 0, "true", 0);
  slow = spawn_member (path, "2", dir, 1, slow_rest, 0);
  fast_session = member_said (fast, "session 0x");
  slow_node = member_said (slow, "node ");
  CU_ASSERT_FATAL (fast_session != NULL && slow_node != NULL);
  watch.node_path = slow_node;
  watch.session_id = (gint64) g_ascii_strtoull (fast_session, NULL, 16);
  CU_ASSERT_TRUE (itest_wait_for (itest_watch_is_set, &watch, WAIT_MS));
  CU_ASSERT_TRUE (proc_running (fast));
  if (terminate)
    {
      proc_signal (fast, SIGTERM);
      CU_ASSERT_EQUAL (proc_finish (fast, WAIT_MS, NULL, NULL), 128 + SIGTERM);
      CU_ASSERT_TRUE (proc_running (slow));
    }
  CU_ASSERT_TRUE (g_file_set_contents (go, "", 0, NULL));
  CU_ASSERT_EQUAL (proc_finish (slow, WAIT_MS, NULL, NULL), 0);
  CU_ASSERT_EQUAL (proc_finish (fast, WAIT_MS, NULL, NULL), terminate ? 128 + SIGTERM : 0);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  scratch_dir_remove (dir);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static void
test_cli_barrier__nobody_leaves_before_every_member_left (void)
{
  leave_with_a_slow_member ("cli-barrier-leave", FALSE);
}

static void
test_cli_barrier__sigterm_ends_the_wait_to_leave (void)
{
  leave_with_a_slow_member ("cli-barrier-leave-term", TRUE);
}

/* A member killed inside the barrier holds the other only until the
 * server expired its session (its node is ephemeral). */
static void
test_cli_barrier__a_killed_member_counts_no_more_once_expired (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-barrier-killed");
  g_autofree char *dir = scratch_dir ();
  g_autoptr (Proc) doomed = NULL;
  g_autoptr (Proc) survivor = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  /* $PPID of CMD's shell is its zkr. */
  doomed = zkr_spawn ("barrier", "--session-timeout=2", "--members", "2", "--timeout", "60",
                      path, "--", "sh", "-c", "kill -9 $PPID");
  CU_ASSERT_PTR_NOT_NULL_FATAL (doomed);
  survivor = spawn_member (path, "2", dir, 0, "true", 4);
  CU_ASSERT_EQUAL (proc_finish (doomed, WAIT_MS, NULL, NULL), 128 + SIGKILL);
  CU_ASSERT_EQUAL (proc_finish (survivor, WAIT_MS, NULL, NULL), 4);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  scratch_dir_remove (dir);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* Alone in a barrier of 2: 75 after --timeout (also with 0: one try),
 * 128+15 on SIGTERM; CMD never ran and our member node is gone. */
static void
test_cli_barrier__timeout_exits_75_and_leaves_nothing (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-barrier-timeout");
  g_autofree char *dir = scratch_dir ();
  g_autofree char *ran = g_build_filename (dir, "ran", NULL);
  g_autofree char *script = g_strdup_printf ("touch '%s'", ran);
  g_autofree char *err = NULL;
  g_autoptr (Proc) waiting = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (NULL, &err, "barrier", "--members", "2", "--timeout", "1", path,
                            "--", "sh", "-c", script), 75);
  CU_ASSERT_TRUE (text_index (err, path) >= 0);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "barrier", "--members", "2", "--timeout", "0", path,
                            "--", "sh", "-c", script), 75);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  waiting = zkr_spawn ("barrier", "--members", "2", path, "--", "sh", "-c", script);
  CU_ASSERT_PTR_NOT_NULL_FATAL (waiting);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 1, WAIT_MS));
  proc_signal (waiting, SIGTERM);
  CU_ASSERT_EQUAL (proc_finish (waiting, WAIT_MS, NULL, NULL), 128 + SIGTERM);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  CU_ASSERT_FALSE (file_exists (ran));
  scratch_dir_remove (dir);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* The simple barrier: set and remove are idempotent (0), wait passes at
 * once when down, 75 while up, and a waiter passes on remove. */
static void
test_cli_barrier__set_remove_and_wait (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cli-barrier-simple");
  g_autofree char *path = g_strconcat (root, "/deploy", NULL);
  g_autofree char *child = g_strconcat (path, "/foreign", NULL);
  g_autofree char *err = NULL;
  g_autoptr (Proc) waiter = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "barrier", "wait", path), 0);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "barrier", "set", path), 0);
  CU_ASSERT_FALSE (itest_node_absent (session, path));
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "barrier", "set", path), 0);
  CU_ASSERT_EQUAL (zkr_run (NULL, &err, "barrier", "wait", "--timeout", "0.5", path), 75);
  CU_ASSERT_TRUE (text_index (err, path) >= 0);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "barrier", "wait", "--timeout", "0", path), 75);
  waiter = zkr_spawn ("barrier", "wait", path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (waiter);
  /* Someone else's child under the node: remove refuses (67). */
  CU_ASSERT_TRUE (zkr_node_create (session, child, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, 10000, NULL, NULL, NULL, NULL));
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "barrier", "remove", path), 67);
  CU_ASSERT_TRUE (proc_running (waiter));
  CU_ASSERT_TRUE (zkr_node_delete (session, child, -1, 10000, NULL, NULL));
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "barrier", "remove", path), 0);
  CU_ASSERT_EQUAL (proc_finish (waiter, WAIT_MS, NULL, NULL), 0);
  CU_ASSERT_TRUE (itest_node_absent (session, path));
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "barrier", "remove", path), 0);
  itest_delete_tree (session, root);
  itest_assert_path_clean (session, root);
  zkr_session_unref (session);
}

/* Each bad command line exits 64 naming the bad value; nothing is made. */
static void
test_cli_barrier__bad_command_lines_exit_64_naming_the_value (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-barrier-bad");
  g_autofree char *bad_path = g_strconcat (path, "//x", NULL);
  struct {
    const char *args[10];
    const char *named;
  } cases[] = {
    { { "barrier", NULL }, "set|remove|wait" },
    { { "barrier", "--members", "0", path, "--", "true", NULL }, "--members 0" },
    { { "barrier", "--members", "-2", path, "--", "true", NULL }, "-2" },
    { { "barrier", "--members", "many", path, "--", "true", NULL }, "many" },
    { { "barrier", "--members", "2", path, NULL }, "CMD" },
    { { "barrier", "--members", "2", path, "extra", "--", "true", NULL }, "extra" },
    { { "barrier", "--timeout", "-3", "set", path, NULL }, "-3" },
    { { "barrier", "set", path, "--", "true", NULL }, "--members" },
    { { "barrier", "frob", path, NULL }, "set|remove|wait" },
    { { "barrier", "set", "relative", NULL }, "relative" },
    { { "barrier", "set", "/", NULL }, "\"/\"" },
    { { "barrier", "wait", bad_path, NULL }, bad_path },
    { { "barrier", "--members", "2", bad_path, "--", "true", NULL }, bad_path },
  };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;
      int status = zkr_run_v (cases[i].args, NULL, &err);

      if (status != 64 || text_index (err, cases[i].named) < 0)
        g_printerr ("case %zu: status %d, stderr: %s\n", i, status, err);
      CU_ASSERT_EQUAL (status, 64);
      CU_ASSERT_TRUE (text_index (err, cases[i].named) >= 0);
    }
  CU_ASSERT_TRUE (itest_node_absent (session, path));
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_cli_barrier__members_run_cmd_only_once_all_entered),
  ZKR_TEST_CASE (test_cli_barrier__nobody_leaves_before_every_member_left),
  ZKR_TEST_CASE (test_cli_barrier__sigterm_ends_the_wait_to_leave),
  ZKR_TEST_CASE (test_cli_barrier__a_killed_member_counts_no_more_once_expired),
  ZKR_TEST_CASE (test_cli_barrier__timeout_exits_75_and_leaves_nothing),
  ZKR_TEST_CASE (test_cli_barrier__set_remove_and_wait),
  ZKR_TEST_CASE (test_cli_barrier__bad_command_lines_exit_64_naming_the_value),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "cli-barrier", NULL, NULL, tests);
}
