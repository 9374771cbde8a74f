/* zkr: the queue engine's entry, a ZkrQueueLock (docs/design.md §3): its
 * state and the one place that changes, and the calls recipes make on it
 * (acquire in its three forms and how each hears its answer, accessors,
 * verify, free; the recipes' tasks and blocking twin are in queue-task.c).
 * Public calls may come from any thread; state read by other threads
 * (held, token, node) is behind lock->mutex. */

#include <string.h>

#include "context.h"
#include "error-private.h"
#include "queue-private.h"
#include "log.h"
#include "node-private.h"
#include "nodename.h"
#include "ops.h"
#include "path.h"
#include "wait.h"

ZkrQueueLock *
zkr__queue_lock_ref (ZkrQueueLock *lock)
{
  g_atomic_ref_count_inc (&lock->ref);
  return lock;
}

void
zkr__queue_lock_unref (ZkrQueueLock *lock)
{
  if (!g_atomic_ref_count_dec (&lock->ref))
    return;
  zkr_session_unref (lock->session);
  g_free (lock->path);
  g_free (lock->user_path);
  g_free (lock->node_path);
  g_free (lock->node_data);
  g_mutex_clear (&lock->mutex);
  g_mutex_clear (&lock->hook_lock);
  g_free (lock);
}

static const char *const lock_state_names[] = {
  [ZKR_QUEUE_LOCK_IDLE] = "IDLE",
  [ZKR_QUEUE_LOCK_ACQUIRING] = "ACQUIRING",
  [ZKR_QUEUE_LOCK_HELD] = "HELD",
  [ZKR_QUEUE_LOCK_IN_DOUBT] = "IN_DOUBT",
};

/* The edges a lock may take: an acquire starts only from IDLE and ends
 * held or not; a hold goes in doubt and back, or ends (released, lost,
 * freed). Staying put is no transition and always allowed. */
static gboolean
lock_transition_allowed (ZkrQueueLockState from, ZkrQueueLockState to)
{
  switch (to)
    {
    case ZKR_QUEUE_LOCK_ACQUIRING:
      return from == ZKR_QUEUE_LOCK_IDLE;
    case ZKR_QUEUE_LOCK_HELD:
      return from == ZKR_QUEUE_LOCK_ACQUIRING || from == ZKR_QUEUE_LOCK_IN_DOUBT;
    case ZKR_QUEUE_LOCK_IN_DOUBT:
      return from == ZKR_QUEUE_LOCK_HELD;
    case ZKR_QUEUE_LOCK_IDLE:
    default:
      return TRUE;
    }
}

/* An edge the table does not have is a bug of the engine: refused,
 * loudly. */
gboolean
zkr__queue_lock_set_state_locked (ZkrQueueLock *lock, ZkrQueueLockState to)
{
  ZkrQueueLockState from = lock->state;

  if (from == to)
    return TRUE;
  if (!lock_transition_allowed (from, to))
    {
      g_critical ("%s %s: refused %s -> %s", lock->recipe->kind, lock->user_path,
                  lock_state_names[from], lock_state_names[to]);
      return FALSE;
    }
  if (g_atomic_int_get (&lock->log_steps))
    g_debug ("%s %s: %s -> %s", lock->recipe->kind, lock->user_path, lock_state_names[from],
             lock_state_names[to]);
  lock->state = to;
  return TRUE;
}

ZkrQueueLockState
zkr__queue_lock_get_state (ZkrQueueLock *lock)
{
  ZkrQueueLockState state;

  g_mutex_lock (&lock->mutex);
  state = lock->state;
  g_mutex_unlock (&lock->mutex);
  return state;
}

ZkrQueueLock *
zkr__queue_lock_new (ZkrSession *session, const char *path,
                     const ZkrQueueRecipe *recipe, gpointer predicate_data,
                     GError **error)
{
  ZkrQueueLock *lock;

  if (!zkr__path_validate (path, error))
    return NULL;
  if (strcmp (path, "/") == 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid %s path \"/\": a lock needs a path of its own", recipe->kind);
      return NULL;
    }
  lock = g_new0 (ZkrQueueLock, 1);
  g_atomic_ref_count_init (&lock->ref);
  lock->session = zkr_session_ref (session);
  lock->path = zkr__session_resolve_path (session, path);
  lock->user_path = g_strdup (path);
  lock->recipe = recipe;
  lock->predicate_data = predicate_data;
  g_mutex_init (&lock->mutex);
  g_mutex_init (&lock->hook_lock);
  return lock;
}

const ZkrQueueRecipe zkr__queue_mutex_recipe = {
  .lock_name = ZKR_NODE_LOCK_NAME,
  .sort = zkr__nodename_sort_up_to,
  .predicate = zkr__queue_lock_predicate_first,
  .kind = "mutex",
};

gboolean
zkr__queue_lock_predicate_first (GPtrArray *sorted, guint ours, const char **wait_on, gpointer data)
{
  (void) data;
  if (ours == 0)
    return TRUE;
  *wait_on = g_ptr_array_index (sorted, ours - 1);
  return FALSE;
}

/* ==== answering an acquire ========================================== */

typedef struct {
  ZkrQueueLock *lock;      /* (owned) */
  ZkrQueueDoneFunc done;
  gpointer done_data;
  GError *error;           /* (owned) (nullable): NULL means granted */
} DoneOnWorker;

static gboolean
done_on_worker_run (gpointer data)
{
  DoneOnWorker *answer = data;

  answer->done (answer->lock, answer->error, answer->done_data);
  return G_SOURCE_REMOVE;
}

static void
done_on_worker_free (gpointer data)
{
  DoneOnWorker *answer = data;

  g_clear_error (&answer->error);
  zkr__queue_lock_unref (answer->lock);
  g_free (answer);
}

/* The blocking caller may return at once, so its ZkrQueueWait is
 * not touched after the unlock; the worker's own code is posted, never run
 * inside the call that started the acquire. */
void
zkr__queue_lock_answer (ZkrQueueLock *lock, ZkrQueueWaiter *waiter, GError *error)
{
  ZkrQueueWait *wait = g_steal_pointer (&waiter->wait);
  DoneOnWorker *answer;

  if (wait != NULL)
    {
      wait->error = error;
      zkr__wait_done (&wait->wait);
    }
  else if (waiter->done != NULL)
    {
      answer = g_new0 (DoneOnWorker, 1);
      answer->lock = zkr__queue_lock_ref (lock);
      answer->done = waiter->done;
      answer->done_data = waiter->done_data;
      answer->error = error;
      zkr__session_post (lock->session, done_on_worker_run, answer, done_on_worker_free);
    }
  else
    zkr__context_return (g_steal_pointer (&waiter->task), error);
}

/* ==== the acquire calls ============================================== */

void
zkr__queue_lock_acquire (ZkrQueueLock *lock, int timeout_ms,
                         GCancellable *cancellable, GTask *task)
{
  zkr__queue_lock_acquire_full (lock, timeout_ms, cancellable, NULL, task);
}

void
zkr__queue_lock_acquire_full (ZkrQueueLock *lock, int timeout_ms,
                              GCancellable *cancellable, const char *fixed_suffix,
                              GTask *task)
{
  GError *error = NULL;
  ZkrQueueAcquire *acquire = zkr__queue_acquire_new (lock, timeout_ms, cancellable, fixed_suffix,
                                                     &error);
  ZkrQueueWaiter waiter = { .task = task };

  if (acquire == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  zkr__queue_acquire_post_start (acquire, &waiter);
}

void
zkr__queue_lock_acquire_on_worker (ZkrQueueLock *lock, int timeout_ms, GCancellable *cancellable,
                                   ZkrQueueDoneFunc done, gpointer user_data)
{
  GError *error = NULL;
  ZkrQueueWaiter waiter = { .done = done, .done_data = user_data };
  ZkrQueueAcquire *acquire;

  g_return_if_fail (zkr__session_in_worker (lock->session));
  acquire = zkr__queue_acquire_new (lock, timeout_ms, cancellable, NULL, &error);
  if (acquire == NULL)
    {
      DoneOnWorker *answer = g_new0 (DoneOnWorker, 1);

      answer->lock = zkr__queue_lock_ref (lock);
      answer->done = done;
      answer->done_data = user_data;
      answer->error = error;
      zkr__session_post (lock->session, done_on_worker_run, answer, done_on_worker_free);
      return;
    }
  zkr__queue_acquire_post_start (acquire, &waiter);
}

gboolean
zkr__queue_lock_acquire_sync_full (ZkrQueueLock *lock, int timeout_ms,
                                   GCancellable *cancellable, const char *fixed_suffix,
                                   GError **error)
{
  ZkrQueueWait wait = { 0 };
  ZkrQueueWaiter waiter = { .wait = &wait };
  ZkrQueueAcquire *acquire;
  gint64 deadline;

  g_return_val_if_fail (!zkr__session_in_worker (lock->session), FALSE);
  acquire = zkr__queue_acquire_new (lock, timeout_ms, cancellable, fixed_suffix, error);
  if (acquire == NULL)
    return FALSE;
  /* The wait's own deadline: the acquire's, taken a moment later. */
  deadline = timeout_ms > 0 ? g_get_monotonic_time () + (gint64) timeout_ms * 1000 : G_MAXINT64;
  zkr__wait_init (&wait.wait);
  zkr__queue_acquire_post_start (acquire, &waiter);
  zkr__session_block_standing_in (lock->session, &wait.wait, deadline);
  if (wait.error != NULL)
    {
      g_propagate_error (error, wait.error);
      return FALSE;
    }
  return TRUE;
}

gboolean
zkr__queue_lock_acquire_sync (ZkrQueueLock *lock, int timeout_ms,
                              GCancellable *cancellable, GError **error)
{
  return zkr__queue_lock_acquire_sync_full (lock, timeout_ms, cancellable, NULL, error);
}

/* ==== the rest of the API ============================================= */

static gboolean
free_in_worker (gpointer data)
{
  ZkrQueueLock *lock = data;
  g_autofree char *node = NULL;

  /* Dropped while held or acquiring: give it up in the background. */
  zkr__queue_acquire_abandon (lock);
  zkr__queue_hold_stop (lock);
  g_mutex_lock (&lock->mutex);
  node = g_steal_pointer (&lock->node_path);
  zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_IDLE);
  g_mutex_unlock (&lock->mutex);
  if (node != NULL)
    zkr__guaranteed_delete (lock->session, node, NULL, NULL);
  return G_SOURCE_REMOVE;
}

void
zkr__queue_lock_free (ZkrQueueLock *lock)
{
  if (lock == NULL)
    return;
  g_mutex_lock (&lock->hook_lock);
  lock->loss_hook = NULL;
  lock->revocation = NULL;
  g_mutex_unlock (&lock->hook_lock);
  zkr__session_post (lock->session, free_in_worker, lock, (GDestroyNotify) zkr__queue_lock_unref);
}

gboolean
zkr__queue_lock_is_held (ZkrQueueLock *lock)
{
  ZkrQueueLockState state = zkr__queue_lock_get_state (lock);

  return state == ZKR_QUEUE_LOCK_HELD || state == ZKR_QUEUE_LOCK_IN_DOUBT;
}

gboolean
zkr__queue_lock_is_busy (ZkrQueueLock *lock)
{
  return zkr__queue_lock_get_state (lock) != ZKR_QUEUE_LOCK_IDLE;
}

gint64
zkr__queue_lock_get_token (ZkrQueueLock *lock)
{
  gint64 token;

  g_mutex_lock (&lock->mutex);
  token = lock->token;
  g_mutex_unlock (&lock->mutex);
  return token;
}

gboolean
zkr__queue_lock_flush (ZkrQueueLock *lock)
{
  g_return_val_if_fail (!zkr__session_in_worker (lock->session), FALSE);
  /* As the release: a dead connection is not waited for. */
  if (!zkr_session_is_connected (lock->session))
    return FALSE;
  return zkr__op_sync_path_sync (lock->session, lock->path) == ZOK;
}

typedef struct {
  ZkrQueueFlushFunc done;
  gpointer user_data;
} Flush;

static void
flush_replied (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Flush *flush = user_data;

  (void) session;
  flush->done (reply->rc == ZOK, flush->user_data);
  g_free (flush);
}

void
zkr__queue_lock_flush_async (ZkrQueueLock *lock, ZkrQueueFlushFunc done, gpointer user_data)
{
  Flush *flush;

  /* As the blocking flush: a dead connection is not waited for. */
  if (!zkr_session_is_connected (lock->session))
    {
      done (FALSE, user_data);
      return;
    }
  flush = g_new0 (Flush, 1);
  flush->done = done;
  flush->user_data = user_data;
  zkr__op_sync_path (lock->session, lock->path, flush_replied, flush);
}

char *
zkr__queue_lock_dup_node_path (ZkrQueueLock *lock)
{
  char *node;

  g_mutex_lock (&lock->mutex);
  node = g_strdup (lock->node_path);
  g_mutex_unlock (&lock->mutex);
  return node;
}

static gboolean
verify_lost_in_worker (gpointer data)
{
  zkr__queue_hold_mark_lost (data, "verify found our node gone or not ours");
  return G_SOURCE_REMOVE;
}

/* One exists, sent once (a node call with timeout 0: CONNECTION_LOSS at
 * once when not connected), its cancel armed as every node call's
 * (core/armed.c). Only the server's word that the node is gone or not
 * ours marks the lock lost; a failure of the read itself (a cancel, the
 * connection, the session) leaves it as it was. */
gboolean
zkr__queue_lock_verify (ZkrQueueLock *lock, GCancellable *cancellable, GError **error)
{
  g_autofree char *node = zkr__queue_lock_dup_node_path (lock);
  g_autofree char *user_node = NULL;
  g_autoptr (GError) local = NULL;
  ZkrStat stat = { 0 };
  gboolean exists;

  g_return_val_if_fail (!zkr__session_in_worker (lock->session), FALSE);
  if (node == NULL || !zkr__queue_lock_is_held (lock))
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD, "%s %s is not held",
                   lock->recipe->kind, lock->user_path);
      return FALSE;
    }
  user_node = zkr__node_result_strip_namespace (lock->session, node);
  exists = zkr_node_exists (lock->session, user_node, 0, cancellable, &stat, &local);
  if (local != NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "verify %s %s: ",
                                  lock->recipe->kind, lock->user_path);
      return FALSE;
    }
  if (exists && stat.ephemeral_owner == zkr_session_get_id (lock->session))
    return TRUE;
  zkr__session_post (lock->session, verify_lost_in_worker, zkr__queue_lock_ref (lock),
                     (GDestroyNotify) zkr__queue_lock_unref);
  g_set_error (error, ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
               "%s %s is lost: node %s %s", lock->recipe->kind, lock->user_path, node,
               !exists ? "no longer exists" : "belongs to another session");
  return FALSE;
}

void
zkr__queue_lock_set_node_data (ZkrQueueLock *lock, const char *data)
{
  g_free (lock->node_data);
  lock->node_data = g_strdup (data);
}

void
zkr__queue_lock_set_loss_hook (ZkrQueueLock *lock, ZkrLockLossFunc hook, gpointer user_data)
{
  g_mutex_lock (&lock->hook_lock);
  lock->loss_hook = hook;
  lock->loss_hook_data = user_data;
  g_mutex_unlock (&lock->hook_lock);
}
