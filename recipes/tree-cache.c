/* zkr: the tree cache (Curator's TreeCache): the public object, an engine
 * mirroring the subtree (cache-engine.c) and a hub for its listeners
 * (cache-hub.c). */

#include "cache-private.h"
#include "error-private.h"
#include "path.h"
#include "ref.h"

#include <zkr/tree-cache.h>

struct _ZkrTreeCache {
  gatomicrefcount ref;
  ZkrSession *session;     /* (owned) */
  char *path;
  GMutex lock;
  ZkrCacheEngine *engine;  /* (owned) (nullable) protected by lock: NULL once closed */
  gboolean started;        /* protected by lock */
  ZkrCacheHub *hub;        /* (owned) */
};

static const char *const event_names[] = {
  "NODE_ADDED", "NODE_UPDATED", "NODE_REMOVED", "INITIALIZED",
  "CONNECTION_SUSPENDED", "CONNECTION_RECONNECTED", "CONNECTION_LOST",
};

const char *
zkr_tree_cache_event_type_name (ZkrTreeCacheEventType type)
{
  if ((guint) type < G_N_ELEMENTS (event_names))
    return event_names[type];
  return "UNKNOWN";
}

static gpointer
tree_cache_try_ref (gpointer data)
{
  ZkrTreeCache *cache = data;

  return zkr__ref_try (&cache->ref) ? cache : NULL;
}

static void
tree_cache_marshal (GCallback func, gpointer source, const ZkrTreeCacheEvent *event,
                    gpointer user_data)
{
  ((ZkrTreeCacheFunc) func) (source, event, user_data);
}

static void
tree_cache_hook (const ZkrTreeCacheEvent *event, gpointer user_data)
{
  zkr__cache_hub_emit (((ZkrTreeCache *) user_data)->hub, event);
}

ZkrTreeCache *
zkr_tree_cache_new (ZkrSession *session, const char *path, int max_depth, GError **error)
{
  ZkrTreeCache *cache;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  if (!zkr__path_validate (path, error))
    return NULL;
  if (max_depth < -1)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid max_depth %d for the tree cache of \"%s\": -1 (all) or >= 0",
                   max_depth, path);
      return NULL;
    }
  cache = g_new0 (ZkrTreeCache, 1);
  g_atomic_ref_count_init (&cache->ref);
  g_mutex_init (&cache->lock);
  cache->session = zkr_session_ref (session);
  cache->path = g_strdup (path);
  cache->hub = zkr__cache_hub_new (cache, tree_cache_try_ref, (void (*) (gpointer)) zkr_tree_cache_unref,
                                   tree_cache_marshal);
  cache->engine = zkr__cache_engine_new (session, path, max_depth, tree_cache_hook, cache);
  return cache;
}

ZkrTreeCache *
zkr_tree_cache_ref (ZkrTreeCache *cache)
{
  g_return_val_if_fail (cache != NULL, NULL);
  g_atomic_ref_count_inc (&cache->ref);
  return cache;
}

void
zkr_tree_cache_unref (ZkrTreeCache *cache)
{
  g_return_if_fail (cache != NULL);
  if (!g_atomic_ref_count_dec (&cache->ref))
    return;
  zkr_tree_cache_close (cache);
  zkr__cache_hub_free (cache->hub);
  zkr_session_unref (cache->session);
  g_mutex_clear (&cache->lock);
  g_free (cache->path);
  g_free (cache);
}

gboolean
zkr_tree_cache_start (ZkrTreeCache *cache, GError **error)
{
  gboolean ok = FALSE;

  g_return_val_if_fail (cache != NULL, FALSE);
  if (zkr_session_get_state (cache->session) == ZKR_SESSION_STATE_CLOSED)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                   "tree cache of \"%s\": the session is closed", cache->path);
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
                 "tree cache of \"%s\" was started or closed before", cache->path);
  return ok;
}

gboolean
zkr_tree_cache_wait_initialized (ZkrTreeCache *cache, int timeout_ms, GCancellable *cancellable,
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
                   "tree cache of \"%s\" is not started", cache->path);
      return FALSE;
    }
  return zkr__cache_hub_wait_initialized (cache->hub, cache->path, timeout_ms, cancellable, error);
}

void
zkr_tree_cache_close (ZkrTreeCache *cache)
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
zkr_tree_cache_add_listener (ZkrTreeCache *cache, ZkrTreeCacheFunc func, gpointer user_data,
                             GDestroyNotify destroy)
{
  g_return_val_if_fail (cache != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__cache_hub_add (cache->hub, G_CALLBACK (func), user_data, destroy);
}

void
zkr_tree_cache_remove_listener (ZkrTreeCache *cache, guint id)
{
  g_return_if_fail (cache != NULL);
  zkr__cache_hub_remove (cache->hub, id);
}

GBytes *
zkr_tree_cache_get_data (ZkrTreeCache *cache, const char *path, ZkrStat *stat)
{
  GBytes *data = NULL;

  g_return_val_if_fail (cache != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_mutex_lock (&cache->lock);
  if (cache->engine != NULL)
    data = zkr__cache_engine_get_data (cache->engine, path, stat);
  g_mutex_unlock (&cache->lock);
  return data;
}

char **
zkr_tree_cache_get_children (ZkrTreeCache *cache, const char *path)
{
  char **names = NULL;

  g_return_val_if_fail (cache != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_mutex_lock (&cache->lock);
  if (cache->engine != NULL)
    names = zkr__cache_engine_get_children (cache->engine, path);
  g_mutex_unlock (&cache->lock);
  return names;
}

guint
zkr_tree_cache_count (ZkrTreeCache *cache)
{
  guint count = 0;

  g_return_val_if_fail (cache != NULL, 0);
  g_mutex_lock (&cache->lock);
  if (cache->engine != NULL)
    count = zkr__cache_engine_count (cache->engine);
  g_mutex_unlock (&cache->lock);
  return count;
}
