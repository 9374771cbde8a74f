/* zkr: what a ZkrTreeCache and a ZkrNodeCache are, shared: the reference
 * count, the engine (cache-engine.c) and the hub (cache-hub.c) behind one
 * lock, and the calls both public objects make on them (start, wait,
 * close, reads from memory). tree-cache.c and node-cache.c add their
 * names and their events' shape. */

#include "cache-private.h"
#include "ref.h"

#include <zkr/error.h>

/* The engine's hook: queue the event for the listeners. */
static void
object_hook (const ZkrTreeCacheEvent *event, gpointer user_data)
{
  zkr__cache_hub_emit (((ZkrCacheObject *) user_data)->hub, event);
}

/* The hub's hold on its source (the public object, whose first member is
 * the ZkrCacheObject) for a delivery: none once it is being finalized. */
static gpointer
object_try_ref (gpointer data)
{
  ZkrCacheObject *object = data;

  return zkr__ref_try (&object->ref) ? object : NULL;
}

/* Drops one hold (the users' or a delivery's); the last frees the object
 * and the public struct around it. */
static void
object_release (gpointer data)
{
  ZkrCacheObject *object = data;

  if (!g_atomic_ref_count_dec (&object->ref))
    return;
  zkr__cache_object_close (object);
  zkr__cache_hub_free (object->hub);
  zkr_session_unref (object->session);
  g_mutex_clear (&object->lock);
  g_free (object->path);
  g_free (object);
}

void
zkr__cache_object_init (ZkrCacheObject *object, const char *kind, ZkrSession *session,
                        const char *path, int max_depth, ZkrCacheMarshal marshal)
{
  g_atomic_ref_count_init (&object->ref);
  object->user_refs = 1;
  g_mutex_init (&object->lock);
  object->kind = kind;
  object->session = zkr_session_ref (session);
  object->path = g_strdup (path);
  object->hub = zkr__cache_hub_new (object, object_try_ref, object_release, marshal);
  object->engine = zkr__cache_engine_new (session, path, max_depth, object_hook, object);
}

void
zkr__cache_object_ref (ZkrCacheObject *object)
{
  g_atomic_int_inc (&object->user_refs);
}

void
zkr__cache_object_unref (ZkrCacheObject *object)
{
  if (!g_atomic_int_dec_and_test (&object->user_refs))
    return;
  /* Closed now, not when the deliveries still queued have run: they hold
   * the memory, not the cache, and find it closed. */
  zkr__cache_object_close (object);
  object_release (object);
}

gboolean
zkr__cache_object_start (ZkrCacheObject *object, GError **error)
{
  gboolean ok = FALSE;

  if (zkr_session_get_state (object->session) == ZKR_SESSION_STATE_CLOSED)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED, "%s of \"%s\": the session is closed",
                   object->kind, object->path);
      return FALSE;
    }
  g_mutex_lock (&object->lock);
  if (object->engine != NULL && !object->started)
    {
      object->started = ok = TRUE;
      zkr__cache_engine_start (object->engine);
    }
  g_mutex_unlock (&object->lock);
  if (!ok)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                 "%s of \"%s\" was started or closed before", object->kind, object->path);
  return ok;
}

gboolean
zkr__cache_object_wait_initialized (ZkrCacheObject *object, int timeout_ms,
                                    GCancellable *cancellable, GError **error)
{
  gboolean started;

  g_mutex_lock (&object->lock);
  started = object->started;
  g_mutex_unlock (&object->lock);
  if (!started)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "%s of \"%s\" is not started",
                   object->kind, object->path);
      return FALSE;
    }
  return zkr__cache_hub_wait_initialized (object->hub, object->path, timeout_ms, cancellable,
                                          error);
}

void
zkr__cache_object_close (ZkrCacheObject *object)
{
  ZkrCacheEngine *engine;

  g_mutex_lock (&object->lock);
  engine = g_steal_pointer (&object->engine);
  g_mutex_unlock (&object->lock);
  zkr__cache_hub_close (object->hub);
  if (engine != NULL)
    zkr__cache_engine_stop (engine);
}

GBytes *
zkr__cache_object_get_data (ZkrCacheObject *object, const char *path, ZkrStat *stat)
{
  GBytes *data = NULL;

  g_mutex_lock (&object->lock);
  if (object->engine != NULL)
    data = zkr__cache_engine_get_data (object->engine, path, stat);
  g_mutex_unlock (&object->lock);
  return data;
}

char **
zkr__cache_object_get_children (ZkrCacheObject *object, const char *path)
{
  char **names = NULL;

  g_mutex_lock (&object->lock);
  if (object->engine != NULL)
    names = zkr__cache_engine_get_children (object->engine, path);
  g_mutex_unlock (&object->lock);
  return names;
}

guint
zkr__cache_object_count (ZkrCacheObject *object)
{
  guint count = 0;

  g_mutex_lock (&object->lock);
  if (object->engine != NULL)
    count = zkr__cache_engine_count (object->engine);
  g_mutex_unlock (&object->lock);
  return count;
}
