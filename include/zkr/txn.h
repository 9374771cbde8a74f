/**
 * SECTION:txn
 * @title: ZkrTxn
 * @short_description: transactions: writes applied all or nothing, and
 *   fenced by a held lock
 * @include: zkr/zkr.h
 *
 * Transactions (Curator's transaction(), ZooKeeper's multi): creates,
 * sets, deletes and version checks applied all or nothing in one request,
 * and writes fenced by a held lock: the server commits them only while
 * the lock's node still exists.
 *
 * Fencing (docs/design.md §5.7): zkr_txn_fence() adds a check of a lock
 * holder's node to the same multi. Sequential names are never reused, and
 * while that node exists nobody queued behind it can be granted the lock,
 * so "the node exists when the server applies the transaction" is "the
 * lock is still ours then", decided by the server, atomically, without a
 * clock: a holder cut off by a partition, paused past its session, or
 * already expired writes nothing any more, even before it hears that it
 * lost the lock. A failed fence is %ZKR_ERROR_LOCK_LOST naming the node.
 * This protects state kept in ZooKeeper; for state kept elsewhere pass the
 * lock's fencing token to that store (README, "Locks").
 *
 * Paths of the operations are under the session's namespace, as in
 * include/zkr/node.h. A fence's node is the full path on the server, as
 * zkr_mutex_dup_node_path() and the other *_dup_node_path calls return it
 * (and zkr lock passes it in $ZKR_LOCK_NODE).
 *
 * Building: the zkr_txn_create/_set/_delete/_check/_fence* calls check
 * their input; the first bad one is kept and the commit fails with it
 * (%ZKR_ERROR_INVALID_ARGUMENT naming the value, or %ZKR_ERROR_LOCK_LOST for
 * a fence on a lock not held), nothing sent. A ZkrTxn is built and
 * committed by one thread at a time (not locked), committed once, and may
 * be unreffed from any thread; an async commit holds a reference.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 *
 * Commit: a write, with node.h's rules for deadlines, cancels, session
 * states and retries: answered by the deadline in every session state,
 * never sent twice (after %ZKR_ERROR_CONNECTION_LOSS, a TIMEOUT or a
 * CANCELLED once it left, it may or may not have been applied: all of it
 * or none).
 */
#pragma once

#include <gio/gio.h>
#include <zkr/leader-latch.h>
#include <zkr/multi-lock.h>
#include <zkr/mutex.h>
#include <zkr/node.h>
#include <zkr/rwlock.h>
#include <zkr/semaphore.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrTxn:
 *
 * A transaction: opaque and reference-counted; built and committed by
 * one thread at a time, committed once.
 *
 * Since: 0.1
 */
typedef struct _ZkrTxn ZkrTxn;

/**
 * zkr_txn_new:
 * @session: the session the transaction is committed on (referenced)
 *
 * Starts an empty transaction.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): an empty transaction; zkr_txn_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrTxn *zkr_txn_new (ZkrSession *session);
/**
 * zkr_txn_ref:
 * @txn: a #ZkrTxn
 *
 * Takes a reference on @txn.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @txn.
 *
 * Since: 0.1
 */
ZKR_API ZkrTxn *zkr_txn_ref (ZkrTxn *txn);
/**
 * zkr_txn_unref:
 * @txn: (transfer full): a #ZkrTxn
 *
 * Drops a reference; the last one frees the transaction (an async commit
 * holds one until it is answered).
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_txn_unref (ZkrTxn *txn);

/**
 * zkr_txn_create:
 * @txn: a #ZkrTxn not committed yet
 * @path: the node's path (for a sequential @mode, the prefix, as
 *   zkr_node_create())
 * @data: (nullable) (array length=len): copied before this returns; %NULL
 *   with @len 0 for none
 * @len: the length of @data in bytes
 * @mode: a #ZkrCreateMode (not a TTL mode)
 *
 * Adds a create (with the session's ACL; parents are not created). Bad
 * input is kept and fails the commit (see above).
 *
 * Thread: the thread building @txn.
 *
 * Returns: the operation's index (0 for the first operation added;
 *   fences are not counted), for zkr_txn_get_created_path().
 *
 * Since: 0.1
 */
ZKR_API guint zkr_txn_create (ZkrTxn *txn, const char *path, const void *data, gsize len,
                              ZkrCreateMode mode);
/**
 * zkr_txn_set:
 * @txn: a #ZkrTxn not committed yet
 * @path: the node's path
 * @data: (nullable) (array length=len): the new data, copied before this
 *   returns; %NULL with @len 0 for none
 * @len: the length of @data in bytes
 * @version: as zkr_node_set() (-1: any)
 *
 * Adds a set of @path's data. Bad input is kept and fails the commit.
 *
 * Thread: the thread building @txn.
 *
 * Returns: the operation's index, for zkr_txn_get_stat().
 *
 * Since: 0.1
 */
ZKR_API guint zkr_txn_set (ZkrTxn *txn, const char *path, const void *data, gsize len,
                           int version);
/**
 * zkr_txn_delete:
 * @txn: a #ZkrTxn not committed yet
 * @path: the node's path (it must have no children)
 * @version: as zkr_node_delete() (-1: any)
 *
 * Adds a delete of @path. Bad input is kept and fails the commit.
 *
 * Thread: the thread building @txn.
 *
 * Returns: the operation's index.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_txn_delete (ZkrTxn *txn, const char *path, int version);
/**
 * zkr_txn_check:
 * @txn: a #ZkrTxn not committed yet
 * @path: the node's path
 * @version: the data version @path must have (-1: exists, any version)
 *
 * Adds a check that @path exists with data version @version; the
 * transaction fails otherwise (%ZKR_ERROR_NO_NODE, %ZKR_ERROR_BAD_VERSION).
 *
 * Thread: the thread building @txn.
 *
 * Returns: the operation's index.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_txn_check (ZkrTxn *txn, const char *path, int version);

/**
 * zkr_txn_fence:
 * @txn: a #ZkrTxn not committed yet
 * @node_path: a lock holder's node, the full path on the server (as
 *   zkr_mutex_dup_node_path() returns it)
 *
 * The transaction is applied only if @node_path still exists when the
 * server applies it; otherwise nothing is and the commit fails with
 * %ZKR_ERROR_LOCK_LOST naming @node_path. Several fences may be added.
 *
 * Thread: the thread building @txn.
 *
 * Since: 0.1
 */
ZKR_API void zkr_txn_fence (ZkrTxn *txn, const char *node_path);
/**
 * zkr_txn_fence_mutex:
 * @txn: a #ZkrTxn not committed yet
 * @mutex: a #ZkrMutex
 *
 * Fences on the current hold of @mutex (its node now); a mutex not held
 * fails the commit with %ZKR_ERROR_LOCK_LOST, nothing sent.
 *
 * Thread: the thread building @txn.
 *
 * Since: 0.1
 */
ZKR_API void zkr_txn_fence_mutex (ZkrTxn *txn, ZkrMutex *mutex);
/**
 * zkr_txn_fence_rwlock:
 * @txn: a #ZkrTxn not committed yet
 * @rwlock: a #ZkrRwlock
 *
 * Fences on the write lock if the calling thread holds it through
 * @rwlock, else on its read lock; neither held: %ZKR_ERROR_LOCK_LOST at
 * the commit.
 *
 * Thread: the thread building @txn, which is the thread whose hold counts.
 *
 * Since: 0.1
 */
ZKR_API void zkr_txn_fence_rwlock (ZkrTxn *txn, ZkrRwlock *rwlock);
/**
 * zkr_txn_fence_lease:
 * @txn: a #ZkrTxn not committed yet
 * @lease: a #ZkrLease
 *
 * Fences on a semaphore lease; a lease not held: %ZKR_ERROR_LOCK_LOST at
 * the commit.
 *
 * Thread: the thread building @txn.
 *
 * Since: 0.1
 */
ZKR_API void zkr_txn_fence_lease (ZkrTxn *txn, ZkrLease *lease);
/**
 * zkr_txn_fence_multi_lock:
 * @txn: a #ZkrTxn not committed yet
 * @lock: a #ZkrMultiLock
 *
 * Fences on every lock of a held multi-lock; any of them not held:
 * %ZKR_ERROR_LOCK_LOST at the commit.
 *
 * Thread: the thread building @txn.
 *
 * Since: 0.1
 */
ZKR_API void zkr_txn_fence_multi_lock (ZkrTxn *txn, ZkrMultiLock *lock);
/**
 * zkr_txn_fence_leader_latch:
 * @txn: a #ZkrTxn not committed yet
 * @latch: a #ZkrLeaderLatch
 *
 * Fences on the current leadership term of @latch (its node, while it
 * has leadership); not leading: %ZKR_ERROR_LOCK_LOST at the commit.
 *
 * Thread: the thread building @txn.
 *
 * Since: 0.1
 */
ZKR_API void zkr_txn_fence_leader_latch (ZkrTxn *txn, ZkrLeaderLatch *latch);

/**
 * zkr_txn_get_n_ops:
 * @txn: a #ZkrTxn
 *
 * The number of operations added (fences not counted).
 *
 * Thread: the thread building @txn.
 *
 * Returns: the count.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_txn_get_n_ops (ZkrTxn *txn);

/**
 * zkr_txn_commit:
 * @txn: a #ZkrTxn not committed yet
 * @timeout_ms: the deadline, as in zkr/node.h
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Sends the transaction as one multi and waits for the answer.
 *
 * Errors: %ZKR_ERROR_LOCK_LOST (a fence's node is gone), the failed
 * operation's error (%ZKR_ERROR_NO_NODE, %ZKR_ERROR_NODE_EXISTS,
 * %ZKR_ERROR_BAD_VERSION, %ZKR_ERROR_NOT_EMPTY,
 * %ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS, %ZKR_ERROR_AUTH, ...; the message
 * names its index, kind and path, and zkr_txn_get_failed_index() gives the
 * index), %ZKR_ERROR_INVALID_ARGUMENT (bad input while building, no
 * operation, or a multi request over %ZKR_NODE_MAX_REQUEST_SIZE, all its
 * operations counted, though each may fit: refused naming its size,
 * nothing sent), %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and
 * node.h's common errors (TIMEOUT, CONNECTION_LOSS, SESSION_EXPIRED,
 * SESSION_CLOSED). On any failure nothing was applied, except after
 * CONNECTION_LOSS, TIMEOUT or a cancel (see above).
 *
 * Thread: the thread building @txn; blocks it until answered.
 *
 * Returns: %TRUE once the server applied every operation.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_txn_commit (ZkrTxn *txn, int timeout_ms, GCancellable *cancellable,
                                 GError **error);
/**
 * zkr_txn_commit_async:
 * @txn: a #ZkrTxn not committed yet (the commit holds a reference)
 * @timeout_ms: the deadline, as in zkr/node.h
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_txn_commit(), GIO style; finish with zkr_txn_commit_finish().
 *
 * Thread: the thread building @txn; @callback runs once, in the
 * GMainContext that is thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_txn_commit_async (ZkrTxn *txn, int timeout_ms, GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_txn_commit_finish:
 * @txn: the #ZkrTxn
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_txn_commit_async().
 *
 * Errors: those of zkr_txn_commit().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server applied every operation.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_txn_commit_finish (ZkrTxn *txn, GAsyncResult *result, GError **error);

/**
 * zkr_txn_get_created_path:
 * @txn: a committed #ZkrTxn
 * @index: an operation's index
 *
 * After a successful commit: the path a create made.
 *
 * Thread: any thread once the commit is answered.
 *
 * Returns: (transfer none) (nullable): the path (with a sequential
 *   suffix, without the namespace), %NULL for another operation or before
 *   the commit; valid while @txn lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_txn_get_created_path (ZkrTxn *txn, guint index);
/**
 * zkr_txn_get_stat:
 * @txn: a committed #ZkrTxn
 * @index: an operation's index
 * @stat: (out caller-allocates) (optional): filled with a set's new stat
 *
 * After a successful commit: the new stat of a set.
 *
 * Thread: any thread once the commit is answered.
 *
 * Returns: %TRUE when @stat was filled; %FALSE for another operation or
 *   before the commit.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_txn_get_stat (ZkrTxn *txn, guint index, ZkrStat *stat);
/**
 * zkr_txn_get_failed_index:
 * @txn: a #ZkrTxn
 *
 * After a commit the server refused: which operation failed.
 *
 * Thread: any thread once the commit is answered.
 *
 * Returns: the index of the operation that failed; -1 when a fence
 *   failed, before a commit, or after a failure that was not the server
 *   refusing an operation.
 *
 * Since: 0.1
 */
ZKR_API int zkr_txn_get_failed_index (ZkrTxn *txn);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrTxn, zkr_txn_unref)

G_END_DECLS
