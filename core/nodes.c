/* zkr: ensure-path, protected create and guaranteed delete: the node-level
 * steps every recipe needs, written once. Worker thread throughout. */

#include <string.h>

#include "error-private.h"
#include "log.h"
#include "nodename.h"
#include "nodes.h"
#include "path.h"

/* ---- resend pauses ------------------------------------------------- */

#define RESEND_FIRST_PAUSE_MS 10
#define RESEND_MAX_PAUSE_MS 1000

static gint delayed_pauses; /* atomic */

void
zkr__resend_pause_start (ZkrResendPause *pause, ZkrSession *session, GSourceFunc func,
                         gpointer data)
{
  guint ms;

  g_return_if_fail (pause->timer == 0);
  ms = pause->resends == 0 ? 0
                           : MIN (RESEND_FIRST_PAUSE_MS << MIN (pause->resends - 1, 7),
                                  RESEND_MAX_PAUSE_MS);
  pause->resends++;
  if (ms > 0)
    g_atomic_int_inc (&delayed_pauses);
  pause->session = session;
  pause->timer = zkr__session_timer_add (session, ms, 0, func, data);
}

void
zkr__resend_pause_stop (ZkrResendPause *pause, gboolean reset)
{
  /* From the pause's own callback the timer has run already: removing
   * its id is then a no-op. */
  zkr__session_timer_clear (pause->session, &pause->timer);
  if (reset)
    pause->resends = 0;
}

gboolean
zkr__resend_pause_is_pending (const ZkrResendPause *pause)
{
  return pause->timer != 0;
}

guint
zkr__resend_pause_test_count_delayed (void)
{
  return (guint) g_atomic_int_get (&delayed_pauses);
}

/* ---- connection waits ---------------------------------------------- */

/* A helper waiting before its owner sends again: for the session to be
 * connected again, or, already connected, for a resend pause. It listens
 * for state changes meanwhile (a reconnect ends the pause at once; CLOSED
 * and LOST end the owner) and stops listening before it runs its
 * continuation. */
typedef struct {
  ZkrSession *session;
  guint listener_id;
  void (*on_connected) (gpointer owner);
  void (*on_closed) (gpointer owner);
  void (*on_lost) (gpointer owner);   /* nullable: then LOST is ignored */
  gpointer owner;
  ZkrResendPause pause;
} ConnectWait;

static void
connect_wait_cancel (ConnectWait *wait)
{
  if (wait->listener_id != 0)
    zkr__session_remove_internal_listener (wait->session, wait->listener_id);
  wait->listener_id = 0;
  zkr__resend_pause_stop (&wait->pause, FALSE);
}

static void
connect_wait_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ConnectWait *wait = user_data;

  (void) session;
  if (state == ZKR_SESSION_STATE_CONNECTED || state == ZKR_SESSION_STATE_RECONNECTED)
    {
      connect_wait_cancel (wait);
      zkr__resend_pause_stop (&wait->pause, TRUE);
      wait->on_connected (wait->owner);
    }
  else if (state == ZKR_SESSION_STATE_CLOSED)
    {
      connect_wait_cancel (wait);
      wait->on_closed (wait->owner);
    }
  else if (state == ZKR_SESSION_STATE_LOST && wait->on_lost != NULL)
    {
      connect_wait_cancel (wait);
      wait->on_lost (wait->owner);
    }
}

static gboolean
connect_wait_pause_done (gpointer data)
{
  ConnectWait *wait = data;

  connect_wait_cancel (wait);
  wait->on_connected (wait->owner);
  return G_SOURCE_REMOVE;
}

/* Runs on_connected after a resend pause if connected, else at the next
 * (RE)CONNECTED. */
static void
connect_wait_start (ConnectWait *wait)
{
  g_assert (wait->listener_id == 0);
  /* Check and registration both happen on the worker, where transitions
   * happen, so no transition can fall between them. */
  if (zkr_session_is_connected (wait->session))
    zkr__resend_pause_start (&wait->pause, wait->session, connect_wait_pause_done, wait);
  wait->listener_id = zkr__session_add_internal_listener (wait->session, connect_wait_on_state, wait);
}

/* ---- ensure parents ------------------------------------------------ */

typedef struct {
  ZkrSession *session;
  char **ancestors;     /* "/a", "/a/b", ... (owned) */
  guint next;
  guint restarts;       /* rounds begun again after an ancestor vanished */
  ZkrDoneFunc func;
  gpointer user_data;
} EnsureParents;

/* How often a chain is begun again after an ancestor vanished under it. */
#define ENSURE_MAX_RESTARTS 5

static void ensure_next (EnsureParents *ensure);

static void
ensure_finish (EnsureParents *ensure, int rc)
{
  ensure->func (ensure->session, rc, ensure->user_data);
  g_strfreev (ensure->ancestors);
  g_free (ensure);
}

static gboolean
ensure_finish_posted (gpointer data)
{
  ensure_finish (data, ZOK);
  return G_SOURCE_REMOVE;
}

static void
ensure_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  EnsureParents *ensure = user_data;

  (void) session;
  if (reply->rc == ZNONODE && ensure->restarts++ < ENSURE_MAX_RESTARTS)
    {
      /* An ancestor made (or found) a moment ago is gone: a container the
       * server reaped once emptied, or a delete by someone else. Make the
       * chain again from the top. */
      ensure->next = 0;
      ensure_next (ensure);
      return;
    }
  if (reply->rc != ZOK && reply->rc != ZNODEEXISTS)
    {
      ensure_finish (ensure, reply->rc);
      return;
    }
  ensure->next++;
  ensure_next (ensure);
}

static void
ensure_next (EnsureParents *ensure)
{
  const char *path = ensure->ancestors[ensure->next];

  if (path == NULL)
    {
      ensure_finish (ensure, ZOK);
      return;
    }
  zkr__op_create (ensure->session, path, NULL, -1, ZOO_CONTAINER, ensure_reply, ensure);
}

static char **
path_ancestors (const char *path)
{
  GPtrArray *list = g_ptr_array_new ();
  g_autofree char *parent = zkr__path_parent (path);

  /* Walk up, then reverse: creation goes root-first. */
  while (parent != NULL && strcmp (parent, "/") != 0)
    {
      char *next = zkr__path_parent (parent);
      g_ptr_array_insert (list, 0, g_steal_pointer (&parent));
      parent = next;
    }
  g_ptr_array_add (list, NULL);
  return (char **) g_ptr_array_free (list, FALSE);
}

void
zkr__ensure_parents (ZkrSession *session, const char *path,
                     ZkrDoneFunc func, gpointer user_data)
{
  EnsureParents *ensure = g_new0 (EnsureParents, 1);

  ensure->session = session;
  ensure->ancestors = path_ancestors (path);
  ensure->func = func;
  ensure->user_data = user_data;
  if (ensure->ancestors[0] == NULL)
    /* Nothing to create; still answer later, never inside this call. */
    zkr__session_post (session, ensure_finish_posted, ensure, NULL);
  else
    ensure_next (ensure);
}

/* ---- guaranteed delete --------------------------------------------- */

typedef struct {
  ZkrSession *session;
  char *path;
  ZkrDoneFunc func;
  gpointer user_data;
  ConnectWait wait;
} GuaranteedDelete;

static void delete_send (gpointer owner);

static void
delete_finish (GuaranteedDelete *del, int rc)
{
  zkr__session_pending_deletes_add (del->session, -1);
  if (rc != ZOK)
    zkr__debug ("guaranteed delete of %s ended with %s", del->path, zkr__zk_error_name (rc));
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
  else if ((zkr__zk_rc_is_retryable (reply->rc) || !zkr__zk_rc_is_server_answer (reply->rc)) &&
           reply->rc != ZKR_ZK_REQUEST_TOO_LARGE)
    /* Pending: send again once connected; a fresh session after LOST may
     * delete the old session's node as well. (A request refused for its
     * size never leaves: final.) */
    connect_wait_start (&del->wait);
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

/* ---- find and delete by protected id ------------------------------- */

typedef struct {
  ZkrSession *session;
  char *parent;
  char *id;
  ConnectWait wait;
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

  if (zkr__zk_rc_is_retryable (reply->rc) &&
      zkr_session_get_state (session) != ZKR_SESSION_STATE_CLOSED)
    {
      connect_wait_start (&find->wait);
      return;
    }
  if (reply->rc == ZOK)
    for (guint i = 0; i < reply->children->len; i++)
      {
        const char *child = g_ptr_array_index (reply->children, i);
        if (zkr__node_has_protected_id (child, find->id))
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
zkr__protected_find_and_delete (ZkrSession *session, const char *parent, const char *id)
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

/* ---- protected create ---------------------------------------------- */

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
  ConnectWait wait;
  char id[ZKR_NODE_PROTECTED_ID_LEN + 1]; /* the protected uuid */
  char text[];         /* parent, path, data */
};

static void create_send (ZkrProtectedCreate *create);
static void create_recover (gpointer owner);

static void
create_free (ZkrProtectedCreate *create)
{
  connect_wait_cancel (&create->wait);
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
        zkr__protected_find_and_delete (create->session, create->parent, create->id);
    }
  else
    {
      if (rc != ZOK && create->maybe_created)
        zkr__protected_find_and_delete (create->session, create->parent, create->id);
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
  connect_wait_start (&create->wait);
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
  else if (zkr__zk_rc_is_retryable (rc))
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
  if (rc != ZOK && !zkr__zk_rc_is_server_answer (rc) && rc != ZKR_ZK_REQUEST_TOO_LARGE)
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
  else if (zkr__zk_rc_is_retryable (rc))
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
  else if (zkr__zk_rc_is_retryable (reply->rc))
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
  if (zkr__zk_rc_is_retryable (reply->rc))
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
      if (zkr__node_has_protected_id (child, create->id))
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

  zkr__node_write_protected_id (create->id);
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
      /* NUL-terminated, as zkr__buffer_dup() copies. */
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

/* ---- data watch ---------------------------------------------------- */

struct _ZkrDataWatch {
  gatomicrefcount ref;
  GMutex mutex;
  gboolean active;          /* protected by mutex: @func may be called */
  ZkrSession *session;      /* (owned) */
  char *path;
  ZkrDataFunc func;
  gpointer user_data;
  guint watch_id;           /* worker only */
};

static ZkrDataWatch *
data_watch_ref (ZkrDataWatch *watch)
{
  g_atomic_ref_count_inc (&watch->ref);
  return watch;
}

static void
data_watch_unref (ZkrDataWatch *watch)
{
  if (!g_atomic_ref_count_dec (&watch->ref))
    return;
  zkr_session_unref (watch->session);
  g_free (watch->path);
  g_mutex_clear (&watch->mutex);
  g_free (watch);
}

static gboolean
data_watch_active (ZkrDataWatch *watch)
{
  gboolean active;

  g_mutex_lock (&watch->mutex);
  active = watch->active;
  g_mutex_unlock (&watch->mutex);
  return active;
}

static void data_watch_arm (ZkrDataWatch *watch);

/* The node was missing at the read: the exists watch tells its return. */
static void
data_watch_exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrDataWatch *watch = user_data;

  (void) session;
  /* Created again meanwhile: read it now (its event may never come: the
   * exists left a data watch, which only a later change fires). */
  if (reply->rc == ZOK && data_watch_active (watch))
    {
      if (watch->watch_id != 0)
        {
          zkr__session_watch_remove (watch->session, watch->watch_id);
          watch->watch_id = 0;
          data_watch_unref (watch); /* the watch's own reference */
        }
      data_watch_arm (watch);
    }
  data_watch_unref (watch);
}

static void
data_watch_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  ZkrDataWatch *watch = user_data;

  /* A read of a missing node leaves no watch on the server: without an
   * exists watch, a node deleted and created again would never be read
   * (a semaphore's waiter kept the old count for good). */
  if (reply->rc == ZNONODE && data_watch_active (watch))
    zkr__op_exists (session, watch->path, TRUE, data_watch_exists_reply, data_watch_ref (watch));
  if (reply->rc == ZOK)
    {
      g_autoptr (GBytes) empty = reply->data == NULL ? g_bytes_new (NULL, 0) : NULL;

      /* Under the mutex: a stop waits for this call to end. */
      g_mutex_lock (&watch->mutex);
      if (watch->active)
        watch->func (session, reply->data != NULL ? reply->data : empty, watch->user_data);
      g_mutex_unlock (&watch->mutex);
    }
  data_watch_unref (watch);
}

static void
data_watch_event (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  ZkrDataWatch *watch = user_data;

  (void) session;
  (void) event_type;
  (void) path;
  watch->watch_id = 0;
  if (data_watch_active (watch))
    data_watch_arm (watch);
  data_watch_unref (watch); /* the watch's own reference */
}

static void
data_watch_arm (ZkrDataWatch *watch)
{
  watch->watch_id = zkr__session_watch_add (watch->session, watch->path, data_watch_event,
                                            data_watch_ref (watch));
  zkr__op_get (watch->session, watch->path, TRUE, data_watch_reply, data_watch_ref (watch));
}

static gboolean
data_watch_start_in_worker (gpointer data)
{
  ZkrDataWatch *watch = data;

  if (data_watch_active (watch))
    data_watch_arm (watch);
  data_watch_unref (watch);
  return G_SOURCE_REMOVE;
}

static gboolean
data_watch_stop_in_worker (gpointer data)
{
  ZkrDataWatch *watch = data;

  if (watch->watch_id != 0)
    {
      zkr__session_watch_remove (watch->session, watch->watch_id);
      watch->watch_id = 0;
      data_watch_unref (watch); /* the watch's own reference */
    }
  data_watch_unref (watch);
  return G_SOURCE_REMOVE;
}

ZkrDataWatch *
zkr__data_watch_start (ZkrSession *session, const char *path, ZkrDataFunc func,
                       gpointer user_data)
{
  ZkrDataWatch *watch = g_new0 (ZkrDataWatch, 1);

  g_atomic_ref_count_init (&watch->ref);
  g_mutex_init (&watch->mutex);
  watch->active = TRUE;
  watch->session = zkr_session_ref (session);
  watch->path = g_strdup (path);
  watch->func = func;
  watch->user_data = user_data;
  zkr__session_post (session, data_watch_start_in_worker, data_watch_ref (watch), NULL);
  return watch;
}

void
zkr__data_watch_stop (ZkrDataWatch *watch)
{
  if (watch == NULL)
    return;
  g_mutex_lock (&watch->mutex);
  watch->active = FALSE;
  g_mutex_unlock (&watch->mutex);
  zkr__session_post (watch->session, data_watch_stop_in_worker, watch, NULL);
}
