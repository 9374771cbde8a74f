/* zkr integration: zkr counter against the real ensemble, run as a user
 * runs it (a subprocess): read, --add, --set, --json and --lock on
 * Curator's 8-byte layout, exact sums from concurrent runs, exit statuses,
 * bad command lines and foreign data named, nothing left on the server. */

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "cli-proc.h"
#include "itest.h"
#include "zkr-test.h"

#define WAIT_MS CLI_WAIT_MS
#define CALL_MS ITEST_CALL_MS
#define RUNS 4
#define ADDS_PER_RUN 5

/* The node's value as Curator's DistributedAtomicLong reads it; FALSE if
 * the node is missing or not 8 bytes. */
static gboolean
node_long (ZkrSession *session, const char *path, gint64 *value)
{
  g_autoptr (GBytes) data = zkr_node_get (session, path, CALL_MS, NULL, NULL, NULL);
  gsize len = 0;
  const guint8 *bytes = data != NULL ? g_bytes_get_data (data, &len) : NULL;
  guint64 big_endian;

  if (len != 8)
    return FALSE;
  memcpy (&big_endian, bytes, 8);
  *value = (gint64) GUINT64_FROM_BE (big_endian);
  return TRUE;
}

static void
finish_root (ZkrSession *session, const char *root)
{
  CU_ASSERT_TRUE (itest_delete_tree (session, root));
  itest_assert_path_clean (session, root);
  zkr_session_unref (session);
}

static void
test_cli_counter__reads_adds_and_sets_in_curators_layout (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cli-counter");
  g_autofree char *path = g_strdup_printf ("%s/a/n", root);
  g_autofree char *out = NULL, *err = NULL;
  gint64 stored = 0;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  /* A missing node reads 0 and is not made by a read. */
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "counter", path), 0);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "0\n");
  CU_ASSERT_TRUE (itest_node_absent (session, path));
  g_clear_pointer (&out, g_free);

  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "counter", "--add", "5", path), 0);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "5\n");
  g_clear_pointer (&out, g_free);
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "counter", "--add=-7", path), 0);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "-2\n");
  CU_ASSERT_TRUE (node_long (session, path, &stored) && stored == -2);
  g_clear_pointer (&out, g_free);

  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "counter", "--set", "9223372036854775807", path), 0);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "9223372036854775807\n");
  g_clear_pointer (&out, g_free);
  /* Java's long wraps. */
  CU_ASSERT_EQUAL (zkr_run (&out, &err, "counter", "--add", "1", path), 0);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "-9223372036854775808\n");
  CU_ASSERT_STRING_EQUAL (err != NULL ? err : "?", "");
  CU_ASSERT_TRUE (node_long (session, path, &stored) && stored == G_MININT64);
  g_clear_pointer (&out, g_free);
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "counter", path), 0);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "-9223372036854775808\n");
  finish_root (session, root);
}

static void
test_cli_counter__json_says_succeeded_previous_and_new (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cli-counter-json");
  g_autofree char *path = g_strdup_printf ("%s/n", root);
  g_autofree char *out = NULL, *expected = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "counter", "--json", "--set", "41", path), 0);
  expected = g_strdup_printf ("{\"path\":\"%s\",\"succeeded\":true,\"previous\":0,\"new\":41}\n",
                              path);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", expected);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&expected, g_free);

  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "counter", "--json", "--add", "1", path), 0);
  expected = g_strdup_printf ("{\"path\":\"%s\",\"succeeded\":true,\"previous\":41,\"new\":42}\n",
                              path);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", expected);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&expected, g_free);

  /* A read: previous and new are the value. */
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "counter", "--json", path), 0);
  expected = g_strdup_printf ("{\"path\":\"%s\",\"succeeded\":true,\"previous\":42,\"new\":42}\n",
                              path);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", expected);
  finish_root (session, root);
}

/* RUNS concurrent zkr processes, optimistic and --lock mixed, ADDS_PER_RUN
 * adds each: the sum exactly, and the lock's path left with no lock node. */
static void
test_cli_counter__concurrent_runs_with_and_without_lock_sum_exactly (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cli-counter-sum");
  g_autofree char *path = g_strdup_printf ("%s/n", root);
  g_autofree char *lock = g_strdup_printf ("%s/lock", root);
  g_autofree char *script = g_strdup_printf (
    "for i in $(seq %d); do \"$ZKR_CLI\" counter $LOCK --add 3 %s >/dev/null || exit 9; done",
    ADDS_PER_RUN, path);
  g_autofree char *out = NULL;
  g_autofree char *lock_arg = g_strdup_printf ("LOCK=--lock=%s", lock);
  Proc *runs[RUNS];
  gint64 stored = 0;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (guint i = 0; i < RUNS; i++)
    runs[i] = proc_spawn ((const char *const[]) { "sh", "-c", script, NULL },
                          (const char *const[]) { i % 2 == 0 ? lock_arg : "LOCK=", NULL });
  for (guint i = 0; i < RUNS; i++)
    {
      CU_ASSERT_EQUAL (runs[i] != NULL ? proc_finish (runs[i], WAIT_MS, NULL, NULL) : -1, 0);
      proc_free (runs[i]);
    }
  CU_ASSERT_TRUE (node_long (session, path, &stored) && stored == 3 * RUNS * ADDS_PER_RUN);
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "counter", "--lock", lock, path), 0);
  CU_ASSERT_EQUAL (g_ascii_strtoll (out != NULL ? out : "", NULL, 10),
                   3 * RUNS * ADDS_PER_RUN);
  /* No lock node outlives its run (the lock's parent, if made, is a
   * container: empty). */
  CU_ASSERT_EQUAL (itest_node_absent (session, lock) ? 0 : itest_count_children (session, lock),
                   0);
  finish_root (session, root);
}

/* Data that is not Curator's 8 bytes: 64 naming the node and its length,
 * nothing written over it. */
static void
test_cli_counter__foreign_data_exits_64_naming_the_node (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cli-counter-foreign");
  g_autofree char *path = g_strdup_printf ("%s/n", root);
  const char *const ops[][3] = { { NULL }, { "--add", "1" }, { "--set", "5" } };
  g_autoptr (GBytes) data = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, path, "abc", 3, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL,
                                         NULL, NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int status = ops[i][0] == NULL ? zkr_run (&out, &err, "counter", path)
                                     : zkr_run (&out, &err, "counter", ops[i][0], ops[i][1], path);

      CU_ASSERT_EQUAL (status, 64);
      CU_ASSERT_TRUE (text_index (err, path) >= 0);
      CU_ASSERT_TRUE (text_index (err, "3 bytes") >= 0);
      CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "");
    }
  data = zkr_node_get (session, path, CALL_MS, NULL, NULL, NULL);
  CU_ASSERT_TRUE (itest_bytes_equal (data, "abc"));
  finish_root (session, root);
}

static void
test_cli_counter__bad_command_lines_name_the_value_and_exit_64 (void)
{
  const char *const cases[][8] = {
    /* the text the message must show, then the arguments */
    { "\"abc\"", "counter", "--add", "abc", "/zkr-it/cnt", NULL },
    { "\"9223372036854775808\"", "counter", "--set", "9223372036854775808", "/zkr-it/cnt", NULL },
    { "\"1.5\"", "counter", "--add=1.5", "/zkr-it/cnt", NULL },
    { "--add and --set", "counter", "--add", "1", "--set", "2", "/zkr-it/cnt", NULL },
    { "relative/cnt", "counter", "relative/cnt", NULL },
    { "relative-lock", "counter", "--lock", "relative-lock", "--add", "1", "/zkr-it/cnt", NULL },
    { "PATH", "counter", NULL },
    { "PATH", "counter", "/zkr-it/cnt", "/zkr-it/other", NULL },
    { "--bogus", "counter", "--bogus", "/zkr-it/cnt", NULL },
  };
  ZkrSession *session;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      CU_ASSERT_EQUAL (zkr_run_v (&cases[i][1], &out, &err), 64);
      CU_ASSERT_TRUE (text_index (err, "Usage") >= 0);
      if (text_index (err, cases[i][0]) < 0)
        fprintf (stderr, "case %zu: %s\n", i, err);
      CU_ASSERT_TRUE (text_index (err, cases[i][0]) >= 0);
      CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "");
    }
  /* Nothing was made by a refused command line. */
  session = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE (itest_node_absent (session, "/zkr-it/cnt"));
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_cli_counter__reads_adds_and_sets_in_curators_layout),
  ZKR_TEST_CASE (test_cli_counter__json_says_succeeded_previous_and_new),
  ZKR_TEST_CASE (test_cli_counter__concurrent_runs_with_and_without_lock_sum_exactly),
  ZKR_TEST_CASE (test_cli_counter__foreign_data_exits_64_naming_the_node),
  ZKR_TEST_CASE (test_cli_counter__bad_command_lines_name_the_value_and_exit_64),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "cli-counter", NULL, NULL, tests);
}
