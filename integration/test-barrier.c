/* zkr integration: the barrier and the double barrier against the real
 * ensemble: passing rules, a dead member, deadlines through the proxy,
 * bad input, and Curator's own barriers (integration/interop/BarrierPeer)
 * on the same paths. */
#include <string.h>

#include "context.h"
#include "itest.h"
#include "zkr-test.h"

#define SHORT_TIMEOUT_MS 1000
#define MARGIN_MS 750
#define EARLY_MS 20
#define PEER_MS 30000

/* ---- async answers in a private context ----------------------------------- */

typedef enum { CALL_WAIT, CALL_ENTER, CALL_LEAVE } CallKind;

typedef struct {
  CallKind kind;
  gpointer object;
  gboolean done;
  gboolean ok;
  GError *error;
} Answer;

static void
answered (GObject *source, GAsyncResult *result, gpointer data)
{
  Answer *answer = data;

  (void) source;
  if (answer->kind == CALL_WAIT)
    answer->ok = zkr_barrier_wait_finish (answer->object, result, &answer->error);
  else if (answer->kind == CALL_ENTER)
    answer->ok = zkr_double_barrier_enter_finish (answer->object, result, &answer->error);
  else
    answer->ok = zkr_double_barrier_leave_finish (answer->object, result, &answer->error);
  answer->done = TRUE;
}

/* Iterates the thread-default context until @answer came, or @timeout_ms. */
static gboolean
pump_until_done (Answer *answer, int timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!answer->done && g_get_monotonic_time () < end)
    if (!g_main_context_iteration (g_main_context_get_thread_default (), FALSE))
      g_usleep (2000);
  return answer->done;
}

/* What was already delivered, without waiting. */
static void
pump_pending (void)
{
  while (g_main_context_iteration (g_main_context_get_thread_default (), FALSE))
    ;
}

/* Runs the context (where the async calls go on) until @path has @count
 * children on the server. */
static gboolean
pump_until_children (ZkrSession *session, const char *path, guint count)
{
  gint64 end = g_get_monotonic_time () + (gint64) ITEST_WAIT_MS * 1000;

  while (g_get_monotonic_time () < end)
    {
      pump_pending ();
      if (itest_count_children (session, path) == count)
        return TRUE;
      g_usleep (5000);
    }
  return FALSE;
}

static void
enter_async (ZkrDoubleBarrier *barrier, Answer *answer, int timeout_ms)
{
  memset (answer, 0, sizeof *answer);
  answer->kind = CALL_ENTER;
  answer->object = barrier;
  zkr_double_barrier_enter_async (barrier, timeout_ms, NULL, answered, answer);
}

static void
leave_async (ZkrDoubleBarrier *barrier, Answer *answer, int timeout_ms)
{
  memset (answer, 0, sizeof *answer);
  answer->kind = CALL_LEAVE;
  answer->object = barrier;
  zkr_double_barrier_leave_async (barrier, timeout_ms, NULL, answered, answer);
}

static GMainContext *
context_begin (void)
{
  GMainContext *context = g_main_context_new ();

  g_main_context_push_thread_default (context);
  return context;
}

static void
context_end (GMainContext *context)
{
  pump_pending ();
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
}

/* ---- the simple barrier ------------------------------------------------------ */

/* Waiters wait while the node exists and all pass when it is removed. */
static void
test_barrier__waiters_pass_when_the_node_is_removed (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), NULL, 10000);
  g_autofree char *root = itest_scratch_path ("barrier");
  g_autofree char *path = g_strconcat (root, "/gate", NULL);
  g_autoptr (ZkrBarrier) barrier = zkr_barrier_new (session, path, NULL);
  g_autoptr (GError) error = NULL;
  GMainContext *context = context_begin ();
  Answer waiters[2] = { { 0 } };

  CU_ASSERT_TRUE (zkr_barrier_wait (barrier, 0, NULL, &error));   /* no node: down */
  CU_ASSERT_TRUE (zkr_barrier_set (barrier, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_barrier_set (barrier, ITEST_CALL_MS, NULL, &error)); /* exists: fine */
  CU_ASSERT_FALSE (zkr_barrier_wait (barrier, 0, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  for (guint i = 0; i < 2; i++)
    {
      waiters[i].kind = CALL_WAIT;
      waiters[i].object = barrier;
      zkr_barrier_wait_async (barrier, ITEST_WAIT_MS, NULL, answered, &waiters[i]);
    }
  CU_ASSERT_FALSE (zkr_barrier_wait (barrier, 200, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  pump_pending ();
  CU_ASSERT_FALSE (waiters[0].done || waiters[1].done);
  CU_ASSERT_TRUE (zkr_barrier_remove (barrier, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_barrier_remove (barrier, ITEST_CALL_MS, NULL, &error)); /* gone: fine */
  for (guint i = 0; i < 2; i++)
    {
      CU_ASSERT_TRUE (pump_until_done (&waiters[i], ITEST_WAIT_MS));
      CU_ASSERT_TRUE (waiters[i].ok);
    }
  context_end (context);
  itest_cleanup_root (session, NULL, root);
}

/* ---- the double barrier ------------------------------------------------------ */

/* Three members on three sessions: nobody is through enter before the
 * third came, nobody through leave before the last one left. */
static void
test_double_barrier__nobody_passes_before_all_came_or_left (void)
{
  g_autofree char *root = itest_scratch_path ("double");
  ZkrSession *sessions[3];
  ZkrDoubleBarrier *members[3];
  Answer answers[3];
  GMainContext *context = context_begin ();

  for (guint i = 0; i < 3; i++)
    {
      sessions[i] = itest_connect_ns (itest_hosts (), NULL, 10000);
      members[i] = zkr_double_barrier_new (sessions[i], root, 3, NULL);
    }
  enter_async (members[0], &answers[0], ITEST_WAIT_MS);
  enter_async (members[1], &answers[1], ITEST_WAIT_MS);
  CU_ASSERT_TRUE (pump_until_children (sessions[2], root, 2));
  pump_pending ();
  CU_ASSERT_FALSE (answers[0].done || answers[1].done);
  enter_async (members[2], &answers[2], ITEST_WAIT_MS);
  for (guint i = 0; i < 3; i++)
    {
      CU_ASSERT_TRUE (pump_until_done (&answers[i], ITEST_WAIT_MS));
      CU_ASSERT_TRUE (answers[i].ok);
    }
  CU_ASSERT_FALSE (itest_node_absent (sessions[0], root));
  leave_async (members[0], &answers[0], ITEST_WAIT_MS);
  leave_async (members[1], &answers[1], ITEST_WAIT_MS);
  pump_pending ();
  {
    /* Member 2 is still in: its node is there, so nobody may be through. */
    g_autofree char *node = zkr_double_barrier_dup_member_path (members[2]);
    CU_ASSERT_FALSE (itest_node_absent (sessions[2], node));
  }
  CU_ASSERT_FALSE (answers[0].done || answers[1].done);
  leave_async (members[2], &answers[2], ITEST_WAIT_MS);
  for (guint i = 0; i < 3; i++)
    {
      CU_ASSERT_TRUE (pump_until_done (&answers[i], ITEST_WAIT_MS));
      CU_ASSERT_TRUE (answers[i].ok);
      zkr_double_barrier_unref (members[i]);
    }
  context_end (context);
  CU_ASSERT_EQUAL (itest_count_children (sessions[0], root), 0);
  itest_cleanup_root (sessions[0], NULL, root);
  for (guint i = 0; i < 3; i++)
    zkr_session_unref (sessions[i]);
}

/* The surviving member's session: long enough that a loaded machine's
 * slow server does not drop its connection in the middle of the leave
 * (the client gives up on a server silent for 2/3 of it). */
#define SURVIVOR_SESSION_MS 30000
/* The leave's deadline: the expiry's helper tries again after 20 s when
 * its close did not reach the ensemble (on a loaded machine). */
#define EXPIRY_WAIT_MS (3 * ITEST_WAIT_MS)

static gpointer
expire_main (gpointer session)
{
  return GINT_TO_POINTER (itest_expire_session (session));
}

/* A member whose session dies in the barrier: its node goes with the
 * session, and the other's leave passes then; the dead member's own
 * leave passes too (nobody is left). The expiry runs on a thread of its
 * own while this one runs the leave's context, so the leave sees the node
 * go as soon as it goes, however long the expiry takes to be noticed. */
static void
test_double_barrier__a_dead_member_does_not_hold_the_others (void)
{
  g_autofree char *root = itest_scratch_path ("dead");
  g_autoptr (ZkrSession) alive = itest_connect_ns (itest_hosts (), NULL, SURVIVOR_SESSION_MS);
  g_autoptr (ZkrSession) doomed = itest_connect_ns (itest_hosts (), NULL, 10000);
  g_autoptr (ZkrDoubleBarrier) a = zkr_double_barrier_new (alive, root, 2, NULL);
  g_autoptr (ZkrDoubleBarrier) d = zkr_double_barrier_new (doomed, root, 2, NULL);
  g_autoptr (GError) error = NULL;
  GMainContext *context = context_begin ();
  Answer entered, left;
  GThread *expirer;

  enter_async (a, &entered, ITEST_WAIT_MS);
  CU_ASSERT_TRUE (pump_until_children (alive, root, 1));
  CU_ASSERT_TRUE (zkr_double_barrier_enter (d, ITEST_WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (pump_until_done (&entered, ITEST_WAIT_MS) && entered.ok);
  leave_async (a, &left, EXPIRY_WAIT_MS);
  pump_pending ();
  CU_ASSERT_FALSE (left.done);
  expirer = g_thread_new ("expire", expire_main, doomed);
  CU_ASSERT_TRUE (pump_until_done (&left, EXPIRY_WAIT_MS));
  CU_ASSERT_TRUE (GPOINTER_TO_INT (g_thread_join (expirer)));
  if (left.error != NULL)
    g_printerr ("the survivor's leave: %s\n", left.error->message);
  CU_ASSERT_TRUE (left.ok);
  g_clear_error (&left.error);
  /* Our node went with the session and nobody is left: through (as
   * Curator); with members left it would be ZKR_ERROR_NO_NODE. A call
   * made while the session is LOST answers SESSION_EXPIRED at once
   * (zkr/node.h), and the fresh session may connect well after the LOST
   * was seen on a loaded machine: the leave waits for it. */
  CU_ASSERT_TRUE (zkr_session_wait_connected (doomed, ITEST_WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_double_barrier_leave (d, ITEST_WAIT_MS, NULL, &error));
  if (error != NULL)
    g_printerr ("the dead member's leave: %s\n", error->message);
  context_end (context);
  itest_cleanup_root (alive, NULL, root);
}

/* ---- a cancel running in another thread as a blocking call ends ---------- */

/* How long the cancel holds its thread once the wait can end: the wait's
 * answer must not come meanwhile (it comes within milliseconds when the
 * end does not wait for the cancel). */
#define HOLD_MS 2000

typedef struct {
  ZkrSession *session;
  ZkrBarrier *barrier;
  GCancellable *cancellable;
  gint returned;           /* (atomic) the blocking wait returned */
  gboolean removed;        /* the cancel's thread removed the barrier */
  gboolean returned_meanwhile; /* ... and the wait returned while it was cancelling */
} HeldCancel;

/* Connected before the wait's own handler, so it runs first in the
 * cancelling thread: it removes the barrier (the wait passes), then holds
 * the cancel a while. */
static void
held_cancel_run (GCancellable *cancellable, gpointer data)
{
  HeldCancel *held = data;
  gint64 end;

  (void) cancellable;
  held->removed = zkr_barrier_remove (held->barrier, ITEST_CALL_MS, NULL, NULL);
  end = g_get_monotonic_time () + (gint64) HOLD_MS * 1000;
  while (!g_atomic_int_get (&held->returned) && g_get_monotonic_time () < end)
    g_usleep (1000);
  held->returned_meanwhile = g_atomic_int_get (&held->returned);
}

/* Cancels once the blocking wait watches the barrier (so after its cancel
 * handler was connected). */
static gpointer
held_cancel_main (gpointer data)
{
  HeldCancel *held = data;
  g_autofree char *node = itest_server_path (NULL, zkr_barrier_get_path (held->barrier));
  ItestWatchOn on = { node, zkr_session_get_id (held->session) };

  if (itest_wait_for (itest_watch_is_set, &on, ITEST_WAIT_MS))
    g_cancellable_cancel (held->cancellable);
  return NULL;
}

/* A blocking wait that ends (the barrier was removed) while a cancel of
 * its cancellable runs in another thread returns only once that cancel is
 * over, and its private context then goes with nothing of the call left
 * in it. A GCancellableSource let the wait return at once: the cancel
 * could then still reach the source and lock the context freed meanwhile
 * (GLib 2.74; a fault-suite worker hung so). */
static void
test_barrier__a_blocking_wait_ends_after_a_cancel_running_in_another_thread (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), NULL, 10000);
  g_autofree char *root = itest_scratch_path ("held-cancel");
  g_autofree char *path = g_strconcat (root, "/gate", NULL);
  g_autoptr (ZkrBarrier) barrier = zkr_barrier_new (session, path, NULL);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  HeldCancel held = { session, barrier, cancellable, 0, FALSE, FALSE };
  guint queues = zkr__context_test_count_queues ();
  GThread *canceller;

  CU_ASSERT_TRUE_FATAL (zkr_barrier_set (barrier, ITEST_CALL_MS, NULL, &error));
  g_cancellable_connect (cancellable, G_CALLBACK (held_cancel_run), &held, NULL);
  canceller = g_thread_new ("held-cancel", held_cancel_main, &held);
  /* Passes on the removal: the cancel reaches the wait only after it. */
  CU_ASSERT_TRUE (zkr_barrier_wait (barrier, ITEST_WAIT_MS, cancellable, &error));
  g_atomic_int_set (&held.returned, 1);
  g_thread_join (canceller);
  CU_ASSERT_TRUE (g_cancellable_is_cancelled (cancellable));
  CU_ASSERT_TRUE (held.removed);
  CU_ASSERT_FALSE (held.returned_meanwhile);
  CU_ASSERT_EQUAL (zkr__context_test_count_queues (), queues);
  itest_cleanup_root (session, NULL, root);
}

/* Iterates @context (not the thread-default one) until @answer came. */
static gboolean
pump_context_until_done (GMainContext *context, Answer *answer, int timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!answer->done && g_get_monotonic_time () < end)
    if (!g_main_context_iteration (context, FALSE))
      g_usleep (2000);
  return answer->done;
}

/* A barrier used round after round: the higher member deletes its node
 * and is held (its context not run) while the lower one leaves and
 * enters the next round. The higher one's next look sees only that new
 * node; it belongs to a round that cannot open without the higher member,
 * so waiting for it would hold both until the deadline (seen in the fault
 * suite). The leave passes, and the next round opens. */
static void
test_double_barrier__a_leave_does_not_wait_for_the_next_round (void)
{
  g_autofree char *root = itest_scratch_path ("rounds");
  ZkrSession *sessions[2];
  ZkrDoubleBarrier *members[2];
  char *paths[2] = { NULL, NULL };
  g_autoptr (GError) error = NULL;
  GMainContext *context = context_begin ();
  GMainContext *held = g_main_context_new ();
  Answer answers[2], high_left;
  guint high, low;
  gint64 end;

  for (guint i = 0; i < 2; i++)
    {
      sessions[i] = itest_connect_ns (itest_hosts (), NULL, 10000);
      members[i] = zkr_double_barrier_new (sessions[i], root, 2, NULL);
      enter_async (members[i], &answers[i], ITEST_WAIT_MS);
    }
  for (guint i = 0; i < 2; i++)
    {
      CU_ASSERT_TRUE (pump_until_done (&answers[i], ITEST_WAIT_MS) && answers[i].ok);
      paths[i] = zkr_double_barrier_dup_member_path (members[i]);
    }
  /* Curator's order: the lowest member leaves last. */
  high = g_strcmp0 (paths[0], paths[1]) > 0 ? 0 : 1;
  low = 1 - high;
  g_main_context_push_thread_default (held);
  leave_async (members[high], &high_left, SHORT_TIMEOUT_MS * 5);
  g_main_context_pop_thread_default (held);
  end = g_get_monotonic_time () + (gint64) ITEST_WAIT_MS * 1000;
  while (!itest_node_absent (sessions[low], paths[high]) && g_get_monotonic_time () < end)
    {
      while (g_main_context_iteration (held, FALSE))
        ;
      g_usleep (2000);
    }
  CU_ASSERT_TRUE (itest_node_absent (sessions[low], paths[high]));
  CU_ASSERT_FALSE (high_left.done);
  /* The lower one is alone: through, and into the next round. */
  CU_ASSERT_TRUE (zkr_double_barrier_leave (members[low], ITEST_CALL_MS, NULL, &error));
  g_assert_no_error (error);
  enter_async (members[low], &answers[low], ITEST_WAIT_MS);
  CU_ASSERT_TRUE (pump_until_children (sessions[low], root, 1));
  CU_ASSERT_FALSE (answers[low].done);
  /* Now the held leave goes on: through, though a node is there. */
  CU_ASSERT_TRUE (pump_context_until_done (held, &high_left, SHORT_TIMEOUT_MS * 5 + MARGIN_MS));
  CU_ASSERT_TRUE (high_left.ok);
  if (high_left.error != NULL)
    g_printerr ("held leave: %s\n", high_left.error->message);
  g_clear_error (&high_left.error);
  while (g_main_context_iteration (held, FALSE))
    ;
  /* And the next round opens with both. */
  enter_async (members[high], &answers[high], ITEST_WAIT_MS);
  for (guint i = 0; i < 2; i++)
    {
      CU_ASSERT_TRUE (pump_until_done (&answers[i], ITEST_WAIT_MS) && answers[i].ok);
      leave_async (members[i], &answers[i], ITEST_WAIT_MS);
    }
  for (guint i = 0; i < 2; i++)
    {
      CU_ASSERT_TRUE (pump_until_done (&answers[i], ITEST_WAIT_MS) && answers[i].ok);
      g_clear_error (&answers[i].error);
      zkr_double_barrier_unref (members[i]);
    }
  context_end (context);
  g_main_context_unref (held);
  CU_ASSERT_EQUAL (itest_count_children (sessions[0], root), 0);
  itest_cleanup_root (sessions[0], NULL, root);
  for (guint i = 0; i < 2; i++)
    {
      zkr_session_unref (sessions[i]);
      g_free (paths[i]);
    }
}

/* ---- deadlines through the proxy ---------------------------------------------- */

static void
assert_timeout_by_deadline (gboolean ok, GError *error, gint64 start)
{
  CU_ASSERT_FALSE (ok);
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) >= SHORT_TIMEOUT_MS - EARLY_MS);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
}

/* Black-holed, SUSPENDED, cancelled, LOST, CLOSED: every call answers by
 * its deadline or at once, and leaves nothing behind. */
static void
test_barrier__calls_answer_by_the_deadline_in_every_state (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *gate = NULL, *group = NULL;
  g_autoptr (ZkrBarrier) barrier = NULL;
  g_autoptr (ZkrDoubleBarrier) members = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  gint64 start;
  gboolean ok;

  itest_proxied_init (&f, NULL, "barrier-deadline", 4000);
  gate = g_strconcat (f.root, "/gate", NULL);
  group = g_strconcat (f.root, "/group", NULL);
  barrier = zkr_barrier_new (f.proxied, gate, NULL);
  members = zkr_double_barrier_new (f.proxied, group, 2, NULL);
  CU_ASSERT_TRUE (zkr_barrier_set (barrier, ITEST_CALL_MS, NULL, &error));

  /* Connected, the barrier up: the deadline. */
  start = g_get_monotonic_time ();
  ok = zkr_barrier_wait (barrier, SHORT_TIMEOUT_MS, NULL, &error);
  assert_timeout_by_deadline (ok, error, start);
  g_clear_error (&error);
  start = g_get_monotonic_time ();
  ok = zkr_double_barrier_enter (members, SHORT_TIMEOUT_MS, NULL, &error);
  assert_timeout_by_deadline (ok, error, start);
  g_clear_error (&error);

  /* A silent link (then SUSPENDED): the deadline still. */
  itest_proxied_black_hole (&f);
  start = g_get_monotonic_time ();
  ok = zkr_double_barrier_enter (members, SHORT_TIMEOUT_MS, NULL, &error);
  assert_timeout_by_deadline (ok, error, start);
  g_clear_error (&error);
  start = g_get_monotonic_time ();
  ok = zkr_barrier_wait (barrier, SHORT_TIMEOUT_MS, NULL, &error);
  assert_timeout_by_deadline (ok, error, start);
  g_clear_error (&error);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_SUSPENDED, 0,
                                             ITEST_WAIT_MS, NULL) >= 0);
  start = g_get_monotonic_time ();
  ok = zkr_barrier_set (barrier, SHORT_TIMEOUT_MS, NULL, &error);
  assert_timeout_by_deadline (ok, error, start);
  g_clear_error (&error);
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (zkr_double_barrier_enter (members, -1, cancellable, &error));
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);

  /* No deadline at all: answered at LOST (the server expires us). */
  CU_ASSERT_FALSE (zkr_barrier_wait (barrier, -1, NULL, &error));
  CU_ASSERT_TRUE (error != NULL && (error->code == ZKR_ERROR_SESSION_EXPIRED));
  g_clear_error (&error);

  /* CLOSED: at once. */
  zkr_session_close (f.proxied);
  CU_ASSERT_FALSE (zkr_double_barrier_enter (members, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_barrier_wait (barrier, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  g_clear_pointer (&barrier, zkr_barrier_unref);
  g_clear_pointer (&members, zkr_double_barrier_unref);
  itest_recorder_free (f.recorder);
  g_clear_pointer (&f.proxied, zkr_session_unref);
  CU_ASSERT_TRUE (zkr_node_delete (f.direct, gate, -1, ITEST_CALL_MS, NULL, NULL));
  itest_proxied_finish (&f, TRUE);
}

/* ---- bad input ------------------------------------------------------------------- */

static void
test_barrier__bad_input_is_named_and_foreign_data_is_never_read (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), NULL, 10000);
  g_autofree char *root = itest_scratch_path ("barrier-bad");
  g_autofree char *ready = g_strconcat (root, "/ready", NULL);
  g_autofree char *stranger = g_strconcat (root, "/not-a-uuid", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrDoubleBarrier) member = NULL;
  g_autofree char *big = g_malloc0 (ZKR_NODE_MAX_DATA_SIZE);

  CU_ASSERT_PTR_NULL (zkr_barrier_new (session, "/a//b", &error));
  itest_assert_invalid_naming (error, "/a//b");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_barrier_new (session, "/", &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_double_barrier_new (session, "relative", 2, &error));
  itest_assert_invalid_naming (error, "relative");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_double_barrier_new (session, root, 0, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, "0") != NULL);
  g_clear_error (&error);

  /* Someone else's nodes with data of any size: counted, never read. */
  member = zkr_double_barrier_new (session, root, 2, NULL);
  CU_ASSERT_TRUE (zkr_node_create (session, stranger, big, ZKR_NODE_MAX_DATA_SIZE,
                                   ZKR_CREATE_PERSISTENT, ZKR_CREATE_PARENTS_CONTAINER,
                                   ITEST_CALL_MS, NULL, NULL, NULL, &error));
  CU_ASSERT_FALSE (zkr_double_barrier_leave (member, ITEST_CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NOT_HELD);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_double_barrier_enter (member, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_FALSE (zkr_double_barrier_enter (member, ITEST_CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_ALREADY_HELD);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_set (session, ready, big, ZKR_NODE_MAX_DATA_SIZE, -1, ITEST_CALL_MS,
                                NULL, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_delete (session, stranger, -1, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_double_barrier_leave (member, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (itest_node_absent (session, ready));
  itest_cleanup_root (session, NULL, root);
}

/* ---- Curator on the same paths ------------------------------------------------------ */

typedef struct {
  GSubprocess *process;
  GDataInputStream *out;
  GOutputStream *in;
} Peer;

static Peer *
peer_start (const char *path, int members)
{
  const char *classpath = g_getenv ("ZKR_INTEROP_CLASSPATH");
  g_autofree char *count = g_strdup_printf ("%d", members);
  g_autofree char *ready = NULL;
  g_autoptr (GError) error = NULL;
  Peer *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (classpath);
  peer = g_new0 (Peer, 1);
  peer->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                    &error, "java", "-cp", classpath, "BarrierPeer", "--hosts",
                                    itest_hosts (), "--path", path, "--members", count, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (peer->process);
  peer->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (peer->process));
  peer->in = g_subprocess_get_stdin_pipe (peer->process);
  ready = g_data_input_stream_read_line_utf8 (peer->out, NULL, NULL, NULL);
  CU_ASSERT_STRING_EQUAL (ready != NULL ? ready : "", "READY");
  return peer;
}

static void
peer_send (Peer *peer, const char *command)
{
  g_autofree char *line = g_strdup_printf ("%s\n", command);

  CU_ASSERT_TRUE (g_output_stream_write_all (peer->in, line, strlen (line), NULL, NULL, NULL) &&
                  g_output_stream_flush (peer->in, NULL, NULL));
}

/* The answer line to what was sent; a failure unless it is @expected. */
static void
peer_expect (Peer *peer, const char *expected)
{
  g_autofree char *line = g_data_input_stream_read_line_utf8 (peer->out, NULL, NULL, NULL);

  if (line == NULL || strcmp (line, expected) != 0)
    g_printerr ("peer answered '%s', expected '%s'\n", line != NULL ? line : "(nothing)",
                expected);
  CU_ASSERT_STRING_EQUAL (line != NULL ? line : "", expected);
}

static void
peer_ask (Peer *peer, const char *command, const char *expected)
{
  peer_send (peer, command);
  peer_expect (peer, expected);
}

static void
peer_quit (Peer *peer)
{
  peer_ask (peer, "quit", "BYE");
  g_output_stream_close (peer->in, NULL, NULL);
  CU_ASSERT_TRUE (g_subprocess_wait_check (peer->process, NULL, NULL));
  g_object_unref (peer->out);
  g_object_unref (peer->process);
  g_free (peer);
}

/* Curator's DistributedBarrier and zkr's on one path, both ways. */
static void
test_barrier__curator_and_zkr_set_remove_and_wait_on_one_path (void)
{
  g_autoptr (ZkrSession) session = itest_connect_ns (itest_hosts (), NULL, 10000);
  g_autofree char *root = itest_scratch_path ("barrier-interop");
  g_autofree char *path = g_strconcat (root, "/gate", NULL);
  g_autoptr (ZkrBarrier) barrier = zkr_barrier_new (session, path, NULL);
  g_autoptr (GError) error = NULL;
  GMainContext *context = context_begin ();
  Peer *peer = peer_start (path, 1);
  Answer waiter = { .kind = CALL_WAIT };

  /* Curator sets, zkr waits, zkr removes, Curator passes. */
  peer_ask (peer, "set", "SET");
  CU_ASSERT_FALSE (zkr_barrier_wait (barrier, 200, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  peer_send (peer, "wait 30000");
  waiter.object = barrier;
  zkr_barrier_wait_async (barrier, ITEST_WAIT_MS, NULL, answered, &waiter);
  CU_ASSERT_TRUE (zkr_barrier_remove (barrier, ITEST_CALL_MS, NULL, &error));
  peer_expect (peer, "PASSED");
  CU_ASSERT_TRUE (pump_until_done (&waiter, ITEST_WAIT_MS) && waiter.ok);

  /* zkr sets, Curator waits, Curator removes, zkr passes. */
  CU_ASSERT_TRUE (zkr_barrier_set (barrier, ITEST_CALL_MS, NULL, &error));
  peer_ask (peer, "wait 200", "TIMEOUT");
  memset (&waiter, 0, sizeof waiter);
  waiter.object = barrier;
  zkr_barrier_wait_async (barrier, ITEST_WAIT_MS, NULL, answered, &waiter);
  pump_pending ();
  CU_ASSERT_FALSE (waiter.done);
  peer_ask (peer, "remove", "REMOVED");
  CU_ASSERT_TRUE (pump_until_done (&waiter, ITEST_WAIT_MS) && waiter.ok);
  peer_quit (peer);
  context_end (context);
  itest_cleanup_root (session, NULL, root);
}

/* Two Curator members and two zkr members in one double barrier of 4:
 * nobody passes enter before the fourth came, nobody passes leave before
 * all left; the nodes are Curator's (checked by the peer's listing). */
static void
test_double_barrier__curator_and_zkr_members_share_one_barrier (void)
{
  g_autofree char *root = itest_scratch_path ("double-interop");
  g_autoptr (ZkrSession) s1 = itest_connect_ns (itest_hosts (), NULL, 10000);
  g_autoptr (ZkrSession) s2 = itest_connect_ns (itest_hosts (), NULL, 10000);
  g_autoptr (ZkrDoubleBarrier) z1 = zkr_double_barrier_new (s1, root, 4, NULL);
  g_autoptr (ZkrDoubleBarrier) z2 = zkr_double_barrier_new (s2, root, 4, NULL);
  g_autoptr (GError) error = NULL;
  GMainContext *context = context_begin ();
  Peer *j1 = peer_start (root, 4), *j2 = peer_start (root, 4);
  Answer a1, a2;

  peer_send (j1, "enter 30000");
  enter_async (z1, &a1, ITEST_WAIT_MS);
  peer_send (j2, "enter 30000");
  CU_ASSERT_TRUE (pump_until_children (s1, root, 3));
  pump_pending ();
  CU_ASSERT_FALSE (a1.done);
  {
    g_autofree char *ready = g_strconcat (root, "/ready", NULL);
    CU_ASSERT_TRUE (itest_node_absent (s1, ready));
  }
  enter_async (z2, &a2, ITEST_WAIT_MS);                   /* the 4th */
  /* Our calls go on only while our context runs: theirs first. */
  CU_ASSERT_TRUE (pump_until_done (&a1, ITEST_WAIT_MS) && a1.ok);
  CU_ASSERT_TRUE (pump_until_done (&a2, ITEST_WAIT_MS) && a2.ok);
  peer_expect (j1, "ENTERED");
  peer_expect (j2, "ENTERED");

  /* Leave: Curator first, then one zkr member; the last zkr member holds
   * them all. */
  peer_send (j1, "leave 30000");
  peer_send (j2, "leave 30000");
  leave_async (z1, &a1, ITEST_WAIT_MS);
  {
    g_autofree char *node = zkr_double_barrier_dup_member_path (z2);
    CU_ASSERT_FALSE (itest_node_absent (s2, node));
  }
  pump_pending ();
  CU_ASSERT_FALSE (a1.done);
  leave_async (z2, &a2, ITEST_WAIT_MS);
  CU_ASSERT_TRUE (pump_until_done (&a1, ITEST_WAIT_MS) && a1.ok);
  CU_ASSERT_TRUE (pump_until_done (&a2, ITEST_WAIT_MS) && a2.ok);
  peer_expect (j1, "LEFT");
  peer_expect (j2, "LEFT");
  peer_ask (j1, "children", "CHILDREN");
  peer_quit (j1);
  peer_quit (j2);
  context_end (context);
  CU_ASSERT_TRUE (error == NULL);
  itest_cleanup_root (s1, NULL, root);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_barrier__waiters_pass_when_the_node_is_removed),
  ZKR_TEST_CASE (test_double_barrier__nobody_passes_before_all_came_or_left),
  ZKR_TEST_CASE (test_double_barrier__a_dead_member_does_not_hold_the_others),
  ZKR_TEST_CASE (test_double_barrier__a_leave_does_not_wait_for_the_next_round),
  ZKR_TEST_CASE (test_barrier__a_blocking_wait_ends_after_a_cancel_running_in_another_thread),
  ZKR_TEST_CASE (test_barrier__calls_answer_by_the_deadline_in_every_state),
  ZKR_TEST_CASE (test_barrier__bad_input_is_named_and_foreign_data_is_never_read),
  ZKR_TEST_CASE (test_barrier__curator_and_zkr_set_remove_and_wait_on_one_path),
  ZKR_TEST_CASE (test_double_barrier__curator_and_zkr_members_share_one_barrier),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "barrier", NULL, NULL, tests);
}
