/* Unit tests of core/call.c, without a server: a call answered from
 * another thread runs its callback later, on the thread iterating the
 * context captured at the call, with that context thread-default; what it
 * holds until answered goes after the callback; a call nobody else holds
 * is kept for the thread's next call, one the callback took a reference to
 * (or attached data to) is not, and stays valid for a later finish;
 * zkr__call_return_here answers at once. */

#include "call.h"
#include "zkr-test.h"

#define WAIT_US (10 * G_USEC_PER_SEC)

static int tag;       /* the source tag of the calls made here */
static int other_tag; /* one they were not made with */

typedef struct {
  gpointer tag;                /* the source tag the call was made with */
  GAsyncResult *result;        /* the callback's, not a reference */
  GThread *ran_on;
  GMainContext *thread_default; /* during the callback */
  gboolean keep;               /* take a reference to the result */
  int *attached_frees;         /* (nullable) attach data to the result,
                                * counting its destroy notify here */
  char *value;                 /* (owned) what the finish gave */
  GError *error;               /* (owned) */
  int held_dropped_before;     /* *held_drops when the callback ran */
  int *held_drops;
  int runs;
} Seen;

static void
seen_clear (Seen *seen)
{
  g_free (seen->value);
  g_clear_error (&seen->error);
}

static void count_drop (gpointer data);

static void
callback (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Seen *seen = user_data;

  CU_ASSERT_PTR_NULL (source);
  CU_ASSERT_PTR_EQUAL (g_async_result_get_user_data (result), seen);
  seen->runs++;
  seen->result = result;
  seen->ran_on = g_thread_self ();
  seen->thread_default = g_main_context_get_thread_default ();
  seen->held_dropped_before = seen->held_drops != NULL ? *seen->held_drops : -1;
  if (seen->attached_frees != NULL)
    g_object_set_data_full (G_OBJECT (result), "zkr-test", seen->attached_frees, count_drop);
  if (seen->keep)
    {
      g_object_ref (result);
      return;
    }
  CU_ASSERT_TRUE (zkr__call_is_tagged (result, seen->tag));
  CU_ASSERT_FALSE (zkr__call_is_tagged (result, seen->tag == &tag ? &other_tag : &tag));
  seen->value = zkr__call_propagate (result, &seen->error);
}

static void
count_drop (gpointer data)
{
  (*(int *) data)++;
}

/* Iterates @context on this thread until @seen has run or 10 s passed. */
static gboolean
iterate_until_run (GMainContext *context, Seen *seen)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;

  while (seen->runs == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (context, FALSE);
  return seen->runs > 0;
}

typedef struct {
  ZkrCall *call;
  char *value;
  GError *error;
} Answer;

static gpointer
answer_main (gpointer data)
{
  Answer *answer = data;

  zkr__call_return (answer->call, answer->value, g_free, answer->error);
  return NULL;
}

/* Answers @call from a thread of its own, and joins it. */
static void
answer_from_thread (ZkrCall *call, char *value, GError *error)
{
  Answer answer = { call, value, error };

  g_thread_join (g_thread_new ("zkr-test-answer", answer_main, &answer));
}

static void
test_call__an_answer_from_another_thread_runs_later_in_the_calls_context (void)
{
  GMainContext *context = g_main_context_new ();
  Seen seen = { .tag = &tag };
  int held_drops = 0;
  ZkrCall *call;

  g_main_context_push_thread_default (context);
  call = zkr__call_new (&tag, callback, &seen);
  g_main_context_pop_thread_default (context);
  seen.held_drops = &held_drops;
  zkr__call_hold_until_answered (call, &held_drops, count_drop);
  answer_from_thread (call, g_strdup ("answer"), NULL);
  /* Posted: nothing ran in the answering thread. */
  CU_ASSERT_EQUAL (seen.runs, 0);
  CU_ASSERT_EQUAL (held_drops, 0);
  CU_ASSERT_TRUE (iterate_until_run (context, &seen));
  CU_ASSERT_EQUAL (seen.runs, 1);
  CU_ASSERT_PTR_EQUAL (seen.ran_on, g_thread_self ());
  /* Pushed for the callback, as a GTask's context is. */
  CU_ASSERT_PTR_EQUAL (seen.thread_default, context);
  CU_ASSERT_PTR_NULL (g_main_context_get_thread_default ());
  CU_ASSERT_STRING_EQUAL (seen.value, "answer");
  CU_ASSERT_PTR_NULL (seen.error);
  /* Held until the callback had run, then dropped once. */
  CU_ASSERT_EQUAL (seen.held_dropped_before, 0);
  CU_ASSERT_EQUAL (held_drops, 1);
  seen_clear (&seen);
  g_main_context_unref (context);
}

static void
test_call__an_error_is_the_finishs_and_a_result_given_with_it_is_freed (void)
{
  GMainContext *context = g_main_context_new ();
  Seen seen = { .tag = &tag };
  ZkrCall *call;

  g_main_context_push_thread_default (context);
  call = zkr__call_new (&tag, callback, &seen);
  g_main_context_pop_thread_default (context);
  answer_from_thread (call, g_strdup ("dropped"),
                      g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled"));
  CU_ASSERT_TRUE (iterate_until_run (context, &seen));
  CU_ASSERT_PTR_NULL (seen.value);
  CU_ASSERT_TRUE (g_error_matches (seen.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  seen_clear (&seen);
  g_main_context_unref (context);
}

static void
test_call__a_call_nobody_holds_after_its_callback_serves_the_threads_next_call (void)
{
  GMainContext *context = g_main_context_new ();
  Seen first = { .tag = &tag }, second = { .tag = &other_tag };
  int data_frees = 0;
  ZkrCall *call, *next;

  g_main_context_push_thread_default (context);
  call = zkr__call_new (&tag, callback, &first);
  zkr__call_set_data (call, &data_frees, count_drop);
  zkr__call_return (call, g_strdup ("one"), g_free, NULL);
  CU_ASSERT_TRUE (iterate_until_run (context, &first));
  /* Cleared for its next use: its data went with the first call. */
  CU_ASSERT_EQUAL (data_frees, 1);
  next = zkr__call_new (&other_tag, callback, &second);
  CU_ASSERT_PTR_EQUAL (next, first.result);
  CU_ASSERT_PTR_NULL (zkr__call_result_get_data ((GAsyncResult *) next));
  CU_ASSERT_FALSE (zkr__call_is_tagged ((GAsyncResult *) next, &tag));
  CU_ASSERT_TRUE (zkr__call_is_tagged ((GAsyncResult *) next, &other_tag));
  zkr__call_return (next, g_strdup ("two"), g_free, NULL);
  g_main_context_pop_thread_default (context);
  CU_ASSERT_TRUE (iterate_until_run (context, &second));
  CU_ASSERT_EQUAL (second.runs, 1);
  CU_ASSERT_STRING_EQUAL (second.value, "two");
  seen_clear (&first);
  seen_clear (&second);
  g_main_context_unref (context);
}

static void
test_call__a_call_its_callback_keeps_stays_valid_and_is_never_reused (void)
{
  GMainContext *context = g_main_context_new ();
  int data_frees = 0, attached_frees = 0;
  Seen kept = { .tag = &tag, .keep = TRUE };
  Seen with_data = { .tag = &tag, .attached_frees = &attached_frees };
  Seen after = { .tag = &tag };
  ZkrCall *call, *next;
  GWeakRef weak;
  char *value;

  g_main_context_push_thread_default (context);
  call = zkr__call_new (&tag, callback, &kept);
  zkr__call_set_data (call, &data_frees, count_drop);
  zkr__call_return (call, g_strdup ("kept"), g_free, NULL);
  CU_ASSERT_TRUE (iterate_until_run (context, &kept));
  /* Ours now: the finish after the callback, its data still there. */
  CU_ASSERT_EQUAL (data_frees, 0);
  CU_ASSERT_PTR_EQUAL (zkr__call_result_get_data (kept.result), &data_frees);
  value = zkr__call_propagate (kept.result, NULL);
  CU_ASSERT_STRING_EQUAL (value, "kept");
  g_free (value);
  /* Never handed to the next call while held. */
  next = zkr__call_new (&tag, callback, &with_data);
  CU_ASSERT_PTR_NOT_EQUAL (next, kept.result);
  g_weak_ref_init (&weak, kept.result);
  g_object_unref (kept.result);
  CU_ASSERT_EQUAL (data_frees, 1);
  CU_ASSERT_PTR_NULL (g_weak_ref_get (&weak));
  g_weak_ref_clear (&weak);
  /* Data attached by the callback keeps a call from being reused too: it
   * is finalized (its data's destroy notify runs) after the callback. */
  zkr__call_return (next, g_strdup ("data"), g_free, NULL);
  CU_ASSERT_TRUE (iterate_until_run (context, &with_data));
  CU_ASSERT_EQUAL (attached_frees, 1);
  CU_ASSERT_STRING_EQUAL (with_data.value, "data");
  call = zkr__call_new (&tag, callback, &after);
  zkr__call_return (call, g_strdup ("after"), g_free, NULL);
  g_main_context_pop_thread_default (context);
  CU_ASSERT_TRUE (iterate_until_run (context, &after));
  CU_ASSERT_STRING_EQUAL (after.value, "after");
  seen_clear (&kept);
  seen_clear (&with_data);
  seen_clear (&after);
  g_main_context_unref (context);
}

typedef struct {
  ZkrCall *call;
  Seen *seen;
  int seen_runs_after; /* seen->runs right after zkr__call_return_here */
} Here;

static gboolean
return_here_run (gpointer data)
{
  Here *here = data;

  zkr__call_return_here (here->call, g_strdup ("here"), g_free, NULL);
  here->seen_runs_after = here->seen->runs;
  return G_SOURCE_REMOVE;
}

static void
test_call__return_here_runs_the_callback_at_once_in_a_dispatch (void)
{
  GMainContext *context = g_main_context_new ();
  Seen seen = { .tag = &tag };
  Here here = { NULL, &seen, -1 };
  GSource *source = g_idle_source_new ();

  g_main_context_push_thread_default (context);
  here.call = zkr__call_new (&tag, callback, &seen);
  g_source_set_callback (source, return_here_run, &here, NULL);
  g_source_attach (source, context);
  g_source_unref (source);
  CU_ASSERT_TRUE (iterate_until_run (context, &seen));
  g_main_context_pop_thread_default (context);
  CU_ASSERT_EQUAL (here.seen_runs_after, 1);
  CU_ASSERT_STRING_EQUAL (seen.value, "here");
  seen_clear (&seen);
  g_main_context_unref (context);
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_call__an_answer_from_another_thread_runs_later_in_the_calls_context),
    ZKR_TEST_CASE (test_call__an_error_is_the_finishs_and_a_result_given_with_it_is_freed),
    ZKR_TEST_CASE (test_call__a_call_nobody_holds_after_its_callback_serves_the_threads_next_call),
    ZKR_TEST_CASE (test_call__a_call_its_callback_keeps_stays_valid_and_is_never_reused),
    ZKR_TEST_CASE (test_call__return_here_runs_the_callback_at_once_in_a_dispatch),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "call", NULL, NULL, tests);
}
