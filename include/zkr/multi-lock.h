/* zkr: several mutexes taken as one. Each path is a zkr_mutex (Curator's
 * InterProcessMutex layout). They are acquired in one global order, sorted
 * by path (bytes), whatever order the caller listed, so two multi-locks
 * over overlapping sets never deadlock; under one deadline; all or nothing
 * (a failure gives back what was taken, newest first); released in reverse
 * order. Curator's InterProcessMultiLock takes the caller's order and gives
 * each lock the whole timeout; zkr sorts and shares one deadline.
 *
 * Threads: every function may be called from any thread. Loss listeners
 * and async callbacks run in the caller's thread-default GMainContext. */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrMultiLock ZkrMultiLock;

/**
 * zkr_multi_lock_new:
 * @session: the session (a reference is taken)
 * @paths: (array zero-terminated=1): the mutexes' paths, at least one, no
 *   two alike
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming the bad value: an empty list
 * (or NULL), an invalid path, a path listed twice. Sends nothing.
 * Returns: (transfer full) (nullable)
 */
ZKR_API ZkrMultiLock *zkr_multi_lock_new (ZkrSession *session, const char *const *paths,
                                          GError **error);
ZKR_API ZkrMultiLock *zkr_multi_lock_ref (ZkrMultiLock *lock);
/* The last unref releases every lock still held (in the background). */
ZKR_API void zkr_multi_lock_unref (ZkrMultiLock *lock);

/* The paths, sorted: the order of acquisition. (transfer none) */
ZKR_API const char *const *zkr_multi_lock_get_paths (ZkrMultiLock *lock);

/**
 * zkr_multi_lock_acquire:
 * @timeout_ms: for all the locks together: 0 tries each once, negative
 *   waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * Answers by the deadline or the cancel whatever the connection does. On
 * any failure the locks taken so far are no longer held when this returns
 * and their nodes, newest first, are deleted in the background (what this
 * session sends afterwards sees them gone).
 * Errors: as zkr_mutex_acquire(); ZKR_ERROR_ALREADY_HELD while held,
 * acquiring, or while some of its locks are still held after a loss
 * (release first); ZKR_ERROR_LOCK_LOST when a lock taken first was lost
 * before the last one was granted.
 */
ZKR_API gboolean zkr_multi_lock_acquire (ZkrMultiLock *lock, int timeout_ms,
                                         GCancellable *cancellable, GError **error);
/* The same, GIO style: @callback runs once, in the caller's thread-default
 * GMainContext, never before this returns. */
ZKR_API void zkr_multi_lock_acquire_async (ZkrMultiLock *lock, int timeout_ms,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
ZKR_API gboolean zkr_multi_lock_acquire_finish (ZkrMultiLock *lock, GAsyncResult *result,
                                                GError **error);

/**
 * zkr_multi_lock_release:
 * Releases every lock still held, in reverse order. Deletes that cannot
 * be sent now stay pending (zkr_multi_lock_is_release_pending()).
 * Errors: ZKR_ERROR_NOT_HELD when none was held, or when some lock had
 * been lost (the others are released all the same; the message names the
 * lost path); ZKR_ERROR_CONNECTION_LOSS (pending deletes).
 */
ZKR_API gboolean zkr_multi_lock_release (ZkrMultiLock *lock, GError **error);
ZKR_API gboolean zkr_multi_lock_is_release_pending (ZkrMultiLock *lock);

/* TRUE when every lock is held. */
ZKR_API gboolean zkr_multi_lock_is_held (ZkrMultiLock *lock);
/* The fencing token of the lock on @path (one of the paths given), 0 when
 * it is not held or @path is not one of ours. */
ZKR_API gint64 zkr_multi_lock_get_fencing_token (ZkrMultiLock *lock, const char *path);
/* Our node under @path while held, else NULL. (transfer full) (nullable) */
ZKR_API char *zkr_multi_lock_dup_node_path (ZkrMultiLock *lock, const char *path);

/* zkr_mutex_verify() of every lock; the first failure is returned (and,
 * for a lock found lost, the multi-lock is lost). */
ZKR_API gboolean zkr_multi_lock_verify (ZkrMultiLock *lock, GError **error);

/* One event per change of the whole: IN_DOUBT once when its locks become
 * in doubt, RESTORED once all of them are restored, LOST once when any of
 * them is lost. Only while the multi-lock is held. */
ZKR_API guint zkr_multi_lock_add_loss_listener (ZkrMultiLock *lock, ZkrLockLossFunc func,
                                                gpointer user_data, GDestroyNotify destroy);
ZKR_API void zkr_multi_lock_remove_loss_listener (ZkrMultiLock *lock, guint listener_id);

/* The queue of the lock on @path, holder first: (transfer full) array of
 * ZkrParticipant. Errors: ZKR_ERROR_INVALID_ARGUMENT when @path is not
 * one of ours. */
ZKR_API GPtrArray *zkr_multi_lock_list_participants (ZkrMultiLock *lock, const char *path,
                                                     GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrMultiLock, zkr_multi_lock_unref)

G_END_DECLS
