/**
 * SECTION:watch
 * @title: Watches
 * @short_description: read a node and leave a one-shot watch on it
 * @include: zkr/zkr.h
 *
 * One-shot watches on a ZkrSession (ZooKeeper's data, exists and
 * children watches; Curator's usingWatcher()): each call reads a node and
 * leaves a watch in the same request, so no change between the read and
 * the watch can be missed, and the watch's callback runs once, in the
 * caller's GMainContext.
 *
 * The reads follow zkr/node.h: paths under the session's namespace, the same deadline, cancel, retry and session-state rules and
 * the same errors. A read that fails leaves no watch.
 *
 * Events (ZkrWatchEvent): a data watch fires when the node's data changes
 * or the node is deleted; an exists watch also when a missing node is
 * created; a children watch when a child is added or removed, or the node
 * is deleted. An event of another kind on the same path (a child added
 * under a node with a data watch) does not touch the watch, as on the
 * server. When the session becomes LOST (expired: the server dropped its
 * watches) every watch of it fires %ZKR_WATCH_EVENT_SESSION_LOST: re-read
 * and watch again, the fresh session follows by itself. When it is closed
 * they fire %ZKR_WATCH_EVENT_SESSION_CLOSED. SUSPENDED and RECONNECTED fire
 * nothing: the client sets the watches again on the server it reconnects
 * to, and a change made while the connection was down is reported then.
 *
 * Callbacks: @func runs at most once per watch, in the GMainContext that
 * was thread-default when the call was made (never on a ZooKeeper or zkr
 * thread; the context must be iterated for it to run). It comes after
 * the call's own answer as a rule (the answer is posted to the context
 * first), but may run before a blocking call returns if another thread
 * iterates that context meanwhile: do not rely on having the watch id
 * in @func. @destroy (if
 * not NULL) runs on @user_data exactly once: after @func returned; or
 * when the watch is removed; or, when the read fails or the input is
 * refused, before the blocking call returns (on the caller's thread) or
 * before the async callback runs (in its context); always in that
 * context otherwise. A watch's session may be unreffed from inside @func
 * (the @session passed there stays valid until @func returns).
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 *
 * A watch does not keep its session alive. If the session's last
 * reference goes with watches pending, the session closes and those
 * watches end without a call of @func (nobody holds the session to be
 * told about it); their @destroy runs, in their contexts.
 *
 * Removing is local: the server's watch stays until its event, which
 * then reaches no one.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/node.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrWatchKind:
 * @ZKR_WATCH_DATA: zkr_watch_data(): data changed or node deleted.
 * @ZKR_WATCH_EXISTS: zkr_watch_exists(): created, data changed, deleted.
 * @ZKR_WATCH_CHILDREN: zkr_watch_children(): a child added or removed,
 *   or the node deleted.
 *
 * The kinds of watch, and what fires each.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_WATCH_DATA,
  ZKR_WATCH_EXISTS,
  ZKR_WATCH_CHILDREN,
} ZkrWatchKind;

/**
 * ZkrWatchEvent:
 * @ZKR_WATCH_EVENT_CREATED: the node was created (exists watch).
 * @ZKR_WATCH_EVENT_DELETED: the node was deleted (every kind).
 * @ZKR_WATCH_EVENT_DATA_CHANGED: the node's data was written (data and
 *   exists watches; also a write of the same bytes).
 * @ZKR_WATCH_EVENT_CHILDREN_CHANGED: a child was added or removed
 *   (children watch).
 * @ZKR_WATCH_EVENT_SESSION_LOST: the session expired and the server
 *   dropped the watch with it: what was read may have changed since,
 *   unseen; read again (on the fresh session) to know.
 * @ZKR_WATCH_EVENT_SESSION_CLOSED: the session was closed: nothing more
 *   will come.
 *
 * What fired a watch.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_WATCH_EVENT_CREATED,
  ZKR_WATCH_EVENT_DELETED,
  ZKR_WATCH_EVENT_DATA_CHANGED,
  ZKR_WATCH_EVENT_CHILDREN_CHANGED,
  ZKR_WATCH_EVENT_SESSION_LOST,
  ZKR_WATCH_EVENT_SESSION_CLOSED,
} ZkrWatchEvent;

/**
 * zkr_watch_event_name:
 * @event: a #ZkrWatchEvent
 *
 * The name of an event, for logs.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): "CREATED", "DELETED", ..., "INVALID" for an
 *   unknown value; a static string.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_watch_event_name (ZkrWatchEvent event);

/**
 * ZkrNodeWatchFunc:
 * @session: the watch's session (valid while this runs; it may be
 *   unreffed here)
 * @path: the watched path, as given to the call (without the namespace)
 * @event: what happened
 * @user_data: as given to the call
 *
 * A watch's one call.
 *
 * Thread: runs at most once, in the GMainContext that was thread-default
 * when the watching call was made (see above for when).
 *
 * Since: 0.1
 */
typedef void (*ZkrNodeWatchFunc) (ZkrSession *session, const char *path, ZkrWatchEvent event,
                                  gpointer user_data);

/**
 * zkr_watch_data:
 * @session: the session
 * @path: the node to read and watch
 * @func: (scope notified): called once when the watch fires
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): run once on @user_data (see above)
 * @timeout_ms: the read's deadline (zkr/node.h)
 * @cancellable: (nullable): cancels the read; the watch, once left, is
 *   removed with zkr_watch_remove()
 * @stat: (out) (optional): the node's stat, from the same read
 * @watch_id: (out) (optional): the watch's id for zkr_watch_remove(); 0
 *   when no watch was left
 * @error: return location for a #GError, or %NULL
 *
 * Reads a node's data and leaves a data watch on it.
 *
 * Errors: %ZKR_ERROR_NO_NODE (no watch is left: watch a missing node with
 * zkr_watch_exists()), %ZKR_ERROR_INVALID_ARGUMENT (a bad path, @func
 * %NULL: nothing sent), %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, and zkr/node.h's common ones.
 *
 * Thread: any thread; blocks the caller until the read is answered;
 * @func and @destroy run in the GMainContext that is thread-default now.
 *
 * Returns: (transfer full) (nullable): the data, as zkr_node_get(); %NULL
 *   on failure, and then no watch was left. g_bytes_unref() it.
 *
 * Since: 0.1
 */
ZKR_API GBytes *zkr_watch_data (ZkrSession *session, const char *path, ZkrNodeWatchFunc func,
                                gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                                GCancellable *cancellable, ZkrStat *stat, guint *watch_id,
                                GError **error);
/**
 * zkr_watch_data_async:
 * @session: the session
 * @path: the node to read and watch
 * @func: (scope notified): called once when the watch fires
 * @user_data: (closure func): data for @func and @destroy
 * @destroy: (nullable): run once on @user_data
 * @timeout_ms: the read's deadline (zkr/node.h)
 * @cancellable: (nullable): cancels the read
 * @callback: (scope async): called once with the read's answer
 * @callback_data: (closure callback): data for @callback
 *
 * zkr_watch_data(), GIO style; finish with zkr_watch_data_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, which is also the watch's; never before this
 * returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_watch_data_async (ZkrSession *session, const char *path, ZkrNodeWatchFunc func,
                                   gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                                   GCancellable *cancellable, GAsyncReadyCallback callback,
                                   gpointer callback_data);
/**
 * zkr_watch_data_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @stat: (out) (optional): the node's stat, from the same read
 * @watch_id: (out) (optional): the watch's id; 0 when no watch was left
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_watch_data_async().
 *
 * Errors: those of zkr_watch_data().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: (transfer full) (nullable): the data; %NULL on failure, and
 *   then no watch was left. g_bytes_unref() it.
 *
 * Since: 0.1
 */
ZKR_API GBytes *zkr_watch_data_finish (ZkrSession *session, GAsyncResult *result,
                                       ZkrStat *stat, guint *watch_id, GError **error);

/**
 * zkr_watch_exists:
 * @session: the session
 * @path: the node to look for and watch
 * @func: (scope notified): called once when the watch fires
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): run once on @user_data (see above)
 * @timeout_ms: the read's deadline (zkr/node.h)
 * @cancellable: (nullable): cancels the read
 * @stat: (out) (optional): the node's stat when it exists (untouched
 *   otherwise)
 * @watch_id: (out) (optional): the watch's id for zkr_watch_remove(); 0
 *   when no watch was left
 * @error: return location for a #GError, or %NULL
 *
 * Whether a node exists, leaving an exists watch on it either way: on a
 * missing node it fires when the node is created.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT (a bad path, @func %NULL),
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and zkr/node.h's
 * common ones.
 *
 * Thread: any thread; blocks the caller until the read is answered;
 * @func and @destroy run in the GMainContext that is thread-default now.
 *
 * Returns: %TRUE if the node exists; %FALSE if not (@error unset: the
 *   watch is left) or on failure (@error set: no watch).
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_watch_exists (ZkrSession *session, const char *path, ZkrNodeWatchFunc func,
                                   gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                                   GCancellable *cancellable, ZkrStat *stat, guint *watch_id,
                                   GError **error);
/**
 * zkr_watch_exists_async:
 * @session: the session
 * @path: the node to look for and watch
 * @func: (scope notified): called once when the watch fires
 * @user_data: (closure func): data for @func and @destroy
 * @destroy: (nullable): run once on @user_data
 * @timeout_ms: the read's deadline (zkr/node.h)
 * @cancellable: (nullable): cancels the read
 * @callback: (scope async): called once with the read's answer
 * @callback_data: (closure callback): data for @callback
 *
 * zkr_watch_exists(), GIO style; finish with zkr_watch_exists_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, which is also the watch's; never before this
 * returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_watch_exists_async (ZkrSession *session, const char *path,
                                     ZkrNodeWatchFunc func, gpointer user_data,
                                     GDestroyNotify destroy, int timeout_ms,
                                     GCancellable *cancellable, GAsyncReadyCallback callback,
                                     gpointer callback_data);
/**
 * zkr_watch_exists_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @stat: (out) (optional): the node's stat when it exists
 * @watch_id: (out) (optional): the watch's id; 0 when no watch was left
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_watch_exists_async().
 *
 * Errors: those of zkr_watch_exists().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: as zkr_watch_exists().
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_watch_exists_finish (ZkrSession *session, GAsyncResult *result,
                                          ZkrStat *stat, guint *watch_id, GError **error);

/**
 * zkr_watch_children:
 * @session: the session
 * @path: the node whose children to list and watch
 * @func: (scope notified): called once when the watch fires
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): run once on @user_data (see above)
 * @timeout_ms: the read's deadline (zkr/node.h)
 * @cancellable: (nullable): cancels the read
 * @stat: (out) (optional): the node's stat, from the same read
 * @watch_id: (out) (optional): the watch's id for zkr_watch_remove(); 0
 *   when no watch was left
 * @error: return location for a #GError, or %NULL
 *
 * The names of a node's children, sorted in byte order, as
 * zkr_node_get_children(), leaving a children watch on the node.
 *
 * Errors: %ZKR_ERROR_NO_NODE (no watch is left), and those of
 * zkr_watch_data().
 *
 * Thread: any thread; blocks the caller until the read is answered;
 * @func and @destroy run in the GMainContext that is thread-default now.
 *
 * Returns: (transfer full) (nullable) (array zero-terminated=1): a
 *   %NULL-terminated array; %NULL on failure, and then no watch was left.
 *   g_strfreev() it.
 *
 * Since: 0.1
 */
ZKR_API char **zkr_watch_children (ZkrSession *session, const char *path, ZkrNodeWatchFunc func,
                                   gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                                   GCancellable *cancellable, ZkrStat *stat, guint *watch_id,
                                   GError **error);
/**
 * zkr_watch_children_async:
 * @session: the session
 * @path: the node whose children to list and watch
 * @func: (scope notified): called once when the watch fires
 * @user_data: (closure func): data for @func and @destroy
 * @destroy: (nullable): run once on @user_data
 * @timeout_ms: the read's deadline (zkr/node.h)
 * @cancellable: (nullable): cancels the read
 * @callback: (scope async): called once with the read's answer
 * @callback_data: (closure callback): data for @callback
 *
 * zkr_watch_children(), GIO style; finish with
 * zkr_watch_children_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, which is also the watch's; never before this
 * returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_watch_children_async (ZkrSession *session, const char *path,
                                       ZkrNodeWatchFunc func, gpointer user_data,
                                       GDestroyNotify destroy, int timeout_ms,
                                       GCancellable *cancellable, GAsyncReadyCallback callback,
                                       gpointer callback_data);
/**
 * zkr_watch_children_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @stat: (out) (optional): the node's stat, from the same read
 * @watch_id: (out) (optional): the watch's id; 0 when no watch was left
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_watch_children_async().
 *
 * Errors: those of zkr_watch_children().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: (transfer full) (nullable) (array zero-terminated=1): the
 *   names; %NULL on failure. g_strfreev() it.
 *
 * Since: 0.1
 */
ZKR_API char **zkr_watch_children_finish (ZkrSession *session, GAsyncResult *result,
                                          ZkrStat *stat, guint *watch_id, GError **error);

/**
 * zkr_watch_remove:
 * @session: the watch's session
 * @watch_id: as a call above gave it; 0, an id already fired, removed,
 *   or of another session: nothing happens
 *
 * Removes a watch: its @func will not run, its @destroy runs once.
 *
 * Thread: any thread. Called in the watch's own context (from the thread
 * that iterates it, e.g. from another callback there): once this returns,
 * @func will not run, and @destroy has run if this thread owns the
 * context (it is dispatching), else it runs at the context's next
 * iteration. From another thread: once this returns @func will not
 * start; it may be running at that moment, if it started before (then
 * this changes nothing); @destroy runs in the watch's context after
 * @func returned or, if @func never ran, later. Wait for @destroy to know
 * that @func is over.
 *
 * Since: 0.1
 */
ZKR_API void zkr_watch_remove (ZkrSession *session, guint watch_id);

G_END_DECLS
