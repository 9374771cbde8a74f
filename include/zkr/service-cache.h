/**
 * SECTION:service-cache
 * @title: Service cache and provider
 * @short_description: a service's instances kept in memory, and a
 *   provider that picks one
 * @include: zkr/zkr.h
 *
 * The service cache and provider of curator-x-discovery: the
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
 * session, a provider on its cache. The last unref of a cache closes it.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/discovery.h>
#include <zkr/macros.h>

G_BEGIN_DECLS

/**
 * ZkrServiceCache:
 *
 * The instances of one service kept in memory: opaque and
 * reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrServiceCache ZkrServiceCache;
/**
 * ZkrServiceProvider:
 *
 * Picks one instance of a #ZkrServiceCache by a strategy: opaque and
 * reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrServiceProvider ZkrServiceProvider;

/**
 * ZkrServiceCacheFunc:
 * @cache: the cache (valid while this runs)
 * @user_data: as given to zkr_service_cache_add_listener()
 *
 * A cache listener, called after a change of the service's instances (one
 * added, changed or removed).
 *
 * Thread: runs in the GMainContext that was thread-default when the
 * listener was added.
 *
 * Since: 0.1
 */
typedef void (*ZkrServiceCacheFunc) (ZkrServiceCache *cache, gpointer user_data);

/**
 * zkr_service_cache_new:
 * @discovery: where the service is (its session and base path)
 * @name: the service's name
 * @error: return location for a #GError, or %NULL
 *
 * Makes the cache; nothing is read before zkr_service_cache_start().
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @name.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the cache; zkr_service_cache_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceCache *zkr_service_cache_new (ZkrServiceDiscovery *discovery,
                                                const char *name, GError **error);
/**
 * zkr_service_cache_ref:
 * @cache: a #ZkrServiceCache
 *
 * Takes a reference on @cache.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @cache.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceCache *zkr_service_cache_ref (ZkrServiceCache *cache);
/**
 * zkr_service_cache_unref:
 * @cache: (nullable) (transfer full): a #ZkrServiceCache
 *
 * Drops a reference; the last unref closes the cache. %NULL is ignored.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_cache_unref (ZkrServiceCache *cache);
/**
 * zkr_service_cache_start:
 * @cache: a #ZkrServiceCache
 * @error: return location for a #GError, or %NULL
 *
 * Starts reading in the background (add listeners first).
 *
 * Errors: those of zkr_tree_cache_start().
 *
 * Thread: any thread; returns at once.
 *
 * Returns: %TRUE when started.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_cache_start (ZkrServiceCache *cache, GError **error);
/**
 * zkr_service_cache_wait_initialized:
 * @cache: a #ZkrServiceCache
 * @timeout_ms: the deadline (negative: none; 0: just look)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Waits for the first full read, by the deadline (the tree cache's
 * zkr_tree_cache_wait_initialized()).
 *
 * Errors: those of zkr_tree_cache_wait_initialized() (%G_IO_ERROR_CANCELLED
 * when @cancellable is cancelled).
 *
 * Thread: any thread; blocks it.
 *
 * Returns: %TRUE once the first read is done.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_cache_wait_initialized (ZkrServiceCache *cache, int timeout_ms,
                                                     GCancellable *cancellable,
                                                     GError **error);
/**
 * zkr_service_cache_dup_instances:
 * @cache: a #ZkrServiceCache
 *
 * The instances cached now, sorted by node name. A node whose data is not
 * an instance is left out, with one g_warning() naming its path per
 * write of its data (its mzxid: a node deleted and created again is
 * another node, warned about again). An instance node deleted and created
 * again, at any version, is read anew: what is given is always the data
 * of the node the server has now. Never waits for the server.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (element-type ZkrServiceInstance): an array of
 *   #ZkrServiceInstance that frees them (empty before the first read or
 *   after close).
 *
 * Since: 0.1
 */
ZKR_API GPtrArray *zkr_service_cache_dup_instances (ZkrServiceCache *cache);
/**
 * zkr_service_cache_add_listener:
 * @cache: a #ZkrServiceCache
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data in the listener's context once
 *   the listener is removed or the cache goes
 *
 * Adds a listener, told after each change of the instances.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Returns: an id (> 0) for zkr_service_cache_remove_listener().
 *
 * Since: 0.1
 */
ZKR_API guint zkr_service_cache_add_listener (ZkrServiceCache *cache, ZkrServiceCacheFunc func,
                                              gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_service_cache_remove_listener:
 * @cache: a #ZkrServiceCache
 * @id: an id zkr_service_cache_add_listener() returned
 *
 * Removes a listener: no call of it starts after this returns.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_cache_remove_listener (ZkrServiceCache *cache, guint id);
/**
 * zkr_service_cache_close:
 * @cache: a #ZkrServiceCache
 *
 * Stops the cache: no listener call starts after this returns; the
 * instances are empty from then on. Idempotent.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_cache_close (ZkrServiceCache *cache);

/**
 * ZkrProviderStrategy:
 * @ZKR_PROVIDER_ROUND_ROBIN: each instance in turn (in node-name order)
 * @ZKR_PROVIDER_RANDOM: any instance, uniformly
 * @ZKR_PROVIDER_STICKY: the same instance while it is there and usable,
 *   then the next one round-robin (Curator's StickyStrategy over
 *   RoundRobinStrategy)
 *
 * How a #ZkrServiceProvider picks an instance.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_PROVIDER_ROUND_ROBIN,
  ZKR_PROVIDER_RANDOM,
  ZKR_PROVIDER_STICKY,
} ZkrProviderStrategy;

/**
 * ZKR_PROVIDER_DEFAULT_DOWN_MS:
 *
 * How long an instance stays left out once it reached the error
 * threshold, in ms: Curator's DownInstancePolicy default.
 *
 * Since: 0.1
 */
#define ZKR_PROVIDER_DEFAULT_DOWN_MS 30000
/**
 * ZKR_PROVIDER_DEFAULT_ERROR_THRESHOLD:
 *
 * How many noted errors leave an instance out: Curator's
 * DownInstancePolicy default.
 *
 * Since: 0.1
 */
#define ZKR_PROVIDER_DEFAULT_ERROR_THRESHOLD 2

/**
 * zkr_service_provider_new:
 * @cache: (transfer none): the instances to pick from (a reference is
 *   taken; starting it is the caller's)
 * @strategy: a #ZkrProviderStrategy
 * @down_ms: how long an instance stays left out once it reached
 *   @error_threshold errors, counted from its first noted error (> 0)
 * @error_threshold: the errors that leave an instance out (at least 1)
 * @error: return location for a #GError, or %NULL
 *
 * Makes a provider over @cache.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @strategy, @down_ms or
 * @error_threshold.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the provider;
 *   zkr_service_provider_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceProvider *zkr_service_provider_new (ZkrServiceCache *cache,
                                                      ZkrProviderStrategy strategy,
                                                      int down_ms, guint error_threshold,
                                                      GError **error);
/**
 * zkr_service_provider_ref:
 * @provider: a #ZkrServiceProvider
 *
 * Takes a reference on @provider.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @provider.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceProvider *zkr_service_provider_ref (ZkrServiceProvider *provider);
/**
 * zkr_service_provider_unref:
 * @provider: (nullable) (transfer full): a #ZkrServiceProvider
 *
 * Drops a reference. %NULL is ignored.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_provider_unref (ZkrServiceProvider *provider);
/**
 * zkr_service_provider_get_instance:
 * @provider: a #ZkrServiceProvider
 *
 * Picks one of the cache's instances that are enabled and not left out
 * by zkr_service_provider_note_error(). Never waits for the server.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): a copy; %NULL when there is none;
 *   zkr_service_instance_free() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceInstance *zkr_service_provider_get_instance (ZkrServiceProvider *provider);
/**
 * zkr_service_provider_get_all_instances:
 * @provider: a #ZkrServiceProvider
 *
 * Every usable instance (as zkr_service_provider_get_instance() chooses
 * from), sorted by node name.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (element-type ZkrServiceInstance): an array of
 *   #ZkrServiceInstance that frees them.
 *
 * Since: 0.1
 */
ZKR_API GPtrArray *zkr_service_provider_get_all_instances (ZkrServiceProvider *provider);
/**
 * zkr_service_provider_note_error:
 * @provider: a #ZkrServiceProvider
 * @instance: the instance a call to failed (matched by its id)
 *
 * Notes that a call to @instance failed; at the threshold it is left out
 * for the provider's down_ms.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_provider_note_error (ZkrServiceProvider *provider,
                                              const ZkrServiceInstance *instance);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrServiceCache, zkr_service_cache_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrServiceProvider, zkr_service_provider_unref)

G_END_DECLS
