/* zkr: curator-x-discovery's ServiceCache and ServiceProvider: the
 * instances of BASE/NAME read from a tree cache of depth 1 and parsed on
 * each read; a provider picking one by round-robin, random or sticky,
 * leaving out disabled instances and those noted as failing (Curator's
 * DownInstanceManager) (docs/design.md, "Service discovery"). */
#include <string.h>

#include "cache-private.h"
#include "discovery-private.h"
#include "path.h"
#include "ref.h"

#include <zkr/error.h>
#include <zkr/service-cache.h>
#include <zkr/tree-cache.h>

struct _ZkrServiceCache {
  gatomicrefcount ref;
  ZkrTreeCache *tree;         /* (owned) */
  char *service_path;         /* BASE/NAME */
  GMutex lock;
  GHashTable *warned;         /* "mzxid path" already warned about: lock */
};


/* Curator's DownInstanceManager entry: errors counted from the first. */
typedef struct {
  gint64 first_error_us;      /* monotonic */
  guint errors;
} DownStatus;

struct _ZkrServiceProvider {
  gatomicrefcount ref;
  ZkrServiceCache *cache;     /* (owned) */
  ZkrProviderStrategy strategy;
  gint64 down_us;
  guint error_threshold;
  GMutex lock;
  guint next;                 /* round-robin position: lock */
  char *sticky_id;            /* (nullable): lock */
  GHashTable *down;           /* id -> DownStatus: lock */
};

/* ---- the cache -------------------------------------------------------------------- */

ZkrServiceCache *
zkr_service_cache_new (ZkrServiceDiscovery *discovery, const char *name, GError **error)
{
  ZkrServiceCache *cache;
  ZkrTreeCache *tree;
  g_autofree char *service_path = NULL;

  g_return_val_if_fail (discovery != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  if (!zkr__discovery_instance_validate_name ("service name", name, error))
    return NULL;
  service_path = zkr__path_join (zkr_service_discovery_get_base_path (discovery), name);
  tree = zkr_tree_cache_new (zkr__discovery_get_session (discovery), service_path, 1,
                             error);
  if (tree == NULL)
    return NULL;
  cache = g_new0 (ZkrServiceCache, 1);
  g_atomic_ref_count_init (&cache->ref);
  cache->tree = tree;
  cache->service_path = g_steal_pointer (&service_path);
  g_mutex_init (&cache->lock);
  cache->warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return cache;
}

ZkrServiceCache *
zkr_service_cache_ref (ZkrServiceCache *cache)
{
  g_return_val_if_fail (cache != NULL, NULL);
  g_atomic_ref_count_inc (&cache->ref);
  return cache;
}

void
zkr_service_cache_unref (ZkrServiceCache *cache)
{
  if (cache == NULL || !g_atomic_ref_count_dec (&cache->ref))
    return;
  /* Closed first: no listener call, which could reach this struct,
   * starts after it. */
  zkr_tree_cache_close (cache->tree);
  zkr_tree_cache_unref (cache->tree);
  g_hash_table_unref (cache->warned);
  g_mutex_clear (&cache->lock);
  g_free (cache->service_path);
  g_free (cache);
}

gboolean
zkr_service_cache_start (ZkrServiceCache *cache, GError **error)
{
  g_return_val_if_fail (cache != NULL, FALSE);
  return zkr_tree_cache_start (cache->tree, error);
}

gboolean
zkr_service_cache_wait_initialized (ZkrServiceCache *cache, int timeout_ms,
                                    GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (cache != NULL, FALSE);
  return zkr_tree_cache_wait_initialized (cache->tree, timeout_ms, cancellable, error);
}

void
zkr_service_cache_close (ZkrServiceCache *cache)
{
  g_return_if_fail (cache != NULL);
  zkr_tree_cache_close (cache->tree);
}

/* One warning per version of a node's data, not one per read. */
static void
warn_once (ZkrServiceCache *cache, const char *path, const ZkrStat *stat, const GError *error)
{
  char *key = g_strdup_printf ("%" G_GINT64_FORMAT " %s", stat->mzxid, path);
  gboolean first;

  g_mutex_lock (&cache->lock);
  first = g_hash_table_add (cache->warned, key);
  g_mutex_unlock (&cache->lock);
  if (first)
    {
      g_autofree char *quoted = zkr__path_quote_value (path, -1);

      g_warning ("service cache: skipped %s: %s", quoted, error->message);
    }
}

GPtrArray *
zkr_service_cache_dup_instances (ZkrServiceCache *cache)
{
  GPtrArray *instances;
  g_auto (GStrv) ids = NULL;

  g_return_val_if_fail (cache != NULL, NULL);
  instances = g_ptr_array_new_with_free_func ((GDestroyNotify) zkr_service_instance_free);
  ids = zkr_tree_cache_get_children (cache->tree, cache->service_path);
  for (guint i = 0; ids != NULL && ids[i] != NULL; i++)
    {
      g_autofree char *path = zkr__path_join (cache->service_path, ids[i]);
      g_autoptr (GError) error = NULL;
      ZkrStat stat = { 0 };
      g_autoptr (GBytes) data = zkr_tree_cache_get_data (cache->tree, path, &stat);
      gsize len = 0;
      const void *bytes = data != NULL ? g_bytes_get_data (data, &len) : NULL;
      ZkrServiceInstance *instance;

      if (data == NULL)
        continue;               /* gone between the two reads */
      instance = zkr_service_instance_from_json (bytes != NULL ? bytes : "", len, &error);
      if (instance != NULL)
        g_ptr_array_add (instances, instance);
      else
        warn_once (cache, path, &stat, error);
    }
  return instances;
}

/* A node event of a direct child of BASE/NAME is a change of instances. */
static void
instances_marshal (GCallback func, gpointer owner, ZkrTreeCacheEventType type, const char *id,
                   GBytes *data, gpointer user_data)
{
  (void) type;
  (void) id;
  (void) data;
  ((ZkrServiceCacheFunc) func) (owner, user_data);
}

guint
zkr_service_cache_add_listener (ZkrServiceCache *cache, ZkrServiceCacheFunc func,
                                gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (cache != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__tree_cache_add_child_listener (cache->tree, cache->service_path, cache, &cache->ref,
                                             (GDestroyNotify) zkr_service_cache_unref,
                                             instances_marshal, G_CALLBACK (func), user_data,
                                             destroy);
}

void
zkr_service_cache_remove_listener (ZkrServiceCache *cache, guint id)
{
  g_return_if_fail (cache != NULL);
  zkr_tree_cache_remove_listener (cache->tree, id);
}

/* ---- the provider ------------------------------------------------------------------ */

ZkrServiceProvider *
zkr_service_provider_new (ZkrServiceCache *cache, ZkrProviderStrategy strategy, int down_ms,
                          guint error_threshold, GError **error)
{
  ZkrServiceProvider *provider;

  g_return_val_if_fail (cache != NULL, NULL);
  if ((guint) strategy > ZKR_PROVIDER_STICKY)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid provider strategy %d: not a ZkrProviderStrategy", (int) strategy);
      return NULL;
    }
  if (down_ms <= 0 || error_threshold == 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid %s %d: must be at least 1", down_ms <= 0 ? "down_ms" : "error_threshold",
                   down_ms <= 0 ? down_ms : (int) error_threshold);
      return NULL;
    }
  provider = g_new0 (ZkrServiceProvider, 1);
  g_atomic_ref_count_init (&provider->ref);
  provider->cache = zkr_service_cache_ref (cache);
  provider->strategy = strategy;
  provider->down_us = (gint64) down_ms * 1000;
  provider->error_threshold = error_threshold;
  g_mutex_init (&provider->lock);
  provider->down = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return provider;
}

ZkrServiceProvider *
zkr_service_provider_ref (ZkrServiceProvider *provider)
{
  g_return_val_if_fail (provider != NULL, NULL);
  g_atomic_ref_count_inc (&provider->ref);
  return provider;
}

void
zkr_service_provider_unref (ZkrServiceProvider *provider)
{
  if (provider == NULL || !g_atomic_ref_count_dec (&provider->ref))
    return;
  zkr_service_cache_unref (provider->cache);
  g_hash_table_unref (provider->down);
  g_free (provider->sticky_id);
  g_mutex_clear (&provider->lock);
  g_free (provider);
}

/* Forgets the errors older than down_ms (Curator purges them likewise,
 * counting from an instance's first error). Under the lock. */
static void
down_purge (ZkrServiceProvider *provider)
{
  gint64 now = g_get_monotonic_time ();
  GHashTableIter iter;
  gpointer status;

  g_hash_table_iter_init (&iter, provider->down);
  while (g_hash_table_iter_next (&iter, NULL, &status))
    if (now - ((DownStatus *) status)->first_error_us >= provider->down_us)
      g_hash_table_iter_remove (&iter);
}

/* Under the lock. */
static gboolean
usable (ZkrServiceProvider *provider, const ZkrServiceInstance *instance)
{
  DownStatus *status = g_hash_table_lookup (provider->down,
                                            zkr_service_instance_get_id (instance));

  return zkr_service_instance_is_enabled (instance)
         && (status == NULL || status->errors < provider->error_threshold);
}

/* The usable instances, in node-name order. Takes the lock. */
static GPtrArray *
usable_instances (ZkrServiceProvider *provider)
{
  GPtrArray *all = zkr_service_cache_dup_instances (provider->cache);

  g_mutex_lock (&provider->lock);
  down_purge (provider);
  for (guint i = all->len; i > 0; i--)
    if (!usable (provider, g_ptr_array_index (all, i - 1)))
      g_ptr_array_remove_index (all, i - 1);
  g_mutex_unlock (&provider->lock);
  return all;
}

GPtrArray *
zkr_service_provider_get_all_instances (ZkrServiceProvider *provider)
{
  g_return_val_if_fail (provider != NULL, NULL);
  return usable_instances (provider);
}

/* The index of the instance with @id, or -1. */
static int
index_of_id (GPtrArray *instances, const char *id)
{
  for (guint i = 0; id != NULL && i < instances->len; i++)
    if (strcmp (zkr_service_instance_get_id (g_ptr_array_index (instances, i)), id) == 0)
      return (int) i;
  return -1;
}

/* Under the lock; @instances not empty. */
static guint
pick (ZkrServiceProvider *provider, GPtrArray *instances)
{
  int sticky;

  switch (provider->strategy)
    {
    case ZKR_PROVIDER_RANDOM:
      return (guint) g_random_int_range (0, (gint32) instances->len);
    case ZKR_PROVIDER_STICKY:
      sticky = index_of_id (instances, provider->sticky_id);
      if (sticky >= 0)
        return (guint) sticky;
      sticky = (int) (provider->next++ % instances->len);
      g_free (provider->sticky_id);
      provider->sticky_id = g_strdup (
        zkr_service_instance_get_id (g_ptr_array_index (instances, (guint) sticky)));
      return (guint) sticky;
    case ZKR_PROVIDER_ROUND_ROBIN:
    default:
      return provider->next++ % instances->len;
    }
}

ZkrServiceInstance *
zkr_service_provider_get_instance (ZkrServiceProvider *provider)
{
  g_autoptr (GPtrArray) instances = NULL;
  ZkrServiceInstance *chosen = NULL;

  g_return_val_if_fail (provider != NULL, NULL);
  instances = usable_instances (provider);
  if (instances->len == 0)
    return NULL;
  g_mutex_lock (&provider->lock);
  chosen = g_ptr_array_steal_index (instances, pick (provider, instances));
  g_mutex_unlock (&provider->lock);
  return chosen;
}

void
zkr_service_provider_note_error (ZkrServiceProvider *provider,
                                 const ZkrServiceInstance *instance)
{
  const char *id;
  DownStatus *status;

  g_return_if_fail (provider != NULL);
  g_return_if_fail (instance != NULL);
  id = zkr_service_instance_get_id (instance);
  g_mutex_lock (&provider->lock);
  down_purge (provider);
  status = g_hash_table_lookup (provider->down, id);
  if (status == NULL)
    {
      status = g_new0 (DownStatus, 1);
      status->first_error_us = g_get_monotonic_time ();
      g_hash_table_insert (provider->down, g_strdup (id), status);
    }
  status->errors++;
  g_mutex_unlock (&provider->lock);
}
