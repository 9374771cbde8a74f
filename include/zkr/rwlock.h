/* zkr: a distributed read-write lock, Curator's InterProcessReadWriteLock
 * node layout ("PATH/_c_<uuid>-__READ__<seq>" and "..-__WRIT__<seq>"), so C
 * and Java clients share it. Readers share; a writer excludes everyone;
 * a reader that queues behind a waiting writer waits for it (writers do not
 * starve). Reentrant per thread, with write -> read downgrade (Curator
 * 5.5+: the read node takes the write node's sequence, so no queued writer
 * slips in); read -> write upgrade is refused with an error.
 *
 * Threads: every function may be called from any thread. Acquire, release,
 * the hold counts, tokens, node paths and verify are about the CALLING
 * thread's holds: threads of one process sharing an object queue separately,
 * each with its own nodes, as two processes would. Loss listeners and async
 * callbacks run in the caller's thread-default GMainContext. */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/revocation.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrRwlock ZkrRwlock;

/**
 * zkr_rwlock_new:
 * @session: the session (a reference is taken)
 * @path: the lock's path, e.g. "/locks/catalog" (under the session's
 *   namespace, if any)
 * Errors: ZKR_ERROR_INVALID_ARGUMENT for an invalid path (named).
 * Returns: (transfer full) (nullable)
 */
ZKR_API ZkrRwlock *zkr_rwlock_new (ZkrSession *session, const char *path, GError **error);
ZKR_API ZkrRwlock *zkr_rwlock_ref (ZkrRwlock *rwlock);
/* The last unref gives up every thread's holds (in the background). */
ZKR_API void zkr_rwlock_unref (ZkrRwlock *rwlock);

/**
 * zkr_rwlock_acquire_read:
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * Blocks until the calling thread holds the read lock: when no write node
 * is queued before ours. A thread that already holds it only counts (no
 * request). A thread that holds the write lock gets the read lock at once
 * (downgrade): its read node is "_c_<uuid>-__READ__<the write node's
 * sequence>", plain EPHEMERAL, so releasing the write lock afterwards lets
 * no queued writer in while the read lock is held. Answers by the deadline
 * or the cancel whatever the connection does; on any failure our node is
 * deleted in the background, as zkr_mutex_acquire() says.
 * Errors: ZKR_ERROR_TIMEOUT, G_IO_ERROR_CANCELLED, ZKR_ERROR_ALREADY_HELD
 * (this thread is already acquiring it), ZKR_ERROR_LOCK_LOST (a downgrade
 * whose write lock was lost meanwhile), ZKR_ERROR_SESSION_EXPIRED,
 * ZKR_ERROR_SESSION_CLOSED, ZKR_ERROR_AUTH, ZKR_ERROR_CONNECTION_LOSS.
 */
ZKR_API gboolean zkr_rwlock_acquire_read (ZkrRwlock *rwlock, int timeout_ms,
                                          GCancellable *cancellable, GError **error);
/* The same, GIO style: the calling thread is the one that will hold;
 * @callback runs once, in the caller's thread-default GMainContext, never
 * before this returns. */
ZKR_API void zkr_rwlock_acquire_read_async (ZkrRwlock *rwlock, int timeout_ms,
                                            GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data);
ZKR_API gboolean zkr_rwlock_acquire_read_finish (ZkrRwlock *rwlock, GAsyncResult *result,
                                                 GError **error);

/**
 * zkr_rwlock_acquire_write:
 * As zkr_rwlock_acquire_read(), for the write lock: held when our node is
 * the first of all the lock's children. A re-acquire by the holding thread
 * only counts.
 * Errors: as zkr_rwlock_acquire_read(), and ZKR_ERROR_ALREADY_HELD when the
 * calling thread holds the read lock but not the write lock: an upgrade
 * would wait for itself forever, so it is refused (release the read lock
 * first). Nothing is sent then.
 */
ZKR_API gboolean zkr_rwlock_acquire_write (ZkrRwlock *rwlock, int timeout_ms,
                                           GCancellable *cancellable, GError **error);
ZKR_API void zkr_rwlock_acquire_write_async (ZkrRwlock *rwlock, int timeout_ms,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data);
ZKR_API gboolean zkr_rwlock_acquire_write_finish (ZkrRwlock *rwlock, GAsyncResult *result,
                                                  GError **error);

/**
 * zkr_rwlock_release_read:
 * Decrements the calling thread's read count; at zero deletes its read
 * node. Returns TRUE once the server confirmed the delete. If the
 * connection is down, returns FALSE with ZKR_ERROR_CONNECTION_LOSS: the
 * lock is no longer held, and the delete stays pending (see
 * zkr_rwlock_is_release_pending()) and is retried in the background.
 * Errors: ZKR_ERROR_NOT_HELD when this thread does not hold it (including
 * after it was lost).
 */
ZKR_API gboolean zkr_rwlock_release_read (ZkrRwlock *rwlock, GError **error);
/* The same for the write lock. After a downgrade, the read lock stays. */
ZKR_API gboolean zkr_rwlock_release_write (ZkrRwlock *rwlock, GError **error);
/* TRUE while a delete of one of the calling thread's nodes is pending. */
ZKR_API gboolean zkr_rwlock_is_release_pending (ZkrRwlock *rwlock);

ZKR_API gboolean zkr_rwlock_is_read_held (ZkrRwlock *rwlock);
ZKR_API gboolean zkr_rwlock_is_write_held (ZkrRwlock *rwlock);
/* How many times the calling thread holds it (0 when not). */
ZKR_API guint zkr_rwlock_get_read_hold_count (ZkrRwlock *rwlock);
ZKR_API guint zkr_rwlock_get_write_hold_count (ZkrRwlock *rwlock);
/* The fencing token of the calling thread's hold, 0 when not held: the
 * czxid of its node, so above the token of every earlier holder. After a
 * downgrade the read token is the write hold's token: the read node takes
 * the write node's place in the queue (created later, its own czxid is
 * above that of the writers queued behind it, who hold after it). */
ZKR_API gint64 zkr_rwlock_get_read_token (ZkrRwlock *rwlock);
ZKR_API gint64 zkr_rwlock_get_write_token (ZkrRwlock *rwlock);
/* The calling thread's node path while held, else NULL.
 * (transfer full) (nullable) */
ZKR_API char *zkr_rwlock_dup_read_node_path (ZkrRwlock *rwlock);
ZKR_API char *zkr_rwlock_dup_write_node_path (ZkrRwlock *rwlock);

/* A synchronous check with the server that each node the calling thread
 * holds exists and is owned by our current session. On failure that side
 * is marked lost (listeners hear ZKR_LOCK_LOST). Errors:
 * ZKR_ERROR_NOT_HELD (this thread holds neither), ZKR_ERROR_LOCK_LOST,
 * ZKR_ERROR_CONNECTION_LOSS (nothing changed). */
ZKR_API gboolean zkr_rwlock_verify (ZkrRwlock *rwlock, GError **error);

/* Loss events of any hold of this object, read or write, of any thread. */
ZKR_API guint zkr_rwlock_add_loss_listener (ZkrRwlock *rwlock, ZkrLockLossFunc func,
                                            gpointer user_data, GDestroyNotify destroy);
ZKR_API void zkr_rwlock_remove_loss_listener (ZkrRwlock *rwlock, guint listener_id);

/**
 * zkr_rwlock_make_read_revocable:
 * @func: (nullable): the listener; NULL: that side is not revocable again
 * @destroy: (nullable): runs on @user_data when the listener is replaced or
 *   the lock goes, in the listener's context
 * Makes the read side (zkr_rwlock_make_write_revocable: the write side)
 * revocable, as Curator's readLock()/writeLock().makeRevocable(): each
 * request written into the node of a hold of that side, by any thread,
 * calls @func once, in the GMainContext that is thread-default now. The
 * listener decides; a release must come from the thread that holds. It
 * stays until replaced. Any thread. See <zkr/revocation.h>.
 */
ZKR_API void zkr_rwlock_make_read_revocable (ZkrRwlock *rwlock, ZkrRevocationFunc func,
                                             gpointer user_data, GDestroyNotify destroy);
ZKR_API void zkr_rwlock_make_write_revocable (ZkrRwlock *rwlock, ZkrRevocationFunc func,
                                              gpointer user_data, GDestroyNotify destroy);

/* Every read and write node in queue order (children carrying neither
 * name are left out); is_holder marks the write holder and the readers
 * through. (transfer full) array of ZkrParticipant. */
ZKR_API GPtrArray *zkr_rwlock_list_participants (ZkrRwlock *rwlock, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrRwlock, zkr_rwlock_unref)

G_END_DECLS
