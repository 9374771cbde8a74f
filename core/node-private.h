/* zkr internal: one public node operation (include/zkr/node.h) in flight,
 * shared by core/node.c (the public calls: input checks, tasks, results)
 * and core/node-op.c (the request on the worker: deadline, cancel, session
 * states, retries, the answer). */
#pragma once

#include <gio/gio.h>
#include <zkr/node.h>

G_BEGIN_DECLS

typedef enum {
  ZKR_NODE_CREATE,
  ZKR_NODE_GET,
  ZKR_NODE_SET,
  ZKR_NODE_DELETE,
  ZKR_NODE_EXISTS,
  ZKR_NODE_CHILDREN,
} ZkrNodeKind;

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
} ZkrNodeRequest;

/* A successful answer, the GTask's pointer result. */
typedef struct {
  char *created_path;      /* (owned) create, without the namespace */
  GBytes *data;            /* (owned) get */
  char **children;         /* (owned) get_children, sorted */
  gboolean exists;         /* exists */
  gboolean has_stat;
  ZkrStat stat;
} ZkrNodeResult;

void zkr__node_result_free (ZkrNodeResult *result);

/* The operation's name for messages: "create", "get", ... */
const char *zkr__node_kind_name (ZkrNodeKind kind);

/* Starts @request on @session and answers @task (owned: taken) once, in
 * the task's context, with a ZkrNodeResult or a ZKR_ERROR: the deadline
 * timer and @cancellable are armed before this returns (the caller stands
 * in for the worker for that). Any thread but one running session code. */
void zkr__node_op_start (ZkrSession *session, const ZkrNodeRequest *request,
                         int timeout_ms, GCancellable *cancellable, GTask *task);

G_END_DECLS
