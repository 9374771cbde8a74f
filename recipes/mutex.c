/* zkr: the distributed mutex, Curator's InterProcessMutex layout: the
 * queue engine with the "first in line holds" predicate. Not reentrant: a
 * second acquire through the same object fails instead of deadlocking. */

#include "error.h"
#include "lock-queue.h"
#include "notifier.h"
#include "session-private.h"

#include <zkr/mutex.h>

struct _ZkrMutex {
  gatomicrefcount ref;
  ZkrQueueLock *queue;   /* (owned) */
};

/* Loss events are delivered only while someone holds the mutex. */
static gpointer
mutex_try_ref (gpointer data)
{
  ZkrMutex *mutex = data;

  return zkr_ref_try (&mutex->ref) ? mutex : NULL;
}

ZkrMutex *
zkr_mutex_new (ZkrSession *session, const char *path, GError **error)
{
  ZkrMutex *mutex;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  mutex = g_new0 (ZkrMutex, 1);
  g_atomic_ref_count_init (&mutex->ref);
  mutex->queue = zkr_queue_lock_new (session, path, &zkr_queue_mutex_recipe, NULL, mutex,
                                     mutex_try_ref,
                                     (void (*) (gpointer)) zkr_mutex_unref, error);
  if (mutex->queue == NULL)
    {
      g_free (mutex);
      return NULL;
    }
  return mutex;
}

ZkrMutex *
zkr_mutex_ref (ZkrMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, NULL);
  g_atomic_ref_count_inc (&mutex->ref);
  return mutex;
}

void
zkr_mutex_unref (ZkrMutex *mutex)
{
  g_return_if_fail (mutex != NULL);
  if (!g_atomic_ref_count_dec (&mutex->ref))
    return;
  zkr_queue_lock_free (mutex->queue);
  g_free (mutex);
}

void
zkr_mutex_acquire_async (ZkrMutex *mutex, int timeout_ms, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;

  g_return_if_fail (mutex != NULL);
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zkr_mutex_acquire_async);
  g_task_set_name (task, "zkr_mutex_acquire");
  /* Cancellation is reported as ZKR_ERROR_CANCELLED by the engine, after
   * our node is gone; a lock granted just before the cancel stays granted
   * (and must be released). */
  g_task_set_check_cancellable (task, FALSE);
  zkr_queue_lock_acquire (mutex->queue, timeout_ms, cancellable, task);
}

gboolean
zkr_mutex_acquire_finish (ZkrMutex *mutex, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  g_return_val_if_fail (G_IS_TASK (result), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (result, zkr_mutex_acquire_async), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
zkr_mutex_acquire (ZkrMutex *mutex, int timeout_ms, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr_queue_lock_acquire_sync (mutex->queue, timeout_ms, cancellable, error);
}

gboolean
zkr_mutex_release (ZkrMutex *mutex, GError **error)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr_queue_lock_release (mutex->queue, error);
}

gboolean
zkr_mutex_is_release_pending (ZkrMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr_queue_lock_is_release_pending (mutex->queue);
}

gboolean
zkr_mutex_is_held (ZkrMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr_queue_lock_is_held (mutex->queue);
}

gint64
zkr_mutex_get_fencing_token (ZkrMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, 0);
  return zkr_queue_lock_get_token (mutex->queue);
}

char *
zkr_mutex_dup_node_path (ZkrMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, NULL);
  return zkr_queue_lock_dup_node_path (mutex->queue);
}

gboolean
zkr_mutex_verify (ZkrMutex *mutex, GError **error)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr_queue_lock_verify (mutex->queue, error);
}

guint
zkr_mutex_add_loss_listener (ZkrMutex *mutex, ZkrLockLossFunc func,
                             gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (mutex != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr_queue_lock_add_loss_listener (mutex->queue, func, user_data, destroy);
}

void
zkr_mutex_remove_loss_listener (ZkrMutex *mutex, guint listener_id)
{
  g_return_if_fail (mutex != NULL);
  zkr_queue_lock_remove_loss_listener (mutex->queue, listener_id);
}

GPtrArray *
zkr_mutex_list_participants (ZkrMutex *mutex, GError **error)
{
  g_return_val_if_fail (mutex != NULL, NULL);
  return zkr_queue_lock_list_participants (mutex->queue, error);
}
