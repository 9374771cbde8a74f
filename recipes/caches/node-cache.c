/* zkr: the node cache (Curator's NodeCache): the public object over the
 * shared body (cache-object.c: the tree cache's engine at depth 0 and a
 * hub for its listeners), its events under the node cache's names. */

#include "cache-private.h"
#include "path.h"

#include <zkr/node-cache.h>

struct _ZkrNodeCache {
  ZkrCacheObject object;   /* first: the hub's source is the object */
};

static const char *const event_names[] = {
  "CREATED", "CHANGED", "DELETED", "INITIALIZED",
  "CONNECTION_SUSPENDED", "CONNECTION_RECONNECTED", "CONNECTION_LOST",
};

const char *
zkr_node_cache_event_type_name (ZkrNodeCacheEventType type)
{
  if ((guint) type < G_N_ELEMENTS (event_names))
    return event_names[type];
  return "UNKNOWN";
}

/* The tree cache's types, in the same order, under the node cache's names. */
G_STATIC_ASSERT ((int) ZKR_NODE_CACHE_CREATED == (int) ZKR_TREE_CACHE_NODE_ADDED);
G_STATIC_ASSERT ((int) ZKR_NODE_CACHE_DELETED == (int) ZKR_TREE_CACHE_NODE_REMOVED);
G_STATIC_ASSERT ((int) ZKR_NODE_CACHE_CONNECTION_LOST == (int) ZKR_TREE_CACHE_CONNECTION_LOST);

static void
node_cache_marshal (GCallback func, gpointer source, gpointer data, gpointer user_data)
{
  const ZkrTreeCacheEvent *event = data;
  ZkrNodeCacheEvent mine = { .type = (ZkrNodeCacheEventType) event->type };

  if (event->path != NULL)
    {
      mine.data = event->data;
      mine.stat = event->stat;
    }
  ((ZkrNodeCacheFunc) func) (source, &mine, user_data);
}

ZkrNodeCache *
zkr_node_cache_new (ZkrSession *session, const char *path, GError **error)
{
  ZkrNodeCache *cache;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  if (!zkr__path_validate (path, error))
    return NULL;
  cache = g_new0 (ZkrNodeCache, 1);
  zkr__cache_object_init (&cache->object, "node cache", session, path, 0,
                          node_cache_marshal);
  return cache;
}

ZkrNodeCache *
zkr_node_cache_ref (ZkrNodeCache *cache)
{
  g_return_val_if_fail (cache != NULL, NULL);
  zkr__cache_object_ref (&cache->object);
  return cache;
}

void
zkr_node_cache_unref (ZkrNodeCache *cache)
{
  g_return_if_fail (cache != NULL);
  zkr__cache_object_unref (&cache->object);
}

gboolean
zkr_node_cache_start (ZkrNodeCache *cache, GError **error)
{
  g_return_val_if_fail (cache != NULL, FALSE);
  return zkr__cache_object_start (&cache->object, error);
}

gboolean
zkr_node_cache_wait_initialized (ZkrNodeCache *cache, int timeout_ms, GCancellable *cancellable,
                                 GError **error)
{
  g_return_val_if_fail (cache != NULL, FALSE);
  return zkr__cache_object_wait_initialized (&cache->object, timeout_ms, cancellable, error);
}

void
zkr_node_cache_close (ZkrNodeCache *cache)
{
  g_return_if_fail (cache != NULL);
  zkr__cache_object_close (&cache->object);
}

guint
zkr_node_cache_add_listener (ZkrNodeCache *cache, ZkrNodeCacheFunc func, gpointer user_data,
                             GDestroyNotify destroy)
{
  g_return_val_if_fail (cache != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__cache_hub_add (cache->object.hub, G_CALLBACK (func), user_data, destroy);
}

void
zkr_node_cache_remove_listener (ZkrNodeCache *cache, guint id)
{
  g_return_if_fail (cache != NULL);
  zkr__cache_hub_remove (cache->object.hub, id);
}

GBytes *
zkr_node_cache_get_data (ZkrNodeCache *cache, ZkrStat *stat)
{
  g_return_val_if_fail (cache != NULL, NULL);
  return zkr__cache_object_get_data (&cache->object, cache->object.path, stat);
}
