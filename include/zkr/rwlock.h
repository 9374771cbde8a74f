/**
 * SECTION:rwlock
 * @title: ZkrRwlock
 * @short_description: a distributed read-write lock, Curator's
 *   InterProcessReadWriteLock layout
 * @include: zkr/zkr.h
 *
 * A distributed read-write lock, Curator's InterProcessReadWriteLock
 * node layout (`"PATH/_c_<uuid>-__READ__<seq>"` and `"..-__WRIT__<seq>"`),
 * so C and Java clients share it. Readers share; a writer excludes
 * everyone; a reader that queues behind a waiting writer waits for it
 * (writers do not starve). Reentrant per thread, with write to read
 * downgrade (Curator 5.5+: the read node takes the write node's sequence,
 * so no queued writer slips in); read to write upgrade is refused with an
 * error.
 *
 * Threads: every function may be called from any thread. Acquire, release,
 * the hold counts, tokens, node paths and verify are about the CALLING
 * thread's holds: threads of one process sharing an object queue separately,
 * each with its own nodes, as two processes would. Loss listeners and async
 * callbacks run in the caller's thread-default GMainContext.
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
 * ZkrRwlock:
 *
 * A distributed read-write lock: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrRwlock ZkrRwlock;

/**
 * zkr_rwlock_new:
 * @session: the session (a reference is taken)
 * @path: the lock's path, e.g. "/locks/catalog" (under the session's
 *   namespace, if any)
 * @error: return location for a #GError, or %NULL
 *
 * Makes a read-write lock on @path; nothing is sent.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT for an invalid path (named).
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the lock; zkr_rwlock_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrRwlock *zkr_rwlock_new (ZkrSession *session, const char *path, GError **error);
/**
 * zkr_rwlock_ref:
 * @rwlock: a #ZkrRwlock
 *
 * Takes a reference on @rwlock.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @rwlock.
 *
 * Since: 0.1
 */
ZKR_API ZkrRwlock *zkr_rwlock_ref (ZkrRwlock *rwlock);
/**
 * zkr_rwlock_unref:
 * @rwlock: (transfer full): a #ZkrRwlock
 *
 * Drops a reference. The last unref gives up every thread's holds (in the
 * background).
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_rwlock_unref (ZkrRwlock *rwlock);

/**
 * zkr_rwlock_acquire_read:
 * @rwlock: a #ZkrRwlock
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until the calling thread holds the read lock: when no write node
 * is queued before ours. A thread that already holds it only counts (no
 * request). A thread that holds the write lock gets the read lock at once
 * (downgrade): its read node is `"_c_<uuid>-__READ__<the write node's sequence>"`,
 * plain EPHEMERAL, so releasing the write lock afterwards lets
 * no queued writer in while the read lock is held. Answers by the deadline
 * or the cancel whatever the connection does; on any failure our node is
 * deleted in the background, as zkr_mutex_acquire() says.
 *
 * Errors: %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, %ZKR_ERROR_ALREADY_HELD (this thread is already acquiring
 * it), %ZKR_ERROR_LOCK_LOST (a downgrade whose write lock was lost
 * meanwhile), %ZKR_ERROR_SESSION_EXPIRED, %ZKR_ERROR_SESSION_CLOSED,
 * %ZKR_ERROR_AUTH, %ZKR_ERROR_CONNECTION_LOSS.
 *
 * Thread: any thread, which is the thread that will hold; blocks it.
 *
 * Returns: %TRUE once the calling thread holds the read lock.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_acquire_read (ZkrRwlock *rwlock, int timeout_ms,
                                          GCancellable *cancellable, GError **error);
/**
 * zkr_rwlock_acquire_read_async:
 * @rwlock: a #ZkrRwlock
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_rwlock_acquire_read(), GIO style; finish with
 * zkr_rwlock_acquire_read_finish().
 *
 * Thread: any thread; the calling thread is the one that will hold.
 * @callback runs once, in the caller's thread-default GMainContext, never
 * before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_rwlock_acquire_read_async (ZkrRwlock *rwlock, int timeout_ms,
                                            GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data);
/**
 * zkr_rwlock_acquire_read_finish:
 * @rwlock: a #ZkrRwlock
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_rwlock_acquire_read_async().
 *
 * Errors: those of zkr_rwlock_acquire_read().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the read lock is held.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_acquire_read_finish (ZkrRwlock *rwlock, GAsyncResult *result,
                                                 GError **error);

/**
 * zkr_rwlock_acquire_write:
 * @rwlock: a #ZkrRwlock
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * @error: return location for a #GError, or %NULL
 *
 * As zkr_rwlock_acquire_read(), for the write lock: held when our node is
 * the first of all the lock's children. A re-acquire by the holding thread
 * only counts.
 *
 * Errors: as zkr_rwlock_acquire_read(), and %ZKR_ERROR_ALREADY_HELD when
 * the calling thread holds the read lock but not the write lock: an
 * upgrade would wait for itself forever, so it is refused (release the
 * read lock first). Nothing is sent then.
 *
 * Thread: any thread, which is the thread that will hold; blocks it.
 *
 * Returns: %TRUE once the calling thread holds the write lock.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_acquire_write (ZkrRwlock *rwlock, int timeout_ms,
                                           GCancellable *cancellable, GError **error);
/**
 * zkr_rwlock_acquire_write_async:
 * @rwlock: a #ZkrRwlock
 * @timeout_ms: 0 tries once, negative waits forever
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_rwlock_acquire_write(), GIO style; finish with
 * zkr_rwlock_acquire_write_finish().
 *
 * Thread: any thread; the calling thread is the one that will hold.
 * @callback runs once, in the caller's thread-default GMainContext, never
 * before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_rwlock_acquire_write_async (ZkrRwlock *rwlock, int timeout_ms,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data);
/**
 * zkr_rwlock_acquire_write_finish:
 * @rwlock: a #ZkrRwlock
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_rwlock_acquire_write_async().
 *
 * Errors: those of zkr_rwlock_acquire_write().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the write lock is held.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_acquire_write_finish (ZkrRwlock *rwlock, GAsyncResult *result,
                                                  GError **error);

/**
 * zkr_rwlock_release_read:
 * @rwlock: a #ZkrRwlock
 * @error: return location for a #GError, or %NULL
 *
 * Decrements the calling thread's read count; at zero deletes its read
 * node. If the connection is down, returns %FALSE with
 * %ZKR_ERROR_CONNECTION_LOSS: the lock is no longer held, and the delete
 * stays pending (see zkr_rwlock_is_release_pending()) and is retried in
 * the background.
 *
 * Errors: %ZKR_ERROR_NOT_HELD when this thread does not hold it (including
 * after it was lost); %ZKR_ERROR_CONNECTION_LOSS (see above).
 *
 * Thread: the holding thread; at zero it blocks until the server answered
 * the delete.
 *
 * Returns: %TRUE on success (at zero: once the server confirmed the
 *   delete).
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_release_read (ZkrRwlock *rwlock, GError **error);
/**
 * zkr_rwlock_release_write:
 * @rwlock: a #ZkrRwlock
 * @error: return location for a #GError, or %NULL
 *
 * As zkr_rwlock_release_read(), for the write lock. After a downgrade, the
 * read lock stays.
 *
 * Errors: those of zkr_rwlock_release_read().
 *
 * Thread: the holding thread; at zero it blocks until the server answered
 * the delete.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_release_write (ZkrRwlock *rwlock, GError **error);
/**
 * zkr_rwlock_release_read_async:
 * @rwlock: a #ZkrRwlock
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_rwlock_release_read(), GIO style; finish with
 * zkr_rwlock_release_read_finish(). The calling thread's read count goes
 * down now: above zero the answer is %TRUE and nothing is sent; at zero
 * the read node's delete is answered as zkr_mutex_release_async() says
 * (%TRUE once confirmed, %ZKR_ERROR_CONNECTION_LOSS at the latest when the
 * session reports SUSPENDED, %G_IO_ERROR_CANCELLED at once on a cancel).
 * The thread no longer holds the read lock either way; after a failure the
 * delete goes on in the background (zkr_rwlock_is_release_pending()).
 *
 * Thread: the holding thread; @callback runs once, in its thread-default
 * GMainContext, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_rwlock_release_read_async (ZkrRwlock *rwlock, GCancellable *cancellable,
                                            GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_rwlock_release_read_finish:
 * @rwlock: a #ZkrRwlock
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_rwlock_release_read_async().
 *
 * Errors: those of zkr_rwlock_release_read(); %G_IO_ERROR_CANCELLED when
 * the cancellable was cancelled before the delete was confirmed.
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE on success (at zero: once the server confirmed the
 *   delete).
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_release_read_finish (ZkrRwlock *rwlock, GAsyncResult *result,
                                                 GError **error);
/**
 * zkr_rwlock_release_write_async:
 * @rwlock: a #ZkrRwlock
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * As zkr_rwlock_release_read_async(), for the write lock; finish with
 * zkr_rwlock_release_write_finish(). After a downgrade, the read lock
 * stays.
 *
 * Thread: the holding thread; @callback runs once, in its thread-default
 * GMainContext, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_rwlock_release_write_async (ZkrRwlock *rwlock, GCancellable *cancellable,
                                             GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_rwlock_release_write_finish:
 * @rwlock: a #ZkrRwlock
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_rwlock_release_write_async().
 *
 * Errors: those of zkr_rwlock_release_read_finish().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_release_write_finish (ZkrRwlock *rwlock, GAsyncResult *result,
                                                  GError **error);
/**
 * zkr_rwlock_is_release_pending:
 * @rwlock: a #ZkrRwlock
 *
 * Whether a delete of one of the calling thread's nodes is pending.
 *
 * Thread: any thread (about its own nodes).
 *
 * Returns: %TRUE while one is pending.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_is_release_pending (ZkrRwlock *rwlock);

/**
 * zkr_rwlock_is_read_held:
 * @rwlock: a #ZkrRwlock
 *
 * Whether the calling thread holds the read lock.
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: %TRUE while it does.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_is_read_held (ZkrRwlock *rwlock);
/**
 * zkr_rwlock_is_write_held:
 * @rwlock: a #ZkrRwlock
 *
 * Whether the calling thread holds the write lock.
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: %TRUE while it does.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_is_write_held (ZkrRwlock *rwlock);
/**
 * zkr_rwlock_get_read_hold_count:
 * @rwlock: a #ZkrRwlock
 *
 * How many times the calling thread holds the read lock.
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: the count, 0 when not held.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_rwlock_get_read_hold_count (ZkrRwlock *rwlock);
/**
 * zkr_rwlock_get_write_hold_count:
 * @rwlock: a #ZkrRwlock
 *
 * How many times the calling thread holds the write lock.
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: the count, 0 when not held.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_rwlock_get_write_hold_count (ZkrRwlock *rwlock);
/**
 * zkr_rwlock_get_read_token:
 * @rwlock: a #ZkrRwlock
 *
 * The fencing token of the calling thread's read hold: the czxid of its
 * node, so above the token of every earlier holder. After a downgrade the
 * read token is the write hold's token: the read node takes the write
 * node's place in the queue (created later, its own czxid is above that
 * of the writers queued behind it, who hold after it).
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: the token, 0 when not held.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_rwlock_get_read_token (ZkrRwlock *rwlock);
/**
 * zkr_rwlock_get_write_token:
 * @rwlock: a #ZkrRwlock
 *
 * The fencing token of the calling thread's write hold: the czxid of its
 * node.
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: the token, 0 when not held.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_rwlock_get_write_token (ZkrRwlock *rwlock);
/**
 * zkr_rwlock_dup_read_node_path:
 * @rwlock: a #ZkrRwlock
 *
 * The calling thread's read node (its full path on the server) while
 * held.
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: (transfer full) (nullable): the path, else %NULL; g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_rwlock_dup_read_node_path (ZkrRwlock *rwlock);
/**
 * zkr_rwlock_dup_write_node_path:
 * @rwlock: a #ZkrRwlock
 *
 * The calling thread's write node (its full path on the server) while
 * held.
 *
 * Thread: any thread (about its own hold).
 *
 * Returns: (transfer full) (nullable): the path, else %NULL; g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_rwlock_dup_write_node_path (ZkrRwlock *rwlock);

/**
 * zkr_rwlock_verify:
 * @rwlock: a #ZkrRwlock
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * A synchronous check with the server that each node the calling thread
 * holds, the write node then the read node, exists and is owned by our
 * current session: zkr_mutex_verify() of each, with its bounds. When the
 * server says a node is gone or not ours, that side is marked lost
 * (listeners hear %ZKR_LOCK_LOST). A cancel of @cancellable (any thread)
 * answers %G_IO_ERROR_CANCELLED promptly, sends nothing more and leaves
 * both sides as they were.
 *
 * Errors: %ZKR_ERROR_NOT_HELD (this thread holds neither), and those of
 * zkr_mutex_verify().
 *
 * Thread: any thread (about its own holds); blocks it for a round trip
 * per node.
 *
 * Returns: %TRUE when the holds are still ours.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_rwlock_verify (ZkrRwlock *rwlock, GCancellable *cancellable, GError **error);

/**
 * zkr_rwlock_add_loss_listener:
 * @rwlock: a #ZkrRwlock
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data after the listener is removed
 *   or the lock goes
 *
 * Adds a loss listener: told of the loss events of any hold of this
 * object, read or write, of any thread.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now, in order.
 *
 * Returns: a listener id (> 0).
 *
 * Since: 0.1
 */
ZKR_API guint zkr_rwlock_add_loss_listener (ZkrRwlock *rwlock, ZkrLockLossFunc func,
                                            gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_rwlock_remove_loss_listener:
 * @rwlock: a #ZkrRwlock
 * @listener_id: an id zkr_rwlock_add_loss_listener() returned
 *
 * Removes a loss listener.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_rwlock_remove_loss_listener (ZkrRwlock *rwlock, guint listener_id);

/**
 * zkr_rwlock_make_read_revocable:
 * @rwlock: a #ZkrRwlock
 * @func: (nullable) (scope notified): the listener; %NULL: the read side
 *   is not revocable again
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data when the listener is replaced or
 *   the lock goes, in the listener's context
 *
 * Makes the read side revocable, as Curator's
 * readLock().makeRevocable(): each request written into the node of a
 * read hold, by any thread, calls @func once. The listener decides; a
 * release must come from the thread that holds. It stays until replaced.
 * See zkr/revocation.h.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Since: 0.1
 */
ZKR_API void zkr_rwlock_make_read_revocable (ZkrRwlock *rwlock, ZkrRevocationFunc func,
                                             gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_rwlock_make_write_revocable:
 * @rwlock: a #ZkrRwlock
 * @func: (nullable) (scope notified): the listener; %NULL: the write side
 *   is not revocable again
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data when the listener is replaced or
 *   the lock goes, in the listener's context
 *
 * zkr_rwlock_make_read_revocable() for the write side (Curator's
 * writeLock().makeRevocable()).
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Since: 0.1
 */
ZKR_API void zkr_rwlock_make_write_revocable (ZkrRwlock *rwlock, ZkrRevocationFunc func,
                                              gpointer user_data, GDestroyNotify destroy);

/**
 * zkr_rwlock_list_participants:
 * @rwlock: a #ZkrRwlock
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Every read and write node in queue order (children carrying neither
 * name are left out); is_holder marks the write holder and the readers
 * through. Read as zkr_mutex_list_participants() reads (and as
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
ZKR_API GPtrArray *zkr_rwlock_list_participants (ZkrRwlock *rwlock, GCancellable *cancellable,
                                                 GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrRwlock, zkr_rwlock_unref)

G_END_DECLS
