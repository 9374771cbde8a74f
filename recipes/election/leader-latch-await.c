/* zkr: one wait for a leader latch's leadership (an await): its timer,
 * its cancel and its one answer, all in the caller's context. The latch
 * keeps the list of awaits and answers them (leader-latch.c). */

#include "context.h"
#include "error-private.h"
#include "leader-private.h"
#include "queue-lock.h"

#include <zkr/leader-latch.h>

/* One zkr_leader_latch_await_async() call. It never names the latch: the
 * latch answers it (leadership, close) under its mutex by a post to the
 * caller's context; its timer and cancel run in that context and answer
 * it there. Whoever claims it first answers; the latch drops a claimed
 * one from its list at the next await or its own answer. */
struct _ZkrLeaderAwait {
  gatomicrefcount ref;
  GTask *task;            /* (owned) until answered; then NULL */
  gint claimed;           /* atomic: answered (or about to be); only the
                           * claimer reads @task after that */
  char *what;             /* "PATH (ID)" for messages */
  GSource *timer;         /* (owned) (nullable) in the task's context */
  GCancellable *cancellable; /* (owned) (nullable) */
  gulong cancel_id;       /* its cancel, posted to the task's context */
  GError *answer;         /* (owned) (nullable) a posted answer */
};

ZkrLeaderAwait *
zkr__leader_latch_await_ref (ZkrLeaderAwait *await)
{
  g_atomic_ref_count_inc (&await->ref);
  return await;
}

void
zkr__leader_latch_await_unref (gpointer data)
{
  ZkrLeaderAwait *await = data;

  if (!g_atomic_ref_count_dec (&await->ref))
    return;
  g_clear_pointer (&await->timer, g_source_unref);
  g_clear_object (&await->cancellable);
  g_clear_error (&await->answer);
  g_clear_object (&await->task);
  g_free (await->what);
  g_free (await);
}

static gboolean
await_claim (ZkrLeaderAwait *await)
{
  return g_atomic_int_compare_and_exchange (&await->claimed, 0, 1);
}

/* In the task's context: the timer and the cancel go, then the answer
 * (@error transfer full; NULL: leading). */
static void
await_source_drop (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

/* The timer goes for good, not only destroyed, and the cancel is
 * disconnected: the await may stay listed in the latch after its context
 * is gone (a blocking await's own context goes when it returns). The
 * cancel is a handler that posts (zkr__context_cancel_connect), not a
 * GCancellableSource: a cancel racing the answer in another thread could
 * reach such a source after its context was finalized and lock the freed
 * context (the fault suite's latch mode hung so, twice: the worker's timer
 * thread in g_cancellable_cancel, in g_source_set_ready_time); the
 * disconnect waits for a cancel running meanwhile. The task goes with the
 * answer: the await, listed in the latch or held by a cancel's post still
 * queued, must not keep the task's context alive through it (a context
 * dropped with that post in its queue would never go). */
static void
await_answer_here (ZkrLeaderAwait *await, GError *error)
{
  await_source_drop (&await->timer);
  zkr__context_cancel_disconnect (await->cancellable, &await->cancel_id);
  zkr__queue_task_answer (g_steal_pointer (&await->task), error);
}

static gboolean
await_answer_posted (gpointer data)
{
  ZkrLeaderAwait *await = data;

  await_answer_here (await, g_steal_pointer (&await->answer));
  return G_SOURCE_REMOVE;
}

/* Any thread: answers @await later, in its context, unless answered. */
void
zkr__leader_latch_await_post_answer (ZkrLeaderAwait *await, GError *error)
{
  if (!await_claim (await))
    {
      g_clear_error (&error);
      return;
    }
  await->answer = error;
  zkr__context_post (g_task_get_context (await->task), await_answer_posted, zkr__leader_latch_await_ref (await),
                     zkr__leader_latch_await_unref);
}

static gboolean
await_timed_out (gpointer data)
{
  ZkrLeaderAwait *await = data;

  if (await_claim (await))
    await_answer_here (await, g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                                           "timed out waiting for leadership of %s",
                                           await->what));
  return G_SOURCE_REMOVE;
}

static gboolean
await_cancelled (gpointer data)
{
  ZkrLeaderAwait *await = data;

  if (await_claim (await))
    await_answer_here (await, zkr__error_new_cancelled ("wait for leadership of %s",
                                                        await->what));
  return G_SOURCE_REMOVE;
}

/* Attaches @func on @await to @source in @context; the source holds a
 * reference on @await until it is destroyed. (transfer full) */
static GSource *
await_attach (ZkrLeaderAwait *await, GSource *source, GSourceFunc func, GMainContext *context)
{
  g_source_set_callback (source, func, zkr__leader_latch_await_ref (await), zkr__leader_latch_await_unref);
  g_source_attach (source, context);
  return source;
}

ZkrLeaderAwait *
zkr__leader_latch_await_new (const char *what, int timeout_ms, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  ZkrLeaderAwait *await = g_new0 (ZkrLeaderAwait, 1);
  GMainContext *context;

  g_atomic_ref_count_init (&await->ref);
  await->task = zkr__queue_task_new (cancellable, callback, user_data,
                                     zkr_leader_latch_await_async, "zkr_leader_latch_await");
  await->what = g_strdup (what);
  context = g_task_get_context (await->task);
  if (timeout_ms > 0)
    await->timer = await_attach (await, g_timeout_source_new (timeout_ms), await_timed_out,
                                 context);
  if (cancellable != NULL)
    {
      await->cancellable = g_object_ref (cancellable);
      await->cancel_id = zkr__context_cancel_connect (context, cancellable, await_cancelled,
                                                      zkr__leader_latch_await_ref (await),
                                                      zkr__leader_latch_await_unref);
    }
  return await;
}

gboolean
zkr__leader_latch_await_is_answered (ZkrLeaderAwait *await)
{
  return g_atomic_int_get (&await->claimed);
}
