/**
 * SECTION:leader-latch
 * @title: ZkrLeaderLatch
 * @short_description: leader election with a latch, Curator's
 *   LeaderLatch layout
 * @include: zkr/zkr.h
 *
 * Leader election with a latch, Curator's LeaderLatch node layout
 * (`"PATH/_c_<uuid>-latch-<seq>"`, data = the participant id as UTF-8), so
 * C and Java participants elect one leader among them. A started latch
 * keeps a node in the queue until it is closed; the participant whose
 * node is first leads.
 *
 * The guarantee, honestly: leadership is decided by ZooKeeper, but a
 * participant learns that it lost it only when it hears so. During a
 * partition the old leader may believe it leads until it notices the
 * connection loss (SUSPENDED, at most the session's safe deadline later).
 * So every term carries a fencing token (the czxid of our node, strictly
 * increasing from leader to leader): a resource the leader writes to
 * should remember the highest token it saw and refuse lower ones.
 *
 * Threads: every function may be called from any thread. Listeners run in
 * the GMainContext that was thread-default when they were added.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrLeaderLatch:
 *
 * A participant in a latch election: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrLeaderLatch ZkrLeaderLatch;

/**
 * ZkrLeaderCloseMode:
 * @ZKR_LEADER_CLOSE_SILENT: closing a leading latch does not tell the
 *   listeners (Curator's CloseMode.SILENT, the default there too).
 * @ZKR_LEADER_CLOSE_NOTIFY: closing a leading latch sends not_leader
 *   (Curator's CloseMode.NOTIFY_LEADER).
 *
 * Whether zkr_leader_latch_close() tells the listeners.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_LEADER_CLOSE_SILENT,
  ZKR_LEADER_CLOSE_NOTIFY,
} ZkrLeaderCloseMode;

/**
 * ZkrLeaderYieldPolicy:
 * @ZKR_LEADER_YIELD_ON_SUSPENDED: give up leadership as soon as the
 *   connection is lost (SUSPENDED); take it back on RECONNECTED if our node
 *   is still first. The default, and the safe choice.
 * @ZKR_LEADER_YIELD_ON_LOST: keep leading while SUSPENDED; give up only
 *   when the session is LOST or the safe deadline passes (Curator's
 *   SessionConnectionStateErrorPolicy). Fewer leader changes on a flaky
 *   network, a longer window in which two participants may believe they
 *   lead: use the fencing token.
 *
 * When a leading latch gives up leadership on a connection problem.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_LEADER_YIELD_ON_SUSPENDED,
  ZKR_LEADER_YIELD_ON_LOST,
} ZkrLeaderYieldPolicy;

/**
 * ZkrLeaderLatchFunc:
 * @latch: the latch, borrowed
 * @user_data: as given to zkr_leader_latch_add_listener()
 *
 * A leadership listener (is_leader or not_leader). It may close or unref
 * the latch. In is_leader, zkr_leader_latch_get_fencing_token() is the
 * term's token (0 if leadership is already gone again: a not_leader
 * follows).
 *
 * Thread: runs in the GMainContext that was thread-default when the
 * listener was added, once per change, in order.
 *
 * Since: 0.1
 */
typedef void (*ZkrLeaderLatchFunc) (ZkrLeaderLatch *latch, gpointer user_data);

/**
 * zkr_leader_latch_new:
 * @session: the session (a reference is taken)
 * @path: the election's path, e.g. "/election/orders"
 * @participant_id: this participant's id, non-empty UTF-8 (at most 4096
 *   bytes); written into our node, shown to everyone by the participant
 *   listing.
 * @error: return location for a #GError, or %NULL
 *
 * Makes a latch; nothing is sent before zkr_leader_latch_start().
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming the bad path or id.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): a latch that is not started yet;
 *   zkr_leader_latch_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrLeaderLatch *zkr_leader_latch_new (ZkrSession *session, const char *path,
                                              const char *participant_id, GError **error);
/**
 * zkr_leader_latch_ref:
 * @latch: a #ZkrLeaderLatch
 *
 * Takes a reference on @latch.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @latch.
 *
 * Since: 0.1
 */
ZKR_API ZkrLeaderLatch *zkr_leader_latch_ref (ZkrLeaderLatch *latch);
/**
 * zkr_leader_latch_unref:
 * @latch: (transfer full): a #ZkrLeaderLatch
 *
 * Drops a reference. The last unref closes the latch silently if it is
 * still started (no listener is told; waits for leadership are answered
 * %ZKR_ERROR_SESSION_CLOSED, as by a close) and never waits: our node is
 * deleted in the background (a guaranteed delete, retried until the server
 * confirms it or the session ends), and the latch's memory goes once the
 * session's worker no longer uses it. Call zkr_leader_latch_close() or
 * zkr_leader_latch_close_async() first to know when the node is gone.
 *
 * Thread: any thread, also from inside a listener; returns at once.
 *
 * Since: 0.1
 */
ZKR_API void zkr_leader_latch_unref (ZkrLeaderLatch *latch);

/**
 * zkr_leader_latch_set_yield_policy:
 * @latch: a #ZkrLeaderLatch
 * @policy: a #ZkrLeaderYieldPolicy
 *
 * Sets when leadership is given up on a connection problem; call it
 * before zkr_leader_latch_start(). The default is
 * %ZKR_LEADER_YIELD_ON_SUSPENDED.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_leader_latch_set_yield_policy (ZkrLeaderLatch *latch, ZkrLeaderYieldPolicy policy);

/**
 * zkr_leader_latch_start:
 * @latch: a #ZkrLeaderLatch
 * @error: return location for a #GError, or %NULL
 *
 * Joins the election in the background: our node is created (once the
 * session is connected) and leadership follows when it is first. After a
 * lost session, or when our node disappears, a new node is queued at the
 * back by itself.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT when already started or closed.
 *
 * Thread: any thread; returns at once.
 *
 * Returns: %TRUE when started.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_latch_start (ZkrLeaderLatch *latch, GError **error);

/**
 * zkr_leader_latch_close:
 * @latch: a #ZkrLeaderLatch
 * @mode: whether a leading latch tells its listeners
 * @error: return location for a #GError, or %NULL
 *
 * Leaves the election: gives up leadership (telling the listeners with
 * %ZKR_LEADER_CLOSE_NOTIFY), and deletes our node, so another participant
 * may lead once this returns. Closing a latch that is not started, or
 * twice, does nothing.
 *
 * Errors: %ZKR_ERROR_CONNECTION_LOSS when the connection is down: the latch
 * is closed, the delete of our node goes on in the background.
 *
 * Thread: any thread, also from inside a listener; blocks until the
 * server confirmed the delete, or the connection is down. It is
 * zkr_leader_latch_close_async() run to its answer.
 *
 * Returns: %TRUE once our node is deleted (or there was none).
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_latch_close (ZkrLeaderLatch *latch, ZkrLeaderCloseMode mode,
                                         GError **error);
/**
 * zkr_leader_latch_close_async:
 * @latch: a #ZkrLeaderLatch
 * @mode: whether a leading latch tells its listeners
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_leader_latch_close(), GIO style; finish with
 * zkr_leader_latch_close_finish(). The latch is closed (leadership given
 * up, the listeners told with %ZKR_LEADER_CLOSE_NOTIFY, the waits for
 * leadership answered) before this returns; the answer is %TRUE once our
 * node is deleted (or there was none), %ZKR_ERROR_CONNECTION_LOSS when the
 * connection is or goes down first, %G_IO_ERROR_CANCELLED soon after
 * @cancellable is cancelled. Either way the delete goes on in the
 * background. The call holds a reference on @latch until the delete ended.
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext (the cancel is heard there), never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_leader_latch_close_async (ZkrLeaderLatch *latch, ZkrLeaderCloseMode mode,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_leader_latch_close_finish:
 * @latch: a #ZkrLeaderLatch
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_leader_latch_close_async().
 *
 * Errors: %ZKR_ERROR_CONNECTION_LOSS (the delete goes on in the
 * background), %G_IO_ERROR_CANCELLED.
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once our node is deleted (or there was none).
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_latch_close_finish (ZkrLeaderLatch *latch, GAsyncResult *result,
                                                GError **error);

/**
 * zkr_leader_latch_has_leadership:
 * @latch: a #ZkrLeaderLatch
 *
 * Whether this participant leads now (see the guarantee above).
 *
 * Thread: any thread.
 *
 * Returns: %TRUE while it leads.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_latch_has_leadership (ZkrLeaderLatch *latch);

/**
 * zkr_leader_latch_await:
 * @latch: a started #ZkrLeaderLatch
 * @timeout_ms: 0 checks once, negative waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until this participant leads.
 *
 * Errors: %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, %ZKR_ERROR_INVALID_ARGUMENT (not started),
 * %ZKR_ERROR_SESSION_CLOSED (the latch or its session was closed).
 *
 * Thread: any thread; blocks it. Never call it from a listener of the
 * same latch expecting a change (the listener would wait for itself).
 *
 * Returns: %TRUE once this participant leads.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_latch_await (ZkrLeaderLatch *latch, int timeout_ms,
                                         GCancellable *cancellable, GError **error);
/**
 * zkr_leader_latch_await_async:
 * @latch: a started #ZkrLeaderLatch
 * @timeout_ms: 0 checks once, negative waits forever
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_leader_latch_await(), GIO style; finish with
 * zkr_leader_latch_await_finish(). Answers %TRUE once this participant
 * leads (at once if it leads now, even when @cancellable is cancelled);
 * %ZKR_ERROR_TIMEOUT when @timeout_ms passed first;
 * %G_IO_ERROR_CANCELLED soon after @cancellable is cancelled;
 * %ZKR_ERROR_SESSION_CLOSED when the latch is closed (also by its last
 * unref) or its session is, while waiting. Each comes on time whatever
 * the connection does: the wait sends nothing. It holds no reference on
 * @latch: the latch's last unref closes it, which answers the wait.
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext (the deadline and the cancel are heard there), never
 * before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_leader_latch_await_async (ZkrLeaderLatch *latch, int timeout_ms,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_leader_latch_await_finish:
 * @latch: a #ZkrLeaderLatch
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_leader_latch_await_async().
 *
 * Errors: those of zkr_leader_latch_await().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once this participant leads.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_latch_await_finish (ZkrLeaderLatch *latch, GAsyncResult *result,
                                                GError **error);

/**
 * zkr_leader_latch_get_fencing_token:
 * @latch: a #ZkrLeaderLatch
 *
 * The fencing token of the current term (our node's czxid).
 *
 * Thread: any thread.
 *
 * Returns: the token, 0 when not leading.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_leader_latch_get_fencing_token (ZkrLeaderLatch *latch);
/**
 * zkr_leader_latch_dup_node_path:
 * @latch: a #ZkrLeaderLatch
 *
 * Our node's full path on the server, from the moment it is first in line
 * until leadership is lost or the latch closed.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the path, else %NULL (also while
 *   waiting in the queue); g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_leader_latch_dup_node_path (ZkrLeaderLatch *latch);
/**
 * zkr_leader_latch_get_id:
 * @latch: a #ZkrLeaderLatch
 *
 * This participant's id.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the id given to zkr_leader_latch_new(), valid
 *   while @latch lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_leader_latch_get_id (ZkrLeaderLatch *latch);

/**
 * zkr_leader_latch_add_listener:
 * @latch: a #ZkrLeaderLatch
 * @is_leader: (nullable) (scope notified): called when this participant
 *   becomes leader
 * @not_leader: (nullable) (scope notified): called when it stops being
 *   leader
 * @user_data: (closure): data for the listeners and @destroy
 * @destroy: (nullable): runs on @user_data after the listener is removed
 *   or the latch goes
 *
 * Adds a leadership listener.
 *
 * Thread: any thread; the listeners run in the GMainContext that is
 * thread-default now, once per change, in order.
 *
 * Returns: a listener id > 0.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_leader_latch_add_listener (ZkrLeaderLatch *latch,
                                             ZkrLeaderLatchFunc is_leader,
                                             ZkrLeaderLatchFunc not_leader,
                                             gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_leader_latch_remove_listener:
 * @latch: a #ZkrLeaderLatch
 * @listener_id: an id zkr_leader_latch_add_listener() returned
 *
 * Removes a leadership listener.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_leader_latch_remove_listener (ZkrLeaderLatch *latch, guint listener_id);

/**
 * zkr_leader_latch_list_participants:
 * @latch: a #ZkrLeaderLatch
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The participants as the server lists them now, leader first; a
 * participant's client_id is its participant id (the node's data) and
 * is_holder marks the leader.
 *
 * Read as zkr_mutex_list_participants() reads (and as cancellable: a
 * cancel answers %G_IO_ERROR_CANCELLED promptly and sends nothing more).
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
ZKR_API GPtrArray *zkr_leader_latch_list_participants (ZkrLeaderLatch *latch,
                                                       GCancellable *cancellable, GError **error);
/**
 * zkr_leader_latch_dup_leader_id:
 * @latch: a #ZkrLeaderLatch
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The current leader's participant id, as the server lists it now: the
 * listing of zkr_leader_latch_list_participants(), with @cancellable (a
 * cancel answers %G_IO_ERROR_CANCELLED promptly and sends nothing more).
 *
 * Errors: those of zkr_leader_latch_list_participants().
 *
 * Thread: any thread; blocks it for the listing.
 *
 * Returns: (transfer full) (nullable): the id; %NULL without an error
 *   when nobody takes part. g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_leader_latch_dup_leader_id (ZkrLeaderLatch *latch, GCancellable *cancellable,
                                              GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrLeaderLatch, zkr_leader_latch_unref)

G_END_DECLS
