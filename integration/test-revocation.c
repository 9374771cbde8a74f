/* zkr integration: revocable locks (docs/design.md §3.7): a request written
 * by zkr_revoke() or by Curator's Revoker reaches a revocable zkr lock's
 * listener once, in its context, while held; zkr revokes a Curator holder
 * (integration/interop/RevokePeer.java); the revoker keeps its deadline. */
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>
#include <gio/gio.h>

#include "itest.h"
#include "zkr-test.h"

#define SHORT_TIMEOUT_MS 1000
#define MARGIN_MS 750
#define EARLY_MS 20
#define UNNOTICED_SESSION_MS 15000

/* ---- a revocable zkr lock's listener ----------------------------------- */

typedef struct {
  GMainContext *context;    /* the listener's, thread-default in the test */
  gpointer lock;            /* the lock it was made revocable on */
  guint calls;
  gboolean wrong_context;
  gboolean wrong_lock;
  gboolean release;         /* release when asked (mutex) */
  gboolean unref;           /* drop the test's reference when asked */
  gboolean destroyed;
} Listener;

static void
on_revocation (gpointer lock, gpointer user_data)
{
  Listener *listener = user_data;

  listener->calls++;
  if (!g_main_context_is_owner (listener->context) ||
      g_main_context_get_thread_default () != listener->context)
    listener->wrong_context = TRUE;
  if (lock != listener->lock)
    listener->wrong_lock = TRUE;
  if (listener->release)
    CU_ASSERT_TRUE (zkr_mutex_release (lock, NULL));
  if (listener->unref)
    {
      listener->lock = NULL;
      zkr_mutex_unref (lock);
    }
}

static void
on_listener_destroy (gpointer user_data)
{
  ((Listener *) user_data)->destroyed = TRUE;
}

static void
listener_init (Listener *listener, gpointer lock)
{
  memset (listener, 0, sizeof *listener);
  listener->context = g_main_context_new ();
  listener->lock = lock;
  g_main_context_push_thread_default (listener->context);
}

static void
listener_clear (Listener *listener)
{
  /* Whatever is still queued (a destroy notify) runs before the context
   * goes. */
  while (g_main_context_iteration (listener->context, FALSE))
    ;
  g_main_context_pop_thread_default (listener->context);
  g_main_context_unref (listener->context);
}

/* Iterates the listener's context until it was called @calls times or
 * @timeout_ms passed. */
static gboolean
tick_done (gpointer data)
{
  (void) data;
  return G_SOURCE_REMOVE;
}

static gboolean
listener_wait (Listener *listener, guint calls, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (listener->calls < calls && g_get_monotonic_time () < deadline)
    {
      GSource *tick = g_timeout_source_new (20);

      g_source_set_callback (tick, tick_done, NULL, NULL);
      g_source_attach (tick, listener->context);
      g_main_context_iteration (listener->context, TRUE);
      g_source_destroy (tick);
      g_source_unref (tick);
    }
  return listener->calls >= calls;
}

/* Iterates for @ms: for a listener that must stay silent. */
static void
listener_idle (Listener *listener, int ms)
{
  guint calls = listener->calls;

  (void) listener_wait (listener, calls + 1, ms);
}

static gboolean
node_data_is (ZkrSession *session, const char *node, const char *text)
{
  g_autoptr (GBytes) data = zkr_node_get (session, node, ITEST_CALL_MS, NULL, NULL, NULL);

  return data != NULL && itest_bytes_equal (data, text);
}

/* ---- zkr against zkr ------------------------------------------------------ */

static void
test_revocation__request_reaches_holder_once_in_its_context (void)
{
  g_autofree char *path = itest_scratch_path ("revoke-basic");
  ZkrSession *holder_session = itest_connect (itest_hosts (), 10000);
  ZkrSession *other = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  ZkrMutex *mutex;
  Listener listener;

  mutex = zkr_mutex_new (holder_session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  listener_init (&listener, mutex);
  listener.release = TRUE;
  zkr_mutex_make_revocable (mutex, on_revocation, &listener, on_listener_destroy);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, ITEST_CALL_MS, NULL, &error));
  node = zkr_mutex_dup_node_path (mutex);
  CU_ASSERT_TRUE (zkr_revoke (other, node, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (listener_wait (&listener, 1, ITEST_WAIT_MS));
  CU_ASSERT_FALSE (listener.wrong_context);
  CU_ASSERT_FALSE (listener.wrong_lock);
  /* The listener released: the node is gone, the lock free. */
  CU_ASSERT_FALSE (zkr_mutex_is_held (mutex));
  CU_ASSERT_TRUE (itest_node_absent (other, node));
  listener_idle (&listener, 300);
  CU_ASSERT_EQUAL (listener.calls, 1);

  /* The next hold is revocable too (the listener stays until replaced). */
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, ITEST_CALL_MS, NULL, &error));
  g_free (node);
  node = zkr_revoke_holder (other, path, ITEST_CALL_MS, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL (node);
  CU_ASSERT_TRUE (listener_wait (&listener, 2, ITEST_WAIT_MS));
  CU_ASSERT_FALSE (zkr_mutex_is_held (mutex));

  zkr_mutex_make_revocable (mutex, NULL, NULL, NULL);
  listener_idle (&listener, 50);
  CU_ASSERT_TRUE (listener.destroyed);
  zkr_mutex_unref (mutex);
  listener_clear (&listener);
  itest_delete_tree (other, path);
  itest_assert_path_clean (other, path);
  zkr_session_unref (holder_session);
  zkr_session_unref (other);
}

/* Under a namespace: a holder's node path is the full path on the server,
 * as *_dup_node_path() gives it, fences take it and zkr_revoke() takes it;
 * zkr_revoke_holder() returns it so. A path outside the namespace is
 * refused, nothing sent. */
static void
test_revocation__node_paths_are_full_under_a_namespace (void)
{
  g_autofree char *ns = g_strdup_printf ("zkr-it-revoke-%d", (int) getpid ());
  g_autofree char *path = itest_scratch_path ("revoke-ns");
  g_autofree char *prefix = g_strdup_printf ("/%s%s/", ns, path);
  ZkrSession *session = itest_connect_ns (itest_hosts (), ns, 10000);
  ZkrSession *direct = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  g_autofree char *asked = NULL;
  ZkrMutex *mutex;
  Listener listener;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  mutex = zkr_mutex_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  listener_init (&listener, mutex);
  zkr_mutex_make_revocable (mutex, on_revocation, &listener, on_listener_destroy);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, ITEST_CALL_MS, NULL, &error));
  node = zkr_mutex_dup_node_path (mutex);
  CU_ASSERT_TRUE (g_str_has_prefix (node, prefix));
  CU_ASSERT_TRUE (zkr_revoke (session, node, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_TRUE (listener_wait (&listener, 1, ITEST_WAIT_MS));
  asked = zkr_revoke_holder (session, path, ITEST_CALL_MS, NULL, &error);
  CU_ASSERT_STRING_EQUAL (asked != NULL ? asked : "", node);
  CU_ASSERT_TRUE (listener_wait (&listener, 2, ITEST_WAIT_MS));
  CU_ASSERT_FALSE (zkr_revoke (session, "/elsewhere/_c_0-lock-0000000000", ITEST_CALL_MS, NULL,
                               &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "/elsewhere") : NULL);
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, NULL));
  zkr_mutex_make_revocable (mutex, NULL, NULL, NULL);
  zkr_mutex_unref (mutex);
  listener_idle (&listener, 50);
  listener_clear (&listener);
  itest_cleanup_root (direct, ns, path);
  zkr_session_unref (session);
  zkr_session_unref (direct);
}

/* The holder decides: a listener that keeps the lock keeps it, and hears
 * each further request once (one write, one call). A lock not made
 * revocable hears nothing and keeps its hold; the request does not undo
 * a fence on its node (an existence check, docs/design.md §5.7). */
static void
test_revocation__holder_decides_one_call_per_request (void)
{
  g_autofree char *path = itest_scratch_path ("revoke-decide");
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  g_autofree char *fenced = NULL;
  ZkrTxn *txn;
  ZkrMutex *mutex;
  Listener listener;

  mutex = zkr_mutex_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  listener_init (&listener, mutex);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, ITEST_CALL_MS, NULL, &error));
  node = zkr_mutex_dup_node_path (mutex);
  /* Not revocable yet: the request is written, nobody is told. */
  CU_ASSERT_TRUE (zkr_revoke (session, node, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (node_data_is (session, node, ZKR_REVOKE_MESSAGE));
  listener_idle (&listener, 1500);
  CU_ASSERT_EQUAL (listener.calls, 0);
  CU_ASSERT_TRUE (zkr_mutex_is_held (mutex));

  zkr_mutex_make_revocable (mutex, on_revocation, &listener, on_listener_destroy);
  for (guint i = 1; i <= 3; i++)
    {
      CU_ASSERT_TRUE (zkr_revoke (session, node, ITEST_CALL_MS, NULL, &error));
      CU_ASSERT_TRUE (listener_wait (&listener, i, ITEST_WAIT_MS));
    }
  listener_idle (&listener, 300);
  CU_ASSERT_EQUAL (listener.calls, 3);
  CU_ASSERT_TRUE (zkr_mutex_is_held (mutex));
  CU_ASSERT_TRUE (zkr_mutex_verify (mutex, NULL, &error));

  /* A fenced write on the holder's node still goes through. */
  fenced = g_strdup_printf ("%s-fenced", path);
  txn = zkr_txn_new (session);
  zkr_txn_fence (txn, node);
  zkr_txn_create (txn, fenced, "x", 1, ZKR_CREATE_PERSISTENT);
  CU_ASSERT_TRUE (zkr_txn_commit (txn, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  zkr_txn_unref (txn);
  (void) zkr_node_delete (session, fenced, -1, ITEST_CALL_MS, NULL, NULL);

  CU_ASSERT_TRUE (zkr_mutex_release (mutex, &error));
  zkr_mutex_unref (mutex);
  listener_idle (&listener, 50);
  CU_ASSERT_TRUE (listener.destroyed);
  listener_clear (&listener);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  itest_assert_path_clean (session, fenced);
  zkr_session_unref (session);
}

/* A request written while the node waits in the queue is heard once the
 * lock is granted (the first look at the node after the grant reads it);
 * the listener may drop the last reference. */
static void
test_revocation__request_while_waiting_heard_after_grant (void)
{
  g_autofree char *path = itest_scratch_path ("revoke-waiting");
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  ZkrMutex *first = zkr_mutex_new (session, path, &error);
  ZkrMutex *second = zkr_mutex_new (session, path, &error);
  g_autoptr (GPtrArray) queue = NULL;
  g_autofree char *waiting = NULL;
  ItestAsync wait;
  Listener listener;

  CU_ASSERT_PTR_NOT_NULL_FATAL (second);
  listener_init (&listener, second);
  listener.unref = TRUE;
  zkr_mutex_make_revocable (second, on_revocation, &listener, on_listener_destroy);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (first, ITEST_CALL_MS, NULL, &error));
  itest_async_begin (&wait);
  zkr_mutex_acquire_async (second, -1, NULL, itest_async_done, &wait);
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 2, ITEST_WAIT_MS));
  queue = zkr_mutex_list_participants (first, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (queue);
  CU_ASSERT_EQUAL_FATAL (queue->len, 2);
  waiting = g_strdup_printf ("%s/%s", path,
                             ((ZkrParticipant *) g_ptr_array_index (queue, 1))->node);
  CU_ASSERT_TRUE (zkr_revoke (session, waiting, ITEST_CALL_MS, NULL, &error));
  listener_idle (&listener, 300);
  CU_ASSERT_EQUAL (listener.calls, 0);
  CU_ASSERT_TRUE (zkr_mutex_release (first, &error));
  CU_ASSERT_TRUE (zkr_mutex_acquire_finish (second, itest_async_wait (&wait, ITEST_WAIT_MS),
                                            &error));
  itest_async_end (&wait);
  CU_ASSERT_TRUE (listener_wait (&listener, 1, ITEST_WAIT_MS));
  CU_ASSERT_FALSE (listener.wrong_lock);
  /* The listener dropped the last reference: the node goes with it. */
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, ITEST_WAIT_MS));
  listener_idle (&listener, 50);
  CU_ASSERT_TRUE (listener.destroyed);
  zkr_mutex_unref (first);
  listener_clear (&listener);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static void
test_revocation__missing_node_and_bad_input (void)
{
  g_autofree char *path = itest_scratch_path ("revoke-missing");
  g_autofree char *node = g_strdup_printf ("%s/_c_0-lock-0000000000", path);
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  ItestAsync wait;

  CU_ASSERT_FALSE (zkr_revoke (session, node, ITEST_CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_revoke_holder (session, path, ITEST_CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  /* A path with no lock node under it. */
  CU_ASSERT_TRUE (zkr_node_create (session, path, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, ITEST_CALL_MS, NULL, NULL, NULL, NULL));
  CU_ASSERT_TRUE (zkr_node_create (session, node, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, ITEST_CALL_MS, NULL, NULL, NULL, NULL));
  (void) zkr_node_delete (session, node, -1, ITEST_CALL_MS, NULL, NULL);
  itest_async_begin (&wait);
  zkr_revoke_holder_async (session, path, ITEST_CALL_MS, NULL, itest_async_done, &wait);
  CU_ASSERT_PTR_NULL (zkr_revoke_holder_finish (session, itest_async_wait (&wait, ITEST_WAIT_MS),
                                                &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  g_clear_error (&error);
  itest_async_end (&wait);

  CU_ASSERT_FALSE (zkr_revoke (session, "no/slash", ITEST_CALL_MS, NULL, &error));
  itest_assert_invalid_naming (error, "no/slash");
  g_clear_error (&error);
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_FALSE (zkr_revoke (NULL, node, 0, NULL, NULL)));
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* ---- deadlines ------------------------------------------------------------ */

static void
test_revocation__black_holed_revoke_answers_by_the_deadline (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  GCancellable *cancellable = g_cancellable_new ();
  ItestAsync wait;
  gint64 start;

  itest_proxied_init (&f, NULL, "revoke-blackhole", UNNOTICED_SESSION_MS);
  node = g_strdup_printf ("%s/_c_0-lock-0000000000", f.root);
  CU_ASSERT_TRUE (zkr_node_create (f.direct, node, NULL, 0, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, ITEST_CALL_MS, NULL, NULL, NULL, NULL));
  itest_proxied_black_hole (&f);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_revoke (f.proxied, node, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) >= SHORT_TIMEOUT_MS - EARLY_MS);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_error (&error);

  start = g_get_monotonic_time ();
  CU_ASSERT_PTR_NULL (zkr_revoke_holder (f.proxied, f.root, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_error (&error);

  itest_async_begin (&wait);
  zkr_revoke_async (f.proxied, node, -1, cancellable, itest_async_done, &wait);
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (zkr_revoke_finish (f.proxied, itest_async_wait (&wait, ITEST_WAIT_MS), &error));
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);
  itest_async_end (&wait);
  g_object_unref (cancellable);

  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (itest_wait_for (itest_session_answers, f.proxied, ITEST_WAIT_MS));
  (void) zkr_node_delete (f.direct, node, -1, ITEST_CALL_MS, NULL, NULL);
  itest_proxied_finish (&f, TRUE);
}

static void
test_revocation__closed_session_answers_at_once (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;

  zkr_session_close (session);
  CU_ASSERT_FALSE (zkr_revoke (session, "/zkr-revoke-closed/n", ITEST_CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_revoke_holder (session, "/zkr-revoke-closed", ITEST_CALL_MS, NULL,
                                         &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  zkr_session_unref (session);
}

/* ---- zkr and Curator ------------------------------------------------------ */

typedef struct {
  GSubprocess *process;
  GDataInputStream *out;
  GOutputStream *in;
} Peer;

static char *
peer_ask (Peer *peer, const char *command)
{
  g_autofree char *line = g_strdup_printf ("%s\n", command);
  char *answer;

  if (!g_output_stream_write_all (peer->in, line, strlen (line), NULL, NULL, NULL) ||
      !g_output_stream_flush (peer->in, NULL, NULL))
    return NULL;
  answer = g_data_input_stream_read_line_utf8 (peer->out, NULL, NULL, NULL);
  if (answer == NULL)
    g_printerr ("peer: no answer to '%s'\n", command);
  return answer;
}

static gboolean
peer_answers (Peer *peer, const char *command, const char *prefix)
{
  g_autofree char *answer = peer_ask (peer, command);

  if (answer != NULL && g_str_has_prefix (answer, prefix))
    return TRUE;
  g_printerr ("peer: '%s' answered '%s', expected '%s...'\n", command,
              answer != NULL ? answer : "(nothing)", prefix);
  return FALSE;
}

static Peer *
peer_start (const char *path)
{
  const char *classpath = g_getenv ("ZKR_INTEROP_CLASSPATH");
  g_autoptr (GError) error = NULL;
  g_autofree char *ready = NULL;
  Peer *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (classpath);
  peer = g_new0 (Peer, 1);
  peer->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                    &error, "java", "-cp", classpath, "RevokePeer", "--hosts",
                                    itest_hosts (), "--path", path, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (peer->process);
  peer->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (peer->process));
  peer->in = g_subprocess_get_stdin_pipe (peer->process);
  ready = g_data_input_stream_read_line_utf8 (peer->out, NULL, NULL, NULL);
  CU_ASSERT_STRING_EQUAL (ready != NULL ? ready : "", "READY");
  return peer;
}

static void
peer_stop (Peer *peer)
{
  CU_ASSERT_TRUE (peer_answers (peer, "quit", "BYE"));
  CU_ASSERT_TRUE (g_subprocess_wait (peer->process, NULL, NULL));
  g_object_unref (peer->out);
  g_object_unref (peer->process);
  g_free (peer);
}

/* zkr asks Curator's holder: its revocable InterProcessMutex hears the
 * request and releases, and zkr's mutex gets the lock. */
static void
test_revocation__zkr_revokes_curator_holder (void)
{
  g_autofree char *path = itest_scratch_path ("revoke-curator-holder");
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *node = NULL;
  ZkrMutex *mutex;
  Peer *peer = peer_start (path);

  CU_ASSERT_TRUE_FATAL (peer_answers (peer, "acquire 10000", "ACQUIRED "));
  answer = peer_ask (peer, "node");
  CU_ASSERT_TRUE_FATAL (answer != NULL && g_str_has_prefix (answer, "NODE /"));
  node = zkr_revoke_holder (session, path, ITEST_CALL_MS, NULL, &error);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_STRING_EQUAL (node != NULL ? node : "", answer + strlen ("NODE "));
  CU_ASSERT_TRUE (peer_answers (peer, "revoked 30000", "REVOKED 1"));
  mutex = zkr_mutex_new (session, path, &error);
  CU_ASSERT_TRUE (zkr_mutex_acquire (mutex, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, &error));
  zkr_mutex_unref (mutex);

  /* zkr_revoke on the node Curator lists. */
  CU_ASSERT_TRUE_FATAL (peer_answers (peer, "acquire 10000", "ACQUIRED "));
  g_free (answer);
  answer = peer_ask (peer, "holder");
  CU_ASSERT_TRUE_FATAL (answer != NULL && g_str_has_prefix (answer, "HOLDER /"));
  CU_ASSERT_TRUE (zkr_revoke (session, answer + strlen ("HOLDER "), ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (itest_wait_for_children (session, path, 0, ITEST_WAIT_MS));
  peer_stop (peer);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* Curator's Revoker asks zkr's holder: zkr's listener hears it once and
 * releases; Curator's mutex then gets the lock. */
static void
test_revocation__curator_revokes_zkr_holder (void)
{
  g_autofree char *path = itest_scratch_path ("revoke-zkr-holder");
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  g_autofree char *command = NULL;
  g_autofree char *data = NULL;
  ZkrMutex *mutex;
  Listener listener;
  Peer *peer = peer_start (path);

  mutex = zkr_mutex_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);
  listener_init (&listener, mutex);
  listener.release = TRUE;
  zkr_mutex_make_revocable (mutex, on_revocation, &listener, NULL);
  CU_ASSERT_TRUE_FATAL (zkr_mutex_acquire (mutex, ITEST_CALL_MS, NULL, &error));
  node = zkr_mutex_dup_node_path (mutex);
  /* Curator sees zkr's node as the holder. */
  data = g_strdup_printf ("HOLDER %s", node);
  CU_ASSERT_TRUE (peer_answers (peer, "holder", data));
  command = g_strdup_printf ("revoke %s", node);
  CU_ASSERT_TRUE (peer_answers (peer, command, "REVOKE_SENT"));
  CU_ASSERT_TRUE (listener_wait (&listener, 1, ITEST_WAIT_MS));
  CU_ASSERT_FALSE (listener.wrong_context);
  CU_ASSERT_FALSE (zkr_mutex_is_held (mutex));
  CU_ASSERT_TRUE (peer_answers (peer, "acquire 10000", "ACQUIRED "));
  CU_ASSERT_TRUE (peer_answers (peer, "release", "RELEASED"));
  /* Curator's revoker ignores a node that is gone. */
  CU_ASSERT_TRUE (peer_answers (peer, command, "REVOKE_SENT"));
  listener_idle (&listener, 300);
  CU_ASSERT_EQUAL (listener.calls, 1);
  peer_stop (peer);
  zkr_mutex_unref (mutex);
  listener_clear (&listener);
  itest_delete_tree (session, path);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_revocation__request_reaches_holder_once_in_its_context),
  ZKR_TEST_CASE (test_revocation__node_paths_are_full_under_a_namespace),
  ZKR_TEST_CASE (test_revocation__holder_decides_one_call_per_request),
  ZKR_TEST_CASE (test_revocation__request_while_waiting_heard_after_grant),
  ZKR_TEST_CASE (test_revocation__missing_node_and_bad_input),
  ZKR_TEST_CASE (test_revocation__black_holed_revoke_answers_by_the_deadline),
  ZKR_TEST_CASE (test_revocation__closed_session_answers_at_once),
  ZKR_TEST_CASE (test_revocation__zkr_revokes_curator_holder),
  ZKR_TEST_CASE (test_revocation__curator_revokes_zkr_holder),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "revocation", NULL, NULL, tests);
}
