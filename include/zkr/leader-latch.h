/* zkr: leader election with a latch, Curator's LeaderLatch node layout
 * ("PATH/_c_<uuid>-latch-<seq>", data = the participant id as UTF-8), so C
 * and Java participants elect one leader among them. A started latch keeps
 * a node in the queue until it is closed; the participant whose node is
 * first leads.
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
 * the GMainContext that was thread-default when they were added. */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrLeaderLatch ZkrLeaderLatch;

/**
 * ZkrLeaderCloseMode:
 * @ZKR_LEADER_CLOSE_SILENT: closing a leading latch does not tell the
 *   listeners (Curator's CloseMode.SILENT, the default there too).
 * @ZKR_LEADER_CLOSE_NOTIFY: closing a leading latch sends not_leader
 *   (Curator's CloseMode.NOTIFY_LEADER).
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
 */
typedef enum {
  ZKR_LEADER_YIELD_ON_SUSPENDED,
  ZKR_LEADER_YIELD_ON_LOST,
} ZkrLeaderYieldPolicy;

/**
 * ZkrLeaderLatchFunc:
 * @latch: the latch, borrowed
 * Runs in the GMainContext that was thread-default when the listener was
 * added, once per change, in order. It may close or unref the latch. In
 * is_leader, zkr_leader_latch_get_fencing_token() is the term's token (0
 * if leadership is already gone again: a not_leader follows).
 */
typedef void (*ZkrLeaderLatchFunc) (ZkrLeaderLatch *latch, gpointer user_data);

/**
 * zkr_leader_latch_new:
 * @session: the session (a reference is taken)
 * @path: the election's path, e.g. "/election/orders"
 * @participant_id: this participant's id, non-empty UTF-8 (at most 4096
 *   bytes); written into our node, shown to everyone by the participant
 *   listing.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming the bad path or id.
 * Returns: (transfer full) (nullable): a latch that is not started yet.
 */
ZKR_API ZkrLeaderLatch *zkr_leader_latch_new (ZkrSession *session, const char *path,
                                              const char *participant_id, GError **error);
ZKR_API ZkrLeaderLatch *zkr_leader_latch_ref (ZkrLeaderLatch *latch);
/* The last unref closes the latch (silently) if it is still started. */
ZKR_API void zkr_leader_latch_unref (ZkrLeaderLatch *latch);

/* Before zkr_leader_latch_start(); the default is YIELD_ON_SUSPENDED. */
ZKR_API void zkr_leader_latch_set_yield_policy (ZkrLeaderLatch *latch, ZkrLeaderYieldPolicy policy);

/**
 * zkr_leader_latch_start:
 * Joins the election in the background: our node is created (once the
 * session is connected) and leadership follows when it is first. After a
 * lost session, or when our node disappears, a new node is queued at the
 * back by itself. Returns at once.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT when already started or closed.
 */
ZKR_API gboolean zkr_leader_latch_start (ZkrLeaderLatch *latch, GError **error);

/**
 * zkr_leader_latch_close:
 * Leaves the election: gives up leadership (telling the listeners with
 * ZKR_LEADER_CLOSE_NOTIFY), and deletes our node. Blocks until the server
 * confirmed the delete, so another participant may lead once this returns.
 * Closing a latch that is not started, or twice, does nothing. May be
 * called from inside a listener.
 * Errors: ZKR_ERROR_CONNECTION_LOSS when the connection is down: the latch
 * is closed, the delete of our node goes on in the background.
 */
ZKR_API gboolean zkr_leader_latch_close (ZkrLeaderLatch *latch, ZkrLeaderCloseMode mode,
                                         GError **error);

/* TRUE while this participant leads (see the guarantee above). */
ZKR_API gboolean zkr_leader_latch_has_leadership (ZkrLeaderLatch *latch);

/**
 * zkr_leader_latch_await:
 * @timeout_ms: 0 checks once, negative waits forever
 * @cancellable: (nullable): cancelling it from any thread wakes the waiter
 * Blocks until this participant leads. Never call it from a listener of
 * the same latch expecting a change (the listener would wait for itself).
 * Errors: ZKR_ERROR_TIMEOUT, G_IO_ERROR_CANCELLED, ZKR_ERROR_INVALID_ARGUMENT
 * (not started), ZKR_ERROR_SESSION_CLOSED (the latch or its session was
 * closed).
 */
ZKR_API gboolean zkr_leader_latch_await (ZkrLeaderLatch *latch, int timeout_ms,
                                         GCancellable *cancellable, GError **error);

/* The fencing token of the current term (our node's czxid), 0 when not
 * leading. */
ZKR_API gint64 zkr_leader_latch_get_fencing_token (ZkrLeaderLatch *latch);
/* Our node's path from the moment it is first in line until leadership is
 * lost or the latch closed, else NULL (also while waiting in the queue).
 * (transfer full) (nullable) */
ZKR_API char *zkr_leader_latch_dup_node_path (ZkrLeaderLatch *latch);
/* (transfer none) */
ZKR_API const char *zkr_leader_latch_get_id (ZkrLeaderLatch *latch);

/**
 * zkr_leader_latch_add_listener:
 * @is_leader: (nullable): called when this participant becomes leader
 * @not_leader: (nullable): called when it stops being leader
 * Returns: a listener id > 0.
 */
ZKR_API guint zkr_leader_latch_add_listener (ZkrLeaderLatch *latch,
                                             ZkrLeaderLatchFunc is_leader,
                                             ZkrLeaderLatchFunc not_leader,
                                             gpointer user_data, GDestroyNotify destroy);
ZKR_API void zkr_leader_latch_remove_listener (ZkrLeaderLatch *latch, guint listener_id);

/* The participants as the server lists them now, leader first: (transfer
 * full) array of ZkrParticipant whose client_id is the participant id
 * (the node's data) and is_holder marks the leader. */
ZKR_API GPtrArray *zkr_leader_latch_list_participants (ZkrLeaderLatch *latch, GError **error);
/* The current leader's participant id, as the server lists it now; NULL
 * without an error when nobody takes part. (transfer full) (nullable) */
ZKR_API char *zkr_leader_latch_dup_leader_id (ZkrLeaderLatch *latch, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrLeaderLatch, zkr_leader_latch_unref)

G_END_DECLS
