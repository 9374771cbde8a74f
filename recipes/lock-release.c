/* zkr: giving a queue entry's hold back (docs/design.md §5.4): the
 * release from the caller's thread, the guaranteed delete on the worker
 * when that cannot answer at once, and the release in the background. */

#include "error-private.h"
#include "lock-queue-private.h"

#define RELEASE_WAITING G_MININT

/* Answers the waiting caller of release @number, unless a newer release
 * took its place (the caller of an older one was answered before the lock
 * could be held again). */
static void
release_answer (ZkrQueueLock *lock, guint number, int rc)
{
  g_mutex_lock (&lock->mutex);
  if (number == lock->release_number && lock->release_answer == RELEASE_WAITING)
    lock->release_answer = rc;
  g_cond_broadcast (&lock->cond);
  g_mutex_unlock (&lock->mutex);
}

static void
release_stop_listening (ZkrQueueLock *lock)
{
  if (lock->release_listener != 0)
    zkr__session_remove_internal_listener (lock->session, lock->release_listener);
  lock->release_listener = 0;
}

typedef struct {
  ZkrQueueLock *lock;   /* (owned) */
  char *node;           /* (owned) */
  guint number;         /* which release */
} ReleaseStart;

static void
release_start_free (ReleaseStart *start)
{
  zkr__queue_lock_unref (start->lock);
  g_free (start->node);
  g_free (start);
}

/* The background delete of release @start->number is done. A newer
 * release (the lock was held again meanwhile) is not this one's to answer
 * or stop listening for: its own node may still exist. */
static void
release_deleted (ZkrSession *session, int rc, gpointer user_data)
{
  ReleaseStart *start = user_data;
  ZkrQueueLock *lock = start->lock;
  gboolean newest;

  (void) session;
  g_mutex_lock (&lock->mutex);
  lock->releases_pending--;
  newest = start->number == lock->release_number;
  g_mutex_unlock (&lock->mutex);
  if (newest)
    {
      release_stop_listening (lock);
      release_answer (lock, start->number, rc == ZOK ? ZOK : ZCONNECTIONLOSS);
    }
  release_start_free (start);
}

/* While a release waits for its delete: a connection that drops answers
 * the waiter (the delete goes on in the background). */
/* The listener is the newest release's (release_start removes an older
 * one's), so the newest release is the one answered. */
static void
release_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;
  guint number;

  (void) session;
  if (state == ZKR_SESSION_STATE_SUSPENDED || state == ZKR_SESSION_STATE_LOST ||
      state == ZKR_SESSION_STATE_CLOSED)
    {
      release_stop_listening (lock);
      g_mutex_lock (&lock->mutex);
      number = lock->release_number;
      g_mutex_unlock (&lock->mutex);
      release_answer (lock, number, ZCONNECTIONLOSS);
    }
}

static gboolean
release_start (gpointer data)
{
  ReleaseStart *start = data;
  ZkrQueueLock *lock = start->lock;

  zkr__lock_hold_stop (lock);
  release_stop_listening (lock);
  if (!zkr_session_is_connected (lock->session))
    release_answer (lock, start->number, ZCONNECTIONLOSS);
  else
    lock->release_listener = zkr__session_add_internal_listener (lock->session, release_on_state, lock);
  zkr__guaranteed_delete (lock->session, start->node, release_deleted, start);
  return G_SOURCE_REMOVE;
}

/* The common start of a release: no longer held, our node handed to the
 * caller (transfer full), the release numbered; NULL with NOT_HELD. */
static char *
release_begin (ZkrQueueLock *lock, guint *number, GError **error)
{
  char *node;

  g_mutex_lock (&lock->mutex);
  if (lock->state != ZKR_QUEUE_LOCK_HELD && lock->state != ZKR_QUEUE_LOCK_IN_DOUBT)
    {
      g_mutex_unlock (&lock->mutex);
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD, "%s %s is not held",
                   lock->recipe->kind, lock->user_path);
      return NULL;
    }
  node = g_steal_pointer (&lock->node_path);
  zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_IDLE);
  lock->token = 0;
  lock->releases_pending++;
  *number = ++lock->release_number;
  lock->release_answer = RELEASE_WAITING;
  g_mutex_unlock (&lock->mutex);
  return node;
}

static void
release_post (ZkrQueueLock *lock, char *node, guint number)
{
  ReleaseStart *start = g_new0 (ReleaseStart, 1);

  start->lock = zkr__queue_lock_ref (lock);
  start->node = node;
  start->number = number;
  zkr__session_post (lock->session, release_start, start, NULL);
}

gboolean
zkr__queue_lock_release_in_background (ZkrQueueLock *lock)
{
  guint number;
  char *node = release_begin (lock, &number, NULL);

  if (node == NULL)
    return FALSE;
  release_post (lock, node, number);
  return TRUE;
}

gboolean
zkr__queue_lock_release (ZkrQueueLock *lock, GError **error)
{
  char *node;
  guint number;
  int answer;

  g_return_val_if_fail (!zkr__session_in_worker (lock->session), FALSE);
  node = release_begin (lock, &number, error);
  if (node == NULL)
    return FALSE;

  /* The common case straight from this thread: the delete is sent from
   * here and its reply comes back here (two thread hand-offs fewer than
   * through the worker). The hold's listener and watch are left to the
   * worker, which stops them when it next touches this lock (an
   * acquire's start, the entry's free, a loss); until then they see a
   * lock that is not held and do nothing. Anything but a clean answer
   * goes the worker's way: the guaranteed delete. */
  if (zkr_session_is_connected (lock->session))
    {
      int rc = zkr__op_delete_sync (lock->session, node, -1);

      if (rc == ZOK || rc == ZNONODE)
        {
          g_mutex_lock (&lock->mutex);
          lock->releases_pending--;
          g_mutex_unlock (&lock->mutex);
          g_free (node);
          return TRUE;
        }
    }
  release_post (lock, node, number);
  g_mutex_lock (&lock->mutex);
  while (lock->release_number == number && lock->release_answer == RELEASE_WAITING)
    g_cond_wait (&lock->cond, &lock->mutex);
  answer = lock->release_answer;
  g_mutex_unlock (&lock->mutex);
  if (answer == ZOK)
    return TRUE;
  g_set_error (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS,
               "release of %s %s is pending: the connection is down; the delete is retried "
               "in the background", lock->recipe->kind, lock->user_path);
  return FALSE;
}

gboolean
zkr__queue_lock_is_release_pending (ZkrQueueLock *lock)
{
  gboolean pending;

  g_mutex_lock (&lock->mutex);
  pending = lock->releases_pending > 0;
  g_mutex_unlock (&lock->mutex);
  return pending;
}
