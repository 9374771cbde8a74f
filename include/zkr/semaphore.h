/* zkr: a counting semaphore on ZooKeeper: at most N leases held at once
 * across every client of a path. Curator's InterProcessSemaphoreV2 layout
 * byte for byte ("PATH/locks" is a mutex, "PATH/leases" holds
 * "_c_<uuid>-lease-<seq>" nodes), so C and Java clients share the leases.
 *
 * The rule, Curator's: take the locks/ mutex; create our lease node; we
 * hold a lease once the number of children of leases/ is <= the max leases,
 * otherwise wait for leases/ to change; then release the locks/ mutex. As in
 * Curator, nothing checks that every client uses the same max: give them
 * all the same number, or share it through a count node.
 *
 * Threads: every function may be called from any thread. Loss listeners
 * and async callbacks run in the caller's thread-default GMainContext. */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrSemaphore ZkrSemaphore;

/* One lease: a node under PATH/leases. Handles are independent: each is
 * released on its own, from any thread. */
typedef struct _ZkrLease ZkrLease;

/**
 * zkr_semaphore_new:
 * @session: the session (a reference is taken)
 * @path: the semaphore's path, e.g. "/semaphores/db" (under the session's
 *   namespace, if any); its children "locks" and "leases" are Curator's
 * @max_leases: how many leases may be held at once, 1 to G_MAXINT
 * Errors: ZKR_ERROR_INVALID_ARGUMENT for an invalid path or a max of 0
 * (named). Sends nothing.
 * Returns: (transfer full) (nullable)
 */
ZKR_API ZkrSemaphore *zkr_semaphore_new (ZkrSession *session, const char *path,
                                         guint max_leases, GError **error);

/**
 * zkr_semaphore_new_shared_count:
 * @count_path: a node whose data is the max leases as a 4-byte big-endian
 *   int, as Curator's SharedCount writes it. It must exist.
 * Reads the count now (blocking, one round trip). The count is read again
 * at every acquire, right after the locks/ mutex is taken, so a change
 * applies to the next acquire. A waiter already waiting sees a new count
 * only when leases/ next changes (Curator wakes it at once). A count of
 * 0 or below makes every acquire wait. If a later read fails, the last
 * count read stays in force.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT (a path, or data that is not 4 bytes),
 * ZKR_ERROR_NO_NODE (no count node), ZKR_ERROR_SESSION_CLOSED, connection
 * errors.
 * Returns: (transfer full) (nullable)
 */
ZKR_API ZkrSemaphore *zkr_semaphore_new_shared_count (ZkrSession *session, const char *path,
                                                      const char *count_path, GError **error);
ZKR_API ZkrSemaphore *zkr_semaphore_ref (ZkrSemaphore *semaphore);
/* Leases outlive the semaphore object: each keeps what it needs. */
ZKR_API void zkr_semaphore_unref (ZkrSemaphore *semaphore);

/* The max leases in force: the one given, or the last count read. */
ZKR_API int zkr_semaphore_get_max_leases (ZkrSemaphore *semaphore);

/**
 * zkr_semaphore_acquire:
 * @count: how many leases, >= 1 (and <= the max, unless it is shared)
 * @timeout_ms: one deadline for all of them: 0 tries once, negative waits
 *   forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * Takes @count leases, one after the other, each under the locks/ mutex.
 * All or none, answered by the deadline or the cancel whatever the
 * connection does: on any failure no lease taken so far is held when this
 * returns, and their nodes are deleted in the background (what this
 * session sends afterwards sees them gone).
 * Errors: ZKR_ERROR_INVALID_ARGUMENT (count 0, or more than a fixed max),
 * ZKR_ERROR_TIMEOUT, G_IO_ERROR_CANCELLED, ZKR_ERROR_SESSION_EXPIRED (LOST
 * while waiting), ZKR_ERROR_SESSION_CLOSED, ZKR_ERROR_AUTH,
 * ZKR_ERROR_CONNECTION_LOSS, ZKR_ERROR_LOCK_LOST (a lease taken earlier in
 * the same call was lost meanwhile).
 * Returns: (transfer full) (nullable): @count ZkrLease handles. The array
 * frees its elements with zkr_lease_free(), which releases a lease still
 * held in the background: steal the leases you keep
 * (g_ptr_array_steal_index()) or release them before dropping the array.
 */
ZKR_API GPtrArray *zkr_semaphore_acquire (ZkrSemaphore *semaphore, guint count, int timeout_ms,
                                          GCancellable *cancellable, GError **error);
/* The same, GIO style: @callback runs once, in the caller's thread-default
 * GMainContext, never before this returns. */
ZKR_API void zkr_semaphore_acquire_async (ZkrSemaphore *semaphore, guint count, int timeout_ms,
                                          GCancellable *cancellable,
                                          GAsyncReadyCallback callback, gpointer user_data);
ZKR_API GPtrArray *zkr_semaphore_acquire_finish (ZkrSemaphore *semaphore, GAsyncResult *result,
                                                 GError **error);

/* Loss events of every lease handed out by this semaphore, once per lease
 * and event; the listener's lock argument is the semaphore. Check
 * zkr_lease_is_held() to see which leases are gone. */
ZKR_API guint zkr_semaphore_add_loss_listener (ZkrSemaphore *semaphore, ZkrLockLossFunc func,
                                               gpointer user_data, GDestroyNotify destroy);
ZKR_API void zkr_semaphore_remove_loss_listener (ZkrSemaphore *semaphore, guint listener_id);

/* The lease nodes of every client, in sequence order: the first max are
 * holders, the rest (at most the newest, whose creator holds locks/) wait.
 * Children of leases/ that are not lease nodes count against the max, as
 * in Curator. (transfer full) array of ZkrParticipant. */
ZKR_API GPtrArray *zkr_semaphore_list_participants (ZkrSemaphore *semaphore, GError **error);

/**
 * zkr_lease_release:
 * Deletes the lease's node; see zkr_mutex_release() for the contract when
 * the connection is down (the delete stays pending and visible through
 * zkr_lease_is_release_pending()).
 * Errors: ZKR_ERROR_NOT_HELD (released already, or lost),
 * ZKR_ERROR_CONNECTION_LOSS.
 */
ZKR_API gboolean zkr_lease_release (ZkrLease *lease, GError **error);
ZKR_API gboolean zkr_lease_is_release_pending (ZkrLease *lease);
ZKR_API gboolean zkr_lease_is_held (ZkrLease *lease);
/* Our lease node's czxid while held, else 0. */
ZKR_API gint64 zkr_lease_get_fencing_token (ZkrLease *lease);
/* The lease node's path while held, else NULL. (transfer full) (nullable) */
ZKR_API char *zkr_lease_dup_node_path (ZkrLease *lease);
/* As zkr_mutex_verify(): our node exists and belongs to our session. */
ZKR_API gboolean zkr_lease_verify (ZkrLease *lease, GError **error);
/* Frees the handle; a lease still held is released in the background.
 * NULL is ignored. */
ZKR_API void zkr_lease_free (ZkrLease *lease);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrSemaphore, zkr_semaphore_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrLease, zkr_lease_free)

G_END_DECLS
