/**
 * SECTION:mutex
 * @title: ZkrMutex
 * @short_description: a distributed mutex, Curator's InterProcessMutex
 *   layout
 * @include: zkr/zkr.h
 *
 * A distributed mutex on ZooKeeper, Curator's InterProcessMutex node
 * layout (`"PATH/_c_<uuid>-lock-<seq>"`), so C and Java clients exclude
 * each other. Waiters queue fairly and each watches only its predecessor.
 *
 * Not reentrant: a second acquire by the holder fails with
 * %ZKR_ERROR_ALREADY_HELD instead of deadlocking (see zkr/reentrant-mutex.h).
 *
 * Threads: every function may be called from any thread. Loss listeners
 * and async callbacks run in the caller's thread-default GMainContext.
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
 * ZkrMutex:
 *
 * A distributed mutex: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrMutex ZkrMutex;

/**
 * zkr_mutex_new:
 * @session: the session (a reference is taken)
 * @path: the lock's path, e.g. "/locks/orders" (under the session's
 *   namespace, if any)
 * @error: return location for a #GError, or %NULL
 *
 * Makes a mutex on @path; nothing is sent.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT for an invalid path (named).
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the mutex; zkr_mutex_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrMutex *zkr_mutex_new (ZkrSession *session, const char *path, GError **error);
/**
 * zkr_mutex_ref:
 * @mutex: a #ZkrMutex
 *
 * Takes a reference on @mutex.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @mutex.
 *
 * Since: 0.1
 */
ZKR_API ZkrMutex *zkr_mutex_ref (ZkrMutex *mutex);
/**
 * zkr_mutex_unref:
 * @mutex: (transfer full): a #ZkrMutex
 *
 * Drops a reference. The last unref releases the lock if held (in the
 * background).
 *
 * Thread: any thread, also from inside its listeners.
 *
 * Since: 0.1
 */
ZKR_API void zkr_mutex_unref (ZkrMutex *mutex);

/**
 * zkr_mutex_acquire:
 * @mutex: a #ZkrMutex
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until the lock is held, or until the deadline or the cancel,
 * whatever the connection does: a dead connection never makes it answer
 * late. On any failure the delete of our node is sent before this returns
 * and completes in the background: what this session sends afterwards
 * sees the node gone; another client may see it for the round trip of
 * that delete. Not so when the connection is down or drops before the
 * delete is applied (it is sent again after reconnecting, maybe behind
 * what the session sent meanwhile), nor when our create was still
 * unanswered at the failure (the node is deleted once the reply comes).
 *
 * Errors: %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, %ZKR_ERROR_ALREADY_HELD, %ZKR_ERROR_SESSION_EXPIRED (LOST
 * while waiting), %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_AUTH,
 * %ZKR_ERROR_CONNECTION_LOSS.
 *
 * Thread: any thread; blocks it until held or failed.
 *
 * Returns: %TRUE once the lock is held.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_mutex_acquire (ZkrMutex *mutex, int timeout_ms,
                                    GCancellable *cancellable, GError **error);
/**
 * zkr_mutex_acquire_async:
 * @mutex: a #ZkrMutex
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_mutex_acquire(), GIO style; finish with zkr_mutex_acquire_finish().
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_mutex_acquire_async (ZkrMutex *mutex, int timeout_ms,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data);
/**
 * zkr_mutex_acquire_finish:
 * @mutex: a #ZkrMutex
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_mutex_acquire_async().
 *
 * Errors: those of zkr_mutex_acquire().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the lock is held.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_mutex_acquire_finish (ZkrMutex *mutex, GAsyncResult *result,
                                           GError **error);

/**
 * zkr_mutex_release:
 * @mutex: a #ZkrMutex
 * @error: return location for a #GError, or %NULL
 *
 * Deletes our node. If the connection is down, returns %FALSE with
 * %ZKR_ERROR_CONNECTION_LOSS: the lock is no longer held by this object,
 * and the delete stays pending (see zkr_mutex_is_release_pending()) and
 * is retried in the background.
 *
 * Errors: %ZKR_ERROR_NOT_HELD when not held (including after it was
 * lost); %ZKR_ERROR_CONNECTION_LOSS (see above).
 *
 * Thread: any thread; blocks it until the server answered the delete.
 *
 * Returns: %TRUE once the server confirmed the delete.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_mutex_release (ZkrMutex *mutex, GError **error);
/**
 * zkr_mutex_release_async:
 * @mutex: a #ZkrMutex
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_mutex_release(), GIO style; finish with zkr_mutex_release_finish().
 * The lock is no longer held by this object from this call on, whatever
 * the answer: not held, it answers %ZKR_ERROR_NOT_HELD; else our node's
 * delete is sent and the answer is %TRUE once the server confirmed it, or
 * %ZKR_ERROR_CONNECTION_LOSS when the connection is down or goes down
 * first (at the latest when the session reports SUSPENDED: it never waits
 * for a reconnect). A cancel answers %G_IO_ERROR_CANCELLED at once unless
 * the answer came first. After either failure the delete stays pending
 * (zkr_mutex_is_release_pending()) and is retried in the background until
 * it is done or the session is closed.
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_mutex_release_async (ZkrMutex *mutex, GCancellable *cancellable,
                                      GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_mutex_release_finish:
 * @mutex: a #ZkrMutex
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_mutex_release_async().
 *
 * Errors: those of zkr_mutex_release(); %G_IO_ERROR_CANCELLED when the
 * cancellable was cancelled first (the lock is released all the same,
 * its delete going on in the background).
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server confirmed the delete.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_mutex_release_finish (ZkrMutex *mutex, GAsyncResult *result,
                                           GError **error);
/**
 * zkr_mutex_is_release_pending:
 * @mutex: a #ZkrMutex
 *
 * Whether the delete of a released node is still pending (retried in the
 * background after a release answered %ZKR_ERROR_CONNECTION_LOSS).
 *
 * Thread: any thread.
 *
 * Returns: %TRUE while such a delete is pending.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_mutex_is_release_pending (ZkrMutex *mutex);

/**
 * zkr_mutex_is_held:
 * @mutex: a #ZkrMutex
 *
 * Whether this object holds the lock now (%FALSE after %ZKR_LOCK_LOST).
 *
 * Thread: any thread.
 *
 * Returns: %TRUE while held.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_mutex_is_held (ZkrMutex *mutex);
/**
 * zkr_mutex_get_fencing_token:
 * @mutex: a #ZkrMutex
 *
 * The fencing token of the current hold: our node's czxid, strictly
 * increasing from holder to holder.
 *
 * Thread: any thread.
 *
 * Returns: the token, 0 when not held.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_mutex_get_fencing_token (ZkrMutex *mutex);
/**
 * zkr_mutex_dup_node_path:
 * @mutex: a #ZkrMutex
 *
 * Our node's full path on the server while held, as zkr_txn_fence() and
 * zkr_revoke() take it.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the path, %NULL when not held;
 *   g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_mutex_dup_node_path (ZkrMutex *mutex);

/**
 * zkr_mutex_verify:
 * @mutex: a #ZkrMutex
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * A synchronous check with the server that our node exists and is owned
 * by our current session: one exists request, sent once. When the server
 * says the node is gone or another session's, the lock is marked lost
 * (listeners hear %ZKR_LOCK_LOST); any other failure changes nothing.
 *
 * Bounds: no deadline of its own. Made while the session is not connected,
 * it fails at once (%ZKR_ERROR_CONNECTION_LOSS; LOST:
 * %ZKR_ERROR_SESSION_EXPIRED); on a link that died without a word it waits
 * until libzookeeper gives the connection up (about 2/3 of the session
 * timeout). Cancelling @cancellable (any thread) answers
 * %G_IO_ERROR_CANCELLED promptly in every session state, the lock left as
 * it was; with @cancellable cancelled before the call, nothing is sent.
 *
 * Errors: %ZKR_ERROR_NOT_HELD (checked first: nothing sent),
 * %ZKR_ERROR_LOCK_LOST, %G_IO_ERROR_CANCELLED, and (nothing changed)
 * %ZKR_ERROR_CONNECTION_LOSS, %ZKR_ERROR_SESSION_EXPIRED,
 * %ZKR_ERROR_SESSION_CLOSED or another #ZkrError of the failed read.
 *
 * Thread: any thread; blocks it for one round trip.
 *
 * Returns: %TRUE when the lock is still ours.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_mutex_verify (ZkrMutex *mutex, GCancellable *cancellable, GError **error);

/**
 * zkr_mutex_add_loss_listener:
 * @mutex: a #ZkrMutex
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data after the listener is removed
 *   or the mutex goes, in the listener's context
 *
 * Adds a loss listener: told of each #ZkrLockEvent of this object's holds.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now, once per event, in order.
 *
 * Returns: a listener id (> 0) for zkr_mutex_remove_loss_listener().
 *
 * Since: 0.1
 */
ZKR_API guint zkr_mutex_add_loss_listener (ZkrMutex *mutex, ZkrLockLossFunc func,
                                           gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_mutex_remove_loss_listener:
 * @mutex: a #ZkrMutex
 * @listener_id: an id zkr_mutex_add_loss_listener() returned
 *
 * Removes a loss listener.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_mutex_remove_loss_listener (ZkrMutex *mutex, guint listener_id);

/**
 * zkr_mutex_make_revocable:
 * @mutex: a #ZkrMutex
 * @func: (nullable) (scope notified): the listener; %NULL makes the mutex
 *   not revocable again
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data when the listener is replaced or
 *   the mutex goes, in the listener's context
 *
 * Makes the mutex revocable, as Curator's InterProcessMutex.makeRevocable():
 * while it is held, each request to give it up (zkr_revoke(), Curator's
 * Revoker.attemptRevoke(): "__REVOKE__" written into our node) calls @func
 * once. The listener decides; typically it releases. It stays until
 * replaced (Curator drops it at each release), for every later hold. See
 * zkr/revocation.h.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Since: 0.1
 */
ZKR_API void zkr_mutex_make_revocable (ZkrMutex *mutex, ZkrRevocationFunc func,
                                       gpointer user_data, GDestroyNotify destroy);

/**
 * zkr_mutex_list_participants:
 * @mutex: a #ZkrMutex
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The lock's queue as the server lists it now, holder first, read with
 * blocking requests (the listing, then a read per node), each sent once
 * with the bounds of zkr_mutex_verify(). Cancelling @cancellable (any
 * thread) answers %G_IO_ERROR_CANCELLED promptly in every session state
 * and sends nothing more; with @cancellable cancelled before the call,
 * nothing is sent.
 *
 * Errors: %G_IO_ERROR_CANCELLED; the #ZkrError of a failed read
 * (%ZKR_ERROR_CONNECTION_LOSS, %ZKR_ERROR_SESSION_EXPIRED,
 * %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_AUTH, ...); a lock path that does
 * not exist is an empty array, not an error.
 *
 * Thread: any thread; blocks it for a round trip per node.
 *
 * Returns: (transfer full) (element-type ZkrParticipant) (nullable): an
 *   array of #ZkrParticipant that frees them; g_ptr_array_unref() it.
 *
 * Since: 0.1
 */
ZKR_API GPtrArray *zkr_mutex_list_participants (ZkrMutex *mutex, GCancellable *cancellable,
                                                GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrMutex, zkr_mutex_unref)

G_END_DECLS
