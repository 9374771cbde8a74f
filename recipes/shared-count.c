/* zkr: the shared count, Curator's SharedCount layout (4 bytes, big-endian):
 * public node calls for start and the writes, in the caller's context; a
 * watched read on the worker keeps the value fresh and feeds listeners. */
#include "context.h"
#include "ops.h"
#include "path.h"
#include "ref.h"
#include "session-private.h"

#include <string.h>

#include <zkr/error.h>
#include <zkr/node.h>
#include <zkr/shared-count.h>

typedef struct {
  gatomicrefcount ref;
  guint id;
  ZkrSharedCountFunc func;
  gpointer user_data;
  GDestroyNotify destroy;
  GMainContext *context;       /* (owned) */
  gboolean removed;            /* under the count's lock */
} Listener;

/* What the worker, the deliveries and the calls under way share; it
 * outlives the public object while they hold it. */
typedef struct {
  gatomicrefcount ref;
  ZkrSharedCount *owner;       /* under lock; NULL once the last unref came */
  ZkrSession *session;         /* (owned) */
  char *path;
  char *full_path;
  gint seed;
  GMutex lock;                 /* guards what follows */
  gint value;
  int version;
  gboolean started;
  gboolean stopped;            /* the last unref came: nothing more is armed */
  GPtrArray *listeners;        /* (element-type Listener) */
  guint next_listener_id;
  guint state_listener_id;
  guint watch_id;              /* worker only */
} Core;

struct _ZkrSharedCount {
  gatomicrefcount ref;
  Core *core;                  /* (owned) */
};

static Core *
core_ref (Core *core)
{
  g_atomic_ref_count_inc (&core->ref);
  return core;
}

static void
core_unref (Core *core)
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

static gboolean
decode (GBytes *data, const char *path, gint *value, GError **error)
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

static void
encode (gint value, guint8 out[4])
{
  guint32 big_endian = GUINT32_TO_BE ((guint32) value);

  memcpy (out, &big_endian, 4);
}

/* Keeps the newest version only: readings and our own writes may come in
 * any order (Curator's updateValue). Returns TRUE if it moved. */
static gboolean
count_update (Core *count, gint value, int version)
{
  gboolean moved;

  g_mutex_lock (&count->lock);
  moved = version > count->version;
  if (moved)
    {
      count->value = value;
      count->version = version;
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
count_emit (Core *count, const GError *error)
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
  Core *count;

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
listener_remove_locked (Core *count, guint index)
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
  Core *count;

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
count_active (Core *count)
{
  gboolean active;

  g_mutex_lock (&count->lock);
  active = count->started && !count->stopped;
  g_mutex_unlock (&count->lock);
  return active;
}

static void count_arm (Core *count);

static void
count_watch_fired (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  Core *count = user_data;

  (void) session;
  (void) event_type;
  (void) path;
  count->watch_id = 0;
  if (count_active (count))
    count_arm (count);
}

static void
count_exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Core *count = user_data;

  (void) session;
  /* Created meanwhile: the exists watch is left anyway; read it now. */
  if (reply->rc == ZOK && count_active (count))
    count_arm (count);
  core_unref (count);
}

static void
count_read_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Core *count = user_data;
  g_autoptr (GError) error = NULL;
  gint value = 0;

  if (!count_active (count))
    ;
  else if (reply->rc == ZOK && decode (reply->data, count->path, &value, &error))
    {
      if (count_update (count, value, reply->has_stat ? reply->stat.version : 0))
        count_emit (count, NULL);
    }
  else if (reply->rc == ZOK)
    count_emit (count, error);
  else if (reply->rc == ZNONODE)
    {
      /* Gone: tell, and watch for its return. */
      error = g_error_new (ZKR_ERROR, ZKR_ERROR_NO_NODE, "shared count node %s is gone",
                           count->path);
      count_emit (count, error);
      zkr__op_exists (session, count->full_path, TRUE, count_exists_reply,
                      core_ref (count));
    }
  /* Other failures: the session's reconnect re-arms (count_state). */
  core_unref (count);
}

static void
count_arm (Core *count)
{
  if (count->watch_id != 0)
    zkr__session_watch_remove (count->session, count->watch_id);
  count->watch_id = zkr__session_watch_add_full (count->session, count->full_path, 0,
                                                 count_watch_fired,
                                                 core_ref (count),
                                                 (GDestroyNotify) core_unref);
  zkr__op_get (count->session, count->full_path, TRUE, count_read_reply, core_ref (count));
}

static gboolean
count_arm_in_worker (gpointer data)
{
  Core *count = data;

  if (count_active (count))
    count_arm (count);
  return G_SOURCE_REMOVE;
}

static gboolean
count_disarm_in_worker (gpointer data)
{
  Core *count = data;

  if (count->watch_id != 0)
    zkr__session_watch_remove (count->session, count->watch_id);
  count->watch_id = 0;
  return G_SOURCE_REMOVE;
}

/* Worker: CURATOR-311's fix, read again after a reconnection (and after a
 * fresh session, whose watches the old one took along). */
static void
count_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Core *count = user_data;

  (void) session;
  if ((state == ZKR_SESSION_STATE_RECONNECTED || state == ZKR_SESSION_STATE_CONNECTED) &&
      count_active (count))
    count_arm (count);
}

/* ==== the object ====================================================== */

ZkrSharedCount *
zkr_shared_count_new (ZkrSession *session, const char *path, gint seed, GError **error)
{
  ZkrSharedCount *shared;
  Core *count;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  if (!zkr__path_validate (path, error))
    return NULL;
  count = g_new0 (Core, 1);
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
  Core *count;

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
  zkr__session_post (count->session, count_disarm_in_worker, core_ref (count),
                     (GDestroyNotify) core_unref);
  core_unref (count);
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
zkr_shared_count_get_versioned (ZkrSharedCount *shared, gint *value, int *version)
{
  Core *count;

  g_return_if_fail (shared != NULL);
  count = shared->core;
  g_mutex_lock (&count->lock);
  if (value != NULL)
    *value = count->value;
  if (version != NULL)
    *version = count->version;
  g_mutex_unlock (&count->lock);
}

/* ==== the calls: an operation runs in the caller's context ============ */

typedef enum { CALL_START, CALL_SET, CALL_TRY_SET } CallKind;

typedef struct {
  Core *count;                 /* (owned) */
  GTask *task;                 /* (owned) */
  GMainContext *context;
  GCancellable *cancellable;   /* (nullable) (owned) */
  CallKind kind;
  int timeout_ms;
  gint64 deadline;
  int previous_version;        /* TRY_SET */
  guint8 written[4];
  gboolean lost_reply;          /* TRY_SET: resolving a lost reply */
} Call;

#define CALL_DO(call, what)                                  \
  G_STMT_START {                                             \
    g_main_context_push_thread_default ((call)->context);    \
    what;                                                    \
    g_main_context_pop_thread_default ((call)->context);     \
  } G_STMT_END

static void
call_free (Call *call)
{
  g_clear_object (&call->cancellable);
  g_object_unref (call->task);
  core_unref (call->count);
  g_free (call);
}

static void
call_return (Call *call, gboolean answer, GError *error)
{
  if (error != NULL)
    g_task_return_error (call->task, error);
  else
    g_task_return_boolean (call->task, answer);
  call_free (call);
}

static gboolean
call_time_left (Call *call, int *timeout_ms)
{
  gint64 left = call->deadline - g_get_monotonic_time ();

  *timeout_ms = call->timeout_ms;
  if (call->timeout_ms <= 0)
    return TRUE;
  *timeout_ms = (int) MAX (1, (left + 999) / 1000);
  return left > 0;
}

static GError *
call_timeout_error (Call *call)
{
  return g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT, "shared count %s: timed out after %d ms",
                      call->count->path, call->timeout_ms);
}

static Call *
call_new (ZkrSharedCount *shared, CallKind kind, int timeout_ms, GCancellable *cancellable,
          GAsyncReadyCallback callback, gpointer user_data, gpointer source_tag)
{
  Call *call = g_new0 (Call, 1);

  zkr__assert_user_context ("a shared count call");
  call->count = core_ref (shared->core);
  call->task = g_task_new (NULL, cancellable, callback, user_data);
  /* A cancel is answered ZKR_ERROR_CANCELLED by the calls themselves. */
  g_task_set_check_cancellable (call->task, FALSE);
  g_task_set_source_tag (call->task, source_tag);
  g_task_set_task_data (call->task, shared->core, NULL);
  call->context = g_task_get_context (call->task);
  call->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  call->kind = kind;
  call->timeout_ms = timeout_ms;
  call->deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  return call;
}

static gboolean
call_finish (ZkrSharedCount *shared, GAsyncResult *result, gpointer source_tag,
             gboolean *answer, GError **error)
{
  GError *local = NULL;
  gboolean value;

  g_return_val_if_fail (shared != NULL, FALSE);
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);
  g_return_val_if_fail (g_task_get_task_data (G_TASK (result)) == shared->core, FALSE);
  value = g_task_propagate_boolean (G_TASK (result), &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (answer != NULL)
    *answer = value;
  return TRUE;
}

/* ---- start: create with the seed, read, then watch -------------------- */

static void
start_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  Core *count = call->count;
  GError *error = NULL;
  ZkrStat stat = { 0 };
  g_autoptr (GBytes) data = zkr_node_get_finish (count->session, result, &stat, &error);
  gint value = 0;

  (void) source;
  if (data == NULL || !decode (data, count->path, &value, &error))
    {
      g_mutex_lock (&count->lock);
      count->started = FALSE;
      g_mutex_unlock (&count->lock);
      call_return (call, FALSE, error);
      return;
    }
  count_update (count, value, stat.version);
  count->state_listener_id = zkr__session_add_internal_listener (count->session, count_state,
                                                                 count);
  zkr__session_post (count->session, count_arm_in_worker, core_ref (count),
                     (GDestroyNotify) core_unref);
  call_return (call, TRUE, NULL);
}

static void
start_created (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  GError *error = NULL;
  int timeout_ms = 0;

  (void) source;
  /* Made, there already, or unknown after a lost reply: the read says. */
  if (!zkr_node_create_finish (call->count->session, result, NULL, NULL, &error) &&
      !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NODE_EXISTS) &&
      !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS))
    {
      g_mutex_lock (&call->count->lock);
      call->count->started = FALSE;
      g_mutex_unlock (&call->count->lock);
      call_return (call, FALSE, error);
      return;
    }
  g_clear_error (&error);
  if (!call_time_left (call, &timeout_ms))
    {
      g_mutex_lock (&call->count->lock);
      call->count->started = FALSE;
      g_mutex_unlock (&call->count->lock);
      call_return (call, FALSE, call_timeout_error (call));
      return;
    }
  CALL_DO (call, zkr_node_get_async (call->count->session, call->count->path, timeout_ms,
                                     call->cancellable, start_read, call));
}

void
zkr_shared_count_start_async (ZkrSharedCount *shared, int timeout_ms,
                              GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  Call *call;
  gboolean again;
  guint8 seed[4];

  g_return_if_fail (shared != NULL);
  call = call_new (shared, CALL_START, timeout_ms, cancellable, callback, user_data,
                   zkr_shared_count_start_async);
  g_mutex_lock (&call->count->lock);
  again = call->count->started;
  call->count->started = TRUE;
  g_mutex_unlock (&call->count->lock);
  if (again)
    {
      call_return (call, FALSE, g_error_new (ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                                             "shared count %s: already started",
                                             call->count->path));
      return;
    }
  encode (call->count->seed, seed);
  zkr_node_create_async (call->count->session, call->count->path, seed, 4,
                         ZKR_CREATE_PERSISTENT, ZKR_CREATE_PARENTS_CONTAINER, timeout_ms,
                         cancellable, start_created, call);
}

gboolean
zkr_shared_count_start_finish (ZkrSharedCount *shared, GAsyncResult *result, GError **error)
{
  return call_finish (shared, result, zkr_shared_count_start_async, NULL, error);
}

/* ---- set and try_set --------------------------------------------------- */

static gboolean
written_equals (Call *call, GBytes *data)
{
  gsize len = 0;
  const void *bytes = data != NULL ? g_bytes_get_data (data, &len) : NULL;

  return len == 4 && memcmp (bytes, call->written, 4) == 0;
}

static gint
written_value (Call *call)
{
  guint32 big_endian;

  memcpy (&big_endian, call->written, 4);
  return (gint) (gint32) GUINT32_FROM_BE (big_endian);
}

static GError *
try_set_unknown_error (Call *call)
{
  return g_error_new (ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS,
                      "shared count %s: the connection was lost with our write in flight: "
                      "whether it landed is unknown", call->count->path);
}

/* The node read again after a try_set lost its reply, or after it lost
 * the race (then only to refresh the local value, as Curator does). */
static void
try_set_reread (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  Core *count = call->count;
  GError *error = NULL;
  ZkrStat stat = { 0 };
  g_autoptr (GBytes) data = zkr_node_get_finish (count->session, result, &stat, &error);
  gint value = 0;
  gboolean resolving = call->lost_reply;

  (void) source;
  if (data != NULL && decode (data, count->path, &value, NULL))
    count_update (count, value, stat.version);
  if (!resolving)
    {
      g_clear_error (&error);
      call_return (call, FALSE, NULL);
    }
  else if (data == NULL && !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS))
    call_return (call, FALSE, error);
  /* Not landed only when provably so (atomic-long.h's rule): the version
   * unmoved after the sync, or one write since that is not ours. Our
   * bytes at the next version may be another writer's same value. */
  else if (data != NULL && (stat.version == call->previous_version ||
                            (stat.version == call->previous_version + 1 &&
                             !written_equals (call, data))))
    call_return (call, FALSE, NULL);
  else
    {
      g_clear_error (&error);
      call_return (call, FALSE, try_set_unknown_error (call));
    }
}

static void
try_set_synced (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  GError *error = NULL;
  int timeout_ms = 0;

  (void) source;
  /* Without an answered sync a read proves nothing (atomic-long.h). */
  if (!zkr_node_sync_finish (call->count->session, result, &error))
    {
      if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS))
        {
          g_clear_error (&error);
          error = try_set_unknown_error (call);
        }
      call_return (call, FALSE, error);
      return;
    }
  if (!call_time_left (call, &timeout_ms))
    {
      call_return (call, FALSE, call_timeout_error (call));
      return;
    }
  CALL_DO (call, zkr_node_get_async (call->count->session, call->count->path, timeout_ms,
                                     call->cancellable, try_set_reread, call));
}

static void
call_reread (Call *call, gboolean lost_reply)
{
  int timeout_ms = 0;

  call->lost_reply = lost_reply;
  if (!call_time_left (call, &timeout_ms))
    {
      call_return (call, FALSE, call_timeout_error (call));
      return;
    }
  if (lost_reply)
    CALL_DO (call, zkr_node_sync_async (call->count->session, call->count->path, timeout_ms,
                                        call->cancellable, try_set_synced, call));
  else
    CALL_DO (call, zkr_node_get_async (call->count->session, call->count->path, timeout_ms,
                                       call->cancellable, try_set_reread, call));
}

static void
set_answered (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  GError *error = NULL;
  ZkrStat stat = { 0 };

  (void) source;
  if (zkr_node_set_finish (call->count->session, result, &stat, &error))
    {
      count_update (call->count, written_value (call), stat.version);
      call_return (call, TRUE, NULL);
    }
  else if (call->kind == CALL_TRY_SET &&
           (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_BAD_VERSION) ||
            g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE)))
    {
      g_error_free (error);
      call_reread (call, FALSE);
    }
  else if (call->kind == CALL_TRY_SET &&
           g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS))
    {
      g_error_free (error);
      call_reread (call, TRUE);
    }
  else
    call_return (call, FALSE, error);
}

static void
set_begin (ZkrSharedCount *shared, CallKind kind, int previous_version, gint value,
           int timeout_ms, GCancellable *cancellable, GAsyncReadyCallback callback,
           gpointer user_data, gpointer source_tag)
{
  Call *call = call_new (shared, kind, timeout_ms, cancellable, callback, user_data,
                         source_tag);
  int version;

  g_mutex_lock (&call->count->lock);
  version = call->count->version;
  g_mutex_unlock (&call->count->lock);
  call->previous_version = previous_version;
  encode (value, call->written);
  /* Curator's trySetCount: a caller whose version is not the newest seen
   * has lost already; nothing is sent. */
  if (kind == CALL_TRY_SET && previous_version != version)
    {
      call_return (call, FALSE, NULL);
      return;
    }
  zkr_node_set_async (call->count->session, call->count->path, call->written, 4,
                      kind == CALL_TRY_SET ? previous_version : -1, timeout_ms, cancellable,
                      set_answered, call);
}

void
zkr_shared_count_set_async (ZkrSharedCount *shared, gint value, int timeout_ms,
                            GCancellable *cancellable, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  g_return_if_fail (shared != NULL);
  set_begin (shared, CALL_SET, -1, value, timeout_ms, cancellable, callback, user_data,
             zkr_shared_count_set_async);
}

gboolean
zkr_shared_count_set_finish (ZkrSharedCount *shared, GAsyncResult *result, GError **error)
{
  return call_finish (shared, result, zkr_shared_count_set_async, NULL, error);
}

void
zkr_shared_count_try_set_async (ZkrSharedCount *shared, int previous_version, gint value,
                                int timeout_ms, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (shared != NULL);
  set_begin (shared, CALL_TRY_SET, previous_version, value, timeout_ms, cancellable, callback,
             user_data, zkr_shared_count_try_set_async);
}

gboolean
zkr_shared_count_try_set_finish (ZkrSharedCount *shared, GAsyncResult *result,
                                 gboolean *was_set, GError **error)
{
  return call_finish (shared, result, zkr_shared_count_try_set_async, was_set, error);
}

/* ---- blocking twins ---------------------------------------------------- */

typedef struct {
  ZkrSharedCount *shared;
  CallKind kind;
  int previous_version;
  gint value;
  int timeout_ms;
} SyncArgs;

static void
sync_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
            gpointer user_data)
{
  SyncArgs *args = data;

  if (args->kind == CALL_START)
    zkr_shared_count_start_async (args->shared, args->timeout_ms, cancellable, callback,
                                  user_data);
  else if (args->kind == CALL_SET)
    zkr_shared_count_set_async (args->shared, args->value, args->timeout_ms, cancellable,
                                callback, user_data);
  else
    zkr_shared_count_try_set_async (args->shared, args->previous_version, args->value,
                                    args->timeout_ms, cancellable, callback, user_data);
}

static gboolean
sync_run (SyncArgs *args, GCancellable *cancellable, gboolean *answer, GError **error)
{
  static const gpointer tags[] = { zkr_shared_count_start_async, zkr_shared_count_set_async,
                                   zkr_shared_count_try_set_async };
  GAsyncResult *result = zkr__context_run_sync (sync_start, args, cancellable);
  gboolean ok = call_finish (args->shared, result, tags[args->kind], answer, error);

  g_object_unref (result);
  return ok;
}

gboolean
zkr_shared_count_start (ZkrSharedCount *shared, int timeout_ms, GCancellable *cancellable,
                        GError **error)
{
  SyncArgs args = { shared, CALL_START, 0, 0, timeout_ms };

  g_return_val_if_fail (shared != NULL, FALSE);
  return sync_run (&args, cancellable, NULL, error);
}

gboolean
zkr_shared_count_set (ZkrSharedCount *shared, gint value, int timeout_ms,
                      GCancellable *cancellable, GError **error)
{
  SyncArgs args = { shared, CALL_SET, 0, value, timeout_ms };

  g_return_val_if_fail (shared != NULL, FALSE);
  return sync_run (&args, cancellable, NULL, error);
}

gboolean
zkr_shared_count_try_set (ZkrSharedCount *shared, int previous_version, gint value,
                          int timeout_ms, GCancellable *cancellable, gboolean *was_set,
                          GError **error)
{
  SyncArgs args = { shared, CALL_TRY_SET, previous_version, value, timeout_ms };

  g_return_val_if_fail (shared != NULL, FALSE);
  return sync_run (&args, cancellable, was_set, error);
}
