/**
 * SECTION:leader-selector
 * @title: ZkrLeaderSelector
 * @short_description: leader election that runs a callback, Curator's
 *   LeaderSelector layout
 * @include: zkr/zkr.h
 *
 * Leader election that runs a callback, Curator's LeaderSelector
 * layout (its mutex: `"PATH/_c_<uuid>-lock-<seq>"`, data = the participant
 * id as UTF-8), so C and Java participants take turns. While this
 * participant leads, the `lead` callback runs on a thread the selector
 * owns; leadership ends when the callback returns.
 *
 * The guarantee, honestly: when the connection is lost (SUSPENDED) or the
 * session is LOST, the term's interrupt is raised at once; the callback
 * must poll it (or wait on it) and return promptly. Until it notices, it
 * may believe it leads while, after the session expired, another
 * participant already does. So every term carries a fencing token (the
 * czxid of our node, strictly increasing from leader to leader): a resource
 * the leader writes to should refuse tokens lower than the highest it saw.
 *
 * Threads: every function may be called from any thread, including from
 * inside the lead callback.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrLeaderSelector:
 *
 * A participant in a selector election: opaque and reference-counted.
 *
 * Since: 0.1
 */
typedef struct _ZkrLeaderSelector ZkrLeaderSelector;

/**
 * ZkrLeadFunc:
 * @selector: the selector, borrowed (kept alive while the callback runs)
 * @fencing_token: this term's token (our node's czxid)
 * @interrupt: this term's interrupt: cancelled on SUSPENDED, on LOST, by
 *   zkr_leader_selector_interrupt() and by close. Poll it with
 *   g_cancellable_is_cancelled() or wait on it (its fd, or a GCond signalled
 *   from a handler). Handlers connected to it run in the thread that
 *   cancels it: a short-lived thread of the selector's on SUSPENDED and
 *   LOST, the caller's for interrupt() and close; never the session's
 *   worker, so a slow handler delays only itself.
 * @user_data: as given to zkr_leader_selector_new()
 *
 * The leadership callback: the term lasts while it runs and ends when it
 * returns (our node is then deleted). It may call any function of the
 * selector, including close and unref.
 *
 * Thread: runs on the selector's own thread while this participant leads.
 *
 * Since: 0.1
 */
typedef void (*ZkrLeadFunc) (ZkrLeaderSelector *selector, gint64 fencing_token,
                             GCancellable *interrupt, gpointer user_data);

/**
 * zkr_leader_selector_new:
 * @session: the session (a reference is taken)
 * @path: the election's path
 * @participant_id: non-empty UTF-8 (at most 4096 bytes), written into our
 *   node
 * @lead: (scope notified): the leadership callback
 * @user_data: (closure): data for @lead and @destroy
 * @destroy: (nullable): runs on @user_data when the selector is finalized
 * @error: return location for a #GError, or %NULL
 *
 * Makes a selector; nothing is sent before zkr_leader_selector_start().
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming the bad path or id.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): a selector that is not started
 *   yet; zkr_leader_selector_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrLeaderSelector *zkr_leader_selector_new (ZkrSession *session, const char *path,
                                                    const char *participant_id,
                                                    ZkrLeadFunc lead, gpointer user_data,
                                                    GDestroyNotify destroy, GError **error);
/**
 * zkr_leader_selector_ref:
 * @selector: a #ZkrLeaderSelector
 *
 * Takes a reference on @selector.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @selector.
 *
 * Since: 0.1
 */
ZKR_API ZkrLeaderSelector *zkr_leader_selector_ref (ZkrLeaderSelector *selector);
/**
 * zkr_leader_selector_unref:
 * @selector: (transfer full): a #ZkrLeaderSelector
 *
 * Drops a reference. The last unref closes the selector if needed and
 * never waits: the selector's thread ends on its own (the interrupt is
 * raised, a queued acquire cancelled, a term ends when its callback
 * returns), our node is deleted in the background, and the selector's
 * memory, with @destroy on its user data, goes at that thread's end. Call
 * zkr_leader_selector_close() or zkr_leader_selector_close_async() first
 * to know when the node is gone.
 *
 * Thread: any thread, including from inside the lead callback (a term
 * holds a reference while its callback runs); returns at once.
 *
 * Since: 0.1
 */
ZKR_API void zkr_leader_selector_unref (ZkrLeaderSelector *selector);

/**
 * zkr_leader_selector_set_auto_requeue:
 * @selector: a #ZkrLeaderSelector
 * @auto_requeue: whether to queue again after each term
 *
 * When %TRUE, the selector queues again after each term (and after a term
 * that could not start), so leadership rotates among the participants.
 * Default %FALSE: one term per start or requeue. May be changed at any
 * time.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_leader_selector_set_auto_requeue (ZkrLeaderSelector *selector, gboolean auto_requeue);

/**
 * zkr_leader_selector_start:
 * @selector: a #ZkrLeaderSelector
 * @error: return location for a #GError, or %NULL
 *
 * Starts the selector's thread and queues for leadership.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT when already started or closed.
 *
 * Thread: any thread; returns at once.
 *
 * Returns: %TRUE when started.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_selector_start (ZkrLeaderSelector *selector, GError **error);

/**
 * zkr_leader_selector_requeue:
 * @selector: a #ZkrLeaderSelector
 *
 * Queues again after a term ended (without auto-requeue).
 *
 * Thread: any thread, including from inside the lead callback.
 *
 * Returns: %TRUE when queued; %FALSE when the selector is not started,
 *   closed, or already queued or leading.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_selector_requeue (ZkrLeaderSelector *selector);

/**
 * zkr_leader_selector_interrupt:
 * @selector: a #ZkrLeaderSelector
 *
 * Raises the current term's interrupt, as a connection loss would.
 *
 * Thread: any thread; the interrupt's handlers run on it.
 *
 * Since: 0.1
 */
ZKR_API void zkr_leader_selector_interrupt (ZkrLeaderSelector *selector);

/**
 * zkr_leader_selector_close:
 * @selector: a #ZkrLeaderSelector
 * @error: return location for a #GError, or %NULL
 *
 * Leaves the election: stops queueing, raises the interrupt, waits for the
 * lead callback to return and for our node to be deleted (confirmed by the
 * server). From inside the lead callback it does not wait (it cannot): the
 * term ends and the node is deleted as soon as the callback returns.
 * Closing twice, or a selector never started, does nothing.
 *
 * Errors: %ZKR_ERROR_CONNECTION_LOSS when the connection is down: the
 * delete of our node goes on in the background.
 *
 * Thread: any thread; blocks it (except inside the lead callback), as
 * zkr_leader_selector_close_async() run to its answer. The interrupt's
 * handlers run on it.
 *
 * Returns: %TRUE once the selector is closed and our node deleted.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_selector_close (ZkrLeaderSelector *selector, GError **error);
/**
 * zkr_leader_selector_close_async:
 * @selector: a #ZkrLeaderSelector
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_leader_selector_close(), GIO style; finish with
 * zkr_leader_selector_close_finish(). The selector stops queueing and the
 * interrupt is raised before this returns; the answer is %TRUE once the
 * lead callback returned and our node is deleted (or there was none; at
 * once for a selector never started or already closed),
 * %ZKR_ERROR_CONNECTION_LOSS when the connection is down and the delete
 * goes on in the background, %G_IO_ERROR_CANCELLED soon after
 * @cancellable is cancelled (the close goes on). From inside the lead
 * callback the answer comes after the callback returned. The call holds a
 * reference on @selector until its answer.
 *
 * Thread: any thread; @callback runs once, in the caller's thread-default
 * GMainContext (the cancel is heard there), never before this returns.
 * The interrupt's handlers run on the calling thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_leader_selector_close_async (ZkrLeaderSelector *selector,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_leader_selector_close_finish:
 * @selector: a #ZkrLeaderSelector
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_leader_selector_close_async().
 *
 * Errors: %ZKR_ERROR_CONNECTION_LOSS (the delete goes on in the
 * background), %G_IO_ERROR_CANCELLED.
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the selector is closed and our node deleted.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_selector_close_finish (ZkrLeaderSelector *selector,
                                                   GAsyncResult *result, GError **error);

/**
 * zkr_leader_selector_has_leadership:
 * @selector: a #ZkrLeaderSelector
 *
 * Whether this participant leads now.
 *
 * Thread: any thread.
 *
 * Returns: %TRUE while the lead callback runs and its interrupt is not
 *   raised.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_leader_selector_has_leadership (ZkrLeaderSelector *selector);
/**
 * zkr_leader_selector_get_fencing_token:
 * @selector: a #ZkrLeaderSelector
 *
 * The current term's fencing token.
 *
 * Thread: any thread.
 *
 * Returns: the token, 0 when not leading.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_leader_selector_get_fencing_token (ZkrLeaderSelector *selector);
/**
 * zkr_leader_selector_get_id:
 * @selector: a #ZkrLeaderSelector
 *
 * This participant's id.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the id given to zkr_leader_selector_new(),
 *   valid while @selector lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_leader_selector_get_id (ZkrLeaderSelector *selector);

/**
 * zkr_leader_selector_list_participants:
 * @selector: a #ZkrLeaderSelector
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The participants as the server lists them now, leader first; a
 * participant's client_id is its participant id and is_holder marks the
 * leader.
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
ZKR_API GPtrArray *zkr_leader_selector_list_participants (ZkrLeaderSelector *selector,
                                                          GCancellable *cancellable,
                                                          GError **error);
/**
 * zkr_leader_selector_dup_leader_id:
 * @selector: a #ZkrLeaderSelector
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The current leader's participant id, as the server lists it now: the
 * listing of zkr_leader_selector_list_participants(), with @cancellable (a
 * cancel answers %G_IO_ERROR_CANCELLED promptly and sends nothing more).
 *
 * Errors: those of zkr_leader_selector_list_participants().
 *
 * Thread: any thread; blocks it for the listing.
 *
 * Returns: (transfer full) (nullable): the id; %NULL without an error
 *   when nobody takes part. g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_leader_selector_dup_leader_id (ZkrLeaderSelector *selector,
                                                 GCancellable *cancellable, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrLeaderSelector, zkr_leader_selector_unref)

G_END_DECLS
