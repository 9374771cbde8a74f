/* zkr: the shared count, Curator's SharedCount layout (4 bytes, big-endian):
 * the object, a watched read on the worker that keeps the value fresh, and
 * the listeners it feeds. The writes: shared-count-calls.c. */
#include "context.h"
#include "counter-private.h"
#include "log.h"
#include "node-private.h"
#include "ops.h"
#include "path.h"
#include "ref.h"

#include <string.h>

#include <zkr/error.h>


typedef struct {
  gatomicrefcount ref;
  guint id;
  ZkrSharedCountFunc func;
  gpointer user_data;
  GDestroyNotify destroy;
  GMainContext *context;       /* (owned) */
  gboolean removed;            /* under the count's lock */
} Listener;


ZkrCountCore *
zkr__shared_count_core_ref (ZkrCountCore *core)
{
  g_atomic_ref_count_inc (&core->ref);
  return core;
}

void
zkr__shared_count_core_unref (ZkrCountCore *core)
{
  if (!g_atomic_ref_count_dec (&core->ref))
    return;
  g_ptr_array_unref (core->listeners);
  g_mutex_clear (&core->lock);
  zkr_session_unref (core->session);
  g_free (core->full_path);
  g_free (core->path);
  g_free (core);
}

/* ==== the value ======================================================== */

gboolean
zkr__shared_count_decode (GBytes *data, const char *path, gint *value, GError **error)
{
  gsize len = 0;
  const void *bytes = data != NULL ? g_bytes_get_data (data, &len) : NULL;
  guint32 big_endian;

  if (len != 4)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "shared count node %s holds %" G_GSIZE_FORMAT " bytes, not a 4-byte "
                   "big-endian int (Curator's SharedCount)", path, len);
      return FALSE;
    }
  memcpy (&big_endian, bytes, 4);
  *value = (gint) (gint32) GUINT32_FROM_BE (big_endian);
  return TRUE;
}

void
zkr__shared_count_encode (gint value, guint8 out[4])
{
  guint32 big_endian = GUINT32_TO_BE ((guint32) value);

  memcpy (out, &big_endian, 4);
}

/* Keeps the newest reading only: readings and our own writes may come in
 * any order (Curator's updateValue). A version alone orders nothing once
 * the node is deleted and created again (the new node starts over at 0,
 * and a count that compared versions kept the old value for good); the
 * zxid of the change does, across lives and past a version's wrap
 * (CURATOR-688). Returns TRUE if it moved. */
gboolean
zkr__shared_count_update (ZkrCountCore *count, gint value, const ZkrStat *stat)
{
  gboolean moved;

  g_mutex_lock (&count->lock);
  moved = stat->mzxid > count->mzxid;
  if (moved)
    {
      if (count->czxid != 0 && stat->czxid != count->czxid)
        zkr__debug ("shared count %s: its node was created again (czxid 0x%" G_GINT64_MODIFIER
                    "x, was 0x%" G_GINT64_MODIFIER "x): following the new node",
                    count->path, stat->czxid, count->czxid);
      count->value = value;
      count->version = stat->version;
      count->czxid = stat->czxid;
      count->mzxid = stat->mzxid;
    }
  g_mutex_unlock (&count->lock);
  return moved;
}

/* ==== listeners ======================================================== */

static Listener *
listener_ref (Listener *listener)
{
  g_atomic_ref_count_inc (&listener->ref);
  return listener;
}

static void
listener_unref (Listener *listener)
{
  if (!g_atomic_ref_count_dec (&listener->ref))
    return;
  g_main_context_unref (listener->context);
  g_free (listener);
}

static gboolean
listener_destroy_in_context (gpointer data)
{
  Listener *listener = data;

  if (listener->destroy != NULL)
    listener->destroy (listener->user_data);
  return G_SOURCE_REMOVE;
}

typedef struct {
  ZkrSharedCount *count;       /* (owned) */
  Listener *listener;          /* (owned) */
  gint value;
  int version;
  GError *error;               /* (owned) (nullable) */
} Delivery;

static void
delivery_free (gpointer data)
{
  Delivery *delivery = data;

  zkr_shared_count_unref (delivery->count);
  listener_unref (delivery->listener);
  g_clear_error (&delivery->error);
  g_free (delivery);
}

static gboolean
delivery_run (gpointer data)
{
  Delivery *delivery = data;
  gboolean removed;

  g_mutex_lock (&delivery->count->core->lock);
  removed = delivery->listener->removed;
  g_mutex_unlock (&delivery->count->core->lock);
  if (!removed)
    delivery->listener->func (delivery->count, delivery->value, delivery->version,
                              delivery->error, delivery->listener->user_data);
  return G_SOURCE_REMOVE;
}

/* Any thread: queues one reading (or @error) for every listener. */
static void
count_emit (ZkrCountCore *count, const GError *error)
{
  g_autoptr (GPtrArray) targets = g_ptr_array_new_with_free_func ((GDestroyNotify) listener_unref);
  gint value;
  int version;

  g_mutex_lock (&count->lock);
  value = count->value;
  version = count->version;
  for (guint i = 0; i < count->listeners->len; i++)
    g_ptr_array_add (targets, listener_ref (g_ptr_array_index (count->listeners, i)));
  g_mutex_unlock (&count->lock);
  for (guint i = 0; i < targets->len; i++)
    {
      Delivery *delivery;

      ZkrSharedCount *owner;

      /* A count being finalized tells nobody (its finalizer clears
       * owner under the lock before freeing it). */
      g_mutex_lock (&count->lock);
      owner = count->owner != NULL && zkr__ref_try (&count->owner->ref) ? count->owner : NULL;
      g_mutex_unlock (&count->lock);
      if (owner == NULL)
        return;
      delivery = g_new0 (Delivery, 1);
      delivery->count = owner;
      delivery->listener = listener_ref (g_ptr_array_index (targets, i));
      delivery->value = value;
      delivery->version = version;
      delivery->error = error != NULL ? g_error_copy (error) : NULL;
      zkr__context_post (delivery->listener->context, delivery_run, delivery, delivery_free);
    }
}

guint
zkr_shared_count_add_listener (ZkrSharedCount *shared, ZkrSharedCountFunc func,
                               gpointer user_data, GDestroyNotify destroy)
{
  Listener *listener;
  ZkrCountCore *count;

  g_return_val_if_fail (shared != NULL, 0);
  count = shared->core;
  g_return_val_if_fail (func != NULL, 0);
  listener = g_new0 (Listener, 1);
  g_atomic_ref_count_init (&listener->ref);
  listener->func = func;
  listener->user_data = user_data;
  listener->destroy = destroy;
  listener->context = g_main_context_ref_thread_default ();
  g_mutex_lock (&count->lock);
  listener->id = ++count->next_listener_id;
  g_ptr_array_add (count->listeners, listener);
  g_mutex_unlock (&count->lock);
  return listener->id;
}

static void
listener_remove_locked (ZkrCountCore *count, guint index)
{
  Listener *listener = g_ptr_array_index (count->listeners, index);

  listener->removed = TRUE;
  g_ptr_array_remove_index (count->listeners, index);
  zkr__context_post (listener->context, listener_destroy_in_context, listener,
                     (GDestroyNotify) listener_unref);
}

void
zkr_shared_count_remove_listener (ZkrSharedCount *shared, guint listener_id)
{
  ZkrCountCore *count;

  g_return_if_fail (shared != NULL);
  count = shared->core;
  g_mutex_lock (&count->lock);
  for (guint i = 0; i < count->listeners->len; i++)
    if (((Listener *) g_ptr_array_index (count->listeners, i))->id == listener_id)
      {
        listener_remove_locked (count, i);
        break;
      }
  g_mutex_unlock (&count->lock);
}

/* ==== the watch, on the worker ======================================== */

static gboolean
count_active (ZkrCountCore *count)
{
  gboolean active;

  g_mutex_lock (&count->lock);
  active = count->started && !count->stopped;
  g_mutex_unlock (&count->lock);
  return active;
}

static void count_arm (ZkrCountCore *count);

static void
count_set_current (ZkrCountCore *count, gboolean current)
{
  g_mutex_lock (&count->lock);
  count->current = current;
  g_mutex_unlock (&count->lock);
}

gboolean
zkr__shared_count_is_current (ZkrCountCore *count)
{
  gboolean current;

  g_mutex_lock (&count->lock);
  current = count->current;
  g_mutex_unlock (&count->lock);
  return current;
}

static void
count_watch_fired (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  ZkrCountCore *count = user_data;

  (void) session;
  (void) event_type;
  (void) path;
  count->watch_id = 0;
  /* Changed, or gone: until the read again answers, the value may be of
   * a node deleted since. */
  count_set_current (count, FALSE);
  if (count_active (count))
    count_arm (count);
}

static void
count_exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrCountCore *count = user_data;

  (void) session;
  /* Created meanwhile: the exists watch is left anyway; read it now. */
  if (reply->rc == ZOK && count_active (count))
    count_arm (count);
  zkr__shared_count_core_unref (count);
}

static void
count_read_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrCountCore *count = user_data;
  g_autoptr (GError) error = NULL;
  gint value = 0;

  if (!count_active (count))
    ;
  else if (reply->rc == ZOK && zkr__shared_count_decode (reply->data, count->path, &value, &error))
    {
      ZkrStat stat = { 0 };

      zkr__node_stat_copy (&stat, &reply->stat);
      /* Replies and events come in order on the worker: an event after
       * this read clears it again. */
      count_set_current (count, count->watch_id != 0);
      if (zkr__shared_count_update (count, value, &stat))
        count_emit (count, NULL);
    }
  else if (reply->rc == ZOK)
    {
      count_set_current (count, FALSE);
      count_emit (count, error);
    }
  else if (reply->rc == ZNONODE)
    {
      count_set_current (count, FALSE);
      /* Gone: tell, and watch for its return. */
      error = g_error_new (ZKR_ERROR, ZKR_ERROR_NO_NODE, "shared count node %s is gone",
                           count->path);
      count_emit (count, error);
      zkr__op_exists (session, count->full_path, TRUE, count_exists_reply,
                      zkr__shared_count_core_ref (count));
    }
  /* Other failures: the session's reconnect re-arms (zkr__shared_count_state). */
  zkr__shared_count_core_unref (count);
}

static void
count_arm (ZkrCountCore *count)
{
  if (count->watch_id != 0)
    zkr__session_watch_remove (count->session, count->watch_id);
  count->watch_id = zkr__session_watch_add_full (count->session, count->full_path, 0,
                                                 count_watch_fired,
                                                 zkr__shared_count_core_ref (count),
                                                 (GDestroyNotify) zkr__shared_count_core_unref);
  zkr__op_get (count->session, count->full_path, TRUE, count_read_reply,
               zkr__shared_count_core_ref (count));
}

gboolean
zkr__shared_count_arm_in_worker (gpointer data)
{
  ZkrCountCore *count = data;

  if (count_active (count))
    count_arm (count);
  return G_SOURCE_REMOVE;
}

static gboolean
count_disarm_in_worker (gpointer data)
{
  ZkrCountCore *count = data;

  if (count->watch_id != 0)
    zkr__session_watch_remove (count->session, count->watch_id);
  count->watch_id = 0;
  return G_SOURCE_REMOVE;
}

/* Worker: CURATOR-311's fix, read again after a reconnection (and after a
 * fresh session, whose watches the old one took along). */
void
zkr__shared_count_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ZkrCountCore *count = user_data;

  (void) session;
  /* Disconnected, the watch tells nothing; after a fresh session the node
   * may be another one. Current again once the read again answers. */
  count_set_current (count, FALSE);
  if ((state == ZKR_SESSION_STATE_RECONNECTED || state == ZKR_SESSION_STATE_CONNECTED) &&
      count_active (count))
    count_arm (count);
}

/* ==== the object ====================================================== */

ZkrSharedCount *
zkr_shared_count_new (ZkrSession *session, const char *path, gint seed, GError **error)
{
  ZkrSharedCount *shared;
  ZkrCountCore *count;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  if (!zkr__path_validate (path, error))
    return NULL;
  count = g_new0 (ZkrCountCore, 1);
  g_atomic_ref_count_init (&count->ref);
  count->session = zkr_session_ref (session);
  count->path = g_strdup (path);
  count->full_path = zkr__session_resolve_path (session, path);
  count->seed = seed;
  count->value = seed;
  count->version = -1;
  g_mutex_init (&count->lock);
  count->listeners = g_ptr_array_new ();
  shared = g_new0 (ZkrSharedCount, 1);
  g_atomic_ref_count_init (&shared->ref);
  shared->core = count;
  count->owner = shared;
  return shared;
}

ZkrSharedCount *
zkr_shared_count_ref (ZkrSharedCount *shared)
{
  g_return_val_if_fail (shared != NULL, NULL);
  g_atomic_ref_count_inc (&shared->ref);
  return shared;
}

void
zkr_shared_count_unref (ZkrSharedCount *shared)
{
  ZkrCountCore *count;

  g_return_if_fail (shared != NULL);
  if (!g_atomic_ref_count_dec (&shared->ref))
    return;
  count = shared->core;
  g_mutex_lock (&count->lock);
  count->owner = NULL;
  count->stopped = TRUE;
  while (count->listeners->len > 0)
    listener_remove_locked (count, count->listeners->len - 1);
  g_mutex_unlock (&count->lock);
  if (count->state_listener_id != 0)
    zkr__session_remove_internal_listener (count->session, count->state_listener_id);
  /* The watch goes on the worker, which owns its id. */
  zkr__session_post (count->session, count_disarm_in_worker, zkr__shared_count_core_ref (count),
                     (GDestroyNotify) zkr__shared_count_core_unref);
  zkr__shared_count_core_unref (count);
  g_free (shared);
}

gint
zkr_shared_count_get_count (ZkrSharedCount *shared)
{
  gint value = 0;

  zkr_shared_count_get_versioned (shared, &value, NULL);
  return value;
}

void
zkr_shared_count_get_value (ZkrSharedCount *shared, ZkrSharedCountValue *value)
{
  ZkrCountCore *count;

  g_return_if_fail (shared != NULL);
  g_return_if_fail (value != NULL);
  count = shared->core;
  g_mutex_lock (&count->lock);
  value->value = count->value;
  value->version = count->version;
  value->czxid = count->czxid;
  value->mzxid = count->mzxid;
  g_mutex_unlock (&count->lock);
}

void
zkr_shared_count_get_versioned (ZkrSharedCount *shared, gint *value, int *version)
{
  ZkrCountCore *count;

  g_return_if_fail (shared != NULL);
  count = shared->core;
  g_mutex_lock (&count->lock);
  if (value != NULL)
    *value = count->value;
  if (version != NULL)
    *version = count->version;
  g_mutex_unlock (&count->lock);
}
