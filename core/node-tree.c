/* zkr: the recursive delete (Curator's deletingChildrenIfNeeded) as a walk
 * on the session's worker, one request at a time, the deepest node first;
 * it waits out connection trouble and, let go by its owner, can finish in
 * the background (Curator's guaranteed delete of a tree). */

#include "error-private.h"
#include "log.h"
#include "node-private.h"
#include "nodes.h"
#include "path.h"
#include "session-private.h"

struct _ZkrNodeTree {
  ZkrSession *session;   /* (unowned): closing the session ends the walk
                          * (CLOSED, then every reply ZCLOSING) before it
                          * is freed, as guaranteed-delete.c's deletes rely on */
  char *root;            /* full path */
  int version;           /* for the root only */
  GPtrArray *stack;      /* (char *) full paths; the top is deleted next */
  ZkrNodeTreeFunc func;
  gpointer user_data;
  guint listener_id;
  ZkrResendPause pause;
  gboolean in_flight;    /* a request of the walk is out */
  gboolean waiting;      /* for a connection or a resend pause */
  gboolean progressed;   /* something may have been deleted: the root
                          * missing no longer means it never existed */
  gboolean released;     /* the owner let go: func is not called */
  gboolean background;   /* released to finish: counted as pending */
};

static void tree_step (ZkrNodeTree *tree);

static void
tree_free (ZkrNodeTree *tree)
{
  if (tree->listener_id != 0)
    zkr__session_remove_internal_listener (tree->session, tree->listener_id);
  zkr__resend_pause_stop (&tree->pause, FALSE);
  if (tree->background)
    zkr__session_pending_deletes_add (tree->session, -1);
  g_ptr_array_unref (tree->stack);
  g_free (tree->root);
  g_free (tree);
}

static void
tree_done (ZkrNodeTree *tree, int rc)
{
  if (rc != ZOK && tree->background)
    zkr__debug ("delete of the tree %s ended with %s", tree->root, zkr__error_zk_name (rc));
  if (!tree->released)
    tree->func (tree->session, rc, tree->user_data);
  tree_free (tree);
}

static const char *
tree_top (ZkrNodeTree *tree)
{
  return g_ptr_array_index (tree->stack, tree->stack->len - 1);
}

static gboolean
tree_resume (gpointer data)
{
  ZkrNodeTree *tree = data;

  tree->waiting = FALSE;
  tree_step (tree);
  return G_SOURCE_REMOVE;
}

/* Connection trouble: go on once connected, or after a pause if the
 * connection is still up (a throttled server), never in a tight loop. */
static void
tree_wait (ZkrNodeTree *tree)
{
  tree->progressed = TRUE;
  tree->waiting = TRUE;
  if (zkr_session_is_connected (tree->session))
    zkr__resend_pause_start (&tree->pause, tree->session, tree_resume, tree);
}

static void
tree_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ZkrNodeTree *tree = user_data;

  (void) session;
  if (state == ZKR_SESSION_STATE_CLOSED && !tree->in_flight)
    tree_done (tree, ZCLOSING);
  else if ((state == ZKR_SESSION_STATE_CONNECTED || state == ZKR_SESSION_STATE_RECONNECTED) &&
           tree->waiting)
    {
      zkr__resend_pause_stop (&tree->pause, TRUE);
      tree_resume (tree);
    }
}

/* TRUE when the reply ended the walk (or the owner let it go). */
static gboolean
tree_reply_ends (ZkrNodeTree *tree, int rc)
{
  tree->in_flight = FALSE;
  if (tree->released && !tree->background)
    {
      tree_free (tree);
      return TRUE;
    }
  if (rc == ZCLOSING || zkr_session_get_state (tree->session) == ZKR_SESSION_STATE_CLOSED)
    {
      tree_done (tree, ZCLOSING);
      return TRUE;
    }
  /* A request refused for its size never left and would be refused
   * again: final, answered as the server's refusals are. */
  if ((zkr__error_rc_is_retryable (rc) || !zkr__error_rc_is_server_answer (rc)) &&
      rc != ZKR_ZK_REQUEST_TOO_LARGE)
    {
      tree_wait (tree);
      return TRUE;
    }
  return FALSE;
}

static void
tree_list_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrNodeTree *tree = user_data;
  g_autofree char *parent = NULL;

  (void) session;
  if (tree_reply_ends (tree, reply->rc))
    return;
  if (reply->rc == ZNONODE)
    /* Gone meanwhile, with its children. */
    g_free (g_ptr_array_steal_index (tree->stack, tree->stack->len - 1));
  else if (reply->rc != ZOK)
    {
      tree_done (tree, reply->rc);
      return;
    }
  else
    {
      parent = g_strdup (tree_top (tree));
      for (guint i = 0; reply->children != NULL && i < reply->children->len; i++)
        g_ptr_array_add (tree->stack,
                         zkr__path_join (parent, g_ptr_array_index (reply->children, i)));
    }
  tree_step (tree);
}

static void
tree_delete_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrNodeTree *tree = user_data;
  int rc = reply->rc;

  if (tree_reply_ends (tree, rc))
    return;
  if (rc == ZNOTEMPTY)
    {
      /* Children first: list them (again, if others added some). */
      tree->progressed = TRUE;
      tree->in_flight = TRUE;
      zkr__op_get_children (session, tree_top (tree), FALSE, tree_list_reply, tree);
      return;
    }
  if (rc == ZNONODE && tree->stack->len == 1 && !tree->progressed)
    {
      tree_done (tree, ZNONODE);
      return;
    }
  if (rc != ZOK && rc != ZNONODE)
    {
      tree_done (tree, rc);
      return;
    }
  tree->progressed = TRUE;
  g_free (g_ptr_array_steal_index (tree->stack, tree->stack->len - 1));
  tree_step (tree);
}

/* A node is deleted first and listed only if it has children: a leaf
 * costs one round trip. */
static void
tree_step (ZkrNodeTree *tree)
{
  const char *top;

  if (tree->stack->len == 0)
    {
      tree_done (tree, ZOK);
      return;
    }
  top = tree_top (tree);
  tree->in_flight = TRUE;
  zkr__op_delete (tree->session, top, tree->stack->len == 1 ? tree->version : -1,
                  tree_delete_reply, tree);
}

ZkrNodeTree *
zkr__node_tree_delete (ZkrSession *session, const char *path, int version,
                       ZkrNodeTreeFunc func, gpointer user_data)
{
  ZkrNodeTree *tree = g_new0 (ZkrNodeTree, 1);

  tree->session = session;
  tree->root = g_strdup (path);
  tree->version = version;
  tree->stack = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (tree->stack, g_strdup (path));
  tree->func = func;
  tree->user_data = user_data;
  tree->listener_id = zkr__session_add_internal_listener (session, tree_on_state, tree);
  if (zkr_session_is_connected (session))
    tree_step (tree);
  else
    tree->waiting = TRUE;
  return tree;
}

void
zkr__node_tree_release (ZkrNodeTree *tree, gboolean finish)
{
  if (tree->released)
    return;
  tree->released = TRUE;
  if (finish)
    {
      /* The root at any version from now on: the owner's answer is given,
       * and a guaranteed delete is of any version (Curator's). */
      tree->version = -1;
      tree->background = TRUE;
      zkr__session_pending_deletes_add (tree->session, 1);
      return;
    }
  if (!tree->in_flight)
    tree_free (tree);
}
