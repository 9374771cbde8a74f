/* zkr: the wait of a request before it goes again (core/nodes.h): for the
 * session to be connected again, or, connected, for a resend pause,
 * listening to the session meanwhile. Worker thread. */

#include "nodes.h"

void
zkr__resend_wait_cancel (ZkrResendWait *wait)
{
  if (wait->listener_id != 0)
    zkr__session_remove_internal_listener (wait->session, wait->listener_id);
  wait->listener_id = 0;
  zkr__resend_pause_stop (&wait->pause, FALSE);
}

static void
resend_wait_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ZkrResendWait *wait = user_data;

  (void) session;
  if (state == ZKR_SESSION_STATE_CONNECTED || state == ZKR_SESSION_STATE_RECONNECTED)
    {
      zkr__resend_wait_cancel (wait);
      zkr__resend_pause_stop (&wait->pause, TRUE);
      wait->on_connected (wait->owner);
    }
  else if (state == ZKR_SESSION_STATE_CLOSED)
    {
      zkr__resend_wait_cancel (wait);
      wait->on_closed (wait->owner);
    }
  else if (state == ZKR_SESSION_STATE_LOST && wait->on_lost != NULL)
    {
      zkr__resend_wait_cancel (wait);
      wait->on_lost (wait->owner);
    }
}

static gboolean
resend_wait_pause_done (gpointer data)
{
  ZkrResendWait *wait = data;

  zkr__resend_wait_cancel (wait);
  wait->on_connected (wait->owner);
  return G_SOURCE_REMOVE;
}

/* Runs on_connected after a resend pause if connected, else at the next
 * (RE)CONNECTED. */
void
zkr__resend_wait_start (ZkrResendWait *wait)
{
  g_assert (wait->listener_id == 0);
  /* Check and registration both happen on the worker, where transitions
   * happen, so no transition can fall between them. */
  if (zkr_session_is_connected (wait->session))
    zkr__resend_pause_start (&wait->pause, wait->session, resend_wait_pause_done, wait);
  wait->listener_id = zkr__session_add_internal_listener (wait->session, resend_wait_on_state, wait);
}
