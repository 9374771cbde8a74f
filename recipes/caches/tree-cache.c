/* zkr: the tree cache (Curator's TreeCache): the public object over the
 * shared body (cache-object.c: an engine mirroring the subtree and a hub
 * for its listeners), its event names and its calls. */

#include "cache-private.h"
#include "error-private.h"
#include "path.h"
#include "ref.h"

#include <string.h>

#include <zkr/tree-cache.h>

struct _ZkrTreeCache {
  ZkrCacheObject object;   /* first: the hub's source is the object */
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

static void
tree_cache_marshal (GCallback func, gpointer source, gpointer event, gpointer user_data)
{
  ((ZkrTreeCacheFunc) func) (source, event, user_data);
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
  zkr__cache_object_init (&cache->object, "tree cache", session, path, max_depth,
                          tree_cache_marshal);
  return cache;
}

ZkrTreeCache *
zkr_tree_cache_ref (ZkrTreeCache *cache)
{
  g_return_val_if_fail (cache != NULL, NULL);
  zkr__cache_object_ref (&cache->object);
  return cache;
}

void
zkr_tree_cache_unref (ZkrTreeCache *cache)
{
  g_return_if_fail (cache != NULL);
  zkr__cache_object_unref (&cache->object);
}

gboolean
zkr_tree_cache_start (ZkrTreeCache *cache, GError **error)
{
  g_return_val_if_fail (cache != NULL, FALSE);
  return zkr__cache_object_start (&cache->object, error);
}

gboolean
zkr_tree_cache_wait_initialized (ZkrTreeCache *cache, int timeout_ms, GCancellable *cancellable,
                                 GError **error)
{
  g_return_val_if_fail (cache != NULL, FALSE);
  return zkr__cache_object_wait_initialized (&cache->object, timeout_ms, cancellable, error);
}

void
zkr_tree_cache_close (ZkrTreeCache *cache)
{
  g_return_if_fail (cache != NULL);
  zkr__cache_object_close (&cache->object);
}

guint
zkr_tree_cache_add_listener (ZkrTreeCache *cache, ZkrTreeCacheFunc func, gpointer user_data,
                             GDestroyNotify destroy)
{
  g_return_val_if_fail (cache != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__cache_hub_add (cache->object.hub, G_CALLBACK (func), user_data, destroy);
}

void
zkr_tree_cache_remove_listener (ZkrTreeCache *cache, guint id)
{
  g_return_if_fail (cache != NULL);
  zkr__cache_hub_remove (cache->object.hub, id);
}

GBytes *
zkr_tree_cache_get_data (ZkrTreeCache *cache, const char *path, ZkrStat *stat)
{
  g_return_val_if_fail (cache != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  return zkr__cache_object_get_data (&cache->object, path, stat);
}

char **
zkr_tree_cache_get_children (ZkrTreeCache *cache, const char *path)
{
  g_return_val_if_fail (cache != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  return zkr__cache_object_get_children (&cache->object, path);
}

guint
zkr_tree_cache_count (ZkrTreeCache *cache)
{
  g_return_val_if_fail (cache != NULL, 0);
  return zkr__cache_object_count (&cache->object);
}

/* ---- one node's direct children ------------------------------------ */

typedef struct {
  gpointer owner;              /* not owned: taken with zkr__ref_try for a call */
  gatomicrefcount *owner_ref;
  GDestroyNotify owner_unref;
  char *prefix;                /* "PARENT/" */
  ZkrCacheChildMarshal marshal;
  GCallback func;
  gpointer user_data;
  GDestroyNotify destroy;
} ChildListener;

static void
child_listener_free (gpointer data)
{
  ChildListener *listener = data;

  if (listener->destroy != NULL)
    listener->destroy (listener->user_data);
  g_free (listener->prefix);
  g_free (listener);
}

static void
child_heard (ZkrTreeCache *cache, const ZkrTreeCacheEvent *event, gpointer data)
{
  ChildListener *listener = data;
  const char *name;

  (void) cache;
  if (event->type != ZKR_TREE_CACHE_NODE_ADDED && event->type != ZKR_TREE_CACHE_NODE_UPDATED &&
      event->type != ZKR_TREE_CACHE_NODE_REMOVED)
    return;
  if (event->path == NULL || !g_str_has_prefix (event->path, listener->prefix))
    return;
  name = event->path + strlen (listener->prefix);
  if (*name == '\0' || strchr (name, '/') != NULL)
    return;
  /* The owner may be going (its last unref closes the cache, after which
   * no call starts): then this event is nobody's. */
  if (!zkr__ref_try (listener->owner_ref))
    return;
  listener->marshal (listener->func, listener->owner, event->type, name, event->data,
                     listener->user_data);
  listener->owner_unref (listener->owner);
}

guint
zkr__tree_cache_add_child_listener (ZkrTreeCache *cache, const char *parent, gpointer owner,
                                    gatomicrefcount *owner_ref, GDestroyNotify owner_unref,
                                    ZkrCacheChildMarshal marshal, GCallback func,
                                    gpointer user_data, GDestroyNotify destroy)
{
  ChildListener *listener = g_new0 (ChildListener, 1);

  listener->owner = owner;
  listener->owner_ref = owner_ref;
  listener->owner_unref = owner_unref;
  listener->prefix = strcmp (parent, "/") == 0 ? g_strdup ("/") : g_strconcat (parent, "/", NULL);
  listener->marshal = marshal;
  listener->func = func;
  listener->user_data = user_data;
  listener->destroy = destroy;
  return zkr_tree_cache_add_listener (cache, child_heard, listener, child_listener_free);
}
