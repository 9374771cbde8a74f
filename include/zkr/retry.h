/**
 * SECTION:retry
 * @title: Retry policies
 * @short_description: how often and after how long a sleep to retry
 * @include: zkr/zkr.h
 *
 * Retry policies. A policy is pure arithmetic: given how many retries
 * were made and how long it has been, may we retry, and after how long a
 * sleep? It never sleeps itself; callers wait with timers or deadlines.
 *
 * A session uses its policy (zkr_session_options_set_retry_policy()) to
 * re-open a session after LOST and for the recipes' retries.
 */
#pragma once

#include <glib.h>
#include <zkr/macros.h>

G_BEGIN_DECLS

/**
 * ZkrRetryPolicy:
 *
 * A retry policy: an opaque, reference-counted value, immutable and
 * thread-safe once made.
 *
 * Since: 0.1
 */
typedef struct _ZkrRetryPolicy ZkrRetryPolicy;

/**
 * zkr_retry_policy_exponential_new:
 * @base_sleep_ms: the longest sleep before the first retry, > 0
 * @max_sleep_ms: the cap of every sleep, >= @base_sleep_ms
 * @max_retries: how many retries at most, <= 29
 *
 * Exponential backoff with full jitter: before retry n (0-based) sleep a
 * uniformly random time in [0, min(@max_sleep_ms, @base_sleep_ms * 2^n)],
 * at most @max_retries times.
 *
 * Bad arguments (outside the ranges above) are a programming error: a
 * critical and %NULL.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): the policy; zkr_retry_policy_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrRetryPolicy *zkr_retry_policy_exponential_new (guint base_sleep_ms,
                                                         guint max_sleep_ms,
                                                         guint max_retries);

/**
 * zkr_retry_policy_n_times_new:
 * @n: how many retries
 * @sleep_ms: the sleep before each retry, in ms
 *
 * Retry @n times, sleeping @sleep_ms between tries.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): the policy; zkr_retry_policy_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrRetryPolicy *zkr_retry_policy_n_times_new (guint n, guint sleep_ms);

/**
 * zkr_retry_policy_until_elapsed_new:
 * @max_elapsed_ms: the time budget, counted from the first try, in ms
 * @sleep_ms: the sleep before each retry, in ms
 *
 * Retry while less than @max_elapsed_ms have passed since the first try,
 * sleeping @sleep_ms between tries; the sleep is cut so that it never ends
 * past the budget.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): the policy; zkr_retry_policy_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrRetryPolicy *zkr_retry_policy_until_elapsed_new (guint max_elapsed_ms,
                                                           guint sleep_ms);

/**
 * zkr_retry_policy_ref:
 * @policy: a #ZkrRetryPolicy
 *
 * Takes a reference on @policy.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @policy.
 *
 * Since: 0.1
 */
ZKR_API ZkrRetryPolicy *zkr_retry_policy_ref (ZkrRetryPolicy *policy);
/**
 * zkr_retry_policy_unref:
 * @policy: (nullable) (transfer full): a #ZkrRetryPolicy
 *
 * Drops a reference on @policy; the last one frees it. %NULL is ignored.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
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
 * Asks @policy whether one more retry is allowed, and after how long a
 * sleep. It never sleeps itself.
 *
 * Thread: any thread.
 *
 * Returns: TRUE if one more retry is allowed.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_retry_policy_allow (const ZkrRetryPolicy *policy,
                                         guint retry_count,
                                         gint64 elapsed_ms,
                                         guint32 random,
                                         guint *sleep_ms);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrRetryPolicy, zkr_retry_policy_unref)

G_END_DECLS
