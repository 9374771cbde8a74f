/**
 * SECTION:error
 * @title: Errors
 * @short_description: the ZKR_ERROR domain and its stable codes
 * @include: zkr/zkr.h
 *
 * The ZKR_ERROR domain. Every runtime failure of the library but a cancel
 * (below) is a GError in this domain; the codes are stable (new ones are only appended).
 * Messages name the path, ZooKeeper's error name and the session id (hex);
 * they never contain credentials.
 *
 * A cancelled call, any of them (blocking or _async/_finish, node calls,
 * recipes, waits), fails with G_IO_ERROR / G_IO_ERROR_CANCELLED, as GIO's
 * own g_cancellable_set_error_if_cancelled() and GTask do, so that
 * g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) holds; the
 * message names the call and its path ("acquire mutex /x: cancelled").
 * %ZKR_ERROR_CANCELLED keeps its value for the ABI but is never produced:
 * code that matched it must match G_IO_ERROR_CANCELLED instead (a use of
 * it warns as deprecated).
 *
 * Programming errors are not runtime failures and get no GError: a NULL
 * object or required argument, or a _finish() given the result of another
 * call, logs one critical (g_return_val_if_fail) and returns FALSE, NULL
 * or 0.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/macros.h>

G_BEGIN_DECLS

/**
 * ZKR_ERROR:
 *
 * The error domain of zkr's runtime failures; the codes are #ZkrError.
 * Match them with g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT).
 *
 * Since: 0.1
 */
#define ZKR_ERROR (zkr_error_quark ())

/**
 * ZkrError:
 * @ZKR_ERROR_INVALID_ARGUMENT: bad input (path, connect string, count,
 *   timeout); the message names the bad value.
 * @ZKR_ERROR_TIMEOUT: the deadline passed first.
 * @ZKR_ERROR_CANCELLED: deprecated, never produced: a cancelled call fails
 *   with G_IO_ERROR_CANCELLED (see above). Kept so that the codes after it
 *   keep their values.
 * @ZKR_ERROR_CONNECTION_LOSS: no server answered (ZCONNECTIONLOSS,
 *   ZOPERATIONTIMEOUT, ZSSLCONNECTIONERROR) or the server throttled the
 *   request (ZTHROTTLEDOP); the outcome of a write may be unknown. Retryable.
 * @ZKR_ERROR_SESSION_EXPIRED: the session is gone (expired on the server or
 *   presumed lost); ephemeral nodes of it are gone or going.
 * @ZKR_ERROR_SESSION_CLOSED: the session was closed by its user.
 * @ZKR_ERROR_NOT_HELD: release or verify of something not held.
 * @ZKR_ERROR_ALREADY_HELD: a non-reentrant acquire by the current holder.
 * @ZKR_ERROR_LOCK_LOST: the lock was held and is lost.
 * @ZKR_ERROR_AUTH: ZNOAUTH or ZAUTHFAILED: credentials missing or refused.
 * @ZKR_ERROR_NO_NODE: ZNONODE where a node was required.
 * @ZKR_ERROR_NODE_EXISTS: ZNODEEXISTS where a new node was required.
 * @ZKR_ERROR_ZOOKEEPER: any other error reported by ZooKeeper.
 * @ZKR_ERROR_SESSION_MOVED: ZSESSIONMOVED. Retryable.
 * @ZKR_ERROR_NOT_EMPTY: ZNOTEMPTY.
 * @ZKR_ERROR_BAD_VERSION: ZBADVERSION.
 * @ZKR_ERROR_INTERNAL: a bug in zkr or an unexpected reply.
 * @ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS: ZNOCHILDRENFOREPHEMERALS: a create
 *   under an ephemeral node.
 * @ZKR_ERROR_INVALID_ACL: ZINVALIDACL: the server refused an ACL (empty,
 *   an unknown scheme, or "auth" with no credentials on the session).
 * @ZKR_ERROR_UNIMPLEMENTED: ZUNIMPLEMENTED: the server does not offer the
 *   request (TTL nodes on a server without extended types enabled).
 * @ZKR_ERROR_NO_WATCHER: ZNOWATCHER: no such watch to remove.
 *
 * The codes of the #ZKR_ERROR domain. The values are stable; new codes
 * are only appended.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_ERROR_INVALID_ARGUMENT = 1,
  ZKR_ERROR_TIMEOUT,
  ZKR_ERROR_CANCELLED
#ifndef __GTK_DOC_IGNORE__
  ZKR_DEPRECATED_ENUMERATOR_FOR (G_IO_ERROR_CANCELLED)
#endif
  ,
  ZKR_ERROR_CONNECTION_LOSS,
  ZKR_ERROR_SESSION_EXPIRED,
  ZKR_ERROR_SESSION_CLOSED,
  ZKR_ERROR_NOT_HELD,
  ZKR_ERROR_ALREADY_HELD,
  ZKR_ERROR_LOCK_LOST,
  ZKR_ERROR_AUTH,
  ZKR_ERROR_NO_NODE,
  ZKR_ERROR_NODE_EXISTS,
  ZKR_ERROR_ZOOKEEPER,
  ZKR_ERROR_SESSION_MOVED,
  ZKR_ERROR_NOT_EMPTY,
  ZKR_ERROR_BAD_VERSION,
  ZKR_ERROR_INTERNAL,
  ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS,
  ZKR_ERROR_INVALID_ACL,
  ZKR_ERROR_UNIMPLEMENTED,
  ZKR_ERROR_NO_WATCHER,
} ZkrError;

/**
 * zkr_error_quark:
 *
 * The quark of the #ZKR_ERROR domain.
 *
 * Thread: any thread.
 *
 * Returns: the quark of "zkr-error-quark".
 *
 * Since: 0.1
 */
ZKR_API GQuark zkr_error_quark (void);

/**
 * zkr_error_code_name:
 * @code: a #ZkrError
 *
 * The stable name of an error code, for logs and for tools that print
 * errors.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the name of @code ("ZKR_ERROR_TIMEOUT"), or
 *   "ZKR_ERROR_UNKNOWN" for a value outside the enum; a static string.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_error_code_name (ZkrError code);

/**
 * zkr_error_name:
 * @error: (nullable): an error a zkr call returned
 *
 * The stable name of an error, for logs and for tools that print errors:
 * its code's name for a #ZKR_ERROR (as zkr_error_code_name()),
 * "G_IO_ERROR_CANCELLED" for a cancel, "ZKR_ERROR_UNKNOWN" for anything
 * else.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the name, "NONE" for a %NULL @error; a static
 *   string.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_error_name (const GError *error);

/**
 * zkr_error_is_retryable:
 * @error: (nullable): an error a zkr call set
 *
 * Whether a retry may cure @error: a #ZKR_ERROR of connection loss,
 * operation timeout or session moved. Never %TRUE for an expired session.
 *
 * Thread: any thread.
 *
 * Returns: %TRUE when @error is a #ZKR_ERROR that a retry may cure.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_error_is_retryable (const GError *error);

G_END_DECLS
