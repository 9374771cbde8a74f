/* zkr fault suite, barrier mode: one member of a double barrier behind its
 * own proxy, looping enter, a short step, leave, and logging each step's
 * times (and the round's PATH/ready czxid) for barrier_mode.py's checker.
 *
 *   zkr-barrier-worker --hosts H --path P --dir DIR --id I --members N
 *                      --session-timeout MS [--step-ms MS]
 *
 * DIR/m<I>.log, one line per event, CLOCK_MONOTONIC microseconds:
 *   clock D              wall clock minus monotonic clock (us), to place
 *                        the server's ctimes (ms, the same wall clock:
 *                        everything runs on one machine) on our times
 *   enter A T            attempt A's enter called
 *   pass A T NODE R RC NC   through: NODE our member node, R the czxid
 *                        and RC the ctime (ms) of PATH/ready, NC our
 *                        node's ctime, as read just after (-1: unread)
 *   enter-fail A T CODE  the enter failed (our node is gone, or goes when
 *                        the server expires the session); CODE as
 *                        zkr_error_name() gives it
 *   leave A T / left A T / leave-fail A T CODE   the same for the leave
 *   state NAME T         a session state change
 * Also DIR/w<I>.sid (the session's id and password, for the nemesis'
 * expiry) and DIR/w<I>.state ("H" while in the barrier, for its aim).
 * SIGTERM cancels the call under way and exits 0 once the session closed
 * (our node gone with it). */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib-unix.h>

#include "context.h"
#include "fault-call.h"
#include "session-private.h"

#include <zkr/zkr.h>

typedef struct {
  char *hosts;
  char *path;
  char *dir;
  int id;
  int members;
  int session_timeout_ms;
  int step_ms;
} Options;

typedef struct {
  const Options *options;
  ZkrSession *session;
  GCancellable *stop;   /* cancelled by SIGTERM */
  GMainLoop *loop;
  GMutex log_lock;      /* the member thread and the state listener both log */
  FILE *log;
} Member;

static void
member_log (Member *m, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
member_log (Member *m, const char *format, ...)
{
  va_list args;

  g_mutex_lock (&m->log_lock);
  va_start (args, format);
  vfprintf (m->log, format, args);
  va_end (args);
  fputc ('\n', m->log);
  fflush (m->log);
  g_mutex_unlock (&m->log_lock);
}

static void
member_set_state (Member *m, const char *state)
{
  g_autofree char *path = g_strdup_printf ("%s/w%d.state", m->options->dir, m->options->id);

  g_file_set_contents (path, state, -1, NULL);
}

/* The session id and password, for an expiry from outside. */
static void
publish_session (Member *m)
{
  g_autofree char *path = g_strdup_printf ("%s/w%d.sid", m->options->dir, m->options->id);

  fault_publish_session (m->session, path);
}

static void
on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Member *m = user_data;
  static const char *const names[] = { "CONNECTING", "CONNECTED", "SUSPENDED",
                                       "RECONNECTED", "LOST", "CLOSED" };

  (void) session;
  member_log (m, "state %s %" G_GINT64_FORMAT,
              (guint) state < G_N_ELEMENTS (names) ? names[state] : "?",
              g_get_monotonic_time ());
  if (state == ZKR_SESSION_STATE_CONNECTED)
    publish_session (m);
}

/* A node's stat (czxid and ctime -1 if it could not be read). */
static ZkrStat
node_stat (Member *m, const char *path)
{
  ZkrStat stat = { .czxid = -1, .ctime = -1 };

  if (path == NULL || !zkr_node_exists (m->session, path, 2000, m->stop, &stat, NULL))
    stat.czxid = stat.ctime = -1;
  return stat;
}

/* After a failed call: a LOST or SUSPENDED session answers every call at
 * once, so wait (a second at most, so SIGTERM is heard) for it to be
 * connected again rather than spin. */
static void
member_back_off (Member *m)
{
  zkr_session_wait_connected (m->session, 1000, m->stop, NULL);
  g_usleep (10 * 1000);
}

static gboolean
loop_quit (gpointer data)
{
  Member *m = data;

  g_main_loop_quit (m->loop);
  return G_SOURCE_REMOVE;
}

/* The loop: every call has a deadline of 3 session timeouts, so a member
 * never waits for ever on a barrier the faults broke up. */
static gpointer
member_thread (gpointer data)
{
  Member *m = data;
  const Options *o = m->options;
  int timeout_ms = 3 * o->session_timeout_ms;
  g_autoptr (ZkrDoubleBarrier) barrier = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *ready_path = g_strconcat (o->path, "/ready", NULL);

  member_log (m, "clock %" G_GINT64_FORMAT, g_get_real_time () - g_get_monotonic_time ());
  barrier = zkr_double_barrier_new (m->session, o->path, o->members, &error);
  g_assert_no_error (error);
  for (guint attempt = 1; !g_cancellable_is_cancelled (m->stop); attempt++)
    {
      g_autofree char *node = NULL;
      ZkrStat ready, ours;
      gint64 passed;

      g_clear_error (&error);
      member_log (m, "enter %u %" G_GINT64_FORMAT, attempt, g_get_monotonic_time ());
      if (!zkr_double_barrier_enter (barrier, timeout_ms, m->stop, &error))
        {
          member_log (m, "enter-fail %u %" G_GINT64_FORMAT " %s", attempt,
                      g_get_monotonic_time (), zkr_error_name (error));
          member_back_off (m);
          continue;
        }
      passed = g_get_monotonic_time ();
      member_set_state (m, "H");
      node = zkr_double_barrier_dup_member_path (barrier);
      /* PATH/ready's czxid names the round; the ctimes say when the round
       * opened and since when our node existed. */
      ready = node_stat (m, ready_path);
      ours = node_stat (m, node);
      member_log (m, "pass %u %" G_GINT64_FORMAT " %s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                  " %" G_GINT64_FORMAT, attempt, passed, node != NULL ? node : "-",
                  ready.czxid, ready.ctime, ours.ctime);
      if (o->step_ms > 0)
        g_usleep ((gulong) o->step_ms * 1000);
      member_log (m, "leave %u %" G_GINT64_FORMAT, attempt, g_get_monotonic_time ());
      if (zkr_double_barrier_leave (barrier, timeout_ms, m->stop, &error))
        member_log (m, "left %u %" G_GINT64_FORMAT, attempt, g_get_monotonic_time ());
      else
        {
          member_log (m, "leave-fail %u %" G_GINT64_FORMAT " %s", attempt,
                      g_get_monotonic_time (), zkr_error_name (error));
          member_back_off (m);
        }
      member_set_state (m, "-");
    }
  /* zkr__context_post: a hand-off ThreadSanitizer sees. */
  zkr__context_post (g_main_context_default (), loop_quit, m, NULL);
  return NULL;
}

static gboolean
on_term_signal (gpointer data)
{
  Member *m = data;

  g_cancellable_cancel (m->stop);
  return G_SOURCE_CONTINUE;
}

static int
member_main (const Options *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autofree char *log_path = g_strdup_printf ("%s/m%d.log", o->dir, o->id);
  Member m = { .options = o };
  GThread *thread;
  guint term;

  g_mutex_init (&m.log_lock);
  m.log = fopen (log_path, "w");
  if (m.log == NULL)
    {
      printf ("member: cannot write %s\n", log_path);
      return 2;
    }
  m.stop = g_cancellable_new ();
  m.loop = g_main_loop_new (NULL, FALSE);
  zkr_session_options_set_hosts (options, o->hosts);
  zkr_session_options_set_session_timeout_ms (options, o->session_timeout_ms);
  m.session = zkr_session_new (options, &error);
  if (m.session == NULL)
    {
      printf ("member: %s\n", error->message);
      return 2;
    }
  zkr_session_add_state_listener (m.session, on_state, &m, NULL);
  if (!zkr_session_wait_connected (m.session, 30000, NULL, &error))
    {
      printf ("member: %s\n", error->message);
      zkr_session_unref (m.session);
      return 2;
    }
  /* The listener may have missed the first CONNECTED. */
  publish_session (&m);
  printf ("started\n");
  fflush (stdout);
  term = g_unix_signal_add (SIGTERM, on_term_signal, &m);
  thread = g_thread_new ("member", member_thread, &m);
  g_main_loop_run (m.loop);
  g_thread_join (thread);
  g_source_remove (term);
  /* Our node, if any, goes with the session. */
  zkr_session_close (m.session);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  zkr_session_unref (m.session);
  member_log (&m, "exit %" G_GINT64_FORMAT, g_get_monotonic_time ());
  fclose (m.log);
  g_object_unref (m.stop);
  g_main_loop_unref (m.loop);
  g_mutex_clear (&m.log_lock);
  printf ("stopped\n");
  return 0;
}

int
main (int argc, char **argv)
{
  Options o = { .members = 6, .session_timeout_ms = 4000, .step_ms = 50 };
  GOptionEntry entries[] = {
    { "hosts", 0, 0, G_OPTION_ARG_STRING, &o.hosts, "connect string", "HOSTS" },
    { "path", 0, 0, G_OPTION_ARG_STRING, &o.path, "the barrier", "PATH" },
    { "dir", 0, 0, G_OPTION_ARG_STRING, &o.dir, "the run's directory", "DIR" },
    { "id", 0, 0, G_OPTION_ARG_INT, &o.id, "the member's number", "N" },
    { "members", 0, 0, G_OPTION_ARG_INT, &o.members, "the barrier's N", "N" },
    { "session-timeout", 0, 0, G_OPTION_ARG_INT, &o.session_timeout_ms, "session timeout", "MS" },
    { "step-ms", 0, 0, G_OPTION_ARG_INT, &o.step_ms, "time spent inside", "MS" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- zkr fault suite: barrier mode");
  g_autoptr (GError) error = NULL;
  int rc;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || o.hosts == NULL ||
      o.path == NULL || o.dir == NULL || o.members < 1)
    {
      printf ("usage: %s\n", error != NULL ? error->message
                                           : "--hosts, --path, --dir and --members >= 1");
      return 2;
    }
  rc = member_main (&o);
  g_free (o.hosts);
  g_free (o.path);
  g_free (o.dir);
  return rc;
}
