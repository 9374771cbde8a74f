/* zkr: the ZKR_ERROR domain. Every runtime failure of the library is a
 * GError in this domain; the codes are stable (new ones are only appended).
 * Messages name the path, ZooKeeper's error name and the session id (hex);
 * they never contain credentials.
 *
 * Programming errors are not runtime failures and get no GError: a NULL
 * object or required argument, or a _finish() given the result of another
 * call, logs one critical (g_return_val_if_fail) and returns FALSE, NULL
 * or 0. */
#pragma once

#include <glib.h>
#include <zkr/macros.h>

G_BEGIN_DECLS

#define ZKR_ERROR (zkr_error_quark ())

/**
 * ZkrError:
 * @ZKR_ERROR_INVALID_ARGUMENT: bad input (path, connect string, count,
 *   timeout); the message names the bad value.
 * @ZKR_ERROR_TIMEOUT: the deadline passed first.
 * @ZKR_ERROR_CANCELLED: the operation was cancelled.
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
  ZKR_ERROR_CANCELLED,
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

/* TRUE when @error is a ZKR_ERROR that a retry may cure (connection loss,
 * operation timeout, session moved). Never TRUE for an expired session. */
ZKR_API gboolean zkr_error_is_retryable (const GError *error);

G_END_DECLS
