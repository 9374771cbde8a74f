/* zkr unit tests: the log of lettered steps that the executor's and the
 * context's tests share (test-steps.h). */

#include "test-steps.h"

#define WAIT_US (10 * G_USEC_PER_SEC)

void
step_log_init (StepLog *log)
{
  g_mutex_init (&log->lock);
  g_cond_init (&log->cond);
  log->order = g_string_new (NULL);
  log->destroyed = 0;
  log->ran_on = NULL;
}

void
step_log_clear (StepLog *log)
{
  g_string_free (log->order, TRUE);
  g_mutex_clear (&log->lock);
  g_cond_clear (&log->cond);
}

void
step_log_append (StepLog *log, char letter)
{
  g_mutex_lock (&log->lock);
  g_string_append_c (log->order, letter);
  log->ran_on = g_thread_self ();
  g_cond_broadcast (&log->cond);
  g_mutex_unlock (&log->lock);
}

gsize
step_log_count (StepLog *log)
{
  gsize count;

  g_mutex_lock (&log->lock);
  count = log->order->len;
  g_mutex_unlock (&log->lock);
  return count;
}

gboolean
step_log_wait_count (StepLog *log, gsize count)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;
  gboolean reached;

  g_mutex_lock (&log->lock);
  while (log->order->len < count && g_cond_wait_until (&log->cond, &log->lock, deadline))
    ;
  reached = log->order->len >= count;
  g_mutex_unlock (&log->lock);
  return reached;
}

char *
step_log_dup_order (StepLog *log)
{
  char *order;

  g_mutex_lock (&log->lock);
  order = g_strdup (log->order->str);
  g_mutex_unlock (&log->lock);
  return order;
}

Step *
step_new (StepLog *log, char letter)
{
  Step *step = g_new (Step, 1);

  step->log = log;
  step->letter = letter;
  return step;
}

void
step_destroy (gpointer data)
{
  Step *step = data;

  g_mutex_lock (&step->log->lock);
  step->log->destroyed++;
  g_cond_broadcast (&step->log->cond);
  g_mutex_unlock (&step->log->lock);
  g_free (step);
}
