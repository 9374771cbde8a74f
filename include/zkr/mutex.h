/* zkr: a distributed mutex on ZooKeeper, Curator's InterProcessMutex node
 * layout ("PATH/_c_<uuid>-lock-<seq>"), so C and Java clients exclude
 * each other. Waiters queue fairly and each watches only its predecessor.
 *
 * Not reentrant: a second acquire by the holder fails with
 * ZKR_ERROR_ALREADY_HELD instead of deadlocking (see reentrant-mutex.h).
 *
 * Threads: every function may be called from any thread. Loss listeners
 * and async callbacks run in the caller's thread-default GMainContext. */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/revocation.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrMutex ZkrMutex;

/**
 * zkr_mutex_new:
 * @session: the session (a reference is taken)
 * @path: the lock's path, e.g. "/locks/orders" (under the session's
 *   namespace, if any)
 * Errors: ZKR_ERROR_INVALID_ARGUMENT for an invalid path (named).
 * Returns: (transfer full) (nullable)
 */
ZKR_API ZkrMutex *zkr_mutex_new (ZkrSession *session, const char *path, GError **error);
ZKR_API ZkrMutex *zkr_mutex_ref (ZkrMutex *mutex);
/* The last unref releases the lock if held (in the background). */
ZKR_API void zkr_mutex_unref (ZkrMutex *mutex);

/**
 * zkr_mutex_acquire:
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * Blocks until the lock is held, or until the deadline or the cancel,
 * whatever the connection does: a dead connection never makes it answer
 * late. On any failure the delete of our node is sent before this returns
 * and completes in the background (retried after a connection loss):
 * what this session sends afterwards sees the node gone; another client
 * may see it for the round trip of that delete.
 * Errors: ZKR_ERROR_TIMEOUT, G_IO_ERROR_CANCELLED, ZKR_ERROR_ALREADY_HELD,
 * ZKR_ERROR_SESSION_EXPIRED (LOST while waiting), ZKR_ERROR_SESSION_CLOSED,
 * ZKR_ERROR_AUTH, ZKR_ERROR_CONNECTION_LOSS.
 */
ZKR_API gboolean zkr_mutex_acquire (ZkrMutex *mutex, int timeout_ms,
                                    GCancellable *cancellable, GError **error);
/* The same, GIO style: @callback runs once, in the caller's thread-default
 * GMainContext, never before this returns. */
ZKR_API void zkr_mutex_acquire_async (ZkrMutex *mutex, int timeout_ms,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data);
ZKR_API gboolean zkr_mutex_acquire_finish (ZkrMutex *mutex, GAsyncResult *result,
                                           GError **error);

/**
 * zkr_mutex_release:
 * Deletes our node. Returns TRUE once the server confirmed it. If the
 * connection is down, returns FALSE with ZKR_ERROR_CONNECTION_LOSS: the
 * lock is no longer held by this object, and the delete stays pending (see
 * zkr_mutex_is_release_pending()) and is retried in the background.
 * Errors: ZKR_ERROR_NOT_HELD when not held (including after it was lost).
 */
ZKR_API gboolean zkr_mutex_release (ZkrMutex *mutex, GError **error);
ZKR_API gboolean zkr_mutex_is_release_pending (ZkrMutex *mutex);

ZKR_API gboolean zkr_mutex_is_held (ZkrMutex *mutex);
/* The fencing token of the current hold (our node's czxid, strictly
 * increasing from holder to holder), 0 when not held. */
ZKR_API gint64 zkr_mutex_get_fencing_token (ZkrMutex *mutex);
/* Our node's path while held, else NULL. (transfer full) (nullable) */
ZKR_API char *zkr_mutex_dup_node_path (ZkrMutex *mutex);

/* A synchronous check with the server that our node exists and is owned
 * by our current session. On failure the lock is marked lost (listeners
 * hear ZKR_LOCK_LOST). Errors: ZKR_ERROR_NOT_HELD, ZKR_ERROR_LOCK_LOST,
 * ZKR_ERROR_CONNECTION_LOSS (nothing changed). */
ZKR_API gboolean zkr_mutex_verify (ZkrMutex *mutex, GError **error);

ZKR_API guint zkr_mutex_add_loss_listener (ZkrMutex *mutex, ZkrLockLossFunc func,
                                           gpointer user_data, GDestroyNotify destroy);
ZKR_API void zkr_mutex_remove_loss_listener (ZkrMutex *mutex, guint listener_id);

/**
 * zkr_mutex_make_revocable:
 * @func: (nullable): the listener; NULL makes the mutex not revocable again
 * @destroy: (nullable): runs on @user_data when the listener is replaced or
 *   the mutex goes, in the listener's context
 * Makes the mutex revocable, as Curator's InterProcessMutex.makeRevocable():
 * while it is held, each request to give it up (zkr_revoke(), Curator's
 * Revoker.attemptRevoke(): "__REVOKE__" written into our node) calls @func
 * once, in the GMainContext that is thread-default now. The listener
 * decides; typically it releases. It stays until replaced (Curator drops
 * it at each release), for every later hold. Any thread. See
 * <zkr/revocation.h>.
 */
ZKR_API void zkr_mutex_make_revocable (ZkrMutex *mutex, ZkrRevocationFunc func,
                                       gpointer user_data, GDestroyNotify destroy);

/* The queue, holder first: (transfer full) array of ZkrParticipant. */
ZKR_API GPtrArray *zkr_mutex_list_participants (ZkrMutex *mutex, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrMutex, zkr_mutex_unref)

G_END_DECLS
