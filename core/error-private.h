/* zkr internal: ZooKeeper's integer return codes translated in one place;
 * the error of a cancelled call made in one place. */
#pragma once

#include <gio/gio.h>
#include <zkr/error.h>

G_BEGIN_DECLS

/* zkr's own return code, below every code of ZooKeeper's: a request over
 * ZooKeeper's size limit (ZKR_NODE_MAX_REQUEST_SIZE), refused by core/op.c
 * before anything was sent, the session untouched; the reply's
 * request_size says how large it was. Final: not retryable, not a server
 * answer (the same request is refused again). Translated here into
 * ZKR_ERROR_INVALID_ARGUMENT naming the size. */
#define ZKR_ZK_REQUEST_TOO_LARGE (-20000)

/* The ZkrError a ZooKeeper return code maps to (ZOK maps to 0). */
ZkrError zkr__error_code_from_zk (int rc);

/* "ZNONODE", "ZCONNECTIONLOSS", ...; "ZUNKNOWN(-123)" style text for codes
 * it does not know is written into a static per-thread buffer. */
const char *zkr__error_zk_name (int rc);

/* TRUE for the codes a retry may cure: ZCONNECTIONLOSS, ZOPERATIONTIMEOUT,
 * ZSESSIONMOVED, ZTHROTTLEDOP, ZSSLCONNECTIONERROR. Never ZSESSIONEXPIRED,
 * ZAUTHFAILED, ZNOAUTH, ZBADARGUMENTS. */
gboolean zkr__error_rc_is_retryable (int rc);

/* TRUE when @rc can only be an answer from a server (so the request
 * reached it while the session lived and the liveness clock may advance):
 * ZOK and the server's own error codes (ZNONODE, ZNODEEXISTS, ...). */
gboolean zkr__error_rc_is_server_answer (int rc);

/* Sets @error from @rc: "OP PATH: ZNAME (text) [session 0xID]". @path may
 * be NULL; @session_id 0 omits the session. */
void zkr__error_set_from_zk (GError **error,
                             int rc,
                             const char *op,
                             const char *path,
                             gint64 session_id);

/* As zkr__error_set_from_zk(), with the reply's @request_size, which a
 * ZKR_ZK_REQUEST_TOO_LARGE answer names (other codes ignore it). */
void zkr__error_set_from_reply_rc (GError **error,
                                   int rc,
                                   gsize request_size,
                                   const char *op,
                                   const char *path,
                                   gint64 session_id);

/* ZKR_ERROR_INVALID_ARGUMENT for a request of @size bytes (0: not known)
 * over ZooKeeper's limit: "OP PATH: invalid request of N bytes: more than
 * ZooKeeper takes (1048575 bytes, ZKR_NODE_MAX_REQUEST_SIZE); nothing was
 * sent". The one wording, for the calls' own checks and the door's. */
void zkr__error_set_request_too_large (GError **error,
                                       const char *op,
                                       const char *path,
                                       gsize size);

/* The error of every cancelled call (include/zkr/error.h): G_IO_ERROR /
 * G_IO_ERROR_CANCELLED, as GIO's own g_cancellable_set_error_if_cancelled()
 * and GTask give, with the message "CALL: cancelled"; @format names the
 * call and what it was on ("acquire mutex %s", path). The one place that
 * makes one: no call sets a cancel error of its own. (transfer full) */
GError *zkr__error_new_cancelled (const char *format, ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS
