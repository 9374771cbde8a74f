/* zkr: the ZKR_ERROR domain. Every runtime failure of the library but a
 * cancel (below) is a GError in this domain; the codes are stable (new ones
 * are only appended). Messages name the path, ZooKeeper's error name and
 * the session id (hex); they never contain credentials.
 *
 * A cancelled call, any of them (blocking or _async/_finish, node calls,
 * recipes, waits), fails with G_IO_ERROR / G_IO_ERROR_CANCELLED, as GIO's
 * own g_cancellable_set_error_if_cancelled() and GTask do, so that
 * g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) holds; the
 * message names the call and its path ("acquire mutex /x: cancelled").
 * ZKR_ERROR_CANCELLED keeps its value for the ABI but is never produced:
 * code that matched it must match G_IO_ERROR_CANCELLED instead (a use of
 * it warns as deprecated).
 *
 * Programming errors are not runtime failures and get no GError: a NULL
 * object or required argument, or a _finish() given the result of another
 * call, logs one critical (g_return_val_if_fail) and returns FALSE, NULL
 * or 0. */
#pragma once

#include <gio/gio.h>
#include <zkr/macros.h>

G_BEGIN_DECLS

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
 */
typedef enum {
  ZKR_ERROR_INVALID_ARGUMENT = 1,
  ZKR_ERROR_TIMEOUT,
  ZKR_ERROR_CANCELLED ZKR_DEPRECATED_ENUMERATOR_FOR (G_IO_ERROR_CANCELLED),
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

ZKR_API GQuark zkr_error_quark (void);

/* The stable name of @code ("ZKR_ERROR_TIMEOUT"), or "ZKR_ERROR_UNKNOWN".
 * (transfer none) */
ZKR_API const char *zkr_error_code_name (ZkrError code);

/* The stable name of an error a zkr call returned: its code's name for a
 * ZKR_ERROR (as zkr_error_code_name()), "G_IO_ERROR_CANCELLED" for a
 * cancel, "ZKR_ERROR_UNKNOWN" for anything else; "NONE" for NULL.
 * (transfer none) */
ZKR_API const char *zkr_error_name (const GError *error);

/* TRUE when @error is a ZKR_ERROR that a retry may cure (connection loss,
 * operation timeout, session moved). Never TRUE for an expired session. */
ZKR_API gboolean zkr_error_is_retryable (const GError *error);

G_END_DECLS
