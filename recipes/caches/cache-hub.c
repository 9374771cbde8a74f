/* zkr: the caches' hub: hands each engine event to every listener in its
 * own GMainContext, keeping the cache alive meanwhile, and answers the wait
 * for the first full read. */

#include "cache-private.h"
#include "context.h"
#include "error-private.h"

typedef struct {
  gatomicrefcount ref;
  guint id;
  GCallback func;
  gpointer user_data;
  GDestroyNotify destroy;
  GMainContext *context;   /* (owned) where func and destroy run */
  gboolean removed;        /* protected by the hub's lock */
} HubListener;

struct _ZkrCacheHub {
  GMutex lock;
  GCond cond;
  GList *listeners;        /* of HubListener (owned) */
  guint next_id;
  gboolean closed;
  gboolean initialized;
  gboolean session_closed;
  gpointer source;
  gpointer (*source_ref) (gpointer);
  void (*source_unref) (gpointer);
  ZkrCacheMarshal marshal;
};

/* One event, shared by its deliveries. */
typedef struct {
  gatomicrefcount ref;
  ZkrTreeCacheEvent event; /* path and data owned */
} HubEvent;

/* A delivery keeps the source alive, and through it the hub. */
typedef struct {
  ZkrCacheHub *hub;
  HubListener *listener;   /* (owned) */
  gpointer source;         /* (owned) */
  HubEvent *event;         /* (owned) */
} HubDelivery;

static void
listener_unref (HubListener *listener)
{
  if (!g_atomic_ref_count_dec (&listener->ref))
    return;
  g_main_context_unref (listener->context);
  g_free (listener);
}

static gboolean
listener_destroy_in_context (gpointer data)
{
  HubListener *listener = data;

  if (listener->destroy != NULL)
    listener->destroy (listener->user_data);
  return G_SOURCE_REMOVE;
}

/* Under the hub's lock or with the listener out of the list: no delivery
 * starts after this; the destroy notify runs after those already queued. */
static void
listener_retire_locked (HubListener *listener)
{
  listener->removed = TRUE;
  g_atomic_ref_count_inc (&listener->ref);
  zkr__context_post (listener->context, listener_destroy_in_context, listener,
                     (GDestroyNotify) listener_unref);
}

static void
hub_event_unref (HubEvent *event)
{
  if (!g_atomic_ref_count_dec (&event->ref))
    return;
  g_free ((char *) event->event.path);
  g_clear_pointer (&event->event.data, g_bytes_unref);
  g_free (event);
}

ZkrCacheHub *
zkr__cache_hub_new (gpointer source, gpointer (*source_ref) (gpointer),
                    void (*source_unref) (gpointer), ZkrCacheMarshal marshal)
{
  ZkrCacheHub *hub = g_new0 (ZkrCacheHub, 1);

  g_mutex_init (&hub->lock);
  g_cond_init (&hub->cond);
  hub->source = source;
  hub->source_ref = source_ref;
  hub->source_unref = source_unref;
  hub->marshal = marshal;
  return hub;
}

void
zkr__cache_hub_free (ZkrCacheHub *hub)
{
  g_mutex_lock (&hub->lock);
  for (GList *l = hub->listeners; l != NULL; l = l->next)
    listener_retire_locked (l->data);
  g_mutex_unlock (&hub->lock);
  g_list_free_full (hub->listeners, (GDestroyNotify) listener_unref);
  g_mutex_clear (&hub->lock);
  g_cond_clear (&hub->cond);
  g_free (hub);
}

guint
zkr__cache_hub_add (ZkrCacheHub *hub, GCallback func, gpointer user_data, GDestroyNotify destroy)
{
  HubListener *listener = g_new0 (HubListener, 1);
  guint id;

  g_atomic_ref_count_init (&listener->ref);
  listener->func = func;
  listener->user_data = user_data;
  listener->destroy = destroy;
  listener->context = g_main_context_ref_thread_default ();
  g_mutex_lock (&hub->lock);
  id = listener->id = ++hub->next_id;
  hub->listeners = g_list_append (hub->listeners, listener);
  g_mutex_unlock (&hub->lock);
  return id;
}

void
zkr__cache_hub_remove (ZkrCacheHub *hub, guint id)
{
  HubListener *found = NULL;

  g_mutex_lock (&hub->lock);
  for (GList *l = hub->listeners; l != NULL; l = l->next)
    if (((HubListener *) l->data)->id == id)
      {
        found = l->data;
        listener_retire_locked (found);
        hub->listeners = g_list_delete_link (hub->listeners, l);
        break;
      }
  g_mutex_unlock (&hub->lock);
  if (found != NULL)
    listener_unref (found);
}

static gboolean
delivery_run (gpointer data)
{
  HubDelivery *delivery = data;
  gboolean live;

  g_mutex_lock (&delivery->hub->lock);
  live = !delivery->hub->closed && !delivery->listener->removed;
  g_mutex_unlock (&delivery->hub->lock);
  if (live)
    {
      zkr__assert_user_context ("a cache listener");
      delivery->hub->marshal (delivery->listener->func, delivery->source, &delivery->event->event,
                              delivery->listener->user_data);
    }
  return G_SOURCE_REMOVE;
}

static void
delivery_free (gpointer data)
{
  HubDelivery *delivery = data;

  listener_unref (delivery->listener);
  hub_event_unref (delivery->event);
  /* Last: this may finalize the source, and the hub with it. */
  delivery->hub->source_unref (delivery->source);
  g_free (delivery);
}

static HubEvent *
hub_event_new (const ZkrTreeCacheEvent *event)
{
  HubEvent *copy = g_new0 (HubEvent, 1);

  g_atomic_ref_count_init (&copy->ref);
  copy->event = *event;
  copy->event.path = g_strdup (event->path);
  if (event->data != NULL)
    copy->event.data = g_bytes_ref (event->data);
  return copy;
}

void
zkr__cache_hub_emit (ZkrCacheHub *hub, const ZkrTreeCacheEvent *event)
{
  HubEvent *copy = NULL;

  g_mutex_lock (&hub->lock);
  if (event->type == ZKR_TREE_CACHE_INITIALIZED)
    hub->initialized = TRUE;
  if ((int) event->type == ZKR_CACHE_EVENT_SESSION_CLOSED)
    hub->session_closed = TRUE;
  g_cond_broadcast (&hub->cond);
  for (GList *l = hub->listeners;
       l != NULL && !hub->closed && (int) event->type != ZKR_CACHE_EVENT_SESSION_CLOSED;
       l = l->next)
    {
      HubListener *listener = l->data;
      HubDelivery *delivery;
      gpointer source = hub->source_ref (hub->source);

      if (source == NULL)
        break; /* being finalized: nobody may see it any more */
      if (copy == NULL)
        copy = hub_event_new (event);
      delivery = g_new0 (HubDelivery, 1);
      delivery->hub = hub;
      g_atomic_ref_count_inc (&listener->ref);
      delivery->listener = listener;
      delivery->source = source;
      g_atomic_ref_count_inc (&copy->ref);
      delivery->event = copy;
      zkr__context_post (listener->context, delivery_run, delivery, delivery_free);
    }
  g_mutex_unlock (&hub->lock);
  if (copy != NULL)
    hub_event_unref (copy);
}

void
zkr__cache_hub_close (ZkrCacheHub *hub)
{
  g_mutex_lock (&hub->lock);
  hub->closed = TRUE;
  g_cond_broadcast (&hub->cond);
  g_mutex_unlock (&hub->lock);
}

static void
hub_wake (GCancellable *cancellable, gpointer data)
{
  ZkrCacheHub *hub = data;

  (void) cancellable;
  g_mutex_lock (&hub->lock);
  g_cond_broadcast (&hub->cond);
  g_mutex_unlock (&hub->lock);
}

gboolean
zkr__cache_hub_wait_initialized (ZkrCacheHub *hub, const char *what, int timeout_ms,
                                 GCancellable *cancellable, GError **error)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  gulong handler = cancellable != NULL ? g_cancellable_connect (cancellable, G_CALLBACK (hub_wake),
                                                                hub, NULL)
                                       : 0;
  gboolean ok = FALSE;

  g_mutex_lock (&hub->lock);
  for (;;)
    {
      if (hub->initialized)
        ok = TRUE;
      else if (hub->closed)
        g_propagate_error (error, zkr__error_new_cancelled ("wait for the cache of \"%s\" "
                                                            "(closed)", what));
      else if (hub->session_closed)
        g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                     "cache of \"%s\": the session is closed", what);
      else if (g_cancellable_is_cancelled (cancellable))
        g_propagate_error (error, zkr__error_new_cancelled ("wait for the cache of \"%s\"", what));
      else if (timeout_ms == 0 || (timeout_ms > 0 && g_get_monotonic_time () >= deadline))
        g_set_error (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                     "the cache of \"%s\" was not initialized within %d ms", what, timeout_ms);
      else
        {
          if (timeout_ms > 0)
            g_cond_wait_until (&hub->cond, &hub->lock, deadline);
          else
            g_cond_wait (&hub->cond, &hub->lock);
          continue;
        }
      break;
    }
  g_mutex_unlock (&hub->lock);
  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  return ok;
}
