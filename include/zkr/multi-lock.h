/**
 * SECTION:multi-lock
 * @title: ZkrMultiLock
 * @short_description: several mutexes taken as one, in one global order
 * @include: zkr/zkr.h
 *
 * Several mutexes taken as one. Each path is a zkr_mutex (Curator's
 * InterProcessMutex layout). They are acquired in one global order, sorted
 * by path (bytes), whatever order the caller listed, so two multi-locks
 * over overlapping sets never deadlock; under one deadline; all or nothing
 * (a failure gives back what was taken, newest first); released in reverse
 * order. Curator's InterProcessMultiLock takes the caller's order and gives
 * each lock the whole timeout; zkr sorts and shares one deadline.
 *
 * Threads: every function may be called from any thread. Loss listeners
 * and async callbacks run in the caller's thread-default GMainContext.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrMultiLock:
 *
 * Several mutexes taken as one: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrMultiLock ZkrMultiLock;

/**
 * zkr_multi_lock_new:
 * @session: the session (a reference is taken)
 * @paths: (array zero-terminated=1): the mutexes' paths, at least one, no
 *   two alike
 * @error: return location for a #GError, or %NULL
 *
 * Makes a multi-lock over @paths. Sends nothing.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming the bad value: an empty list
 * (or %NULL), an invalid path, a path listed twice.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the multi-lock;
 *   zkr_multi_lock_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrMultiLock *zkr_multi_lock_new (ZkrSession *session, const char *const *paths,
                                          GError **error);
/**
 * zkr_multi_lock_ref:
 * @lock: a #ZkrMultiLock
 *
 * Takes a reference on @lock.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @lock.
 *
 * Since: 0.1
 */
ZKR_API ZkrMultiLock *zkr_multi_lock_ref (ZkrMultiLock *lock);
/**
 * zkr_multi_lock_unref:
 * @lock: (transfer full): a #ZkrMultiLock
 *
 * Drops a reference. The last unref releases every lock still held (in
 * the background).
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_multi_lock_unref (ZkrMultiLock *lock);

/**
 * zkr_multi_lock_get_paths:
 * @lock: a #ZkrMultiLock
 *
 * The paths, sorted: the order of acquisition.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none) (array zero-terminated=1): the paths, valid
 *   while @lock lives.
 *
 * Since: 0.1
 */
ZKR_API const char *const *zkr_multi_lock_get_paths (ZkrMultiLock *lock);

/**
 * zkr_multi_lock_acquire:
 * @lock: a #ZkrMultiLock
 * @timeout_ms: for all the locks together: 0 tries each once, negative
 *   waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * @error: return location for a #GError, or %NULL
 *
 * Acquires every lock, in the sorted order. Answers by the deadline or
 * the cancel whatever the connection does. On any failure the locks taken
 * so far are no longer held when this returns and their nodes, newest
 * first, are deleted in the background, the deletes sent before this
 * returns: what this session sends afterwards sees them gone, with the
 * exceptions zkr_mutex_acquire() names (the connection down, a create
 * unanswered).
 *
 * Errors: as zkr_mutex_acquire() (%G_IO_ERROR_CANCELLED when @cancellable
 * is cancelled); %ZKR_ERROR_ALREADY_HELD while held, acquiring, or while
 * some of its locks are still held after a loss (release first);
 * %ZKR_ERROR_LOCK_LOST when a lock taken first was lost before the last
 * one was granted.
 *
 * Thread: any thread; blocks it until all are held or it failed.
 *
 * Returns: %TRUE once every lock is held.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_multi_lock_acquire (ZkrMultiLock *lock, int timeout_ms,
                                         GCancellable *cancellable, GError **error);
/**
 * zkr_multi_lock_acquire_async:
 * @lock: a #ZkrMultiLock
 * @timeout_ms: for all the locks together
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_multi_lock_acquire(), GIO style; finish with
 * zkr_multi_lock_acquire_finish().
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_multi_lock_acquire_async (ZkrMultiLock *lock, int timeout_ms,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_multi_lock_acquire_finish:
 * @lock: a #ZkrMultiLock
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_multi_lock_acquire_async().
 *
 * Errors: those of zkr_multi_lock_acquire().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once every lock is held.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_multi_lock_acquire_finish (ZkrMultiLock *lock, GAsyncResult *result,
                                                GError **error);

/**
 * zkr_multi_lock_release:
 * @lock: a #ZkrMultiLock
 * @error: return location for a #GError, or %NULL
 *
 * Releases every lock still held (their deletes sent together, newest
 * first). Deletes that cannot be sent now stay pending
 * (zkr_multi_lock_is_release_pending()).
 *
 * Errors: %ZKR_ERROR_NOT_HELD when none was held, or when some lock had
 * been lost (the others are released all the same; the message names the
 * lost path); %ZKR_ERROR_CONNECTION_LOSS (pending deletes).
 *
 * Thread: any thread; blocks it until the server answered the deletes.
 *
 * Returns: %TRUE once every delete was confirmed.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_multi_lock_release (ZkrMultiLock *lock, GError **error);
/**
 * zkr_multi_lock_release_async:
 * @lock: a #ZkrMultiLock
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_multi_lock_release(), GIO style; finish with
 * zkr_multi_lock_release_finish(). The multi-lock is no longer held from
 * this call on, and the delete of every lock still held is sent at once;
 * each is answered as zkr_mutex_release_async() says, and the answer
 * comes when the last of them answered. One lock failing does not stop
 * the others: the answer is then the first failure, newest lock first
 * (%ZKR_ERROR_CONNECTION_LOSS, or %G_IO_ERROR_CANCELLED after a cancel),
 * its delete and those of the others that did not finish go on in the
 * background (zkr_multi_lock_is_release_pending()); with no failure but a
 * lost lock, %ZKR_ERROR_NOT_HELD names it.
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_multi_lock_release_async (ZkrMultiLock *lock, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_multi_lock_release_finish:
 * @lock: a #ZkrMultiLock
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_multi_lock_release_async().
 *
 * Errors: those of zkr_multi_lock_release(); %G_IO_ERROR_CANCELLED when
 * the cancellable was cancelled before every delete was confirmed.
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once every delete was confirmed.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_multi_lock_release_finish (ZkrMultiLock *lock, GAsyncResult *result,
                                                GError **error);
/**
 * zkr_multi_lock_is_release_pending:
 * @lock: a #ZkrMultiLock
 *
 * Whether a delete of a released node is still pending.
 *
 * Thread: any thread.
 *
 * Returns: %TRUE while one is pending.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_multi_lock_is_release_pending (ZkrMultiLock *lock);

/**
 * zkr_multi_lock_is_held:
 * @lock: a #ZkrMultiLock
 *
 * Whether every lock is held.
 *
 * Thread: any thread.
 *
 * Returns: %TRUE when every lock is held.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_multi_lock_is_held (ZkrMultiLock *lock);
/**
 * zkr_multi_lock_get_fencing_token:
 * @lock: a #ZkrMultiLock
 * @path: one of the paths given
 *
 * The fencing token of the lock on @path.
 *
 * Thread: any thread.
 *
 * Returns: the token, 0 when it is not held or @path is not one of ours.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_multi_lock_get_fencing_token (ZkrMultiLock *lock, const char *path);
/**
 * zkr_multi_lock_dup_node_path:
 * @lock: a #ZkrMultiLock
 * @path: one of the paths given
 *
 * Our node under @path (its full path on the server) while held.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the node's path, else %NULL;
 *   g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_multi_lock_dup_node_path (ZkrMultiLock *lock, const char *path);

/**
 * zkr_multi_lock_verify:
 * @lock: a #ZkrMultiLock
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * zkr_mutex_verify() of every lock, one after the other, each with
 * @cancellable; the first failure is returned (and, for a lock found lost,
 * the multi-lock is lost). A cancel (any thread) answers
 * %G_IO_ERROR_CANCELLED promptly, sends nothing more and leaves the
 * multi-lock as it was.
 *
 * Errors: those of zkr_mutex_verify().
 *
 * Thread: any thread; blocks it for a round trip per lock.
 *
 * Returns: %TRUE when every lock is still ours.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_multi_lock_verify (ZkrMultiLock *lock, GCancellable *cancellable,
                                        GError **error);

/**
 * zkr_multi_lock_add_loss_listener:
 * @lock: a #ZkrMultiLock
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data after the listener is removed
 *   or the multi-lock goes
 *
 * Adds a loss listener: one event per change of the whole: IN_DOUBT once
 * when its locks become in doubt, RESTORED once all of them are restored,
 * LOST once when any of them is lost. Only while the multi-lock is held.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now, in order.
 *
 * Returns: a listener id (> 0).
 *
 * Since: 0.1
 */
ZKR_API guint zkr_multi_lock_add_loss_listener (ZkrMultiLock *lock, ZkrLockLossFunc func,
                                                gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_multi_lock_remove_loss_listener:
 * @lock: a #ZkrMultiLock
 * @listener_id: an id zkr_multi_lock_add_loss_listener() returned
 *
 * Removes a loss listener.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_multi_lock_remove_loss_listener (ZkrMultiLock *lock, guint listener_id);

/**
 * zkr_multi_lock_list_participants:
 * @lock: a #ZkrMultiLock
 * @path: one of the paths given
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The queue of the lock on @path, holder first, as
 * zkr_mutex_list_participants() (and as cancellable).
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT when @path is not one of ours; those
 * of zkr_mutex_list_participants().
 *
 * Thread: any thread; blocks it for a round trip per node.
 *
 * Returns: (transfer full) (element-type ZkrParticipant) (nullable): an
 *   array of #ZkrParticipant that frees them.
 *
 * Since: 0.1
 */
ZKR_API GPtrArray *zkr_multi_lock_list_participants (ZkrMultiLock *lock, const char *path,
                                                     GCancellable *cancellable,
                                                     GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrMultiLock, zkr_multi_lock_unref)

G_END_DECLS
