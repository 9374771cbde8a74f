/* zkr internal: ZooKeeper requests whose replies come back on the
 * session's worker thread. The completion thread only copies the reply and
 * posts it; no recipe code runs there, except a reply that may run in the
 * worker's place (ZKR_WAKE_IN_PLACE). The blocking twins (zkr__op_sync and
 * the *_sync calls) are the exception: their reply is handed to the
 * waiting thread right on the completion thread, and one that libzookeeper
 * drops when its handle closes is answered ZCLOSING. Every answered request
 * advances the session's liveness clock by its send time. */
#pragma once

#include <zookeeper/zookeeper.h>

#include "request-size.h"
#include "session-private.h"

G_BEGIN_DECLS

typedef struct {
  int rc;              /* ZooKeeper's return code */
  gint64 session_id;   /* the session the request was sent on (0: none,
                        * or the handle had not connected yet) */
  guint generation;    /* the handle it was sent on (0: none) */
  gint64 send_time;    /* g_get_monotonic_time() just before sending */
  gboolean has_stat;
  struct Stat stat;    /* create2, exists, get, set */
  char *path;          /* (nullable) create: the created path */
  GPtrArray *children; /* (nullable) get_children: names (char *), kept in
                        * the array's own storage and freed with it:
                        * never g_free() one yourself, copy one to keep
                        * it beyond the array, and never grow the array
                        * (add, insert, a larger size); sorting, removing
                        * and reordering its entries are fine */
  GBytes *data;        /* (nullable) get: the node's data */
  GArray *results;     /* (nullable) multi: one ZkrMultiResult per
                        * operation, in order, when the server answered */
  gsize request_size;  /* ZKR_ZK_REQUEST_TOO_LARGE (error-private.h): the
                        * refused request's size in bytes */
} ZkrReply;

/* One operation of a multi (zkr__op_multi). Paths are full paths. */
typedef enum {
  ZKR_MULTI_CREATE,
  ZKR_MULTI_SET,
  ZKR_MULTI_DELETE,
  ZKR_MULTI_CHECK,
} ZkrMultiKind;

typedef struct {
  ZkrMultiKind kind;
  const char *path;
  const char *data;    /* (nullable) create, set */
  int len;
  int flags;           /* create: ZooKeeper's create flags */
  int version;         /* set, delete, check: expected version, -1 any */
} ZkrMultiOp;

/* What the server said of one operation of a multi. All or nothing: when
 * one failed, it carries its code and the others ZOK (before it) or
 * ZRUNTIMEINCONSISTENCY (after it), and nothing was applied. */
typedef struct {
  int rc;
  char *path;          /* (owned) (nullable) a create's created path */
  gboolean has_stat;
  struct Stat stat;    /* a set's new stat */
} ZkrMultiResult;

/* Runs on the worker thread, exactly once per request, never inside the
 * call that sent it. @reply is borrowed for the call's duration. */
typedef void (*ZkrReplyFunc) (ZkrSession *session, ZkrReply *reply, gpointer user_data);

/* When the reply wakes the worker, and where it runs (flags). A request
 * whose success needs no action until something else happens (a watch set
 * ahead of its event; a create with a listing sent right behind it, whose
 * reply comes next) saves a wake-up with ZKR_WAKE_ON_ERROR: a ZOK reply
 * then runs, in order, with the next reply or event that does wake it.
 * With ZKR_WAKE_IN_PLACE a ZOK reply may run on the completion thread it
 * arrives on, in the worker's place (zkr__session_post_in_place: the
 * reply function must keep that function's rules while
 * zkr__session_in_place() is TRUE); any other reply runs as usual. */
typedef enum {
  ZKR_WAKE_ALWAYS = 0,
  ZKR_WAKE_ON_ERROR = 1 << 0,
  ZKR_WAKE_IN_PLACE = 1 << 1,
  /* Not a wake, but the reply's shape, for a get: its ZOK reply carries
   * no data (reply.data NULL), only the stat. For reads made for their
   * watch or stat (a lock waiter's get on the node it waits on, on its
   * own node): the data is not copied off the completion thread. */
  ZKR_REPLY_STAT_ONLY = 1 << 2,
} ZkrWake;

/* The one door: every request below leaves through one function that
 * first counts its size on the wire (zkr__request_size: the path as
 * libzookeeper sends it, with the chroot; the data; the ACL sent; a
 * multi's every operation) and refuses one over ZooKeeper's limit
 * (ZKR_NODE_MAX_REQUEST_SIZE, its default jute.maxbuffer, which the server
 * answers by closing the connection): nothing is sent, and the reply is
 * ZKR_ZK_REQUEST_TOO_LARGE with the size in request_size, on the worker as
 * any reply. The public calls check the same count at their start
 * (zkr__op_request_size), so that their error comes before anything is
 * queued; the door is the guarantee for everything else. */

/* The size of the request made of @parts (a create's NULL acl: the
 * session's) as the senders below would send it on @session. Any thread. */
gsize zkr__op_request_size (ZkrSession *session, const ZkrRequestPart *parts, guint n_parts,
                            gboolean multi);
/* The same for zkr__op_multi (@session, @ops, @count). */
gsize zkr__op_multi_size (ZkrSession *session, const ZkrMultiOp *ops, guint count);

/* Paths are full ZooKeeper paths (namespace already applied). With @watch,
 * a data (get, exists) or child (get_children) watch is left through the
 * session's watcher; register interest with zkr__watches_add(). The
 * session's ACL is used for creates. @path and @data are borrowed: the
 * request is written out before the call returns. */
void zkr__op_create (ZkrSession *session, const char *path, const char *data, int len,
                     int flags, ZkrReplyFunc func, gpointer user_data);
/* A create with an ACL of its own (@acl nullable: the session's; borrowed,
 * written out before the call returns) and, for the TTL modes
 * (ZOO_PERSISTENT_WITH_TTL, ZOO_PERSISTENT_SEQUENTIAL_WITH_TTL), a @ttl_ms
 * > 0 (else -1). */
void zkr__op_create_ext (ZkrSession *session, const char *path, const char *data, int len,
                         int flags, const struct ACL_vector *acl, gint64 ttl_ms, ZkrWake wake,
                         ZkrReplyFunc func, gpointer user_data);
/* ZooKeeper's multi: @ops (borrowed, written out before the call returns)
 * applied all or nothing, in one request; creates use the session's ACL.
 * The reply's rc is ZOK when all were applied, else the first failed
 * operation's code; reply->results says which (see ZkrMultiResult). */
void zkr__op_multi (ZkrSession *session, const ZkrMultiOp *ops, guint count, ZkrWake wake,
                    ZkrReplyFunc func, gpointer user_data);
void zkr__op_delete (ZkrSession *session, const char *path, int version,
                     ZkrReplyFunc func, gpointer user_data);
void zkr__op_exists (ZkrSession *session, const char *path, gboolean watch,
                     ZkrReplyFunc func, gpointer user_data);
void zkr__op_get (ZkrSession *session, const char *path, gboolean watch,
                  ZkrReplyFunc func, gpointer user_data);


/* Answered watches: node watches (see zkr__watches_add) whose event
 * is answered with reads sent right from the thread it arrives on
 * (libzookeeper's completion thread, no turn held, nothing of the watch's
 * owner run there), their replies run on the worker. That saves the worker
 * a wake-up and each read a thread hop, where a plain watch would wake the
 * worker only for it to send the same reads. A removed watch's replies
 * never run it. The lock engine's listing watch and the caches' node
 * watches are the two kinds, on one mechanism (core/watches.c). */

/* The one-shot kind: the event sends a listing of @list_path's children,
 * and @func runs with the listing's reply (borrowed), then the watch is
 * gone. */
typedef void (*ZkrWatchListingFunc) (ZkrSession *session, int event_type, ZkrReply *listing,
                                     gpointer user_data);
guint zkr__watches_add_listing (ZkrSession *session, const char *path, const char *list_path,
                                      ZkrWatchListingFunc func, gpointer user_data);

typedef enum {
  ZKR_WATCH_READ_GET,
  ZKR_WATCH_READ_CHILDREN,
} ZkrWatchReadKind;

typedef struct {
  ZkrWatchReadKind kind;
  const char *path;  /* (nullable) the watch's own path */
  gboolean watch;    /* with ZooKeeper's watch flag: sets the server's
                      * watch again, as the read's reply is read */
} ZkrWatchRead;

/* @index: which of the watch's reads @reply (borrowed) answers. */
typedef void (*ZkrWatchReadFunc) (ZkrSession *session, int event_type, guint index,
                                  ZkrReply *reply, gpointer user_data);
/* The persistent kind: every event on @path (any type) that reaches the
 * completion thread while it is registered sends @reads (@n_reads > 0,
 * copied), in order, and @func runs with each one's reply, in that order,
 * sent with @wake (so with ZKR_WAKE_IN_PLACE, @func keeps the rules of
 * zkr__session_post_in_place() while zkr__session_in_place() is TRUE). An
 * event posted before the watch was registered does not fire it:
 * register it before the first read that sets the server's watch, which
 * tells what such an event would. It stays until removed, which only the
 * thread holding the turn may do (where its replies run: none can be
 * running then); @destroy (nullable) runs on @user_data then, or when the
 * session is freed. */
guint zkr__watches_add_reads (ZkrSession *session, const char *path,
                                    const ZkrWatchRead *reads, guint n_reads, ZkrWake wake,
                                    ZkrWatchReadFunc func, gpointer user_data,
                                    GDestroyNotify destroy);

void zkr__op_get_full (ZkrSession *session, const char *path, gboolean watch, ZkrWake wake,
                       ZkrReplyFunc func, gpointer user_data);
void zkr__op_create_full (ZkrSession *session, const char *path, const char *data, int len,
                          int flags, ZkrWake wake, ZkrReplyFunc func, gpointer user_data);
void zkr__op_get_children (ZkrSession *session, const char *path, gboolean watch,
                           ZkrReplyFunc func, gpointer user_data);
void zkr__op_get_children_full (ZkrSession *session, const char *path, gboolean watch,
                                ZkrWake wake, ZkrReplyFunc func, gpointer user_data);
/* get_children with the parent's stat from the same read (has_stat). */
void zkr__op_get_children2 (ZkrSession *session, const char *path, gboolean watch, ZkrWake wake,
                            ZkrReplyFunc func, gpointer user_data);
/* The same with a ZkrWake (above), for replies that may run in place. */
void zkr__op_set_full (ZkrSession *session, const char *path, const char *data, int len,
                       int version, ZkrWake wake, ZkrReplyFunc func, gpointer user_data);
void zkr__op_delete_full (ZkrSession *session, const char *path, int version, ZkrWake wake,
                          ZkrReplyFunc func, gpointer user_data);
void zkr__op_exists_full (ZkrSession *session, const char *path, gboolean watch, ZkrWake wake,
                          ZkrReplyFunc func, gpointer user_data);
void zkr__op_set (ZkrSession *session, const char *path, const char *data, int len,
                  int version, ZkrReplyFunc func, gpointer user_data);
/* ZooKeeper's sync: the server we are connected to catches up with the
 * leader on @path, so that a read sent after it sees every write committed
 * before it, whichever session made them. */
void zkr__op_sync_path (ZkrSession *session, const char *path, ZkrReplyFunc func,
                        gpointer user_data);

/* Blocking twin for callers that are NOT on the worker thread (release,
 * verify, tests): sends through @send and waits for the reply, which is
 * copied into @out (free with zkr__op_reply_clear()). Returns the reply's rc;
 * always returns, also when the handle is closed meanwhile. */
typedef void (*ZkrSendFunc) (ZkrSession *session, ZkrReplyFunc func, gpointer user_data,
                             gpointer send_data);
int zkr__op_sync (ZkrSession *session, ZkrSendFunc send, gpointer send_data, ZkrReply *out);
void zkr__op_reply_clear (ZkrReply *reply);

/* Right after zookeeper_close(@zh) returned (any thread: the worker, or
 * the thread closing an old handle after LOST): completes the calls sent
 * on @zh, the handle of @generation, that libzookeeper dropped. */
void zkr__op_handle_closed (ZkrSession *session, zhandle_t *zh, guint generation);
/* Tests: blocking requests of @session sent and not yet answered. */
guint zkr__op_test_count_blocking (ZkrSession *session);

/* What a blocking call's ZkrSendFunc gets as its send_data. */
typedef struct {
  const char *path;
  const char *data;
  int len;
  int flags;
  int version;
} ZkrSyncArgs;

/* Convenience blocking calls built on zkr__op_sync(): the ones the library
 * uses (a release's delete, a verify's sync). */
int zkr__op_delete_sync (ZkrSession *session, const char *path, int version);
int zkr__op_sync_path_sync (ZkrSession *session, const char *path);
/* The tests' own (core/op-test.c, in the test hooks library only:
 * never call them from the library). */
int zkr__op_test_create (ZkrSession *session, const char *path, const char *data, int len,
                         int flags, char **created_path, struct Stat *stat);
int zkr__op_test_exists (ZkrSession *session, const char *path, struct Stat *stat);
int zkr__op_test_set (ZkrSession *session, const char *path, const char *data, int len);
int zkr__op_test_get (ZkrSession *session, const char *path, GBytes **data, struct Stat *stat);
int zkr__op_test_get_children (ZkrSession *session, const char *path, GPtrArray **children);

/* A copy of @len bytes of @data (nullable) with a NUL after them, for
 * requests that outlive the caller's buffer; NULL for NULL. */
char *zkr__op_buffer_dup (const char *data, int len);

G_END_DECLS
