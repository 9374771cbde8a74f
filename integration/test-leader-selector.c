/* zkr integration: the leader selector against the real ensemble: the
 * lead callback runs on one participant at a time, auto-requeue rotates
 * leadership, the interrupt is raised on SUSPENDED, close waits for the
 * callback (or works from inside it), and no node is left behind. */

#include <string.h>

#include <CUnit/CUnit.h>
#include <gio/gio.h>

#include "itest.h"
#include "proxy.h"
#include "zkr-test.h"

#define WAIT_MS 30000

/* ---- a lead callback that records its terms ------------------------------ */

typedef enum {
  HOLD_BRIEFLY,          /* a short term, then return */
  HOLD_UNTIL_INTERRUPT,  /* return when the interrupt is raised */
  CLOSE_INSIDE,          /* close the selector, then return */
  UNREF_INSIDE,          /* drop the test's (last) reference, then return */
} HoldMode;

typedef struct {
  int who;
  gint64 token;
} TermRecord;

typedef struct {
  GMutex lock;
  GCond cond;
  int active;               /* lead callbacks running now, over all participants */
  int max_active;
  GArray *terms;            /* of TermRecord, in start order */
  guint returned;           /* lead callbacks that returned */
  ZkrSessionState state_at_interrupt;
  gboolean leadership_at_interrupt;
  gboolean destroyed;
  guint callback_failures;  /* checks made inside callbacks (CUnit is not thread-safe) */
  gboolean gate_closed;     /* a brief term waits until the test opens it */
} Shared;

typedef struct {
  Shared *shared;
  int who;
  HoldMode mode;
  ZkrSession *session;
} LeadData;

static void
shared_init (Shared *shared)
{
  memset (shared, 0, sizeof *shared);
  g_mutex_init (&shared->lock);
  g_cond_init (&shared->cond);
  shared->terms = g_array_new (FALSE, FALSE, sizeof (TermRecord));
}

static void
shared_clear (Shared *shared)
{
  CU_ASSERT_EQUAL (shared->callback_failures, 0);
  g_array_unref (shared->terms);
  g_mutex_clear (&shared->lock);
  g_cond_clear (&shared->cond);
}

/* Polls the interrupt, as a leader doing work in steps would. */
static gboolean
wait_interrupt (GCancellable *interrupt, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!g_cancellable_is_cancelled (interrupt) && g_get_monotonic_time () < deadline)
    g_usleep (5000);
  return g_cancellable_is_cancelled (interrupt);
}

static void
lead (ZkrLeaderSelector *selector, gint64 token, GCancellable *interrupt, gpointer user_data)
{
  LeadData *data = user_data;
  Shared *shared = data->shared;
  TermRecord term = { data->who, token };

  g_mutex_lock (&shared->lock);
  shared->active++;
  shared->max_active = MAX (shared->max_active, shared->active);
  g_array_append_val (shared->terms, term);
  g_cond_broadcast (&shared->cond);
  if (zkr_leader_selector_get_fencing_token (selector) != token || token <= 0)
    shared->callback_failures++;
  g_mutex_unlock (&shared->lock);

  switch (data->mode)
    {
    case HOLD_BRIEFLY:
      {
        gint64 deadline = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

        g_mutex_lock (&shared->lock);
        while (shared->gate_closed && g_cond_wait_until (&shared->cond, &shared->lock, deadline))
          ;
        g_mutex_unlock (&shared->lock);
        wait_interrupt (interrupt, 30);
      }
      break;
    case HOLD_UNTIL_INTERRUPT:
      if (wait_interrupt (interrupt, 120000))
        {
          g_mutex_lock (&shared->lock);
          shared->state_at_interrupt = zkr_session_get_state (data->session);
          shared->leadership_at_interrupt = zkr_leader_selector_has_leadership (selector);
          g_mutex_unlock (&shared->lock);
        }
      break;
    case CLOSE_INSIDE:
      if (!zkr_leader_selector_close (selector, NULL) || !g_cancellable_is_cancelled (interrupt))
        {
          g_mutex_lock (&shared->lock);
          shared->callback_failures++;
          g_mutex_unlock (&shared->lock);
        }
      break;
    case UNREF_INSIDE:
      zkr_leader_selector_unref (selector);
      break;
    default:
      break;
    }

  g_mutex_lock (&shared->lock);
  shared->active--;
  shared->returned++;
  g_cond_broadcast (&shared->cond);
  g_mutex_unlock (&shared->lock);
}

static void
lead_data_destroy (gpointer user_data)
{
  LeadData *data = user_data;

  g_mutex_lock (&data->shared->lock);
  data->shared->destroyed = TRUE;
  g_cond_broadcast (&data->shared->cond);
  g_mutex_unlock (&data->shared->lock);
  g_free (data);
}

static ZkrLeaderSelector *
selector_new (ZkrSession *session, const char *path, const char *id, Shared *shared, int who,
              HoldMode mode)
{
  g_autoptr (GError) error = NULL;
  LeadData *data = g_new0 (LeadData, 1);
  ZkrLeaderSelector *selector;

  data->shared = shared;
  data->who = who;
  data->mode = mode;
  data->session = session;
  selector = zkr_leader_selector_new (session, path, id, lead, data, lead_data_destroy, &error);
  CU_ASSERT_PTR_NOT_NULL (selector);
  if (selector == NULL)
    g_free (data);
  return selector;
}

/* Waits until shared->terms has @count entries (or returned reaches
 * @count when @returned). */
static gboolean
wait_count (Shared *shared, guint count, gboolean returned, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gboolean reached;

  g_mutex_lock (&shared->lock);
  while ((returned ? shared->returned : shared->terms->len) < count &&
         g_cond_wait_until (&shared->cond, &shared->lock, deadline))
    ;
  reached = (returned ? shared->returned : shared->terms->len) >= count;
  g_mutex_unlock (&shared->lock);
  return reached;
}

/* The lead data's destroy runs where the last reference goes: maybe on
 * the selector's thread, right after its last term. */
static gboolean
wait_destroyed (Shared *shared, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gboolean destroyed;

  g_mutex_lock (&shared->lock);
  while (!shared->destroyed && g_cond_wait_until (&shared->cond, &shared->lock, deadline))
    ;
  destroyed = shared->destroyed;
  g_mutex_unlock (&shared->lock);
  return destroyed;
}

typedef struct {
  ZkrSession *session;
  const char *path;
  guint count;
} ChildCount;

static gboolean
has_children (gpointer data)
{
  ChildCount *c = data;

  return itest_count_children (c->session, c->path) == c->count;
}

/* ---- tests ---------------------------------------------------------------- */

static void
test_leader_selector__bad_input_gets_clear_errors (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  Shared shared;
  ZkrLeaderSelector *selector;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  shared_init (&shared);
  CU_ASSERT_PTR_NULL (zkr_leader_selector_new (session, "/zkr-it/sel", "", lead, NULL, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "empty") : NULL);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_leader_selector_new (session, "relative/path", "id", lead, NULL, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "relative/path") : NULL);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_leader_selector_new (session, "/zkr-it/sel", "tab\there", lead, NULL, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  ZKR_TEST_EXPECT_ONE_CRITICAL (
    CU_ASSERT_PTR_NULL (zkr_leader_selector_new (session, "/zkr-it/sel", "id", NULL, NULL, NULL, NULL)));

  /* Never started: close does nothing, start after close fails. */
  selector = selector_new (session, "/zkr-it/sel-unused", "id", &shared, 0, HOLD_BRIEFLY);
  CU_ASSERT_PTR_NOT_NULL_FATAL (selector);
  CU_ASSERT_FALSE (zkr_leader_selector_requeue (selector));
  CU_ASSERT_TRUE (zkr_leader_selector_close (selector, &error));
  CU_ASSERT_FALSE (zkr_leader_selector_start (selector, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  zkr_leader_selector_unref (selector);
  CU_ASSERT_TRUE (shared.destroyed);
  CU_ASSERT_EQUAL (shared.terms->len, 0);
  CU_ASSERT_TRUE (itest_node_absent (session, "/zkr-it/sel-unused"));
  shared_clear (&shared);
  zkr_session_unref (session);
}

#define ROTATING 3
#define ROTATION_TERMS 9

/* Three participants with auto-requeue: one lead callback at a time,
 * tokens increase from term to term, and the queue is fair: every three
 * consecutive terms belong to three different participants. */
static void
test_leader_selector__one_leader_at_a_time_and_auto_requeue_rotates (void)
{
  g_autofree char *path = itest_scratch_path ("selector-rotate");
  ZkrSession *sessions[ROTATING];
  ZkrLeaderSelector *selectors[ROTATING];
  g_autoptr (GError) error = NULL;
  Shared shared;
  guint count[ROTATING] = { 0 };

  shared_init (&shared);
  for (int i = 0; i < ROTATING; i++)
    {
      g_autofree char *id = g_strdup_printf ("rotor-%d", i);

      sessions[i] = itest_connect (itest_hosts (), 10000);
      CU_ASSERT_PTR_NOT_NULL_FATAL (sessions[i]);
      selectors[i] = selector_new (sessions[i], path, id, &shared, i, HOLD_BRIEFLY);
      CU_ASSERT_PTR_NOT_NULL_FATAL (selectors[i]);
      zkr_leader_selector_set_auto_requeue (selectors[i], TRUE);
    }
  /* The first term lasts until every participant is in the queue: the
   * starts join one after another, and on a loaded machine the first
   * leader could end its term and queue again before the last one joined
   * (seen once: two terms of one participant among the first three). */
  shared.gate_closed = TRUE;
  for (int i = 0; i < ROTATING; i++)
    CU_ASSERT_TRUE (zkr_leader_selector_start (selectors[i], &error));
  CU_ASSERT_TRUE (itest_wait_for_children (sessions[0], path, ROTATING, WAIT_MS));
  g_mutex_lock (&shared.lock);
  shared.gate_closed = FALSE;
  g_cond_broadcast (&shared.cond);
  g_mutex_unlock (&shared.lock);
  CU_ASSERT_TRUE (wait_count (&shared, ROTATION_TERMS + 1, FALSE, WAIT_MS));
  for (int i = 0; i < ROTATING; i++)
    CU_ASSERT_TRUE (zkr_leader_selector_close (selectors[i], &error));

  g_mutex_lock (&shared.lock);
  CU_ASSERT_EQUAL (shared.max_active, 1);
  CU_ASSERT_EQUAL (shared.active, 0);
  for (guint i = 1; i < shared.terms->len; i++)
    CU_ASSERT_TRUE (g_array_index (shared.terms, TermRecord, i).token >
                    g_array_index (shared.terms, TermRecord, i - 1).token);
  for (guint i = 0; i + 2 < ROTATION_TERMS; i++)
    {
      int a = g_array_index (shared.terms, TermRecord, i).who;
      int b = g_array_index (shared.terms, TermRecord, i + 1).who;
      int c = g_array_index (shared.terms, TermRecord, i + 2).who;
      CU_ASSERT_TRUE (a != b && b != c && a != c);
    }
  for (guint i = 0; i < ROTATION_TERMS; i++)
    count[g_array_index (shared.terms, TermRecord, i).who]++;
  for (int i = 0; i < ROTATING; i++)
    CU_ASSERT_EQUAL (count[i], ROTATION_TERMS / ROTATING);
  g_mutex_unlock (&shared.lock);

  CU_ASSERT_EQUAL (itest_count_children (sessions[0], path), 0);
  for (int i = 0; i < ROTATING; i++)
    zkr_leader_selector_unref (selectors[i]);
  CU_ASSERT_TRUE (itest_delete_tree (sessions[0], path));
  for (int i = 0; i < ROTATING; i++)
    zkr_session_unref (sessions[i]);
  shared_clear (&shared);
}

/* The participant listing shows the leader first with its id; without
 * auto-requeue a participant leads once per start/requeue; interrupt ends
 * the term; close waits for the callback to return and the node to go. */
static void
test_leader_selector__participants_requeue_and_close_waits_for_the_callback (void)
{
  g_autofree char *path = itest_scratch_path ("selector-basic");
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) participants = NULL;
  g_autofree char *leader = NULL;
  ZkrLeaderSelector *first, *second;
  ChildCount one = { NULL, NULL, 1 };
  Shared shared;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  shared_init (&shared);
  first = selector_new (a, path, "first", &shared, 0, HOLD_UNTIL_INTERRUPT);
  second = selector_new (b, path, "second", &shared, 1, HOLD_UNTIL_INTERRUPT);
  CU_ASSERT_PTR_NOT_NULL_FATAL (first);
  CU_ASSERT_PTR_NOT_NULL_FATAL (second);
  CU_ASSERT_TRUE (zkr_leader_selector_start (first, &error));
  CU_ASSERT_TRUE (wait_count (&shared, 1, FALSE, WAIT_MS));
  CU_ASSERT_TRUE (zkr_leader_selector_has_leadership (first));
  CU_ASSERT_FALSE (zkr_leader_selector_requeue (first));   /* leading */
  CU_ASSERT_TRUE (zkr_leader_selector_start (second, &error));
  {
    ChildCount two = { a, path, 2 };
    CU_ASSERT_TRUE (itest_wait_for (has_children, &two, WAIT_MS));
  }
  participants = zkr_leader_selector_list_participants (second, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
  CU_ASSERT_EQUAL_FATAL (participants->len, 2);
  {
    ZkrParticipant *p0 = g_ptr_array_index (participants, 0);
    ZkrParticipant *p1 = g_ptr_array_index (participants, 1);

    CU_ASSERT_STRING_EQUAL (p0->client_id, "first");
    CU_ASSERT_TRUE (p0->is_holder);
    CU_ASSERT_EQUAL (p0->session_id, zkr_session_get_id (a));
    CU_ASSERT_EQUAL (p0->token, zkr_leader_selector_get_fencing_token (first));
    CU_ASSERT_PTR_NOT_NULL (strstr (p0->node, "-lock-"));
    CU_ASSERT_STRING_EQUAL (p1->client_id, "second");
    CU_ASSERT_FALSE (p1->is_holder);
  }
  leader = zkr_leader_selector_dup_leader_id (second, NULL, &error);
  CU_ASSERT_STRING_EQUAL (leader != NULL ? leader : "", "first");

  /* Interrupt: first's term ends, second leads, first is not queued. */
  zkr_leader_selector_interrupt (first);
  CU_ASSERT_TRUE (wait_count (&shared, 2, FALSE, WAIT_MS));
  CU_ASSERT_TRUE (zkr_leader_selector_has_leadership (second));
  CU_ASSERT_FALSE (zkr_leader_selector_has_leadership (first));
  CU_ASSERT_EQUAL (zkr_leader_selector_get_fencing_token (first), 0);
  one.session = a;
  one.path = path;
  CU_ASSERT_TRUE (itest_wait_for (has_children, &one, WAIT_MS));
  CU_ASSERT_TRUE (zkr_leader_selector_requeue (first));
  CU_ASSERT_FALSE (zkr_leader_selector_requeue (first));

  /* Close waits for second's callback to return and its node to go. */
  CU_ASSERT_TRUE (zkr_leader_selector_close (second, &error));
  g_mutex_lock (&shared.lock);
  CU_ASSERT_EQUAL (shared.returned, 2);
  g_mutex_unlock (&shared.lock);
  CU_ASSERT_TRUE (wait_count (&shared, 3, FALSE, WAIT_MS));   /* first again */
  CU_ASSERT_EQUAL (g_array_index (shared.terms, TermRecord, 2).who, 0);
  CU_ASSERT_TRUE (zkr_leader_selector_close (first, &error));
  CU_ASSERT_EQUAL (shared.returned, 3);
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  CU_ASSERT_TRUE (zkr_leader_selector_close (first, &error));   /* twice: nothing */
  zkr_leader_selector_unref (first);
  zkr_leader_selector_unref (second);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
  shared_clear (&shared);
}

/* A callback may close its selector, or drop its last reference. */
static void
test_leader_selector__close_and_unref_from_inside_the_callback (void)
{
  g_autofree char *path = itest_scratch_path ("selector-inside");
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  ZkrLeaderSelector *closer, *dropper;
  ChildCount none = { session, path, 0 };
  Shared closed, dropped;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  shared_init (&closed);
  shared_init (&dropped);
  closer = selector_new (session, path, "closer", &closed, 0, CLOSE_INSIDE);
  CU_ASSERT_PTR_NOT_NULL_FATAL (closer);
  CU_ASSERT_TRUE (zkr_leader_selector_start (closer, &error));
  CU_ASSERT_TRUE (wait_count (&closed, 1, TRUE, WAIT_MS));
  CU_ASSERT_TRUE (itest_wait_for (has_children, &none, WAIT_MS));
  CU_ASSERT_FALSE (zkr_leader_selector_has_leadership (closer));
  CU_ASSERT_FALSE (zkr_leader_selector_requeue (closer));
  zkr_leader_selector_unref (closer);
  CU_ASSERT_TRUE (wait_destroyed (&closed, WAIT_MS));

  dropper = selector_new (session, path, "dropper", &dropped, 1, UNREF_INSIDE);
  CU_ASSERT_PTR_NOT_NULL_FATAL (dropper);
  zkr_leader_selector_set_auto_requeue (dropper, TRUE);
  CU_ASSERT_TRUE (zkr_leader_selector_start (dropper, &error));
  /* The callback owns the only reference now: it finalizes on return. */
  CU_ASSERT_TRUE_FATAL (wait_destroyed (&dropped, WAIT_MS));
  g_mutex_lock (&dropped.lock);
  CU_ASSERT_EQUAL (dropped.terms->len, 1);
  g_mutex_unlock (&dropped.lock);
  CU_ASSERT_TRUE (itest_wait_for (has_children, &none, WAIT_MS));
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  shared_clear (&closed);
  shared_clear (&dropped);
  zkr_session_unref (session);
}

/* A partition (the proxy black-holes): the session goes SUSPENDED and the
 * running term's interrupt is raised at once, long before the session
 * could expire; has_leadership is FALSE from then on. */
static void
test_leader_selector__interrupt_is_raised_on_suspended (void)
{
  g_autofree char *path = itest_scratch_path ("selector-suspend");
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  ZkrSession *session, *observer;
  ZkrLeaderSelector *selector;
  ChildCount none = { NULL, NULL, 0 };
  Shared shared;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  address = zkr_test_proxy_dup_address (proxy);
  session = itest_connect (address, 6000);
  observer = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (observer);
  shared_init (&shared);
  selector = selector_new (session, path, "partitioned", &shared, 0, HOLD_UNTIL_INTERRUPT);
  CU_ASSERT_PTR_NOT_NULL_FATAL (selector);
  CU_ASSERT_TRUE (zkr_leader_selector_start (selector, &error));
  CU_ASSERT_TRUE (wait_count (&shared, 1, FALSE, WAIT_MS));
  CU_ASSERT_TRUE (zkr_leader_selector_has_leadership (selector));

  zkr_test_proxy_blackhole (proxy);
  CU_ASSERT_TRUE (wait_count (&shared, 1, TRUE, WAIT_MS));
  g_mutex_lock (&shared.lock);
  CU_ASSERT_EQUAL (shared.state_at_interrupt, ZKR_SESSION_STATE_SUSPENDED);
  CU_ASSERT_FALSE (shared.leadership_at_interrupt);
  g_mutex_unlock (&shared.lock);
  CU_ASSERT_FALSE (zkr_leader_selector_has_leadership (selector));
  zkr_test_proxy_heal (proxy);

  /* Its node goes (deleted once reachable, or with the session). */
  none.session = observer;
  none.path = path;
  CU_ASSERT_TRUE (itest_wait_for (has_children, &none, WAIT_MS));
  CU_ASSERT_TRUE (zkr_leader_selector_close (selector, &error) ||
                  g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS));
  CU_ASSERT_EQUAL (shared.terms->len, 1);
  zkr_leader_selector_unref (selector);
  CU_ASSERT_TRUE (itest_delete_tree (observer, path));
  zkr_session_unref (session);
  zkr_session_unref (observer);
  zkr_test_proxy_free (proxy);
  shared_clear (&shared);
}

/* ---- close_async and the last unref --------------------------------------- */

static void
close_start (gpointer selector, GCancellable *cancellable, GAsyncReadyCallback callback,
             gpointer user_data)
{
  zkr_leader_selector_close_async (selector, cancellable, callback, user_data);
}

static gboolean
close_finish (gpointer selector, GAsyncResult *result, GError **error)
{
  return zkr_leader_selector_close_finish (selector, result, error);
}

/* TRUE when no participant listed under the selector's path has @id. */
typedef struct {
  ZkrLeaderSelector *selector;
  const char *id;
} ParticipantGone;

static gboolean
participant_gone (gpointer data)
{
  ParticipantGone *gone = data;
  g_autoptr (GPtrArray) participants =
    zkr_leader_selector_list_participants (gone->selector, NULL, NULL);

  if (participants == NULL)
    return FALSE;
  for (guint i = 0; i < participants->len; i++)
    if (g_str_equal (((ZkrParticipant *) g_ptr_array_index (participants, i))->client_id,
                     gone->id))
      return FALSE;
  return TRUE;
}

/* close_async of a selector never started answers TRUE at once; of a
 * leader, TRUE once its callback returned and its node is gone; a
 * cancelled close_async answers CANCELLED and the close goes on: the
 * callback returns and the node goes all the same. */
static void
test_leader_selector__close_async_answers_true_and_a_cancel_and_deletes_the_node (void)
{
  g_autofree char *path = itest_scratch_path ("selector-close-async");
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  ZkrLeaderSelector *latent, *first, *second;
  ChildCount none = { session, path, 0 };
  ChildCount two = { session, path, 2 };
  ParticipantGone gone;
  Shared shared;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  shared_init (&shared);
  latent = selector_new (session, path, "latent", &shared, 0, HOLD_UNTIL_INTERRUPT);
  CU_ASSERT_PTR_NOT_NULL_FATAL (latent);
  CU_ASSERT_TRUE (itest_async_call (latent, close_start, close_finish, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  zkr_leader_selector_unref (latent);
  CU_ASSERT_TRUE (wait_destroyed (&shared, WAIT_MS));
  shared_clear (&shared);

  shared_init (&shared);
  first = selector_new (session, path, "first", &shared, 0, HOLD_UNTIL_INTERRUPT);
  second = selector_new (session, path, "second", &shared, 1, HOLD_UNTIL_INTERRUPT);
  CU_ASSERT_PTR_NOT_NULL_FATAL (first);
  CU_ASSERT_PTR_NOT_NULL_FATAL (second);
  CU_ASSERT_TRUE (zkr_leader_selector_start (first, &error));
  CU_ASSERT_TRUE_FATAL (wait_count (&shared, 1, FALSE, WAIT_MS));
  CU_ASSERT_TRUE (zkr_leader_selector_start (second, &error));
  CU_ASSERT_TRUE (itest_wait_for (has_children, &two, WAIT_MS));

  CU_ASSERT_TRUE (itest_async_call (first, close_start, close_finish, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  g_mutex_lock (&shared.lock);
  CU_ASSERT_TRUE (shared.returned >= 1);
  g_mutex_unlock (&shared.lock);
  gone = (ParticipantGone) { second, "first" };
  CU_ASSERT_TRUE (participant_gone (&gone));
  CU_ASSERT_TRUE (itest_async_call (first, close_start, close_finish, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  zkr_leader_selector_unref (first);

  CU_ASSERT_TRUE_FATAL (wait_count (&shared, 2, FALSE, WAIT_MS));
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (itest_async_call (second, close_start, close_finish, cancellable, &error));
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);
  CU_ASSERT_TRUE (wait_count (&shared, 2, TRUE, WAIT_MS));
  CU_ASSERT_TRUE (itest_wait_for (has_children, &none, WAIT_MS));
  zkr_leader_selector_unref (second);
  CU_ASSERT_TRUE (wait_destroyed (&shared, WAIT_MS));
  g_mutex_lock (&shared.lock);
  CU_ASSERT_EQUAL (shared.terms->len, 2);
  CU_ASSERT_EQUAL (shared.max_active, 1);
  g_mutex_unlock (&shared.lock);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  shared_clear (&shared);
  zkr_session_unref (session);
}

/* The session timeout of the black-holed test: long, so the session
 * outlives the black hole and our delete, not the expiry, removes the
 * node. The old last unref waited up to 2/3 of it. */
#define BLACK_HOLE_SESSION_MS 15000

/* The last unref of a leading selector returns while its server is
 * black-holed (it used to join the selector's thread, which waits for the
 * delete's answer); the callback is interrupted and returns, the node
 * goes once the link heals, and the selector is freed (its destroy
 * runs). */
static void
test_leader_selector__last_unref_of_a_leader_returns_while_black_holed (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  ZkrLeaderSelector *selector;
  ChildCount none = { NULL, NULL, 0 };
  ItestInThread last;
  Shared shared;

  itest_proxied_init (&f, NULL, "selector-unref-blackhole", BLACK_HOLE_SESSION_MS);
  path = g_strdup_printf ("%s/election", f.root);
  shared_init (&shared);
  selector = selector_new (f.proxied, path, "leader", &shared, 0, HOLD_UNTIL_INTERRUPT);
  CU_ASSERT_PTR_NOT_NULL_FATAL (selector);
  CU_ASSERT_TRUE (zkr_leader_selector_start (selector, &error));
  CU_ASSERT_TRUE_FATAL (wait_count (&shared, 1, FALSE, WAIT_MS));
  none.session = f.direct;
  none.path = path;
  itest_proxied_black_hole (&f);
  itest_in_thread_start (&last, "selector-last-unref",
                         (GDestroyNotify) zkr_leader_selector_unref, selector);
  CU_ASSERT_TRUE (itest_wait_for (itest_in_thread_returned, &last, BLACK_HOLE_SESSION_MS / 5));
  itest_in_thread_join (&last);
  CU_ASSERT_TRUE (wait_count (&shared, 1, TRUE, WAIT_MS));
  CU_ASSERT_EQUAL (itest_count_children (f.direct, path), 1);

  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (itest_wait_for (has_children, &none, WAIT_MS));
  CU_ASSERT_TRUE (wait_destroyed (&shared, WAIT_MS));
  CU_ASSERT_NOT_EQUAL (zkr_session_get_state (f.proxied), ZKR_SESSION_STATE_LOST);
  CU_ASSERT_TRUE (itest_delete_tree (f.direct, path));
  shared_clear (&shared);
  itest_proxied_finish (&f, TRUE);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_leader_selector__bad_input_gets_clear_errors),
  ZKR_TEST_CASE (test_leader_selector__one_leader_at_a_time_and_auto_requeue_rotates),
  ZKR_TEST_CASE (test_leader_selector__participants_requeue_and_close_waits_for_the_callback),
  ZKR_TEST_CASE (test_leader_selector__close_and_unref_from_inside_the_callback),
  ZKR_TEST_CASE (test_leader_selector__interrupt_is_raised_on_suspended),
  ZKR_TEST_CASE (test_leader_selector__close_async_answers_true_and_a_cancel_and_deletes_the_node),
  ZKR_TEST_CASE (test_leader_selector__last_unref_of_a_leader_returns_while_black_holed),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "leader-selector", NULL, NULL, tests);
}
