/* zkr: the service cache and provider of curator-x-discovery: the
 * instances of one service kept in memory by a ZkrTreeCache of BASE/NAME
 * (depth 1), and a provider that picks one of them by a strategy, leaving
 * out instances that are disabled or noted as failing (docs/design.md,
 * "Service discovery").
 *
 * Threads: every function may be called from any thread. Listeners run in
 * the GMainContext that was thread-default when they were added. Reads
 * never wait for the server.
 *
 * Ownership: both are reference-counted; a cache keeps a reference on its
 * session, a provider on its cache. The last unref of a cache closes it. */
#pragma once

#include <gio/gio.h>
#include <zkr/discovery.h>
#include <zkr/macros.h>

G_BEGIN_DECLS

typedef struct _ZkrServiceCache ZkrServiceCache;
typedef struct _ZkrServiceProvider ZkrServiceProvider;

/* Called after a change of the service's instances (one added, changed or
 * removed), in the listener's context. */
typedef void (*ZkrServiceCacheFunc) (ZkrServiceCache *cache, gpointer user_data);

/**
 * zkr_service_cache_new:
 * @discovery: where the service is (its session and base path)
 * @name: the service's name
 * Makes the cache; nothing is read before zkr_service_cache_start().
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming a bad @name.
 * Returns: (transfer full) (nullable): zkr_service_cache_unref() it.
 */
ZKR_API ZkrServiceCache *zkr_service_cache_new (ZkrServiceDiscovery *discovery,
                                                const char *name, GError **error);
ZKR_API ZkrServiceCache *zkr_service_cache_ref (ZkrServiceCache *cache);
/* NULL is ignored; the last unref closes the cache. */
ZKR_API void zkr_service_cache_unref (ZkrServiceCache *cache);
/* Starts reading in the background (add listeners first). Errors: those
 * of zkr_tree_cache_start(). */
ZKR_API gboolean zkr_service_cache_start (ZkrServiceCache *cache, GError **error);
/* Waits for the first full read, by the deadline (the tree cache's
 * zkr_tree_cache_wait_initialized(), its errors). */
ZKR_API gboolean zkr_service_cache_wait_initialized (ZkrServiceCache *cache, int timeout_ms,
                                                     GCancellable *cancellable,
                                                     GError **error);
/**
 * zkr_service_cache_dup_instances:
 * The instances cached now, sorted by node name. A node whose data is not
 * an instance is left out, with one g_warning() naming its path per
 * version of its data.
 * Returns: (transfer full): a GPtrArray of ZkrServiceInstance that frees
 * them (empty before the first read or after close).
 */
ZKR_API GPtrArray *zkr_service_cache_dup_instances (ZkrServiceCache *cache);
/* @destroy: (nullable): runs on @user_data in the listener's context once
 * the listener is removed or the cache goes. Returns: an id (> 0). */
ZKR_API guint zkr_service_cache_add_listener (ZkrServiceCache *cache, ZkrServiceCacheFunc func,
                                              gpointer user_data, GDestroyNotify destroy);
/* No call of that listener starts after this returns. */
ZKR_API void zkr_service_cache_remove_listener (ZkrServiceCache *cache, guint id);
/* Stops the cache: no listener call starts after this returns; the
 * instances are empty from then on. Idempotent. */
ZKR_API void zkr_service_cache_close (ZkrServiceCache *cache);

/**
 * ZkrProviderStrategy:
 * @ZKR_PROVIDER_ROUND_ROBIN: each instance in turn (in node-name order)
 * @ZKR_PROVIDER_RANDOM: any instance, uniformly
 * @ZKR_PROVIDER_STICKY: the same instance while it is there and usable,
 *   then the next one round-robin (Curator's StickyStrategy over
 *   RoundRobinStrategy)
 */
typedef enum {
  ZKR_PROVIDER_ROUND_ROBIN,
  ZKR_PROVIDER_RANDOM,
  ZKR_PROVIDER_STICKY,
} ZkrProviderStrategy;

/* Curator's DownInstancePolicy defaults. */
#define ZKR_PROVIDER_DEFAULT_DOWN_MS 30000
#define ZKR_PROVIDER_DEFAULT_ERROR_THRESHOLD 2

/**
 * zkr_service_provider_new:
 * @cache: (transfer none): the instances to pick from (a reference is
 *   taken; starting it is the caller's)
 * @strategy: a ZkrProviderStrategy
 * @down_ms: how long an instance stays left out once it reached
 *   @error_threshold errors, counted from its first noted error (> 0)
 * @error_threshold: the errors that leave an instance out (>= 1)
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming a bad @strategy, @down_ms or
 * @error_threshold.
 * Returns: (transfer full) (nullable): zkr_service_provider_unref() it.
 */
ZKR_API ZkrServiceProvider *zkr_service_provider_new (ZkrServiceCache *cache,
                                                      ZkrProviderStrategy strategy,
                                                      int down_ms, guint error_threshold,
                                                      GError **error);
ZKR_API ZkrServiceProvider *zkr_service_provider_ref (ZkrServiceProvider *provider);
/* NULL is ignored. */
ZKR_API void zkr_service_provider_unref (ZkrServiceProvider *provider);
/**
 * zkr_service_provider_get_instance:
 * Picks one of the cache's instances that are enabled and not left out
 * by note_error.
 * Returns: (transfer full) (nullable): a copy; NULL when there is none.
 */
ZKR_API ZkrServiceInstance *zkr_service_provider_get_instance (ZkrServiceProvider *provider);
/* Every usable instance (as get_instance chooses from), sorted by node
 * name. (transfer full): a GPtrArray that frees them. */
ZKR_API GPtrArray *zkr_service_provider_get_all_instances (ZkrServiceProvider *provider);
/* Notes that a call to @instance (matched by its id) failed; at the
 * threshold it is left out for down_ms. */
ZKR_API void zkr_service_provider_note_error (ZkrServiceProvider *provider,
                                              const ZkrServiceInstance *instance);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrServiceCache, zkr_service_cache_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrServiceProvider, zkr_service_provider_unref)

G_END_DECLS
