/* zkr benchmarks: the textbook ZooKeeper lock with the raw libzookeeper_mt
 * client, the baseline zkr is measured against. Each client is a thread
 * with its own handle; a cycle is create, list, (wait on the predecessor,
 * list again), delete: three requests one after another when uncontended.
 * Two node layouts: plain "lock-<seq>" nodes without data ("raw"), and
 * the layout zkr keeps to for Curator ("raw-curator": "_c_<uuid>-lock-<seq>"
 * with a fresh uuid per node and the client's "host/pid" as data), so that
 * what the layout costs the server and the client can be told apart from
 * what zkr itself costs. */

#include <string.h>
#include <unistd.h>

#include "bench-common.h"

#define LOCK_PREFIX "lock-"

typedef struct {
  BenchZk *zk;           /* (owned) */
  char *lock_path;       /* the lock's path (owned) */
  char *node_prefix;     /* "<lock_path>/lock-" (owned); Curator layout:
                          * "<lock_path>/_c_<uuid>-lock-", the uuid
                          * written anew for each node */
  char *data;            /* (owned) (nullable) the nodes' data */
  char node[1024];       /* our node's full path while queued or holding */
  GMutex lock;
  GCond cond;
  guint events;          /* predecessor watch events so far; lock */
} RawClient;

#define UUID_AT 3 /* "_c_": where the uuid starts in a protected name */
#define UUID_LEN 36

static RawClient *
client_new (const BenchOptions *options, gboolean curator_layout, GError **error)
{
  BenchZk *zk = bench_zk_connect (options->hosts, error);
  RawClient *client;

  if (zk == NULL)
    return NULL;
  client = g_new0 (RawClient, 1);
  client->zk = zk;
  client->lock_path = g_strdup (options->path);
  if (curator_layout)
    {
      /* The uuid's place is filled in before each create. */
      client->node_prefix = g_strconcat (options->path, "/_c_",
                                         "00000000-0000-4000-8000-000000000000", "-" LOCK_PREFIX,
                                         NULL);
      client->data = g_strdup_printf ("%s/%d", g_get_host_name (), (int) getpid ());
    }
  else
    client->node_prefix = g_strconcat (options->path, "/" LOCK_PREFIX, NULL);
  g_mutex_init (&client->lock);
  g_cond_init (&client->cond);
  return client;
}

static gpointer
raw_client_new (const BenchOptions *options, GError **error)
{
  return client_new (options, FALSE, error);
}

static gpointer
raw_curator_client_new (const BenchOptions *options, GError **error)
{
  return client_new (options, TRUE, error);
}

/* A fresh random uuid's hex digits over the zeros of the prefix (dashes
 * and the version and variant digits left as they are): Curator makes a
 * new one for each node. */
static void
fresh_uuid (RawClient *client)
{
  static const char hex[] = "0123456789abcdef";
  char *uuid = client->node_prefix + strlen (client->lock_path) + 1 + UUID_AT;
  guint32 bits = 0;
  guint left = 0;

  for (guint i = 0; i < UUID_LEN; i++)
    {
      if (uuid[i] == '-' || i == 14 || i == 19)
        continue;
      if (left == 0)
        {
          bits = g_random_int ();
          left = 8;
        }
      uuid[i] = hex[bits & 0x0f];
      bits >>= 4;
      left--;
    }
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
  g_free (client->data);
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

/* What a child sorts by: its ten-digit sequence (every child ends in
 * "lock-<seq10>", so its text order is sequence order). */
static const char *
sequence_of (const char *child)
{
  size_t len = strlen (child);

  return len > 10 ? child + len - 10 : child;
}

/* The child just before @ours in sequence order, NULL if we are first.
 * @found says whether @ours is listed at all. (transfer full) */
static char *
raw_predecessor (const struct String_vector *children, const char *ours, gboolean *found)
{
  const char *our_key = sequence_of (ours);
  const char *best = NULL, *best_key = NULL;

  *found = FALSE;
  for (int i = 0; i < children->count; i++)
    {
      const char *child = children->data[i];
      const char *key = sequence_of (child);
      int order = strcmp (key, our_key);

      if (order == 0)
        {
          if (strcmp (child, ours) == 0)
            *found = TRUE;
        }
      else if (order < 0 && (best == NULL || strcmp (key, best_key) > 0))
        {
          best = child;
          best_key = key;
        }
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

  if (client->data != NULL)
    fresh_uuid (client);
  rc = zoo_create (bench_zk_handle (client->zk), client->node_prefix, client->data,
                   client->data != NULL ? (int) strlen (client->data) : -1,
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

/* The two layouts share the loop: only how a client is made differs. */
#define RAW_IMPL(impl_name, new_func)                                           \
  { .name = impl_name, .creates_path = TRUE, .max_holders = 1,                 \
    .client_new = new_func, .acquire = raw_acquire, .release = raw_release,    \
    .client_free = raw_client_free }

const BenchImpl bench_impl_raw = RAW_IMPL ("raw", raw_client_new);
const BenchImpl bench_impl_raw_curator = RAW_IMPL ("raw-curator", raw_curator_client_new);
