/**
 * SECTION:semaphore
 * @title: ZkrSemaphore
 * @short_description: a counting semaphore, Curator's
 *   InterProcessSemaphoreV2 layout
 * @include: zkr/zkr.h
 *
 * A counting semaphore on ZooKeeper: at most N leases held at once
 * across every client of a path. Curator's InterProcessSemaphoreV2 layout
 * byte for byte ("PATH/locks" is a mutex, "PATH/leases" holds
 * `"_c_<uuid>-lease-<seq>"` nodes), so C and Java clients share the leases.
 *
 * The rule, Curator's: take the locks/ mutex; create our lease node; we
 * hold a lease once the number of children of leases/ is at most the max
 * leases, otherwise wait for leases/ to change; then release the locks/
 * mutex. As in Curator, nothing checks that every client uses the same
 * max: give them all the same number, or share it through a count node.
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
 * ZkrSemaphore:
 *
 * A counting semaphore: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrSemaphore ZkrSemaphore;

/**
 * ZkrLease:
 *
 * One lease: a node under PATH/leases. Handles are independent: each is
 * released on its own, from any thread, and freed with zkr_lease_free().
 *
 * Since: 0.1
 */
typedef struct _ZkrLease ZkrLease;

/**
 * zkr_semaphore_new:
 * @session: the session (a reference is taken)
 * @path: the semaphore's path, e.g. "/semaphores/db" (under the session's
 *   namespace, if any); its children "locks" and "leases" are Curator's
 * @max_leases: how many leases may be held at once, 1 to G_MAXINT
 * @error: return location for a #GError, or %NULL
 *
 * Makes a semaphore with a fixed max. Sends nothing.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT for an invalid path or a max of 0
 * (named).
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the semaphore;
 *   zkr_semaphore_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrSemaphore *zkr_semaphore_new (ZkrSession *session, const char *path,
                                         guint max_leases, GError **error);

/**
 * zkr_semaphore_new_shared_count:
 * @session: the session (a reference is taken)
 * @path: the semaphore's path, as zkr_semaphore_new()
 * @count_path: a node whose data is the max leases as a 4-byte big-endian
 *   int, as Curator's SharedCount writes it. It must exist.
 * @cancellable: (nullable): a #GCancellable for the first read, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Makes a semaphore whose max is read from @count_path. Reads the count
 * now (one request, sent once, with the bounds of zkr_mutex_verify():
 * cancelling @cancellable, any thread, answers %G_IO_ERROR_CANCELLED
 * promptly and nothing is made; with @cancellable cancelled before the
 * call, nothing is sent). The count is read again at every acquire, right
 * after the locks/ mutex is taken, so a change applies to the next
 * acquire; a waiter already waiting reads it again at every change of the
 * node (a data watch, as Curator's SharedCount listener wakes it). No
 * version is kept: a count node deleted and created again, at whatever
 * version and also while the session was expired, is read as it is now
 * (while it is missing, a waiter watches for its return). A count of 0 or
 * below makes every acquire wait. If a later read fails or finds no node,
 * the last count read stays in force.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT (a path, or data that is not 4
 * bytes; checked first: nothing sent), %ZKR_ERROR_NO_NODE (no count node),
 * %G_IO_ERROR_CANCELLED, %ZKR_ERROR_SESSION_CLOSED, connection errors
 * (%ZKR_ERROR_CONNECTION_LOSS, %ZKR_ERROR_SESSION_EXPIRED).
 *
 * Thread: any thread; blocks it for the read.
 *
 * Returns: (transfer full) (nullable): the semaphore;
 *   zkr_semaphore_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrSemaphore *zkr_semaphore_new_shared_count (ZkrSession *session, const char *path,
                                                      const char *count_path,
                                                      GCancellable *cancellable, GError **error);
/**
 * zkr_semaphore_ref:
 * @semaphore: a #ZkrSemaphore
 *
 * Takes a reference on @semaphore.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @semaphore.
 *
 * Since: 0.1
 */
ZKR_API ZkrSemaphore *zkr_semaphore_ref (ZkrSemaphore *semaphore);
/**
 * zkr_semaphore_unref:
 * @semaphore: (transfer full): a #ZkrSemaphore
 *
 * Drops a reference. Leases outlive the semaphore object: each keeps what
 * it needs.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_semaphore_unref (ZkrSemaphore *semaphore);

/**
 * zkr_semaphore_get_max_leases:
 * @semaphore: a #ZkrSemaphore
 *
 * The max leases in force.
 *
 * Thread: any thread.
 *
 * Returns: the max given, or the last count read.
 *
 * Since: 0.1
 */
ZKR_API int zkr_semaphore_get_max_leases (ZkrSemaphore *semaphore);

/**
 * zkr_semaphore_acquire:
 * @semaphore: a #ZkrSemaphore
 * @count: how many leases, at least 1 (and at most the max, unless it is
 *   shared)
 * @timeout_ms: one deadline for all of them: 0 tries once, negative waits
 *   forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * @error: return location for a #GError, or %NULL
 *
 * Takes @count leases, one after the other, each under the locks/ mutex.
 * All or none, answered by the deadline or the cancel whatever the
 * connection does: on any failure no lease taken so far is held when this
 * returns, and their nodes are deleted in the background, the deletes sent
 * before this returns: what this session sends afterwards sees them gone,
 * with the exceptions zkr_mutex_acquire() names (the connection down, a
 * create unanswered).
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT (count 0, or more than a fixed max),
 * %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, %ZKR_ERROR_SESSION_EXPIRED (LOST while waiting),
 * %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_AUTH, %ZKR_ERROR_CONNECTION_LOSS,
 * %ZKR_ERROR_LOCK_LOST (a lease taken earlier in the same call was lost
 * meanwhile).
 *
 * Thread: any thread; blocks it until the leases are held or it failed.
 *
 * Returns: (transfer full) (element-type ZkrLease) (nullable): @count
 *   #ZkrLease handles. The array frees its elements with zkr_lease_free(),
 *   which releases a lease still held in the background: steal the leases
 *   you keep (g_ptr_array_steal_index()) or release them before dropping
 *   the array.
 *
 * Since: 0.1
 */
ZKR_API GPtrArray *zkr_semaphore_acquire (ZkrSemaphore *semaphore, guint count, int timeout_ms,
                                          GCancellable *cancellable, GError **error);
/**
 * zkr_semaphore_acquire_async:
 * @semaphore: a #ZkrSemaphore
 * @count: how many leases, at least 1
 * @timeout_ms: one deadline for all of them
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_semaphore_acquire(), GIO style; finish with
 * zkr_semaphore_acquire_finish().
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_semaphore_acquire_async (ZkrSemaphore *semaphore, guint count, int timeout_ms,
                                          GCancellable *cancellable,
                                          GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_semaphore_acquire_finish:
 * @semaphore: a #ZkrSemaphore
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_semaphore_acquire_async().
 *
 * Errors: those of zkr_semaphore_acquire().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: (transfer full) (element-type ZkrLease) (nullable): the
 *   leases, as zkr_semaphore_acquire().
 *
 * Since: 0.1
 */
ZKR_API GPtrArray *zkr_semaphore_acquire_finish (ZkrSemaphore *semaphore, GAsyncResult *result,
                                                 GError **error);

/**
 * zkr_semaphore_add_loss_listener:
 * @semaphore: a #ZkrSemaphore
 * @func: (scope notified): the listener; its lock argument is the
 *   semaphore
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data after the listener is removed
 *   or the semaphore goes
 *
 * Adds a loss listener: told of the loss events of every lease handed out
 * by this semaphore, once per lease and event. Check zkr_lease_is_held()
 * to see which leases are gone.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now, in order.
 *
 * Returns: a listener id (> 0).
 *
 * Since: 0.1
 */
ZKR_API guint zkr_semaphore_add_loss_listener (ZkrSemaphore *semaphore, ZkrLockLossFunc func,
                                               gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_semaphore_remove_loss_listener:
 * @semaphore: a #ZkrSemaphore
 * @listener_id: an id zkr_semaphore_add_loss_listener() returned
 *
 * Removes a loss listener.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_semaphore_remove_loss_listener (ZkrSemaphore *semaphore, guint listener_id);

/**
 * zkr_semaphore_list_participants:
 * @semaphore: a #ZkrSemaphore
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The lease nodes of every client, in sequence order: the first max are
 * holders, the rest (at most the newest, whose creator holds locks/) wait.
 * Children of leases/ that are not lease nodes count against the max, as
 * in Curator. Read as zkr_mutex_list_participants() reads (and as
 * cancellable).
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
ZKR_API GPtrArray *zkr_semaphore_list_participants (ZkrSemaphore *semaphore,
                                                    GCancellable *cancellable, GError **error);

/**
 * zkr_lease_release:
 * @lease: a #ZkrLease
 * @error: return location for a #GError, or %NULL
 *
 * Deletes the lease's node; see zkr_mutex_release() for the contract when
 * the connection is down (the delete stays pending and visible through
 * zkr_lease_is_release_pending()).
 *
 * Errors: %ZKR_ERROR_NOT_HELD (released already, or lost),
 * %ZKR_ERROR_CONNECTION_LOSS.
 *
 * Thread: any thread; blocks it until the server answered the delete.
 *
 * Returns: %TRUE once the server confirmed the delete.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_lease_release (ZkrLease *lease, GError **error);
/**
 * zkr_lease_release_async:
 * @lease: a #ZkrLease
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_lease_release(), GIO style; finish with zkr_lease_release_finish().
 * The lease is no longer held from this call on; the answer is that of
 * zkr_mutex_release_async() (%TRUE once the server confirmed the delete,
 * %ZKR_ERROR_CONNECTION_LOSS at the latest when the session reports
 * SUSPENDED, %G_IO_ERROR_CANCELLED at once on a cancel), and after a
 * failure the delete goes on in the background
 * (zkr_lease_is_release_pending()).
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_lease_release_async (ZkrLease *lease, GCancellable *cancellable,
                                      GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_lease_release_finish:
 * @lease: a #ZkrLease
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_lease_release_async().
 *
 * Errors: those of zkr_lease_release(); %G_IO_ERROR_CANCELLED when the
 * cancellable was cancelled before the delete was confirmed.
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server confirmed the delete.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_lease_release_finish (ZkrLease *lease, GAsyncResult *result,
                                           GError **error);
/**
 * zkr_lease_is_release_pending:
 * @lease: a #ZkrLease
 *
 * Whether the delete of the released lease node is still pending.
 *
 * Thread: any thread.
 *
 * Returns: %TRUE while it is pending.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_lease_is_release_pending (ZkrLease *lease);
/**
 * zkr_lease_is_held:
 * @lease: a #ZkrLease
 *
 * Whether the lease is held (%FALSE once released or lost).
 *
 * Thread: any thread.
 *
 * Returns: %TRUE while held.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_lease_is_held (ZkrLease *lease);
/**
 * zkr_lease_get_fencing_token:
 * @lease: a #ZkrLease
 *
 * The fencing token of the lease: its node's czxid.
 *
 * Thread: any thread.
 *
 * Returns: the token while held, else 0.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_lease_get_fencing_token (ZkrLease *lease);
/**
 * zkr_lease_dup_node_path:
 * @lease: a #ZkrLease
 *
 * The lease node's full path on the server while held.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the path, %NULL when not held;
 *   g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_lease_dup_node_path (ZkrLease *lease);
/**
 * zkr_lease_verify:
 * @lease: a #ZkrLease
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * As zkr_mutex_verify(): our node exists and belongs to our session; with
 * its bounds (a cancel of @cancellable, any thread, answers
 * %G_IO_ERROR_CANCELLED promptly, the lease left as it was).
 *
 * Errors: those of zkr_mutex_verify().
 *
 * Thread: any thread; blocks it for one round trip.
 *
 * Returns: %TRUE when the lease is still ours.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_lease_verify (ZkrLease *lease, GCancellable *cancellable, GError **error);
/**
 * zkr_lease_free:
 * @lease: (nullable) (transfer full): a #ZkrLease
 *
 * Frees the handle; a lease still held is released in the background.
 * %NULL is ignored.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_lease_free (ZkrLease *lease);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrSemaphore, zkr_semaphore_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrLease, zkr_lease_free)

G_END_DECLS
