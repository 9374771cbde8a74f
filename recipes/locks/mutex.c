/* zkr: the distributed mutex, Curator's InterProcessMutex layout: the
 * queue engine with the "first in line holds" predicate. Not reentrant: a
 * second acquire through the same object fails instead of deadlocking. */

#include "context.h"
#include "error-private.h"
#include "queue-lock.h"
#include "notifier.h"
#include "ref.h"
#include "session-private.h"

#include <zkr/mutex.h>

struct _ZkrMutex {
  gatomicrefcount ref;
  ZkrQueueLock *queue;   /* (owned) */
  ZkrNotifier *loss;     /* (owned) the loss listeners */
  ZkrRevocation *revocation;  /* (owned) its revocation listener */
};

/* Loss events are delivered only while someone holds the mutex. */
static gpointer
mutex_try_ref (gpointer data)
{
  ZkrMutex *mutex = data;

  return zkr__ref_try (&mutex->ref) ? mutex : NULL;
}

/* Worker thread: the entry's loss event goes to our listeners. The
 * listeners are ours, not the entry's, so that the mutex's memory may go
 * the moment its last reference does: once zkr__queue_lock_free() returned
 * this hook is neither running nor called again (docs/design.md,
 * "Ownership and unref"). */
static void
mutex_relay_loss (gpointer queue, ZkrLockEvent event, gpointer user_data)
{
  ZkrMutex *mutex = user_data;

  (void) queue;
  zkr__notifier_emit (mutex->loss, event);
}

ZkrMutex *
zkr_mutex_new (ZkrSession *session, const char *path, GError **error)
{
  ZkrMutex *mutex;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  mutex = g_new0 (ZkrMutex, 1);
  g_atomic_ref_count_init (&mutex->ref);
  /* The entry never names the mutex: its events come out through the
   * loss hook alone. */
  mutex->queue = zkr__queue_lock_new (session, path, &zkr__queue_mutex_recipe, NULL, error);
  if (mutex->queue == NULL)
    {
      g_free (mutex);
      return NULL;
    }
  mutex->loss = zkr__notifier_new (mutex, mutex_try_ref, (void (*) (gpointer)) zkr_mutex_unref,
                                   zkr__queue_hold_loss_marshal);
  zkr__queue_lock_set_loss_hook (mutex->queue, mutex_relay_loss, mutex);
  mutex->revocation = zkr__queue_revocation_new (mutex, mutex_try_ref,
                                                 (void (*) (gpointer)) zkr_mutex_unref);
  zkr__queue_revocation_set (mutex->queue, mutex->revocation);
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
  /* Gives the node up in the background; no relay runs or starts once it
   * returned, so the notifier and the memory may go now. */
  zkr__queue_lock_free (mutex->queue);
  zkr__notifier_free (mutex->loss);
  zkr__queue_revocation_free (mutex->revocation);
  g_free (mutex);
}

void
zkr_mutex_acquire_async (ZkrMutex *mutex, int timeout_ms, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;

  g_return_if_fail (mutex != NULL);
  zkr__context_assert_user ("zkr_mutex_acquire_async() called");
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zkr_mutex_acquire_async);
  g_task_set_name (task, "zkr_mutex_acquire");
  /* Cancellation is reported as G_IO_ERROR_CANCELLED by the engine, after
   * our node is gone; a lock granted just before the cancel stays granted
   * (and must be released). */
  g_task_set_check_cancellable (task, FALSE);
  zkr__queue_lock_acquire (mutex->queue, timeout_ms, cancellable, task);
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
  return zkr__queue_lock_acquire_sync (mutex->queue, timeout_ms, cancellable, error);
}

gboolean
zkr_mutex_release (ZkrMutex *mutex, GError **error)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr__queue_release_sync (mutex->queue, error);
}

void
zkr_mutex_release_async (ZkrMutex *mutex, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (mutex != NULL);
  zkr__context_assert_user ("zkr_mutex_release_async() called");
  zkr__queue_release_async (mutex->queue, cancellable,
                            zkr__queue_task_new (cancellable, callback, user_data,
                                                 zkr_mutex_release_async,
                                                 "zkr_mutex_release"));
}

gboolean
zkr_mutex_release_finish (ZkrMutex *mutex, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr__queue_task_finish (result, zkr_mutex_release_async, error);
}

gboolean
zkr_mutex_is_release_pending (ZkrMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr__queue_release_is_pending (mutex->queue);
}

gboolean
zkr_mutex_is_held (ZkrMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr__queue_lock_is_held (mutex->queue);
}

gint64
zkr_mutex_get_fencing_token (ZkrMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, 0);
  return zkr__queue_lock_get_token (mutex->queue);
}

char *
zkr_mutex_dup_node_path (ZkrMutex *mutex)
{
  g_return_val_if_fail (mutex != NULL, NULL);
  return zkr__queue_lock_dup_node_path (mutex->queue);
}

gboolean
zkr_mutex_verify (ZkrMutex *mutex, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (mutex != NULL, FALSE);
  return zkr__queue_lock_verify (mutex->queue, cancellable, error);
}

guint
zkr_mutex_add_loss_listener (ZkrMutex *mutex, ZkrLockLossFunc func,
                             gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (mutex != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__notifier_add (mutex->loss, (GCallback) (void (*) (void)) func, user_data, destroy);
}

void
zkr_mutex_remove_loss_listener (ZkrMutex *mutex, guint listener_id)
{
  g_return_if_fail (mutex != NULL);
  zkr__notifier_remove (mutex->loss, listener_id);
}

GPtrArray *
zkr_mutex_list_participants (ZkrMutex *mutex, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (mutex != NULL, NULL);
  return zkr__queue_participants_list_for_lock (mutex->queue, cancellable, error);
}

void
zkr_mutex_make_revocable (ZkrMutex *mutex, ZkrRevocationFunc func, gpointer user_data,
                          GDestroyNotify destroy)
{
  g_return_if_fail (mutex != NULL);
  zkr__queue_revocation_set_listener (mutex->revocation, func, user_data, destroy);
}
