/* zkr: the guaranteed delete (core/nodes.h): a node's delete sent again
 * whenever the session is connected until it is done, and the background
 * delete of the nodes a protected create may have left. Worker thread. */

#include "error-private.h"
#include "log.h"
#include "nodename.h"
#include "nodes.h"
#include "path.h"

typedef struct {
  ZkrSession *session;
  char *path;
  ZkrDoneFunc func;
  gpointer user_data;
  ZkrResendWait wait;
} GuaranteedDelete;

static void delete_send (gpointer owner);

static void
delete_finish (GuaranteedDelete *del, int rc)
{
  zkr__session_pending_deletes_add (del->session, -1);
  if (rc != ZOK)
    zkr__debug ("guaranteed delete of %s ended with %s", del->path, zkr__error_zk_name (rc));
  if (del->func != NULL)
    del->func (del->session, rc, del->user_data);
  g_free (del->path);
  g_free (del);
}

static void
delete_closed (gpointer owner)
{
  delete_finish (owner, ZCLOSING);
}

static void
delete_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  GuaranteedDelete *del = user_data;

  if (reply->rc == ZOK || reply->rc == ZNONODE)
    delete_finish (del, ZOK);
  else if (zkr_session_get_state (session) == ZKR_SESSION_STATE_CLOSED)
    delete_finish (del, ZCLOSING);
  else if ((zkr__error_rc_is_retryable (reply->rc) || !zkr__error_rc_is_server_answer (reply->rc)) &&
           reply->rc != ZKR_ZK_REQUEST_TOO_LARGE)
    /* Pending: send again once connected; a fresh session after LOST may
     * delete the old session's node as well. (A request refused for its
     * size never leaves: final.) */
    zkr__resend_wait_start (&del->wait);
  else
    delete_finish (del, reply->rc);
}

static void
delete_send (gpointer owner)
{
  GuaranteedDelete *del = owner;

  zkr__op_delete (del->session, del->path, -1, delete_reply, del);
}

void
zkr__guaranteed_delete (ZkrSession *session, const char *path,
                        ZkrDoneFunc func, gpointer user_data)
{
  GuaranteedDelete *del = g_new0 (GuaranteedDelete, 1);

  del->session = session;
  del->path = g_strdup (path);
  del->func = func;
  del->user_data = user_data;
  del->wait.session = session;
  del->wait.on_connected = delete_send;
  del->wait.on_closed = delete_closed;
  del->wait.owner = del;
  zkr__session_pending_deletes_add (session, 1);
  delete_send (del);
}

typedef struct {
  ZkrSession *session;
  char *parent;
  char *id;
  ZkrResendWait wait;
} FindDelete;

static void
find_delete_free (FindDelete *find)
{
  g_free (find->parent);
  g_free (find->id);
  g_free (find);
}

static void find_delete_send (gpointer owner);

static void
find_delete_closed (gpointer owner)
{
  find_delete_free (owner);
}

static void
find_delete_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  FindDelete *find = user_data;

  if (zkr__error_rc_is_retryable (reply->rc) &&
      zkr_session_get_state (session) != ZKR_SESSION_STATE_CLOSED)
    {
      zkr__resend_wait_start (&find->wait);
      return;
    }
  if (reply->rc == ZOK)
    for (guint i = 0; i < reply->children->len; i++)
      {
        const char *child = g_ptr_array_index (reply->children, i);
        if (zkr__nodename_has_protected_id (child, find->id))
          {
            g_autofree char *path = zkr__path_join (find->parent, child);
            zkr__guaranteed_delete (session, path, NULL, NULL);
          }
      }
  find_delete_free (find);
}

static void
find_delete_send (gpointer owner)
{
  FindDelete *find = owner;

  zkr__op_get_children (find->session, find->parent, FALSE, find_delete_reply, find);
}

void
zkr__guaranteed_delete_protected (ZkrSession *session, const char *parent, const char *id)
{
  FindDelete *find = g_new0 (FindDelete, 1);

  find->session = session;
  find->parent = g_strdup (parent);
  find->id = g_strdup (id);
  find->wait.session = session;
  find->wait.on_connected = find_delete_send;
  find->wait.on_closed = find_delete_closed;
  find->wait.owner = find;
  find_delete_send (find);
}
