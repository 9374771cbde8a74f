/* zkr integration: the session manager against the real 3-node loopback
 * ensemble and the partitioning proxy. */

#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "nodes.h"
#include "nodename.h"
#include "proxy.h"
#include "zkr-test.h"

/* Short enough for the suite to stay quick, long enough for a loaded
 * 2-core machine not to expire sessions by accident. */
#define SHORT_TIMEOUT_MS 4000
#define WAIT_MS 30000

static void
test_session__connects_and_closes_with_states_in_order (void)
{
  ItestRecorder *recorder;
  ZkrSession *session = itest_connect_recorded (itest_hosts (), 10000, &recorder);
  g_autofree char *states = NULL;
  g_autofree char *host = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (itest_recorder_wait_nth (recorder, 0, WAIT_MS), ZKR_SESSION_STATE_CONNECTED);
  CU_ASSERT_NOT_EQUAL (zkr_session_get_id (session), 0);
  CU_ASSERT_TRUE (zkr_session_get_timeout_ms (session) > 0);
  host = zkr_session_dup_connected_host (session);
  CU_ASSERT_TRUE (itest_server_index (host) > 0);
  CU_ASSERT_TRUE (zkr_session_get_last_ok_send (session) > 0);
  zkr_session_close (session);
  CU_ASSERT_EQUAL (itest_recorder_wait_nth (recorder, 1, WAIT_MS), ZKR_SESSION_STATE_CLOSED);
  CU_ASSERT_EQUAL (zkr_session_get_state (session), ZKR_SESSION_STATE_CLOSED);
  states = itest_recorder_describe (recorder);
  CU_ASSERT_STRING_EQUAL (states, "CONNECTED,CLOSED");
  CU_ASSERT_TRUE (itest_recorder_all_on_own_thread (recorder));
  zkr_session_close (session); /* idempotent */
  itest_recorder_free (recorder);
  zkr_session_unref (session);
}

static void
test_session__bad_hosts_fail_within_the_connection_timeout (void)
{
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GError) error = NULL;
  ZkrSession *session;
  gint64 start;

  /* Nothing listens on port 1 of the loopback. */
  zkr_session_options_set_hosts (options, "127.0.0.1:1");
  zkr_session_options_set_connection_timeout_ms (options, 1500);
  start = g_get_monotonic_time ();
  session = zkr_session_connect (options, &error);
  CU_ASSERT_PTR_NULL (session);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "127.0.0.1:1") : NULL);
  /* The call returned by its deadline (plus slack for a loaded machine);
   * this bounds a wait, it measures nothing. */
  CU_ASSERT_TRUE (g_get_monotonic_time () - start < 10 * G_USEC_PER_SEC);
  g_clear_error (&error);

  zkr_session_options_set_hosts (options, "127.0.0.1:2181,,127.0.0.1:2182");
  CU_ASSERT_PTR_NULL (zkr_session_new (options, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "127.0.0.1:2181,,127.0.0.1:2182") : NULL);
  g_clear_error (&error);

  zkr_session_options_set_hosts (options, "");
  CU_ASSERT_PTR_NULL (zkr_session_new (options, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);

  zkr_session_options_set_hosts (options, "127.0.0.1:2181/bad//chroot");
  CU_ASSERT_PTR_NULL (zkr_session_new (options, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);

  zkr_session_options_set_hosts (options, "127.0.0.1:2181");
  zkr_session_options_set_session_timeout_ms (options, 0);
  CU_ASSERT_PTR_NULL (zkr_session_new (options, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "0 ms") : NULL);
  g_clear_error (&error);

  zkr_session_options_set_session_timeout_ms (options, 5000);
  zkr_session_options_set_digest_auth (options, "user", "s3cret-password");
  zkr_session_options_set_namespace (options, "bad//ns");
  CU_ASSERT_PTR_NULL (zkr_session_new (options, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NULL (error != NULL ? strstr (error->message, "s3cret") : NULL);
}

/* SIGSTOP the server the session uses, a follower (a paused leader would
 * also test ZooKeeper's election: see the leader test below), for less
 * than the session timeout. */
static void
test_session__suspends_and_reconnects_when_its_server_pauses (void)
{
  g_autofree char *followers = itest_followers_hosts ();
  ItestRecorder *recorder;
  ZkrSession *session = itest_connect_recorded (followers, 10000, &recorder);
  g_autofree char *host = NULL;
  g_autofree char *command = NULL;
  g_autofree char *states = NULL;
  gint64 id;
  guint server;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  id = zkr_session_get_id (session);
  host = zkr_session_dup_connected_host (session);
  server = itest_server_index (host);
  CU_ASSERT_FATAL (server > 0);
  command = g_strdup_printf ("pause %u", server);
  CU_ASSERT_FATAL (itest_ensemble (command));
  CU_ASSERT_TRUE (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_SUSPENDED, 0, WAIT_MS, NULL) > 0);
  g_free (command);
  command = g_strdup_printf ("resume %u", server);
  CU_ASSERT (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_RECONNECTED, 0, WAIT_MS, NULL) > 0);
  CU_ASSERT_FATAL (itest_ensemble (command));
  CU_ASSERT_EQUAL (zkr_session_get_id (session), id);
  CU_ASSERT_EQUAL (zkr_session_get_lost_count (session), 0);
  /* Never LOST. */
  states = itest_recorder_describe (recorder);
  CU_ASSERT_TRUE (g_str_has_prefix (states, "CONNECTED,SUSPENDED,RECONNECTED"));
  CU_ASSERT_PTR_NULL (strstr (states, "LOST"));
  itest_recorder_free (recorder);
  zkr_session_unref (session);
}

static void
test_session__suspends_and_reconnects_through_a_healed_partition (void)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  g_autofree char *states = NULL;
  ItestRecorder *recorder;
  ZkrSession *session;
  gint64 id;
  guint from;
  int suspended;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  address = zkr_test_proxy_dup_address (proxy);
  session = itest_connect_recorded (address, 10000, &recorder);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  id = zkr_session_get_id (session);
  from = itest_recorder_count (recorder);
  zkr_test_proxy_blackhole (proxy);
  suspended = itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_SUSPENDED, from, WAIT_MS, NULL);
  CU_ASSERT_FATAL (suspended >= 1);
  zkr_test_proxy_heal (proxy);
  CU_ASSERT (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_RECONNECTED, suspended,
                                        WAIT_MS, NULL) == suspended + 1);
  CU_ASSERT_EQUAL (zkr_session_get_id (session), id);
  CU_ASSERT_EQUAL (zkr_session_get_lost_count (session), 0);
  states = itest_recorder_describe (recorder);
  CU_ASSERT_TRUE (g_str_has_prefix (states, "CONNECTED,"));
  CU_ASSERT_TRUE (g_str_has_suffix (states, ",SUSPENDED,RECONNECTED"));
  itest_recorder_free (recorder);
  zkr_session_unref (session);
  zkr_test_proxy_free (proxy);
}

/* A zkr_session_wait_connected() in a thread of its own. */
typedef struct {
  ZkrSession *session;
  GCancellable *cancellable;
  gboolean connected;
  GError *error;
  gint started;   /* atomic */
  gint done;      /* atomic; set after connected and error */
} ConnectWait;

static gpointer
connect_wait_run (gpointer data)
{
  ConnectWait *wait = data;

  g_atomic_int_set (&wait->started, 1);
  wait->connected = zkr_session_wait_connected (wait->session, -1, wait->cancellable,
                                                &wait->error);
  g_atomic_int_set (&wait->done, 1);
  return NULL;
}

static gboolean
connect_wait_started (gpointer data)
{
  return g_atomic_int_get (&((ConnectWait *) data)->started) == 1;
}

static gboolean
connect_wait_done (gpointer data)
{
  return g_atomic_int_get (&((ConnectWait *) data)->done) == 1;
}

/* A wait for the connection without a deadline, on a session black-holed
 * from its start (CONNECTING for good: no state change wakes the wait), is
 * answered G_IO_ERROR_CANCELLED once cancelled from another thread; an
 * already cancelled one at once; a connected session answers TRUE whatever
 * the cancellable says. */
static void
test_session__a_connection_wait_is_answered_cancelled_while_black_holed (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancelled = g_cancellable_new ();
  g_autoptr (ZkrSessionOptions) options = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  ConnectWait wait = { 0 };
  g_autofree char *address = NULL;
  GThread *thread;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  address = zkr_test_proxy_dup_address (proxy);
  zkr_test_proxy_blackhole (proxy);
  options = itest_options (address, 10000);
  wait.session = zkr_session_new (options, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (wait.session);
  CU_ASSERT_FALSE (zkr_session_is_connected (wait.session));
  g_cancellable_cancel (cancelled);
  CU_ASSERT_FALSE (zkr_session_wait_connected (wait.session, -1, cancelled, &error));
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);

  wait.cancellable = g_cancellable_new ();
  thread = g_thread_new ("connect-wait", connect_wait_run, &wait);
  CU_ASSERT_TRUE (itest_wait_for (connect_wait_started, &wait, WAIT_MS));
  g_cancellable_cancel (wait.cancellable);
  CU_ASSERT_TRUE (itest_wait_for (connect_wait_done, &wait, WAIT_MS));
  /* A wait the cancel did not end: the connection ends it, so the thread
   * joins. */
  zkr_test_proxy_heal (proxy);
  g_thread_join (thread);
  CU_ASSERT_FALSE (wait.connected);
  ITEST_ASSERT_CANCELLED (wait.error);
  CU_ASSERT_PTR_NOT_NULL (wait.error != NULL ? strstr (wait.error->message, address) : NULL);

  CU_ASSERT_TRUE (zkr_session_wait_connected (wait.session, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_session_wait_connected (wait.session, 0, cancelled, &error));
  CU_ASSERT_PTR_NULL (error);
  g_clear_error (&wait.error);
  g_object_unref (wait.cancellable);
  zkr_session_unref (wait.session);
  zkr_test_proxy_free (proxy);
}

/* A blocking request whose reply never comes (black hole) while the
 * session is closed: libzookeeper may drop its completion when the handle
 * closes, and the caller must still get an answer. */
typedef struct {
  ZkrSession *session;
  int rc;
  gint done;   /* atomic; set after rc */
} BlockedRequest;

static gpointer
blocked_request_run (gpointer data)
{
  BlockedRequest *request = data;

  request->rc = zkr__op_test_exists (request->session, "/", NULL);
  g_atomic_int_set (&request->done, 1);
  return NULL;
}

static gboolean
blocked_request_done (gpointer data)
{
  return g_atomic_int_get (&((BlockedRequest *) data)->done) == 1;
}

static gboolean
blocking_request_sent (gpointer data)
{
  return zkr__op_test_count_blocking (data) == 1;
}

static void
test_session__a_blocking_request_in_flight_at_close_is_answered (void)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  /* On the heap, and leaked if the request never returns: the thread
   * still owns it then. */
  BlockedRequest *request = g_new0 (BlockedRequest, 1);
  GThread *thread;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  address = zkr_test_proxy_dup_address (proxy);
  /* Long enough that the black hole is not noticed before the close. */
  request->session = itest_connect (address, 20000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (request->session);
  CU_ASSERT_EQUAL (zkr__op_test_exists (request->session, "/", NULL), ZOK);
  zkr_test_proxy_blackhole (proxy);
  thread = g_thread_new ("blocked-request", blocked_request_run, request);
  /* Sent, and it cannot be answered. */
  CU_ASSERT_TRUE_FATAL (itest_wait_for (blocking_request_sent, request->session, WAIT_MS));
  CU_ASSERT_FALSE (blocked_request_done (request));
  zkr_session_close (request->session);
  CU_ASSERT_TRUE_FATAL (itest_wait_for (blocked_request_done, request, WAIT_MS));
  CU_ASSERT_NOT_EQUAL (request->rc, ZOK);
  g_thread_join (thread);
  zkr_session_unref (request->session);
  g_free (request);
  zkr_test_proxy_free (proxy);
}

/* Blocking requests racing a close with replies coming in: a close while
 * libzookeeper's completion thread is busy is when it drops completions.
 * Every caller must get an answer. */
#define RACE_THREADS 4
#define RACE_ROUNDS 30

typedef struct {
  ZkrSession *session;
  gint answered;   /* atomic: requests answered ZOK */
  gint finished;   /* atomic: threads that got a refusal and stopped */
} CloseRace;

static gpointer
close_race_run (gpointer data)
{
  CloseRace *race = data;

  while (zkr__op_test_exists (race->session, "/", NULL) == ZOK)
    g_atomic_int_inc (&race->answered);
  g_atomic_int_inc (&race->finished);
  return NULL;
}

static gboolean
close_race_warmed_up (gpointer data)
{
  return g_atomic_int_get (&((CloseRace *) data)->answered) >= 20 * RACE_THREADS;
}

static gboolean
close_race_all_finished (gpointer data)
{
  return g_atomic_int_get (&((CloseRace *) data)->finished) == RACE_THREADS;
}

static void
test_session__blocking_requests_racing_a_close_are_all_answered (void)
{
  for (int round = 0; round < RACE_ROUNDS; round++)
    {
      /* Leaked if a thread never returns: it still uses it then. */
      CloseRace *race = g_new0 (CloseRace, 1);
      GThread *threads[RACE_THREADS];

      race->session = itest_connect (itest_hosts (), 10000);
      CU_ASSERT_PTR_NOT_NULL_FATAL (race->session);
      for (int i = 0; i < RACE_THREADS; i++)
        threads[i] = g_thread_new ("close-race", close_race_run, race);
      CU_ASSERT_TRUE_FATAL (itest_wait_for (close_race_warmed_up, race, WAIT_MS));
      zkr_session_close (race->session);
      CU_ASSERT_TRUE_FATAL (itest_wait_for (close_race_all_finished, race, WAIT_MS));
      for (int i = 0; i < RACE_THREADS; i++)
        g_thread_join (threads[i]);
      zkr_session_unref (race->session);
      g_free (race);
    }
}

typedef struct {
  GMutex lock;
  GCond cond;
  gint64 deleted_at;
  int event_type;
} DeleteWatch;

static void
on_deleted (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  DeleteWatch *watch = user_data;

  (void) session;
  (void) path;
  g_mutex_lock (&watch->lock);
  watch->deleted_at = g_get_monotonic_time ();
  watch->event_type = event_type;
  g_cond_broadcast (&watch->cond);
  g_mutex_unlock (&watch->lock);
}

typedef struct {
  ZkrSession *session;
  const char *path;
  DeleteWatch *watch;
  int rc;
  gboolean done;
} WatchRequest;

static void
watch_set_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  WatchRequest *request = user_data;

  (void) session;
  g_mutex_lock (&request->watch->lock);
  request->rc = reply->rc;
  request->done = TRUE;
  g_cond_broadcast (&request->watch->cond);
  g_mutex_unlock (&request->watch->lock);
}

static gboolean
watch_set_in_worker (gpointer data)
{
  WatchRequest *request = data;

  zkr__watches_add (request->session, request->path, on_deleted, request->watch);
  zkr__op_exists (request->session, request->path, TRUE, watch_set_reply, request);
  return G_SOURCE_REMOVE;
}

/* The observer's watch on @path; returns the rc of the exists call. */
static int
watch_node (ZkrSession *observer, const char *path, DeleteWatch *watch)
{
  WatchRequest request = { observer, path, watch, 0, FALSE };

  zkr__session_post (observer, watch_set_in_worker, &request, NULL);
  g_mutex_lock (&watch->lock);
  while (!request.done)
    g_cond_wait (&watch->cond, &watch->lock);
  g_mutex_unlock (&watch->lock);
  return request.rc;
}

static gint64
wait_deleted (DeleteWatch *watch, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gint64 at;

  g_mutex_lock (&watch->lock);
  while (watch->deleted_at == 0 && g_cond_wait_until (&watch->cond, &watch->lock, deadline))
    ;
  at = watch->deleted_at;
  g_mutex_unlock (&watch->lock);
  return at;
}

/* A partition longer than the session timeout: the holder's safe deadline
 * passes before the server expires it (so a lock can be given up before
 * anyone else may take it), then LOST, then a fresh session after healing. */
static void
test_session__liveness_deadline_passes_before_the_server_expires_us (void)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  g_autofree char *base = itest_scratch_path ("liveness");
  g_autofree char *node = NULL;
  g_autofree char *states = NULL;
  ZkrSession *observer = itest_connect (itest_hosts (), 10000);
  DeleteWatch watch = { 0 };
  ItestRecorder *recorder;
  ZkrSession *session;
  gint64 id, safe_deadline, lost_at = 0, deleted_at;
  int suspended;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  CU_ASSERT_PTR_NOT_NULL_FATAL (observer);
  g_mutex_init (&watch.lock);
  g_cond_init (&watch.cond);
  address = zkr_test_proxy_dup_address (proxy);
  session = itest_connect_recorded (address, SHORT_TIMEOUT_MS, &recorder);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  id = zkr_session_get_id (session);
  node = g_strdup_printf ("%s/ephemeral", base);
  CU_ASSERT_EQUAL (zkr__op_test_create (observer, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL) == ZOK ||
                   zkr__op_test_exists (observer, "/zkr-it", NULL) == ZOK, TRUE);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (observer, base, NULL, -1, 0, NULL, NULL), ZOK);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (session, node, "x", 1, ZOO_EPHEMERAL, NULL, NULL), ZOK);
  /* The observer may use another member, which may not have applied the
   * create yet: without the sync its exists could say "no node" (and leave
   * a creation watch behind, aimed at this stack frame). */
  CU_ASSERT_EQUAL_FATAL (zkr__op_sync_path_sync (observer, node), ZOK);
  CU_ASSERT_EQUAL_FATAL (watch_node (observer, node, &watch), ZOK);

  zkr_test_proxy_blackhole (proxy);
  suspended = itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_SUSPENDED, 0, WAIT_MS, NULL);
  CU_ASSERT_EQUAL (suspended, 1);
  /* While suspended no answer arrives, so the safe deadline is fixed. */
  safe_deadline = zkr_session_get_safe_deadline (session);
  CU_ASSERT_TRUE (safe_deadline > 0);
  CU_ASSERT_TRUE (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_LOST, 0, WAIT_MS, &lost_at) == 2);
  deleted_at = wait_deleted (&watch, WAIT_MS);
  CU_ASSERT_TRUE_FATAL (deleted_at > 0);
  CU_ASSERT_EQUAL (watch.event_type, ZOO_DELETED_EVENT);
  /* The ordering that makes locks safe: our deadline came first. */
  CU_ASSERT_TRUE (safe_deadline < deleted_at);
  CU_ASSERT_TRUE (safe_deadline <= lost_at);

  zkr_test_proxy_heal (proxy);
  CU_ASSERT (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_CONNECTED, 3, WAIT_MS, NULL) == 3);
  CU_ASSERT_NOT_EQUAL (zkr_session_get_id (session), id);
  CU_ASSERT_EQUAL (zkr_session_get_lost_count (session), 1);
  states = itest_recorder_describe (recorder);
  CU_ASSERT_STRING_EQUAL (states, "CONNECTED,SUSPENDED,LOST,CONNECTED");
  CU_ASSERT_TRUE (itest_delete_tree (observer, base));
  itest_recorder_free (recorder);
  zkr_session_unref (session);
  zkr_session_unref (observer);
  zkr_test_proxy_free (proxy);
  g_mutex_clear (&watch.lock);
  g_cond_clear (&watch.cond);
}

static void
test_session__lost_then_fresh_session_when_expired_from_outside (void)
{
  ItestRecorder *recorder;
  ZkrSession *session = itest_connect_recorded (itest_hosts (), 10000, &recorder);
  ZkrSession *observer = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("expiry");
  g_autofree char *node = NULL;
  g_autofree char *states = NULL;
  gint64 id;
  int lost;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (observer);
  id = zkr_session_get_id (session);
  node = g_strdup_printf ("%s/ephemeral", base);
  zkr__op_test_create (observer, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (observer, base, NULL, -1, 0, NULL, NULL), ZOK);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (session, node, NULL, -1, ZOO_EPHEMERAL, NULL, NULL), ZOK);
  CU_ASSERT_FATAL (itest_expire_session (session));
  /* The server drops our connection when it closes the session, so
   * SUSPENDED may come first, even RECONNECTED to a member that has not yet
   * applied the close; then the expiry, then a fresh session. */
  lost = itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_LOST, 0, WAIT_MS, NULL);
  CU_ASSERT_FATAL (lost >= 1);
  CU_ASSERT (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_CONNECTED, lost, WAIT_MS, NULL) == lost + 1);
  CU_ASSERT_NOT_EQUAL (zkr_session_get_id (session), 0);
  CU_ASSERT_NOT_EQUAL (zkr_session_get_id (session), id);
  CU_ASSERT_EQUAL (zkr_session_get_lost_count (session), 1);
  CU_ASSERT_TRUE (itest_node_absent (observer, node));
  /* The fresh session works. */
  CU_ASSERT_EQUAL (zkr__op_test_exists (session, base, NULL), ZOK);
  states = itest_recorder_describe (recorder);
  CU_ASSERT_TRUE (g_str_has_prefix (states, "CONNECTED,"));
  CU_ASSERT_TRUE (g_str_has_suffix (states, ",LOST,CONNECTED"));
  CU_ASSERT_TRUE (itest_delete_tree (observer, base));
  itest_recorder_free (recorder);
  zkr_session_unref (session);
  zkr_session_unref (observer);
}

/* A connection can outlive its session: when a client takes over our
 * session on the same follower and closes it, the follower keeps our
 * connection and answers our reads and pings while the leader answers
 * every write "session expired" (seen in an expiry storm). The first such
 * answer must end the session: LOST, then a fresh one. Before, the session
 * looked connected for ever, a guaranteed delete retried in a loop and a
 * blocking acquire waited far past its timeout. The hook makes the server's
 * answer to one request "session expired". */
static void
test_session__a_request_answered_session_expired_means_lost (void)
{
  ItestRecorder *recorder;
  ZkrSession *session = itest_connect_recorded (itest_hosts (), 10000, &recorder);
  g_autofree char *states = NULL;
  gint64 id;
  int lost;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  id = zkr_session_get_id (session);
  zkr__session_test_rewrite_answers (session, ZSESSIONEXPIRED, 1);
  /* Our request or the session's own liveness ping gets that answer (so
   * ours may also end with the closed handle). */
  zkr__op_test_exists (session, "/", NULL);
  lost = itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_LOST, 0, WAIT_MS, NULL);
  CU_ASSERT_EQUAL_FATAL (lost, 1);
  CU_ASSERT (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_CONNECTED, lost, WAIT_MS, NULL) == 2);
  CU_ASSERT_NOT_EQUAL (zkr_session_get_id (session), id);
  CU_ASSERT_EQUAL (zkr_session_get_lost_count (session), 1);
  CU_ASSERT_EQUAL (zkr__op_test_exists (session, "/", NULL), ZOK);
  states = itest_recorder_describe (recorder);
  CU_ASSERT_STRING_EQUAL (states, "CONNECTED,LOST,CONNECTED");
  itest_recorder_free (recorder);
  zkr_session_unref (session);
}

/* A request sent between LOST and the fresh session's CONNECTED
 * goes out in the fresh session, yet it was filed under the dead session's
 * id, so a "session expired" answer to it (the fresh session gone) was
 * taken for news of the old one and ignored. It is now filed under its
 * handle. The hook makes the first answer after healing "session expired":
 * the answer to our request, queued on the fresh handle while the partition
 * kept it from connecting (the session's own ping starts later). */
typedef struct {
  ZkrSession *session;
  GMutex lock;
  GCond cond;
  gboolean done;
  int rc;
} QueuedExists;

static void
queued_exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  QueuedExists *queued = user_data;

  (void) session;
  g_mutex_lock (&queued->lock);
  queued->rc = reply->rc;
  queued->done = TRUE;
  g_cond_broadcast (&queued->cond);
  g_mutex_unlock (&queued->lock);
}

/* For itest_wait_for: the fresh handle exists (opened right after LOST):
 * one of another generation than the handle the session had before. The
 * old one is still there for a moment after LOST reached the listeners
 * (the worker tells them before it closes that handle), and a request sent
 * on it then is answered ZCLOSING. */
typedef struct {
  ZkrSession *session;
  guint old_generation;
} FreshHandle;

static gboolean
session_has_fresh_handle (gpointer data)
{
  FreshHandle *fresh = data;
  guint generation = 0;
  zhandle_t *zh = zkr__session_handle_lock (fresh->session, NULL, &generation);

  if (zh != NULL)
    zkr__session_handle_unlock (fresh->session);
  return zh != NULL && generation != fresh->old_generation;
}

static void
test_session__an_expired_answer_to_a_request_sent_before_connecting_means_lost (void)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  g_autofree char *states = NULL;
  QueuedExists queued = { 0 };
  FreshHandle fresh = { 0 };
  ItestRecorder *recorder;
  gint64 deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  int lost, connected;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  g_mutex_init (&queued.lock);
  g_cond_init (&queued.cond);
  address = zkr_test_proxy_dup_address (proxy);
  queued.session = itest_connect_recorded (address, SHORT_TIMEOUT_MS, &recorder);
  CU_ASSERT_PTR_NOT_NULL_FATAL (queued.session);
  fresh.session = queued.session;
  CU_ASSERT_PTR_NOT_NULL_FATAL (zkr__session_handle_lock (queued.session, NULL, &fresh.old_generation));
  zkr__session_handle_unlock (queued.session);
  zkr_test_proxy_blackhole (proxy);
  lost = itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_LOST, 0, WAIT_MS, NULL);
  CU_ASSERT_FATAL (lost >= 1);
  /* The fresh handle waits in the proxy's backlog: our request is queued
   * on it, to go out right after its handshake. */
  CU_ASSERT_FATAL (itest_wait_for (session_has_fresh_handle, &fresh, WAIT_MS));
  zkr__session_test_rewrite_answers (queued.session, ZSESSIONEXPIRED, 1);
  zkr__op_exists (queued.session, "/", FALSE, queued_exists_reply, &queued);
  zkr_test_proxy_heal (proxy);
  g_mutex_lock (&queued.lock);
  while (!queued.done && g_cond_wait_until (&queued.cond, &queued.lock, deadline))
    ;
  g_mutex_unlock (&queued.lock);
  CU_ASSERT_EQUAL (queued.rc, ZSESSIONEXPIRED);
  connected = itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_CONNECTED, lost, WAIT_MS, NULL);
  CU_ASSERT_FATAL (connected == lost + 1);
  /* The fresh session is declared lost too, and a third one comes. */
  lost = itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_LOST, connected, WAIT_MS, NULL);
  CU_ASSERT_FATAL (lost == connected + 1);
  CU_ASSERT (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_CONNECTED, lost, WAIT_MS, NULL) ==
             lost + 1);
  CU_ASSERT_EQUAL (zkr_session_get_lost_count (queued.session), 2);
  CU_ASSERT_EQUAL (zkr__op_test_exists (queued.session, "/", NULL), ZOK);
  states = itest_recorder_describe (recorder);
  CU_ASSERT_TRUE (g_str_has_suffix (states, ",LOST,CONNECTED,LOST,CONNECTED"));
  itest_recorder_free (recorder);
  zkr_session_unref (queued.session);
  zkr_test_proxy_free (proxy);
  g_mutex_clear (&queued.lock);
  g_cond_clear (&queued.cond);
}

typedef struct {
  ZkrSession *session;
  const char *parent;
  GMutex lock;
  GCond cond;
  gboolean done;
  int rc;
  char *path;
  struct Stat stat;
} CreateRequest;

static void
protected_done (ZkrSession *session, int rc, const char *path, const struct Stat *stat, gpointer user_data)
{
  CreateRequest *request = user_data;

  (void) session;
  g_mutex_lock (&request->lock);
  request->rc = rc;
  request->path = g_strdup (path);
  if (stat != NULL)
    request->stat = *stat;
  request->done = TRUE;
  g_cond_broadcast (&request->cond);
  g_mutex_unlock (&request->lock);
}

static gboolean
protected_start (gpointer data)
{
  CreateRequest *request = data;

  zkr__protected_create (request->session, request->parent, "lock-", "id", 2,
                         ZOO_EPHEMERAL | ZOO_SEQUENCE, ZKR_WAKE_ALWAYS, NULL,
                         protected_done, request);
  return G_SOURCE_REMOVE;
}

static void
test_session__protected_create_adopts_its_node_after_a_lost_reply (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("protected");
  g_autoptr (GPtrArray) children = NULL;
  CreateRequest request = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  request.session = session;
  request.parent = base;
  g_mutex_init (&request.lock);
  g_cond_init (&request.cond);
  /* The parent does not exist: the create makes its container parents,
   * and the reply of the create that succeeds is "lost". */
  zkr__session_test_drop_next_create_reply (session);
  zkr__session_post (session, protected_start, &request, NULL);
  g_mutex_lock (&request.lock);
  while (!request.done)
    g_cond_wait (&request.cond, &request.lock);
  g_mutex_unlock (&request.lock);

  CU_ASSERT_EQUAL (request.rc, ZOK);
  CU_ASSERT_PTR_NOT_NULL_FATAL (request.path);
  CU_ASSERT_EQUAL (request.stat.ephemeralOwner, zkr_session_get_id (session));
  CU_ASSERT_TRUE (request.stat.czxid > 0);
  CU_ASSERT_EQUAL (zkr__op_test_get_children (session, base, &children), ZOK);
  /* Exactly one node: adopted, not created twice. */
  CU_ASSERT_EQUAL_FATAL (children->len, 1);
  CU_ASSERT_TRUE (g_str_has_suffix (request.path, g_ptr_array_index (children, 0)));
  CU_ASSERT_TRUE (zkr__nodename_is_protected (g_ptr_array_index (children, 0)));
  CU_ASSERT_FALSE (zkr__session_test_take_drop_create_reply (session));
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  g_free (request.path);
  g_mutex_clear (&request.lock);
  g_cond_clear (&request.cond);
  zkr_session_unref (session);
}

typedef struct {
  ZkrSession *session;
  const char *path;
  GMutex lock;
  GCond cond;
  gboolean done;
  int rc;
} DeleteRequest;

static void
delete_done (ZkrSession *session, int rc, gpointer user_data)
{
  DeleteRequest *request = user_data;

  (void) session;
  g_mutex_lock (&request->lock);
  request->rc = rc;
  request->done = TRUE;
  g_cond_broadcast (&request->cond);
  g_mutex_unlock (&request->lock);
}

static gboolean
delete_start (gpointer data)
{
  DeleteRequest *request = data;

  zkr__guaranteed_delete (request->session, request->path, delete_done, request);
  return G_SOURCE_REMOVE;
}

static gboolean
one_delete_pending (gpointer data)
{
  return zkr__session_get_pending_deletes (data) == 1;
}

static void
test_session__guaranteed_delete_finishes_after_a_reconnect (void)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  ZkrSession *observer = itest_connect (itest_hosts (), 10000);
  g_autofree char *address = NULL;
  g_autofree char *base = itest_scratch_path ("gdelete");
  g_autofree char *node = NULL;
  DeleteRequest request = { 0 };
  ItestRecorder *recorder;
  ZkrSession *session;
  guint from;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  CU_ASSERT_PTR_NOT_NULL_FATAL (observer);
  address = zkr_test_proxy_dup_address (proxy);
  session = itest_connect_recorded (address, 10000, &recorder);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  zkr__op_test_create (observer, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (observer, base, NULL, -1, 0, NULL, NULL), ZOK);
  node = g_strdup_printf ("%s/node", base);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (session, node, NULL, -1, ZOO_EPHEMERAL, NULL, NULL), ZOK);

  /* The suspension looked for is the black hole's: on a busy machine a
   * late ping may have suspended the session once already. */
  from = itest_recorder_count (recorder);
  zkr_test_proxy_blackhole (proxy);
  request.session = session;
  request.path = node;
  g_mutex_init (&request.lock);
  g_cond_init (&request.cond);
  zkr__session_post (session, delete_start, &request, NULL);
  CU_ASSERT (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_SUSPENDED, from, WAIT_MS,
                                        NULL) >= 0);
  /* Not done, not pretending: pending while we are cut off. */
  CU_ASSERT_TRUE (itest_wait_for (one_delete_pending, session, WAIT_MS));
  g_mutex_lock (&request.lock);
  CU_ASSERT_FALSE (request.done);
  g_mutex_unlock (&request.lock);
  CU_ASSERT_FALSE (itest_node_absent (observer, node));

  zkr_test_proxy_heal (proxy);
  g_mutex_lock (&request.lock);
  while (!request.done)
    g_cond_wait (&request.cond, &request.lock);
  g_mutex_unlock (&request.lock);
  CU_ASSERT_EQUAL (request.rc, ZOK);
  CU_ASSERT_EQUAL (zkr__session_get_pending_deletes (session), 0);
  CU_ASSERT_EQUAL (zkr_session_get_state (session), ZKR_SESSION_STATE_RECONNECTED);
  CU_ASSERT_TRUE (itest_node_absent (observer, node));
  CU_ASSERT_TRUE (itest_delete_tree (observer, base));
  g_mutex_clear (&request.lock);
  g_cond_clear (&request.cond);
  itest_recorder_free (recorder);
  zkr_session_unref (session);
  zkr_session_unref (observer);
  zkr_test_proxy_free (proxy);
}

typedef struct {
  ZkrSession *session;
  guint count;
} RewrittenAtLeast;

static gboolean
rewritten_at_least (gpointer data)
{
  RewrittenAtLeast *at_least = data;

  return zkr__session_test_count_rewritten (at_least->session) >= at_least->count;
}

/* A server that answers "throttled" while we stay connected: the delete
 * is sent again after a growing pause, not in a tight loop (before, it
 * was resent the moment each answer came: hundreds of times a second),
 * stays pending and not done meanwhile, and finishes once the server
 * accepts again. Every resend after the first waits a pause (counted by
 * the core's hook), so no clock is read here. */
static void
test_session__a_throttled_guaranteed_delete_pauses_between_resends (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("throttled");
  g_autofree char *node = NULL;
  DeleteRequest request = { 0 };
  RewrittenAtLeast at_least;
  guint delayed;
  gint64 deadline;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  zkr__op_test_create (session, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (session, base, NULL, -1, 0, NULL, NULL), ZOK);
  node = g_strdup_printf ("%s/node", base);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (session, node, NULL, -1, 0, NULL, NULL), ZOK);
  request.session = session;
  request.path = node;
  g_mutex_init (&request.lock);
  g_cond_init (&request.cond);

  delayed = zkr__resend_pause_test_count_delayed ();
  zkr__session_test_rewrite_answers (session, ZTHROTTLEDOP, -1);
  zkr__session_post (session, delete_start, &request, NULL);
  at_least.session = session;
  at_least.count = 4;
  CU_ASSERT_TRUE (itest_wait_for (rewritten_at_least, &at_least, WAIT_MS));
  /* Four throttled answers: the first resend went at once, the next two
   * (at least) each after a pause. */
  CU_ASSERT_TRUE (zkr__resend_pause_test_count_delayed () >= delayed + 2);
  g_mutex_lock (&request.lock);
  CU_ASSERT_FALSE (request.done);
  g_mutex_unlock (&request.lock);
  CU_ASSERT_EQUAL (zkr__session_get_pending_deletes (session), 1);

  zkr__session_test_rewrite_answers (session, ZOK, 0);
  deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  g_mutex_lock (&request.lock);
  while (!request.done && g_cond_wait_until (&request.cond, &request.lock, deadline))
    ;
  CU_ASSERT_TRUE (request.done);
  g_mutex_unlock (&request.lock);
  CU_ASSERT_EQUAL (request.rc, ZOK);
  CU_ASSERT_EQUAL (zkr__session_get_pending_deletes (session), 0);
  CU_ASSERT_TRUE (itest_node_absent (session, node));
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  g_mutex_clear (&request.lock);
  g_cond_clear (&request.cond);
  zkr_session_unref (session);
}

/* Kills member @server (0: the one the session uses) of a session on
 * @hosts with timeout @timeout_ms: the session fails over, keeps its id and
 * is never LOST; a write goes through and survives the member's return. */
static void
check_member_loss (const char *hosts, int timeout_ms, guint server)
{
  ItestRecorder *recorder;
  ZkrSession *session = itest_connect_recorded (hosts, timeout_ms, &recorder);
  g_autofree char *base = itest_scratch_path ("member");
  g_autofree char *host = NULL;
  g_autofree char *command = NULL;
  gint64 id;
  int reconnected;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  id = zkr_session_get_id (session);
  if (server == 0)
    {
      host = zkr_session_dup_connected_host (session);
      server = itest_server_index (host);
    }
  CU_ASSERT_FATAL (server > 0);
  command = g_strdup_printf ("kill %u", server);
  CU_ASSERT_FATAL (itest_ensemble (command));
  reconnected = itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_RECONNECTED, 0, WAIT_MS, NULL);
  if (reconnected < 2)
    {
      g_autofree char *states = itest_recorder_describe (recorder);
      g_printerr ("member loss: killed server %u; states %s\n", server, states);
    }
  CU_ASSERT (reconnected >= 2);
  /* While a new leader is elected the members drop us once more (maybe
   * more than once): a write goes through once a retry finds a serving
   * member, as an application's retry policy would. */
  CU_ASSERT_EQUAL (itest_create_with_retries (session, base, WAIT_MS), ZOK);
  CU_ASSERT_EQUAL (zkr_session_get_id (session), id);
  g_free (command);
  command = g_strdup_printf ("restart %u", server);
  CU_ASSERT (itest_ensemble (command));
  CU_ASSERT_TRUE (zkr_session_wait_connected (session, WAIT_MS, NULL, NULL));
  CU_ASSERT_EQUAL (zkr__op_test_exists (session, base, NULL), ZOK);
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  CU_ASSERT_EQUAL (zkr_session_get_lost_count (session), 0);
  itest_recorder_free (recorder);
  zkr_session_unref (session);
}

/* Kill the member the session uses, a follower: the quorum keeps its
 * leader, the session fails over to the other follower. */
static void
test_session__fails_over_when_its_member_dies (void)
{
  g_autofree char *followers = itest_followers_hosts ();

  CU_ASSERT_FATAL (strchr (followers, ',') != NULL);
  check_member_loss (followers, 10000, 0);
}

/* Kill the quorum's leader: every member drops its clients until a new
 * leader is elected and synced; the session waits and keeps its id. Its
 * timeout is 30 s, not 10: zkr declares LOST once it has been suspended
 * for a whole timeout (the server may have expired it by then), and
 * ZooKeeper 3.8.0 (Debian 12) has been seen here to take 11 s to serve
 * again after its leader died, when a follower's sync with the new leader
 * failed twice ("NEWLEADER ACK ... from a different epoch" in the new
 * leader's log, a new election each time); with 10 s the session was
 * rightly LOST (twice in 44 runs of the suite under TSan). */
static void
test_session__keeps_its_session_while_a_new_leader_is_elected (void)
{
  guint leader = itest_leader_index ();

  CU_ASSERT_FATAL (leader > 0);
  check_member_loss (itest_hosts (), 30000, leader);
}

/* ---- listing watches --------------------------------------------- */

/* What a listing watch saw; the fields are written before @calls grows. */
typedef struct {
  gint calls;
  int event_type;
  int rc;
  GPtrArray *children; /* (owned) (nullable) */
} ListingSeen;

static void
on_listing (ZkrSession *session, int event_type, ZkrReply *listing, gpointer user_data)
{
  ListingSeen *seen = user_data;

  (void) session;
  seen->event_type = event_type;
  seen->rc = listing->rc;
  g_clear_pointer (&seen->children, g_ptr_array_unref);
  if (listing->children != NULL)
    seen->children = g_ptr_array_ref (listing->children);
  g_atomic_int_inc (&seen->calls);
}

static gboolean
listing_seen (gpointer data)
{
  return g_atomic_int_get (&((ListingSeen *) data)->calls) > 0;
}

static gint
name_compare (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The listing's names as "a,b" (sorted). */
static char *
listing_describe (const ListingSeen *seen)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; seen->children != NULL && i < seen->children->len; i++)
    g_ptr_array_add (names, g_ptr_array_index (seen->children, i));
  g_ptr_array_sort (names, name_compare);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (",", (char **) names->pdata);
}

/* A ZooKeeper data watch on @path, left by a get on the worker, with a
 * listing watch of @list_path (when @seen is set) registered first. */
typedef struct {
  ZkrSession *session;
  const char *path;
  const char *list_path;
  ListingSeen *seen;
  guint id;
  gint rc; /* G_MININT until answered */
} ListingWatchSet;

static void
listing_watch_set_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  (void) session;
  g_atomic_int_set (&((ListingWatchSet *) user_data)->rc, reply->rc);
}

static gboolean
listing_watch_set_in_worker (gpointer data)
{
  ListingWatchSet *set = data;

  if (set->seen != NULL)
    set->id = zkr__watches_add_listing (set->session, set->path, set->list_path, on_listing,
                                              set->seen);
  zkr__op_get (set->session, set->path, TRUE, listing_watch_set_reply, set);
  return G_SOURCE_REMOVE;
}

static gboolean
listing_watch_set_answered (gpointer data)
{
  return g_atomic_int_get (&((ListingWatchSet *) data)->rc) != G_MININT;
}

/* Returns the get's rc (G_MININT: no answer in time). */
static int
listing_watch_set (ZkrSession *session, const char *path, const char *list_path,
                   ListingSeen *seen, guint *id)
{
  ListingWatchSet set = { session, path, list_path, seen, 0, G_MININT };

  zkr__session_post (session, listing_watch_set_in_worker, &set, NULL);
  if (!itest_wait_for (listing_watch_set_answered, &set, WAIT_MS))
    return G_MININT; /* leaks @set's slot to a late reply: the test fails anyway */
  if (id != NULL)
    *id = set.id;
  return g_atomic_int_get (&set.rc);
}

/* Holds the worker thread until released (or WAIT_MS passed). */
typedef struct {
  gint entered;
  gint released;
} WorkerGate;

static gboolean
worker_gate_hold (gpointer data)
{
  WorkerGate *gate = data;
  gint64 deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;

  g_atomic_int_set (&gate->entered, 1);
  while (!g_atomic_int_get (&gate->released) && g_get_monotonic_time () < deadline)
    g_usleep (1000);
  return G_SOURCE_REMOVE;
}

static gboolean
worker_gate_entered (gpointer data)
{
  return g_atomic_int_get (&((WorkerGate *) data)->entered);
}

/* TRUE once @session's worker is held by @gate (release: set released). */
static gboolean
worker_gate_close (ZkrSession *session, WorkerGate *gate)
{
  zkr__session_post (session, worker_gate_hold, gate, NULL);
  return itest_wait_for (worker_gate_entered, gate, WAIT_MS);
}

static gboolean
worker_flag_set (gpointer data)
{
  g_atomic_int_set ((gint *) data, 1);
  return G_SOURCE_REMOVE;
}

static gboolean
flag_is_set (gpointer data)
{
  return g_atomic_int_get ((gint *) data);
}

/* TRUE once everything posted to the worker before this call has run. */
static gboolean
worker_drained (ZkrSession *session)
{
  gint done = 0;

  zkr__session_post (session, worker_flag_set, &done, NULL);
  return itest_wait_for (flag_is_set, &done, WAIT_MS);
}

typedef struct {
  gint soon_runs;
  gint late_runs;
} TimerRuns;

static gboolean
timer_soon_tick (gpointer data)
{
  g_atomic_int_inc (&((TimerRuns *) data)->soon_runs);
  return G_SOURCE_REMOVE;
}

static gboolean
timer_late_tick (gpointer data)
{
  g_atomic_int_inc (&((TimerRuns *) data)->late_runs);
  return G_SOURCE_REMOVE;
}

static gboolean
timer_late_ran (gpointer data)
{
  return g_atomic_int_get (&((TimerRuns *) data)->late_runs) > 0;
}

/* Session timers, added by a stand-in (this thread, holding the worker's
 * turn) while the worker sleeps until its next ping, ten seconds away: the
 * add wakes it, the timer runs once; one removed before it was due (and
 * due first) never runs. */
static void
test_session__session_timers_run_once_unless_removed (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 30000);
  TimerRuns runs = { 0 };
  guint soon;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE (worker_drained (session));
  zkr__session_stand_in_begin (session);
  soon = zkr__session_timer_add (session, 20, 0, timer_soon_tick, &runs);
  CU_ASSERT_NOT_EQUAL (zkr__session_timer_add (session, 60, 100, timer_late_tick, &runs), 0);
  zkr__session_timer_remove (session, soon);
  zkr__session_stand_in_end (session);
  /* Well before the ping would wake the worker anyway. */
  CU_ASSERT_TRUE (itest_wait_for (timer_late_ran, &runs, 5000));
  CU_ASSERT_TRUE (worker_drained (session));
  CU_ASSERT_EQUAL (g_atomic_int_get (&runs.late_runs), 1);
  CU_ASSERT_EQUAL (g_atomic_int_get (&runs.soon_runs), 0);
  zkr_session_unref (session);
}

/* Where a post ran, and what the session said there. */
typedef struct {
  ZkrSession *session;
  gint *order;          /* shared counter: the order posts ran in */
  gint ran;             /* atomic: 1 once run */
  gint position;        /* its place in @order */
  GThread *thread;
  gboolean in_place;
  gboolean in_worker;
} PostProbe;

static gboolean
post_probe_run (gpointer data)
{
  PostProbe *probe = data;

  probe->thread = g_thread_self ();
  probe->in_place = zkr__session_in_place (probe->session);
  probe->in_worker = zkr__session_in_worker (probe->session);
  probe->position = g_atomic_int_add (probe->order, 1);
  g_atomic_int_set (&probe->ran, 1);
  return G_SOURCE_REMOVE;
}

static gboolean
post_probe_ran (gpointer data)
{
  return g_atomic_int_get (&((PostProbe *) data)->ran);
}

static void
post_probe_init (PostProbe *probe, ZkrSession *session, gint *order)
{
  memset (probe, 0, sizeof *probe);
  probe->session = session;
  probe->order = order;
}

/* Attempts at a case that a ping's reply, posted at the wrong moment,
 * would spoil (it then says so and is tried again). */
#define IN_PLACE_ATTEMPTS 5

/* zkr__session_post_in_place: a waking post runs on the posting thread, in
 * the worker's place, when nothing queued holds it back and the turn is
 * free; behind a post that may not run in place it waits for the worker,
 * in order; and it never takes the turn from a thread that has it. */
static void
test_session__a_post_runs_in_place_only_when_allowed (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 30000);
  gint order = 0;
  PostProbe first, second;
  gboolean done = FALSE;
  guint before;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);

  /* Free turn, nothing queued: runs here, now. */
  for (int attempt = 0; attempt < IN_PLACE_ATTEMPTS && !done; attempt++)
    {
      CU_ASSERT_TRUE (worker_drained (session));
      before = zkr__session_test_count_in_place_posts (session);
      post_probe_init (&first, session, &order);
      zkr__session_post_in_place (session, post_probe_run, &first, NULL, TRUE);
      done = g_atomic_int_get (&first.ran);
      if (!done)
        CU_ASSERT_TRUE (itest_wait_for (post_probe_ran, &first, WAIT_MS));
    }
  CU_ASSERT_TRUE (done);
  CU_ASSERT_PTR_EQUAL (first.thread, g_thread_self ());
  CU_ASSERT_TRUE (first.in_place);
  CU_ASSERT_TRUE (first.in_worker);
  CU_ASSERT_EQUAL (zkr__session_test_count_in_place_posts (session), before + 1);
  CU_ASSERT_FALSE (zkr__session_in_place (session));
  CU_ASSERT_FALSE (zkr__session_in_worker (session));

  /* Behind a quiet post that may not run in place: both on the worker,
   * in order. */
  done = FALSE;
  for (int attempt = 0; attempt < IN_PLACE_ATTEMPTS && !done; attempt++)
    {
      CU_ASSERT_TRUE (worker_drained (session));
      post_probe_init (&first, session, &order);
      post_probe_init (&second, session, &order);
      zkr__session_post_quiet (session, post_probe_run, &first, NULL);
      /* Still queued: no wake-up came between (else try again). */
      done = !g_atomic_int_get (&first.ran);
      zkr__session_post_in_place (session, post_probe_run, &second, NULL, TRUE);
      CU_ASSERT_TRUE (itest_wait_for (post_probe_ran, &second, WAIT_MS));
    }
  CU_ASSERT_TRUE (done);
  CU_ASSERT_TRUE (g_atomic_int_get (&first.ran));
  CU_ASSERT_EQUAL (second.position, first.position + 1);
  CU_ASSERT_PTR_NOT_EQUAL (second.thread, g_thread_self ());
  CU_ASSERT_PTR_EQUAL (second.thread, first.thread);
  CU_ASSERT_FALSE (second.in_place);
  CU_ASSERT_TRUE (second.in_worker);

  /* The turn taken (here: by this thread standing in): not in place; the
   * worker runs it once the turn is given back. */
  CU_ASSERT_TRUE (worker_drained (session));
  before = zkr__session_test_count_in_place_posts (session);
  post_probe_init (&first, session, &order);
  zkr__session_stand_in_begin (session);
  zkr__session_post_in_place (session, post_probe_run, &first, NULL, TRUE);
  CU_ASSERT_FALSE (g_atomic_int_get (&first.ran));
  zkr__session_stand_in_end (session);
  CU_ASSERT_TRUE (itest_wait_for (post_probe_ran, &first, WAIT_MS));
  CU_ASSERT_PTR_NOT_EQUAL (first.thread, g_thread_self ());
  CU_ASSERT_FALSE (first.in_place);
  CU_ASSERT_EQUAL (zkr__session_test_count_in_place_posts (session), before);
  zkr_session_unref (session);
}

/* @base with children a and b; NULL (and a failure) when it cannot be made. */
static char *
listing_tree_new (ZkrSession *session, const char *name)
{
  g_autofree char *base = itest_scratch_path (name);
  g_autofree char *a = g_strdup_printf ("%s/a", base);
  g_autofree char *b = g_strdup_printf ("%s/b", base);

  zkr__op_test_create (session, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL);
  if (zkr__op_test_create (session, base, NULL, -1, 0, NULL, NULL) != ZOK ||
      zkr__op_test_create (session, a, NULL, -1, 0, NULL, NULL) != ZOK ||
      zkr__op_test_create (session, b, NULL, -1, 0, NULL, NULL) != ZOK)
    {
      CU_FAIL ("cannot create the listing watch's nodes");
      itest_delete_tree (session, base);
      return NULL;
    }
  return g_steal_pointer (&base);
}

static void
listing_tree_free (ZkrSession *session, char *base)
{
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  CU_ASSERT_TRUE (itest_node_absent (session, base));
  g_free (base);
}

/* Waits for @seen's watch to run, lets the worker finish, and checks it
 * ran once, for a deletion, with a listing of exactly @names. */
static void
listing_check_ran_once (ZkrSession *session, ListingSeen *seen, const char *names)
{
  g_autofree char *listed = NULL;

  CU_ASSERT_TRUE (itest_wait_for (listing_seen, seen, WAIT_MS));
  CU_ASSERT_TRUE (worker_drained (session));
  CU_ASSERT_EQUAL (g_atomic_int_get (&seen->calls), 1);
  CU_ASSERT_EQUAL (seen->event_type, ZOO_DELETED_EVENT);
  CU_ASSERT_EQUAL (seen->rc, ZOK);
  listed = listing_describe (seen);
  CU_ASSERT_STRING_EQUAL (listed, names);
}

/* The lock engine's hand-off: the watched node goes, the watch runs once,
 * on the worker, with a listing taken after the event (the node is gone
 * from it). */
static void
test_session__a_listing_watch_runs_once_with_a_listing_taken_after_its_event (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ListingSeen seen = { 0 };
  g_autofree char *a = NULL;
  char *base;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  base = listing_tree_new (session, "listing-watch");
  if (base != NULL)
    {
      a = g_strdup_printf ("%s/a", base);
      CU_ASSERT_EQUAL (listing_watch_set (session, a, base, &seen, NULL), ZOK);
      CU_ASSERT_EQUAL (zkr__op_delete_sync (session, a, -1), ZOK);
      listing_check_ran_once (session, &seen, "b");
      listing_tree_free (session, base);
    }
  g_clear_pointer (&seen.children, g_ptr_array_unref);
  zkr_session_unref (session);
}

/* A listing's names share one allocation: each stays whole until it
 * leaves the array, in whatever order they leave; an empty listing is an
 * empty array. (Under asan and valgrind a name read after its block was
 * freed, or a block never freed, fails the run.) */
static void
test_session__listed_names_leave_their_array_in_any_order (void)
{
  /* listing_tree_new makes "a" and "b". */
  static const char *const more[] = { "x", "a-rather-longer-name-than-the-others", "c" };
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GPtrArray) children = NULL;
  g_autoptr (GPtrArray) empty = NULL;
  g_autoptr (GHashTable) expected = g_hash_table_new (g_str_hash, g_str_equal);
  char *base;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  base = listing_tree_new (session, "listed-names");
  if (base != NULL)
    {
      g_hash_table_add (expected, (gpointer) "a");
      g_hash_table_add (expected, (gpointer) "b");
      for (guint i = 0; i < G_N_ELEMENTS (more); i++)
        {
          g_autofree char *child = g_strdup_printf ("%s/%s", base, more[i]);

          CU_ASSERT_EQUAL (zkr__op_test_create (session, child, NULL, -1, 0, NULL, NULL), ZOK);
          g_hash_table_add (expected, (gpointer) more[i]);
        }
      CU_ASSERT_EQUAL (zkr__op_test_get_children (session, base, &children), ZOK);
      CU_ASSERT_EQUAL_FATAL (children->len, g_hash_table_size (expected));
      /* From the middle, then from the end: each time every name left is
       * one still expected, whole; each leaves once; all of them leave. */
      while (children->len > 0)
        {
          guint at = children->len > 2 ? children->len / 2 : children->len - 1;

          for (guint i = 0; i < children->len; i++)
            CU_ASSERT_TRUE (g_hash_table_contains (expected, g_ptr_array_index (children, i)));
          CU_ASSERT_TRUE (g_hash_table_remove (expected, g_ptr_array_index (children, at)));
          g_ptr_array_remove_index (children, at);
        }
      CU_ASSERT_EQUAL (g_hash_table_size (expected), 0);
      CU_ASSERT_TRUE (itest_delete_tree (session, base));
      CU_ASSERT_EQUAL (zkr__op_test_create (session, base, NULL, -1, 0, NULL, NULL), ZOK);
      CU_ASSERT_EQUAL (zkr__op_test_get_children (session, base, &empty), ZOK);
      CU_ASSERT_PTR_NOT_NULL_FATAL (empty);
      CU_ASSERT_EQUAL (empty->len, 0);
      listing_tree_free (session, base);
    }
  zkr_session_unref (session);
}

/* The listing is sent the moment the event arrives; a watch removed while
 * its reply waits for the (busy) worker never runs, a second one on the
 * same node does. */
static void
test_session__a_listing_watch_removed_before_its_reply_never_runs (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ListingSeen removed = { 0 }, kept = { 0 };
  WorkerGate gate = { 0 };
  g_autofree char *a = NULL;
  guint removed_id = 0;
  char *base;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  base = listing_tree_new (session, "listing-removed");
  if (base != NULL)
    {
      a = g_strdup_printf ("%s/a", base);
      CU_ASSERT_EQUAL (listing_watch_set (session, a, base, &removed, &removed_id), ZOK);
      CU_ASSERT_EQUAL (listing_watch_set (session, a, base, &kept, NULL), ZOK);
      CU_ASSERT_TRUE (worker_gate_close (session, &gate));
      /* Same session: the event comes before the delete's reply, so the
       * listings were sent before this returns, and answered before the
       * exists is; those replies now wait behind the gate. */
      CU_ASSERT_EQUAL (zkr__op_delete_sync (session, a, -1), ZOK);
      CU_ASSERT_EQUAL (zkr__op_test_exists (session, base, NULL), ZOK);
      zkr__watches_remove (session, removed_id);
      g_atomic_int_set (&gate.released, 1);
      listing_check_ran_once (session, &kept, "b");
      CU_ASSERT_EQUAL (g_atomic_int_get (&removed.calls), 0);
      listing_tree_free (session, base);
    }
  g_clear_pointer (&kept.children, g_ptr_array_unref);
  zkr_session_unref (session);
}

/* A listing watch added after its event passed the completion thread (the
 * event still queued for the worker) runs too, like a plain watch added
 * then: the worker sends its listing. */
static void
test_session__a_listing_watch_added_behind_its_event_still_runs (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ListingSeen seen = { 0 };
  WorkerGate gate = { 0 };
  g_autofree char *a = NULL;
  char *base;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  base = listing_tree_new (session, "listing-late");
  if (base != NULL)
    {
      a = g_strdup_printf ("%s/a", base);
      /* Only the ZooKeeper watch, no zkr watch yet. */
      CU_ASSERT_EQUAL (listing_watch_set (session, a, base, NULL, NULL), ZOK);
      CU_ASSERT_TRUE (worker_gate_close (session, &gate));
      CU_ASSERT_EQUAL (zkr__op_delete_sync (session, a, -1), ZOK);
      zkr__watches_add_listing (session, a, base, on_listing, &seen);
      g_atomic_int_set (&gate.released, 1);
      listing_check_ran_once (session, &seen, "b");
      listing_tree_free (session, base);
    }
  g_clear_pointer (&seen.children, g_ptr_array_unref);
  zkr_session_unref (session);
}

/* Every test cleaned up after itself: nothing of this process is left. */
static void
test_session__no_node_left_behind (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GPtrArray) children = NULL;
  g_autofree char *mine = NULL;
  int rc;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mine = g_strdup_printf ("-%d-", (int) getpid ());
  rc = zkr__op_test_get_children (session, "/zkr-it", &children);
  CU_ASSERT_TRUE (rc == ZOK || rc == ZNONODE);
  for (guint i = 0; children != NULL && i < children->len; i++)
    {
      const char *child = g_ptr_array_index (children, i);
      if (strstr (child, mine) != NULL)
        {
          g_printerr ("left behind: /zkr-it/%s\n", child);
          CU_FAIL ("a node was left behind");
        }
    }
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  { "test_session__connects_and_closes_with_states_in_order", test_session__connects_and_closes_with_states_in_order },
  { "test_session__bad_hosts_fail_within_the_connection_timeout", test_session__bad_hosts_fail_within_the_connection_timeout },
  { "test_session__protected_create_adopts_its_node_after_a_lost_reply", test_session__protected_create_adopts_its_node_after_a_lost_reply },
  { "test_session__suspends_and_reconnects_through_a_healed_partition", test_session__suspends_and_reconnects_through_a_healed_partition },
  ZKR_TEST_CASE (test_session__a_connection_wait_is_answered_cancelled_while_black_holed),
  { "test_session__a_blocking_request_in_flight_at_close_is_answered", test_session__a_blocking_request_in_flight_at_close_is_answered },
  { "test_session__blocking_requests_racing_a_close_are_all_answered", test_session__blocking_requests_racing_a_close_are_all_answered },
  { "test_session__guaranteed_delete_finishes_after_a_reconnect", test_session__guaranteed_delete_finishes_after_a_reconnect },
  { "test_session__a_throttled_guaranteed_delete_pauses_between_resends", test_session__a_throttled_guaranteed_delete_pauses_between_resends },
  { "test_session__lost_then_fresh_session_when_expired_from_outside", test_session__lost_then_fresh_session_when_expired_from_outside },
  { "test_session__a_request_answered_session_expired_means_lost", test_session__a_request_answered_session_expired_means_lost },
  ZKR_TEST_CASE (test_session__an_expired_answer_to_a_request_sent_before_connecting_means_lost),
  { "test_session__liveness_deadline_passes_before_the_server_expires_us", test_session__liveness_deadline_passes_before_the_server_expires_us },
  { "test_session__suspends_and_reconnects_when_its_server_pauses", test_session__suspends_and_reconnects_when_its_server_pauses },
  { "test_session__fails_over_when_its_member_dies", test_session__fails_over_when_its_member_dies },
  { "test_session__keeps_its_session_while_a_new_leader_is_elected", test_session__keeps_its_session_while_a_new_leader_is_elected },
  { "test_session__a_listing_watch_runs_once_with_a_listing_taken_after_its_event", test_session__a_listing_watch_runs_once_with_a_listing_taken_after_its_event },
  { "test_session__listed_names_leave_their_array_in_any_order", test_session__listed_names_leave_their_array_in_any_order },
  { "test_session__a_listing_watch_removed_before_its_reply_never_runs", test_session__a_listing_watch_removed_before_its_reply_never_runs },
  { "test_session__a_listing_watch_added_behind_its_event_still_runs", test_session__a_listing_watch_added_behind_its_event_still_runs },
  { "test_session__session_timers_run_once_unless_removed", test_session__session_timers_run_once_unless_removed },
  { "test_session__a_post_runs_in_place_only_when_allowed", test_session__a_post_runs_in_place_only_when_allowed },
  { "test_session__no_node_left_behind", test_session__no_node_left_behind },
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "session", NULL, NULL, tests);
}
