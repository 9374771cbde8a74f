/* zkr: the node cache (Curator's NodeCache), the tree cache's engine at
 * depth 0; and the hub both caches hand their events to, which delivers
 * them to each listener in its own GMainContext and answers the wait for
 * the first full read. */

#include "cache-private.h"
#include "context.h"
#include "error-private.h"
#include "path.h"
#include "ref.h"
#include "session-private.h"

#include <zkr/node-cache.h>

/* ---- the hub ------------------------------------------------------- */

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
        g_set_error (error, ZKR_ERROR, ZKR_ERROR_CANCELLED, "cache of \"%s\" closed", what);
      else if (hub->session_closed)
        g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                     "cache of \"%s\": the session is closed", what);
      else if (g_cancellable_is_cancelled (cancellable))
        g_set_error (error, ZKR_ERROR, ZKR_ERROR_CANCELLED,
                     "wait for the cache of \"%s\" cancelled", what);
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

/* ---- the node cache ------------------------------------------------ */

struct _ZkrNodeCache {
  gatomicrefcount ref;
  ZkrSession *session;     /* (owned) */
  char *path;
  GMutex lock;
  ZkrCacheEngine *engine;  /* (owned) (nullable) protected by lock: NULL once closed */
  gboolean started;        /* protected by lock */
  ZkrCacheHub *hub;        /* (owned) */
};

static const char *const event_names[] = {
  "CREATED", "CHANGED", "DELETED", "INITIALIZED",
  "CONNECTION_SUSPENDED", "CONNECTION_RECONNECTED", "CONNECTION_LOST",
};

const char *
zkr_node_cache_event_type_name (ZkrNodeCacheEventType type)
{
  if ((guint) type < G_N_ELEMENTS (event_names))
    return event_names[type];
  return "UNKNOWN";
}

static gpointer
node_cache_try_ref (gpointer data)
{
  ZkrNodeCache *cache = data;

  return zkr__ref_try (&cache->ref) ? cache : NULL;
}

/* The tree cache's types, in the same order, under the node cache's names. */
G_STATIC_ASSERT ((int) ZKR_NODE_CACHE_CREATED == (int) ZKR_TREE_CACHE_NODE_ADDED);
G_STATIC_ASSERT ((int) ZKR_NODE_CACHE_DELETED == (int) ZKR_TREE_CACHE_NODE_REMOVED);
G_STATIC_ASSERT ((int) ZKR_NODE_CACHE_CONNECTION_LOST == (int) ZKR_TREE_CACHE_CONNECTION_LOST);

static void
node_cache_marshal (GCallback func, gpointer source, const ZkrTreeCacheEvent *event,
                    gpointer user_data)
{
  ZkrNodeCacheEvent mine = { .type = (ZkrNodeCacheEventType) event->type };

  if (event->path != NULL)
    {
      mine.data = event->data;
      mine.stat = event->stat;
    }
  ((ZkrNodeCacheFunc) func) (source, &mine, user_data);
}

static void
node_cache_hook (const ZkrTreeCacheEvent *event, gpointer user_data)
{
  zkr__cache_hub_emit (((ZkrNodeCache *) user_data)->hub, event);
}

ZkrNodeCache *
zkr_node_cache_new (ZkrSession *session, const char *path, GError **error)
{
  ZkrNodeCache *cache;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  if (!zkr__path_validate (path, error))
    return NULL;
  cache = g_new0 (ZkrNodeCache, 1);
  g_atomic_ref_count_init (&cache->ref);
  g_mutex_init (&cache->lock);
  cache->session = zkr_session_ref (session);
  cache->path = g_strdup (path);
  cache->hub = zkr__cache_hub_new (cache, node_cache_try_ref,
                                   (void (*) (gpointer)) zkr_node_cache_unref, node_cache_marshal);
  cache->engine = zkr__cache_engine_new (session, path, 0, node_cache_hook, cache);
  return cache;
}

ZkrNodeCache *
zkr_node_cache_ref (ZkrNodeCache *cache)
{
  g_return_val_if_fail (cache != NULL, NULL);
  g_atomic_ref_count_inc (&cache->ref);
  return cache;
}

void
zkr_node_cache_unref (ZkrNodeCache *cache)
{
  g_return_if_fail (cache != NULL);
  if (!g_atomic_ref_count_dec (&cache->ref))
    return;
  zkr_node_cache_close (cache);
  zkr__cache_hub_free (cache->hub);
  zkr_session_unref (cache->session);
  g_mutex_clear (&cache->lock);
  g_free (cache->path);
  g_free (cache);
}

gboolean
zkr_node_cache_start (ZkrNodeCache *cache, GError **error)
{
  gboolean ok = FALSE;

  g_return_val_if_fail (cache != NULL, FALSE);
  if (zkr_session_get_state (cache->session) == ZKR_SESSION_STATE_CLOSED)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                   "node cache of \"%s\": the session is closed", cache->path);
      return FALSE;
    }
  g_mutex_lock (&cache->lock);
  if (cache->engine != NULL && !cache->started)
    {
      cache->started = ok = TRUE;
      zkr__cache_engine_start (cache->engine);
    }
  g_mutex_unlock (&cache->lock);
  if (!ok)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                 "node cache of \"%s\" was started or closed before", cache->path);
  return ok;
}

gboolean
zkr_node_cache_wait_initialized (ZkrNodeCache *cache, int timeout_ms, GCancellable *cancellable,
                                 GError **error)
{
  gboolean started;

  g_return_val_if_fail (cache != NULL, FALSE);
  g_mutex_lock (&cache->lock);
  started = cache->started;
  g_mutex_unlock (&cache->lock);
  if (!started)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "node cache of \"%s\" is not started", cache->path);
      return FALSE;
    }
  return zkr__cache_hub_wait_initialized (cache->hub, cache->path, timeout_ms, cancellable, error);
}

void
zkr_node_cache_close (ZkrNodeCache *cache)
{
  ZkrCacheEngine *engine;

  g_return_if_fail (cache != NULL);
  g_mutex_lock (&cache->lock);
  engine = g_steal_pointer (&cache->engine);
  g_mutex_unlock (&cache->lock);
  zkr__cache_hub_close (cache->hub);
  if (engine != NULL)
    zkr__cache_engine_stop (engine);
}

guint
zkr_node_cache_add_listener (ZkrNodeCache *cache, ZkrNodeCacheFunc func, gpointer user_data,
                             GDestroyNotify destroy)
{
  g_return_val_if_fail (cache != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__cache_hub_add (cache->hub, G_CALLBACK (func), user_data, destroy);
}

void
zkr_node_cache_remove_listener (ZkrNodeCache *cache, guint id)
{
  g_return_if_fail (cache != NULL);
  zkr__cache_hub_remove (cache->hub, id);
}

GBytes *
zkr_node_cache_get_data (ZkrNodeCache *cache, ZkrStat *stat)
{
  GBytes *data = NULL;

  g_return_val_if_fail (cache != NULL, NULL);
  g_mutex_lock (&cache->lock);
  if (cache->engine != NULL)
    data = zkr__cache_engine_get_data (cache->engine, cache->path, stat);
  g_mutex_unlock (&cache->lock);
  return data;
}
