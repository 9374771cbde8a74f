/* zkr integration: the public one-shot watches (zkr/watch.h) against the
 * ensemble: each kind fires once, on its own events only, in the caller's
 * context; remove; a killed member (RECONNECTED), an expiry (LOST), a close
 * and a last unref with watches pending; deadlines on a black-holed link
 * and while SUSPENDED; bad input refused. Every test removes its nodes
 * and checks that nothing is left. */

#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "proxy.h"
#include "zkr-test.h"

#define CALL_MS 10000
#define WAIT_MS 30000
#define MARGIN_MS 750 /* as test-node.c: a late answer is seconds late */
#define SHORT_TIMEOUT_MS 1000
#define UNNOTICED_SESSION_MS 15000
#define SUSPENDED_SESSION_MS 9000

static const char *name_space;  /* "zkr-it-watch-<pid>", set in main() */

/* ---- what a watch saw ------------------------------------------------------ */

/* Touched only on the test's thread: every call and destroy runs there. */
typedef struct {
  GMainContext *context;   /* the test's, thread-default */
  GThread *thread;
  guint calls;
  guint destroys;
  guint calls_at_destroy;  /* calls seen when destroy ran */
  ZkrWatchEvent event;
  char *path;
  gboolean wrong_place;    /* ran outside the test's thread or context */
  ZkrSession *remove_session; /* (nullable) in the call: remove... */
  guint *remove_id;           /* ...this watch */
  ZkrSession *unref_session;  /* (nullable) in the call: unref it */
} Seen;

static void
seen_init (Seen *seen)
{
  memset (seen, 0, sizeof *seen);
  seen->context = g_main_context_get_thread_default ();
  seen->thread = g_thread_self ();
}

static void
seen_clear (Seen *seen)
{
  g_clear_pointer (&seen->path, g_free);
}

static gboolean
seen_right_place (Seen *seen)
{
  return g_thread_self () == seen->thread && g_main_context_is_owner (seen->context);
}

static void
on_watch (ZkrSession *session, const char *path, ZkrWatchEvent event, gpointer user_data)
{
  Seen *seen = user_data;

  seen->wrong_place |= !seen_right_place (seen) || session == NULL;
  seen->calls++;
  seen->event = event;
  g_free (seen->path);
  seen->path = g_strdup (path);
  if (seen->remove_id != NULL)
    zkr_watch_remove (seen->remove_session, *seen->remove_id);
  if (seen->unref_session != NULL)
    zkr_session_unref (g_steal_pointer (&seen->unref_session));
}

static void
on_destroy (gpointer user_data)
{
  Seen *seen = user_data;

  seen->wrong_place |= g_thread_self () != seen->thread;
  seen->destroys++;
  seen->calls_at_destroy = seen->calls;
}

/* Iterates the test's context until @count (calls or destroys) reaches
 * @target, at most @timeout_ms. */
static gboolean
wait_count (GMainContext *context, const guint *count, guint target, int timeout_ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (*count < target && g_get_monotonic_time () < until)
    g_main_context_iteration (context, FALSE) || (g_usleep (1000), TRUE);
  return *count >= target;
}

static void
drain (GMainContext *context)
{
  while (g_main_context_iteration (context, FALSE))
    ;
}

static void
assert_fired_once (Seen *seen, ZkrWatchEvent event)
{
  CU_ASSERT_EQUAL (seen->calls, 1);
  CU_ASSERT_EQUAL (seen->event, event);
  if (seen->calls != 1 || seen->event != event)
    g_printerr ("watch saw %u call(s), last %s, expected one %s\n", seen->calls,
                zkr_watch_event_name (seen->event), zkr_watch_event_name (event));
  CU_ASSERT_EQUAL (seen->destroys, 1);
  CU_ASSERT_EQUAL (seen->calls_at_destroy, 1);
  CU_ASSERT_FALSE (seen->wrong_place);
}

/* Everything the session's events posted before now has run in the
 * context: a data watch on @node, a write to it, its event awaited (the
 * session's events are dispatched in order, and posted in order). */
static void
barrier (ZkrSession *session, const char *node)
{
  Seen seen;
  g_autoptr (GBytes) data = NULL;
  guint id = 0;

  seen_init (&seen);
  data = zkr_watch_data (session, node, on_watch, &seen, on_destroy, CALL_MS, NULL, NULL, &id,
                         NULL);
  CU_ASSERT_PTR_NOT_NULL (data);
  CU_ASSERT_TRUE (zkr_node_set (session, node, "b", 1, -1, CALL_MS, NULL, NULL, NULL));
  CU_ASSERT_TRUE (wait_count (seen.context, &seen.destroys, 1, WAIT_MS));
  assert_fired_once (&seen, ZKR_WATCH_EVENT_DATA_CHANGED);
  seen_clear (&seen);
}

/* ---- each kind, its events ----------------------------------------------------- */

static void
kinds_fire_on_their_own_events (const char *ns)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (ZkrSession) session = NULL;
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("watch-kinds");
  g_autofree char *node = g_strdup_printf ("%s/n", root);
  g_autofree char *child = g_strdup_printf ("%s/n/c", root);
  g_autofree char *missing = g_strdup_printf ("%s/m", root);
  g_autofree char *fence = g_strdup_printf ("%s/fence", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  g_auto (GStrv) children = NULL;
  Seen on_data, on_children, on_exists, on_missing, del_data, del_children;
  guint id_data = 0, id_children = 0, id_exists = 0, id_missing = 0, id = 0;
  ZkrStat stat = { 0 };

  g_main_context_push_thread_default (context);
  session = itest_connect_ns (itest_hosts (), ns, 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, node, "a", 1, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                         &error));
  CU_ASSERT_TRUE (zkr_node_create (session, fence, "f", 1, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  seen_init (&on_data);
  seen_init (&on_children);
  seen_init (&on_exists);
  seen_init (&on_missing);
  data = zkr_watch_data (session, node, on_watch, &on_data, on_destroy, CALL_MS, NULL, &stat,
                         &id_data, &error);
  CU_ASSERT_TRUE (data != NULL && g_bytes_get_size (data) == 1);
  CU_ASSERT_EQUAL (stat.data_length, 1);
  children = zkr_watch_children (session, node, on_watch, &on_children, on_destroy, CALL_MS,
                                 NULL, NULL, &id_children, &error);
  CU_ASSERT_TRUE (children != NULL && children[0] == NULL);
  CU_ASSERT_TRUE (zkr_watch_exists (session, node, on_watch, &on_exists, on_destroy, CALL_MS,
                                    NULL, NULL, &id_exists, &error));
  /* Missing: FALSE, no error, and the watch is left. */
  CU_ASSERT_FALSE (zkr_watch_exists (session, missing, on_watch, &on_missing, on_destroy,
                                     CALL_MS, NULL, NULL, &id_missing, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (id_data != 0 && id_children != 0 && id_exists != 0 && id_missing != 0);
  CU_ASSERT_TRUE (id_data != id_children && id_children != id_exists && id_exists != id_missing);

  /* A child: the children watch only. */
  CU_ASSERT_TRUE (zkr_node_create (session, child, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  CU_ASSERT_TRUE (wait_count (context, &on_children.destroys, 1, WAIT_MS));
  assert_fired_once (&on_children, ZKR_WATCH_EVENT_CHILDREN_CHANGED);
  CU_ASSERT_STRING_EQUAL (on_children.path, node);
  barrier (session, fence);
  CU_ASSERT_EQUAL (on_data.calls + on_exists.calls + on_missing.calls, 0);
  /* Data: the data and exists watches. */
  CU_ASSERT_TRUE (zkr_node_set (session, node, "b", 1, -1, CALL_MS, NULL, NULL, &error));
  CU_ASSERT_TRUE (wait_count (context, &on_data.destroys, 1, WAIT_MS));
  CU_ASSERT_TRUE (wait_count (context, &on_exists.destroys, 1, WAIT_MS));
  assert_fired_once (&on_data, ZKR_WATCH_EVENT_DATA_CHANGED);
  assert_fired_once (&on_exists, ZKR_WATCH_EVENT_DATA_CHANGED);
  CU_ASSERT_EQUAL (on_missing.calls, 0);
  /* Created: the missing node's exists watch. */
  CU_ASSERT_TRUE (zkr_node_create (session, missing, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  CU_ASSERT_TRUE (wait_count (context, &on_missing.destroys, 1, WAIT_MS));
  assert_fired_once (&on_missing, ZKR_WATCH_EVENT_CREATED);
  CU_ASSERT_STRING_EQUAL (on_missing.path, missing);
  /* One-shot: more changes, nothing more; a fired id removes nothing. */
  CU_ASSERT_TRUE (zkr_node_set (session, node, "c", 1, -1, CALL_MS, NULL, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_delete (session, child, -1, CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_delete (session, missing, -1, CALL_MS, NULL, &error));
  zkr_watch_remove (session, id_data);
  barrier (session, fence);
  CU_ASSERT_EQUAL (on_data.calls + on_children.calls + on_exists.calls + on_missing.calls, 4);
  CU_ASSERT_EQUAL (on_data.destroys + on_children.destroys + on_exists.destroys +
                   on_missing.destroys, 4);

  /* Deleted: data and children watches alike. */
  seen_init (&del_data);
  seen_init (&del_children);
  g_clear_pointer (&data, g_bytes_unref);
  data = zkr_watch_data (session, node, on_watch, &del_data, on_destroy, CALL_MS, NULL, NULL, &id,
                         &error);
  g_clear_pointer (&children, g_strfreev);
  children = zkr_watch_children (session, node, on_watch, &del_children, on_destroy, CALL_MS,
                                 NULL, NULL, &id, &error);
  CU_ASSERT_TRUE (zkr_node_delete (session, node, -1, CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (wait_count (context, &del_data.destroys, 1, WAIT_MS));
  CU_ASSERT_TRUE (wait_count (context, &del_children.destroys, 1, WAIT_MS));
  assert_fired_once (&del_data, ZKR_WATCH_EVENT_DELETED);
  assert_fired_once (&del_children, ZKR_WATCH_EVENT_DELETED);

  /* A read that fails leaves no watch: destroy ran before it returned. */
  seen_clear (&del_data);
  seen_init (&del_data);
  CU_ASSERT_PTR_NULL (zkr_watch_data (session, node, on_watch, &del_data, on_destroy, CALL_MS,
                                      NULL, NULL, &id, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  CU_ASSERT_EQUAL (id, 0);
  CU_ASSERT_EQUAL (del_data.destroys, 1);
  id = 1;
  CU_ASSERT_PTR_NULL (zkr_watch_children (session, node, on_watch, &del_data, NULL, CALL_MS,
                                          NULL, NULL, &id, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  CU_ASSERT_EQUAL (id, 0);
  drain (context);
  CU_ASSERT_EQUAL (del_data.calls, 0);

  itest_cleanup_root (direct, ns, root);
  g_clear_pointer (&session, zkr_session_unref);
  drain (context);
  g_main_context_pop_thread_default (context);
  seen_clear (&on_data);
  seen_clear (&on_children);
  seen_clear (&on_exists);
  seen_clear (&on_missing);
  seen_clear (&del_data);
  seen_clear (&del_children);
}

static void
test_watch__kinds_fire_once_on_their_own_events (void)
{
  kinds_fire_on_their_own_events (NULL);
}

static void
test_watch__kinds_fire_once_on_their_own_events_with_namespace (void)
{
  kinds_fire_on_their_own_events (name_space);
}

/* ---- async ------------------------------------------------------------------- */

typedef struct {
  GAsyncResult *result;
  Seen *seen;              /* the watch's: its calls when the answer came */
  guint calls_at_answer;
  guint destroys_at_answer;
  gboolean returned;
  gboolean early;
} AsyncWait;

static void
async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncWait *wait = user_data;

  (void) source;
  wait->early |= !wait->returned;
  wait->calls_at_answer = wait->seen->calls;
  wait->destroys_at_answer = wait->seen->destroys;
  wait->result = g_object_ref (result);
}

static GAsyncResult *
async_wait (AsyncWait *wait, GMainContext *context, int timeout_ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  wait->returned = TRUE;
  while (wait->result == NULL && g_get_monotonic_time () < until)
    g_main_context_iteration (context, FALSE) || (g_usleep (1000), TRUE);
  CU_ASSERT_FALSE (wait->early);
  return wait->result;
}

static void
test_watch__async_answers_then_fires_in_the_callers_context (void)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (ZkrSession) session = NULL;
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("watch-async");
  g_autofree char *node = g_strdup_printf ("%s/n", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  g_auto (GStrv) children = NULL;
  Seen seen_data, seen_exists, seen_children, seen_bad;
  AsyncWait wait = { 0 };
  guint id = 0;

  g_main_context_push_thread_default (context);
  session = itest_connect_ns (itest_hosts (), name_space, 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, node, "a", 1, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                         &error));
  seen_init (&seen_data);
  seen_init (&seen_exists);
  seen_init (&seen_children);
  seen_init (&seen_bad);

  wait.seen = &seen_data;
  zkr_watch_data_async (session, node, on_watch, &seen_data, on_destroy, CALL_MS, NULL,
                        async_done, &wait);
  data = zkr_watch_data_finish (session, async_wait (&wait, context, CALL_MS), NULL, &id, &error);
  CU_ASSERT_TRUE (data != NULL && id != 0);
  g_clear_object (&wait.result);

  memset (&wait, 0, sizeof wait);
  wait.seen = &seen_exists;
  zkr_watch_exists_async (session, node, on_watch, &seen_exists, on_destroy, CALL_MS, NULL,
                          async_done, &wait);
  CU_ASSERT_TRUE (zkr_watch_exists_finish (session, async_wait (&wait, context, CALL_MS), NULL,
                                           &id, &error));
  CU_ASSERT_NOT_EQUAL (id, 0);
  g_clear_object (&wait.result);

  memset (&wait, 0, sizeof wait);
  wait.seen = &seen_children;
  zkr_watch_children_async (session, root, on_watch, &seen_children, on_destroy, CALL_MS, NULL,
                            async_done, &wait);
  children = zkr_watch_children_finish (session, async_wait (&wait, context, CALL_MS), NULL, &id,
                                        &error);
  CU_ASSERT_TRUE (children != NULL && g_strv_length (children) == 1 &&
                  strcmp (children[0], "n") == 0);
  g_clear_object (&wait.result);

  /* A failed async read: destroy before the answer, no call. */
  memset (&wait, 0, sizeof wait);
  wait.seen = &seen_bad;
  zkr_watch_data_async (session, "/nowhere/at/all", on_watch, &seen_bad, on_destroy, CALL_MS,
                        NULL, async_done, &wait);
  CU_ASSERT_PTR_NULL (zkr_watch_data_finish (session, async_wait (&wait, context, CALL_MS), NULL,
                                             &id, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  CU_ASSERT_EQUAL (id, 0);
  CU_ASSERT_EQUAL (wait.destroys_at_answer, 1);
  g_clear_object (&wait.result);

  /* The node deleted by another session: all three fire. */
  CU_ASSERT_TRUE (zkr_node_delete (session, node, -1, CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (wait_count (context, &seen_data.destroys, 1, WAIT_MS));
  CU_ASSERT_TRUE (wait_count (context, &seen_exists.destroys, 1, WAIT_MS));
  CU_ASSERT_TRUE (wait_count (context, &seen_children.destroys, 1, WAIT_MS));
  assert_fired_once (&seen_data, ZKR_WATCH_EVENT_DELETED);
  assert_fired_once (&seen_exists, ZKR_WATCH_EVENT_DELETED);
  assert_fired_once (&seen_children, ZKR_WATCH_EVENT_CHILDREN_CHANGED);
  CU_ASSERT_EQUAL (seen_bad.calls, 0);

  itest_cleanup_root (direct, name_space, root);
  g_clear_pointer (&session, zkr_session_unref);
  drain (context);
  g_main_context_pop_thread_default (context);
  seen_clear (&seen_data);
  seen_clear (&seen_exists);
  seen_clear (&seen_children);
  seen_clear (&seen_bad);
}

/* ---- remove ------------------------------------------------------------------------ */

static void
test_watch__removed_watch_never_fires_and_is_destroyed_once (void)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (ZkrSession) session = NULL;
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("watch-remove");
  g_autofree char *node = g_strdup_printf ("%s/n", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  Seen removed, first, second;
  guint id = 0, id_first = 0, id_second = 0;

  g_main_context_push_thread_default (context);
  session = itest_connect_ns (itest_hosts (), name_space, 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, node, "a", 1, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                         &error));
  seen_init (&removed);
  seen_init (&first);
  seen_init (&second);
  data = zkr_watch_data (session, node, on_watch, &removed, on_destroy, CALL_MS, NULL, NULL, &id,
                         &error);
  CU_ASSERT_NOT_EQUAL (id, 0);
  /* Not inside the context's dispatch: destroy is posted. */
  zkr_watch_remove (session, id);
  CU_ASSERT_TRUE (wait_count (context, &removed.destroys, 1, WAIT_MS));
  zkr_watch_remove (session, id);
  zkr_watch_remove (session, 0);
  zkr_watch_remove (session, G_MAXUINT);
  /* Two watches on one change, each removing the other from its call:
   * whichever runs first, the other is never called (removed after it
   * fired, before its call), and each is destroyed once. */
  g_clear_pointer (&data, g_bytes_unref);
  data = zkr_watch_data (session, node, on_watch, &first, on_destroy, CALL_MS, NULL, NULL,
                         &id_first, &error);
  g_clear_pointer (&data, g_bytes_unref);
  data = zkr_watch_data (session, node, on_watch, &second, on_destroy, CALL_MS, NULL, NULL,
                         &id_second, &error);
  first.remove_session = second.remove_session = session;
  first.remove_id = &id_second;
  second.remove_id = &id_first;
  CU_ASSERT_TRUE (zkr_node_set (session, node, "b", 1, -1, CALL_MS, NULL, NULL, &error));
  CU_ASSERT_TRUE (wait_count (context, &first.destroys, 1, WAIT_MS));
  CU_ASSERT_TRUE (wait_count (context, &second.destroys, 1, WAIT_MS));
  drain (context);
  CU_ASSERT_EQUAL (first.calls + second.calls, 1);
  CU_ASSERT_EQUAL (first.destroys, 1);
  CU_ASSERT_EQUAL (second.destroys, 1);
  CU_ASSERT_EQUAL (removed.calls, 0);
  CU_ASSERT_EQUAL (removed.destroys, 1);
  CU_ASSERT_FALSE (removed.wrong_place || first.wrong_place || second.wrong_place);

  itest_cleanup_root (direct, name_space, root);
  g_clear_pointer (&session, zkr_session_unref);
  drain (context);
  g_main_context_pop_thread_default (context);
  seen_clear (&removed);
  seen_clear (&first);
  seen_clear (&second);
}

/* ---- member loss, expiry, close, unref ------------------------------------------------ */

/* zkr_node_set, sent again after an answer that says the link died
 * (CONNECTION_LOSS, SESSION_MOVED), until @timeout_ms. */
static gboolean
set_until_answered (ZkrSession *session, const char *path, const char *text, int timeout_ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      g_autoptr (GError) error = NULL;

      if (zkr_node_set (session, path, text, strlen (text), -1, CALL_MS, NULL, NULL, &error))
        return TRUE;
      if (!zkr_error_is_retryable (error))
        {
          g_printerr ("set %s: %s\n", path, error->message);
          return FALSE;
        }
    }
  return FALSE;
}

/* The member the session uses dies (a follower: the quorum keeps its
 * leader): SUSPENDED and RECONNECTED fire nothing, and a change made
 * once it reconnected elsewhere is still reported. */
static void
test_watch__survives_a_killed_member (void)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autofree char *followers = itest_followers_hosts ();
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("watch-member");
  g_autofree char *host = NULL;
  g_autofree char *command = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  ItestRecorder *recorder = NULL;
  ZkrSession *session;
  Seen seen;
  guint server, id = 0;
  gint64 session_id;

  g_main_context_push_thread_default (context);
  CU_ASSERT_TRUE_FATAL (strchr (followers, ',') != NULL);
  session = itest_connect_recorded (followers, 10000, &recorder);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  session_id = zkr_session_get_id (session);
  CU_ASSERT_EQUAL_FATAL (itest_create_with_retries (direct, root, WAIT_MS), ZOK);
  /* Made through another session: the follower this one reads from may
   * not have applied the create yet. */
  CU_ASSERT_TRUE (zkr_node_sync (session, root, CALL_MS, NULL, NULL));
  seen_init (&seen);
  data = zkr_watch_data (session, root, on_watch, &seen, on_destroy, CALL_MS, NULL, NULL, &id,
                         &error);
  CU_ASSERT_PTR_NOT_NULL (data);
  host = zkr_session_dup_connected_host (session);
  server = itest_server_index (host);
  CU_ASSERT_FATAL (server > 0);
  command = g_strdup_printf ("kill %u", server);
  CU_ASSERT_FATAL (itest_ensemble (command));
  CU_ASSERT (itest_recorder_wait_state (recorder, ZKR_SESSION_STATE_RECONNECTED, 0, WAIT_MS,
                                        NULL) >= 0);
  CU_ASSERT_EQUAL (zkr_session_get_id (session), session_id);
  drain (context);
  CU_ASSERT_EQUAL (seen.calls, 0);
  /* Written through another session, once the watched one is back. That
   * one may have been on the killed member too and not know it yet: a
   * write sent on its dead link answers CONNECTION_LOSS (writes are not
   * sent again), so the test sends it again (the same data: a second
   * landing changes nothing the one-shot watch can see). */
  CU_ASSERT_TRUE (set_until_answered (direct, root, "x", WAIT_MS));
  CU_ASSERT_TRUE (wait_count (context, &seen.destroys, 1, WAIT_MS));
  assert_fired_once (&seen, ZKR_WATCH_EVENT_DATA_CHANGED);
  CU_ASSERT_EQUAL (zkr_session_get_lost_count (session), 0);
  g_free (command);
  command = g_strdup_printf ("restart %u", server);
  CU_ASSERT (itest_ensemble (command));
  CU_ASSERT_TRUE (itest_delete_tree (direct, root));
  CU_ASSERT_TRUE (itest_node_absent (direct, root));
  itest_recorder_free (recorder);
  zkr_session_unref (session);
  drain (context);
  g_main_context_pop_thread_default (context);
  seen_clear (&seen);
}

/* Expired: every watch of the session reports SESSION_LOST once, and the
 * fresh session hears nothing of the old watches. */
static void
test_watch__expiry_reports_session_lost (void)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("watch-expiry");
  g_autofree char *missing = g_strdup_printf ("%s/m", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  ZkrSession *session;
  Seen on_data, on_missing;
  guint id = 0;

  g_main_context_push_thread_default (context);
  session = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL_FATAL (itest_create_with_retries (direct, root, WAIT_MS), ZOK);
  seen_init (&on_data);
  seen_init (&on_missing);
  data = zkr_watch_data (session, root, on_watch, &on_data, on_destroy, CALL_MS, NULL, NULL, &id,
                         &error);
  CU_ASSERT_FALSE (zkr_watch_exists (session, missing, on_watch, &on_missing, on_destroy,
                                     CALL_MS, NULL, NULL, &id, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE_FATAL (itest_expire_session (session));
  CU_ASSERT_TRUE (wait_count (context, &on_data.destroys, 1, WAIT_MS));
  CU_ASSERT_TRUE (wait_count (context, &on_missing.destroys, 1, WAIT_MS));
  assert_fired_once (&on_data, ZKR_WATCH_EVENT_SESSION_LOST);
  assert_fired_once (&on_missing, ZKR_WATCH_EVENT_SESSION_LOST);
  /* The fresh session: the old watches stay ended. */
  CU_ASSERT_TRUE (zkr_session_wait_connected (session, WAIT_MS, NULL, NULL));
  CU_ASSERT_TRUE (zkr_node_set (direct, root, "x", 1, -1, CALL_MS, NULL, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_create (direct, missing, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  barrier (session, root);
  CU_ASSERT_EQUAL (on_data.calls + on_missing.calls, 2);
  CU_ASSERT_TRUE (itest_delete_tree (direct, root));
  CU_ASSERT_TRUE (itest_node_absent (direct, root));
  zkr_session_unref (session);
  drain (context);
  g_main_context_pop_thread_default (context);
  seen_clear (&on_data);
  seen_clear (&on_missing);
}

/* Closed: SESSION_CLOSED once each. Last unref with a watch pending: no
 * call (nobody holds the session), destroy once. Unref from inside a
 * call: the session goes after it. */
static void
test_watch__close_unref_and_unref_inside_the_call (void)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("watch-close");
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  g_auto (GStrv) children = NULL;
  ZkrSession *session;
  Seen closed_data, closed_children, dropped, inside;
  guint id = 0;

  g_main_context_push_thread_default (context);
  CU_ASSERT_EQUAL_FATAL (itest_create_with_retries (direct, root, WAIT_MS), ZOK);
  seen_init (&closed_data);
  seen_init (&closed_children);
  seen_init (&dropped);
  seen_init (&inside);

  session = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  data = zkr_watch_data (session, root, on_watch, &closed_data, on_destroy, CALL_MS, NULL, NULL,
                         &id, &error);
  children = zkr_watch_children (session, root, on_watch, &closed_children, on_destroy, CALL_MS,
                                 NULL, NULL, &id, &error);
  zkr_session_close (session);
  CU_ASSERT_TRUE (wait_count (context, &closed_data.destroys, 1, WAIT_MS));
  CU_ASSERT_TRUE (wait_count (context, &closed_children.destroys, 1, WAIT_MS));
  assert_fired_once (&closed_data, ZKR_WATCH_EVENT_SESSION_CLOSED);
  assert_fired_once (&closed_children, ZKR_WATCH_EVENT_SESSION_CLOSED);
  zkr_session_unref (session);

  session = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  g_clear_pointer (&data, g_bytes_unref);
  data = zkr_watch_data (session, root, on_watch, &dropped, on_destroy, CALL_MS, NULL, NULL, &id,
                         &error);
  CU_ASSERT_NOT_EQUAL (id, 0);
  zkr_session_unref (session);
  CU_ASSERT_TRUE (wait_count (context, &dropped.destroys, 1, WAIT_MS));
  drain (context);
  CU_ASSERT_EQUAL (dropped.calls, 0);
  CU_ASSERT_EQUAL (dropped.destroys, 1);

  session = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  g_clear_pointer (&data, g_bytes_unref);
  inside.unref_session = session; /* the test's only reference */
  data = zkr_watch_data (session, root, on_watch, &inside, on_destroy, CALL_MS, NULL, NULL, &id,
                         &error);
  CU_ASSERT_TRUE (zkr_node_set (direct, root, "x", 1, -1, CALL_MS, NULL, NULL, &error));
  CU_ASSERT_TRUE (wait_count (context, &inside.destroys, 1, WAIT_MS));
  assert_fired_once (&inside, ZKR_WATCH_EVENT_DATA_CHANGED);
  CU_ASSERT_PTR_NULL (inside.unref_session);

  CU_ASSERT_TRUE (itest_delete_tree (direct, root));
  CU_ASSERT_TRUE (itest_node_absent (direct, root));
  drain (context);
  g_main_context_pop_thread_default (context);
  seen_clear (&closed_data);
  seen_clear (&closed_children);
  seen_clear (&dropped);
  seen_clear (&inside);
}

/* ---- deadlines --------------------------------------------------------------------- */

static void
test_watch__black_holed_read_answers_by_its_deadline_and_leaves_no_watch (void)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  ItestProxied f;
  Seen seen;
  guint id = 1;
  gint64 start;

  g_main_context_push_thread_default (context);
  itest_proxied_init (&f, name_space, "watch-blackhole", UNNOTICED_SESSION_MS);
  seen_init (&seen);
  itest_proxied_black_hole (&f);
  start = g_get_monotonic_time ();
  CU_ASSERT_PTR_NULL (zkr_watch_data (f.proxied, f.root, on_watch, &seen, on_destroy,
                                      SHORT_TIMEOUT_MS, NULL, NULL, &id, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  CU_ASSERT_EQUAL (seen.destroys, 1);
  CU_ASSERT_EQUAL (id, 0);
  g_clear_error (&error);
  /* Cancelled before it was made: answered at once. */
  g_cancellable_cancel (cancellable);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_watch_exists (f.proxied, f.root, on_watch, &seen, on_destroy, -1,
                                     cancellable, NULL, &id, &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= MARGIN_MS);
  CU_ASSERT_EQUAL (seen.destroys, 2);
  g_clear_error (&error);
  /* Healed: a reply that lands late arms nothing. */
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (itest_wait_for (itest_session_answers, f.proxied, WAIT_MS));
  CU_ASSERT_TRUE (zkr_node_set (f.proxied, f.root, "x", 1, -1, CALL_MS, NULL, NULL, &error));
  {
    g_autofree char *fence = g_strdup_printf ("%s/fence", f.root);

    CU_ASSERT_TRUE (zkr_node_create (f.proxied, fence, NULL, 0, ZKR_CREATE_PERSISTENT,
                                     ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
    barrier (f.proxied, fence);
  }
  CU_ASSERT_EQUAL (seen.calls, 0);
  CU_ASSERT_FALSE (seen.wrong_place);
  itest_proxied_finish (&f, FALSE);
  drain (context);
  g_main_context_pop_thread_default (context);
  seen_clear (&seen);
}

/* SUSPENDED: a watch read waits until its deadline (timeout 0: fails at
 * once); a watch left before keeps waiting, and once the link is back it
 * reports the change made meanwhile (or SESSION_LOST if the session did
 * not survive). */
static void
test_watch__suspended_read_answers_by_its_deadline_and_watches_survive (void)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  ItestProxied f;
  Seen seen, held;
  guint id = 0, from;
  gint64 start;
  g_autofree char *on_server = NULL;

  g_main_context_push_thread_default (context);
  itest_proxied_init (&f, name_space, "watch-suspended", SUSPENDED_SESSION_MS);
  on_server = itest_server_path (name_space, f.root);
  seen_init (&seen);
  seen_init (&held);
  data = zkr_watch_data (f.proxied, f.root, on_watch, &held, on_destroy, CALL_MS, NULL, NULL, &id,
                         &error);
  CU_ASSERT_PTR_NOT_NULL (data);
  from = itest_recorder_count (f.recorder);
  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE_FATAL (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_SUSPENDED, from,
                                                   WAIT_MS, NULL) >= 0);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_watch_exists (f.proxied, f.root, on_watch, &seen, on_destroy, 0, NULL,
                                     NULL, &id, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_CONNECTION_LOSS);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= MARGIN_MS);
  g_clear_error (&error);
  if (zkr_session_get_state (f.proxied) == ZKR_SESSION_STATE_SUSPENDED)
    {
      start = g_get_monotonic_time ();
      CU_ASSERT_PTR_NULL (zkr_watch_children (f.proxied, f.root, on_watch, &seen, on_destroy,
                                              300, NULL, NULL, &id, &error));
      ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
      CU_ASSERT_TRUE (itest_elapsed_ms (start) <= 300 + MARGIN_MS);
      g_clear_error (&error);
    }
  CU_ASSERT_TRUE (seen.destroys >= 1);
  /* Written meanwhile by another session; the watched one comes back. */
  CU_ASSERT_TRUE (zkr_node_set (f.direct, on_server, "y", 1, -1, CALL_MS, NULL, NULL, &error));
  drain (context);
  CU_ASSERT_EQUAL (held.calls, 0);
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (wait_count (context, &held.destroys, 1, WAIT_MS));
  if (zkr_session_get_lost_count (f.proxied) == 0)
    assert_fired_once (&held, ZKR_WATCH_EVENT_DATA_CHANGED);
  else
    assert_fired_once (&held, ZKR_WATCH_EVENT_SESSION_LOST);
  CU_ASSERT_EQUAL (seen.calls, 0);
  itest_proxied_finish (&f, FALSE);
  drain (context);
  g_main_context_pop_thread_default (context);
  seen_clear (&seen);
  seen_clear (&held);
}

/* ---- bad input ------------------------------------------------------------------------ */

static const char *const bad_paths[] = { "", "a", "/a/", "//", "/a/./b", "/a//b", "/a\001b" };

static void
test_watch__bad_input_is_refused_with_nothing_sent (void)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (ZkrSession) session = NULL;
  g_autoptr (ZkrSession) direct = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("watch-bad-input");
  g_autofree char *on_server = itest_server_path (name_space, root);
  GError *error = NULL;
  Seen seen;
  AsyncWait wait = { 0 };
  guint id;

  g_main_context_push_thread_default (context);
  session = itest_connect_ns (itest_hosts (), name_space, 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, root, NULL, 0, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, CALL_MS, NULL, NULL, NULL,
                                         &error));
  seen_init (&seen);
  for (gsize i = 0; i < G_N_ELEMENTS (bad_paths); i++)
    {
      const char *bad = bad_paths[i];

      id = 7;
      CU_ASSERT_PTR_NULL (zkr_watch_data (session, bad, on_watch, &seen, on_destroy, CALL_MS,
                                          NULL, NULL, &id, &error));
      itest_assert_invalid_naming (error, bad);
      g_clear_error (&error);
      CU_ASSERT_EQUAL (id, 0);
      CU_ASSERT_FALSE (zkr_watch_exists (session, bad, on_watch, &seen, on_destroy, CALL_MS,
                                         NULL, NULL, NULL, &error));
      itest_assert_invalid_naming (error, bad);
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_watch_children (session, bad, on_watch, &seen, on_destroy,
                                              CALL_MS, NULL, NULL, NULL, &error));
      itest_assert_invalid_naming (error, bad);
      g_clear_error (&error);
    }
  CU_ASSERT_EQUAL (seen.destroys, 3 * G_N_ELEMENTS (bad_paths));
  /* No callback. */
  CU_ASSERT_FALSE (zkr_watch_exists (session, root, NULL, &seen, on_destroy, CALL_MS, NULL, NULL,
                                     NULL, &error));
  itest_assert_invalid_naming (error, "NULL");
  g_clear_error (&error);
  /* Async: the same answer through the callback, destroy before it. */
  seen_clear (&seen);
  seen_init (&seen);
  wait.seen = &seen;
  zkr_watch_children_async (session, "a/b", on_watch, &seen, on_destroy, CALL_MS, NULL,
                            async_done, &wait);
  CU_ASSERT_EQUAL (seen.destroys, 0);
  CU_ASSERT_PTR_NULL (zkr_watch_children_finish (session, async_wait (&wait, context, CALL_MS),
                                                 NULL, NULL, &error));
  itest_assert_invalid_naming (error, "a/b");
  g_clear_error (&error);
  CU_ASSERT_EQUAL (wait.destroys_at_answer, 1);
  g_clear_object (&wait.result);
  /* Programming errors: one critical each. */
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_watch_data (NULL, "/a", on_watch, NULL,
                                                                    NULL, 0, NULL, NULL, NULL,
                                                                    NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_watch_exists (session, NULL, on_watch, NULL,
                                                                   NULL, 0, NULL, NULL, NULL,
                                                                   NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_watch_remove (NULL, 1));
  CU_ASSERT_STRING_EQUAL (zkr_watch_event_name (ZKR_WATCH_EVENT_SESSION_LOST), "SESSION_LOST");
  CU_ASSERT_STRING_EQUAL (zkr_watch_event_name ((ZkrWatchEvent) 99), "INVALID");
  drain (context);
  CU_ASSERT_EQUAL (seen.calls, 0);
  CU_ASSERT_EQUAL (itest_count_children (direct, on_server), 0);
  itest_cleanup_root (direct, name_space, root);
  g_clear_pointer (&session, zkr_session_unref);
  drain (context);
  g_main_context_pop_thread_default (context);
  seen_clear (&seen);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_watch__kinds_fire_once_on_their_own_events),
  ZKR_TEST_CASE (test_watch__kinds_fire_once_on_their_own_events_with_namespace),
  ZKR_TEST_CASE (test_watch__async_answers_then_fires_in_the_callers_context),
  ZKR_TEST_CASE (test_watch__removed_watch_never_fires_and_is_destroyed_once),
  ZKR_TEST_CASE (test_watch__close_unref_and_unref_inside_the_call),
  ZKR_TEST_CASE (test_watch__expiry_reports_session_lost),
  ZKR_TEST_CASE (test_watch__black_holed_read_answers_by_its_deadline_and_leaves_no_watch),
  ZKR_TEST_CASE (test_watch__suspended_read_answers_by_its_deadline_and_watches_survive),
  ZKR_TEST_CASE (test_watch__bad_input_is_refused_with_nothing_sent),
  ZKR_TEST_CASE (test_watch__survives_a_killed_member),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  g_autofree char *own_namespace = itest_suite_namespace ("watch");

  name_space = own_namespace;
  return zkr_test_main (argc, argv, "watch", NULL, NULL, tests);
}
