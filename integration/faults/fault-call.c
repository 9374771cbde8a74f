/* zkr fault suite: the client programs' shared pieces (fault-call.h): the
 * bounded call's timer thread, the outcome's name, the session id file. */

#include <inttypes.h>
#include <stdio.h>

#include "fault-call.h"
#include "session-private.h"

/* @timer->lock held: sleeps until the call's first bound (its planned
 * cancel, else its deadline), cancels when planned, then wakes every tick
 * until the call answers. Each wake-up's lateness is time this process did
 * not run although it should have: their sum is the part of a late answer
 * that no library could have avoided. */
static void
timer_serve (FaultCallTimer *timer, FaultCall *call)
{
  gint64 planned = call->cancel_at != 0 ? call->cancel_at : call->deadline;

  while (!call->answered)
    {
      gint64 now;

      g_cond_wait_until (&timer->cond, &timer->lock, planned);
      now = g_get_monotonic_time ();
      if (now < planned)
        continue;
      call->timer_late_max = MAX (call->timer_late_max, now - planned);
      call->timer_late_sum += now - planned;
      if (!call->answered && planned == call->cancel_at && call->t_cancel == 0)
        {
          /* Unlocked: the library's cancel handlers run right here. */
          call->t_cancel = now;
          g_mutex_unlock (&timer->lock);
          g_cancellable_cancel (call->cancellable);
          g_mutex_lock (&timer->lock);
        }
      planned = now + FAULT_CALL_TICK_US;
    }
}

static gpointer
timer_main (gpointer data)
{
  FaultCallTimer *timer = data;

  g_mutex_lock (&timer->lock);
  while (!timer->quit)
    {
      if (timer->call == NULL)
        {
          g_cond_wait (&timer->cond, &timer->lock);
          continue;
        }
      timer_serve (timer, timer->call);
      timer->call = NULL;
      g_cond_broadcast (&timer->cond);
    }
  g_mutex_unlock (&timer->lock);
  return NULL;
}

void
fault_call_timer_start (FaultCallTimer *timer)
{
  g_mutex_init (&timer->lock);
  g_cond_init (&timer->cond);
  timer->call = NULL;
  timer->quit = FALSE;
  timer->thread = g_thread_new ("fault-timer", timer_main, timer);
}

void
fault_call_timer_stop (FaultCallTimer *timer)
{
  if (timer->thread == NULL)
    return;
  g_mutex_lock (&timer->lock);
  timer->quit = TRUE;
  g_cond_broadcast (&timer->cond);
  g_mutex_unlock (&timer->lock);
  g_thread_join (g_steal_pointer (&timer->thread));
  g_mutex_clear (&timer->lock);
  g_cond_clear (&timer->cond);
}

void
fault_call_begin (FaultCallTimer *timer, FaultCall *call)
{
  g_mutex_lock (&timer->lock);
  call->t_start = g_get_monotonic_time ();
  call->deadline = call->t_start + (gint64) call->timeout_ms * 1000;
  if (call->cancel_after_us >= 0)
    call->cancel_at = call->t_start + MAX (call->cancel_after_us, 1);
  timer->call = call;
  g_cond_broadcast (&timer->cond);
  g_mutex_unlock (&timer->lock);
}

void
fault_call_end (FaultCallTimer *timer, FaultCall *call)
{
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&timer->lock);
  call->t_answer = now;
  call->answered = TRUE;
  g_cond_broadcast (&timer->cond);
  while (timer->call == call)
    g_cond_wait (&timer->cond, &timer->lock);
  g_mutex_unlock (&timer->lock);
}

const char *
fault_call_outcome (gboolean ok, const GError *error)
{
  if (ok)
    return "granted";
  /* A cancelled call fails in GIO's domain (include/zkr/error.h). */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return "cancelled";
  if (error == NULL || error->domain != ZKR_ERROR)
    return "other";
  if (error->code == ZKR_ERROR_TIMEOUT)
    return "timeout";
  return zkr_error_code_name ((ZkrError) error->code);
}

void
fault_publish_session (ZkrSession *session, const char *sid_path)
{
  clientid_t client;
  g_autofree char *hex = NULL;
  g_autofree char *text = NULL;
  g_autofree char *tmp = g_strconcat (sid_path, ".tmp", NULL);

  if (!zkr__session_test_copy_client_id (session, &client))
    return;
  hex = g_malloc0 (2 * sizeof client.passwd + 1);
  for (gsize i = 0; i < sizeof client.passwd; i++)
    g_snprintf (hex + 2 * i, 3, "%02x", (guint8) client.passwd[i]);
  text = g_strdup_printf ("%" PRIx64 " %s\n", (uint64_t) client.client_id, hex);
  if (g_file_set_contents (tmp, text, -1, NULL))
    rename (tmp, sid_path);
}
