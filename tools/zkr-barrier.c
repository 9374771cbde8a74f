/* zkr barrier: the barriers from the shell. `--members N PATH -- CMD` runs
 * CMD inside a double barrier (enter, CMD, leave; CMD's status passes
 * through); `set|remove|wait PATH` drive a simple barrier. Both are
 * Curator's layouts, so shell and Java members can share a barrier. */

#include <signal.h>

#include <glib-unix.h>

#include "zkr-cli.h"
#include "zkr-guard.h"

/* Not a count anybody gives, so that --members 0 is refused, not ignored. */
#define MEMBERS_UNSET G_MININT

typedef struct {
  ZkrCliRun base;               /* timeout_s: --timeout, -1 none, for each
                                 * call; its deadline bounds the first call
                                 * (the enter, or the verb) */
  const char *path;
  const char *verb;             /* set, remove, wait; NULL: the double barrier */
  int members;                  /* MEMBERS_UNSET: no --members (the simple barrier) */
  ZkrGuard *guard;              /* (owned) the double barrier's CMD */
  gpointer object;              /* the barrier of the call in progress */
  gboolean (*finish) (gpointer object, GAsyncResult *result, GError **error);
  gboolean ok;
  GError *error;                /* (owned) of the call that ran */
  GCancellable *leave_cancel;   /* (owned) (nullable) the leave's, cancelled by a signal */
  int leave_signal;             /* the first signal heard in the leave, 0 none */
} BarrierRun;

/* The signals that end a wait, as the guard forwards them. */
static const int leave_signals[] = { SIGINT, SIGTERM, SIGHUP };

typedef struct {
  BarrierRun *run;
  int signo;
} LeaveSignal;

static int
timeout_ms_of (BarrierRun *run)
{
  return run->base.timeout_s < 0 ? -1 : (int) MIN (run->base.timeout_s * 1000, G_MAXINT);
}

/* The first call's: what the connect left of --timeout. */
static int
first_timeout_ms_of (BarrierRun *run)
{
  return run->base.deadline != 0 ? zkr_cli_left_ms (run->base.deadline) : timeout_ms_of (run);
}

static void
on_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  BarrierRun *run = user_data;

  (void) source;
  run->ok = run->finish (run->object, result, &run->error);
  g_main_loop_quit (run->base.loop);
}

/* Runs the main loop until the call answers, so that a signal (the
 * guard's cancellable) cancels it. */
static gboolean
await_call (BarrierRun *run)
{
  g_main_loop_run (run->base.loop);
  return run->ok;
}

static int
call_failed (BarrierRun *run, const char *what)
{
  int signo = run->leave_signal != 0 ? run->leave_signal
              : run->guard != NULL ? zkr_guard_get_signal (run->guard) : 0;

  if (signo != 0)
    return 128 + signo;
  if (g_error_matches (run->error, ZKR_ERROR, ZKR_ERROR_TIMEOUT))
    {
      zkr_cli_note (&run->base.cli, "timed out after %g s: %s %s", run->base.timeout_s, what,
                    run->path);
      return ZKR_EXIT_TIMEOUT;
    }
  zkr_cli_error (&run->base.cli, "%s %s: %s", what, run->path, run->error->message);
  return zkr_cli_exit_status_for (run->error);
}

/* ---- the simple barrier ------------------------------------------------- */

static int
simple_run (BarrierRun *run)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrBarrier) barrier = zkr_barrier_new (run->base.session, run->path, &error);
  int timeout_ms = first_timeout_ms_of (run);

  if (barrier == NULL)
    return zkr_cli_report (&run->base.cli, error);
  run->object = barrier;
  run->finish = (gpointer) (g_str_equal (run->verb, "set") ? zkr_barrier_set_finish
                            : g_str_equal (run->verb, "remove") ? zkr_barrier_remove_finish
                            : zkr_barrier_wait_finish);
  if (g_str_equal (run->verb, "set"))
    zkr_barrier_set_async (barrier, timeout_ms, NULL, on_done, run);
  else if (g_str_equal (run->verb, "remove"))
    zkr_barrier_remove_async (barrier, timeout_ms, NULL, on_done, run);
  else
    zkr_barrier_wait_async (barrier, timeout_ms, NULL, on_done, run);
  if (!await_call (run))
    return call_failed (run, run->verb);
  return 0;
}

/* ---- the double barrier around CMD --------------------------------------- */

static char **
member_environment (BarrierRun *run, ZkrDoubleBarrier *barrier)
{
  g_autofree char *node = zkr_double_barrier_dup_member_path (barrier);
  char **env = g_new0 (char *, 4);

  env[0] = g_strdup_printf ("ZKR_BARRIER_PATH=%s", run->path);
  env[1] = g_strdup_printf ("ZKR_BARRIER_NODE=%s", node != NULL ? node : "");
  env[2] = g_strdup_printf ("ZKR_SESSION_ID=0x%016" G_GINT64_MODIFIER "x",
                            zkr_session_get_id (run->base.session));
  return env;
}

static gboolean
on_leave_signal (gpointer data)
{
  LeaveSignal *heard = data;

  if (heard->run->leave_signal == 0)
    heard->run->leave_signal = heard->signo;
  g_cancellable_cancel (heard->run->leave_cancel);
  return G_SOURCE_CONTINUE;
}

/* The leave, cancelled by a signal: zkr never hangs on a Ctrl-C while the
 * others take their time (our node goes in the background). The guard's
 * handlers go first (ours are in place by then, so no signal meets the
 * default action): once CMD ended the guard would forward a signal to
 * CMD's old pid instead of cancelling. */
static gboolean
leave_run (BarrierRun *run, ZkrDoubleBarrier *barrier)
{
  guint sources[G_N_ELEMENTS (leave_signals)];
  gboolean ok;

  run->leave_cancel = g_cancellable_new ();
  for (gsize i = 0; i < G_N_ELEMENTS (leave_signals); i++)
    {
      LeaveSignal *heard = g_new0 (LeaveSignal, 1);

      heard->run = run;
      heard->signo = leave_signals[i];
      sources[i] = g_unix_signal_add_full (G_PRIORITY_DEFAULT, leave_signals[i],
                                           on_leave_signal, heard, g_free);
    }
  if (zkr_guard_get_signal (run->guard) != 0)
    g_cancellable_cancel (run->leave_cancel);
  g_clear_pointer (&run->guard, zkr_guard_free);
  run->finish = (gpointer) zkr_double_barrier_leave_finish;
  zkr_double_barrier_leave_async (barrier, timeout_ms_of (run), run->leave_cancel, on_done,
                                  run);
  ok = await_call (run);
  for (gsize i = 0; i < G_N_ELEMENTS (leave_signals); i++)
    g_source_remove (sources[i]);
  return ok;
}

static int
double_run (BarrierRun *run, char **command)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrDoubleBarrier) barrier = NULL;
  g_auto (GStrv) env = NULL;
  GCancellable *cancellable;
  int status;

  barrier = zkr_double_barrier_new (run->base.session, run->path, run->members, &error);
  if (barrier == NULL)
    return zkr_cli_report (&run->base.cli, error);
  /* No lock to lose: a dead session only ends our membership. */
  run->guard = zkr_guard_new ("zkr barrier", ZKR_ON_LOSS_IGNORE, run->base.cli.quiet);
  cancellable = zkr_guard_get_cancellable (run->guard);
  run->object = barrier;
  run->finish = (gpointer) zkr_double_barrier_enter_finish;
  zkr_double_barrier_enter_async (barrier, first_timeout_ms_of (run), cancellable, on_done, run);
  if (!await_call (run))
    return call_failed (run, "enter");
  env = member_environment (run, barrier);
  status = zkr_guard_run (run->guard, command, env);
  g_clear_error (&run->error);
  if (!leave_run (run, barrier) && status == 0)
    return call_failed (run, "leave");
  return status;
}

/* ---- the command line ----------------------------------------------------- */

static gboolean
barrier_check_arguments (gpointer data, int argc, char **argv, char **command)
{
  BarrierRun *run = data;

  if (run->base.timeout_s != -1 && !(run->base.timeout_s >= 0 && run->base.timeout_s < 1e9))
    return zkr_cli_usage_error (&run->base.cli, "bad --timeout %g: need seconds >= 0",
                                run->base.timeout_s), FALSE;
  if (run->members != MEMBERS_UNSET)
    {
      if (run->members < 1)
        return zkr_cli_usage_error (&run->base.cli, "bad --members %d: need N >= 1", run->members),
               FALSE;
      if (!zkr_cli_check_path_and_command (&run->base.cli, argc, argv, command))
        return FALSE;
      run->path = argv[1];
      return TRUE;
    }
  if (command != NULL)
    return zkr_cli_usage_error (&run->base.cli, "CMD needs --members N"), FALSE;
  if (argc != 3 || !(g_str_equal (argv[1], "set") || g_str_equal (argv[1], "remove") ||
                     g_str_equal (argv[1], "wait")))
    return zkr_cli_usage_error (&run->base.cli, "expected set|remove|wait PATH, or --members N "
                                           "PATH -- CMD"), FALSE;
  run->verb = argv[1];
  run->path = argv[2];
  return TRUE;
}

static int
barrier_run_connected (gpointer data, char **command)
{
  BarrierRun *run = data;

  return run->verb != NULL ? simple_run (run) : double_run (run, command);
}

int
zkr_cmd_barrier (int argc, char **argv)
{
  static const ZkrCliSteps steps = { barrier_check_arguments, barrier_run_connected, NULL };
  BarrierRun run = { .base = { .cli = { .command = "barrier" }, .timeout_s = -1 },
                     .members = MEMBERS_UNSET };
  GOptionEntry entries[] = {
    { "members", 'n', 0, G_OPTION_ARG_INT, &run.members, NULL, NULL },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &run.base.timeout_s, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  int status = zkr_cli_run (&run.base, entries, &steps, argc, argv);

  g_clear_pointer (&run.guard, zkr_guard_free);
  g_clear_object (&run.leave_cancel);
  g_clear_error (&run.error);
  return status;
}
