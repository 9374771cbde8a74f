/* zkr tests: the shared CUnit runner of every unit and integration test
 * program, and a capture for the criticals that zkr's g_return_if_fail
 * checks log. A critical or warning logged by zkr outside a capture window
 * fails the test it happened in, and the run. */
#pragma once

#include <glib.h>
#include <CUnit/CUnit.h>

G_BEGIN_DECLS

typedef struct {
  const char *name;
  void (*func) (void);
} ZkrTestCase;

/* { "test_path__rejects_empty_segment", test_path__rejects_empty_segment } */
#define ZKR_TEST_CASE(func) { #func, func }

/**
 * zkr_test_main:
 * @suite_name: the one CUnit suite of this program
 * @init: (nullable): run once before the tests; non-zero fails the suite
 * @cleanup: (nullable): run once after them; non-zero fails the suite
 * @tests: the tests, terminated by { NULL, NULL }
 *
 * Registers the suite, runs it in CUnit's basic mode (verbose) and prints
 * CUnit's summary. With a test name in argv[1], runs only that test.
 *
 * Returns: 0 if every test ran and passed, 1 otherwise: a failed
 * assertion, a failed init/cleanup, a zkr critical or warning outside a
 * capture window, an unknown test name, or no test run at all.
 */
int zkr_test_main (int argc,
                   char **argv,
                   const char *suite_name,
                   int (*init) (void),
                   int (*cleanup) (void),
                   const ZkrTestCase *tests);

/* Opens a capture window: criticals and warnings logged in the "zkr" domain
 * are counted (and not printed, nor fatal even under
 * G_DEBUG=fatal-criticals) until zkr_test_expect_criticals_end(). Windows do
 * not nest; a window left open fails the test. Any thread may log into a
 * window. */
void zkr_test_expect_criticals_begin (void);

/* Closes the window. Returns: how many criticals and warnings were logged
 * in the "zkr" domain since zkr_test_expect_criticals_begin(). */
guint zkr_test_expect_criticals_end (void);

/* Asserts that @statement logs exactly one zkr critical. */
#define ZKR_TEST_EXPECT_ONE_CRITICAL(statement)                                \
  G_STMT_START {                                                               \
    zkr_test_expect_criticals_begin ();                                        \
    statement;                                                                 \
    CU_ASSERT_EQUAL (zkr_test_expect_criticals_end (), 1);                     \
  } G_STMT_END

/* Hand-made listings for the lock recipes' predicates: a copy of the
 * NULL-terminated @names in an array that frees them (transfer full), and
 * the index of @name in @array (a CUnit failure and 0 when it is not
 * there). */
GPtrArray *zkr_test_listing_new (const char *const *names);
guint zkr_test_index_of (GPtrArray *array, const char *name);

G_END_DECLS
