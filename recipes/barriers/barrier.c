/* zkr: the barrier (Curator's DistributedBarrier layout: one node, waiters
 * on an exists watch), and the call machinery both barriers share: a
 * chain of public node and watch calls in the caller's context, under one
 * deadline and cancel (docs/design.md §4.2). */
#include <string.h>

#include "barrier-private.h"
#include "context.h"
#include "error-private.h"
#include "nodes.h"
#include "path.h"
#include "session-private.h"

#include <zkr/barrier.h>
#include <zkr/error.h>

/* ==== the shared call ================================================== */

/* The user's cancel reaches the call through a handler that posts to the
 * call's context (zkr__context_cancel_connect), not a GCancellableSource:
 * with GLib 2.74 a cancel running in another thread as the call ends
 * could reach such a source after the context was finalized (a blocking
 * call's private one goes as the call returns) and lock the freed
 * context. The post may still be queued when the call ends: it finds the
 * call through this link, which the end clears (both in the context). */
typedef struct _ZkrBarrierCancel CancelLink;
struct _ZkrBarrierCancel {
  gatomicrefcount ref;   /* the call's, the handler's */
  ZkrBarrierCall *call;  /* (nullable) until the call ends */
};

static void
cancel_link_unref (gpointer data)
{
  CancelLink *link = data;

  if (g_atomic_ref_count_dec (&link->ref))
    g_free (link);
}

static void
call_free (ZkrBarrierCall *call)
{
  if (call->timer != NULL)
    g_source_destroy (call->timer);
  g_clear_pointer (&call->timer, g_source_unref);
  zkr__context_cancel_disconnect (call->user_cancellable, &call->cancel_id);
  if (call->cancel_link != NULL)
    {
      call->cancel_link->call = NULL;
      g_clear_pointer (&call->cancel_link, cancel_link_unref);
    }
  g_clear_object (&call->user_cancellable);
  if (call->data_free != NULL)
    call->data_free (call->data);
  g_clear_error (&call->stop);
  g_object_unref (call->cancel);
  g_main_context_unref (call->context);
  zkr_session_unref (call->session);
  g_free (call->what);
  g_free (call);
}

void
zkr__barrier_call_end (ZkrBarrierCall *call, GError *error)
{
  GTask *task = call->task;

  zkr__barrier_call_unwatch (call);
  /* A cancel's message names the call already (call_cancelled). */
  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_prefix_error (&error, "%s: ", call->what);
  if (call->on_end != NULL)
    call->on_end (call, error);
  call_free (call);
  /* The task goes last: its callback may drop the last reference to the
   * recipe object, which the end hook above still used. */
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

/* The deadline, the user's cancel and the session's end all come here:
 * the call ends now if nothing is out, else at the request's answer
 * (our cancellable makes it answer promptly). */
static void
call_stop (ZkrBarrierCall *call, GError *why)
{
  if (call->stop != NULL)
    {
      g_error_free (why);
      return;
    }
  call->stop = why;
  g_cancellable_cancel (call->cancel);
  if (!call->in_flight)
    zkr__barrier_call_end (call, g_steal_pointer (&call->stop));
}

static gboolean
call_timed_out (gpointer data)
{
  ZkrBarrierCall *call = data;

  g_clear_pointer (&call->timer, g_source_unref);
  call_stop (call, g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT, "timed out after %d ms",
                                call->timeout_ms));
  return G_SOURCE_REMOVE;
}

/* The post of the user's cancel, in the call's context. */
static gboolean
call_cancelled (gpointer data)
{
  CancelLink *link = data;

  if (link->call != NULL)
    call_stop (link->call, zkr__error_new_cancelled ("%s", link->call->what));
  return G_SOURCE_REMOVE;
}

ZkrBarrierCall *
zkr__barrier_call_new (ZkrSession *session, gpointer source_object, const char *what,
                       int timeout_ms, GCancellable *cancellable, gpointer source_tag,
                       GAsyncReadyCallback callback, gpointer user_data)
{
  ZkrBarrierCall *call = g_new0 (ZkrBarrierCall, 1);

  call->task = g_task_new (source_object, cancellable, callback, user_data);
  g_task_set_source_tag (call->task, source_tag);
  /* Our own cancellable answers, not the task's: the result is ours. */
  g_task_set_check_cancellable (call->task, FALSE);
  call->session = zkr_session_ref (session);
  call->context = g_main_context_ref (g_task_get_context (call->task));
  call->what = g_strdup (what);
  call->timeout_ms = timeout_ms;
  call->cancel = g_cancellable_new ();
  if (timeout_ms > 0)
    {
      call->deadline_us = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
      call->timer = g_timeout_source_new (timeout_ms);
      g_source_set_callback (call->timer, call_timed_out, call, NULL);
      g_source_attach (call->timer, call->context);
    }
  if (cancellable != NULL)
    {
      call->user_cancellable = g_object_ref (cancellable);
      call->cancel_link = g_new0 (CancelLink, 1);
      g_atomic_ref_count_init (&call->cancel_link->ref);
      call->cancel_link->call = call;
      g_atomic_ref_count_inc (&call->cancel_link->ref);
      /* Already cancelled: posted now, run later (as the source was). */
      call->cancel_id = zkr__context_cancel_connect (call->context, cancellable, call_cancelled,
                                                     call->cancel_link, cancel_link_unref);
    }
  return call;
}

int
zkr__barrier_call_remaining (ZkrBarrierCall *call)
{
  gint64 left_ms;

  if (call->timeout_ms <= 0)
    return call->timeout_ms < 0 ? -1 : 0;
  left_ms = (call->deadline_us - g_get_monotonic_time ()) / 1000;
  return (int) CLAMP (left_ms, 1, call->timeout_ms);
}

/* The step may end the call, which frees it and drops its reference on
 * the context: ours keeps the context alive for the pop. */
void
zkr__barrier_call_run (ZkrBarrierCall *call, ZkrBarrierStepFunc step)
{
  GMainContext *context = g_main_context_ref (call->context);

  g_main_context_push_thread_default (context);
  step (call);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
}

gboolean
zkr__barrier_call_answered (ZkrBarrierCall *call)
{
  call->in_flight = FALSE;
  if (call->stop == NULL)
    return TRUE;
  zkr__barrier_call_end (call, g_steal_pointer (&call->stop));
  return FALSE;
}

void
zkr__barrier_call_wait (ZkrBarrierCall *call, ZkrBarrierStepFunc on_wake)
{
  if (call->woken)
    {
      call->woken = FALSE;
      zkr__barrier_call_run (call, on_wake);
      return;
    }
  if (call->timeout_ms == 0)
    {
      zkr__barrier_call_end (call, g_error_new_literal (ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                                                        "not through at the one try"));
      return;
    }
  call->on_wake = on_wake;
  call->waiting = TRUE;
}

void
zkr__barrier_call_unwatch (ZkrBarrierCall *call)
{
  if (call->watch_id != 0)
    zkr_watch_remove (call->session, call->watch_id);
  call->watch_id = 0;
  call->woken = FALSE;
}

/* The watch fired, in the call's context. A node event wakes the waiter
 * (or is kept for when it parks); the session's end stops the call. */
static void
call_watch_fired (ZkrSession *session, const char *path, ZkrWatchEvent event, gpointer data)
{
  ZkrBarrierCall *call = data;

  (void) session;
  (void) path;
  call->watch_id = 0;
  if (event == ZKR_WATCH_EVENT_SESSION_LOST)
    {
      call_stop (call, g_error_new_literal (ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED,
                                            "the session expired while waiting"));
      return;
    }
  if (event == ZKR_WATCH_EVENT_SESSION_CLOSED)
    {
      call_stop (call, g_error_new_literal (ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                                            "the session was closed while waiting"));
      return;
    }
  if (!call->waiting)
    {
      call->woken = TRUE;
      return;
    }
  call->waiting = FALSE;
  zkr__barrier_call_run (call, call->on_wake);
}

typedef struct {
  ZkrBarrierCall *call;
  ZkrBarrierExistsFunc done;
} ExistsRead;

static void
exists_answered (GObject *source, GAsyncResult *result, gpointer data)
{
  ExistsRead read = *(ExistsRead *) data;
  GMainContext *context;
  GError *error = NULL;
  guint watch_id = 0;
  gboolean exists;

  (void) source;
  g_free (data);
  exists = zkr_watch_exists_finish (read.call->session, result, NULL, &watch_id, &error);
  read.call->watch_id = watch_id;
  if (!zkr__barrier_call_answered (read.call))
    {
      g_clear_error (&error);
      return;
    }
  /* As zkr__barrier_call_run(): @done may end (free) the call. */
  context = g_main_context_ref (read.call->context);
  g_main_context_push_thread_default (context);
  read.done (read.call, exists, error);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
}

void
zkr__barrier_call_watch_exists (ZkrBarrierCall *call, const char *path,
                                ZkrBarrierExistsFunc done)
{
  ExistsRead *read = g_new (ExistsRead, 1);

  zkr__barrier_call_unwatch (call);
  read->call = call;
  read->done = done;
  call->in_flight = TRUE;
  zkr_watch_exists_async (call->session, path, call_watch_fired, call, NULL,
                          zkr__barrier_call_remaining (call), call->cancel,
                          exists_answered, read);
}

/* ---- the background delete and the blocking twin ----------------------- */

typedef struct {
  ZkrSession *session; /* not owned: the post runs only while the worker does */
  char *server_path;
} BackgroundDelete;

static gboolean
background_delete_run (gpointer data)
{
  BackgroundDelete *del = data;

  zkr__guaranteed_delete (del->session, del->server_path, NULL, NULL);
  return G_SOURCE_REMOVE;
}

static void
background_delete_free (gpointer data)
{
  BackgroundDelete *del = data;

  g_free (del->server_path);
  g_free (del);
}

void
zkr__barrier_delete_in_background (ZkrSession *session, const char *path)
{
  BackgroundDelete *del = g_new0 (BackgroundDelete, 1);

  del->session = session;
  del->server_path = zkr__session_resolve_path (session, path);
  zkr__session_post (session, background_delete_run, del, background_delete_free);
}

static void
blocking_done (GObject *source, GAsyncResult *result, gpointer data)
{
  (void) source;
  *(GAsyncResult **) data = g_object_ref (result);
}

gboolean
zkr__barrier_run_blocking (gpointer object, ZkrBarrierAsyncFunc start,
                           ZkrBarrierFinishFunc finish, int timeout_ms,
                           GCancellable *cancellable, GError **error)
{
  GMainContext *context = g_main_context_new ();
  GAsyncResult *result = NULL;
  gboolean ok;

  g_main_context_push_thread_default (context);
  start (object, timeout_ms, cancellable, blocking_done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  ok = finish (object, result, error);
  g_object_unref (result);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
  return ok;
}

gboolean
zkr__barrier_validate_path (const char *path, GError **error)
{
  if (!zkr__path_validate (path, error))
    return FALSE;
  if (strcmp (path, "/") == 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid barrier path \"/\": a barrier needs a node of its own");
      return FALSE;
    }
  return TRUE;
}

/* ==== the barrier ======================================================= */

struct _ZkrBarrier {
  gatomicrefcount ref;
  ZkrSession *session; /* (owned) */
  char *path;          /* (owned) */
};

ZkrBarrier *
zkr_barrier_new (ZkrSession *session, const char *path, GError **error)
{
  ZkrBarrier *barrier;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  if (!zkr__barrier_validate_path (path, error))
    return NULL;
  barrier = g_new0 (ZkrBarrier, 1);
  g_atomic_ref_count_init (&barrier->ref);
  barrier->session = zkr_session_ref (session);
  barrier->path = g_strdup (path);
  return barrier;
}

ZkrBarrier *
zkr_barrier_ref (ZkrBarrier *barrier)
{
  g_return_val_if_fail (barrier != NULL, NULL);
  g_atomic_ref_count_inc (&barrier->ref);
  return barrier;
}

void
zkr_barrier_unref (ZkrBarrier *barrier)
{
  if (barrier == NULL || !g_atomic_ref_count_dec (&barrier->ref))
    return;
  zkr_session_unref (barrier->session);
  g_free (barrier->path);
  g_free (barrier);
}

const char *
zkr_barrier_get_path (ZkrBarrier *barrier)
{
  g_return_val_if_fail (barrier != NULL, NULL);
  return barrier->path;
}

static ZkrBarrierCall *
barrier_call_new (ZkrBarrier *barrier, const char *verb, int timeout_ms,
                  GCancellable *cancellable, gpointer tag, GAsyncReadyCallback callback,
                  gpointer user_data)
{
  g_autofree char *what = g_strdup_printf ("barrier %s on %s", verb, barrier->path);
  ZkrBarrierCall *call = zkr__barrier_call_new (barrier->session, NULL, what, timeout_ms,
                                                cancellable, tag, callback, user_data);

  /* The task's source object is the barrier, a plain struct: kept here. */
  call->data = zkr_barrier_ref (barrier);
  call->data_free = (GDestroyNotify) zkr_barrier_unref;
  return call;
}

static gboolean
barrier_finish (ZkrBarrier *barrier, GAsyncResult *result, gpointer tag, GError **error)
{
  g_return_val_if_fail (barrier != NULL, FALSE);
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == tag, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- set ---------------------------------------------------------------- */

void
zkr__barrier_call_end_created (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrBarrierCall *call = data;
  GError *error = NULL;

  (void) source;
  if (!zkr_node_create_finish (call->session, result, NULL, NULL, &error) &&
      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NODE_EXISTS))
    g_clear_error (&error);
  if (!zkr__barrier_call_answered (call))
    {
      g_clear_error (&error);
      return;
    }
  zkr__barrier_call_end (call, error);
}

void
zkr_barrier_set_async (ZkrBarrier *barrier, int timeout_ms, GCancellable *cancellable,
                       GAsyncReadyCallback callback, gpointer user_data)
{
  ZkrBarrierCall *call;
  const char *data;

  g_return_if_fail (barrier != NULL);
  call = barrier_call_new (barrier, "set", timeout_ms, cancellable, zkr_barrier_set_async,
                           callback, user_data);
  data = zkr_session_get_client_id (barrier->session);
  call->in_flight = TRUE;
  zkr_node_create_async (barrier->session, barrier->path, data, strlen (data),
                         ZKR_CREATE_PERSISTENT, ZKR_CREATE_PARENTS_CONTAINER,
                         zkr__barrier_call_remaining (call), call->cancel, zkr__barrier_call_end_created, call);
}

gboolean
zkr_barrier_set_finish (ZkrBarrier *barrier, GAsyncResult *result, GError **error)
{
  return barrier_finish (barrier, result, zkr_barrier_set_async, error);
}

gboolean
zkr_barrier_set (ZkrBarrier *barrier, int timeout_ms, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (barrier != NULL, FALSE);
  return zkr__barrier_run_blocking (barrier, (ZkrBarrierAsyncFunc) zkr_barrier_set_async,
                                    (ZkrBarrierFinishFunc) zkr_barrier_set_finish,
                                    timeout_ms, cancellable, error);
}

/* ---- remove ------------------------------------------------------------- */

/* A delete's answer ends the call; the node already gone is the same
 * success (every member tries the delete, as in Curator). */
void
zkr__barrier_call_end_deleted (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrBarrierCall *call = data;
  GError *error = NULL;

  (void) source;
  if (!zkr_node_delete_finish (call->session, result, &error) &&
      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    g_clear_error (&error);
  if (!zkr__barrier_call_answered (call))
    {
      g_clear_error (&error);
      return;
    }
  zkr__barrier_call_end (call, error);
}

void
zkr_barrier_remove_async (ZkrBarrier *barrier, int timeout_ms, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  ZkrBarrierCall *call;

  g_return_if_fail (barrier != NULL);
  call = barrier_call_new (barrier, "remove", timeout_ms, cancellable,
                           zkr_barrier_remove_async, callback, user_data);
  call->in_flight = TRUE;
  zkr_node_delete_async (barrier->session, barrier->path, -1,
                         zkr__barrier_call_remaining (call), call->cancel,
                         zkr__barrier_call_end_deleted, call);
}

gboolean
zkr_barrier_remove_finish (ZkrBarrier *barrier, GAsyncResult *result, GError **error)
{
  return barrier_finish (barrier, result, zkr_barrier_remove_async, error);
}

gboolean
zkr_barrier_remove (ZkrBarrier *barrier, int timeout_ms, GCancellable *cancellable,
                    GError **error)
{
  g_return_val_if_fail (barrier != NULL, FALSE);
  return zkr__barrier_run_blocking (barrier, (ZkrBarrierAsyncFunc) zkr_barrier_remove_async,
                                    (ZkrBarrierFinishFunc) zkr_barrier_remove_finish,
                                    timeout_ms, cancellable, error);
}

/* ---- wait --------------------------------------------------------------- */

static void wait_check (ZkrBarrierCall *call);

static void
wait_checked (ZkrBarrierCall *call, gboolean exists, GError *error)
{
  if (error != NULL || !exists)
    {
      zkr__barrier_call_end (call, error);
      return;
    }
  /* Up: park on the watch; every event reads again (Curator's loop). */
  zkr__barrier_call_wait (call, wait_check);
}

static void
wait_check (ZkrBarrierCall *call)
{
  ZkrBarrier *barrier = call->data;

  zkr__barrier_call_watch_exists (call, barrier->path, wait_checked);
}

void
zkr_barrier_wait_async (ZkrBarrier *barrier, int timeout_ms, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  ZkrBarrierCall *call;

  g_return_if_fail (barrier != NULL);
  call = barrier_call_new (barrier, "wait", timeout_ms, cancellable, zkr_barrier_wait_async,
                           callback, user_data);
  wait_check (call);
}

gboolean
zkr_barrier_wait_finish (ZkrBarrier *barrier, GAsyncResult *result, GError **error)
{
  return barrier_finish (barrier, result, zkr_barrier_wait_async, error);
}

gboolean
zkr_barrier_wait (ZkrBarrier *barrier, int timeout_ms, GCancellable *cancellable,
                  GError **error)
{
  g_return_val_if_fail (barrier != NULL, FALSE);
  return zkr__barrier_run_blocking (barrier, (ZkrBarrierAsyncFunc) zkr_barrier_wait_async,
                                    (ZkrBarrierFinishFunc) zkr_barrier_wait_finish,
                                    timeout_ms, cancellable, error);
}
