/* zkr internal: one public node operation (include/zkr/node.h) in flight,
 * shared by core/node.c (the public calls: input checks, tasks, results)
 * and core/node-op.c (the request on the worker: deadline, cancel, session
 * states, retries, the answer). */
#pragma once

#include <gio/gio.h>
#include <zkr/node.h>
#include <zookeeper/zookeeper.h>

#include "call.h"
#include "ops.h"

G_BEGIN_DECLS

typedef enum {
  ZKR_NODE_CREATE,
  ZKR_NODE_GET,
  ZKR_NODE_SET,
  ZKR_NODE_DELETE,
  ZKR_NODE_EXISTS,
  ZKR_NODE_CHILDREN,
  ZKR_NODE_MULTI,
  ZKR_NODE_SYNC,
} ZkrNodeKind;

/* A read that leaves a watch (core/watch.c): runs on the worker with the
 * read's successful reply (for exists, a missing node too), before the
 * answer is posted. Replies and node events reach the worker in the
 * order the server sent them, so an event that follows the read is
 * dispatched after this: registered here, a watch misses none and hears
 * none from before its read. Not called when the read fails. */
typedef void (*ZkrNodeWatchArmed) (ZkrSession *session, gpointer watch_data);

/* What a call asks for; checked by node.c before it gets here. Borrowed
 * for zkr__node_op_start()'s duration (copied). */
typedef struct {
  ZkrNodeKind kind;
  const char *path;        /* the user's path (without the namespace) */
  const void *data;        /* (nullable) create, set */
  gsize len;
  int zk_flags;            /* create: ZooKeeper's create flags */
  ZkrCreateParents parents;
  int version;             /* set, delete */
  const ZkrMultiOp *multi; /* multi: the operations, full paths (the
                            * caller applies the namespace; copied, as
                            * the rest) */
  guint multi_count;
  /* (nullable) get, exists, get_children: sent with ZooKeeper's watch
   * flag; @watch_data is the caller's, kept alive until the answer */
  ZkrNodeWatchArmed watch_armed;
  gpointer watch_data;
  /* create */
  const ZkrAclEntry *acl;  /* (nullable) checked; NULL: the session's */
  guint n_acl;
  gint64 ttl_ms;           /* a TTL mode's, else 0 */
  gboolean protection;     /* the name gets "_c_<uuid>-" (Curator) */
  /* delete */
  ZkrDeleteFlags delete_flags;
} ZkrNodeRequest;

/* A successful answer, the call's result. */
typedef struct {
  char *created_path;      /* (owned) create, without the namespace */
  GBytes *data;            /* (owned) get */
  char **children;         /* (owned) get_children, sorted */
  gboolean exists;         /* exists */
  gboolean has_stat;
  ZkrStat stat;
  /* multi: answered as a result whenever the server answered, applied or
   * not: the code (ZOK, or the first failed operation's) and a
   * ZkrMultiResult per operation (paths with the namespace), for the
   * caller to take apart (core/txn.c). */
  int multi_rc;
  GArray *multi_results;   /* (owned) */
  /* The operation the result lives in (core/node-op.c), held by it:
   * zkr__node_result_free() drops that reference instead of freeing the
   * struct. NULL for a result allocated on its own. */
  gpointer owner;
  GDestroyNotify owner_unref;
} ZkrNodeResult;

/* Frees what @result owns, and @result itself (or drops its owner). */
void zkr__node_result_free (ZkrNodeResult *result);

/* The operation's name for messages: "create", "get", ... */
const char *zkr__node_kind_name (ZkrNodeKind kind);

/* Input checks shared by the node calls and the transactions: FALSE and a
 * ZKR_ERROR_INVALID_ARGUMENT naming the value. A sequential create's path
 * may end in '/'. */
gboolean zkr__node_check_path (const char *path, ZkrNodeKind kind, gboolean sequential,
                               GError **error);
gboolean zkr__node_check_data (const void *data, gsize len, GError **error);
gboolean zkr__node_check_version (int version, GError **error);
/* FALSE and a ZKR_ERROR_INVALID_ARGUMENT naming its size when the request
 * would be over ZooKeeper's limit (ZKR_NODE_MAX_REQUEST_SIZE): a create
 * with @options (as zkr_node_create_full() takes them, checked; a
 * protected create's longer name counted) or, @options NULL, a set, of
 * @len bytes at @path (the user's: the session's namespace is added).
 * The op door's count (zkr__op_request_size), for calls and recipes that
 * refuse at their start; @op names the call in the message. Any thread. */
gboolean zkr__node_check_request_size (ZkrSession *session, const char *op, const char *path,
                                       gsize len, const ZkrCreateOptions *options,
                                       GError **error);
/* A mode that needs no TTL (the transactions' modes: their multi has no
 * TTL); a TTL mode is refused, named. */
gboolean zkr__node_check_mode (ZkrCreateMode mode, GError **error);
gboolean zkr__node_mode_is_sequential (ZkrCreateMode mode);
/* ZooKeeper's create flags for @mode. */
int zkr__node_mode_flags (ZkrCreateMode mode);

/* An ACL as libzookeeper takes it, deep-copied from checked @entries.
 * (transfer full): free with zkr__node_acl_free(). */
struct ACL_vector *zkr__node_acl_new (const ZkrAclEntry *entries, guint n_entries);
void zkr__node_acl_free (struct ACL_vector *acl);

/* The server's Stat as a ZkrStat. */
void zkr__node_result_stat_copy (ZkrStat *out, const struct Stat *stat);
/* "/ns/a/b" -> "/a/b" under namespace "ns". (transfer full) */
char *zkr__node_result_strip_namespace (ZkrSession *session, const char *full);
/* Fills @result (empty) for a @kind call on @path (full) from its ZOK
 * reply (or exists' ZNONODE), taking what @reply holds where it can. */
void zkr__node_result_fill (ZkrNodeResult *result, ZkrSession *session, ZkrNodeKind kind,
                            const char *path, ZkrReply *reply);

/* Starts @request on @session and answers @call (owned: taken) once, in
 * the call's context, with a ZkrNodeResult or a ZKR_ERROR: the deadline
 * timer and @cancellable are armed before this returns (the caller stands
 * in for the worker for that). Any thread but one running session code. */
void zkr__node_op_start (ZkrSession *session, const ZkrNodeRequest *request,
                         int timeout_ms, GCancellable *cancellable, ZkrCall *call);

/* ---- the recursive delete (core/node-tree.c) ----------------------- */

typedef struct _ZkrNodeTree ZkrNodeTree;
/* @rc: ZOK (the tree is gone), ZNONODE (@path was missing before anything
 * was deleted), ZCLOSING (the session closed), or the server's refusal
 * (ZBADVERSION of @path, ZNOAUTH, ...). */
typedef void (*ZkrNodeTreeFunc) (ZkrSession *session, int rc, gpointer user_data);

/* Deletes @path (full: namespace applied) and everything under it, the
 * deepest first, one request at a time; @version applies to @path only.
 * A retryable answer waits for the session to be connected (or, still
 * connected, a resend pause) and goes on where it was. Worker or
 * stand-in; @func runs once on the worker, never inside this call,
 * unless the walk is released first. */
ZkrNodeTree *zkr__node_tree_delete (ZkrSession *session, const char *path, int version,
                                    ZkrNodeTreeFunc func, gpointer user_data);
/* The owner lets the walk go: @func will not run. With @finish the walk
 * goes on in the background until the tree is gone, across LOST, until
 * CLOSED (Curator's guaranteed delete; counted in the session's pending
 * deletes); else it stops at its next reply. Worker or stand-in. */
void zkr__node_tree_release (ZkrNodeTree *tree, gboolean finish);

G_END_DECLS
