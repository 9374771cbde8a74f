/* zkr: the leader latch, Curator's LeaderLatch layout: one entry of the
 * queue engine under the lock name "latch-" with the "first in line"
 * predicate, the participant id as node data. The engine's loss events
 * become not_leader / is_leader by the yield policy; after a loss the
 * latch queues a new node at the back.
 *
 * Threads: the election logic runs on the session's worker, where the
 * engine returns its acquires and calls its loss hook; the public calls
 * may come from any thread; listeners run in their own contexts. */

#include <string.h>

#include "context.h"
#include "error-private.h"
#include "leader-private.h"
#include "queue-lock.h"
#include "log.h"
#include "nodename.h"
#include "notifier.h"
#include "ref.h"
#include "session-private.h"

#include <zkr/leader-latch.h>

/* A failed enqueue that is not about the session (auth, a server error)
 * is tried again after this pause rather than in a tight loop. */
#define LATCH_RETRY_MS 1000

typedef enum {
  LATCH_LATENT,
  LATCH_STARTED,
  LATCH_CLOSED,
} LatchState;

/* Where our engine entry is, as the worker sees it. */
typedef enum {
  ENTRY_IDLE,
  ENTRY_WAITING,     /* an acquire is in flight */
  ENTRY_HOLDING,     /* the engine granted it: we are first in line */
} EntryPhase;

enum {
  EVENT_NOT_LEADER,
  EVENT_IS_LEADER,
};

struct _ZkrLeaderLatch {
  gatomicrefcount ref;
  ZkrSession *session;          /* (owned) */
  char *path;                   /* as given, for messages */
  char *id;
  ZkrQueueLock *queue;          /* (owned) */
  ZkrNotifier *listeners;
  GCancellable *cancellable;    /* (owned) cancelled by close */

  GMutex mutex;
  LatchState state;             /* protected by mutex */
  ZkrLeaderYieldPolicy policy;  /* protected by mutex */
  gboolean leader;              /* protected by mutex */
  gint64 token;                 /* protected by mutex */
  gboolean stopped;             /* the session was closed; mutex */
  guint busy;                   /* worker items in flight; mutex */
  GList *closes;                /* ZkrLeaderClose* waiting for busy to be 0;
                                 * mutex */
  gboolean finalizing;          /* the last unref came: the last worker
                                 * item frees the latch; mutex */
  EntryPhase phase;             /* worker; read and written under mutex */
  gboolean in_doubt;            /* worker; the engine said IN_DOUBT */
  GList *awaits;                /* ZkrLeaderAwait* (a reference each) waiting for
                                 * leadership; protected by mutex */
};

static const ZkrQueueRecipe latch_recipe = {
  .lock_name = "latch-",        /* Curator's LeaderLatch.LOCK_NAME */
  .sort = zkr__nodename_sort_up_to, /* its sorter is fixForSorting("latch-") */
  .predicate = zkr__queue_lock_predicate_first,
  .kind = "leader latch",
};

/* With latch->mutex held: answers every await waiting (@error: copied
 * for each; NULL: leading) and empties the list. */
static void
latch_answer_awaits_locked (ZkrLeaderLatch *latch, const GError *error)
{
  GList *awaits = g_steal_pointer (&latch->awaits);

  for (GList *l = awaits; l != NULL; l = l->next)
    zkr__leader_latch_await_post_answer (l->data, error != NULL ? g_error_copy (error) : NULL);
  g_list_free_full (awaits, zkr__leader_latch_await_unref);
}

/* With latch->mutex held: the latch was closed, or its session. */
static void
latch_answer_awaits_closed_locked (ZkrLeaderLatch *latch)
{
  GError *error;

  if (latch->awaits == NULL)
    return;
  error = g_error_new (ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED, "leader latch %s (%s) was closed",
                       latch->path, latch->id);
  latch_answer_awaits_locked (latch, error);
  g_error_free (error);
}

/* ==== listeners ======================================================= */

typedef struct {
  ZkrLeaderLatchFunc is_leader;
  ZkrLeaderLatchFunc not_leader;
  gpointer user_data;
  GDestroyNotify destroy;
} LatchListener;

static void
latch_marshal (GCallback func, gpointer source, int event, gpointer user_data)
{
  LatchListener *listener = user_data;
  ZkrLeaderLatchFunc call = event == EVENT_IS_LEADER ? listener->is_leader : listener->not_leader;

  (void) func;
  if (call != NULL)
    call (source, listener->user_data);
}

static void
latch_listener_free (gpointer data)
{
  LatchListener *listener = data;

  if (listener->destroy != NULL)
    listener->destroy (listener->user_data);
  g_free (listener);
}

/* A listener never sees a latch that is being finalized. */
static gpointer
latch_try_ref (gpointer data)
{
  ZkrLeaderLatch *latch = data;

  return zkr__ref_try (&latch->ref) ? latch : NULL;
}

/* With latch->mutex held: the change and its event are one step, so that
 * listeners hear the changes in the order they happened. */
static void
latch_set_leader_locked (ZkrLeaderLatch *latch, gboolean leader, gboolean notify)
{
  if (latch->leader == leader)
    return;
  latch->leader = leader;
  latch->token = leader ? zkr__queue_lock_get_token (latch->queue) : 0;
  zkr__debug ("leader latch %s (%s): %s, token %" G_GINT64_FORMAT, latch->path, latch->id,
           leader ? "leader" : "not leader", latch->token);
  if (leader)
    latch_answer_awaits_locked (latch, NULL);
  if (notify)
    zkr__notifier_emit (latch->listeners, leader ? EVENT_IS_LEADER : EVENT_NOT_LEADER);
}

/* ==== the election (worker thread) ===================================== */

static void latch_finalize (ZkrLeaderLatch *latch);
static void close_post_release (gpointer data, gpointer unused);

/* The last thing a worker item does with the latch: a close goes on
 * (releases) once none is left, so that nothing queues a node after it;
 * after the last unref, the last one frees the latch. */
static void
latch_busy_done (gpointer data)
{
  ZkrLeaderLatch *latch = data;
  GList *closes = NULL;
  gboolean finalize = FALSE;

  g_mutex_lock (&latch->mutex);
  latch->busy--;
  if (latch->busy == 0)
    {
      closes = g_steal_pointer (&latch->closes);
      finalize = latch->finalizing;
    }
  g_mutex_unlock (&latch->mutex);
  g_list_foreach (closes, close_post_release, NULL);
  g_list_free (closes);
  if (finalize)
    latch_finalize (latch);
}

static void latch_acquired (ZkrQueueLock *queue, const GError *error, gpointer user_data);

/* Queues a node at the back, unless the latch was closed meanwhile. */
static void
latch_enqueue (ZkrLeaderLatch *latch)
{
  g_mutex_lock (&latch->mutex);
  if (latch->state != LATCH_STARTED)
    {
      g_mutex_unlock (&latch->mutex);
      return;
    }
  latch->busy++;
  latch->phase = ENTRY_WAITING;
  latch->in_doubt = FALSE;
  g_mutex_unlock (&latch->mutex);
  /* The outcome comes back to the worker, whichever thread runs this
   * (the worker, or a caller standing in for it). */
  zkr__queue_lock_acquire_on_worker (latch->queue, -1, latch->cancellable, latch_acquired, latch);
}

static gboolean
latch_enqueue_run (gpointer data)
{
  latch_enqueue (data);
  return G_SOURCE_REMOVE;
}

/* Any thread. */
static void
latch_post_enqueue (ZkrLeaderLatch *latch)
{
  g_mutex_lock (&latch->mutex);
  latch->busy++;
  g_mutex_unlock (&latch->mutex);
  zkr__session_post (latch->session, latch_enqueue_run, latch, latch_busy_done);
}

/* Worker (turn held): a session timer, dropped (its destroy run) if the
 * session goes first. */
static void
latch_enqueue_later (ZkrLeaderLatch *latch)
{
  g_mutex_lock (&latch->mutex);
  latch->busy++;
  g_mutex_unlock (&latch->mutex);
  (void) zkr__session_timer_add_full (latch->session, LATCH_RETRY_MS, 0, latch_enqueue_run, latch,
                                      latch_busy_done);
}

typedef enum {
  NEXT_NOTHING,
  NEXT_ENQUEUE,
  NEXT_ENQUEUE_LATER,
} NextStep;

/* With latch->mutex held: what to do after an acquire that did not make
 * us leader. */
static NextStep
latch_next_after_failure (ZkrLeaderLatch *latch, const GError *error)
{
  if (error == NULL)
    return NEXT_ENQUEUE;          /* granted, then lost before we heard */
  if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED))
    {
      latch->stopped = TRUE;
      latch_answer_awaits_closed_locked (latch);
      return NEXT_NOTHING;
    }
  /* A lost session, our node gone, or (CURATOR-696) a node that belongs to
   * an old session: queue again; the engine waits for the connection. */
  if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED) ||
      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_LOCK_LOST) ||
      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS))
    return NEXT_ENQUEUE;
  zkr__debug ("leader latch %s (%s): queueing failed, trying again: %s", latch->path, latch->id,
           error->message);
  return NEXT_ENQUEUE_LATER;
}

static void
latch_acquired (ZkrQueueLock *queue, const GError *error, gpointer user_data)
{
  ZkrLeaderLatch *latch = user_data;
  gboolean holding = error == NULL && zkr__queue_lock_is_held (queue);
  NextStep next = NEXT_NOTHING;

  g_mutex_lock (&latch->mutex);
  latch->phase = holding ? ENTRY_HOLDING : ENTRY_IDLE;
  if (latch->state == LATCH_STARTED)
    {
      /* The engine checked our node's ephemeralOwner before granting. If
       * the connection dropped since, RESTORED will make us leader. */
      if (holding && !(latch->in_doubt && latch->policy == ZKR_LEADER_YIELD_ON_SUSPENDED))
        latch_set_leader_locked (latch, TRUE, TRUE);
      else if (!holding)
        next = latch_next_after_failure (latch, error);
    }
  g_mutex_unlock (&latch->mutex);
  if (next == NEXT_ENQUEUE)
    latch_post_enqueue (latch);
  else if (next == NEXT_ENQUEUE_LATER)
    latch_enqueue_later (latch);
  latch_busy_done (latch);
}

/* The engine's loss hook, on the worker: IN_DOUBT on SUSPENDED, RESTORED
 * when the node is still ours after RECONNECTED, LOST at the safe
 * deadline, on LOST, or when our node is gone. */
static void
latch_on_loss (gpointer queue, ZkrLockEvent event, gpointer user_data)
{
  ZkrLeaderLatch *latch = user_data;
  gboolean started, requeue = FALSE;

  (void) queue;
  g_mutex_lock (&latch->mutex);
  started = latch->state == LATCH_STARTED;
  switch (event)
    {
    case ZKR_LOCK_IN_DOUBT:
      latch->in_doubt = TRUE;
      if (started && latch->phase == ENTRY_HOLDING &&
          latch->policy == ZKR_LEADER_YIELD_ON_SUSPENDED)
        latch_set_leader_locked (latch, FALSE, TRUE);
      break;
    case ZKR_LOCK_RESTORED:
      /* Our node survived and nobody can have queued before it: still
       * first in line (Curator re-checks on RECONNECTED the same way). */
      latch->in_doubt = FALSE;
      if (started && latch->phase == ENTRY_HOLDING)
        latch_set_leader_locked (latch, TRUE, TRUE);
      break;
    case ZKR_LOCK_LOST:
    default:
      latch->in_doubt = FALSE;
      if (latch->phase == ENTRY_HOLDING)
        {
          latch->phase = ENTRY_IDLE;
          if (started)
            {
              latch_set_leader_locked (latch, FALSE, TRUE);
              requeue = TRUE;
            }
        }
      break;
    }
  g_mutex_unlock (&latch->mutex);
  if (requeue)
    latch_post_enqueue (latch);
}

/* ==== the API ========================================================== */

ZkrLeaderLatch *
zkr_leader_latch_new (ZkrSession *session, const char *path, const char *participant_id,
                      GError **error)
{
  ZkrLeaderLatch *latch;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (participant_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!zkr__leader_validate_id (participant_id, "leader latch", error))
    return NULL;
  latch = g_new0 (ZkrLeaderLatch, 1);
  g_atomic_ref_count_init (&latch->ref);
  latch->queue = zkr__queue_lock_new (session, path, &latch_recipe, NULL, error);
  if (latch->queue == NULL)
    {
      g_free (latch);
      return NULL;
    }
  latch->session = zkr_session_ref (session);
  latch->path = g_strdup (path);
  latch->id = g_strdup (participant_id);
  latch->listeners = zkr__notifier_new (latch, latch_try_ref,
                                        (void (*) (gpointer)) zkr_leader_latch_unref, latch_marshal);
  latch->cancellable = g_cancellable_new ();
  g_mutex_init (&latch->mutex);
  zkr__queue_lock_set_node_data (latch->queue, participant_id);
  zkr__queue_lock_set_loss_hook (latch->queue, latch_on_loss, latch);
  return latch;
}

ZkrLeaderLatch *
zkr_leader_latch_ref (ZkrLeaderLatch *latch)
{
  g_return_val_if_fail (latch != NULL, NULL);
  g_atomic_ref_count_inc (&latch->ref);
  return latch;
}

/* Once nothing can reach the latch: its last reference is gone, no
 * worker item is left and the entry's hook has stopped. Any thread. */
static void
latch_finalize (ZkrLeaderLatch *latch)
{
  /* Only answered ones can be left (a close answers the rest). */
  g_list_free_full (g_steal_pointer (&latch->awaits), zkr__leader_latch_await_unref);
  zkr__notifier_free (latch->listeners);
  g_object_unref (latch->cancellable);
  zkr_session_unref (latch->session);
  g_free (latch->path);
  g_free (latch->id);
  g_mutex_clear (&latch->mutex);
  g_free (latch);
}

static gboolean latch_close_begin (ZkrLeaderLatch *latch, ZkrLeaderCloseMode mode);

void
zkr_leader_latch_unref (ZkrLeaderLatch *latch)
{
  gboolean finalize;

  g_return_if_fail (latch != NULL);
  if (!g_atomic_ref_count_dec (&latch->ref))
    return;
  /* Never waits (docs/design.md §6): a silent close, then the entry gives
   * our node up in the background (guaranteed delete, an acquire in
   * flight abandoned) as a mutex dropped while held does. No hook call
   * runs or starts once zkr__queue_lock_free() returned, so no new worker
   * item comes: the last one left frees the latch. */
  (void) latch_close_begin (latch, ZKR_LEADER_CLOSE_SILENT);
  zkr__queue_lock_free (latch->queue);
  g_mutex_lock (&latch->mutex);
  latch->finalizing = TRUE;
  finalize = latch->busy == 0;
  g_mutex_unlock (&latch->mutex);
  if (finalize)
    latch_finalize (latch);
}

void
zkr_leader_latch_set_yield_policy (ZkrLeaderLatch *latch, ZkrLeaderYieldPolicy policy)
{
  g_return_if_fail (latch != NULL);
  g_return_if_fail (policy == ZKR_LEADER_YIELD_ON_SUSPENDED || policy == ZKR_LEADER_YIELD_ON_LOST);
  g_mutex_lock (&latch->mutex);
  latch->policy = policy;
  g_mutex_unlock (&latch->mutex);
}

gboolean
zkr_leader_latch_start (ZkrLeaderLatch *latch, GError **error)
{
  g_return_val_if_fail (latch != NULL, FALSE);
  g_mutex_lock (&latch->mutex);
  if (latch->state != LATCH_LATENT)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "leader latch %s (%s) was already %s", latch->path, latch->id,
                   latch->state == LATCH_STARTED ? "started" : "closed");
      g_mutex_unlock (&latch->mutex);
      return FALSE;
    }
  latch->state = LATCH_STARTED;
  g_mutex_unlock (&latch->mutex);
  latch_post_enqueue (latch);
  return TRUE;
}

/* ==== the close ======================================================== */

/* The close's first step, in the caller's thread: no longer started, no
 * longer leading (told with ZKR_LEADER_CLOSE_NOTIFY), the awaits answered,
 * an acquire in flight cancelled (it deletes the node it made). FALSE when
 * the latch was not started: nothing to delete. */
static gboolean
latch_close_begin (ZkrLeaderLatch *latch, ZkrLeaderCloseMode mode)
{
  g_mutex_lock (&latch->mutex);
  if (latch->state != LATCH_STARTED)
    {
      latch->state = LATCH_CLOSED;
      g_mutex_unlock (&latch->mutex);
      return FALSE;
    }
  latch->state = LATCH_CLOSED;
  latch_set_leader_locked (latch, FALSE, mode == ZKR_LEADER_CLOSE_NOTIFY);
  latch_answer_awaits_closed_locked (latch);
  g_mutex_unlock (&latch->mutex);
  g_cancellable_cancel (latch->cancellable);
  return TRUE;
}

/* A close_async's steps run on the worker: nothing of them waits for the
 * caller's context. */

/* Worker, or the flush's caller when not connected. */
static void
close_flushed (gboolean flushed, gpointer data)
{
  ZkrLeaderClose *close = data;
  ZkrLeaderLatch *latch = zkr__leader_close_get_object (close);

  if (flushed)
    zkr__leader_close_end (close, NULL);
  else
    zkr__leader_close_end (close, g_error_new (ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS,
                                               "closing leader latch %s (%s): the connection "
                                               "is down; our node is deleted in the background",
                                               latch->path, latch->id));
}

/* Worker. */
static void
close_released (ZkrQueueLock *queue, const GError *error, gpointer data)
{
  ZkrLeaderClose *close = data;

  if (error == NULL)
    zkr__leader_close_end (close, NULL);
  else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD))
    /* Not held: an acquire the cancel stopped only sent the delete of the
     * node it made; one round trip behind it on the same session is
     * answered after it, and then the node is gone for everyone. */
    zkr__queue_lock_flush_async (queue, close_flushed, close);
  else
    zkr__leader_close_end (close, g_error_copy (error));
}

/* Worker, once no worker item is left: nothing queues a node any more. */
static gboolean
close_release (gpointer data)
{
  ZkrLeaderLatch *latch = zkr__leader_close_get_object (data);

  zkr__queue_release_on_worker (latch->queue, close_released, data);
  return G_SOURCE_REMOVE;
}

static void
close_post_release (gpointer data, gpointer unused)
{
  ZkrLeaderLatch *latch = zkr__leader_close_get_object (data);

  (void) unused;
  zkr__session_post (latch->session, close_release, data, NULL);
}

void
zkr_leader_latch_close_async (ZkrLeaderLatch *latch, ZkrLeaderCloseMode mode,
                              GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  g_autofree char *what = NULL;
  ZkrLeaderClose *close;
  gboolean release_now;

  g_return_if_fail (latch != NULL);
  zkr__context_assert_user ("zkr_leader_latch_close_async() called");
  what = g_strdup_printf ("leader latch %s (%s)", latch->path, latch->id);
  close = zkr__leader_close_new (zkr_leader_latch_ref (latch),
                                 (GDestroyNotify) zkr_leader_latch_unref, what, cancellable,
                                 callback, user_data, zkr_leader_latch_close_async,
                                 "zkr_leader_latch_close");
  if (!latch_close_begin (latch, mode))
    {
      zkr__leader_close_end (close, NULL);
      return;
    }
  g_mutex_lock (&latch->mutex);
  release_now = latch->busy == 0;
  if (!release_now)
    latch->closes = g_list_prepend (latch->closes, close);
  g_mutex_unlock (&latch->mutex);
  if (release_now)
    close_post_release (close, NULL);
}

gboolean
zkr_leader_latch_close_finish (ZkrLeaderLatch *latch, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (latch != NULL, FALSE);
  return zkr__queue_task_finish (result, zkr_leader_latch_close_async, error);
}

typedef struct {
  ZkrLeaderLatch *latch;
  ZkrLeaderCloseMode mode;
} CloseCall;

static void
close_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
             gpointer user_data)
{
  CloseCall *call = data;

  zkr_leader_latch_close_async (call->latch, call->mode, cancellable, callback, user_data);
}

gboolean
zkr_leader_latch_close (ZkrLeaderLatch *latch, ZkrLeaderCloseMode mode, GError **error)
{
  CloseCall call = { latch, mode };
  GAsyncResult *result;
  gboolean ok;

  g_return_val_if_fail (latch != NULL, FALSE);
  g_return_val_if_fail (!zkr__session_in_worker (latch->session), FALSE);
  result = zkr__context_run_sync (close_start, &call, NULL);
  ok = zkr_leader_latch_close_finish (latch, result, error);
  g_object_unref (result);
  return ok;
}

gboolean
zkr_leader_latch_has_leadership (ZkrLeaderLatch *latch)
{
  gboolean leader;

  g_return_val_if_fail (latch != NULL, FALSE);
  g_mutex_lock (&latch->mutex);
  leader = latch->leader;
  g_mutex_unlock (&latch->mutex);
  return leader;
}

/* With latch->mutex held: TRUE when an await is answered at once (@error
 * set unless leading), FALSE when it waits. Leading comes first: an
 * await of a leader says so even when cancelled. */
static gboolean
latch_await_answer_now_locked (ZkrLeaderLatch *latch, int timeout_ms, GCancellable *cancellable,
                               GError **error)
{
  if (latch->leader)
    return TRUE;
  if (latch->state == LATCH_LATENT)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                 "leader latch %s (%s) is not started", latch->path, latch->id);
  else if (latch->state == LATCH_CLOSED || latch->stopped)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                 "leader latch %s (%s) was closed", latch->path, latch->id);
  else if (g_cancellable_is_cancelled (cancellable))
    g_propagate_error (error, zkr__error_new_cancelled ("wait for leadership of %s (%s)",
                                                        latch->path, latch->id));
  else if (timeout_ms == 0)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                 "timed out waiting for leadership of %s (%s)", latch->path, latch->id);
  else
    return FALSE;
  return TRUE;
}

/* With latch->mutex held: drops the awaits answered by their timer or
 * cancel, so that the list does not grow with every await that timed out
 * while another participant leads. */
static void
latch_prune_awaits_locked (ZkrLeaderLatch *latch)
{
  GList *l = latch->awaits;

  while (l != NULL)
    {
      GList *next = l->next;

      if (zkr__leader_latch_await_is_answered (l->data))
        {
          zkr__leader_latch_await_unref (l->data);
          latch->awaits = g_list_delete_link (latch->awaits, l);
        }
      l = next;
    }
}

void
zkr_leader_latch_await_async (ZkrLeaderLatch *latch, int timeout_ms, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  GError *error = NULL;
  ZkrLeaderAwait *await;
  gboolean now;
  char *what;

  g_return_if_fail (latch != NULL);
  zkr__context_assert_user ("zkr_leader_latch_await_async() called");
  what = g_strdup_printf ("%s (%s)", latch->path, latch->id);
  /* The timer and the cancel first: once listed, the await may be
   * answered from another thread, which destroys them in this context. */
  await = zkr__leader_latch_await_new (what, timeout_ms, cancellable, callback, user_data);
  g_free (what);
  g_mutex_lock (&latch->mutex);
  now = latch_await_answer_now_locked (latch, timeout_ms, cancellable, &error);
  if (!now)
    {
      latch_prune_awaits_locked (latch);
      latch->awaits = g_list_prepend (latch->awaits, zkr__leader_latch_await_ref (await));
    }
  g_mutex_unlock (&latch->mutex);
  if (now)
    zkr__leader_latch_await_post_answer (await, error);
  zkr__leader_latch_await_unref (await);
}

gboolean
zkr_leader_latch_await_finish (ZkrLeaderLatch *latch, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (latch != NULL, FALSE);
  return zkr__queue_task_finish (result, zkr_leader_latch_await_async, error);
}

static void
await_start (gpointer latch, int timeout_ms, GCancellable *cancellable,
             GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_leader_latch_await_async (latch, timeout_ms, cancellable, callback, user_data);
}

gboolean
zkr_leader_latch_await (ZkrLeaderLatch *latch, int timeout_ms, GCancellable *cancellable,
                        GError **error)
{
  g_return_val_if_fail (latch != NULL, FALSE);
  return zkr__queue_task_run_sync (latch, await_start, timeout_ms, cancellable, error);
}

gint64
zkr_leader_latch_get_fencing_token (ZkrLeaderLatch *latch)
{
  gint64 token;

  g_return_val_if_fail (latch != NULL, 0);
  g_mutex_lock (&latch->mutex);
  token = latch->token;
  g_mutex_unlock (&latch->mutex);
  return token;
}

char *
zkr_leader_latch_dup_node_path (ZkrLeaderLatch *latch)
{
  g_return_val_if_fail (latch != NULL, NULL);
  return zkr__queue_lock_dup_node_path (latch->queue);
}

const char *
zkr_leader_latch_get_id (ZkrLeaderLatch *latch)
{
  g_return_val_if_fail (latch != NULL, NULL);
  return latch->id;
}

guint
zkr_leader_latch_add_listener (ZkrLeaderLatch *latch, ZkrLeaderLatchFunc is_leader,
                               ZkrLeaderLatchFunc not_leader, gpointer user_data,
                               GDestroyNotify destroy)
{
  LatchListener *listener;

  g_return_val_if_fail (latch != NULL, 0);
  g_return_val_if_fail (is_leader != NULL || not_leader != NULL, 0);
  listener = g_new0 (LatchListener, 1);
  listener->is_leader = is_leader;
  listener->not_leader = not_leader;
  listener->user_data = user_data;
  listener->destroy = destroy;
  return zkr__notifier_add (latch->listeners,
                            (GCallback) (void (*) (void)) (is_leader != NULL ? is_leader : not_leader),
                            listener, latch_listener_free);
}

void
zkr_leader_latch_remove_listener (ZkrLeaderLatch *latch, guint listener_id)
{
  g_return_if_fail (latch != NULL);
  zkr__notifier_remove (latch->listeners, listener_id);
}

GPtrArray *
zkr_leader_latch_list_participants (ZkrLeaderLatch *latch, GCancellable *cancellable,
                                    GError **error)
{
  g_return_val_if_fail (latch != NULL, NULL);
  return zkr__queue_participants_list_for_lock (latch->queue, cancellable, error);
}

char *
zkr_leader_latch_dup_leader_id (ZkrLeaderLatch *latch, GCancellable *cancellable, GError **error)
{
  g_autoptr (GPtrArray) participants = NULL;

  g_return_val_if_fail (latch != NULL, NULL);
  participants = zkr__queue_participants_list_for_lock (latch->queue, cancellable, error);
  return zkr__leader_id_from_participants (participants);
}
