/* zkr: ordered delivery of events to listeners in their own contexts. A
 * listener has a queue; one drain at a time per listener empties it in
 * order in the listener's context. */

#include "notifier.h"
#include "context.h"

typedef struct {
  gatomicrefcount ref;
  guint id;
  GCallback func;
  gpointer user_data;
  GDestroyNotify destroy;
  GMainContext *context;    /* (owned) where func and destroy run */
  GQueue pending;           /* of events; protected by drain_lock */
  gboolean drain_scheduled; /* protected by drain_lock */
  gboolean removed;         /* protected by drain_lock */
} Listener;

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
};

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
  g_queue_clear (&listener->pending);
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

void
zkr__notifier_free (ZkrNotifier *notifier)
{
  GList *listeners;

  g_mutex_lock (&notifier->lock);
  listeners = g_steal_pointer (&notifier->listeners);
  g_mutex_lock (&drain_lock);
  for (GList *l = listeners; l != NULL; l = l->next)
    ((Listener *) l->data)->removed = TRUE;
  g_mutex_unlock (&drain_lock);
  g_mutex_unlock (&notifier->lock);
  g_list_free_full (listeners, (GDestroyNotify) listener_unref);
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
  g_mutex_lock (&notifier->lock);
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
        found->removed = TRUE;
        g_queue_clear (&found->pending);
        g_mutex_unlock (&drain_lock);
        notifier->listeners = g_list_delete_link (notifier->listeners, l);
        break;
      }
  g_mutex_unlock (&notifier->lock);
  if (found != NULL)
    listener_unref (found);
}

/* A drain does not reference the notifier (which may be freed while a
 * drain is queued): it keeps the listener and the source alive. */
typedef struct {
  Listener *listener;           /* (owned) */
  gpointer source;              /* (owned) through source_ref */
  void (*source_unref) (gpointer);
  ZkrNotifyMarshal marshal;
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
      int event;

      g_mutex_lock (&drain_lock);
      if (listener->removed || g_queue_is_empty (&listener->pending))
        {
          listener->drain_scheduled = FALSE;
          g_mutex_unlock (&drain_lock);
          break;
        }
      event = GPOINTER_TO_INT (g_queue_pop_head (&listener->pending));
      g_mutex_unlock (&drain_lock);
      drain->marshal (listener->func, drain->source, event, listener->user_data);
    }
  return G_SOURCE_REMOVE;
}

void
zkr__notifier_emit (ZkrNotifier *notifier, int event)
{
  gpointer source;

  g_mutex_lock (&notifier->lock);
  g_mutex_lock (&drain_lock);
  for (GList *l = notifier->listeners; l != NULL; l = l->next)
    {
      Listener *listener = l->data;
      Drain *drain;

      g_queue_push_tail (&listener->pending, GINT_TO_POINTER (event));
      if (listener->drain_scheduled)
        continue;
      source = notifier->source_ref (notifier->source);
      if (source == NULL)
        {
          /* The source is being finalized: nobody may see it any more. */
          g_queue_clear (&listener->pending);
          continue;
        }
      listener->drain_scheduled = TRUE;
      drain = g_new0 (Drain, 1);
      g_atomic_ref_count_inc (&listener->ref);
      drain->listener = listener;
      drain->source = source;
      drain->source_unref = notifier->source_unref;
      drain->marshal = notifier->marshal;
      context_post (listener->context, drain_run, drain, drain_free);
    }
  g_mutex_unlock (&drain_lock);
  g_mutex_unlock (&notifier->lock);
}

