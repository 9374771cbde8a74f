/* zkr integration: the zkr command-line tool against the real ensemble,
 * run as a user runs it (a subprocess): exclusion between processes, exit
 * codes, fencing tokens in CMD's environment, CMD stopped when the lock is
 * lost (node deleted, session expired, client partitioned), signals, the
 * holders listing and elections (the node and watch commands:
 * test-cli-node.c; zkr-bench, no longer a command: test-cli-bench.c).
 * This program doubles as the CMD the tests lock (--cmd-hold), which
 * records monotonic timestamps. */

#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/CUnit.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "cli-proc.h"
#include "itest.h"
#include "proxy.h"
#include "zkr-test.h"

#define WAIT_MS CLI_WAIT_MS

static char *self_path;

/* ---- CMD: the helper the tests run under the lock ------------------------ */

static gboolean
stamp_write (const char *dir, const char *name, const char *extra)
{
  g_autofree char *file = g_build_filename (dir, name, NULL);
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT "\n%s", g_get_monotonic_time (),
                                           extra != NULL ? extra : "");

  return g_file_set_contents (file, text, -1, NULL);
}

/* Writes DIR/start (monotonic µs, then the ZKR_ variables), waits for
 * SIGTERM or SIGINT, writes DIR/stop and exits 0. */
static int
cmd_hold (const char *dir)
{
  g_autofree char *env = NULL;
  sigset_t set;
  int signo = 0;

  sigemptyset (&set);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGINT);
  sigprocmask (SIG_BLOCK, &set, NULL);
  /* If zkr dies (a failed test), end too rather than linger. */
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  env = g_strdup_printf ("%s\n%s\n%s\n", g_getenv ("ZKR_FENCING_TOKEN"),
                         g_getenv (g_getenv ("ZKR_LATCH_NODE") != NULL ? "ZKR_LATCH_NODE"
                                                                       : "ZKR_LOCK_NODE"),
                         g_getenv ("ZKR_SESSION_ID"));
  if (!stamp_write (dir, "start", env))
    return 3;
  sigwait (&set, &signo);
  return stamp_write (dir, "stop", signo == SIGTERM ? "TERM\n" : "INT\n") ? 0 : 4;
}

/* Writes DIR/start, then ignores SIGTERM and waits forever: only SIGKILL
 * stops it. */
static int
cmd_stubborn (const char *dir)
{
  signal (SIGTERM, SIG_IGN);
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (!stamp_write (dir, "start", "\n\n\n"))
    return 3;
  for (;;)
    pause ();
}

/* Records one term of `zkr elect`: writes DIR/stint-PID with "START END
 * TOKEN ID" (monotonic µs around a short pause, ZKR_FENCING_TOKEN,
 * ZKR_LEADER_ID) and exits 0. */
static int
cmd_stint (const char *dir)
{
  g_autofree char *name = g_strdup_printf ("stint-%ld", (long) getpid ());
  g_autofree char *file = g_build_filename (dir, name, NULL);
  g_autofree char *text = NULL;
  gint64 start = g_get_monotonic_time (), end;

  prctl (PR_SET_PDEATHSIG, SIGTERM);
  g_usleep (100000);
  end = g_get_monotonic_time ();
  text = g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s %s\n", start, end,
                          g_getenv ("ZKR_FENCING_TOKEN"), g_getenv ("ZKR_LEADER_ID"));
  return g_file_set_contents (file, text, -1, NULL) ? 0 : 3;
}

/* ---- running zkr ------------------------------------------------------- */

static gboolean
file_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

/* The first line of DIR/NAME as an integer (a timestamp), 0 if absent. */
static gint64
stamp_read (const char *dir, const char *name, char ***lines)
{
  g_autofree char *file = g_build_filename (dir, name, NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) split = NULL;

  if (!g_file_get_contents (file, &text, NULL, NULL))
    return 0;
  split = g_strsplit (text, "\n", -1);
  if (lines != NULL)
    *lines = g_strdupv (split);
  return g_ascii_strtoll (split[0], NULL, 10);
}

/* Waits for DIR/NAME to be written; its stamp, 0 on timeout. */
static gint64
stamp_wait (const char *dir, const char *name, char ***lines)
{
  g_autofree char *file = g_build_filename (dir, name, NULL);

  if (!itest_wait_for (file_exists, file, WAIT_MS))
    return 0;
  return stamp_read (dir, name, lines);
}

/* ---- tests ------------------------------------------------------------ */

static void
test_cli__bad_arguments_print_usage_and_exit_64 (void)
{
  const char *const cases[][6] = {
    { NULL },
    { "frobnicate", NULL },
    { "lock", NULL },
    { "lock", "/zkr-it/x", NULL },
    { "lock", "/zkr-it/x", "--", NULL },
    { "lock", "--bogus", "/zkr-it/x", "--", "true", NULL },
    { "lock", "--on-loss=later", "/zkr-it/x", "--", "true", NULL },
    { "lock", "--shared", "--semaphore=2", "/zkr-it/x", "--", "true" },
    { "lock", "--timeout=-3", "/zkr-it/x", "--", "true", NULL },
    { "lock", "/zkr-it/x", "extra", "--", "true", NULL },
    { "lock", "--auth=nocolon", "/zkr-it/x", "--", "true", NULL },
    { "lock", "relative/path", "--", "true", NULL },
    { "elect", NULL },
    { "elect", "/zkr-it/x", NULL },
    { "elect", "/zkr-it/x", "--", NULL },
    { "elect", "--timeout=0", "/zkr-it/x", "--", "true", NULL },
    { "elect", "--id=", "/zkr-it/x", "--", "true", NULL },
    { "elect", "--on-loss=later", "/zkr-it/x", "--", "true", NULL },
    { "elect", "relative/path", "--", "true", NULL },
    { "holders", NULL },
    { "holders", "/a", "/b", NULL },
    /* zkr-bench, a program of its own now (never installed). */
    { "bench", "--impl=mutex", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *args[7] = { 0 };

      for (int j = 0; j < 6 && cases[i][j] != NULL; j++)
        args[j] = cases[i][j];
      CU_ASSERT_EQUAL (zkr_run_v (args, &out, &err), 64);
      CU_ASSERT_PTR_NOT_NULL (err != NULL ? strstr (err, "Usage") : NULL);
      CU_ASSERT_STRING_EQUAL (out != NULL ? out : "", "");
    }
}

static void
test_cli__every_command_has_help (void)
{
  const char *commands[] = { "lock", "elect", "holders", "get", "set", "ls", "rm", "create",
                             "watch" };
  g_autofree char *top = NULL;

  CU_ASSERT_EQUAL (zkr_run (&top, NULL, "--help"), 0);
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *out = NULL;

      CU_ASSERT_PTR_NOT_NULL (top != NULL ? strstr (top, commands[i]) : NULL);
      CU_ASSERT_EQUAL (zkr_run (&out, NULL, commands[i], "--help"), 0);
      CU_ASSERT_PTR_NOT_NULL (out != NULL ? strstr (out, "--hosts") : NULL);
      CU_ASSERT_PTR_NOT_NULL (out != NULL ? strstr (out, "\nEXIT STATUS\n") : NULL);
    }
}

static void
test_cli__lock_passes_the_commands_exit_status (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-status");
  g_autofree char *sem_path = itest_scratch_path ("cli-status-sem");
  g_autofree char *leases = g_strconcat (sem_path, "/leases", NULL);
  g_autofree char *locks = g_strconcat (sem_path, "/locks", NULL);

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", path, "--", "true"), 0);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", path, "--", "sh", "-c", "exit 7"), 7);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", "--shared", path, "--", "sh", "-c", "exit 5"), 5);
  /* Died of SIGTERM: 128 + 15, as a shell reports it. */
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", path, "--", "sh", "-c", "kill -TERM $$"), 143);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", path, "--", "/nonexistent/command"), 127);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "lock", "--semaphore=2", sem_path, "--", "sh", "-c",
                            "exit 6"), 6);
  CU_ASSERT_EQUAL (itest_count_children (session, leases), 0);
  CU_ASSERT_EQUAL (itest_count_children (session, locks), 0);
  itest_assert_path_clean (session, path);
  itest_assert_path_clean (session, sem_path);
  zkr_session_unref (session);
}

static void
test_cli__timeout_exits_75_with_one_line (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-timeout");
  g_autofree char *err = NULL, *quiet_err = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrMutex) holder = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  holder = zkr_mutex_new (session, path, &error);
  CU_ASSERT_TRUE_FATAL (holder != NULL && zkr_mutex_acquire (holder, 10000, NULL, &error));
  CU_ASSERT_EQUAL (zkr_run (NULL, &err, "lock", "--timeout=0.5", path, "--", "true"), 75);
  CU_ASSERT_PTR_NOT_NULL (err != NULL ? strstr (err, "timed out") : NULL);
  CU_ASSERT_PTR_NOT_NULL (err != NULL ? strchr (err, '\n') : NULL);
  if (err != NULL && strchr (err, '\n') != err + strlen (err) - 1)
    g_printerr ("zkr lock --timeout=0.5 printed more than one line:\n%s", err);
  CU_ASSERT_TRUE (err != NULL && strchr (err, '\n') == err + strlen (err) - 1);
  CU_ASSERT_EQUAL (zkr_run (NULL, &quiet_err, "lock", "-q", "--timeout=0", path, "--", "true"), 75);
  CU_ASSERT_STRING_EQUAL (quiet_err != NULL ? quiet_err : "?", "");
  /* The waiters left the queue: only the holder's node remains. */
  CU_ASSERT_EQUAL (itest_count_children (session, path), 1);
  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

#define PROCESSES 6
#define ROUNDS 10

/* Each round: an unprotected read-modify-write of a counter file, and a
 * fenced log: the token must exceed the last one logged. */
static const char rmw_script[] =
  "n=$(cat \"$DIR/counter\"); last=$(tail -n 1 \"$DIR/tokens\"); "
  "[ \"$ZKR_FENCING_TOKEN\" -gt \"$last\" ] || echo \"$ZKR_FENCING_TOKEN <= $last\" >> \"$DIR/bad\"; "
  "sleep 0.01; echo $((n + 1)) > \"$DIR/counter\"; echo \"$ZKR_FENCING_TOKEN\" >> \"$DIR/tokens\"";

static const char loop_script[] =
  "i=0; while [ $i -lt $ROUNDS ]; do "
  "\"$ZKR\" lock \"$LOCK\" -- sh -c \"$RMW\" || exit 1; i=$((i + 1)); done";

static void
test_cli__processes_exclude_each_other_and_tokens_increase (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-exclusion");
  g_autofree char *dir = scratch_dir ();
  g_autofree char *counter_file = g_build_filename (dir, "counter", NULL);
  g_autofree char *tokens_file = g_build_filename (dir, "tokens", NULL);
  g_autofree char *bad_file = g_build_filename (dir, "bad", NULL);
  g_autofree char *counter = NULL, *tokens = NULL;
  g_autofree char *zkr_env = g_strconcat ("ZKR=", zkr_path (), NULL);
  g_autofree char *lock_env = g_strconcat ("LOCK=", path, NULL);
  g_autofree char *dir_env = g_strconcat ("DIR=", dir, NULL);
  g_autofree char *rmw_env = g_strconcat ("RMW=", rmw_script, NULL);
  g_autofree char *rounds_env = g_strdup_printf ("ROUNDS=%d", ROUNDS);
  const char *env[] = { zkr_env, lock_env, dir_env, rmw_env, rounds_env, NULL };
  const char *argv[] = { "sh", "-c", loop_script, NULL };
  Proc *procs[PROCESSES];
  g_auto (GStrv) lines = NULL;
  gint64 last = 0;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (g_file_set_contents (counter_file, "0\n", -1, NULL));
  CU_ASSERT_TRUE_FATAL (g_file_set_contents (tokens_file, "0\n", -1, NULL));
  for (int i = 0; i < PROCESSES; i++)
    procs[i] = proc_spawn (argv, env);
  for (int i = 0; i < PROCESSES; i++)
    {
      CU_ASSERT_PTR_NOT_NULL_FATAL (procs[i]);
      CU_ASSERT_EQUAL (proc_finish (procs[i], 300000, NULL, NULL), 0);
      proc_free (procs[i]);
    }
  /* No lost update, and every holder's token above the previous one's. */
  CU_ASSERT_TRUE (g_file_get_contents (counter_file, &counter, NULL, NULL));
  CU_ASSERT_EQUAL (g_ascii_strtoll (counter, NULL, 10), PROCESSES * ROUNDS);
  CU_ASSERT_FALSE (g_file_test (bad_file, G_FILE_TEST_EXISTS));
  CU_ASSERT_TRUE (g_file_get_contents (tokens_file, &tokens, NULL, NULL));
  lines = g_strsplit (tokens, "\n", -1);
  CU_ASSERT_EQUAL (g_strv_length (lines), PROCESSES * ROUNDS + 2);
  for (guint i = 1; lines[i] != NULL && *lines[i] != '\0'; i++)
    {
      gint64 token = g_ascii_strtoll (lines[i], NULL, 10);

      CU_ASSERT_TRUE (token > last);
      last = token;
    }
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  itest_assert_path_clean (session, path);
  scratch_dir_remove (dir);
  zkr_session_unref (session);
}

/* Starts `zkr @command @option @value [@extra] PATH -- self --cmd-hold
 * DIR`; it does not wait for CMD to run (stamp_wait DIR/start does). */
static Proc *
start_hold (const char *command, const char *option, const char *value, const char *extra,
            const char *path, const char *dir)
{
  const char *args[12] = { command, option, value };
  guint n = 3;

  if (extra != NULL)
    args[n++] = extra;
  args[n++] = path;
  args[n++] = "--";
  args[n++] = self_path;
  args[n++] = "--cmd-hold";
  args[n++] = dir;
  return zkr_spawn_v (args);
}

/* `zkr lock --hosts HOSTS [@extra] PATH -- self --cmd-hold DIR`. */
static Proc *
start_holder (const char *path, const char *dir, const char *hosts, const char *extra)
{
  return start_hold ("lock", "--hosts", hosts, extra, path, dir);
}

/* Asserts that zkr lost its lock or leadership: it exits 70 saying
 * @message on stderr, after CMD got SIGTERM. Returns CMD's stop stamp. */
static gint64
assert_lost_and_cmd_stopped (Proc *proc, const char *dir, const char *message)
{
  g_autofree char *err = NULL;
  g_auto (GStrv) stop = NULL;
  gint64 stopped;

  int status = proc_finish (proc, WAIT_MS, NULL, &err);

  if (status != 70)
    g_printerr ("zkr exited %d, not 70; its stderr: %s\n", status, err != NULL ? err : "(none)");
  CU_ASSERT_EQUAL (status, 70);
  CU_ASSERT_PTR_NOT_NULL (err != NULL ? strstr (err, message) : NULL);
  stopped = stamp_read (dir, "stop", &stop);
  CU_ASSERT_TRUE (stopped > 0);
  CU_ASSERT_TRUE (stop != NULL && g_strcmp0 (stop[1], "TERM") == 0);
  return stopped;
}

/* Ends @n CMDs that are running or about to (SIGTERM to their zkr, which
 * must pass CMD's 0 on), and removes their scratch dirs. */
static void
stop_holders (Proc **procs, char **dirs, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      CU_ASSERT_TRUE (stamp_wait (dirs[i], "start", NULL) > 0);
      proc_signal (procs[i], SIGTERM);
      CU_ASSERT_EQUAL (proc_finish (procs[i], WAIT_MS, NULL, NULL), 0);
      proc_free (procs[i]);
      scratch_dir_remove (dirs[i]);
      g_free (dirs[i]);
    }
}

static void
test_cli__deleted_lock_node_stops_the_command_and_exits_70 (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-node-lost");
  g_autofree char *dir = scratch_dir ();
  g_autoptr (Proc) proc = NULL;
  g_auto (GStrv) env = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  proc = start_holder (path, dir, itest_hosts (), NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (stamp_wait (dir, "start", &env) > 0);
  CU_ASSERT_TRUE_FATAL (g_strv_length (env) >= 4);
  CU_ASSERT_TRUE (g_ascii_strtoll (env[1], NULL, 10) > 0);
  /* From outside: the lock node goes; the lock is lost. */
  CU_ASSERT_EQUAL (zkr__op_delete_sync (session, env[2], -1), ZOK);
  assert_lost_and_cmd_stopped (proc, dir, "lock lost");
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  itest_assert_path_clean (session, path);
  scratch_dir_remove (dir);
  zkr_session_unref (session);
}

/* A CMD that ignores SIGTERM gets SIGKILL after the grace period. */
static void
test_cli__command_ignoring_sigterm_is_killed_when_the_lock_is_lost (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-stubborn");
  g_autofree char *dir = scratch_dir ();
  g_autofree char *err = NULL;
  g_autoptr (Proc) proc = NULL;
  g_autoptr (GPtrArray) children = NULL;
  g_autofree char *node = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  proc = zkr_spawn ("lock", path, "--", self_path, "--cmd-stubborn", dir);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (stamp_wait (dir, "start", NULL) > 0);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_get_children (session, path, &children), ZOK);
  CU_ASSERT_EQUAL_FATAL (children->len, 1);
  node = g_strconcat (path, "/", (char *) children->pdata[0], NULL);
  CU_ASSERT_EQUAL (zkr__op_delete_sync (session, node, -1), ZOK);
  CU_ASSERT_EQUAL (proc_finish (proc, WAIT_MS, NULL, &err), 70);
  CU_ASSERT_PTR_NOT_NULL (err != NULL ? strstr (err, "lock lost") : NULL);
  CU_ASSERT_PTR_NOT_NULL (err != NULL ? strstr (err, "sending SIGKILL") : NULL);
  itest_assert_path_clean (session, path);
  scratch_dir_remove (dir);
  zkr_session_unref (session);
}

/* The session expires on the server while zkr is stopped (SIGSTOP: it
 * cannot even notice); once resumed it hears the expiry or its own safe
 * deadline, stops CMD and exits 70. The session id in CMD's environment is
 * the one the holders listing shows. */
static void
test_cli__expired_session_stops_the_command_and_exits_70 (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-expired");
  g_autofree char *dir = scratch_dir ();
  g_autofree char *json = NULL;
  g_autoptr (Proc) proc = NULL;
  g_auto (GStrv) env = NULL;
  pid_t pid;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  proc = start_holder (path, dir, itest_hosts (), "--session-timeout=2");
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (stamp_wait (dir, "start", &env) > 0);
  CU_ASSERT_TRUE_FATAL (g_strv_length (env) >= 4);
  CU_ASSERT_EQUAL (zkr_run (&json, NULL, "holders", "--json", path), 0);
  CU_ASSERT_PTR_NOT_NULL (json != NULL ? strstr (json, env[3]) : NULL);
  pid = proc->pid;
  CU_ASSERT_EQUAL (kill (pid, SIGSTOP), 0);
  /* The ephemeral node goes when the server expires the session. */
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  CU_ASSERT_EQUAL (kill (pid, SIGCONT), 0);
  assert_lost_and_cmd_stopped (proc, dir, "lock lost");
  itest_assert_path_clean (session, path);
  scratch_dir_remove (dir);
  zkr_session_unref (session);
}

/* The holder is cut off behind the proxy; the second zkr waits on the
 * ensemble directly. The holder's CMD must have stopped before the second
 * CMD starts (monotonic stamps, one clock for both processes). */
static void
test_cli__partitioned_holder_stops_before_the_next_command_starts (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-partition");
  g_autofree char *dir1 = scratch_dir ();
  g_autofree char *dir2 = scratch_dir ();
  g_autofree char *address = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (Proc) holder = NULL;
  g_autoptr (Proc) next = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  gint64 holder_stopped, next_started;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  address = zkr_test_proxy_dup_address (proxy);
  holder = start_holder (path, dir1, address, "--session-timeout=3");
  CU_ASSERT_PTR_NOT_NULL_FATAL (holder);
  CU_ASSERT_TRUE_FATAL (stamp_wait (dir1, "start", NULL) > 0);
  next = start_holder (path, dir2, itest_hosts (), NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (next);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 2, WAIT_MS));

  zkr_test_proxy_blackhole (proxy);
  holder_stopped = assert_lost_and_cmd_stopped (holder, dir1, "lock lost");
  next_started = stamp_wait (dir2, "start", NULL);
  CU_ASSERT_TRUE (next_started > 0);
  CU_ASSERT_TRUE (holder_stopped < next_started);

  /* SIGTERM to zkr reaches CMD; CMD's status (0) is zkr's; released. */
  proc_signal (next, SIGTERM);
  CU_ASSERT_EQUAL (proc_finish (next, WAIT_MS, NULL, NULL), 0);
  CU_ASSERT_TRUE (stamp_wait (dir2, "stop", NULL) > 0);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_test_proxy_heal (proxy);
  zkr_test_proxy_free (proxy);
  itest_assert_path_clean (session, path);
  scratch_dir_remove (dir1);
  scratch_dir_remove (dir2);
  zkr_session_unref (session);
}

static void
test_cli__interrupt_while_waiting_leaves_the_queue (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-interrupt");
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrMutex) holder = NULL;
  g_autoptr (Proc) waiter = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  holder = zkr_mutex_new (session, path, &error);
  CU_ASSERT_TRUE_FATAL (holder != NULL && zkr_mutex_acquire (holder, 10000, NULL, &error));
  waiter = zkr_spawn ("lock", path, "--", "true");
  CU_ASSERT_PTR_NOT_NULL_FATAL (waiter);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 2, WAIT_MS));
  proc_signal (waiter, SIGINT);
  CU_ASSERT_EQUAL (proc_finish (waiter, WAIT_MS, NULL, NULL), 128 + SIGINT);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 1, WAIT_MS));
  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static void
test_cli__holders_lists_the_queue_in_order (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-holders");
  char *dirs[3] = { scratch_dir (), scratch_dir (), scratch_dir () };
  g_autofree char *json = NULL, *table = NULL, *empty = NULL;
  Proc *procs[3];
  g_auto (GStrv) env = NULL;
  g_autoptr (GPtrArray) children = NULL;
  g_autofree char *full = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (int i = 0; i < 3; i++)
    {
      procs[i] = start_holder (path, dirs[i], itest_hosts (), NULL);
      CU_ASSERT_PTR_NOT_NULL_FATAL (procs[i]);
      CU_ASSERT_TRUE (itest_wait_for_children (session, path, i + 1, WAIT_MS));
    }
  CU_ASSERT_TRUE_FATAL (stamp_wait (dirs[0], "start", &env) > 0);
  CU_ASSERT_EQUAL (zkr_run (&json, NULL, "holders", "--json", path), 0);
  CU_ASSERT_EQUAL (zkr_run (&table, NULL, "holders", path), 0);
  CU_ASSERT_PTR_NOT_NULL (table != NULL ? strstr (table, "mutex, 1 holding, 2 waiting") : NULL);
  CU_ASSERT_EQUAL (text_index (json, "{\"path\":"), 0);
  CU_ASSERT_TRUE (text_index (json, "\"kind\":\"mutex\"") > 0);
  CU_ASSERT_EQUAL (text_count (json, "\"role\":\"holder\""), 1);
  CU_ASSERT_EQUAL (text_count (json, "\"role\":\"waiter\""), 2);
  /* The holder is listed first, with CMD's session and token. */
  CU_ASSERT_TRUE (text_index (json, "\"role\":\"holder\"") < text_index (json, "\"role\":\"waiter\""));
  CU_ASSERT_TRUE (text_index (json, env[3]) > 0
                  && text_index (json, env[3]) < text_index (json, "\"role\":\"waiter\""));
  full = g_strdup_printf ("\"token\":%s,", env[1]);
  CU_ASSERT_TRUE (text_index (json, full) > 0);
  /* Waiters in queue (sequence) order. */
  CU_ASSERT_EQUAL (zkr__op_test_get_children (session, path, &children), ZOK);
  for (guint i = 0; children != NULL && i < children->len; i++)
    CU_ASSERT_TRUE (text_index (json, children->pdata[i]) > 0);
  CU_ASSERT_TRUE (text_index (json, "lock-0000000000") < text_index (json, "lock-0000000001"));
  CU_ASSERT_TRUE (text_index (json, "lock-0000000001") < text_index (json, "lock-0000000002"));

  stop_holders (procs, dirs, 3);
  CU_ASSERT_EQUAL (zkr_run (&empty, NULL, "holders", "--json", path), 0);
  CU_ASSERT_TRUE (text_index (empty, "\"participants\":[]") > 0);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* Readers share the read lock; a semaphore of 2 admits two of three. */
static void
test_cli__holders_tells_read_locks_and_semaphores (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *rw_path = itest_scratch_path ("cli-holders-rw");
  g_autofree char *sem_path = itest_scratch_path ("cli-holders-sem");
  g_autofree char *leases = g_strconcat (sem_path, "/leases", NULL);
  char *dirs[5] = { scratch_dir (), scratch_dir (), scratch_dir (), scratch_dir (),
                    scratch_dir () };
  g_autofree char *rw_json = NULL, *sem_json = NULL, *sem_json_n = NULL;
  Proc *procs[5];

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (int i = 0; i < 2; i++)
    procs[i] = start_holder (rw_path, dirs[i], itest_hosts (), "--shared");
  for (int i = 2; i < 5; i++)
    {
      procs[i] = start_holder (sem_path, dirs[i], itest_hosts (), "--semaphore=2");
      if (i < 4)
        CU_ASSERT_TRUE (stamp_wait (dirs[i], "start", NULL) > 0);
    }
  for (int i = 0; i < 2; i++)
    CU_ASSERT_TRUE (stamp_wait (dirs[i], "start", NULL) > 0);
  /* The third semaphore client waits with its lease node created. */
  CU_ASSERT_TRUE (itest_wait_for_children (session, leases, 3, WAIT_MS));
  CU_ASSERT_EQUAL (zkr_run (&rw_json, NULL, "holders", "--json", rw_path), 0);
  CU_ASSERT_TRUE (text_index (rw_json, "\"kind\":\"rwlock\"") > 0);
  CU_ASSERT_EQUAL (text_count (rw_json, "\"role\":\"holder\",\"type\":\"read\""), 2);
  CU_ASSERT_EQUAL (zkr_run (&sem_json, NULL, "holders", "--json", sem_path), 0);
  CU_ASSERT_EQUAL (zkr_run (&sem_json_n, NULL, "holders", "--json", "--semaphore=2", sem_path), 0);
  CU_ASSERT_TRUE (text_index (sem_json, "\"kind\":\"semaphore\"") > 0);
  CU_ASSERT_EQUAL (text_count (sem_json, "\"role\":\"holder\",\"type\":\"lease\""), 2);
  CU_ASSERT_EQUAL (text_count (sem_json, "\"role\":\"waiter\",\"type\":\"lease\""), 1);
  CU_ASSERT_EQUAL (text_count (sem_json_n, "\"role\":\"holder\",\"type\":\"lease\""), 2);
  CU_ASSERT_EQUAL (text_count (sem_json_n, "\"role\":\"waiter\",\"type\":\"lease\""), 1);

  stop_holders (procs, dirs, 5);
  itest_assert_path_clean (session, rw_path);
  itest_assert_path_clean (session, sem_path);
  zkr_session_unref (session);
}

/* Node data is the client id: whatever a client wrote comes out as valid
 * JSON (quotes, backslashes and control characters escaped). */
static void
test_cli__holders_json_escapes_client_ids (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-holders-escape");
  g_autofree char *node = g_strconcat (path, "/_c_0-lock-0000000000", NULL);
  const char data[] = "a\"b\\c\nd\001\xc3\xa9";
  g_autofree char *json = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL_FATAL (itest_create_with_retries (session, path, 10000), ZOK);
  CU_ASSERT_EQUAL (zkr__op_test_create (session, node, data, (int) strlen (data), ZOO_EPHEMERAL,
                                        NULL, NULL), ZOK);
  CU_ASSERT_EQUAL (zkr_run (&json, NULL, "holders", "--json", path), 0);
  CU_ASSERT_TRUE (text_index (json, "\"client_id\":\"a\\\"b\\\\c\\nd\\u0001\xc3\xa9\",") > 0);
  CU_ASSERT_TRUE (text_index (json, "\"role\":\"holder\"") > 0);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* ---- zkr elect ---------------------------------------------------------- */

#define ELECTORS 3

typedef struct {
  gint64 start, end, token;
  char *id;
} Stint;

static int
compare_stints (gconstpointer a, gconstpointer b)
{
  const Stint *x = a, *y = b;

  return (x->start > y->start) - (x->start < y->start);
}

/* Three `zkr elect` at once: their CMDs run one at a time (monotonic
 * stamps, one clock for all processes), each term's token above the
 * previous one's, each with its own id. */
static void
test_cli__elect_runs_one_leader_at_a_time_with_increasing_tokens (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-elect");
  g_autofree char *dir = scratch_dir ();
  g_autoptr (GDir) handle = NULL;
  Stint stints[ELECTORS + 1] = { 0 };
  Proc *procs[ELECTORS];
  const char *name;
  int n = 0;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (int i = 0; i < ELECTORS; i++)
    {
      g_autofree char *id = g_strdup_printf ("elector-%d", i);

      procs[i] = zkr_spawn ("elect", "--id", id, path, "--", self_path, "--cmd-stint", dir);
      CU_ASSERT_PTR_NOT_NULL_FATAL (procs[i]);
    }
  for (int i = 0; i < ELECTORS; i++)
    {
      CU_ASSERT_EQUAL (proc_finish (procs[i], WAIT_MS, NULL, NULL), 0);
      proc_free (procs[i]);
    }
  handle = g_dir_open (dir, 0, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (handle);
  while ((name = g_dir_read_name (handle)) != NULL && n <= ELECTORS)
    {
      g_autofree char *file = g_build_filename (dir, name, NULL);
      g_autofree char *text = NULL;
      g_auto (GStrv) fields = NULL;

      CU_ASSERT_TRUE_FATAL (g_file_get_contents (file, &text, NULL, NULL));
      fields = g_strsplit (g_strstrip (text), " ", -1);
      CU_ASSERT_EQUAL_FATAL (g_strv_length (fields), 4);
      stints[n].start = g_ascii_strtoll (fields[0], NULL, 10);
      stints[n].end = g_ascii_strtoll (fields[1], NULL, 10);
      stints[n].token = g_ascii_strtoll (fields[2], NULL, 10);
      stints[n].id = g_strdup (fields[3]);
      n++;
    }
  CU_ASSERT_EQUAL_FATAL (n, ELECTORS);
  qsort (stints, n, sizeof *stints, compare_stints);
  for (int i = 0; i < n; i++)
    {
      CU_ASSERT_TRUE (stints[i].token > 0);
      CU_ASSERT_TRUE (g_str_has_prefix (stints[i].id, "elector-"));
      if (i > 0)
        {
          /* No overlap: the previous CMD ended before this one started. */
          CU_ASSERT_TRUE (stints[i - 1].end < stints[i].start);
          CU_ASSERT_TRUE (stints[i - 1].token < stints[i].token);
          CU_ASSERT_STRING_NOT_EQUAL (stints[i - 1].id, stints[i].id);
        }
    }
  for (int i = 0; i < n; i++)
    g_free (stints[i].id);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  itest_assert_path_clean (session, path);
  scratch_dir_remove (dir);
  zkr_session_unref (session);
}

static void
test_cli__elect_passes_the_status_and_times_out_with_75 (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-elect-status");
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrLeaderLatch) leader = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "elect", path, "--", "sh", "-c", "exit 7"), 7);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "elect", path, "--", "sh", "-c", "kill -TERM $$"), 143);
  CU_ASSERT_EQUAL (zkr_run (NULL, NULL, "elect", path, "--", "/nonexistent/command"), 127);
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "elect", "--id", "the-id", path, "--", "sh", "-c",
                            "echo \"$ZKR_LEADER_ID $ZKR_LATCH_PATH\""), 0);
  CU_ASSERT_TRUE (out != NULL && g_str_has_prefix (out, "the-id /"));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  /* Someone else leads: not leader within the timeout. */
  leader = zkr_leader_latch_new (session, path, "in-process", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leader);
  CU_ASSERT_TRUE (zkr_leader_latch_start (leader, &error));
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (leader, WAIT_MS, NULL, &error));
  CU_ASSERT_EQUAL (zkr_run (NULL, &err, "elect", "--timeout=0.5", path, "--", "true"), 75);
  CU_ASSERT_PTR_NOT_NULL (err != NULL ? strstr (err, "timed out") : NULL);
  /* The timed-out participant left: only the leader's node remains. */
  CU_ASSERT_EQUAL (itest_count_children (session, path), 1);
  CU_ASSERT_TRUE (zkr_leader_latch_close (leader, ZKR_LEADER_CLOSE_SILENT, &error));
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* SIGINT while waiting for leadership: zkr leaves the election at once. */
static void
test_cli__elect_interrupt_while_waiting_leaves_the_election (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-elect-interrupt");
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrLeaderLatch) leader = NULL;
  g_autoptr (Proc) waiter = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  leader = zkr_leader_latch_new (session, path, "in-process", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leader);
  CU_ASSERT_TRUE (zkr_leader_latch_start (leader, &error));
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (leader, WAIT_MS, NULL, &error));
  waiter = zkr_spawn ("elect", path, "--", "true");
  CU_ASSERT_PTR_NOT_NULL_FATAL (waiter);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 2, WAIT_MS));
  proc_signal (waiter, SIGINT);
  CU_ASSERT_EQUAL (proc_finish (waiter, WAIT_MS, NULL, NULL), 128 + SIGINT);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 1, WAIT_MS));
  CU_ASSERT_TRUE (zkr_leader_latch_has_leadership (leader));
  CU_ASSERT_TRUE (zkr_leader_latch_close (leader, ZKR_LEADER_CLOSE_SILENT, &error));
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* `zkr elect --id ID [@extra] PATH -- self --cmd-hold DIR`. */
static Proc *
start_leader (const char *path, const char *dir, const char *id, const char *extra)
{
  return start_hold ("elect", "--id", id, extra, path, dir);
}

static void
test_cli__elect_deleted_latch_node_stops_the_command_and_exits_70 (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-elect-deleted");
  g_autofree char *dir = scratch_dir ();
  g_autoptr (Proc) proc = NULL;
  g_auto (GStrv) env = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  proc = start_leader (path, dir, "doomed", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (stamp_wait (dir, "start", &env) > 0);
  CU_ASSERT_TRUE_FATAL (g_strv_length (env) >= 4);
  CU_ASSERT_TRUE (g_ascii_strtoll (env[1], NULL, 10) > 0);
  CU_ASSERT_TRUE (g_str_has_prefix (env[2], path) && strstr (env[2], "-latch-") != NULL);
  /* From outside: the latch node goes; leadership is lost. */
  CU_ASSERT_EQUAL (zkr__op_delete_sync (session, env[2], -1), ZOK);
  assert_lost_and_cmd_stopped (proc, dir, "leadership lost");
  /* The node the latch queued again was removed when zkr left. */
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  itest_assert_path_clean (session, path);
  scratch_dir_remove (dir);
  zkr_session_unref (session);
}

/* SIGSTOP past the session timeout (as for the lock): once resumed, zkr
 * hears the expiry or its own safe deadline, stops CMD and exits 70. */
static void
test_cli__elect_expired_session_stops_the_command_and_exits_70 (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-elect-expired");
  g_autofree char *dir = scratch_dir ();
  g_autoptr (Proc) proc = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  proc = start_leader (path, dir, "sleeper", "--session-timeout=2");
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (stamp_wait (dir, "start", NULL) > 0);
  CU_ASSERT_EQUAL (kill (proc->pid, SIGSTOP), 0);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  CU_ASSERT_EQUAL (kill (proc->pid, SIGCONT), 0);
  assert_lost_and_cmd_stopped (proc, dir, "leadership lost");
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  itest_assert_path_clean (session, path);
  scratch_dir_remove (dir);
  zkr_session_unref (session);
}

/* `zkr holders --json` on an election: the leader first, then the others
 * in queue order, with their ids. */
static void
test_cli__holders_lists_the_leader_first (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-elect-holders");
  char *dirs[2] = { scratch_dir (), scratch_dir () };
  const char *ids[2] = { "first-leader", "second-in-line" };
  g_autofree char *json = NULL, *token = NULL;
  g_auto (GStrv) env = NULL;
  Proc *procs[2];

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  procs[0] = start_leader (path, dirs[0], ids[0], NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (procs[0]);
  CU_ASSERT_TRUE_FATAL (stamp_wait (dirs[0], "start", &env) > 0);
  procs[1] = start_leader (path, dirs[1], ids[1], NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (procs[1]);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 2, WAIT_MS));
  CU_ASSERT_EQUAL (zkr_run (&json, NULL, "holders", "--json", path), 0);
  CU_ASSERT_TRUE (text_index (json, "\"kind\":\"latch\"") > 0);
  CU_ASSERT_EQUAL (text_count (json, "\"role\":\"holder\""), 1);
  CU_ASSERT_EQUAL (text_count (json, "\"role\":\"waiter\""), 1);
  CU_ASSERT_TRUE (text_index (json, "\"role\":\"holder\"") < text_index (json, "\"role\":\"waiter\""));
  CU_ASSERT_TRUE (text_index (json, ids[0]) > 0
                  && text_index (json, ids[0]) < text_index (json, "\"role\":\"waiter\""));
  CU_ASSERT_TRUE (text_index (json, ids[1]) > text_index (json, "\"role\":\"waiter\""));
  token = g_strdup_printf ("\"token\":%s,", env[1]);
  CU_ASSERT_TRUE (text_index (json, token) > 0);

  /* The leader ends; the second takes over; both leave. */
  stop_holders (procs, dirs, 2);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* ---- --timeout counts the connect -------------------------------------- */

/* A listening socket nobody accepts on: the kernel completes every TCP
 * handshake, and what the client sends is never answered, as from a hung
 * server, a TLS port or another service. Returns its "127.0.0.1:PORT"
 * (transfer full) and its descriptor in *@fd. */
static char *
mute_listener_new (int *fd)
{
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof addr;

  *fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  CU_ASSERT_TRUE_FATAL (*fd >= 0);
  CU_ASSERT_EQUAL_FATAL (bind (*fd, (struct sockaddr *) &addr, sizeof addr), 0);
  CU_ASSERT_EQUAL_FATAL (listen (*fd, 64), 0);
  CU_ASSERT_EQUAL_FATAL (getsockname (*fd, (struct sockaddr *) &addr, &len), 0);
  return g_strdup_printf ("127.0.0.1:%u", ntohs (addr.sin_port));
}

/* Every command with --timeout counts its connect in it: against a server
 * that accepts and never answers, --timeout 2 exits 75 (not done within
 * --timeout), not 69 once the 15 s connection timeout passed. How long
 * each took is printed, not asserted. */
static void
test_cli__timeout_counts_the_connect (void)
{
  int fd;
  g_autofree char *mute = mute_listener_new (&fd);
  const char *const runs[][14] = {
    { "get", "--hosts", mute, "--timeout", "2", "/zkr-it/mute", NULL },
    { "ls", "--hosts", mute, "--timeout", "2", "/zkr-it/mute", NULL },
    { "set", "--hosts", mute, "--timeout", "2", "/zkr-it/mute", "x", NULL },
    { "members", "--hosts", mute, "--timeout", "2", "/zkr-it/mute", NULL },
    { "watch", "--hosts", mute, "--timeout", "2", "/zkr-it/mute", NULL },
    { "counter", "--hosts", mute, "--timeout", "2", "/zkr-it/mute", NULL },
    { "lock", "--hosts", mute, "--timeout", "2", "/zkr-it/mute", "--", "true", NULL },
    { "elect", "--hosts", mute, "--timeout", "2", "/zkr-it/mute", "--", "true", NULL },
    { "barrier", "--hosts", mute, "--timeout", "2", "wait", "/zkr-it/mute", NULL },
    { "barrier", "--hosts", mute, "--timeout", "2", "--members", "2", "/zkr-it/mute", "--",
      "true", NULL },
    { "register", "--hosts", mute, "--timeout", "2", "--address", "localhost", "--port",
      "1", "mute", "--", "true", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      g_autofree char *err = NULL;
      gint64 started = g_get_monotonic_time ();
      int status = zkr_run_v (runs[i], NULL, &err);

      g_print ("  zkr %s --timeout 2 on a mute server: exit %d after %.1f s\n", runs[i][0], status,
               (g_get_monotonic_time () - started) / 1e6);
      if (status != 75)
        g_printerr ("%s", err != NULL ? err : "(nothing on stderr)\n");
      CU_ASSERT_EQUAL (status, 75);
    }
  close (fd);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_cli__bad_arguments_print_usage_and_exit_64),
  ZKR_TEST_CASE (test_cli__every_command_has_help),
  ZKR_TEST_CASE (test_cli__lock_passes_the_commands_exit_status),
  ZKR_TEST_CASE (test_cli__timeout_exits_75_with_one_line),
  ZKR_TEST_CASE (test_cli__timeout_counts_the_connect),
  ZKR_TEST_CASE (test_cli__processes_exclude_each_other_and_tokens_increase),
  ZKR_TEST_CASE (test_cli__deleted_lock_node_stops_the_command_and_exits_70),
  ZKR_TEST_CASE (test_cli__command_ignoring_sigterm_is_killed_when_the_lock_is_lost),
  ZKR_TEST_CASE (test_cli__expired_session_stops_the_command_and_exits_70),
  ZKR_TEST_CASE (test_cli__partitioned_holder_stops_before_the_next_command_starts),
  ZKR_TEST_CASE (test_cli__interrupt_while_waiting_leaves_the_queue),
  ZKR_TEST_CASE (test_cli__holders_lists_the_queue_in_order),
  ZKR_TEST_CASE (test_cli__holders_tells_read_locks_and_semaphores),
  ZKR_TEST_CASE (test_cli__holders_json_escapes_client_ids),
  ZKR_TEST_CASE (test_cli__elect_runs_one_leader_at_a_time_with_increasing_tokens),
  ZKR_TEST_CASE (test_cli__elect_passes_the_status_and_times_out_with_75),
  ZKR_TEST_CASE (test_cli__elect_interrupt_while_waiting_leaves_the_election),
  ZKR_TEST_CASE (test_cli__elect_deleted_latch_node_stops_the_command_and_exits_70),
  ZKR_TEST_CASE (test_cli__elect_expired_session_stops_the_command_and_exits_70),
  ZKR_TEST_CASE (test_cli__holders_lists_the_leader_first),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--cmd-hold") == 0)
    return cmd_hold (argv[2]);
  if (argc == 3 && strcmp (argv[1], "--cmd-stint") == 0)
    return cmd_stint (argv[2]);
  if (argc == 3 && strcmp (argv[1], "--cmd-stubborn") == 0)
    return cmd_stubborn (argv[2]);
  self_path = g_file_read_link ("/proc/self/exe", NULL);
  return zkr_test_main (argc, argv, "cli", NULL, NULL, tests);
}
