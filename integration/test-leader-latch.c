/* zkr integration: the leader latch against the real ensemble: one leader
 * at a time across processes (terms logged by the participants themselves,
 * with their fencing tokens), take-over after a kill and after a close,
 * expiry from outside, a paused server, and no node left behind. */

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/CUnit.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "itest.h"
#include "proxy.h"
#include "zkr-test.h"

#define WAIT_MS 30000
/* The session timeout of the participant processes: a killed leader's
 * node goes when its session expires. */
#define PROC_SESSION_MS 4000
/* Liveness bounds are checked as deadlines with this much slack on top
 * (sanitizer builds, a loaded 2-core machine). */
#define SLACK_MS 4000

static char *self_path;

/* ---- leader events on a thread of their own ----------------------------- */

typedef struct {
  gboolean is_leader;
  gint64 at;
  gint64 token;     /* the latch's token when the event ran */
} LeaderEvent;

typedef struct {
  GMutex lock;
  GCond cond;
  GArray *events;   /* of LeaderEvent */
  ItestLoopThread runner;
  ZkrLeaderLatch *latch;
  guint listener;
  gboolean close_on_leader;   /* close the latch from inside is_leader */
  gboolean closed_inside;
} LeaderRecorder;

static void
record_event (LeaderRecorder *recorder, ZkrLeaderLatch *latch, gboolean is_leader)
{
  LeaderEvent event = { is_leader, g_get_monotonic_time (), zkr_leader_latch_get_fencing_token (latch) };

  g_mutex_lock (&recorder->lock);
  g_array_append_val (recorder->events, event);
  g_cond_broadcast (&recorder->cond);
  g_mutex_unlock (&recorder->lock);
}

static void
on_is_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  LeaderRecorder *recorder = user_data;

  record_event (recorder, latch, TRUE);
  if (recorder->close_on_leader)
    {
      g_autoptr (GError) error = NULL;
      gboolean closed = zkr_leader_latch_close (latch, ZKR_LEADER_CLOSE_NOTIFY, &error);

      g_mutex_lock (&recorder->lock);
      recorder->closed_inside = closed;
      g_cond_broadcast (&recorder->cond);
      g_mutex_unlock (&recorder->lock);
    }
}

static void
on_not_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  record_event (user_data, latch, FALSE);
}

static gboolean
recorder_add (gpointer data)
{
  LeaderRecorder *recorder = data;

  g_mutex_lock (&recorder->lock);
  recorder->listener = zkr_leader_latch_add_listener (recorder->latch, on_is_leader, on_not_leader,
                                                      recorder, NULL);
  g_cond_broadcast (&recorder->cond);
  g_mutex_unlock (&recorder->lock);
  return G_SOURCE_REMOVE;
}

static LeaderRecorder *
recorder_new (ZkrLeaderLatch *latch, gboolean close_on_leader)
{
  LeaderRecorder *recorder = g_new0 (LeaderRecorder, 1);

  g_mutex_init (&recorder->lock);
  g_cond_init (&recorder->cond);
  recorder->events = g_array_new (FALSE, FALSE, sizeof (LeaderEvent));
  itest_loop_thread_init (&recorder->runner);
  recorder->latch = latch;
  recorder->close_on_leader = close_on_leader;
  itest_loop_thread_start (&recorder->runner, "leader-recorder");
  g_main_context_invoke (recorder->runner.context, recorder_add, recorder);
  g_mutex_lock (&recorder->lock);
  while (recorder->listener == 0)
    g_cond_wait (&recorder->cond, &recorder->lock);
  g_mutex_unlock (&recorder->lock);
  return recorder;
}

/* Waits for the @nth (0-based) event; returns it (at = 0 on timeout). */
static LeaderEvent
recorder_wait (LeaderRecorder *recorder, guint nth, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  LeaderEvent event = { FALSE, 0, 0 };

  g_mutex_lock (&recorder->lock);
  while (recorder->events->len <= nth &&
         g_cond_wait_until (&recorder->cond, &recorder->lock, deadline))
    ;
  if (recorder->events->len > nth)
    event = g_array_index (recorder->events, LeaderEvent, nth);
  g_mutex_unlock (&recorder->lock);
  return event;
}

static guint
recorder_count (LeaderRecorder *recorder)
{
  guint count;

  g_mutex_lock (&recorder->lock);
  count = recorder->events->len;
  g_mutex_unlock (&recorder->lock);
  return count;
}

static gboolean
recorder_remove_listener (gpointer data)
{
  LeaderRecorder *recorder = data;

  zkr_leader_latch_remove_listener (recorder->latch, recorder->listener);
  return G_SOURCE_REMOVE;
}

static void
recorder_free (LeaderRecorder *recorder)
{
  itest_loop_thread_stop (&recorder->runner, recorder_remove_listener, recorder);
  g_array_unref (recorder->events);
  g_mutex_clear (&recorder->lock);
  g_cond_clear (&recorder->cond);
  g_free (recorder);
}

/* ---- helpers -------------------------------------------------------------- */

static ZkrLeaderLatch *
latch_started (ZkrSession *session, const char *path, const char *id)
{
  g_autoptr (GError) error = NULL;
  ZkrLeaderLatch *latch = zkr_leader_latch_new (session, path, id, &error);

  CU_ASSERT_PTR_NOT_NULL (latch);
  if (latch != NULL)
    CU_ASSERT_TRUE (zkr_leader_latch_start (latch, &error));
  return latch;
}

static gboolean
latch_close (ZkrLeaderLatch *latch)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = zkr_leader_latch_close (latch, ZKR_LEADER_CLOSE_SILENT, &error);

  if (!ok)
    g_printerr ("close: %s\n", error->message);
  return ok;
}

typedef struct {
  ZkrSession *session;
  const char *path;
  guint count;
  const char *last_id;    /* (nullable) the participant expected last */
} QueueShape;

static gboolean
queue_has_shape (gpointer data)
{
  QueueShape *shape = data;
  g_autoptr (GPtrArray) participants = NULL;
  ZkrLeaderLatch *probe;
  ZkrParticipant *last;

  probe = zkr_leader_latch_new (shape->session, shape->path, "probe", NULL);
  participants = zkr_leader_latch_list_participants (probe, NULL, NULL);
  zkr_leader_latch_unref (probe);
  if (participants == NULL || participants->len != shape->count)
    return FALSE;
  if (shape->last_id == NULL)
    return TRUE;
  last = g_ptr_array_index (participants, participants->len - 1);
  return strcmp (last->client_id, shape->last_id) == 0;
}

/* The leader the server lists is the one latch that says it leads. */
static gboolean
listing_agrees (gpointer data)
{
  ZkrLeaderLatch **pair = data;
  g_autofree char *leader_id = zkr_leader_latch_dup_leader_id (pair[1], NULL, NULL);
  gboolean first = zkr_leader_latch_has_leadership (pair[0]);
  gboolean second = zkr_leader_latch_has_leadership (pair[1]);

  if (leader_id == NULL || first == second)
    return FALSE;
  return g_str_equal (leader_id, first ? zkr_leader_latch_get_id (pair[0])
                                       : zkr_leader_latch_get_id (pair[1]));
}

/* ---- tests ---------------------------------------------------------------- */

static void
test_leader_latch__bad_input_gets_clear_errors (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  ZkrLeaderLatch *latch;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, "/zkr-it/latch", "", &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "empty") : NULL);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, "/zkr-it/latch", "a\nb", &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, "/zkr-it/latch", "\xff\xfe", &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, "no-slash", "id", &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "no-slash") : NULL);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, "/a//b", "id", &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, "/", "id", &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_leader_latch_new (session, "/x", NULL, NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_leader_latch_has_leadership (NULL)));

  latch = zkr_leader_latch_new (session, "/zkr-it/latch-unused", "id", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (latch);
  /* Not started: await says so; closing is harmless; start after close fails. */
  CU_ASSERT_FALSE (zkr_leader_latch_await (latch, 100, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (latch_close (latch));
  CU_ASSERT_FALSE (zkr_leader_latch_start (latch, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  zkr_leader_latch_unref (latch);
  CU_ASSERT_TRUE (itest_node_absent (session, "/zkr-it/latch-unused"));
  zkr_session_unref (session);
}

/* A blocking await that timed out behind a leader leaves nothing armed:
 * cancelling its cancellable afterwards, once the await's own context is
 * gone, touches nothing (it used to lock that freed context: the fault
 * suite's latch mode hung in g_cancellable_cancel). */
static void
test_leader_latch__a_cancel_after_a_blocking_await_answered_touches_nothing (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("latch-late-cancel");
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  ZkrLeaderLatch *leader, *follower;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  leader = zkr_leader_latch_new (session, path, "leader", &error);
  follower = zkr_leader_latch_new (session, path, "follower", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leader);
  CU_ASSERT_PTR_NOT_NULL_FATAL (follower);
  CU_ASSERT_TRUE (zkr_leader_latch_start (leader, &error));
  CU_ASSERT_TRUE (zkr_leader_latch_await (leader, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_leader_latch_start (follower, &error));
  for (int i = 0; i < 3; i++)
    {
      CU_ASSERT_FALSE (zkr_leader_latch_await (follower, 50, cancellable, &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
      g_clear_error (&error);
    }
  /* Nothing of those awaits still listens to the cancellable. */
  CU_ASSERT_FALSE (g_signal_has_handler_pending (cancellable,
                                                 g_signal_lookup ("cancelled", G_TYPE_CANCELLABLE),
                                                 0, FALSE));
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (zkr_leader_latch_has_leadership (follower));
  CU_ASSERT_TRUE (latch_close (leader));
  CU_ASSERT_TRUE (zkr_leader_latch_await (follower, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (latch_close (follower));
  zkr_leader_latch_unref (leader);
  zkr_leader_latch_unref (follower);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

static void
test_leader_latch__single_participant_leads_with_a_token_and_leaves_no_node (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("latch-basic");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) participants = NULL;
  g_autofree char *leader = NULL;
  g_autofree char *node = NULL;
  LeaderRecorder *recorder;
  ZkrLeaderLatch *latch;
  LeaderEvent event;
  GCancellable *cancellable;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  latch = zkr_leader_latch_new (session, path, "solo-\xc3\xa9", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (latch);
  recorder = recorder_new (latch, FALSE);
  CU_ASSERT_TRUE (zkr_leader_latch_start (latch, &error));
  CU_ASSERT_FALSE (zkr_leader_latch_start (latch, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_leader_latch_await (latch, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_leader_latch_has_leadership (latch));
  CU_ASSERT_TRUE (zkr_leader_latch_get_fencing_token (latch) > 0);
  /* A cancelled await of a leader still says leader. */
  cancellable = g_cancellable_new ();
  g_cancellable_cancel (cancellable);
  CU_ASSERT_TRUE (zkr_leader_latch_await (latch, 0, cancellable, &error));
  g_object_unref (cancellable);
  event = recorder_wait (recorder, 0, WAIT_MS);
  CU_ASSERT_TRUE (event.is_leader);
  CU_ASSERT_EQUAL (event.token, zkr_leader_latch_get_fencing_token (latch));
  node = zkr_leader_latch_dup_node_path (latch);
  CU_ASSERT_PTR_NOT_NULL (node != NULL ? strstr (node, "-latch-") : NULL);
  CU_ASSERT_PTR_NOT_NULL (node != NULL ? strstr (node, "/_c_") : NULL);

  participants = zkr_leader_latch_list_participants (latch, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
  CU_ASSERT_EQUAL_FATAL (participants->len, 1);
  {
    ZkrParticipant *p = g_ptr_array_index (participants, 0);
    CU_ASSERT_TRUE (p->is_holder);
    CU_ASSERT_STRING_EQUAL (p->client_id, "solo-\xc3\xa9");
    CU_ASSERT_EQUAL (p->session_id, zkr_session_get_id (session));
    CU_ASSERT_EQUAL (p->token, zkr_leader_latch_get_fencing_token (latch));
  }
  leader = zkr_leader_latch_dup_leader_id (latch, NULL, &error);
  CU_ASSERT_STRING_EQUAL (leader != NULL ? leader : "", "solo-\xc3\xa9");

  /* NOTIFY: the listener hears not_leader. */
  CU_ASSERT_TRUE (zkr_leader_latch_close (latch, ZKR_LEADER_CLOSE_NOTIFY, &error));
  CU_ASSERT_FALSE (zkr_leader_latch_has_leadership (latch));
  CU_ASSERT_EQUAL (zkr_leader_latch_get_fencing_token (latch), 0);
  event = recorder_wait (recorder, 1, WAIT_MS);
  CU_ASSERT_TRUE (event.at != 0 && !event.is_leader);
  CU_ASSERT_TRUE (itest_node_absent (session, node));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  CU_ASSERT_FALSE (zkr_leader_latch_await (latch, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  CU_ASSERT_TRUE (latch_close (latch));
  recorder_free (recorder);
  zkr_leader_latch_unref (latch);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* Two latches; the waiting one times out, follows on close (SILENT: no
 * event for the closed one), and its token is higher. A latch closed from
 * inside its own is_leader listener leaves no node. */
static void
test_leader_latch__follower_takes_over_on_close_and_close_works_from_a_listener (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("latch-close");
  g_autoptr (GError) error = NULL;
  g_autofree char *leader = NULL;
  ZkrLeaderLatch *first, *second;
  LeaderRecorder *first_events, *second_events;
  gint64 first_token;
  guint first_heard;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  first = zkr_leader_latch_new (a, path, "first", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (first);
  /* The listener before start: an event is only told to the listeners
   * present when it happens. */
  first_events = recorder_new (first, FALSE);
  CU_ASSERT_TRUE (zkr_leader_latch_start (first, &error));
  CU_ASSERT_TRUE (zkr_leader_latch_await (first, WAIT_MS, NULL, &error));
  first_token = zkr_leader_latch_get_fencing_token (first);
  second = zkr_leader_latch_new (b, path, "second", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (second);
  second_events = recorder_new (second, TRUE);
  CU_ASSERT_TRUE (zkr_leader_latch_start (second, &error));
  CU_ASSERT_FALSE (zkr_leader_latch_await (second, 300, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  {
    QueueShape shape = { a, path, 2, "second" };
    CU_ASSERT_TRUE (itest_wait_for (queue_has_shape, &shape, WAIT_MS));
  }
  leader = zkr_leader_latch_dup_leader_id (second, NULL, &error);
  CU_ASSERT_STRING_EQUAL (leader != NULL ? leader : "", "first");

  CU_ASSERT_TRUE (recorder_wait (first_events, 0, WAIT_MS).is_leader);
  first_heard = recorder_count (first_events);
  CU_ASSERT_TRUE (latch_close (first));
  /* second's listener closes it from inside is_leader (NOTIFY). */
  {
    LeaderEvent became = recorder_wait (second_events, 0, WAIT_MS);
    LeaderEvent ended = recorder_wait (second_events, 1, WAIT_MS);

    CU_ASSERT_TRUE (became.is_leader);
    CU_ASSERT_TRUE (became.token > first_token);
    CU_ASSERT_TRUE (ended.at != 0 && !ended.is_leader);
  }
  CU_ASSERT_TRUE (second_events->closed_inside);
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  /* SILENT: first heard is_leader only. */
  /* SILENT: first heard nothing more after its close. */
  CU_ASSERT_EQUAL (recorder_count (first_events), first_heard);
  if (recorder_count (first_events) != first_heard)
    g_printerr ("first heard %u events, %u before its close\n", recorder_count (first_events),
                first_heard);
  recorder_free (first_events);
  recorder_free (second_events);
  zkr_leader_latch_unref (first);
  zkr_leader_latch_unref (second);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* itest_wait_for predicate: the session (@data) rewrote three answers. */
static gboolean
three_rewritten (gpointer data)
{
  return zkr__session_test_count_rewritten (data) >= 3;
}

/* A server shedding load answers "throttled" and keeps the connection: no
 * reconnect comes to make a waiter look again. The leader's going alone
 * lets the follower through, which then needs no request; a write to the
 * follower's own node (its own id again) makes it read its node again,
 * and that read (and the listings after it) is throttled three times; it
 * asks again after short pauses, and leads once the leader left (the
 * latch waits through the engine's asynchronous path, not a blocked
 * caller). */
static void
test_leader_latch__follower_leads_through_throttled_answers (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("latch-throttled");
  g_autoptr (GError) error = NULL;
  ZkrLeaderLatch *first, *second;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  first = latch_started (a, path, "first");
  CU_ASSERT_PTR_NOT_NULL_FATAL (first);
  CU_ASSERT_TRUE (zkr_leader_latch_await (first, WAIT_MS, NULL, &error));
  second = latch_started (b, path, "second");
  CU_ASSERT_PTR_NOT_NULL_FATAL (second);
  {
    QueueShape shape = { a, path, 2, "second" };
    CU_ASSERT_TRUE (itest_wait_for (queue_has_shape, &shape, WAIT_MS));
  }
  {
    /* Its watch on the leader's node is set: what is throttled is what
     * follows the leader's going. */
    g_autofree char *first_node = zkr_leader_latch_dup_node_path (first);
    ItestWatchOn on = { first_node, zkr_session_get_id (b) };

    CU_ASSERT_TRUE (itest_wait_for (itest_watch_is_set, &on, WAIT_MS));
  }
  zkr__session_test_rewrite_answers (b, ZTHROTTLEDOP, 3);
  {
    /* The follower's node: the one that is not the leader's. */
    g_autofree char *first_node = zkr_leader_latch_dup_node_path (first);
    g_autoptr (GPtrArray) children = NULL;
    g_autofree char *second_node = NULL;

    CU_ASSERT_EQUAL (zkr__op_test_get_children (a, path, &children), ZOK);
    for (guint i = 0; children != NULL && i < children->len; i++)
      if (first_node != NULL && !g_str_has_suffix (first_node, g_ptr_array_index (children, i)))
        second_node = g_strconcat (path, "/", g_ptr_array_index (children, i), NULL);
    CU_ASSERT_PTR_NOT_NULL (second_node);
    if (second_node != NULL)
      CU_ASSERT_EQUAL (zkr__op_test_set (a, second_node, "second", 6), ZOK);
    CU_ASSERT_TRUE (itest_wait_for (three_rewritten, b, WAIT_MS));
  }
  CU_ASSERT_TRUE (latch_close (first));
  CU_ASSERT_TRUE (zkr_leader_latch_await (second, WAIT_MS, NULL, &error));
  CU_ASSERT_EQUAL (zkr__session_test_count_rewritten (b), 3);
  CU_ASSERT_EQUAL (zkr_session_get_state (b), ZKR_SESSION_STATE_CONNECTED);
  CU_ASSERT_TRUE (latch_close (second));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_leader_latch_unref (first);
  zkr_leader_latch_unref (second);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* The leader's session is expired from outside: it hears not_leader, the
 * next in line leads with a higher token, and the old leader queues again
 * at the back by itself. */
static void
test_leader_latch__expired_leader_hears_not_leader_and_rejoins_at_the_back (void)
{
  ZkrSession *sessions[3];
  ZkrLeaderLatch *latches[3];
  const char *ids[3] = { "old-leader", "next", "third" };
  g_autofree char *path = itest_scratch_path ("latch-expire");
  g_autoptr (GError) error = NULL;
  LeaderRecorder *old_events;
  LeaderEvent lost;
  gint64 old_token;

  for (int i = 0; i < 3; i++)
    {
      sessions[i] = itest_connect (itest_hosts (), 10000);
      CU_ASSERT_PTR_NOT_NULL_FATAL (sessions[i]);
    }
  latches[0] = zkr_leader_latch_new (sessions[0], path, ids[0], &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (latches[0]);
  old_events = recorder_new (latches[0], FALSE);
  CU_ASSERT_TRUE (zkr_leader_latch_start (latches[0], &error));
  CU_ASSERT_TRUE (zkr_leader_latch_await (latches[0], WAIT_MS, NULL, &error));
  old_token = zkr_leader_latch_get_fencing_token (latches[0]);
  for (int i = 1; i < 3; i++)
    {
      QueueShape shape = { sessions[0], path, (guint) i + 1, ids[i] };
      latches[i] = latch_started (sessions[i], path, ids[i]);
      CU_ASSERT_PTR_NOT_NULL_FATAL (latches[i]);
      CU_ASSERT_TRUE (itest_wait_for (queue_has_shape, &shape, WAIT_MS));
    }

  CU_ASSERT_TRUE_FATAL (itest_expire_session (sessions[0]));
  lost = recorder_wait (old_events, 1, WAIT_MS);
  CU_ASSERT_TRUE (lost.at != 0 && !lost.is_leader);
  CU_ASSERT_TRUE (zkr_leader_latch_await (latches[1], WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_leader_latch_get_fencing_token (latches[1]) > old_token);
  CU_ASSERT_FALSE (zkr_leader_latch_has_leadership (latches[0]));
  CU_ASSERT_FALSE (zkr_leader_latch_has_leadership (latches[2]));
  {
    /* Back in the queue, last, on the fresh session. */
    QueueShape shape = { sessions[1], path, 3, ids[0] };
    g_autoptr (GPtrArray) participants = NULL;

    CU_ASSERT_TRUE (itest_wait_for (queue_has_shape, &shape, WAIT_MS));
    participants = zkr_leader_latch_list_participants (latches[1], NULL, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
    CU_ASSERT_EQUAL_FATAL (participants->len, 3);
    CU_ASSERT_STRING_EQUAL (((ZkrParticipant *) g_ptr_array_index (participants, 0))->client_id, "next");
    CU_ASSERT_EQUAL (((ZkrParticipant *) g_ptr_array_index (participants, 2))->session_id,
                     zkr_session_get_id (sessions[0]));
  }
  /* The old leader leads again once the others leave. */
  CU_ASSERT_TRUE (latch_close (latches[1]));
  CU_ASSERT_TRUE (latch_close (latches[2]));
  CU_ASSERT_TRUE (zkr_leader_latch_await (latches[0], WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (recorder_wait (old_events, 2, WAIT_MS).is_leader);
  CU_ASSERT_TRUE (latch_close (latches[0]));
  CU_ASSERT_EQUAL (itest_count_children (sessions[1], path), 0);
  recorder_free (old_events);
  for (int i = 0; i < 3; i++)
    zkr_leader_latch_unref (latches[i]);
  CU_ASSERT_TRUE (itest_delete_tree (sessions[1], path));
  for (int i = 0; i < 3; i++)
    zkr_session_unref (sessions[i]);
}

/* SIGSTOP the follower the leader is connected to. Default policy: the
 * leader gives up at SUSPENDED, before anyone else can lead; afterwards
 * exactly one participant leads (the old one again if its session and
 * node survived, else the next one) and the listing agrees. */
static void
test_leader_latch__paused_server_makes_the_leader_yield_on_suspended (void)
{
  g_autofree char *followers = itest_followers_hosts ();
  g_autofree char *path = itest_scratch_path ("latch-pause");
  g_autofree char *host = NULL;
  g_autofree char *command = NULL;
  g_autoptr (GError) error = NULL;
  ZkrSession *leader_session, *other_session;
  ZkrLeaderLatch *leader, *other;
  LeaderRecorder *leader_events, *other_events;
  LeaderEvent yielded, other_became;
  gint64 deadline;
  guint server;

  CU_ASSERT_FATAL (strchr (followers, ',') != NULL);
  leader_session = itest_connect (followers, 6000);
  other_session = itest_connect (itest_hosts (), 20000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leader_session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other_session);
  leader = zkr_leader_latch_new (leader_session, path, "paused", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leader);
  leader_events = recorder_new (leader, FALSE);
  CU_ASSERT_TRUE (zkr_leader_latch_start (leader, &error));
  CU_ASSERT_TRUE (zkr_leader_latch_await (leader, WAIT_MS, NULL, &error));
  other = zkr_leader_latch_new (other_session, path, "other", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other);
  other_events = recorder_new (other, FALSE);
  CU_ASSERT_TRUE (zkr_leader_latch_start (other, &error));
  {
    QueueShape shape = { other_session, path, 2, "other" };
    CU_ASSERT_TRUE (itest_wait_for (queue_has_shape, &shape, WAIT_MS));
  }

  host = zkr_session_dup_connected_host (leader_session);
  server = itest_server_index (host);
  CU_ASSERT_FATAL (server > 0);
  command = g_strdup_printf ("pause %u", server);
  CU_ASSERT_FATAL (itest_ensemble (command));
  yielded = recorder_wait (leader_events, 1, WAIT_MS);
  g_free (command);
  command = g_strdup_printf ("resume %u", server);
  CU_ASSERT_FATAL (itest_ensemble (command));
  CU_ASSERT_TRUE (yielded.at != 0 && !yielded.is_leader);

  /* Settle: one of the two leads. */
  deadline = g_get_monotonic_time () + WAIT_MS * G_TIME_SPAN_MILLISECOND;
  while (!zkr_leader_latch_has_leadership (leader) && !zkr_leader_latch_has_leadership (other) &&
         g_get_monotonic_time () < deadline)
    zkr_leader_latch_await (other, 50, NULL, NULL);
  CU_ASSERT_TRUE (zkr_leader_latch_has_leadership (leader) != zkr_leader_latch_has_leadership (other));
  other_became = recorder_wait (other_events, 0, 0);
  if (other_became.at != 0)
    {
      /* The other took over only after the old leader had stepped down. */
      g_printerr ("[the other took over] ");
      CU_ASSERT_TRUE (other_became.at > yielded.at);
      CU_ASSERT_TRUE (zkr_leader_latch_has_leadership (other));
    }
  else
    {
      /* The old leader's node survived: it leads again, same token. */
      LeaderEvent again = recorder_wait (leader_events, 2, WAIT_MS);

      g_printerr ("[the old leader leads again] ");
      CU_ASSERT_TRUE (again.is_leader);
      CU_ASSERT_EQUAL (zkr_session_get_lost_count (leader_session), 0);
    }
  /* The server's listing and the latches' own view agree (once both have
   * caught up: a listing may come from a lagging member, and a session
   * that came back may still be told it expired). */
  {
    ZkrLeaderLatch *pair[2] = { leader, other };

    CU_ASSERT_TRUE (itest_wait_for (listing_agrees, pair, WAIT_MS));
  }
  /* A session that was on the paused server may still be reconnecting
   * (a close then answers CONNECTION_LOSS, deleting in the background). */
  CU_ASSERT_TRUE (zkr_session_wait_connected (leader_session, WAIT_MS, NULL, NULL));
  CU_ASSERT_TRUE (zkr_session_wait_connected (other_session, WAIT_MS, NULL, NULL));
  CU_ASSERT_TRUE (latch_close (leader));
  CU_ASSERT_TRUE (latch_close (other));
  CU_ASSERT_EQUAL (itest_count_children (other_session, path), 0);
  recorder_free (leader_events);
  recorder_free (other_events);
  zkr_leader_latch_unref (leader);
  zkr_leader_latch_unref (other);
  CU_ASSERT_TRUE (itest_delete_tree (other_session, path));
  zkr_session_unref (leader_session);
  zkr_session_unref (other_session);
}

/* The other policy: a leader keeps leadership through a short SUSPENDED
 * (its node survives) and never hears not_leader. */
static void
test_leader_latch__yield_on_lost_keeps_leadership_through_a_short_suspension (void)
{
  g_autofree char *followers = itest_followers_hosts ();
  g_autofree char *path = itest_scratch_path ("latch-keep");
  g_autofree char *host = NULL;
  g_autofree char *command = NULL;
  g_autoptr (GError) error = NULL;
  ItestRecorder *states;
  ZkrSession *session;
  ZkrLeaderLatch *latch;
  LeaderRecorder *events;
  guint server;

  CU_ASSERT_FATAL (strchr (followers, ',') != NULL);
  session = itest_connect_recorded (followers, 20000, &states);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  latch = zkr_leader_latch_new (session, path, "keeper", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (latch);
  zkr_leader_latch_set_yield_policy (latch, ZKR_LEADER_YIELD_ON_LOST);
  events = recorder_new (latch, FALSE);
  CU_ASSERT_TRUE (zkr_leader_latch_start (latch, &error));
  CU_ASSERT_TRUE (zkr_leader_latch_await (latch, WAIT_MS, NULL, &error));
  host = zkr_session_dup_connected_host (session);
  server = itest_server_index (host);
  CU_ASSERT_FATAL (server > 0);
  command = g_strdup_printf ("pause %u", server);
  CU_ASSERT_FATAL (itest_ensemble (command));
  CU_ASSERT_TRUE (itest_recorder_wait_state (states, ZKR_SESSION_STATE_SUSPENDED, 0, WAIT_MS, NULL) > 0);
  CU_ASSERT_TRUE (zkr_leader_latch_has_leadership (latch));
  CU_ASSERT_TRUE (itest_recorder_wait_state (states, ZKR_SESSION_STATE_RECONNECTED, 0, WAIT_MS, NULL) > 0);
  g_free (command);
  command = g_strdup_printf ("resume %u", server);
  CU_ASSERT_FATAL (itest_ensemble (command));
  CU_ASSERT_TRUE (zkr_leader_latch_has_leadership (latch));
  CU_ASSERT_TRUE (zkr_leader_latch_await (latch, 0, NULL, &error));
  CU_ASSERT_EQUAL (recorder_count (events), 1);
  CU_ASSERT_TRUE (latch_close (latch));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  recorder_free (events);
  itest_recorder_free (states);
  zkr_leader_latch_unref (latch);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* ---- one leader at a time across processes ------------------------------- */

#define PROCS 5

/* A participant process: logs "START <monotonic µs> <token>" when it
 * becomes leader and "END <monotonic µs> <token>" when it stops (before it
 * deletes its node), reads "close" on stdin. CLOCK_MONOTONIC is one clock
 * for every process of the machine. */
typedef struct {
  FILE *log;
  ZkrLeaderLatch *latch;
  GMainLoop *loop;
  gboolean leading;
  gint64 token;
} Participant;

static void
participant_log (Participant *p, const char *what, gint64 token)
{
  fprintf (p->log, "%s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", what, g_get_monotonic_time (), token);
  fflush (p->log);
}

static void
participant_is_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  Participant *p = user_data;
  gint64 token = zkr_leader_latch_get_fencing_token (latch);

  if (p->leading || token == 0)
    return;
  p->leading = TRUE;
  p->token = token;
  participant_log (p, "START", token);
}

static void
participant_not_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  Participant *p = user_data;

  (void) latch;
  if (!p->leading)
    return;
  p->leading = FALSE;
  participant_log (p, "END", p->token);
}

static gboolean
participant_on_stdin (GIOChannel *channel, GIOCondition condition, gpointer user_data)
{
  Participant *p = user_data;
  g_autofree char *line = NULL;

  (void) condition;
  if (g_io_channel_read_line (channel, &line, NULL, NULL, NULL) == G_IO_STATUS_NORMAL &&
      !g_str_has_prefix (line, "close"))
    return G_SOURCE_CONTINUE;
  /* The term ends here, before our node is deleted. */
  participant_not_leader (p->latch, p);
  participant_log (p, "CLOSING", 0);
  if (!zkr_leader_latch_close (p->latch, ZKR_LEADER_CLOSE_SILENT, NULL))
    participant_log (p, "CLOSE-FAILED", 0);
  g_main_loop_quit (p->loop);
  return G_SOURCE_REMOVE;
}

static int
participant_main (const char *hosts, const char *path, const char *id, const char *log_path)
{
  g_autoptr (ZkrSessionOptions) options = itest_options (hosts, PROC_SESSION_MS);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSession) session = zkr_session_connect (options, &error);
  Participant p = { 0 };
  GIOChannel *channel;
  guint listener;

  if (session == NULL)
    return 2;
  p.log = fopen (log_path, "a");
  p.latch = zkr_leader_latch_new (session, path, id, &error);
  if (p.log == NULL || p.latch == NULL)
    return 3;
  p.loop = g_main_loop_new (NULL, FALSE);
  listener = zkr_leader_latch_add_listener (p.latch, participant_is_leader, participant_not_leader,
                                            &p, NULL);
  channel = g_io_channel_unix_new (STDIN_FILENO);
  g_io_add_watch (channel, G_IO_IN | G_IO_HUP | G_IO_ERR, participant_on_stdin, &p);
  if (!zkr_leader_latch_start (p.latch, &error))
    return 4;
  participant_log (&p, "STARTED", 0);
  g_main_loop_run (p.loop);
  zkr_leader_latch_remove_listener (p.latch, listener);
  zkr_leader_latch_unref (p.latch);
  g_io_channel_unref (channel);
  g_main_loop_unref (p.loop);
  fclose (p.log);
  return 0;
}

typedef struct {
  GPid pid;
  int stdin_fd;
  char *log_path;
  gboolean gone;
  gint64 died_at;      /* when killed: the end of an open term */
} Child;

typedef struct {
  int child;
  gint64 start, end, token;
} Term;

/* Reads every child's terms; an open term ends at the child's death (or
 * is still running: end = G_MAXINT64). */
static GArray *
read_terms (Child *children, int n)
{
  GArray *terms = g_array_new (FALSE, FALSE, sizeof (Term));

  for (int i = 0; i < n; i++)
    {
      g_autofree char *text = NULL;
      g_auto (GStrv) lines = NULL;
      Term open = { -1, 0, 0, 0 };

      if (!g_file_get_contents (children[i].log_path, &text, NULL, NULL))
        continue;
      lines = g_strsplit (text, "\n", -1);
      for (char **line = lines; *line != NULL; line++)
        {
          char what[16];
          gint64 at, token;

          if (sscanf (*line, "%15s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, what, &at, &token) != 3)
            continue;
          if (strcmp (what, "START") == 0)
            open = (Term) { i, at, 0, token };
          else if (strcmp (what, "END") == 0 && open.child == i)
            {
              open.end = at;
              g_array_append_val (terms, open);
              open.child = -1;
            }
        }
      if (open.child == i)
        {
          open.end = children[i].died_at != 0 ? children[i].died_at : G_MAXINT64;
          g_array_append_val (terms, open);
        }
    }
  return terms;
}

static gint
term_compare (gconstpointer a, gconstpointer b)
{
  const Term *x = a, *y = b;

  return x->start < y->start ? -1 : x->start > y->start;
}

/* The child leading now (an open term, not killed), or -1. */
static int
current_leader (Child *children, int n, gint64 after, gint64 *started)
{
  g_autoptr (GArray) terms = read_terms (children, n);

  for (guint i = 0; i < terms->len; i++)
    {
      Term *t = &g_array_index (terms, Term, i);
      if (t->end == G_MAXINT64 && t->start > after && !children[t->child].gone)
        {
          if (started != NULL)
            *started = t->start;
          return t->child;
        }
    }
  return -1;
}

static int
wait_leader (Child *children, int n, gint64 after, int timeout_ms, gint64 *started)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  int leader;

  /* The terms live in other processes' files: no event to wait on. */
  while ((leader = current_leader (children, n, after, started)) < 0 &&
         g_get_monotonic_time () < deadline)
    g_usleep (10000);
  return leader;
}

static gboolean
child_close (Child *child)
{
  int status = 0;

  if (write (child->stdin_fd, "close\n", 6) != 6)
    return FALSE;
  close (child->stdin_fd);
  waitpid (child->pid, &status, 0);
  g_spawn_close_pid (child->pid);
  child->gone = TRUE;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* The last END of @child, or 0. */
static gint64
child_last_end (Child *children, int n, int child)
{
  g_autoptr (GArray) terms = read_terms (children, n);
  gint64 end = 0;

  for (guint i = 0; i < terms->len; i++)
    if (g_array_index (terms, Term, i).child == child)
      end = MAX (end, g_array_index (terms, Term, i).end);
  return end;
}

static void
test_leader_latch__processes_have_one_leader_at_a_time_with_increasing_tokens (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("latch-procs");
  g_autofree char *dir = g_dir_make_tmp ("zkr-latch-XXXXXX", NULL);
  g_autoptr (GArray) terms = NULL;
  Child children[PROCS] = { 0 };
  int first, second, third, status = 0;
  gint64 killed_at, closed_at, started = 0;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (dir);
  for (int i = 0; i < PROCS; i++)
    {
      g_autofree char *id = g_strdup_printf ("p%d", i);
      char *argv[] = { self_path, (char *) "--participant", (char *) itest_hosts (), path, id, NULL, NULL };
      g_autoptr (GError) error = NULL;

      children[i].log_path = g_strdup_printf ("%s/%s.log", dir, id);
      argv[5] = children[i].log_path;
      CU_ASSERT_FATAL (g_spawn_async_with_pipes (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                                 &children[i].pid, &children[i].stdin_fd, NULL, NULL,
                                                 &error));
    }
  first = wait_leader (children, PROCS, 0, WAIT_MS, NULL);
  CU_ASSERT_FATAL (first >= 0);

  /* Kill the leader: its node goes with its session. */
  kill (children[first].pid, SIGKILL);
  waitpid (children[first].pid, &status, 0);
  g_spawn_close_pid (children[first].pid);
  close (children[first].stdin_fd);
  children[first].gone = TRUE;
  children[first].died_at = killed_at = g_get_monotonic_time ();
  second = wait_leader (children, PROCS, killed_at, PROC_SESSION_MS + 2000 + SLACK_MS, &started);
  CU_ASSERT_FATAL (second >= 0);
  g_printerr ("[leader killed -> new leader after %" G_GINT64_FORMAT " ms (bound %d ms)] ",
              (started - killed_at) / 1000, PROC_SESSION_MS + 2000);

  /* Close the leader: the next one leads at once. */
  CU_ASSERT_TRUE (child_close (&children[second]));
  closed_at = child_last_end (children, PROCS, second);
  CU_ASSERT_FATAL (closed_at > 0);
  third = wait_leader (children, PROCS, closed_at, 1000 + SLACK_MS, &started);
  CU_ASSERT_FATAL (third >= 0);
  g_printerr ("[leader closed -> new leader after %" G_GINT64_FORMAT " ms (bound 1000 ms)] ",
              (started - closed_at) / 1000);

  /* Everyone leaves, the leader first each time. */
  for (int left = PROCS - 2; left > 0; left--)
    {
      int leader = wait_leader (children, PROCS, 0, WAIT_MS, NULL);
      CU_ASSERT_FATAL (leader >= 0);
      CU_ASSERT_TRUE (child_close (&children[leader]));
    }

  terms = read_terms (children, PROCS);
  g_array_sort (terms, term_compare);
  CU_ASSERT_EQUAL (terms->len, PROCS);
  for (guint i = 1; i < terms->len; i++)
    {
      Term *before = &g_array_index (terms, Term, i - 1);
      Term *after = &g_array_index (terms, Term, i);

      /* No overlap, and each term's token is above the one before. */
      CU_ASSERT_TRUE (after->start > before->end);
      CU_ASSERT_TRUE (after->token > before->token);
      if (!(after->start > before->end) || !(after->token > before->token))
        g_printerr ("term p%d [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] token %" G_GINT64_FORMAT
                    " then p%d [%" G_GINT64_FORMAT ", ...] token %" G_GINT64_FORMAT "\n",
                    before->child, before->start, before->end, before->token,
                    after->child, after->start, after->token);
    }
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  for (int i = 0; i < PROCS; i++)
    {
      g_unlink (children[i].log_path);
      g_free (children[i].log_path);
    }
  g_rmdir (dir);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* The latch's election once ran its acquire from whichever
 * thread ran the worker's code, and a caller blocked in a contended mutex
 * acquire on the same session stands in for the worker: the latch's
 * outcome then went to that thread's default main context, which nobody
 * iterates here, so the latch never led and its close blocked forever. */
typedef struct {
  ZkrMutex *mutex;
  gboolean acquired;
  GError *error;
} BlockedAcquire;

static gpointer
blocked_acquire_thread (gpointer data)
{
  BlockedAcquire *blocked = data;

  blocked->acquired = zkr_mutex_acquire (blocked->mutex, WAIT_MS, NULL, &blocked->error);
  return NULL;
}

static void
test_leader_latch__leads_while_another_thread_blocks_in_the_session (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *other = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("latch-stand-in");
  g_autofree char *mutex_path = g_strconcat (base, "/mutex", NULL);
  g_autofree char *latch_path = g_strconcat (base, "/latch", NULL);
  g_autoptr (GError) error = NULL;
  BlockedAcquire blocked = { 0 };
  ZkrMutex *holder;
  ZkrLeaderLatch *latch;
  GThread *thread;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other);
  holder = zkr_mutex_new (other, mutex_path, &error);
  blocked.mutex = zkr_mutex_new (session, mutex_path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (holder);
  CU_ASSERT_PTR_NOT_NULL_FATAL (blocked.mutex);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (holder, WAIT_MS, NULL, &error));
  thread = g_thread_new ("blocked-acquire", blocked_acquire_thread, &blocked);
  /* Its node is queued: the thread is blocked in the session. */
  CU_ASSERT_TRUE (itest_wait_for_children (session, mutex_path, 2, WAIT_MS));

  latch = zkr_leader_latch_new (session, latch_path, "alone", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (latch);
  CU_ASSERT_TRUE (zkr_leader_latch_start (latch, &error));
  /* Alone on its path: it leads, and nobody iterates the default context. */
  CU_ASSERT_TRUE (zkr_leader_latch_await (latch, WAIT_MS, NULL, &error));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_leader_latch_close (latch, ZKR_LEADER_CLOSE_SILENT, &error));
  zkr_leader_latch_unref (latch);
  CU_ASSERT_EQUAL (itest_count_children (session, latch_path), 0);

  CU_ASSERT_TRUE (zkr_mutex_release (holder, &error));
  g_thread_join (thread);
  CU_ASSERT_TRUE (blocked.acquired);
  g_clear_error (&blocked.error);
  CU_ASSERT_TRUE (zkr_mutex_release (blocked.mutex, &error));
  zkr_mutex_unref (blocked.mutex);
  zkr_mutex_unref (holder);
  CU_ASSERT_EQUAL (itest_count_children (session, mutex_path), 0);
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  zkr_session_unref (other);
  zkr_session_unref (session);
}

/* ---- await_async ---------------------------------------------------------- */

/* Starts an await_async from this thread: it answers in this thread's
 * context. */
static void
await_begin (ItestAsync *wait, ZkrLeaderLatch *latch, int timeout_ms, GCancellable *cancellable)
{
  itest_async_begin (wait);
  zkr_leader_latch_await_async (latch, timeout_ms, cancellable, itest_async_done, wait);
}

/* Waits for the answer of await_begin(): TRUE (leading) or FALSE with
 * @error. @latch is only handed to the finish: it may be gone. */
static gboolean
await_end (ItestAsync *wait, ZkrLeaderLatch *latch, GError **error)
{
  GAsyncResult *result = itest_async_wait (wait, WAIT_MS);
  gboolean ok = FALSE;

  CU_ASSERT_PTR_NOT_NULL (result);
  if (result != NULL)
    ok = zkr_leader_latch_await_finish (latch, result, error);
  itest_async_end (wait);
  return ok;
}

/* The waiting latch's await_async times out while another leads, answers
 * TRUE when the leader closes, and at once while it leads; a latch not
 * started is refused. */
static void
test_leader_latch__await_async_answers_leadership_and_a_timeout (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("latch-await-async");
  g_autoptr (GError) error = NULL;
  ZkrLeaderLatch *first, *second;
  ItestAsync wait;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  first = latch_started (a, path, "first");
  CU_ASSERT_PTR_NOT_NULL_FATAL (first);
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (first, WAIT_MS, NULL, &error));
  second = zkr_leader_latch_new (b, path, "second", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (second);
  await_begin (&wait, second, 100, NULL);
  CU_ASSERT_FALSE (await_end (&wait, second, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_leader_latch_start (second, &error));
  {
    QueueShape shape = { a, path, 2, "second" };
    CU_ASSERT_TRUE (itest_wait_for (queue_has_shape, &shape, WAIT_MS));
  }
  await_begin (&wait, second, 300, NULL);
  CU_ASSERT_FALSE (await_end (&wait, second, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_leader_latch_has_leadership (second));

  await_begin (&wait, second, -1, NULL);
  CU_ASSERT_TRUE (latch_close (first));
  CU_ASSERT_TRUE (await_end (&wait, second, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (zkr_leader_latch_has_leadership (second));
  await_begin (&wait, second, 0, NULL);
  CU_ASSERT_TRUE (await_end (&wait, second, &error));

  CU_ASSERT_TRUE (latch_close (second));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_leader_latch_unref (first);
  zkr_leader_latch_unref (second);
  itest_assert_path_clean (a, path);
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* Waiting behind a leader, await_async answers a cancel CANCELLED, and
 * SESSION_CLOSED when its latch is closed, freed, or its session closed;
 * no node is left. */
static void
test_leader_latch__await_async_answers_a_cancel_and_every_close (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  ZkrSession *c = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("latch-await-async-close");
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  ZkrLeaderLatch *leader, *waiter;
  ItestAsync wait;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c);
  leader = latch_started (a, path, "leader");
  CU_ASSERT_PTR_NOT_NULL_FATAL (leader);
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (leader, WAIT_MS, NULL, &error));

  /* Cancelled, then closed. */
  waiter = latch_started (b, path, "waiter");
  CU_ASSERT_PTR_NOT_NULL_FATAL (waiter);
  await_begin (&wait, waiter, -1, cancellable);
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (await_end (&wait, waiter, &error));
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);
  await_begin (&wait, waiter, -1, NULL);
  CU_ASSERT_TRUE (latch_close (waiter));
  CU_ASSERT_FALSE (await_end (&wait, waiter, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  zkr_leader_latch_unref (waiter);

  /* Freed by its last unref while the wait is out. */
  waiter = latch_started (b, path, "freed");
  CU_ASSERT_PTR_NOT_NULL_FATAL (waiter);
  await_begin (&wait, waiter, -1, NULL);
  zkr_leader_latch_unref (waiter);
  CU_ASSERT_FALSE (await_end (&wait, waiter, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);

  /* Its session closed while queued. */
  waiter = latch_started (c, path, "session-closed");
  CU_ASSERT_PTR_NOT_NULL_FATAL (waiter);
  {
    QueueShape shape = { a, path, 2, "session-closed" };
    CU_ASSERT_TRUE (itest_wait_for (queue_has_shape, &shape, WAIT_MS));
  }
  await_begin (&wait, waiter, -1, NULL);
  zkr_session_close (c);
  CU_ASSERT_FALSE (await_end (&wait, waiter, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  zkr_leader_latch_unref (waiter);

  CU_ASSERT_TRUE (latch_close (leader));
  zkr_leader_latch_unref (leader);
  CU_ASSERT_TRUE (itest_wait_for_children (a, path, 0, WAIT_MS));
  itest_assert_path_clean (a, path);
  zkr_session_unref (a);
  zkr_session_unref (b);
  zkr_session_unref (c);
}

/* ---- close_async and the last unref --------------------------------------- */

static void
close_notify_start (gpointer latch, GCancellable *cancellable, GAsyncReadyCallback callback,
                    gpointer user_data)
{
  zkr_leader_latch_close_async (latch, ZKR_LEADER_CLOSE_NOTIFY, cancellable, callback, user_data);
}

static gboolean
close_finish (gpointer latch, GAsyncResult *result, GError **error)
{
  return zkr_leader_latch_close_finish (latch, result, error);
}


/* close_async of a leader answers TRUE with its node gone and the listener
 * told (NOTIFY); of a latch never started, or closed, TRUE at once. A
 * cancelled close_async answers CANCELLED, and the close goes on: the
 * follower's node goes all the same. */
static void
test_leader_latch__close_async_answers_true_and_a_cancel_and_deletes_the_node (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("latch-close-async");
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  g_autofree char *follower_node = NULL;
  ZkrLeaderLatch *leader, *follower, *latent;
  LeaderRecorder *recorder;
  ItestNodeAt at;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  latent = zkr_leader_latch_new (session, path, "latent", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (latent);
  CU_ASSERT_TRUE (itest_async_call (latent, close_notify_start, close_finish, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  zkr_leader_latch_unref (latent);

  leader = latch_started (session, path, "leader");
  CU_ASSERT_PTR_NOT_NULL_FATAL (leader);
  recorder = recorder_new (leader, FALSE);
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (leader, WAIT_MS, NULL, &error));
  follower = latch_started (session, path, "follower");
  CU_ASSERT_PTR_NOT_NULL_FATAL (follower);
  {
    QueueShape shape = { session, path, 2, "follower" };
    CU_ASSERT_TRUE (itest_wait_for (queue_has_shape, &shape, WAIT_MS));
  }
  node = zkr_leader_latch_dup_node_path (leader);
  CU_ASSERT_PTR_NOT_NULL_FATAL (node);
  CU_ASSERT_TRUE (itest_async_call (leader, close_notify_start, close_finish, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (itest_node_absent (session, node));
  CU_ASSERT_FALSE (zkr_leader_latch_has_leadership (leader));
  CU_ASSERT_FALSE (recorder_wait (recorder, 1, WAIT_MS).is_leader);
  CU_ASSERT_TRUE (itest_async_call (leader, close_notify_start, close_finish, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  recorder_free (recorder);
  zkr_leader_latch_unref (leader);

  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (follower, WAIT_MS, NULL, &error));
  follower_node = zkr_leader_latch_dup_node_path (follower);
  CU_ASSERT_PTR_NOT_NULL_FATAL (follower_node);
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (itest_async_call (follower, close_notify_start, close_finish, cancellable,
                                     &error));
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_leader_latch_has_leadership (follower));
  at = (ItestNodeAt) { session, follower_node };
  CU_ASSERT_TRUE (itest_wait_for (itest_node_gone, &at, WAIT_MS));
  zkr_leader_latch_unref (follower);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* The listener's destroy runs in its context: this thread's default.
 * (@data: a gint, set by last_unref_destroy) */
static gboolean
last_unref_destroyed (gpointer data)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
  return g_atomic_int_get ((gint *) data);
}

static void
last_unref_destroy (gpointer data)
{
  g_atomic_int_set ((gint *) data, TRUE);
}

static void
on_leader_ignored (ZkrLeaderLatch *latch, gpointer user_data)
{
  (void) latch;
  (void) user_data;
}

/* The session timeout of the black-holed tests: long, so the session
 * outlives the black hole and our delete, not the expiry, removes the
 * node. The old last unref waited up to 2/3 of it. */
#define BLACK_HOLE_SESSION_MS 15000

/* The last unref of a leader returns while its server is black-holed
 * (it used to wait for the release's answer, up to 2/3 of the session
 * timeout); the node goes once the link heals, and the latch is freed
 * (its listener's destroy runs). */
static void
test_leader_latch__last_unref_of_a_leader_returns_while_black_holed (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *node = NULL;
  gint destroyed = FALSE;
  ItestInThread last;
  ZkrLeaderLatch *latch;
  ItestNodeAt at;

  itest_proxied_init (&f, NULL, "latch-unref-blackhole", BLACK_HOLE_SESSION_MS);
  path = g_strdup_printf ("%s/election", f.root);
  latch = latch_started (f.proxied, path, "leader");
  CU_ASSERT_PTR_NOT_NULL_FATAL (latch);
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (latch, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_leader_latch_add_listener (latch, on_leader_ignored, NULL, &destroyed,
                                                 last_unref_destroy) > 0);
  /* The is_leader event may have reached the listener (it holds a
   * reference until it ran): the token's read waits for the emit, the
   * iteration runs it. */
  CU_ASSERT_TRUE (zkr_leader_latch_get_fencing_token (latch) > 0);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  node = zkr_leader_latch_dup_node_path (latch);
  CU_ASSERT_PTR_NOT_NULL_FATAL (node);
  itest_proxied_black_hole (&f);
  itest_in_thread_start (&last, "latch-last-unref", (GDestroyNotify) zkr_leader_latch_unref,
                         latch);
  CU_ASSERT_TRUE (itest_wait_for (itest_in_thread_returned, &last, BLACK_HOLE_SESSION_MS / 5));
  itest_in_thread_join (&last);
  CU_ASSERT_FALSE (itest_node_absent (f.direct, node));

  zkr_test_proxy_heal (f.proxy);
  at = (ItestNodeAt) { f.direct, node };
  CU_ASSERT_TRUE (itest_wait_for (itest_node_gone, &at, WAIT_MS));
  CU_ASSERT_TRUE (itest_wait_for (last_unref_destroyed, &destroyed, WAIT_MS));
  CU_ASSERT_NOT_EQUAL (zkr_session_get_state (f.proxied), ZKR_SESSION_STATE_LOST);
  CU_ASSERT_TRUE (itest_delete_tree (f.direct, path));
  itest_proxied_finish (&f, TRUE);
}

/* ---- a cancel running in another thread as a call ends ------------------- */

/* How long the cancel holds its thread once the call can end: the call's
 * answer must not come meanwhile (it comes within milliseconds when the
 * end does not wait for the cancel). */
#define HOLD_MS 2000

/* A close_async or await_async in a context of the test's own, cancelled
 * by another thread whose first handler (connected before the call's)
 * lets the call end, then holds the cancel a while. */
typedef struct {
  GCancellable *cancellable;
  ZkrLeaderLatch *latch;       /* the call's */
  ZkrTestProxy *proxy;         /* (nullable) healed by the cancel: the close ends */
  ZkrLeaderLatch *leader;      /* (nullable) closed by the cancel: the await ends */
  gint answered;               /* (atomic) the call's callback ran */
  gboolean ok;
  GError *error;
  gboolean answered_meanwhile; /* it ran while the cancel held its thread */
} HeldCancel;

static void
held_cancel_run (GCancellable *cancellable, gpointer data)
{
  HeldCancel *held = data;
  gint64 end;

  (void) cancellable;
  if (held->proxy != NULL)
    zkr_test_proxy_heal (held->proxy);
  if (held->leader != NULL)
    CU_ASSERT_TRUE (latch_close (held->leader));
  end = g_get_monotonic_time () + (gint64) HOLD_MS * 1000;
  while (!g_atomic_int_get (&held->answered) && g_get_monotonic_time () < end)
    g_usleep (1000);
  held->answered_meanwhile = g_atomic_int_get (&held->answered);
}

static gpointer
held_cancel_main (gpointer data)
{
  g_cancellable_cancel (((HeldCancel *) data)->cancellable);
  return NULL;
}

static void
held_close_answered (GObject *source, GAsyncResult *result, gpointer data)
{
  HeldCancel *held = data;

  (void) source;
  held->ok = zkr_leader_latch_close_finish (held->latch, result, &held->error);
  g_atomic_int_set (&held->answered, 1);
}

static void
held_await_answered (GObject *source, GAsyncResult *result, gpointer data)
{
  HeldCancel *held = data;

  (void) source;
  held->ok = zkr_leader_latch_await_finish (held->latch, result, &held->error);
  g_atomic_int_set (&held->answered, 1);
}

static gboolean
never_ready (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}

static void
context_gone (gpointer data)
{
  *(gboolean *) data = TRUE;
}

/* Cancels in another thread, runs @context until the call answered and
 * drops it (pushed by the caller); TRUE once the context went, the
 * cancel's post left unrun in it (it destroys its sources as it goes). */
static gboolean
held_cancel_finish (HeldCancel *held, GMainContext *context)
{
  GThread *canceller = g_thread_new ("held-cancel", held_cancel_main, held);
  gint64 end = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  GSource *witness = g_timeout_source_new_seconds (3600);
  gboolean gone = FALSE;

  g_source_set_callback (witness, never_ready, &gone, context_gone);
  g_source_attach (witness, context);
  g_source_unref (witness);
  while (!g_atomic_int_get (&held->answered) && g_get_monotonic_time () < end)
    if (!g_main_context_iteration (context, FALSE))
      g_usleep (2000);
  g_thread_join (canceller);
  CU_ASSERT_TRUE (g_atomic_int_get (&held->answered));
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
  return gone;
}

/* A close_async that ends (its delete got through) while a cancel of its
 * cancellable runs in another thread answers only once that cancel is
 * over (the answer is not the cancel's: it came after the end), and its
 * context, dropped at once with the cancel's post unrun, goes. A
 * GCancellableSource let the close answer at once: the cancel could then
 * still reach the source and lock the context freed meanwhile (GLib 2.74;
 * a fault-suite worker hung so in the await). */
static void
test_leader_latch__a_close_answers_after_a_cancel_running_in_another_thread (void)
{
  ItestProxied f;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *node = NULL;
  HeldCancel held = { cancellable, NULL, NULL, NULL, 0, FALSE, NULL, FALSE };
  GMainContext *context;

  itest_proxied_init (&f, NULL, "latch-held-cancel", BLACK_HOLE_SESSION_MS);
  path = g_strdup_printf ("%s/election", f.root);
  held.latch = latch_started (f.proxied, path, "leader");
  CU_ASSERT_PTR_NOT_NULL_FATAL (held.latch);
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (held.latch, WAIT_MS, NULL, &error));
  node = zkr_leader_latch_dup_node_path (held.latch);
  CU_ASSERT_PTR_NOT_NULL_FATAL (node);
  held.proxy = f.proxy;
  g_cancellable_connect (cancellable, G_CALLBACK (held_cancel_run), &held, NULL);
  context = g_main_context_new ();
  g_main_context_push_thread_default (context);
  /* Its delete waits in the black hole until the cancel heals it. */
  itest_proxied_black_hole (&f);
  zkr_leader_latch_close_async (held.latch, ZKR_LEADER_CLOSE_SILENT, cancellable,
                                held_close_answered, &held);
  CU_ASSERT_TRUE (held_cancel_finish (&held, context));
  CU_ASSERT_FALSE (held.answered_meanwhile);
  CU_ASSERT_TRUE (held.ok);
  CU_ASSERT_PTR_NULL (held.error);
  g_clear_error (&held.error);
  CU_ASSERT_TRUE (itest_node_absent (f.direct, node));
  zkr_leader_latch_unref (held.latch);
  CU_ASSERT_TRUE (itest_delete_tree (f.direct, path));
  itest_proxied_finish (&f, TRUE);
}

/* The same for an await_async answered by leadership (the leader ahead
 * closed) while a cancel of its cancellable runs in another thread. */
static void
test_leader_latch__an_await_answers_after_a_cancel_running_in_another_thread (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("latch-await-held-cancel");
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  HeldCancel held = { cancellable, NULL, NULL, NULL, 0, FALSE, NULL, FALSE };
  GMainContext *context;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  held.leader = latch_started (session, path, "leader");
  CU_ASSERT_PTR_NOT_NULL_FATAL (held.leader);
  CU_ASSERT_TRUE_FATAL (zkr_leader_latch_await (held.leader, WAIT_MS, NULL, &error));
  held.latch = latch_started (session, path, "follower");
  CU_ASSERT_PTR_NOT_NULL_FATAL (held.latch);
  g_cancellable_connect (cancellable, G_CALLBACK (held_cancel_run), &held, NULL);
  context = g_main_context_new ();
  g_main_context_push_thread_default (context);
  zkr_leader_latch_await_async (held.latch, WAIT_MS, cancellable, held_await_answered, &held);
  CU_ASSERT_TRUE (held_cancel_finish (&held, context));
  CU_ASSERT_FALSE (held.answered_meanwhile);
  CU_ASSERT_TRUE (held.ok);
  CU_ASSERT_PTR_NULL (held.error);
  g_clear_error (&held.error);
  CU_ASSERT_TRUE (latch_close (held.latch));
  zkr_leader_latch_unref (held.latch);
  zkr_leader_latch_unref (held.leader);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, WAIT_MS));
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_leader_latch__bad_input_gets_clear_errors),
  ZKR_TEST_CASE (test_leader_latch__single_participant_leads_with_a_token_and_leaves_no_node),
  ZKR_TEST_CASE (test_leader_latch__follower_takes_over_on_close_and_close_works_from_a_listener),
  ZKR_TEST_CASE (test_leader_latch__follower_leads_through_throttled_answers),
  ZKR_TEST_CASE (test_leader_latch__expired_leader_hears_not_leader_and_rejoins_at_the_back),
  ZKR_TEST_CASE (test_leader_latch__paused_server_makes_the_leader_yield_on_suspended),
  ZKR_TEST_CASE (test_leader_latch__yield_on_lost_keeps_leadership_through_a_short_suspension),
  ZKR_TEST_CASE (test_leader_latch__processes_have_one_leader_at_a_time_with_increasing_tokens),
  ZKR_TEST_CASE (test_leader_latch__leads_while_another_thread_blocks_in_the_session),
  ZKR_TEST_CASE (test_leader_latch__await_async_answers_leadership_and_a_timeout),
  ZKR_TEST_CASE (test_leader_latch__await_async_answers_a_cancel_and_every_close),
  ZKR_TEST_CASE (test_leader_latch__a_cancel_after_a_blocking_await_answered_touches_nothing),
  ZKR_TEST_CASE (test_leader_latch__close_async_answers_true_and_a_cancel_and_deletes_the_node),
  ZKR_TEST_CASE (test_leader_latch__a_close_answers_after_a_cancel_running_in_another_thread),
  ZKR_TEST_CASE (test_leader_latch__an_await_answers_after_a_cancel_running_in_another_thread),
  ZKR_TEST_CASE (test_leader_latch__last_unref_of_a_leader_returns_while_black_holed),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  self_path = g_file_read_link ("/proc/self/exe", NULL);
  if (argc == 6 && strcmp (argv[1], "--participant") == 0)
    return participant_main (argv[2], argv[3], argv[4], argv[5]);
  return zkr_test_main (argc, argv, "leader-latch", NULL, NULL, tests);
}
