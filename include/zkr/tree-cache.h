/**
 * SECTION:tree-cache
 * @title: ZkrTreeCache
 * @short_description: a subtree mirrored in memory, Curator's TreeCache
 * @include: zkr/zkr.h
 *
 * A tree cache (Curator's TreeCache): a subtree of a session's nodes,
 * to a chosen depth, mirrored in memory and kept current with watches;
 * reads served from memory, listeners told of every change.
 *
 * Paths are absolute ZooKeeper paths under the session's namespace and are
 * returned without it (as in zkr/node.h). The root is depth 0; a cache of
 * @max_depth N holds the root and the nodes at most N levels below it
 * (-1: the whole subtree). The root need not exist: it is added once it is
 * created, and removed (with everything under it) when it is deleted.
 *
 * Events, in order, each once: NODE_ADDED when a node is first seen (the
 * first full read reports every node, root first, each parent before its
 * children), NODE_UPDATED when a node's data changed (its mzxid moved: a
 * read that returns what is cached reports nothing), NODE_REMOVED when a
 * node went (children before their parent; the event carries the last
 * data cached). A node is known by its creation (its czxid), never by its
 * version alone: one deleted and created again, whatever its new version
 * (lower too), also while no watch could see it (a partition, an expired
 * session), is reported NODE_REMOVED (with its subtree) and then
 * NODE_ADDED with its new data, since it is not the same node. INITIALIZED once, after the first full read; the
 * CONNECTION_* events relay the session's SUSPENDED, RECONNECTED (also for
 * the new session after LOST) and LOST.
 *
 * Resynchronising: after RECONNECTED, and on the new session after LOST
 * (which has no watches), the cache reads the whole subtree again and
 * reports only the differences, so that it ends equal to the server's
 * tree. While SUSPENDED or LOST the cache keeps what it had.
 *
 * Threads: every function may be called from any thread. Listeners run in
 * the GMainContext that was thread-default when they were added, never on a
 * ZooKeeper or worker thread; a listener may remove itself, close or unref
 * the cache. Reads (get_data, get_children) take a lock for a moment and
 * never wait for the server.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/macros.h>
#include <zkr/node.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrTreeCache:
 *
 * A tree cache: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrTreeCache ZkrTreeCache;

/**
 * ZkrTreeCacheEventType:
 * @ZKR_TREE_CACHE_NODE_ADDED: a node entered the cache
 * @ZKR_TREE_CACHE_NODE_UPDATED: a cached node's data changed
 * @ZKR_TREE_CACHE_NODE_REMOVED: a node left the cache
 * @ZKR_TREE_CACHE_INITIALIZED: the first full read is done (once)
 * @ZKR_TREE_CACHE_CONNECTION_SUSPENDED: the session is SUSPENDED
 * @ZKR_TREE_CACHE_CONNECTION_RECONNECTED: the session is connected again
 *   (RECONNECTED, or CONNECTED with a new session after LOST)
 * @ZKR_TREE_CACHE_CONNECTION_LOST: the session is LOST
 *
 * What a tree cache's listener is told.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_TREE_CACHE_NODE_ADDED,
  ZKR_TREE_CACHE_NODE_UPDATED,
  ZKR_TREE_CACHE_NODE_REMOVED,
  ZKR_TREE_CACHE_INITIALIZED,
  ZKR_TREE_CACHE_CONNECTION_SUSPENDED,
  ZKR_TREE_CACHE_CONNECTION_RECONNECTED,
  ZKR_TREE_CACHE_CONNECTION_LOST,
} ZkrTreeCacheEventType;

/**
 * ZkrTreeCacheEvent:
 * @type: what happened
 * @path: (nullable): the node (NODE_* events), without the namespace
 * @data: (nullable): the node's data (NODE_* events; for REMOVED the last
 *   data cached); an empty #GBytes for a node without data
 * @stat: the node's stat (NODE_* events), zeroes otherwise
 *
 * One event. Borrowed for the listener's call: g_bytes_ref() the data to
 * keep it.
 *
 * Since: 0.1
 */
typedef struct {
  ZkrTreeCacheEventType type;
  const char *path;
  GBytes *data;
  ZkrStat stat;
} ZkrTreeCacheEvent;

/**
 * ZkrTreeCacheFunc:
 * @cache: the cache (valid while this runs)
 * @event: (transfer none): what happened, borrowed for the call
 * @user_data: as given to zkr_tree_cache_add_listener()
 *
 * A tree cache's listener, told of each event once, in order. It may
 * remove itself, close or unref the cache.
 *
 * Thread: runs in the GMainContext that was thread-default when the
 * listener was added, never on a ZooKeeper or worker thread.
 *
 * Since: 0.1
 */
typedef void (*ZkrTreeCacheFunc) (ZkrTreeCache *cache, const ZkrTreeCacheEvent *event,
                                  gpointer user_data);

/**
 * zkr_tree_cache_new:
 * @session: the session (a reference is taken)
 * @path: the root of the subtree
 * @max_depth: the deepest level cached below the root (0: the root only),
 *   or -1 for all
 * @error: return location for a #GError, or %NULL
 *
 * Makes a cache; nothing is read before zkr_tree_cache_start().
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @path or @max_depth.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the cache; zkr_tree_cache_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrTreeCache *zkr_tree_cache_new (ZkrSession *session, const char *path, int max_depth,
                                          GError **error);
/**
 * zkr_tree_cache_ref:
 * @cache: a #ZkrTreeCache
 *
 * Takes a reference on @cache.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @cache.
 *
 * Since: 0.1
 */
ZKR_API ZkrTreeCache *zkr_tree_cache_ref (ZkrTreeCache *cache);
/**
 * zkr_tree_cache_unref:
 * @cache: (transfer full): a #ZkrTreeCache
 *
 * Drops a reference. The last unref closes the cache
 * (zkr_tree_cache_close()).
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_tree_cache_unref (ZkrTreeCache *cache);

/**
 * zkr_tree_cache_start:
 * @cache: a #ZkrTreeCache
 * @error: return location for a #GError, or %NULL
 *
 * Starts reading the subtree in the background (and waits for the session
 * to connect if it is not); the events follow. Add the listeners first to
 * hear every NODE_ADDED of the first read.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT if the cache was started or closed
 * before; %ZKR_ERROR_SESSION_CLOSED if the session is closed.
 *
 * Thread: any thread; returns at once.
 *
 * Returns: %TRUE when started.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_tree_cache_start (ZkrTreeCache *cache, GError **error);

/**
 * zkr_tree_cache_wait_initialized:
 * @cache: a started #ZkrTreeCache
 * @timeout_ms: the deadline (negative: none; 0: just look)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until the first full read is done (INITIALIZED), whatever the
 * connection does meanwhile, by the deadline at the latest.
 *
 * Errors: %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled (also when the cache is closed meanwhile),
 * %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_INVALID_ARGUMENT (not started).
 *
 * Thread: any thread; blocks it. Not from a listener of this cache's context
 * if that context's events are needed.
 *
 * Returns: %TRUE once the first full read is done.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_tree_cache_wait_initialized (ZkrTreeCache *cache, int timeout_ms,
                                                  GCancellable *cancellable, GError **error);

/**
 * zkr_tree_cache_close:
 * @cache: a #ZkrTreeCache
 *
 * Stops the cache: its watches go, reads return %NULL, and no listener call
 * starts after this returns (one already running in another thread may
 * finish). Idempotent.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_tree_cache_close (ZkrTreeCache *cache);

/**
 * zkr_tree_cache_add_listener:
 * @cache: a #ZkrTreeCache
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data in the listener's context when
 *   the listener is removed or the cache goes
 *
 * Adds a listener in the thread-default GMainContext of the caller.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Returns: an id for zkr_tree_cache_remove_listener() (> 0).
 *
 * Since: 0.1
 */
ZKR_API guint zkr_tree_cache_add_listener (ZkrTreeCache *cache, ZkrTreeCacheFunc func,
                                           gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_tree_cache_remove_listener:
 * @cache: a #ZkrTreeCache
 * @id: an id zkr_tree_cache_add_listener() returned
 *
 * Removes a listener: no call of it starts after this returns.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_tree_cache_remove_listener (ZkrTreeCache *cache, guint id);

/**
 * zkr_tree_cache_get_data:
 * @cache: a #ZkrTreeCache
 * @path: a path in the subtree
 * @stat: (out) (optional): the node's cached stat
 *
 * A cached node's data, from memory: takes a lock for a moment, never
 * waits for the server.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the cached data (empty for a node
 *   without data), %NULL if @path is not cached (unknown, not yet read,
 *   invalid, or the cache is closed); g_bytes_unref() it.
 *
 * Since: 0.1
 */
ZKR_API GBytes *zkr_tree_cache_get_data (ZkrTreeCache *cache, const char *path, ZkrStat *stat);

/**
 * zkr_tree_cache_get_children:
 * @cache: a #ZkrTreeCache
 * @path: a path in the subtree
 *
 * The names of a cached node's cached children, from memory.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable) (array zero-terminated=1): the names of
 *   @path's cached children, sorted in byte order (empty for none), %NULL
 *   if @path itself is not cached; g_strfreev() it.
 *
 * Since: 0.1
 */
ZKR_API char **zkr_tree_cache_get_children (ZkrTreeCache *cache, const char *path);

/**
 * zkr_tree_cache_count:
 * @cache: a #ZkrTreeCache
 *
 * The number of nodes cached now.
 *
 * Thread: any thread.
 *
 * Returns: the count.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_tree_cache_count (ZkrTreeCache *cache);

/**
 * zkr_tree_cache_event_type_name:
 * @type: a #ZkrTreeCacheEventType
 *
 * The name of an event type, for logs.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): "NODE_ADDED", ..., or "UNKNOWN" for a value
 *   outside the enum; a static string.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_tree_cache_event_type_name (ZkrTreeCacheEventType type);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrTreeCache, zkr_tree_cache_unref)

G_END_DECLS
