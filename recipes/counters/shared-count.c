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
  zkr__notifier_free (core->listeners);
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

/* One reading (or an error), shared by its deliveries. */
typedef struct {
  gint value;
  int version;
  GError *error;               /* (owned) (nullable) */
} Reading;

static void
reading_free (gpointer data)
{
  Reading *reading = data;

  g_clear_error (&reading->error);
  g_free (reading);
}

static void
reading_marshal (GCallback func, gpointer source, gpointer event, gpointer user_data)
{
  Reading *reading = event;

  ((ZkrSharedCountFunc) func) (source, reading->value, reading->version, reading->error,
                               user_data);
}

/* The notifier's source: the public object while it lives. A count
 * being finalized tells nobody (its finalizer clears owner under the lock
 * before freeing it). */
static gpointer
count_try_owner (gpointer data)
{
  ZkrCountCore *count = data;
  ZkrSharedCount *owner;

  g_mutex_lock (&count->lock);
  owner = count->owner != NULL && zkr__ref_try (&count->owner->ref) ? count->owner : NULL;
  g_mutex_unlock (&count->lock);
  return owner;
}

static void
count_owner_unref (gpointer data)
{
  zkr_shared_count_unref (data);
}

/* Any thread, without the count's lock (the notifier takes it through
 * count_try_owner): queues one reading (or @error) for every listener. */
static void
count_emit (ZkrCountCore *count, const GError *error)
{
  Reading *reading = g_new0 (Reading, 1);

  g_mutex_lock (&count->lock);
  reading->value = count->value;
  reading->version = count->version;
  g_mutex_unlock (&count->lock);
  reading->error = error != NULL ? g_error_copy (error) : NULL;
  zkr__notifier_emit_boxed (count->listeners, reading);
}

guint
zkr_shared_count_add_listener (ZkrSharedCount *shared, ZkrSharedCountFunc func,
                               gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (shared != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__notifier_add (shared->core->listeners, G_CALLBACK (func), user_data, destroy);
}

void
zkr_shared_count_remove_listener (ZkrSharedCount *shared, guint listener_id)
{
  g_return_if_fail (shared != NULL);
  zkr__notifier_remove (shared->core->listeners, listener_id);
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

      zkr__node_result_stat_copy (&stat, &reply->stat);
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
    zkr__watches_remove (count->session, count->watch_id);
  count->watch_id = zkr__watches_add_full (count->session, count->full_path, 0,
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
    zkr__watches_remove (count->session, count->watch_id);
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
  count->listeners = zkr__notifier_new_boxed (count, count_try_owner, count_owner_unref,
                                              reading_marshal, reading_free);
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
  g_mutex_unlock (&count->lock);
  /* Not under the count's lock: the notifier takes it. */
  zkr__notifier_remove_all (count->listeners);
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
