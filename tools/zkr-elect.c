/* zkr elect: run CMD while this process is the leader. Joins a leader
 * latch on PATH (Curator's LeaderLatch layout), waits for leadership, runs
 * CMD with the term's fencing token in its environment, and leaves the
 * election when CMD exits. If leadership is lost while CMD runs, CMD is
 * stopped as `zkr lock` stops it (zkr-guard.c) and zkr exits 70. */

#include <unistd.h>

#include "zkr-cli.h"
#include "zkr-guard.h"

typedef struct {
  ZkrCliRun base;           /* timeout_s: --timeout, -1 none */
  const char *path;
  char *id;                 /* --id, else hostname:pid */
  char *on_loss_text;
  ZkrOnLoss on_loss;
  ZkrLeaderLatch *latch;    /* (owned) */
  guint listener;
  ZkrGuard *guard;          /* (owned) */
  gboolean running;         /* leadership taken: CMD runs (or is about to) */
  gboolean timed_out;
} ElectRun;

/* ---- the latch's events (main context) ----------------------------------- */

static void
on_is_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  ElectRun *run = user_data;

  (void) latch;
  if (!run->running && g_main_loop_is_running (run->base.loop))
    g_main_loop_quit (run->base.loop);
}

static void
on_not_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  ElectRun *run = user_data;

  (void) latch;
  if (!run->running)
    return;  /* still waiting: the latch queues again by itself */
  if (zkr_session_get_state (run->base.session) == ZKR_SESSION_STATE_SUSPENDED)
    zkr_guard_lost (run->guard, "no contact with ZooKeeper until the session's safe deadline "
                                "(it must be presumed expired)");
  else
    zkr_guard_lost (run->guard, "the session expired or the latch node vanished");
}

static gboolean
on_wait_timeout (gpointer user_data)
{
  ElectRun *run = user_data;

  run->timed_out = TRUE;
  g_main_loop_quit (run->base.loop);
  return G_SOURCE_REMOVE;
}

static void
on_wait_cancelled (GCancellable *cancellable, gpointer user_data)
{
  ElectRun *run = user_data;

  (void) cancellable;
  g_main_loop_quit (run->base.loop);
}

/* Waits in the main loop until we lead with a token, the timeout passes or
 * a signal arrives. TRUE when leading. */
static gboolean
elect_wait (ElectRun *run)
{
  GCancellable *cancellable = zkr_guard_get_cancellable (run->guard);
  guint timer = 0;
  gulong handler;

  if (run->base.deadline != 0)
    timer = g_timeout_add ((guint) zkr_cli_left_ms (run->base.deadline), on_wait_timeout, run);
  handler = g_cancellable_connect (cancellable, G_CALLBACK (on_wait_cancelled), run, NULL);
  while (!run->timed_out && !g_cancellable_is_cancelled (cancellable)
         && !(zkr_leader_latch_has_leadership (run->latch)
              && zkr_leader_latch_get_fencing_token (run->latch) > 0))
    g_main_loop_run (run->base.loop);
  g_cancellable_disconnect (cancellable, handler);
  if (timer != 0 && !run->timed_out)
    g_source_remove (timer);
  return !run->timed_out && !g_cancellable_is_cancelled (cancellable);
}

/* ---- the command -------------------------------------------------------- */

static char **
elect_environment (ElectRun *run, gint64 token)
{
  g_autofree char *node = zkr_leader_latch_dup_node_path (run->latch);
  char **env = g_new0 (char *, 6);

  env[0] = g_strdup_printf ("ZKR_FENCING_TOKEN=%" G_GINT64_FORMAT, token);
  env[1] = g_strdup_printf ("ZKR_LEADER_ID=%s", run->id);
  env[2] = g_strdup_printf ("ZKR_LATCH_NODE=%s", node != NULL ? node : "");
  env[3] = g_strdup_printf ("ZKR_LATCH_PATH=%s", run->path);
  env[4] = g_strdup_printf ("ZKR_SESSION_ID=0x%016" G_GINT64_MODIFIER "x",
                            zkr_session_get_id (run->base.session));
  return env;
}

/* Leaves the election; a delete the server did not confirm goes on in the
 * background, and closing the session removes the node anyway. */
static void
elect_leave (ElectRun *run)
{
  g_autoptr (GError) error = NULL;

  if (run->listener != 0)
    zkr_leader_latch_remove_listener (run->latch, run->listener);
  run->listener = 0;
  if (!zkr_leader_latch_close (run->latch, ZKR_LEADER_CLOSE_SILENT, &error))
    zkr_cli_note (&run->base.cli, "leaving the election at %s not confirmed: %s", run->path,
                  error->message);
}

static int
elect_wait_failed (ElectRun *run)
{
  int signo = zkr_guard_get_signal (run->guard);

  if (signo != 0)
    return 128 + signo;
  zkr_cli_note (&run->base.cli, "timed out after %g s waiting for leadership at %s",
                run->base.timeout_s, run->path);
  return ZKR_EXIT_TIMEOUT;
}

/* Connected: join, wait for leadership, run CMD, leave. */
static int
elect_run_connected (gpointer data, char **command)
{
  ElectRun *run = data;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = NULL;
  int status;

  run->latch = zkr_leader_latch_new (run->base.session, run->path, run->id, &error);
  if (run->latch == NULL)
    return zkr_cli_report (&run->base.cli, error);
  /* Like a lock: the term ends at the safe deadline, not at the first
   * connection loss, and CMD is stopped within the safety margin. */
  zkr_leader_latch_set_yield_policy (run->latch, ZKR_LEADER_YIELD_ON_LOST);
  run->guard = zkr_guard_new ("zkr elect", run->on_loss, run->base.cli.quiet);
  zkr_guard_set_lost_label (run->guard, "leadership lost");
  zkr_guard_set_grace_ms (run->guard, zkr_guard_grace_for_session_ms (
                                        zkr_session_get_timeout_ms (run->base.session)));
  run->listener = zkr_leader_latch_add_listener (run->latch, on_is_leader, on_not_leader, run,
                                                 NULL);
  if (!zkr_leader_latch_start (run->latch, &error))
    {
      zkr_cli_error (&run->base.cli, "could not join the election at %s: %s", run->path,
                     error->message);
      status = zkr_cli_exit_status_for (error);
    }
  else if (!elect_wait (run))
    status = elect_wait_failed (run);
  else
    {
      run->running = TRUE;
      env = elect_environment (run, zkr_leader_latch_get_fencing_token (run->latch));
      status = zkr_guard_run (run->guard, command, env);
    }
  elect_leave (run);
  return status;
}

static gboolean
elect_check_arguments (gpointer data, int argc, char **argv, char **command)
{
  ElectRun *run = data;

  if (!zkr_cli_check_path_and_command (&run->base.cli, argc, argv, command))
    return FALSE;
  if (run->base.timeout_s != -1 && !(run->base.timeout_s > 0 && run->base.timeout_s < 1e9))
    return zkr_cli_usage_error (&run->base.cli, "bad --timeout %g: need seconds > 0",
                                run->base.timeout_s), FALSE;
  if (run->on_loss_text != NULL && !zkr_on_loss_parse (run->on_loss_text, &run->on_loss))
    return zkr_cli_usage_error (&run->base.cli, "bad --on-loss '%s': need term, kill or ignore",
                                run->on_loss_text), FALSE;
  if (run->id != NULL && *run->id == '\0')
    return zkr_cli_usage_error (&run->base.cli, "bad --id '': need a non-empty id"), FALSE;
  if (run->id == NULL)
    run->id = g_strdup_printf ("%s:%ld", g_get_host_name (), (long) getpid ());
  run->path = argv[1];
  return TRUE;
}

static void
elect_drop (gpointer data)
{
  ElectRun *run = data;

  g_clear_pointer (&run->latch, zkr_leader_latch_unref);
}

int
zkr_cmd_elect (int argc, char **argv)
{
  static const ZkrCliSteps steps = { elect_check_arguments, elect_run_connected, elect_drop };
  ElectRun run = { .base = { .cli = { .command = "elect" }, .timeout_s = -1 },
                   .on_loss = ZKR_ON_LOSS_TERM };
  GOptionEntry entries[] = {
    { "id", 'i', 0, G_OPTION_ARG_STRING, &run.id, NULL, NULL },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &run.base.timeout_s, NULL, NULL },
    { "on-loss", 0, 0, G_OPTION_ARG_STRING, &run.on_loss_text, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  int status = zkr_cli_run (&run.base, entries, &steps, argc, argv);

  g_clear_pointer (&run.guard, zkr_guard_free);
  g_free (run.on_loss_text);
  g_free (run.id);
  return status;
}
