/**
 * SECTION:revocation
 * @title: Revocation
 * @short_description: asking a lock's holder to give it up, Curator's
 *   Revocable and Revoker
 * @include: zkr/zkr.h
 *
 * Revocable locks, Curator's Revocable / Revoker (docs/design.md §3.7):
 * anyone may ask the holder of a lock node to give it up by writing
 * "__REVOKE__" into the node's data; a holder that made its lock revocable
 * hears each request and decides. zkr and Curator revoke each other's
 * locks.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZKR_REVOKE_MESSAGE:
 *
 * The data a revocation request writes into a lock node (Curator's
 * LockInternals.REVOKE_MESSAGE), without a terminating NUL.
 *
 * Since: 0.1
 */
#define ZKR_REVOKE_MESSAGE "__REVOKE__"

/**
 * ZkrRevocationFunc:
 * @lock: the lock asked (a #ZkrMutex *, #ZkrReentrantMutex *, #ZkrRwlock *),
 *   borrowed
 * @user_data: as given when the lock was made revocable
 *
 * A revocation listener, called once per request written into the node of
 * a hold (a request is a write of %ZKR_REVOKE_MESSAGE: each new data
 * version of the node that reads %ZKR_REVOKE_MESSAGE). Only while the lock
 * is held: a request found when the node is first watched, shortly after
 * the grant, counts too. Revocation is cooperative: the listener decides,
 * typically by releasing (from the thread that holds, for the per-thread
 * recipes). The lock may be unreffed from inside it.
 *
 * Thread: runs in the GMainContext that was thread-default when the lock
 * was made revocable.
 *
 * Since: 0.1
 */
typedef void (*ZkrRevocationFunc) (gpointer lock, gpointer user_data);

/**
 * zkr_revoke:
 * @session: the session to write with
 * @node_path: the lock node to ask: its full path on the server, as
 *   zkr_mutex_dup_node_path() and the other *_dup_node_path() calls
 *   return it, as a holder's $ZKR_LOCK_NODE gives it and as
 *   zkr_txn_fence() takes it (the namespace included); a path outside the
 *   session's namespace is %ZKR_ERROR_INVALID_ARGUMENT
 * @timeout_ms: the deadline (negative: none; 0: sent once if connected)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Asks the holder of @node_path to give it up: writes %ZKR_REVOKE_MESSAGE
 * into the node's data at any version, as Curator's Revoker.attemptRevoke().
 * Returns once the server applied the write; whether the holder releases
 * is its own decision. The write changes only the node's data version:
 * fences on that node (existence checks, docs/design.md §5.7) still hold.
 *
 * Errors: %ZKR_ERROR_NO_NODE (no such node: Curator's revoker ignores that
 * case, zkr says so), %ZKR_ERROR_INVALID_ARGUMENT (a bad path, nothing
 * sent), %ZKR_ERROR_CONNECTION_LOSS (the request may or may not have been
 * applied), %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, %ZKR_ERROR_AUTH, %ZKR_ERROR_SESSION_EXPIRED,
 * %ZKR_ERROR_SESSION_CLOSED.
 *
 * Thread: any thread; the blocking call returns on it.
 *
 * Returns: %TRUE once the server applied the write.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_revoke (ZkrSession *session, const char *node_path, int timeout_ms,
                             GCancellable *cancellable, GError **error);
/**
 * zkr_revoke_async:
 * @session: the session to write with
 * @node_path: the lock node to ask, as zkr_revoke()
 * @timeout_ms: the deadline
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_revoke(), GIO style; finish with zkr_revoke_finish().
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext, by the deadline.
 *
 * Since: 0.1
 */
ZKR_API void zkr_revoke_async (ZkrSession *session, const char *node_path, int timeout_ms,
                               GCancellable *cancellable, GAsyncReadyCallback callback,
                               gpointer user_data);
/**
 * zkr_revoke_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_revoke_async().
 *
 * Errors: those of zkr_revoke().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server applied the write.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_revoke_finish (ZkrSession *session, GAsyncResult *result, GError **error);

/**
 * zkr_revoke_holder:
 * @session: the session to read and write with
 * @lock_path: a lock's path (a mutex's, a reentrant mutex's, a read-write
 *   lock's; Curator's layouts), as zkr_node_get_children() takes it
 * @timeout_ms: one deadline for the three requests
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Syncs @session's server with the leader on @lock_path (so the listing
 * shows a holder another client's session has just made), lists the queue
 * under @lock_path and revokes its first node (the lowest sequence number:
 * in every lock recipe the first node holds; of a read-write lock's
 * readers, the oldest). Between the listing and the write the holder may
 * change; the request then reaches a node that no longer holds
 * (%ZKR_ERROR_NO_NODE if it is gone).
 *
 * Errors: %ZKR_ERROR_NO_NODE when @lock_path does not exist or has no
 * lock node; %G_IO_ERROR_CANCELLED when @cancellable is cancelled; any
 * error of zkr_revoke().
 *
 * Thread: any thread; the blocking call returns on it.
 *
 * Returns: (transfer full) (nullable): the full path of the node asked
 *   (the namespace included, as zkr_revoke() takes it), %NULL on failure;
 *   g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_revoke_holder (ZkrSession *session, const char *lock_path, int timeout_ms,
                                 GCancellable *cancellable, GError **error);
/**
 * zkr_revoke_holder_async:
 * @session: the session to read and write with
 * @lock_path: a lock's path, as zkr_revoke_holder()
 * @timeout_ms: one deadline for both requests
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_revoke_holder(), GIO style; finish with zkr_revoke_holder_finish().
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext, by the deadline.
 *
 * Since: 0.1
 */
ZKR_API void zkr_revoke_holder_async (ZkrSession *session, const char *lock_path,
                                      int timeout_ms, GCancellable *cancellable,
                                      GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_revoke_holder_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_revoke_holder_async().
 *
 * Errors: those of zkr_revoke_holder().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: (transfer full) (nullable): the full path of the node asked;
 *   g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_revoke_holder_finish (ZkrSession *session, GAsyncResult *result,
                                        GError **error);

G_END_DECLS
