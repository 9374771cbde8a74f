/* zkr: the node cache (Curator's NodeCache): the public object, the tree
 * cache's engine at depth 0 (cache-engine.c) and a hub for its listeners
 * (cache-hub.c), its events under the node cache's names. */

#include "cache-private.h"
#include "error-private.h"
#include "path.h"
#include "ref.h"

#include <zkr/node-cache.h>

struct _ZkrNodeCache {
  gatomicrefcount ref;
  ZkrSession *session;     /* (owned) */
  char *path;
  GMutex lock;
  ZkrCacheEngine *engine;  /* (owned) (nullable) protected by lock: NULL once closed */
  gboolean started;        /* protected by lock */
  ZkrCacheHub *hub;        /* (owned) */
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

static gpointer
node_cache_try_ref (gpointer data)
{
  ZkrNodeCache *cache = data;

  return zkr__ref_try (&cache->ref) ? cache : NULL;
}

/* The tree cache's types, in the same order, under the node cache's names. */
G_STATIC_ASSERT ((int) ZKR_NODE_CACHE_CREATED == (int) ZKR_TREE_CACHE_NODE_ADDED);
G_STATIC_ASSERT ((int) ZKR_NODE_CACHE_DELETED == (int) ZKR_TREE_CACHE_NODE_REMOVED);
G_STATIC_ASSERT ((int) ZKR_NODE_CACHE_CONNECTION_LOST == (int) ZKR_TREE_CACHE_CONNECTION_LOST);

static void
node_cache_marshal (GCallback func, gpointer source, const ZkrTreeCacheEvent *event,
                    gpointer user_data)
{
  ZkrNodeCacheEvent mine = { .type = (ZkrNodeCacheEventType) event->type };

  if (event->path != NULL)
    {
      mine.data = event->data;
      mine.stat = event->stat;
    }
  ((ZkrNodeCacheFunc) func) (source, &mine, user_data);
}

static void
node_cache_hook (const ZkrTreeCacheEvent *event, gpointer user_data)
{
  zkr__cache_hub_emit (((ZkrNodeCache *) user_data)->hub, event);
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
  g_atomic_ref_count_init (&cache->ref);
  g_mutex_init (&cache->lock);
  cache->session = zkr_session_ref (session);
  cache->path = g_strdup (path);
  cache->hub = zkr__cache_hub_new (cache, node_cache_try_ref,
                                   (void (*) (gpointer)) zkr_node_cache_unref, node_cache_marshal);
  cache->engine = zkr__cache_engine_new (session, path, 0, node_cache_hook, cache);
  return cache;
}

ZkrNodeCache *
zkr_node_cache_ref (ZkrNodeCache *cache)
{
  g_return_val_if_fail (cache != NULL, NULL);
  g_atomic_ref_count_inc (&cache->ref);
  return cache;
}

void
zkr_node_cache_unref (ZkrNodeCache *cache)
{
  g_return_if_fail (cache != NULL);
  if (!g_atomic_ref_count_dec (&cache->ref))
    return;
  zkr_node_cache_close (cache);
  zkr__cache_hub_free (cache->hub);
  zkr_session_unref (cache->session);
  g_mutex_clear (&cache->lock);
  g_free (cache->path);
  g_free (cache);
}

gboolean
zkr_node_cache_start (ZkrNodeCache *cache, GError **error)
{
  gboolean ok = FALSE;

  g_return_val_if_fail (cache != NULL, FALSE);
  if (zkr_session_get_state (cache->session) == ZKR_SESSION_STATE_CLOSED)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                   "node cache of \"%s\": the session is closed", cache->path);
      return FALSE;
    }
  g_mutex_lock (&cache->lock);
  if (cache->engine != NULL && !cache->started)
    {
      cache->started = ok = TRUE;
      zkr__cache_engine_start (cache->engine);
    }
  g_mutex_unlock (&cache->lock);
  if (!ok)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                 "node cache of \"%s\" was started or closed before", cache->path);
  return ok;
}

gboolean
zkr_node_cache_wait_initialized (ZkrNodeCache *cache, int timeout_ms, GCancellable *cancellable,
                                 GError **error)
{
  gboolean started;

  g_return_val_if_fail (cache != NULL, FALSE);
  g_mutex_lock (&cache->lock);
  started = cache->started;
  g_mutex_unlock (&cache->lock);
  if (!started)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "node cache of \"%s\" is not started", cache->path);
      return FALSE;
    }
  return zkr__cache_hub_wait_initialized (cache->hub, cache->path, timeout_ms, cancellable, error);
}

void
zkr_node_cache_close (ZkrNodeCache *cache)
{
  ZkrCacheEngine *engine;

  g_return_if_fail (cache != NULL);
  g_mutex_lock (&cache->lock);
  engine = g_steal_pointer (&cache->engine);
  g_mutex_unlock (&cache->lock);
  zkr__cache_hub_close (cache->hub);
  if (engine != NULL)
    zkr__cache_engine_stop (engine);
}

guint
zkr_node_cache_add_listener (ZkrNodeCache *cache, ZkrNodeCacheFunc func, gpointer user_data,
                             GDestroyNotify destroy)
{
  g_return_val_if_fail (cache != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__cache_hub_add (cache->hub, G_CALLBACK (func), user_data, destroy);
}

void
zkr_node_cache_remove_listener (ZkrNodeCache *cache, guint id)
{
  g_return_if_fail (cache != NULL);
  zkr__cache_hub_remove (cache->hub, id);
}

GBytes *
zkr_node_cache_get_data (ZkrNodeCache *cache, ZkrStat *stat)
{
  GBytes *data = NULL;

  g_return_val_if_fail (cache != NULL, NULL);
  g_mutex_lock (&cache->lock);
  if (cache->engine != NULL)
    data = zkr__cache_engine_get_data (cache->engine, cache->path, stat);
  g_mutex_unlock (&cache->lock);
  return data;
}
