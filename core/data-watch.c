/* zkr: the data watch (core/nodes.h): a node's data read again at every
 * change, a node deleted and created again followed; started and stopped
 * from any thread but the worker. */

#include "nodes.h"

struct _ZkrDataWatch {
  gatomicrefcount ref;
  GMutex mutex;
  gboolean active;          /* protected by mutex: @func may be called */
  ZkrSession *session;      /* (owned) */
  char *path;
  ZkrDataFunc func;
  gpointer user_data;
  guint watch_id;           /* worker only */
};

static ZkrDataWatch *
data_watch_ref (ZkrDataWatch *watch)
{
  g_atomic_ref_count_inc (&watch->ref);
  return watch;
}

static void
data_watch_unref (ZkrDataWatch *watch)
{
  if (!g_atomic_ref_count_dec (&watch->ref))
    return;
  zkr_session_unref (watch->session);
  g_free (watch->path);
  g_mutex_clear (&watch->mutex);
  g_free (watch);
}

static gboolean
data_watch_active (ZkrDataWatch *watch)
{
  gboolean active;

  g_mutex_lock (&watch->mutex);
  active = watch->active;
  g_mutex_unlock (&watch->mutex);
  return active;
}

static void data_watch_arm (ZkrDataWatch *watch);

/* The node was missing at the read: the exists watch tells its return. */
static void
data_watch_exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrDataWatch *watch = user_data;

  (void) session;
  /* Created again meanwhile: read it now (its event may never come: the
   * exists left a data watch, which only a later change fires). */
  if (reply->rc == ZOK && data_watch_active (watch))
    {
      if (watch->watch_id != 0)
        {
          zkr__watches_remove (watch->session, watch->watch_id);
          watch->watch_id = 0;
          data_watch_unref (watch); /* the watch's own reference */
        }
      data_watch_arm (watch);
    }
  data_watch_unref (watch);
}

static void
data_watch_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrDataWatch *watch = user_data;

  /* A read of a missing node leaves no watch on the server: without an
   * exists watch, a node deleted and created again would never be read
   * (a semaphore's waiter kept the old count for good). */
  if (reply->rc == ZNONODE && data_watch_active (watch))
    zkr__op_exists (session, watch->path, TRUE, data_watch_exists_reply, data_watch_ref (watch));
  if (reply->rc == ZOK)
    {
      g_autoptr (GBytes) empty = reply->data == NULL ? g_bytes_new (NULL, 0) : NULL;

      /* Under the mutex: a stop waits for this call to end. */
      g_mutex_lock (&watch->mutex);
      if (watch->active)
        watch->func (session, reply->data != NULL ? reply->data : empty, watch->user_data);
      g_mutex_unlock (&watch->mutex);
    }
  data_watch_unref (watch);
}

static void
data_watch_event (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  ZkrDataWatch *watch = user_data;

  (void) session;
  (void) event_type;
  (void) path;
  watch->watch_id = 0;
  if (data_watch_active (watch))
    data_watch_arm (watch);
  data_watch_unref (watch); /* the watch's own reference */
}

static void
data_watch_arm (ZkrDataWatch *watch)
{
  watch->watch_id = zkr__watches_add (watch->session, watch->path, data_watch_event,
                                            data_watch_ref (watch));
  zkr__op_get (watch->session, watch->path, TRUE, data_watch_reply, data_watch_ref (watch));
}

static gboolean
data_watch_start_in_worker (gpointer data)
{
  ZkrDataWatch *watch = data;

  if (data_watch_active (watch))
    data_watch_arm (watch);
  data_watch_unref (watch);
  return G_SOURCE_REMOVE;
}

static gboolean
data_watch_stop_in_worker (gpointer data)
{
  ZkrDataWatch *watch = data;

  if (watch->watch_id != 0)
    {
      zkr__watches_remove (watch->session, watch->watch_id);
      watch->watch_id = 0;
      data_watch_unref (watch); /* the watch's own reference */
    }
  data_watch_unref (watch);
  return G_SOURCE_REMOVE;
}

ZkrDataWatch *
zkr__data_watch_start (ZkrSession *session, const char *path, ZkrDataFunc func,
                       gpointer user_data)
{
  ZkrDataWatch *watch = g_new0 (ZkrDataWatch, 1);

  g_atomic_ref_count_init (&watch->ref);
  g_mutex_init (&watch->mutex);
  watch->active = TRUE;
  watch->session = zkr_session_ref (session);
  watch->path = g_strdup (path);
  watch->func = func;
  watch->user_data = user_data;
  zkr__session_post (session, data_watch_start_in_worker, data_watch_ref (watch), NULL);
  return watch;
}

void
zkr__data_watch_stop (ZkrDataWatch *watch)
{
  if (watch == NULL)
    return;
  g_mutex_lock (&watch->mutex);
  watch->active = FALSE;
  g_mutex_unlock (&watch->mutex);
  zkr__session_post (watch->session, data_watch_stop_in_worker, watch, NULL);
}
