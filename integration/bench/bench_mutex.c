/* zkr benchmarks: the zkr mutex through its public API only, as a user
 * links it. Each client is a thread with its own ZkrSession and ZkrMutex;
 * a cycle is zkr_mutex_acquire (wait forever) and zkr_mutex_release. */

#include <zkr/zkr.h>

#include "bench-common.h"

typedef struct {
  ZkrSession *session;   /* (owned) */
  ZkrMutex *mutex;       /* (owned) */
} MutexClient;

static gpointer
mutex_client_new (const BenchOptions *options, GError **error)
{
  g_autoptr (ZkrSessionOptions) session_options = zkr_session_options_new ();
  MutexClient *client;
  ZkrSession *session;
  ZkrMutex *mutex;

  zkr_session_options_set_hosts (session_options, options->hosts);
  session = zkr_session_connect (session_options, error);
  if (session == NULL)
    return NULL;
  mutex = zkr_mutex_new (session, options->path, error);
  if (mutex == NULL)
    {
      zkr_session_close (session);
      zkr_session_unref (session);
      return NULL;
    }
  client = g_new0 (MutexClient, 1);
  client->session = session;
  client->mutex = mutex;
  return client;
}

static void
mutex_client_free (gpointer data)
{
  MutexClient *client = data;

  zkr_mutex_unref (client->mutex);
  /* Closing drops the session's ephemeral nodes at once. */
  zkr_session_close (client->session);
  zkr_session_unref (client->session);
  g_free (client);
}

static gboolean
mutex_acquire (gpointer data, GError **error)
{
  MutexClient *client = data;

  return zkr_mutex_acquire (client->mutex, -1, NULL, error);
}

static gboolean
mutex_release (gpointer data, GError **error)
{
  MutexClient *client = data;

  return zkr_mutex_release (client->mutex, error);
}

/* zkr creates the lock's path itself (CONTAINER nodes, as Curator does);
 * the driver removes it at the end rather than waiting for the reaper. */
static const BenchImpl mutex_impl = {
  .name = "zkr",
  .creates_path = FALSE,
  .client_new = mutex_client_new,
  .acquire = mutex_acquire,
  .release = mutex_release,
  .client_free = mutex_client_free,
};

int
main (int argc, char **argv)
{
  return bench_main (&mutex_impl, argc, argv);
}
