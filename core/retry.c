/* zkr: retry policies (include/zkr/retry.h). Pure arithmetic: the caller
 * supplies the retry count, the elapsed time and the randomness, and does
 * the waiting itself; so every policy is deterministic under test. */

#include <zkr/retry.h>

typedef enum {
  RETRY_EXPONENTIAL,
  RETRY_N_TIMES,
  RETRY_UNTIL_ELAPSED,
} RetryKind;

/* Immutable after construction, hence safe to share between threads. */
struct _ZkrRetryPolicy {
  gatomicrefcount ref_count;
  RetryKind kind;
  guint base_sleep_ms;     /* exponential */
  guint max_sleep_ms;      /* exponential */
  guint max_retries;       /* exponential, n-times */
  guint sleep_ms;          /* n-times, until-elapsed */
  guint max_elapsed_ms;    /* until-elapsed */
};

/* 2^29 * base still fits a guint64 with room; the doc promises <= 29. */
#define EXPONENTIAL_MAX_RETRIES 29

static ZkrRetryPolicy *
retry_policy_new (RetryKind kind)
{
  ZkrRetryPolicy *policy = g_new0 (ZkrRetryPolicy, 1);

  g_atomic_ref_count_init (&policy->ref_count);
  policy->kind = kind;
  return policy;
}

ZkrRetryPolicy *
zkr_retry_policy_exponential_new (guint base_sleep_ms,
                                  guint max_sleep_ms,
                                  guint max_retries)
{
  ZkrRetryPolicy *policy;

  g_return_val_if_fail (base_sleep_ms > 0, NULL);
  g_return_val_if_fail (max_sleep_ms >= base_sleep_ms, NULL);
  g_return_val_if_fail (max_retries <= EXPONENTIAL_MAX_RETRIES, NULL);

  policy = retry_policy_new (RETRY_EXPONENTIAL);
  policy->base_sleep_ms = base_sleep_ms;
  policy->max_sleep_ms = max_sleep_ms;
  policy->max_retries = max_retries;
  return policy;
}

ZkrRetryPolicy *
zkr_retry_policy_n_times_new (guint n, guint sleep_ms)
{
  ZkrRetryPolicy *policy = retry_policy_new (RETRY_N_TIMES);

  policy->max_retries = n;
  policy->sleep_ms = sleep_ms;
  return policy;
}

ZkrRetryPolicy *
zkr_retry_policy_until_elapsed_new (guint max_elapsed_ms, guint sleep_ms)
{
  ZkrRetryPolicy *policy = retry_policy_new (RETRY_UNTIL_ELAPSED);

  policy->max_elapsed_ms = max_elapsed_ms;
  policy->sleep_ms = sleep_ms;
  return policy;
}

ZkrRetryPolicy *
zkr_retry_policy_ref (ZkrRetryPolicy *policy)
{
  g_return_val_if_fail (policy != NULL, NULL);

  g_atomic_ref_count_inc (&policy->ref_count);
  return policy;
}

void
zkr_retry_policy_unref (ZkrRetryPolicy *policy)
{
  if (policy == NULL)
    return;
  if (g_atomic_ref_count_dec (&policy->ref_count))
    g_free (policy);
}

/* Full jitter (the "Exponential Backoff And Jitter" scheme): a uniform
 * sleep in [0, min(cap, base * 2^n)], so that clients that failed together
 * do not retry together. random * (ceiling + 1) / 2^32 maps the 32-bit
 * input onto the closed range; it cannot overflow 64 bits because
 * ceiling + 1 <= 2^32. */
static guint
exponential_sleep (const ZkrRetryPolicy *policy, guint retry_count, guint32 random)
{
  guint64 ceiling = (guint64) policy->base_sleep_ms << retry_count;

  ceiling = MIN (ceiling, (guint64) policy->max_sleep_ms);
  return (guint) (((guint64) random * (ceiling + 1)) >> 32);
}

static gboolean
exponential_allow (const ZkrRetryPolicy *policy,
                   guint retry_count,
                   guint32 random,
                   guint *sleep_ms)
{
  if (retry_count >= policy->max_retries)
    return FALSE;
  *sleep_ms = exponential_sleep (policy, retry_count, random);
  return TRUE;
}

/* The sleep is cut so that the retry is still inside the budget. */
static gboolean
until_elapsed_allow (const ZkrRetryPolicy *policy,
                     gint64 elapsed_ms,
                     guint *sleep_ms)
{
  gint64 remaining = (gint64) policy->max_elapsed_ms - elapsed_ms;

  if (remaining <= 0)
    return FALSE;
  *sleep_ms = (guint) MIN ((gint64) policy->sleep_ms, remaining);
  return TRUE;
}

gboolean
zkr_retry_policy_allow (const ZkrRetryPolicy *policy,
                        guint retry_count,
                        gint64 elapsed_ms,
                        guint32 random,
                        guint *sleep_ms)
{
  guint sleep = 0;
  gboolean allowed = FALSE;

  if (sleep_ms != NULL)
    *sleep_ms = 0;
  g_return_val_if_fail (policy != NULL, FALSE);
  g_return_val_if_fail (elapsed_ms >= 0, FALSE);

  switch (policy->kind)
    {
    case RETRY_EXPONENTIAL:
      allowed = exponential_allow (policy, retry_count, random, &sleep);
      break;
    case RETRY_N_TIMES:
      allowed = retry_count < policy->max_retries;
      sleep = allowed ? policy->sleep_ms : 0;
      break;
    case RETRY_UNTIL_ELAPSED:
      allowed = until_elapsed_allow (policy, elapsed_ms, &sleep);
      break;
    default:
      g_assert_not_reached ();
    }
  if (sleep_ms != NULL)
    *sleep_ms = sleep;
  return allowed;
}
