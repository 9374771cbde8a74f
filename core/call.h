/* zkr internal: the answer of one public async call, a GAsyncResult
 * lighter than GTask (docs/design.md §5.11).
 *
 * Made in the user's call, where it captures the thread-default
 * GMainContext; answered once, from any thread, by posting to that
 * context, where the callback runs with the context pushed as
 * thread-default (as a GTask's does). What GTask does beside that is left
 * out: no name, no properties or "completed" notify, no cancellable check
 * (the calls answer a cancel themselves), no source object. After the
 * callback, an answer that nobody else holds (no reference taken, no data
 * or weak reference attached) is kept for the thread's next call instead
 * of being finalized: an object per call made and freed is most of what a
 * GTask costs. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _ZkrCall ZkrCall;

/* In the user's call (thread-default context captured): the caller owns
 * the one reference, which zkr__call_return() takes. @source_tag is what
 * zkr__call_is_tagged() checks. */
ZkrCall *zkr__call_new (gpointer source_tag, GAsyncReadyCallback callback, gpointer user_data);

/* Data that lives as long as the call (freed with @destroy when it ends,
 * in the call's context, or where the last reference goes). Set once,
 * before the call is answered. */
void zkr__call_set_data (ZkrCall *call, gpointer data, GDestroyNotify destroy);

/* What stays alive until the callback has run, then is dropped in the
 * call's context (so a session's last reference never goes on a session
 * thread). Set before zkr__call_return(). */
void zkr__call_hold_until_answered (ZkrCall *call, gpointer data, GDestroyNotify drop);

/* Answers @call (transfer full): @error (transfer full) when not NULL,
 * else @result (transfer full, freed with @result_free unless the finish
 * takes it). Any thread; the callback runs later, always in the call's
 * context, never inside this function. */
void zkr__call_return (ZkrCall *call, gpointer result, GDestroyNotify result_free, GError *error);

/* zkr__call_return() for a caller already running in the call's context,
 * from one of its dispatches (never inside the user's call that made
 * @call): the callback runs now, inside this function, as a GTask
 * returned from its own context does. */
void zkr__call_return_here (ZkrCall *call, gpointer result, GDestroyNotify result_free,
                            GError *error);

/* The context captured at zkr__call_new() (not a new reference). */
GMainContext *zkr__call_get_context (ZkrCall *call);

/* TRUE when @result is a ZkrCall made with @source_tag (for
 * g_return_val_if_fail in the _finish functions). */
gboolean zkr__call_is_tagged (GAsyncResult *result, gpointer source_tag);

/* The finish: the result (transfer full) or NULL with @error set. Once. */
gpointer zkr__call_propagate (GAsyncResult *result, GError **error);

/* Drops a reference to @result (a blocking twin's, after its finish):
 * kept for the thread's next call when nobody else holds it, as after a
 * callback. */
void zkr__call_release (GAsyncResult *result);

/* The call's data (zkr__call_set_data()) from its GAsyncResult. */
gpointer zkr__call_result_get_data (GAsyncResult *result);

G_END_DECLS
