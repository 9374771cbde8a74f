/* zkr integration: the session's asynchronous calls (connect, the wait for
 * the connection, close) answer in the caller's context, by their deadline
 * or soon after a cancel in every session state (through the proxy), and
 * the last unref never waits (docs/design.md §2.6). */

#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "proxy.h"
#include "session-private.h"
#include "zkr-test.h"

#define WAIT_MS 30000
/* How much later than its deadline (or its cancel) a call may answer: the
 * hand-offs of a sanitizer build on a loaded 2-core machine (as
 * test-deadlines.c). */
#define MARGIN_MS 750
/* A timeout is not answered before its deadline (timers count whole ms). */
#define EARLY_MS 20
#define CALL_TIMEOUT_MS 1000
#define CANCEL_AFTER_MS 300
/* SUSPENDED 2/3 T after the last byte (2.7 s), LOST at T (4 s). */
#define SHORT_SESSION_MS 4000

typedef void (*StartFunc) (gpointer data, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data);

/* The answer of one async call made from this thread, and how long it took
 * from the call (or from the cancel, when one is set to fire). */
typedef struct {
  ItestAsync async;
  GCancellable *cancellable;
  gint64 started;
  gint64 cancelled_at;
  gint64 answered_ms;
} Answered;

static gboolean
cancel_fire (gpointer data)
{
  Answered *answered = data;

  answered->cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (answered->cancellable);
  return G_SOURCE_REMOVE;
}

/* Makes the call in a context of its own, thread-default meanwhile; with
 * @cancel_after_ms >= 0 cancels it then (from that context). Returns the
 * result (owned by @answered) or NULL when no answer came in WAIT_MS. */
static GAsyncResult *
answered_call (Answered *answered, StartFunc start, gpointer data, int cancel_after_ms)
{
  GMainContext *context = g_main_context_new ();
  GAsyncResult *result;
  GSource *timer = NULL;

  memset (answered, 0, sizeof *answered);
  g_main_context_push_thread_default (context);
  itest_async_begin (&answered->async);
  answered->cancellable = g_cancellable_new ();
  if (cancel_after_ms >= 0)
    {
      timer = g_timeout_source_new (cancel_after_ms);
      g_source_set_callback (timer, cancel_fire, answered, NULL);
      g_source_attach (timer, context);
    }
  answered->started = g_get_monotonic_time ();
  start (data, answered->cancellable, itest_async_done, &answered->async);
  result = itest_async_wait (&answered->async, WAIT_MS);
  answered->answered_ms = itest_elapsed_ms (answered->cancelled_at != 0 ? answered->cancelled_at
                                                                        : answered->started);
  if (timer != NULL)
    {
      g_source_destroy (timer);
      g_source_unref (timer);
    }
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
  return result;
}

static void
answered_end (Answered *answered)
{
  itest_async_end (&answered->async);
  g_clear_object (&answered->cancellable);
}

/* -- the calls ------------------------------------------------------------ */

static void
connect_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
               gpointer user_data)
{
  zkr_session_connect_async (data, cancellable, callback, user_data);
}

typedef struct {
  ZkrSession *session;
  int timeout_ms;
} WaitCall;

static void
wait_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
            gpointer user_data)
{
  WaitCall *call = data;

  zkr_session_wait_connected_async (call->session, call->timeout_ms, cancellable, callback,
                                    user_data);
}

static void
close_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
             gpointer user_data)
{
  zkr_session_close_async (data, cancellable, callback, user_data);
}

/* A wait for the connection: TRUE, or FALSE with @error set. */
static gboolean
wait_connected (Answered *answered, ZkrSession *session, int timeout_ms, int cancel_after_ms,
                GError **error)
{
  WaitCall call = { session, timeout_ms };
  GAsyncResult *result = answered_call (answered, wait_start, &call, cancel_after_ms);

  CU_ASSERT_PTR_NOT_NULL_FATAL (result);
  return zkr_session_wait_connected_finish (session, result, error);
}

/* A timeout answered by its deadline, not before. */
static void
assert_timed_out (const Answered *answered, const GError *error, int timeout_ms)
{
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (answered->answered_ms >= timeout_ms - EARLY_MS);
  CU_ASSERT_TRUE (answered->answered_ms <= timeout_ms + MARGIN_MS);
  if (answered->answered_ms > timeout_ms + MARGIN_MS)
    g_printerr ("a %d ms timeout answered after %" G_GINT64_FORMAT " ms\n", timeout_ms,
                answered->answered_ms);
}

static void
assert_cancelled_promptly (const Answered *answered, const GError *error)
{
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_TRUE (answered->cancelled_at != 0);
  CU_ASSERT_TRUE (answered->answered_ms <= MARGIN_MS);
}

/* -- connect and close ---------------------------------------------------- */

/* connect_async answers a connected session in the caller's context;
 * close_async closes it (CLOSED, its ephemeral node gone) and answers TRUE
 * again once closed. */
static void
test_session_async__connects_and_closes (void)
{
  g_autoptr (ZkrSessionOptions) options = itest_options (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  g_autofree char *root = itest_scratch_path ("session-async-connect");
  g_autofree char *node = g_strdup_printf ("%s/mine", root);
  ZkrSession *direct = itest_connect (itest_hosts (), 10000);
  ZkrSession *session;
  Answered answered;
  ItestNodeAt gone = { direct, node };

  CU_ASSERT_PTR_NOT_NULL_FATAL (direct);
  session = zkr_session_connect_finish (answered_call (&answered, connect_start, options, -1),
                                        &error);
  answered_end (&answered);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE (zkr_session_is_connected (session));
  CU_ASSERT_TRUE (zkr_node_create (session, node, NULL, 0, ZKR_CREATE_EPHEMERAL,
                                   ZKR_CREATE_PARENTS_CONTAINER, ITEST_CALL_MS, NULL, NULL, NULL,
                                   &error));

  CU_ASSERT_TRUE (zkr_session_close_finish (session, answered_call (&answered, close_start,
                                                                     session, -1),
                                            &error));
  answered_end (&answered);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_EQUAL (zkr_session_get_state (session), ZKR_SESSION_STATE_CLOSED);
  CU_ASSERT_TRUE (itest_wait_for (itest_node_gone, &gone, WAIT_MS));
  /* Idempotent. */
  CU_ASSERT_TRUE (zkr_session_close_finish (session, answered_call (&answered, close_start,
                                                                     session, -1),
                                            &error));
  answered_end (&answered);
  CU_ASSERT_FALSE (wait_connected (&answered, session, CALL_TIMEOUT_MS, -1, &error));
  answered_end (&answered);
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  zkr_session_unref (session);
  itest_assert_path_clean (direct, root);
  zkr_session_unref (direct);
}

/* Bad options are answered in the callback (never inside the call), naming
 * the value. */
static void
test_session_async__connect_answers_bad_options_in_the_callback (void)
{
  g_autoptr (ZkrSessionOptions) options = itest_options ("127.0.0.1:notaport", 10000);
  g_autoptr (GError) error = NULL;
  Answered answered;

  CU_ASSERT_PTR_NULL (zkr_session_connect_finish (answered_call (&answered, connect_start,
                                                                 options, -1),
                                                  &error));
  answered_end (&answered);
  itest_assert_invalid_naming (error, "notaport");
}

/* Through a black hole from the start: the connect answers TIMEOUT by the
 * connection timeout, or CANCELLED soon after a cancel. */
static void
test_session_async__connect_answers_by_its_deadline_while_black_holed (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSessionOptions) options = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  Answered answered;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  address = zkr_test_proxy_dup_address (proxy);
  zkr_test_proxy_blackhole (proxy);
  options = itest_options (address, 10000);
  zkr_session_options_set_connection_timeout_ms (options, CALL_TIMEOUT_MS);
  CU_ASSERT_PTR_NULL (zkr_session_connect_finish (answered_call (&answered, connect_start,
                                                                 options, -1),
                                                  &error));
  assert_timed_out (&answered, error, CALL_TIMEOUT_MS);
  answered_end (&answered);
  g_clear_error (&error);

  zkr_session_options_set_connection_timeout_ms (options, WAIT_MS);
  CU_ASSERT_PTR_NULL (zkr_session_connect_finish (answered_call (&answered, connect_start,
                                                                 options, CANCEL_AFTER_MS),
                                                  &error));
  assert_cancelled_promptly (&answered, error);
  answered_end (&answered);
  zkr_test_proxy_free (proxy);
}

/* -- the wait for the connection in every state --------------------------- */

static void
assert_wait_times_out (ZkrSession *session)
{
  g_autoptr (GError) error = NULL;
  Answered answered;

  CU_ASSERT_FALSE (wait_connected (&answered, session, CALL_TIMEOUT_MS, -1, &error));
  assert_timed_out (&answered, error, CALL_TIMEOUT_MS);
  answered_end (&answered);
}

static void
assert_wait_cancels (ZkrSession *session)
{
  g_autoptr (GError) error = NULL;
  Answered answered;

  CU_ASSERT_FALSE (wait_connected (&answered, session, -1, CANCEL_AFTER_MS, &error));
  assert_cancelled_promptly (&answered, error);
  answered_end (&answered);
}

/* Connected: TRUE at once (even cancelled); SUSPENDED and LOST behind a
 * black hole: TIMEOUT by the deadline, CANCELLED soon after a cancel;
 * healed: TRUE once the fresh session connects. */
static void
test_session_async__wait_connected_answers_by_its_deadline_in_every_state (void)
{
  g_autoptr (GError) error = NULL;
  ItestProxied f;
  Answered answered;

  itest_proxied_init (&f, NULL, "session-async-wait", SHORT_SESSION_MS);
  CU_ASSERT_TRUE (wait_connected (&answered, f.proxied, CALL_TIMEOUT_MS, 0, &error));
  CU_ASSERT_PTR_NULL (error);
  answered_end (&answered);

  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_SUSPENDED, 0,
                                             WAIT_MS, NULL) >= 0);
  assert_wait_times_out (f.proxied);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_LOST, 0,
                                             WAIT_MS, NULL) >= 0);
  assert_wait_times_out (f.proxied);
  assert_wait_cancels (f.proxied);

  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (wait_connected (&answered, f.proxied, WAIT_MS, -1, &error));
  CU_ASSERT_PTR_NULL (error);
  answered_end (&answered);
  itest_proxied_finish (&f, FALSE);
}

/* -- close while black-holed, and the last unref --------------------------- */

/* A close through a black hole answers (the server cannot be told: the
 * session's ephemeral node goes when the server expires it), and a
 * cancelled close answers CANCELLED at once while the close goes on. */
static void
test_session_async__close_answers_while_black_holed (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  ItestProxied f;
  Answered answered;

  itest_proxied_init (&f, NULL, "session-async-close", SHORT_SESSION_MS);
  node = g_strdup_printf ("%s/mine", f.root);
  CU_ASSERT_TRUE (zkr_node_create (f.proxied, node, NULL, 0, ZKR_CREATE_EPHEMERAL,
                                   ZKR_CREATE_PARENTS_NONE, ITEST_CALL_MS, NULL, NULL, NULL,
                                   &error));
  itest_proxied_black_hole (&f);
  CU_ASSERT_FALSE (zkr_session_close_finish (f.proxied,
                                             answered_call (&answered, close_start, f.proxied, 0),
                                             &error));
  assert_cancelled_promptly (&answered, error);
  answered_end (&answered);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_session_close_finish (f.proxied,
                                            answered_call (&answered, close_start, f.proxied, -1),
                                            &error));
  g_printerr ("close through a black hole answered in %" G_GINT64_FORMAT " ms\n",
              answered.answered_ms);
  answered_end (&answered);
  CU_ASSERT_EQUAL (zkr_session_get_state (f.proxied), ZKR_SESSION_STATE_CLOSED);
  itest_recorder_free (f.recorder);
  zkr_session_unref (g_steal_pointer (&f.proxied));
  itest_proxied_finish (&f, TRUE);
}

typedef struct {
  GMutex lock;
  GCond cond;
  gboolean entered;
  gboolean release;
} Blocker;

/* On the session's worker: holds it until the test releases it. */
static gboolean
worker_blocked (gpointer data)
{
  Blocker *blocker = data;

  g_mutex_lock (&blocker->lock);
  blocker->entered = TRUE;
  g_cond_broadcast (&blocker->cond);
  while (!blocker->release)
    g_cond_wait (&blocker->cond, &blocker->lock);
  g_mutex_unlock (&blocker->lock);
  return G_SOURCE_REMOVE;
}

static gboolean
worker_entered (gpointer data)
{
  Blocker *blocker = data;
  gboolean entered;

  g_mutex_lock (&blocker->lock);
  entered = blocker->entered;
  g_mutex_unlock (&blocker->lock);
  return entered;
}

/* The last unref returns while the session's worker is busy (it used to
 * wait for the close there); the worker then closes the session, whose
 * ephemeral node goes at once, and frees it. */
static void
test_session_async__the_last_unref_never_waits (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *root = itest_scratch_path ("session-async-unref");
  g_autofree char *node = g_strdup_printf ("%s/mine", root);
  ZkrSession *direct = itest_connect (itest_hosts (), 10000);
  Blocker blocker = { 0 };
  ItestNodeAt gone = { direct, node };
  ItestInThread last;
  ZkrSession *session;

  CU_ASSERT_PTR_NOT_NULL_FATAL (direct);
  session = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE (zkr_node_create (session, node, NULL, 0, ZKR_CREATE_EPHEMERAL,
                                   ZKR_CREATE_PARENTS_CONTAINER, ITEST_CALL_MS, NULL, NULL, NULL,
                                   &error));
  g_mutex_init (&blocker.lock);
  g_cond_init (&blocker.cond);
  zkr__session_post (session, worker_blocked, &blocker, NULL);
  CU_ASSERT_TRUE (itest_wait_for (worker_entered, &blocker, WAIT_MS));
  itest_in_thread_start (&last, "last-unref", (GDestroyNotify) zkr_session_unref, session);
  CU_ASSERT_TRUE (itest_wait_for (itest_in_thread_returned, &last, WAIT_MS));
  /* Still there: the close waits behind the busy worker. */
  CU_ASSERT_FALSE (itest_node_absent (direct, node));

  g_mutex_lock (&blocker.lock);
  blocker.release = TRUE;
  g_cond_broadcast (&blocker.cond);
  g_mutex_unlock (&blocker.lock);
  itest_in_thread_join (&last);
  CU_ASSERT_TRUE (itest_wait_for (itest_node_gone, &gone, WAIT_MS));
  zkr_session_unref (direct);
  CU_ASSERT_TRUE (zkr__session_wait_all_freed (WAIT_MS));
  g_mutex_clear (&blocker.lock);
  g_cond_clear (&blocker.cond);
  direct = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (direct);
  itest_assert_path_clean (direct, root);
  zkr_session_unref (direct);
}

typedef struct {
  ZkrSession *session; /* (owned) the only reference */
  gboolean answer;
  GError *error;
  gboolean done;
} OwnCallback;

static void
closed_then_unref (GObject *source, GAsyncResult *result, gpointer data)
{
  OwnCallback *own = data;

  (void) source;
  own->answer = zkr_session_close_finish (own->session, result, &own->error);
  zkr_session_unref (g_steal_pointer (&own->session));
  own->done = TRUE;
}

static void
waited_then_unref (GObject *source, GAsyncResult *result, gpointer data)
{
  OwnCallback *own = data;

  (void) source;
  own->answer = zkr_session_wait_connected_finish (own->session, result, &own->error);
  zkr_session_unref (g_steal_pointer (&own->session));
  own->done = TRUE;
}

static gboolean
own_callback_done (gpointer data)
{
  g_main_context_iteration (g_main_context_get_thread_default (), FALSE);
  return ((OwnCallback *) data)->done;
}

/* The only reference dropped inside the callback of the session's own
 * close_async, and of its wait for the connection while it is connecting:
 * nothing touches the session after, and it is freed. */
static void
test_session_async__the_last_unref_inside_its_own_callback (void)
{
  g_autoptr (ZkrSessionOptions) options = itest_options (itest_hosts (), 10000);
  OwnCallback own = { 0 };
  GMainContext *context = g_main_context_new ();

  g_main_context_push_thread_default (context);
  own.session = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (own.session);
  zkr_session_close_async (own.session, NULL, closed_then_unref, &own);
  CU_ASSERT_TRUE (itest_wait_for (own_callback_done, &own, WAIT_MS));
  CU_ASSERT_TRUE (own.answer);
  CU_ASSERT_PTR_NULL (own.error);

  own = (OwnCallback) { 0 };
  own.session = zkr_session_new (options, &own.error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (own.session);
  zkr_session_wait_connected_async (own.session, WAIT_MS, NULL, waited_then_unref, &own);
  CU_ASSERT_TRUE (itest_wait_for (own_callback_done, &own, WAIT_MS));
  CU_ASSERT_TRUE (own.answer);
  CU_ASSERT_PTR_NULL (own.error);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
  CU_ASSERT_TRUE (zkr__session_wait_all_freed (WAIT_MS));
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_session_async__connects_and_closes),
    ZKR_TEST_CASE (test_session_async__connect_answers_bad_options_in_the_callback),
    ZKR_TEST_CASE (test_session_async__connect_answers_by_its_deadline_while_black_holed),
    ZKR_TEST_CASE (test_session_async__wait_connected_answers_by_its_deadline_in_every_state),
    ZKR_TEST_CASE (test_session_async__close_answers_while_black_holed),
    ZKR_TEST_CASE (test_session_async__the_last_unref_never_waits),
    ZKR_TEST_CASE (test_session_async__the_last_unref_inside_its_own_callback),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "session-async", NULL, NULL, tests);
}
