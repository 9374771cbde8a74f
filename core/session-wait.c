/* zkr: the wait for the session's connection (docs/design.md §2.6),
 * blocking and async, ended by one judgement; the async one judged again
 * on the worker at each state change, at its deadline and at its cancel. */

#include "armed.h"
#include "context.h"
#include "error-private.h"
#include "session-internal.h"

/* Any thread that cancels: wakes the waiters, who look at the cancellable. */
static void
wait_connected_wake (GCancellable *cancellable, gpointer data)
{
  ZkrSession *session = data;

  (void) cancellable;
  g_mutex_lock (&session->lock);
  g_cond_broadcast (&session->cond);
  g_mutex_unlock (&session->lock);
}

/* Under the session's lock: whether a wait for the connection goes on
 * (else @error says why it ends); the one judgement of the blocking wait
 * and the async one. */
static gboolean
wait_may_go_on (ZkrSession *session, int timeout_ms, gint64 deadline,
                GCancellable *cancellable, GError **error)
{
  if (session->state == ZKR_SESSION_STATE_CLOSED)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED, "session to \"%s\" is closed",
                 session->hosts.hosts);
  else if (session->auth_failed)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_AUTH, "authentication to \"%s\" failed",
                 session->hosts.hosts);
  else if (g_cancellable_is_cancelled (cancellable))
    g_propagate_error (error, zkr__error_new_cancelled ("wait for the connection to \"%s\"",
                                                        session->hosts.hosts));
  else if (timeout_ms == 0 || (timeout_ms > 0 && g_get_monotonic_time () >= deadline))
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT, "could not connect to \"%s\" within %d ms",
                 session->hosts.hosts, timeout_ms);
  else
    return TRUE;
  return FALSE;
}

gboolean
zkr_session_wait_connected (ZkrSession *session, int timeout_ms, GCancellable *cancellable,
                            GError **error)
{
  gint64 deadline;
  gulong cancel_id = 0;
  gboolean connected;

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (!zkr__session_in_worker (session), FALSE);
  deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  /* Connected before taking the lock: the handler runs at once if the
   * cancellable is already cancelled, and it takes the lock. */
  if (cancellable != NULL)
    cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (wait_connected_wake), session,
                                       NULL);
  g_mutex_lock (&session->lock);
  while (!zkr__session_state_is_connected (session->state) &&
         wait_may_go_on (session, timeout_ms, deadline, cancellable, error))
    {
      if (timeout_ms < 0)
        g_cond_wait (&session->cond, &session->lock);
      else
        g_cond_wait_until (&session->cond, &session->lock, deadline);
    }
  connected = zkr__session_state_is_connected (session->state);
  g_mutex_unlock (&session->lock);
  /* Not under the lock: disconnecting waits for a handler running now. */
  if (cancel_id != 0)
    g_cancellable_disconnect (cancellable, cancel_id);
  return connected;
}

/* ---- the async wait ---------------------------------------------- */

typedef struct {
  gatomicrefcount ref;
  ZkrSession *session;       /* (owned) */
  GTask *task;               /* (owned) (nullable once answered) */
  GCancellable *cancellable; /* (owned) (nullable) */
  ZkrArmed armed;
  int timeout_ms;
  gint64 deadline;
} ConnectWait;

static gpointer
connect_wait_ref (gpointer data)
{
  ConnectWait *wait = data;

  g_atomic_ref_count_inc (&wait->ref);
  return wait;
}

static void
connect_wait_unref (gpointer data)
{
  ConnectWait *wait = data;

  if (!g_atomic_ref_count_dec (&wait->ref))
    return;
  g_clear_object (&wait->task);
  g_clear_object (&wait->cancellable);
  zkr_session_unref (wait->session);
  g_free (wait);
}

/* Worker or stand-in: answers when the session says the wait is over (the
 * one judgement the blocking wait makes too); once. */
static void
connect_wait_judge (ConnectWait *wait)
{
  ZkrSession *session = wait->session;
  GError *error = NULL;
  gboolean over;

  if (wait->task == NULL)
    return;
  g_mutex_lock (&session->lock);
  over = zkr__session_state_is_connected (session->state) ||
         !wait_may_go_on (session, wait->timeout_ms, wait->deadline, wait->cancellable, &error);
  g_mutex_unlock (&session->lock);
  if (!over)
    return;
  zkr__armed_detach (&wait->armed);
  zkr__context_return (g_steal_pointer (&wait->task), error);
  /* What the start armed held; every caller holds one of its own. */
  connect_wait_unref (wait);
}

static void
connect_wait_on_state (ZkrSession *session, ZkrSessionState state, gpointer data)
{
  (void) session;
  (void) state;
  connect_wait_judge (data);
}

static void
connect_wait_on_event (gpointer data)
{
  connect_wait_judge (data);
}

static const ZkrArmedHooks connect_wait_hooks = {
  .ref = connect_wait_ref,
  .unref = connect_wait_unref,
  .on_state = connect_wait_on_state,
  .on_deadline = connect_wait_on_event,
  .on_cancelled = connect_wait_on_event,
};

static gboolean
connect_wait_start (gpointer data)
{
  ConnectWait *wait = data;

  /* Armed, the wait holds itself until it answers. Whatever arming says
   * (cancelled, closed, lost after a failed authentication), the judgement
   * reads it from the session itself. */
  connect_wait_ref (wait);
  (void) zkr__armed_arm (&wait->armed);
  if (wait->timeout_ms > 0)
    zkr__armed_set_deadline (&wait->armed, wait->deadline);
  connect_wait_judge (wait);
  return G_SOURCE_REMOVE;
}

void
zkr_session_wait_connected_async (ZkrSession *session, int timeout_ms,
                                  GCancellable *cancellable, GAsyncReadyCallback callback,
                                  gpointer user_data)
{
  ConnectWait *wait;

  g_return_if_fail (session != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  zkr__context_assert_user ("zkr_session_wait_connected_async");
  wait = g_new0 (ConnectWait, 1);
  g_atomic_ref_count_init (&wait->ref);
  wait->session = zkr_session_ref (session);
  wait->task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (wait->task, zkr_session_wait_connected_async);
  /* The answer's own cancel names the call; connected wins over a cancel. */
  g_task_set_check_cancellable (wait->task, FALSE);
  g_task_set_task_data (wait->task, zkr_session_ref (session),
                        (GDestroyNotify) zkr_session_unref);
  wait->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  wait->timeout_ms = timeout_ms;
  wait->deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  zkr__armed_init (&wait->armed, &connect_wait_hooks, wait, session, wait->cancellable);
  zkr__armed_run_start (session, connect_wait_start, wait, connect_wait_unref);
}

gboolean
zkr_session_wait_connected_finish (ZkrSession *session, GAsyncResult *result,
                                   GError **error)
{
  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                          zkr_session_wait_connected_async, FALSE);
  g_return_val_if_fail (g_task_get_task_data (G_TASK (result)) == session, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
