/* Unit tests of core/context.c, without a server: posts to a GMainContext
 * run on its thread, later, in posting order (also across a post that
 * iterates the context itself), are dropped with their destroy notifies
 * when the context goes (its queue with it), and a thread holding back its
 * wake-ups sends them. */

#include "context.h"
#include "test-steps.h"
#include "zkr-test.h"

#define WAIT_US (10 * G_USEC_PER_SEC)

/* A step with room for its post: zkr__context_post_embedded() queues it
 * there instead of allocating one. The step first, so that step_destroy()
 * frees the whole. */
typedef struct {
  Step step;
  ZkrContextPost post;
} EmbeddedStep;

static gboolean
step_run (gpointer data)
{
  Step *step = data;

  step_log_append (step->log, step->letter);
  /* Ignored: every post runs once. */
  return G_SOURCE_CONTINUE;
}

static void
post (GMainContext *context, StepLog *log, char letter)
{
  zkr__context_post (context, step_run, step_new (log, letter), step_destroy);
}

static void
post_embedded (GMainContext *context, StepLog *log, char letter)
{
  EmbeddedStep *embedded = g_new0 (EmbeddedStep, 1);

  embedded->step = (Step) { log, letter };
  zkr__context_post_embedded (context, &embedded->post, step_run, &embedded->step, step_destroy);
}

/* Iterates @context (this thread) until @log has @count runs or 10 s
 * passed; returns whether it got there. */
static gboolean
iterate_until (GMainContext *context, StepLog *log, gsize count)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;

  while (step_log_count (log) < count && g_get_monotonic_time () < deadline)
    g_main_context_iteration (context, FALSE);
  return step_log_count (log) >= count;
}

/* Runs every post that is due, then one more time round: what is left
 * would wait for a wake-up that is not coming. */
static void
iterate_pending (GMainContext *context)
{
  while (g_main_context_pending (context))
    g_main_context_iteration (context, FALSE);
}

/* ---- order --------------------------------------------------------- */

#define POSTERS 4
#define POSTS_EACH 500

typedef struct {
  GMainContext *context;
  guint poster;
  GMutex *lock;
  GArray *seen;        /* of guint (poster << 16 | sequence), in running order */
  GThread **ran_on;    /* where the posts ran */
} Poster;

typedef struct {
  Poster *poster;
  guint sequence;
} Numbered;

static gboolean
numbered_run (gpointer data)
{
  Numbered *numbered = data;
  guint value = numbered->poster->poster << 16 | numbered->sequence;

  g_mutex_lock (numbered->poster->lock);
  g_array_append_val (numbered->poster->seen, value);
  if (*numbered->poster->ran_on != g_thread_self ())
    *numbered->poster->ran_on = g_thread_self ();
  g_mutex_unlock (numbered->poster->lock);
  return G_SOURCE_REMOVE;
}

static gpointer
poster_main (gpointer data)
{
  Poster *poster = data;

  for (guint i = 0; i < POSTS_EACH; i++)
    {
      Numbered *numbered = g_new (Numbered, 1);

      numbered->poster = poster;
      numbered->sequence = i;
      zkr__context_post (poster->context, numbered_run, numbered, g_free);
    }
  return NULL;
}

static guint
seen_count (GMutex *lock, GArray *seen)
{
  guint count;

  g_mutex_lock (lock);
  count = seen->len;
  g_mutex_unlock (lock);
  return count;
}

static void
test_context__posts_from_many_threads_run_on_the_contexts_thread_in_each_posters_order (void)
{
  GMainContext *context = g_main_context_new ();
  GMutex lock;
  GArray *seen = g_array_new (FALSE, FALSE, sizeof (guint));
  GThread *ran_on = NULL;
  Poster posters[POSTERS];
  GThread *threads[POSTERS];
  guint next[POSTERS] = { 0 };
  gboolean in_order = TRUE;
  gint64 deadline = g_get_monotonic_time () + WAIT_US;

  g_mutex_init (&lock);
  for (guint i = 0; i < POSTERS; i++)
    {
      posters[i] = (Poster) { context, i, &lock, seen, &ran_on };
      threads[i] = g_thread_new ("zkr-test-poster", poster_main, &posters[i]);
    }
  while (seen_count (&lock, seen) < POSTERS * POSTS_EACH && g_get_monotonic_time () < deadline)
    g_main_context_iteration (context, FALSE);
  for (guint i = 0; i < POSTERS; i++)
    g_thread_join (threads[i]);
  CU_ASSERT_EQUAL (seen->len, POSTERS * POSTS_EACH);
  for (guint i = 0; i < seen->len; i++)
    {
      guint value = g_array_index (seen, guint, i);

      in_order = in_order && (value & 0xffff) == next[value >> 16];
      next[value >> 16]++;
    }
  CU_ASSERT_TRUE (in_order);
  CU_ASSERT_PTR_EQUAL (ran_on, g_thread_self ());
  g_main_context_unref (context);
  g_array_unref (seen);
  g_mutex_clear (&lock);
}

typedef struct {
  GMainContext *context;
  StepLog *log;
  gboolean inner_ran_inside; /* the inner post ran before the posting call returned */
} Outer;

static gboolean
outer_run (gpointer data)
{
  Outer *outer = data;

  post (outer->context, outer->log, 'i');
  outer->inner_ran_inside = step_log_count (outer->log) > 0;
  return G_SOURCE_REMOVE;
}

static void
test_context__a_post_runs_later_never_inside_the_posting_call (void)
{
  GMainContext *context = g_main_context_new ();
  StepLog log;
  Outer outer;

  step_log_init (&log);
  outer = (Outer) { context, &log, TRUE };
  /* From the context's own thread, outside and inside a dispatch. */
  post (context, &log, 'a');
  CU_ASSERT_EQUAL (step_log_count (&log), 0);
  CU_ASSERT_TRUE (iterate_until (context, &log, 1));
  g_string_truncate (log.order, 0);
  zkr__context_post (context, outer_run, &outer, NULL);
  CU_ASSERT_TRUE (iterate_until (context, &log, 1));
  CU_ASSERT_FALSE (outer.inner_ran_inside);
  CU_ASSERT_STRING_EQUAL (log.order->str, "i");
  CU_ASSERT_EQUAL (log.destroyed, 2);
  g_main_context_unref (context);
  step_log_clear (&log);
}

typedef struct {
  GMainContext *context;
  StepLog *log;
  gboolean reached;    /* the nested loop saw the posts behind it run */
} Nesting;

/* A post that iterates its own context, as a nested main loop in a
 * callback does: the posts behind it must run meanwhile, in order. */
static gboolean
nesting_run (gpointer data)
{
  Nesting *nesting = data;

  step_log_append (nesting->log, 'a');
  nesting->reached = iterate_until (nesting->context, nesting->log, 3);
  step_log_append (nesting->log, 'z');
  return G_SOURCE_REMOVE;
}

static void
test_context__posts_behind_one_that_iterates_its_context_run_meanwhile_in_order (void)
{
  GMainContext *context = g_main_context_new ();
  StepLog log;
  Nesting nesting;

  step_log_init (&log);
  nesting = (Nesting) { context, &log, FALSE };
  zkr__context_post (context, nesting_run, &nesting, NULL);
  post (context, &log, 'b');
  post_embedded (context, &log, 'c');
  CU_ASSERT_TRUE (iterate_until (context, &log, 4));
  iterate_pending (context);
  CU_ASSERT_TRUE (nesting.reached);
  CU_ASSERT_STRING_EQUAL (log.order->str, "abcz");
  CU_ASSERT_EQUAL (log.destroyed, 2);
  g_main_context_unref (context);
  step_log_clear (&log);
}

/* ---- the context's end --------------------------------------------- */

static void
test_context__a_finalized_context_drops_its_unrun_posts_with_their_destroy_notifies (void)
{
  GMainContext *context = g_main_context_new ();
  StepLog log;

  step_log_init (&log);
  post (context, &log, 'a');
  post_embedded (context, &log, 'b');
  post (context, &log, 'c');
  g_main_context_unref (context);
  CU_ASSERT_EQUAL (log.order->len, 0);
  CU_ASSERT_EQUAL (log.destroyed, 3);
  step_log_clear (&log);
}

/* A context's queue goes with it: a context made later (often at the
 * same address) gets a queue of its own, and runs its posts. */
static void
test_context__a_contexts_queue_goes_with_it (void)
{
  guint before = zkr__context_test_count_queues ();
  StepLog log;
  gboolean all_ran = TRUE;

  step_log_init (&log);
  for (guint round = 0; round < 20; round++)
    {
      GMainContext *context = g_main_context_new ();

      g_string_truncate (log.order, 0);
      post (context, &log, 'a');
      CU_ASSERT_EQUAL (zkr__context_test_count_queues (), before + 1);
      if (round % 2 == 0)
        all_ran = all_ran && iterate_until (context, &log, 1);
      g_main_context_unref (context);
      CU_ASSERT_EQUAL (zkr__context_test_count_queues (), before);
    }
  CU_ASSERT_TRUE (all_ran);
  CU_ASSERT_EQUAL (log.destroyed, 20);
  step_log_clear (&log);
}

/* ---- held wake-ups ------------------------------------------------- */

typedef struct {
  GMainContext *context;
  StepLog *log;
  gboolean reached;    /* the post ran */
  gint timer_fired;    /* (atomic) the fallback timer woke the thread first */
} Iterator;

/* The fallback: a wake-up that never comes ends in a failed check, not a
 * hang. */
static gboolean
iterator_timer_fired (gpointer data)
{
  Iterator *iterator = data;

  g_atomic_int_set (&iterator->timer_fired, TRUE);
  return G_SOURCE_CONTINUE;
}

/* Another thread iterates the context, blocking in its poll: only a
 * wake-up (or the fallback timer) gets it out. */
static gpointer
iterator_main (gpointer data)
{
  Iterator *iterator = data;

  g_main_context_push_thread_default (iterator->context);
  while (step_log_count (iterator->log) < 2 && !g_atomic_int_get (&iterator->timer_fired))
    g_main_context_iteration (iterator->context, TRUE);
  iterator->reached = step_log_count (iterator->log) >= 2;
  g_main_context_pop_thread_default (iterator->context);
  return NULL;
}

static void
test_context__a_wake_up_held_back_is_sent_when_the_holder_lets_go (void)
{
  GMainContext *context = g_main_context_new ();
  GSource *timer = g_timeout_source_new (WAIT_US / 1000);
  StepLog log;
  Iterator iterator;
  GThread *thread;

  step_log_init (&log);
  iterator = (Iterator) { context, &log, FALSE, FALSE };
  g_source_set_callback (timer, iterator_timer_fired, &iterator, NULL);
  g_source_attach (timer, context);
  /* The context's queue exists before the thread sleeps: attaching it
   * would wake the thread by itself. */
  post (context, &log, 'a');
  CU_ASSERT_TRUE (iterate_until (context, &log, 1));
  thread = g_thread_new ("zkr-test-iterator", iterator_main, &iterator);
  zkr__context_hold_wakeups ();
  post (context, &log, 'b');
  zkr__context_send_wakeups ();
  g_thread_join (thread);
  CU_ASSERT_TRUE (iterator.reached);
  CU_ASSERT_FALSE (g_atomic_int_get (&iterator.timer_fired));
  CU_ASSERT_PTR_EQUAL (log.ran_on, thread);
  CU_ASSERT_STRING_EQUAL (log.order->str, "ab");
  g_source_destroy (timer);
  g_source_unref (timer);
  g_main_context_unref (context);
  CU_ASSERT_EQUAL (log.destroyed, 2);
  step_log_clear (&log);
}

static gpointer
cancel_main (gpointer data)
{
  g_cancellable_cancel (data);
  return NULL;
}

/* A cancel handed to a context runs there, later, once; a disconnect
 * before the cancel means it never runs; an already cancelled
 * cancellable posts at once. Each frees its data once. */
static void
test_context__a_cancel_is_posted_to_the_context_and_a_disconnect_stops_it (void)
{
  GMainContext *context = g_main_context_new ();
  GCancellable *cancellable = g_cancellable_new ();
  GCancellable *quiet = g_cancellable_new ();
  StepLog log;
  gulong id, quiet_id;

  step_log_init (&log);
  id = zkr__context_cancel_connect (context, cancellable, step_run, step_new (&log, 'c'),
                                    step_destroy);
  quiet_id = zkr__context_cancel_connect (context, quiet, step_run, step_new (&log, 'q'),
                                          step_destroy);
  CU_ASSERT_NOT_EQUAL (id, 0);
  CU_ASSERT_NOT_EQUAL (quiet_id, 0);
  g_thread_join (g_thread_new ("zkr-test-cancel", cancel_main, cancellable));
  /* Posted by the cancelling thread: it runs here, not there. */
  CU_ASSERT_EQUAL (step_log_count (&log), 0);
  CU_ASSERT_TRUE (iterate_until (context, &log, 1));
  CU_ASSERT_PTR_EQUAL (log.ran_on, g_thread_self ());
  zkr__context_cancel_disconnect (cancellable, &id);
  CU_ASSERT_EQUAL (id, 0);
  /* Disconnected first: the cancel reaches nothing. */
  zkr__context_cancel_disconnect (quiet, &quiet_id);
  g_cancellable_cancel (quiet);
  /* Already cancelled: posted at once, run later. */
  id = zkr__context_cancel_connect (context, cancellable, step_run, step_new (&log, 'a'),
                                    step_destroy);
  CU_ASSERT_EQUAL (id, 0);
  CU_ASSERT_TRUE (iterate_until (context, &log, 2));
  iterate_pending (context);
  CU_ASSERT_STRING_EQUAL (log.order->str, "ca");
  CU_ASSERT_EQUAL (log.destroyed, 3);
  g_object_unref (quiet);
  g_object_unref (cancellable);
  g_main_context_unref (context);
  step_log_clear (&log);
}

static gboolean
marker_never_runs (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}

static void
context_finalized (gpointer data)
{
  *(gboolean *) data = TRUE;
}

/* A blocking call's private context is dropped once the call is answered,
 * without being iterated again: a cancel posted to it just before the
 * disconnect must not keep it alive (the post held the cancel, and the
 * cancel a reference to the context: neither was ever freed, nor what the
 * cancel's data held). The post goes with the context, its data freed. */
static void
test_context__a_cancel_posted_and_never_run_goes_with_its_context (void)
{
  GMainContext *context = g_main_context_new ();
  GCancellable *cancellable = g_cancellable_new ();
  GSource *marker = g_idle_source_new ();
  gboolean finalized = FALSE;
  StepLog log;
  gulong id;

  step_log_init (&log);
  /* A source's destroy notify runs when the context finalizes it. */
  g_source_set_callback (marker, marker_never_runs, &finalized, context_finalized);
  g_source_attach (marker, context);
  g_source_unref (marker);
  id = zkr__context_cancel_connect (context, cancellable, step_run, step_new (&log, 'c'),
                                    step_destroy);
  g_thread_join (g_thread_new ("zkr-test-cancel", cancel_main, cancellable));
  zkr__context_cancel_disconnect (cancellable, &id);
  g_main_context_unref (context);
  CU_ASSERT_TRUE (finalized);
  CU_ASSERT_EQUAL (step_log_count (&log), 0);
  CU_ASSERT_EQUAL (log.destroyed, 1);
  g_object_unref (cancellable);
  step_log_clear (&log);
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_context__posts_from_many_threads_run_on_the_contexts_thread_in_each_posters_order),
    ZKR_TEST_CASE (test_context__a_post_runs_later_never_inside_the_posting_call),
    ZKR_TEST_CASE (test_context__posts_behind_one_that_iterates_its_context_run_meanwhile_in_order),
    ZKR_TEST_CASE (test_context__a_finalized_context_drops_its_unrun_posts_with_their_destroy_notifies),
    ZKR_TEST_CASE (test_context__a_contexts_queue_goes_with_it),
    ZKR_TEST_CASE (test_context__a_wake_up_held_back_is_sent_when_the_holder_lets_go),
    ZKR_TEST_CASE (test_context__a_cancel_is_posted_to_the_context_and_a_disconnect_stops_it),
    ZKR_TEST_CASE (test_context__a_cancel_posted_and_never_run_goes_with_its_context),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "context", NULL, NULL, tests);
}
