/**
 * SECTION:lock
 * @title: Lock basics
 * @short_description: what every lock shares: loss events, loss
 *   listeners and the participant listing
 * @include: zkr/zkr.h
 *
 * What every lock shares: loss events, loss listeners, and the
 * participant listing. See docs/design.md §3.6 for when a lock is in doubt
 * or lost, and §3.4 for why the fencing token is what makes a lost lock
 * safe.
 */
#pragma once

#include <glib.h>
#include <zkr/macros.h>

G_BEGIN_DECLS

/**
 * ZkrLockEvent:
 * @ZKR_LOCK_IN_DOUBT: the session is SUSPENDED; the lock may still be ours.
 *   Stop starting new work that relies on it.
 * @ZKR_LOCK_RESTORED: reconnected before the deadline and our node is still
 *   ours: the lock is held again.
 * @ZKR_LOCK_LOST: the lock is gone or must be presumed gone: the session's
 *   safe deadline passed while suspended (before the server can expire us
 *   and hand the lock on), the session was LOST or closed, our node
 *   vanished, or a verify found it gone or not ours. Stop using what the
 *   lock protects now.
 *   After it, is_held is FALSE.
 *
 * What a loss listener (#ZkrLockLossFunc) hears about a held lock.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_LOCK_IN_DOUBT,
  ZKR_LOCK_RESTORED,
  ZKR_LOCK_LOST,
} ZkrLockEvent;

/**
 * zkr_lock_event_name:
 * @event: a #ZkrLockEvent
 *
 * The name of a loss event, for logs.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): "IN_DOUBT", "RESTORED", "LOST", or "INVALID"
 *   for a value outside the enum; a static string.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_lock_event_name (ZkrLockEvent event);

/**
 * ZkrLockLossFunc:
 * @lock: the lock (a #ZkrMutex *, #ZkrRwlock *, ...), borrowed
 * @event: what happened to the hold
 * @user_data: as given when the listener was added
 *
 * A loss listener of a lock.
 *
 * Thread: runs in the GMainContext that was thread-default when the
 * listener was added, once per event, in order.
 *
 * Since: 0.1
 */
typedef void (*ZkrLockLossFunc) (gpointer lock, ZkrLockEvent event, gpointer user_data);

/**
 * ZkrParticipant:
 * @node: the node's name (not its path)
 * @client_id: the node's data: the client id of its creator
 * @session_id: the node's ephemeralOwner
 * @token: the node's czxid: the fencing token of its holder
 * @is_holder: holds the lock now (or a lease, or leadership)
 * @created_ms: the node's ctime: the server's wall clock when it was
 *   created, ms since the Unix epoch (its age)
 *
 * One node of a lock's queue, as listed by the *_list_participants calls;
 * free it with zkr_participant_free() (the arrays they return do).
 *
 * Since: 0.1
 */
typedef struct {
  char *node;
  char *client_id;
  gint64 session_id;
  gint64 token;
  gboolean is_holder;
  gint64 created_ms;
} ZkrParticipant;

/**
 * zkr_participant_free:
 * @participant: (nullable) (transfer full): a #ZkrParticipant
 *
 * Frees a participant and its strings. %NULL is ignored.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_participant_free (ZkrParticipant *participant);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrParticipant, zkr_participant_free)

G_END_DECLS
