/* zkr CLI: the guarded child process (see zkr-guard.h). One GMainLoop
 * waits for CMD's exit (g_child_watch), the forwarded signals
 * (g_unix_signal_add) and the lock's loss listener; the loss path escalates
 * SIGTERM to SIGKILL on a timer so that CMD is gone before the server can
 * hand the lock on. */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <glib-unix.h>

#include "zkr-cli.h"
#include "zkr-guard.h"

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP };

struct _ZkrGuard {
  char *name;
  const char *lost_label;      /* "lock lost" or "leadership lost" (static) */
  ZkrOnLoss on_loss;
  gboolean quiet;
  int grace_ms;
  GCancellable *cancellable;   /* (owned) */
  GMainLoop *loop;             /* (owned) */
  guint signal_sources[G_N_ELEMENTS (forwarded_signals)];
  guint kill_timer;            /* the SIGKILL after the grace period, 0 if none */
  GPid child;                  /* 0 when not running */
  gboolean child_exited;
  int wait_status;             /* CMD's waitpid status once exited */
  int signal;                  /* the first signal received, 0 if none */
  gboolean lost;               /* lost or revoked: CMD is being stopped */
  int stop_status;             /* zkr's status then: 70 or 79 */
};

gboolean
zkr_on_loss_parse (const char *text, ZkrOnLoss *on_loss)
{
  if (g_strcmp0 (text, "term") == 0)
    *on_loss = ZKR_ON_LOSS_TERM;
  else if (g_strcmp0 (text, "kill") == 0)
    *on_loss = ZKR_ON_LOSS_KILL;
  else if (g_strcmp0 (text, "ignore") == 0)
    *on_loss = ZKR_ON_LOSS_IGNORE;
  else
    return FALSE;
  return TRUE;
}

int
zkr_guard_grace_for_session_ms (int session_timeout_ms)
{
  /* The library's default margin: min(T/10, 1 s) (session.h). */
  int margin_ms = MIN (session_timeout_ms / 10, 1000);

  return MAX (margin_ms / 2, 1);
}

static void
guard_print (ZkrGuard *guard, const char *message)
{
  fprintf (stderr, "%s: %s\n", guard->name, message);
  fflush (stderr);
}

static void
guard_kill (ZkrGuard *guard, int signo)
{
  if (guard->child != 0 && !guard->child_exited && kill (guard->child, signo) != 0
      && errno != ESRCH)
    {
      g_autofree char *message = g_strdup_printf ("could not signal CMD (pid %d): %s",
                                                  (int) guard->child, g_strerror (errno));
      guard_print (guard, message);
    }
}

static gboolean
on_signal (gpointer data)
{
  ZkrGuard *guard = data;
  int signo = forwarded_signals[0];

  /* g_unix_signal_add gives no argument: find which source fired. */
  for (gsize i = 0; i < G_N_ELEMENTS (forwarded_signals); i++)
    if (g_source_get_id (g_main_current_source ()) == guard->signal_sources[i])
      signo = forwarded_signals[i];
  if (guard->signal == 0)
    guard->signal = signo;
  /* While CMD runs it gets the signal; before it started and after it
   * exited (a leave, a release still under way) the signal cancels. */
  if (guard->child != 0 && !guard->child_exited)
    guard_kill (guard, signo);
  else
    g_cancellable_cancel (guard->cancellable);
  return G_SOURCE_CONTINUE;
}

ZkrGuard *
zkr_guard_new (const char *name, ZkrOnLoss on_loss, gboolean quiet)
{
  ZkrGuard *guard = g_new0 (ZkrGuard, 1);

  guard->name = g_strdup (name);
  guard->lost_label = "lock lost";
  guard->on_loss = on_loss;
  guard->quiet = quiet;
  guard->grace_ms = zkr_guard_grace_for_session_ms (10000);
  guard->cancellable = g_cancellable_new ();
  guard->loop = g_main_loop_new (g_main_context_get_thread_default (), FALSE);
  for (gsize i = 0; i < G_N_ELEMENTS (forwarded_signals); i++)
    guard->signal_sources[i] = g_unix_signal_add (forwarded_signals[i], on_signal, guard);
  return guard;
}

void
zkr_guard_free (ZkrGuard *guard)
{
  if (guard == NULL)
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (forwarded_signals); i++)
    g_source_remove (guard->signal_sources[i]);
  if (guard->kill_timer != 0)
    g_source_remove (guard->kill_timer);
  g_object_unref (guard->cancellable);
  g_main_loop_unref (guard->loop);
  g_free (guard->name);
  g_free (guard);
}

GCancellable *
zkr_guard_get_cancellable (ZkrGuard *guard)
{
  return guard->cancellable;
}

int
zkr_guard_get_signal (ZkrGuard *guard)
{
  return guard->signal;
}

void
zkr_guard_set_grace_ms (ZkrGuard *guard, int grace_ms)
{
  guard->grace_ms = MAX (grace_ms, 1);
}

static gboolean
on_grace_over (gpointer data)
{
  ZkrGuard *guard = data;

  guard->kill_timer = 0;
  if (guard->child != 0 && !guard->child_exited)
    {
      guard_print (guard, "CMD did not stop after SIGTERM: sending SIGKILL");
      guard_kill (guard, SIGKILL);
    }
  return G_SOURCE_REMOVE;
}

/* Stops CMD for a loss or a revocation (@label), the first one only. */
static void
guard_stop (ZkrGuard *guard, const char *label, const char *why, ZkrOnLoss how, int status)
{
  g_autofree char *message = NULL;

  if (guard->lost)
    return;
  guard->lost = TRUE;
  guard->stop_status = status;
  if (guard->child == 0 || guard->child_exited)
    {
      message = g_strdup_printf ("%s: %s", label, why);
      guard_print (guard, message);
      return;
    }
  switch (how)
    {
    case ZKR_ON_LOSS_TERM:
      message = g_strdup_printf ("%s: %s; stopping CMD (SIGTERM, SIGKILL after %d ms)",
                                 label, why, guard->grace_ms);
      guard_kill (guard, SIGTERM);
      guard->kill_timer = g_timeout_add (guard->grace_ms, on_grace_over, guard);
      break;
    case ZKR_ON_LOSS_KILL:
      message = g_strdup_printf ("%s: %s; killing CMD (SIGKILL)", label, why);
      guard_kill (guard, SIGKILL);
      break;
    case ZKR_ON_LOSS_IGNORE:
      message = g_strdup_printf ("%s: %s; CMD keeps running (--on-loss=ignore)",
                                 label, why);
      break;
    }
  /* Printed after the signal: stopping CMD is what must not wait. */
  guard_print (guard, message);
}

void
zkr_guard_lost (ZkrGuard *guard, const char *why)
{
  guard_stop (guard, guard->lost_label, why, guard->on_loss, ZKR_EXIT_LOCK_LOST);
}

void
zkr_guard_revoked (ZkrGuard *guard, const char *why)
{
  guard_stop (guard, "lock revoked", why,
              guard->on_loss == ZKR_ON_LOSS_KILL ? ZKR_ON_LOSS_KILL : ZKR_ON_LOSS_TERM,
              ZKR_EXIT_REVOKED);
}

void
zkr_guard_set_lost_label (ZkrGuard *guard, const char *label)
{
  guard->lost_label = label;
}

void
zkr_guard_note (ZkrGuard *guard, const char *note)
{
  if (!guard->quiet)
    guard_print (guard, note);
}

static void
on_child_exit (GPid pid, int wait_status, gpointer data)
{
  ZkrGuard *guard = data;

  g_spawn_close_pid (pid);
  guard->child_exited = TRUE;
  guard->wait_status = wait_status;
  g_main_loop_quit (guard->loop);
}

static int
guard_spawn_failed (ZkrGuard *guard, const char *command, const GError *error)
{
  g_autofree char *message = g_strdup_printf ("cannot run '%s': %s", command, error->message);

  guard_print (guard, message);
  return g_error_matches (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ? 127 : 126;
}

static int
guard_exit_status (ZkrGuard *guard)
{
  if (guard->lost)
    return guard->stop_status;
  if (WIFEXITED (guard->wait_status))
    return WEXITSTATUS (guard->wait_status);
  if (WIFSIGNALED (guard->wait_status))
    return 128 + WTERMSIG (guard->wait_status);
  return 126;
}

int
zkr_guard_run (ZkrGuard *guard, char **argv, char **env)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) envp = g_get_environ ();

  /* A signal that came while waiting for the lock ends the command as it
   * ended the wait: CMD never starts. */
  if (guard->signal != 0)
    return 128 + guard->signal;
  if (guard->lost)
    return guard->stop_status;
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_autofree char *variable = g_strndup (env[i], strcspn (env[i], "="));

      envp = g_environ_setenv (envp, variable, env[i] + strlen (variable) + 1, TRUE);
    }
  if (!g_spawn_async (NULL, argv, envp,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD
                        | G_SPAWN_CHILD_INHERITS_STDIN,
                      NULL, NULL, &guard->child, &error))
    {
      guard->child = 0;
      return guard_spawn_failed (guard, argv[0], error);
    }
  g_child_watch_add (guard->child, on_child_exit, guard);
  g_main_loop_run (guard->loop);
  return guard_exit_status (guard);
}
