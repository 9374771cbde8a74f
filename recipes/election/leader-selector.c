/* zkr: the leader selector, Curator's LeaderSelector layout: the mutex's
 * "lock-" queue with the participant id as node data. A thread of the
 * selector's own queues (blocking acquire), runs the lead callback while it
 * holds, deletes the node when the callback returns, and queues again when
 * asked to. The engine's loss hook raises the term's interrupt.
 *
 * Threads: the selector's thread runs the terms, and at its end answers
 * the closes and frees the selector if its last reference went meanwhile
 * (nobody joins it); the loss hook runs on the
 * session's worker (or a thread in its place), where no user code may run:
 * it raises the interrupt through a short-lived thread of its own; the
 * public calls may come from any thread. State shared between them is
 * behind selector->mutex. */

#include "context.h"
#include "error-private.h"
#include "leader-private.h"
#include "queue-lock.h"
#include "log.h"
#include "nodename.h"
#include "session-private.h"

#include <zkr/leader-selector.h>

/* A failed queueing that is not about the session is tried again after
 * this pause rather than in a tight loop. */
#define SELECTOR_RETRY_MS 1000

typedef enum {
  SELECTOR_LATENT,
  SELECTOR_STARTED,
  SELECTOR_CLOSED,
} SelectorState;

struct _ZkrLeaderSelector {
  gatomicrefcount ref;
  ZkrSession *session;          /* (owned) */
  char *path;                   /* as given, for messages */
  char *id;
  ZkrQueueLock *queue;          /* (owned) */
  ZkrLeadFunc lead;
  gpointer user_data;
  GDestroyNotify destroy;
  GCancellable *closing;        /* (owned) cancelled by close: ends a queued acquire */

  GMutex mutex;
  GCond cond;
  GThread *thread;              /* (owned) (nullable) set by start; mutex */
  gboolean ended;               /* the thread is done with the selector; mutex */
  gboolean finalizing;          /* the last unref came: whichever of it and
                                 * the thread's end comes last frees; mutex */
  GList *closes;                /* ZkrLeaderClose* the thread's end answers; mutex */
  SelectorState state;          /* mutex */
  gboolean auto_requeue;        /* mutex */
  gboolean queued;              /* wants a term, or is in one; mutex */
  gboolean leading;             /* the lead callback runs; mutex */
  GCancellable *interrupt;      /* (nullable) the term's; mutex */
  gint64 token;                 /* mutex */
  gboolean in_doubt;            /* IN_DOUBT or LOST since our acquire; mutex */
  gboolean release_pending;     /* our last delete goes on in the background; mutex */
};

static const ZkrQueueRecipe selector_recipe = {
  .lock_name = ZKR_NODE_LOCK_NAME,      /* LeaderSelector is an InterProcessMutex */
  .sort = zkr__nodename_sort_up_to,
  .predicate = zkr__queue_lock_predicate_first,
  .kind = "leader selector",
};

/* ==== the loss hook (worker thread) ==================================== */

/* A thread of the interrupt's own: g_cancellable_cancel() runs the
 * handlers connected to it in the calling thread, and they are user code,
 * which never runs on the session's worker or a thread standing in for it
 * (docs/design.md, "Threads and contexts"): a slow handler would stall the
 * session. The selector has no main context to post to (its callback runs
 * on its own thread, busy in the term), so the cancel gets a thread. */
static gpointer
interrupt_thread_main (gpointer data)
{
  GCancellable *interrupt = data;

  g_cancellable_cancel (interrupt);
  g_object_unref (interrupt);
  return NULL;
}

static void
selector_on_loss (gpointer queue, ZkrLockEvent event, gpointer user_data)
{
  ZkrLeaderSelector *selector = user_data;
  GCancellable *interrupt = NULL;

  (void) queue;
  if (event == ZKR_LOCK_RESTORED)
    return; /* a term once interrupted stays interrupted, as in Curator */
  /* in_doubt ends the leadership now (has_leadership reads it), before
   * the interrupt's thread gets to cancel it. */
  g_mutex_lock (&selector->mutex);
  selector->in_doubt = TRUE;
  if (selector->leading && selector->interrupt != NULL &&
      !g_cancellable_is_cancelled (selector->interrupt))
    interrupt = g_object_ref (selector->interrupt);
  g_mutex_unlock (&selector->mutex);
  if (interrupt != NULL)
    {
      zkr__debug ("leader selector %s (%s): %s, interrupting the term", selector->path,
               selector->id, zkr_lock_event_name (event));
      g_thread_unref (g_thread_new ("zkr-interrupt", interrupt_thread_main, interrupt));
    }
}

/* ==== the selector's thread ============================================ */

static void
selector_free (ZkrLeaderSelector *selector)
{
  /* No hook call runs or starts once this returns. */
  zkr__queue_lock_free (selector->queue);
  if (selector->destroy != NULL)
    selector->destroy (selector->user_data);
  g_object_unref (selector->closing);
  zkr_session_unref (selector->session);
  /* Never joined: the thread ended, or is ending on this very call. */
  if (selector->thread != NULL)
    g_thread_unref (selector->thread);
  g_free (selector->path);
  g_free (selector->id);
  g_mutex_clear (&selector->mutex);
  g_cond_clear (&selector->cond);
  g_free (selector);
}

/* Waits until a term is wanted; FALSE once closed. */
static gboolean
selector_wait_queued (ZkrLeaderSelector *selector)
{
  gboolean started;

  g_mutex_lock (&selector->mutex);
  while (selector->state == SELECTOR_STARTED && !selector->queued)
    g_cond_wait (&selector->cond, &selector->mutex);
  started = selector->state == SELECTOR_STARTED;
  selector->in_doubt = FALSE;
  g_mutex_unlock (&selector->mutex);
  return started;
}

static void
selector_acquire_start (gpointer object, int timeout_ms, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  ZkrLeaderSelector *selector = object;
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_name (task, "zkr_leader_selector_acquire");
  g_task_set_check_cancellable (task, FALSE);
  zkr__queue_lock_acquire (selector->queue, timeout_ms, cancellable, task);
}

/* After a failed queueing: FALSE when the thread should end. */
static gboolean
selector_after_failure (ZkrLeaderSelector *selector, const GError *error)
{
  gboolean go_on;

  g_mutex_lock (&selector->mutex);
  if (selector->state == SELECTOR_STARTED)
    {
      if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED))
        selector->queued = FALSE;       /* nothing to queue on: wait for close */
      else if (!g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED) &&
               !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_LOCK_LOST) &&
               !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS))
        {
          gint64 until = g_get_monotonic_time () + SELECTOR_RETRY_MS * G_TIME_SPAN_MILLISECOND;

          zkr__debug ("leader selector %s (%s): queueing failed, trying again: %s", selector->path,
                   selector->id, error->message);
          while (selector->state == SELECTOR_STARTED &&
                 g_cond_wait_until (&selector->cond, &selector->mutex, until))
            ;
        }
    }
  go_on = selector->state == SELECTOR_STARTED;
  g_mutex_unlock (&selector->mutex);
  return go_on;
}

static void
selector_release (ZkrLeaderSelector *selector)
{
  g_autoptr (GError) error = NULL;
  gboolean pending;

  if (zkr__queue_release_sync (selector->queue, &error))
    pending = FALSE;
  else
    pending = g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS);
  g_mutex_lock (&selector->mutex);
  selector->release_pending = pending;
  g_mutex_unlock (&selector->mutex);
}

/* Runs one term on a granted acquire. */
static void
selector_run_term (ZkrLeaderSelector *selector)
{
  GCancellable *interrupt;
  gint64 token;

  g_mutex_lock (&selector->mutex);
  /* Closed, or the connection dropped between the grant and now: no term;
   * give the node back and queue again (if still wanted). */
  if (selector->state != SELECTOR_STARTED || selector->in_doubt ||
      !zkr__queue_lock_is_held (selector->queue))
    {
      g_mutex_unlock (&selector->mutex);
      selector_release (selector);
      return;
    }
  selector->leading = TRUE;
  selector->token = token = zkr__queue_lock_get_token (selector->queue);
  selector->interrupt = g_cancellable_new ();
  interrupt = g_object_ref (selector->interrupt);
  g_mutex_unlock (&selector->mutex);

  zkr_leader_selector_ref (selector);
  zkr__debug ("leader selector %s (%s): term with token %" G_GINT64_FORMAT " starts",
           selector->path, selector->id, token);
  selector->lead (selector, token, interrupt, selector->user_data);

  g_mutex_lock (&selector->mutex);
  selector->leading = FALSE;
  selector->token = 0;
  g_clear_object (&selector->interrupt);
  if (!selector->auto_requeue)
    selector->queued = FALSE;
  g_mutex_unlock (&selector->mutex);
  g_object_unref (interrupt);
  selector_release (selector);
  /* The callback may have dropped the last reference: then this closes the
   * selector and the thread's end frees it. */
  zkr_leader_selector_unref (selector);
}

/* The thread's end, after a close: our node is gone (or its delete goes
 * on in the background); the closes hear which, and the last unref, if it
 * came, frees the selector here. */
static void
selector_thread_end (ZkrLeaderSelector *selector)
{
  g_autoptr (GError) pending_error = NULL;
  GList *closes;
  gboolean pending, finalize;

  g_mutex_lock (&selector->mutex);
  pending = selector->release_pending;
  g_mutex_unlock (&selector->mutex);
  /* An acquire cancelled by the close only sent the delete of the node it
   * made. One round trip behind it on the same session is answered after
   * it: then the node is gone, as promised, for everyone. */
  if (!pending)
    pending = !zkr__queue_lock_flush (selector->queue);
  if (pending)
    pending_error = g_error_new (ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS,
                                 "closing leader selector %s (%s): the connection is down; our "
                                 "node is deleted in the background", selector->path,
                                 selector->id);
  g_mutex_lock (&selector->mutex);
  selector->ended = TRUE;
  closes = g_steal_pointer (&selector->closes);
  finalize = selector->finalizing;
  g_mutex_unlock (&selector->mutex);
  /* Each close holds a reference: ending the last one may free the
   * selector (then finalize is FALSE), so nothing here touches it after. */
  for (GList *l = closes; l != NULL; l = l->next)
    zkr__leader_close_end (l->data, pending_error != NULL ? g_error_copy (pending_error) : NULL);
  g_list_free (closes);
  if (finalize)
    selector_free (selector);
}

/* The selector is borrowed: it is freed no earlier than
 * selector_thread_end(), which is the last thing this thread does. */
static gpointer
selector_thread_main (gpointer data)
{
  ZkrLeaderSelector *selector = data;

  while (selector_wait_queued (selector))
    {
      g_autoptr (GError) error = NULL;

      if (!zkr__queue_task_run_sync (selector, selector_acquire_start, -1, selector->closing, &error))
        {
          if (!selector_after_failure (selector, error))
            break;
          continue;
        }
      selector_run_term (selector);
    }
  selector_thread_end (selector);
  return NULL;
}

/* ==== the API ========================================================== */

ZkrLeaderSelector *
zkr_leader_selector_new (ZkrSession *session, const char *path, const char *participant_id,
                         ZkrLeadFunc lead, gpointer user_data, GDestroyNotify destroy,
                         GError **error)
{
  ZkrLeaderSelector *selector;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (participant_id != NULL, NULL);
  g_return_val_if_fail (lead != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!zkr__leader_validate_id (participant_id, "leader selector", error))
    return NULL;
  selector = g_new0 (ZkrLeaderSelector, 1);
  g_atomic_ref_count_init (&selector->ref);
  /* The entry's events reach us through the hook alone,
   * which stops when the entry is freed. */
  selector->queue = zkr__queue_lock_new (session, path, &selector_recipe, NULL, error);
  if (selector->queue == NULL)
    {
      g_free (selector);
      return NULL;
    }
  selector->session = zkr_session_ref (session);
  selector->path = g_strdup (path);
  selector->id = g_strdup (participant_id);
  selector->lead = lead;
  selector->user_data = user_data;
  selector->destroy = destroy;
  selector->closing = g_cancellable_new ();
  g_mutex_init (&selector->mutex);
  g_cond_init (&selector->cond);
  zkr__queue_lock_set_node_data (selector->queue, participant_id);
  zkr__queue_lock_set_loss_hook (selector->queue, selector_on_loss, selector);
  return selector;
}

ZkrLeaderSelector *
zkr_leader_selector_ref (ZkrLeaderSelector *selector)
{
  g_return_val_if_fail (selector != NULL, NULL);
  g_atomic_ref_count_inc (&selector->ref);
  return selector;
}

/* The close's first step, in the caller's thread: no longer started, the
 * thread woken (a queued acquire cancelled, the term interrupted); @close
 * (nullable) is answered by the thread's end. Returns FALSE when nothing
 * will answer @close: no thread was started, or it already ended (closing
 * twice does nothing). */
static gboolean
selector_close_begin (ZkrLeaderSelector *selector, ZkrLeaderClose *close)
{
  gboolean running;

  g_mutex_lock (&selector->mutex);
  selector->state = SELECTOR_CLOSED;
  g_cond_broadcast (&selector->cond);
  running = selector->thread != NULL && !selector->ended;
  if (running && close != NULL)
    selector->closes = g_list_prepend (selector->closes, close);
  g_mutex_unlock (&selector->mutex);
  g_cancellable_cancel (selector->closing);
  zkr_leader_selector_interrupt (selector);
  return running;
}

void
zkr_leader_selector_unref (ZkrLeaderSelector *selector)
{
  gboolean finalize;

  g_return_if_fail (selector != NULL);
  if (!g_atomic_ref_count_dec (&selector->ref))
    return;
  /* Never waits (docs/design.md §6). A term holds a reference while its
   * callback runs, so this never comes during one; the thread ends on
   * its own, deleting our node, and frees the selector at its end. */
  (void) selector_close_begin (selector, NULL);
  g_mutex_lock (&selector->mutex);
  selector->finalizing = TRUE;
  finalize = selector->thread == NULL || selector->ended;
  g_mutex_unlock (&selector->mutex);
  if (finalize)
    selector_free (selector);
}

void
zkr_leader_selector_set_auto_requeue (ZkrLeaderSelector *selector, gboolean auto_requeue)
{
  g_return_if_fail (selector != NULL);
  g_mutex_lock (&selector->mutex);
  selector->auto_requeue = auto_requeue;
  if (auto_requeue && selector->state == SELECTOR_STARTED)
    selector->queued = TRUE;
  g_cond_broadcast (&selector->cond);
  g_mutex_unlock (&selector->mutex);
}

gboolean
zkr_leader_selector_start (ZkrLeaderSelector *selector, GError **error)
{
  g_return_val_if_fail (selector != NULL, FALSE);
  g_mutex_lock (&selector->mutex);
  if (selector->state != SELECTOR_LATENT)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "leader selector %s (%s) was already %s", selector->path, selector->id,
                   selector->state == SELECTOR_STARTED ? "started" : "closed");
      g_mutex_unlock (&selector->mutex);
      return FALSE;
    }
  selector->state = SELECTOR_STARTED;
  selector->queued = TRUE;
  selector->thread = g_thread_new ("zkr-leader", selector_thread_main, selector);
  g_mutex_unlock (&selector->mutex);
  return TRUE;
}

gboolean
zkr_leader_selector_requeue (ZkrLeaderSelector *selector)
{
  gboolean queued = FALSE;

  g_return_val_if_fail (selector != NULL, FALSE);
  g_mutex_lock (&selector->mutex);
  if (selector->state == SELECTOR_STARTED && !selector->queued)
    {
      selector->queued = queued = TRUE;
      g_cond_broadcast (&selector->cond);
    }
  g_mutex_unlock (&selector->mutex);
  return queued;
}

void
zkr_leader_selector_interrupt (ZkrLeaderSelector *selector)
{
  GCancellable *interrupt = NULL;

  g_return_if_fail (selector != NULL);
  g_mutex_lock (&selector->mutex);
  if (selector->interrupt != NULL)
    interrupt = g_object_ref (selector->interrupt);
  g_mutex_unlock (&selector->mutex);
  if (interrupt != NULL)
    {
      g_cancellable_cancel (interrupt);
      g_object_unref (interrupt);
    }
}

void
zkr_leader_selector_close_async (ZkrLeaderSelector *selector, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data)
{
  g_autofree char *what = NULL;
  ZkrLeaderClose *close;

  g_return_if_fail (selector != NULL);
  zkr__context_assert_user ("zkr_leader_selector_close_async() called");
  what = g_strdup_printf ("leader selector %s (%s)", selector->path, selector->id);
  close = zkr__leader_close_new (zkr_leader_selector_ref (selector),
                                 (GDestroyNotify) zkr_leader_selector_unref, what, cancellable,
                                 callback, user_data, zkr_leader_selector_close_async,
                                 "zkr_leader_selector_close");
  if (!selector_close_begin (selector, close))
    zkr__leader_close_end (close, NULL);
}

gboolean
zkr_leader_selector_close_finish (ZkrLeaderSelector *selector, GAsyncResult *result,
                                  GError **error)
{
  g_return_val_if_fail (selector != NULL, FALSE);
  return zkr__queue_task_finish (result, zkr_leader_selector_close_async, error);
}

static void
close_start (gpointer selector, GCancellable *cancellable, GAsyncReadyCallback callback,
             gpointer user_data)
{
  zkr_leader_selector_close_async (selector, cancellable, callback, user_data);
}

gboolean
zkr_leader_selector_close (ZkrLeaderSelector *selector, GError **error)
{
  GAsyncResult *result;
  gboolean in_term, ok;

  g_return_val_if_fail (selector != NULL, FALSE);
  g_mutex_lock (&selector->mutex);
  in_term = selector->thread != NULL && g_thread_self () == selector->thread;
  g_mutex_unlock (&selector->mutex);
  /* From inside the callback the thread cannot wait for itself: it ends
   * the term, and deletes the node, when the callback returns. */
  if (in_term)
    {
      (void) selector_close_begin (selector, NULL);
      return TRUE;
    }
  result = zkr__context_run_sync (close_start, selector, NULL);
  ok = zkr_leader_selector_close_finish (selector, result, error);
  g_object_unref (result);
  return ok;
}

gboolean
zkr_leader_selector_has_leadership (ZkrLeaderSelector *selector)
{
  gboolean leading;

  g_return_val_if_fail (selector != NULL, FALSE);
  g_mutex_lock (&selector->mutex);
  leading = selector->leading && selector->interrupt != NULL && !selector->in_doubt &&
            !g_cancellable_is_cancelled (selector->interrupt);
  g_mutex_unlock (&selector->mutex);
  return leading;
}

gint64
zkr_leader_selector_get_fencing_token (ZkrLeaderSelector *selector)
{
  gint64 token;

  g_return_val_if_fail (selector != NULL, 0);
  g_mutex_lock (&selector->mutex);
  token = selector->token;
  g_mutex_unlock (&selector->mutex);
  return token;
}

const char *
zkr_leader_selector_get_id (ZkrLeaderSelector *selector)
{
  g_return_val_if_fail (selector != NULL, NULL);
  return selector->id;
}

GPtrArray *
zkr_leader_selector_list_participants (ZkrLeaderSelector *selector, GCancellable *cancellable,
                                       GError **error)
{
  g_return_val_if_fail (selector != NULL, NULL);
  return zkr__queue_participants_list_for_lock (selector->queue, cancellable, error);
}

char *
zkr_leader_selector_dup_leader_id (ZkrLeaderSelector *selector, GCancellable *cancellable,
                                   GError **error)
{
  g_autoptr (GPtrArray) participants = NULL;

  g_return_val_if_fail (selector != NULL, NULL);
  participants = zkr__queue_participants_list_for_lock (selector->queue, cancellable, error);
  return zkr__leader_id_from_participants (participants);
}
