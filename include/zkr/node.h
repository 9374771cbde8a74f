/**
 * SECTION:node
 * @title: Nodes
 * @short_description: create, read, write, delete and list nodes
 * @include: zkr/zkr.h
 *
 * Plain node operations on a #ZkrSession (Curator's create, getData,
 * setData, delete, checkExists, getChildren): each a blocking call and an
 * _async/_finish pair, under the session's namespace, with a deadline that
 * holds in every session state.
 *
 * Paths: absolute ZooKeeper paths under the session's namespace (Curator's
 * rule: with namespace "app", "/a" is "/app/a" on the server); paths
 * returned are without the namespace.
 *
 * Deadlines (docs/design.md §5): a positive @timeout_ms is a deadline
 * fixed when the call is made; the call answers by it, whatever the
 * connection does (a link that went silent, SUSPENDED, LOST, CLOSED):
 * %ZKR_ERROR_TIMEOUT. A negative @timeout_ms: no deadline of zkr's own (as
 * zkr_mutex_acquire()): a call waits for the session to be connected and
 * is answered at the latest when the session is LOST
 * (%ZKR_ERROR_SESSION_EXPIRED). @timeout_ms 0 tries once: sent at once if
 * the session is connected (else %ZKR_ERROR_CONNECTION_LOSS at once),
 * never retried, and answered when the server answers or libzookeeper
 * gives the connection up (about 2/3 of the session timeout on a silent
 * link); give a positive timeout for a bounded answer. Cancelling
 * @cancellable (any thread) answers %G_IO_ERROR_CANCELLED promptly,
 * whatever the connection does.
 *
 * Retries: reads (get, exists, get_children) are sent again after a
 * retryable answer (connection loss, session moved, throttled), as the
 * session's retry policy allows (zkr_session_options_set_retry_policy()),
 * once the session is connected again, within the deadline. Writes
 * (create, set, delete) are not: after a connection loss the server may
 * or may not have applied one, so it fails with %ZKR_ERROR_CONNECTION_LOSS
 * and the caller decides (a create may then have made its node, a delete
 * removed it). A write is sent again only when it provably never left
 * (the session had no connection). Likewise a write answered TIMEOUT or
 * CANCELLED after it was sent may still be applied by the server: it is
 * not undone.
 *
 * Session states: a call made while SUSPENDED (or before the first
 * connect) waits for the connection within its deadline; a call made while
 * the session is LOST fails at once with %ZKR_ERROR_SESSION_EXPIRED, one
 * made on a CLOSED session with %ZKR_ERROR_SESSION_CLOSED; a call waiting or
 * in flight when the session becomes LOST or CLOSED fails the same way at
 * that moment.
 *
 * Bad input (an invalid path, mode, version, TTL or ACL, data NULL with a
 * length, data over %ZKR_NODE_MAX_DATA_SIZE, a request over
 * %ZKR_NODE_MAX_REQUEST_SIZE): %ZKR_ERROR_INVALID_ARGUMENT naming the
 * value (a request by its size), nothing sent. A NULL session or path is a programming
 * error: one critical and FALSE/NULL.
 *
 * Errors from the server: %ZKR_ERROR_NO_NODE, %ZKR_ERROR_NODE_EXISTS,
 * %ZKR_ERROR_BAD_VERSION, %ZKR_ERROR_NOT_EMPTY,
 * %ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS, %ZKR_ERROR_AUTH,
 * %ZKR_ERROR_INVALID_ACL, %ZKR_ERROR_UNIMPLEMENTED, others as #ZkrError
 * maps them; messages name the operation, the path and the session id,
 * never credentials.
 *
 * The common errors, which every call below may set: %ZKR_ERROR_TIMEOUT,
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled,
 * %ZKR_ERROR_CONNECTION_LOSS, %ZKR_ERROR_SESSION_EXPIRED,
 * %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_AUTH and
 * %ZKR_ERROR_INVALID_ARGUMENT (bad input, as above).
 *
 * Threads: every function may be called from any thread (not from a zkr
 * callback running on a session's worker: there are none). A blocking call
 * returns on the caller's thread; an async call's @callback runs once, in
 * the GMainContext that was thread-default when the call was made, never
 * before the call returns. An async call keeps a reference on its session
 * until it is answered: the session may be unreffed meanwhile.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrStat:
 * @czxid: the zxid of the create
 * @mzxid: the zxid of the last data change
 * @pzxid: the zxid of the last change of the children
 * @ctime: the time of the create, in ms since the epoch (the server's
 *   clock)
 * @mtime: the time of the last data change, in ms since the epoch
 * @version: the data version
 * @cversion: the children version
 * @aversion: the ACL version
 * @ephemeral_owner: the session owning an ephemeral node (0 for others)
 * @data_length: the data's length in bytes
 * @num_children: the number of children
 *
 * A node's metadata as the server reported it (ZooKeeper's Stat). A plain
 * value: copy it freely.
 *
 * Since: 0.1
 */
typedef struct {
  gint64 czxid;
  gint64 mzxid;
  gint64 pzxid;
  gint64 ctime;
  gint64 mtime;
  gint32 version;
  gint32 cversion;
  gint32 aversion;
  gint64 ephemeral_owner;
  gint32 data_length;
  gint32 num_children;
} ZkrStat;

/**
 * ZkrCreateMode:
 * @ZKR_CREATE_PERSISTENT: stays until deleted.
 * @ZKR_CREATE_EPHEMERAL: deleted by the server when the session ends (closed,
 *   or expired); may have no children.
 * @ZKR_CREATE_PERSISTENT_SEQUENTIAL: persistent, the server appends a
 *   10-digit counter of the parent to the name.
 * @ZKR_CREATE_EPHEMERAL_SEQUENTIAL: ephemeral and sequential.
 * @ZKR_CREATE_CONTAINER: deleted by the server some time after its last
 *   child went (ZooKeeper 3.5.3 and later).
 * @ZKR_CREATE_PERSISTENT_WITH_TTL: persistent, deleted by the server once
 *   it has had no child and no change for the TTL given with it
 *   (ZkrCreateOptions.ttl_ms). Only with zkr_node_create_full(); a server
 *   without extended types (zookeeper.extendedTypesEnabled) answers
 *   %ZKR_ERROR_UNIMPLEMENTED. Not in a transaction (libzookeeper's multi
 *   carries no TTL): zkr_txn_create() refuses it, %ZKR_ERROR_INVALID_ARGUMENT.
 * @ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL: the same, sequential.
 *
 * How a node is created. The values are stable; new modes are only
 * appended.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_CREATE_PERSISTENT,
  ZKR_CREATE_EPHEMERAL,
  ZKR_CREATE_PERSISTENT_SEQUENTIAL,
  ZKR_CREATE_EPHEMERAL_SEQUENTIAL,
  ZKR_CREATE_CONTAINER,
  ZKR_CREATE_PERSISTENT_WITH_TTL,
  ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL,
} ZkrCreateMode;

/**
 * ZKR_NODE_TTL_MAX_MS:
 *
 * The longest TTL ZooKeeper accepts, in ms (2^40 - 1, about 34 years).
 *
 * Since: 0.1
 */
#define ZKR_NODE_TTL_MAX_MS ((G_GINT64_CONSTANT (1) << 40) - 1)

/**
 * ZKR_NODE_MAX_REQUEST_SIZE:
 *
 * The largest request ZooKeeper takes by default (its jute.maxbuffer,
 * 0xfffff bytes): a server closes the connection of a client that sends a
 * larger one. zkr counts every request it sends as ZooKeeper frames it (the
 * length prefix, the header, the path with the namespace and the chroot,
 * the data, the ACL, the flags and TTL; a transaction's every operation
 * with its headers) and refuses one larger than this, whichever call or
 * recipe makes it (a node call, a transaction, a protected create, a
 * persistent node, a group member, a service registration, ...), with
 * %ZKR_ERROR_INVALID_ARGUMENT naming its size and this limit: nothing is
 * sent, and the session is not disturbed. Any data over
 * %ZKR_NODE_MAX_DATA_SIZE is refused as well. Servers set up with a larger
 * jute.maxbuffer still get no more from zkr.
 *
 * Since: 0.1
 */
#define ZKR_NODE_MAX_REQUEST_SIZE 0xfffff
/**
 * ZKR_NODE_MAX_DATA_SIZE:
 *
 * The most data one node may get: the request limit
 * (%ZKR_NODE_MAX_REQUEST_SIZE) less 1 KiB for the request's path, ACL and
 * framing.
 *
 * Since: 0.1
 */
#define ZKR_NODE_MAX_DATA_SIZE (ZKR_NODE_MAX_REQUEST_SIZE - 1024)

/**
 * ZkrPerms:
 * @ZKR_PERM_READ: read the data and list the children
 * @ZKR_PERM_WRITE: set the data
 * @ZKR_PERM_CREATE: create children
 * @ZKR_PERM_DELETE: delete children
 * @ZKR_PERM_ADMIN: set the ACL
 * @ZKR_PERM_ALL: all of the above
 *
 * ZooKeeper's permissions, as bits (the same values as ZooKeeper's).
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_PERM_READ = 1 << 0,
  ZKR_PERM_WRITE = 1 << 1,
  ZKR_PERM_CREATE = 1 << 2,
  ZKR_PERM_DELETE = 1 << 3,
  ZKR_PERM_ADMIN = 1 << 4,
  ZKR_PERM_ALL = 0x1f,
} ZkrPerms;

/**
 * ZkrAclEntry:
 * @perms: #ZkrPerms bits (some of %ZKR_PERM_ALL)
 * @scheme: "world", "auth", "digest", "ip", ...
 * @id: the scheme's id: "anyone" for world, "" for auth (the session's own
 *   identity), "user:base64(sha1(user:password))" for digest, an address
 *   or a network for ip
 *
 * One entry of a node's ACL, as ZooKeeper has them; borrowed by the calls
 * that take one (copied before they return). The server checks the
 * scheme and id: an unknown scheme, a malformed id or "auth" on a session
 * without credentials is %ZKR_ERROR_INVALID_ACL. Ids (a digest's hash
 * included) never appear in zkr's messages or logs.
 *
 * Since: 0.1
 */
typedef struct {
  guint perms;
  const char *scheme;
  const char *id;
} ZkrAclEntry;

/**
 * ZkrCreateParents:
 * @ZKR_CREATE_PARENTS_NONE: a missing parent fails the create with
 *   %ZKR_ERROR_NO_NODE.
 * @ZKR_CREATE_PARENTS_PERSISTENT: missing ancestors are created first, as
 *   persistent nodes with no data (Curator's creatingParentsIfNeeded()).
 * @ZKR_CREATE_PARENTS_CONTAINER: the same, as container nodes (Curator's
 *   creatingParentContainersIfNeeded(); the server removes them once empty).
 *
 * Whether a create makes missing ancestors first, and how. Ancestors
 * someone else creates meanwhile are fine. Like the node itself, parents
 * created before a failure are not removed.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_CREATE_PARENTS_NONE,
  ZKR_CREATE_PARENTS_PERSISTENT,
  ZKR_CREATE_PARENTS_CONTAINER,
} ZkrCreateParents;

/**
 * zkr_node_create:
 * @session: the session
 * @path: the node's path; for a sequential mode, the prefix the counter is
 *   appended to (it may end in '/': "/jobs/" makes "/jobs/0000000007")
 * @data: (nullable) (array length=len): the node's data, copied before
 *   this returns; %NULL (with @len 0) makes a node without data
 * @len: the length of @data in bytes
 * @mode: a #ZkrCreateMode (not a TTL mode: those need
 *   zkr_node_create_full())
 * @parents: whether missing ancestors are created first, and how
 * @timeout_ms: the deadline (see above); a write: not retried
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @created_path: (out) (optional) (transfer full): the path made, with the
 *   sequence suffix, without the namespace; g_free() it
 * @stat: (out) (optional): the new node's stat
 * @error: return location for a #GError, or %NULL
 *
 * Creates a node.
 *
 * Errors: %ZKR_ERROR_NODE_EXISTS, %ZKR_ERROR_NO_NODE (a parent is missing),
 * %ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS (the parent is ephemeral),
 * %ZKR_ERROR_CONNECTION_LOSS (the node may or may not exist),
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and the common
 * ones above.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: %TRUE once the server created the node.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_create (ZkrSession *session, const char *path,
                                  const void *data, gsize len,
                                  ZkrCreateMode mode, ZkrCreateParents parents,
                                  int timeout_ms, GCancellable *cancellable,
                                  char **created_path, ZkrStat *stat,
                                  GError **error);
/**
 * zkr_node_create_async:
 * @session: the session
 * @path: as zkr_node_create()
 * @data: (nullable) (array length=len): the node's data, copied before
 *   this returns
 * @len: the length of @data in bytes
 * @mode: a #ZkrCreateMode (not a TTL mode)
 * @parents: whether missing ancestors are created first, and how
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_node_create(), GIO style; finish with zkr_node_create_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_create_async (ZkrSession *session, const char *path,
                                    const void *data, gsize len,
                                    ZkrCreateMode mode, ZkrCreateParents parents,
                                    int timeout_ms, GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_node_create_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @created_path: (out) (optional) (transfer full): the path made, without
 *   the namespace; g_free() it
 * @stat: (out) (optional): the new node's stat
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_node_create_async().
 *
 * Errors: those of zkr_node_create().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server created the node.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_create_finish (ZkrSession *session, GAsyncResult *result,
                                         char **created_path, ZkrStat *stat,
                                         GError **error);

/**
 * zkr_node_get:
 * @session: the session
 * @path: the node's path
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @stat: (out) (optional): the node's stat, read with the data
 * @error: return location for a #GError, or %NULL
 *
 * Reads a node's data. A read: retried within the deadline (see above).
 *
 * Errors: %ZKR_ERROR_NO_NODE, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, and the common ones above.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: (transfer full) (nullable): the data (an empty #GBytes for a
 *   node without data), %NULL on failure; g_bytes_unref() it.
 *
 * Since: 0.1
 */
ZKR_API GBytes *zkr_node_get (ZkrSession *session, const char *path,
                              int timeout_ms, GCancellable *cancellable,
                              ZkrStat *stat, GError **error);
/**
 * zkr_node_get_async:
 * @session: the session
 * @path: the node's path
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_node_get(), GIO style; finish with zkr_node_get_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_get_async (ZkrSession *session, const char *path,
                                 int timeout_ms, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_node_get_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @stat: (out) (optional): the node's stat, read with the data
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_node_get_async().
 *
 * Errors: those of zkr_node_get().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: (transfer full) (nullable): the data, as zkr_node_get();
 *   g_bytes_unref() it.
 *
 * Since: 0.1
 */
ZKR_API GBytes *zkr_node_get_finish (ZkrSession *session, GAsyncResult *result,
                                     ZkrStat *stat, GError **error);

/**
 * zkr_node_set:
 * @session: the session
 * @path: the node's path
 * @data: (nullable) (array length=len): the new data, copied before this
 *   returns (%NULL with @len 0: no data)
 * @len: the length of @data in bytes
 * @version: the data version the node must have (ZkrStat.version), or -1
 *   for any; anything below -1 is invalid
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @stat: (out) (optional): the node's stat after the write
 * @error: return location for a #GError, or %NULL
 *
 * Replaces a node's data. A write: not retried (see above).
 *
 * Errors: %ZKR_ERROR_NO_NODE, %ZKR_ERROR_BAD_VERSION,
 * %ZKR_ERROR_CONNECTION_LOSS (the data may or may not have been written),
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and the common
 * ones above.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: %TRUE once the server wrote the data.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_set (ZkrSession *session, const char *path,
                               const void *data, gsize len, int version,
                               int timeout_ms, GCancellable *cancellable,
                               ZkrStat *stat, GError **error);
/**
 * zkr_node_set_async:
 * @session: the session
 * @path: the node's path
 * @data: (nullable) (array length=len): the new data, copied before this
 *   returns
 * @len: the length of @data in bytes
 * @version: the data version the node must have, or -1 for any
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_node_set(), GIO style; finish with zkr_node_set_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_set_async (ZkrSession *session, const char *path,
                                 const void *data, gsize len, int version,
                                 int timeout_ms, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_node_set_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @stat: (out) (optional): the node's stat after the write
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_node_set_async().
 *
 * Errors: those of zkr_node_set().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server wrote the data.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_set_finish (ZkrSession *session, GAsyncResult *result,
                                      ZkrStat *stat, GError **error);

/**
 * zkr_node_delete:
 * @session: the session
 * @path: the node's path
 * @version: the data version the node must have, or -1 for any
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Deletes a node that has no children. A write: not retried (see above).
 *
 * Errors: %ZKR_ERROR_NO_NODE, %ZKR_ERROR_BAD_VERSION, %ZKR_ERROR_NOT_EMPTY,
 * %ZKR_ERROR_CONNECTION_LOSS (the node may or may not be gone),
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and the common
 * ones above.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: %TRUE once the server deleted the node.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_delete (ZkrSession *session, const char *path, int version,
                                  int timeout_ms, GCancellable *cancellable,
                                  GError **error);
/**
 * zkr_node_delete_async:
 * @session: the session
 * @path: the node's path
 * @version: the data version the node must have, or -1 for any
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_node_delete(), GIO style; finish with zkr_node_delete_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_delete_async (ZkrSession *session, const char *path, int version,
                                    int timeout_ms, GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_node_delete_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_node_delete_async().
 *
 * Errors: those of zkr_node_delete().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server deleted the node.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_delete_finish (ZkrSession *session, GAsyncResult *result,
                                         GError **error);

/**
 * zkr_node_exists:
 * @session: the session
 * @path: the node's path
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @stat: (out) (optional): the node's stat when it exists (untouched
 *   otherwise)
 * @error: return location for a #GError, or %NULL
 *
 * Whether a node exists. A missing node is no error: %FALSE with @error
 * unset. A read: retried within the deadline (see above).
 *
 * Errors: %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and the
 * common ones above.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: %TRUE if the node exists; %FALSE if not, or on failure (then
 *   @error is set).
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_exists (ZkrSession *session, const char *path,
                                  int timeout_ms, GCancellable *cancellable,
                                  ZkrStat *stat, GError **error);
/**
 * zkr_node_exists_async:
 * @session: the session
 * @path: the node's path
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_node_exists(), GIO style; finish with zkr_node_exists_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_exists_async (ZkrSession *session, const char *path,
                                    int timeout_ms, GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_node_exists_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @stat: (out) (optional): the node's stat when it exists
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_node_exists_async().
 *
 * Errors: those of zkr_node_exists().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: as zkr_node_exists().
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_exists_finish (ZkrSession *session, GAsyncResult *result,
                                         ZkrStat *stat, GError **error);

/**
 * zkr_node_get_children:
 * @session: the session
 * @path: the parent's path
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @stat: (out) (optional): the parent's stat, from the same read
 * @error: return location for a #GError, or %NULL
 *
 * The names (not paths) of a node's children, sorted in byte order. A
 * read: retried within the deadline (see above).
 *
 * Errors: %ZKR_ERROR_NO_NODE, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, and the common ones above.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: (transfer full) (nullable) (array zero-terminated=1): a
 *   %NULL-terminated array, empty for no children, %NULL on failure;
 *   g_strfreev() it.
 *
 * Since: 0.1
 */
ZKR_API char **zkr_node_get_children (ZkrSession *session, const char *path,
                                      int timeout_ms, GCancellable *cancellable,
                                      ZkrStat *stat, GError **error);
/**
 * zkr_node_get_children_async:
 * @session: the session
 * @path: the parent's path
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_node_get_children(), GIO style; finish with
 * zkr_node_get_children_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_get_children_async (ZkrSession *session, const char *path,
                                          int timeout_ms, GCancellable *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer user_data);
/**
 * zkr_node_get_children_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @stat: (out) (optional): the parent's stat, from the same read
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_node_get_children_async().
 *
 * Errors: those of zkr_node_get_children().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: (transfer full) (nullable) (array zero-terminated=1): as
 *   zkr_node_get_children(); g_strfreev() it.
 *
 * Since: 0.1
 */
ZKR_API char **zkr_node_get_children_finish (ZkrSession *session, GAsyncResult *result,
                                             ZkrStat *stat, GError **error);

/**
 * ZkrCreateOptions:
 * @mode: a #ZkrCreateMode
 * @parents: whether missing ancestors are created first, and how; they
 *   get the session's ACL, not @acl (Curator's default too)
 * @ttl_ms: for the TTL modes, the TTL in ms, 1 to %ZKR_NODE_TTL_MAX_MS;
 *   0 for every other mode
 * @acl: (nullable) (array length=n_acl): the node's ACL; %NULL (with
 *   @n_acl 0) for the session's (zkr_session_options_set_acl())
 * @n_acl: the number of entries of @acl (at least 1 when @acl is given)
 * @protection: Curator's withProtection(): the node's name gets the prefix
 *   `"_c_<uuid>-"` (a fresh version 4 uuid per call), so that a create whose
 *   reply was lost with the connection can be recognised afterwards. The
 *   create is then sent again after a connection loss, within the deadline
 *   and as the session's retry policy allows: once connected again, the
 *   parent's children are listed and a child carrying our prefix is our
 *   node (for an ephemeral mode, only if this session owns it); if none
 *   does, the create is sent again. A protected create that fails, times
 *   out or is cancelled leaves nothing behind: a node it made or may have
 *   made is deleted in the background (found by its prefix), across a
 *   session loss, until the session is closed.
 * @reserved: zero
 *
 * How zkr_node_create_full() creates a node. All zero is a persistent
 * node, no parents, the session's ACL, no protection: start from `{ 0 }`
 * and set what differs (designated initializers read well:
 * `ZkrCreateOptions opts = { .mode = ZKR_CREATE_EPHEMERAL, .protection = TRUE };`).
 *
 * Since: 0.1
 */
typedef struct {
  ZkrCreateMode mode;
  ZkrCreateParents parents;
  gint64 ttl_ms;
  const ZkrAclEntry *acl;
  guint n_acl;
  gboolean protection;
  gpointer reserved[4];
} ZkrCreateOptions;

/**
 * zkr_node_create_full:
 * @session: the session
 * @path: as zkr_node_create()
 * @data: (nullable) (array length=len): the node's data, copied before
 *   this returns
 * @len: the length of @data in bytes
 * @options: (nullable): how to create the node (borrowed; %NULL: all zero)
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @created_path: (out) (optional) (transfer full): the path made, without
 *   the namespace; it carries the protected prefix when @options asks for
 *   protection; g_free() it
 * @stat: (out) (optional): the new node's stat
 * @error: return location for a #GError, or %NULL
 *
 * Creates a node as @options say; otherwise as zkr_node_create().
 *
 * Bad input (besides the common ones): a TTL mode without a TTL in range,
 * a TTL with another mode, an ACL with no entry, a NULL scheme or id,
 * unknown permission bits, data over %ZKR_NODE_MAX_DATA_SIZE or a request
 * over %ZKR_NODE_MAX_REQUEST_SIZE: %ZKR_ERROR_INVALID_ARGUMENT naming the
 * value, nothing sent.
 *
 * Errors: those of zkr_node_create(); %ZKR_ERROR_INVALID_ACL (the server
 * refused the ACL), %ZKR_ERROR_UNIMPLEMENTED (a TTL mode on a server without
 * extended types), %ZKR_ERROR_AUTH (no CREATE permission on the parent),
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: %TRUE once the server created the node.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_create_full (ZkrSession *session, const char *path,
                                       const void *data, gsize len,
                                       const ZkrCreateOptions *options,
                                       int timeout_ms, GCancellable *cancellable,
                                       char **created_path, ZkrStat *stat,
                                       GError **error);
/**
 * zkr_node_create_full_async:
 * @session: the session
 * @path: as zkr_node_create()
 * @data: (nullable) (array length=len): the node's data, copied before
 *   this returns
 * @len: the length of @data in bytes
 * @options: (nullable): how to create the node; it and its ACL are
 *   copied before this returns
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_node_create_full(), GIO style; finish with
 * zkr_node_create_full_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_create_full_async (ZkrSession *session, const char *path,
                                         const void *data, gsize len,
                                         const ZkrCreateOptions *options,
                                         int timeout_ms, GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_node_create_full_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @created_path: (out) (optional) (transfer full): the path made, without
 *   the namespace; g_free() it
 * @stat: (out) (optional): the new node's stat
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_node_create_full_async().
 *
 * Errors: those of zkr_node_create_full().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server created the node.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_create_full_finish (ZkrSession *session, GAsyncResult *result,
                                              char **created_path, ZkrStat *stat,
                                              GError **error);

/**
 * ZkrDeleteFlags:
 * @ZKR_DELETE_NONE: delete one node without children (zkr_node_delete()).
 * @ZKR_DELETE_CHILDREN: delete the node's children first, the deepest
 *   first (Curator's deletingChildrenIfNeeded()). Children that others
 *   add meanwhile are deleted too (%ZKR_ERROR_NOT_EMPTY lists again). The
 *   version, if any, applies to the node itself only: the node is
 *   deleted first, and the server checks the version before it looks for
 *   children, so a wrong version fails with %ZKR_ERROR_BAD_VERSION before
 *   anything is deleted (unless the version changes while the children
 *   go). Children are deleted whatever their version. Unlike a single
 *   delete, the walk goes on after a connection loss once connected again,
 *   within the deadline: deleting what is already gone is no error (a
 *   missing node is %ZKR_ERROR_NO_NODE only if it was missing before
 *   anything was sent).
 * @ZKR_DELETE_GUARANTEED: Curator's guaranteed(): if the call cannot be
 *   confirmed (connection loss, deadline, cancel, session LOST), it still
 *   fails as usual, and the delete goes on in the background, sent again
 *   at every reconnect, across a session loss, until the server confirms
 *   it (a missing node counts) or the session is closed. The background
 *   delete is of any version (as Curator's). Nothing is done in the
 *   background for a call refused at once (bad input, cancelled before
 *   it was made, a CLOSED session, timeout 0 while not connected) or
 *   answered by the server (BAD_VERSION, NOT_EMPTY, AUTH).
 *
 * How zkr_node_delete_full() deletes; the flags may be combined.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_DELETE_NONE = 0,
  ZKR_DELETE_CHILDREN = 1 << 0,
  ZKR_DELETE_GUARANTEED = 1 << 1,
} ZkrDeleteFlags;

/**
 * zkr_node_delete_full:
 * @session: the session
 * @path: the node's path
 * @version: the data version @path must have, or -1 for any
 * @flags: #ZkrDeleteFlags
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Deletes @path as zkr_node_delete() does, and as @flags say.
 *
 * Errors: those of zkr_node_delete() (%ZKR_ERROR_NOT_EMPTY only without
 * %ZKR_DELETE_CHILDREN); an invalid @flags is %ZKR_ERROR_INVALID_ARGUMENT;
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: %TRUE once the server deleted the node.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_delete_full (ZkrSession *session, const char *path, int version,
                                       ZkrDeleteFlags flags, int timeout_ms,
                                       GCancellable *cancellable, GError **error);
/**
 * zkr_node_delete_full_async:
 * @session: the session
 * @path: the node's path
 * @version: the data version @path must have, or -1 for any
 * @flags: #ZkrDeleteFlags
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_node_delete_full(), GIO style; finish with
 * zkr_node_delete_full_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_delete_full_async (ZkrSession *session, const char *path, int version,
                                         ZkrDeleteFlags flags, int timeout_ms,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_node_delete_full_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_node_delete_full_async().
 *
 * Errors: those of zkr_node_delete_full().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server deleted the node.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_delete_full_finish (ZkrSession *session, GAsyncResult *result,
                                              GError **error);

/**
 * zkr_node_delete_tree:
 * @session: the session
 * @path: the root of the tree to delete
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Deletes @path and everything under it, any version: a shorthand for
 * zkr_node_delete_full (@path, -1, %ZKR_DELETE_CHILDREN) (`zkr rm -r`).
 * For the async form, or a guaranteed one, use zkr_node_delete_full().
 *
 * Errors: %ZKR_ERROR_NO_NODE (@path did not exist),
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and the common
 * ones.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: %TRUE once the tree is gone.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_delete_tree (ZkrSession *session, const char *path, int timeout_ms,
                                       GCancellable *cancellable, GError **error);

/**
 * zkr_node_sync:
 * @session: the session
 * @path: the path to sync on (it need not exist)
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * ZooKeeper's sync: the server this session is connected to catches up
 * with the quorum's leader on @path, so that a read made after this
 * returns sees every write committed before it was called, whichever
 * session made it (ZooKeeper alone promises only that a session sees its
 * own writes). Retried like a read (see above).
 *
 * Errors: %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and the
 * common ones above.
 *
 * Thread: any thread; blocks the caller until answered.
 *
 * Returns: %TRUE once the server caught up.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_sync (ZkrSession *session, const char *path, int timeout_ms,
                                GCancellable *cancellable, GError **error);
/**
 * zkr_node_sync_async:
 * @session: the session
 * @path: the path to sync on
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_node_sync(), GIO style; finish with zkr_node_sync_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_node_sync_async (ZkrSession *session, const char *path, int timeout_ms,
                                  GCancellable *cancellable, GAsyncReadyCallback callback,
                                  gpointer user_data);
/**
 * zkr_node_sync_finish:
 * @session: the session
 * @result: the #GAsyncResult passed to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_node_sync_async().
 *
 * Errors: those of zkr_node_sync().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the server caught up.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_node_sync_finish (ZkrSession *session, GAsyncResult *result,
                                       GError **error);

G_END_DECLS
