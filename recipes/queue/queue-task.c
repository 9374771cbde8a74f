/* zkr: the GTasks the queue's recipes answer their async calls with, and
 * the blocking twin that runs any of those async calls to completion on a
 * private main context. No ZooKeeper logic: the engine is in queue-*.c. */

#include "context.h"
#include "queue-lock.h"

/* ==== the tasks recipes make ========================================= */

GTask *
zkr__queue_task_new (GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data,
                     gpointer source_tag, const char *name)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_name (task, name);
  g_task_set_check_cancellable (task, FALSE);
  return task;
}

void
zkr__queue_task_answer (GTask *task, GError *error)
{
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

gboolean
zkr__queue_task_finish (GAsyncResult *result, gpointer source_tag, GError **error)
{
  g_return_val_if_fail (G_IS_TASK (result), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (result, source_tag), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ==== the blocking twin ============================================== */

typedef struct {
  gpointer object;
  ZkrAsyncStart async_start;
  int timeout_ms;
} SyncCall;

static void
sync_call_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
                 gpointer user_data)
{
  SyncCall *call = data;

  call->async_start (call->object, call->timeout_ms, cancellable, callback, user_data);
}

gboolean
zkr__queue_task_run_sync (gpointer object, ZkrAsyncStart async_start, int timeout_ms,
                          GCancellable *cancellable, GError **error)
{
  SyncCall call = { object, async_start, timeout_ms };
  GAsyncResult *result = zkr__context_run_sync (sync_call_start, &call, cancellable);
  gboolean ok = g_task_propagate_boolean (G_TASK (result), error);

  g_object_unref (result);
  return ok;
}
