/* zkr: the session manager. A ZkrSession owns one ZooKeeper handle at a
 * time, survives disconnects, replaces an expired session by a fresh one by
 * itself, and reports one state machine (CONNECTED, SUSPENDED, RECONNECTED,
 * LOST, CLOSED) to its listeners, each in its own GMainContext.
 *
 * Threads: every function here may be called from any thread, except where
 * a comment says otherwise. The session runs a private worker thread; state
 * listeners never run on it nor on ZooKeeper's threads. */
#pragma once

#include <gio/gio.h>
#include <zkr/macros.h>
#include <zkr/retry.h>

G_BEGIN_DECLS

/**
 * ZkrSessionState:
 * @ZKR_SESSION_STATE_CONNECTING: not yet connected for the first time
 *   (never reported to listeners).
 * @ZKR_SESSION_STATE_CONNECTED: a new session is established (first
 *   connect, and after LOST when the fresh session is up: the id differs).
 * @ZKR_SESSION_STATE_SUSPENDED: the connection is lost; the session may still
 *   live on the server. Anything held is in doubt.
 * @ZKR_SESSION_STATE_RECONNECTED: connected again, same session id.
 * @ZKR_SESSION_STATE_LOST: the session expired on the server, or stayed
 *   suspended for the whole negotiated timeout (counted from the liveness
 *   clock) and must be presumed gone. A fresh session follows by itself.
 * @ZKR_SESSION_STATE_CLOSED: closed by its user; terminal.
 *
 * Transitions (anything else is refused and logged):
 *   CONNECTING -> CONNECTED
 *   CONNECTED, RECONNECTED -> SUSPENDED, LOST
 *   SUSPENDED -> RECONNECTED, LOST
 *   LOST -> CONNECTED
 *   any but CLOSED -> CLOSED
 */
typedef enum {
  ZKR_SESSION_STATE_CONNECTING,
  ZKR_SESSION_STATE_CONNECTED,
  ZKR_SESSION_STATE_SUSPENDED,
  ZKR_SESSION_STATE_RECONNECTED,
  ZKR_SESSION_STATE_LOST,
  ZKR_SESSION_STATE_CLOSED,
} ZkrSessionState;

/**
 * ZKR_SESSION_RESOLUTION_DELAY_MS:
 *
 * How long a session's handle goes without looking up its host names again
 * during normal operation (zoo_set_servers_resolution_delay()). With
 * libzookeeper's default of 0 it resolves them on every wake of its I/O
 * thread, which costs a dozen system calls (netlink socket, /etc/hosts,
 * ...) per request; a connection loss still resolves them at once.
 */
#define ZKR_SESSION_RESOLUTION_DELAY_MS 10000

/* "CONNECTED", "SUSPENDED", ... (transfer none) */
ZKR_API const char *zkr_session_state_name (ZkrSessionState state);

/**
 * ZkrAclMode:
 * @ZKR_ACL_OPEN: world:anyone may do anything (ZooKeeper's OPEN_ACL_UNSAFE).
 * @ZKR_ACL_CREATOR_ALL: only the creating identity (needs digest auth).
 * @ZKR_ACL_CREATOR_ALL_WORLD_READ: the creator may do anything, anyone may
 *   read (needs digest auth).
 *
 * The ACL given to every node the session's recipes create.
 */
typedef enum {
  ZKR_ACL_OPEN,
  ZKR_ACL_CREATOR_ALL,
  ZKR_ACL_CREATOR_ALL_WORLD_READ,
} ZkrAclMode;

/* Options for a session: a plain value object, not thread-safe; the session
 * copies what it needs, so the options may be freed right after
 * zkr_session_new(). */
typedef struct _ZkrSessionOptions ZkrSessionOptions;

/* Defaults: hosts "127.0.0.1:2181", session timeout 10000 ms, connection
 * timeout 15000 ms, exponential retry (100 ms base, 5000 ms cap, 10 retries),
 * no namespace, no auth, ZKR_ACL_OPEN, client id "<hostname>/<pid>",
 * liveness drift 0.02 and margin min(T/10, 1000 ms). (transfer full) */
ZKR_API ZkrSessionOptions *zkr_session_options_new (void);
ZKR_API ZkrSessionOptions *zkr_session_options_copy (const ZkrSessionOptions *options);
ZKR_API void zkr_session_options_free (ZkrSessionOptions *options);

/* "host:port[,host:port...][/chroot]"; validated by zkr_session_new(). */
ZKR_API void zkr_session_options_set_hosts (ZkrSessionOptions *options, const char *hosts);
ZKR_API void zkr_session_options_set_session_timeout_ms (ZkrSessionOptions *options, int timeout_ms);
ZKR_API void zkr_session_options_set_connection_timeout_ms (ZkrSessionOptions *options, int timeout_ms);
/* The policy used to re-open a session after LOST and by recipes' retries.
 * The options take a reference. */
ZKR_API void zkr_session_options_set_retry_policy (ZkrSessionOptions *options, ZkrRetryPolicy *policy);
/* A namespace (Curator's): every recipe path is resolved under
 * "/<namespace>". NULL or "" for none. */
ZKR_API void zkr_session_options_set_namespace (ZkrSessionOptions *options, const char *name_space);
/* Digest credentials, sent on every (re)connect. They are kept in memory
 * only and never appear in logs or errors. */
ZKR_API void zkr_session_options_set_digest_auth (ZkrSessionOptions *options,
                                                  const char *user,
                                                  const char *password);
ZKR_API void zkr_session_options_set_acl (ZkrSessionOptions *options, ZkrAclMode mode);
/* Written as the data of the nodes the session's recipes create. */
ZKR_API void zkr_session_options_set_client_id (ZkrSessionOptions *options, const char *client_id);
/* The lock-loss deadline (docs/design.md §2.3, §3.6): last_ok_send +
 * T*(1-drift) - margin. drift in [0, 0.5); margin_ms >= 0, or -1 for
 * min(T/10, 1000 ms). */
ZKR_API void zkr_session_options_set_liveness (ZkrSessionOptions *options,
                                               double drift,
                                               int margin_ms);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrSessionOptions, zkr_session_options_free)

/* Reference-counted; safe to unref from any thread and from inside its own
 * listeners. The last unref closes the session if it is still open. */
typedef struct _ZkrSession ZkrSession;

/**
 * ZkrSessionStateFunc:
 * Runs in the GMainContext that was thread-default when the listener was
 * added, exactly once per transition, in order. It may close or unref the
 * session, and remove listeners.
 */
typedef void (*ZkrSessionStateFunc) (ZkrSession *session,
                                     ZkrSessionState state,
                                     gpointer user_data);

/**
 * zkr_session_new:
 * Validates @options and starts connecting in the background; it does not
 * wait for the connection (see zkr_session_wait_connected()).
 *
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming the bad value (connect string,
 * chroot, namespace, timeouts, ACL without auth).
 * Returns: (transfer full) (nullable): the session.
 */
ZKR_API ZkrSession *zkr_session_new (const ZkrSessionOptions *options, GError **error);

/* zkr_session_new() then zkr_session_wait_connected() with the options'
 * connection timeout; on failure the session is closed and NULL returned. */
ZKR_API ZkrSession *zkr_session_connect (const ZkrSessionOptions *options, GError **error);

ZKR_API ZkrSession *zkr_session_ref (ZkrSession *session);
ZKR_API void zkr_session_unref (ZkrSession *session);

/**
 * zkr_session_close:
 * Closes the ZooKeeper session (its ephemeral nodes go at once), reports
 * CLOSED to the listeners and wakes every waiter. Idempotent. Blocks until
 * the handle is closed; do not call it from ZooKeeper's threads.
 */
ZKR_API void zkr_session_close (ZkrSession *session);

/**
 * zkr_session_wait_connected:
 * @timeout_ms: negative waits forever, 0 only checks.
 * @cancellable: (nullable): cancelling it (from any thread) ends the wait
 *   promptly.
 * Blocks until the session is connected (CONNECTED or RECONNECTED); a
 * session connected already answers TRUE, even with @cancellable cancelled.
 * Errors: ZKR_ERROR_TIMEOUT ("could not connect to HOSTS within N ms"),
 * G_IO_ERROR_CANCELLED, ZKR_ERROR_SESSION_CLOSED, ZKR_ERROR_AUTH.
 */
ZKR_API gboolean zkr_session_wait_connected (ZkrSession *session,
                                             int timeout_ms,
                                             GCancellable *cancellable,
                                             GError **error);

ZKR_API ZkrSessionState zkr_session_get_state (ZkrSession *session);
/* TRUE in CONNECTED and RECONNECTED. */
ZKR_API gboolean zkr_session_is_connected (ZkrSession *session);
/* The current ZooKeeper session id, 0 before the first connect. */
ZKR_API gint64 zkr_session_get_id (ZkrSession *session);
/* The negotiated session timeout T in ms (the requested one until connected). */
ZKR_API int zkr_session_get_timeout_ms (ZkrSession *session);
/* "127.0.0.1:2181" of the server in use, NULL when not connected.
 * (transfer full) (nullable) */
ZKR_API char *zkr_session_dup_connected_host (ZkrSession *session);
/* The client id written into recipe nodes. (transfer none) */
ZKR_API const char *zkr_session_get_client_id (ZkrSession *session);
/* How many transitions to LOST this session has seen (each followed by a
 * fresh ZooKeeper session). */
ZKR_API guint zkr_session_get_lost_count (ZkrSession *session);

/**
 * The liveness clock (docs/design.md §2.3, §3.6), in
 * g_get_monotonic_time() µs.
 * last_ok_send: the send time of the most recent request the server answered
 * (a cheap read of the session's own is sent every ~T/3 while connected).
 * safe deadline: last_ok_send + T*(1-drift) - margin; before it, no other
 * client can have been granted a lock this session holds. 0 before the
 * first connect.
 */
ZKR_API gint64 zkr_session_get_last_ok_send (ZkrSession *session);
ZKR_API gint64 zkr_session_get_safe_deadline (ZkrSession *session);

/**
 * zkr_session_add_state_listener:
 * Adds @func, to run in the caller's thread-default GMainContext. @destroy
 * runs on @user_data after removal, in that same context.
 * Returns: a listener id (> 0).
 */
ZKR_API guint zkr_session_add_state_listener (ZkrSession *session,
                                              ZkrSessionStateFunc func,
                                              gpointer user_data,
                                              GDestroyNotify destroy);
/* No transition is delivered to the listener after this returns, unless it
 * is running right now in another thread. */
ZKR_API void zkr_session_remove_state_listener (ZkrSession *session, guint listener_id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrSession, zkr_session_unref)

G_END_DECLS
