/* zkr: transactions (include/zkr/txn.h): the builder, which checks each
 * operation as it is added, and the commit, one multi sent through
 * core/node-op.c (the deadline, cancel and session-state rules of every
 * node call) whose answer is taken apart here: results per operation, or
 * which operation or fence failed and why. */

#include <string.h>

#include "context.h"
#include "error-private.h"
#include "node-private.h"
#include "session-private.h"
#include "txn-private.h"

typedef enum {
  TXN_BUILDING,
  TXN_COMMITTING,
  TXN_COMMITTED,
  TXN_FAILED,
} TxnState;

typedef struct {
  ZkrMultiKind kind;
  char *path;          /* as the user gave it (without the namespace) */
  char *data;          /* (nullable) create, set */
  int len;
  int flags;
  int version;
  char *created_path;  /* after the commit: a create's, without the namespace */
  gboolean has_stat;
  ZkrStat stat;        /* after the commit: a set's */
} TxnOp;

struct _ZkrTxn {
  gatomicrefcount ref;
  ZkrSession *session;
  GArray *ops;         /* TxnOp, the user's operations in order */
  GPtrArray *fences;   /* (char *) full paths of holders' nodes */
  GError *build_error; /* (nullable) the first bad input, answered at commit */
  TxnState state;
  int failed_index;
};

static void
txn_op_clear (gpointer data)
{
  TxnOp *op = data;

  g_free (op->path);
  g_free (op->data);
  g_free (op->created_path);
}

ZkrTxn *
zkr_txn_new (ZkrSession *session)
{
  ZkrTxn *txn;

  g_return_val_if_fail (session != NULL, NULL);
  txn = g_new0 (ZkrTxn, 1);
  g_atomic_ref_count_init (&txn->ref);
  txn->session = zkr_session_ref (session);
  txn->ops = g_array_new (FALSE, TRUE, sizeof (TxnOp));
  g_array_set_clear_func (txn->ops, txn_op_clear);
  txn->fences = g_ptr_array_new_with_free_func (g_free);
  txn->failed_index = -1;
  return txn;
}

ZkrTxn *
zkr_txn_ref (ZkrTxn *txn)
{
  g_return_val_if_fail (txn != NULL, NULL);
  g_atomic_ref_count_inc (&txn->ref);
  return txn;
}

void
zkr_txn_unref (ZkrTxn *txn)
{
  g_return_if_fail (txn != NULL);
  if (!g_atomic_ref_count_dec (&txn->ref))
    return;
  g_array_unref (txn->ops);
  g_ptr_array_unref (txn->fences);
  g_clear_error (&txn->build_error);
  zkr_session_unref (txn->session);
  g_free (txn);
}

/* ---- building ------------------------------------------------------ */

/* Keeps the first bad input; later ones are dropped with their error. */
static void
txn_keep_error (ZkrTxn *txn, GError *error)
{
  if (txn->build_error == NULL)
    txn->build_error = error;
  else
    g_error_free (error);
}

static guint
txn_add (ZkrTxn *txn, ZkrMultiKind kind, const char *path, gboolean sequential,
         const void *data, gsize len, int flags, int version)
{
  static const ZkrNodeKind check_kinds[] = {
    [ZKR_MULTI_CREATE] = ZKR_NODE_CREATE, [ZKR_MULTI_SET] = ZKR_NODE_SET,
    [ZKR_MULTI_DELETE] = ZKR_NODE_DELETE, [ZKR_MULTI_CHECK] = ZKR_NODE_EXISTS,
  };
  TxnOp op = { .kind = kind, .flags = flags, .version = version };
  GError *error = NULL;

  if (!zkr__node_check_path (path, check_kinds[kind], sequential, &error) ||
      !zkr__node_check_data (data, len, &error) || !zkr__node_check_version (version, &error))
    txn_keep_error (txn, error);
  op.path = g_strdup (path);
  op.data = zkr__op_buffer_dup (data, (int) MIN (len, (gsize) G_MAXINT));
  op.len = (int) MIN (len, (gsize) G_MAXINT);
  g_array_append_val (txn->ops, op);
  return txn->ops->len - 1;
}

#define BUILD_CHECKS(txn, path)                                           \
  G_STMT_START {                                                          \
    g_return_val_if_fail ((txn) != NULL, 0);                              \
    g_return_val_if_fail ((path) != NULL, 0);                             \
    g_return_val_if_fail ((txn)->state == TXN_BUILDING, 0);               \
  } G_STMT_END

guint
zkr_txn_create (ZkrTxn *txn, const char *path, const void *data, gsize len, ZkrCreateMode mode)
{
  GError *error = NULL;

  BUILD_CHECKS (txn, path);
  if (!zkr__node_check_mode (mode, &error))
    {
      txn_keep_error (txn, error);
      mode = ZKR_CREATE_PERSISTENT;
    }
  return txn_add (txn, ZKR_MULTI_CREATE, path, zkr__node_mode_is_sequential (mode), data, len,
                  zkr__node_mode_flags (mode), -1);
}

guint
zkr_txn_set (ZkrTxn *txn, const char *path, const void *data, gsize len, int version)
{
  BUILD_CHECKS (txn, path);
  return txn_add (txn, ZKR_MULTI_SET, path, FALSE, data, len, 0, version);
}

guint
zkr_txn_delete (ZkrTxn *txn, const char *path, int version)
{
  BUILD_CHECKS (txn, path);
  return txn_add (txn, ZKR_MULTI_DELETE, path, FALSE, NULL, 0, 0, version);
}

guint
zkr_txn_check (ZkrTxn *txn, const char *path, int version)
{
  BUILD_CHECKS (txn, path);
  return txn_add (txn, ZKR_MULTI_CHECK, path, FALSE, NULL, 0, 0, version);
}

void
zkr_txn_fence (ZkrTxn *txn, const char *node_path)
{
  GError *error = NULL;

  g_return_if_fail (txn != NULL);
  g_return_if_fail (node_path != NULL);
  g_return_if_fail (txn->state == TXN_BUILDING);
  if (!zkr__node_check_path (node_path, ZKR_NODE_EXISTS, FALSE, &error))
    txn_keep_error (txn, error);
  else
    g_ptr_array_add (txn->fences, g_strdup (node_path));
}

void
zkr__txn_fence_not_held (ZkrTxn *txn, const char *what)
{
  g_return_if_fail (txn->state == TXN_BUILDING);
  txn_keep_error (txn, g_error_new (ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
                                    "transaction fenced by %s, which is not held: nothing sent",
                                    what));
}

guint
zkr_txn_get_n_ops (ZkrTxn *txn)
{
  g_return_val_if_fail (txn != NULL, 0);
  return txn->ops->len;
}

/* ---- the commit ----------------------------------------------------- */

/* The multi: the fences' checks first, then the operations, with full
 * paths. (transfer full): free with multi_ops_free(). */
static ZkrMultiOp *
txn_multi_ops (ZkrTxn *txn, guint *count)
{
  guint n_fences = txn->fences->len;
  ZkrMultiOp *multi = g_new0 (ZkrMultiOp, n_fences + txn->ops->len);

  for (guint i = 0; i < n_fences; i++)
    {
      multi[i].kind = ZKR_MULTI_CHECK;
      multi[i].path = g_strdup (g_ptr_array_index (txn->fences, i));
      multi[i].version = -1;
    }
  for (guint i = 0; i < txn->ops->len; i++)
    {
      const TxnOp *op = &g_array_index (txn->ops, TxnOp, i);
      ZkrMultiOp *out = &multi[n_fences + i];

      out->kind = op->kind;
      out->path = zkr__session_resolve_path (txn->session, op->path);
      out->data = op->data;
      out->len = op->len;
      out->flags = op->flags;
      out->version = op->version;
    }
  *count = n_fences + txn->ops->len;
  return multi;
}

static void
multi_ops_free (ZkrMultiOp *multi, guint count)
{
  for (guint i = 0; i < count; i++)
    g_free ((char *) multi[i].path);
  g_free (multi);
}

void
zkr_txn_commit_async (ZkrTxn *txn, int timeout_ms, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data)
{
  ZkrNodeRequest request = { .kind = ZKR_NODE_MULTI, .version = -1 };
  ZkrMultiOp *multi;
  ZkrCall *call;
  gsize size;

  g_return_if_fail (txn != NULL);
  g_return_if_fail (txn->state == TXN_BUILDING);
  zkr__context_assert_user ("zkr_txn_commit_async() called");
  call = zkr__call_new (zkr_txn_commit_async, callback, user_data);
  /* The header's promise: the commit holds the transaction until its
   * callback, so the caller may unref it meanwhile. */
  zkr__call_set_data (call, zkr_txn_ref (txn), (GDestroyNotify) zkr_txn_unref);
  txn->state = TXN_COMMITTING;
  if (txn->build_error == NULL && txn->ops->len == 0)
    txn->build_error = g_error_new (ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                                    "invalid transaction: no operation was added");
  if (txn->build_error != NULL)
    {
      zkr__call_return (call, NULL, NULL, g_error_copy (txn->build_error));
      return;
    }
  multi = txn_multi_ops (txn, &request.multi_count);
  request.multi = multi;
  /* For messages: "transaction /first/path: ...". */
  request.path = g_array_index (txn->ops, TxnOp, 0).path;
  /* Each operation may fit and the whole not: refused here, before
   * anything is queued, by the op door's own count (which would refuse
   * it again at the send). */
  size = zkr__op_multi_size (txn->session, multi, request.multi_count);
  if (size > ZKR_NODE_MAX_REQUEST_SIZE)
    {
      GError *error = NULL;

      zkr__error_set_request_too_large (&error, "transaction", request.path, size);
      zkr__call_return (call, NULL, NULL, error);
    }
  else
    zkr__node_op_start (txn->session, &request, timeout_ms, cancellable, call);
  multi_ops_free (multi, request.multi_count);
}

static const char *
multi_kind_name (ZkrMultiKind kind)
{
  static const char *const names[] = {
    [ZKR_MULTI_CREATE] = "create", [ZKR_MULTI_SET] = "set",
    [ZKR_MULTI_DELETE] = "delete", [ZKR_MULTI_CHECK] = "check",
  };

  return names[kind];
}

/* The operation the server refused: the first whose code is neither ZOK
 * (applied before it, then rolled back) nor ZRUNTIMEINCONSISTENCY (not
 * tried after it). -1 if none says so. */
static int
multi_failed_position (const GArray *results)
{
  for (guint i = 0; i < results->len; i++)
    {
      int rc = g_array_index (results, ZkrMultiResult, i).rc;

      if (rc != ZOK && rc != ZRUNTIMEINCONSISTENCY)
        return (int) i;
    }
  return -1;
}

static void
txn_set_failure (ZkrTxn *txn, const ZkrNodeResult *answer, GError **error)
{
  int position = multi_failed_position (answer->multi_results);
  int n_fences = (int) txn->fences->len;
  int rc = position >= 0 ? g_array_index (answer->multi_results, ZkrMultiResult, position).rc
                         : answer->multi_rc;
  gint64 session_id = zkr_session_get_id (txn->session);

  if (position >= 0 && position < n_fences && rc == ZNONODE)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
                   "transaction fenced by %s: the holder's node is gone (the lock was lost); "
                   "nothing was applied", (const char *) g_ptr_array_index (txn->fences, position));
      return;
    }
  if (position >= 0 && position < n_fences)
    {
      g_autofree char *what = g_strdup_printf ("transaction fence on");

      zkr__error_set_from_zk (error, rc, what, g_ptr_array_index (txn->fences, position),
                              session_id);
      return;
    }
  if (position >= 0)
    {
      const TxnOp *op = &g_array_index (txn->ops, TxnOp, position - n_fences);
      g_autofree char *what = g_strdup_printf ("transaction operation %d (%s)",
                                               position - n_fences, multi_kind_name (op->kind));

      txn->failed_index = position - n_fences;
      zkr__error_set_from_zk (error, rc, what, op->path, session_id);
      return;
    }
  zkr__error_set_from_zk (error, rc, "transaction", NULL, session_id);
}

static void
txn_take_results (ZkrTxn *txn, const ZkrNodeResult *answer)
{
  guint n_fences = txn->fences->len;

  for (guint i = 0; i < txn->ops->len && n_fences + i < answer->multi_results->len; i++)
    {
      TxnOp *op = &g_array_index (txn->ops, TxnOp, i);
      const ZkrMultiResult *result = &g_array_index (answer->multi_results, ZkrMultiResult,
                                                     n_fences + i);

      if (result->path != NULL)
        op->created_path = zkr__node_result_strip_namespace (txn->session, result->path);
      op->has_stat = result->has_stat;
      if (result->has_stat)
        zkr__node_result_stat_copy (&op->stat, &result->stat);
    }
}

gboolean
zkr_txn_commit_finish (ZkrTxn *txn, GAsyncResult *result, GError **error)
{
  ZkrNodeResult *answer;

  g_return_val_if_fail (txn != NULL, FALSE);
  g_return_val_if_fail (zkr__call_is_tagged (result, zkr_txn_commit_async), FALSE);
  answer = zkr__call_propagate (result, error);
  txn->state = TXN_FAILED;
  if (answer == NULL)
    return FALSE;
  if (answer->multi_rc != ZOK)
    txn_set_failure (txn, answer, error);
  else
    {
      txn->state = TXN_COMMITTED;
      txn_take_results (txn, answer);
    }
  zkr__node_result_free (answer);
  return txn->state == TXN_COMMITTED;
}

typedef struct {
  ZkrTxn *txn;
  int timeout_ms;
} CommitArgs;

static void
commit_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
              gpointer user_data)
{
  CommitArgs *args = data;

  zkr_txn_commit_async (args->txn, args->timeout_ms, cancellable, callback, user_data);
}

gboolean
zkr_txn_commit (ZkrTxn *txn, int timeout_ms, GCancellable *cancellable, GError **error)
{
  CommitArgs args = { txn, timeout_ms };
  GAsyncResult *result;
  gboolean ok;

  g_return_val_if_fail (txn != NULL, FALSE);
  g_return_val_if_fail (txn->state == TXN_BUILDING, FALSE);
  result = zkr__context_run_sync_reusing (commit_start, &args, cancellable);
  ok = zkr_txn_commit_finish (txn, result, error);
  zkr__call_release (result);
  return ok;
}

/* ---- results ---------------------------------------------------------- */

static const TxnOp *
txn_result_op (ZkrTxn *txn, guint index)
{
  if (txn->state != TXN_COMMITTED || index >= txn->ops->len)
    return NULL;
  return &g_array_index (txn->ops, TxnOp, index);
}

const char *
zkr_txn_get_created_path (ZkrTxn *txn, guint index)
{
  const TxnOp *op;

  g_return_val_if_fail (txn != NULL, NULL);
  op = txn_result_op (txn, index);
  return op != NULL ? op->created_path : NULL;
}

gboolean
zkr_txn_get_stat (ZkrTxn *txn, guint index, ZkrStat *stat)
{
  const TxnOp *op;

  g_return_val_if_fail (txn != NULL, FALSE);
  op = txn_result_op (txn, index);
  if (op == NULL || !op->has_stat)
    return FALSE;
  if (stat != NULL)
    *stat = op->stat;
  return TRUE;
}

int
zkr_txn_get_failed_index (ZkrTxn *txn)
{
  g_return_val_if_fail (txn != NULL, -1);
  return txn->failed_index;
}
