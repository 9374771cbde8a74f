/* zkr internal: what the leader latch and the leader selector share
 * (leader.c): the check of a participant id, the leader's id from a
 * listing, and the answer of a close_async call; and the latch's waits for
 * leadership (leader-latch-await.c). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Curator writes ids of any length; we bound them to keep nodes small. */
#define ZKR_LEADER_ID_MAX_BYTES 4096

/* A participant id is non-empty UTF-8 without control characters, at
 * most ZKR_LEADER_ID_MAX_BYTES. Errors: ZKR_ERROR_INVALID_ARGUMENT naming
 * it. */
gboolean zkr__leader_validate_id (const char *id, const char *kind, GError **error);

/* The leader's id from a participant listing (the first one is the
 * leader, as Curator's getLeader() says). NULL when @participants is NULL
 * (the error is already set) or empty. (transfer full) */
char *zkr__leader_id_from_participants (GPtrArray *participants);

/* One close_async call of a latch or a selector: it holds a reference on
 * its object (@object, dropped with @object_unref) until the close's end,
 * and answers its task once, in the task's context: with the close's end,
 * or at once with G_IO_ERROR_CANCELLED naming @what when @cancellable is
 * cancelled first. The close goes on to its end all the same, and nothing
 * of it but the answer needs the task's context: a caller answered by a
 * cancel may stop running that context. Made in the caller's context. */
typedef struct _ZkrLeaderClose ZkrLeaderClose;
ZkrLeaderClose *zkr__leader_close_new (gpointer object, GDestroyNotify object_unref,
                                       const char *what, GCancellable *cancellable,
                                       GAsyncReadyCallback callback, gpointer user_data,
                                       gpointer source_tag, const char *name);
gpointer zkr__leader_close_get_object (ZkrLeaderClose *close);
/* Any thread: the close ended with @error (transfer full; NULL: our node
 * is gone); answers the task (later, in its context) unless a cancel did,
 * and drops @close, with its reference on the object. */
void zkr__leader_close_end (ZkrLeaderClose *close, GError *error);

/* One zkr_leader_latch_await_async() call, answered once in the caller's
 * context (the thread default when made): by the latch (leadership, a
 * close) through zkr__leader_latch_await_post_answer() from any thread,
 * or by its own timer (@timeout_ms > 0) or @cancellable. It never names
 * the latch; @what ("PATH (ID)") is for its messages. (transfer full) */
typedef struct _ZkrLeaderAwait ZkrLeaderAwait;
ZkrLeaderAwait *zkr__leader_latch_await_new (const char *what, int timeout_ms,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback, gpointer user_data);
ZkrLeaderAwait *zkr__leader_latch_await_ref (ZkrLeaderAwait *await);
void zkr__leader_latch_await_unref (gpointer await);
/* Any thread: answers @await later, in its context, with @error
 * (transfer full; NULL: leading), unless it was answered already. */
void zkr__leader_latch_await_post_answer (ZkrLeaderAwait *await, GError *error);
/* TRUE once answered (or about to be): the latch drops it from its list. */
gboolean zkr__leader_latch_await_is_answered (ZkrLeaderAwait *await);

G_END_DECLS
