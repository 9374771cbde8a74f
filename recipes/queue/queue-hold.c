/* zkr: the loss watch of a held queue entry (docs/design.md §3.6), on the
 * session's worker: in doubt on SUSPENDED, lost at the safe deadline, on
 * LOST or CLOSED or when our node goes, restored when a RECONNECTED finds
 * our node still ours; and the loss events it emits. */

#include "error-private.h"
#include "queue-private.h"
#include "log.h"

void
zkr__queue_hold_loss_marshal (GCallback func, gpointer source, int event, gpointer user_data)
{
  ((ZkrLockLossFunc) (void (*) (void)) func) (source, (ZkrLockEvent) event, user_data);
}

static void
lock_emit (ZkrQueueLock *lock, ZkrLockEvent event)
{
  zkr__debug ("%s %s: %s", lock->recipe->kind, lock->user_path, zkr_lock_event_name (event));
  /* The hook is the only way out of an entry (its owner's listeners are
   * the owner's): the entry never names the owner, whose memory may go
   * while events are queued here. Called under hook_lock so that
   * zkr__queue_lock_free(), which clears the hook under it, returns only
   * once no call is running or can start. A
   * lock of its own, not the entry's mutex: the hook takes its owner's
   * lock, and owners take entries' mutexes while holding theirs. */
  g_mutex_lock (&lock->hook_lock);
  if (lock->loss_hook != NULL)
    lock->loss_hook (lock, event, lock->loss_hook_data);
  g_mutex_unlock (&lock->hook_lock);
}

/* The lock is gone or presumed gone: no longer held, listeners told, and
 * our node deleted if it still exists (a presumed loss whose session comes
 * back must not keep blocking the queue). */
void
zkr__queue_hold_mark_lost (ZkrQueueLock *lock, const char *why)
{
  g_autofree char *node = NULL;

  g_mutex_lock (&lock->mutex);
  if (lock->state != ZKR_QUEUE_LOCK_HELD && lock->state != ZKR_QUEUE_LOCK_IN_DOUBT)
    {
      g_mutex_unlock (&lock->mutex);
      return;
    }
  zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_IDLE);
  lock->token = 0;
  node = g_steal_pointer (&lock->node_path);
  g_mutex_unlock (&lock->mutex);
  zkr__debug ("%s %s lost: %s", lock->recipe->kind, lock->user_path, why);
  zkr__queue_hold_stop (lock);
  lock_emit (lock, ZKR_LOCK_LOST);
  if (node != NULL && zkr_session_get_state (lock->session) != ZKR_SESSION_STATE_CLOSED)
    zkr__guaranteed_delete (lock->session, node, NULL, NULL);
}

static gboolean
hold_deadline_tick (gpointer data)
{
  ZkrQueueLock *lock = data;

  lock->deadline_timer = 0;
  zkr__queue_hold_mark_lost (lock, "the session's safe deadline passed while suspended");
  return G_SOURCE_REMOVE;
}

static void
hold_deadline_clear (ZkrQueueLock *lock)
{
  zkr__session_timer_clear (lock->session, &lock->deadline_timer);
}

/* A session timer with no slack, like the acquire deadline: one timer
 * mechanism for the engine. */
static void
hold_deadline_start (ZkrQueueLock *lock)
{
  gint64 deadline = zkr_session_get_safe_deadline (lock->session);
  gint64 now = g_get_monotonic_time ();
  guint ms = deadline > now ? (guint) MIN ((deadline - now) / 1000, G_MAXUINT) : 0;

  hold_deadline_clear (lock);
  lock->deadline_timer = zkr__session_timer_add (lock->session, ms, 0, hold_deadline_tick, lock);
}

/* The owner check of docs/design.md §3.1 step 5 and §3.6: our node exists
 * and belongs to the session we are on now. */
static gboolean
node_is_ours (ZkrQueueLock *lock, const ZkrReply *reply)
{
  return reply->rc == ZOK && reply->has_stat &&
         reply->stat.ephemeralOwner == zkr_session_get_id (lock->session);
}

static void hold_verify (ZkrQueueLock *lock);
static void hold_resend_later (ZkrQueueLock *lock);
static void hold_watch_node (ZkrQueueLock *lock);

static void
hold_verify_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;

  (void) session;
  if (zkr__queue_lock_get_state (lock) == ZKR_QUEUE_LOCK_IN_DOUBT &&
      zkr_session_is_connected (lock->session))
    {
      if (node_is_ours (lock, reply))
        {
          zkr__resend_pause_stop (&lock->hold_resend, TRUE);
          g_mutex_lock (&lock->mutex);
          zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_HELD);
          g_mutex_unlock (&lock->mutex);
          lock_emit (lock, ZKR_LOCK_RESTORED);
        }
      else if (zkr__error_rc_is_retryable (reply->rc))
        /* Throttled, say: no verdict yet, ask again. */
        hold_resend_later (lock);
      else if (zkr__error_rc_is_server_answer (reply->rc))
        zkr__queue_hold_mark_lost (lock, "our node is gone or not ours after reconnecting");
    }
  zkr__queue_lock_unref (lock);
}

static void
hold_verify (ZkrQueueLock *lock)
{
  g_autofree char *node = NULL;

  g_mutex_lock (&lock->mutex);
  node = g_strdup (lock->node_path);
  g_mutex_unlock (&lock->mutex);
  if (node != NULL)
    zkr__op_exists (lock->session, node, FALSE, hold_verify_reply, zkr__queue_lock_ref (lock));
}

static void
hold_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;
  gboolean held;

  (void) session;
  switch (state)
    {
    case ZKR_SESSION_STATE_SUSPENDED:
      g_mutex_lock (&lock->mutex);
      held = lock->state == ZKR_QUEUE_LOCK_HELD || lock->state == ZKR_QUEUE_LOCK_IN_DOUBT;
      if (lock->state == ZKR_QUEUE_LOCK_HELD)
        zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_IN_DOUBT);
      g_mutex_unlock (&lock->mutex);
      /* Not held (a release or a loss is under way): nothing to doubt. */
      if (!held)
        break;
      lock_emit (lock, ZKR_LOCK_IN_DOUBT);
      hold_deadline_start (lock);
      break;
    case ZKR_SESSION_STATE_RECONNECTED:
      hold_deadline_clear (lock);
      zkr__resend_pause_stop (&lock->hold_resend, TRUE);
      hold_verify (lock);
      if (zkr__queue_lock_is_held (lock) && lock->node_watch == 0 && lock->node_watch_timer == 0)
        /* A watch whose request failed (connection loss, throttled) was
         * never set, and libzookeeper re-sets only those it has. */
        hold_watch_node (lock);
      break;
    case ZKR_SESSION_STATE_LOST:
      zkr__queue_hold_mark_lost (lock, "the session was lost");
      break;
    case ZKR_SESSION_STATE_CLOSED:
      zkr__queue_hold_mark_lost (lock, "the session was closed");
      break;
    case ZKR_SESSION_STATE_CONNECTING:
    case ZKR_SESSION_STATE_CONNECTED:
    default:
      break;
    }
}

static void
hold_on_node_event (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;

  (void) session;
  (void) path;
  lock->node_watch = 0;
  if (event_type == ZOO_DELETED_EVENT)
    zkr__queue_hold_mark_lost (lock, "our node was deleted");
  else if (zkr__queue_lock_is_held (lock))
    hold_watch_node (lock);
}

static void
hold_exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;

  (void) session;
  if (reply->rc == ZNONODE)
    zkr__queue_hold_mark_lost (lock, "our node does not exist");
  else if (reply->rc == ZOK && reply->has_stat)
    zkr__queue_revocation_check (lock, &reply->stat);
  else if (reply->rc != ZOK && lock->node_watch != 0)
    {
      /* Not set: set it again once connected (RECONNECTED does that), or
       * after a pause when the server said "retry". */
      zkr__watches_remove (lock->session, lock->node_watch);
      lock->node_watch = 0;
      if (zkr__error_rc_is_retryable (reply->rc) && zkr_session_is_connected (lock->session))
        hold_resend_later (lock);
    }
  zkr__queue_lock_unref (lock);
}

static void
hold_watch_node (ZkrQueueLock *lock)
{
  g_autofree char *node = NULL;

  g_mutex_lock (&lock->mutex);
  node = g_strdup (lock->node_path);
  g_mutex_unlock (&lock->mutex);
  if (node == NULL)
    return;
  lock->node_watch = zkr__watches_add (lock->session, node, hold_on_node_event, lock);
  zkr__op_exists (lock->session, node, TRUE, hold_exists_reply, zkr__queue_lock_ref (lock));
}

/* After a pause: whatever the server told us to ask again. */
static gboolean
hold_resend_tick (gpointer data)
{
  ZkrQueueLock *lock = data;
  ZkrQueueLockState state = zkr__queue_lock_get_state (lock);

  zkr__resend_pause_stop (&lock->hold_resend, FALSE);
  if (state == ZKR_QUEUE_LOCK_IN_DOUBT && zkr_session_is_connected (lock->session))
    hold_verify (lock);
  else if ((state == ZKR_QUEUE_LOCK_HELD || state == ZKR_QUEUE_LOCK_IN_DOUBT) &&
           lock->node_watch == 0 && lock->node_watch_timer == 0)
    hold_watch_node (lock);
  return G_SOURCE_REMOVE;
}

static void
hold_resend_later (ZkrQueueLock *lock)
{
  if (!zkr__resend_pause_is_pending (&lock->hold_resend))
    zkr__resend_pause_start (&lock->hold_resend, lock->session, hold_resend_tick, lock);
}

/* The watch on our own node is set this long after the grant, not with
 * it: a short hold (most of them) then costs no request and no event, and
 * the acquire path stays at create + list. What it catches is someone
 * deleting our node by hand; the waiter behind us is woken by that delete
 * at the same moment we would be, so the delay changes only how soon we
 * say so, never who holds. Session trouble is seen at once through the
 * session's own events. The slack lets grants on a session that acquires
 * a few times a second share the worker's wake-ups instead of costing one
 * or two each. */
#define NODE_WATCH_DELAY_MS 100
#define NODE_WATCH_SLACK_MS 900

static gboolean
hold_node_watch_tick (gpointer data)
{
  ZkrQueueLock *lock = data;

  lock->node_watch_timer = 0;
  if (zkr__queue_lock_is_held (lock))
    hold_watch_node (lock);
  return G_SOURCE_REMOVE;
}

void
zkr__queue_hold_start (ZkrQueueLock *lock, const struct Stat *watched)
{
  g_autofree char *node = NULL;

  lock->revoke_version = 0;
  lock->hold_listener = zkr__session_add_internal_listener (lock->session, hold_on_state, lock);
  if (watched != NULL)
    {
      /* The acquire's watch on our node is set on the server: it becomes
       * ours (same events: a delete, a data change), and what it saw is
       * judged as our own exists reply would be. */
      g_mutex_lock (&lock->mutex);
      node = g_strdup (lock->node_path);
      g_mutex_unlock (&lock->mutex);
      lock->node_watch = zkr__watches_add (lock->session, node, hold_on_node_event, lock);
      zkr__queue_revocation_check (lock, watched);
    }
  else
    lock->node_watch_timer = zkr__session_timer_add (lock->session, NODE_WATCH_DELAY_MS,
                                                     NODE_WATCH_SLACK_MS, hold_node_watch_tick,
                                                     lock);
  /* Transitions happen on this thread: if the connection dropped before
   * we got here, the SUSPENDED was delivered before our listener existed. */
  if (zkr_session_get_state (lock->session) == ZKR_SESSION_STATE_SUSPENDED)
    hold_on_state (lock->session, ZKR_SESSION_STATE_SUSPENDED, lock);
}

void
zkr__queue_hold_stop (ZkrQueueLock *lock)
{
  if (lock->hold_listener != 0)
    zkr__session_remove_internal_listener (lock->session, lock->hold_listener);
  lock->hold_listener = 0;
  if (lock->node_watch != 0)
    zkr__watches_remove (lock->session, lock->node_watch);
  lock->node_watch = 0;
  zkr__session_timer_clear (lock->session, &lock->node_watch_timer);
  hold_deadline_clear (lock);
  zkr__resend_pause_stop (&lock->hold_resend, TRUE);
}

const char *
zkr_lock_event_name (ZkrLockEvent event)
{
  switch (event)
    {
    case ZKR_LOCK_IN_DOUBT:
      return "IN_DOUBT";
    case ZKR_LOCK_RESTORED:
      return "RESTORED";
    case ZKR_LOCK_LOST:
      return "LOST";
    default:
      return "INVALID";
    }
}
