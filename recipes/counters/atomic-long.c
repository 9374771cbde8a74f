/* zkr: the atomic long, Curator's DistributedAtomicLong layout (8 bytes,
 * big-endian): the object and an operation's life in the caller's
 * context: its phases' tries (atomic-long-tries.c, on the worker), the
 * promoted phase's mutex between them, the one answer. */
#include "context.h"
#include "counter-private.h"
#include "path.h"

#include <string.h>

#include <zkr/error.h>

/* ==== the value's bytes =============================================== */

void
zkr__atomic_long_encode (gint64 value, guint8 out[8])
{
  guint64 big_endian = GUINT64_TO_BE ((guint64) value);

  memcpy (out, &big_endian, 8);
}

/* Curator's rule: no data is 0; 8 bytes are the value. Anything else is
 * someone else's data, and never silently a number. */
gboolean
zkr__atomic_long_decode (GBytes *data, const char *path, gint64 *value, GError **error)
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
  atomic->full_path = zkr__session_resolve_path (session, path);
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
  g_free (atomic->full_path);
  g_free (atomic->path);
  g_free (atomic);
}

const char *
zkr_atomic_long_get_path (ZkrAtomicLong *atomic)
{
  g_return_val_if_fail (atomic != NULL, NULL);
  return atomic->path;
}

/* ==== an operation's life, in the caller's context ==================== */

static void
op_free (ZkrAtomicOp *op)
{
  /* The mutex's last unref releases it in the background: nobody waits
   * for the server here. */
  g_clear_pointer (&op->mutex, zkr_mutex_unref);
  g_clear_object (&op->cancellable);
  /* Answered, or never (its context went with the answer unrun). */
  g_clear_object (&op->call);
  zkr_atomic_long_unref (op->atomic);
  g_free (op);
}

/* Always from a dispatch of the operation's context (a phase's answer,
 * the mutex's callback): the caller's callback runs now, after the
 * operation is freed (the mutex released), so it may make the next call. */
static void
op_finish (ZkrAtomicOp *op, GError *error)
{
  ZkrCall *call = g_steal_pointer (&op->call);
  ZkrAtomicLongValue *value = error == NULL ? g_memdup2 (&op->value, sizeof op->value) : NULL;

  op_free (op);
  zkr__call_return_here (call, value, g_free, error);
}

static void
op_done (ZkrAtomicOp *op, gboolean succeeded, gint64 post_value)
{
  op->value.succeeded = succeeded;
  op->value.post_value = succeeded ? post_value : op->value.pre_value;
  op_finish (op, NULL);
}

GError *
zkr__atomic_long_timeout_error (const char *path, int timeout_ms, ZkrAtomicWrite write)
{
  return g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT, "atomic long %s: timed out after %d ms%s",
                      path, timeout_ms,
                      write != WRITE_NONE ? " (the last write may or may not have landed)" : "");
}

/* Sub-calls made from a step capture the thread-default context: make it
 * the operation's, whichever thread iterates it. */
#define OP_CALL(op, call)                                   \
  G_STMT_START {                                            \
    g_main_context_push_thread_default ((op)->context);     \
    call;                                                   \
    g_main_context_pop_thread_default ((op)->context);      \
  } G_STMT_END

static void
op_lock_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ZkrAtomicOp *op = user_data;
  GError *error = NULL;

  (void) source;
  if (zkr_mutex_acquire_finish (op->mutex, result, &error))
    {
      zkr__atomic_long_tries_run (op);
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

/* Optimism gave up: take the mutex (Curator's PromotedToLock), then try
 * again under it with the lock's policy. */
static void
op_promote (ZkrAtomicOp *op)
{
  GError *error = NULL;
  int timeout_ms = op->timeout_ms;

  op->promoted = TRUE;
  if (op->timeout_ms > 0)
    {
      gint64 left = op->deadline - g_get_monotonic_time ();

      if (left <= 0)
        {
          op_finish (op, zkr__atomic_long_timeout_error (op->atomic->path, op->timeout_ms,
                                                         WRITE_NONE));
          return;
        }
      timeout_ms = (int) MAX (1, (left + 999) / 1000);
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

/* ==== a phase's answer ================================================ */

gboolean
zkr__atomic_long_answer_run (gpointer data)
{
  ZkrAtomicAnswer *answer = data;
  ZkrAtomicOp *op = g_steal_pointer (&answer->op);

  op->value.pre_value = answer->pre_value;
  if (op->promoted)
    op->value.promoted_tries += answer->tries;
  else
    op->value.optimistic_tries += answer->tries;
  if (answer->outcome == OUTCOME_ERROR)
    op_finish (op, g_steal_pointer (&answer->error));
  else if (answer->outcome == OUTCOME_GAVE_UP && !op->promoted && op->atomic->lock_path != NULL)
    op_promote (op);
  else
    op_done (op, answer->succeeded, answer->post_value);
  return G_SOURCE_REMOVE;
}

void
zkr__atomic_long_answer_free (gpointer data)
{
  ZkrAtomicAnswer *answer = data;

  /* Not run (its context went away unrun): the operation ends here. */
  if (answer->op != NULL)
    op_free (answer->op);
  g_clear_error (&answer->error);
  g_free (answer);
}

/* ==== the calls ======================================================== */

static void
op_start (ZkrAtomicLong *atomic, ZkrAtomicOpKind kind, gint64 operand, gint64 expected,
          int timeout_ms,
          GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data,
          gpointer source_tag)
{
  ZkrAtomicOp *op = g_new0 (ZkrAtomicOp, 1);

  zkr__context_assert_user ("an atomic long call");
  op->atomic = zkr_atomic_long_ref (atomic);
  /* A cancel is answered G_IO_ERROR_CANCELLED by the operation itself. */
  op->call = zkr__call_new (source_tag, callback, user_data);
  zkr__call_set_data (op->call, atomic, NULL);
  op->context = zkr__call_get_context (op->call);
  op->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  op->kind = kind;
  op->operand = operand;
  op->expected = expected;
  op->timeout_ms = timeout_ms;
  op->deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  zkr__atomic_long_tries_run (op);
}

static gboolean
op_result (ZkrAtomicLong *atomic, GAsyncResult *result, gpointer source_tag,
           ZkrAtomicLongValue *value, GError **error)
{
  g_autofree ZkrAtomicLongValue *answer = NULL;

  g_return_val_if_fail (atomic != NULL, FALSE);
  g_return_val_if_fail (zkr__call_is_tagged (result, source_tag), FALSE);
  g_return_val_if_fail (zkr__call_result_get_data (result) == atomic, FALSE);
  answer = zkr__call_propagate (result, error);
  if (answer == NULL)
    return FALSE;
  if (value != NULL)
    *value = *answer;
  return TRUE;
}

typedef struct {
  ZkrAtomicLong *atomic;
  ZkrAtomicOpKind kind;
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
  GAsyncResult *result = zkr__context_run_sync_reusing (sync_start, args, cancellable);
  gboolean ok = op_result (args->atomic, result, args->source_tag, value, error);

  zkr__call_release (result);
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
