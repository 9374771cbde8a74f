/* zkr: ZkrWait, a one-shot hand-off to a blocked thread. */

#include "wait.h"

void
zkr__wait_init (ZkrWait *wait)
{
  g_mutex_init (&wait->lock);
  g_cond_init (&wait->cond);
  wait->done = FALSE;
  wait->kicked = FALSE;
  wait->sleeping = FALSE;
}

void
zkr__wait_sleep_locked (ZkrWait *wait)
{
  wait->sleeping = TRUE;
  g_cond_wait (&wait->cond, &wait->lock);
  wait->sleeping = FALSE;
}

gboolean
zkr__wait_sleep_until_locked (ZkrWait *wait, gint64 end_time)
{
  gboolean woken;

  if (end_time == G_MAXINT64)
    {
      zkr__wait_sleep_locked (wait);
      return TRUE;
    }
  wait->sleeping = TRUE;
  woken = g_cond_wait_until (&wait->cond, &wait->lock, end_time);
  wait->sleeping = FALSE;
  return woken;
}

void
zkr__wait_wake_locked (ZkrWait *wait)
{
  if (wait->sleeping)
    g_cond_signal (&wait->cond);
}

void
zkr__wait_done (ZkrWait *wait)
{
  g_mutex_lock (&wait->lock);
  wait->done = TRUE;
  zkr__wait_wake_locked (wait);
  g_mutex_unlock (&wait->lock);
}

void
zkr__wait_block (ZkrWait *wait)
{
  g_mutex_lock (&wait->lock);
  while (!wait->done)
    zkr__wait_sleep_locked (wait);
  g_mutex_unlock (&wait->lock);
  g_mutex_clear (&wait->lock);
  g_cond_clear (&wait->cond);
}
