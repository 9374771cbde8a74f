/* zkr: the session's asynchronous connect and close (docs/design.md §2.6):
 * the connect made of a new session and its wait for the connection
 * (session-wait.c); the close run on the worker and answered in the
 * caller's context. */

#include "context.h"
#include "error-private.h"
#include "session-internal.h"

/* ==== connecting ======================================================== */

static void
connect_waited (GObject *source, GAsyncResult *result, gpointer data)
{
  GTask *task = data;
  ZkrSession *session = g_task_get_task_data (G_TASK (result));
  GError *error = NULL;

  (void) source;
  if (zkr_session_wait_connected_finish (session, result, &error))
    g_task_return_pointer (task, zkr_session_ref (session),
                           (GDestroyNotify) zkr_session_unref);
  else
    /* The session goes with the inner task: its last unref closes it in
     * the background. */
    g_task_return_error (task, error);
  g_object_unref (task);
}

void
zkr_session_connect_async (const ZkrSessionOptions *options, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;
  ZkrSession *session;
  GError *error = NULL;

  g_return_if_fail (options != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zkr_session_connect_async);
  g_task_set_check_cancellable (task, FALSE);
  session = zkr_session_new (options, &error);
  if (session == NULL)
    {
      /* GTask answers in a later iteration of this thread's context. */
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  zkr_session_wait_connected_async (session, options->connection_timeout_ms, cancellable,
                                    connect_waited, task);
  zkr_session_unref (session);
}

ZkrSession *
zkr_session_connect_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zkr_session_connect_async,
                        NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ==== closing =========================================================== */

typedef struct {
  ZkrSession *session;       /* (owned) */
  GTask *task;               /* (owned) (nullable once answered) */
  GCancellable *cancellable; /* (owned) (nullable) */
  gulong cancel_id;
  GMutex lock;               /* over task: the worker and a cancel race */
} Closing;

/* Either side, once: the answer goes to the task's context. */
static void
closing_answer (Closing *closing, GError *error)
{
  GTask *task;

  g_mutex_lock (&closing->lock);
  task = g_steal_pointer (&closing->task);
  g_mutex_unlock (&closing->lock);
  if (task != NULL)
    zkr__context_return (task, error);
  else
    g_clear_error (&error);
}

/* The cancelling thread: the caller is answered at once; the close goes
 * on. */
static void
closing_cancelled (GCancellable *cancellable, gpointer data)
{
  Closing *closing = data;

  (void) cancellable;
  closing_answer (closing, zkr__error_new_cancelled ("close the session to \"%s\"",
                                                     closing->session->hosts.hosts));
}

static gboolean
closing_run (gpointer data)
{
  Closing *closing = data;

  zkr__session_close_in_worker (closing->session);
  closing_answer (closing, NULL);
  return G_SOURCE_REMOVE;
}

/* The worker, after the close (or as the worker stops with it queued,
 * which only the last unref does, and we hold a reference). */
static void
closing_free (gpointer data)
{
  Closing *closing = data;

  /* Waits for a cancel handler running now, which only answers. */
  if (closing->cancel_id != 0)
    g_cancellable_disconnect (closing->cancellable, closing->cancel_id);
  closing_answer (closing, NULL);
  g_clear_object (&closing->cancellable);
  g_mutex_clear (&closing->lock);
  zkr_session_unref (closing->session);
  g_free (closing);
}

void
zkr_session_close_async (ZkrSession *session, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  Closing *closing;

  g_return_if_fail (session != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  zkr__context_assert_user ("zkr_session_close_async");
  closing = g_new0 (Closing, 1);
  g_mutex_init (&closing->lock);
  closing->session = zkr_session_ref (session);
  closing->task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (closing->task, zkr_session_close_async);
  /* Closed wins over a cancel that came after. */
  g_task_set_check_cancellable (closing->task, FALSE);
  g_task_set_task_data (closing->task, zkr_session_ref (session),
                        (GDestroyNotify) zkr_session_unref);
  if (cancellable != NULL)
    {
      closing->cancellable = g_object_ref (cancellable);
      /* An already cancelled one answers right here, before the post. */
      closing->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (closing_cancelled),
                                                  closing, NULL);
    }
  zkr__session_post (session, closing_run, closing, closing_free);
}

gboolean
zkr_session_close_finish (ZkrSession *session, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zkr_session_close_async,
                        FALSE);
  g_return_val_if_fail (g_task_get_task_data (G_TASK (result)) == session, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
