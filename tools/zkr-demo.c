/* zkr-demo: what `./run demo` shows. Act one: a session connects to the
 * local 3-node ensemble, the member it uses is killed and restarted, and
 * the session's states are printed as its listener receives them. Act two
 * (zkr-demo-workers.c): six processes, a mutex, a leader latch, a killed
 * leader and an expired session, and a summary. Everything goes through
 * the public API (<zkr/zkr.h>): the recipes, and the counter's reads and
 * its writes, transactions fenced by the mutex; only the expiry from
 * outside is a test-only hook (zkr-demo-expire.c). */

#include <stdio.h>
#include <stdlib.h>

#include <zkr/zkr.h>

#include "zkr-demo.h"

typedef struct {
  ZkrSession *session;
  GMainLoop *loop;
  gint64 start;
  GMutex lock;
  GCond cond;
  ZkrSessionState last;
  guint count;
  int status;
} Demo;

static double
elapsed_s (Demo *demo)
{
  return (g_get_monotonic_time () - demo->start) / 1e6;
}

static void
on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Demo *demo = user_data;
  g_autofree char *host = zkr_session_dup_connected_host (session);

  printf ("  [%6.2fs] state %-11s session 0x%" G_GINT64_MODIFIER "x%s%s\n", elapsed_s (demo),
          zkr_session_state_name (state), zkr_session_get_id (session),
          host != NULL ? " via " : "", host != NULL ? host : "");
  fflush (stdout);
  g_mutex_lock (&demo->lock);
  demo->last = state;
  demo->count++;
  g_cond_broadcast (&demo->cond);
  g_mutex_unlock (&demo->lock);
  if (state == ZKR_SESSION_STATE_CLOSED)
    g_main_loop_quit (demo->loop);
}

static gboolean
wait_state (Demo *demo, ZkrSessionState state, int timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + timeout_s * G_USEC_PER_SEC;
  gboolean reached;

  g_mutex_lock (&demo->lock);
  while (demo->last != state && g_cond_wait_until (&demo->cond, &demo->lock, deadline))
    ;
  reached = demo->last == state;
  g_mutex_unlock (&demo->lock);
  return reached;
}

static gboolean
ensemble (const char *command)
{
  const char *script = g_getenv ("ZKR_ENSEMBLE_SH");
  g_autofree char *line = NULL;
  int status = 0;

  if (script == NULL)
    return FALSE;
  line = g_strdup_printf ("bash '%s' %s", script, command);
  return g_spawn_command_line_sync (line, NULL, NULL, &status, NULL) &&
         g_spawn_check_wait_status (status, NULL);
}

static guint
server_index (const char *hosts, const char *host)
{
  g_auto (GStrv) parts = g_strsplit (hosts, ",", -1);

  for (guint i = 0; host != NULL && parts[i] != NULL; i++)
    if (g_str_equal (parts[i], host))
      return i + 1;
  return 0;
}

static void
step (Demo *demo, const char *text)
{
  printf ("[%6.2fs] %s\n", elapsed_s (demo), text);
  fflush (stdout);
}

/* The scenario runs beside the main loop that delivers the states. */
static gpointer
scenario (gpointer data)
{
  Demo *demo = data;
  const char *hosts = g_getenv ("ZKR_DEMO_HOSTS");
  g_autofree char *host = NULL;
  g_autofree char *kill = NULL;
  g_autofree char *restart = NULL;
  guint server;

  if (!wait_state (demo, ZKR_SESSION_STATE_CONNECTED, 30))
    goto fail;
  host = zkr_session_dup_connected_host (demo->session);
  server = server_index (hosts, host);
  if (server == 0)
    goto fail;
  kill = g_strdup_printf ("kill %u", server);
  restart = g_strdup_printf ("restart %u", server);
  printf ("[%6.2fs] killing ensemble member %u (%s), the one this session uses\n",
          elapsed_s (demo), server, host);
  fflush (stdout);
  if (!ensemble (kill))
    goto fail;
  step (demo, "waiting: the client notices (SUSPENDED) and moves to another member (RECONNECTED)");
  if (!wait_state (demo, ZKR_SESSION_STATE_RECONNECTED, 60))
    goto fail;
  step (demo, "same session id: its ephemeral nodes and locks survived the failover");
  printf ("[%6.2fs] restarting member %u\n", elapsed_s (demo), server);
  fflush (stdout);
  if (!ensemble (restart))
    goto fail;
  step (demo, "member back; closing the session cleanly");
  zkr_session_close (demo->session);
  return NULL;

fail:
  step (demo, "demo step failed");
  demo->status = 1;
  zkr_session_close (demo->session);
  return NULL;
}

int
main (int argc, char **argv)
{
  const char *hosts = g_getenv ("ZKR_DEMO_HOSTS");
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GError) error = NULL;
  Demo demo = { 0 };
  GThread *thread;

  if (hosts == NULL)
    {
      fprintf (stderr, "zkr-demo: set ZKR_DEMO_HOSTS (./run demo does)\n");
      return 64;
    }
  if (argc == 4 && g_str_equal (argv[1], "--worker"))
    return zkr_demo_worker_main (hosts, argv[3], atoi (argv[2]));
  if (argc != 1)
    {
      fprintf (stderr, "usage: zkr-demo (with ZKR_DEMO_HOSTS set; ./run demo does it)\n");
      return 64;
    }
  g_mutex_init (&demo.lock);
  g_cond_init (&demo.cond);
  demo.start = g_get_monotonic_time ();
  demo.last = ZKR_SESSION_STATE_CONNECTING;
  demo.loop = g_main_loop_new (NULL, FALSE);
  printf ("zkr %s demo\n\nact one: a session to the 3-node ensemble %s\n", ZKR_VERSION_STRING, hosts);
  zkr_session_options_set_hosts (options, hosts);
  /* 30 s, not 10: the member killed may be the quorum's leader, and
   * ZooKeeper 3.8.0 has been seen taking 11 s to serve again then; a
   * session suspended for its whole timeout is LOST (README, "Guarantees
   * and their limits"). */
  zkr_session_options_set_session_timeout_ms (options, 30000);
  demo.session = zkr_session_new (options, &error);
  if (demo.session == NULL)
    {
      fprintf (stderr, "zkr-demo: %s\n", error->message);
      return 1;
    }
  zkr_session_add_state_listener (demo.session, on_state, &demo, NULL);
  thread = g_thread_new ("demo-scenario", scenario, &demo);
  g_main_loop_run (demo.loop);
  g_thread_join (thread);
  printf ("[%6.2fs] %u state changes reported, in order, in the main loop's context\n",
          elapsed_s (&demo), demo.count);
  zkr_session_unref (demo.session);
  g_main_loop_unref (demo.loop);
  if (demo.status != 0)
    return demo.status;
  return zkr_demo_workers_run (self != NULL ? self : argv[0], hosts);
}
