/* zkr: the atomic long, Curator's DistributedAtomicLong layout (8 bytes,
 * big-endian): a chain of public node calls (read, set with version or
 * create) run in the caller's context, optimistic then under a ZkrMutex. */
#include "context.h"
#include "path.h"

#include <string.h>

#include <zkr/atomic-long.h>
#include <zkr/error.h>
#include <zkr/mutex.h>
#include <zkr/node.h>

struct _ZkrAtomicLong {
  gatomicrefcount ref;
  ZkrSession *session;               /* (owned) */
  char *path;
  ZkrRetryPolicy *retry_policy;      /* (owned) */
  char *lock_path;                   /* (nullable): promoted mode */
  int max_lock_ms;
  ZkrRetryPolicy *lock_retry_policy; /* (owned) (nullable) */
};

typedef enum { OP_GET, OP_SET, OP_ADD, OP_CAS } OpKind;

/* What the write in flight was, for telling a lost reply's fate. */
typedef enum { WRITE_NONE, WRITE_SET, WRITE_CREATE } WriteKind;

/* One operation; every step runs in @context (the caller's). */
typedef struct {
  ZkrAtomicLong *atomic;             /* (owned) */
  GTask *task;                       /* (owned) */
  GMainContext *context;             /* the task's */
  GCancellable *cancellable;         /* (nullable) (owned) */
  OpKind kind;
  gint64 operand;                    /* SET, CAS: the new value; ADD: delta */
  gint64 expected;                   /* CAS */
  int timeout_ms;
  gint64 deadline;                   /* monotonic µs, timeout_ms > 0 */
  ZkrAtomicLongValue value;
  gboolean promoted;
  guint retries;
  gint64 phase_start;
  int read_version;                  /* of the last read; -1: no node */
  gint64 read_czxid;                 /* of the last read, when a node */
  gint64 read_mzxid;
  WriteKind write;
  guint8 written[8];
  ZkrMutex *mutex;                   /* (owned) (nullable) promoted, held */
  GSource *sleep;                    /* (owned) (nullable) */
  GSource *cancel_wait;              /* (owned) (nullable) */
} Op;

static void op_try (Op *op);

/* ==== the value's bytes =============================================== */

static void
encode (gint64 value, guint8 out[8])
{
  guint64 big_endian = GUINT64_TO_BE ((guint64) value);

  memcpy (out, &big_endian, 8);
}

/* Curator's rule: no data is 0; 8 bytes are the value. Anything else is
 * someone else's data, and never silently a number. */
static gboolean
decode (GBytes *data, const char *path, gint64 *value, GError **error)
{
  gsize len = 0;
  const guint8 *bytes = data != NULL ? g_bytes_get_data (data, &len) : NULL;
  guint64 big_endian;

  if (len == 0)
    {
      *value = 0;
      return TRUE;
    }
  if (len != 8)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "atomic long node %s holds %" G_GSIZE_FORMAT " bytes, not an 8-byte "
                   "big-endian long (Curator's DistributedAtomicLong)", path, len);
      return FALSE;
    }
  memcpy (&big_endian, bytes, 8);
  *value = (gint64) GUINT64_FROM_BE (big_endian);
  return TRUE;
}

/* ==== the object ====================================================== */

static ZkrRetryPolicy *
policy_or_default (ZkrRetryPolicy *policy)
{
  return policy != NULL ? zkr_retry_policy_ref (policy)
                        : zkr_retry_policy_exponential_new (1, 50, 29);
}

static ZkrAtomicLong *
atomic_new (ZkrSession *session, const char *path, ZkrRetryPolicy *retry_policy,
            const char *lock_path, int max_lock_ms, ZkrRetryPolicy *lock_retry_policy,
            GError **error)
{
  ZkrAtomicLong *atomic;

  if (!zkr__path_validate (path, error) ||
      (lock_path != NULL && !zkr__path_validate (lock_path, error)))
    return NULL;
  atomic = g_new0 (ZkrAtomicLong, 1);
  g_atomic_ref_count_init (&atomic->ref);
  atomic->session = zkr_session_ref (session);
  atomic->path = g_strdup (path);
  atomic->retry_policy = policy_or_default (retry_policy);
  atomic->lock_path = g_strdup (lock_path);
  atomic->max_lock_ms = max_lock_ms;
  if (lock_path != NULL)
    atomic->lock_retry_policy = policy_or_default (lock_retry_policy);
  return atomic;
}

ZkrAtomicLong *
zkr_atomic_long_new (ZkrSession *session, const char *path, ZkrRetryPolicy *retry_policy,
                     GError **error)
{
  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  return atomic_new (session, path, retry_policy, NULL, -1, NULL, error);
}

ZkrAtomicLong *
zkr_atomic_long_new_promoted (ZkrSession *session, const char *path,
                              ZkrRetryPolicy *retry_policy, const char *lock_path,
                              int max_lock_ms, ZkrRetryPolicy *lock_retry_policy,
                              GError **error)
{
  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (lock_path != NULL, NULL);
  return atomic_new (session, path, retry_policy, lock_path, max_lock_ms, lock_retry_policy,
                     error);
}

ZkrAtomicLong *
zkr_atomic_long_ref (ZkrAtomicLong *atomic)
{
  g_return_val_if_fail (atomic != NULL, NULL);
  g_atomic_ref_count_inc (&atomic->ref);
  return atomic;
}

void
zkr_atomic_long_unref (ZkrAtomicLong *atomic)
{
  g_return_if_fail (atomic != NULL);
  if (!g_atomic_ref_count_dec (&atomic->ref))
    return;
  zkr_session_unref (atomic->session);
  zkr_retry_policy_unref (atomic->retry_policy);
  if (atomic->lock_retry_policy != NULL)
    zkr_retry_policy_unref (atomic->lock_retry_policy);
  g_free (atomic->lock_path);
  g_free (atomic->path);
  g_free (atomic);
}

const char *
zkr_atomic_long_get_path (ZkrAtomicLong *atomic)
{
  g_return_val_if_fail (atomic != NULL, NULL);
  return atomic->path;
}

/* ==== an operation's life ============================================= */

static void
op_free (Op *op)
{
  g_assert (op->sleep == NULL && op->cancel_wait == NULL);
  /* The mutex's last unref releases it in the background: nobody waits
   * for the server here. */
  g_clear_pointer (&op->mutex, zkr_mutex_unref);
  g_clear_object (&op->cancellable);
  g_object_unref (op->task);
  zkr_atomic_long_unref (op->atomic);
  g_free (op);
}

static void
op_finish (Op *op, GError *error)
{
  if (error != NULL)
    g_task_return_error (op->task, error);
  else
    g_task_return_pointer (op->task, g_memdup2 (&op->value, sizeof op->value), g_free);
  op_free (op);
}

static void
op_done (Op *op, gboolean succeeded, gint64 post_value)
{
  op->value.succeeded = succeeded;
  op->value.post_value = succeeded ? post_value : op->value.pre_value;
  op_finish (op, NULL);
}

/* The time left for the next step: -1 (no deadline) or 0 (try once) as
 * given; FALSE once a positive deadline has passed. */
static gboolean
op_time_left (Op *op, int *timeout_ms)
{
  gint64 left;

  if (op->timeout_ms <= 0)
    {
      *timeout_ms = op->timeout_ms;
      return TRUE;
    }
  left = op->deadline - g_get_monotonic_time ();
  if (left <= 0)
    return FALSE;
  *timeout_ms = (int) MAX (1, (left + 999) / 1000);
  return TRUE;
}

static GError *
op_timeout_error (Op *op)
{
  return g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT, "atomic long %s: timed out after %d ms%s",
                      op->atomic->path, op->timeout_ms,
                      op->write != WRITE_NONE ? " (the last write may or may not have landed)"
                                              : "");
}

static GError *
op_cancelled_error (Op *op)
{
  return g_error_new (ZKR_ERROR, ZKR_ERROR_CANCELLED, "atomic long %s: cancelled%s",
                      op->atomic->path,
                      op->write != WRITE_NONE ? " (the last write may or may not have landed)"
                                              : "");
}

/* Sub-calls made from a step capture the thread-default context: make it
 * the operation's, whichever thread iterates it. */
#define OP_CALL(op, call)                                   \
  G_STMT_START {                                            \
    g_main_context_push_thread_default ((op)->context);     \
    call;                                                   \
    g_main_context_pop_thread_default ((op)->context);      \
  } G_STMT_END

/* ==== retries: the policies' sleeps, then the lock ==================== */

static void
op_stop_sleep (Op *op)
{
  if (op->sleep != NULL)
    {
      g_source_destroy (op->sleep);
      g_clear_pointer (&op->sleep, g_source_unref);
    }
  if (op->cancel_wait != NULL)
    {
      g_source_destroy (op->cancel_wait);
      g_clear_pointer (&op->cancel_wait, g_source_unref);
    }
}

static gboolean
op_sleep_over (gpointer data)
{
  Op *op = data;

  op_stop_sleep (op);
  op_try (op);
  return G_SOURCE_REMOVE;
}

static gboolean
op_sleep_cancelled (GCancellable *cancellable, gpointer data)
{
  Op *op = data;

  (void) cancellable;
  op_stop_sleep (op);
  op_finish (op, op_cancelled_error (op));
  return G_SOURCE_REMOVE;
}

/* A sleep in the caller's context, cut by the deadline (the next try then
 * answers TIMEOUT) and by the cancellable. */
static void
op_sleep (Op *op, guint sleep_ms)
{
  int left_ms = -1;

  if (op->timeout_ms > 0 && op_time_left (op, &left_ms))
    sleep_ms = MIN (sleep_ms, (guint) left_ms);
  op->sleep = g_timeout_source_new (sleep_ms);
  g_source_set_callback (op->sleep, op_sleep_over, op, NULL);
  g_source_attach (op->sleep, op->context);
  if (op->cancellable != NULL)
    {
      op->cancel_wait = g_cancellable_source_new (op->cancellable);
      g_source_set_callback (op->cancel_wait, G_SOURCE_FUNC (op_sleep_cancelled), op, NULL);
      g_source_attach (op->cancel_wait, op->context);
    }
}

static void
op_lock_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  GError *error = NULL;

  (void) source;
  if (zkr_mutex_acquire_finish (op->mutex, result, &error))
    {
      op_try (op);
      return;
    }
  g_clear_pointer (&op->mutex, zkr_mutex_unref);
  /* Curator's maxLockTime running out is a failed try, not an error; the
   * operation's own deadline running out is. */
  if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT) &&
      (op->timeout_ms <= 0 || g_get_monotonic_time () < op->deadline))
    {
      g_error_free (error);
      op_done (op, FALSE, 0);
      return;
    }
  op_finish (op, error);
}

static void
op_promote (Op *op)
{
  GError *error = NULL;
  int timeout_ms = -1;

  op->promoted = TRUE;
  op->retries = 0;
  op->phase_start = g_get_monotonic_time ();
  if (!op_time_left (op, &timeout_ms))
    {
      op_finish (op, op_timeout_error (op));
      return;
    }
  if (op->atomic->max_lock_ms >= 0 && (timeout_ms < 0 || op->atomic->max_lock_ms < timeout_ms))
    timeout_ms = op->atomic->max_lock_ms;
  op->mutex = zkr_mutex_new (op->atomic->session, op->atomic->lock_path, &error);
  if (op->mutex == NULL)
    {
      op_finish (op, error);
      return;
    }
  OP_CALL (op, zkr_mutex_acquire_async (op->mutex, timeout_ms, op->cancellable,
                                        op_lock_acquired, op));
}

/* A try lost a race (or provably wrote nothing): try again as the phase's
 * policy allows, then promote, then give up with succeeded FALSE. */
static void
op_retry (Op *op)
{
  ZkrRetryPolicy *policy = op->promoted ? op->atomic->lock_retry_policy
                                        : op->atomic->retry_policy;
  gint64 elapsed_ms = (g_get_monotonic_time () - op->phase_start) / 1000;
  guint sleep_ms = 0;

  op->write = WRITE_NONE;
  if (op->kind == OP_CAS)
    op_done (op, FALSE, 0);
  else if (zkr_retry_policy_allow (policy, op->retries++, elapsed_ms, g_random_int (), &sleep_ms))
    op_sleep (op, sleep_ms);
  else if (!op->promoted && op->atomic->lock_path != NULL)
    op_promote (op);
  else
    op_done (op, FALSE, 0);
}

/* ==== a lost reply ===================================================== */

static gint64
written_value (Op *op)
{
  guint64 big_endian;

  memcpy (&big_endian, op->written, 8);
  return (gint64) GUINT64_FROM_BE (big_endian);
}

static GError *
op_unknown_error (Op *op, const char *what)
{
  return g_error_new (ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS,
                      "atomic long %s: the connection was lost with our write in flight and "
                      "%s: whether it landed is unknown", op->atomic->path, what);
}

/* Resolving a lost reply failed: the write's fate stays unknown, which a
 * CONNECTION_LOSS or TIMEOUT must say; other errors (CANCELLED, the
 * session's end) speak for themselves. */
static void
op_lost_failed (Op *op, GError *error)
{
  if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS))
    {
      g_error_free (error);
      error = op_unknown_error (op, "the node could not be read again");
    }
  else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT))
    {
      g_error_free (error);
      error = op_timeout_error (op);
    }
  op_finish (op, error);
}

/* Which of a lost reply's outcomes the node read again shows. */
typedef enum { FATE_NOT_LANDED, FATE_UNKNOWN } Fate;

/* The node read again (after a sync that answered) when our write's reply
 * was lost. Only "not landed" can be known: the node untouched since our
 * read (same mzxid), or, for a set, exactly one write since that is not
 * ours (version v + 1 with other bytes: ours then failed on the version),
 * or, for a create, a node still missing or created by someone else with
 * other bytes. Our bytes at the next version prove nothing: another
 * writer's increment from the same value writes the very same bytes, and
 * the 8-byte layout carries no writer. Anything else cannot be told
 * apart either. (Why a write not seen after the sync cannot land later:
 * atomic-long.h.) */
static Fate
op_fate (Op *op, GBytes *data, const ZkrStat *stat)
{
  gsize len = 0;
  const void *bytes = data != NULL ? g_bytes_get_data (data, &len) : NULL;
  gboolean ours = len == 8 && memcmp (bytes, op->written, 8) == 0;

  if (op->write == WRITE_CREATE)
    return data == NULL || (stat->version == 0 && !ours) ? FATE_NOT_LANDED : FATE_UNKNOWN;
  if (data == NULL || stat->czxid != op->read_czxid)
    return FATE_UNKNOWN;
  if (stat->mzxid == op->read_mzxid ||
      (stat->version == op->read_version + 1 && !ours))
    return FATE_NOT_LANDED;
  return FATE_UNKNOWN;
}

static void
op_resolved (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  GError *error = NULL;
  ZkrStat stat = { 0 };
  g_autoptr (GBytes) data = zkr_node_get_finish (op->atomic->session, result, &stat, &error);

  (void) source;
  if (data == NULL && !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    {
      op_lost_failed (op, error);
      return;
    }
  g_clear_error (&error);
  if (op_fate (op, data, &stat) == FATE_NOT_LANDED)
    op_retry (op);
  else
    op_finish (op, op_unknown_error (op, data == NULL ? "the node is gone"
                                                      : "the node does not tell"));
}

static void
op_synced (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  GError *error = NULL;
  int timeout_ms = 0;

  /* Without an answered sync a read proves nothing: a write of ours still
   * on its way may land after it. */
  (void) source;
  if (!zkr_node_sync_finish (op->atomic->session, result, &error))
    {
      op_lost_failed (op, error);
      return;
    }
  if (!op_time_left (op, &timeout_ms))
    {
      op_finish (op, op_timeout_error (op));
      return;
    }
  OP_CALL (op, zkr_node_get_async (op->atomic->session, op->atomic->path, timeout_ms,
                                   op->cancellable, op_resolved, op));
}

static void
op_resolve (Op *op)
{
  int timeout_ms = 0;

  if (!op_time_left (op, &timeout_ms))
    {
      op_finish (op, op_timeout_error (op));
      return;
    }
  OP_CALL (op, zkr_node_sync_async (op->atomic->session, op->atomic->path, timeout_ms,
                                    op->cancellable, op_synced, op));
}

/* ==== one try: read, then write with the version read ================= */

static void
op_written (Op *op, gboolean ok, GError *error)
{
  if (ok)
    op_done (op, TRUE, written_value (op));
  else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_BAD_VERSION) ||
           g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NODE_EXISTS) ||
           g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    {
      g_error_free (error);
      op_retry (op);
    }
  else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS))
    {
      g_error_free (error);
      op_resolve (op);
    }
  else
    op_finish (op, error);
}

static void
op_set_answered (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  GError *error = NULL;
  gboolean ok = zkr_node_set_finish (op->atomic->session, result, NULL, &error);

  (void) source;
  op_written (op, ok, error);
}

static void
op_create_answered (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  GError *error = NULL;
  gboolean ok = zkr_node_create_finish (op->atomic->session, result, NULL, NULL, &error);

  (void) source;
  op_written (op, ok, error);
}

static void
op_write (Op *op, gint64 new_value)
{
  ZkrAtomicLong *atomic = op->atomic;
  int timeout_ms = 0;

  if (!op_time_left (op, &timeout_ms))
    {
      op_finish (op, op_timeout_error (op));
      return;
    }
  encode (new_value, op->written);
  op->write = op->read_version >= 0 ? WRITE_SET : WRITE_CREATE;
  if (op->write == WRITE_SET)
    OP_CALL (op, zkr_node_set_async (atomic->session, atomic->path, op->written, 8,
                                     op->read_version, timeout_ms, op->cancellable,
                                     op_set_answered, op));
  else
    OP_CALL (op, zkr_node_create_async (atomic->session, atomic->path, op->written, 8,
                                        ZKR_CREATE_PERSISTENT, ZKR_CREATE_PARENTS_CONTAINER,
                                        timeout_ms, op->cancellable, op_create_answered, op));
}

static void
op_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  GError *error = NULL;
  ZkrStat stat = { 0 };
  g_autoptr (GBytes) data = zkr_node_get_finish (op->atomic->session, result, &stat, &error);
  gint64 current = 0;

  (void) source;
  if (data == NULL && !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    {
      op_finish (op, error);
      return;
    }
  g_clear_error (&error);
  op->read_version = data != NULL ? stat.version : -1;
  op->read_czxid = stat.czxid;
  op->read_mzxid = stat.mzxid;
  if (!decode (data, op->atomic->path, &current, &error))
    {
      op_finish (op, error);
      return;
    }
  op->value.pre_value = current;
  switch (op->kind)
    {
    case OP_GET:
      op_done (op, TRUE, current);
      break;
    case OP_CAS:
      if (op->read_version < 0 || current != op->expected)
        op_done (op, FALSE, 0);
      else
        op_write (op, op->operand);
      break;
    case OP_SET:
      op_write (op, op->operand);
      break;
    case OP_ADD:
      /* Java's long arithmetic: wraps. */
      op_write (op, (gint64) ((guint64) current + (guint64) op->operand));
      break;
    }
}

static void
op_try (Op *op)
{
  int timeout_ms = 0;

  if (op->cancellable != NULL && g_cancellable_is_cancelled (op->cancellable))
    {
      op_finish (op, op_cancelled_error (op));
      return;
    }
  if (!op_time_left (op, &timeout_ms))
    {
      op_finish (op, op_timeout_error (op));
      return;
    }
  op->write = WRITE_NONE;
  if (op->promoted)
    op->value.promoted_tries++;
  else
    op->value.optimistic_tries++;
  OP_CALL (op, zkr_node_get_async (op->atomic->session, op->atomic->path, timeout_ms,
                                   op->cancellable, op_read, op));
}

/* ==== the calls ======================================================== */

static void
op_start (ZkrAtomicLong *atomic, OpKind kind, gint64 operand, gint64 expected, int timeout_ms,
          GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data,
          gpointer source_tag)
{
  Op *op = g_new0 (Op, 1);

  zkr__assert_user_context ("an atomic long call");
  op->atomic = zkr_atomic_long_ref (atomic);
  op->task = g_task_new (NULL, cancellable, callback, user_data);
  /* A cancel is answered ZKR_ERROR_CANCELLED by the operation itself. */
  g_task_set_check_cancellable (op->task, FALSE);
  g_task_set_source_tag (op->task, source_tag);
  g_task_set_task_data (op->task, atomic, NULL);
  op->context = g_task_get_context (op->task);
  op->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  op->kind = kind;
  op->operand = operand;
  op->expected = expected;
  op->timeout_ms = timeout_ms;
  op->deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  op->phase_start = g_get_monotonic_time ();
  op->read_version = -1;
  op_try (op);
}

static gboolean
op_result (ZkrAtomicLong *atomic, GAsyncResult *result, gpointer source_tag,
           ZkrAtomicLongValue *value, GError **error)
{
  g_autofree ZkrAtomicLongValue *answer = NULL;

  g_return_val_if_fail (atomic != NULL, FALSE);
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);
  g_return_val_if_fail (g_task_get_task_data (G_TASK (result)) == atomic, FALSE);
  answer = g_task_propagate_pointer (G_TASK (result), error);
  if (answer == NULL)
    return FALSE;
  if (value != NULL)
    *value = *answer;
  return TRUE;
}

typedef struct {
  ZkrAtomicLong *atomic;
  OpKind kind;
  gint64 operand;
  gint64 expected;
  int timeout_ms;
  gpointer source_tag;
} SyncArgs;

static void
sync_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
            gpointer user_data)
{
  SyncArgs *args = data;

  op_start (args->atomic, args->kind, args->operand, args->expected, args->timeout_ms,
            cancellable, callback, user_data, args->source_tag);
}

static gboolean
op_run_sync (SyncArgs *args, GCancellable *cancellable, ZkrAtomicLongValue *value,
             GError **error)
{
  GAsyncResult *result = zkr__context_run_sync (sync_start, args, cancellable);
  gboolean ok = op_result (args->atomic, result, args->source_tag, value, error);

  g_object_unref (result);
  return ok;
}

void
zkr_atomic_long_get_async (ZkrAtomicLong *atomic, int timeout_ms, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (atomic != NULL);
  op_start (atomic, OP_GET, 0, 0, timeout_ms, cancellable, callback, user_data,
            zkr_atomic_long_get_async);
}

gboolean
zkr_atomic_long_get_finish (ZkrAtomicLong *atomic, GAsyncResult *result,
                            ZkrAtomicLongValue *value, GError **error)
{
  return op_result (atomic, result, zkr_atomic_long_get_async, value, error);
}

gboolean
zkr_atomic_long_get (ZkrAtomicLong *atomic, int timeout_ms, GCancellable *cancellable,
                     ZkrAtomicLongValue *value, GError **error)
{
  SyncArgs args = { atomic, OP_GET, 0, 0, timeout_ms, zkr_atomic_long_get_async };

  g_return_val_if_fail (atomic != NULL, FALSE);
  return op_run_sync (&args, cancellable, value, error);
}

void
zkr_atomic_long_set_async (ZkrAtomicLong *atomic, gint64 new_value, int timeout_ms,
                           GCancellable *cancellable, GAsyncReadyCallback callback,
                           gpointer user_data)
{
  g_return_if_fail (atomic != NULL);
  op_start (atomic, OP_SET, new_value, 0, timeout_ms, cancellable, callback, user_data,
            zkr_atomic_long_set_async);
}

gboolean
zkr_atomic_long_set_finish (ZkrAtomicLong *atomic, GAsyncResult *result,
                            ZkrAtomicLongValue *value, GError **error)
{
  return op_result (atomic, result, zkr_atomic_long_set_async, value, error);
}

gboolean
zkr_atomic_long_set (ZkrAtomicLong *atomic, gint64 new_value, int timeout_ms,
                     GCancellable *cancellable, ZkrAtomicLongValue *value, GError **error)
{
  SyncArgs args = { atomic, OP_SET, new_value, 0, timeout_ms, zkr_atomic_long_set_async };

  g_return_val_if_fail (atomic != NULL, FALSE);
  return op_run_sync (&args, cancellable, value, error);
}

void
zkr_atomic_long_add_async (ZkrAtomicLong *atomic, gint64 delta, int timeout_ms,
                           GCancellable *cancellable, GAsyncReadyCallback callback,
                           gpointer user_data)
{
  g_return_if_fail (atomic != NULL);
  op_start (atomic, OP_ADD, delta, 0, timeout_ms, cancellable, callback, user_data,
            zkr_atomic_long_add_async);
}

gboolean
zkr_atomic_long_add_finish (ZkrAtomicLong *atomic, GAsyncResult *result,
                            ZkrAtomicLongValue *value, GError **error)
{
  return op_result (atomic, result, zkr_atomic_long_add_async, value, error);
}

gboolean
zkr_atomic_long_add (ZkrAtomicLong *atomic, gint64 delta, int timeout_ms,
                     GCancellable *cancellable, ZkrAtomicLongValue *value, GError **error)
{
  SyncArgs args = { atomic, OP_ADD, delta, 0, timeout_ms, zkr_atomic_long_add_async };

  g_return_val_if_fail (atomic != NULL, FALSE);
  return op_run_sync (&args, cancellable, value, error);
}

gboolean
zkr_atomic_long_increment (ZkrAtomicLong *atomic, int timeout_ms, GCancellable *cancellable,
                           ZkrAtomicLongValue *value, GError **error)
{
  return zkr_atomic_long_add (atomic, 1, timeout_ms, cancellable, value, error);
}

void
zkr_atomic_long_increment_async (ZkrAtomicLong *atomic, int timeout_ms,
                                 GCancellable *cancellable, GAsyncReadyCallback callback,
                                 gpointer user_data)
{
  zkr_atomic_long_add_async (atomic, 1, timeout_ms, cancellable, callback, user_data);
}

gboolean
zkr_atomic_long_decrement (ZkrAtomicLong *atomic, int timeout_ms, GCancellable *cancellable,
                           ZkrAtomicLongValue *value, GError **error)
{
  return zkr_atomic_long_add (atomic, -1, timeout_ms, cancellable, value, error);
}

void
zkr_atomic_long_decrement_async (ZkrAtomicLong *atomic, int timeout_ms,
                                 GCancellable *cancellable, GAsyncReadyCallback callback,
                                 gpointer user_data)
{
  zkr_atomic_long_add_async (atomic, -1, timeout_ms, cancellable, callback, user_data);
}

void
zkr_atomic_long_compare_and_set_async (ZkrAtomicLong *atomic, gint64 expected_value,
                                       gint64 new_value, int timeout_ms,
                                       GCancellable *cancellable, GAsyncReadyCallback callback,
                                       gpointer user_data)
{
  g_return_if_fail (atomic != NULL);
  op_start (atomic, OP_CAS, new_value, expected_value, timeout_ms, cancellable, callback,
            user_data, zkr_atomic_long_compare_and_set_async);
}

gboolean
zkr_atomic_long_compare_and_set_finish (ZkrAtomicLong *atomic, GAsyncResult *result,
                                        ZkrAtomicLongValue *value, GError **error)
{
  return op_result (atomic, result, zkr_atomic_long_compare_and_set_async, value, error);
}

gboolean
zkr_atomic_long_compare_and_set (ZkrAtomicLong *atomic, gint64 expected_value,
                                 gint64 new_value, int timeout_ms, GCancellable *cancellable,
                                 ZkrAtomicLongValue *value, GError **error)
{
  SyncArgs args = { atomic, OP_CAS, new_value, expected_value, timeout_ms,
                    zkr_atomic_long_compare_and_set_async };

  g_return_val_if_fail (atomic != NULL, FALSE);
  return op_run_sync (&args, cancellable, value, error);
}
