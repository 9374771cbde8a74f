/**
 * SECTION:double-barrier
 * @title: ZkrDoubleBarrier
 * @short_description: a double barrier, Curator's DistributedDoubleBarrier
 *   layout
 * @include: zkr/zkr.h
 *
 * A double barrier on ZooKeeper, Curator's DistributedDoubleBarrier
 * layout: N members enter together and leave together; zkr and Curator
 * members can share one barrier.
 *
 * Layout (docs/design.md §4.2): under PATH (made as a container with its
 * missing parents), each member's EPHEMERAL node `PATH/<uuid>` (a fresh
 * random uuid per enter; data: the session's client id, never read), and
 * PATH/ready, PERSISTENT, made by the member whose enter counts N
 * children or more. Entering: an exists watch on PATH/ready, our node,
 * a count of PATH's children; we pass once PATH/ready exists. Leaving:
 * our node goes, each member keeps one exists watch (the lowest member
 * on the highest, the others on the lowest) until none of the member nodes
 * it saw at its first look is left; then PATH/ready is deleted. (A member
 * that left and entered again meanwhile has a new node, of the next round:
 * it is not waited for; nor is one that enters after our first look.) N is a threshold, not a limit: more members
 * may enter.
 *
 * A member whose session dies: its node is ephemeral and goes when the
 * server expires the session (after the session timeout). Before the
 * count reached N the others wait for another member (or their
 * deadline); after it, the others are through already. In leave the
 * others pass once the dead member's node has gone: at most one session
 * timeout after it died. A member whose own node vanished while it is in
 * the barrier (its session expired) gets %ZKR_ERROR_NO_NODE from leave
 * while other members remain, TRUE if nobody is left (as Curator).
 *
 * Deadlines, cancel and session states: as zkr/barrier.h. A failed
 * enter (timeout, cancel, error) and a failed leave delete our node in the
 * background (retried after a connection loss, across LOST) so that we
 * count for nobody, and the member is out of the barrier.
 *
 * Threads: as zkr/barrier.h.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrDoubleBarrier:
 *
 * A member of a double barrier: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrDoubleBarrier ZkrDoubleBarrier;

/**
 * zkr_double_barrier_new:
 * @session: the session (a reference is taken)
 * @path: the barrier's node, e.g. "/barriers/stage-1" (under the session's
 *   namespace, if any; not "/")
 * @member_count: N, at least 1
 * @error: return location for a #GError, or %NULL
 *
 * Makes a member of the barrier at @path. Nothing is sent.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming an invalid path or count.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the member;
 *   zkr_double_barrier_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrDoubleBarrier *zkr_double_barrier_new (ZkrSession *session, const char *path,
                                                  int member_count, GError **error);
/**
 * zkr_double_barrier_ref:
 * @barrier: a #ZkrDoubleBarrier
 *
 * Takes a reference on @barrier.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @barrier.
 *
 * Since: 0.1
 */
ZKR_API ZkrDoubleBarrier *zkr_double_barrier_ref (ZkrDoubleBarrier *barrier);
/**
 * zkr_double_barrier_unref:
 * @barrier: (transfer full): a #ZkrDoubleBarrier
 *
 * Drops a reference. The last unref of a member that entered and did not
 * leave deletes its node in the background (so it leaves without
 * waiting); calls in progress keep their own reference.
 *
 * Thread: any thread, also from a callback.
 *
 * Since: 0.1
 */
ZKR_API void zkr_double_barrier_unref (ZkrDoubleBarrier *barrier);
/**
 * zkr_double_barrier_get_path:
 * @barrier: a #ZkrDoubleBarrier
 *
 * The barrier's path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the path given to zkr_double_barrier_new(),
 *   valid while @barrier lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_double_barrier_get_path (ZkrDoubleBarrier *barrier);
/**
 * zkr_double_barrier_dup_member_path:
 * @barrier: a #ZkrDoubleBarrier
 *
 * Our member node's path (without the namespace) while entering or in
 * the barrier.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the path, else %NULL; g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_double_barrier_dup_member_path (ZkrDoubleBarrier *barrier);

/**
 * zkr_double_barrier_enter:
 * @barrier: a #ZkrDoubleBarrier
 * @timeout_ms: the deadline (as zkr/barrier.h)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Joins the barrier and blocks until N members have joined (PATH/ready
 * exists). One enter at a time, and not again before leave.
 *
 * Errors: %ZKR_ERROR_TIMEOUT (Curator's `false`; our node is deleted, so
 * the member did not enter), %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, %ZKR_ERROR_ALREADY_HELD (entering or entered already),
 * %ZKR_ERROR_SESSION_EXPIRED, %ZKR_ERROR_SESSION_CLOSED,
 * %ZKR_ERROR_CONNECTION_LOSS, %ZKR_ERROR_AUTH,
 * %ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS (PATH is ephemeral).
 *
 * Thread: any thread; blocks it.
 *
 * Returns: %TRUE once the member is through.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_double_barrier_enter (ZkrDoubleBarrier *barrier, int timeout_ms,
                                           GCancellable *cancellable, GError **error);
/**
 * zkr_double_barrier_enter_async:
 * @barrier: a #ZkrDoubleBarrier
 * @timeout_ms: the deadline
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_double_barrier_enter(), GIO style; finish with
 * zkr_double_barrier_enter_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_double_barrier_enter_async (ZkrDoubleBarrier *barrier, int timeout_ms,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data);
/**
 * zkr_double_barrier_enter_finish:
 * @barrier: a #ZkrDoubleBarrier
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_double_barrier_enter_async().
 *
 * Errors: those of zkr_double_barrier_enter().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the member is through.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_double_barrier_enter_finish (ZkrDoubleBarrier *barrier,
                                                  GAsyncResult *result, GError **error);

/**
 * zkr_double_barrier_leave:
 * @barrier: a #ZkrDoubleBarrier
 * @timeout_ms: the deadline (as zkr/barrier.h)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Leaves the barrier and blocks until none of the member nodes under PATH
 * at its first look is left (every member then in left, or its session
 * died), then deletes PATH/ready. Either way (success or not) the member
 * is out of the barrier afterwards and may enter again.
 *
 * Errors: %ZKR_ERROR_NOT_HELD (not entered), %ZKR_ERROR_NO_NODE (our node
 * vanished: our session expired, or someone deleted it),
 * %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, %ZKR_ERROR_SESSION_EXPIRED, %ZKR_ERROR_SESSION_CLOSED,
 * %ZKR_ERROR_CONNECTION_LOSS, %ZKR_ERROR_AUTH.
 *
 * Thread: any thread; blocks it.
 *
 * Returns: %TRUE once everybody left.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_double_barrier_leave (ZkrDoubleBarrier *barrier, int timeout_ms,
                                           GCancellable *cancellable, GError **error);
/**
 * zkr_double_barrier_leave_async:
 * @barrier: a #ZkrDoubleBarrier
 * @timeout_ms: the deadline
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_double_barrier_leave(), GIO style; finish with
 * zkr_double_barrier_leave_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_double_barrier_leave_async (ZkrDoubleBarrier *barrier, int timeout_ms,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data);
/**
 * zkr_double_barrier_leave_finish:
 * @barrier: a #ZkrDoubleBarrier
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_double_barrier_leave_async().
 *
 * Errors: those of zkr_double_barrier_leave().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once everybody left.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_double_barrier_leave_finish (ZkrDoubleBarrier *barrier,
                                                  GAsyncResult *result, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrDoubleBarrier, zkr_double_barrier_unref)

G_END_DECLS
