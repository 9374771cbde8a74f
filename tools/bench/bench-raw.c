/* zkr benchmarks: the textbook ZooKeeper lock with the raw libzookeeper_mt
 * client, the baseline zkr is measured against. Each client is a thread
 * with its own handle; a cycle is create, list, (wait on the predecessor,
 * list again), delete: three requests one after another when uncontended. */

#include <string.h>

#include "bench-common.h"

#define LOCK_PREFIX "lock-"

typedef struct {
  BenchZk *zk;           /* (owned) */
  char *lock_path;       /* the lock's path (owned) */
  char *node_prefix;     /* "<lock_path>/lock-" (owned) */
  char node[1024];       /* our node's full path while queued or holding */
  GMutex lock;
  GCond cond;
  guint events;          /* predecessor watch events so far; lock */
} RawClient;

static gpointer
raw_client_new (const BenchOptions *options, GError **error)
{
  BenchZk *zk = bench_zk_connect (options->hosts, error);
  RawClient *client;

  if (zk == NULL)
    return NULL;
  client = g_new0 (RawClient, 1);
  client->zk = zk;
  client->lock_path = g_strdup (options->path);
  client->node_prefix = g_strconcat (options->path, "/" LOCK_PREFIX, NULL);
  g_mutex_init (&client->lock);
  g_cond_init (&client->cond);
  return client;
}

static void
raw_client_free (gpointer data)
{
  RawClient *client = data;

  /* Closed first: no watcher can run on the client after this. */
  bench_zk_close (client->zk);
  g_mutex_clear (&client->lock);
  g_cond_clear (&client->cond);
  g_free (client->lock_path);
  g_free (client->node_prefix);
  g_free (client);
}

/* Runs on ZooKeeper's completion thread: the predecessor changed (or the
 * session did); wake the waiter, which lists again. */
static void
raw_predecessor_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
  RawClient *client = ctx;

  (void) zh;
  (void) type;
  (void) state;
  (void) path;
  g_mutex_lock (&client->lock);
  client->events++;
  g_cond_signal (&client->cond);
  g_mutex_unlock (&client->lock);
}

/* The child just before @ours in sequence order (every child is
 * "lock-<seq10>", so text order is sequence order), NULL if we are first.
 * @found says whether @ours is listed at all. (transfer full) */
static char *
raw_predecessor (const struct String_vector *children, const char *ours, gboolean *found)
{
  const char *best = NULL;

  *found = FALSE;
  for (int i = 0; i < children->count; i++)
    {
      const char *child = children->data[i];
      int order = strcmp (child, ours);

      if (order == 0)
        *found = TRUE;
      else if (order < 0 && (best == NULL || strcmp (child, best) > 0))
        best = child;
    }
  return g_strdup (best);
}

/* Watches @predecessor and sleeps until it changes; returns at once if it
 * is already gone. */
static gboolean
raw_wait_for (RawClient *client, const char *predecessor, GError **error)
{
  g_autofree char *pred_path = g_strconcat (client->lock_path, "/", predecessor, NULL);
  struct Stat stat;
  char data[64];
  int data_len = sizeof data;
  guint seen;
  int rc;

  g_mutex_lock (&client->lock);
  seen = client->events;
  g_mutex_unlock (&client->lock);
  /* get_data, not exists: a watch on a node that is already gone would
   * otherwise stay behind as a creation watch. */
  rc = zoo_wget (bench_zk_handle (client->zk), pred_path, raw_predecessor_watcher, client, data,
                 &data_len, &stat);
  if (rc == ZNONODE)
    return TRUE;
  if (rc != ZOK)
    {
      bench_set_zk_error (error, rc, "get_data", pred_path);
      return FALSE;
    }
  g_mutex_lock (&client->lock);
  while (client->events == seen)
    g_cond_wait (&client->cond, &client->lock);
  g_mutex_unlock (&client->lock);
  return TRUE;
}

/* Lists the children; TRUE with *@held set when we are first, else waits
 * for the predecessor to change. */
static gboolean
raw_check (RawClient *client, gboolean *held, GError **error)
{
  const char *ours = client->node + strlen (client->lock_path) + 1;
  struct String_vector children = { 0, NULL };
  g_autofree char *predecessor = NULL;
  gboolean found;
  int rc;

  rc = zoo_get_children (bench_zk_handle (client->zk), client->lock_path, 0, &children);
  if (rc != ZOK)
    {
      bench_set_zk_error (error, rc, "get_children", client->lock_path);
      return FALSE;
    }
  predecessor = raw_predecessor (&children, ours, &found);
  deallocate_String_vector (&children);
  if (!found)
    {
      bench_set_zk_error (error, ZNONODE, "our node is not listed:", client->node);
      return FALSE;
    }
  *held = predecessor == NULL;
  return *held || raw_wait_for (client, predecessor, error);
}

static gboolean
raw_acquire (gpointer data, GError **error)
{
  RawClient *client = data;
  gboolean held = FALSE;
  int rc;

  rc = zoo_create (bench_zk_handle (client->zk), client->node_prefix, NULL, -1,
                   &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL | ZOO_SEQUENCE, client->node,
                   sizeof client->node);
  if (rc != ZOK)
    {
      bench_set_zk_error (error, rc, "create", client->node_prefix);
      return FALSE;
    }
  while (!held)
    if (!raw_check (client, &held, error))
      {
        /* Leave the queue so that no waiter stays stuck behind us. */
        zoo_delete (bench_zk_handle (client->zk), client->node, -1);
        return FALSE;
      }
  return TRUE;
}

static gboolean
raw_release (gpointer data, GError **error)
{
  RawClient *client = data;
  int rc = zoo_delete (bench_zk_handle (client->zk), client->node, -1);

  if (rc != ZOK)
    {
      bench_set_zk_error (error, rc, "delete", client->node);
      return FALSE;
    }
  return TRUE;
}

const BenchImpl bench_impl_raw = {
  .name = "raw",
  .creates_path = TRUE,
  .max_holders = 1,
  .client_new = raw_client_new,
  .acquire = raw_acquire,
  .release = raw_release,
  .client_free = raw_client_free,
};
