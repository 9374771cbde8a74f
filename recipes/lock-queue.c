/* zkr: the one queue engine (docs/design.md §3.1) and the loss watch of a
 * held lock (§3.6). Every lock recipe is this file plus a predicate.
 *
 * Threads: the public entry points may be called from any thread; they
 * post to the session's worker, where all ZooKeeper logic of this file
 * runs. State read by other threads (held, token, node) is behind
 * lock->mutex. */

#include <string.h>

#include "error-private.h"
#include "lock-queue.h"
#include "nodename.h"
#include "notifier.h"
#include "path.h"

typedef enum {
  LOCK_IDLE,
  LOCK_ACQUIRING,
  LOCK_HELD,
  LOCK_IN_DOUBT,
} LockState;

typedef struct _Acquire Acquire;

#define RELEASE_WAITING G_MININT

struct _ZkrQueueLock {
  gatomicrefcount ref;
  ZkrSession *session;            /* (owned) */
  char *path;                     /* full path, namespace applied */
  char *user_path;                /* as given, for messages */
  const ZkrQueueRecipe *recipe;
  gpointer predicate_data;
  char *node_data;                /* (nullable) our node's data; NULL: the client id */
  GMutex hook_lock;               /* guards the hook and its calls */
  ZkrLockLossFunc loss_hook;      /* (nullable) called on the worker */
  gpointer loss_hook_data;

  GMutex mutex;
  GCond cond;
  LockState state;                /* protected by mutex */
  char *node_path;                /* (nullable) protected by mutex */
  gint64 token;                   /* protected by mutex */
  guint releases_pending;         /* deletes of releases not yet confirmed; mutex */
  guint release_number;           /* the newest release's number; mutex */
  int release_answer;             /* RELEASE_WAITING, else a ZooKeeper rc for
                                   * release number release_number; mutex */

  /* Worker thread only. */
  Acquire *acquire;
  guint hold_listener;
  guint node_watch;
  guint node_watch_timer;         /* the deferred watch below (0: none) */
  ZkrResendPause hold_resend;     /* a verify or node watch answered "retry" */
  guint deadline_timer;           /* the safe deadline while suspended (0: none) */
  guint release_listener;
};

static ZkrQueueLock *
lock_ref (ZkrQueueLock *lock)
{
  g_atomic_ref_count_inc (&lock->ref);
  return lock;
}

static void
lock_unref (ZkrQueueLock *lock)
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
  g_cond_clear (&lock->cond);
  g_free (lock);
}

static const char *const lock_state_names[] = {
  [LOCK_IDLE] = "IDLE",
  [LOCK_ACQUIRING] = "ACQUIRING",
  [LOCK_HELD] = "HELD",
  [LOCK_IN_DOUBT] = "IN_DOUBT",
};

/* The edges a lock may take: an acquire starts only from IDLE and ends
 * held or not; a hold goes in doubt and back, or ends (released, lost,
 * freed). Staying put is no transition and always allowed. */
static gboolean
lock_transition_allowed (LockState from, LockState to)
{
  switch (to)
    {
    case LOCK_ACQUIRING:
      return from == LOCK_IDLE;
    case LOCK_HELD:
      return from == LOCK_ACQUIRING || from == LOCK_IN_DOUBT;
    case LOCK_IN_DOUBT:
      return from == LOCK_HELD;
    case LOCK_IDLE:
    default:
      return TRUE;
    }
}

/* Under lock->mutex: the one place the lock's state changes. An edge the
 * table does not have is a bug of this file: refused, loudly. */
static gboolean
lock_set_state_locked (ZkrQueueLock *lock, LockState to)
{
  LockState from = lock->state;

  if (from == to)
    return TRUE;
  if (!lock_transition_allowed (from, to))
    {
      g_critical ("%s %s: refused %s -> %s", lock->recipe->kind, lock->user_path,
                  lock_state_names[from], lock_state_names[to]);
      return FALSE;
    }
  g_debug ("%s %s: %s -> %s", lock->recipe->kind, lock->user_path, lock_state_names[from],
           lock_state_names[to]);
  lock->state = to;
  return TRUE;
}

static LockState
lock_get_state (ZkrQueueLock *lock)
{
  LockState state;

  g_mutex_lock (&lock->mutex);
  state = lock->state;
  g_mutex_unlock (&lock->mutex);
  return state;
}

void
zkr__queue_loss_marshal (GCallback func, gpointer source, int event, gpointer user_data)
{
  ((ZkrLockLossFunc) (void (*) (void)) func) (source, (ZkrLockEvent) event, user_data);
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
  g_cond_init (&lock->cond);
  return lock;
}

const ZkrQueueRecipe zkr__queue_mutex_recipe = {
  .lock_name = ZKR_NODE_LOCK_NAME,
  .sort = zkr__node_sort_up_to,
  .predicate = zkr__queue_predicate_first,
  .kind = "mutex",
};

gboolean
zkr__queue_predicate_first (GPtrArray *sorted, guint ours, const char **wait_on, gpointer data)
{
  (void) data;
  if (ours == 0)
    return TRUE;
  *wait_on = g_ptr_array_index (sorted, ours - 1);
  return FALSE;
}

/* ==== holding: the loss watch (worker thread) ======================== */

static void hold_stop (ZkrQueueLock *lock);

static void
lock_emit (ZkrQueueLock *lock, ZkrLockEvent event)
{
  g_debug ("%s %s: %s", lock->recipe->kind, lock->user_path, zkr_lock_event_name (event));
  /* The hook is the only way out of an entry (its owner's listeners are
   * the owner's): the entry never names the owner, whose memory may go
   * while events are queued here. Called under hook_lock so that zkr__queue_lock_free(), which clears the
   * hook under it, returns only once no call is running or can start. A
   * lock of its own, not the entry's mutex: the hook takes its owner's
   * lock, and owners take entries' mutexes while holding theirs. */
  g_mutex_lock (&lock->hook_lock);
  if (lock->loss_hook != NULL)
    lock->loss_hook (lock, event, lock->loss_hook_data);
  g_mutex_unlock (&lock->hook_lock);
}

/* The lock is gone or presumed gone: no longer held, listeners told, and
 * our node deleted if it still exists (a presumed loss whose session comes
 * back must not keep blocking the queue). */
static void
hold_mark_lost (ZkrQueueLock *lock, const char *why)
{
  g_autofree char *node = NULL;

  g_mutex_lock (&lock->mutex);
  if (lock->state != LOCK_HELD && lock->state != LOCK_IN_DOUBT)
    {
      g_mutex_unlock (&lock->mutex);
      return;
    }
  lock_set_state_locked (lock, LOCK_IDLE);
  lock->token = 0;
  node = g_steal_pointer (&lock->node_path);
  g_mutex_unlock (&lock->mutex);
  g_debug ("%s %s lost: %s", lock->recipe->kind, lock->user_path, why);
  hold_stop (lock);
  lock_emit (lock, ZKR_LOCK_LOST);
  if (node != NULL && zkr_session_get_state (lock->session) != ZKR_SESSION_STATE_CLOSED)
    zkr__guaranteed_delete (lock->session, node, NULL, NULL);
}

static gboolean
hold_deadline_tick (gpointer data)
{
  ZkrQueueLock *lock = data;

  lock->deadline_timer = 0;
  hold_mark_lost (lock, "the session's safe deadline passed while suspended");
  return G_SOURCE_REMOVE;
}

static void
hold_deadline_clear (ZkrQueueLock *lock)
{
  zkr__session_timer_clear (lock->session, &lock->deadline_timer);
}

/* A session timer with no slack, like the acquire deadline: one timer
 * mechanism for the engine. */
static void
hold_deadline_start (ZkrQueueLock *lock)
{
  gint64 deadline = zkr_session_get_safe_deadline (lock->session);
  gint64 now = g_get_monotonic_time ();
  guint ms = deadline > now ? (guint) MIN ((deadline - now) / 1000, G_MAXUINT) : 0;

  hold_deadline_clear (lock);
  lock->deadline_timer = zkr__session_timer_add (lock->session, ms, 0, hold_deadline_tick, lock);
}

/* The owner check of docs/design.md §3.1 step 5 and §3.6: our node exists
 * and belongs to the session we are on now. */
static gboolean
node_is_ours (ZkrQueueLock *lock, const ZkrReply *reply)
{
  return reply->rc == ZOK && reply->has_stat &&
         reply->stat.ephemeralOwner == zkr_session_get_id (lock->session);
}

static void hold_verify (ZkrQueueLock *lock);
static void hold_resend_later (ZkrQueueLock *lock);
static void hold_watch_node (ZkrQueueLock *lock);

static void
hold_verify_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;

  (void) session;
  if (lock_get_state (lock) == LOCK_IN_DOUBT && zkr_session_is_connected (lock->session))
    {
      if (node_is_ours (lock, reply))
        {
          zkr__resend_pause_stop (&lock->hold_resend, TRUE);
          g_mutex_lock (&lock->mutex);
          lock_set_state_locked (lock, LOCK_HELD);
          g_mutex_unlock (&lock->mutex);
          lock_emit (lock, ZKR_LOCK_RESTORED);
        }
      else if (zkr__zk_rc_is_retryable (reply->rc))
        /* Throttled, say: no verdict yet, ask again. */
        hold_resend_later (lock);
      else if (zkr__zk_rc_is_server_answer (reply->rc))
        hold_mark_lost (lock, "our node is gone or not ours after reconnecting");
    }
  lock_unref (lock);
}

static void
hold_verify (ZkrQueueLock *lock)
{
  g_autofree char *node = NULL;

  g_mutex_lock (&lock->mutex);
  node = g_strdup (lock->node_path);
  g_mutex_unlock (&lock->mutex);
  if (node != NULL)
    zkr__op_exists (lock->session, node, FALSE, hold_verify_reply, lock_ref (lock));
}

static void
hold_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;
  gboolean held;

  (void) session;
  switch (state)
    {
    case ZKR_SESSION_STATE_SUSPENDED:
      g_mutex_lock (&lock->mutex);
      held = lock->state == LOCK_HELD || lock->state == LOCK_IN_DOUBT;
      if (lock->state == LOCK_HELD)
        lock_set_state_locked (lock, LOCK_IN_DOUBT);
      g_mutex_unlock (&lock->mutex);
      /* Not held (a release or a loss is under way): nothing to doubt. */
      if (!held)
        break;
      lock_emit (lock, ZKR_LOCK_IN_DOUBT);
      hold_deadline_start (lock);
      break;
    case ZKR_SESSION_STATE_RECONNECTED:
      hold_deadline_clear (lock);
      zkr__resend_pause_stop (&lock->hold_resend, TRUE);
      hold_verify (lock);
      if ((lock_get_state (lock) == LOCK_HELD || lock_get_state (lock) == LOCK_IN_DOUBT) &&
          lock->node_watch == 0 && lock->node_watch_timer == 0)
        /* A watch whose request failed (connection loss, throttled) was
         * never set, and libzookeeper re-sets only those it has. */
        hold_watch_node (lock);
      break;
    case ZKR_SESSION_STATE_LOST:
      hold_mark_lost (lock, "the session was lost");
      break;
    case ZKR_SESSION_STATE_CLOSED:
      hold_mark_lost (lock, "the session was closed");
      break;
    case ZKR_SESSION_STATE_CONNECTING:
    case ZKR_SESSION_STATE_CONNECTED:
    default:
      break;
    }
}

static void
hold_on_node_event (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;

  (void) session;
  (void) path;
  lock->node_watch = 0;
  if (event_type == ZOO_DELETED_EVENT)
    hold_mark_lost (lock, "our node was deleted");
  else if (lock_get_state (lock) == LOCK_HELD || lock_get_state (lock) == LOCK_IN_DOUBT)
    hold_watch_node (lock);
}

static void
hold_exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;

  (void) session;
  if (reply->rc == ZNONODE)
    hold_mark_lost (lock, "our node does not exist");
  else if (reply->rc != ZOK && lock->node_watch != 0)
    {
      /* Not set: set it again once connected (RECONNECTED does that), or
       * after a pause when the server said "retry". */
      zkr__session_watch_remove (lock->session, lock->node_watch);
      lock->node_watch = 0;
      if (zkr__zk_rc_is_retryable (reply->rc) && zkr_session_is_connected (lock->session))
        hold_resend_later (lock);
    }
  lock_unref (lock);
}

static void
hold_watch_node (ZkrQueueLock *lock)
{
  g_autofree char *node = NULL;

  g_mutex_lock (&lock->mutex);
  node = g_strdup (lock->node_path);
  g_mutex_unlock (&lock->mutex);
  if (node == NULL)
    return;
  lock->node_watch = zkr__session_watch_add (lock->session, node, hold_on_node_event, lock);
  zkr__op_exists (lock->session, node, TRUE, hold_exists_reply, lock_ref (lock));
}

/* After a pause: whatever the server told us to ask again. */
static gboolean
hold_resend_tick (gpointer data)
{
  ZkrQueueLock *lock = data;
  LockState state = lock_get_state (lock);

  zkr__resend_pause_stop (&lock->hold_resend, FALSE);
  if (state == LOCK_IN_DOUBT && zkr_session_is_connected (lock->session))
    hold_verify (lock);
  else if ((state == LOCK_HELD || state == LOCK_IN_DOUBT) && lock->node_watch == 0 &&
           lock->node_watch_timer == 0)
    hold_watch_node (lock);
  return G_SOURCE_REMOVE;
}

static void
hold_resend_later (ZkrQueueLock *lock)
{
  if (!zkr__resend_pause_is_pending (&lock->hold_resend))
    zkr__resend_pause_start (&lock->hold_resend, lock->session, hold_resend_tick, lock);
}

/* The watch on our own node is set this long after the grant, not with
 * it: a short hold (most of them) then costs no request and no event, and
 * the acquire path stays at create + list. What it catches is someone
 * deleting our node by hand; the waiter behind us is woken by that delete
 * at the same moment we would be, so the delay changes only how soon we
 * say so, never who holds. Session trouble is seen at once through the
 * session's own events. The slack lets grants on a session that acquires
 * a few times a second share the worker's wake-ups instead of costing one
 * or two each. */
#define NODE_WATCH_DELAY_MS 100
#define NODE_WATCH_SLACK_MS 900

static gboolean
hold_node_watch_tick (gpointer data)
{
  ZkrQueueLock *lock = data;

  lock->node_watch_timer = 0;
  if (lock_get_state (lock) == LOCK_HELD || lock_get_state (lock) == LOCK_IN_DOUBT)
    hold_watch_node (lock);
  return G_SOURCE_REMOVE;
}

static void
hold_start (ZkrQueueLock *lock)
{
  lock->hold_listener = zkr__session_add_internal_listener (lock->session, hold_on_state, lock);
  lock->node_watch_timer = zkr__session_timer_add (lock->session, NODE_WATCH_DELAY_MS,
                                                   NODE_WATCH_SLACK_MS, hold_node_watch_tick, lock);
}

static void
hold_stop (ZkrQueueLock *lock)
{
  if (lock->hold_listener != 0)
    zkr__session_remove_internal_listener (lock->session, lock->hold_listener);
  lock->hold_listener = 0;
  if (lock->node_watch != 0)
    zkr__session_watch_remove (lock->session, lock->node_watch);
  lock->node_watch = 0;
  zkr__session_timer_clear (lock->session, &lock->node_watch_timer);
  hold_deadline_clear (lock);
  zkr__resend_pause_stop (&lock->hold_resend, TRUE);
}

/* ==== acquiring (worker thread) ===================================== */

/* Where an acquire is (docs/design.md §3.1), in one field that changes
 * only through acquire_set_step(). Steps are worker-side state: read and
 * changed by whichever thread holds the session's turn. */
typedef enum {
  ACQUIRE_STARTING,          /* made; its start has not run yet */
  ACQUIRE_CONNECTING,        /* started, waiting for (RE)CONNECTED to create */
  ACQUIRE_CREATING,          /* the protected create in flight (a listing
                              * behind it; an early listing is kept) */
  ACQUIRE_LISTING,           /* our node made; the listing to judge it on
                              * its way (step 3) */
  ACQUIRE_WATCHING_NODE,     /* waiting on one node ahead of ours (step 4) */
  ACQUIRE_WATCHING_CHILDREN, /* waiting for any change of the children: every
                              * listing leaves a child watch (semaphore leases) */
  ACQUIRE_DECIDED,           /* through or failed, decided in place and its
                              * end posted: later listings are not judged */
  ACQUIRE_ENDED,             /* detached: nothing calls back into it; answered */
} AcquireStep;

/* A blocking acquire waits on this (on its stack) instead of a GTask in
 * a main context of its own: one futex wake-up instead of an event fd,
 * a context and a task per call. */
typedef struct {
  ZkrWait wait;
  GError *error;   /* (owned) (nullable): NULL means granted */
} AcquireWait;

struct _Acquire {
  gatomicrefcount ref;
  ZkrQueueLock *lock;            /* (owned) */
  GTask *task;                   /* (owned) (nullable) until returned */
  AcquireWait *wait;             /* (nullable) a blocking caller instead
                                  * of @task, until answered */
  ZkrQueueDoneFunc done;         /* (nullable) code of the worker's instead
                                  * of @task (zkr__queue_lock_acquire_on_worker) */
  gpointer done_data;
  gint64 deadline;               /* monotonic µs; G_MAXINT64 = none */
  gboolean try_once;             /* timeout 0: judge once. Not a step: how
                                  * the caller asked, fixed for the
                                  * acquire's life */
  GCancellable *cancellable;     /* (owned) (nullable) */
  gulong cancel_id;
  ZkrProtectedCreate *create;    /* (nullable) in flight */
  char *node_name;               /* (nullable) ours, once created */
  char *node_path;
  struct Stat stat;
  GPtrArray *early_listing;      /* a listing that came before our node */
  guint listings_in_flight;
  guint watch_id;
  char *watch_name;              /* (nullable) the node watch_id is on */
  guint timeout_timer;           /* session timer for the deadline (0: none) */
  guint listener_id;
  AcquireStep step;              /* acquire_set_step() only */
  char *fixed_suffix;            /* (nullable) a non-sequential node name */
  guint requeues;                /* new nodes after ours was deleted */
  ZkrResendPause resend;         /* a listing or watch answered "retry" */
};

/* How often an acquire queues again after someone deleted its node. */
#define ACQUIRE_MAX_REQUEUES 3

/* The acquire's own requests (its create, listings and watch requests)
 * may be answered in place, on the completion thread they arrive on
 * (ZKR_WAKE_IN_PLACE): a waiter's listing then sends its watch request
 * without waking a thread to do it. What their replies reach keeps
 * zkr__session_post_in_place's rules: it sends and changes the acquire's
 * own state; the two ways out, acquire_through and acquire_fail (which
 * answer the caller, start the hold and so may run the user's listeners),
 * post themselves when zkr__session_in_place(). */
#define ACQUIRE_IN_PLACE ZKR_WAKE_IN_PLACE

static Acquire *
acquire_ref (Acquire *acquire)
{
  g_atomic_ref_count_inc (&acquire->ref);
  return acquire;
}

static void
acquire_unref (Acquire *acquire)
{
  if (!g_atomic_ref_count_dec (&acquire->ref))
    return;
  g_clear_object (&acquire->task);
  g_clear_object (&acquire->cancellable);
  g_free (acquire->node_name);
  g_free (acquire->watch_name);
  g_free (acquire->node_path);
  g_free (acquire->fixed_suffix);
  g_clear_pointer (&acquire->early_listing, g_ptr_array_unref);
  lock_unref (acquire->lock);
  g_free (acquire);
}

static void acquire_list (Acquire *acquire);

static const char *const acquire_step_names[] = {
  [ACQUIRE_STARTING] = "STARTING",
  [ACQUIRE_CONNECTING] = "CONNECTING",
  [ACQUIRE_CREATING] = "CREATING",
  [ACQUIRE_LISTING] = "LISTING",
  [ACQUIRE_WATCHING_NODE] = "WATCHING_NODE",
  [ACQUIRE_WATCHING_CHILDREN] = "WATCHING_CHILDREN",
  [ACQUIRE_DECIDED] = "DECIDED",
  [ACQUIRE_ENDED] = "ENDED",
};

/* The edges an acquire may take. The start creates, or waits for a
 * connection first; a made node is listed and judged, then waited on
 * (one node or the children; a predicate may switch between them); a
 * node that vanished is created again (a requeue). The end is decided in
 * place once a node or its create's answer is known (the posted end then
 * runs), or reached at once from any step but the last. Staying put is no
 * transition and always allowed. */
static gboolean
acquire_step_allowed (AcquireStep from, AcquireStep to)
{
  switch (to)
    {
    case ACQUIRE_CONNECTING:
      return from == ACQUIRE_STARTING;
    case ACQUIRE_CREATING:
      return from == ACQUIRE_STARTING || from == ACQUIRE_CONNECTING ||
             from == ACQUIRE_LISTING || from == ACQUIRE_WATCHING_NODE ||
             from == ACQUIRE_WATCHING_CHILDREN;
    case ACQUIRE_LISTING:
      return from == ACQUIRE_CREATING;
    case ACQUIRE_WATCHING_NODE:
    case ACQUIRE_WATCHING_CHILDREN:
      return from == ACQUIRE_LISTING || from == ACQUIRE_WATCHING_NODE ||
             from == ACQUIRE_WATCHING_CHILDREN;
    case ACQUIRE_DECIDED:
      return from == ACQUIRE_CREATING || from == ACQUIRE_LISTING ||
             from == ACQUIRE_WATCHING_NODE || from == ACQUIRE_WATCHING_CHILDREN;
    case ACQUIRE_ENDED:
      return from != ACQUIRE_ENDED;
    case ACQUIRE_STARTING:
    default:
      return FALSE;
    }
}

/* The one place an acquire's step changes. An edge the table does not
 * have is a bug of this file: refused, loudly. */
static gboolean
acquire_set_step (Acquire *acquire, AcquireStep to)
{
  ZkrQueueLock *lock = acquire->lock;
  AcquireStep from = acquire->step;

  if (from == to)
    return TRUE;
  if (!acquire_step_allowed (from, to))
    {
      g_critical ("%s %s: acquire refused %s -> %s", lock->recipe->kind, lock->user_path,
                  acquire_step_names[from], acquire_step_names[to]);
      return FALSE;
    }
  g_debug ("%s %s: acquire %s -> %s", lock->recipe->kind, lock->user_path,
           acquire_step_names[from], acquire_step_names[to]);
  acquire->step = to;
  return TRUE;
}

typedef struct {
  GTask *task;     /* (owned) */
  GError *error;   /* (owned) (nullable): NULL means success */
} TaskReturn;

static gboolean
task_return_run (gpointer data)
{
  TaskReturn *ret = data;

  if (ret->error != NULL)
    g_task_return_error (ret->task, g_steal_pointer (&ret->error));
  else
    g_task_return_boolean (ret->task, TRUE);
  return G_SOURCE_REMOVE;
}

static void
task_return_free (gpointer data)
{
  TaskReturn *ret = data;

  g_clear_error (&ret->error);
  g_object_unref (ret->task);
  g_free (ret);
}

/* Returns @task's result from the task's own context, where its callback
 * runs: so the task (and what its callback owns) is never finalized on the
 * worker thread, and the hand-off is one that ThreadSanitizer can see. */
static void
task_return_in_context (GTask *task, GError *error)
{
  TaskReturn *ret = g_new0 (TaskReturn, 1);

  ret->task = task;
  ret->error = error;
  zkr__context_post (g_task_get_context (task), task_return_run, ret, task_return_free);
}

/* Stops everything that can call back into the acquire. */
static void
acquire_detach (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  acquire_set_step (acquire, ACQUIRE_ENDED);
  if (lock->acquire == acquire)
    lock->acquire = NULL;
  zkr__session_timer_clear (lock->session, &acquire->timeout_timer);
  if (acquire->watch_id != 0)
    zkr__session_watch_remove (lock->session, acquire->watch_id);
  acquire->watch_id = 0;
  if (acquire->listener_id != 0)
    zkr__session_remove_internal_listener (lock->session, acquire->listener_id);
  acquire->listener_id = 0;
  if (acquire->cancellable != NULL && acquire->cancel_id != 0)
    g_cancellable_disconnect (acquire->cancellable, acquire->cancel_id);
  acquire->cancel_id = 0;
  zkr__resend_pause_stop (&acquire->resend, TRUE);
}

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
  lock_unref (answer->lock);
  g_free (answer);
}

/* Hands the outcome to whoever waits: the blocking caller (which may
 * return at once, so its AcquireWait is not touched after the unlock),
 * the worker's own code (posted: never inside the call that started the
 * acquire), or the task, in its own context. */
static void
acquire_answer (Acquire *acquire, GError *error)
{
  AcquireWait *wait = g_steal_pointer (&acquire->wait);
  DoneOnWorker *answer;

  if (wait != NULL)
    {
      wait->error = error;
      zkr__wait_done (&wait->wait);
    }
  else if (acquire->done != NULL)
    {
      answer = g_new0 (DoneOnWorker, 1);
      answer->lock = lock_ref (acquire->lock);
      answer->done = acquire->done;
      answer->done_data = acquire->done_data;
      answer->error = error;
      zkr__session_post (acquire->lock->session, done_on_worker_run, answer, done_on_worker_free);
    }
  else
    task_return_in_context (g_steal_pointer (&acquire->task), error);
}

static void
acquire_succeed (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  acquire_detach (acquire);
  g_mutex_lock (&lock->mutex);
  lock_set_state_locked (lock, LOCK_HELD);
  g_free (lock->node_path);
  lock->node_path = g_steal_pointer (&acquire->node_path);
  lock->token = acquire->stat.czxid;
  g_mutex_unlock (&lock->mutex);
  hold_start (lock);
  /* Transitions happen on this thread: if the connection dropped before
   * we got here, the SUSPENDED was delivered before our listener existed. */
  if (zkr_session_get_state (lock->session) == ZKR_SESSION_STATE_SUSPENDED)
    hold_on_state (lock->session, ZKR_SESSION_STATE_SUSPENDED, lock);
  acquire_answer (acquire, NULL);
  acquire_unref (acquire);
}

static void
acquire_return_error (Acquire *acquire, GError *error)
{
  ZkrQueueLock *lock = acquire->lock;

  g_mutex_lock (&lock->mutex);
  lock_set_state_locked (lock, LOCK_IDLE);
  g_mutex_unlock (&lock->mutex);
  acquire_answer (acquire, error);
  acquire_unref (acquire);
}

typedef struct {
  Acquire *acquire;
  GError *error;
} FailPosted;

static gboolean acquire_fail_posted (gpointer data);

/* Ends the acquire with @error at once and removes our node (or the one
 * a create in flight may have made) in the background. The caller is
 * never made to wait for that delete: on a connection that died without
 * a word its reply comes only when the partition heals, long after the
 * deadline the caller was promised. A delete still pending is harmless
 * to the queue: requests go in order, so a new acquire of this object
 * is queued behind it, and any waiter behind our node is woken by it. */
static void
acquire_fail (Acquire *acquire, GError *error)
{
  ZkrQueueLock *lock = acquire->lock;
  FailPosted *fail;

  if (acquire->step == ACQUIRE_ENDED)
    {
      g_error_free (error);
      return;
    }
  if (zkr__session_in_place (lock->session))
    {
      /* Ending an acquire answers the caller and may run the recipe's
       * code: not on the completion thread (see ACQUIRE_IN_PLACE). */
      fail = g_new0 (FailPosted, 1);
      fail->acquire = acquire_ref (acquire);
      fail->error = error;
      zkr__session_post (lock->session, acquire_fail_posted, fail, NULL);
      acquire_set_step (acquire, ACQUIRE_DECIDED);
      return;
    }
  acquire_detach (acquire);
  if (acquire->create != NULL)
    zkr__protected_create_abandon (g_steal_pointer (&acquire->create));
  else if (acquire->node_path != NULL)
    zkr__guaranteed_delete (lock->session, acquire->node_path, NULL, NULL);
  acquire_return_error (acquire, error);
}

static gboolean
acquire_fail_posted (gpointer data)
{
  FailPosted *fail = data;

  acquire_fail (fail->acquire, fail->error);
  acquire_unref (fail->acquire);
  g_free (fail);
  return G_SOURCE_REMOVE;
}

static void
acquire_fail_rc (Acquire *acquire, int rc, const char *what)
{
  GError *error = NULL;

  if (rc == ZCLOSING || zkr_session_get_state (acquire->lock->session) == ZKR_SESSION_STATE_CLOSED)
    g_set_error (&error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                 "acquire %s %s: the session was closed", acquire->lock->recipe->kind,
                 acquire->lock->user_path);
  else
    zkr__set_error_from_zk (&error, rc, what, acquire->lock->user_path,
                            zkr_session_get_id (acquire->lock->session));
  acquire_fail (acquire, error);
}

static gboolean
acquire_timeout_tick (gpointer data)
{
  Acquire *acquire = data;

  acquire->timeout_timer = 0;
  acquire_fail (acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                                      "timed out acquiring %s %s", acquire->lock->recipe->kind,
                                      acquire->lock->user_path));
  return G_SOURCE_REMOVE;
}

static gboolean
acquire_cancel_in_worker (gpointer data)
{
  Acquire *acquire = data;

  acquire_fail (acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_CANCELLED,
                                      "acquiring %s %s was cancelled", acquire->lock->recipe->kind,
                                      acquire->lock->user_path));
  return G_SOURCE_REMOVE;
}

/* Runs in the cancelling thread: only posts (GCancellable's rule). */
static void
acquire_on_cancelled (GCancellable *cancellable, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) cancellable;
  zkr__session_post (acquire->lock->session, acquire_cancel_in_worker, acquire_ref (acquire),
                     (GDestroyNotify) acquire_unref);
}

/* Watch events that woke a waiter, process-wide: the herd test counts them. */
static gint watch_wakeups;

guint
zkr__queue_test_get_watch_wakeups (void)
{
  return (guint) g_atomic_int_get (&watch_wakeups);
}

/* Listings acquires sent, process-wide: a test counts them. */
static gint listings_sent;
static gint listings_after_no_node;

guint
zkr__queue_test_get_listings (void)
{
  return (guint) g_atomic_int_get (&listings_sent);
}

guint
zkr__queue_test_get_listings_after_no_node (void)
{
  return (guint) g_atomic_int_get (&listings_after_no_node);
}

static void
acquire_on_watch (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  (void) event_type;
  (void) path;
  g_atomic_int_inc (&watch_wakeups);
  acquire->watch_id = 0;
  if (acquire->step == ACQUIRE_ENDED)
    return;
  /* Always a fresh listing, never our last one minus the node that went:
   * only a listing shows that our own node is still there (someone may
   * have deleted it while we waited). */
  acquire_list (acquire);
}

static void acquire_on_listing (Acquire *acquire, ZkrReply *reply);

static gboolean
acquire_resend_tick (gpointer data)
{
  Acquire *acquire = data;

  zkr__resend_pause_stop (&acquire->resend, FALSE);
  acquire_list (acquire);
  return G_SOURCE_REMOVE;
}

/* A request of a waiter failed with a retryable code. Connection trouble:
 * the session listener lists again on RECONNECTED. Still connected (the
 * server throttled us, say): list again after a pause, which re-judges and
 * re-watches everything. */
static void
acquire_look_again_later (Acquire *acquire)
{
  if (zkr_session_is_connected (acquire->lock->session) &&
      !zkr__resend_pause_is_pending (&acquire->resend))
    zkr__resend_pause_start (&acquire->resend, acquire->lock->session, acquire_resend_tick,
                             acquire);
}

/* The predecessor changed: the listing sent the moment the event came
 * (always a fresh one, as above) is here. */
static void
acquire_on_watch_listing (ZkrSession *session, int event_type, ZkrReply *listing,
                          gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  (void) event_type;
  g_atomic_int_inc (&watch_wakeups);
  acquire->watch_id = 0;
  if (acquire->step != ACQUIRE_ENDED)
    acquire_on_listing (acquire, listing);
}

static void
acquire_watch_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  if (acquire->step != ACQUIRE_ENDED)
    {
      if (reply->rc != ZOK && acquire->watch_id != 0)
        {
          /* No event will come (the node was gone, or the watch was not
           * set). */
          zkr__session_watch_remove (acquire->lock->session, acquire->watch_id);
          acquire->watch_id = 0;
        }
      if (reply->rc == ZNONODE)
        {
          /* A listing still on its way was sent after this request
           * (answers come in order): it already shows the node gone. */
          if (acquire->listings_in_flight == 0)
            {
              g_atomic_int_inc (&listings_after_no_node);
              acquire_list (acquire);
            }
        }
      else if (reply->rc != ZOK && !zkr__zk_rc_is_retryable (reply->rc))
        acquire_fail_rc (acquire, reply->rc, "watch predecessor of");
      else if (reply->rc != ZOK)
        acquire_look_again_later (acquire);
      /* ZOK: wait for the event. */
    }
  acquire_unref (acquire);
}

static gint
find_name (GPtrArray *names, const char *name)
{
  for (guint i = 0; i < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      return (gint) i;
  return -1;
}

static gboolean acquire_through_posted (gpointer data);

/* The predicate let us through: claim the lock only on a node of the
 * session we are on now (docs/design.md §3.1 step 5). */
static void
acquire_through (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  if (zkr__session_in_place (lock->session))
    {
      /* Claiming starts the hold (whose listeners are the user's) and
       * answers the caller, who must be woken for it anyway: done where
       * the worker's code runs, by the thread that wake-up reaches. */
      zkr__session_post (lock->session, acquire_through_posted, acquire_ref (acquire),
                         (GDestroyNotify) acquire_unref);
      acquire_set_step (acquire, ACQUIRE_DECIDED);
      return;
    }
  if (acquire->stat.ephemeralOwner != zkr_session_get_id (lock->session))
    acquire_fail (acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED,
                                        "our node %s belongs to an old session", acquire->node_path));
  else
    acquire_succeed (acquire);
}

static gboolean
acquire_through_posted (gpointer data)
{
  Acquire *acquire = data;

  /* Unless it ended meanwhile (a timeout, LOST); listings that came in
   * between were not judged (acquire_evaluate). */
  if (acquire->step != ACQUIRE_ENDED)
    acquire_through (acquire);
  return G_SOURCE_REMOVE;
}

static void acquire_requeue (Acquire *acquire);

/* Step 3-5 of docs/design.md §3.1 on a fresh listing. */
static void
acquire_evaluate (Acquire *acquire, GPtrArray *children)
{
  ZkrQueueLock *lock = acquire->lock;
  const char *wait_on = NULL;
  g_autofree char *watch_path = NULL;
  gint ours;

  /* The end is decided (see ACQUIRE_IN_PLACE): nothing a later listing
   * shows can change it (nodes ahead of ours only ever go; ours going is
   * found by the hold), and judging it could requeue or claim again. */
  if (acquire->step == ACQUIRE_DECIDED)
    return;
  ours = lock->recipe->sort (children, lock->recipe->lock_name, acquire->node_name);
  if (ours < 0)
    {
      /* Someone deleted our node while we waited (our session is the same:
       * a lost one ends the acquire on its own). As Curator: queue again
       * with a new node, a few times; a fixed-name node (a downgrade) is
       * not ours to recreate. */
      if (acquire->fixed_suffix == NULL && acquire->requeues < ACQUIRE_MAX_REQUEUES)
        {
          g_debug ("%s %s: our node %s vanished while waiting; queueing again",
                   lock->recipe->kind, lock->user_path, acquire->node_name);
          acquire->requeues++;
          acquire_requeue (acquire);
          return;
        }
      acquire_fail (acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
                                          "our node %s vanished while acquiring %s %s",
                                          acquire->node_name, lock->recipe->kind, lock->user_path));
      return;
    }
  if (lock->recipe->predicate (children, (guint) ours, &wait_on, lock->predicate_data))
    {
      acquire_through (acquire);
      return;
    }
  if (acquire->try_once)
    {
      acquire_timeout_tick (acquire);
      return;
    }
  if (wait_on == NULL)
    {
      /* Wait for any change of the children. Listings in this mode leave
       * a child watch, so the one we just evaluated did, unless this is
       * the first time: then list again with a watch. */
      if (acquire->step != ACQUIRE_WATCHING_CHILDREN)
        {
          acquire_set_step (acquire, ACQUIRE_WATCHING_CHILDREN);
          acquire_list (acquire);
        }
      return;
    }
  acquire_set_step (acquire, ACQUIRE_WATCHING_NODE);
  if (acquire->watch_id != 0 && g_strcmp0 (acquire->watch_name, wait_on) == 0)
    /* Already watching that node (set, or its request on the way): this
     * is a listing taken before it went, the one sent behind the watch
     * request, say. The nodes ahead of us only ever go (a new node sorts
     * after ours), so there is nothing else to wait on. */
    return;
  watch_path = zkr__path_join (lock->path, wait_on);
  if (acquire->watch_id != 0)
    zkr__session_watch_remove (lock->session, acquire->watch_id);
  acquire->watch_id = zkr__session_watch_add_listing (lock->session, watch_path, lock->path,
                                                      acquire_on_watch_listing, acquire);
  g_free (acquire->watch_name);
  acquire->watch_name = g_strdup (wait_on);
  /* get_data, not exists: an exists on a node already gone would leave a
   * creation watch behind. */
  /* ZOK means "wait for the event": no need to wake the worker for it. */
  zkr__op_get_full (lock->session, watch_path, TRUE, ZKR_WAKE_ON_ERROR | ACQUIRE_IN_PLACE,
                    acquire_watch_reply, acquire_ref (acquire));
  /* The head of the queue (a holder) is the node most likely to go before
   * the watch request gets there; the answer is then "no node" and we
   * would list again, one more round trip. A listing right behind the
   * watch request is already on its way then (and is judged like any
   * other when the watch was set: see above). */
  if (g_ptr_array_index (children, 0) == wait_on)
    acquire_list (acquire);
}

/* A listing came back (of our own, or with a watch's event). */
static void
acquire_on_listing (Acquire *acquire, ZkrReply *reply)
{
  if (reply->rc != ZOK)
    {
      /* A listing behind a create that failed (ZNONODE: no parent yet) is
       * answered by the create's own retry; connection trouble by the
       * session listener. */
      if (acquire->node_name == NULL)
        ;
      else if (zkr__zk_rc_is_retryable (reply->rc))
        acquire_look_again_later (acquire);
      else if (zkr__zk_rc_is_server_answer (reply->rc))
        acquire_fail_rc (acquire, reply->rc, "list");
    }
  else if (acquire->node_name == NULL)
    {
      g_clear_pointer (&acquire->early_listing, g_ptr_array_unref);
      acquire->early_listing = g_steal_pointer (&reply->children);
    }
  else
    {
      zkr__resend_pause_stop (&acquire->resend, TRUE);
      acquire_evaluate (acquire, reply->children);
    }
}

static void
acquire_list_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  acquire->listings_in_flight--;
  if (acquire->step != ACQUIRE_ENDED)
    acquire_on_listing (acquire, reply);
  acquire_unref (acquire);
}

static void
acquire_list (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  gboolean watch_children = acquire->step == ACQUIRE_WATCHING_CHILDREN;

  if (watch_children && acquire->watch_id == 0)
    acquire->watch_id = zkr__session_watch_add (lock->session, lock->path, acquire_on_watch, acquire);
  acquire->listings_in_flight++;
  g_atomic_int_inc (&listings_sent);
  zkr__op_get_children_full (lock->session, lock->path, watch_children, ACQUIRE_IN_PLACE,
                             acquire_list_reply, acquire_ref (acquire));
}

/* Right behind the create request: ZooKeeper answers a session's requests
 * in order, so this listing already contains our node. */
static void
acquire_create_sent (ZkrSession *session, gpointer user_data)
{
  (void) session;
  acquire_list (user_data);
}

static void
acquire_created (ZkrSession *session, int rc, const char *path, const struct Stat *stat,
                 gpointer user_data)
{
  Acquire *acquire = user_data;
  g_autoptr (GPtrArray) listing = NULL;

  (void) session;
  acquire->create = NULL;
  if (acquire->step == ACQUIRE_ENDED)
    return;
  if (rc != ZOK)
    {
      acquire_fail_rc (acquire, rc, "create lock node under");
      return;
    }
  acquire_set_step (acquire, ACQUIRE_LISTING);
  acquire->node_path = g_strdup (path);
  acquire->node_name = g_strdup (zkr__path_basename (path));
  acquire->stat = *stat;
  listing = g_steal_pointer (&acquire->early_listing);
  if (listing != NULL && find_name (listing, acquire->node_name) >= 0)
    acquire_evaluate (acquire, listing);
  else if (acquire->listings_in_flight == 0)
    acquire_list (acquire);
  /* else the listing sent right behind the create is still on its way
   * (replies are handled in order, so it comes next) and contains our
   * node: acquire_list_reply evaluates it. A second listing here would
   * cost every acquire one more request. */
}

static void
acquire_create (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;
  const char *client_id = lock->node_data != NULL ? lock->node_data
                                                 : zkr_session_get_client_id (lock->session);

  g_autofree char *name = g_strconcat (lock->recipe->lock_name, acquire->fixed_suffix, NULL);

  acquire_set_step (acquire, ACQUIRE_CREATING);
  acquire->create = zkr__protected_create (lock->session, lock->path, name,
                                           client_id, (int) strlen (client_id),
                                           acquire->fixed_suffix != NULL ? ZOO_EPHEMERAL
                                                                        : ZOO_EPHEMERAL | ZOO_SEQUENCE,
                                          ACQUIRE_IN_PLACE, acquire_create_sent, acquire_created, acquire);
}

/* Our node is gone: forget it and everything learnt from it, and create a
 * new one at the back of the queue. A listing still on its way (sent
 * before the new create, so answered before it) is kept as an early
 * listing and judged like any other. */
static void
acquire_requeue (Acquire *acquire)
{
  if (acquire->watch_id != 0)
    zkr__session_watch_remove (acquire->lock->session, acquire->watch_id);
  acquire->watch_id = 0;
  g_clear_pointer (&acquire->node_name, g_free);
  g_clear_pointer (&acquire->node_path, g_free);
  g_clear_pointer (&acquire->early_listing, g_ptr_array_unref);
  memset (&acquire->stat, 0, sizeof acquire->stat);
  acquire_create (acquire);
}

/* Our node is made and its verdict still open: list again and re-judge
 * (a watch event may have died with the connection; something the
 * predicate reads changed). Not while CREATING (the protected create
 * waits for the connection itself and a listing follows it) nor once
 * DECIDED (the end is posted; nothing a listing shows can change it). */
static void
acquire_relist (Acquire *acquire)
{
  switch (acquire->step)
    {
    case ACQUIRE_LISTING:
    case ACQUIRE_WATCHING_NODE:
    case ACQUIRE_WATCHING_CHILDREN:
      acquire_list (acquire);
      break;
    case ACQUIRE_STARTING:
    case ACQUIRE_CONNECTING:
    case ACQUIRE_CREATING:
    case ACQUIRE_DECIDED:
    case ACQUIRE_ENDED:
    default:
      break;
    }
}

static void
acquire_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  if (acquire->step == ACQUIRE_ENDED)
    return;
  switch (state)
    {
    case ZKR_SESSION_STATE_CONNECTED:
    case ZKR_SESSION_STATE_RECONNECTED:
      /* Not started yet (waiting for a connection), or waiting: look again
       * (a watch event may have been lost with the connection). */
      zkr__resend_pause_stop (&acquire->resend, TRUE);
      if (acquire->step == ACQUIRE_CONNECTING)
        acquire_create (acquire);
      else
        acquire_relist (acquire);
      break;
    case ZKR_SESSION_STATE_LOST:
      acquire_fail (acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED,
                                          "the session was lost while acquiring %s %s",
                                          acquire->lock->recipe->kind, acquire->lock->user_path));
      break;
    case ZKR_SESSION_STATE_CLOSED:
      acquire_fail_rc (acquire, ZCLOSING, "acquire");
      break;
    case ZKR_SESSION_STATE_CONNECTING:
    case ZKR_SESSION_STATE_SUSPENDED:
    default:
      break;
    }
}

static gboolean
acquire_start (gpointer data)
{
  Acquire *acquire = data;
  ZkrQueueLock *lock = acquire->lock;
  gint64 now = g_get_monotonic_time ();

  /* What a release from the caller's thread left running. */
  hold_stop (lock);
  lock->acquire = acquire;
  acquire->listener_id = zkr__session_add_internal_listener (lock->session, acquire_on_state, acquire);
  if (acquire->cancellable != NULL)
    {
      acquire->cancel_id = g_cancellable_connect (acquire->cancellable,
                                                  G_CALLBACK (acquire_on_cancelled),
                                                  acquire, NULL);
      if (acquire->step == ACQUIRE_ENDED)
        return G_SOURCE_REMOVE;
    }
  if (zkr_session_get_state (lock->session) == ZKR_SESSION_STATE_CLOSED)
    {
      acquire_fail_rc (acquire, ZCLOSING, "acquire");
      return G_SOURCE_REMOVE;
    }
  if (acquire->deadline != G_MAXINT64)
    {
      guint ms = acquire->deadline > now ? (guint) ((acquire->deadline - now) / 1000) : 0;
      /* A session timer: added by a stand-in, it wakes the worker only if
       * due before the worker's planned wake-up. */
      acquire->timeout_timer = zkr__session_timer_add (lock->session, ms, 0, acquire_timeout_tick,
                                                       acquire);
    }
  if (zkr_session_is_connected (lock->session))
    acquire_create (acquire);
  else
    /* acquire_on_state creates on (RE)CONNECTED. */
    acquire_set_step (acquire, ACQUIRE_CONNECTING);
  return G_SOURCE_REMOVE;
}

/* Hands @acquire to the worker. From another thread, the caller runs
 * acquire_start itself, standing in for the worker (holding its turn):
 * the deadline timer and the cancellable are armed before this returns,
 * whatever the connection does (a start queued for the worker would wait
 * for a wake-up that a connection which died without a word never
 * brings), and the create and its listing go out without a thread
 * hand-off. Their replies cannot overtake the start: they need the turn.
 * On the worker, the start is posted (never inside the caller's call). */
static void
acquire_post_start (Acquire *acquire)
{
  ZkrSession *session = acquire->lock->session;

  if (zkr__session_in_worker (session))
    {
      zkr__session_post (session, acquire_start, acquire, NULL);
      return;
    }
  zkr__session_stand_in_begin (session);
  (void) acquire_start (acquire);
  zkr__session_stand_in_end (session);
}

void
zkr__queue_lock_acquire (ZkrQueueLock *lock, int timeout_ms,
                         GCancellable *cancellable, GTask *task)
{
  zkr__queue_lock_acquire_full (lock, timeout_ms, cancellable, NULL, task);
}

/* The common start: marks @lock as acquiring and returns the acquire
 * (not yet posted), or sets ZKR_ERROR_ALREADY_HELD. */
static Acquire *
acquire_new (ZkrQueueLock *lock, int timeout_ms, GCancellable *cancellable,
             const char *fixed_suffix, GError **error)
{
  Acquire *acquire;

  g_mutex_lock (&lock->mutex);
  if (lock->state != LOCK_IDLE)
    {
      g_mutex_unlock (&lock->mutex);
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD,
                   "%s %s is already %s by this object", lock->recipe->kind,
                   lock->user_path, lock->state == LOCK_ACQUIRING ? "being acquired" : "held");
      return NULL;
    }
  lock_set_state_locked (lock, LOCK_ACQUIRING);
  g_mutex_unlock (&lock->mutex);

  acquire = g_new0 (Acquire, 1);
  g_atomic_ref_count_init (&acquire->ref);
  acquire->lock = lock_ref (lock);
  acquire->try_once = timeout_ms == 0;
  acquire->deadline = timeout_ms > 0 ? g_get_monotonic_time () + (gint64) timeout_ms * 1000
                                     : G_MAXINT64;
  acquire->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  acquire->fixed_suffix = g_strdup (fixed_suffix);
  return acquire;
}

void
zkr__queue_lock_acquire_full (ZkrQueueLock *lock, int timeout_ms,
                              GCancellable *cancellable, const char *fixed_suffix,
                              GTask *task)
{
  GError *error = NULL;
  Acquire *acquire = acquire_new (lock, timeout_ms, cancellable, fixed_suffix, &error);

  if (acquire == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  acquire->task = task;
  acquire_post_start (acquire);
}

void
zkr__queue_lock_acquire_on_worker (ZkrQueueLock *lock, int timeout_ms, GCancellable *cancellable,
                                   ZkrQueueDoneFunc done, gpointer user_data)
{
  GError *error = NULL;
  Acquire *acquire;

  g_return_if_fail (zkr__session_in_worker (lock->session));
  acquire = acquire_new (lock, timeout_ms, cancellable, NULL, &error);
  if (acquire == NULL)
    {
      DoneOnWorker *answer = g_new0 (DoneOnWorker, 1);

      answer->lock = lock_ref (lock);
      answer->done = done;
      answer->done_data = user_data;
      answer->error = error;
      zkr__session_post (lock->session, done_on_worker_run, answer, done_on_worker_free);
      return;
    }
  acquire->done = done;
  acquire->done_data = user_data;
  acquire_post_start (acquire);
}

gboolean
zkr__queue_lock_acquire_sync_full (ZkrQueueLock *lock, int timeout_ms,
                                   GCancellable *cancellable, const char *fixed_suffix,
                                   GError **error)
{
  AcquireWait wait = { 0 };
  Acquire *acquire;

  g_return_val_if_fail (!zkr__session_in_worker (lock->session), FALSE);
  acquire = acquire_new (lock, timeout_ms, cancellable, fixed_suffix, error);
  if (acquire == NULL)
    return FALSE;
  zkr__wait_init (&wait.wait);
  acquire->wait = &wait;
  acquire_post_start (acquire);
  zkr__session_block_standing_in (lock->session, &wait.wait);
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

static gboolean
reevaluate_in_worker (gpointer data)
{
  ZkrQueueLock *lock = data;
  Acquire *acquire = lock->acquire;

  if (acquire != NULL)
    acquire_relist (acquire);
  lock_unref (lock);
  return G_SOURCE_REMOVE;
}

void
zkr__queue_lock_reevaluate (ZkrQueueLock *lock)
{
  g_return_if_fail (lock != NULL);
  zkr__session_post (lock->session, reevaluate_in_worker, lock_ref (lock), NULL);
}

/* ==== the blocking twin ============================================== */

typedef struct {
  GAsyncResult *result;
} SyncResult;

static void
sync_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SyncResult *sync = user_data;

  (void) source;
  sync->result = g_object_ref (result);
}

/* A private context per call: a source an async start leaves behind
 * (its own business, after the task returned) dies with it instead of
 * running in some later call. */
gboolean
zkr__queue_run_sync (gpointer object, ZkrAsyncStart async_start, int timeout_ms,
                     GCancellable *cancellable, GError **error)
{
  GMainContext *context = g_main_context_new ();
  SyncResult sync = { NULL };
  gboolean ok;

  g_main_context_push_thread_default (context);
  async_start (object, timeout_ms, cancellable, sync_done, &sync);
  while (sync.result == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);
  ok = g_task_propagate_boolean (G_TASK (sync.result), error);
  g_object_unref (sync.result);
  g_main_context_unref (context);
  return ok;
}

/* ==== release ========================================================= */

/* Answers the waiting caller of release @number, unless a newer release
 * took its place (the caller of an older one was answered before the lock
 * could be held again). */
static void
release_answer (ZkrQueueLock *lock, guint number, int rc)
{
  g_mutex_lock (&lock->mutex);
  if (number == lock->release_number && lock->release_answer == RELEASE_WAITING)
    lock->release_answer = rc;
  g_cond_broadcast (&lock->cond);
  g_mutex_unlock (&lock->mutex);
}

static void
release_stop_listening (ZkrQueueLock *lock)
{
  if (lock->release_listener != 0)
    zkr__session_remove_internal_listener (lock->session, lock->release_listener);
  lock->release_listener = 0;
}

typedef struct {
  ZkrQueueLock *lock;   /* (owned) */
  char *node;           /* (owned) */
  guint number;         /* which release */
} ReleaseStart;

static void
release_start_free (ReleaseStart *start)
{
  lock_unref (start->lock);
  g_free (start->node);
  g_free (start);
}

/* The background delete of release @start->number is done. A newer
 * release (the lock was held again meanwhile) is not this one's to answer
 * or stop listening for: its own node may still exist. */
static void
release_deleted (ZkrSession *session, int rc, gpointer user_data)
{
  ReleaseStart *start = user_data;
  ZkrQueueLock *lock = start->lock;
  gboolean newest;

  (void) session;
  g_mutex_lock (&lock->mutex);
  lock->releases_pending--;
  newest = start->number == lock->release_number;
  g_mutex_unlock (&lock->mutex);
  if (newest)
    {
      release_stop_listening (lock);
      release_answer (lock, start->number, rc == ZOK ? ZOK : ZCONNECTIONLOSS);
    }
  release_start_free (start);
}

/* While a release waits for its delete: a connection that drops answers
 * the waiter (the delete goes on in the background). */
/* The listener is the newest release's (release_start removes an older
 * one's), so the newest release is the one answered. */
static void
release_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ZkrQueueLock *lock = user_data;
  guint number;

  (void) session;
  if (state == ZKR_SESSION_STATE_SUSPENDED || state == ZKR_SESSION_STATE_LOST ||
      state == ZKR_SESSION_STATE_CLOSED)
    {
      release_stop_listening (lock);
      g_mutex_lock (&lock->mutex);
      number = lock->release_number;
      g_mutex_unlock (&lock->mutex);
      release_answer (lock, number, ZCONNECTIONLOSS);
    }
}

static gboolean
release_start (gpointer data)
{
  ReleaseStart *start = data;
  ZkrQueueLock *lock = start->lock;

  hold_stop (lock);
  release_stop_listening (lock);
  if (!zkr_session_is_connected (lock->session))
    release_answer (lock, start->number, ZCONNECTIONLOSS);
  else
    lock->release_listener = zkr__session_add_internal_listener (lock->session, release_on_state, lock);
  zkr__guaranteed_delete (lock->session, start->node, release_deleted, start);
  return G_SOURCE_REMOVE;
}

/* The common start of a release: no longer held, our node handed to the
 * caller (transfer full), the release numbered; NULL with NOT_HELD. */
static char *
release_begin (ZkrQueueLock *lock, guint *number, GError **error)
{
  char *node;

  g_mutex_lock (&lock->mutex);
  if (lock->state != LOCK_HELD && lock->state != LOCK_IN_DOUBT)
    {
      g_mutex_unlock (&lock->mutex);
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD, "%s %s is not held",
                   lock->recipe->kind, lock->user_path);
      return NULL;
    }
  node = g_steal_pointer (&lock->node_path);
  lock_set_state_locked (lock, LOCK_IDLE);
  lock->token = 0;
  lock->releases_pending++;
  *number = ++lock->release_number;
  lock->release_answer = RELEASE_WAITING;
  g_mutex_unlock (&lock->mutex);
  return node;
}

static void
release_post (ZkrQueueLock *lock, char *node, guint number)
{
  ReleaseStart *start = g_new0 (ReleaseStart, 1);

  start->lock = lock_ref (lock);
  start->node = node;
  start->number = number;
  zkr__session_post (lock->session, release_start, start, NULL);
}

gboolean
zkr__queue_lock_release_in_background (ZkrQueueLock *lock)
{
  guint number;
  char *node = release_begin (lock, &number, NULL);

  if (node == NULL)
    return FALSE;
  release_post (lock, node, number);
  return TRUE;
}

gboolean
zkr__queue_lock_release (ZkrQueueLock *lock, GError **error)
{
  char *node;
  guint number;
  int answer;

  g_return_val_if_fail (!zkr__session_in_worker (lock->session), FALSE);
  node = release_begin (lock, &number, error);
  if (node == NULL)
    return FALSE;

  /* The common case straight from this thread: the delete is sent from
   * here and its reply comes back here (two thread hand-offs fewer than
   * through the worker). The hold's listener and watch are left to the
   * worker, which stops them when it next touches this lock (acquire_start,
   * free_in_worker, a loss); until then they see a lock that is not held
   * and do nothing. Anything but a clean answer goes the worker's way:
   * the guaranteed delete. */
  if (zkr_session_is_connected (lock->session))
    {
      int rc = zkr__op_delete_sync (lock->session, node, -1);

      if (rc == ZOK || rc == ZNONODE)
        {
          g_mutex_lock (&lock->mutex);
          lock->releases_pending--;
          g_mutex_unlock (&lock->mutex);
          g_free (node);
          return TRUE;
        }
    }
  release_post (lock, node, number);
  g_mutex_lock (&lock->mutex);
  while (lock->release_number == number && lock->release_answer == RELEASE_WAITING)
    g_cond_wait (&lock->cond, &lock->mutex);
  answer = lock->release_answer;
  g_mutex_unlock (&lock->mutex);
  if (answer == ZOK)
    return TRUE;
  g_set_error (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS,
               "release of %s %s is pending: the connection is down; the delete is retried "
               "in the background", lock->recipe->kind, lock->user_path);
  return FALSE;
}

gboolean
zkr__queue_lock_is_release_pending (ZkrQueueLock *lock)
{
  gboolean pending;

  g_mutex_lock (&lock->mutex);
  pending = lock->releases_pending > 0;
  g_mutex_unlock (&lock->mutex);
  return pending;
}

/* ==== the rest of the API ============================================= */

static gboolean
free_in_worker (gpointer data)
{
  ZkrQueueLock *lock = data;
  g_autofree char *node = NULL;

  /* Dropped while held or acquiring: give it up in the background. */
  if (lock->acquire != NULL)
    acquire_fail (lock->acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_CANCELLED, "lock freed"));
  hold_stop (lock);
  g_mutex_lock (&lock->mutex);
  node = g_steal_pointer (&lock->node_path);
  lock_set_state_locked (lock, LOCK_IDLE);
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
  g_mutex_unlock (&lock->hook_lock);
  zkr__session_post (lock->session, free_in_worker, lock, (GDestroyNotify) lock_unref);
}

gboolean
zkr__queue_lock_is_held (ZkrQueueLock *lock)
{
  LockState state = lock_get_state (lock);

  return state == LOCK_HELD || state == LOCK_IN_DOUBT;
}

gboolean
zkr__queue_lock_is_busy (ZkrQueueLock *lock)
{
  return lock_get_state (lock) != LOCK_IDLE;
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
  hold_mark_lost (data, "verify found our node gone or not ours");
  return G_SOURCE_REMOVE;
}

gboolean
zkr__queue_lock_verify (ZkrQueueLock *lock, GError **error)
{
  g_autofree char *node = zkr__queue_lock_dup_node_path (lock);
  struct Stat stat;
  int rc;

  g_return_val_if_fail (!zkr__session_in_worker (lock->session), FALSE);
  if (node == NULL || !zkr__queue_lock_is_held (lock))
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD, "%s %s is not held",
                   lock->recipe->kind, lock->user_path);
      return FALSE;
    }
  rc = zkr__op_exists_sync (lock->session, node, &stat);
  if (rc == ZOK && stat.ephemeralOwner == zkr_session_get_id (lock->session))
    return TRUE;
  if (!zkr__zk_rc_is_server_answer (rc))
    {
      zkr__set_error_from_zk (error, rc, "verify", node, zkr_session_get_id (lock->session));
      return FALSE;
    }
  zkr__session_post (lock->session, verify_lost_in_worker, lock_ref (lock),
                     (GDestroyNotify) lock_unref);
  g_set_error (error, ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
               "%s %s is lost: node %s %s", lock->recipe->kind, lock->user_path, node,
               rc == ZNONODE ? "no longer exists" : "belongs to another session");
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

/* ==== participants ==================================================== */

static char *
participant_client_id (GBytes *data)
{
  gsize len = 0;
  const char *text = data != NULL ? g_bytes_get_data (data, &len) : NULL;

  if (text == NULL || len == 0)
    return g_strdup ("");
  if (!g_utf8_validate_len (text, len, NULL) || memchr (text, '\0', len) != NULL)
    return g_strdup ("<binary>");
  return g_strndup (text, len);
}

GPtrArray *
zkr__queue_list_participants (ZkrSession *session, const char *path,
                              const ZkrQueueRecipe *recipe, gpointer predicate_data,
                              GError **error)
{
  g_autofree char *full = NULL;
  g_autoptr (GPtrArray) children = NULL;
  GPtrArray *participants;
  int rc;

  if (!zkr__path_validate (path, error))
    return NULL;
  full = zkr__session_resolve_path (session, path);
  participants = g_ptr_array_new_with_free_func ((GDestroyNotify) zkr_participant_free);
  rc = zkr__op_get_children_sync (session, full, &children);
  if (rc == ZNONODE)
    return participants;
  if (rc != ZOK)
    {
      zkr__set_error_from_zk (error, rc, "list", path, zkr_session_get_id (session));
      g_ptr_array_unref (participants);
      return NULL;
    }
  (void) recipe->sort (children, recipe->lock_name, NULL);
  for (guint i = 0; i < children->len; i++)
    {
      const char *name = g_ptr_array_index (children, i);
      g_autofree char *node = zkr__path_join (full, name);
      g_autoptr (GBytes) data = NULL;
      ZkrParticipant *participant;
      const char *wait_on = NULL;
      struct Stat stat;

      rc = zkr__op_get_sync (session, node, &data, &stat);
      if (rc == ZNONODE)
        continue; /* gone since the listing */
      if (rc != ZOK)
        {
          zkr__set_error_from_zk (error, rc, "read", node, zkr_session_get_id (session));
          g_ptr_array_unref (participants);
          return NULL;
        }
      participant = g_new0 (ZkrParticipant, 1);
      participant->node = g_strdup (name);
      participant->client_id = participant_client_id (data);
      participant->session_id = stat.ephemeralOwner;
      participant->token = stat.czxid;
      participant->created_ms = stat.ctime;
      participant->is_holder = recipe->predicate (children, i, &wait_on, predicate_data);
      g_ptr_array_add (participants, participant);
    }
  return participants;
}

GPtrArray *
zkr__queue_lock_list_participants (ZkrQueueLock *lock, GError **error)
{
  return zkr__queue_list_participants (lock->session, lock->user_path, lock->recipe,
                                       lock->predicate_data, error);
}

void
zkr_participant_free (ZkrParticipant *participant)
{
  if (participant == NULL)
    return;
  g_free (participant->node);
  g_free (participant->client_id);
  g_free (participant);
}

const char *
zkr_lock_event_name (ZkrLockEvent event)
{
  switch (event)
    {
    case ZKR_LOCK_IN_DOUBT:
      return "IN_DOUBT";
    case ZKR_LOCK_RESTORED:
      return "RESTORED";
    case ZKR_LOCK_LOST:
      return "LOST";
    default:
      return "INVALID";
    }
}
