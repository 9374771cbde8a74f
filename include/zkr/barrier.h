/**
 * SECTION:barrier
 * @title: ZkrBarrier
 * @short_description: a barrier, Curator's DistributedBarrier layout
 * @include: zkr/zkr.h
 *
 * A barrier on ZooKeeper, Curator's DistributedBarrier layout: the
 * barrier is up while its node exists; waiters pass once it is removed.
 * Java and C clients can set, remove and wait on the same path.
 *
 * Layout (docs/design.md §4.2): one PERSISTENT node at PATH, its missing
 * parents made as containers; its data is the session's client id, which
 * nobody reads (Curator writes its default, the local address). A waiter
 * keeps one exists watch on PATH and reads again after each event.
 *
 * Deadlines, cancel and session states follow zkr/node.h: a call
 * answers by its deadline whatever the connection does (SUSPENDED, a
 * silent link, LOST, CLOSED). A positive @timeout_ms is a deadline, 0
 * tries once (one read for a wait), a negative one none (answered at the
 * latest when the session is LOST: %ZKR_ERROR_SESSION_EXPIRED). Cancelling
 * @cancellable (any thread) answers %G_IO_ERROR_CANCELLED promptly.
 *
 * Threads: every function may be called from any thread. An async call's
 * @callback runs once, in the GMainContext that was thread-default when
 * the call was made (that context must be iterated), never before the
 * call returns; the call keeps a reference on the barrier meanwhile. A
 * blocking call is its async twin run in a private context.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrBarrier:
 *
 * A barrier: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrBarrier ZkrBarrier;

/**
 * zkr_barrier_new:
 * @session: the session (a reference is taken)
 * @path: the barrier's node, e.g. "/barriers/deploy" (under the session's
 *   namespace, if any; not "/")
 * @error: return location for a #GError, or %NULL
 *
 * Makes a barrier object. Nothing is sent.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming an invalid path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the barrier; zkr_barrier_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrBarrier *zkr_barrier_new (ZkrSession *session, const char *path, GError **error);
/**
 * zkr_barrier_ref:
 * @barrier: a #ZkrBarrier
 *
 * Takes a reference on @barrier.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @barrier.
 *
 * Since: 0.1
 */
ZKR_API ZkrBarrier *zkr_barrier_ref (ZkrBarrier *barrier);
/**
 * zkr_barrier_unref:
 * @barrier: (transfer full): a #ZkrBarrier
 *
 * Drops a reference; calls in progress keep their own reference and
 * finish.
 *
 * Thread: any thread, also from inside a callback of the barrier's calls.
 *
 * Since: 0.1
 */
ZKR_API void zkr_barrier_unref (ZkrBarrier *barrier);
/**
 * zkr_barrier_get_path:
 * @barrier: a #ZkrBarrier
 *
 * The barrier's path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the path given to zkr_barrier_new(), valid
 *   while @barrier lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_barrier_get_path (ZkrBarrier *barrier);

/**
 * zkr_barrier_set:
 * @barrier: a #ZkrBarrier
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Puts the barrier up: creates its node (and missing parents). A node
 * that already exists is success (Curator's setBarrier()).
 *
 * Errors: %ZKR_ERROR_CONNECTION_LOSS (a write: not retried; the node may
 * or may not exist), %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when
 * @cancellable is cancelled, %ZKR_ERROR_SESSION_EXPIRED,
 * %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_AUTH,
 * %ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS (an ephemeral parent).
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: %TRUE once the barrier is up.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_barrier_set (ZkrBarrier *barrier, int timeout_ms,
                                  GCancellable *cancellable, GError **error);
/**
 * zkr_barrier_set_async:
 * @barrier: a #ZkrBarrier
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_barrier_set(), GIO style; finish with zkr_barrier_set_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_barrier_set_async (ZkrBarrier *barrier, int timeout_ms,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_barrier_set_finish:
 * @barrier: a #ZkrBarrier
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_barrier_set_async().
 *
 * Errors: those of zkr_barrier_set().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the barrier is up.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_barrier_set_finish (ZkrBarrier *barrier, GAsyncResult *result,
                                         GError **error);

/**
 * zkr_barrier_remove:
 * @barrier: a #ZkrBarrier
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Takes the barrier down: deletes its node, which wakes every waiter. A
 * missing node is success (Curator's removeBarrier()).
 *
 * Errors: %ZKR_ERROR_NOT_EMPTY (someone put children under the node),
 * and those of zkr_barrier_set().
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: %TRUE once the barrier is down.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_barrier_remove (ZkrBarrier *barrier, int timeout_ms,
                                     GCancellable *cancellable, GError **error);
/**
 * zkr_barrier_remove_async:
 * @barrier: a #ZkrBarrier
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_barrier_remove(), GIO style; finish with zkr_barrier_remove_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_barrier_remove_async (ZkrBarrier *barrier, int timeout_ms,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_barrier_remove_finish:
 * @barrier: a #ZkrBarrier
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_barrier_remove_async().
 *
 * Errors: those of zkr_barrier_remove().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the barrier is down.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_barrier_remove_finish (ZkrBarrier *barrier, GAsyncResult *result,
                                            GError **error);

/**
 * zkr_barrier_wait:
 * @barrier: a #ZkrBarrier
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until the barrier's node does not exist (Curator's
 * waitOnBarrier()): at once if it is missing. The node's data is never
 * read, whatever its size. A waiter that is woken reads again, so a
 * barrier removed and set again before the waiter looked keeps it
 * waiting, as in Curator.
 *
 * Errors: %ZKR_ERROR_TIMEOUT (Curator's `false`), %G_IO_ERROR_CANCELLED
 * when @cancellable is cancelled, %ZKR_ERROR_SESSION_EXPIRED (LOST while
 * waiting: the server dropped the watch; wait again),
 * %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_AUTH.
 *
 * Thread: any thread; blocks it.
 *
 * Returns: %TRUE once the barrier is down.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_barrier_wait (ZkrBarrier *barrier, int timeout_ms,
                                   GCancellable *cancellable, GError **error);
/**
 * zkr_barrier_wait_async:
 * @barrier: a #ZkrBarrier
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_barrier_wait(), GIO style; finish with zkr_barrier_wait_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_barrier_wait_async (ZkrBarrier *barrier, int timeout_ms,
                                     GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_barrier_wait_finish:
 * @barrier: a #ZkrBarrier
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_barrier_wait_async().
 *
 * Errors: those of zkr_barrier_wait().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the barrier is down.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_barrier_wait_finish (ZkrBarrier *barrier, GAsyncResult *result,
                                          GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrBarrier, zkr_barrier_unref)

G_END_DECLS
