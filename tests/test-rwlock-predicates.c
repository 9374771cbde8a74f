/* zkr unit: the read-write lock's predicates (Curator's rules), its
 * participant view and the downgrade node's name, on hand-made listings
 * sorted the way every Curator rwlock client sorts them. */

#include <string.h>

#include <CUnit/CUnit.h>

#include "nodename.h"
#include "rwlock-private.h"
#include "zkr-test.h"

/* "_c_<uuid>-__READ__<seq>" and "_c_<uuid>-__WRIT__<seq>"; the uuid's
 * first group is @id, so tests can pick which of two equal keys sorts
 * first. */
#define READ(id, seq) "_c_" id "-0000-4000-8000-000000000000-__READ__" seq
#define WRIT(id, seq) "_c_" id "-0000-4000-8000-000000000000-__WRIT__" seq

static GPtrArray *
listing (const char *const *names)
{
  GPtrArray *array = zkr_test_listing_new (names);

  (void) zkr__rwlock_read_recipe.sort (array, zkr__rwlock_read_recipe.lock_name, NULL);
  return array;
}

static gboolean
read_through (GPtrArray *sorted, const char *ours, const char **wait_on)
{
  *wait_on = NULL;
  return zkr__rwlock_predicate_read (sorted, zkr_test_index_of (sorted, ours), wait_on, NULL);
}

static gboolean
write_through (GPtrArray *sorted, const char *ours, const char **wait_on)
{
  *wait_on = NULL;
  return zkr__rwlock_write_recipe.predicate (sorted, zkr_test_index_of (sorted, ours), wait_on,
                                             NULL);
}

static gboolean
listed_holder (GPtrArray *sorted, const char *name)
{
  const char *wait_on = NULL;

  return zkr__rwlock_predicate_listing (sorted, zkr_test_index_of (sorted, name), &wait_on, NULL);
}

static void
test_rwlock__recipes_use_curators_names (void)
{
  CU_ASSERT_STRING_EQUAL (zkr__rwlock_read_recipe.lock_name, "__READ__");
  CU_ASSERT_STRING_EQUAL (zkr__rwlock_write_recipe.lock_name, "__WRIT__");
  /* Curator's sort depends on the two names having the same length. */
  CU_ASSERT_EQUAL (strlen (zkr__rwlock_read_recipe.lock_name),
                   strlen (zkr__rwlock_write_recipe.lock_name));
}

/* Read and write nodes sort together by sequence, whatever the uuid. */
static void
test_rwlock__read_and_write_nodes_sort_by_sequence (void)
{
  const char *names[] = {
    WRIT ("00000000", "0000000004"),
    READ ("ffffffff", "0000000002"),
    READ ("11111111", "0000000005"),
    WRIT ("eeeeeeee", "0000000001"),
    READ ("22222222", "0000000003"),
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);

  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 0), WRIT ("eeeeeeee", "0000000001"));
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 1), READ ("ffffffff", "0000000002"));
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 2), READ ("22222222", "0000000003"));
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 3), WRIT ("00000000", "0000000004"));
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 4), READ ("11111111", "0000000005"));
}

static void
test_rwlock__readers_after_readers_pass (void)
{
  const char *names[] = {
    READ ("aaaaaaaa", "0000000001"),
    READ ("bbbbbbbb", "0000000002"),
    READ ("cccccccc", "0000000003"),
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on;

  for (guint i = 0; names[i] != NULL; i++)
    {
      CU_ASSERT_TRUE (read_through (sorted, names[i], &wait_on));
      CU_ASSERT_PTR_NULL (wait_on);
      CU_ASSERT_TRUE (listed_holder (sorted, names[i]));
    }
}

/* Writer preference: a reader that came after a waiting writer waits for
 * it, though the holders ahead of that writer are all readers. */
static void
test_rwlock__reader_after_a_waiting_writer_waits_on_it (void)
{
  const char *names[] = {
    READ ("aaaaaaaa", "0000000001"),
    WRIT ("bbbbbbbb", "0000000002"),
    READ ("cccccccc", "0000000003"),
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on;

  CU_ASSERT_TRUE (read_through (sorted, names[0], &wait_on));
  CU_ASSERT_FALSE (write_through (sorted, names[1], &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, names[0]);
  CU_ASSERT_FALSE (read_through (sorted, names[2], &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, names[1]);
  CU_ASSERT_TRUE (listed_holder (sorted, names[0]));
  CU_ASSERT_FALSE (listed_holder (sorted, names[1]));
  CU_ASSERT_FALSE (listed_holder (sorted, names[2]));
}

/* Behind two writers a reader waits on the nearer: when the first goes,
 * the second still blocks it, so waking on the first would be in vain. */
static void
test_rwlock__reader_waits_on_the_nearest_writer_before_it (void)
{
  const char *names[] = {
    WRIT ("aaaaaaaa", "0000000001"),
    READ ("bbbbbbbb", "0000000002"),
    WRIT ("cccccccc", "0000000003"),
    READ ("dddddddd", "0000000004"),
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on;

  CU_ASSERT_FALSE (read_through (sorted, names[1], &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, names[0]);
  CU_ASSERT_FALSE (read_through (sorted, names[3], &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, names[2]);
}

/* A writer waits on the node right before it, reader or writer, and holds
 * only at the head of ALL children (Curator's maxLeases = 1). */
static void
test_rwlock__writer_waits_on_its_predecessor_whatever_it_is (void)
{
  const char *names[] = {
    READ ("aaaaaaaa", "0000000001"),
    WRIT ("bbbbbbbb", "0000000002"),
    WRIT ("cccccccc", "0000000003"),
    READ ("dddddddd", "0000000004"),
    WRIT ("eeeeeeee", "0000000005"),
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on;

  CU_ASSERT_FALSE (write_through (sorted, names[1], &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, names[0]);
  CU_ASSERT_FALSE (write_through (sorted, names[2], &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, names[1]);
  CU_ASSERT_FALSE (write_through (sorted, names[4], &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, names[3]);
  g_ptr_array_remove_index (sorted, 0);
  CU_ASSERT_TRUE (write_through (sorted, names[1], &wait_on));
  CU_ASSERT_PTR_NULL (wait_on);
  CU_ASSERT_TRUE (listed_holder (sorted, names[1]));
}

/* CURATOR-621: A holds write 5, B queued write 6, A downgrades: its read
 * node carries sequence 5. Whichever of A's two nodes sorts first (equal
 * keys go by full name, i.e. by uuid), A's read is not blocked by its own
 * write node, B waits on one of A's nodes, and once A's write node is gone
 * B waits on A's read node. */
static void
downgrade_round (const char *a_read, const char *a_write)
{
  const char *b_write = WRIT ("bbbbbbbb", "0000000006");
  const char *c_read = READ ("cccccccc", "0000000007");
  const char *names[] = { b_write, c_read, a_read, a_write, NULL };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on;

  CU_ASSERT_TRUE (zkr_test_index_of (sorted, a_read) < 2);
  CU_ASSERT_TRUE (zkr_test_index_of (sorted, a_write) < 2);
  CU_ASSERT_EQUAL (zkr_test_index_of (sorted, b_write), 2);
  CU_ASSERT_TRUE (read_through (sorted, a_read, &wait_on));
  CU_ASSERT_FALSE (write_through (sorted, b_write, &wait_on));
  CU_ASSERT_TRUE (g_str_equal (wait_on, a_read) || g_str_equal (wait_on, a_write));
  CU_ASSERT_FALSE (read_through (sorted, c_read, &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, b_write);
  CU_ASSERT_TRUE (listed_holder (sorted, a_read));
  CU_ASSERT_TRUE (listed_holder (sorted, a_write));
  CU_ASSERT_FALSE (listed_holder (sorted, b_write));

  /* A releases write: its read node keeps B out. */
  g_ptr_array_remove_index (sorted, zkr_test_index_of (sorted, a_write));
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 0), a_read);
  CU_ASSERT_FALSE (write_through (sorted, b_write, &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, a_read);
  CU_ASSERT_TRUE (listed_holder (sorted, a_read));
  /* A releases read: B holds. */
  g_ptr_array_remove_index (sorted, 0);
  CU_ASSERT_TRUE (write_through (sorted, b_write, &wait_on));
}

static void
test_rwlock__downgrade_read_node_orders_before_a_later_writer (void)
{
  downgrade_round (READ ("aaaaaaaa", "0000000005"), WRIT ("ffffffff", "0000000005"));
  downgrade_round (READ ("ffffffff", "0000000005"), WRIT ("aaaaaaaa", "0000000005"));
}

/* Equal keys are ordered by the whole name, so every zkr client sees the
 * same order whatever order the server listed them in. */
static void
test_rwlock__equal_keys_order_by_full_name (void)
{
  const char *forward[] = {
    READ ("11111111", "0000000009"), WRIT ("22222222", "0000000009"), NULL,
  };
  const char *backward[] = { forward[1], forward[0], NULL };
  g_autoptr (GPtrArray) a = listing (forward);
  g_autoptr (GPtrArray) b = listing (backward);

  for (guint i = 0; i < 2; i++)
    CU_ASSERT_STRING_EQUAL (g_ptr_array_index (a, i), g_ptr_array_index (b, i));
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (a, 0), forward[0]);
}

/* Children without either lock name sort by their whole name (Curator's
 * fixForSorting) and never block a reader; a writer counts ALL children,
 * as Curator's does, but such names sort after every sequence. */
static void
test_rwlock__names_without_the_lock_names (void)
{
  const char *names[] = {
    "zzz-foreign",
    READ ("aaaaaaaa", "0000000002"),
    "_c_99999999-0000-4000-8000-000000000000-lock-0000000001",
    WRIT ("bbbbbbbb", "0000000003"),
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on;

  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 0), names[1]);
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 1), names[3]);
  CU_ASSERT_TRUE (read_through (sorted, names[1], &wait_on));
  CU_ASSERT_FALSE (write_through (sorted, names[3], &wait_on));
  CU_ASSERT_STRING_EQUAL (wait_on, names[1]);
  CU_ASSERT_FALSE (listed_holder (sorted, names[0]));
  CU_ASSERT_FALSE (listed_holder (sorted, names[2]));
  /* A foreign name that sorts first does block a writer, as in Curator. */
  g_ptr_array_remove_index (sorted, zkr_test_index_of (sorted, names[0]));
  g_ptr_array_add (sorted, g_strdup ("-sorts-first"));
  (void) zkr__rwlock_read_recipe.sort (sorted, NULL, NULL);
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 0), "-sorts-first");
  CU_ASSERT_FALSE (write_through (sorted, names[3], &wait_on));
  CU_ASSERT_TRUE (read_through (sorted, names[1], &wait_on));
}

/* Curator's getSortingSequence(): the write node's sort key, from a name
 * or a full path (even one whose folders carry a lock name). */
static void
test_rwlock__downgrade_suffix_is_the_write_nodes_sequence (void)
{
  g_autofree char *from_name = zkr__rwlock_downgrade_suffix (WRIT ("aaaaaaaa", "0000000042"));
  g_autofree char *from_path =
    zkr__rwlock_downgrade_suffix ("/x__READ__y/l__WRIT__z/" WRIT ("aaaaaaaa", "0000000042"));
  g_autofree char *negative = zkr__rwlock_downgrade_suffix (WRIT ("aaaaaaaa", "-000000007"));

  CU_ASSERT_STRING_EQUAL (from_name, "0000000042");
  CU_ASSERT_STRING_EQUAL (from_path, "0000000042");
  CU_ASSERT_STRING_EQUAL (negative, "-000000007");
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_rwlock__recipes_use_curators_names),
  ZKR_TEST_CASE (test_rwlock__read_and_write_nodes_sort_by_sequence),
  ZKR_TEST_CASE (test_rwlock__readers_after_readers_pass),
  ZKR_TEST_CASE (test_rwlock__reader_after_a_waiting_writer_waits_on_it),
  ZKR_TEST_CASE (test_rwlock__reader_waits_on_the_nearest_writer_before_it),
  ZKR_TEST_CASE (test_rwlock__writer_waits_on_its_predecessor_whatever_it_is),
  ZKR_TEST_CASE (test_rwlock__downgrade_read_node_orders_before_a_later_writer),
  ZKR_TEST_CASE (test_rwlock__equal_keys_order_by_full_name),
  ZKR_TEST_CASE (test_rwlock__names_without_the_lock_names),
  ZKR_TEST_CASE (test_rwlock__downgrade_suffix_is_the_write_nodes_sequence),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "rwlock-predicates", NULL, NULL, tests);
}
