/* Unit tests of core/retry.c: the arithmetic of each policy, which is all
 * a policy is; the randomness is an input, so every case is exact. */

#include <zkr/retry.h>

#include "zkr-test.h"

/* What sleep_for() returns when the retry is refused (and the sleep was
 * set to 0, as it must be; REFUSED_DIRTY when it was not). */
#define REFUSED ((gint64) -1)
#define REFUSED_DIRTY ((gint64) -2)

/* The sleep allowed before retry @n, or REFUSED. */
static gint64
sleep_for (const ZkrRetryPolicy *policy, guint n, gint64 elapsed_ms, guint32 random)
{
  guint sleep_ms = 4242;

  if (!zkr_retry_policy_allow (policy, n, elapsed_ms, random, &sleep_ms))
    return sleep_ms == 0 ? REFUSED : REFUSED_DIRTY;
  return sleep_ms;
}

static void
test_retry__exponential_jitter_spans_zero_to_ceiling (void)
{
  g_autoptr (ZkrRetryPolicy) policy = zkr_retry_policy_exponential_new (100, 5000, 10);
  static const guint ceiling[] = { 100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000 };
  guint n;

  CU_ASSERT_PTR_NOT_NULL_FATAL (policy);
  for (n = 0; n < G_N_ELEMENTS (ceiling); n++)
    {
      CU_ASSERT_EQUAL (sleep_for (policy, n, 0, 0), 0);
      CU_ASSERT_EQUAL (sleep_for (policy, n, 0, G_MAXUINT32), ceiling[n]);
      /* The middle of the 32-bit range is the middle of [0, ceiling]. */
      CU_ASSERT_EQUAL (sleep_for (policy, n, 0, 0x80000000u), (ceiling[n] + 1) / 2);
    }
}

static void
test_retry__exponential_stays_in_bounds_for_any_random (void)
{
  g_autoptr (ZkrRetryPolicy) policy = zkr_retry_policy_exponential_new (7, 1000, 12);
  g_autoptr (GRand) rand = g_rand_new_with_seed (4711);
  guint n, i;

  for (n = 0; n < 12; n++)
    {
      guint ceiling = MIN (1000u, 7u << n);
      gint64 sum = 0;
      gint64 lowest = G_MAXINT64, highest = -1;

      for (i = 0; i < 10000; i++)
        {
          gint64 sleep_ms = sleep_for (policy, n, 0, g_rand_int (rand));

          CU_ASSERT (sleep_ms >= 0 && sleep_ms <= ceiling);
          lowest = MIN (lowest, sleep_ms);
          highest = MAX (highest, sleep_ms);
          sum += sleep_ms;
        }
      /* Full jitter: the whole range is used, centred on ceiling / 2
       * (a fixed seed makes this exact, not a statistical hope). */
      CU_ASSERT_EQUAL (lowest, 0);
      CU_ASSERT_EQUAL (highest, ceiling);
      CU_ASSERT (sum / 10000.0 > ceiling * 0.45 && sum / 10000.0 < ceiling * 0.55);
    }
}

static void
test_retry__exponential_is_monotonic_in_random (void)
{
  g_autoptr (ZkrRetryPolicy) policy = zkr_retry_policy_exponential_new (3, 3000, 10);
  guint32 random;
  gint64 previous = 0;

  for (random = 0; random < 0xfff00000u; random += 0x00100000u)
    {
      gint64 sleep_ms = sleep_for (policy, 9, 0, random);

      CU_ASSERT (sleep_ms >= previous);
      previous = sleep_ms;
    }
}

static void
test_retry__exponential_refuses_after_max_retries (void)
{
  g_autoptr (ZkrRetryPolicy) policy = zkr_retry_policy_exponential_new (100, 5000, 3);
  g_autoptr (ZkrRetryPolicy) never = zkr_retry_policy_exponential_new (100, 100, 0);

  CU_ASSERT_NOT_EQUAL (sleep_for (policy, 2, 0, 1), REFUSED);
  /* Refused, and the out value is 0 then. */
  CU_ASSERT_EQUAL (sleep_for (policy, 3, 0, 1), REFUSED);
  CU_ASSERT_EQUAL (sleep_for (policy, 1000, 0, 1), REFUSED);
  CU_ASSERT_EQUAL (sleep_for (never, 0, 0, G_MAXUINT32), REFUSED);
  /* Elapsed time plays no part. */
  CU_ASSERT_EQUAL (sleep_for (policy, 0, G_MAXINT64, G_MAXUINT32), 100);
}

static void
test_retry__exponential_caps_without_overflow (void)
{
  g_autoptr (ZkrRetryPolicy) big = zkr_retry_policy_exponential_new (G_MAXUINT, G_MAXUINT, 29);
  g_autoptr (ZkrRetryPolicy) capped = zkr_retry_policy_exponential_new (1000, 1500, 29);

  CU_ASSERT_EQUAL (sleep_for (big, 28, 0, G_MAXUINT32), G_MAXUINT);
  CU_ASSERT_EQUAL (sleep_for (big, 0, 0, G_MAXUINT32), G_MAXUINT);
  CU_ASSERT_EQUAL (sleep_for (big, 28, 0, 0), 0);
  CU_ASSERT_EQUAL (sleep_for (capped, 0, 0, G_MAXUINT32), 1000);
  CU_ASSERT_EQUAL (sleep_for (capped, 1, 0, G_MAXUINT32), 1500);
  CU_ASSERT_EQUAL (sleep_for (capped, 28, 0, G_MAXUINT32), 1500);
}

static void
test_retry__exponential_is_deterministic (void)
{
  g_autoptr (ZkrRetryPolicy) one = zkr_retry_policy_exponential_new (50, 10000, 20);
  g_autoptr (ZkrRetryPolicy) two = zkr_retry_policy_exponential_new (50, 10000, 20);
  guint n;

  for (n = 0; n < 20; n++)
    {
      guint32 random = 0x9e3779b9u * (n + 1);

      CU_ASSERT_EQUAL (sleep_for (one, n, 0, random), sleep_for (two, n, 0, random));
      CU_ASSERT_EQUAL (sleep_for (one, n, 0, random), sleep_for (one, n, 12345, random));
    }
}

static void
test_retry__exponential_refuses_bad_arguments (void)
{
  ZkrRetryPolicy *policy = (ZkrRetryPolicy *) &policy;

  ZKR_TEST_EXPECT_ONE_CRITICAL (policy = zkr_retry_policy_exponential_new (0, 100, 3));
  CU_ASSERT_PTR_NULL (policy);
  ZKR_TEST_EXPECT_ONE_CRITICAL (policy = zkr_retry_policy_exponential_new (100, 99, 3));
  CU_ASSERT_PTR_NULL (policy);
  ZKR_TEST_EXPECT_ONE_CRITICAL (policy = zkr_retry_policy_exponential_new (100, 1000, 30));
  CU_ASSERT_PTR_NULL (policy);
  policy = zkr_retry_policy_exponential_new (100, 100, 29);
  CU_ASSERT_PTR_NOT_NULL (policy);
  zkr_retry_policy_unref (policy);
}

static void
test_retry__n_times_allows_exactly_n (void)
{
  g_autoptr (ZkrRetryPolicy) policy = zkr_retry_policy_n_times_new (3, 250);
  g_autoptr (ZkrRetryPolicy) never = zkr_retry_policy_n_times_new (0, 250);
  guint n, allowed = 0;

  for (n = 0; n < 10; n++)
    {
      gint64 sleep_ms = sleep_for (policy, n, 0, (guint32) n);

      if (sleep_ms != REFUSED)
        {
          CU_ASSERT_EQUAL (sleep_ms, 250);
          allowed++;
        }
    }
  CU_ASSERT_EQUAL (allowed, 3);
  CU_ASSERT_EQUAL (sleep_for (policy, 2, G_MAXINT64, G_MAXUINT32), 250);
  CU_ASSERT_EQUAL (sleep_for (never, 0, 0, 0), REFUSED);
}

static void
test_retry__until_elapsed_cuts_last_sleep_at_budget (void)
{
  g_autoptr (ZkrRetryPolicy) policy = zkr_retry_policy_until_elapsed_new (1000, 300);

  CU_ASSERT_EQUAL (sleep_for (policy, 0, 0, 0), 300);
  CU_ASSERT_EQUAL (sleep_for (policy, 50, 700, 0), 300);
  CU_ASSERT_EQUAL (sleep_for (policy, 1, 800, 0), 200);
  CU_ASSERT_EQUAL (sleep_for (policy, 1, 999, G_MAXUINT32), 1);
  CU_ASSERT_EQUAL (sleep_for (policy, 0, 1000, 0), REFUSED);
  CU_ASSERT_EQUAL (sleep_for (policy, 0, 5000, 0), REFUSED);
  CU_ASSERT_EQUAL (sleep_for (policy, 0, G_MAXINT64, 0), REFUSED);
}

static void
test_retry__until_elapsed_retries_until_budget_is_spent (void)
{
  g_autoptr (ZkrRetryPolicy) policy = zkr_retry_policy_until_elapsed_new (1000, 300);
  g_autoptr (ZkrRetryPolicy) none = zkr_retry_policy_until_elapsed_new (0, 300);
  gint64 elapsed = 0;
  guint retries = 0, sleep_ms;

  /* A caller that sleeps as told and whose tries take no time. */
  while (zkr_retry_policy_allow (policy, retries, elapsed, 0, &sleep_ms))
    {
      elapsed += sleep_ms;
      retries++;
      CU_ASSERT_FATAL (retries < 100);
    }
  CU_ASSERT_EQUAL (retries, 4);   /* 300 + 300 + 300 + 100 */
  CU_ASSERT_EQUAL (elapsed, 1000);
  CU_ASSERT_EQUAL (sleep_ms, 0);
  CU_ASSERT_EQUAL (sleep_for (none, 0, 0, 0), REFUSED);
}

static void
test_retry__allow_refuses_bad_arguments (void)
{
  g_autoptr (ZkrRetryPolicy) policy = zkr_retry_policy_n_times_new (3, 10);
  gboolean allowed = TRUE;
  guint sleep_ms = 99;

  ZKR_TEST_EXPECT_ONE_CRITICAL (allowed = zkr_retry_policy_allow (NULL, 0, 0, 0, &sleep_ms));
  CU_ASSERT_FALSE (allowed);
  CU_ASSERT_EQUAL (sleep_ms, 0);
  allowed = TRUE;
  ZKR_TEST_EXPECT_ONE_CRITICAL (allowed = zkr_retry_policy_allow (policy, 0, -1, 0, NULL));
  CU_ASSERT_FALSE (allowed);
  /* sleep_ms is optional. */
  CU_ASSERT_TRUE (zkr_retry_policy_allow (policy, 0, 0, 0, NULL));
}

static void
test_retry__ref_and_unref (void)
{
  ZkrRetryPolicy *policy = zkr_retry_policy_n_times_new (2, 5);
  ZkrRetryPolicy *null_ref = (ZkrRetryPolicy *) &policy;

  CU_ASSERT_PTR_EQUAL (zkr_retry_policy_ref (policy), policy);
  zkr_retry_policy_unref (policy);
  /* Still alive: one reference left. */
  CU_ASSERT_EQUAL (sleep_for (policy, 1, 0, 0), 5);
  zkr_retry_policy_unref (policy);
  zkr_retry_policy_unref (NULL);
  ZKR_TEST_EXPECT_ONE_CRITICAL (null_ref = zkr_retry_policy_ref (NULL));
  CU_ASSERT_PTR_NULL (null_ref);
}

static gpointer
ref_unref_loop (gpointer data)
{
  ZkrRetryPolicy *policy = data;
  int i;

  for (i = 0; i < 20000; i++)
    zkr_retry_policy_unref (zkr_retry_policy_ref (policy));
  return NULL;
}

static void
test_retry__ref_count_is_thread_safe (void)
{
  ZkrRetryPolicy *policy = zkr_retry_policy_exponential_new (10, 100, 5);
  GThread *threads[4];
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("ref-unref", ref_unref_loop, policy);
  for (i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  /* The one reference left is ours: the policy still answers. */
  CU_ASSERT_EQUAL (sleep_for (policy, 0, 0, G_MAXUINT32), 10);
  zkr_retry_policy_unref (policy);
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_retry__exponential_jitter_spans_zero_to_ceiling),
    ZKR_TEST_CASE (test_retry__exponential_stays_in_bounds_for_any_random),
    ZKR_TEST_CASE (test_retry__exponential_is_monotonic_in_random),
    ZKR_TEST_CASE (test_retry__exponential_refuses_after_max_retries),
    ZKR_TEST_CASE (test_retry__exponential_caps_without_overflow),
    ZKR_TEST_CASE (test_retry__exponential_is_deterministic),
    ZKR_TEST_CASE (test_retry__exponential_refuses_bad_arguments),
    ZKR_TEST_CASE (test_retry__n_times_allows_exactly_n),
    ZKR_TEST_CASE (test_retry__until_elapsed_cuts_last_sleep_at_budget),
    ZKR_TEST_CASE (test_retry__until_elapsed_retries_until_budget_is_spent),
    ZKR_TEST_CASE (test_retry__allow_refuses_bad_arguments),
    ZKR_TEST_CASE (test_retry__ref_and_unref),
    ZKR_TEST_CASE (test_retry__ref_count_is_thread_safe),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "retry", NULL, NULL, tests);
}
