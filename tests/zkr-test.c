/* zkr tests: the CUnit runner shared by every test program, and the capture
 * of zkr's criticals. A g_return_if_fail() critical is not fatal unless
 * G_DEBUG=fatal-criticals, so without this a misuse would only print a
 * line and the test would pass; here it fails the test it happened in. */

#include <stdio.h>
#include <CUnit/Basic.h>

#include "zkr-test.h"

/* Written from any thread that logs, hence atomics. */
static gint window_open;
static gint window_count;
static gint unexpected_total;

/* The runner's thread only. */
static gint unexpected_at_test_start;

static gboolean
message_is_expected (const char *log_domain, GLogLevelFlags level)
{
  return g_strcmp0 (log_domain, "zkr") == 0 &&
         (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) != 0 &&
         g_atomic_int_get (&window_open);
}

static void
capture_log (const char *log_domain,
             GLogLevelFlags level,
             const char *message,
             gpointer user_data)
{
  (void) user_data;
  if (message_is_expected (log_domain, level))
    {
      g_atomic_int_inc (&window_count);
      return;
    }
  g_atomic_int_inc (&unexpected_total);
  fprintf (stderr, "\n** UNEXPECTED %s-%s: %s\n",
           log_domain != NULL ? log_domain : "(default)",
           (level & G_LOG_LEVEL_CRITICAL) != 0 ? "CRITICAL" : "WARNING",
           message);
  fflush (stderr);
}

/* GLib asks this before aborting on a fatal message: an expected critical
 * must stay non-fatal even under G_DEBUG=fatal-criticals. */
static gboolean
fatal_log_filter (const char *log_domain,
                  GLogLevelFlags level,
                  const char *message,
                  gpointer user_data)
{
  (void) message;
  (void) user_data;
  return !message_is_expected (log_domain, level);
}

static void
install_log_capture (void)
{
  const GLogLevelFlags flags = G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION;
  /* A critical from GLib itself means zkr misused it: always unexpected. */
  static const char *const glib_domains[] = { "GLib", "GLib-GIO", "GLib-GObject" };
  gsize i;

  g_log_set_handler ("zkr", G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | flags,
                     capture_log, NULL);
  for (i = 0; i < G_N_ELEMENTS (glib_domains); i++)
    g_log_set_handler (glib_domains[i], G_LOG_LEVEL_CRITICAL | flags,
                       capture_log, NULL);
  g_test_log_set_fatal_handler (fatal_log_filter, NULL);
}

void
zkr_test_expect_criticals_begin (void)
{
  g_atomic_int_set (&window_count, 0);
  g_atomic_int_set (&window_open, TRUE);
}

guint
zkr_test_expect_criticals_end (void)
{
  g_atomic_int_set (&window_open, FALSE);
  return (guint) g_atomic_int_get (&window_count);
}

/* Before each test. */
static void
test_setup (void)
{
  g_atomic_int_set (&window_open, FALSE);
  unexpected_at_test_start = g_atomic_int_get (&unexpected_total);
}

/* After each test: a failure recorded here counts against the test that
 * just ran. No CU_ASSERT_*_FATAL here: CUnit would jump back into it. */
static void
test_teardown (void)
{
  if (g_atomic_int_get (&window_open))
    {
      CU_FAIL ("zkr_test_expect_criticals_begin() without _end()");
      g_atomic_int_set (&window_open, FALSE);
    }
  if (g_atomic_int_get (&unexpected_total) != unexpected_at_test_start)
    CU_FAIL ("unexpected critical or warning logged (see stderr)");
}

static CU_pSuite
register_suite (const char *suite_name,
                int (*init) (void),
                int (*cleanup) (void),
                const ZkrTestCase *tests)
{
  CU_pSuite suite;
  const ZkrTestCase *test;

  suite = CU_add_suite_with_setup_and_teardown (suite_name, init, cleanup,
                                                test_setup, test_teardown);
  if (suite == NULL)
    return NULL;
  for (test = tests; test->name != NULL; test++)
    if (CU_add_test (suite, test->name, test->func) == NULL)
      {
        fprintf (stderr, "cannot register test %s: %s\n", test->name, CU_get_error_msg ());
        return NULL;
      }
  return suite;
}

static gboolean
run_suite (CU_pSuite suite, const char *only_test)
{
  CU_pTest test;

  CU_basic_set_mode (CU_BRM_VERBOSE);
  if (only_test == NULL)
    return CU_basic_run_tests () == CUE_SUCCESS;
  test = CU_get_test_by_name (only_test, suite);
  if (test == NULL)
    {
      fprintf (stderr, "no test named %s in suite %s\n", only_test, suite->pName);
      return FALSE;
    }
  return CU_basic_run_test (suite, test) == CUE_SUCCESS;
}

static gboolean
run_passed (void)
{
  return CU_get_number_of_suites_failed () == 0 &&
         CU_get_number_of_tests_failed () == 0 &&
         CU_get_number_of_failures () == 0 &&
         CU_get_number_of_tests_run () > 0 &&
         g_atomic_int_get (&unexpected_total) == 0;
}

/* The library's count of sessions not yet freed (core/session.c), when
 * the program links the library: a session's last unref closes and frees
 * it on its worker, after the unref returned. */
gboolean zkr__session_wait_all_freed (int timeout_ms) __attribute__ ((weak));

/* Every session the tests made is freed before the program checks for
 * leaks and exits: one still alive 30 s after the tests was never unreffed,
 * or its close hangs. */
static gboolean
sessions_freed (void)
{
  if (zkr__session_wait_all_freed == NULL || zkr__session_wait_all_freed (30000))
    return TRUE;
  fprintf (stderr, "a session is still alive 30 s after the tests: never unreffed, "
           "or its close hangs\n");
  return FALSE;
}

int
zkr_test_main (int argc,
               char **argv,
               const char *suite_name,
               int (*init) (void),
               int (*cleanup) (void),
               const ZkrTestCase *tests)
{
  CU_pSuite suite;
  gboolean passed;

  g_return_val_if_fail (suite_name != NULL && tests != NULL, 1);

  install_log_capture ();
  if (CU_initialize_registry () != CUE_SUCCESS)
    {
      fprintf (stderr, "CUnit: %s\n", CU_get_error_msg ());
      return 1;
    }
  suite = register_suite (suite_name, init, cleanup, tests);
  passed = suite != NULL && run_suite (suite, argc > 1 ? argv[1] : NULL);
  passed = passed && run_passed ();
  passed = sessions_freed () && passed;
  if (g_atomic_int_get (&unexpected_total) > 0)
    fprintf (stderr, "%d unexpected critical(s) or warning(s) logged\n",
             g_atomic_int_get (&unexpected_total));
  if (CU_get_number_of_tests_run () == 0)
    fprintf (stderr, "no test ran\n");
  CU_cleanup_registry ();
  return passed ? 0 : 1;
}

GPtrArray *
zkr_test_listing_new (const char *const *names)
{
  GPtrArray *array = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; names[i] != NULL; i++)
    g_ptr_array_add (array, g_strdup (names[i]));
  return array;
}

guint
zkr_test_index_of (GPtrArray *array, const char *name)
{
  for (guint i = 0; i < array->len; i++)
    if (g_str_equal (g_ptr_array_index (array, i), name))
      return i;
  CU_FAIL ("name not in listing");
  return 0;
}
