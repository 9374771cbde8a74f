/* zkr: transactions (Curator's transaction(), ZooKeeper's multi): creates,
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
 * lost the lock. A failed fence is ZKR_ERROR_LOCK_LOST naming the node.
 * This protects state kept in ZooKeeper; for state kept elsewhere pass the
 * lock's fencing token to that store (README, "Fencing").
 *
 * Paths of the operations are under the session's namespace, as in
 * include/zkr/node.h. A fence's node is the full path on the server, as
 * zkr_mutex_dup_node_path() and the other *_dup_node_path calls return it
 * (and zkr lock passes it in $ZKR_LOCK_NODE).
 *
 * Building: the zkr_txn_create/_set/_delete/_check/_fence* calls check
 * their input; the first bad one is kept and the commit fails with it
 * (ZKR_ERROR_INVALID_ARGUMENT naming the value, or ZKR_ERROR_LOCK_LOST for
 * a fence on a lock not held), nothing sent. A ZkrTxn is built and
 * committed by one thread at a time (not locked), committed once, and may
 * be unreffed from any thread; an async commit holds a reference.
 *
 * Commit: a write, with node.h's rules for deadlines, cancels, session
 * states and retries: answered by the deadline in every session state,
 * never sent twice (after ZKR_ERROR_CONNECTION_LOSS, a TIMEOUT or a
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

typedef struct _ZkrTxn ZkrTxn;

/**
 * zkr_txn_new:
 * @session: the session the transaction is committed on (referenced)
 * Returns: (transfer full): an empty transaction; zkr_txn_unref() it.
 */
ZKR_API ZkrTxn *zkr_txn_new (ZkrSession *session);
ZKR_API ZkrTxn *zkr_txn_ref (ZkrTxn *txn);
ZKR_API void zkr_txn_unref (ZkrTxn *txn);

/**
 * zkr_txn_create:
 * @path: the node's path (for a sequential @mode, the prefix, as
 *   zkr_node_create())
 * @data: (nullable): copied before this returns; NULL with @len 0 for none
 * @mode: a ZkrCreateMode
 * Adds a create (with the session's ACL; parents are not created).
 * Returns: the operation's index (0 for the first operation added;
 * fences are not counted), for zkr_txn_get_created_path().
 */
ZKR_API guint zkr_txn_create (ZkrTxn *txn, const char *path, const void *data, gsize len,
                              ZkrCreateMode mode);
/* Adds a set of @path's data; @version as zkr_node_set() (-1: any).
 * Returns the operation's index. */
ZKR_API guint zkr_txn_set (ZkrTxn *txn, const char *path, const void *data, gsize len,
                           int version);
/* Adds a delete of @path (no children); @version as zkr_node_delete(). */
ZKR_API guint zkr_txn_delete (ZkrTxn *txn, const char *path, int version);
/* Adds a check that @path exists with data version @version (-1: exists,
 * any version); fails the transaction otherwise (ZKR_ERROR_NO_NODE,
 * ZKR_ERROR_BAD_VERSION). */
ZKR_API guint zkr_txn_check (ZkrTxn *txn, const char *path, int version);

/**
 * zkr_txn_fence:
 * @node_path: a lock holder's node, the full path on the server (as
 *   zkr_mutex_dup_node_path() returns it)
 * The transaction is applied only if @node_path still exists when the
 * server applies it; otherwise nothing is and the commit fails with
 * ZKR_ERROR_LOCK_LOST naming @node_path. Several fences may be added.
 */
ZKR_API void zkr_txn_fence (ZkrTxn *txn, const char *node_path);
/* Fences on the current hold of @mutex (its node now); a mutex not held
 * fails the commit with ZKR_ERROR_LOCK_LOST, nothing sent. */
ZKR_API void zkr_txn_fence_mutex (ZkrTxn *txn, ZkrMutex *mutex);
/* Fences on the write lock if this thread's object holds it, else on the
 * read lock; neither held: ZKR_ERROR_LOCK_LOST at the commit. */
ZKR_API void zkr_txn_fence_rwlock (ZkrTxn *txn, ZkrRwlock *rwlock);
/* Fences on a semaphore lease. */
ZKR_API void zkr_txn_fence_lease (ZkrTxn *txn, ZkrLease *lease);
/* Fences on every lock of a held multi-lock. */
ZKR_API void zkr_txn_fence_multi_lock (ZkrTxn *txn, ZkrMultiLock *lock);
/* Fences on the current leadership term of @latch (its node, while it
 * has leadership). */
ZKR_API void zkr_txn_fence_leader_latch (ZkrTxn *txn, ZkrLeaderLatch *latch);

/* The number of operations added (fences not counted). */
ZKR_API guint zkr_txn_get_n_ops (ZkrTxn *txn);

/**
 * zkr_txn_commit:
 * @timeout_ms: the deadline, as in include/zkr/node.h
 * Sends the transaction as one multi and waits for the answer.
 * Errors: ZKR_ERROR_LOCK_LOST (a fence's node is gone), the failed
 * operation's error (ZKR_ERROR_NO_NODE, ZKR_ERROR_NODE_EXISTS,
 * ZKR_ERROR_BAD_VERSION, ZKR_ERROR_NOT_EMPTY,
 * ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS, ZKR_ERROR_AUTH, ...; the message
 * names its index, kind and path, and zkr_txn_get_failed_index() gives the
 * index), ZKR_ERROR_INVALID_ARGUMENT (bad input while building, or no
 * operation), and node.h's common errors (TIMEOUT, CANCELLED,
 * CONNECTION_LOSS, SESSION_EXPIRED, SESSION_CLOSED). On any failure
 * nothing was applied, except after CONNECTION_LOSS, TIMEOUT or CANCELLED
 * (see above).
 * Returns: TRUE once the server applied every operation.
 */
ZKR_API gboolean zkr_txn_commit (ZkrTxn *txn, int timeout_ms, GCancellable *cancellable,
                                 GError **error);
/* The same, GIO style: @callback runs in the GMainContext that was
 * thread-default at this call. */
ZKR_API void zkr_txn_commit_async (ZkrTxn *txn, int timeout_ms, GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data);
ZKR_API gboolean zkr_txn_commit_finish (ZkrTxn *txn, GAsyncResult *result, GError **error);

/* After a successful commit: the path a create made (with a sequential
 * suffix, without the namespace), NULL for another operation or before.
 * (transfer none): valid while @txn lives. */
ZKR_API const char *zkr_txn_get_created_path (ZkrTxn *txn, guint index);
/* After a successful commit: a set's new stat (TRUE), else FALSE. */
ZKR_API gboolean zkr_txn_get_stat (ZkrTxn *txn, guint index, ZkrStat *stat);
/* After a commit the server refused: the index of the operation that
 * failed; -1 when a fence failed, before a commit, or after a failure
 * that was not the server refusing an operation. */
ZKR_API int zkr_txn_get_failed_index (ZkrTxn *txn);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrTxn, zkr_txn_unref)

G_END_DECLS
