/* zkr: a node cache (Curator's NodeCache): one node's data and stat kept
 * current in memory with watches, listeners told when it is created,
 * changed or deleted. The node need not exist.
 *
 * The same engine as zkr/tree-cache.h with a depth of 0, and the same
 * rules: paths under the session's namespace, returned without it; each
 * change reported once (CHANGED only when the node's mzxid moved; a node
 * deleted and created again unseen is DELETED then CREATED); the node read
 * again after RECONNECTED and on the new session after LOST; listeners in
 * the GMainContext that was thread-default when they were added; every
 * function from any thread, also from inside a listener. */
#pragma once

#include <gio/gio.h>
#include <zkr/macros.h>
#include <zkr/node.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrNodeCache ZkrNodeCache;

/**
 * ZkrNodeCacheEventType:
 * @ZKR_NODE_CACHE_CREATED: the node appeared (also at the first read, if
 *   it exists then)
 * @ZKR_NODE_CACHE_CHANGED: its data changed
 * @ZKR_NODE_CACHE_DELETED: it went
 * @ZKR_NODE_CACHE_INITIALIZED: the first read is done (once)
 * @ZKR_NODE_CACHE_CONNECTION_SUSPENDED, @ZKR_NODE_CACHE_CONNECTION_RECONNECTED,
 * @ZKR_NODE_CACHE_CONNECTION_LOST: as in ZkrTreeCacheEventType
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
 *   last data cached), NULL for the other events
 * @stat: the node's stat with @data, zeroes otherwise
 *
 * Borrowed for the listener's call.
 */
typedef struct {
  ZkrNodeCacheEventType type;
  GBytes *data;
  ZkrStat stat;
} ZkrNodeCacheEvent;

typedef void (*ZkrNodeCacheFunc) (ZkrNodeCache *cache, const ZkrNodeCacheEvent *event,
                                  gpointer user_data);

/**
 * zkr_node_cache_new:
 * Makes a cache of @path on @session (a reference is taken); nothing is
 * read before zkr_node_cache_start().
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming a bad @path.
 * Returns: (transfer full) (nullable): zkr_node_cache_unref() it.
 */
ZKR_API ZkrNodeCache *zkr_node_cache_new (ZkrSession *session, const char *path, GError **error);
ZKR_API ZkrNodeCache *zkr_node_cache_ref (ZkrNodeCache *cache);
/* The last unref closes the cache. Any thread, also from a listener. */
ZKR_API void zkr_node_cache_unref (ZkrNodeCache *cache);

/* As zkr_tree_cache_start(), zkr_tree_cache_wait_initialized() and
 * zkr_tree_cache_close(), with the same errors. */
ZKR_API gboolean zkr_node_cache_start (ZkrNodeCache *cache, GError **error);
ZKR_API gboolean zkr_node_cache_wait_initialized (ZkrNodeCache *cache, int timeout_ms,
                                                  GCancellable *cancellable, GError **error);
ZKR_API void zkr_node_cache_close (ZkrNodeCache *cache);

/* As zkr_tree_cache_add_listener() / _remove_listener(). */
ZKR_API guint zkr_node_cache_add_listener (ZkrNodeCache *cache, ZkrNodeCacheFunc func,
                                           gpointer user_data, GDestroyNotify destroy);
ZKR_API void zkr_node_cache_remove_listener (ZkrNodeCache *cache, guint id);

/**
 * zkr_node_cache_get_data:
 * @stat: (out) (optional): the cached stat
 * From memory, never waiting for the server.
 * Returns: (transfer full) (nullable): the cached data (empty for a node
 * without data), NULL when the node does not exist (as far as the cache
 * knows), is not read yet, or the cache is closed.
 */
ZKR_API GBytes *zkr_node_cache_get_data (ZkrNodeCache *cache, ZkrStat *stat);

/* "CREATED", ... (static). */
ZKR_API const char *zkr_node_cache_event_type_name (ZkrNodeCacheEventType type);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrNodeCache, zkr_node_cache_unref)

G_END_DECLS
