/* zkr: an acquire of a queue entry, on the session's worker
 * (docs/design.md §3.1, §5.1, §5.2): made, started and armed, moved one
 * step at a time (zkr__queue_acquire_set_step), and ended granted or
 * failed. Its requests (create, list, judge, wait) are in queue-steps.c. */

#include <string.h>

#include "armed.h"
#include "error-private.h"
#include "queue-acquire-private.h"
#include "log.h"
#include "path.h"


Acquire *
zkr__queue_acquire_ref (Acquire *acquire)
{
  g_atomic_ref_count_inc (&acquire->ref);
  return acquire;
}

void
zkr__queue_acquire_unref (Acquire *acquire)
{
  if (!g_atomic_ref_count_dec (&acquire->ref))
    return;
  g_clear_object (&acquire->waiter.task);
  g_clear_object (&acquire->cancellable);
  g_free (acquire->watch_path);
  g_free (acquire->node_path);
  g_free (acquire->fixed_suffix);
  g_clear_pointer (&acquire->early_listing, g_ptr_array_unref);
  zkr__queue_lock_unref (acquire->lock);
  g_free (acquire);
}


static const char *const acquire_step_names[] = {
  [ACQUIRE_STARTING] = "STARTING",
  [ACQUIRE_CONNECTING] = "CONNECTING",
  [ACQUIRE_CREATING] = "CREATING",
  [ACQUIRE_LISTING] = "LISTING",
  [ACQUIRE_WATCHING_NODE] = "WATCHING_NODE",
  [ACQUIRE_WATCHING_CHILDREN] = "WATCHING_CHILDREN",
  [ACQUIRE_DECIDED] = "DECIDED",
  [ACQUIRE_ENDED] = "ENDED",
};

/* The edges an acquire may take. The start creates, or waits for a
 * connection first; a made node is listed and judged, then waited on
 * (one node or the children; a predicate may switch between them); a
 * node that vanished is created again (a requeue). In place, only a reply
 * (the create's, a listing's) can decide the end, which is then posted;
 * anywhere else the end comes at once, from any step but the last.
 * Staying put is no transition and always allowed. */
static gboolean
acquire_step_allowed (AcquireStep from, AcquireStep to)
{
  switch (to)
    {
    case ACQUIRE_CONNECTING:
      return from == ACQUIRE_STARTING;
    case ACQUIRE_CREATING:
      return from == ACQUIRE_STARTING || from == ACQUIRE_CONNECTING ||
             from == ACQUIRE_LISTING || from == ACQUIRE_WATCHING_NODE ||
             from == ACQUIRE_WATCHING_CHILDREN;
    case ACQUIRE_LISTING:
      return from == ACQUIRE_CREATING;
    case ACQUIRE_WATCHING_NODE:
    case ACQUIRE_WATCHING_CHILDREN:
      return from == ACQUIRE_LISTING || from == ACQUIRE_WATCHING_NODE ||
             from == ACQUIRE_WATCHING_CHILDREN;
    case ACQUIRE_DECIDED:
      return from == ACQUIRE_CREATING || from == ACQUIRE_LISTING ||
             from == ACQUIRE_WATCHING_NODE || from == ACQUIRE_WATCHING_CHILDREN;
    case ACQUIRE_ENDED:
      return from != ACQUIRE_ENDED;
    case ACQUIRE_STARTING:
    default:
      return FALSE;
    }
}

/* The one place an acquire's step changes. An edge the table does not
 * have is a bug of this file or queue-steps.c: refused, loudly. */
gboolean
zkr__queue_acquire_set_step (Acquire *acquire, AcquireStep to)
{
  ZkrQueueLock *lock = acquire->lock;
  AcquireStep from = acquire->step;

  if (from == to)
    return TRUE;
  if (!acquire_step_allowed (from, to))
    {
      g_critical ("%s %s: acquire refused %s -> %s", lock->recipe->kind, lock->user_path,
                  acquire_step_names[from], acquire_step_names[to]);
      return FALSE;
    }
  if (g_atomic_int_get (&lock->log_steps))
    g_debug ("%s %s: acquire %s -> %s", lock->recipe->kind, lock->user_path,
             acquire_step_names[from], acquire_step_names[to]);
  acquire->step = to;
  return TRUE;
}

/* Stops everything that can call back into the acquire. */
static void
acquire_detach (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  zkr__queue_acquire_set_step (acquire, ACQUIRE_ENDED);
  if (lock->acquire == acquire)
    lock->acquire = NULL;
  zkr__armed_detach (&acquire->armed);
  if (acquire->watch_id != 0)
    zkr__watches_remove (lock->session, acquire->watch_id);
  acquire->watch_id = 0;
  zkr__queue_steps_forget_own (acquire);
  zkr__resend_pause_stop (&acquire->resend, TRUE);
}

void
zkr__queue_acquire_succeed (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;
  /* The watch on our node, set and unfired, becomes the hold's. */
  gboolean watched = acquire->own_watch != 0 && acquire->own_seen;
  struct Stat own_stat = acquire->own_stat;

  acquire_detach (acquire);
  g_mutex_lock (&lock->mutex);
  zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_HELD);
  g_free (lock->node_path);
  lock->node_path = g_steal_pointer (&acquire->node_path);
  lock->token = acquire->stat.czxid;
  g_mutex_unlock (&lock->mutex);
  zkr__queue_hold_start (lock, watched ? &own_stat : NULL);
  zkr__queue_lock_answer (lock, &acquire->waiter, NULL);
  zkr__queue_acquire_unref (acquire);
}

static void
acquire_return_error (Acquire *acquire, GError *error)
{
  ZkrQueueLock *lock = acquire->lock;

  g_mutex_lock (&lock->mutex);
  zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_IDLE);
  g_mutex_unlock (&lock->mutex);
  zkr__queue_lock_answer (lock, &acquire->waiter, error);
  zkr__queue_acquire_unref (acquire);
}

typedef struct {
  Acquire *acquire;
  GError *error;
} FailPosted;

static gboolean acquire_fail_posted (gpointer data);

/* Ends the acquire with @error at once and removes our node (or the one
 * a create in flight may have made) in the background. The caller is
 * never made to wait for that delete: on a connection that died without
 * a word its reply comes only when the partition heals, long after the
 * deadline the caller was promised. A delete still pending is harmless
 * to the queue: requests go in order, so a new acquire of this object
 * is queued behind it, and any waiter behind our node is woken by it. */
void
zkr__queue_acquire_fail (Acquire *acquire, GError *error)
{
  ZkrQueueLock *lock = acquire->lock;
  FailPosted *fail;

  if (acquire->step == ACQUIRE_ENDED)
    {
      g_error_free (error);
      return;
    }
  if (zkr__session_in_place (lock->session))
    {
      /* Ending an acquire answers the caller and may run the recipe's
       * code: not on the completion thread (see ACQUIRE_IN_PLACE). */
      fail = g_new0 (FailPosted, 1);
      fail->acquire = zkr__queue_acquire_ref (acquire);
      fail->error = error;
      zkr__session_post (lock->session, acquire_fail_posted, fail, NULL);
      zkr__queue_acquire_set_step (acquire, ACQUIRE_DECIDED);
      return;
    }
  acquire_detach (acquire);
  if (acquire->create != NULL)
    zkr__protected_create_abandon (g_steal_pointer (&acquire->create));
  else if (acquire->node_path != NULL)
    zkr__guaranteed_delete (lock->session, acquire->node_path, NULL, NULL);
  acquire_return_error (acquire, error);
}

static gboolean
acquire_fail_posted (gpointer data)
{
  FailPosted *fail = data;

  zkr__queue_acquire_fail (fail->acquire, fail->error);
  zkr__queue_acquire_unref (fail->acquire);
  g_free (fail);
  return G_SOURCE_REMOVE;
}

void
zkr__queue_acquire_fail_rc (Acquire *acquire, int rc, const char *what)
{
  GError *error = NULL;

  if (rc == ZCLOSING || zkr_session_get_state (acquire->lock->session) == ZKR_SESSION_STATE_CLOSED)
    g_set_error (&error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                 "acquire %s %s: the session was closed", acquire->lock->recipe->kind,
                 acquire->lock->user_path);
  else
    zkr__error_set_from_zk (&error, rc, what, acquire->lock->user_path,
                            zkr_session_get_id (acquire->lock->session));
  zkr__queue_acquire_fail (acquire, error);
}

/* The armed deadline passed (worker). */
void
zkr__queue_acquire_on_deadline (gpointer owner)
{
  Acquire *acquire = owner;

  zkr__queue_acquire_fail (acquire,
                           g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT, "timed out acquiring %s %s",
                                        acquire->lock->recipe->kind, acquire->lock->user_path));
}

/* The cancellable was cancelled (worker, or the start standing in for it). */
static void
acquire_on_cancelled (gpointer owner)
{
  Acquire *acquire = owner;

  zkr__queue_acquire_fail (acquire, zkr__error_new_cancelled ("acquire %s %s", acquire->lock->recipe->kind,
                                                              acquire->lock->user_path));
}

/* What acquires did, process-wide; queue-test.c (in the tests' hooks
 * library only) reads it. */
ZkrQueueCounts zkr__queue_counts;

static void
acquire_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  if (acquire->step == ACQUIRE_ENDED)
    return;
  switch (state)
    {
    case ZKR_SESSION_STATE_CONNECTED:
    case ZKR_SESSION_STATE_RECONNECTED:
      /* Not started yet (waiting for a connection), or waiting: look again
       * (a watch event may have been lost with the connection). */
      zkr__resend_pause_stop (&acquire->resend, TRUE);
      /* What we saw of our own node before may be stale: events that
       * libzookeeper's re-set watches bring come in no set order. The
       * listing looks again. */
      zkr__queue_steps_forget_own (acquire);
      if (acquire->step == ACQUIRE_CONNECTING)
        zkr__queue_steps_create (acquire);
      else
        zkr__queue_steps_relist (acquire);
      break;
    case ZKR_SESSION_STATE_LOST:
      zkr__queue_acquire_fail (acquire,
                               g_error_new (ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED,
                                            "the session was lost while acquiring %s %s",
                                            acquire->lock->recipe->kind, acquire->lock->user_path));
      break;
    case ZKR_SESSION_STATE_CLOSED:
      zkr__queue_acquire_fail_rc (acquire, ZCLOSING, "acquire");
      break;
    case ZKR_SESSION_STATE_CONNECTING:
    case ZKR_SESSION_STATE_SUSPENDED:
    default:
      break;
    }
}

static gpointer
acquire_ref_owner (gpointer owner)
{
  return zkr__queue_acquire_ref (owner);
}

static void
acquire_unref_owner (gpointer owner)
{
  zkr__queue_acquire_unref (owner);
}

static const ZkrArmedHooks acquire_hooks = {
  .ref = acquire_ref_owner,
  .unref = acquire_unref_owner,
  .on_state = acquire_on_state,
  .on_deadline = zkr__queue_acquire_on_deadline,
  .on_cancelled = acquire_on_cancelled,
};

static gboolean
acquire_start (gpointer data)
{
  Acquire *acquire = data;
  ZkrQueueLock *lock = acquire->lock;

  /* What a release from the caller's thread left running. */
  zkr__queue_hold_stop (lock);
  lock->acquire = acquire;
  switch (zkr__armed_arm (&acquire->armed))
    {
    case ZKR_ARMED_CANCELLED:
      /* Cancelled before the call: nothing is sent. */
      acquire_on_cancelled (acquire);
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_CLOSED:
      zkr__queue_acquire_fail_rc (acquire, ZCLOSING, "acquire");
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_LOST:
      /* A fresh session is on its way: wait for it, as for a reconnect. */
    case ZKR_ARMED_GO:
    default:
      break;
    }
  /* A session timer: added by a stand-in, it wakes the worker only if due
   * before the worker's planned wake-up. */
  zkr__armed_set_deadline (&acquire->armed, acquire->deadline);
  if (zkr_session_is_connected (lock->session))
    zkr__queue_steps_create (acquire);
  else
    /* acquire_on_state creates on (RE)CONNECTED. */
    zkr__queue_acquire_set_step (acquire, ACQUIRE_CONNECTING);
  return G_SOURCE_REMOVE;
}

/* Hands the acquire to the worker. From another thread, the caller runs
 * acquire_start itself, standing in for the worker (holding its turn):
 * the deadline timer and the cancellable are armed before this returns,
 * whatever the connection does (a start queued for the worker would wait
 * for a wake-up that a connection which died without a word never
 * brings), and the create and its listing go out without a thread
 * hand-off. Their replies cannot overtake the start: they need the turn.
 * On the worker, the start is posted (never inside the caller's call). */
void
zkr__queue_acquire_post_start (Acquire *acquire, const ZkrQueueWaiter *waiter)
{
  ZkrSession *session = acquire->lock->session;

  acquire->waiter = *waiter;
  if (zkr__session_in_worker (session))
    {
      zkr__session_post (session, acquire_start, acquire, NULL);
      return;
    }
  zkr__session_stand_in_begin (session);
  (void) acquire_start (acquire);
  zkr__session_stand_in_end (session);
}

Acquire *
zkr__queue_acquire_new (ZkrQueueLock *lock, int timeout_ms, GCancellable *cancellable,
                        const char *fixed_suffix, GError **error)
{
  Acquire *acquire;

  /* Asked once per acquire, before its first line (core/log.h: the debug
   * lines of hot paths). */
  g_atomic_int_set (&lock->log_steps, zkr__log_debug_enabled ());
  g_mutex_lock (&lock->mutex);
  if (lock->state != ZKR_QUEUE_LOCK_IDLE)
    {
      g_mutex_unlock (&lock->mutex);
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD,
                   "%s %s is already %s by this object", lock->recipe->kind, lock->user_path,
                   lock->state == ZKR_QUEUE_LOCK_ACQUIRING ? "being acquired" : "held");
      return NULL;
    }
  zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_ACQUIRING);
  g_mutex_unlock (&lock->mutex);

  acquire = g_new0 (Acquire, 1);
  g_atomic_ref_count_init (&acquire->ref);
  acquire->lock = zkr__queue_lock_ref (lock);
  acquire->try_once = timeout_ms == 0;
  acquire->deadline = timeout_ms > 0 ? g_get_monotonic_time () + (gint64) timeout_ms * 1000
                                     : G_MAXINT64;
  acquire->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  zkr__armed_init (&acquire->armed, &acquire_hooks, acquire, lock->session, acquire->cancellable);
  acquire->fixed_suffix = g_strdup (fixed_suffix);
  return acquire;
}

static gboolean
reevaluate_in_worker (gpointer data)
{
  ZkrQueueLock *lock = data;
  Acquire *acquire = lock->acquire;

  if (acquire != NULL)
    zkr__queue_steps_relist (acquire);
  zkr__queue_lock_unref (lock);
  return G_SOURCE_REMOVE;
}

void
zkr__queue_acquire_reevaluate (ZkrQueueLock *lock)
{
  g_return_if_fail (lock != NULL);
  zkr__session_post (lock->session, reevaluate_in_worker, zkr__queue_lock_ref (lock), NULL);
}

void
zkr__queue_acquire_abandon (ZkrQueueLock *lock)
{
  if (lock->acquire != NULL)
    zkr__queue_acquire_fail (lock->acquire,
                             zkr__error_new_cancelled ("acquire %s %s (the lock was freed)",
                                                       lock->recipe->kind, lock->user_path));
}
