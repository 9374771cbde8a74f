/**
 * SECTION:session
 * @title: ZkrSession
 * @short_description: the session manager: one ZooKeeper session at a
 *   time and its state machine
 * @include: zkr/zkr.h
 *
 * The session manager. A ZkrSession owns one ZooKeeper handle at a
 * time, survives disconnects, replaces an expired session by a fresh one by
 * itself, and reports one state machine (CONNECTED, SUSPENDED, RECONNECTED,
 * LOST, CLOSED) to its listeners, each in its own GMainContext.
 *
 * Threads: every function here may be called from any thread, except where
 * a comment says otherwise. The session runs a private worker thread; state
 * listeners never run on it nor on ZooKeeper's threads.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
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
 * The states of a #ZkrSession.
 *
 * Transitions (anything else is refused and logged):
 * |[
 *   CONNECTING -> CONNECTED
 *   CONNECTED, RECONNECTED -> SUSPENDED, LOST
 *   SUSPENDED -> RECONNECTED, LOST
 *   LOST -> CONNECTED
 *   any but CLOSED -> CLOSED
 * ]|
 *
 * Since: 0.1
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
 *
 * Since: 0.1
 */
#define ZKR_SESSION_RESOLUTION_DELAY_MS 10000

/**
 * zkr_session_state_name:
 * @state: a #ZkrSessionState
 *
 * The name of a state, for logs.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): "CONNECTED", "SUSPENDED", ..., or "INVALID"
 *   for a value outside the enum; a static string.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_session_state_name (ZkrSessionState state);

/**
 * ZkrAclMode:
 * @ZKR_ACL_OPEN: world:anyone may do anything (ZooKeeper's OPEN_ACL_UNSAFE).
 * @ZKR_ACL_CREATOR_ALL: only the creating identity (needs digest auth).
 * @ZKR_ACL_CREATOR_ALL_WORLD_READ: the creator may do anything, anyone may
 *   read (needs digest auth).
 *
 * The ACL given to every node the session's recipes create.
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_ACL_OPEN,
  ZKR_ACL_CREATOR_ALL,
  ZKR_ACL_CREATOR_ALL_WORLD_READ,
} ZkrAclMode;

/**
 * ZkrSessionOptions:
 *
 * Options for a session: a plain value object, not thread-safe; the
 * session copies what it needs, so the options may be freed right after
 * zkr_session_new(). The setters only store what they are given;
 * zkr_session_new() validates it.
 *
 * Since: 0.1
 */
typedef struct _ZkrSessionOptions ZkrSessionOptions;

/**
 * zkr_session_options_new:
 *
 * New options with the defaults: hosts "127.0.0.1:2181", session timeout
 * 10000 ms, connection timeout 15000 ms, exponential retry (100 ms base,
 * 5000 ms cap, 10 retries), no namespace, no auth, %ZKR_ACL_OPEN, client
 * id "&lt;hostname&gt;/&lt;pid&gt;", liveness drift 0.02 and margin
 * min(T/10, 1000 ms).
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): the options; zkr_session_options_free() them.
 *
 * Since: 0.1
 */
ZKR_API ZkrSessionOptions *zkr_session_options_new (void);
/**
 * zkr_session_options_copy:
 * @options: the options to copy
 *
 * A deep copy of @options (the retry policy is shared by reference).
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Returns: (transfer full): the copy; zkr_session_options_free() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrSessionOptions *zkr_session_options_copy (const ZkrSessionOptions *options);
/**
 * zkr_session_options_free:
 * @options: (nullable) (transfer full): the options
 *
 * Frees @options, wiping the password first. %NULL is ignored.
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_free (ZkrSessionOptions *options);

/**
 * zkr_session_options_set_hosts:
 * @options: the options
 * @hosts: the connect string, `"host:port[,host:port...][/chroot]"`; copied
 *
 * Sets the servers to connect to; validated by zkr_session_new().
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_set_hosts (ZkrSessionOptions *options, const char *hosts);
/**
 * zkr_session_options_set_session_timeout_ms:
 * @options: the options
 * @timeout_ms: the session timeout to ask the server for, in ms (the
 *   server may negotiate another: zkr_session_get_timeout_ms())
 *
 * Sets the requested session timeout T; validated by zkr_session_new().
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_set_session_timeout_ms (ZkrSessionOptions *options, int timeout_ms);
/**
 * zkr_session_options_set_connection_timeout_ms:
 * @options: the options
 * @timeout_ms: how long zkr_session_connect() waits for the first
 *   connection, in ms
 *
 * Sets the connection timeout; validated by zkr_session_new().
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_set_connection_timeout_ms (ZkrSessionOptions *options, int timeout_ms);
/**
 * zkr_session_options_set_retry_policy:
 * @options: the options
 * @policy: (transfer none): the policy; the options take a reference
 *
 * The policy used to re-open a session after LOST and by recipes' retries.
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_set_retry_policy (ZkrSessionOptions *options, ZkrRetryPolicy *policy);
/**
 * zkr_session_options_set_namespace:
 * @options: the options
 * @name_space: (nullable): the namespace, copied; %NULL or "" for none
 *
 * A namespace (Curator's): every recipe path is resolved under
 * "/&lt;namespace&gt;".
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_set_namespace (ZkrSessionOptions *options, const char *name_space);
/**
 * zkr_session_options_set_digest_auth:
 * @options: the options
 * @user: (nullable): the digest user, copied
 * @password: (nullable): the digest password, copied
 *
 * Digest credentials, sent on every (re)connect. They are kept in memory
 * only and never appear in logs or errors. The user must be non-empty and
 * without ':'; user and password take at most 4096 bytes together
 * (zkr_session_new() refuses more with %ZKR_ERROR_INVALID_ARGUMENT).
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_set_digest_auth (ZkrSessionOptions *options,
                                                  const char *user,
                                                  const char *password);
/**
 * zkr_session_options_set_acl:
 * @options: the options
 * @mode: a #ZkrAclMode
 *
 * Sets the ACL of the nodes the session's recipes create (and of node
 * calls without an ACL of their own). The creator modes need digest auth
 * (zkr_session_new() refuses them without).
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_set_acl (ZkrSessionOptions *options, ZkrAclMode mode);
/**
 * zkr_session_options_set_client_id:
 * @options: the options
 * @client_id: the client id, copied
 *
 * Sets the client id, written as the data of the nodes the session's
 * recipes create.
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_set_client_id (ZkrSessionOptions *options, const char *client_id);
/**
 * zkr_session_options_set_liveness:
 * @options: the options
 * @drift: the clock drift allowed for, in [0, 0.5)
 * @margin_ms: the safety margin in ms, >= 0, or -1 for min(T/10, 1000 ms)
 *
 * Sets the lock-loss deadline (docs/design.md §2.3, §3.6):
 * last_ok_send + T*(1-drift) - margin. Validated by zkr_session_new().
 *
 * Thread: any thread (one thread at a time per #ZkrSessionOptions).
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_options_set_liveness (ZkrSessionOptions *options,
                                               double drift,
                                               int margin_ms);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrSessionOptions, zkr_session_options_free)

/**
 * ZkrSession:
 *
 * A session: opaque and reference-counted; safe to unref from any thread
 * and from inside its own listeners. The last unref closes the session if
 * it is still open, in the background (see zkr_session_unref()).
 *
 * Since: 0.1
 */
typedef struct _ZkrSession ZkrSession;

/**
 * ZkrSessionStateFunc:
 * @session: the session (valid while this runs)
 * @state: the new state (never %ZKR_SESSION_STATE_CONNECTING)
 * @user_data: as given to zkr_session_add_state_listener()
 *
 * A state listener: told of each transition.
 *
 * Thread: runs in the GMainContext that was thread-default when the
 * listener was added, exactly once per transition, in order. It may close
 * or unref the session, and remove listeners.
 *
 * Since: 0.1
 */
typedef void (*ZkrSessionStateFunc) (ZkrSession *session,
                                     ZkrSessionState state,
                                     gpointer user_data);

/**
 * zkr_session_new:
 * @options: the options (copied: they may be freed once this returns)
 * @error: return location for a #GError, or %NULL
 *
 * Validates @options and starts connecting in the background; it does not
 * wait for the connection (see zkr_session_wait_connected()).
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming the bad value (connect string,
 * chroot, namespace, timeouts, ACL without auth);
 * %ZKR_ERROR_CONNECTION_LOSS when libzookeeper could not start a client.
 *
 * Thread: any thread; returns at once.
 *
 * Returns: (transfer full) (nullable): the session; zkr_session_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrSession *zkr_session_new (const ZkrSessionOptions *options, GError **error);

/**
 * zkr_session_connect:
 * @options: the options (copied)
 * @error: return location for a #GError, or %NULL
 *
 * zkr_session_new() then zkr_session_wait_connected() with the options'
 * connection timeout; on failure the session is closed and %NULL returned.
 *
 * Errors: those of zkr_session_new() and zkr_session_wait_connected().
 *
 * Thread: any thread; blocks until connected or failed.
 *
 * Returns: (transfer full) (nullable): the connected session;
 *   zkr_session_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrSession *zkr_session_connect (const ZkrSessionOptions *options, GError **error);

/**
 * zkr_session_connect_async:
 * @options: the options (copied)
 * @cancellable: (nullable): cancelling it (from any thread) answers the
 *   call at once
 * @callback: called with the answer
 * @user_data: for @callback
 *
 * zkr_session_new() then zkr_session_wait_connected_async() with the
 * options' connection timeout. On failure the session made is closed in
 * the background.
 *
 * Thread: any thread; returns at once. @callback runs in the
 * GMainContext that was thread-default at the call, never inside it.
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_connect_async (const ZkrSessionOptions *options,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
/**
 * zkr_session_connect_finish:
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_session_connect_async().
 *
 * Errors: those of zkr_session_new() and zkr_session_wait_connected().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: (transfer full) (nullable): the connected session;
 *   zkr_session_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrSession *zkr_session_connect_finish (GAsyncResult *result, GError **error);

/**
 * zkr_session_ref:
 * @session: a #ZkrSession
 *
 * Takes a reference on @session.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @session.
 *
 * Since: 0.1
 */
ZKR_API ZkrSession *zkr_session_ref (ZkrSession *session);
/**
 * zkr_session_unref:
 * @session: (transfer full): a #ZkrSession
 *
 * Drops a reference. The last one never waits: it hands the session to
 * its worker thread, which closes it if it is still open (as
 * zkr_session_close() does: the server deletes its ephemeral nodes at
 * once), runs what was queued before, frees the session and ends. A
 * program that must know its ephemeral nodes are gone before it goes on
 * or exits calls zkr_session_close() or zkr_session_close_async() first;
 * otherwise a process that exits right after the last unref may leave
 * them to expire with the session timeout.
 *
 * Thread: any thread, also from inside its own listeners and the
 * callbacks of its calls; returns at once.
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_unref (ZkrSession *session);

/**
 * zkr_session_close:
 * @session: a #ZkrSession
 *
 * Closes the ZooKeeper session (its ephemeral nodes go at once), reports
 * CLOSED to the listeners and wakes every waiter. Idempotent.
 *
 * Thread: any thread but ZooKeeper's; blocks until the handle is closed.
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_close (ZkrSession *session);

/**
 * zkr_session_close_async:
 * @session: a #ZkrSession
 * @cancellable: (nullable): cancelling it answers the call at once with
 *   %G_IO_ERROR_CANCELLED; the close goes on all the same
 * @callback: called with the answer
 * @user_data: for @callback
 *
 * zkr_session_close() without blocking: @callback is told once the
 * handle is closed (CLOSED reported, every waiter woken, the server told
 * to end the session when it could be reached). Idempotent: a closed
 * session answers %TRUE.
 *
 * Thread: any thread; returns at once. @callback runs in the
 * GMainContext that was thread-default at the call.
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_close_async (ZkrSession *session,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data);
/**
 * zkr_session_close_finish:
 * @session: a #ZkrSession
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_session_close_async().
 *
 * Errors: %G_IO_ERROR_CANCELLED when cancelled first.
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once the session is closed.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_session_close_finish (ZkrSession *session, GAsyncResult *result,
                                           GError **error);

/**
 * zkr_session_wait_connected:
 * @session: a #ZkrSession
 * @timeout_ms: negative waits forever, 0 only checks.
 * @cancellable: (nullable): cancelling it (from any thread) ends the wait
 *   promptly
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until the session is connected (CONNECTED or RECONNECTED); a
 * session connected already answers %TRUE, even with @cancellable
 * cancelled.
 *
 * Errors: %ZKR_ERROR_TIMEOUT ("could not connect to HOSTS within N ms"),
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled,
 * %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_AUTH.
 *
 * Thread: any thread but the session's worker; blocks the caller.
 *
 * Returns: %TRUE once connected.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_session_wait_connected (ZkrSession *session,
                                             int timeout_ms,
                                             GCancellable *cancellable,
                                             GError **error);

/**
 * zkr_session_wait_connected_async:
 * @session: a #ZkrSession
 * @timeout_ms: negative waits forever, 0 only checks.
 * @cancellable: (nullable): cancelling it (from any thread) answers the
 *   call promptly
 * @callback: called with the answer
 * @user_data: for @callback
 *
 * zkr_session_wait_connected() without blocking: the same answers, by
 * the same deadline, in every session state.
 *
 * Thread: any thread; returns at once. @callback runs in the
 * GMainContext that was thread-default at the call, never inside it.
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_wait_connected_async (ZkrSession *session,
                                               int timeout_ms,
                                               GCancellable *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer user_data);
/**
 * zkr_session_wait_connected_finish:
 * @session: a #ZkrSession
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_session_wait_connected_async().
 *
 * Errors: those of zkr_session_wait_connected().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: %TRUE once connected.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_session_wait_connected_finish (ZkrSession *session,
                                                    GAsyncResult *result,
                                                    GError **error);

/**
 * zkr_session_get_state:
 * @session: a #ZkrSession
 *
 * The session's state now.
 *
 * Thread: any thread.
 *
 * Returns: the current #ZkrSessionState.
 *
 * Since: 0.1
 */
ZKR_API ZkrSessionState zkr_session_get_state (ZkrSession *session);
/**
 * zkr_session_is_connected:
 * @session: a #ZkrSession
 *
 * Whether the session is connected now.
 *
 * Thread: any thread.
 *
 * Returns: %TRUE in CONNECTED and RECONNECTED.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_session_is_connected (ZkrSession *session);
/**
 * zkr_session_get_id:
 * @session: a #ZkrSession
 *
 * The current ZooKeeper session id.
 *
 * Thread: any thread.
 *
 * Returns: the id, 0 before the first connect.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_session_get_id (ZkrSession *session);
/**
 * zkr_session_get_timeout_ms:
 * @session: a #ZkrSession
 *
 * The session timeout T.
 *
 * Thread: any thread.
 *
 * Returns: the negotiated session timeout in ms (the requested one until
 *   connected).
 *
 * Since: 0.1
 */
ZKR_API int zkr_session_get_timeout_ms (ZkrSession *session);
/**
 * zkr_session_dup_connected_host:
 * @session: a #ZkrSession
 *
 * The server in use.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): "127.0.0.1:2181" of the server in
 *   use, %NULL when not connected; g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_session_dup_connected_host (ZkrSession *session);
/**
 * zkr_session_get_client_id:
 * @session: a #ZkrSession
 *
 * The client id written into recipe nodes
 * (zkr_session_options_set_client_id()).
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the client id, valid while @session lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_session_get_client_id (ZkrSession *session);
/**
 * zkr_session_get_lost_count:
 * @session: a #ZkrSession
 *
 * How many transitions to LOST this session has seen (each followed by a
 * fresh ZooKeeper session).
 *
 * Thread: any thread.
 *
 * Returns: the count.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_session_get_lost_count (ZkrSession *session);

/**
 * zkr_session_get_last_ok_send:
 * @session: a #ZkrSession
 *
 * The liveness clock (docs/design.md §2.3, §3.6): the send time of the
 * most recent request the server answered (a cheap read of the session's
 * own is sent every ~T/3 while connected).
 *
 * Thread: any thread.
 *
 * Returns: last_ok_send in g_get_monotonic_time() µs, 0 before the first
 *   connect.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_session_get_last_ok_send (ZkrSession *session);
/**
 * zkr_session_get_safe_deadline:
 * @session: a #ZkrSession
 *
 * The safe deadline (docs/design.md §2.3, §3.6): last_ok_send +
 * T*(1-drift) - margin; before it, no other client can have been granted
 * a lock this session holds.
 *
 * Thread: any thread.
 *
 * Returns: the deadline in g_get_monotonic_time() µs, 0 before the first
 *   connect.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_session_get_safe_deadline (ZkrSession *session);

/**
 * zkr_session_add_state_listener:
 * @session: a #ZkrSession
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data after removal, in the
 *   listener's context
 *
 * Adds @func, to run in the caller's thread-default GMainContext, once
 * per transition from now on.
 *
 * Thread: any thread; the listener and @destroy run in the GMainContext
 * that is thread-default now (it must be iterated).
 *
 * Returns: a listener id (> 0) for zkr_session_remove_state_listener().
 *
 * Since: 0.1
 */
ZKR_API guint zkr_session_add_state_listener (ZkrSession *session,
                                              ZkrSessionStateFunc func,
                                              gpointer user_data,
                                              GDestroyNotify destroy);
/**
 * zkr_session_remove_state_listener:
 * @session: a #ZkrSession
 * @listener_id: an id zkr_session_add_state_listener() returned
 *
 * Removes a state listener: no transition is delivered to it after this
 * returns, unless it is running right now in another thread.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_session_remove_state_listener (ZkrSession *session, guint listener_id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrSession, zkr_session_unref)

G_END_DECLS
