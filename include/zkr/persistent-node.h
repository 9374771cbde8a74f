/**
 * SECTION:persistent-node
 * @title: ZkrPersistentNode
 * @short_description: a node of ours kept present across session
 *   changes, Curator's PersistentNode
 * @include: zkr/zkr.h
 *
 * A persistent node (Curator's PersistentNode): a node of ours,
 * ephemeral or persistent, optionally sequential, with data, that is kept
 * present while the object is started: made again after the session
 * changes (RECONNECTED without it, a fresh session after LOST) and when
 * someone else deletes it; its data settable while it lives; deleted by
 * zkr_persistent_node_close() (docs/design.md, "Persistent node").
 *
 * Paths are absolute ZooKeeper paths under the session's namespace
 * (zkr/node.h), returned without it. For a sequential mode @path is
 * the prefix the counter is appended to. Missing parents are created as
 * CONTAINER nodes. With protection the node's name gets Curator's
 * `"_c_<uuid>-"` prefix, so that a create whose reply was lost with the
 * connection is recognised and adopted (only if our current session owns
 * it) instead of being made twice; a node is never left twice: after a
 * re-creation made a new node while a previous one of ours still exists
 * (a sequential node re-made, an old session's node not yet reaped), the
 * previous one is deleted (guaranteed delete).
 *
 * An ephemeral node found at our (unprotected, non-sequential) path that
 * another session owns is not ours: it is watched, and ours is made once
 * it is gone (Curator would take it over by writing its data). Our node
 * deleted and created again by someone else (at a lower version, or while
 * our session was expired) is judged by what a read finds, never by
 * version: a PERSISTENT node there is ours to keep and our data is written
 * back on it (no creation event: we did not make it); an EPHEMERAL one of
 * another session is left alone as above.
 *
 * Threads: every function may be called from any thread. The node's work
 * (requests, watches, the session listener) runs on a thread of its own
 * with a GMainContext of its own, so nothing has to iterate a context of
 * the caller's for the node to be kept. Listeners and async answers run in
 * the GMainContext that was thread-default where they were added or made,
 * never on a ZooKeeper thread, a session's worker or the node's thread.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 *
 * Ownership: reference-counted. The object keeps a reference on its
 * session; its thread keeps one until the last request is answered. An
 * event queued for a listener keeps a reference until it is delivered, so
 * an unref from inside a listener frees nothing under the listener's feet:
 * the object goes after the last queued call. The last unref, from any
 * thread, closes the node without waiting: its node is deleted in the
 * background (guaranteed).
 */
#pragma once

#include <gio/gio.h>
#include <zkr/macros.h>
#include <zkr/node.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrPersistentNode:
 *
 * A node kept present: opaque and reference-counted (see "Ownership"
 * above).
 *
 * Since: 0.1
 */
typedef struct _ZkrPersistentNode ZkrPersistentNode;

/**
 * ZkrPersistentNodeFunc:
 * @node: the node, valid for the call (zkr_persistent_node_ref() it to
 *   keep it)
 * @path: (nullable): the node's path when the listener runs (without the
 *   namespace), %NULL if it is gone again by then
 * @user_data: as given to zkr_persistent_node_add_listener()
 *
 * A creation listener: runs each time the node was made (the first time
 * and every re-creation, not for a node adopted after a lost reply or
 * found still there). It may remove itself, close or unref the node.
 *
 * Thread: runs in the GMainContext that was thread-default when the
 * listener was added.
 *
 * Since: 0.1
 */
typedef void (*ZkrPersistentNodeFunc) (ZkrPersistentNode *node, const char *path,
                                       gpointer user_data);

/**
 * zkr_persistent_node_new:
 * @session: the session (a reference is taken)
 * @path: the node's path (the prefix, for a sequential mode); not "/"
 * @mode: %ZKR_CREATE_PERSISTENT, %ZKR_CREATE_EPHEMERAL,
 *   %ZKR_CREATE_PERSISTENT_SEQUENTIAL or %ZKR_CREATE_EPHEMERAL_SEQUENTIAL
 * @protection: name the node with Curator's protected prefix (see above)
 * @data: (nullable) (array length=len): the node's data, copied (%NULL
 *   with a @len of 0: none)
 * @len: the length of @data
 * @error: return location for a #GError, or %NULL
 *
 * Makes the object; nothing is sent before zkr_persistent_node_start().
 * A %NULL @session or @path is a programming error: a critical and %NULL.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @path, @mode (container
 * and TTL modes are refused), or data (%NULL with a length, over
 * %ZKR_NODE_MAX_DATA_SIZE), or a create request (path, protected name and
 * data) over %ZKR_NODE_MAX_REQUEST_SIZE, named by its size: refused here,
 * not tried again and again in the background.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the node; zkr_persistent_node_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrPersistentNode *zkr_persistent_node_new (ZkrSession *session, const char *path,
                                                    ZkrCreateMode mode, gboolean protection,
                                                    const void *data, gsize len,
                                                    GError **error);
/**
 * zkr_persistent_node_ref:
 * @node: a #ZkrPersistentNode
 *
 * Takes a reference on @node.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @node.
 *
 * Since: 0.1
 */
ZKR_API ZkrPersistentNode *zkr_persistent_node_ref (ZkrPersistentNode *node);
/**
 * zkr_persistent_node_unref:
 * @node: (nullable) (transfer full): a #ZkrPersistentNode
 *
 * Drops a reference; see "Ownership" above. %NULL is ignored.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_persistent_node_unref (ZkrPersistentNode *node);

/**
 * zkr_persistent_node_start:
 * @node: a #ZkrPersistentNode
 * @error: return location for a #GError, or %NULL
 *
 * Starts making the node in the background (waiting for the session to
 * connect if it is not). Add listeners first to hear the first creation.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT if it was started or closed before;
 * %ZKR_ERROR_SESSION_CLOSED if the session is closed.
 *
 * Thread: any thread; returns at once.
 *
 * Returns: %TRUE when started.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_persistent_node_start (ZkrPersistentNode *node, GError **error);

/**
 * zkr_persistent_node_wait_for_initial_create:
 * @node: a started #ZkrPersistentNode
 * @timeout_ms: the deadline: positive, fixed when called; 0 only looks;
 *   negative none
 * @cancellable: (nullable): cancels the wait (any thread)
 * @error: return location for a #GError, or %NULL
 *
 * Waits until the node was first made (or found ours and given our data),
 * answering by the deadline whatever the session does meanwhile.
 *
 * Errors: %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled (also when the node is closed while waiting),
 * %ZKR_ERROR_SESSION_CLOSED (the session was closed first),
 * %ZKR_ERROR_INVALID_ARGUMENT (not started, or already closed).
 *
 * Thread: any thread; blocks it.
 *
 * Returns: %TRUE once the node was made.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_persistent_node_wait_for_initial_create (ZkrPersistentNode *node,
                                                              int timeout_ms,
                                                              GCancellable *cancellable,
                                                              GError **error);
/**
 * zkr_persistent_node_wait_for_initial_create_async:
 * @node: a started #ZkrPersistentNode
 * @timeout_ms: the deadline, as the blocking call's
 * @cancellable: (nullable): cancels the wait
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_persistent_node_wait_for_initial_create(), GIO style; finish with
 * zkr_persistent_node_wait_for_initial_create_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_persistent_node_wait_for_initial_create_async (ZkrPersistentNode *node,
                                                                int timeout_ms,
                                                                GCancellable *cancellable,
                                                                GAsyncReadyCallback callback,
                                                                gpointer user_data);
/**
 * zkr_persistent_node_wait_for_initial_create_finish:
 * @node: a #ZkrPersistentNode
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_persistent_node_wait_for_initial_create_async().
 *
 * Errors: those of zkr_persistent_node_wait_for_initial_create().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the node was made.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_persistent_node_wait_for_initial_create_finish (ZkrPersistentNode *node,
                                                                     GAsyncResult *result,
                                                                     GError **error);

/**
 * zkr_persistent_node_set_data:
 * @node: a #ZkrPersistentNode
 * @data: (nullable) (array length=len): the new data, copied (%NULL with
 *   a @len of 0: none)
 * @len: the length of @data
 * @error: return location for a #GError, or %NULL
 *
 * Sets the node's data: written to the node if it exists (in the
 * background) and used for every later creation. A write that fails is
 * made again once the node is seen again (a check after every reconnect
 * and every change).
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming bad data (as
 * zkr_persistent_node_new(): a create request over
 * %ZKR_NODE_MAX_REQUEST_SIZE too), or if the node was closed.
 *
 * Thread: any thread; returns at once.
 *
 * Returns: %TRUE when the data was taken.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_persistent_node_set_data (ZkrPersistentNode *node, const void *data,
                                               gsize len, GError **error);
/**
 * zkr_persistent_node_dup_data:
 * @node: a #ZkrPersistentNode
 *
 * The data last given.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): the data; g_bytes_unref() it.
 *
 * Since: 0.1
 */
ZKR_API GBytes *zkr_persistent_node_dup_data (ZkrPersistentNode *node);
/**
 * zkr_persistent_node_dup_actual_path:
 * @node: a #ZkrPersistentNode
 *
 * The node's path now (with its protected prefix and sequence suffix,
 * without the namespace).
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the path, %NULL if there is none at
 *   this moment; g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_persistent_node_dup_actual_path (ZkrPersistentNode *node);

/**
 * zkr_persistent_node_add_listener:
 * @node: a #ZkrPersistentNode
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data in the listener's context after
 *   it is removed or the node goes
 *
 * Adds a creation listener in the caller's thread-default GMainContext.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Returns: an id for zkr_persistent_node_remove_listener() (> 0).
 *
 * Since: 0.1
 */
ZKR_API guint zkr_persistent_node_add_listener (ZkrPersistentNode *node,
                                                ZkrPersistentNodeFunc func,
                                                gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_persistent_node_remove_listener:
 * @node: a #ZkrPersistentNode
 * @id: an id zkr_persistent_node_add_listener() returned
 *
 * Removes a listener: no call of it starts after this returns.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_persistent_node_remove_listener (ZkrPersistentNode *node, guint id);

/**
 * zkr_persistent_node_close:
 * @node: a #ZkrPersistentNode
 * @timeout_ms: how long to wait for the delete's answer (negative: until the
 *   session is LOST or CLOSED)
 * @cancellable: (nullable): stops the wait, not the delete
 * @error: return location for a #GError, or %NULL
 *
 * Stops keeping the node and deletes it (Curator's guaranteed delete: if
 * the delete cannot be confirmed by the deadline, this fails, and it goes
 * on in the background until the server confirms it or the session is
 * closed). No listener call starts after this returns. Idempotent: a
 * second close, or one on a node never started, is %TRUE at once.
 *
 * Errors: %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, and those of zkr_node_delete_full() (a missing node is no
 * error).
 *
 * Thread: any thread but the node's own (there is no user code there);
 * blocks it until the delete is answered.
 *
 * Returns: %TRUE once the node is deleted.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_persistent_node_close (ZkrPersistentNode *node, int timeout_ms,
                                            GCancellable *cancellable, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrPersistentNode, zkr_persistent_node_unref)

G_END_DECLS
