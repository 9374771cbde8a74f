/* Unit tests of core/nodename.c: Curator's protected prefix, ZooKeeper's
 * sequence suffix, and the queue order every client must agree on. */

#include <stdio.h>
#include <string.h>

#include "nodename.h"
#include "zkr-test.h"

#define UUID_A "0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0"
#define UUID_B "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
#define UUID_C "ffffffff-0000-4000-8000-000000000000"

/* TRUE when @names (a GPtrArray of char *) reads @expected (NULL-ended).
 * Prints both orders otherwise. */
static gboolean
order_is (GPtrArray *names, const char *const *expected)
{
  guint i;

  for (i = 0; i < names->len && expected[i] != NULL; i++)
    if (strcmp (g_ptr_array_index (names, i), expected[i]) != 0)
      break;
  if (i == names->len && expected[i] == NULL)
    return TRUE;
  for (i = 0; i < names->len; i++)
    fprintf (stderr, "got[%u]      %s\n", i, (const char *) g_ptr_array_index (names, i));
  for (i = 0; expected[i] != NULL; i++)
    fprintf (stderr, "expected[%u] %s\n", i, expected[i]);
  return FALSE;
}

static GPtrArray *
array_of (const char *const *names)
{
  GPtrArray *array = g_ptr_array_new ();

  for (; *names != NULL; names++)
    g_ptr_array_add (array, (gpointer) *names);
  return array;
}

static void
test_nodename__protected_prefix_is_curator_format (void)
{
  g_autofree char *prefix = zkr__nodename_protected_prefix (UUID_A);

  CU_ASSERT_STRING_EQUAL (prefix, "_c_" UUID_A "-");
  CU_ASSERT_EQUAL (strlen (prefix), ZKR_NODE_PROTECTED_PREFIX_LEN);
}

static void
test_nodename__protected_prefix_refuses_malformed_uuid (void)
{
  char *prefix = (char *) "unset";

  ZKR_TEST_EXPECT_ONE_CRITICAL (prefix = zkr__nodename_protected_prefix (NULL));
  CU_ASSERT_PTR_NULL (prefix);
  ZKR_TEST_EXPECT_ONE_CRITICAL (prefix = zkr__nodename_protected_prefix ("0F1E2D3C-4B5A-4978-8796-A5B4C3D2E1F0"));
  CU_ASSERT_PTR_NULL (prefix);
  ZKR_TEST_EXPECT_ONE_CRITICAL (prefix = zkr__nodename_protected_prefix ("0f1e2d3c-4b5a-4978-8796"));
  CU_ASSERT_PTR_NULL (prefix);
  ZKR_TEST_EXPECT_ONE_CRITICAL (prefix = zkr__nodename_protected_prefix (UUID_A "0"));
  CU_ASSERT_PTR_NULL (prefix);
  ZKR_TEST_EXPECT_ONE_CRITICAL (prefix = zkr__nodename_protected_prefix ("0f1e2d3c_4b5a-4978-8796-a5b4c3d2e1f0"));
  CU_ASSERT_PTR_NULL (prefix);
}

static void
test_nodename__new_protected_id_is_lowercase_random_uuid (void)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  int i;

  for (i = 0; i < 200; i++)
    {
      char *id = zkr__nodename_new_protected_id ();
      g_autofree char *prefix = NULL;
      const char *p;

      CU_ASSERT_EQUAL (strlen (id), 36);
      CU_ASSERT_TRUE (g_uuid_string_is_valid (id));
      for (p = id; *p != '\0'; p++)
        CU_ASSERT_FALSE (g_ascii_isupper (*p));
      CU_ASSERT_EQUAL (id[14], '4');   /* version 4: random */
      CU_ASSERT_PTR_NOT_NULL (strchr ("89ab", id[19]));   /* RFC 4122 variant */
      prefix = zkr__nodename_protected_prefix (id);
      CU_ASSERT_PTR_NOT_NULL (prefix);
      CU_ASSERT_TRUE (g_hash_table_add (seen, id));
    }
  CU_ASSERT_EQUAL (g_hash_table_size (seen), 200);
}

static void
test_nodename__new_protected_prefix_is_that_of_its_fresh_id (void)
{
  for (int i = 0; i < 50; i++)
    {
      g_autofree char *id = NULL;
      g_autofree char *prefix = zkr__nodename_new_protected_prefix (&id);
      g_autofree char *checked = zkr__nodename_protected_prefix (id);
      g_autofree char *name = g_strconcat (prefix, "lock-0000000001", NULL);

      CU_ASSERT_STRING_EQUAL (prefix, checked);
      CU_ASSERT_TRUE (zkr__nodename_has_protected_id (name, id));
    }
}

static void
test_nodename__is_protected_accepts_curator_names (void)
{
  CU_ASSERT_TRUE (zkr__nodename_is_protected ("_c_" UUID_A "-lock-0000000001"));
  CU_ASSERT_TRUE (zkr__nodename_is_protected ("_c_" UUID_B "-__READ__0000000007"));
  CU_ASSERT_TRUE (zkr__nodename_is_protected ("_c_" UUID_C "-x"));
  /* Java's UUID.fromString accepts upper case hex too. */
  CU_ASSERT_TRUE (zkr__nodename_is_protected ("_c_0F1E2D3C-4B5A-4978-8796-A5B4C3D2E1F0-lock-0000000001"));
}

static void
test_nodename__is_protected_rejects_malformed_prefixes (void)
{
  static const char *const bad[] = {
    "",
    "lock-0000000001",
    "_c_" UUID_A "-",                                /* nothing after the prefix */
    "_c_" UUID_A "_lock-0000000001",                 /* wrong separator */
    "_c" UUID_A "-lock-0000000001",
    "_C_" UUID_A "-lock-0000000001",
    "_c_0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1fg-lock",  /* not hex */
    "_c_0f1e2d3c4b5a-4978-8796-a5b4c3d2e1f0a-lock",  /* dash moved */
    "_c_0f1e2d3c-4b5a-4978-8796",
    "_c_",
  };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++)
    if (zkr__nodename_is_protected (bad[i]))
      CU_FAIL (bad[i]);
}

static void
test_nodename__has_protected_id_matches_exact_uuid (void)
{
  const char *ours = "_c_" UUID_A "-lock-0000000001";

  CU_ASSERT_TRUE (zkr__nodename_has_protected_id (ours, UUID_A));
  CU_ASSERT_FALSE (zkr__nodename_has_protected_id (ours, UUID_B));
  CU_ASSERT_FALSE (zkr__nodename_has_protected_id ("_c_" UUID_B "-lock-0000000002", UUID_A));
  CU_ASSERT_FALSE (zkr__nodename_has_protected_id (ours, "0F1E2D3C-4B5A-4978-8796-A5B4C3D2E1F0"));
  CU_ASSERT_FALSE (zkr__nodename_has_protected_id (ours, "0f1e2d3c"));
  CU_ASSERT_FALSE (zkr__nodename_has_protected_id ("_c_" UUID_A "-", UUID_A));
  CU_ASSERT_FALSE (zkr__nodename_has_protected_id ("lock-0000000001", UUID_A));
}

/* TRUE when @name parses to @expected. */
static gboolean
sequence_is (const char *name, gint64 expected)
{
  gint64 sequence = 12345;

  if (!zkr__nodename_parse_sequence (name, &sequence))
    {
      fprintf (stderr, "%s: not parsed\n", name);
      return FALSE;
    }
  if (sequence != expected)
    {
      fprintf (stderr, "%s: got %" G_GINT64_FORMAT "\n", name, sequence);
      return FALSE;
    }
  return TRUE;
}

static void
test_nodename__parse_sequence_reads_ten_digits (void)
{
  CU_ASSERT (sequence_is ("lock-0000000003", 3));
  CU_ASSERT (sequence_is ("_c_" UUID_A "-lock-0000000042", 42));
  CU_ASSERT (sequence_is ("0000000000", 0));
  CU_ASSERT (sequence_is ("latch-2147483647", G_MAXINT32));
  /* Only the last ten digits are the sequence. */
  CU_ASSERT (sequence_is ("node1230000000007", 7));
  CU_ASSERT (sequence_is ("lock-1000000000", 1000000000));
  CU_ASSERT_TRUE (zkr__nodename_parse_sequence ("lock-0000000001", NULL));
}

static void
test_nodename__parse_sequence_reads_overflowed_negative_suffix (void)
{
  /* "%010d" of a negative cversion: '-' then 9 digits, or 10 for the
   * largest magnitudes (see nodename.h for the one ambiguity). */
  CU_ASSERT (sequence_is ("lock--000000005", -5));
  CU_ASSERT (sequence_is ("lock--999999999", -999999999));
  CU_ASSERT (sequence_is ("-000000001", -1));
  CU_ASSERT (sequence_is ("lock--2147483648", G_MININT32));
  /* Nine digits behind a '-' can only be a negative suffix. */
  CU_ASSERT (sequence_is ("lock-000000003", -3));
}

static void
test_nodename__parse_sequence_rejects_bad_suffixes (void)
{
  static const char *const bad[] = {
    "", "lock-", "lock-123", "lock_000000003", "000000003",
    "lock-00000000a3", "lock-0000000003 ", "lock-0000000003\n",
    "lock-+000000003", "lock--000000000", "lock-2147483648x",
    "x2147483648", "9999999999", "lock-4294967295", "lock-\xd9\xa0\xd9\xa1\xd9\xa2\xd9\xa3\xd9\xa4",
  };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      gint64 sequence = 777;

      if (zkr__nodename_parse_sequence (bad[i], &sequence))
        CU_FAIL (bad[i]);
      CU_ASSERT_EQUAL (sequence, 777);
    }
}

static void
test_nodename__sort_key_is_text_after_last_lock_name (void)
{
  const char *protected_name = "_c_" UUID_A "-lock-0000000003";
  const char *plain = "other-node";

  CU_ASSERT_STRING_EQUAL (zkr__nodename_sort_key (protected_name, "lock-"), "0000000003");
  CU_ASSERT_PTR_EQUAL (zkr__nodename_sort_key (protected_name, "lock-"), protected_name + 45);
  CU_ASSERT_STRING_EQUAL (zkr__nodename_sort_key ("lock-0000000001", "lock-"), "0000000001");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_sort_key ("lock-lock-0000000002", "lock-"), "0000000002");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_sort_key ("a-lock-x-lock-5", "lock-"), "5");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_sort_key ("xlock-", "lock-"), "");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_sort_key ("lock-", "lock-"), "");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_sort_key ("llock-7", "lock-"), "7");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_sort_key ("loc", "lock-"), "loc");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_sort_key ("", "lock-"), "");
  /* Without the lock name (or with none): the whole name. */
  CU_ASSERT_PTR_EQUAL (zkr__nodename_sort_key (plain, "lock-"), plain);
  CU_ASSERT_PTR_EQUAL (zkr__nodename_sort_key (plain, ""), plain);
  CU_ASSERT_PTR_EQUAL (zkr__nodename_sort_key (plain, NULL), plain);
}

static void
test_nodename__sort_orders_by_sequence_not_by_prefix (void)
{
  static const char *const input[] = {
    "_c_" UUID_C "-lock-0000000003",
    "lock-0000000001",
    "_c_" UUID_B "-lock-0000000010",
    "_c_" UUID_A "-lock-0000000002",
    "_c_" UUID_A "-lock-0000000000",
    NULL,
  };
  static const char *const expected[] = {
    "_c_" UUID_A "-lock-0000000000",
    "lock-0000000001",
    "_c_" UUID_A "-lock-0000000002",
    "_c_" UUID_C "-lock-0000000003",
    "_c_" UUID_B "-lock-0000000010",
    NULL,
  };
  g_autoptr (GPtrArray) names = array_of (input);

  zkr__nodename_sort (names, "lock-");
  CU_ASSERT (order_is (names, expected));
}

static void
test_nodename__sort_keeps_names_without_lock_name_by_their_text (void)
{
  /* A foreign child's key is its whole name, compared as text with the
   * sequences: digits sort before letters, '_' after upper case. */
  static const char *const input[] = {
    "leases", "lock-0000000002", "ZZZ", "_c_" UUID_A "-lease-0000000001",
    "lock-0000000001", "0000000005", NULL,
  };
  static const char *const expected[] = {
    "lock-0000000001", "lock-0000000002", "0000000005", "ZZZ",
    "_c_" UUID_A "-lease-0000000001", "leases", NULL,
  };
  g_autoptr (GPtrArray) names = array_of (input);

  zkr__nodename_sort (names, "lock-");
  CU_ASSERT (order_is (names, expected));
}

static void
test_nodename__sort_breaks_equal_keys_by_whole_name (void)
{
  static const char *const forward[] = {
    "_c_" UUID_B "-lock-0000000005", "_c_" UUID_A "-lock-0000000005", "lock-0000000004", NULL,
  };
  static const char *const backward[] = {
    "lock-0000000004", "_c_" UUID_A "-lock-0000000005", "_c_" UUID_B "-lock-0000000005", NULL,
  };
  static const char *const expected[] = {
    "lock-0000000004", "_c_" UUID_A "-lock-0000000005", "_c_" UUID_B "-lock-0000000005", NULL,
  };
  g_autoptr (GPtrArray) one = array_of (forward);
  g_autoptr (GPtrArray) two = array_of (backward);

  zkr__nodename_sort (one, "lock-");
  zkr__nodename_sort (two, "lock-");
  CU_ASSERT (order_is (one, expected));
  CU_ASSERT (order_is (two, expected));
}

static void
test_nodename__sort_is_stable_for_identical_names (void)
{
  char first[] = "lock-0000000001";
  char second[] = "lock-0000000001";
  char zero[] = "lock-0000000000";
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  g_ptr_array_add (names, first);
  g_ptr_array_add (names, second);
  g_ptr_array_add (names, zero);
  zkr__nodename_sort (names, "lock-");
  CU_ASSERT_PTR_EQUAL (g_ptr_array_index (names, 0), zero);
  CU_ASSERT_PTR_EQUAL (g_ptr_array_index (names, 1), first);
  CU_ASSERT_PTR_EQUAL (g_ptr_array_index (names, 2), second);
}

static void
test_nodename__sort_gives_one_order_for_any_input_order (void)
{
  g_autoptr (GPtrArray) reference = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GRand) rand = g_rand_new_with_seed (20240601);
  guint i, round;

  for (i = 0; i < 300; i++)
    {
      /* Some sequences repeat across uuids, so ties are exercised too. */
      char *id = zkr__nodename_new_protected_id ();

      g_ptr_array_add (reference, g_strdup_printf ("_c_%s-lock-%010u", id, i / 2));
      g_free (id);
    }
  zkr__nodename_sort (reference, "lock-");
  for (i = 1; i < reference->len; i++)
    {
      const char *a = g_ptr_array_index (reference, i - 1);
      const char *b = g_ptr_array_index (reference, i);
      int by_key = strcmp (a + 45, b + 45);

      CU_ASSERT (by_key < 0 || (by_key == 0 && strcmp (a, b) < 0));
    }
  for (round = 0; round < 20; round++)
    {
      g_autoptr (GPtrArray) shuffled = g_ptr_array_new ();

      for (i = 0; i < reference->len; i++)
        g_ptr_array_add (shuffled, g_ptr_array_index (reference, i));
      for (i = shuffled->len - 1; i > 0; i--)
        {
          guint j = (guint) g_rand_int_range (rand, 0, (gint32) i + 1);
          gpointer tmp = shuffled->pdata[i];

          shuffled->pdata[i] = shuffled->pdata[j];
          shuffled->pdata[j] = tmp;
        }
      zkr__nodename_sort (shuffled, "lock-");
      CU_ASSERT_EQUAL (memcmp (shuffled->pdata, reference->pdata,
                               reference->len * sizeof (gpointer)), 0);
    }
}

/* Short listings (the usual case, sorted without the merge sort) and keys
 * of every shape mixed: whole sequences, overflowed negative ones, shorter
 * and longer digit runs, text, none at all. The order must be the text
 * order of the keys, ties by name, equal names kept in input order. */
static void
test_nodename__short_sort_orders_mixed_keys_as_text (void)
{
  static const char *const pool[] = {
    "lock-0000000007", "_c_" UUID_A "-lock-0000000007", "_c_" UUID_B "-lock-0000000003",
    "lock-0000000010", "lock-2147483647", "lock--2147483648", "lock--000000001",
    "lock-123", "lock-00000000012", "lock-000000001x", "lock-", "leases", "ZZZ",
    "0000000005", "lock-0000000003", "lock-0000000003", "lock-0000000001",
    "_c_" UUID_C "-lock-00000000012", "lock-lock-0000000002", "xlock-0000000004",
    "x00000000005", "x0000000009",
  };
  /* "0" ends in a digit: "x00000000005" is not its name and sequence. */
  static const char *const lock_names[] = { "lock-", "0" };
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261124);

  for (guint n = 2; n <= 40; n++)
    for (guint round = 0; round < 50; round++)
      {
        const char *lock_name = lock_names[round % G_N_ELEMENTS (lock_names)];
        g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
        g_autoptr (GHashTable) position = g_hash_table_new (NULL, NULL);

        for (guint i = 0; i < n; i++)
          {
            char *name = g_strdup (pool[g_rand_int_range (rand, 0, G_N_ELEMENTS (pool))]);

            g_ptr_array_add (names, name);
            g_hash_table_insert (position, name, GUINT_TO_POINTER (i));
          }
        zkr__nodename_sort (names, lock_name);
        for (guint i = 1; i < n; i++)
          {
            const char *a = g_ptr_array_index (names, i - 1);
            const char *b = g_ptr_array_index (names, i);
            int by_key = strcmp (zkr__nodename_sort_key (a, lock_name), zkr__nodename_sort_key (b, lock_name));
            int by_name = strcmp (a, b);

            if (by_key > 0 || (by_key == 0 && by_name > 0) ||
                (by_name == 0 && GPOINTER_TO_UINT (g_hash_table_lookup (position, a)) >
                                   GPOINTER_TO_UINT (g_hash_table_lookup (position, b))))
              {
                CU_FAIL ("out of order");
                g_printerr ("%s, n=%u round=%u: %s before %s\n", lock_name, n, round, a, b);
              }
          }
      }
}

/* Ten characters after the lock name are read as a number only when all
 * ten are digits (eight of them at once, see sort_key_digits); a byte just
 * outside '0'..'9' anywhere, or an eleventh character, makes the key text.
 * Either way the order must be the keys' byte order. */
static void
test_nodename__sort_reads_sequence_digits_as_their_text (void)
{
  static const char not_digits[] = { '/', ':', ' ', 'a', '\x7f', '\x80', '\xf9', '\xfa', '\xff' };
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261124);

  for (guint round = 0; round < 2000; round++)
    {
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      guint n = (guint) g_rand_int_range (rand, 2, 33);

      for (guint i = 0; i < n; i++)
        {
          char key[12];
          guint len = g_rand_int_range (rand, 0, 8) == 0 ? 11 : 10;

          for (guint j = 0; j < len; j++)
            key[j] = (char) ('0' + g_rand_int_range (rand, 0, 10));
          /* Mostly whole sequences; often one or two bytes off. */
          for (guint flips = (guint) g_rand_int_range (rand, 0, 4); flips > 1; flips--)
            key[g_rand_int_range (rand, 0, (gint32) len)] =
              not_digits[g_rand_int_range (rand, 0, G_N_ELEMENTS (not_digits))];
          key[len] = '\0';
          g_ptr_array_add (names, g_strconcat ("_c_" UUID_A "-lock-", key, NULL));
        }
      zkr__nodename_sort (names, "lock-");
      for (guint i = 1; i < n; i++)
        {
          const char *a = g_ptr_array_index (names, i - 1);
          const char *b = g_ptr_array_index (names, i);

          if (strcmp (zkr__nodename_sort_key (a, "lock-"), zkr__nodename_sort_key (b, "lock-")) > 0)
            {
              CU_FAIL ("out of order");
              g_printerr ("round %u: %s before %s\n", round, a, b);
            }
        }
    }
}

static gint
compare_pointers (gconstpointer a, gconstpointer b)
{
  guintptr x = (guintptr) *(const gpointer *) a;
  guintptr y = (guintptr) *(const gpointer *) b;

  return (x > y) - (x < y);
}

/* sort_up_to against the whole sort, on mixed listings (names repeated,
 * ours there or not, both orders): the same names before ours in the same
 * order (the same pointers), ours at the whole sort's index of its first
 * copy, the rest the same names in any order. */
static void
test_nodename__sort_up_to_matches_the_whole_sort_before_ours (void)
{
  static const char *const pool[] = {
    "_c_" UUID_A "-lock-0000000007", "_c_" UUID_B "-lock-0000000003", "lock-0000000010",
    "lock-0000000003", "lock-123", "lock-000000001x", "leases", "_c_" UUID_C "-__READ__0000000004",
    "_c_" UUID_A "-__WRIT__0000000005", "__READ__0000000001", "__WRIT__0000000002", "x",
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261124);

  for (guint round = 0; round < 4000; round++)
    {
      gboolean rwlock = round % 2;
      guint n = (guint) g_rand_int_range (rand, 0, 40);
      const char *ours = pool[g_rand_int_range (rand, 0, G_N_ELEMENTS (pool))];
      g_autoptr (GPtrArray) whole = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) part = g_ptr_array_new ();
      gint expected = -1, index;

      for (guint i = 0; i < n; i++)
        g_ptr_array_add (whole, g_strdup (pool[g_rand_int_range (rand, 0, G_N_ELEMENTS (pool))]));
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (part, whole->pdata[i]);
      if (rwlock)
        {
          zkr__nodename_sort_rwlock (whole);
          index = zkr__nodename_sort_rwlock_up_to (part, ours);
        }
      else
        {
          zkr__nodename_sort (whole, "lock-");
          index = zkr__nodename_sort_up_to (part, "lock-", ours);
        }
      for (guint i = 0; i < n && expected < 0; i++)
        if (strcmp (whole->pdata[i], ours) == 0)
          expected = (gint) i;
      CU_ASSERT_EQUAL (index, expected);
      if (index >= 0)
        CU_ASSERT_EQUAL (memcmp (whole->pdata, part->pdata, ((gsize) index + 1) * sizeof (gpointer)), 0);
      /* Whatever comes after: the same names. */
      CU_ASSERT_EQUAL (part->len, n);
      g_ptr_array_sort (whole, compare_pointers);
      g_ptr_array_sort (part, compare_pointers);
      /* An empty array's pdata may be NULL: no memcmp of nothing. */
      CU_ASSERT_TRUE (n == 0 || memcmp (whole->pdata, part->pdata, n * sizeof (gpointer)) == 0);
    }
}

static void
test_nodename__sort_accepts_empty_and_single_arrays (void)
{
  static const char *const one[] = { "lock-0000000001", NULL };
  g_autoptr (GPtrArray) empty = g_ptr_array_new ();
  g_autoptr (GPtrArray) single = array_of (one);

  zkr__nodename_sort (empty, "lock-");
  zkr__nodename_sort_rwlock (empty);
  zkr__nodename_sort (single, "lock-");
  CU_ASSERT_EQUAL (empty->len, 0);
  CU_ASSERT (order_is (single, one));
}

static void
test_nodename__sort_refuses_null_entries (void)
{
  static const char *const input[] = { "lock-0000000002", "lock-0000000001", NULL };
  g_autoptr (GPtrArray) names = array_of (input);

  g_ptr_array_add (names, NULL);
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr__nodename_sort (names, "lock-"));
  /* Left as it was. */
  CU_ASSERT_STRING_EQUAL (g_ptr_array_index (names, 0), "lock-0000000002");
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr__nodename_sort (NULL, "lock-"));
}

static void
test_nodename__rwlock_sort_key_strips_either_lock_name (void)
{
  CU_ASSERT_STRING_EQUAL (zkr__nodename_rwlock_sort_key ("_c_" UUID_A "-__READ__0000000004"), "0000000004");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_rwlock_sort_key ("_c_" UUID_A "-__WRIT__0000000003"), "0000000003");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_rwlock_sort_key ("__WRIT__0000000009"), "0000000009");
  /* READ first, then WRIT on what is left, exactly as Curator chains them. */
  CU_ASSERT_STRING_EQUAL (zkr__nodename_rwlock_sort_key ("__READ__x__WRIT__0000000001"), "0000000001");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_rwlock_sort_key ("__WRIT__x__READ__0000000002"), "0000000002");
  CU_ASSERT_STRING_EQUAL (zkr__nodename_rwlock_sort_key ("lock-0000000001"), "lock-0000000001");
}

static void
test_nodename__rwlock_sort_mixes_reads_and_writes_by_sequence (void)
{
  static const char *const input[] = {
    "_c_" UUID_A "-__WRIT__0000000002",
    "_c_" UUID_B "-__READ__0000000001",
    "_c_" UUID_C "-__READ__0000000003",
    "_c_" UUID_B "-__WRIT__0000000000",
    NULL,
  };
  static const char *const expected[] = {
    "_c_" UUID_B "-__WRIT__0000000000",
    "_c_" UUID_B "-__READ__0000000001",
    "_c_" UUID_A "-__WRIT__0000000002",
    "_c_" UUID_C "-__READ__0000000003",
    NULL,
  };
  g_autoptr (GPtrArray) names = array_of (input);

  zkr__nodename_sort_rwlock (names);
  CU_ASSERT (order_is (names, expected));
}

static void
test_nodename__rwlock_downgrade_read_node_sorts_before_queued_writer (void)
{
  /* CURATOR-621: the downgrade's read node carries the write node's
   * sequence, so it sorts with it, ahead of the writer queued behind. */
  static const char *const input[] = {
    "_c_" UUID_C "-__WRIT__0000000008",
    "_c_" UUID_A "-__READ__0000000007",
    "_c_" UUID_B "-__WRIT__0000000007",
    "_c_" UUID_C "-__READ__0000000009",
    NULL,
  };
  static const char *const expected[] = {
    "_c_" UUID_A "-__READ__0000000007",
    "_c_" UUID_B "-__WRIT__0000000007",
    "_c_" UUID_C "-__WRIT__0000000008",
    "_c_" UUID_C "-__READ__0000000009",
    NULL,
  };
  g_autoptr (GPtrArray) names = array_of (input);

  zkr__nodename_sort_rwlock (names);
  CU_ASSERT (order_is (names, expected));
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_nodename__protected_prefix_is_curator_format),
    ZKR_TEST_CASE (test_nodename__protected_prefix_refuses_malformed_uuid),
    ZKR_TEST_CASE (test_nodename__new_protected_id_is_lowercase_random_uuid),
    ZKR_TEST_CASE (test_nodename__new_protected_prefix_is_that_of_its_fresh_id),
    ZKR_TEST_CASE (test_nodename__is_protected_accepts_curator_names),
    ZKR_TEST_CASE (test_nodename__is_protected_rejects_malformed_prefixes),
    ZKR_TEST_CASE (test_nodename__has_protected_id_matches_exact_uuid),
    ZKR_TEST_CASE (test_nodename__parse_sequence_reads_ten_digits),
    ZKR_TEST_CASE (test_nodename__parse_sequence_reads_overflowed_negative_suffix),
    ZKR_TEST_CASE (test_nodename__parse_sequence_rejects_bad_suffixes),
    ZKR_TEST_CASE (test_nodename__sort_key_is_text_after_last_lock_name),
    ZKR_TEST_CASE (test_nodename__sort_orders_by_sequence_not_by_prefix),
    ZKR_TEST_CASE (test_nodename__sort_keeps_names_without_lock_name_by_their_text),
    ZKR_TEST_CASE (test_nodename__sort_breaks_equal_keys_by_whole_name),
    ZKR_TEST_CASE (test_nodename__sort_is_stable_for_identical_names),
    ZKR_TEST_CASE (test_nodename__sort_gives_one_order_for_any_input_order),
    ZKR_TEST_CASE (test_nodename__short_sort_orders_mixed_keys_as_text),
    ZKR_TEST_CASE (test_nodename__sort_reads_sequence_digits_as_their_text),
    ZKR_TEST_CASE (test_nodename__sort_up_to_matches_the_whole_sort_before_ours),
    ZKR_TEST_CASE (test_nodename__sort_accepts_empty_and_single_arrays),
    ZKR_TEST_CASE (test_nodename__sort_refuses_null_entries),
    ZKR_TEST_CASE (test_nodename__rwlock_sort_key_strips_either_lock_name),
    ZKR_TEST_CASE (test_nodename__rwlock_sort_mixes_reads_and_writes_by_sequence),
    ZKR_TEST_CASE (test_nodename__rwlock_downgrade_read_node_sorts_before_queued_writer),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "nodename", NULL, NULL, tests);
}
