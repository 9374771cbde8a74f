/* zkr: posts to a user's GMainContext, queued behind one source per
 * context, and the debug check of where user code runs. */

#include "context.h"
#include "executor.h"

/* One post: a link of its context's queue (link.data is the post), in an
 * allocation of its own unless embedded in its data. */
typedef ZkrContextPost Post;

/* Every post to one GMainContext goes through one source of ours attached
 * to it for the context's life, holding a queue: a burst of posts costs
 * the context's thread one wake-up (sent when the queue goes from empty to
 * not empty) instead of one source attached, woken, dispatched and
 * destroyed per post, and a post takes only our lock, never the context's
 * (which its thread, just woken, would then wait for). */
typedef struct {
  GSource source;
  GMainContext *context;  /* the registry's key, never dereferenced once
                           * detached (not a reference: the context owns us) */
  GMutex lock;
  GQueue posts;           /* of Post (their links); lock */
  gboolean detached;      /* lock: the context is going, posts are dropped */
  gint ready;             /* (atomic) the queue is not empty */
} PostQueue;

/* GMainContext* -> its PostQueue. An entry goes when the context destroys
 * its sources, before it frees itself, so a context made later at the same
 * address never finds the old queue. Lock order: registry_lock, then a
 * context's own lock (attaching); a queue's lock is never held with it. */
static GMutex registry_lock;
static GHashTable *registry;

void
zkr__context_assert_user (const char *what)
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

static void
post_free (Post *post)
{
  /* An embedded post goes with its data. */
  gboolean embedded = post->embedded;

  if (post->destroy != NULL)
    post->destroy (post->data);
  if (!embedded)
    g_free (post);
}

/* Runs one post: every listener delivery and every GTask result comes
 * through here. */
static void
post_run (Post *post)
{
  zkr__context_assert_user ("a post to a user's context ran");
  /* Every post runs once, whatever @func returns. */
  (void) post->func (post->data);
  post_free (post);
}

static Post *
queue_pop (PostQueue *queue)
{
  GList *link;

  g_mutex_lock (&queue->lock);
  link = g_queue_pop_head_link (&queue->posts);
  g_atomic_int_set (&queue->ready, !g_queue_is_empty (&queue->posts));
  g_mutex_unlock (&queue->lock);
  return link != NULL ? link->data : NULL;
}

static gboolean
queue_prepare (GSource *source, gint *timeout)
{
  *timeout = -1;
  return g_atomic_int_get (&((PostQueue *) source)->ready);
}

static gboolean
queue_check (GSource *source)
{
  return g_atomic_int_get (&((PostQueue *) source)->ready);
}

/* The context's thread: the posts queued when the dispatch began, one at a
 * time, in order; later ones wait for the next iteration, as a source
 * attached during a dispatch would. The source may recurse (a post that
 * iterates the context, a nested loop, sees the posts behind it run, as
 * it did when each post was a source of its own): each post is popped from
 * the head as it runs, so the order holds across the nesting. */
static gboolean
queue_dispatch (GSource *source, GSourceFunc callback, gpointer user_data)
{
  PostQueue *queue = (PostQueue *) source;
  guint count;
  Post *post;

  (void) callback;
  (void) user_data;
  g_mutex_lock (&queue->lock);
  count = queue->posts.length;
  g_mutex_unlock (&queue->lock);
  while (count-- > 0 && (post = queue_pop (queue)) != NULL)
    post_run (post);
  return G_SOURCE_CONTINUE;
}

/* Drops what is still queued, running the destroy notifies. */
static void
queue_drop_posts (PostQueue *queue)
{
  Post *post;

  while ((post = queue_pop (queue)) != NULL)
    post_free (post);
}

/* The source is destroyed: its context is going away (it destroys its
 * sources before it frees itself). Runs without the context's lock. */
static void
queue_detach (gpointer data)
{
  PostQueue *queue = data;

  g_mutex_lock (&registry_lock);
  if (registry != NULL && g_hash_table_lookup (registry, queue->context) == queue)
    g_hash_table_remove (registry, queue->context);
  g_mutex_unlock (&registry_lock);
  g_mutex_lock (&queue->lock);
  queue->detached = TRUE;
  g_mutex_unlock (&queue->lock);
  queue_drop_posts (queue);
}

static void
queue_finalize (GSource *source)
{
  PostQueue *queue = (PostQueue *) source;

  queue_drop_posts (queue);
  g_mutex_clear (&queue->lock);
}

static GSourceFuncs queue_funcs = {
  .prepare = queue_prepare,
  .check = queue_check,
  .dispatch = queue_dispatch,
  .finalize = queue_finalize,
};

/* @context's queue, made and attached on its first post. The caller holds
 * a reference to @context, so the queue lives at least as long. */
static PostQueue *
queue_for_context (GMainContext *context)
{
  PostQueue *queue;

  g_mutex_lock (&registry_lock);
  if (registry == NULL)
    registry = g_hash_table_new (NULL, NULL);
  queue = g_hash_table_lookup (registry, context);
  if (queue == NULL)
    {
      GSource *source = g_source_new (&queue_funcs, sizeof (PostQueue));

      queue = (PostQueue *) source;
      queue->context = context;
      g_mutex_init (&queue->lock);
      g_queue_init (&queue->posts);
      /* The priority the posts had as idle sources of their own. */
      g_source_set_priority (source, G_PRIORITY_DEFAULT_IDLE);
      g_source_set_can_recurse (source, TRUE);
      /* Its destroy notify is our hook for the context's end. */
      g_source_set_callback (source, NULL, queue, queue_detach);
      g_source_set_static_name (source, "zkr-posts");
      g_hash_table_insert (registry, context, queue);
      g_source_attach (source, context);
      g_source_unref (source);
    }
  g_mutex_unlock (&registry_lock);
  return queue;
}

/* The wake-ups this thread holds back (zkr__context_hold_wakeups()): the
 * contexts (owned), and how deep the holds nest (an in-place run of one
 * session may run another's in place). */
/* Compiler TLS (asked per post; GPrivate costs a lookup): the depth, and
 * the thread's array of held contexts (the GPrivate frees it at the
 * thread's end). */
static __thread guint hold_depth;
static __thread GPtrArray *held_array;

static void
held_free (gpointer data)
{
  if (held_array == data)
    held_array = NULL;
  g_ptr_array_unref (data);
}

static GPrivate held_wakeups = G_PRIVATE_INIT (held_free);

void
zkr__context_hold_wakeups (void)
{
  hold_depth++;
}

void
zkr__context_send_wakeups (void)
{
  guint depth = hold_depth;
  GPtrArray *held = held_array;

  g_return_if_fail (depth > 0);
  hold_depth = depth - 1;
  if (depth > 1 || held == NULL)
    return;
  for (guint i = 0; i < held->len; i++)
    {
      g_main_context_wakeup (g_ptr_array_index (held, i));
      g_main_context_unref (g_ptr_array_index (held, i));
    }
  g_ptr_array_set_size (held, 0);
}

/* Wakes @context's thread now, or once this thread sends its held ones. */
static void
context_wake (GMainContext *context)
{
  GPtrArray *held;

  if (hold_depth == 0)
    {
      g_main_context_wakeup (context);
      return;
    }
  held = held_array;
  if (held == NULL)
    {
      held = g_ptr_array_new ();
      g_private_set (&held_wakeups, held);
      held_array = held;
    }
  for (guint i = 0; i < held->len; i++)
    if (g_ptr_array_index (held, i) == context)
      return;
  g_ptr_array_add (held, g_main_context_ref (context));
}

static void
post_queue (GMainContext *context, Post *post)
{
  PostQueue *queue;
  gboolean wake, dropped;

  /* Once queued, the post can run on the context's thread, and the last
   * reference to the context (often one that @data owns, such as a
   * GTask's or a blocking call's) can go before we are done: our own
   * keeps it, and so its queue, alive until then. */
  g_main_context_ref (context);
  queue = queue_for_context (context);
  g_mutex_lock (&queue->lock);
  dropped = queue->detached;
  wake = !dropped && g_queue_is_empty (&queue->posts);
  if (!dropped)
    {
      g_queue_push_tail_link (&queue->posts, &post->link);
      g_atomic_int_set (&queue->ready, TRUE);
    }
  g_mutex_unlock (&queue->lock);
  /* Unlike attaching a source, a wake-up takes no lock of the context. */
  if (wake)
    context_wake (context);
  if (dropped)
    post_free (post);
  g_main_context_unref (context);
}

guint
zkr__context_test_count_queues (void)
{
  guint count;

  g_mutex_lock (&registry_lock);
  count = registry != NULL ? g_hash_table_size (registry) : 0;
  g_mutex_unlock (&registry_lock);
  return count;
}

void
zkr__context_post (GMainContext *context, GSourceFunc func, gpointer data,
                   GDestroyNotify destroy)
{
  Post *post = g_new (Post, 1);

  *post = (Post) { .link.data = post, .func = func, .data = data, .destroy = destroy };
  post_queue (context, post);
}

void
zkr__context_post_embedded (GMainContext *context, ZkrContextPost *post, GSourceFunc func,
                            gpointer data, GDestroyNotify destroy)
{
  g_return_if_fail (destroy != NULL);

  *post = (Post) { .link.data = post, .func = func, .data = data, .destroy = destroy,
                   .embedded = TRUE };
  post_queue (context, post);
}

/* A cancel connected by zkr__context_cancel_connect(): held by the
 * connection and by its post while queued. The context is the
 * connection's alone: a post queued and never run must not keep its own
 * context alive (the context's queue holds the post, so neither would
 * ever go: a blocking call's private context, an eventfd with it). */
typedef struct {
  gatomicrefcount ref;
  GMainContext *context; /* (owned) (nullable) while connected */
  GSourceFunc func;
  gpointer data;         /* (owned by @destroy) */
  GDestroyNotify destroy;
  gint posted;           /* (atomic) */
} CancelPost;

static void
cancel_post_unref (gpointer data)
{
  CancelPost *cancel = data;

  if (!g_atomic_ref_count_dec (&cancel->ref))
    return;
  if (cancel->destroy != NULL)
    cancel->destroy (cancel->data);
  g_free (cancel);
}

/* The connection's end (a disconnect, which waits for a handler running
 * in another thread, or the cancellable's finalization): no handler runs
 * any more, so the context is no longer needed. */
static void
cancel_connection_free (gpointer data)
{
  CancelPost *cancel = data;

  g_clear_pointer (&cancel->context, g_main_context_unref);
  cancel_post_unref (cancel);
}

static gboolean
cancel_post_run (gpointer data)
{
  CancelPost *cancel = data;

  return cancel->func (cancel->data);
}

/* The cancelling thread: only a post (our queue's lock, not the
 * context's), which holds the context while it queues. The connection's
 * reference keeps @cancel and its context alive here. */
static void
cancel_handler (GCancellable *cancellable, gpointer data)
{
  CancelPost *cancel = data;

  (void) cancellable;
  if (!g_atomic_int_compare_and_exchange (&cancel->posted, 0, 1))
    return;
  g_atomic_ref_count_inc (&cancel->ref);
  zkr__context_post (cancel->context, cancel_post_run, cancel, cancel_post_unref);
}

gulong
zkr__context_cancel_connect (GMainContext *context, GCancellable *cancellable,
                             GSourceFunc func, gpointer data, GDestroyNotify destroy)
{
  CancelPost *cancel;

  g_return_val_if_fail (context != NULL && func != NULL, 0);
  if (cancellable == NULL)
    {
      if (destroy != NULL)
        destroy (data);
      return 0;
    }
  cancel = g_new0 (CancelPost, 1);
  g_atomic_ref_count_init (&cancel->ref);
  cancel->context = g_main_context_ref (context);
  cancel->func = func;
  cancel->data = data;
  cancel->destroy = destroy;
  /* Already cancelled: the handler runs here, and only posts. */
  return g_cancellable_connect (cancellable, G_CALLBACK (cancel_handler), cancel,
                                cancel_connection_free);
}

void
zkr__context_cancel_disconnect (GCancellable *cancellable, gulong *id)
{
  if (*id == 0)
    return;
  g_cancellable_disconnect (cancellable, *id);
  *id = 0;
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

/* Runs @start to its answer in @context (thread-default meanwhile). */
static GAsyncResult *
run_sync_in (GMainContext *context, ZkrAsyncStartFunc start, gpointer data,
             GCancellable *cancellable)
{
  GAsyncResult *result = NULL;

  g_main_context_push_thread_default (context);
  start (data, cancellable, run_sync_done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);
  return result;
}

/* A private context made for a blocking call, with its queue made now,
 * not by the answer's post from another thread (attaching a source to a
 * context that a thread iterates wakes it twice, and the woken thread
 * then waits for the context's lock). */
static GMainContext *
sync_context_new (void)
{
  GMainContext *context = g_main_context_new ();

  (void) queue_for_context (context);
  return context;
}

GAsyncResult *
zkr__context_run_sync (ZkrAsyncStartFunc start, gpointer data, GCancellable *cancellable)
{
  GMainContext *context = sync_context_new ();
  GAsyncResult *result = run_sync_in (context, start, data, cancellable);

  g_main_context_unref (context);
  return result;
}

/* The thread's kept private context, not in use (compiler TLS, read per
 * call); the GPrivate owns it and unrefs it at the thread's end. */
static __thread GMainContext *spare_sync_context;

static void
sync_context_free (gpointer data)
{
  if (spare_sync_context == data)
    spare_sync_context = NULL;
  g_main_context_unref (data);
}

static GPrivate sync_context_owner = G_PRIVATE_INIT (sync_context_free);

/* Nothing of the call is left in @context: no post queued, no source
 * ready. */
static gboolean
sync_context_is_clean (GMainContext *context)
{
  PostQueue *queue = queue_for_context (context);
  gboolean empty;

  g_mutex_lock (&queue->lock);
  empty = g_queue_is_empty (&queue->posts);
  g_mutex_unlock (&queue->lock);
  return empty && !g_main_context_pending (context);
}

GAsyncResult *
zkr__context_run_sync_reusing (ZkrAsyncStartFunc start, gpointer data,
                               GCancellable *cancellable)
{
  GMainContext *context = spare_sync_context;
  GAsyncResult *result;

  if (context != NULL)
    {
      /* Ours while in use: a nested call makes its own. */
      spare_sync_context = NULL;
      g_private_set (&sync_context_owner, NULL);
    }
  else
    context = sync_context_new ();
  result = run_sync_in (context, start, data, cancellable);
  if (spare_sync_context == NULL && sync_context_is_clean (context))
    {
      g_private_set (&sync_context_owner, context);
      spare_sync_context = context;
    }
  else
    g_main_context_unref (context);
  return result;
}
