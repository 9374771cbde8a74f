/* zkr internal: handing work to a user's GMainContext, and the debug
 * check that user code never runs on a thread running a session's code. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Runs @func(@data) once in @context (its return value is ignored),
 * always later (never inside this call), in posting order, at
 * G_PRIORITY_DEFAULT_IDLE. For user code and what leads to it (listeners,
 * GTask results): in debug builds it is an error, logged as a critical,
 * for @func to run on a thread that runs a session's code (docs/design.md,
 * "Threads and contexts"). Everything the caller wrote before posting is
 * visible to @func: the hand-off goes through a GMutex of ours rather than
 * GLib's internal locking alone, so that ThreadSanitizer can see it too
 * (tests/tsan-glib.c). The posts to one context share one source of ours,
 * attached on the first post for the context's life, so a burst of posts
 * wakes the context's thread once. The caller holds a reference to
 * @context. @destroy runs on @data after @func, or when the context is
 * finalized with the post unrun. */
void zkr__context_post (GMainContext *context, GSourceFunc func, gpointer data,
                        GDestroyNotify destroy);

/* Answers @task (transfer full) from its own context, where its callback
 * runs, later: with @error (transfer full) when not NULL, else TRUE. So
 * the task, and what its callback owns, is never finalized on a session's
 * thread. Any thread. */
void zkr__context_return (GTask *task, GError *error);

/* Room for one post inside the caller's own struct: a post that needs no
 * allocation of its own (zkr__context_post_embedded). */
typedef struct {
  GList link;
  GSourceFunc func;
  gpointer data;
  GDestroyNotify destroy;
  gboolean embedded;
} ZkrContextPost;

/* zkr__context_post() in @post, which lives inside @data until @destroy
 * (not nullable: it frees @data, and so @post) has run. */
void zkr__context_post_embedded (GMainContext *context, ZkrContextPost *post, GSourceFunc func,
                                 gpointer data, GDestroyNotify destroy);

/* A cancel handed to @context: once @cancellable is cancelled, @func(@data)
 * runs there, later, once (as zkr__context_post()), unless
 * zkr__context_cancel_disconnect() came first; a disconnect after the
 * cancel does not stop a post already queued (the caller's @func checks
 * whether its call is still on). @destroy runs on @data when neither the
 * connection nor a post holds it any more. The connection holds @context;
 * a queued post does not (a context dropped with the post unrun goes, and
 * the post with it). Unlike a GCancellableSource, whose cancel running in
 * another thread can still lock its context after that context was
 * finalized (GLib 2.74: the source's dispose only resurrects it), the
 * disconnect waits for a cancel running in another thread, and the
 * handler takes no lock of @context. Returns the handler id, 0 when
 * @cancellable is NULL. Any thread; never disconnect from inside a cancel
 * of @cancellable in this thread (GLib's rule), nor on a thread that runs
 * a session's code: the disconnect waits for the whole cancel, the user's
 * own handlers of @cancellable included (disconnect in @context). */
gulong zkr__context_cancel_connect (GMainContext *context, GCancellable *cancellable,
                                    GSourceFunc func, gpointer data, GDestroyNotify destroy);
/* Disconnects *@id (nothing when 0) and sets it to 0. */
void zkr__context_cancel_disconnect (GCancellable *cancellable, gulong *id);

/* Between these two, the wake-ups that this thread's posts owe their
 * contexts are held back, and then sent (each context woken once; holds
 * nest, the outermost end sends). For a thread running a session's posts
 * in place, which sends them once it has given the turn back: a user's
 * thread woken earlier, making its next call at once, would find the turn
 * still taken and wait for it. The posts themselves are queued at once, in
 * order, and a held wake-up keeps its context alive until it is sent. */
void zkr__context_hold_wakeups (void);
void zkr__context_send_wakeups (void);

/* Test hook: how many contexts have a queue of posts right now (one from
 * a context's first post until the context is finalized). */
guint zkr__context_test_count_queues (void);

/* Debug builds (NDEBUG unset): logs a critical naming @what when the
 * calling thread runs a session's code (zkr__session_code_running()), where
 * user code must never run and whose thread-default context is not the
 * user's. For the points where user code is called or a GTask for it is
 * created. Release builds: nothing. */
void zkr__context_assert_user (const char *what);

/* Starts an async call: @callback(@user_data) is its answer. */
typedef void (*ZkrAsyncStartFunc) (gpointer data, GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data);
/* The blocking twin of an async call: runs @start(@data, @cancellable) to
 * its answer in a GMainContext of its own, thread-default meanwhile (a
 * source the call leaves behind dies with it instead of running in some
 * later call). Returns the answer's result (transfer full). Never on a
 * thread that runs a session's code. */
GAsyncResult *zkr__context_run_sync (ZkrAsyncStartFunc start, gpointer data,
                                     GCancellable *cancellable);

/* zkr__context_run_sync() for a call that leaves nothing in its context
 * once answered (its answer and every step's a post of ours, no source of
 * its own: the node calls, transactions, the atomic long): the thread's
 * private context is kept for its next such call instead of being made and
 * freed each time (an eventfd, our queue's source, two system calls and
 * some 7,000 instructions). A context with anything still queued or
 * pending after the answer is not kept; a call made while the thread's
 * context is in use (nested) gets one of its own. */
GAsyncResult *zkr__context_run_sync_reusing (ZkrAsyncStartFunc start, gpointer data,
                                             GCancellable *cancellable);

G_END_DECLS
