/**
 * SECTION:reentrant-mutex
 * @title: ZkrReentrantMutex
 * @short_description: a reentrant distributed mutex, Curator's
 *   InterProcessMutex in full
 * @include: zkr/zkr.h
 *
 * A reentrant distributed mutex, Curator's InterProcessMutex in full:
 * the "lock-" layout (so it excludes Curator clients and zkr_mutex on the
 * same path) and a hold count per thread kept in the client: a thread that
 * holds it may acquire it again without a request, and must release it as
 * many times. Different threads of one process sharing the object queue
 * for it separately, each with its own node, as two processes would.
 *
 * Threads: every function may be called from any thread; acquire, release,
 * is_held and the token are about the calling thread's hold.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/revocation.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrReentrantMutex:
 *
 * A reentrant distributed mutex: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrReentrantMutex ZkrReentrantMutex;

/**
 * zkr_reentrant_mutex_new:
 * @session: the session (a reference is taken)
 * @path: the lock's path (under the session's namespace, if any)
 * @error: return location for a #GError, or %NULL
 *
 * Makes a reentrant mutex on @path; nothing is sent.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT for an invalid path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the mutex;
 *   zkr_reentrant_mutex_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrReentrantMutex *zkr_reentrant_mutex_new (ZkrSession *session, const char *path,
                                                    GError **error);
/**
 * zkr_reentrant_mutex_ref:
 * @mutex: a #ZkrReentrantMutex
 *
 * Takes a reference on @mutex.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @mutex.
 *
 * Since: 0.1
 */
ZKR_API ZkrReentrantMutex *zkr_reentrant_mutex_ref (ZkrReentrantMutex *mutex);
/**
 * zkr_reentrant_mutex_unref:
 * @mutex: (transfer full): a #ZkrReentrantMutex
 *
 * Drops a reference. The last unref gives up every thread's hold (in the
 * background).
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_reentrant_mutex_unref (ZkrReentrantMutex *mutex);

/**
 * zkr_reentrant_mutex_acquire:
 * @mutex: a #ZkrReentrantMutex
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * @error: return location for a #GError, or %NULL
 *
 * As zkr_mutex_acquire(); a re-acquire by the holding thread only counts
 * (no request).
 *
 * Errors: those of zkr_mutex_acquire(); %G_IO_ERROR_CANCELLED when
 * @cancellable is cancelled.
 *
 * Thread: any thread, which is the thread that will hold; blocks it until
 * held or failed.
 *
 * Returns: %TRUE once the calling thread holds the lock.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_reentrant_mutex_acquire (ZkrReentrantMutex *mutex, int timeout_ms,
                                              GCancellable *cancellable, GError **error);
/**
 * zkr_reentrant_mutex_acquire_async:
 * @mutex: a #ZkrReentrantMutex
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_reentrant_mutex_acquire(), GIO style; finish with
 * zkr_reentrant_mutex_acquire_finish().
 *
 * Thread: any thread; the calling thread is the one that will hold.
 * @callback runs once, in the caller's thread-default GMainContext, never
 * before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_reentrant_mutex_acquire_async (ZkrReentrantMutex *mutex, int timeout_ms,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
/**
 * zkr_reentrant_mutex_acquire_finish:
 * @mutex: a #ZkrReentrantMutex
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_reentrant_mutex_acquire_async().
 *
 * Errors: those of zkr_reentrant_mutex_acquire().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the lock is held (by the thread that started the
 *   acquire).
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_reentrant_mutex_acquire_finish (ZkrReentrantMutex *mutex,
                                                     GAsyncResult *result, GError **error);
/**
 * zkr_reentrant_mutex_release:
 * @mutex: a #ZkrReentrantMutex
 * @error: return location for a #GError, or %NULL
 *
 * Decrements the calling thread's count; at zero deletes the node (see
 * zkr_mutex_release() for a release while disconnected).
 *
 * Errors: %ZKR_ERROR_NOT_HELD when this thread does not hold it;
 * %ZKR_ERROR_CONNECTION_LOSS as zkr_mutex_release().
 *
 * Thread: the holding thread; at zero it blocks until the server answered
 * the delete.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_reentrant_mutex_release (ZkrReentrantMutex *mutex, GError **error);
/**
 * zkr_reentrant_mutex_release_async:
 * @mutex: a #ZkrReentrantMutex
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_reentrant_mutex_release(), GIO style; finish with
 * zkr_reentrant_mutex_release_finish(). The calling thread's count goes
 * down now: above zero the answer is %TRUE and nothing is sent; at zero
 * the node's delete is answered as zkr_mutex_release_async() says (also
 * for a cancel: the thread no longer holds the mutex either way, and the
 * delete goes on in the background, see
 * zkr_reentrant_mutex_is_release_pending()).
 *
 * Thread: the holding thread; @callback runs once, in its thread-default
 * GMainContext, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_reentrant_mutex_release_async (ZkrReentrantMutex *mutex,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
/**
 * zkr_reentrant_mutex_release_finish:
 * @mutex: a #ZkrReentrantMutex
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_reentrant_mutex_release_async().
 *
 * Errors: those of zkr_reentrant_mutex_release(); %G_IO_ERROR_CANCELLED
 * when the cancellable was cancelled before the delete was confirmed.
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE on success (at zero: once the server confirmed the
 *   delete).
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_reentrant_mutex_release_finish (ZkrReentrantMutex *mutex,
                                                     GAsyncResult *result, GError **error);
/**
 * zkr_reentrant_mutex_is_release_pending:
 * @mutex: a #ZkrReentrantMutex
 *
 * Whether the delete of the calling thread's released node is still
 * pending (retried in the background after a release answered
 * %ZKR_ERROR_CONNECTION_LOSS or was cancelled).
 *
 * Thread: any thread (about its own node).
 *
 * Returns: %TRUE while such a delete is pending.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_reentrant_mutex_is_release_pending (ZkrReentrantMutex *mutex);

/**
 * zkr_reentrant_mutex_is_held:
 * @mutex: a #ZkrReentrantMutex
 *
 * Whether the calling thread holds the lock.
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: %TRUE while the calling thread holds it.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_reentrant_mutex_is_held (ZkrReentrantMutex *mutex);
/**
 * zkr_reentrant_mutex_get_hold_count:
 * @mutex: a #ZkrReentrantMutex
 *
 * How many times the calling thread holds the lock.
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: the count, 0 when not held.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_reentrant_mutex_get_hold_count (ZkrReentrantMutex *mutex);
/**
 * zkr_reentrant_mutex_get_fencing_token:
 * @mutex: a #ZkrReentrantMutex
 *
 * The fencing token of the calling thread's hold (its node's czxid), as
 * zkr_mutex_get_fencing_token().
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: the token, 0 when the calling thread does not hold it.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_reentrant_mutex_get_fencing_token (ZkrReentrantMutex *mutex);
/**
 * zkr_reentrant_mutex_verify:
 * @mutex: a #ZkrReentrantMutex
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * As zkr_mutex_verify(), for the calling thread's hold, with its bounds: a
 * cancel of @cancellable (any thread) answers %G_IO_ERROR_CANCELLED
 * promptly, the hold left as it was.
 *
 * Errors: those of zkr_mutex_verify() (%ZKR_ERROR_NOT_HELD: this thread
 * holds nothing).
 *
 * Thread: any thread (about its own hold); blocks it for one round trip.
 *
 * Returns: %TRUE when the hold is still ours.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_reentrant_mutex_verify (ZkrReentrantMutex *mutex, GCancellable *cancellable,
                                             GError **error);

/**
 * zkr_reentrant_mutex_add_loss_listener:
 * @mutex: a #ZkrReentrantMutex
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data after the listener is removed
 *   or the mutex goes
 *
 * Adds a loss listener: told of the loss events of any thread's hold.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now, once per event, in order.
 *
 * Returns: a listener id (> 0).
 *
 * Since: 0.1
 */
ZKR_API guint zkr_reentrant_mutex_add_loss_listener (ZkrReentrantMutex *mutex,
                                                     ZkrLockLossFunc func,
                                                     gpointer user_data,
                                                     GDestroyNotify destroy);
/**
 * zkr_reentrant_mutex_remove_loss_listener:
 * @mutex: a #ZkrReentrantMutex
 * @listener_id: an id zkr_reentrant_mutex_add_loss_listener() returned
 *
 * Removes a loss listener.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_reentrant_mutex_remove_loss_listener (ZkrReentrantMutex *mutex,
                                                       guint listener_id);

/**
 * zkr_reentrant_mutex_make_revocable:
 * @mutex: a #ZkrReentrantMutex
 * @func: (nullable) (scope notified): the listener; %NULL: not revocable
 *   again
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data when the listener is replaced
 *   or the mutex goes, in the listener's context
 *
 * Makes the mutex revocable (zkr_mutex_make_revocable(), Curator's
 * makeRevocable()): each request written into the node of whichever
 * thread holds calls @func once. The listener decides; the release must
 * come from the holding thread, as many times as it acquired. See
 * zkr/revocation.h.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Since: 0.1
 */
ZKR_API void zkr_reentrant_mutex_make_revocable (ZkrReentrantMutex *mutex,
                                                 ZkrRevocationFunc func, gpointer user_data,
                                                 GDestroyNotify destroy);

/**
 * zkr_reentrant_mutex_list_participants:
 * @mutex: a #ZkrReentrantMutex
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The lock's queue, holder first, as zkr_mutex_list_participants() (and
 * as cancellable).
 *
 * Errors: those of zkr_mutex_list_participants().
 *
 * Thread: any thread; blocks it for a round trip per node.
 *
 * Returns: (transfer full) (element-type ZkrParticipant) (nullable): an
 *   array of #ZkrParticipant that frees them.
 *
 * Since: 0.1
 */
ZKR_API GPtrArray *zkr_reentrant_mutex_list_participants (ZkrReentrantMutex *mutex,
                                                          GCancellable *cancellable,
                                                          GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrReentrantMutex, zkr_reentrant_mutex_unref)

G_END_DECLS
