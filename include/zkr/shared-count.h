/* zkr: a shared count, Curator's SharedCount: one node whose data is a
 * 4-byte big-endian int, kept fresh by a data watch, with a versioned
 * try_set (compare-and-set on the node's data version) and listeners told
 * of every value seen, so zkr and Curator clients share one count.
 *
 * Layout (Curator 5.4.0): start() creates the node with the seed value if
 * it is missing (PERSISTENT, parents as CONTAINER nodes); data of any
 * length but 4 is ZKR_ERROR_INVALID_ARGUMENT naming the path and the length
 * (Curator throws from its listener thread then). Like Curator after its
 * CURATOR-311 fix, the value is read again when the session reconnects,
 * and also after a fresh session (LOST, then connected).
 *
 * Deadlines, cancel and session states are node.h's. A try_set answered
 * ZKR_ERROR_CONNECTION_LOSS is resolved by a sync and a read, by
 * atomic-long.h's rule: FALSE (not set) only when the version is unmoved
 * or one other value came after it; otherwise (our value at the next
 * version included: another client may have set the same value) it fails
 * with ZKR_ERROR_CONNECTION_LOSS, "whether it landed is unknown"; a plain set so answered fails with that error (its
 * write may or may not have landed; writing the same value again is
 * harmless).
 *
 * Threads: every function may be called from any thread. Listeners run in
 * the GMainContext that was thread-default when they were added; async
 * callbacks in the one thread-default at the call. */
#pragma once

#include <gio/gio.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrSharedCount ZkrSharedCount;

/**
 * ZkrSharedCountFunc:
 * @count: the shared count (valid while this runs; it may be unreffed here)
 * @value: the value read, when @error is NULL
 * @version: its node's data version
 * @error: (nullable): the node now holds data that is not a count, or is
 *   gone (ZKR_ERROR_NO_NODE): @value and @version are the last good ones
 * A listener: told of each reading after a change (Curator's
 * countHasChanged), in order.
 */
typedef void (*ZkrSharedCountFunc) (ZkrSharedCount *count, gint value, int version,
                                    const GError *error, gpointer user_data);

/**
 * zkr_shared_count_new:
 * @session: the session (a reference is taken)
 * @path: the count's node
 * @seed: the value a node created by start() gets
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming an invalid path.
 * Returns: (transfer full) (nullable): a count, not started
 */
ZKR_API ZkrSharedCount *zkr_shared_count_new (ZkrSession *session, const char *path,
                                              gint seed, GError **error);
ZKR_API ZkrSharedCount *zkr_shared_count_ref (ZkrSharedCount *count);
/* The last unref stops the watch; no listener runs after it returns. */
ZKR_API void zkr_shared_count_unref (ZkrSharedCount *count);

/**
 * zkr_shared_count_start:
 * Creates the node with the seed if missing, reads it and starts watching
 * it. A second start is ZKR_ERROR_INVALID_ARGUMENT.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT (bad data), node.h's common ones.
 */
ZKR_API gboolean zkr_shared_count_start (ZkrSharedCount *count, int timeout_ms,
                                         GCancellable *cancellable, GError **error);
ZKR_API void zkr_shared_count_start_async (ZkrSharedCount *count, int timeout_ms,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
ZKR_API gboolean zkr_shared_count_start_finish (ZkrSharedCount *count, GAsyncResult *result,
                                                GError **error);

/* The newest value and version seen (the seed and -1 before start()). */
ZKR_API gint zkr_shared_count_get_count (ZkrSharedCount *count);
ZKR_API void zkr_shared_count_get_versioned (ZkrSharedCount *count, gint *value, int *version);

/**
 * zkr_shared_count_set:
 * Writes @value whatever the version (Curator's setCount).
 * Errors: ZKR_ERROR_NO_NODE, node.h's common ones.
 */
ZKR_API gboolean zkr_shared_count_set (ZkrSharedCount *count, gint value, int timeout_ms,
                                       GCancellable *cancellable, GError **error);
ZKR_API void zkr_shared_count_set_async (ZkrSharedCount *count, gint value, int timeout_ms,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data);
ZKR_API gboolean zkr_shared_count_set_finish (ZkrSharedCount *count, GAsyncResult *result,
                                              GError **error);

/**
 * zkr_shared_count_try_set:
 * @previous_version: the version the caller's value came with
 *   (zkr_shared_count_get_versioned())
 * @was_set: (out): TRUE if @value was written over @previous_version;
 *   FALSE if the node had moved on (the local value is then read again)
 * Writes @value only if the node is still at @previous_version (Curator's
 * trySetCount(VersionedValue, int)).
 * Returns: TRUE when @was_set was filled.
 */
ZKR_API gboolean zkr_shared_count_try_set (ZkrSharedCount *count, int previous_version,
                                           gint value, int timeout_ms,
                                           GCancellable *cancellable, gboolean *was_set,
                                           GError **error);
ZKR_API void zkr_shared_count_try_set_async (ZkrSharedCount *count, int previous_version,
                                             gint value, int timeout_ms,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback, gpointer user_data);
ZKR_API gboolean zkr_shared_count_try_set_finish (ZkrSharedCount *count, GAsyncResult *result,
                                                  gboolean *was_set, GError **error);

/* Adds @func, to run in the caller's thread-default GMainContext; @destroy
 * runs on @user_data after its removal. Returns an id > 0. */
ZKR_API guint zkr_shared_count_add_listener (ZkrSharedCount *count, ZkrSharedCountFunc func,
                                             gpointer user_data, GDestroyNotify destroy);
/* No call of the listener starts after this returns. */
ZKR_API void zkr_shared_count_remove_listener (ZkrSharedCount *count, guint listener_id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrSharedCount, zkr_shared_count_unref)

G_END_DECLS
