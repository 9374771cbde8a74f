/* zkr: the counting semaphore, Curator's InterProcessSemaphoreV2: a mutex
 * on PATH/locks (the queue engine's mutex recipe) serializes lease
 * creation; each lease is a queue entry on PATH/leases whose predicate is
 * "children <= max". Several leases are taken one after the other under
 * one deadline, all or none.
 *
 * Threads: the acquire steps run in the caller's GMainContext, chained by
 * GTasks; blocking releases run on GTask pool threads, ZooKeeper logic on
 * the session's worker (in the engine). */

#include <string.h>

#include "context.h"
#include "counter-private.h"
#include "error-private.h"
#include "log.h"
#include "nodename.h"
#include "notifier.h"
#include "path.h"
#include "semaphore-private.h"
#include "session-private.h"

#include <zkr/node.h>
#include <zkr/semaphore.h>

#define LOCKS_CHILD "locks"
#define LEASES_CHILD "leases"
#define LEASE_NAME "lease-"

struct _ZkrSemaphore {
  gatomicrefcount ref;
  ZkrSession *session;   /* (owned) */
  char *path;            /* as given */
  char *locks_path;      /* "<path>/locks", as given */
  char *leases_path;     /* "<path>/leases", as given */
  char *count_path;      /* (nullable) the shared count node, as given */
  gint max_leases;       /* atomic: the lease predicate reads it on the worker */
  ZkrNotifier *loss;
};

struct _ZkrLease {
  ZkrSemaphore *semaphore;  /* (owned) dropped on the worker, after queue */
  ZkrQueueLock *queue;      /* (owned) */
};

/* ==== the pure parts ================================================== */

gboolean
zkr__semaphore_predicate_lease (GPtrArray *sorted, guint ours, const char **wait_on,
                                gpointer data)
{
  (void) ours;
  (void) wait_on;
  /* Compared as signed: a shared count of 0 or below lets nobody through. */
  return (gint64) sorted->len <= (gint64) g_atomic_int_get ((gint *) data);
}

gboolean
zkr__semaphore_predicate_listing (GPtrArray *sorted, guint ours, const char **wait_on,
                                  gpointer data)
{
  (void) sorted;
  (void) wait_on;
  return (gint64) ours < (gint64) g_atomic_int_get ((gint *) data);
}

const ZkrQueueRecipe zkr__semaphore_lease_recipe = {
  .lock_name = LEASE_NAME,
  .sort = zkr__nodename_sort_up_to,
  .predicate = zkr__semaphore_predicate_lease,
  .kind = "semaphore lease",
};

const ZkrQueueRecipe zkr__semaphore_listing_recipe = {
  .lock_name = LEASE_NAME,
  .sort = zkr__nodename_sort_up_to,
  .predicate = zkr__semaphore_predicate_listing,
  .kind = "semaphore lease",
};

/* ==== the object ====================================================== */

static ZkrSemaphore *
semaphore_new (ZkrSession *session, const char *path, GError **error)
{
  g_autofree char *locks_path = NULL;
  g_autofree char *leases_path = NULL;
  ZkrSemaphore *semaphore;

  if (!zkr__path_validate (path, error))
    return NULL;
  if (strcmp (path, "/") == 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid semaphore path \"/\": a semaphore needs a path of its own");
      return NULL;
    }
  locks_path = zkr__path_join (path, LOCKS_CHILD);
  leases_path = zkr__path_join (path, LEASES_CHILD);
  /* A path near the length limit may not leave room for the children. */
  if (!zkr__path_validate (locks_path, error) || !zkr__path_validate (leases_path, error))
    return NULL;
  semaphore = g_new0 (ZkrSemaphore, 1);
  g_atomic_ref_count_init (&semaphore->ref);
  semaphore->session = zkr_session_ref (session);
  semaphore->path = g_strdup (path);
  semaphore->locks_path = g_steal_pointer (&locks_path);
  semaphore->leases_path = g_steal_pointer (&leases_path);
  semaphore->loss = zkr__notifier_new (semaphore, (gpointer (*) (gpointer)) zkr_semaphore_ref,
                                       (void (*) (gpointer)) zkr_semaphore_unref,
                                       zkr__queue_hold_loss_marshal);
  return semaphore;
}

ZkrSemaphore *
zkr_semaphore_new (ZkrSession *session, const char *path, guint max_leases, GError **error)
{
  ZkrSemaphore *semaphore;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (max_leases == 0 || max_leases > G_MAXINT)
    {
      g_autofree char *quoted = zkr__path_quote_value (path, -1);

      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid max leases %u for semaphore %s: must be 1 to %d", max_leases,
                   quoted, G_MAXINT);
      return NULL;
    }
  semaphore = semaphore_new (session, path, error);
  if (semaphore != NULL)
    semaphore->max_leases = (gint) max_leases;
  return semaphore;
}

/* Blocking read of the count node (not on the worker): a node call sent
 * once (timeout 0), @cancellable armed as every node call's. */
static gboolean
count_read_sync (ZkrSession *session, const char *count_path, GCancellable *cancellable,
                 gint *count, GError **error)
{
  g_autoptr (GBytes) data = NULL;
  g_autoptr (GError) local = NULL;

  data = zkr_node_get (session, count_path, 0, cancellable, NULL, &local);
  if (data == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "read count node %s: ",
                                  count_path);
      return FALSE;
    }
  return zkr__shared_count_decode (data, count_path, count, error);
}

ZkrSemaphore *
zkr_semaphore_new_shared_count (ZkrSession *session, const char *path, const char *count_path,
                                GCancellable *cancellable, GError **error)
{
  ZkrSemaphore *semaphore;
  gint count = 0;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (count_path != NULL, NULL);
  g_return_val_if_fail (!zkr__session_in_worker (session), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!zkr__path_validate (count_path, error))
    return NULL;
  /* Both paths are checked before anything is sent. */
  semaphore = semaphore_new (session, path, error);
  if (semaphore == NULL)
    return NULL;
  if (!count_read_sync (session, count_path, cancellable, &count, error))
    {
      zkr_semaphore_unref (semaphore);
      return NULL;
    }
  semaphore->count_path = g_strdup (count_path);
  g_atomic_int_set (&semaphore->max_leases, count);
  return semaphore;
}

ZkrSemaphore *
zkr_semaphore_ref (ZkrSemaphore *semaphore)
{
  g_return_val_if_fail (semaphore != NULL, NULL);
  g_atomic_ref_count_inc (&semaphore->ref);
  return semaphore;
}

void
zkr_semaphore_unref (ZkrSemaphore *semaphore)
{
  g_return_if_fail (semaphore != NULL);
  if (!g_atomic_ref_count_dec (&semaphore->ref))
    return;
  zkr__notifier_free (semaphore->loss);
  zkr_session_unref (semaphore->session);
  g_free (semaphore->path);
  g_free (semaphore->locks_path);
  g_free (semaphore->leases_path);
  g_free (semaphore->count_path);
  g_free (semaphore);
}

int
zkr_semaphore_get_max_leases (ZkrSemaphore *semaphore)
{
  g_return_val_if_fail (semaphore != NULL, 0);
  return g_atomic_int_get (&semaphore->max_leases);
}

guint
zkr_semaphore_add_loss_listener (ZkrSemaphore *semaphore, ZkrLockLossFunc func,
                                 gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (semaphore != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__notifier_add (semaphore->loss, (GCallback) (void (*) (void)) func, user_data, destroy);
}

void
zkr_semaphore_remove_loss_listener (ZkrSemaphore *semaphore, guint listener_id)
{
  g_return_if_fail (semaphore != NULL);
  zkr__notifier_remove (semaphore->loss, listener_id);
}

GPtrArray *
zkr_semaphore_list_participants (ZkrSemaphore *semaphore, GCancellable *cancellable,
                                 GError **error)
{
  g_return_val_if_fail (semaphore != NULL, NULL);
  g_return_val_if_fail (!zkr__session_in_worker (semaphore->session), NULL);
  return zkr__queue_participants_list (semaphore->session, semaphore->leases_path,
                                       &zkr__semaphore_listing_recipe, &semaphore->max_leases,
                                       cancellable, error);
}

/* ==== leases ========================================================== */

/* Worker thread: a lease's loss event goes to the semaphore's listeners. */
static void
lease_relay_loss (gpointer queue, ZkrLockEvent event, gpointer user_data)
{
  ZkrLease *lease = user_data;

  (void) queue;
  zkr__notifier_emit (lease->semaphore->loss, event);
}

static ZkrLease *
lease_new (ZkrSemaphore *semaphore)
{
  ZkrLease *lease = g_new0 (ZkrLease, 1);

  lease->semaphore = zkr_semaphore_ref (semaphore);
  /* The path was validated with the semaphore's: this cannot fail. */
  lease->queue = zkr__queue_lock_new (semaphore->session, semaphore->leases_path,
                                      &zkr__semaphore_lease_recipe, &semaphore->max_leases,
                                      NULL);
  zkr__queue_lock_set_loss_hook (lease->queue, lease_relay_loss, lease);
  return lease;
}

/* Worker thread, after the queue entry's own free ran (posts run in
 * order): no loss hook can reach @lease any more. */
static gboolean
lease_finalize (gpointer data)
{
  ZkrLease *lease = data;

  zkr_semaphore_unref (lease->semaphore);
  g_free (lease);
  return G_SOURCE_REMOVE;
}

void
zkr_lease_free (ZkrLease *lease)
{
  if (lease == NULL)
    return;
  zkr__queue_lock_free (lease->queue);
  zkr__session_post (lease->semaphore->session, lease_finalize, lease, NULL);
}

gboolean
zkr_lease_release (ZkrLease *lease, GError **error)
{
  g_return_val_if_fail (lease != NULL, FALSE);
  return zkr__queue_release_sync (lease->queue, error);
}

void
zkr_lease_release_async (ZkrLease *lease, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (lease != NULL);
  zkr__context_assert_user ("zkr_lease_release_async() called");
  zkr__queue_release_async (lease->queue, cancellable,
                            zkr__queue_task_new (cancellable, callback, user_data,
                                                 zkr_lease_release_async,
                                                 "zkr_lease_release"));
}

gboolean
zkr_lease_release_finish (ZkrLease *lease, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (lease != NULL, FALSE);
  return zkr__queue_task_finish (result, zkr_lease_release_async, error);
}

gboolean
zkr_lease_is_release_pending (ZkrLease *lease)
{
  g_return_val_if_fail (lease != NULL, FALSE);
  return zkr__queue_release_is_pending (lease->queue);
}

gboolean
zkr_lease_is_held (ZkrLease *lease)
{
  g_return_val_if_fail (lease != NULL, FALSE);
  return zkr__queue_lock_is_held (lease->queue);
}

gint64
zkr_lease_get_fencing_token (ZkrLease *lease)
{
  g_return_val_if_fail (lease != NULL, 0);
  return zkr__queue_lock_get_token (lease->queue);
}

char *
zkr_lease_dup_node_path (ZkrLease *lease)
{
  g_return_val_if_fail (lease != NULL, NULL);
  return zkr__queue_lock_dup_node_path (lease->queue);
}

gboolean
zkr_lease_verify (ZkrLease *lease, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (lease != NULL, FALSE);
  return zkr__queue_lock_verify (lease->queue, cancellable, error);
}

/* ==== acquiring: one round per lease, in the caller's context ========= */

typedef struct {
  ZkrSemaphore *semaphore;   /* (owned) */
  GTask *task;               /* (owned) the caller's */
  guint count;
  gboolean try_once;
  gint64 deadline;           /* monotonic µs; G_MAXINT64: none */
  GCancellable *cancellable; /* (owned) (nullable) */
  ZkrQueueLock *locks;       /* (owned) our entry in locks/ */
  ZkrLease *pending;         /* (owned) (nullable) the lease being acquired */
  ZkrDataWatch *count_watch; /* (owned) (nullable) while @pending waits */
  GPtrArray *leases;         /* (owned) of ZkrLease, taken so far */
  GError *error;             /* (owned) (nullable) the failure to report */
} AcquireOp;

static void
acquire_op_free (AcquireOp *op)
{
  zkr__data_watch_stop (g_steal_pointer (&op->count_watch));
  zkr__queue_lock_free (op->locks);
  zkr_lease_free (op->pending);
  g_ptr_array_unref (op->leases);
  g_clear_error (&op->error);
  g_clear_object (&op->cancellable);
  g_clear_object (&op->task);
  zkr_semaphore_unref (op->semaphore);
  g_free (op);
}

/* The timeout for the next step: 0 (try once), -1 (none), or what is left
 * of the deadline; FALSE when nothing is left. */
static gboolean
acquire_op_time_left (AcquireOp *op, int *timeout_ms)
{
  gint64 left;

  if (op->try_once || op->deadline == G_MAXINT64)
    {
      *timeout_ms = op->try_once ? 0 : -1;
      return TRUE;
    }
  left = op->deadline - g_get_monotonic_time ();
  if (left <= 0)
    return FALSE;
  *timeout_ms = (int) MIN ((left + 999) / 1000, G_MAXINT);
  return TRUE;
}

static GTask *
step_task (AcquireOp *op, GAsyncReadyCallback done)
{
  GTask *task = g_task_new (NULL, NULL, done, op);

  /* The engine reports cancellation itself, after our node is gone. */
  g_task_set_check_cancellable (task, FALSE);
  return task;
}

/* Ends the acquire with @error, giving back the leases taken so far,
 * newest first, without waiting for the server: the caller is answered by
 * its deadline whatever the connection does, and the deletes go on in the
 * background, sent before the answer (docs/design.md §5.2). */
static void
acquire_op_fail (AcquireOp *op, GError *error)
{
  g_prefix_error (&error, "semaphore %s: ", op->semaphore->path);
  for (guint i = op->leases->len; i > 0; i--)
    (void) zkr__queue_release_in_background (
      ((ZkrLease *) g_ptr_array_index (op->leases, i - 1))->queue);
  g_task_return_error (op->task, error);
  acquire_op_free (op);
}

static void
acquire_op_succeed (AcquireOp *op)
{
  /* A lease taken in an earlier round may have been lost while we waited
   * for a later one: then the whole acquire fails. */
  for (guint i = 0; i < op->leases->len; i++)
    if (!zkr_lease_is_held (g_ptr_array_index (op->leases, i)))
      {
        acquire_op_fail (op, g_error_new (ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
                                          "lease %u of %u was lost while acquiring the others",
                                          i + 1, op->count));
        return;
      }
  g_task_return_pointer (op->task, g_steal_pointer (&op->leases),
                         (GDestroyNotify) g_ptr_array_unref);
  op->leases = g_ptr_array_new ();
  acquire_op_free (op);
}

static void acquire_op_round (AcquireOp *op);

/* Curator's order: our lease node is through (or already deleted by the
 * engine on failure) before the locks/ mutex is let go. Its delete is sent
 * and goes on in the background: waiting for it would make the caller's
 * answer wait on the connection (a paused server, a dead link), and what
 * we hold does not depend on it. The next round's acquire of locks/ is
 * queued behind that delete (one session's requests go in order). */
static void
acquire_op_release_locks (AcquireOp *op)
{
  (void) zkr__queue_release_in_background (op->locks);
  if (op->error != NULL)
    acquire_op_fail (op, g_steal_pointer (&op->error));
  else if (op->leases->len == op->count)
    acquire_op_succeed (op);
  else
    acquire_op_round (op);
}

/* ==== the shared count, watched while a lease waits ==================
 *
 * A lease waiting for a free slot must also wake when the shared count
 * grows (Curator's SharedCount listener does the same): while it waits, a
 * data watch on the count node (core) re-reads the count on every change
 * and asks the lease's queue entry to evaluate again. */

/* Worker thread, while the watch is active (so @op and its pending lease
 * are alive: the caller stops the watch before changing either). */
static void
acquire_op_count_changed (ZkrSession *session, GBytes *data, gpointer user_data)
{
  AcquireOp *op = user_data;
  ZkrSemaphore *semaphore = op->semaphore;
  g_autoptr (GError) error = NULL;
  gint count;

  (void) session;
  if (zkr__shared_count_decode (data, semaphore->count_path, &count, &error))
    {
      g_atomic_int_set (&semaphore->max_leases, count);
      zkr__queue_acquire_reevaluate (op->pending->queue);
    }
  else
    g_warning ("semaphore %s: %s: max leases stay %d", semaphore->path, error->message,
               g_atomic_int_get (&semaphore->max_leases));
}

static void
acquire_op_lease_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AcquireOp *op = user_data;
  GError *error = NULL;

  (void) source;
  zkr__data_watch_stop (g_steal_pointer (&op->count_watch));
  if (g_task_propagate_boolean (G_TASK (result), &error))
    g_ptr_array_add (op->leases, g_steal_pointer (&op->pending));
  else
    {
      op->error = error;
      g_clear_pointer (&op->pending, zkr_lease_free);
    }
  acquire_op_release_locks (op);
}

static void
acquire_op_take_lease (AcquireOp *op)
{
  int timeout_ms = 0;

  if (!acquire_op_time_left (op, &timeout_ms))
    {
      op->error = g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT, "timed out acquiring %u leases",
                               op->count);
      acquire_op_release_locks (op);
      return;
    }
  op->pending = lease_new (op->semaphore);
  if (op->semaphore->count_path != NULL && !op->try_once)
    {
      g_autofree char *count_full = zkr__session_resolve_path (op->semaphore->session,
                                                               op->semaphore->count_path);
      op->count_watch = zkr__data_watch_start (op->semaphore->session, count_full,
                                               acquire_op_count_changed, op);
    }
  zkr__queue_lock_acquire (op->pending->queue, timeout_ms, op->cancellable,
                           step_task (op, acquire_op_lease_acquired));
}

static void
acquire_op_count_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  (void) source;
  (void) result;
  acquire_op_take_lease (user_data);
}

/* In the acquire's context: the count was read (or not). */
static gboolean
count_read_return (gpointer data)
{
  g_task_return_boolean (data, TRUE);
  return G_SOURCE_REMOVE;
}

/* Worker thread: the count node's data; a failed read keeps the last
 * count (see zkr_semaphore_new_shared_count()). */
static void
count_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  GTask *task = user_data;
  ZkrSemaphore *semaphore = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  gint count;

  (void) session;
  if (reply->rc != ZOK)
    zkr__debug ("semaphore %s: count node %s not read (%s): max leases stay %d", semaphore->path,
             semaphore->count_path, zkr__error_zk_name (reply->rc),
             g_atomic_int_get (&semaphore->max_leases));
  else if (!zkr__shared_count_decode (reply->data, semaphore->count_path, &count, &error))
    g_warning ("semaphore %s: %s: max leases stay %d", semaphore->path, error->message,
               g_atomic_int_get (&semaphore->max_leases));
  else
    g_atomic_int_set (&semaphore->max_leases, count);
  /* Returned and dropped in the task's own context, as the engine returns
   * its tasks: the worker never finalizes a GTask, and ThreadSanitizer
   * sees the hand-off. */
  zkr__context_post (g_task_get_context (task), count_read_return, task, g_object_unref);
}

static void
acquire_op_locks_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AcquireOp *op = user_data;
  g_autofree char *count_full = NULL;
  GError *error = NULL;
  GTask *task;

  (void) source;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      acquire_op_fail (op, error);
      return;
    }
  if (op->semaphore->count_path == NULL)
    {
      acquire_op_take_lease (op);
      return;
    }
  /* Read the shared count now that we are the only one creating leases. */
  task = g_task_new (NULL, NULL, acquire_op_count_read, op);
  g_task_set_task_data (task, op->semaphore, NULL);
  count_full = zkr__session_resolve_path (op->semaphore->session, op->semaphore->count_path);
  zkr__op_get (op->semaphore->session, count_full, FALSE, count_reply, task);
}

static void
acquire_op_round (AcquireOp *op)
{
  int timeout_ms = 0;

  if (g_cancellable_is_cancelled (op->cancellable))
    {
      acquire_op_fail (op, zkr__error_new_cancelled ("acquire %u leases of semaphore %s",
                                                     op->count, op->semaphore->path));
      return;
    }
  if (!acquire_op_time_left (op, &timeout_ms))
    {
      acquire_op_fail (op, g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                                        "timed out acquiring %u leases", op->count));
      return;
    }
  zkr__queue_lock_acquire (op->locks, timeout_ms, op->cancellable,
                           step_task (op, acquire_op_locks_acquired));
}

void
zkr_semaphore_acquire_async (ZkrSemaphore *semaphore, guint count, int timeout_ms,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data)
{
  GTask *task;
  AcquireOp *op;

  g_return_if_fail (semaphore != NULL);
  zkr__context_assert_user ("zkr_semaphore_acquire_async() called");
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zkr_semaphore_acquire_async);
  g_task_set_name (task, "zkr_semaphore_acquire");
  /* As the mutex: a cancel is reported once our nodes are gone. */
  g_task_set_check_cancellable (task, FALSE);
  if (count == 0 || count > G_MAXINT ||
      (semaphore->count_path == NULL && count > (guint) g_atomic_int_get (&semaphore->max_leases)))
    {
      g_task_return_new_error (task, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                               "semaphore %s: cannot acquire %u leases (max leases %d)",
                               semaphore->path, count, g_atomic_int_get (&semaphore->max_leases));
      g_object_unref (task);
      return;
    }
  op = g_new0 (AcquireOp, 1);
  op->semaphore = zkr_semaphore_ref (semaphore);
  op->task = task;
  op->count = count;
  op->try_once = timeout_ms == 0;
  op->deadline = timeout_ms > 0 ? g_get_monotonic_time () + (gint64) timeout_ms * 1000
                                : G_MAXINT64;
  op->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  op->leases = g_ptr_array_new_with_free_func ((GDestroyNotify) zkr_lease_free);
  op->locks = zkr__queue_lock_new (semaphore->session, semaphore->locks_path,
                                   &zkr__queue_mutex_recipe, NULL, NULL);
  acquire_op_round (op);
}

GPtrArray *
zkr_semaphore_acquire_finish (ZkrSemaphore *semaphore, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (semaphore != NULL, NULL);
  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_async_result_is_tagged (result, zkr_semaphore_acquire_async), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The blocking twin, through the engine's runner (which wants a boolean
 * task): the leases travel beside it. */
typedef struct {
  ZkrSemaphore *semaphore;
  guint count;
  GPtrArray *leases;
} SyncAcquire;

static void
sync_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *outer = user_data;
  SyncAcquire *sync = g_task_get_task_data (outer);
  GError *error = NULL;

  (void) source;
  sync->leases = zkr_semaphore_acquire_finish (sync->semaphore, result, &error);
  if (sync->leases != NULL)
    g_task_return_boolean (outer, TRUE);
  else
    g_task_return_error (outer, error);
  g_object_unref (outer);
}

static void
sync_start (gpointer object, int timeout_ms, GCancellable *cancellable,
            GAsyncReadyCallback callback, gpointer user_data)
{
  SyncAcquire *sync = object;
  GTask *outer = g_task_new (NULL, NULL, callback, user_data);

  g_task_set_check_cancellable (outer, FALSE);
  g_task_set_task_data (outer, sync, NULL);
  zkr_semaphore_acquire_async (sync->semaphore, sync->count, timeout_ms, cancellable,
                               sync_acquired, outer);
}

GPtrArray *
zkr_semaphore_acquire (ZkrSemaphore *semaphore, guint count, int timeout_ms,
                       GCancellable *cancellable, GError **error)
{
  SyncAcquire sync = { semaphore, count, NULL };

  g_return_val_if_fail (semaphore != NULL, NULL);
  g_return_val_if_fail (!zkr__session_in_worker (semaphore->session), NULL);
  if (!zkr__queue_task_run_sync (&sync, sync_start, timeout_ms, cancellable, error))
    return NULL;
  return sync.leases;
}
