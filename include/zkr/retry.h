/* zkr: retry policies. A policy is pure arithmetic: given how many retries
 * were made and how long it has been, may we retry, and after how long a
 * sleep? It never sleeps itself; callers wait with timers or deadlines. */
#pragma once

#include <glib.h>
#include <zkr/macros.h>

G_BEGIN_DECLS

/* Immutable and thread-safe once made; reference-counted. */
typedef struct _ZkrRetryPolicy ZkrRetryPolicy;

/* Exponential backoff with full jitter: before retry n (0-based) sleep a
 * uniformly random time in [0, min(max_sleep_ms, base_sleep_ms * 2^n)],
 * at most @max_retries times. base_sleep_ms > 0, max_sleep_ms >=
 * base_sleep_ms, max_retries <= 29. Returns NULL with a critical on bad
 * arguments. (transfer full) */
ZKR_API ZkrRetryPolicy *zkr_retry_policy_exponential_new (guint base_sleep_ms,
                                                         guint max_sleep_ms,
                                                         guint max_retries);

/* Retry @n times, sleeping @sleep_ms between tries. (transfer full) */
ZKR_API ZkrRetryPolicy *zkr_retry_policy_n_times_new (guint n, guint sleep_ms);

/* Retry while less than @max_elapsed_ms have passed since the first try,
 * sleeping @sleep_ms between tries; the sleep is cut so that it never ends
 * past the budget. (transfer full) */
ZKR_API ZkrRetryPolicy *zkr_retry_policy_until_elapsed_new (guint max_elapsed_ms,
                                                           guint sleep_ms);

ZKR_API ZkrRetryPolicy *zkr_retry_policy_ref (ZkrRetryPolicy *policy);
ZKR_API void zkr_retry_policy_unref (ZkrRetryPolicy *policy);

/**
 * zkr_retry_policy_allow:
 * @policy: the policy
 * @retry_count: retries already made (0 before the first retry)
 * @elapsed_ms: time since the first try, in milliseconds (>= 0)
 * @random: a uniformly random 32-bit value (the jitter source; pure code
 *   takes it as input so that tests are deterministic)
 * @sleep_ms: (out) (optional): how long to sleep before the retry
 *
 * Returns: TRUE if one more retry is allowed.
 */
ZKR_API gboolean zkr_retry_policy_allow (const ZkrRetryPolicy *policy,
                                         guint retry_count,
                                         gint64 elapsed_ms,
                                         guint32 random,
                                         guint *sleep_ms);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrRetryPolicy, zkr_retry_policy_unref)

G_END_DECLS
