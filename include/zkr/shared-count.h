/**
 * SECTION:shared-count
 * @title: ZkrSharedCount
 * @short_description: a shared count, Curator's SharedCount
 * @include: zkr/zkr.h
 *
 * A shared count, Curator's SharedCount: one node whose data is a
 * 4-byte big-endian int, kept fresh by a data watch, with a versioned
 * try_set (compare-and-set on the node's data version) and listeners told
 * of every value seen, so zkr and Curator clients share one count.
 *
 * Layout (Curator 5.4.0): start() creates the node with the seed value if
 * it is missing (PERSISTENT, parents as CONTAINER nodes); data of any
 * length but 4 is %ZKR_ERROR_INVALID_ARGUMENT naming the path and the length
 * (Curator throws from its listener thread then). Like Curator after its
 * CURATOR-311 fix, the value is read again when the session reconnects,
 * and also after a fresh session (LOST, then connected).
 *
 * Deadlines, cancel and session states are node.h's. A try_set answered
 * %ZKR_ERROR_CONNECTION_LOSS is resolved by a sync and a read, by
 * atomic-long.h's rule: FALSE (not set) only when the version is unmoved
 * or one other value came after it; otherwise (our value at the next
 * version included: another client may have set the same value) it fails
 * with %ZKR_ERROR_CONNECTION_LOSS, "whether it landed is unknown"; a plain set so answered fails with that error (its
 * write may or may not have landed; writing the same value again is
 * harmless).
 *
 * Threads: every function may be called from any thread. Listeners run in
 * the GMainContext that was thread-default when they were added; async
 * callbacks in the one thread-default at the call.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrSharedCount:
 *
 * A shared count: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrSharedCount ZkrSharedCount;

/**
 * ZkrSharedCountFunc:
 * @count: the shared count (valid while this runs; it may be unreffed here)
 * @value: the value read, when @error is %NULL
 * @version: its node's data version
 * @error: (nullable): the node now holds data that is not a count, or is
 *   gone (%ZKR_ERROR_NO_NODE): @value and @version are the last good ones
 * @user_data: as given to zkr_shared_count_add_listener()
 *
 * A listener: told of each reading after a change (Curator's
 * countHasChanged), in order.
 *
 * Thread: runs in the GMainContext that was thread-default when the
 * listener was added.
 *
 * Since: 0.1
 */
typedef void (*ZkrSharedCountFunc) (ZkrSharedCount *count, gint value, int version,
                                    const GError *error, gpointer user_data);

/**
 * zkr_shared_count_new:
 * @session: the session (a reference is taken)
 * @path: the count's node
 * @seed: the value a node created by start() gets
 * @error: return location for a #GError, or %NULL
 *
 * Makes a shared count; nothing is sent before zkr_shared_count_start().
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming an invalid path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): a count, not started;
 *   zkr_shared_count_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrSharedCount *zkr_shared_count_new (ZkrSession *session, const char *path,
                                              gint seed, GError **error);
/**
 * zkr_shared_count_ref:
 * @count: a #ZkrSharedCount
 *
 * Takes a reference on @count.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @count.
 *
 * Since: 0.1
 */
ZKR_API ZkrSharedCount *zkr_shared_count_ref (ZkrSharedCount *count);
/**
 * zkr_shared_count_unref:
 * @count: (transfer full): a #ZkrSharedCount
 *
 * Drops a reference. The last unref stops the watch; no listener runs
 * after it returns.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_shared_count_unref (ZkrSharedCount *count);

/**
 * zkr_shared_count_start:
 * @count: a #ZkrSharedCount
 * @timeout_ms: the deadline (as zkr/node.h)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Creates the node with the seed if missing, reads it and starts watching
 * it. A second start is %ZKR_ERROR_INVALID_ARGUMENT.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT (bad data, or started before),
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled, zkr/node.h's
 * common ones.
 *
 * Thread: any thread; blocks it until the first read is done.
 *
 * Returns: %TRUE once the count is read and watched.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_shared_count_start (ZkrSharedCount *count, int timeout_ms,
                                         GCancellable *cancellable, GError **error);
/**
 * zkr_shared_count_start_async:
 * @count: a #ZkrSharedCount
 * @timeout_ms: the deadline
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_shared_count_start(), GIO style; finish with
 * zkr_shared_count_start_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now.
 *
 * Since: 0.1
 */
ZKR_API void zkr_shared_count_start_async (ZkrSharedCount *count, int timeout_ms,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_shared_count_start_finish:
 * @count: a #ZkrSharedCount
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_shared_count_start_async().
 *
 * Errors: those of zkr_shared_count_start().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the count is read and watched.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_shared_count_start_finish (ZkrSharedCount *count, GAsyncResult *result,
                                                GError **error);

/**
 * zkr_shared_count_get_count:
 * @count: a #ZkrSharedCount
 *
 * The newest value seen, from memory.
 *
 * Thread: any thread.
 *
 * Returns: the value (the seed before start()).
 *
 * Since: 0.1
 */
ZKR_API gint zkr_shared_count_get_count (ZkrSharedCount *count);
/**
 * zkr_shared_count_get_versioned:
 * @count: a #ZkrSharedCount
 * @value: (out) (optional): the newest value seen (the seed before start())
 * @version: (out) (optional): its data version (-1 before start())
 *
 * The newest value and version seen, from memory: the pair
 * zkr_shared_count_try_set() takes.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_shared_count_get_versioned (ZkrSharedCount *count, gint *value, int *version);

/**
 * zkr_shared_count_set:
 * @count: a #ZkrSharedCount
 * @value: the value to write
 * @timeout_ms: the deadline (as zkr/node.h)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Writes @value whatever the version (Curator's setCount).
 *
 * Errors: %ZKR_ERROR_NO_NODE, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, zkr/node.h's common ones.
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: %TRUE once written.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_shared_count_set (ZkrSharedCount *count, gint value, int timeout_ms,
                                       GCancellable *cancellable, GError **error);
/**
 * zkr_shared_count_set_async:
 * @count: a #ZkrSharedCount
 * @value: the value to write
 * @timeout_ms: the deadline
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_shared_count_set(), GIO style; finish with
 * zkr_shared_count_set_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now.
 *
 * Since: 0.1
 */
ZKR_API void zkr_shared_count_set_async (ZkrSharedCount *count, gint value, int timeout_ms,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_shared_count_set_finish:
 * @count: a #ZkrSharedCount
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_shared_count_set_async().
 *
 * Errors: those of zkr_shared_count_set().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once written.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_shared_count_set_finish (ZkrSharedCount *count, GAsyncResult *result,
                                              GError **error);

/**
 * zkr_shared_count_try_set:
 * @count: a #ZkrSharedCount
 * @previous_version: the version the caller's value came with
 *   (zkr_shared_count_get_versioned())
 * @value: the value to write
 * @timeout_ms: the deadline (as zkr/node.h)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @was_set: (out): %TRUE if @value was written over @previous_version;
 *   %FALSE if the node had moved on (the local value is then read again)
 * @error: return location for a #GError, or %NULL
 *
 * Writes @value only if the node is still at @previous_version (Curator's
 * trySetCount(VersionedValue, int)).
 *
 * Errors: %ZKR_ERROR_CONNECTION_LOSS when whether it landed is unknown
 * (see above), %G_IO_ERROR_CANCELLED when @cancellable is cancelled,
 * zkr/node.h's common ones.
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: %TRUE when @was_set was filled.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_shared_count_try_set (ZkrSharedCount *count, int previous_version,
                                           gint value, int timeout_ms,
                                           GCancellable *cancellable, gboolean *was_set,
                                           GError **error);
/**
 * zkr_shared_count_try_set_async:
 * @count: a #ZkrSharedCount
 * @previous_version: the version the caller's value came with
 * @value: the value to write
 * @timeout_ms: the deadline
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_shared_count_try_set(), GIO style; finish with
 * zkr_shared_count_try_set_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now.
 *
 * Since: 0.1
 */
ZKR_API void zkr_shared_count_try_set_async (ZkrSharedCount *count, int previous_version,
                                             gint value, int timeout_ms,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_shared_count_try_set_finish:
 * @count: a #ZkrSharedCount
 * @result: the #GAsyncResult passed to the callback
 * @was_set: (out): as zkr_shared_count_try_set()
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_shared_count_try_set_async().
 *
 * Errors: those of zkr_shared_count_try_set().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE when @was_set was filled.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_shared_count_try_set_finish (ZkrSharedCount *count, GAsyncResult *result,
                                                  gboolean *was_set, GError **error);

/**
 * zkr_shared_count_add_listener:
 * @count: a #ZkrSharedCount
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data after the listener's removal
 *
 * Adds a listener, told of every value seen after a change.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Returns: a listener id (> 0).
 *
 * Since: 0.1
 */
ZKR_API guint zkr_shared_count_add_listener (ZkrSharedCount *count, ZkrSharedCountFunc func,
                                             gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_shared_count_remove_listener:
 * @count: a #ZkrSharedCount
 * @listener_id: an id zkr_shared_count_add_listener() returned
 *
 * Removes a listener: no call of it starts after this returns.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_shared_count_remove_listener (ZkrSharedCount *count, guint listener_id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrSharedCount, zkr_shared_count_unref)

G_END_DECLS
