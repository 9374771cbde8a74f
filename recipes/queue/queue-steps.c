/* zkr: the steps of an acquire of a queue entry, on the session's worker
 * (docs/design.md §3.1 steps 2-5): create our node and list, judge the
 * listing with the recipe's predicate, wait on one node or on the
 * children, and go through. queue-acquire.c makes, arms and ends it. */

#include <string.h>

#include "error-private.h"
#include "log.h"
#include "path.h"
#include "queue-acquire-private.h"

static void acquire_list (Acquire *acquire);
static void acquire_try_through_when_gone (Acquire *acquire);
static void acquire_through (Acquire *acquire);

static void
acquire_on_watch (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  (void) event_type;
  (void) path;
  ZKR_QUEUE_COUNT (watch_wakeups);
  acquire->watch_id = 0;
  if (acquire->step == ACQUIRE_ENDED)
    return;
  /* Always a fresh listing, never our last one minus the node that went:
   * only a listing shows that our own node is still there (someone may
   * have deleted it while we waited). */
  acquire_list (acquire);
}

static void acquire_on_listing (Acquire *acquire, ZkrReply *reply);

static gboolean
acquire_resend_tick (gpointer data)
{
  Acquire *acquire = data;

  zkr__resend_pause_stop (&acquire->resend, FALSE);
  acquire_list (acquire);
  return G_SOURCE_REMOVE;
}

/* A request of a waiter failed with a retryable code. Connection trouble:
 * the session listener lists again on RECONNECTED. Still connected (the
 * server throttled us, say): list again after a pause, which re-judges and
 * re-watches everything. */
static void
acquire_look_again_later (Acquire *acquire)
{
  if (zkr_session_is_connected (acquire->lock->session) &&
      !zkr__resend_pause_is_pending (&acquire->resend))
    zkr__resend_pause_start (&acquire->resend, acquire->lock->session, acquire_resend_tick,
                             acquire);
}

/* The predecessor changed: the listing sent the moment the event came
 * (always a fresh one, as above) is here. */
static void
acquire_on_watch_listing (ZkrSession *session, int event_type, ZkrReply *listing,
                          gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  (void) event_type;
  ZKR_QUEUE_COUNT (watch_wakeups);
  acquire->watch_id = 0;
  if (acquire->step != ACQUIRE_ENDED)
    acquire_on_listing (acquire, listing);
}

static void
acquire_watch_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  if (acquire->step != ACQUIRE_ENDED)
    {
      if (reply->rc != ZOK && acquire->watch_id != 0)
        {
          /* No event will come (the node was gone, or the watch was not
           * set). */
          zkr__watches_remove (acquire->lock->session, acquire->watch_id);
          acquire->watch_id = 0;
        }
      if (reply->rc == ZNONODE && acquire->through_when_gone)
        {
          /* Gone before the watch got there: through, once our own node
           * was seen (the check sent right behind this request). */
          acquire->waited_gone = TRUE;
          acquire_try_through_when_gone (acquire);
        }
      else if (reply->rc == ZNONODE)
        {
          /* A listing still on its way was sent after this request
           * (answers come in order): it already shows the node gone. */
          if (acquire->listings_in_flight == 0)
            {
              ZKR_QUEUE_COUNT (listings_after_no_node);
              acquire_list (acquire);
            }
        }
      else if (reply->rc != ZOK && !zkr__error_rc_is_retryable (reply->rc))
        zkr__queue_acquire_fail_rc (acquire, reply->rc, "watch predecessor of");
      else if (reply->rc != ZOK)
        acquire_look_again_later (acquire);
      /* ZOK: wait for the event. */
    }
  zkr__queue_acquire_unref (acquire);
}

/* ---- the node we wait on, when its going lets us through ------------- */

/* Drops the watch on our node (the server's stays, and fires into
 * nothing) and what it told. */
void
zkr__queue_steps_forget_own (Acquire *acquire)
{
  if (acquire->own_watch != 0)
    zkr__watches_remove (acquire->lock->session, acquire->own_watch);
  acquire->own_watch = 0;
  acquire->own_seen = FALSE;
}

/* Through once the node we wait on is gone and our own node was seen
 * after that (or, watched, not seen going before it). */
static void
acquire_try_through_when_gone (Acquire *acquire)
{
  if (acquire->through_when_gone && acquire->waited_gone && acquire->own_seen &&
      acquire->own_checks_in_flight == 0)
    acquire_through (acquire);
}

static void acquire_check_own (Acquire *acquire);

/* An event on our own node while waiting (worker). Gone: a listing shows
 * it, and we queue again; its data changed: look again (the watch is
 * spent). Once decided, the hold finds out (docs/design.md §3.6). */
static void
acquire_on_own_event (ZkrSession *session, int event_type, const char *path, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  (void) path;
  acquire->own_watch = 0;
  acquire->own_seen = FALSE;
  if (acquire->step != ACQUIRE_WATCHING_NODE)
    return;
  if (event_type == ZOO_DELETED_EVENT)
    acquire_list (acquire);
  else if (acquire->through_when_gone)
    acquire_check_own (acquire);
}

static void
acquire_own_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  acquire->own_checks_in_flight--;
  if (acquire->step == ACQUIRE_WATCHING_NODE)
    {
      if (reply->rc == ZOK)
        {
          /* The last one sent says it (a later event cleared own_watch). */
          if (acquire->own_checks_in_flight == 0 && acquire->own_watch != 0)
            {
              acquire->own_seen = TRUE;
              acquire->own_stat = reply->stat;
              acquire_try_through_when_gone (acquire);
            }
        }
      else
        {
          /* No watch was set. */
          zkr__queue_steps_forget_own (acquire);
          if (reply->rc == ZNONODE)
            /* Someone deleted it: a listing shows that, and we queue
             * again. */
            acquire_list (acquire);
          else if (!zkr__error_rc_is_retryable (reply->rc))
            zkr__queue_acquire_fail_rc (acquire, reply->rc, "watch our own node under");
          else
            acquire_look_again_later (acquire);
        }
    }
  zkr__queue_acquire_unref (acquire);
}

/* get_data of our node with a watch: not exists, which on a node already
 * gone would leave a creation watch behind. */
static void
acquire_check_own (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  if (acquire->own_watch == 0)
    acquire->own_watch = zkr__watches_add (lock->session, acquire->node_path,
                                                 acquire_on_own_event, acquire);
  acquire->own_seen = FALSE;
  acquire->own_checks_in_flight++;
  ZKR_QUEUE_COUNT (own_checks);
  zkr__op_get_full (lock->session, acquire->node_path, TRUE,
                    ACQUIRE_IN_PLACE | ZKR_REPLY_STAT_ONLY, acquire_own_reply,
                    zkr__queue_acquire_ref (acquire));
}

/* The node we wait on changed (worker). */
static void
acquire_on_waited_event (ZkrSession *session, int event_type, const char *path,
                         gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  (void) path;
  ZKR_QUEUE_COUNT (watch_wakeups);
  acquire->watch_id = 0;
  if (acquire->step != ACQUIRE_WATCHING_NODE)
    return;
  if (event_type != ZOO_DELETED_EVENT)
    {
      /* Its data changed (a revocation request, say): the watch is spent;
       * a fresh listing judges again and sets it again. */
      acquire_list (acquire);
      return;
    }
  acquire->waited_gone = TRUE;
  acquire_try_through_when_gone (acquire);
}

/* Whether the predicate lets us through once @wait_on is gone. The nodes
 * ahead of ours only ever go (a new node sorts after ours), so what is
 * ahead then is at most what @sorted shows without @wait_on; a predicate
 * that lets us through behind those lets us through behind fewer
 * (queue-lock.h asks that of every predicate). */
static gboolean
acquire_through_without (ZkrQueueLock *lock, GPtrArray *sorted, guint ours, const char *wait_on)
{
  const char *next = NULL;
  gpointer taken;
  gboolean through;
  guint at;

  /* All but @wait_on, in the same order (ours one place earlier): taken
   * out of @sorted for the predicate's look and put back at its place (no
   * copy of the listing; putting it back needs no room). */
  if (!g_ptr_array_find (sorted, wait_on, &at))
    g_return_val_if_reached (FALSE);
  taken = g_ptr_array_steal_index (sorted, at);
  through = lock->recipe->predicate (sorted, ours - 1, &next, lock->predicate_data);
  g_ptr_array_insert (sorted, (gint) at, taken);
  return through;
}

static gint
find_name (GPtrArray *names, const char *name)
{
  for (guint i = 0; i < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      return (gint) i;
  return -1;
}

static gboolean acquire_through_posted (gpointer data);

/* The predicate let us through: claim the lock only on a node of the
 * session we are on now (docs/design.md §3.1 step 5). */
static void
acquire_through (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  if (zkr__session_in_place (lock->session))
    {
      /* Claiming starts the hold (whose listeners are the user's) and
       * answers the caller, who must be woken for it anyway: done where
       * the worker's code runs, by the thread that wake-up reaches. */
      zkr__session_post (lock->session, acquire_through_posted, zkr__queue_acquire_ref (acquire),
                         (GDestroyNotify) zkr__queue_acquire_unref);
      zkr__queue_acquire_set_step (acquire, ACQUIRE_DECIDED);
      return;
    }
  if (acquire->stat.ephemeralOwner != zkr_session_get_id (lock->session))
    zkr__queue_acquire_fail (acquire,
                             g_error_new (ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED,
                                          "our node %s belongs to an old session",
                                          acquire->node_path));
  else
    zkr__queue_acquire_succeed (acquire);
}

static gboolean
acquire_through_posted (gpointer data)
{
  Acquire *acquire = data;

  /* Unless it ended meanwhile (a timeout, LOST); listings that came in
   * between were not judged (acquire_evaluate). */
  if (acquire->step != ACQUIRE_ENDED)
    acquire_through (acquire);
  return G_SOURCE_REMOVE;
}

static void acquire_requeue (Acquire *acquire);

/* Step 3-5 of docs/design.md §3.1 on a fresh listing. */
static void
acquire_evaluate (Acquire *acquire, GPtrArray *children)
{
  ZkrQueueLock *lock = acquire->lock;
  const char *wait_on = NULL;
  char *watch_path;
  gint ours;

  /* The end is decided (see ACQUIRE_IN_PLACE): nothing a later listing
   * shows can change it (nodes ahead of ours only ever go; ours going is
   * found by the hold), and judging it could requeue or claim again. */
  if (acquire->step == ACQUIRE_DECIDED)
    return;
  ours = lock->recipe->sort (children, lock->recipe->lock_name, acquire->node_name);
  if (ours < 0)
    {
      /* Someone deleted our node while we waited (our session is the same:
       * a lost one ends the acquire on its own). As Curator: queue again
       * with a new node, a few times; a fixed-name node (a downgrade) is
       * not ours to recreate. */
      if (acquire->fixed_suffix == NULL && acquire->requeues < ACQUIRE_MAX_REQUEUES)
        {
          zkr__debug ("%s %s: our node %s vanished while waiting; queueing again",
                   lock->recipe->kind, lock->user_path, acquire->node_name);
          acquire->requeues++;
          acquire_requeue (acquire);
          return;
        }
      zkr__queue_acquire_fail (acquire,
                               g_error_new (ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
                                            "our node %s vanished while acquiring %s %s",
                                            acquire->node_name, lock->recipe->kind,
                                            lock->user_path));
      return;
    }
  if (lock->recipe->predicate (children, (guint) ours, &wait_on, lock->predicate_data))
    {
      acquire_through (acquire);
      return;
    }
  if (acquire->try_once)
    {
      zkr__queue_acquire_on_deadline (acquire);
      return;
    }
  if (wait_on == NULL)
    {
      /* Wait for any change of the children. Listings in this mode leave
       * a child watch, so the one we just evaluated did, unless this is
       * the first time: then list again with a watch. */
      if (acquire->step != ACQUIRE_WATCHING_CHILDREN)
        {
          zkr__queue_acquire_set_step (acquire, ACQUIRE_WATCHING_CHILDREN);
          acquire_list (acquire);
        }
      return;
    }
  zkr__queue_acquire_set_step (acquire, ACQUIRE_WATCHING_NODE);
  if (acquire->watch_id != 0 && g_strcmp0 (acquire->watch_name, wait_on) == 0)
    {
      /* Already watching that node (set, or its request on the way): this
       * is a listing taken before it went, or after a reconnection. The
       * nodes ahead of us only ever go (a new node sorts after ours), so
       * there is nothing else to wait on; only our own node may need
       * looking at again (its watch dropped with a reconnection). */
      if (acquire->through_when_gone && acquire->own_watch == 0)
        acquire_check_own (acquire);
      return;
    }
  watch_path = zkr__path_join (lock->path, wait_on);
  if (acquire->watch_id != 0)
    zkr__watches_remove (lock->session, acquire->watch_id);
  acquire->through_when_gone = !lock->recipe->nodes_come_ahead &&
                               acquire_through_without (lock, children, (guint) ours, wait_on);
  acquire->waited_gone = FALSE;
  if (acquire->through_when_gone)
    /* Its going is all we wait for: a plain watch, no listing. */
    acquire->watch_id = zkr__watches_add (lock->session, watch_path,
                                                acquire_on_waited_event, acquire);
  else
    acquire->watch_id = zkr__watches_add_listing (lock->session, watch_path, lock->path,
                                                        acquire_on_watch_listing, acquire);
  g_free (acquire->watch_path);
  acquire->watch_path = watch_path;
  acquire->watch_name = zkr__path_basename (watch_path);
  /* get_data, not exists: an exists on a node already gone would leave a
   * creation watch behind. */
  /* ZOK means "wait for the event": no need to wake the worker for it. */
  zkr__op_get_full (lock->session, watch_path, TRUE,
                    ZKR_WAKE_ON_ERROR | ACQUIRE_IN_PLACE | ZKR_REPLY_STAT_ONLY,
                    acquire_watch_reply, zkr__queue_acquire_ref (acquire));
  if (acquire->through_when_gone)
    {
      /* Right behind it, our own node, with a watch: seen there after the
       * node we wait on went (or watched since), it is still ours when
       * that one goes. A node gone before the watch request got there
       * then costs no more round trip either. */
      if (acquire->own_watch == 0 || !acquire->own_seen)
        acquire_check_own (acquire);
    }
  else if (g_ptr_array_index (children, 0) == wait_on)
    /* The head of the queue (a holder) is the node most likely to go
     * before the watch request gets there; the answer is then "no node"
     * and we would list again, one more round trip. A listing right
     * behind the watch request is already on its way then (and is judged
     * like any other when the watch was set: see above). */
    acquire_list (acquire);
}

/* A listing came back (of our own, or with a watch's event). */
static void
acquire_on_listing (Acquire *acquire, ZkrReply *reply)
{
  if (reply->rc != ZOK)
    {
      /* A listing behind a create that failed (ZNONODE: no parent yet) is
       * answered by the create's own retry; connection trouble by the
       * session listener. */
      if (acquire->node_name == NULL)
        ;
      else if (zkr__error_rc_is_retryable (reply->rc))
        acquire_look_again_later (acquire);
      else if (zkr__error_rc_is_server_answer (reply->rc))
        zkr__queue_acquire_fail_rc (acquire, reply->rc, "list");
    }
  else if (acquire->node_name == NULL)
    {
      g_clear_pointer (&acquire->early_listing, g_ptr_array_unref);
      acquire->early_listing = g_steal_pointer (&reply->children);
    }
  else
    {
      zkr__resend_pause_stop (&acquire->resend, TRUE);
      acquire_evaluate (acquire, reply->children);
    }
}

static void
acquire_list_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  acquire->listings_in_flight--;
  if (acquire->step != ACQUIRE_ENDED)
    acquire_on_listing (acquire, reply);
  zkr__queue_acquire_unref (acquire);
}

static void
acquire_list (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  gboolean watch_children = acquire->step == ACQUIRE_WATCHING_CHILDREN;

  if (watch_children && acquire->watch_id == 0)
    acquire->watch_id = zkr__watches_add (lock->session, lock->path, acquire_on_watch, acquire);
  acquire->listings_in_flight++;
  ZKR_QUEUE_COUNT (listings);
  zkr__op_get_children_full (lock->session, lock->path, watch_children, ACQUIRE_IN_PLACE,
                             acquire_list_reply, zkr__queue_acquire_ref (acquire));
}

/* Right behind the create request: ZooKeeper answers a session's requests
 * in order, so this listing already contains our node. */
static void
acquire_create_sent (ZkrSession *session, gpointer user_data)
{
  (void) session;
  acquire_list (user_data);
}

static void
acquire_created (ZkrSession *session, int rc, const char *path, const struct Stat *stat,
                 gpointer user_data)
{
  Acquire *acquire = user_data;
  g_autoptr (GPtrArray) listing = NULL;

  (void) session;
  acquire->create = NULL;
  if (acquire->step == ACQUIRE_ENDED)
    return;
  if (rc != ZOK)
    {
      zkr__queue_acquire_fail_rc (acquire, rc, "create lock node under");
      return;
    }
  zkr__queue_acquire_set_step (acquire, ACQUIRE_LISTING);
  acquire->node_path = g_strdup (path);
  acquire->node_name = zkr__path_basename (acquire->node_path);
  acquire->stat = *stat;
  listing = g_steal_pointer (&acquire->early_listing);
  if (listing != NULL && find_name (listing, acquire->node_name) >= 0)
    acquire_evaluate (acquire, listing);
  else if (acquire->listings_in_flight == 0)
    acquire_list (acquire);
  /* else the listing sent right behind the create is still on its way
   * (replies are handled in order, so it comes next) and contains our
   * node: acquire_list_reply evaluates it. A second listing here would
   * cost every acquire one more request. */
}

void
zkr__queue_steps_create (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;
  const char *client_id = lock->node_data != NULL ? lock->node_data
                                                 : zkr_session_get_client_id (lock->session);

  /* A sequential node's name is the recipe's prefix as it is. */
  g_autofree char *suffixed = acquire->fixed_suffix != NULL
                                ? g_strconcat (lock->recipe->lock_name, acquire->fixed_suffix, NULL)
                                : NULL;
  const char *name = suffixed != NULL ? suffixed : lock->recipe->lock_name;

  zkr__queue_acquire_set_step (acquire, ACQUIRE_CREATING);
  acquire->create = zkr__protected_create (lock->session, lock->path, name,
                                           client_id, (int) strlen (client_id),
                                           acquire->fixed_suffix != NULL ? ZOO_EPHEMERAL
                                                                        : ZOO_EPHEMERAL | ZOO_SEQUENCE,
                                          ACQUIRE_IN_PLACE, acquire_create_sent, acquire_created, acquire);
}

/* Our node is gone: forget it and everything learnt from it, and create a
 * new one at the back of the queue. A listing still on its way (sent
 * before the new create, so answered before it) is kept as an early
 * listing and judged like any other. */
static void
acquire_requeue (Acquire *acquire)
{
  if (acquire->watch_id != 0)
    zkr__watches_remove (acquire->lock->session, acquire->watch_id);
  acquire->watch_id = 0;
  zkr__queue_steps_forget_own (acquire);
  acquire->through_when_gone = FALSE;
  acquire->waited_gone = FALSE;
  acquire->node_name = NULL;
  g_clear_pointer (&acquire->node_path, g_free);
  g_clear_pointer (&acquire->early_listing, g_ptr_array_unref);
  memset (&acquire->stat, 0, sizeof acquire->stat);
  zkr__queue_steps_create (acquire);
}

/* Our node is made and its verdict still open: list again and re-judge
 * (a watch event may have died with the connection; something the
 * predicate reads changed). Not while CREATING (the protected create
 * waits for the connection itself and a listing follows it) nor once
 * DECIDED (the end is posted; nothing a listing shows can change it). */
void
zkr__queue_steps_relist (Acquire *acquire)
{
  switch (acquire->step)
    {
    case ACQUIRE_LISTING:
    case ACQUIRE_WATCHING_NODE:
    case ACQUIRE_WATCHING_CHILDREN:
      acquire_list (acquire);
      break;
    case ACQUIRE_STARTING:
    case ACQUIRE_CONNECTING:
    case ACQUIRE_CREATING:
    case ACQUIRE_DECIDED:
    case ACQUIRE_ENDED:
    default:
      break;
    }
}
