/* zkr unit: the semaphore's lease predicate (Curator's "children <= max"
 * rule), its participant view, and the shared count's encoding, on
 * hand-made listings. */

#include <string.h>

#include <CUnit/CUnit.h>

#include <zkr/error.h>

#include "counter-private.h"
#include "semaphore-private.h"
#include "zkr-test.h"

#define LEASE(uuid_tail, seq) "_c_a8b4d2e0-0000-4000-8000-" uuid_tail "-lease-" seq

static GPtrArray *
listing (const char *const *names)
{
  GPtrArray *array = zkr_test_listing_new (names);

  (void) zkr__semaphore_lease_recipe.sort (array, zkr__semaphore_lease_recipe.lock_name, NULL);
  return array;
}

static void
test_semaphore__through_while_leases_fit_the_max (void)
{
  const char *names[] = {
    LEASE ("000000000003", "0000000003"),
    LEASE ("000000000001", "0000000001"),
    LEASE ("000000000002", "0000000002"),
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on = NULL;
  gint max = 3;

  /* 3 nodes, max 3: through, whatever our place. */
  CU_ASSERT_TRUE (zkr__semaphore_predicate_lease (sorted, 2, &wait_on, &max));
  CU_ASSERT_TRUE (zkr__semaphore_predicate_lease (sorted, 0, &wait_on, &max));
  CU_ASSERT_PTR_NULL (wait_on);
  max = 4;
  CU_ASSERT_TRUE (zkr__semaphore_predicate_lease (sorted, 2, &wait_on, &max));
}

static void
test_semaphore__over_the_max_waits_on_any_change_of_the_children (void)
{
  const char *names[] = {
    LEASE ("000000000001", "0000000001"),
    LEASE ("000000000002", "0000000002"),
    LEASE ("000000000003", "0000000003"),
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on = NULL;
  gint max = 2;

  CU_ASSERT_FALSE (zkr__semaphore_predicate_lease (sorted, 2, &wait_on, &max));
  /* Not a node to watch: any change of leases/ (NULL). */
  CU_ASSERT_PTR_NULL (wait_on);
  /* The rule is about the count, not our place (Curator's literal rule). */
  CU_ASSERT_FALSE (zkr__semaphore_predicate_lease (sorted, 0, &wait_on, &max));
  CU_ASSERT_PTR_NULL (wait_on);
}

/* Curator counts every child of leases/, lease node or not. */
static void
test_semaphore__foreign_children_count_against_the_max (void)
{
  const char *names[] = { "not-a-lease", LEASE ("000000000001", "0000000001"), NULL };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on = NULL;
  gint max = 1;

  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 1), "not-a-lease");
  CU_ASSERT_FALSE (zkr__semaphore_predicate_lease (sorted, 0, &wait_on, &max));
  max = 2;
  CU_ASSERT_TRUE (zkr__semaphore_predicate_lease (sorted, 0, &wait_on, &max));
}

/* A shared count of 0 or below lets nobody through. */
static void
test_semaphore__zero_or_negative_max_blocks_everyone (void)
{
  const char *names[] = { LEASE ("000000000001", "0000000001"), NULL };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on = NULL;
  gint max = 0;

  CU_ASSERT_FALSE (zkr__semaphore_predicate_lease (sorted, 0, &wait_on, &max));
  max = -5;
  CU_ASSERT_FALSE (zkr__semaphore_predicate_lease (sorted, 0, &wait_on, &max));
  CU_ASSERT_PTR_NULL (wait_on);
}

/* The listing: sequence order (not uuid order), the first max hold. */
static void
test_semaphore__listing_counts_the_first_max_as_holders (void)
{
  const char *names[] = {
    "_c_ffffffff-0000-4000-8000-000000000001-lease-0000000001",
    "_c_00000000-0000-4000-8000-000000000002-lease-0000000003",
    "_c_77777777-0000-4000-8000-000000000003-lease-0000000002",
    NULL,
  };
  g_autoptr (GPtrArray) sorted = listing (names);
  const char *wait_on = NULL;
  gint max = 2;

  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 0), names[0]);
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 1), names[2]);
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (sorted, 2), names[1]);
  CU_ASSERT_TRUE (zkr__semaphore_predicate_listing (sorted, 0, &wait_on, &max));
  CU_ASSERT_TRUE (zkr__semaphore_predicate_listing (sorted, 1, &wait_on, &max));
  CU_ASSERT_FALSE (zkr__semaphore_predicate_listing (sorted, 2, &wait_on, &max));
}

/* The count node's reader (the shared count's, which the semaphore uses)
 * on @len bytes of @data. */
static gboolean
decode (const guchar *data, gsize len, const char *path, gint *count, GError **error)
{
  g_autoptr (GBytes) bytes = g_bytes_new (data, len);

  return zkr__shared_count_decode (bytes, path, count, error);
}

static void
test_semaphore__count_is_a_4_byte_big_endian_int (void)
{
  const guchar seven[] = { 0, 0, 0, 7 };
  const guchar big[] = { 0x01, 0x02, 0x03, 0x04 };
  const guchar minus_one[] = { 0xff, 0xff, 0xff, 0xff };
  g_autoptr (GError) error = NULL;
  gint count = 0;

  CU_ASSERT_TRUE (decode (seven, 4, "/c", &count, &error));
  CU_ASSERT_EQUAL (count, 7);
  CU_ASSERT_TRUE (decode (big, 4, "/c", &count, &error));
  CU_ASSERT_EQUAL (count, 0x01020304);
  CU_ASSERT_TRUE (decode (minus_one, 4, "/c", &count, &error));
  CU_ASSERT_EQUAL (count, -1);
  CU_ASSERT_PTR_NULL (error);
}

static void
test_semaphore__count_of_another_length_is_refused (void)
{
  const guchar bytes[] = { 0, 0, 0, 0, 9 };
  const gsize lengths[] = { 0, 1, 3, 5 };
  g_autoptr (GError) error = NULL;
  gint count = 42;

  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      CU_ASSERT_FALSE (decode (bytes, lengths[i], "/count", &count, &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
      CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "/count") : NULL);
      g_clear_error (&error);
    }
  CU_ASSERT_EQUAL (count, 42);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_semaphore__through_while_leases_fit_the_max),
  ZKR_TEST_CASE (test_semaphore__over_the_max_waits_on_any_change_of_the_children),
  ZKR_TEST_CASE (test_semaphore__foreign_children_count_against_the_max),
  ZKR_TEST_CASE (test_semaphore__zero_or_negative_max_blocks_everyone),
  ZKR_TEST_CASE (test_semaphore__listing_counts_the_first_max_as_holders),
  ZKR_TEST_CASE (test_semaphore__count_is_a_4_byte_big_endian_int),
  ZKR_TEST_CASE (test_semaphore__count_of_another_length_is_refused),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "semaphore-predicates", NULL, NULL, tests);
}
