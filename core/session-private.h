/* zkr internal: what the recipes and the other core files may use of a
 * session. Everything here runs on, or posts to, the session's worker
 * thread: the one thread where zkr's ZooKeeper logic lives. */
#pragma once

#include <zookeeper/zookeeper.h>
#include <zkr/session.h>

#include "wait.h"

G_BEGIN_DECLS

struct _ZkrSessionOptions {
  char *hosts;               /* (owned) connect string, maybe with chroot */
  int session_timeout_ms;
  int connection_timeout_ms;
  ZkrRetryPolicy *retry;     /* (owned) */
  char *name_space;          /* (owned) (nullable) */
  char *auth_user;           /* (owned) (nullable) */
  char *auth_password;       /* (owned) (nullable); never logged */
  ZkrAclMode acl;
  char *client_id;           /* (owned) */
  double drift;
  int margin_ms;             /* -1: min(T/10, 1000 ms) */
};

/* Waits up to @timeout_ms for every session made so far to be freed
 * (after its last unref, a session closes and is freed on its worker):
 * TRUE once none is left. For the tests, before they check for leaks and
 * leftover nodes. Any thread but a session's worker. */
gboolean zkr__session_wait_all_freed (int timeout_ms);

/* The worker thread's context (transfer none). */
GMainContext *zkr__session_get_worker_context (ZkrSession *session);
gboolean zkr__session_in_worker (ZkrSession *session);

/* Runs @func(@data) on the worker thread, always later (never inside this
 * call), in posting order. @destroy runs after @func, or when the worker
 * stops with the item still queued. */
void zkr__session_post (ZkrSession *session,
                        GSourceFunc func,
                        gpointer data,
                        GDestroyNotify destroy);
/* The same, in the same order, without waking the worker: it runs with
 * the next post that does (every session event, answer and timer-driven
 * request does). Only for work that may wait until something else
 * happens. */
void zkr__session_post_quiet (ZkrSession *session,
                              GSourceFunc func,
                              gpointer data,
                              GDestroyNotify destroy);
/* Like zkr__session_post() (@wake TRUE) or zkr__session_post_quiet(),
 * except that @func may run in place: a waking post sent by this, from
 * libzookeeper's completion thread as a reply arrives, runs right there
 * in the worker's place (zkr__session_in_worker() and
 * zkr__session_in_place() are TRUE then), together with everything queued
 * before it, when all of that may run in place and no other thread has
 * the turn. That saves waking a thread (the worker, or a caller standing
 * in) that would only send the next request. @func may run in place only
 * if, when zkr__session_in_place() is TRUE, it sends requests and changes
 * its own state but runs no user code, does not block and closes nothing:
 * what would, it posts. With @wake FALSE nothing runs here (any thread):
 * the post just does not hold back later ones from running in place. A
 * waking one never from a thread that caused the reply. */
void zkr__session_post_in_place (ZkrSession *session,
                                 GSourceFunc func,
                                 gpointer data,
                                 GDestroyNotify destroy,
                                 gboolean wake);
/* TRUE while this thread runs @session's posts in place (above). */
gboolean zkr__session_in_place (ZkrSession *session);
/* TRUE while this thread runs any session's code: it is a session's worker,
 * or stands in for one (zkr__session_stand_in_begin() to _end()), or runs
 * posts in place. User code (listeners, GTask callbacks, a GCancellable's
 * handlers) must never run then, and a GTask made then would capture the
 * wrong thread-default context (docs/design.md, "Threads and contexts";
 * zkr__context_assert_user() checks it). Any thread. */
gboolean zkr__session_code_running (void);
/* Takes the worker's turn: until the matching end, this thread runs in
 * the worker's place (zkr__session_in_worker() is TRUE here) and the worker
 * runs nothing. For a thread other than the worker that must queue a post
 * and send requests whose replies that post must see first (a blocking
 * acquire sending its own create). Not from the worker; does not nest; the
 * thread must not wait for the worker meanwhile. */
void zkr__session_stand_in_begin (ZkrSession *session);
void zkr__session_stand_in_end (ZkrSession *session);
/* Blocks until zkr__wait_done (@wait) like zkr__wait_block(), and
 * meanwhile runs the worker's posts in this thread when they need running
 * (taking the turn): a reply that ends the wait then wakes this thread
 * directly instead of the worker, which would then wake it. For waits that
 * the session's posts end (a blocking acquire). @deadline (monotonic µs;
 * G_MAXINT64: none) is the call's: the wait has it too, and once it passed
 * this thread runs the due timers itself (the call's deadline timer among
 * them) rather than count on the worker waking for them. From the worker
 * it is a plain zkr__wait_block(). Clears @wait like zkr__wait_block(). */
void zkr__session_block_standing_in (ZkrSession *session, ZkrWait *wait, gint64 deadline);

/* A one-shot timer (the executor's, which serves every timer of the
 * session's code) run by the worker between @delay_ms and @delay_ms +
 * @slack_ms from now (the return value of @func is ignored), unless
 * removed first. Unlike a GLib timeout attached from a stand-in, adding it
 * wakes the worker only when its latest time comes before the worker's
 * next wake-up anyway; a timer with slack runs with the first wake-up
 * after it is due. Worker thread or stand-in only; returns an id for
 * zkr__session_timer_remove(). Timers still pending when the session is
 * freed are dropped unrun. */
guint zkr__session_timer_add (ZkrSession *session, guint delay_ms, guint slack_ms,
                              GSourceFunc func, gpointer data);
/* The same, with @destroy (nullable) run on @data after @func, or when the
 * timer is removed or dropped unrun. */
guint zkr__session_timer_add_full (ZkrSession *session, guint delay_ms, guint slack_ms,
                                   GSourceFunc func, gpointer data, GDestroyNotify destroy);
void zkr__session_timer_remove (ZkrSession *session, guint id);
/* zkr__session_timer_remove (*@id) unless *@id is 0 (none, or it ran), and
 * sets *@id to 0: for an owner that keeps the id of its pending timer. */
void zkr__session_timer_clear (ZkrSession *session, guint *id);

/* Applies the namespace: "/a" -> "/ns/a". (transfer full) */
char *zkr__session_resolve_path (ZkrSession *session, const char *path);
const struct ACL_vector *zkr__session_get_acl_vector (ZkrSession *session);
/* The length of the connect string's chroot (0: none), which libzookeeper
 * puts in front of every path it sends. Read-only after new(): any thread. */
gsize zkr__session_get_chroot_len (ZkrSession *session);
ZkrRetryPolicy *zkr__session_get_retry_policy (ZkrSession *session);
const ZkrSessionOptions *zkr__session_get_options (ZkrSession *session);
/* Whether the session has a namespace (its paths get a prefix). Any thread. */
gboolean zkr__session_has_namespace (ZkrSession *session);

/* The liveness clock advances to @send_time if that is later. Any thread. */
void zkr__session_note_answer (ZkrSession *session, gint64 send_time);
/* A request sent on handle @generation (as zkr__session_handle_lock() gave
 * it) was answered "session expired": the server no longer knows the
 * handle's session, even if the connection it came on still answers reads
 * (a connection whose session another client took over and closed stays
 * open on a follower). The worker declares it LOST unless it already moved
 * on to another handle. The handle, not the session id, says which session
 * it was: a request sent between LOST and the fresh session's CONNECTED
 * goes out in the fresh one (@session_id 0: the handle had no session
 * yet). With @generation 0, @session_id alone decides (tests). Any
 * thread. */
void zkr__session_handle_note_expired (ZkrSession *session, gint64 session_id, guint generation);

/* Borrow the current handle under the session lock for one ZooKeeper call.
 * Returns NULL (and unlocks nothing) when there is no handle (closed, or
 * between LOST and the fresh session); otherwise the caller must call
 * zkr__session_handle_unlock() right after its zoo_a* call. */
zhandle_t *zkr__session_handle_lock (ZkrSession *session, gint64 *session_id,
                                     guint *generation);
void zkr__session_handle_unlock (ZkrSession *session);

/* Internal state listeners: called synchronously on the worker thread at
 * each transition, before the public listeners hear of it. Recipes use
 * them to react to SUSPENDED / LOST / RECONNECTED. */
guint zkr__session_add_internal_listener (ZkrSession *session,
                                          ZkrSessionStateFunc func,
                                          gpointer user_data);
void zkr__session_remove_internal_listener (ZkrSession *session, guint id);

/* Node watches. Data/child watches are set with the ops' @watch flag; their
 * events arrive here: every watch function registered for @path runs once
 * on the worker thread with the ZooKeeper event type, then is removed (as
 * ZooKeeper's one-shot watches are). Session events are not delivered here;
 * use an internal listener. */
typedef void (*ZkrWatchFunc) (ZkrSession *session,
                              int event_type,
                              const char *path,
                              gpointer user_data);
guint zkr__watches_add (ZkrSession *session,
                              const char *path,
                              ZkrWatchFunc func,
                              gpointer user_data);
/* The bit of ZooKeeper event type @type (ZOO_CREATED_EVENT, ...) in an
 * event mask. */
#define ZKR_WATCH_TYPE_BIT(type) ((type) > 0 && (type) < 32 ? 1u << (type) : 0u)
/* The same as zkr__watches_add(), but @func runs only for events
 * whose type is in @event_mask (0: any): an event of another type on
 * @path (a child event, for a data watch) leaves it registered, as the
 * server leaves its own data watch then. @destroy (nullable) runs on
 * @user_data once the watch is gone: after @func ran (worker), when it is
 * removed (the remover's thread, no session lock held), or when the
 * session is freed. */
guint zkr__watches_add_full (ZkrSession *session, const char *path, guint event_mask,
                                   ZkrWatchFunc func, gpointer user_data,
                                   GDestroyNotify destroy);
/* Any thread; an id already fired or removed is ignored. */
void zkr__watches_remove (ZkrSession *session, guint id);
/* A reference on @session, unless its last one already went (it is being
 * closed and freed: none of its users may hear of it any more); NULL then.
 * For deliveries of watch events to a user's context. Any thread. */
ZkrSession *zkr__session_try_ref (ZkrSession *session);

/* The count of guaranteed deletes still pending (see nodes.h). */
void zkr__session_pending_deletes_add (ZkrSession *session, int delta);

/* Test hooks. Defined in session-test.c, which only the tests and the
 * demo link (zkr_internal_dep), never libzkr; except the
 * zkr__session_test_take_* calls, which the library's requests consult. */
gboolean zkr__session_test_copy_client_id (ZkrSession *session, clientid_t *out);
/* Expires @session the standard way, from outside: a second handle opened
 * with its id and password on @hosts, then closed. TRUE when that handle
 * connected (the expiry then reaches @session shortly). For tests and the
 * demo; any thread but the worker. */
gboolean zkr__session_test_expire_once (ZkrSession *session, const char *hosts);
/* The next close of @session's handle takes @ms longer, as libzookeeper's
 * zookeeper_close() does when the server does not answer its closeSession
 * (a connection whose session another client took over and closed). */
void zkr__session_test_stall_next_close (ZkrSession *session, guint ms);
void zkr__session_test_drop_next_create_reply (ZkrSession *session);
gboolean zkr__session_test_take_drop_create_reply (ZkrSession *session);
/* The same for the next zkr__op_set()'s reply: the data set, the answer
 * CONNECTION_LOSS. */
void zkr__session_test_drop_next_set_reply (ZkrSession *session);
gboolean zkr__session_test_take_drop_set_reply (ZkrSession *session);
/* Whether the set-reply hook is still armed (no set's reply dropped yet),
 * without disarming it. */
gboolean zkr__session_test_drop_set_reply_armed (ZkrSession *session);
/* Test hook: the next @count answers from the server (-1: every one, until
 * called again with 0) are replaced by @rc: ZSESSIONEXPIRED as the leader
 * answers a connection whose session was closed while a follower kept it
 * open; ZTHROTTLEDOP as a server shedding load. */
void zkr__session_test_rewrite_answers (ZkrSession *session, int rc, int count);
/* The same for requests whose path starts with @prefix only (as the
 * requests see it: under the namespace, if any), so that the liveness
 * pings ("/") and other requests cannot take the count. */
void zkr__session_test_rewrite_answers_under (ZkrSession *session, const char *prefix, int rc,
                                              int count);
/* Whether a request on @path, being sent, may have its answer rewritten. */
gboolean zkr__session_test_rewrite_applies (ZkrSession *session, const char *path);
gboolean zkr__session_test_take_rewrite (ZkrSession *session, int *rc);
guint zkr__session_test_count_rewritten (ZkrSession *session);
/* Test hook: how many posts threads standing in ran so far. */
guint zkr__session_test_count_stand_in_posts (ZkrSession *session);
/* Test hook: how many posts ran in place (zkr__session_post_in_place). */
guint zkr__session_test_count_in_place_posts (ZkrSession *session);

G_END_DECLS
