/* zkr: the multi-lock: one mutex queue entry per path, acquired in path
 * order under one deadline, given back newest first on failure and on
 * release. The entries' loss events are folded into one IN_DOUBT /
 * RESTORED / LOST story for the whole.
 *
 * Threads: the acquire steps run in the caller's GMainContext, chained by
 * GTasks; the rollback gives back in the background (no thread blocks on
 * it); loss hooks on the session's worker. */

#include <string.h>

#include "context.h"
#include "error-private.h"
#include "queue-lock.h"
#include "notifier.h"
#include "path.h"
#include "session-private.h"

#include <zkr/multi-lock.h>

typedef struct {
  ZkrMultiLock *multi;   /* back pointer (not owned) */
  ZkrQueueLock *queue;   /* (owned) */
  gboolean in_doubt;     /* protected by multi->mutex */
} Member;

struct _ZkrMultiLock {
  gatomicrefcount ref;   /* the public references */
  gatomicrefcount alive; /* the memory: 1 for the public side, 1 per queued
                          * loss delivery; the last drop frees */
  ZkrSession *session;   /* (owned) */
  guint n_members;
  char **paths;          /* sorted by bytes, NULL-terminated */
  Member *members;       /* n_members, in path order */
  ZkrNotifier *loss;     /* (nullable once disposed) */

  GMutex mutex;
  gboolean busy;         /* an acquire runs; protected by mutex */
  gboolean held;         /* granted, not lost nor released: loss events
                          * are reported only then; protected by mutex */
  guint in_doubt;        /* members in doubt; protected by mutex */
  gboolean disposed;     /* the public side is gone; protected by mutex */
};

/* ==== life cycle ====================================================== */

static gpointer
multi_alive_ref (gpointer data)
{
  ZkrMultiLock *multi = data;

  g_atomic_ref_count_inc (&multi->alive);
  return multi;
}

static void
multi_alive_unref (gpointer data)
{
  ZkrMultiLock *multi = data;

  if (!g_atomic_ref_count_dec (&multi->alive))
    return;
  zkr_session_unref (multi->session);
  g_strfreev (multi->paths);
  g_free (multi->members);
  g_mutex_clear (&multi->mutex);
  g_free (multi);
}

/* Worker thread: folds one entry's event into the whole's. Emits under
 * the mutex, so that once disposed is set no emit can still be under way. */
static void
member_relay_loss (gpointer queue, ZkrLockEvent event, gpointer user_data)
{
  Member *member = user_data;
  ZkrMultiLock *multi = member->multi;
  gboolean emit = FALSE;

  (void) queue;
  g_mutex_lock (&multi->mutex);
  if (multi->held && !multi->disposed)
    {
      switch (event)
        {
        case ZKR_LOCK_IN_DOUBT:
          if (!member->in_doubt)
            {
              member->in_doubt = TRUE;
              emit = multi->in_doubt++ == 0;
            }
          break;
        case ZKR_LOCK_RESTORED:
          if (member->in_doubt)
            {
              member->in_doubt = FALSE;
              emit = --multi->in_doubt == 0;
            }
          break;
        case ZKR_LOCK_LOST:
        default:
          multi->held = FALSE;
          emit = TRUE;
          break;
        }
      if (emit)
        zkr__notifier_emit (multi->loss, event);
    }
  g_mutex_unlock (&multi->mutex);
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The paths sorted, or NULL with INVALID_ARGUMENT naming the bad one. */
static char **
paths_sorted (const char *const *paths, GError **error)
{
  g_auto (GStrv) sorted = NULL;
  guint n = paths != NULL ? g_strv_length ((char **) paths) : 0;

  if (n == 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "a multi-lock needs at least one path: the list is empty");
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    {
      if (!zkr__path_validate (paths[i], error))
        return NULL;
      if (strcmp (paths[i], "/") == 0)
        {
          g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                       "invalid mutex path \"/\": a lock needs a path of its own");
          return NULL;
        }
    }
  sorted = g_strdupv ((char **) paths);
  qsort (sorted, n, sizeof (char *), compare_paths);
  for (guint i = 1; i < n; i++)
    if (strcmp (sorted[i - 1], sorted[i]) == 0)
      {
        g_autofree char *quoted = zkr__path_quote_value (sorted[i], -1);

        g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                     "path %s is listed twice in a multi-lock", quoted);
        return NULL;
      }
  return g_steal_pointer (&sorted);
}

ZkrMultiLock *
zkr_multi_lock_new (ZkrSession *session, const char *const *paths, GError **error)
{
  ZkrMultiLock *multi;
  char **sorted;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  sorted = paths_sorted (paths, error);
  if (sorted == NULL)
    return NULL;
  multi = g_new0 (ZkrMultiLock, 1);
  g_atomic_ref_count_init (&multi->ref);
  g_atomic_ref_count_init (&multi->alive);
  multi->session = zkr_session_ref (session);
  multi->paths = sorted;
  multi->n_members = g_strv_length (sorted);
  multi->members = g_new0 (Member, multi->n_members);
  multi->loss = zkr__notifier_new (multi, multi_alive_ref, multi_alive_unref,
                                   zkr__queue_hold_loss_marshal);
  g_mutex_init (&multi->mutex);
  for (guint i = 0; i < multi->n_members; i++)
    {
      Member *member = &multi->members[i];

      member->multi = multi;
      /* Validated above: this cannot fail. */
      member->queue = zkr__queue_lock_new (session, sorted[i], &zkr__queue_mutex_recipe, NULL,
                                           NULL);
      zkr__queue_lock_set_loss_hook (member->queue, member_relay_loss, member);
    }
  return multi;
}

ZkrMultiLock *
zkr_multi_lock_ref (ZkrMultiLock *multi)
{
  g_return_val_if_fail (multi != NULL, NULL);
  g_atomic_ref_count_inc (&multi->ref);
  return multi;
}

/* Worker thread, after every entry's own free ran (posts run in order):
 * no hook can reach the members any more. */
static gboolean
multi_finalize_in_worker (gpointer data)
{
  multi_alive_unref (data);
  return G_SOURCE_REMOVE;
}

void
zkr_multi_lock_unref (ZkrMultiLock *multi)
{
  ZkrNotifier *loss;

  g_return_if_fail (multi != NULL);
  if (!g_atomic_ref_count_dec (&multi->ref))
    return;
  g_mutex_lock (&multi->mutex);
  multi->disposed = TRUE;
  multi->held = FALSE;
  loss = g_steal_pointer (&multi->loss);
  g_mutex_unlock (&multi->mutex);
  zkr__notifier_free (loss);
  /* Entries still held are released in the background, in reverse. */
  for (guint i = multi->n_members; i > 0; i--)
    zkr__queue_lock_free (multi->members[i - 1].queue);
  zkr__session_post (multi->session, multi_finalize_in_worker, multi, NULL);
}

const char *const *
zkr_multi_lock_get_paths (ZkrMultiLock *multi)
{
  g_return_val_if_fail (multi != NULL, NULL);
  return (const char *const *) multi->paths;
}

/* ==== acquiring, in the caller's context ============================== */

typedef struct {
  ZkrMultiLock *multi;       /* (owned) */
  GTask *task;               /* (owned) the caller's */
  gboolean try_once;
  gint64 deadline;           /* monotonic µs; G_MAXINT64: none */
  GCancellable *cancellable; /* (owned) (nullable) */
  guint next;                /* the member being acquired */
  GError *error;             /* (owned) (nullable) the failure to report */
} AcquireOp;

static void
acquire_op_end (AcquireOp *op, gboolean held)
{
  ZkrMultiLock *multi = op->multi;
  gboolean suspended = held && zkr_session_get_state (multi->session) ==
                               ZKR_SESSION_STATE_SUSPENDED;

  g_mutex_lock (&multi->mutex);
  multi->busy = FALSE;
  multi->held = held;
  /* Granted while the connection is down: every entry is in doubt (the
   * engine tells each one's RESTORED or LOST later), and so is the whole,
   * though its entries' IN_DOUBT came before it was held. */
  multi->in_doubt = suspended ? multi->n_members : 0;
  for (guint i = 0; i < multi->n_members; i++)
    multi->members[i].in_doubt = suspended;
  if (suspended)
    zkr__notifier_emit (multi->loss, ZKR_LOCK_IN_DOUBT);
  g_mutex_unlock (&multi->mutex);
  if (held)
    g_task_return_boolean (op->task, TRUE);
  else
    g_task_return_error (op->task, g_steal_pointer (&op->error));
  g_object_unref (op->task);
  g_clear_object (&op->cancellable);
  zkr_multi_lock_unref (multi);
  g_free (op);
}

/* Gives back what was taken, newest first, without waiting for the
 * server: the caller is answered by its deadline whatever the connection
 * does, and the deletes go on in the background, sent before the answer
 * (docs/design.md §5.2). */
static void
acquire_op_fail (AcquireOp *op, GError *error)
{
  g_prefix_error (&error, "multi-lock: ");
  op->error = error;
  for (guint i = op->next; i > 0; i--)
    (void) zkr__queue_release_in_background (op->multi->members[i - 1].queue);
  acquire_op_end (op, FALSE);
}

static void acquire_op_step (AcquireOp *op);

static void
acquire_op_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AcquireOp *op = user_data;
  GError *error = NULL;

  (void) source;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      acquire_op_fail (op, error);
      return;
    }
  op->next++;
  acquire_op_step (op);
}

static void
acquire_op_step (AcquireOp *op)
{
  ZkrMultiLock *multi = op->multi;
  int timeout_ms = op->try_once ? 0 : -1;
  GTask *task;

  if (op->next == multi->n_members)
    {
      /* A lock taken first may have been lost while we waited for a later
       * one: then we do not hold them all. */
      for (guint i = 0; i < multi->n_members; i++)
        if (!zkr__queue_lock_is_held (multi->members[i].queue))
          {
            acquire_op_fail (op, g_error_new (ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
                                              "%s was lost while acquiring the others",
                                              multi->paths[i]));
            return;
          }
      acquire_op_end (op, TRUE);
      return;
    }
  if (!op->try_once && op->deadline != G_MAXINT64)
    {
      gint64 left = op->deadline - g_get_monotonic_time ();

      if (left <= 0)
        {
          acquire_op_fail (op, g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                                            "timed out before acquiring %s",
                                            multi->paths[op->next]));
          return;
        }
      timeout_ms = (int) MIN ((left + 999) / 1000, G_MAXINT);
    }
  task = g_task_new (NULL, NULL, acquire_op_acquired, op);
  g_task_set_check_cancellable (task, FALSE);
  zkr__queue_lock_acquire (multi->members[op->next].queue, timeout_ms, op->cancellable, task);
}

/* Claims the multi-lock for an acquire: nothing running, nothing held. */
static gboolean
multi_claim (ZkrMultiLock *multi, GError **error)
{
  gboolean free_to_go = TRUE;

  g_mutex_lock (&multi->mutex);
  if (multi->busy)
    free_to_go = FALSE;
  for (guint i = 0; free_to_go && i < multi->n_members; i++)
    free_to_go = !zkr__queue_lock_is_busy (multi->members[i].queue);
  if (free_to_go)
    multi->busy = TRUE;
  g_mutex_unlock (&multi->mutex);
  if (!free_to_go)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD,
                 "multi-lock on %s...: already held or being acquired by this object "
                 "(release first)", multi->paths[0]);
  return free_to_go;
}

void
zkr_multi_lock_acquire_async (ZkrMultiLock *multi, int timeout_ms, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  GError *error = NULL;
  AcquireOp *op;
  GTask *task;

  g_return_if_fail (multi != NULL);
  zkr__context_assert_user ("zkr_multi_lock_acquire_async() called");
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zkr_multi_lock_acquire_async);
  g_task_set_name (task, "zkr_multi_lock_acquire");
  /* As the mutex: a cancel is reported once our nodes are gone. */
  g_task_set_check_cancellable (task, FALSE);
  if (!multi_claim (multi, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  op = g_new0 (AcquireOp, 1);
  op->multi = zkr_multi_lock_ref (multi);
  op->task = task;
  op->try_once = timeout_ms == 0;
  op->deadline = timeout_ms > 0 ? g_get_monotonic_time () + (gint64) timeout_ms * 1000
                                : G_MAXINT64;
  op->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  acquire_op_step (op);
}

gboolean
zkr_multi_lock_acquire_finish (ZkrMultiLock *multi, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (multi != NULL, FALSE);
  g_return_val_if_fail (G_IS_TASK (result), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (result, zkr_multi_lock_acquire_async), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
acquire_start (gpointer object, int timeout_ms, GCancellable *cancellable,
               GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_multi_lock_acquire_async (object, timeout_ms, cancellable, callback, user_data);
}

gboolean
zkr_multi_lock_acquire (ZkrMultiLock *multi, int timeout_ms, GCancellable *cancellable,
                        GError **error)
{
  g_return_val_if_fail (multi != NULL, FALSE);
  g_return_val_if_fail (!zkr__session_in_worker (multi->session), FALSE);
  return zkr__queue_task_run_sync (multi, acquire_start, timeout_ms, cancellable, error);
}

/* ==== releasing, in the caller's context ============================== */

typedef struct {
  ZkrMultiLock *multi;   /* (owned) */
  GTask *task;           /* (owned) the caller's */
  guint outstanding;     /* member releases not answered yet */
  GError **failures;     /* (owned) per member: its release's error */
  GString *lost;         /* (owned) (nullable) the paths no longer held */
  guint released;        /* member releases started */
} ReleaseOp;

/* The answer once every member's release answered: the first failure,
 * newest lock first (as the blocking release used to meet them), else
 * NOT_HELD naming the locks that were lost, else TRUE. */
static void
release_op_end (ReleaseOp *op)
{
  ZkrMultiLock *multi = op->multi;
  GError *error = NULL;

  for (guint i = multi->n_members; i > 0; i--)
    if (error == NULL)
      error = g_steal_pointer (&op->failures[i - 1]);
    else
      g_clear_error (&op->failures[i - 1]);
  if (error == NULL && op->lost != NULL)
    g_set_error (&error, ZKR_ERROR, ZKR_ERROR_NOT_HELD,
                 op->released == 0 ? "multi-lock on %s: not held"
                                   : "multi-lock: %s not held (lost); the others were released",
                 op->lost->str);
  zkr__queue_task_answer (op->task, error);
  if (op->lost != NULL)
    g_string_free (op->lost, TRUE);
  g_free (op->failures);
  zkr_multi_lock_unref (multi);
  g_free (op);
}

static void
release_op_member_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ReleaseOp *op = user_data;
  guint index = GPOINTER_TO_UINT (g_task_get_task_data (G_TASK (result)));

  (void) source;
  (void) g_task_propagate_boolean (G_TASK (result), &op->failures[index]);
  if (--op->outstanding == 0)
    release_op_end (op);
}

/* Starts the release of every member still held, all at once, newest
 * first; the answer comes when the last of them answered. */
static void
release_op_start (ReleaseOp *op, GCancellable *cancellable)
{
  ZkrMultiLock *multi = op->multi;

  op->outstanding = 1; /* this function's own, so no answer comes before the last start */
  for (guint i = multi->n_members; i > 0; i--)
    {
      ZkrQueueLock *queue = multi->members[i - 1].queue;
      GTask *task;

      if (!zkr__queue_lock_is_held (queue))
        {
          if (op->lost == NULL)
            op->lost = g_string_new (multi->paths[i - 1]);
          else
            g_string_append_printf (op->lost, ", %s", multi->paths[i - 1]);
          continue;
        }
      op->released++;
      op->outstanding++;
      task = zkr__queue_task_new (NULL, release_op_member_done, op, release_op_start,
                                  "zkr_multi_lock_release");
      g_task_set_task_data (task, GUINT_TO_POINTER (i - 1), NULL);
      zkr__queue_release_async (queue, cancellable, task);
    }
  if (--op->outstanding == 0)
    release_op_end (op);
}

void
zkr_multi_lock_release_async (ZkrMultiLock *multi, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  ReleaseOp *op;
  GTask *task;
  gboolean busy;

  g_return_if_fail (multi != NULL);
  zkr__context_assert_user ("zkr_multi_lock_release_async() called");
  task = zkr__queue_task_new (cancellable, callback, user_data, zkr_multi_lock_release_async,
                              "zkr_multi_lock_release");
  g_mutex_lock (&multi->mutex);
  busy = multi->busy;
  if (!busy)
    multi->held = FALSE;
  g_mutex_unlock (&multi->mutex);
  if (busy)
    {
      zkr__queue_task_answer (task, g_error_new (ZKR_ERROR, ZKR_ERROR_NOT_HELD,
                                                 "multi-lock on %s...: not held, being acquired "
                                                 "(cancel it instead)", multi->paths[0]));
      return;
    }
  op = g_new0 (ReleaseOp, 1);
  op->multi = zkr_multi_lock_ref (multi);
  op->task = task;
  op->failures = g_new0 (GError *, multi->n_members);
  release_op_start (op, cancellable);
}

gboolean
zkr_multi_lock_release_finish (ZkrMultiLock *multi, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (multi != NULL, FALSE);
  return zkr__queue_task_finish (result, zkr_multi_lock_release_async, error);
}

static void
release_start (gpointer object, GCancellable *cancellable, GAsyncReadyCallback callback,
               gpointer user_data)
{
  zkr_multi_lock_release_async (object, cancellable, callback, user_data);
}

/* The async release run to its answer: every member's delete is sent at
 * once rather than one round trip after another. */
gboolean
zkr_multi_lock_release (ZkrMultiLock *multi, GError **error)
{
  GAsyncResult *result;
  gboolean ok;

  g_return_val_if_fail (multi != NULL, FALSE);
  g_return_val_if_fail (!zkr__session_in_worker (multi->session), FALSE);
  result = zkr__context_run_sync (release_start, multi, NULL);
  ok = zkr_multi_lock_release_finish (multi, result, error);
  g_object_unref (result);
  return ok;
}

/* ==== holding ========================================================= */

gboolean
zkr_multi_lock_is_release_pending (ZkrMultiLock *multi)
{
  g_return_val_if_fail (multi != NULL, FALSE);
  for (guint i = 0; i < multi->n_members; i++)
    if (zkr__queue_release_is_pending (multi->members[i].queue))
      return TRUE;
  return FALSE;
}

gboolean
zkr_multi_lock_is_held (ZkrMultiLock *multi)
{
  gboolean held;

  g_return_val_if_fail (multi != NULL, FALSE);
  g_mutex_lock (&multi->mutex);
  held = multi->held;
  g_mutex_unlock (&multi->mutex);
  for (guint i = 0; held && i < multi->n_members; i++)
    held = zkr__queue_lock_is_held (multi->members[i].queue);
  return held;
}

/* The entry of @path, or NULL. */
static ZkrQueueLock *
member_of (ZkrMultiLock *multi, const char *path)
{
  if (path == NULL)
    return NULL;
  for (guint i = 0; i < multi->n_members; i++)
    if (strcmp (multi->paths[i], path) == 0)
      return multi->members[i].queue;
  return NULL;
}

gint64
zkr_multi_lock_get_fencing_token (ZkrMultiLock *multi, const char *path)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (multi != NULL, 0);
  queue = member_of (multi, path);
  return queue != NULL ? zkr__queue_lock_get_token (queue) : 0;
}

char *
zkr_multi_lock_dup_node_path (ZkrMultiLock *multi, const char *path)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (multi != NULL, NULL);
  queue = member_of (multi, path);
  return queue != NULL ? zkr__queue_lock_dup_node_path (queue) : NULL;
}

gboolean
zkr_multi_lock_verify (ZkrMultiLock *multi, GCancellable *cancellable, GError **error)
{
  gboolean held;

  g_return_val_if_fail (multi != NULL, FALSE);
  g_return_val_if_fail (!zkr__session_in_worker (multi->session), FALSE);
  g_mutex_lock (&multi->mutex);
  held = multi->held;
  g_mutex_unlock (&multi->mutex);
  /* Lost (or released) as a whole: say so, whatever its entries' state. */
  if (!held)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD, "multi-lock on %s...: not held",
                   multi->paths[0]);
      return FALSE;
    }
  for (guint i = 0; i < multi->n_members; i++)
    if (!zkr__queue_lock_verify (multi->members[i].queue, cancellable, error))
      return FALSE;
  return TRUE;
}

guint
zkr_multi_lock_add_loss_listener (ZkrMultiLock *multi, ZkrLockLossFunc func,
                                  gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (multi != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__notifier_add (multi->loss, (GCallback) (void (*) (void)) func, user_data, destroy);
}

void
zkr_multi_lock_remove_loss_listener (ZkrMultiLock *multi, guint listener_id)
{
  g_return_if_fail (multi != NULL);
  zkr__notifier_remove (multi->loss, listener_id);
}

GPtrArray *
zkr_multi_lock_list_participants (ZkrMultiLock *multi, const char *path,
                                  GCancellable *cancellable, GError **error)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (multi != NULL, NULL);
  queue = member_of (multi, path);
  if (queue == NULL)
    {
      g_autofree char *quoted = zkr__path_quote_value (path != NULL ? path : "(null)", -1);

      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "path %s is not one of this multi-lock's", quoted);
      return NULL;
    }
  return zkr__queue_participants_list_for_lock (queue, cancellable, error);
}
