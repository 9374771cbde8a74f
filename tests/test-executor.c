/* Unit tests of core/executor.c, without a server: the order of posts
 * (quiet ones run with the next waking post), the turn (a stand-in
 * excludes the worker; a thread blocked standing in runs the posts
 * instead of it), in-place runs, the worker's timers, and what stopping
 * and freeing do with posts and timers still pending. */

#include "executor.h"
#include "test-steps.h"
#include "wait.h"
#include "zkr-test.h"

/* What the posts and timers of one test record: the letters in the step
 * log, and where the last step ran. */
typedef struct {
  StepLog steps;       /* first: step_run() casts a step's log back */
  gboolean in_worker;  /* zkr__executor_in_worker() during the last run */
  gboolean in_place;   /* zkr__executor_in_place() during the last run */
  gboolean code_running;
  ZkrExecutor *executor;
} Log;

static void
log_init (Log *log)
{
  step_log_init (&log->steps);
  log->executor = zkr__executor_new ("zkr-test-executor", NULL, NULL, NULL);
}

static void
log_stop (Log *log)
{
  zkr__executor_stop (log->executor, (GDestroyNotify) zkr__executor_free, log->executor);
}

static gboolean
step_run (gpointer data)
{
  Step *step = data;
  Log *log = (Log *) step->log;

  /* Before the letter, which is what a test waits for. */
  g_mutex_lock (&log->steps.lock);
  log->in_worker = zkr__executor_in_worker (log->executor);
  log->in_place = zkr__executor_in_place (log->executor);
  log->code_running = zkr__executor_code_running ();
  g_mutex_unlock (&log->steps.lock);
  step_log_append (&log->steps, step->letter);
  return G_SOURCE_REMOVE;
}

static void
post (Log *log, char letter)
{
  zkr__executor_post (log->executor, step_run, step_new (&log->steps, letter), step_destroy);
}

static void
test_executor__posts_run_in_posting_order (void)
{
  Log log;
  g_autofree char *order = NULL;

  log_init (&log);
  post (&log, 'a');
  zkr__executor_post_quiet (log.executor, step_run, step_new (&log.steps, 'b'), step_destroy);
  post (&log, 'c');
  zkr__executor_post_in_place (log.executor, step_run, step_new (&log.steps, 'd'), step_destroy, FALSE);
  post (&log, 'e');
  CU_ASSERT_TRUE (step_log_wait_count (&log.steps, 5));
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "abcde");
  CU_ASSERT_TRUE (log.in_worker);
  CU_ASSERT_TRUE (log.code_running);
  CU_ASSERT_FALSE (log.in_place);
  CU_ASSERT_FALSE (zkr__executor_in_worker (log.executor));
  CU_ASSERT_FALSE (zkr__executor_code_running ());
  log_stop (&log);
  CU_ASSERT_EQUAL (log.steps.destroyed, 5);
  step_log_clear (&log.steps);
}

static void
test_executor__quiet_post_waits_for_the_next_waking_post (void)
{
  Log log;
  g_autofree char *order = NULL;

  log_init (&log);
  zkr__executor_post_quiet (log.executor, step_run, step_new (&log.steps, 'q'), step_destroy);
  /* Nothing wakes the worker for it. */
  g_usleep (100 * 1000);
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "");
  post (&log, 'w');
  CU_ASSERT_TRUE (step_log_wait_count (&log.steps, 2));
  g_free (order);
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "qw");
  log_stop (&log);
  step_log_clear (&log.steps);
}

static void
test_executor__a_stand_in_keeps_the_worker_out (void)
{
  Log log;
  g_autofree char *order = NULL;

  log_init (&log);
  zkr__executor_stand_in_begin (log.executor);
  CU_ASSERT_TRUE (zkr__executor_in_worker (log.executor));
  CU_ASSERT_TRUE (zkr__executor_code_running ());
  post (&log, 'a');
  g_usleep (100 * 1000);
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "");
  zkr__executor_stand_in_end (log.executor);
  CU_ASSERT_FALSE (zkr__executor_in_worker (log.executor));
  CU_ASSERT_TRUE (step_log_wait_count (&log.steps, 1));
  CU_ASSERT_PTR_NOT_EQUAL (log.steps.ran_on, g_thread_self ());
  log_stop (&log);
  step_log_clear (&log.steps);
}

/* ---- a thread blocked standing in runs the posts ------------------- */

typedef struct {
  ZkrExecutor *executor;
  ZkrWait wait;
  GThread *blocked;      /* the thread blocked standing in */
  gint finished;         /* atomic: the wait is done */
  gboolean in_worker;    /* in the post that finished it */
} Handoff;

static gboolean
handoff_probe (gpointer data)
{
  Handoff *handoff = data;

  /* Only the post that runs on the blocked thread ends its wait. */
  if (g_thread_self () == handoff->blocked && !g_atomic_int_get (&handoff->finished))
    {
      handoff->in_worker = zkr__executor_in_worker (handoff->executor);
      g_atomic_int_set (&handoff->finished, TRUE);
      zkr__wait_done (&handoff->wait);
    }
  return G_SOURCE_REMOVE;
}

static gpointer
handoff_poster (gpointer data)
{
  Handoff *handoff = data;

  for (int i = 0; i < 2000 && !g_atomic_int_get (&handoff->finished); i++)
    {
      zkr__executor_post (handoff->executor, handoff_probe, handoff, NULL);
      g_usleep (5000);
    }
  return NULL;
}

static void
test_executor__a_thread_blocked_standing_in_runs_the_posts (void)
{
  Handoff handoff = { 0 };
  GThread *poster;

  handoff.executor = zkr__executor_new ("zkr-test-executor", NULL, NULL, NULL);
  handoff.blocked = g_thread_self ();
  zkr__wait_init (&handoff.wait);
  poster = g_thread_new ("poster", handoff_poster, &handoff);
  zkr__executor_block_standing_in (handoff.executor, &handoff.wait, G_MAXINT64);
  g_thread_join (poster);
  CU_ASSERT_TRUE (g_atomic_int_get (&handoff.finished));
  CU_ASSERT_TRUE (handoff.in_worker);
  CU_ASSERT_TRUE (zkr__executor_count_stand_in_posts (handoff.executor) >= 1);
  CU_ASSERT_FALSE (zkr__executor_in_worker (handoff.executor));
  zkr__executor_stop (handoff.executor, (GDestroyNotify) zkr__executor_free, handoff.executor);
}

/* ---- a stand-in's own deadline --------------------------------------- */

typedef struct {
  ZkrWait wait;
  GThread *ran_on;       /* the thread that ran the timer */
} DueTimer;

static gboolean
due_timer_fire (gpointer data)
{
  DueTimer *due = data;

  due->ran_on = g_thread_self ();
  zkr__wait_done (&due->wait);
  return G_SOURCE_REMOVE;
}

/* A call's deadline timer whose wake-up the worker does not get in time
 * (here: a slack that lets the worker sleep 60 s past it) is run by the
 * caller blocked standing in, at the deadline the wait was given. */
static void
test_executor__a_stand_in_runs_its_due_deadline_timer_itself (void)
{
  ZkrExecutor *executor = zkr__executor_new ("zkr-test-executor", NULL, NULL, NULL);
  DueTimer due = { 0 };
  gint64 deadline;

  zkr__wait_init (&due.wait);
  zkr__executor_stand_in_begin (executor);
  deadline = g_get_monotonic_time () + 50 * 1000;
  (void) zkr__executor_timer_add (executor, 50, 60 * 1000, due_timer_fire, &due, NULL);
  zkr__executor_stand_in_end (executor);
  zkr__executor_block_standing_in (executor, &due.wait, deadline);
  CU_ASSERT_PTR_EQUAL (due.ran_on, g_thread_self ());
  zkr__executor_stop (executor, (GDestroyNotify) zkr__executor_free, executor);
}

/* ---- in-place runs -------------------------------------------------- */

static void
test_executor__a_waking_in_place_post_runs_on_the_posting_thread (void)
{
  Log log;
  gatomicrefcount owner_ref;
  gboolean in_place = FALSE;

  step_log_init (&log.steps);
  g_atomic_ref_count_init (&owner_ref);
  log.executor = zkr__executor_new ("zkr-test-executor", &owner_ref, NULL, NULL);
  /* In place needs the turn free: the worker asleep, as it is once it has
   * run what it was given; retried in case it was still awake. */
  for (int i = 0; i < 50 && !in_place; i++)
    {
      gsize before = log.steps.order->len;

      post (&log, 'w');
      CU_ASSERT_TRUE (step_log_wait_count (&log.steps, before + 1));
      g_usleep (10 * 1000);
      zkr__executor_post_in_place (log.executor, step_run, step_new (&log.steps, 'p'), step_destroy, TRUE);
      g_mutex_lock (&log.steps.lock);
      in_place = log.steps.order->len == before + 2 && log.steps.ran_on == g_thread_self ();
      g_mutex_unlock (&log.steps.lock);
    }
  CU_ASSERT_TRUE (in_place);
  CU_ASSERT_TRUE (log.in_worker);
  CU_ASSERT_TRUE (log.in_place);
  CU_ASSERT_TRUE (log.code_running);
  CU_ASSERT_FALSE (zkr__executor_in_worker (log.executor));
  CU_ASSERT_FALSE (zkr__executor_code_running ());
  CU_ASSERT_TRUE (zkr__executor_count_in_place_posts (log.executor) >= 1);
  /* The owner's reference taken for the run was given back. */
  CU_ASSERT_TRUE (g_atomic_ref_count_dec (&owner_ref));
  log_stop (&log);
  step_log_clear (&log.steps);
}

static void
test_executor__a_queued_post_that_may_not_run_in_place_holds_back_the_rest (void)
{
  Log log;
  g_autofree char *order = NULL;

  log_init (&log);
  zkr__executor_post_quiet (log.executor, step_run, step_new (&log.steps, 'a'), step_destroy);
  zkr__executor_post_in_place (log.executor, step_run, step_new (&log.steps, 'b'), step_destroy, TRUE);
  CU_ASSERT_TRUE (step_log_wait_count (&log.steps, 2));
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "ab");
  CU_ASSERT_PTR_NOT_EQUAL (log.steps.ran_on, g_thread_self ());
  CU_ASSERT_EQUAL (zkr__executor_count_in_place_posts (log.executor), 0);
  log_stop (&log);
  step_log_clear (&log.steps);
}

/* ---- timers ---------------------------------------------------------- */

static guint
timer_add (Log *log, guint delay_ms, guint slack_ms, char letter)
{
  return zkr__executor_timer_add (log->executor, delay_ms, slack_ms, step_run,
                                  step_new (&log->steps, letter), step_destroy);
}

static void
test_executor__timers_run_in_time_order (void)
{
  Log log;
  g_autofree char *order = NULL;

  log_init (&log);
  zkr__executor_stand_in_begin (log.executor);
  timer_add (&log, 60, 0, 'c');
  timer_add (&log, 20, 0, 'a');
  timer_add (&log, 40, 0, 'b');
  zkr__executor_stand_in_end (log.executor);
  CU_ASSERT_TRUE (step_log_wait_count (&log.steps, 3));
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "abc");
  CU_ASSERT_TRUE (log.in_worker);
  CU_ASSERT_PTR_NOT_EQUAL (log.steps.ran_on, g_thread_self ());
  log_stop (&log);
  CU_ASSERT_EQUAL (log.steps.destroyed, 3);
  step_log_clear (&log.steps);
}

static void
test_executor__a_removed_timer_never_runs (void)
{
  Log log;
  guint removed, cleared;
  g_autofree char *order = NULL;

  log_init (&log);
  zkr__executor_stand_in_begin (log.executor);
  removed = timer_add (&log, 20, 0, 'r');
  cleared = timer_add (&log, 30, 0, 'c');
  timer_add (&log, 80, 0, 'k');
  zkr__executor_timer_remove (log.executor, removed);
  zkr__executor_timer_clear (log.executor, &cleared);
  CU_ASSERT_EQUAL (cleared, 0);
  zkr__executor_timer_clear (log.executor, &cleared);
  zkr__executor_stand_in_end (log.executor);
  CU_ASSERT_EQUAL (log.steps.destroyed, 2);
  CU_ASSERT_TRUE (step_log_wait_count (&log.steps, 1));
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "k");
  log_stop (&log);
  step_log_clear (&log.steps);
}

/* Posts and timers are recycled (core/executor.c keeps up to 64 spares of
 * each): batches larger than that, twice, still run every post once and
 * in order, and every timer removed unrun is destroyed, not run. */
static void
test_executor__posts_and_timers_beyond_the_spares_run_once_in_order (void)
{
  enum { BATCH = 150 };
  Log log;
  char expected[2 * BATCH + 1];
  g_autofree char *order = NULL;
  guint ids[BATCH];

  log_init (&log);
  for (guint round = 0; round < 2; round++)
    {
      /* Held back by the stand-in: one batch of BATCH for the worker. */
      zkr__executor_stand_in_begin (log.executor);
      for (guint i = 0; i < BATCH; i++)
        {
          expected[round * BATCH + i] = (char) ('a' + (round * BATCH + i) % 26);
          post (&log, expected[round * BATCH + i]);
          ids[i] = timer_add (&log, 60000, 0, 'T');
        }
      for (guint i = 0; i < BATCH; i++)
        zkr__executor_timer_remove (log.executor, ids[i]);
      zkr__executor_stand_in_end (log.executor);
      CU_ASSERT_TRUE (step_log_wait_count (&log.steps, (round + 1) * BATCH));
    }
  expected[2 * BATCH] = '\0';
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, expected);
  log_stop (&log);
  CU_ASSERT_EQUAL (log.steps.destroyed, 4 * BATCH);
  step_log_clear (&log.steps);
}

/* The worker sleeps until a timer 10 s away; one added from a stand-in for
 * 50 ms from now must wake it. */
static void
test_executor__a_sooner_timer_from_a_stand_in_wakes_the_worker (void)
{
  Log log;
  gint64 added, fired;
  g_autofree char *order = NULL;

  log_init (&log);
  zkr__executor_stand_in_begin (log.executor);
  timer_add (&log, 10000, 0, 'l');
  zkr__executor_stand_in_end (log.executor);
  g_usleep (50 * 1000);
  zkr__executor_stand_in_begin (log.executor);
  added = g_get_monotonic_time ();
  timer_add (&log, 50, 0, 's');
  /* One with slack, due sooner but latest only in 5 s: it needs no wake-up
   * of its own and runs with the first one after it is due, s's. */
  timer_add (&log, 40, 5000, 't');
  zkr__executor_stand_in_end (log.executor);
  CU_ASSERT_TRUE (step_log_wait_count (&log.steps, 2));
  fired = g_get_monotonic_time ();
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "ts");
  CU_ASSERT_TRUE (fired - added >= 50 * 1000);
  /* Neither the long timer's wake-up nor the slack's end (allowing for a
   * slow test machine). */
  CU_ASSERT_TRUE (fired - added < 4 * G_USEC_PER_SEC);
  log_stop (&log);
  /* The long timer was dropped unrun, its destroy run. */
  CU_ASSERT_EQUAL (log.steps.destroyed, 3);
  g_free (order);
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "ts");
  step_log_clear (&log.steps);
}

/* ---- stopping and freeing -------------------------------------------- */

typedef struct {
  Log *log;
  ZkrWait exited;
  GThread *exited_on;
  ZkrExecutor *executor;
} Stopper;

static void
stopper_exited (gpointer data)
{
  Stopper *stopper = data;

  stopper->exited_on = g_thread_self ();
  /* Drops the post and the timer queued behind the quit. */
  zkr__executor_free (stopper->executor);
  zkr__wait_done (&stopper->exited);
}

/* On the worker, in the batch that quits: queues a post and a timer that
 * no later wake-up runs. */
static gboolean
stopper_late (gpointer data)
{
  Stopper *stopper = data;

  post (stopper->log, 'x');
  timer_add (stopper->log, 10000, 0, 'y');
  return G_SOURCE_REMOVE;
}

/* On the worker: stops it (the quit is queued), then queues the above
 * behind the quit. */
static gboolean
stopper_run (gpointer data)
{
  Stopper *stopper = data;

  zkr__executor_stop (stopper->executor, stopper_exited, stopper);
  zkr__executor_post (stopper->executor, stopper_late, stopper, NULL);
  return G_SOURCE_REMOVE;
}

static void
test_executor__stopping_from_the_worker_drops_what_comes_after (void)
{
  Log log;
  Stopper stopper = { 0 };
  g_autofree char *order = NULL;

  log_init (&log);
  stopper.log = &log;
  stopper.executor = log.executor;
  zkr__wait_init (&stopper.exited);
  post (&log, 'a');
  zkr__executor_post (log.executor, stopper_run, &stopper, NULL);
  zkr__wait_block (&stopper.exited);
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "a");
  CU_ASSERT_PTR_NOT_NULL (stopper.exited_on);
  CU_ASSERT_PTR_NOT_EQUAL (stopper.exited_on, g_thread_self ());
  /* 'a' after running; 'x' and 'y' dropped unrun. */
  CU_ASSERT_EQUAL (log.steps.destroyed, 3);
  step_log_clear (&log.steps);
}

static void
test_executor__stopping_from_another_thread_runs_what_was_queued (void)
{
  Log log;
  g_autofree char *order = NULL;

  log_init (&log);
  post (&log, 'a');
  zkr__executor_post_quiet (log.executor, step_run, step_new (&log.steps, 'b'), step_destroy);
  log_stop (&log);
  order = step_log_dup_order (&log.steps);
  CU_ASSERT_STRING_EQUAL (order, "ab");
  CU_ASSERT_EQUAL (log.steps.destroyed, 2);
  step_log_clear (&log.steps);
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_executor__posts_run_in_posting_order),
    ZKR_TEST_CASE (test_executor__quiet_post_waits_for_the_next_waking_post),
    ZKR_TEST_CASE (test_executor__a_stand_in_keeps_the_worker_out),
    ZKR_TEST_CASE (test_executor__a_thread_blocked_standing_in_runs_the_posts),
    ZKR_TEST_CASE (test_executor__a_stand_in_runs_its_due_deadline_timer_itself),
    ZKR_TEST_CASE (test_executor__a_waking_in_place_post_runs_on_the_posting_thread),
    ZKR_TEST_CASE (test_executor__a_queued_post_that_may_not_run_in_place_holds_back_the_rest),
    ZKR_TEST_CASE (test_executor__timers_run_in_time_order),
    ZKR_TEST_CASE (test_executor__a_removed_timer_never_runs),
    ZKR_TEST_CASE (test_executor__a_sooner_timer_from_a_stand_in_wakes_the_worker),
    ZKR_TEST_CASE (test_executor__posts_and_timers_beyond_the_spares_run_once_in_order),
    ZKR_TEST_CASE (test_executor__stopping_from_the_worker_drops_what_comes_after),
    ZKR_TEST_CASE (test_executor__stopping_from_another_thread_runs_what_was_queued),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "executor", NULL, NULL, tests);
}
