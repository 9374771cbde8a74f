/* zkr internal: what the recipes and the other core files may use of a
 * session. Everything here runs on, or posts to, the session's worker
 * thread: the one thread where zkr's ZooKeeper logic lives. */
#pragma once

#include <zookeeper/zookeeper.h>
#include <zkr/session.h>

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

/* The worker thread's context (transfer none). */
GMainContext *zkr_session_get_worker_context (ZkrSession *session);
gboolean zkr_session_in_worker (ZkrSession *session);

/* Runs @func(@data) on the worker thread, always later (never inside this
 * call), in posting order. @destroy runs after @func, or when the worker
 * stops with the item still queued. */
void zkr_session_post (ZkrSession *session,
                       GSourceFunc func,
                       gpointer data,
                       GDestroyNotify destroy);
/* The same, in the same order, without waking the worker: it runs with
 * the next post that does (every session event, answer and timer-driven
 * request does). Only for work that may wait until something else
 * happens. */
void zkr_session_post_quiet (ZkrSession *session,
                             GSourceFunc func,
                             gpointer data,
                             GDestroyNotify destroy);
/* Holds back the worker's posts until the matching release: they queue,
 * none runs (a batch already running finishes). A thread other than the
 * worker that queues a post and then sends requests whose replies that
 * post must see first (a blocking acquire sending its own create) holds
 * the posts around both; it must not wait for the worker meanwhile. Holds
 * nest. */
void zkr_session_post_hold (ZkrSession *session);
void zkr_session_post_release (ZkrSession *session);

/* Applies the namespace: "/a" -> "/ns/a". (transfer full) */
char *zkr_session_resolve_path (ZkrSession *session, const char *path);
const struct ACL_vector *zkr_session_get_acl_vector (ZkrSession *session);
ZkrRetryPolicy *zkr_session_get_retry_policy (ZkrSession *session);
const ZkrSessionOptions *zkr_session_get_options (ZkrSession *session);

/* The liveness clock advances to @send_time if that is later. Any thread. */
void zkr_session_note_answer (ZkrSession *session, gint64 send_time);
/* A request sent in session @session_id was answered "session expired":
 * the server no longer knows that session, even if the connection it came
 * on still answers reads (a connection whose session another client took
 * over and closed stays open on a follower). The worker declares it LOST
 * unless it already moved on. Any thread. */
void zkr_session_note_expired (ZkrSession *session, gint64 session_id);

/* Borrow the current handle under the session lock for one ZooKeeper call.
 * Returns NULL (and unlocks nothing) when there is no handle (closed, or
 * between LOST and the fresh session); otherwise the caller must call
 * zkr_session_unlock_handle() right after its zoo_a* call. */
zhandle_t *zkr_session_lock_handle (ZkrSession *session, gint64 *session_id);
void zkr_session_unlock_handle (ZkrSession *session);

/* Internal state listeners: called synchronously on the worker thread at
 * each transition, before the public listeners hear of it. Recipes use
 * them to react to SUSPENDED / LOST / RECONNECTED. */
guint zkr_session_add_internal_listener (ZkrSession *session,
                                         ZkrSessionStateFunc func,
                                         gpointer user_data);
void zkr_session_remove_internal_listener (ZkrSession *session, guint id);

/* Node watches. Data/child watches are set with the ops' @watch flag; their
 * events arrive here: every watch function registered for @path runs once
 * on the worker thread with the ZooKeeper event type, then is removed (as
 * ZooKeeper's one-shot watches are). Session events are not delivered here;
 * use an internal listener. */
typedef void (*ZkrWatchFunc) (ZkrSession *session,
                              int event_type,
                              const char *path,
                              gpointer user_data);
guint zkr_session_watch_add (ZkrSession *session,
                             const char *path,
                             ZkrWatchFunc func,
                             gpointer user_data);
void zkr_session_watch_remove (ZkrSession *session, guint id);

/* The count of guaranteed deletes still pending (see nodes.h). */
void zkr_session_pending_deletes_add (ZkrSession *session, int delta);

/* Test hooks. */
gboolean zkr_session_test_copy_client_id (ZkrSession *session, clientid_t *out);
/* Expires @session the standard way, from outside: a second handle opened
 * with its id and password on @hosts, then closed. TRUE when that handle
 * connected (the expiry then reaches @session shortly). For tests and the
 * demo; any thread but the worker. */
gboolean zkr_session_test_expire_once (ZkrSession *session, const char *hosts);
void zkr_session_test_drop_next_create_reply (ZkrSession *session);
gboolean zkr_session_test_take_drop_create_reply (ZkrSession *session);
/* Test hook: the next @count answers from the server (-1: every one, until
 * called again with 0) are replaced by @rc: ZSESSIONEXPIRED as the leader
 * answers a connection whose session was closed while a follower kept it
 * open; ZTHROTTLEDOP as a server shedding load. */
void zkr_session_test_rewrite_answers (ZkrSession *session, int rc, int count);
gboolean zkr_session_test_take_rewrite (ZkrSession *session, int *rc);
guint zkr_session_test_count_rewritten (ZkrSession *session);

G_END_DECLS
