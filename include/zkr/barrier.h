/* zkr: a barrier on ZooKeeper, Curator's DistributedBarrier layout: the
 * barrier is up while its node exists; waiters pass once it is removed.
 * Java and C clients can set, remove and wait on the same path.
 *
 * Layout (docs/design.md §4.2): one PERSISTENT node at PATH, its missing
 * parents made as containers; its data is the session's client id, which
 * nobody reads (Curator writes its default, the local address). A waiter
 * keeps one exists watch on PATH and reads again after each event.
 *
 * Deadlines, cancel and session states follow include/zkr/node.h: a call
 * answers by its deadline whatever the connection does (SUSPENDED, a
 * silent link, LOST, CLOSED). @timeout_ms > 0 is a deadline, 0 tries once
 * (one read for a wait), < 0 none (answered at the latest when the
 * session is LOST: ZKR_ERROR_SESSION_EXPIRED). Cancelling @cancellable
 * (any thread) answers G_IO_ERROR_CANCELLED promptly.
 *
 * Threads: every function may be called from any thread. An async call's
 * @callback runs once, in the GMainContext that was thread-default when
 * the call was made (that context must be iterated), never before the
 * call returns; the call keeps a reference on the barrier meanwhile. A
 * blocking call is its async twin run in a private context. */
#pragma once

#include <gio/gio.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrBarrier ZkrBarrier;

/**
 * zkr_barrier_new:
 * @session: the session (a reference is taken)
 * @path: the barrier's node, e.g. "/barriers/deploy" (under the session's
 *   namespace, if any; not "/")
 * Nothing is sent.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming an invalid path.
 * Returns: (transfer full) (nullable)
 */
ZKR_API ZkrBarrier *zkr_barrier_new (ZkrSession *session, const char *path, GError **error);
ZKR_API ZkrBarrier *zkr_barrier_ref (ZkrBarrier *barrier);
/* Any thread, also from inside a callback of the barrier's calls; calls
 * in progress keep their own reference and finish. */
ZKR_API void zkr_barrier_unref (ZkrBarrier *barrier);
/* The path given to zkr_barrier_new(). (transfer none) */
ZKR_API const char *zkr_barrier_get_path (ZkrBarrier *barrier);

/**
 * zkr_barrier_set:
 * Puts the barrier up: creates its node (and missing parents). A node
 * that already exists is success (Curator's setBarrier()).
 * Errors: ZKR_ERROR_CONNECTION_LOSS (a write: not retried; the node may
 * or may not exist), ZKR_ERROR_TIMEOUT, G_IO_ERROR_CANCELLED,
 * ZKR_ERROR_SESSION_EXPIRED, ZKR_ERROR_SESSION_CLOSED, ZKR_ERROR_AUTH,
 * ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS (an ephemeral parent).
 */
ZKR_API gboolean zkr_barrier_set (ZkrBarrier *barrier, int timeout_ms,
                                  GCancellable *cancellable, GError **error);
ZKR_API void zkr_barrier_set_async (ZkrBarrier *barrier, int timeout_ms,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data);
ZKR_API gboolean zkr_barrier_set_finish (ZkrBarrier *barrier, GAsyncResult *result,
                                         GError **error);

/**
 * zkr_barrier_remove:
 * Takes the barrier down: deletes its node, which wakes every waiter. A
 * missing node is success (Curator's removeBarrier()).
 * Errors: ZKR_ERROR_NOT_EMPTY (someone put children under the node),
 * and those of zkr_barrier_set().
 */
ZKR_API gboolean zkr_barrier_remove (ZkrBarrier *barrier, int timeout_ms,
                                     GCancellable *cancellable, GError **error);
ZKR_API void zkr_barrier_remove_async (ZkrBarrier *barrier, int timeout_ms,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback, gpointer user_data);
ZKR_API gboolean zkr_barrier_remove_finish (ZkrBarrier *barrier, GAsyncResult *result,
                                            GError **error);

/**
 * zkr_barrier_wait:
 * Blocks until the barrier's node does not exist (Curator's
 * waitOnBarrier()): at once if it is missing. The node's data is never
 * read, whatever its size. A waiter that is woken reads again, so a
 * barrier removed and set again before the waiter looked keeps it
 * waiting, as in Curator.
 * Errors: ZKR_ERROR_TIMEOUT (Curator's `false`), G_IO_ERROR_CANCELLED,
 * ZKR_ERROR_SESSION_EXPIRED (LOST while waiting: the server dropped the
 * watch; wait again), ZKR_ERROR_SESSION_CLOSED, ZKR_ERROR_AUTH.
 * Returns: TRUE once the barrier is down.
 */
ZKR_API gboolean zkr_barrier_wait (ZkrBarrier *barrier, int timeout_ms,
                                   GCancellable *cancellable, GError **error);
ZKR_API void zkr_barrier_wait_async (ZkrBarrier *barrier, int timeout_ms,
                                     GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data);
ZKR_API gboolean zkr_barrier_wait_finish (ZkrBarrier *barrier, GAsyncResult *result,
                                          GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrBarrier, zkr_barrier_unref)

G_END_DECLS
