/* zkr: the reentrant mutex. One queue entry (ZkrQueueLock) per thread,
 * the hold count kept here: a re-acquire by the holding thread sends
 * nothing. Loss events of every thread's entry are relayed to one set of
 * listeners. */

#include "context.h"
#include "error-private.h"
#include "queue-lock.h"
#include "notifier.h"
#include "per-thread.h"
#include "ref.h"

#include <zkr/reentrant-mutex.h>

typedef struct {
  ZkrQueueLock *queue;   /* (owned) */
  guint count;           /* re-acquisitions by the thread; 0 while acquiring */
} Hold;

struct _ZkrReentrantMutex {
  ZkrPerThread base;     /* first: entries are Hold*, one per thread */
  ZkrRevocation *revocation;  /* (owned) handed to every thread's entry */
};

/* Revocation requests are delivered only while someone holds the mutex. */
static gpointer
reentrant_try_ref (gpointer data)
{
  ZkrReentrantMutex *mutex = data;

  return zkr__ref_try (&mutex->base.ref) ? mutex : NULL;
}

static void
hold_free (gpointer data)
{
  Hold *hold = data;

  zkr__queue_lock_free (hold->queue);
  g_free (hold);
}

/* Holds nothing, takes nothing, gives nothing back. Lock held. */
static gboolean
hold_is_idle (gpointer data)
{
  Hold *hold = data;

  return hold->count == 0 && !zkr__queue_lock_is_busy (hold->queue) &&
         !zkr__queue_release_is_pending (hold->queue);
}

ZkrReentrantMutex *
zkr_reentrant_mutex_new (ZkrSession *session, const char *path, GError **error)
{
  ZkrReentrantMutex *mutex;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  mutex = g_new0 (ZkrReentrantMutex, 1);
  if (!zkr__per_thread_init (&mutex->base, session, path, &zkr__queue_mutex_recipe,
                             (void (*) (gpointer)) zkr_reentrant_mutex_unref, hold_free,
                             hold_is_idle, error))
    {
      g_free (mutex);
      return NULL;
    }
  mutex->revocation = zkr__queue_revocation_new (mutex, reentrant_try_ref,
                                                 (void (*) (gpointer)) zkr_reentrant_mutex_unref);
  return mutex;
}

ZkrReentrantMutex *
zkr_reentrant_mutex_ref (ZkrReentrantMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, NULL);
  g_atomic_ref_count_inc (&mutex->base.ref);
  return mutex;
}

void
zkr_reentrant_mutex_unref (ZkrReentrantMutex *mutex)
{
  g_return_if_fail (mutex != NULL);
  if (!zkr__per_thread_unref (&mutex->base))
    return;
  /* Every entry's free has returned: none relays a request any more. */
  zkr__queue_revocation_free (mutex->revocation);
  g_free (mutex);
}

/* The calling thread's entry, made on first use. Lock held. */
static Hold *
hold_for_thread_locked (ZkrReentrantMutex *mutex, ZkrThreadKey *key)
{
  Hold *hold = zkr__per_thread_lookup_locked (&mutex->base, key);

  if (hold == NULL)
    {
      hold = g_new0 (Hold, 1);
      /* Its events reach the listeners through the hook alone, which
       * stops when the entry is freed. */
      hold->queue = zkr__queue_lock_new (mutex->base.session, mutex->base.path,
                                         &zkr__queue_mutex_recipe, NULL, NULL);
      zkr__queue_lock_set_loss_hook (hold->queue, zkr__per_thread_relay_loss, mutex);
      zkr__queue_revocation_set (hold->queue, mutex->revocation);
      zkr__per_thread_insert_locked (&mutex->base, key, hold);
    }
  return hold;
}

typedef struct {
  ZkrReentrantMutex *mutex;  /* (owned) */
  ZkrThreadKey *key;         /* (owned) the calling thread's */
  GTask *outer;              /* (owned) */
} FirstAcquire;

/* Counts a reentry by the calling thread (TRUE: nothing to send), or
 * resets its count and hands back in *@queue its entry for the engine to
 * take (FALSE). */
static gboolean
acquire_prepare (ZkrReentrantMutex *mutex, ZkrQueueLock **queue)
{
  Hold *hold;
  gboolean reentered;

  g_mutex_lock (&mutex->base.lock);
  hold = hold_for_thread_locked (mutex, zkr__per_thread_key_self ());
  reentered = hold->count > 0 && zkr__queue_lock_is_held (hold->queue);
  if (reentered)
    hold->count++; /* reentry: counted here, nothing sent */
  else
    hold->count = 0; /* a hold that was lost starts over */
  *queue = hold->queue;
  g_mutex_unlock (&mutex->base.lock);
  return reentered;
}

/* The engine granted the first hold of @key's thread. Shared by both
 * acquire paths: the async one in the caller's context, the blocking one
 * in its thread. The entry of a thread that ended meanwhile may be gone
 * already (lost, then dropped as idle): nothing to count then. */
static void
grant_finish (ZkrReentrantMutex *mutex, ZkrThreadKey *key)
{
  Hold *hold;

  g_mutex_lock (&mutex->base.lock);
  hold = zkr__per_thread_lookup_locked (&mutex->base, key);
  if (hold != NULL)
    hold->count = 1;
  g_mutex_unlock (&mutex->base.lock);
}

/* In the caller's context: the engine granted the thread's first hold. */
static void
first_acquire_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FirstAcquire *first = user_data;
  GError *error = NULL;

  (void) source;
  if (g_task_propagate_boolean (G_TASK (result), &error))
    {
      grant_finish (first->mutex, first->key);
      g_task_return_boolean (first->outer, TRUE);
    }
  else
    g_task_return_error (first->outer, error);
  g_object_unref (first->outer);
  zkr__per_thread_key_unref (first->key);
  zkr_reentrant_mutex_unref (first->mutex);
  g_free (first);
}

void
zkr_reentrant_mutex_acquire_async (ZkrReentrantMutex *mutex, int timeout_ms,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *outer, *inner;
  FirstAcquire *first;
  ZkrQueueLock *queue;

  g_return_if_fail (mutex != NULL);
  zkr__context_assert_user ("zkr_reentrant_mutex_acquire_async() called");
  outer = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (outer, zkr_reentrant_mutex_acquire_async);
  g_task_set_check_cancellable (outer, FALSE);
  if (acquire_prepare (mutex, &queue))
    {
      g_task_return_boolean (outer, TRUE);
      g_object_unref (outer);
      return;
    }
  first = g_new0 (FirstAcquire, 1);
  first->mutex = zkr_reentrant_mutex_ref (mutex);
  first->key = zkr__per_thread_key_ref (zkr__per_thread_key_self ());
  first->outer = outer;
  inner = g_task_new (NULL, cancellable, first_acquire_done, first);
  g_task_set_check_cancellable (inner, FALSE);
  zkr__queue_lock_acquire (queue, timeout_ms, cancellable, inner);
}

gboolean
zkr_reentrant_mutex_acquire_finish (ZkrReentrantMutex *mutex, GAsyncResult *result,
                                    GError **error)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  g_return_val_if_fail (G_IS_TASK (result), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (result, zkr_reentrant_mutex_acquire_async), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* The blocking twin of the async acquire: the same decisions, the
 * engine's blocking acquire in between, all in the calling thread (whose
 * entry it is). */
gboolean
zkr_reentrant_mutex_acquire (ZkrReentrantMutex *mutex, int timeout_ms,
                             GCancellable *cancellable, GError **error)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (mutex != NULL, FALSE);
  if (acquire_prepare (mutex, &queue))
    return TRUE;
  if (!zkr__queue_lock_acquire_sync (queue, timeout_ms, cancellable, error))
    return FALSE;
  grant_finish (mutex, zkr__per_thread_key_self ());
  return TRUE;
}

/* The calling thread's entry if it holds, else NULL. Lock held. */
static Hold *
held_by_self_locked (ZkrReentrantMutex *mutex)
{
  Hold *hold = zkr__per_thread_lookup_locked (&mutex->base, zkr__per_thread_key_self ());

  if (hold == NULL || hold->count == 0 || !zkr__queue_lock_is_held (hold->queue))
    return NULL;
  return hold;
}

/* Counts the calling thread's release down: FALSE with NOT_HELD when it
 * does not hold the mutex; else TRUE, with *@queue its entry when the
 * count reached zero and our node must go (NULL: still held). Only this
 * thread uses its entry, so it stays valid unlocked. */
static gboolean
release_prepare (ZkrReentrantMutex *mutex, ZkrQueueLock **queue, GError **error)
{
  Hold *hold;

  *queue = NULL;
  g_mutex_lock (&mutex->base.lock);
  hold = held_by_self_locked (mutex);
  if (hold != NULL && --hold->count == 0)
    *queue = hold->queue;
  g_mutex_unlock (&mutex->base.lock);
  if (hold == NULL)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD,
                 "reentrant mutex %s is not held by this thread", mutex->base.path);
  return hold != NULL;
}

gboolean
zkr_reentrant_mutex_release (ZkrReentrantMutex *mutex, GError **error)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (mutex != NULL, FALSE);
  if (!release_prepare (mutex, &queue, error))
    return FALSE;
  return queue == NULL || zkr__queue_release_sync (queue, error);
}

void
zkr_reentrant_mutex_release_async (ZkrReentrantMutex *mutex, GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data)
{
  GError *error = NULL;
  ZkrQueueLock *queue;
  GTask *task;

  g_return_if_fail (mutex != NULL);
  zkr__context_assert_user ("zkr_reentrant_mutex_release_async() called");
  task = zkr__queue_task_new (cancellable, callback, user_data, zkr_reentrant_mutex_release_async,
                              "zkr_reentrant_mutex_release");
  /* Refused (the error set) or counted down (still held): answered here. */
  (void) release_prepare (mutex, &queue, &error);
  if (queue == NULL)
    zkr__queue_task_answer (task, error);
  else
    zkr__queue_release_async (queue, cancellable, task);
}

gboolean
zkr_reentrant_mutex_release_finish (ZkrReentrantMutex *mutex, GAsyncResult *result,
                                    GError **error)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr__queue_task_finish (result, zkr_reentrant_mutex_release_async, error);
}

gboolean
zkr_reentrant_mutex_is_held (ZkrReentrantMutex *mutex)
{
  return zkr_reentrant_mutex_get_hold_count (mutex) > 0;
}

guint
zkr_reentrant_mutex_get_hold_count (ZkrReentrantMutex *mutex)
{
  Hold *hold;
  guint count;

  g_return_val_if_fail (mutex != NULL, 0);
  g_mutex_lock (&mutex->base.lock);
  hold = held_by_self_locked (mutex);
  count = hold != NULL ? hold->count : 0;
  g_mutex_unlock (&mutex->base.lock);
  return count;
}

static ZkrQueueLock *
queue_of_self (ZkrReentrantMutex *mutex)
{
  Hold *hold;

  g_mutex_lock (&mutex->base.lock);
  hold = zkr__per_thread_lookup_locked (&mutex->base, zkr__per_thread_key_self ());
  g_mutex_unlock (&mutex->base.lock);
  return hold != NULL ? hold->queue : NULL;
}

gint64
zkr_reentrant_mutex_get_fencing_token (ZkrReentrantMutex *mutex)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (mutex != NULL, 0);
  queue = queue_of_self (mutex);
  return queue != NULL ? zkr__queue_lock_get_token (queue) : 0;
}

gboolean
zkr_reentrant_mutex_is_release_pending (ZkrReentrantMutex *mutex)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (mutex != NULL, FALSE);
  queue = queue_of_self (mutex);
  return queue != NULL && zkr__queue_release_is_pending (queue);
}

gboolean
zkr_reentrant_mutex_verify (ZkrReentrantMutex *mutex, GCancellable *cancellable,
                            GError **error)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (mutex != NULL, FALSE);
  queue = queue_of_self (mutex);
  if (queue == NULL)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD,
                   "reentrant mutex %s is not held by this thread", mutex->base.path);
      return FALSE;
    }
  return zkr__queue_lock_verify (queue, cancellable, error);
}

guint
zkr_reentrant_mutex_add_loss_listener (ZkrReentrantMutex *mutex, ZkrLockLossFunc func,
                                       gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (mutex != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__notifier_add (mutex->base.loss, (GCallback) (void (*) (void)) func, user_data, destroy);
}

void
zkr_reentrant_mutex_remove_loss_listener (ZkrReentrantMutex *mutex, guint listener_id)
{
  g_return_if_fail (mutex != NULL);
  zkr__notifier_remove (mutex->base.loss, listener_id);
}

GPtrArray *
zkr_reentrant_mutex_list_participants (ZkrReentrantMutex *mutex, GCancellable *cancellable,
                                       GError **error)
{
  g_return_val_if_fail (mutex != NULL, NULL);
  return zkr__queue_participants_list (mutex->base.session, mutex->base.path, &zkr__queue_mutex_recipe,
                                       NULL, cancellable, error);
}

void
zkr_reentrant_mutex_make_revocable (ZkrReentrantMutex *mutex, ZkrRevocationFunc func,
                                    gpointer user_data, GDestroyNotify destroy)
{
  g_return_if_fail (mutex != NULL);
  zkr__queue_revocation_set_listener (mutex->revocation, func, user_data, destroy);
}
