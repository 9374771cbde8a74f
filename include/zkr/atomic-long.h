/**
 * SECTION:atomic-long
 * @title: ZkrAtomicLong
 * @short_description: a distributed 64-bit counter, Curator's
 *   DistributedAtomicLong
 * @include: zkr/zkr.h
 *
 * A distributed 64-bit counter, Curator's DistributedAtomicLong: one
 * node whose data is the value as 8 bytes, big-endian two's complement,
 * changed by compare-and-set on the node's data version, so zkr and Curator
 * clients count on the same node.
 *
 * Modes: optimistic (read, then set with the version read; on a lost race
 * try again as @retry_policy allows), and promoted (Curator's
 * PromotedToLock: when optimism gave up, take a ZkrMutex on @lock_path,
 * Curator's InterProcessMutex layout, and try again under it as
 * @lock_retry_policy allows). Like Curator's AtomicValue, an operation that
 * ran its course answers TRUE with a ZkrAtomicLongValue whose @succeeded
 * says whether the change was made: FALSE means the policies gave up (or,
 * for compare_and_set, the value was not the expected one); nothing was
 * changed then. A runtime failure answers FALSE with a GError.
 *
 * Layout (Curator 5.4.0): the node is created on first change, PERSISTENT,
 * its missing parents as CONTAINER nodes. A missing node or one with no
 * data reads as 0. Data of any length but 0 or 8 is refused with
 * %ZKR_ERROR_INVALID_ARGUMENT naming the path and the length (Curator
 * reads the first 8 bytes of longer data and fails on shorter; zkr takes
 * neither as a number). Arithmetic wraps as Java's long does.
 *
 * Lost replies: a write answered %ZKR_ERROR_CONNECTION_LOSS may or may not
 * have landed. It is never sent again blindly: once a sync answers on the
 * new connection, the node is read again. Our write did not land when the
 * node is untouched since our read (same data version and mzxid), or when
 * exactly one write came since and its bytes are not ours (ours then failed
 * on the version), or, for the first create, when the node is still
 * missing or holds other bytes at version 0: the operation then goes on
 * (re-read, retry as the policy allows). In every other case, our bytes at
 * the next version included (another client's increment from the same
 * value writes the same 8 bytes, and the layout names no writer), the call
 * answers FALSE with %ZKR_ERROR_CONNECTION_LOSS whose message says "whether
 * it landed is unknown", @value unfilled: never counted as made, never
 * made twice. So does a lost reply when the sync or the read again fails
 * by CONNECTION_LOSS; TIMEOUT says the same in its message.
 *
 * Why "not seen after the sync" means "will never land": ZooKeeper runs a
 * session's requests in order (FIFO per session). A request of ours that
 * reached the server before the connection broke is in the server's (and
 * the leader's) request pipeline ahead of the sync sent on the new
 * connection, so the sync answers only after it was applied or refused. One
 * that had not reached it never will: on reconnecting to the same server,
 * the server closes the session's old connection first (unread bytes are
 * dropped); on moving to another server, the leader refuses with
 * SESSIONMOVED any request still coming through the old one. A counter
 * deleted and recreated in that window is taken as a reset.
 *
 * A node's life. Nothing is kept between operations, nor between tries:
 * each try reads the node afresh, so a node deleted and created again (at
 * any version, also while the session was expired) is simply counted on
 * from its new value. A lost reply's "did not land" is proven only on the
 * node's life the try read (same creation zxid, czxid): on a node created
 * again since, the answer is "unknown". The limit is ZooKeeper's own: the
 * server checks a write's version, never its node's creation, so a node
 * deleted and created again between a try's read and its write, and by
 * then at the very version read (a node created again starts at 0), takes
 * the try's value, computed from the old node's.
 *
 * Deadlines and session states are node.h's: a positive @timeout_ms bounds
 * the whole operation (every read, write, retry sleep and lock wait), a
 * negative one waits for a connection as long as the session lives, 0
 * sends each request once. Cancelling @cancellable (any thread) answers %G_IO_ERROR_CANCELLED
 * promptly. A write answered TIMEOUT, CANCELLED or SESSION_EXPIRED after
 * it was sent may still be applied by the server.
 *
 * Threads: every function may be called from any thread; async callbacks
 * run once, in the GMainContext that was thread-default at the call, never
 * before the call returns. An object may be used by many operations at
 * once and unreffed while they run.
 * The #GAsyncResult of an async call has no source object (%NULL: zkr's
 * objects are not GObjects); pass yours to the callback in user_data.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/retry.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrAtomicLong:
 *
 * A distributed counter: opaque and reference-counted. An object may be
 * used by many operations at once and unreffed while they run.
 *
 * Since: 0.1
 */
typedef struct _ZkrAtomicLong ZkrAtomicLong;

/**
 * ZkrAtomicLongValue:
 * @succeeded: the change was made (a get always succeeds)
 * @pre_value: the value before (the value read, for a get)
 * @post_value: the value after, when @succeeded (else as @pre_value)
 * @optimistic_tries: reads-and-writes made in optimistic mode
 * @promoted_tries: those made holding the lock (promoted mode)
 *
 * What an operation did, as Curator's AtomicValue and AtomicStats.
 *
 * Since: 0.1
 */
typedef struct {
  gboolean succeeded;
  gint64 pre_value;
  gint64 post_value;
  guint optimistic_tries;
  guint promoted_tries;
} ZkrAtomicLongValue;

/**
 * zkr_atomic_long_new:
 * @session: the session (a reference is taken)
 * @path: the counter's node, under the session's namespace
 * @retry_policy: (nullable): how often optimism may retry after a lost
 *   race (a reference is taken); %NULL: exponential backoff from 1 ms to
 *   50 ms, 29 retries
 * @error: return location for a #GError, or %NULL
 *
 * Makes a counter in optimistic mode; nothing is sent.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming an invalid path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the counter;
 *   zkr_atomic_long_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrAtomicLong *zkr_atomic_long_new (ZkrSession *session, const char *path,
                                            ZkrRetryPolicy *retry_policy, GError **error);

/**
 * zkr_atomic_long_new_promoted:
 * @session: the session (a reference is taken)
 * @path: the counter's node, under the session's namespace
 * @retry_policy: (nullable): as zkr_atomic_long_new()
 * @lock_path: the mutex's path (Curator's PromotedToLock lockPath)
 * @max_lock_ms: how long to wait for the mutex (Curator's maxLockTime);
 *   negative: as long as the operation's deadline allows. Not getting it
 *   in time is @succeeded %FALSE, not an error.
 * @lock_retry_policy: (nullable): retries under the mutex (a reference is
 *   taken); %NULL: as @retry_policy's default
 * @error: return location for a #GError, or %NULL
 *
 * Makes a counter in promoted mode; nothing is sent.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming an invalid path or lock path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the counter;
 *   zkr_atomic_long_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrAtomicLong *zkr_atomic_long_new_promoted (ZkrSession *session, const char *path,
                                                     ZkrRetryPolicy *retry_policy,
                                                     const char *lock_path, int max_lock_ms,
                                                     ZkrRetryPolicy *lock_retry_policy,
                                                     GError **error);
/**
 * zkr_atomic_long_ref:
 * @atomic: a #ZkrAtomicLong
 *
 * Takes a reference on @atomic.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @atomic.
 *
 * Since: 0.1
 */
ZKR_API ZkrAtomicLong *zkr_atomic_long_ref (ZkrAtomicLong *atomic);
/**
 * zkr_atomic_long_unref:
 * @atomic: (transfer full): a #ZkrAtomicLong
 *
 * Drops a reference. Operations under way go on; their answers still
 * come.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_atomic_long_unref (ZkrAtomicLong *atomic);
/**
 * zkr_atomic_long_get_path:
 * @atomic: a #ZkrAtomicLong
 *
 * The counter's path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the path as given, valid while @atomic lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_atomic_long_get_path (ZkrAtomicLong *atomic);

/**
 * zkr_atomic_long_get:
 * @atomic: a #ZkrAtomicLong
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @value: (out caller-allocates) (optional): the value read (@succeeded %TRUE)
 * @error: return location for a #GError, or %NULL
 *
 * Reads the counter (a missing node reads 0). A read: retried within the
 * deadline as zkr/node.h says.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT (bad data on the node), %ZKR_ERROR_TIMEOUT,
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled,
 * %ZKR_ERROR_SESSION_EXPIRED, %ZKR_ERROR_SESSION_CLOSED, %ZKR_ERROR_AUTH,
 * %ZKR_ERROR_CONNECTION_LOSS.
 *
 * Thread: any thread; blocks it until the operation ran its course.
 *
 * Returns: %TRUE when @value was filled (@succeeded says whether the change
 *   was made); %FALSE with @error set on a runtime failure.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_get (ZkrAtomicLong *atomic, int timeout_ms,
                                      GCancellable *cancellable, ZkrAtomicLongValue *value,
                                      GError **error);
/**
 * zkr_atomic_long_get_async:
 * @atomic: a #ZkrAtomicLong
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_atomic_long_get(), GIO style; finish with zkr_atomic_long_get_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_atomic_long_get_async (ZkrAtomicLong *atomic, int timeout_ms,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_atomic_long_get_finish:
 * @atomic: a #ZkrAtomicLong
 * @result: the #GAsyncResult passed to the callback
 * @value: (out caller-allocates) (optional): the value read (@succeeded %TRUE)
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_atomic_long_get_async().
 *
 * Errors: those of zkr_atomic_long_get().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: as zkr_atomic_long_get().
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_get_finish (ZkrAtomicLong *atomic, GAsyncResult *result,
                                             ZkrAtomicLongValue *value, GError **error);

/**
 * zkr_atomic_long_set:
 * @atomic: a #ZkrAtomicLong
 * @new_value: the value to set
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @value: (out caller-allocates) (optional): what the operation did
 * @error: return location for a #GError, or %NULL
 *
 * Sets the counter to @new_value (Curator's trySet: optimistic, then
 * promoted), creating the node if missing.
 *
 * Errors: those of zkr_atomic_long_get(), %ZKR_ERROR_CONNECTION_LOSS (a write
 * whose fate is unknown, see above).
 *
 * Thread: any thread; blocks it until the operation ran its course.
 *
 * Returns: %TRUE when @value was filled (@succeeded says whether the change
 *   was made); %FALSE with @error set on a runtime failure.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_set (ZkrAtomicLong *atomic, gint64 new_value, int timeout_ms,
                                      GCancellable *cancellable, ZkrAtomicLongValue *value,
                                      GError **error);
/**
 * zkr_atomic_long_set_async:
 * @atomic: a #ZkrAtomicLong
 * @new_value: the value to set
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_atomic_long_set(), GIO style; finish with zkr_atomic_long_set_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_atomic_long_set_async (ZkrAtomicLong *atomic, gint64 new_value,
                                        int timeout_ms, GCancellable *cancellable,
                                        GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_atomic_long_set_finish:
 * @atomic: a #ZkrAtomicLong
 * @result: the #GAsyncResult passed to the callback
 * @value: (out caller-allocates) (optional): what the operation did
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_atomic_long_set_async().
 *
 * Errors: those of zkr_atomic_long_set().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: as zkr_atomic_long_set().
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_set_finish (ZkrAtomicLong *atomic, GAsyncResult *result,
                                             ZkrAtomicLongValue *value, GError **error);

/**
 * zkr_atomic_long_add:
 * @atomic: a #ZkrAtomicLong
 * @delta: what to add (may be negative)
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @value: (out caller-allocates) (optional): what the operation did
 * @error: return location for a #GError, or %NULL
 *
 * Adds @delta (Curator's add: @post_value = @pre_value + @delta, wrapping),
 * optimistic then promoted; a missing node counts from 0.
 *
 * Errors: those of zkr_atomic_long_set().
 *
 * Thread: any thread; blocks it until the operation ran its course.
 *
 * Returns: %TRUE when @value was filled (@succeeded says whether the change
 *   was made); %FALSE with @error set on a runtime failure.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_add (ZkrAtomicLong *atomic, gint64 delta, int timeout_ms,
                                      GCancellable *cancellable, ZkrAtomicLongValue *value,
                                      GError **error);
/**
 * zkr_atomic_long_add_async:
 * @atomic: a #ZkrAtomicLong
 * @delta: what to add (may be negative)
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_atomic_long_add(), GIO style; finish with zkr_atomic_long_add_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_atomic_long_add_async (ZkrAtomicLong *atomic, gint64 delta, int timeout_ms,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback, gpointer user_data);
/**
 * zkr_atomic_long_add_finish:
 * @atomic: a #ZkrAtomicLong
 * @result: the #GAsyncResult passed to the callback
 * @value: (out caller-allocates) (optional): what the operation did
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_atomic_long_add_async().
 *
 * Errors: those of zkr_atomic_long_add().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: as zkr_atomic_long_add().
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_add_finish (ZkrAtomicLong *atomic, GAsyncResult *result,
                                             ZkrAtomicLongValue *value, GError **error);

/**
 * zkr_atomic_long_increment:
 * @atomic: a #ZkrAtomicLong
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @value: (out caller-allocates) (optional): what the operation did
 * @error: return location for a #GError, or %NULL
 *
 * zkr_atomic_long_add() of 1 (Curator's increment).
 *
 * Errors: those of zkr_atomic_long_add().
 *
 * Thread: any thread; blocks it until the operation ran its course.
 *
 * Returns: as zkr_atomic_long_add().
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_increment (ZkrAtomicLong *atomic, int timeout_ms,
                                            GCancellable *cancellable,
                                            ZkrAtomicLongValue *value, GError **error);
/**
 * zkr_atomic_long_increment_async:
 * @atomic: a #ZkrAtomicLong
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_atomic_long_increment(), GIO style; finish with zkr_atomic_long_add_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_atomic_long_increment_async (ZkrAtomicLong *atomic, int timeout_ms,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data);
/**
 * zkr_atomic_long_decrement:
 * @atomic: a #ZkrAtomicLong
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @value: (out caller-allocates) (optional): what the operation did
 * @error: return location for a #GError, or %NULL
 *
 * zkr_atomic_long_add() of -1 (Curator's decrement).
 *
 * Errors: those of zkr_atomic_long_add().
 *
 * Thread: any thread; blocks it until the operation ran its course.
 *
 * Returns: as zkr_atomic_long_add().
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_decrement (ZkrAtomicLong *atomic, int timeout_ms,
                                            GCancellable *cancellable,
                                            ZkrAtomicLongValue *value, GError **error);
/**
 * zkr_atomic_long_decrement_async:
 * @atomic: a #ZkrAtomicLong
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_atomic_long_decrement(), GIO style; finish with zkr_atomic_long_add_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_atomic_long_decrement_async (ZkrAtomicLong *atomic, int timeout_ms,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data);

/**
 * zkr_atomic_long_compare_and_set:
 * @atomic: a #ZkrAtomicLong
 * @expected_value: the value the counter must hold
 * @new_value: the value to set
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @value: (out caller-allocates) (optional): what the operation did
 * @error: return location for a #GError, or %NULL
 *
 * Sets the counter to @new_value if it holds @expected_value: one read and
 * one write with the version read, no retry, no lock (Curator's
 * compareAndSet). A missing node is @succeeded %FALSE (as Curator).
 *
 * Errors: those of zkr_atomic_long_set().
 *
 * Thread: any thread; blocks it until the operation ran its course.
 *
 * Returns: %TRUE when @value was filled (@succeeded says whether the change
 *   was made); %FALSE with @error set on a runtime failure.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_compare_and_set (ZkrAtomicLong *atomic, gint64 expected_value,
                                                  gint64 new_value, int timeout_ms,
                                                  GCancellable *cancellable,
                                                  ZkrAtomicLongValue *value, GError **error);
/**
 * zkr_atomic_long_compare_and_set_async:
 * @atomic: a #ZkrAtomicLong
 * @expected_value: the value the counter must hold
 * @new_value: the value to set
 * @timeout_ms: the deadline of the whole operation (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async): called once with the answer
 * @user_data: (closure): data for @callback
 *
 * zkr_atomic_long_compare_and_set(), GIO style; finish with zkr_atomic_long_compare_and_set_finish().
 *
 * Thread: any thread; @callback runs once, in the GMainContext that is
 * thread-default now, never before this returns.
 *
 * Since: 0.1
 */
ZKR_API void zkr_atomic_long_compare_and_set_async (ZkrAtomicLong *atomic,
                                                    gint64 expected_value, gint64 new_value,
                                                    int timeout_ms, GCancellable *cancellable,
                                                    GAsyncReadyCallback callback,
                                                    gpointer user_data);
/**
 * zkr_atomic_long_compare_and_set_finish:
 * @atomic: a #ZkrAtomicLong
 * @result: the #GAsyncResult passed to the callback
 * @value: (out caller-allocates) (optional): what the operation did
 * @error: return location for a #GError, or %NULL
 *
 * Finishes zkr_atomic_long_compare_and_set_async().
 *
 * Errors: those of zkr_atomic_long_compare_and_set().
 *
 * Thread: any thread, typically in the callback.
 *
 * Returns: as zkr_atomic_long_compare_and_set().
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_atomic_long_compare_and_set_finish (ZkrAtomicLong *atomic,
                                                         GAsyncResult *result,
                                                         ZkrAtomicLongValue *value,
                                                         GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrAtomicLong, zkr_atomic_long_unref)

G_END_DECLS
