/* zkr: a public node operation on the session's worker (docs/design.md
 * §5): armed before the call returns, one request in flight at a time,
 * answered exactly once by whichever comes first (the reply, the deadline,
 * the cancel, LOST or CLOSED), reads retried with the session's policy,
 * and a reply that comes after the answer dropped. */

#include <string.h>

#include "armed.h"
#include "context.h"
#include "error-private.h"
#include "log.h"
#include "node-private.h"
#include "nodename.h"
#include "nodes.h"
#include "ops.h"
#include "path.h"
#include "session-private.h"

/* A request's ZOK reply may run in place, on the completion thread it
 * arrives on, when the worker is idle (docs/design.md §1.2): op_reply then
 * only changes the operation's state, sends (a retry, the next step) and
 * posts the answer to the caller's context, where the user's callback runs:
 * one hand-off per answer instead of two. */
#define OP_WAKE ZKR_WAKE_IN_PLACE

/* How often a create with parents creates them again: a container parent
 * may be reaped between its create and ours (as in nodes.h). */
#define OP_MAX_PARENT_ROUNDS 5

/* Where an operation is, changed only by op_set_step(). Worker-side
 * state: read and changed by whichever thread holds the session's turn. */
typedef enum {
  OP_STARTING,   /* made; its start has not run yet */
  OP_WAITING,    /* for (RE)CONNECTED before sending */
  OP_SENT,       /* the request in flight */
  OP_PAUSED,     /* a retry's sleep (a read, a protected create, a parent) */
  OP_PARENTS,    /* a create's missing ancestors being created */
  OP_ANSWERED,   /* detached and answered; replies still due are dropped */
} OpStep;

static const char *const op_step_names[] = {
  [OP_STARTING] = "STARTING", [OP_WAITING] = "WAITING", [OP_SENT] = "SENT",
  [OP_PAUSED] = "PAUSED",     [OP_PARENTS] = "PARENTS", [OP_ANSWERED] = "ANSWERED",
};

typedef struct {
  gatomicrefcount ref;       /* the caller's start, what op_start arms (until
                              * the answer), each request in flight, each
                              * post of the cancel handler, the result
                              * while handed out */
  ZkrSession *session;       /* owned until answered: the answer carries the
                              * reference to the user's context, so the last
                              * unref never comes from session code; never
                              * used after the answer */
  ZkrNodeKind kind;
  char *user_path;           /* (owned unless it is @path or
                              * @inline_path: no namespace) */
  char *path;                /* namespace applied (owned unless it is
                              * @inline_path) */
  char *inline_path;         /* (nullable) the path's copy behind the
                              * struct, in its allocation */
  char *data;                /* (nullable) create, set: kept behind the
                              * struct, in its allocation */
  int len;
  int zk_flags;
  ZkrCreateParents parents;
  int version;
  ZkrNodeWatchArmed watch_armed; /* (nullable) a read leaving a watch */
  gpointer watch_data;
  ZkrMultiOp *multi;         /* (owned) multi: full paths (the caller
                              * applied the namespace), each path and
                              * data owned */
  guint multi_count;
  struct ACL_vector *acl;    /* (owned) (nullable) create: NULL for the
                              * session's */
  gint64 ttl_ms;             /* create: a TTL mode's, else 0 */
  /* A protected create (Curator's withProtection): @path carries
   * "_c_<uuid>-"; a create whose reply was lost is found again by it. */
  gboolean protection;
  char *protected_id;        /* (owned) the uuid */
  char *protected_parent;    /* (owned) full path */
  char *adopt_path;          /* (owned) (nullable) our node, found */
  gboolean needs_recovery;   /* a create's outcome is unknown: look first */
  gboolean maybe_created;    /* a node of ours may exist on the server */
  gboolean create_in_flight; /* the create itself is out (its reply will
                              * clean up after an answer given meanwhile) */
  ZkrDeleteFlags delete_flags;
  ZkrNodeTree *tree;         /* (nullable) a recursive delete's walk */
  gboolean accepted;         /* past the start's checks: work may be done */
  gint64 deadline;           /* monotonic µs; G_MAXINT64: none */
  gboolean try_once;         /* timeout 0: one send, no wait, no retry */
  GCancellable *cancellable; /* (owned) (nullable) */
  ZkrArmed armed;            /* the deadline, the cancel, the state listener */
  guint retry_timer;
  guint retries;
  gint64 first_send;         /* monotonic µs, 0 before the first send */
  guint parent_rounds;
  char **ancestors;          /* (owned) (nullable) while creating parents */
  guint next_ancestor;
  OpStep step;
  gboolean log_steps;        /* the debug log was on at the start */
  ZkrCall *call;             /* (owned) until answered */
  /* The answer's result lives here (one allocation less per call, freed
   * where the caller frees the result): while handed out it holds a
   * reference to the operation (zkr__node_result_free() drops it). */
  ZkrNodeResult result;
} NodeOp;

static NodeOp *
op_ref (NodeOp *op)
{
  g_atomic_ref_count_inc (&op->ref);
  return op;
}

/* The last one may come on the worker: nothing here runs user code (the
 * call and the session went with the answer). */
static void
op_unref (gpointer data)
{
  NodeOp *op = data;

  if (!g_atomic_ref_count_dec (&op->ref))
    return;
  g_warn_if_fail (op->call == NULL);
  g_clear_object (&op->cancellable);
  g_strfreev (op->ancestors);
  zkr__node_acl_free (op->acl);
  g_free (op->protected_id);
  g_free (op->protected_parent);
  g_free (op->adopt_path);
  if (op->user_path != op->path && op->user_path != op->inline_path)
    g_free (op->user_path);
  if (op->path != op->inline_path)
    g_free (op->path);
  for (guint i = 0; i < op->multi_count; i++)
    {
      g_free ((char *) op->multi[i].path);
      g_free ((char *) op->multi[i].data);
    }
  g_free (op->multi);
  g_free (op);
}

static gboolean
op_step_allowed (OpStep from, OpStep to)
{
  switch (to)
    {
    case OP_WAITING:
      return from == OP_STARTING || from == OP_SENT || from == OP_PAUSED ||
             from == OP_PARENTS;
    case OP_SENT:
      return from == OP_STARTING || from == OP_WAITING || from == OP_PAUSED ||
             from == OP_PARENTS;
    case OP_PAUSED:
      return from == OP_SENT || from == OP_PARENTS;
    case OP_PARENTS:
      /* From WAITING and PAUSED: the parents go on after a lost reply. */
      return from == OP_SENT || from == OP_WAITING || from == OP_PAUSED;
    case OP_ANSWERED:
      return from != OP_ANSWERED;
    case OP_STARTING:
    default:
      return FALSE;
    }
}

static void
op_set_step (NodeOp *op, OpStep to)
{
  if (op->step == to)
    return;
  if (!op_step_allowed (op->step, to))
    {
      g_critical ("%s %s: refused %s -> %s", zkr__node_kind_name (op->kind), op->user_path,
                  op_step_names[op->step], op_step_names[to]);
      return;
    }
  if (op->log_steps)
    g_debug ("%s %s: %s -> %s", zkr__node_kind_name (op->kind), op->user_path,
             op_step_names[op->step], op_step_names[to]);
  op->step = to;
}

static gboolean
op_is_read (const NodeOp *op)
{
  return op->kind == ZKR_NODE_GET || op->kind == ZKR_NODE_EXISTS ||
         op->kind == ZKR_NODE_CHILDREN || op->kind == ZKR_NODE_SYNC;
}

/* What a failed call leaves to the background. A protected create: the
 * node it made or may have made (unless the create is still out: its
 * reply decides). A guaranteed delete whose outcome is unknown: the
 * delete, until confirmed. A walk not guaranteed: stopped. Worker or
 * stand-in, before the answer (the session is still ours). */
static void
op_leave_behind (NodeOp *op, const GError *error)
{
  gboolean unknown = error != NULL && op->accepted &&
                     (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
                      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT) ||
                      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS) ||
                      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED) ||
                      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_MOVED));
  gboolean guaranteed = (op->delete_flags & ZKR_DELETE_GUARANTEED) && unknown;

  if (op->protection && error != NULL && op->maybe_created && !op->create_in_flight)
    zkr__guaranteed_delete_protected (op->session, op->protected_parent, op->protected_id);
  if (op->tree != NULL)
    zkr__node_tree_release (g_steal_pointer (&op->tree), guaranteed);
  else if (guaranteed && (op->delete_flags & ZKR_DELETE_CHILDREN))
    zkr__node_tree_release (zkr__node_tree_delete (op->session, op->path, -1, NULL, NULL), TRUE);
  else if (guaranteed)
    zkr__guaranteed_delete (op->session, op->path, NULL, NULL);
}

/* ---- the answer ---------------------------------------------------- */

/* Stops everything that can call back into @op but the request in flight
 * (whose reply is dropped: it holds a reference). */
static void
op_detach (NodeOp *op)
{
  zkr__armed_detach (&op->armed);
  zkr__session_timer_clear (op->session, &op->retry_timer);
}

/* The one way out, at most once: takes @error or @result. Worker or
 * stand-in; the answer runs later, in the call's context. */
static void
op_answer (NodeOp *op, GError *error, ZkrNodeResult *result)
{
  ZkrCall *call;

  if (op->step == OP_ANSWERED)
    {
      g_clear_error (&error);
      g_clear_pointer (&result, zkr__node_result_free);
      return;
    }
  op_set_step (op, OP_ANSWERED);
  op_detach (op);
  op_leave_behind (op, error);
  call = g_steal_pointer (&op->call);
  /* Our reference to the session, handed over: it goes in the caller's
   * context, after the callback. */
  zkr__call_hold_until_answered (call, op->session, (GDestroyNotify) zkr_session_unref);
  zkr__call_return (call, result, (GDestroyNotify) zkr__node_result_free, error);
  /* What op_start armed held this one; every caller of op_answer holds
   * one of its own (a request's, a post's, the start's), so @op outlives
   * this call. */
  op_unref (op);
}

/* @request_size: a ZKR_ZK_REQUEST_TOO_LARGE reply's, named in the error. */
static void
op_answer_reply_rc (NodeOp *op, int rc, gsize request_size)
{
  GError *error = NULL;

  if (op->step == OP_ANSWERED)
    return;
  if (rc == ZCLOSING || zkr_session_get_state (op->session) == ZKR_SESSION_STATE_CLOSED)
    g_set_error (&error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED, "%s %s: the session is closed",
                 zkr__node_kind_name (op->kind), op->user_path);
  else
    zkr__error_set_from_reply_rc (&error, rc, request_size, zkr__node_kind_name (op->kind),
                                  op->user_path, zkr_session_get_id (op->session));
  op_answer (op, error, NULL);
}

static void
op_answer_rc (NodeOp *op, int rc)
{
  op_answer_reply_rc (op, rc, 0);
}

static void
op_answer_code (NodeOp *op, ZkrError code, const char *what)
{
  op_answer (op, g_error_new (ZKR_ERROR, code, "%s %s: %s", zkr__node_kind_name (op->kind),
                              op->user_path, what),
             NULL);
}

/* ---- results ------------------------------------------------------- */

/* The operation's own result, empty, holding a reference to it until
 * the result is freed. Once per operation (it is answered once). */
static ZkrNodeResult *
op_result_new (NodeOp *op)
{
  ZkrNodeResult *result = &op->result;

  g_warn_if_fail (result->owner == NULL);
  result->owner = op_ref (op);
  result->owner_unref = op_unref;
  return result;
}

/* A ZOK reply (or exists' ZNONODE) as the caller's result. */
static ZkrNodeResult *
result_from_reply (NodeOp *op, ZkrSession *session, ZkrReply *reply)
{
  ZkrNodeResult *result = op_result_new (op);

  zkr__node_result_fill (result, session, op->kind, op->path, reply);
  return result;
}

/* ---- sending ------------------------------------------------------- */

static void op_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data);
static void op_parents_next (NodeOp *op);
static void op_parents_start (NodeOp *op);
static gboolean op_never_left (const ZkrReply *reply);
static void op_recover_list_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data);
static void op_tree_done (ZkrSession *session, int rc, gpointer user_data);

static void
op_send_create (NodeOp *op)
{
  if (op->protection && op->needs_recovery)
    {
      /* First find out whether the lost create made our node. */
      zkr__op_get_children (op->session, op->protected_parent, FALSE, op_recover_list_reply,
                            op_ref (op));
      return;
    }
  if (op->protection)
    {
      op->maybe_created = TRUE;
      op->create_in_flight = TRUE;
    }
  zkr__op_create_ext (op->session, op->path, op->data, op->len, op->zk_flags, op->acl,
                      op->ttl_ms > 0 ? op->ttl_ms : -1, OP_WAKE, op_reply, op_ref (op));
}


static void
op_send (NodeOp *op)
{
  if (op->ancestors != NULL)
    {
      /* A parent's create was lost with the connection: on with the
       * parents (made or not, the next one tells: NODEEXISTS is fine). */
      op_set_step (op, OP_PARENTS);
      op_parents_next (op);
      return;
    }
  op_set_step (op, OP_SENT);
  if (op->first_send == 0)
    op->first_send = g_get_monotonic_time ();
  switch (op->kind)
    {
    case ZKR_NODE_CREATE:
      op_send_create (op);
      break;
    case ZKR_NODE_GET:
      zkr__op_get_full (op->session, op->path, op->watch_armed != NULL, OP_WAKE, op_reply,
                        op_ref (op));
      break;
    case ZKR_NODE_SET:
      zkr__op_set_full (op->session, op->path, op->data, op->len, op->version, OP_WAKE, op_reply,
                        op_ref (op));
      break;
    case ZKR_NODE_DELETE:
      if (op->delete_flags & ZKR_DELETE_CHILDREN)
        /* The walk waits out connection trouble itself. */
        op->tree = zkr__node_tree_delete (op->session, op->path, op->version, op_tree_done, op);
      else
        zkr__op_delete_full (op->session, op->path, op->version, OP_WAKE, op_reply,
                             op_ref (op));
      break;
    case ZKR_NODE_EXISTS:
      zkr__op_exists_full (op->session, op->path, op->watch_armed != NULL, OP_WAKE, op_reply,
                           op_ref (op));
      break;
    case ZKR_NODE_CHILDREN:
      zkr__op_get_children2 (op->session, op->path, op->watch_armed != NULL, OP_WAKE, op_reply,
                             op_ref (op));
      break;
    case ZKR_NODE_MULTI:
      zkr__op_multi (op->session, op->multi, op->multi_count, OP_WAKE, op_reply, op_ref (op));
      break;
    case ZKR_NODE_SYNC:
      zkr__op_sync_path (op->session, op->path, op_reply, op_ref (op));
      break;
    default:
      g_assert_not_reached ();
    }
}

/* Sends now if connected, else at the next (RE)CONNECTED (op_on_state). */
static void
op_send_when_connected (NodeOp *op)
{
  if (zkr_session_is_connected (op->session))
    op_send (op);
  else
    op_set_step (op, OP_WAITING);
}

static gboolean
op_retry_tick (gpointer data)
{
  NodeOp *op = data;

  op->retry_timer = 0;
  op_send_when_connected (op);
  return G_SOURCE_REMOVE;
}

/* A read answered "retry": again after the policy's sleep, if it allows
 * one (the deadline may come first: its timer answers then). */
static void
op_retry_later (NodeOp *op, int rc)
{
  gint64 elapsed_ms = (g_get_monotonic_time () - op->first_send) / 1000;
  guint sleep_ms = 0;

  if (op->try_once ||
      !zkr_retry_policy_allow (zkr__session_get_retry_policy (op->session), op->retries,
                               MAX (elapsed_ms, 0), g_random_int (), &sleep_ms))
    {
      op_answer_rc (op, rc);
      return;
    }
  op->retries++;
  op_set_step (op, OP_PAUSED);
  op->retry_timer = zkr__session_timer_add (op->session, sleep_ms, 0, op_retry_tick, op);
}

/* ---- creating parents ---------------------------------------------- */

/* "/a/b/c" -> "/a", "/a/b" (root first); a sequential prefix "/a/b/"
 * has the parents "/a", "/a/b". (transfer full) */
static char **
path_ancestors (const char *path)
{
  GPtrArray *list = g_ptr_array_new ();
  char *parent = zkr__path_parent (path);

  while (parent != NULL && strcmp (parent, "/") != 0)
    {
      char *next = zkr__path_parent (parent);

      g_ptr_array_insert (list, 0, parent);
      parent = next;
    }
  g_free (parent);
  g_ptr_array_add (list, NULL);
  return (char **) g_ptr_array_free (list, FALSE);
}

static void
op_parent_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  NodeOp *op = user_data;

  (void) session;
  if (op->step == OP_PARENTS)
    {
      if (reply->rc == ZOK || reply->rc == ZNODEEXISTS)
        {
          op->next_ancestor++;
          op_parents_next (op);
        }
      else if (reply->rc == ZNONODE && op->parent_rounds < OP_MAX_PARENT_ROUNDS)
        /* An ancestor made (or found) a moment ago is gone: a container
         * the server reaped once emptied, or someone's delete. Make the
         * chain again from the top. */
        op_parents_start (op);
      else if (op_never_left (reply) && !op->try_once)
        op_set_step (op, OP_WAITING);
      else if (zkr__error_rc_is_retryable (reply->rc))
        /* A parent is made the same whoever made it, so its create may
         * be sent again (our node's own create has not left yet). */
        op_retry_later (op, reply->rc);
      else
        op_answer_reply_rc (op, reply->rc, reply->request_size);
    }
  op_unref (op);
}

static void
op_parents_next (NodeOp *op)
{
  const char *ancestor = op->ancestors[op->next_ancestor];
  int flags = op->parents == ZKR_CREATE_PARENTS_CONTAINER ? ZOO_CONTAINER : ZOO_PERSISTENT;

  if (ancestor == NULL)
    {
      g_clear_pointer (&op->ancestors, g_strfreev);
      op_send (op);
      return;
    }
  zkr__op_create (op->session, ancestor, NULL, -1, flags, op_parent_reply, op_ref (op));
}

static void
op_parents_start (NodeOp *op)
{
  op->parent_rounds++;
  op_set_step (op, OP_PARENTS);
  g_strfreev (op->ancestors);
  op->ancestors = path_ancestors (op->path);
  op->next_ancestor = 0;
  op_parents_next (op);
}

/* ---- replies, timers, states, cancel ---------------------------------- */

/* Worker or stand-in. Nothing left the client (no handle: between LOST
 * and the fresh session, or closing): safe to send again, write or not. */
static gboolean
op_never_left (const ZkrReply *reply)
{
  return reply->send_time == 0 && reply->rc == ZINVALIDSTATE;
}

/* A protected create's reply after the answer (deadline, cancel, LOST):
 * nothing of ours may stay. */
static void
op_protected_late (ZkrSession *session, NodeOp *op, const ZkrReply *reply)
{
  if (reply->rc == ZOK && reply->path != NULL)
    zkr__guaranteed_delete (session, reply->path, NULL, NULL);
  else if (zkr__error_rc_is_retryable (reply->rc) || !zkr__error_rc_is_server_answer (reply->rc))
    zkr__guaranteed_delete_protected (session, op->protected_parent, op->protected_id);
}

static void
op_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  NodeOp *op = user_data;
  int rc = reply->rc;
  gboolean protected_create = op->kind == ZKR_NODE_CREATE && op->protection;

  if (protected_create)
    {
      op->create_in_flight = FALSE;
      if (rc != ZOK && ((zkr__error_rc_is_server_answer (rc) && !zkr__error_rc_is_retryable (rc)) ||
                        rc == ZKR_ZK_REQUEST_TOO_LARGE))
        op->maybe_created = op->needs_recovery; /* this one made nothing */
    }
  if (op->step != OP_SENT)
    {
      /* Answered meanwhile (deadline, cancel, LOST, CLOSED): dropped. */
      if (protected_create)
        op_protected_late (session, op, reply);
    }
  else if (rc == ZOK || (rc == ZNONODE && op->kind == ZKR_NODE_EXISTS) ||
           (op->kind == ZKR_NODE_MULTI && reply->results != NULL))
    {
      if (op->watch_armed != NULL)
        op->watch_armed (session, op->watch_data);
      op_answer (op, NULL, result_from_reply (op, session, reply));
    }
  else if (rc == ZNONODE && op->kind == ZKR_NODE_CREATE &&
           op->parents != ZKR_CREATE_PARENTS_NONE && op->parent_rounds < OP_MAX_PARENT_ROUNDS)
    op_parents_start (op);
  else if (op_never_left (reply) && !op->try_once)
    {
      if (protected_create)
        op->maybe_created = op->needs_recovery;
      op_set_step (op, OP_WAITING);
    }
  else if ((op_is_read (op) || protected_create) && zkr__error_rc_is_retryable (rc))
    {
      /* A protected create is sent again after a connection loss (that is
       * its point), once it knows the lost one made nothing. */
      op->needs_recovery = protected_create;
      op_retry_later (op, rc);
    }
  else
    op_answer_reply_rc (op, rc, reply->request_size);
  op_unref (op);
}

/* ---- a protected create's recovery ------------------------------------ */

static void
op_recover_exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  NodeOp *op = user_data;
  ZkrNodeResult *result;

  if (op->step != OP_SENT)
    ;
  else if (reply->rc == ZOK && (op->zk_flags & ZOO_EPHEMERAL) &&
           reply->stat.ephemeralOwner != zkr_session_get_id (session))
    {
      /* Another session's ephemeral (docs/design.md §3.5): never ours. */
      zkr__guaranteed_delete (session, op->adopt_path, NULL, NULL);
      op->maybe_created = FALSE;
      op_answer_code (op, ZKR_ERROR_SESSION_EXPIRED,
                      "the node made before the connection loss belongs to another session");
    }
  else if (reply->rc == ZOK)
    {
      result = op_result_new (op);
      result->created_path = zkr__node_result_strip_namespace (session, op->adopt_path);
      result->has_stat = TRUE;
      zkr__node_result_stat_copy (&result->stat, &reply->stat);
      op_answer (op, NULL, result);
    }
  else if (reply->rc == ZNONODE)
    {
      /* Deleted by someone since: ours no longer; make it again. */
      op->needs_recovery = op->maybe_created = FALSE;
      op_send (op);
    }
  else if (zkr__error_rc_is_retryable (reply->rc))
    op_retry_later (op, reply->rc);
  else
    op_answer_rc (op, reply->rc);
  op_unref (op);
}

/* Curator's findProtectedNodeInForeground: our node is the child that
 * carries our uuid. */
static void
op_recover_list_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  NodeOp *op = user_data;
  const char *found = NULL;

  if (op->step != OP_SENT)
    ;
  else if (reply->rc == ZOK || reply->rc == ZNONODE)
    {
      for (guint i = 0; reply->children != NULL && i < reply->children->len && found == NULL; i++)
        if (zkr__nodename_has_protected_id (g_ptr_array_index (reply->children, i),
                                        op->protected_id))
          found = g_ptr_array_index (reply->children, i);
      if (found != NULL)
        {
          g_free (op->adopt_path);
          op->adopt_path = zkr__path_join (op->protected_parent, found);
          zkr__op_exists (session, op->adopt_path, FALSE, op_recover_exists_reply, op_ref (op));
        }
      else
        {
          /* The lost create never happened: send it again. */
          op->needs_recovery = op->maybe_created = FALSE;
          op_send (op);
        }
    }
  else if (zkr__error_rc_is_retryable (reply->rc))
    op_retry_later (op, reply->rc);
  else
    op_answer_rc (op, reply->rc);
  op_unref (op);
}

/* The recursive delete's walk is over (it ran to its end, not let go). */
static void
op_tree_done (ZkrSession *session, int rc, gpointer user_data)
{
  NodeOp *op = op_ref (user_data);

  (void) session;
  op->tree = NULL;
  if (rc == ZOK)
    op_answer (op, NULL, op_result_new (op));
  else
    op_answer_rc (op, rc);
  op_unref (op);
}

static void
op_on_deadline (gpointer data)
{
  NodeOp *op = data;
  g_autofree char *what = NULL;

  what = g_strdup_printf ("no answer within the deadline (%s)",
                          op->step == OP_WAITING ? "the session was not connected"
                                                 : "no reply came");
  op_answer_code (op, ZKR_ERROR_TIMEOUT, what);
}

/* An internal listener: synchronously on the worker at each transition. */
static void
op_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  NodeOp *op = user_data;

  (void) session;
  switch (state)
    {
    case ZKR_SESSION_STATE_CONNECTED:
    case ZKR_SESSION_STATE_RECONNECTED:
      /* A reconnect ends a retry's sleep at once, as in resend-wait.c. */
      if (op->step == OP_PAUSED)
        zkr__session_timer_clear (op->session, &op->retry_timer);
      if (op->step == OP_WAITING || op->step == OP_PAUSED)
        op_send (op);
      break;
    case ZKR_SESSION_STATE_LOST:
      op_answer_code (op, ZKR_ERROR_SESSION_EXPIRED,
                      "the session was lost (expired) before the answer");
      break;
    case ZKR_SESSION_STATE_CLOSED:
      op_answer_rc (op, ZCLOSING);
      break;
    case ZKR_SESSION_STATE_CONNECTING:
    case ZKR_SESSION_STATE_SUSPENDED:
    default:
      break;
    }
}

static void
op_answer_cancelled (NodeOp *op)
{
  op_answer (op, zkr__error_new_cancelled ("%s %s", zkr__node_kind_name (op->kind),
                                           op->user_path),
             NULL);
}

static void
op_on_cancelled (gpointer data)
{
  op_answer_cancelled (data);
}

static gpointer
op_ref_hook (gpointer data)
{
  return op_ref (data);
}

static const ZkrArmedHooks op_armed_hooks = {
  .ref = op_ref_hook,
  .unref = op_unref,
  .on_state = op_on_state,
  .on_deadline = op_on_deadline,
  .on_cancelled = op_on_cancelled,
};

/* ---- the start ----------------------------------------------------- */

/* Worker or stand-in: everything that can answer is armed here, before
 * the first send, so no reply can come before it. */
static gboolean
op_start (gpointer data)
{
  NodeOp *op = data;

  /* Held by what is armed here (the listener, the timers, the cancel
   * handler: none holds one of its own) until op_answer() detaches it. */
  op_ref (op);
  switch (zkr__armed_arm (&op->armed))
    {
    case ZKR_ARMED_CANCELLED:
      /* Nothing sent for a call cancelled before it was made. */
      op_answer_cancelled (op);
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_CLOSED:
      op_answer_rc (op, ZCLOSING);
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_LOST:
      op_answer_code (op, ZKR_ERROR_SESSION_EXPIRED,
                      "the session is lost (expired); a fresh one is on its way");
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_GO:
    default:
      break;
    }
  if (op->try_once && !zkr_session_is_connected (op->session))
    {
      op_answer_code (op, ZKR_ERROR_CONNECTION_LOSS,
                      "the session is not connected (timeout 0: no wait)");
      return G_SOURCE_REMOVE;
    }
  op->accepted = TRUE;
  zkr__armed_set_deadline (&op->armed, op->deadline);
  op_send_when_connected (op);
  return G_SOURCE_REMOVE;
}

/* "/p/name" -> "/p/_c_<uuid>-name"; a sequential prefix "/p/" ->
 * "/p/_c_<uuid>-" (Curator's toProtectedZNodePath). */
static void
op_protect (NodeOp *op)
{
  const char *slash = strrchr (op->path, '/');
  g_autofree char *prefix = zkr__nodename_new_protected_prefix (&op->protected_id);
  char *protected_path;

  op->protection = TRUE;
  op->protected_parent = slash == op->path ? g_strdup ("/")
                                            : g_strndup (op->path, (gsize) (slash - op->path));
  protected_path = g_strdup_printf ("%.*s%s%s", (int) (slash - op->path + 1), op->path, prefix,
                                    slash + 1);
  if (op->path != op->user_path && op->path != op->inline_path)
    g_free (op->path);
  op->path = protected_path;
}

static NodeOp *
op_new (ZkrSession *session, const ZkrNodeRequest *request, int timeout_ms,
        GCancellable *cancellable, ZkrCall *call)
{
  /* One allocation for the struct, the data (a copy ending in a NUL, as
   * zkr__op_buffer_dup makes) and, without a namespace, the path. */
  gsize data_size = request->data != NULL ? request->len + 1 : 0;
  gboolean has_namespace = zkr__session_has_namespace (session);
  gsize path_size = has_namespace ? 0 : strlen (request->path) + 1;
  NodeOp *op = g_malloc0 (sizeof (NodeOp) + data_size + path_size);

  g_atomic_ref_count_init (&op->ref);
  op->session = zkr_session_ref (session);
  op->kind = request->kind;
  if (has_namespace)
    {
      op->path = zkr__session_resolve_path (session, request->path);
      op->user_path = g_strdup (request->path);
    }
  else
    {
      /* Without a namespace the two are the same string. */
      op->inline_path = (char *) (op + 1) + data_size;
      memcpy (op->inline_path, request->path, path_size);
      op->path = op->user_path = op->inline_path;
    }
  if (request->data != NULL)
    {
      op->data = (char *) (op + 1);
      memcpy (op->data, request->data, request->len);
    }
  op->len = (int) request->len;
  op->zk_flags = request->zk_flags;
  op->parents = request->parents;
  op->version = request->version;
  op->watch_armed = request->watch_armed;
  op->watch_data = request->watch_data;
  if (request->multi_count > 0)
    {
      op->multi = g_new0 (ZkrMultiOp, request->multi_count);
      op->multi_count = request->multi_count;
      for (guint i = 0; i < request->multi_count; i++)
        {
          op->multi[i] = request->multi[i];
          op->multi[i].path = g_strdup (request->multi[i].path);
          op->multi[i].data = zkr__op_buffer_dup (request->multi[i].data, request->multi[i].len);
        }
    }
  if (request->acl != NULL)
    op->acl = zkr__node_acl_new (request->acl, request->n_acl);
  op->ttl_ms = request->ttl_ms;
  op->delete_flags = request->delete_flags;
  if (request->protection)
    op_protect (op);
  op->try_once = timeout_ms == 0;
  op->deadline = timeout_ms > 0 ? g_get_monotonic_time () + (gint64) timeout_ms * 1000
                                : G_MAXINT64;
  op->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  zkr__armed_init (&op->armed, &op_armed_hooks, op, op->session, op->cancellable);
  op->call = call;
  op->log_steps = zkr__log_debug_enabled ();
  return op;
}

/* From a user's thread, the caller runs the start itself, standing in for
 * the worker: the deadline timer and the cancellable are armed before this
 * returns, whatever the connection does (a start posted to the worker
 * would wait for a wake-up that a silent connection never brings). */
void
zkr__node_op_start (ZkrSession *session, const ZkrNodeRequest *request, int timeout_ms,
                    GCancellable *cancellable, ZkrCall *call)
{
  NodeOp *op = op_new (session, request, timeout_ms, cancellable, call);

  zkr__armed_run_start (session, op_start, op, op_unref);
}
