/* zkr: the resend pause (core/nodes.h): how long a request a connected
 * server answered "retry" waits before it goes again, growing from an
 * immediate resend to a second. */

#include "nodes.h"

#define RESEND_FIRST_PAUSE_MS 10
#define RESEND_MAX_PAUSE_MS 1000

static gint delayed_pauses; /* atomic */

void
zkr__resend_pause_start (ZkrResendPause *pause, ZkrSession *session, GSourceFunc func,
                         gpointer data)
{
  guint ms;

  g_return_if_fail (pause->timer == 0);
  ms = pause->resends == 0 ? 0
                           : MIN (RESEND_FIRST_PAUSE_MS << MIN (pause->resends - 1, 7),
                                  RESEND_MAX_PAUSE_MS);
  pause->resends++;
  if (ms > 0)
    g_atomic_int_inc (&delayed_pauses);
  pause->session = session;
  pause->timer = zkr__session_timer_add (session, ms, 0, func, data);
}

void
zkr__resend_pause_stop (ZkrResendPause *pause, gboolean reset)
{
  /* From the pause's own callback the timer has run already: removing
   * its id is then a no-op. */
  zkr__session_timer_clear (pause->session, &pause->timer);
  if (reset)
    pause->resends = 0;
}

gboolean
zkr__resend_pause_is_pending (const ZkrResendPause *pause)
{
  return pause->timer != 0;
}

guint
zkr__resend_pause_test_count_delayed (void)
{
  return (guint) g_atomic_int_get (&delayed_pauses);
}
