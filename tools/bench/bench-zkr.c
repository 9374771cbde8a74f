/* zkr benchmarks: zkr's locks through the public API only, as a user links
 * them. Each client is a thread with its own ZkrSession and one lock
 * object; a cycle is one blocking acquire (wait forever) and its release. */

#include <zkr/zkr.h>

#include "bench-common.h"

typedef enum {
  KIND_MUTEX,
  KIND_RWLOCK_READ,
  KIND_RWLOCK_WRITE,
  KIND_SEMAPHORE,
} LockKind;

typedef struct {
  LockKind kind;
  ZkrSession *session;     /* (owned) */
  ZkrMutex *mutex;         /* (owned) KIND_MUTEX */
  ZkrRwlock *rwlock;       /* (owned) KIND_RWLOCK_* */
  ZkrSemaphore *semaphore; /* (owned) KIND_SEMAPHORE */
  ZkrLease *lease;         /* (owned) the lease held, KIND_SEMAPHORE */
} ZkrClient;

static void
zkr_client_free (gpointer data)
{
  ZkrClient *client = data;

  g_clear_pointer (&client->lease, zkr_lease_free);
  g_clear_pointer (&client->mutex, zkr_mutex_unref);
  g_clear_pointer (&client->rwlock, zkr_rwlock_unref);
  g_clear_pointer (&client->semaphore, zkr_semaphore_unref);
  /* Closing drops the session's ephemeral nodes at once. */
  zkr_session_close (client->session);
  zkr_session_unref (client->session);
  g_free (client);
}

static gpointer
zkr_client_new (LockKind kind, const BenchOptions *options, GError **error)
{
  g_autoptr (ZkrSessionOptions) session_options = zkr_session_options_new ();
  ZkrClient *client;
  gboolean ok;

  zkr_session_options_set_hosts (session_options, options->hosts);
  client = g_new0 (ZkrClient, 1);
  client->kind = kind;
  client->session = zkr_session_connect (session_options, error);
  if (client->session == NULL)
    {
      g_free (client);
      return NULL;
    }
  if (kind == KIND_MUTEX)
    ok = (client->mutex = zkr_mutex_new (client->session, options->path, error)) != NULL;
  else if (kind == KIND_SEMAPHORE)
    ok = (client->semaphore = zkr_semaphore_new (client->session, options->path, 1, error)) != NULL;
  else
    ok = (client->rwlock = zkr_rwlock_new (client->session, options->path, error)) != NULL;
  if (!ok)
    {
      zkr_client_free (client);
      return NULL;
    }
  return client;
}

static gboolean
semaphore_acquire (ZkrClient *client, GError **error)
{
  g_autoptr (GPtrArray) leases = zkr_semaphore_acquire (client->semaphore, 1, -1, NULL, error);

  if (leases == NULL)
    return FALSE;
  client->lease = g_ptr_array_steal_index (leases, 0);
  return TRUE;
}

static gboolean
semaphore_release (ZkrClient *client, GError **error)
{
  gboolean ok = zkr_lease_release (client->lease, error);

  g_clear_pointer (&client->lease, zkr_lease_free);
  return ok;
}

static gboolean
zkr_acquire (gpointer data, GError **error)
{
  ZkrClient *client = data;

  switch (client->kind)
    {
    case KIND_MUTEX:
      return zkr_mutex_acquire (client->mutex, -1, NULL, error);
    case KIND_RWLOCK_READ:
      return zkr_rwlock_acquire_read (client->rwlock, -1, NULL, error);
    case KIND_RWLOCK_WRITE:
      return zkr_rwlock_acquire_write (client->rwlock, -1, NULL, error);
    case KIND_SEMAPHORE:
      return semaphore_acquire (client, error);
    }
  g_return_val_if_reached (FALSE);
}

static gboolean
zkr_release (gpointer data, GError **error)
{
  ZkrClient *client = data;

  switch (client->kind)
    {
    case KIND_MUTEX:
      return zkr_mutex_release (client->mutex, error);
    case KIND_RWLOCK_READ:
      return zkr_rwlock_release_read (client->rwlock, error);
    case KIND_RWLOCK_WRITE:
      return zkr_rwlock_release_write (client->rwlock, error);
    case KIND_SEMAPHORE:
      return semaphore_release (client, error);
    }
  g_return_val_if_reached (FALSE);
}

static gpointer
mutex_client_new (const BenchOptions *options, GError **error)
{
  return zkr_client_new (KIND_MUTEX, options, error);
}

static gpointer
read_client_new (const BenchOptions *options, GError **error)
{
  return zkr_client_new (KIND_RWLOCK_READ, options, error);
}

static gpointer
write_client_new (const BenchOptions *options, GError **error)
{
  return zkr_client_new (KIND_RWLOCK_WRITE, options, error);
}

static gpointer
semaphore_client_new (const BenchOptions *options, GError **error)
{
  return zkr_client_new (KIND_SEMAPHORE, options, error);
}

/* zkr creates the lock's path itself (CONTAINER nodes, as Curator does);
 * the driver removes it at the end rather than waiting for the reaper. */
#define ZKR_IMPL(impl_name, new_func, holders)                                 \
  { .name = impl_name, .creates_path = FALSE, .max_holders = holders,          \
    .client_new = new_func, .acquire = zkr_acquire, .release = zkr_release,    \
    .client_free = zkr_client_free }

const BenchImpl bench_impl_mutex = ZKR_IMPL ("mutex", mutex_client_new, 1);
/* Readers share: no holder limit to check. */
const BenchImpl bench_impl_rwlock_read = ZKR_IMPL ("rwlock-read", read_client_new, 0);
const BenchImpl bench_impl_rwlock_write = ZKR_IMPL ("rwlock-write", write_client_new, 1);
const BenchImpl bench_impl_semaphore = ZKR_IMPL ("semaphore", semaphore_client_new, 1);

const BenchImpl *
bench_impl_lookup (const char *name)
{
  const BenchImpl *impls[] = {
    &bench_impl_raw, &bench_impl_raw_curator, &bench_impl_mutex, &bench_impl_rwlock_read,
    &bench_impl_rwlock_write, &bench_impl_semaphore, &bench_impl_raw_counter,
    &bench_impl_raw_counter_async, &bench_impl_atomic_long, &bench_impl_atomic_long_promoted,
  };

  for (gsize i = 0; i < G_N_ELEMENTS (impls); i++)
    if (g_strcmp0 (impls[i]->name, name) == 0)
      return impls[i];
  return NULL;
}
