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
 * A node's life. A version alone does not name a node: deleted and
 * created again, the node starts over at version 0, and its versions climb
 * back to numbers the old node had. The count knows each reading by its
 * node's creation (czxid) and orders readings by the zxid of the change
 * they show (mzxid), so it follows a node created again, whatever its
 * version, also when that happened while the count's session was expired,
 * and a late reading of the old node never replaces the new one's.
 * zkr_shared_count_get_value() hands out the value with its node's life,
 * and zkr_shared_count_try_set_value() refuses, without writing, a value
 * read from a life the count has since seen replaced. The limit is
 * ZooKeeper's own: the server checks a write's version, never its node's
 * creation, so a node deleted and created again (and set back up to the
 * same version) after the count's last reading and before the write
 * arrives takes the write, as it would take any ZooKeeper client's
 * versioned setData. zkr_shared_count_try_set(), which is given a bare
 * version, cannot tell lives apart at all: a version kept from an old
 * life matches the new life's equal version.
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
 * ZkrSharedCountValue:
 * @value: the count
 * @version: its node's data version
 * @czxid: the zxid of its node's creation: the node's life @version
 *   belongs to (0 before the count's first reading)
 * @mzxid: the zxid of the change that set @value (0 before the first
 *   reading)
 *
 * A value as the count saw it, with the node's life it was read from
 * (Curator's VersionedValue, which carries no life): what
 * zkr_shared_count_try_set_value() takes. A plain value: copy it freely.
 *
 * Since: 0.1
 */
typedef struct {
  gint value;
  gint32 version;
  gint64 czxid;
  gint64 mzxid;
} ZkrSharedCountValue;

/**
 * ZkrSharedCountFunc:
 * @count: the shared count (valid while this runs; it may be unreffed here)
 * @value: the value read, when @error is %NULL
 * @version: its node's data version (zkr_shared_count_get_value() gives
 *   the node's life with it)
 * @error: (nullable): the node now holds data that is not a count, or is
 *   gone (%ZKR_ERROR_NO_NODE): @value and @version are the last good ones;
 *   a node created again is read and told as a new reading
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
 * zkr_shared_count_get_value:
 * @count: a #ZkrSharedCount
 * @value: (out caller-allocates): the newest value seen, with its version
 *   and node's life (before start(): the seed, version -1, zxids 0)
 *
 * The newest value seen, from memory, with the node's life it belongs
 * to: the value zkr_shared_count_try_set_value() takes.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_shared_count_get_value (ZkrSharedCount *count, ZkrSharedCountValue *value);

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
 * trySetCount(VersionedValue, int)). A bare version does not name the
 * node's life (see above): zkr_shared_count_try_set_value() does.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a negative @previous_version
 * (no reading has one; ZooKeeper would take it as "any version"),
 * %ZKR_ERROR_CONNECTION_LOSS when whether it landed is unknown
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
 * zkr_shared_count_try_set_value:
 * @count: a #ZkrSharedCount
 * @previous: the value the caller's new value was made from
 *   (zkr_shared_count_get_value())
 * @value: the value to write
 * @timeout_ms: the deadline (as zkr/node.h)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @was_set: (out): %TRUE if @value was written over @previous; %FALSE if
 *   the node had moved on or is another node now (the local value is
 *   then read again)
 * @error: return location for a #GError, or %NULL
 *
 * zkr_shared_count_try_set() knowing the node's life: writes @value only
 * if the newest reading is still @previous, same node life (czxid) and
 * same version, and then only if the node is still at that version.
 * Curator's increment idiom, safe across a delete and re-create the count
 * has seen: get_value(), then try_set_value (previous, previous.value + 1)
 * until @was_set. A value from a node the count has seen deleted and
 * created again is refused without anything sent, even when the new
 * node's version is the same number. When the count cannot vouch for its
 * newest reading (a change told by the watch and not read yet, a
 * disconnection or a fresh session not followed by a read yet, a missing
 * node), the node is read first, within the same deadline, and the write
 * is sent only if that reading is still @previous. (ZooKeeper's limit,
 * see above: a re-create after that reading, not told by the watch yet
 * when the write arrives, is not caught.)
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a negative version in
 * @previous (a value from before start()), %ZKR_ERROR_CONNECTION_LOSS
 * when whether it landed is unknown (see above), %G_IO_ERROR_CANCELLED
 * when @cancellable is cancelled, zkr/node.h's common ones.
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: %TRUE when @was_set was filled.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_shared_count_try_set_value (ZkrSharedCount *count,
                                                 const ZkrSharedCountValue *previous,
                                                 gint value, int timeout_ms,
                                                 GCancellable *cancellable, gboolean *was_set,
                                                 GError **error);
/**
 * zkr_shared_count_try_set_value_async:
 * @count: a #ZkrSharedCount
 * @previous: the value the caller's new value was made from (copied)
 * @value: the value to write
 * @timeout_ms: the deadline
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_shared_count_try_set_value(), GIO style; finish with
 * zkr_shared_count_try_set_value_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now.
 *
 * Since: 0.1
 */
ZKR_API void zkr_shared_count_try_set_value_async (ZkrSharedCount *count,
                                                   const ZkrSharedCountValue *previous,
                                                   gint value, int timeout_ms,
                                                   GCancellable *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer user_data);
/**
 * zkr_shared_count_try_set_value_finish:
 * @count: a #ZkrSharedCount
 * @result: the #GAsyncResult passed to the callback
 * @was_set: (out): as zkr_shared_count_try_set_value()
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_shared_count_try_set_value_async().
 *
 * Errors: those of zkr_shared_count_try_set_value().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE when @was_set was filled.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_shared_count_try_set_value_finish (ZkrSharedCount *count,
                                                        GAsyncResult *result,
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
