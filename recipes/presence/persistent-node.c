/* zkr: the persistent node (Curator's PersistentNode): the public object,
 * the waiters of its initial create and its listeners; the node is kept
 * by a thread of its own (persistent-node-thread.c; docs/design.md,
 * "Persistent node"). */
#include <string.h>

#include "context.h"
#include "error-private.h"
#include "node-private.h"
#include "path.h"
#include "persistent-node-private.h"
#include "ref.h"

#include <zkr/error.h>

/* ==== the core ========================================================== */

ZkrPersistentCore *
zkr__persistent_node_core_ref (ZkrPersistentCore *core)
{
  g_atomic_ref_count_inc (&core->ref);
  return core;
}

void
zkr__persistent_node_close_reply_unref (CloseReply *reply)
{
  if (reply == NULL || !g_atomic_ref_count_dec (&reply->ref))
    return;
  g_clear_error (&reply->error);
  g_mutex_clear (&reply->lock);
  g_cond_clear (&reply->cond);
  g_free (reply);
}

void
zkr__persistent_node_core_unref (ZkrPersistentCore *core)
{
  if (!g_atomic_ref_count_dec (&core->ref))
    return;
  g_assert (core->waiters == NULL);
  g_clear_pointer (&core->loop, g_main_loop_unref);
  g_main_context_unref (core->context);
  g_bytes_unref (core->data);
  g_clear_error (&core->init_failure);
  zkr__persistent_node_close_reply_unref (core->closing);
  g_mutex_clear (&core->lock);
  zkr_session_unref (core->session);
  g_free (core->base_path);
  g_free (core->path);
  g_free (core);
}

/* ==== the initial-create waiters ======================================= */

typedef struct {
  gatomicrefcount ref;        /* its answer's, and its cancel's (connected or posted) */
  GTask *task;                /* (owned) (nullable) until answered */
  ZkrPersistentNode *node;    /* (owned) */
  GSource *timer;             /* (owned) (nullable) */
  GCancellable *cancellable;  /* (owned) (nullable) */
  gulong cancel_id;           /* its cancel, posted to the task's context */
  GError *answer;             /* (owned) (nullable) set when taken off the list */
} Waiter;

static Waiter *
waiter_ref (Waiter *waiter)
{
  g_atomic_ref_count_inc (&waiter->ref);
  return waiter;
}

/* The last reference may go with the waiter's context (a cancel posted
 * there and never run), after the answer. */
static void
waiter_unref (gpointer data)
{
  Waiter *waiter = data;

  if (!g_atomic_ref_count_dec (&waiter->ref))
    return;
  g_clear_pointer (&waiter->timer, g_source_unref);
  g_clear_object (&waiter->cancellable);
  g_clear_error (&waiter->answer);
  g_clear_object (&waiter->task);
  zkr_persistent_node_unref (waiter->node);
  g_free (waiter);
}

/* In the waiter's context: its answer, then its answer's reference goes.
 * The timer is destroyed and the cancel disconnected first: a blocking
 * wait's context is finalized as soon as it returns. The cancel is a
 * handler that only posts (zkr__context_cancel_connect), not a
 * GCancellableSource: a cancel in another thread racing the answer could
 * reach such a source after its context was finalized and lock the freed
 * context (GLib 2.74); the disconnect waits for a cancel running
 * meanwhile, and a cancel already posted finds the waiter answered. The
 * task goes with the answer: it holds its context, where such a posted
 * cancel may stay queued, unrun, holding the waiter. */
static void
waiter_answer (Waiter *waiter, GError *error)
{
  GTask *task = g_steal_pointer (&waiter->task);

  if (waiter->timer != NULL)
    g_source_destroy (waiter->timer);
  zkr__context_cancel_disconnect (waiter->cancellable, &waiter->cancel_id);
  waiter_unref (waiter);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static gboolean
waiter_answer_posted (gpointer data)
{
  Waiter *waiter = data;

  waiter_answer (waiter, g_steal_pointer (&waiter->answer));
  return G_SOURCE_REMOVE;
}

/* Takes every waiter off the list and posts @error (NULL: success; copied
 * for each) to its context. Any thread. */
void
zkr__persistent_node_answer_waiters (ZkrPersistentCore *core, const GError *error)
{
  GList *waiters;

  g_mutex_lock (&core->lock);
  waiters = g_steal_pointer (&core->waiters);
  g_mutex_unlock (&core->lock);
  for (GList *l = waiters; l != NULL; l = l->next)
    {
      Waiter *waiter = l->data;

      waiter->answer = error != NULL ? g_error_copy (error) : NULL;
      zkr__context_post (g_task_get_context (waiter->task), waiter_answer_posted, waiter, NULL);
    }
  g_list_free (waiters);
}

/* The timer and the cancel run in the waiter's context; whoever takes it
 * off the list answers it, once. */
static gboolean
waiter_take (Waiter *waiter)
{
  ZkrPersistentCore *core = waiter->node->core;
  GList *link;

  g_mutex_lock (&core->lock);
  link = g_list_find (core->waiters, waiter);
  if (link != NULL)
    core->waiters = g_list_delete_link (core->waiters, link);
  g_mutex_unlock (&core->lock);
  return link != NULL;
}

static gboolean
waiter_timed_out (gpointer data)
{
  Waiter *waiter = data;
  int timeout_ms = GPOINTER_TO_INT (g_task_get_task_data (waiter->task));

  if (waiter_take (waiter))
    waiter_answer (waiter, g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                                        "persistent node %s: not created within %d ms",
                                        waiter->node->core->base_path, timeout_ms));
  return G_SOURCE_REMOVE;
}

/* Posted by the cancel's handler, holding a reference of its own. */
static gboolean
waiter_cancelled (gpointer data)
{
  Waiter *waiter = data;

  if (waiter_take (waiter))
    waiter_answer (waiter, zkr__error_new_cancelled ("persistent node %s: wait for the "
                                                     "initial create",
                                                     waiter->node->core->base_path));
  return G_SOURCE_REMOVE;
}

/* ==== the listeners ===================================================== */

static void
listener_marshal (GCallback func, gpointer source, int event, gpointer user_data)
{
  ZkrPersistentNode *node = source;
  g_autofree char *path = zkr_persistent_node_dup_actual_path (node);

  (void) event;
  ((ZkrPersistentNodeFunc) func) (node, path, user_data);
}

static gpointer
node_try_ref (gpointer node)
{
  return zkr__ref_try (&((ZkrPersistentNode *) node)->ref) ? node : NULL;
}

void
zkr__persistent_node_emit_created (ZkrPersistentCore *core)
{
  g_mutex_lock (&core->lock);
  if (core->notifier != NULL && core->life == LIFE_STARTED)
    zkr__notifier_emit (core->notifier, 0);
  g_mutex_unlock (&core->lock);
}

void
zkr__persistent_node_mark_initialized (ZkrPersistentCore *core)
{
  gboolean first;

  g_mutex_lock (&core->lock);
  first = !core->initialized;
  core->initialized = TRUE;
  g_mutex_unlock (&core->lock);
  if (first)
    zkr__persistent_node_answer_waiters (core, NULL);
}

/* ==== the public object ================================================== */

static gboolean
validate_data (const void *data, gsize len, GError **error)
{
  if (data == NULL && len > 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid persistent node data: NULL with length %" G_GSIZE_FORMAT, len);
      return FALSE;
    }
  if (len > ZKR_NODE_MAX_DATA_SIZE)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid persistent node data: %" G_GSIZE_FORMAT " bytes, more than "
                   "ZKR_NODE_MAX_DATA_SIZE (%d)", len, ZKR_NODE_MAX_DATA_SIZE);
      return FALSE;
    }
  return TRUE;
}

static gboolean
validate_new (const char *path, ZkrCreateMode mode, const void *data, gsize len,
              GError **error)
{
  if (!zkr__path_validate (path, error))
    return FALSE;
  if (strcmp (path, "/") == 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid persistent node path \"/\": the root cannot be made");
      return FALSE;
    }
  if (mode != ZKR_CREATE_PERSISTENT && mode != ZKR_CREATE_EPHEMERAL &&
      mode != ZKR_CREATE_PERSISTENT_SEQUENTIAL && mode != ZKR_CREATE_EPHEMERAL_SEQUENTIAL)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid persistent node mode %d for %s: only PERSISTENT, EPHEMERAL and "
                   "their SEQUENTIAL forms", (int) mode, path);
      return FALSE;
    }
  return validate_data (data, len, error);
}

/* The create the node's thread would send (it makes parents as
 * containers, which are smaller): refused at once, not tried again and
 * again by the thread. */
static gboolean
check_create_size (ZkrSession *session, const char *path, ZkrCreateMode mode,
                   gboolean protection, gsize len, GError **error)
{
  ZkrCreateOptions options = { .mode = mode, .protection = protection };

  return zkr__node_check_request_size (session, "persistent node", path, len, &options, error);
}

ZkrPersistentNode *
zkr_persistent_node_new (ZkrSession *session, const char *path, ZkrCreateMode mode,
                         gboolean protection, const void *data, gsize len, GError **error)
{
  ZkrPersistentNode *node;
  ZkrPersistentCore *core;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!validate_new (path, mode, data, len, error) ||
      !check_create_size (session, path, mode, protection, len, error))
    return NULL;
  core = g_new0 (ZkrPersistentCore, 1);
  g_atomic_ref_count_init (&core->ref);
  g_mutex_init (&core->lock);
  core->session = zkr_session_ref (session);
  core->base_path = g_strdup (path);
  core->mode = mode;
  core->protection = protection;
  core->context = g_main_context_new ();
  core->loop = g_main_loop_new (core->context, FALSE);
  core->data = g_bytes_new (data, len);
  core->data_serial = 1;
  node = g_new0 (ZkrPersistentNode, 1);
  g_atomic_ref_count_init (&node->ref);
  node->core = core;
  core->notifier = zkr__notifier_new (node, node_try_ref,
                                      (void (*) (gpointer)) zkr_persistent_node_unref,
                                      listener_marshal);
  return node;
}

ZkrPersistentNode *
zkr_persistent_node_ref (ZkrPersistentNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_atomic_ref_count_inc (&node->ref);
  return node;
}

/* Stops what a close stops on the caller's side: no listener call starts
 * after this, waiters answer CANCELLED. TRUE if the node's thread runs
 * and must close too. */
static gboolean
close_begin (ZkrPersistentCore *core)
{
  ZkrNotifier *notifier;
  gboolean was_started;
  GError *error;

  g_mutex_lock (&core->lock);
  was_started = core->life == LIFE_STARTED;
  core->life = LIFE_CLOSED;
  notifier = g_steal_pointer (&core->notifier);
  g_mutex_unlock (&core->lock);
  if (notifier != NULL)
    zkr__notifier_free (notifier);
  error = zkr__error_new_cancelled ("persistent node %s: wait for the initial create (closed "
                                    "before it was created)", core->base_path);
  zkr__persistent_node_answer_waiters (core, error);
  g_error_free (error);
  return was_started;
}

void
zkr_persistent_node_unref (ZkrPersistentNode *node)
{
  ZkrPersistentCore *core;

  if (node == NULL || !g_atomic_ref_count_dec (&node->ref))
    return;
  core = node->core;
  if (close_begin (core))
    zkr__persistent_node_thread_close_core (core, NULL);
  g_free (node);
  zkr__persistent_node_core_unref (core);
}

gboolean
zkr_persistent_node_start (ZkrPersistentNode *node, GError **error)
{
  ZkrPersistentCore *core;
  Life life;
  GThread *thread;

  g_return_val_if_fail (node != NULL, FALSE);
  core = node->core;
  if (zkr_session_get_state (core->session) == ZKR_SESSION_STATE_CLOSED)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                   "persistent node %s: the session is closed", core->base_path);
      return FALSE;
    }
  g_mutex_lock (&core->lock);
  life = core->life;
  if (life == LIFE_LATENT)
    core->life = LIFE_STARTED;
  g_mutex_unlock (&core->lock);
  if (life != LIFE_LATENT)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "persistent node %s: already %s", core->base_path,
                   life == LIFE_STARTED ? "started" : "closed");
      return FALSE;
    }
  thread = g_thread_new ("zkr-persistent-node", zkr__persistent_node_thread_run,
                         zkr__persistent_node_core_ref (core));
  g_thread_unref (thread);
  return TRUE;
}

/* ---- wait for the initial create ----------------------------------------- */

/* The answer a wait gets at once, if any (transfer full); NULL: it waits
 * (added to the list, under the lock). @done: answered at once, success
 * when the returned error is NULL. */
static GError *
waiter_enlist (ZkrPersistentCore *core, Waiter *waiter, gboolean *done)
{
  GError *answer = NULL;

  *done = TRUE;
  g_mutex_lock (&core->lock);
  if (core->life != LIFE_STARTED)
    answer = g_error_new (ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "persistent node %s: %s",
                          core->base_path, core->life == LIFE_LATENT ? "not started" : "closed");
  else if (core->initialized)
    ;
  else if (core->init_failure != NULL)
    answer = g_error_copy (core->init_failure);
  else
    {
      core->waiters = g_list_append (core->waiters, waiter);
      *done = FALSE;
    }
  g_mutex_unlock (&core->lock);
  return answer;
}

void
zkr_persistent_node_wait_for_initial_create_async (ZkrPersistentNode *node, int timeout_ms,
                                                   GCancellable *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer user_data)
{
  Waiter *waiter;
  GMainContext *context;
  GError *answer;
  gboolean done;

  g_return_if_fail (node != NULL);
  waiter = g_new0 (Waiter, 1);
  g_atomic_ref_count_init (&waiter->ref);
  waiter->task = g_task_new (NULL, NULL, callback, user_data);
  g_task_set_source_tag (waiter->task, zkr_persistent_node_wait_for_initial_create_async);
  g_task_set_task_data (waiter->task, GINT_TO_POINTER (timeout_ms), NULL);
  waiter->node = zkr_persistent_node_ref (node);
  context = g_task_get_context (waiter->task);
  /* The timer and the cancel first: once enlisted, the node's thread may
   * answer (by a post to this context, so never before they are set). */
  if (timeout_ms > 0)
    {
      waiter->timer = g_timeout_source_new (timeout_ms);
      g_source_set_callback (waiter->timer, waiter_timed_out, waiter, NULL);
      g_source_attach (waiter->timer, context);
    }
  if (cancellable != NULL)
    {
      waiter->cancellable = g_object_ref (cancellable);
      waiter->cancel_id = zkr__context_cancel_connect (context, cancellable, waiter_cancelled,
                                                       waiter_ref (waiter), waiter_unref);
    }
  answer = waiter_enlist (node->core, waiter, &done);
  if (!done && timeout_ms == 0 && waiter_take (waiter))
    {
      answer = g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT, "persistent node %s: not created yet",
                            node->core->base_path);
      done = TRUE;
    }
  if (done)
    {
      /* Answered later, in the context, as every async answer is. */
      waiter->answer = answer;
      zkr__context_post (context, waiter_answer_posted, waiter, NULL);
    }
}

gboolean
zkr_persistent_node_wait_for_initial_create_finish (ZkrPersistentNode *node,
                                                    GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        zkr_persistent_node_wait_for_initial_create_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
blocking_done (GObject *source, GAsyncResult *result, gpointer data)
{
  (void) source;
  *(GAsyncResult **) data = g_object_ref (result);
}

gboolean
zkr_persistent_node_wait_for_initial_create (ZkrPersistentNode *node, int timeout_ms,
                                             GCancellable *cancellable, GError **error)
{
  GMainContext *context;
  GAsyncResult *result = NULL;
  gboolean ok;

  g_return_val_if_fail (node != NULL, FALSE);
  context = g_main_context_new ();
  g_main_context_push_thread_default (context);
  zkr_persistent_node_wait_for_initial_create_async (node, timeout_ms, cancellable,
                                                     blocking_done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  ok = zkr_persistent_node_wait_for_initial_create_finish (node, result, error);
  g_object_unref (result);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
  return ok;
}

/* ---- data, path, listeners ------------------------------------------------ */

gboolean
zkr_persistent_node_set_data (ZkrPersistentNode *node, const void *data, gsize len,
                              GError **error)
{
  ZkrPersistentCore *core;

  g_return_val_if_fail (node != NULL, FALSE);
  core = node->core;
  if (!validate_data (data, len, error) ||
      !check_create_size (core->session, core->base_path, core->mode, core->protection, len,
                          error))
    return FALSE;
  g_mutex_lock (&core->lock);
  if (core->life == LIFE_CLOSED)
    {
      g_mutex_unlock (&core->lock);
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "persistent node %s: closed", core->base_path);
      return FALSE;
    }
  g_bytes_unref (core->data);
  core->data = g_bytes_new (data, len);
  core->data_serial++;
  /* Posted under the lock, so before a close's post: the node's thread
   * always runs it before it ends. */
  if (core->life == LIFE_STARTED)
    zkr__context_post (core->context, zkr__persistent_node_thread_wake,
                       zkr__persistent_node_core_ref (core),
                       (GDestroyNotify) zkr__persistent_node_core_unref);
  g_mutex_unlock (&core->lock);
  return TRUE;
}

GBytes *
zkr_persistent_node_dup_data (ZkrPersistentNode *node)
{
  GBytes *data;

  g_return_val_if_fail (node != NULL, NULL);
  g_mutex_lock (&node->core->lock);
  data = g_bytes_ref (node->core->data);
  g_mutex_unlock (&node->core->lock);
  return data;
}

char *
zkr_persistent_node_dup_actual_path (ZkrPersistentNode *node)
{
  char *path;

  g_return_val_if_fail (node != NULL, NULL);
  g_mutex_lock (&node->core->lock);
  path = g_strdup (node->core->path);
  g_mutex_unlock (&node->core->lock);
  return path;
}

guint
zkr_persistent_node_add_listener (ZkrPersistentNode *node, ZkrPersistentNodeFunc func,
                                  gpointer user_data, GDestroyNotify destroy)
{
  guint id = 0;

  g_return_val_if_fail (node != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  g_mutex_lock (&node->core->lock);
  if (node->core->notifier != NULL)
    id = zkr__notifier_add (node->core->notifier, G_CALLBACK (func), user_data, destroy);
  g_mutex_unlock (&node->core->lock);
  if (id == 0 && destroy != NULL)
    destroy (user_data);
  return id;
}

void
zkr_persistent_node_remove_listener (ZkrPersistentNode *node, guint id)
{
  g_return_if_fail (node != NULL);
  g_mutex_lock (&node->core->lock);
  if (node->core->notifier != NULL)
    zkr__notifier_remove (node->core->notifier, id);
  g_mutex_unlock (&node->core->lock);
}

/* ---- close ------------------------------------------------------------------ */

static void
close_cancelled (GCancellable *cancellable, gpointer data)
{
  CloseReply *reply = data;

  (void) cancellable;
  g_mutex_lock (&reply->lock);
  g_cond_broadcast (&reply->cond);
  g_mutex_unlock (&reply->lock);
}

/* Waits for the node's thread to answer @reply, by @timeout_ms. */
static gboolean
close_wait (ZkrPersistentCore *core, CloseReply *reply, int timeout_ms, GCancellable *cancellable,
            GError **error)
{
  gint64 end = timeout_ms > 0 ? g_get_monotonic_time () + (gint64) timeout_ms * 1000 : 0;
  gulong handler = 0;
  gboolean timed_out = FALSE, ok;

  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (close_cancelled), reply, NULL);
  g_mutex_lock (&reply->lock);
  while (!reply->done && !timed_out && !g_cancellable_is_cancelled (cancellable))
    {
      if (end == 0)
        g_cond_wait (&reply->cond, &reply->lock);
      else
        timed_out = !g_cond_wait_until (&reply->cond, &reply->lock, end);
    }
  ok = reply->done && reply->error == NULL;
  if (reply->done && reply->error != NULL)
    g_propagate_prefixed_error (error, g_error_copy (reply->error),
                                "persistent node %s: close: ", core->base_path);
  else if (!reply->done && g_cancellable_is_cancelled (cancellable))
    g_propagate_error (error, zkr__error_new_cancelled ("persistent node %s: close (the delete "
                                                        "goes on in the background)",
                                                        core->base_path));
  else if (!reply->done)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                 "persistent node %s: the delete was not confirmed within %d ms (it goes on "
                 "in the background)", core->base_path, timeout_ms);
  g_mutex_unlock (&reply->lock);
  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  return ok;
}

gboolean
zkr_persistent_node_close (ZkrPersistentNode *node, int timeout_ms, GCancellable *cancellable,
                           GError **error)
{
  ZkrPersistentCore *core;
  CloseReply *reply;
  gboolean ok;

  g_return_val_if_fail (node != NULL, FALSE);
  core = node->core;
  g_mutex_lock (&core->lock);
  if (core->life == LIFE_CLOSED)
    {
      g_mutex_unlock (&core->lock);
      return TRUE;
    }
  g_mutex_unlock (&core->lock);
  if (!close_begin (core))
    return TRUE;
  reply = g_new0 (CloseReply, 1);
  g_atomic_ref_count_init (&reply->ref);
  g_mutex_init (&reply->lock);
  g_cond_init (&reply->cond);
  reply->timeout_ms = timeout_ms;
  zkr__persistent_node_thread_close_core (core, reply);
  ok = close_wait (core, reply, timeout_ms, cancellable, error);
  zkr__persistent_node_close_reply_unref (reply);
  return ok;
}
