/**
 * SECTION:node-cache
 * @title: ZkrNodeCache
 * @short_description: one node's data and stat kept current in memory,
 *   Curator's NodeCache
 * @include: zkr/zkr.h
 *
 * A node cache (Curator's NodeCache): one node's data and stat kept
 * current in memory with watches, listeners told when it is created,
 * changed or deleted. The node need not exist.
 *
 * The same engine as zkr/tree-cache.h with a depth of 0, and the same
 * rules: paths under the session's namespace, returned without it; each
 * change reported once (CHANGED only when the node's mzxid moved); the node
 * known by its creation (its czxid), never by its version alone: a node
 * deleted and created again, unseen or at a lower version (even while the
 * session was expired), is DELETED then CREATED with the new data; the node read
 * again after RECONNECTED and on the new session after LOST; listeners in
 * the GMainContext that was thread-default when they were added; every
 * function from any thread, also from inside a listener.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/macros.h>
#include <zkr/node.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrNodeCache:
 *
 * A node cache: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrNodeCache ZkrNodeCache;

/**
 * ZkrNodeCacheEventType:
 * @ZKR_NODE_CACHE_CREATED: the node appeared (also at the first read, if
 *   it exists then)
 * @ZKR_NODE_CACHE_CHANGED: its data changed
 * @ZKR_NODE_CACHE_DELETED: it went
 * @ZKR_NODE_CACHE_INITIALIZED: the first read is done (once)
 * @ZKR_NODE_CACHE_CONNECTION_SUSPENDED: the session is SUSPENDED (as
 *   %ZKR_TREE_CACHE_CONNECTION_SUSPENDED)
 * @ZKR_NODE_CACHE_CONNECTION_RECONNECTED: the session is connected again
 *   (as %ZKR_TREE_CACHE_CONNECTION_RECONNECTED)
 * @ZKR_NODE_CACHE_CONNECTION_LOST: the session is LOST (as
 *   %ZKR_TREE_CACHE_CONNECTION_LOST)
 *
 * What a node cache's listener is told.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_NODE_CACHE_CREATED,
  ZKR_NODE_CACHE_CHANGED,
  ZKR_NODE_CACHE_DELETED,
  ZKR_NODE_CACHE_INITIALIZED,
  ZKR_NODE_CACHE_CONNECTION_SUSPENDED,
  ZKR_NODE_CACHE_CONNECTION_RECONNECTED,
  ZKR_NODE_CACHE_CONNECTION_LOST,
} ZkrNodeCacheEventType;

/**
 * ZkrNodeCacheEvent:
 * @type: what happened
 * @data: (nullable): the node's data (CREATED, CHANGED; for DELETED the
 *   last data cached), %NULL for the other events
 * @stat: the node's stat with @data, zeroes otherwise
 *
 * One event. Borrowed for the listener's call.
 *
 * Since: 0.1
 */
typedef struct {
  ZkrNodeCacheEventType type;
  GBytes *data;
  ZkrStat stat;
} ZkrNodeCacheEvent;

/**
 * ZkrNodeCacheFunc:
 * @cache: the cache (valid while this runs)
 * @event: (transfer none): what happened, borrowed for the call
 * @user_data: as given to zkr_node_cache_add_listener()
 *
 * A node cache's listener, told of each event once, in order. It may
 * remove itself, close or unref the cache.
 *
 * Thread: runs in the GMainContext that was thread-default when the
 * listener was added.
 *
 * Since: 0.1
 */
typedef void (*ZkrNodeCacheFunc) (ZkrNodeCache *cache, const ZkrNodeCacheEvent *event,
                                  gpointer user_data);

/**
 * zkr_node_cache_new:
 * @session: the session (a reference is taken)
 * @path: the node to cache (it need not exist)
 * @error: return location for a #GError, or %NULL
 *
 * Makes a cache of @path on @session; nothing is read before
 * zkr_node_cache_start().
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the cache; zkr_node_cache_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrNodeCache *zkr_node_cache_new (ZkrSession *session, const char *path, GError **error);
/**
 * zkr_node_cache_ref:
 * @cache: a #ZkrNodeCache
 *
 * Takes a reference on @cache.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @cache.
 *
 * Since: 0.1
 */
ZKR_API ZkrNodeCache *zkr_node_cache_ref (ZkrNodeCache *cache);
/**
 * zkr_node_cache_unref:
 * @cache: (transfer full): a #ZkrNodeCache
 *
 * Drops a reference. The last unref closes the cache.
 *
 * Thread: any thread, also from a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_cache_unref (ZkrNodeCache *cache);

/**
 * zkr_node_cache_start:
 * @cache: a #ZkrNodeCache
 * @error: return location for a #GError, or %NULL
 *
 * Starts reading the node in the background, as zkr_tree_cache_start().
 * Add the listeners first to hear the first read.
 *
 * Errors: as zkr_tree_cache_start(): %ZKR_ERROR_INVALID_ARGUMENT if the cache
 * was started or closed before; %ZKR_ERROR_SESSION_CLOSED if the session is
 * closed.
 *
 * Thread: any thread; returns at once.
 *
 * Returns: %TRUE when started.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_cache_start (ZkrNodeCache *cache, GError **error);
/**
 * zkr_node_cache_wait_initialized:
 * @cache: a started #ZkrNodeCache
 * @timeout_ms: the deadline (negative: none; 0: just look)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until the first read is done (INITIALIZED), as
 * zkr_tree_cache_wait_initialized().
 *
 * Errors: those of zkr_tree_cache_wait_initialized() (%ZKR_ERROR_TIMEOUT,
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled,
 * %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_INVALID_ARGUMENT).
 *
 * Thread: any thread; blocks it. Not from a listener of this cache's context
 * if that context's events are needed.
 *
 * Returns: %TRUE once the first read is done.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_cache_wait_initialized (ZkrNodeCache *cache, int timeout_ms,
                                                  GCancellable *cancellable, GError **error);
/**
 * zkr_node_cache_close:
 * @cache: a #ZkrNodeCache
 *
 * Stops the cache, as zkr_tree_cache_close(): no listener call starts
 * after this returns. Idempotent.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_cache_close (ZkrNodeCache *cache);

/**
 * zkr_node_cache_add_listener:
 * @cache: a #ZkrNodeCache
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data in the listener's context when
 *   the listener is removed or the cache goes
 *
 * Adds a listener, as zkr_tree_cache_add_listener().
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Returns: an id for zkr_node_cache_remove_listener() (> 0).
 *
 * Since: 0.1
 */
ZKR_API guint zkr_node_cache_add_listener (ZkrNodeCache *cache, ZkrNodeCacheFunc func,
                                           gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_node_cache_remove_listener:
 * @cache: a #ZkrNodeCache
 * @id: an id zkr_node_cache_add_listener() returned
 *
 * Removes a listener: no call of it starts after this returns.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_cache_remove_listener (ZkrNodeCache *cache, guint id);

/**
 * zkr_node_cache_get_data:
 * @cache: a #ZkrNodeCache
 * @stat: (out) (optional): the cached stat
 *
 * The cached data, from memory, never waiting for the server.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the cached data (empty for a node
 *   without data), %NULL when the node does not exist (as far as the cache
 *   knows), is not read yet, or the cache is closed; g_bytes_unref() it.
 *
 * Since: 0.1
 */
ZKR_API GBytes *zkr_node_cache_get_data (ZkrNodeCache *cache, ZkrStat *stat);

/**
 * zkr_node_cache_event_type_name:
 * @type: a #ZkrNodeCacheEventType
 *
 * The name of an event type, for logs.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): "CREATED", ..., or "UNKNOWN" for a value outside
 *   the enum; a static string.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_node_cache_event_type_name (ZkrNodeCacheEventType type);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrNodeCache, zkr_node_cache_unref)

G_END_DECLS
