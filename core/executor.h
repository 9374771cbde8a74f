/* zkr internal: the executor, one worker thread and the turn around it
 * (docs/design.md §1.2): ordered posts, stand-ins, in-place runs and the
 * worker's one-shot timers. It knows nothing of sessions; its owner (a
 * session) lends it a reference count and an unref for the moments it must
 * keep the owner alive. */
#pragma once

#include <glib.h>

#include "wait.h"

G_BEGIN_DECLS

typedef struct _ZkrExecutor ZkrExecutor;

/* Starts the worker thread, named @thread_name, with a private
 * GMainContext. @owner_ref (nullable) and @owner_unref are the owner's
 * reference count and unref: an in-place run and a thread blocked standing
 * in hold a reference of their own on @owner while they run its code (an
 * in-place run never drops the last one: it posts that unref to the
 * worker). With @owner_ref NULL nothing is held. (transfer full) */
ZkrExecutor *zkr__executor_new (const char *thread_name,
                                gatomicrefcount *owner_ref,
                                GDestroyNotify owner_unref,
                                gpointer owner);
/* Stops the worker once the posts queued before this call have run.
 * @exited(@data) (nullable) then runs once the worker has ended and may
 * free the executor: from another thread, this call waits for the worker
 * and runs it before returning; from the worker itself, this returns at
 * once and the worker runs it as its last act. Call it once. */
void zkr__executor_stop (ZkrExecutor *executor, GDestroyNotify exited, gpointer data);
/* The same from any thread without waiting: the worker runs the posts
 * queued before this call, then @exited(@data) as its last act, and ends
 * detached. Call it (or zkr__executor_stop()) once. */
void zkr__executor_stop_detached (ZkrExecutor *executor, GDestroyNotify exited, gpointer data);
/* After zkr__executor_stop(): drops the posts still queued and the timers
 * still pending unrun (their destroy notifies run, in this thread), and
 * frees @executor. */
void zkr__executor_free (ZkrExecutor *executor);

/* The worker's context (transfer none): a GSource attached to it runs on
 * the worker, with the turn held. */
GMainContext *zkr__executor_get_context (ZkrExecutor *executor);
/* TRUE on the thread that holds the turn as the worker or in its place (a
 * stand-in, a thread running posts in place). */
gboolean zkr__executor_in_worker (ZkrExecutor *executor);
/* TRUE on the worker thread itself. */
gboolean zkr__executor_is_worker_thread (ZkrExecutor *executor);
/* TRUE while this thread runs posts of @executor in place. */
gboolean zkr__executor_in_place (ZkrExecutor *executor);
/* TRUE while this thread runs any executor's code (as its worker, a
 * stand-in, or running posts in place). Any thread. */
gboolean zkr__executor_code_running (void);

/* Runs @func(@data) on the worker (or whoever holds the turn for it),
 * always later, in posting order; @destroy (nullable) runs after @func, or
 * when the executor is freed with the post still queued. The session's
 * wrappers (session-private.h) say more. Any thread. */
void zkr__executor_post (ZkrExecutor *executor, GSourceFunc func, gpointer data,
                         GDestroyNotify destroy);
/* The same, without waking the worker: it runs with the next waking post. */
void zkr__executor_post_quiet (ZkrExecutor *executor, GSourceFunc func, gpointer data,
                               GDestroyNotify destroy);
/* The same, and a waking one (@wake) may run right here when every queued
 * post may run in place and the turn is free (see
 * zkr__session_post_in_place()). */
void zkr__executor_post_in_place (ZkrExecutor *executor, GSourceFunc func, gpointer data,
                                  GDestroyNotify destroy, gboolean wake);

/* This thread takes the turn until the matching end (not from the worker,
 * no nesting). */
void zkr__executor_stand_in_begin (ZkrExecutor *executor);
void zkr__executor_stand_in_end (ZkrExecutor *executor);
/* Blocks until @wait is done, running the posts meanwhile when a waking
 * post asks for them (taking the turn). @deadline (monotonic µs;
 * G_MAXINT64: none) is the blocked call's: once it passed, this thread
 * runs the posts and the due timers itself (the call's deadline timer
 * among them) every few milliseconds until the call answers, whatever the
 * worker does. From the worker: a plain zkr__wait_block(). Clears @wait. */
void zkr__executor_block_standing_in (ZkrExecutor *executor, ZkrWait *wait, gint64 deadline);

/* A one-shot timer: @func(@data) runs on the worker, with the turn,
 * between @delay_ms and @delay_ms + @slack_ms from now (its return value
 * is ignored); a timer with slack runs with the first wake-up after it is
 * due. @destroy (nullable) runs on @data after @func, or when the timer is
 * removed or dropped at free. Adding one from a stand-in wakes the worker
 * only when its latest time comes before the worker's planned wake-up.
 * Only by the thread holding the turn; returns an id > 0. */
guint zkr__executor_timer_add (ZkrExecutor *executor, guint delay_ms, guint slack_ms,
                               GSourceFunc func, gpointer data, GDestroyNotify destroy);
/* Removes a pending timer (nothing if it ran or was removed). Only by the
 * thread holding the turn. */
void zkr__executor_timer_remove (ZkrExecutor *executor, guint id);
/* zkr__executor_timer_remove (*@id) unless *@id is 0; sets *@id to 0. */
void zkr__executor_timer_clear (ZkrExecutor *executor, guint *id);

/* How many posts stand-ins ran, and how many ran in place, so far. */
guint zkr__executor_count_stand_in_posts (ZkrExecutor *executor);
guint zkr__executor_count_in_place_posts (ZkrExecutor *executor);

G_END_DECLS
