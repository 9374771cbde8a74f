/* zkr unit: the queue engine's mutex predicate and the Curator sort it
 * relies on, on hand-made listings. */

#include <CUnit/CUnit.h>

#include "queue-lock.h"
#include "nodename.h"
#include "zkr-test.h"

static GPtrArray *
listing (const char *const *names)
{
  GPtrArray *array = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; names[i] != NULL; i++)
    g_ptr_array_add (array, g_strdup (names[i]));
  (void) zkr__queue_mutex_recipe.sort (array, zkr__queue_mutex_recipe.lock_name, NULL);
  return array;
}

static guint
index_of (GPtrArray *array, const char *name)
{
  for (guint i = 0; i < array->len; i++)
    if (g_str_equal (g_ptr_array_index (array, i), name))
      return i;
  CU_FAIL ("name not in listing");
  return 0;
}

static void
test_queue_lock__first_in_line_holds (void)
{
  const char *names[] = { "_c_a8b4d2e0-0000-4000-8000-000000000001-lock-0000000007", NULL };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on = NULL;

  CU_ASSERT_TRUE (zkr__queue_lock_predicate_first (sorted, 0, &wait_on, NULL));
  CU_ASSERT_PTR_NULL (wait_on);
}

/* The protected prefix is random: order comes from the sequence only, so a
 * waiter watches the node with the next lower sequence, whatever its uuid. */
static void
test_queue_lock__waiter_waits_on_its_predecessor_by_sequence (void)
{
  const char *names[] = {
    "_c_ffffffff-0000-4000-8000-000000000001-lock-0000000003",
    "_c_00000000-0000-4000-8000-000000000002-lock-0000000005",
    "lock-0000000004",
    "_c_77777777-0000-4000-8000-000000000003-lock-0000000001",
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on = NULL;
  guint ours = index_of (sorted, "_c_00000000-0000-4000-8000-000000000002-lock-0000000005");

  CU_ASSERT_EQUAL (ours, 3);
  CU_ASSERT_FALSE (zkr__queue_lock_predicate_first (sorted, ours, &wait_on, NULL));
  CU_ASSERT_STRING_EQUAL (wait_on, "lock-0000000004");
  ours = index_of (sorted, "_c_ffffffff-0000-4000-8000-000000000001-lock-0000000003");
  CU_ASSERT_FALSE (zkr__queue_lock_predicate_first (sorted, ours, &wait_on, NULL));
  CU_ASSERT_STRING_EQUAL (wait_on, "_c_77777777-0000-4000-8000-000000000003-lock-0000000001");
  CU_ASSERT_TRUE (zkr__queue_lock_predicate_first (sorted, 0, &wait_on, NULL));
}

/* A child without the lock name sorts by its whole name, as Curator does:
 * after the sequences (digits sort before letters), so it never blocks a
 * lock- node. */
static void
test_queue_lock__foreign_children_sort_after_sequences (void)
{
  const char *names[] = { "zzz-not-a-lock", "_c_12345678-0000-4000-8000-000000000009-lock-0000000002", NULL };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on = NULL;

  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 1), "zzz-not-a-lock");
  CU_ASSERT_TRUE (zkr__queue_lock_predicate_first (sorted, 0, &wait_on, NULL));
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_queue_lock__first_in_line_holds),
  ZKR_TEST_CASE (test_queue_lock__waiter_waits_on_its_predecessor_by_sequence),
  ZKR_TEST_CASE (test_queue_lock__foreign_children_sort_after_sequences),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "queue_lock", NULL, NULL, tests);
}
