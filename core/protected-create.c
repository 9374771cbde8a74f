/* zkr: Curator's protected create (core/nodes.h): a node named with our
 * uuid, found again by it when the create's reply is lost, adopted only
 * if our current session owns it. Worker thread. */

#include <string.h>

#include "error-private.h"
#include "nodename.h"
#include "nodes.h"
#include "path.h"

/* One block: the struct, then its strings and data, built once. */
struct _ZkrProtectedCreate {
  ZkrSession *session;
  const char *parent;  /* in the block */
  const char *path;    /* in the block: "@parent/_c_<id>-@name", the
                        * request's */
  const char *data;    /* (nullable) in the block */
  int len;
  int flags;
  ZkrWake in_place;    /* ZKR_WAKE_IN_PLACE or 0, for the create request */
  ZkrSentFunc sent;
  ZkrCreatedFunc done;
  gpointer user_data;
  gint64 session_id;   /* the session the first create was sent on */
  guint nonode_retries;
  gboolean in_flight;  /* a request of ours is out */
  gboolean abandoned;
  gboolean maybe_created;
  char *adopt_path;    /* candidate during recovery */
  ZkrResendWait wait;
  char id[ZKR_NODE_PROTECTED_ID_LEN + 1]; /* the protected uuid */
  char text[];         /* parent, path, data */
};

static void create_send (ZkrProtectedCreate *create);
static void create_recover (gpointer owner);

static void
create_free (ZkrProtectedCreate *create)
{
  zkr__resend_wait_cancel (&create->wait);
  g_free (create->adopt_path);
  g_free (create);
}

/* Ends the create: report (unless abandoned) and clean up after ourselves
 * when we may have left a node that is not handed to the caller. */
static void
create_finish (ZkrProtectedCreate *create, int rc, const char *path, const struct Stat *stat)
{
  if (create->abandoned)
    {
      if (path != NULL)
        zkr__guaranteed_delete (create->session, path, NULL, NULL);
      else if (create->maybe_created)
        zkr__guaranteed_delete_protected (create->session, create->parent, create->id);
    }
  else
    {
      if (rc != ZOK && create->maybe_created)
        zkr__guaranteed_delete_protected (create->session, create->parent, create->id);
      create->done (create->session, rc, path, stat, create->user_data);
    }
  create_free (create);
}

static gboolean
create_session_changed (ZkrProtectedCreate *create)
{
  return zkr_session_get_id (create->session) != create->session_id;
}

static void
create_lost (gpointer owner)
{
  create_finish (owner, ZSESSIONEXPIRED, NULL, NULL);
}

static void
create_closed (gpointer owner)
{
  create_finish (owner, ZCLOSING, NULL, NULL);
}

static void
create_wait_connected (ZkrProtectedCreate *create)
{
  create->wait.on_connected = create_recover;
  zkr__resend_wait_start (&create->wait);
}

static void
create_parents_done (ZkrSession *session, int rc, gpointer user_data)
{
  ZkrProtectedCreate *create = user_data;

  (void) session;
  create->in_flight = FALSE;
  if (create->abandoned)
    create_finish (create, ZOK, NULL, NULL);
  else if (rc == ZOK)
    create_send (create);
  else if (zkr__error_rc_is_retryable (rc))
    create_wait_connected (create);
  else
    create_finish (create, rc, NULL, NULL);
}

/* The node is ours only if the session that owns it is our current one
 * (docs/design.md §3.5: a node adopted across a session change must never
 * grant a lock). */
static void
create_check_owner (ZkrProtectedCreate *create, const char *path, const struct Stat *stat)
{
  if (stat->ephemeralOwner == zkr_session_get_id (create->session) &&
      stat->ephemeralOwner == create->session_id)
    {
      create_finish (create, ZOK, path, stat);
      return;
    }
  zkr__guaranteed_delete (create->session, path, NULL, NULL);
  create_finish (create, ZSESSIONEXPIRED, NULL, NULL);
}

static void
create_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrProtectedCreate *create = user_data;
  int rc = reply->rc;

  create->in_flight = FALSE;
  /* Refused for its size, it never left: it made nothing. */
  if (rc != ZOK && !zkr__error_rc_is_server_answer (rc) && rc != ZKR_ZK_REQUEST_TOO_LARGE)
    create->maybe_created = TRUE;
  /* A handle closed under us by LOST is not the user's close. */
  if (rc == ZCLOSING && zkr_session_get_state (session) != ZKR_SESSION_STATE_CLOSED)
    rc = ZSESSIONEXPIRED;
  if (rc == ZOK)
    create_check_owner (create, reply->path, &reply->stat);
  else if (create->abandoned)
    create_finish (create, rc, NULL, NULL);
  else if (rc == ZNONODE && create->nonode_retries++ < 5)
    {
      /* The parent is missing (never made, or a container the server
       * reaped): make it and try again. */
      create->in_flight = TRUE;
      zkr__ensure_parents (create->session, create->path, create_parents_done, create);
    }
  else if (zkr__error_rc_is_retryable (rc))
    /* Unknown outcome: the server may have created the node. */
    create_wait_connected (create);
  else
    create_finish (create, rc, NULL, NULL);
}

static void
create_send (ZkrProtectedCreate *create)
{
  create->in_flight = TRUE;
  /* A request sent right behind (the listing of a lock queue) is answered
   * next: a successful create can wait for its reply to wake the worker. */
  zkr__op_create_full (create->session, create->path, create->data, create->len, create->flags,
                       (create->sent != NULL ? ZKR_WAKE_ON_ERROR : ZKR_WAKE_ALWAYS) |
                       create->in_place,
                       create_reply, create);
  if (create->sent != NULL)
    create->sent (create->session, create->user_data);
}

static void
recover_exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrProtectedCreate *create = user_data;
  g_autofree char *path = g_steal_pointer (&create->adopt_path);

  (void) session;
  create->in_flight = FALSE;
  if (create->abandoned)
    create_finish (create, ZOK, NULL, NULL);
  else if (reply->rc == ZOK)
    create_check_owner (create, path, &reply->stat);
  else if (reply->rc == ZNONODE)
    create_send (create);
  else if (zkr__error_rc_is_retryable (reply->rc))
    create_wait_connected (create);
  else
    create_finish (create, reply->rc, NULL, NULL);
}

static void
recover_list_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrProtectedCreate *create = user_data;

  create->in_flight = FALSE;
  if (create->abandoned)
    {
      create_finish (create, ZOK, NULL, NULL);
      return;
    }
  if (zkr__error_rc_is_retryable (reply->rc))
    {
      create_wait_connected (create);
      return;
    }
  if (reply->rc != ZOK && reply->rc != ZNONODE)
    {
      create_finish (create, reply->rc, NULL, NULL);
      return;
    }
  for (guint i = 0; reply->children != NULL && i < reply->children->len; i++)
    {
      const char *child = g_ptr_array_index (reply->children, i);
      if (zkr__nodename_has_protected_id (child, create->id))
        {
          create->adopt_path = zkr__path_join (create->parent, child);
          create->in_flight = TRUE;
          zkr__op_exists (session, create->adopt_path, FALSE, recover_exists_reply, create);
          return;
        }
    }
  /* Not there: the create never happened. Send it again. */
  create_send (create);
}

/* Connected again after a lost reply: adopt, or create again. */
static void
create_recover (gpointer owner)
{
  ZkrProtectedCreate *create = owner;

  if (create->abandoned)
    {
      create_finish (create, ZOK, NULL, NULL);
      return;
    }
  if (create_session_changed (create))
    {
      create_finish (create, ZSESSIONEXPIRED, NULL, NULL);
      return;
    }
  create->in_flight = TRUE;
  zkr__op_get_children (create->session, create->parent, FALSE, recover_list_reply, create);
}

/* Writes "@parent/_c_<id>-@name" at @out, a fresh id in @create->id.
 * Returns the byte after its NUL. */
static char *
create_write_path (ZkrProtectedCreate *create, char *out, const char *name)
{
  gsize parent_len = strlen (create->parent);

  zkr__nodename_write_protected_id (create->id);
  if (parent_len > 1)
    out = mempcpy (out, create->parent, parent_len);
  out = stpcpy (out, "/" ZKR_NODE_PROTECTED_MARK);
  out = mempcpy (out, create->id, ZKR_NODE_PROTECTED_ID_LEN);
  *out++ = '-';
  out = stpcpy (out, name);
  return out + 1;
}

ZkrProtectedCreate *
zkr__protected_create (ZkrSession *session, const char *parent, const char *name,
                       const char *data, int len, int flags, ZkrWake wake,
                       ZkrSentFunc sent, ZkrCreatedFunc done, gpointer user_data)
{
  ZkrProtectedCreate *create;
  gsize parent_size, path_size, data_size;
  char *text;

  g_return_val_if_fail (parent != NULL && parent[0] == '/', NULL);
  g_return_val_if_fail (name != NULL && name[0] != '\0' && strchr (name, '/') == NULL, NULL);

  parent_size = strlen (parent) + 1;
  path_size = parent_size + ZKR_NODE_PROTECTED_PREFIX_LEN + strlen (name) + 1;
  data_size = data != NULL ? (gsize) MAX (len, 0) + 1 : 0;
  create = g_malloc0 (sizeof (ZkrProtectedCreate) + parent_size + path_size + data_size);
  create->session = session;
  text = create->text;
  create->parent = memcpy (text, parent, parent_size);
  text += parent_size;
  create->path = text;
  text = create_write_path (create, text, name);
  if (data != NULL)
    {
      /* NUL-terminated, as zkr__op_buffer_dup() copies. */
      memcpy (text, data, data_size - 1);
      create->data = text;
    }
  create->len = len;
  create->flags = flags;
  create->in_place = wake & ZKR_WAKE_IN_PLACE;
  create->sent = sent;
  create->done = done;
  create->user_data = user_data;
  create->session_id = zkr_session_get_id (session);
  create->wait.session = session;
  create->wait.on_closed = create_closed;
  create->wait.on_lost = create_lost;
  create->wait.owner = create;
  create_send (create);
  return create;
}

void
zkr__protected_create_abandon (ZkrProtectedCreate *create)
{
  create->abandoned = TRUE;
  if (create->in_flight)
    return; /* the reply in flight finishes it */
  /* Waiting for a connection or a resend pause: stop and clean up now. */
  create_finish (create, ZOK, NULL, NULL);
}
