/* zkr: posts to a user's GMainContext, published so that ThreadSanitizer
 * sees the hand-off, and the debug check of where user code runs. */

#include "context.h"
#include "executor.h"

typedef struct {
  gint published;
  GSourceFunc func;
  gpointer data;
  GDestroyNotify destroy;
} Post;

void
zkr__assert_user_context (const char *what)
{
#ifndef NDEBUG
  if (zkr__executor_code_running ())
    g_critical ("zkr: %s on a thread that runs a session's code (the worker, a stand-in, "
                "or a thread running posts in place): user code must run in its own context",
                what);
#else
  (void) what;
#endif
}

static gboolean
post_run (gpointer user_data)
{
  Post *post = user_data;

  /* Pairs with the publishing store in zkr__context_post(). */
  if (g_atomic_int_get (&post->published) != 1)
    g_critical ("zkr: a post ran before it was published");
  /* Every listener delivery and every GTask result comes through here. */
  zkr__assert_user_context ("a post to a user's context ran");
  return post->func (post->data);
}

static void
post_free (gpointer user_data)
{
  Post *post = user_data;

  (void) g_atomic_int_get (&post->published);
  if (post->destroy != NULL)
    post->destroy (post->data);
  g_free (post);
}

void
zkr__context_post (GMainContext *context, GSourceFunc func, gpointer data,
                   GDestroyNotify destroy)
{
  Post *post = g_new0 (Post, 1);
  GSource *source;

  post->func = func;
  post->data = data;
  post->destroy = destroy;
  g_atomic_int_set (&post->published, 1);
  /* An idle source, not g_main_context_invoke(): that one may run @func
   * right here when the caller owns the context. A source holds no
   * reference on its context, yet g_source_unref() below locks it: once
   * attached, the post can run on the context's thread, and the last
   * reference to the context (often one that @data owns, such as a
   * GTask's or a blocking call's) can go before we get there. Our own
   * reference keeps it alive until we are done with it. */
  g_main_context_ref (context);
  source = g_idle_source_new ();
  g_source_set_callback (source, post_run, post, post_free);
  g_source_set_static_name (source, "zkr-post");
  g_source_attach (source, context);
  g_source_unref (source);
  g_main_context_unref (context);
}

typedef struct {
  GTask *task;   /* (owned) */
  GError *error; /* (owned) (nullable) */
} Return;

static gboolean
return_run (gpointer data)
{
  Return *ret = data;

  if (ret->error != NULL)
    g_task_return_error (ret->task, g_steal_pointer (&ret->error));
  else
    g_task_return_boolean (ret->task, TRUE);
  return G_SOURCE_REMOVE;
}

static void
return_free (gpointer data)
{
  Return *ret = data;

  g_clear_error (&ret->error);
  g_object_unref (ret->task);
  g_free (ret);
}

void
zkr__context_return (GTask *task, GError *error)
{
  Return *ret = g_new0 (Return, 1);

  ret->task = task;
  ret->error = error;
  zkr__context_post (g_task_get_context (task), return_run, ret, return_free);
}

static void
run_sync_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  (void) source;
  *(GAsyncResult **) user_data = g_object_ref (result);
}

GAsyncResult *
zkr__context_run_sync (ZkrAsyncStartFunc start, gpointer data, GCancellable *cancellable)
{
  GMainContext *context = g_main_context_new ();
  GAsyncResult *result = NULL;

  g_main_context_push_thread_default (context);
  start (data, cancellable, run_sync_done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
  return result;
}
