/* zkr integration: the counters against Curator's own on one path
 * (integration/interop/CounterPeer): 4 Curator and 4 zkr processes
 * incrementing one atomic long to the exact sum, and a shared count set by
 * each side heard by the other's listener. This program doubles as the zkr
 * incrementer process (--incrementer PATH N). */
#include "itest-child.h"
#include "itest.h"
#include "zkr-test.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zkr/zkr.h>

#define PROCESSES 4
#define INCREMENTS 1000
/* Room for 8,000 contended increments and 4 JVMs starting on a busy
 * machine under a sanitizer; a bound, never a measure. */
#define RUN_MS 300000
#define CALL_MS ITEST_CALL_MS
#define WAIT_MS ITEST_WAIT_MS

static ItestChild *
peer_start (void)
{
  const char *classpath = g_getenv ("ZKR_INTEROP_CLASSPATH");
  ItestChild *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (classpath);
  peer = itest_child_spawn ("CounterPeer", (const char *const[]) { "java", "-cp", classpath,
                                                                   "CounterPeer", itest_hosts (),
                                                                   NULL });
  /* Its listener prints a CHANGED line whenever it hears a change. */
  peer->skip_prefix = "CHANGED ";
  return peer;
}

static void
peer_quit (ItestChild *peer)
{
  itest_child_send (peer, "quit");
  itest_child_expect (peer, "OK");
  CU_ASSERT_EQUAL (itest_child_finish (peer), 0);
}

/* ---- the zkr incrementer process ---------------------------------------- */

/* argv: --incrementer PATH N. Prints READY once connected, waits for a
 * line on stdin (all processes start counting together), then makes N
 * increments, each tried again until it succeeded, and prints
 * "OK N FAILED_TRIES LAST_POST_VALUE" (as CounterPeer's increment). */
static int
incrementer_main (const char *path, const char *count_text)
{
  g_autoptr (ZkrSessionOptions) options = itest_options (g_getenv ("ZKR_TEST_HOSTS"), 20000);
  g_autoptr (ZkrSession) session = NULL;
  g_autoptr (ZkrAtomicLong) atomic = NULL;
  g_autoptr (GError) error = NULL;
  guint64 n = g_ascii_strtoull (count_text, NULL, 10);
  guint64 failed = 0;
  ZkrAtomicLongValue value = { 0 };
  char go[16];

  if ((session = zkr_session_connect (options, &error)) == NULL ||
      (atomic = zkr_atomic_long_new (session, path, NULL, &error)) == NULL)
    {
      printf ("ERROR %s\n", error->message);
      return 1;
    }
  printf ("READY\n");
  fflush (stdout);
  if (fgets (go, sizeof go, stdin) == NULL)
    return 1;
  for (guint64 i = 0; i < n; i++)
    do
      {
        if (!zkr_atomic_long_increment (atomic, CALL_MS, NULL, &value, &error))
          {
            printf ("ERROR %s\n", error->message);
            return 1;
          }
        failed += value.succeeded ? 0 : 1;
      }
    while (!value.succeeded);
  printf ("OK %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT "\n", n, failed,
          value.post_value);
  fflush (stdout);
  return 0;
}

static ItestChild *
incrementer_start (const char *path)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *count = g_strdup_printf ("%d", INCREMENTS);
  ItestChild *child;
  g_autofree char *ready = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (self);
  child = itest_child_spawn ("zkr incrementer", (const char *const[]) { self, "--incrementer", path,
                                                                  count, NULL });
  ready = itest_child_read_line (child, g_get_monotonic_time () + (gint64) WAIT_MS * 1000);
  CU_ASSERT_STRING_EQUAL (ready != NULL ? ready : "(nothing)", "READY");
  return child;
}

/* "OK N FAILED LAST" with N = INCREMENTS; its failed tries added to
 * @failed. */
static gboolean
report_is_complete (const char *line, guint64 *failed)
{
  g_auto (GStrv) words = line != NULL ? g_strsplit (line, " ", -1) : NULL;

  if (words == NULL || g_strv_length (words) != 4 || strcmp (words[0], "OK") != 0 ||
      g_ascii_strtoull (words[1], NULL, 10) != INCREMENTS)
    {
      g_printerr ("incrementer reported '%s'\n", line != NULL ? line : "(nothing)");
      return FALSE;
    }
  *failed += g_ascii_strtoull (words[2], NULL, 10);
  return TRUE;
}

/* ---- the tests ------------------------------------------------------------ */

static void
test_counter_interop__curator_and_zkr_processes_sum_exactly (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("counter-interop-sum");
  g_autofree char *path = g_strdup_printf ("%s/total", root);
  g_autofree char *increment = g_strdup_printf ("increment %s %d", path, INCREMENTS);
  g_autofree char *get = g_strdup_printf ("get %s", path);
  g_autofree char *expected_get = g_strdup_printf ("OK %d", 2 * PROCESSES * INCREMENTS);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrAtomicLong) atomic = zkr_atomic_long_new (session, path, NULL, &error);
  ItestChild *curator[PROCESSES], *zkr[PROCESSES];
  ZkrAtomicLongValue value = { 0 };
  guint64 curator_failed = 0, zkr_failed = 0;
  guint complete = 0;
  gint64 start_us, end_us;

  CU_ASSERT_PTR_NOT_NULL_FATAL (atomic);
  for (guint i = 0; i < PROCESSES; i++)
    curator[i] = peer_start ();
  for (guint i = 0; i < PROCESSES; i++)
    zkr[i] = incrementer_start (path);
  for (guint i = 0; i < PROCESSES; i++)
    itest_child_expect (curator[i], "READY");

  /* Everybody counts at once. */
  start_us = g_get_monotonic_time ();
  end_us = start_us + (gint64) RUN_MS * 1000;
  for (guint i = 0; i < PROCESSES; i++)
    {
      itest_child_send (curator[i], increment);
      itest_child_send (zkr[i], "go");
    }
  for (guint i = 0; i < PROCESSES; i++)
    {
      g_autofree char *from_curator = itest_child_answer (curator[i], end_us);
      g_autofree char *from_zkr = itest_child_answer (zkr[i], end_us);

      complete += report_is_complete (from_curator, &curator_failed);
      complete += report_is_complete (from_zkr, &zkr_failed);
    }
  CU_ASSERT_EQUAL (complete, 2 * PROCESSES);
  g_printerr ("[8 x %d increments in %" G_GINT64_FORMAT " ms; retries given up: Curator %"
              G_GUINT64_FORMAT ", zkr %" G_GUINT64_FORMAT "] ", INCREMENTS,
              itest_elapsed_ms (start_us), curator_failed, zkr_failed);

  /* The sum, exactly, as both sides read it. */
  CU_ASSERT_TRUE (zkr_atomic_long_get (atomic, CALL_MS, NULL, &value, &error));
  CU_ASSERT_EQUAL (value.post_value, 2 * PROCESSES * INCREMENTS);
  itest_child_send (curator[0], get);
  itest_child_expect (curator[0], expected_get);
  for (guint i = 0; i < PROCESSES; i++)
    {
      CU_ASSERT_EQUAL (itest_child_finish (zkr[i]), 0);
      peer_quit (curator[i]);
    }
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (itest_delete_tree (session, root));
  itest_assert_path_clean (session, root);
}

typedef struct {
  GArray *values;            /* (element-type gint) every value heard */
  gboolean wrong_context;
  GMainContext *context;
} Heard;

static void
heard_changed (ZkrSharedCount *count, gint value, int version, const GError *error,
               gpointer user_data)
{
  Heard *heard = user_data;

  (void) count;
  (void) version;
  if (!g_main_context_is_owner (heard->context))
    heard->wrong_context = TRUE;
  if (error == NULL)
    g_array_append_val (heard->values, value);
}

/* Pumps the listener's context until it heard @value, by WAIT_MS. */
static gboolean
heard_wait (Heard *heard, gint value)
{
  gint64 end = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;

  for (;;)
    {
      for (guint i = 0; i < heard->values->len; i++)
        if (g_array_index (heard->values, gint, i) == value)
          return TRUE;
      if (g_get_monotonic_time () >= end)
        return FALSE;
      g_main_context_iteration (heard->context, FALSE);
      g_usleep (1000);
    }
}

static void
test_counter_interop__shared_count_set_by_each_side_reaches_the_others_listener (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("counter-interop-shared");
  g_autofree char *path = g_strdup_printf ("%s/c", root);
  g_autofree char *start = g_strdup_printf ("count-start %s 7", path);
  g_autofree char *bytes = g_strdup_printf ("bytes %s", path);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSharedCount) count = zkr_shared_count_new (session, path, 5, &error);
  Heard heard = { .values = g_array_new (FALSE, FALSE, sizeof (gint)),
                  .context = g_main_context_default () };
  ItestChild *peer = peer_start ();

  itest_child_expect (peer, "READY");
  /* zkr seeds the node; Curator's start reads zkr's seed, not its own. */
  CU_ASSERT_TRUE_FATAL (zkr_shared_count_start (count, CALL_MS, NULL, &error));
  zkr_shared_count_add_listener (count, heard_changed, &heard, NULL);
  itest_child_send (peer, start);
  itest_child_expect (peer, "OK 5");

  /* zkr sets, Curator's listener hears it. */
  CU_ASSERT_TRUE (zkr_shared_count_set (count, 12, CALL_MS, NULL, &error));
  itest_child_send (peer, "heard 12 30000");
  itest_child_expect (peer, "HEARD 12");

  /* Curator sets, zkr's listener hears it, in its own context. */
  itest_child_send (peer, "count-set 21");
  itest_child_expect (peer, "OK");
  CU_ASSERT_TRUE (heard_wait (&heard, 21));
  CU_ASSERT_FALSE (heard.wrong_context);
  CU_ASSERT_EQUAL (zkr_shared_count_get_count (count), 21);
  /* Curator's 4-byte layout: zkr's create, zkr's set, Curator's set. */
  itest_child_send (peer, bytes);
  itest_child_expect (peer, "OK 00000015 2");

  peer_quit (peer);
  CU_ASSERT_PTR_NULL (error);
  g_clear_pointer (&count, zkr_shared_count_unref);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_array_unref (heard.values);
  CU_ASSERT_TRUE (itest_delete_tree (session, root));
  itest_assert_path_clean (session, root);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_counter_interop__curator_and_zkr_processes_sum_exactly),
  ZKR_TEST_CASE (test_counter_interop__shared_count_set_by_each_side_reaches_the_others_listener),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  if (argc == 4 && strcmp (argv[1], "--incrementer") == 0)
    return incrementer_main (argv[2], argv[3]);
  return zkr_test_main (argc, argv, "counter-interop", NULL, NULL, tests);
}
