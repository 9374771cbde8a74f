/* zkr: ordered delivery of events to listeners in their own contexts. A
 * listener has a queue (of codes, or of shared boxed events); one drain at
 * a time per listener empties it in order in the listener's context. */

#include "notifier.h"
#include "context.h"

typedef struct {
  gatomicrefcount ref;
  guint id;
  GCallback func;
  gpointer user_data;
  GDestroyNotify destroy;
  GMainContext *context;    /* (owned) where func and destroy run */
  GQueue pending;           /* of codes or Boxed*; protected by drain_lock */
  gboolean boxed;           /* @pending holds Boxed* (a reference each) */
  const char *user_only;    /* (nullable) asserted before each call */
  gboolean drain_scheduled; /* protected by drain_lock */
  gboolean removed;         /* protected by drain_lock */
} Listener;

/* One boxed event, shared by the queues it is in. */
typedef struct {
  gatomicrefcount ref;
  gpointer event;
  GDestroyNotify free;
} Boxed;

/* Guards every listener's queue and flags. One process-wide lock, held for
 * a few instructions at a time, so that a queued drain never needs the
 * notifier (which may be freed before the drain runs). Lock order: a
 * notifier's lock, then this one. */
static GMutex drain_lock;

struct _ZkrNotifier {
  GMutex lock;
  GList *listeners;         /* of Listener*; protected by lock */
  guint next_id;            /* protected by lock */
  gpointer source;
  gpointer (*source_ref) (gpointer);
  void (*source_unref) (gpointer);
  ZkrNotifyMarshal marshal;
  ZkrNotifyBoxedMarshal boxed_marshal; /* NULL: codes */
  GDestroyNotify event_free;
  const char *user_only;
  gboolean closed;          /* protected by lock */
};

static void
boxed_unref (gpointer data)
{
  Boxed *boxed = data;

  if (!g_atomic_ref_count_dec (&boxed->ref))
    return;
  if (boxed->free != NULL)
    boxed->free (boxed->event);
  g_free (boxed);
}

/* Under drain_lock: no call starts after this. */
static void
listener_retire_locked (Listener *listener)
{
  listener->removed = TRUE;
  g_queue_clear_full (&listener->pending, listener->boxed ? boxed_unref : NULL);
}

static void
context_post (GMainContext *context, GSourceFunc func, gpointer data, GDestroyNotify destroy)
{
  zkr__context_post (context, func, data, destroy);
}

static gboolean
listener_destroy_in_context (gpointer data)
{
  Listener *listener = data;

  if (listener->destroy != NULL)
    listener->destroy (listener->user_data);
  g_main_context_unref (listener->context);
  g_free (listener);
  return G_SOURCE_REMOVE;
}

static void
listener_unref (Listener *listener)
{
  if (!g_atomic_ref_count_dec (&listener->ref))
    return;
  g_queue_clear_full (&listener->pending, listener->boxed ? boxed_unref : NULL);
  context_post (listener->context, listener_destroy_in_context, listener, NULL);
}

ZkrNotifier *
zkr__notifier_new (gpointer source,
                   gpointer (*source_ref) (gpointer),
                   void (*source_unref) (gpointer),
                   ZkrNotifyMarshal marshal)
{
  ZkrNotifier *notifier = g_new0 (ZkrNotifier, 1);

  g_mutex_init (&notifier->lock);
  notifier->source = source;
  notifier->source_ref = source_ref;
  notifier->source_unref = source_unref;
  notifier->marshal = marshal;
  return notifier;
}

ZkrNotifier *
zkr__notifier_new_boxed (gpointer source,
                         gpointer (*source_ref) (gpointer),
                         void (*source_unref) (gpointer),
                         ZkrNotifyBoxedMarshal marshal,
                         GDestroyNotify event_free)
{
  ZkrNotifier *notifier = zkr__notifier_new (source, source_ref, source_unref, NULL);

  notifier->boxed_marshal = marshal;
  notifier->event_free = event_free;
  return notifier;
}

void
zkr__notifier_set_user_only (ZkrNotifier *notifier, const char *what)
{
  notifier->user_only = what;
}

void
zkr__notifier_free (ZkrNotifier *notifier)
{
  zkr__notifier_remove_all (notifier);
  g_mutex_clear (&notifier->lock);
  g_free (notifier);
}

guint
zkr__notifier_add (ZkrNotifier *notifier, GCallback func, gpointer user_data,
                   GDestroyNotify destroy)
{
  Listener *listener = g_new0 (Listener, 1);

  g_atomic_ref_count_init (&listener->ref);
  listener->func = func;
  listener->user_data = user_data;
  listener->destroy = destroy;
  listener->context = g_main_context_ref_thread_default ();
  g_queue_init (&listener->pending);
  listener->boxed = notifier->boxed_marshal != NULL;
  listener->user_only = notifier->user_only;
  g_mutex_lock (&notifier->lock);
  /* Added after the close: registered, never called. */
  listener->removed = notifier->closed;
  listener->id = ++notifier->next_id;
  notifier->listeners = g_list_append (notifier->listeners, listener);
  g_mutex_unlock (&notifier->lock);
  return listener->id;
}

void
zkr__notifier_remove (ZkrNotifier *notifier, guint id)
{
  Listener *found = NULL;

  g_mutex_lock (&notifier->lock);
  for (GList *l = notifier->listeners; l != NULL; l = l->next)
    if (((Listener *) l->data)->id == id)
      {
        found = l->data;
        g_mutex_lock (&drain_lock);
        listener_retire_locked (found);
        g_mutex_unlock (&drain_lock);
        notifier->listeners = g_list_delete_link (notifier->listeners, l);
        break;
      }
  g_mutex_unlock (&notifier->lock);
  if (found != NULL)
    listener_unref (found);
}

void
zkr__notifier_remove_all (ZkrNotifier *notifier)
{
  GList *listeners;

  g_mutex_lock (&notifier->lock);
  listeners = g_steal_pointer (&notifier->listeners);
  g_mutex_lock (&drain_lock);
  for (GList *l = listeners; l != NULL; l = l->next)
    listener_retire_locked (l->data);
  g_mutex_unlock (&drain_lock);
  g_mutex_unlock (&notifier->lock);
  g_list_free_full (listeners, (GDestroyNotify) listener_unref);
}

void
zkr__notifier_close (ZkrNotifier *notifier)
{
  g_mutex_lock (&notifier->lock);
  notifier->closed = TRUE;
  g_mutex_lock (&drain_lock);
  for (GList *l = notifier->listeners; l != NULL; l = l->next)
    listener_retire_locked (l->data);
  g_mutex_unlock (&drain_lock);
  g_mutex_unlock (&notifier->lock);
}

/* A drain does not reference the notifier (which may be freed while a
 * drain is queued): it keeps the listener and the source alive. */
typedef struct {
  Listener *listener;           /* (owned) */
  gpointer source;              /* (owned) through source_ref */
  void (*source_unref) (gpointer);
  ZkrNotifyMarshal marshal;
  ZkrNotifyBoxedMarshal boxed_marshal;
} Drain;

static void
drain_free (gpointer data)
{
  Drain *drain = data;

  listener_unref (drain->listener);
  drain->source_unref (drain->source);
  g_free (drain);
}

static gboolean
drain_run (gpointer data)
{
  Drain *drain = data;
  Listener *listener = drain->listener;

  for (;;)
    {
      gpointer event;

      g_mutex_lock (&drain_lock);
      if (listener->removed || g_queue_is_empty (&listener->pending))
        {
          listener->drain_scheduled = FALSE;
          g_mutex_unlock (&drain_lock);
          break;
        }
      event = g_queue_pop_head (&listener->pending);
      g_mutex_unlock (&drain_lock);
      if (listener->user_only != NULL)
        zkr__context_assert_user (listener->user_only);
      if (listener->boxed)
        {
          drain->boxed_marshal (listener->func, drain->source, ((Boxed *) event)->event,
                                listener->user_data);
          boxed_unref (event);
        }
      else
        drain->marshal (listener->func, drain->source, GPOINTER_TO_INT (event),
                        listener->user_data);
    }
  return G_SOURCE_REMOVE;
}

/* Under the notifier's lock and drain_lock: @event (a code, or a Boxed*
 * whose reference each queue takes) queued for every listener. */
static void
emit_locked (ZkrNotifier *notifier, gpointer event)
{
  gpointer source;

  for (GList *l = notifier->listeners; l != NULL && !notifier->closed; l = l->next)
    {
      Listener *listener = l->data;
      Drain *drain;

      if (listener->boxed)
        g_atomic_ref_count_inc (&((Boxed *) event)->ref);
      g_queue_push_tail (&listener->pending, event);
      if (listener->drain_scheduled)
        continue;
      source = notifier->source_ref (notifier->source);
      if (source == NULL)
        {
          /* The source is being finalized: nobody may see it any more. */
          g_queue_clear_full (&listener->pending, listener->boxed ? boxed_unref : NULL);
          continue;
        }
      listener->drain_scheduled = TRUE;
      drain = g_new0 (Drain, 1);
      g_atomic_ref_count_inc (&listener->ref);
      drain->listener = listener;
      drain->source = source;
      drain->source_unref = notifier->source_unref;
      drain->marshal = notifier->marshal;
      drain->boxed_marshal = notifier->boxed_marshal;
      context_post (listener->context, drain_run, drain, drain_free);
    }
}

void
zkr__notifier_emit (ZkrNotifier *notifier, int event)
{
  g_return_if_fail (notifier->boxed_marshal == NULL);
  g_mutex_lock (&notifier->lock);
  g_mutex_lock (&drain_lock);
  emit_locked (notifier, GINT_TO_POINTER (event));
  g_mutex_unlock (&drain_lock);
  g_mutex_unlock (&notifier->lock);
}

void
zkr__notifier_emit_boxed (ZkrNotifier *notifier, gpointer event)
{
  Boxed *boxed;

  g_return_if_fail (notifier->boxed_marshal != NULL);
  boxed = g_new (Boxed, 1);
  g_atomic_ref_count_init (&boxed->ref);
  boxed->event = event;
  boxed->free = notifier->event_free;
  g_mutex_lock (&notifier->lock);
  g_mutex_lock (&drain_lock);
  emit_locked (notifier, boxed);
  g_mutex_unlock (&drain_lock);
  g_mutex_unlock (&notifier->lock);
  /* The emitter's reference: frees an event nobody queued. */
  boxed_unref (boxed);
}
