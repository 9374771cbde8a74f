/* zkr internal: handing work to a user's GMainContext, and the debug
 * check that user code never runs on a thread running a session's code. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Runs @func(@data) in @context, always later (never inside this call),
 * in posting order among posts of equal priority. For user code and what
 * leads to it (listeners, GTask results): in debug builds it is an error,
 * logged as a critical, for @func to run on a thread that runs a session's
 * code (docs/design.md, "Threads and contexts"). Everything the caller
 * wrote before posting is visible to @func: the hand-off is published with
 * an atomic release/acquire pair of our own rather than relying on GLib's
 * internal locking alone, so that ThreadSanitizer can see it too. @destroy
 * runs on @data after @func, or when the context drops the post. */
void zkr__context_post (GMainContext *context, GSourceFunc func, gpointer data,
                        GDestroyNotify destroy);

/* Answers @task (transfer full) from its own context, where its callback
 * runs, later: with @error (transfer full) when not NULL, else TRUE. So
 * the task, and what its callback owns, is never finalized on a session's
 * thread. Any thread. */
void zkr__context_return (GTask *task, GError *error);

/* Debug builds (NDEBUG unset): logs a critical naming @what when the
 * calling thread runs a session's code (zkr__session_code_running()), where
 * user code must never run and whose thread-default context is not the
 * user's. For the points where user code is called or a GTask for it is
 * created. Release builds: nothing. */
void zkr__assert_user_context (const char *what);

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

G_END_DECLS
