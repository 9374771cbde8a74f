/* zkr: the shared count's calls (start, set, try_set): public node calls
 * in the caller's context, a lost write reply resolved by a sync and a
 * read again; what they learn feeds the core's value (counter-private.h). */
#include "context.h"
#include "counter-private.h"
#include "log.h"

#include <string.h>

#include <zkr/error.h>
#include <zkr/node.h>

/* ==== the calls: an operation runs in the caller's context ============ */

typedef enum { CALL_START, CALL_SET, CALL_TRY_SET } CallKind;

typedef struct {
  ZkrCountCore *count;                 /* (owned) */
  GTask *task;                 /* (owned) */
  GMainContext *context;
  GCancellable *cancellable;   /* (nullable) (owned) */
  CallKind kind;
  int timeout_ms;
  gint64 deadline;
  int previous_version;        /* TRY_SET */
  gint64 previous_czxid;       /* TRY_SET: the node's life written to */
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
  zkr__shared_count_core_unref (call->count);
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

  zkr__context_assert_user ("a shared count call");
  call->count = zkr__shared_count_core_ref (shared->core);
  call->task = g_task_new (NULL, cancellable, callback, user_data);
  /* A cancel is answered G_IO_ERROR_CANCELLED by the calls themselves. */
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
  ZkrCountCore *count = call->count;
  GError *error = NULL;
  ZkrStat stat = { 0 };
  g_autoptr (GBytes) data = zkr_node_get_finish (count->session, result, &stat, &error);
  gint value = 0;

  (void) source;
  if (data == NULL || !zkr__shared_count_decode (data, count->path, &value, &error))
    {
      g_mutex_lock (&count->lock);
      count->started = FALSE;
      g_mutex_unlock (&count->lock);
      call_return (call, FALSE, error);
      return;
    }
  zkr__shared_count_update (count, value, &stat);
  count->state_listener_id = zkr__session_add_internal_listener (count->session, zkr__shared_count_state,
                                                                 count);
  zkr__session_post (count->session, zkr__shared_count_arm_in_worker, zkr__shared_count_core_ref (count),
                     (GDestroyNotify) zkr__shared_count_core_unref);
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
  zkr__shared_count_encode (call->count->seed, seed);
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
  ZkrCountCore *count = call->count;
  GError *error = NULL;
  ZkrStat stat = { 0 };
  g_autoptr (GBytes) data = zkr_node_get_finish (count->session, result, &stat, &error);
  gint value = 0;
  gboolean resolving = call->lost_reply;

  (void) source;
  if (data != NULL && zkr__shared_count_decode (data, count->path, &value, NULL))
    zkr__shared_count_update (count, value, &stat);
  if (!resolving)
    {
      g_clear_error (&error);
      call_return (call, FALSE, NULL);
    }
  else if (data == NULL && !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS))
    call_return (call, FALSE, error);
  /* Not landed only when provably so (atomic-long.h's rule): the version
   * unmoved after the sync, or one write since that is not ours. Our
   * bytes at the next version may be another writer's same value. And
   * only on the node's life we wrote to: a node created again since has
   * versions of its own, which tell nothing of our write. */
  else if (data != NULL && stat.czxid == call->previous_czxid &&
           (stat.version == call->previous_version ||
            (stat.version == call->previous_version + 1 && !written_equals (call, data))))
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
      /* The server checks the version only: a node created again since
       * our last reading and set back up to it took the write (the
       * limit shared-count.h states); the reading is the new life's. */
      if (call->kind == CALL_TRY_SET && stat.czxid != call->previous_czxid)
        zkr__debug ("shared count %s: a try_set over version %d landed on a node created "
                    "again (czxid 0x%" G_GINT64_MODIFIER "x, read 0x%" G_GINT64_MODIFIER "x)",
                    call->count->path, call->previous_version, stat.czxid,
                    call->previous_czxid);
      zkr__shared_count_update (call->count, written_value (call), &stat);
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

/* try_set_value on a value the count cannot vouch for (a watch event not
 * read yet, a disconnection, a fresh session, a missing node): the node is
 * read first, and the write sent only if that reading is still the
 * caller's value, same life and version. Else a node deleted and created
 * again that the count has not read yet, already back at that version (a
 * count at its seed, version 0, deleted and re-seeded), takes the write. */
static void
try_set_checked (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  ZkrCountCore *count = call->count;
  GError *error = NULL;
  ZkrStat stat = { 0 };
  g_autoptr (GBytes) data = zkr_node_get_finish (count->session, result, &stat, &error);
  gint value = 0;
  int timeout_ms = 0;

  (void) source;
  if (data == NULL && g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    {
      /* Gone: not set (a plain try_set learns it from the set). */
      g_clear_error (&error);
      call_return (call, FALSE, NULL);
      return;
    }
  if (data == NULL)
    {
      call_return (call, FALSE, error);
      return;
    }
  if (zkr__shared_count_decode (data, count->path, &value, NULL))
    zkr__shared_count_update (count, value, &stat);
  if (stat.czxid != call->previous_czxid || stat.version != call->previous_version)
    call_return (call, FALSE, NULL);
  else if (!call_time_left (call, &timeout_ms))
    call_return (call, FALSE, call_timeout_error (call));
  else
    CALL_DO (call, zkr_node_set_async (count->session, count->path, call->written, 4,
                                       call->previous_version, timeout_ms, call->cancellable,
                                       set_answered, call));
}

/* @previous_czxid: the node's life the caller's value came from, or 0
 * when the caller gave a bare version (try_set): then the life is the
 * newest reading's. */
static void
set_begin (ZkrSharedCount *shared, CallKind kind, int previous_version,
           gint64 previous_czxid, gint value, int timeout_ms, GCancellable *cancellable,
           GAsyncReadyCallback callback, gpointer user_data, gpointer source_tag)
{
  Call *call = call_new (shared, kind, timeout_ms, cancellable, callback, user_data,
                         source_tag);
  int version;
  gint64 czxid;

  g_mutex_lock (&call->count->lock);
  version = call->count->version;
  czxid = call->count->czxid;
  g_mutex_unlock (&call->count->lock);
  call->previous_version = previous_version;
  call->previous_czxid = previous_czxid != 0 ? previous_czxid : czxid;
  zkr__shared_count_encode (value, call->written);
  /* ZooKeeper reads a negative version as "any": a try must not. */
  if (kind == CALL_TRY_SET && previous_version < 0)
    {
      call_return (call, FALSE,
                   g_error_new (ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                                "shared count %s: try_set over version %d: no reading has a "
                                "negative version (not started?)",
                                call->count->path, previous_version));
      return;
    }
  /* Curator's trySetCount: a caller whose value is not the newest seen
   * has lost already; nothing is sent. The newest seen is of a node's
   * life: a value from a node since deleted and created again loses even
   * when the new node's version is the same number. */
  if (kind == CALL_TRY_SET &&
      (previous_version != version || call->previous_czxid != czxid))
    {
      call_return (call, FALSE, NULL);
      return;
    }
  if (kind == CALL_TRY_SET && previous_czxid != 0 && !zkr__shared_count_is_current (call->count))
    {
      zkr_node_get_async (call->count->session, call->count->path, timeout_ms, cancellable,
                          try_set_checked, call);
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
  set_begin (shared, CALL_SET, -1, 0, value, timeout_ms, cancellable, callback, user_data,
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
  set_begin (shared, CALL_TRY_SET, previous_version, 0, value, timeout_ms, cancellable,
             callback, user_data, zkr_shared_count_try_set_async);
}

gboolean
zkr_shared_count_try_set_finish (ZkrSharedCount *shared, GAsyncResult *result,
                                 gboolean *was_set, GError **error)
{
  return call_finish (shared, result, zkr_shared_count_try_set_async, was_set, error);
}

void
zkr_shared_count_try_set_value_async (ZkrSharedCount *shared, const ZkrSharedCountValue *previous,
                                      gint value, int timeout_ms, GCancellable *cancellable,
                                      GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (shared != NULL);
  g_return_if_fail (previous != NULL);
  /* A value without a life (czxid 0: from before start(), or made up)
   * matches no reading: -1 names no node's creation. */
  set_begin (shared, CALL_TRY_SET, previous->version, previous->czxid != 0 ? previous->czxid : -1,
             value, timeout_ms, cancellable, callback, user_data,
             zkr_shared_count_try_set_value_async);
}

gboolean
zkr_shared_count_try_set_value_finish (ZkrSharedCount *shared, GAsyncResult *result,
                                       gboolean *was_set, GError **error)
{
  return call_finish (shared, result, zkr_shared_count_try_set_value_async, was_set, error);
}

/* ---- blocking twins ---------------------------------------------------- */

typedef enum { SYNC_START, SYNC_SET, SYNC_TRY_SET, SYNC_TRY_SET_VALUE } SyncKind;

typedef struct {
  ZkrSharedCount *shared;
  SyncKind kind;
  int previous_version;
  gint value;
  int timeout_ms;
  const ZkrSharedCountValue *previous;  /* SYNC_TRY_SET_VALUE */
} SyncArgs;

static void
sync_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
            gpointer user_data)
{
  SyncArgs *args = data;

  if (args->kind == SYNC_START)
    zkr_shared_count_start_async (args->shared, args->timeout_ms, cancellable, callback,
                                  user_data);
  else if (args->kind == SYNC_SET)
    zkr_shared_count_set_async (args->shared, args->value, args->timeout_ms, cancellable,
                                callback, user_data);
  else if (args->kind == SYNC_TRY_SET_VALUE)
    zkr_shared_count_try_set_value_async (args->shared, args->previous, args->value,
                                          args->timeout_ms, cancellable, callback, user_data);
  else
    zkr_shared_count_try_set_async (args->shared, args->previous_version, args->value,
                                    args->timeout_ms, cancellable, callback, user_data);
}

static gboolean
sync_run (SyncArgs *args, GCancellable *cancellable, gboolean *answer, GError **error)
{
  static const gpointer tags[] = { zkr_shared_count_start_async, zkr_shared_count_set_async,
                                   zkr_shared_count_try_set_async,
                                   zkr_shared_count_try_set_value_async };
  GAsyncResult *result = zkr__context_run_sync (sync_start, args, cancellable);
  gboolean ok = call_finish (args->shared, result, tags[args->kind], answer, error);

  g_object_unref (result);
  return ok;
}

gboolean
zkr_shared_count_start (ZkrSharedCount *shared, int timeout_ms, GCancellable *cancellable,
                        GError **error)
{
  SyncArgs args = { shared, SYNC_START, 0, 0, timeout_ms, NULL };

  g_return_val_if_fail (shared != NULL, FALSE);
  return sync_run (&args, cancellable, NULL, error);
}

gboolean
zkr_shared_count_set (ZkrSharedCount *shared, gint value, int timeout_ms,
                      GCancellable *cancellable, GError **error)
{
  SyncArgs args = { shared, SYNC_SET, 0, value, timeout_ms, NULL };

  g_return_val_if_fail (shared != NULL, FALSE);
  return sync_run (&args, cancellable, NULL, error);
}

gboolean
zkr_shared_count_try_set (ZkrSharedCount *shared, int previous_version, gint value,
                          int timeout_ms, GCancellable *cancellable, gboolean *was_set,
                          GError **error)
{
  SyncArgs args = { shared, SYNC_TRY_SET, previous_version, value, timeout_ms, NULL };

  g_return_val_if_fail (shared != NULL, FALSE);
  return sync_run (&args, cancellable, was_set, error);
}

gboolean
zkr_shared_count_try_set_value (ZkrSharedCount *shared, const ZkrSharedCountValue *previous,
                                gint value, int timeout_ms, GCancellable *cancellable,
                                gboolean *was_set, GError **error)
{
  SyncArgs args = { shared, SYNC_TRY_SET_VALUE, 0, value, timeout_ms, previous };

  g_return_val_if_fail (shared != NULL, FALSE);
  g_return_val_if_fail (previous != NULL, FALSE);
  return sync_run (&args, cancellable, was_set, error);
}
