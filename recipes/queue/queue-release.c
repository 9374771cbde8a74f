/* zkr: giving a queue entry's hold back (docs/design.md §5.4). Every
 * release, blocking, async or in the background, is one Release: its
 * guaranteed delete on the worker and its one answer (the delete done, the
 * connection gone, or a cancel), given to whoever waits in its
 * ZkrQueueWaiter. The blocking release first tries the delete straight
 * from the caller's thread. */

#include "armed.h"
#include "error-private.h"
#include "queue-private.h"

typedef struct {
  gatomicrefcount ref;
  ZkrQueueLock *lock;           /* (owned) */
  char *node;                   /* (owned) our node, no longer held */
  GCancellable *cancellable;    /* (owned) (nullable) */
  ZkrArmed armed;               /* the cancel and the state listener */
  ZkrQueueWaiter waiter;        /* who hears the answer (nobody: a release
                                 * in the background) */
  gboolean answered;            /* worker: the waiter was told (or there is
                                 * none) */
} Release;

static gpointer
release_ref (gpointer data)
{
  Release *release = data;

  g_atomic_ref_count_inc (&release->ref);
  return release;
}

static void
release_unref (gpointer data)
{
  Release *release = data;

  if (!g_atomic_ref_count_dec (&release->ref))
    return;
  g_clear_object (&release->waiter.task);
  g_clear_object (&release->cancellable);
  zkr__queue_lock_unref (release->lock);
  g_free (release->node);
  g_free (release);
}

static GError *
release_error_pending (ZkrQueueLock *lock)
{
  return g_error_new (ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS,
                      "release of %s %s is pending: the connection is down; the delete is "
                      "retried in the background", lock->recipe->kind, lock->user_path);
}

/* Worker or stand-in: tells the waiter @error (transfer full; NULL: the
 * delete is confirmed), once; whatever answers later finds it answered. The
 * delete goes on either way: only its end gives the node up. */
static void
release_answer (Release *release, GError *error)
{
  if (release->answered)
    {
      g_clear_error (&error);
      return;
    }
  release->answered = TRUE;
  zkr__armed_detach (&release->armed);
  zkr__queue_lock_answer (release->lock, &release->waiter, error);
}

/* The connection dropping answers at once: no release waits for a
 * reconnect (docs/design.md §5.4). */
static void
release_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Release *release = user_data;

  (void) session;
  if (state == ZKR_SESSION_STATE_SUSPENDED || state == ZKR_SESSION_STATE_LOST ||
      state == ZKR_SESSION_STATE_CLOSED)
    release_answer (release, release_error_pending (release->lock));
}

static void
release_on_cancelled (gpointer owner)
{
  Release *release = owner;

  release_answer (release, zkr__error_new_cancelled ("release %s %s", release->lock->recipe->kind,
                                                     release->lock->user_path));
}

static const ZkrArmedHooks release_hooks = {
  .ref = release_ref,
  .unref = release_unref,
  .on_state = release_on_state,
  .on_cancelled = release_on_cancelled,
};

/* The guaranteed delete ended (ZOK, or ZCLOSING once the session was
 * closed and the server drops our node itself). */
static void
release_deleted (ZkrSession *session, int rc, gpointer user_data)
{
  Release *release = user_data;
  ZkrQueueLock *lock = release->lock;

  (void) session;
  g_mutex_lock (&lock->mutex);
  lock->releases_pending--;
  g_mutex_unlock (&lock->mutex);
  release_answer (release, rc == ZOK ? NULL : release_error_pending (lock));
  release_unref (release);
}

/* Worker or stand-in: the hold's listener and watch stop, the delete is
 * sent, then the waiter's cancel and state listener are armed. The delete
 * goes first so that an answer given here (a cancel, the connection
 * down) comes after it: whatever the caller sends next is queued behind it
 * (docs/design.md §5.2). Its reply cannot come before the arming: it
 * needs the turn this code holds. */
static gboolean
release_start (gpointer data)
{
  Release *release = data;
  ZkrQueueLock *lock = release->lock;

  zkr__queue_hold_stop (lock);
  zkr__guaranteed_delete (lock->session, release->node, release_deleted, release_ref (release));
  if (!release->answered)
    {
      if (zkr__armed_arm (&release->armed) == ZKR_ARMED_CANCELLED)
        release_on_cancelled (release);
      else if (!zkr_session_is_connected (lock->session))
        release_answer (release, release_error_pending (lock));
    }
  return G_SOURCE_REMOVE;
}

/* The common start of a release: no longer held, our node handed to the
 * caller (transfer full), the delete counted as pending; NULL with
 * NOT_HELD. */
static char *
release_begin (ZkrQueueLock *lock, GError **error)
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
  g_mutex_unlock (&lock->mutex);
  return node;
}

/* A release of @node (transfer full), not started; @waiter (nullable:
 * nobody waits; copied, its task taken over) hears the answer. */
static Release *
release_new (ZkrQueueLock *lock, char *node, GCancellable *cancellable,
             const ZkrQueueWaiter *waiter)
{
  Release *release = g_new0 (Release, 1);

  g_atomic_ref_count_init (&release->ref);
  release->lock = zkr__queue_lock_ref (lock);
  release->node = node;
  release->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  zkr__armed_init (&release->armed, &release_hooks, release, lock->session, release->cancellable);
  if (waiter != NULL)
    release->waiter = *waiter;
  release->answered = waiter == NULL;
  return release;
}

/* Hands the delete of @node (transfer full) to the worker; @waiter as
 * release_new(). */
static void
release_post (ZkrQueueLock *lock, char *node, GCancellable *cancellable,
              const ZkrQueueWaiter *waiter)
{
  zkr__session_post (lock->session, release_start, release_new (lock, node, cancellable, waiter),
                     release_unref);
}

/* Sends the delete before returning: the rollback of a failed acquire
 * answers its caller after this, so whatever that caller sends next goes
 * out behind the delete, and ZooKeeper applies one session's requests in
 * order (docs/design.md §5.2). Posted to the worker instead, the delete
 * could leave after the caller's next request. Off the worker the caller
 * stands in for it, as an acquire's start does: the turn is only ever
 * held for short steps, never across a wait for the server. */
gboolean
zkr__queue_release_in_background (ZkrQueueLock *lock)
{
  char *node = release_begin (lock, NULL);
  Release *release;

  if (node == NULL)
    return FALSE;
  release = release_new (lock, node, NULL, NULL);
  if (zkr__session_in_worker (lock->session))
    (void) release_start (release);
  else
    {
      zkr__session_stand_in_begin (lock->session);
      (void) release_start (release);
      zkr__session_stand_in_end (lock->session);
    }
  release_unref (release);
  return TRUE;
}

void
zkr__queue_release_async (ZkrQueueLock *lock, GCancellable *cancellable, GTask *task)
{
  GError *error = NULL;
  char *node = release_begin (lock, &error);
  ZkrQueueWaiter waiter = { .task = task };

  if (node == NULL)
    zkr__queue_task_answer (task, error);
  else
    release_post (lock, node, cancellable, &waiter);
}

void
zkr__queue_release_on_worker (ZkrQueueLock *lock, ZkrQueueDoneFunc done, gpointer user_data)
{
  GError *error = NULL;
  char *node = release_begin (lock, &error);
  ZkrQueueWaiter waiter = { .done = done, .done_data = user_data };

  if (node == NULL)
    zkr__queue_lock_answer (lock, &waiter, error);
  else
    release_post (lock, node, NULL, &waiter);
}

gboolean
zkr__queue_release_sync (ZkrQueueLock *lock, GError **error)
{
  ZkrQueueWait wait = { 0 };
  ZkrQueueWaiter waiter = { .wait = &wait };
  char *node;

  g_return_val_if_fail (!zkr__session_in_worker (lock->session), FALSE);
  node = release_begin (lock, error);
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
  zkr__wait_init (&wait.wait);
  release_post (lock, node, NULL, &waiter);
  zkr__wait_block (&wait.wait);
  if (wait.error == NULL)
    return TRUE;
  g_propagate_error (error, wait.error);
  return FALSE;
}

gboolean
zkr__queue_release_is_pending (ZkrQueueLock *lock)
{
  gboolean pending;

  g_mutex_lock (&lock->mutex);
  pending = lock->releases_pending > 0;
  g_mutex_unlock (&lock->mutex);
  return pending;
}
