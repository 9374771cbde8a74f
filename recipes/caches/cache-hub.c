/* zkr: the caches' hub: hands each engine event to every listener in its
 * own GMainContext through the library's notifier (core/notifier.h),
 * keeping the cache alive meanwhile, and answers the wait for the first
 * full read. */

#include "cache-private.h"
#include "error-private.h"
#include "notifier.h"

struct _ZkrCacheHub {
  GMutex lock;
  GCond cond;
  gboolean closed;
  gboolean initialized;
  gboolean session_closed;
  ZkrNotifier *listeners;  /* (owned) */
};

/* One event, shared by its deliveries (the notifier frees it after the
 * last). */
static void
hub_event_free (gpointer data)
{
  ZkrTreeCacheEvent *event = data;

  g_free ((char *) event->path);
  g_clear_pointer (&event->data, g_bytes_unref);
  g_free (event);
}

static ZkrTreeCacheEvent *
hub_event_new (const ZkrTreeCacheEvent *event)
{
  ZkrTreeCacheEvent *copy = g_new (ZkrTreeCacheEvent, 1);

  *copy = *event;
  copy->path = g_strdup (event->path);
  if (event->data != NULL)
    copy->data = g_bytes_ref (event->data);
  return copy;
}

ZkrCacheHub *
zkr__cache_hub_new (gpointer source, gpointer (*source_ref) (gpointer),
                    void (*source_unref) (gpointer), ZkrCacheMarshal marshal)
{
  ZkrCacheHub *hub = g_new0 (ZkrCacheHub, 1);

  g_mutex_init (&hub->lock);
  g_cond_init (&hub->cond);
  /* A delivery keeps the source alive, and through it the hub. */
  hub->listeners = zkr__notifier_new_boxed (source, source_ref, source_unref,
                                            marshal, hub_event_free);
  zkr__notifier_set_user_only (hub->listeners, "a cache listener");
  return hub;
}

void
zkr__cache_hub_free (ZkrCacheHub *hub)
{
  zkr__notifier_free (hub->listeners);
  g_mutex_clear (&hub->lock);
  g_cond_clear (&hub->cond);
  g_free (hub);
}

guint
zkr__cache_hub_add (ZkrCacheHub *hub, GCallback func, gpointer user_data, GDestroyNotify destroy)
{
  return zkr__notifier_add (hub->listeners, func, user_data, destroy);
}

void
zkr__cache_hub_remove (ZkrCacheHub *hub, guint id)
{
  zkr__notifier_remove (hub->listeners, id);
}

void
zkr__cache_hub_emit (ZkrCacheHub *hub, const ZkrTreeCacheEvent *event)
{
  g_mutex_lock (&hub->lock);
  if (event->type == ZKR_TREE_CACHE_INITIALIZED)
    hub->initialized = TRUE;
  if ((int) event->type == ZKR_CACHE_EVENT_SESSION_CLOSED)
    hub->session_closed = TRUE;
  g_cond_broadcast (&hub->cond);
  g_mutex_unlock (&hub->lock);
  /* The session's close only ends the wait: no listener hears it. */
  if ((int) event->type != ZKR_CACHE_EVENT_SESSION_CLOSED)
    zkr__notifier_emit_boxed (hub->listeners, hub_event_new (event));
}

void
zkr__cache_hub_close (ZkrCacheHub *hub)
{
  g_mutex_lock (&hub->lock);
  hub->closed = TRUE;
  g_cond_broadcast (&hub->cond);
  g_mutex_unlock (&hub->lock);
  zkr__notifier_close (hub->listeners);
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
