/* zkr tests: the queue engine's test hooks (queue-lock.h declares them),
 * totals of what acquires did in this process. Built into the tests' hooks
 * library (zkr_internal_dep), never into libzkr; the counting stays in the
 * engine (queue-private.h, ZKR_QUEUE_COUNT). */

#include "queue-private.h"

static guint
count_get (guint *field)
{
  return __atomic_load_n (field, __ATOMIC_RELAXED);
}

guint
zkr__queue_test_get_watch_wakeups (void)
{
  return count_get (&zkr__queue_counts.watch_wakeups);
}

guint
zkr__queue_test_get_listings (void)
{
  return count_get (&zkr__queue_counts.listings);
}

guint
zkr__queue_test_get_listings_after_no_node (void)
{
  return count_get (&zkr__queue_counts.listings_after_no_node);
}

guint
zkr__queue_test_get_own_checks (void)
{
  return count_get (&zkr__queue_counts.own_checks);
}
