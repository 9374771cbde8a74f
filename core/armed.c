/* zkr: a worker call's deadline timer, cancel handler and state listener,
 * armed and detached together (core/armed.h). */
#include "armed.h"

void
zkr__armed_init (ZkrArmed *armed, const ZkrArmedHooks *hooks, gpointer owner,
                 ZkrSession *session, GCancellable *cancellable)
{
  *armed = (ZkrArmed) { .hooks = hooks, .owner = owner, .session = session,
                        .cancellable = cancellable };
}

void
zkr__armed_run_start (ZkrSession *session, GSourceFunc start, gpointer owner,
                      GDestroyNotify unref)
{
  if (zkr__session_in_worker (session))
    {
      zkr__session_post (session, start, owner, unref);
      return;
    }
  zkr__session_stand_in_begin (session);
  (void) start (owner);
  zkr__session_stand_in_end (session);
  unref (owner);
}

static gboolean
armed_deadline_tick (gpointer data)
{
  ZkrArmed *armed = data;

  armed->deadline_timer = 0;
  armed->hooks->on_deadline (armed->owner);
  return G_SOURCE_REMOVE;
}

static gboolean
armed_cancel_in_worker (gpointer data)
{
  ZkrArmed *armed = data;

  armed->hooks->on_cancelled (armed->owner);
  return G_SOURCE_REMOVE;
}

static void
armed_post_free (gpointer data)
{
  ZkrArmed *armed = data;

  armed->hooks->unref (armed->owner);
}

/* The cancelling thread (any): only posts (GCancellable's rule). The post
 * holds the owner, in which @armed lives. */
static void
armed_on_cancelled (GCancellable *cancellable, gpointer data)
{
  ZkrArmed *armed = data;

  (void) cancellable;
  armed->hooks->ref (armed->owner);
  zkr__session_post (armed->session, armed_cancel_in_worker, armed, armed_post_free);
}

ZkrArmedStart
zkr__armed_arm (ZkrArmed *armed)
{
  ZkrSessionState state = zkr_session_get_state (armed->session);

  armed->listener_id = zkr__session_add_internal_listener (armed->session,
                                                           armed->hooks->on_state,
                                                           armed->owner);
  if (armed->cancellable != NULL)
    armed->cancel_id = g_cancellable_connect (armed->cancellable,
                                              G_CALLBACK (armed_on_cancelled), armed, NULL);
  if (armed->cancellable != NULL && g_cancellable_is_cancelled (armed->cancellable))
    return ZKR_ARMED_CANCELLED;
  if (state == ZKR_SESSION_STATE_CLOSED)
    return ZKR_ARMED_CLOSED;
  if (state == ZKR_SESSION_STATE_LOST)
    return ZKR_ARMED_LOST;
  return ZKR_ARMED_GO;
}

void
zkr__armed_set_deadline (ZkrArmed *armed, gint64 deadline)
{
  gint64 left_us;

  if (deadline == G_MAXINT64)
    return;
  left_us = MAX (deadline - g_get_monotonic_time (), 0);
  armed->deadline_timer = zkr__session_timer_add (armed->session,
                                                  (guint) ((left_us + 999) / 1000), 0,
                                                  armed_deadline_tick, armed);
}

void
zkr__armed_detach (ZkrArmed *armed)
{
  zkr__session_timer_clear (armed->session, &armed->deadline_timer);
  if (armed->listener_id != 0)
    zkr__session_remove_internal_listener (armed->session, armed->listener_id);
  armed->listener_id = 0;
  /* The handler only posts, so this never waits for long. */
  if (armed->cancel_id != 0)
    g_cancellable_disconnect (armed->cancellable, armed->cancel_id);
  armed->cancel_id = 0;
}
