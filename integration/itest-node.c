/* zkr integration tests: helpers of the node-call suites (node, node-full,
 * watch, txn): namespaced sessions and their server paths, error checks,
 * async answers (and the locks' release_async checks on them), and a
 * session through a proxy of its own. */

#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "itest.h"

/* ---- node calls' helpers -------------------------------------------- */

char *
itest_suite_namespace (const char *suite)
{
  return g_strdup_printf ("zkr-it-%s-%d", suite, (int) getpid ());
}

ZkrSession *
itest_connect_ns (const char *hosts, const char *ns, int session_timeout_ms)
{
  g_autoptr (ZkrSessionOptions) options = itest_options (hosts, session_timeout_ms);
  g_autoptr (GError) error = NULL;
  ZkrSession *session;

  zkr_session_options_set_namespace (options, ns);
  session = zkr_session_connect (options, &error);
  if (session == NULL)
    g_printerr ("connect to %s failed: %s\n", hosts, error->message);
  CU_ASSERT_PTR_NOT_NULL (session);
  return session;
}

char *
itest_server_path (const char *ns, const char *path)
{
  return ns != NULL ? g_strdup_printf ("/%s%s", ns, path) : g_strdup (path);
}

void
itest_cleanup_root (ZkrSession *direct, const char *ns, const char *root)
{
  g_autofree char *full = itest_server_path (ns, root);

  /* Our server may not have seen the other session's last writes yet. */
  zkr__op_sync_path_sync (direct, full);
  CU_ASSERT_TRUE (itest_delete_tree (direct, full));
  CU_ASSERT_TRUE (itest_node_absent (direct, full));
  if (ns != NULL)
    {
      g_autofree char *top = g_strdup_printf ("/%s", ns);

      CU_ASSERT_TRUE (itest_delete_tree (direct, top));
      CU_ASSERT_TRUE (itest_node_absent (direct, top));
    }
}

gboolean
itest_bytes_equal (GBytes *bytes, const char *text)
{
  gsize len = 0;
  const char *data = bytes != NULL ? g_bytes_get_data (bytes, &len) : NULL;

  return bytes != NULL && len == strlen (text) && (len == 0 || memcmp (data, text, len) == 0);
}

void
itest_assert_code (const GError *error, ZkrError code, const char *file, int line)
{
  gboolean ok = error != NULL && g_error_matches (error, ZKR_ERROR, code);

  if (!ok)
    g_printerr ("%s:%d: expected %s, got %s\n", file, line, zkr_error_code_name (code),
                error != NULL ? error->message : "no error");
  CU_ASSERT_TRUE (ok);
}

void
itest_assert_cancelled (const GError *error, const char *file, int line)
{
  gboolean ok = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
                g_str_has_suffix (error->message, ": cancelled");

  if (!ok)
    g_printerr ("%s:%d: expected G_IO_ERROR_CANCELLED, got %s (%s)\n", file, line,
                zkr_error_name (error), error != NULL ? error->message : "no error");
  CU_ASSERT_TRUE (ok);
}

/* ---- async answers ---------------------------------------------------- */

void
itest_async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ItestAsync *wait = user_data;

  (void) source;
  wait->early |= !wait->returned;
  wait->wrong_context |= !g_main_context_is_owner (wait->context);
  wait->result = g_object_ref (result);
}

void
itest_async_begin (ItestAsync *wait)
{
  memset (wait, 0, sizeof *wait);
  wait->context = g_main_context_ref_thread_default ();
}

GAsyncResult *
itest_async_wait (ItestAsync *wait, int timeout_ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  wait->returned = TRUE;
  while (wait->result == NULL && g_get_monotonic_time () < until)
    g_main_context_iteration (wait->context, FALSE) || (g_usleep (1000), TRUE);
  CU_ASSERT_FALSE (wait->early);
  CU_ASSERT_FALSE (wait->wrong_context);
  return wait->result;
}

void
itest_async_end (ItestAsync *wait)
{
  g_clear_object (&wait->result);
  g_main_context_unref (wait->context);
}

gboolean
itest_async_call (gpointer object, ItestAsyncStart start, ItestAsyncFinish finish,
                  GCancellable *cancellable, GError **error)
{
  ItestAsync wait;
  GAsyncResult *result;
  gboolean ok = FALSE;

  itest_async_begin (&wait);
  start (object, cancellable, itest_async_done, &wait);
  result = itest_async_wait (&wait, ITEST_CALL_MS);
  CU_ASSERT_PTR_NOT_NULL (result);
  if (result != NULL)
    ok = finish (object, result, error);
  itest_async_end (&wait);
  return ok;
}

/* ---- a lock's release_async ---------------------------------------- */

void
itest_assert_release_async_releases (gpointer lock, const ItestRelease *release)
{
  g_autoptr (GError) error = NULL;

  CU_ASSERT_TRUE (itest_async_call (lock, release->start, release->finish, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_FALSE (release->is_held (lock));
  CU_ASSERT_FALSE (release->is_release_pending (lock));
}

void
itest_assert_release_async_not_held (gpointer lock, const ItestRelease *release,
                                     const char *named)
{
  g_autoptr (GError) error = NULL;

  CU_ASSERT_FALSE (itest_async_call (lock, release->start, release->finish, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NOT_HELD);
  if (named != NULL)
    CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, named) : NULL);
}

typedef struct {
  gpointer lock;
  const ItestRelease *release;
} ReleaseOf;

static gboolean
release_settled (gpointer data)
{
  ReleaseOf *of = data;

  return !of->release->is_release_pending (of->lock);
}

void
itest_assert_release_async_cancelled (gpointer lock, const ItestRelease *release)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  ReleaseOf of = { lock, release };

  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (itest_async_call (lock, release->start, release->finish, cancellable,
                                     &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_FALSE (release->is_held (lock));
  CU_ASSERT_TRUE (itest_wait_for (release_settled, &of, ITEST_WAIT_MS));
}

gint64
itest_elapsed_ms (gint64 since)
{
  return (g_get_monotonic_time () - since) / 1000;
}

void
itest_assert_invalid_naming (const GError *error, const char *value)
{
  g_autofree char *escaped = g_strescape (value, NULL);

  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  if (error != NULL && strstr (error->message, escaped) == NULL)
    {
      g_printerr ("message \"%s\" does not name \"%s\"\n", error->message, escaped);
      CU_FAIL ("the message does not name the value");
    }
}

void
itest_assert_path_clean (ZkrSession *session, const char *path)
{
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  CU_ASSERT_TRUE (itest_node_absent (session, path));
}

gboolean
itest_session_answers (gpointer session)
{
  return zkr_node_exists (session, "/", 1000, NULL, NULL, NULL);
}

/* ---- a session through a proxy ---------------------------------------- */

void
itest_proxied_init (ItestProxied *f, const char *ns, const char *name, int session_timeout_ms)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSessionOptions) options = NULL;
  g_autofree char *address = NULL;

  memset (f, 0, sizeof *f);
  f->ns = ns;
  f->proxy = zkr_test_proxy_new (itest_hosts (), &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->proxy);
  address = zkr_test_proxy_dup_address (f->proxy);
  options = itest_options (address, session_timeout_ms);
  zkr_session_options_set_namespace (options, ns);
  f->proxied = zkr_session_new (options, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->proxied);
  f->recorder = itest_recorder_new (f->proxied);
  CU_ASSERT_TRUE_FATAL (zkr_session_wait_connected (f->proxied, ITEST_WAIT_MS, NULL, &error));
  f->direct = itest_connect (itest_hosts (), 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->direct);
  f->root = itest_scratch_path (name);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (f->proxied, f->root, NULL, 0, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_CONTAINER, ITEST_CALL_MS, NULL, NULL,
                                         NULL, &error));
}

void
itest_proxied_black_hole (ItestProxied *f)
{
  CU_ASSERT_TRUE (zkr_node_exists (f->proxied, "/", ITEST_CALL_MS, NULL, NULL, NULL));
  zkr_test_proxy_blackhole (f->proxy);
}

typedef struct {
  ZkrSession *direct;
  const char *path;
} TreeOnServer;

static gboolean
tree_removed (gpointer data)
{
  TreeOnServer *tree = data;

  zkr__op_sync_path_sync (tree->direct, tree->path);
  return itest_delete_tree (tree->direct, tree->path);
}

void
itest_proxied_finish (ItestProxied *f, gboolean ephemerals)
{
  g_autofree char *on_server = itest_server_path (f->ns, f->root);
  TreeOnServer tree = { f->direct, on_server };

  zkr_test_proxy_heal (f->proxy);
  if (f->proxied != NULL)
    {
      CU_ASSERT_TRUE (itest_wait_for (itest_session_answers, f->proxied, ITEST_WAIT_MS));
      itest_recorder_free (f->recorder);
      zkr_session_unref (f->proxied);
    }
  else
    /* A session unreffed on a black-holed link: its create may land once
     * healed, its close right behind it (one stream). Removing the tree
     * may meet that ephemeral; it goes with the close. */
    CU_ASSERT_TRUE (itest_wait_for (tree_removed, &tree, ITEST_WAIT_MS));
  /* Ephemeral nodes of a session that expired go with it. */
  if (ephemerals)
    CU_ASSERT_TRUE (itest_wait_for_children (f->direct, on_server, 0, ITEST_WAIT_MS));
  itest_cleanup_root (f->direct, f->ns, f->root);
  zkr_session_unref (f->direct);
  zkr_test_proxy_free (f->proxy);
  g_free (f->root);
}
