/* zkr: an acquire of a queue entry, on the session's worker
 * (docs/design.md §3.1, §5.1, §5.2): one step at a time from start to end
 * (acquire_set_step), create and list, judge with the recipe's predicate,
 * wait on one node or on the children, and end granted or failed. */

#include <string.h>

#include "armed.h"
#include "error-private.h"
#include "queue-private.h"
#include "log.h"
#include "path.h"

/* Where an acquire is (docs/design.md §3.1), in one field that changes
 * only through acquire_set_step(). Steps are worker-side state: read and
 * changed by whichever thread holds the session's turn. */
typedef enum {
  ACQUIRE_STARTING,          /* made; its start has not run yet */
  ACQUIRE_CONNECTING,        /* started, waiting for (RE)CONNECTED to create */
  ACQUIRE_CREATING,          /* the protected create in flight (a listing
                              * behind it; an early listing is kept) */
  ACQUIRE_LISTING,           /* our node made; the listing to judge it on
                              * its way (step 3) */
  ACQUIRE_WATCHING_NODE,     /* waiting on one node ahead of ours (step 4) */
  ACQUIRE_WATCHING_CHILDREN, /* waiting for any change of the children: every
                              * listing leaves a child watch (semaphore leases) */
  ACQUIRE_DECIDED,           /* through or failed, decided in place and its
                              * end posted: later listings are not judged */
  ACQUIRE_ENDED,             /* detached: nothing calls back into it; answered */
} AcquireStep;

/* This file's name for queue-private.h's ZkrQueueAcquire. */
typedef struct _ZkrQueueAcquire Acquire;

struct _ZkrQueueAcquire {
  gatomicrefcount ref;
  ZkrQueueLock *lock;            /* (owned) */
  ZkrQueueWaiter waiter;         /* who hears the outcome */
  gint64 deadline;               /* monotonic µs; G_MAXINT64 = none */
  gboolean try_once;             /* timeout 0: judge once. Not a step: how
                                  * the caller asked, fixed for the
                                  * acquire's life */
  GCancellable *cancellable;     /* (owned) (nullable) */
  ZkrArmed armed;                /* the deadline, the cancel, the state listener */
  ZkrProtectedCreate *create;    /* (nullable) in flight */
  const char *node_name;         /* (nullable) ours, once created: the
                                  * last part of node_path */
  char *node_path;
  struct Stat stat;
  GPtrArray *early_listing;      /* a listing that came before our node */
  guint listings_in_flight;
  guint watch_id;
  char *watch_path;              /* (nullable) the node watch_id is on */
  const char *watch_name;        /* (nullable) its name: watch_path's last part */
  AcquireStep step;              /* acquire_set_step() only. The step alone
                                  * says where the acquire is; the rest is
                                  * data (the create in flight, our node,
                                  * the watch), counts, or how the caller
                                  * asked (try_once, fixed_suffix) */
  char *fixed_suffix;            /* (nullable) a non-sequential node name */
  guint requeues;                /* new nodes after ours was deleted */
  ZkrResendPause resend;         /* a listing or watch answered "retry" */
  /* Waiting on a node whose going lets us through (docs/design.md §3.1
   * step 4): then no listing is needed, only to know that our own node
   * was still there when it went, which a data watch on our node tells
   * (ZooKeeper sends a session's events in the order of the changes). */
  gboolean through_when_gone;    /* watch_name is such a node */
  gboolean waited_gone;          /* ... and it is gone */
  guint own_watch;               /* (0: none) the data watch on our node */
  guint own_checks_in_flight;    /* get_data of our node setting it */
  gboolean own_seen;             /* the last of them found our node, and
                                  * no event on it came since */
  struct Stat own_stat;          /* what it found */
};

/* How often an acquire queues again after someone deleted its node. */
#define ACQUIRE_MAX_REQUEUES 3

/* The acquire's own requests (its create, listings and watch requests)
 * may be answered in place, on the completion thread they arrive on
 * (ZKR_WAKE_IN_PLACE): a waiter's listing then sends its watch request
 * without waking a thread to do it. What their replies reach keeps
 * zkr__session_post_in_place's rules: it sends and changes the acquire's
 * own state; the two ways out, acquire_through and acquire_fail (which
 * answer the caller, start the hold and so may run the user's listeners),
 * post themselves when zkr__session_in_place(). */
#define ACQUIRE_IN_PLACE ZKR_WAKE_IN_PLACE

static Acquire *
acquire_ref (Acquire *acquire)
{
  g_atomic_ref_count_inc (&acquire->ref);
  return acquire;
}

static void
acquire_unref (Acquire *acquire)
{
  if (!g_atomic_ref_count_dec (&acquire->ref))
    return;
  g_clear_object (&acquire->waiter.task);
  g_clear_object (&acquire->cancellable);
  g_free (acquire->watch_path);
  g_free (acquire->node_path);
  g_free (acquire->fixed_suffix);
  g_clear_pointer (&acquire->early_listing, g_ptr_array_unref);
  zkr__queue_lock_unref (acquire->lock);
  g_free (acquire);
}

static void acquire_list (Acquire *acquire);
static void acquire_own_forget (Acquire *acquire);
static void acquire_try_through_when_gone (Acquire *acquire);
static void acquire_through (Acquire *acquire);

static const char *const acquire_step_names[] = {
  [ACQUIRE_STARTING] = "STARTING",
  [ACQUIRE_CONNECTING] = "CONNECTING",
  [ACQUIRE_CREATING] = "CREATING",
  [ACQUIRE_LISTING] = "LISTING",
  [ACQUIRE_WATCHING_NODE] = "WATCHING_NODE",
  [ACQUIRE_WATCHING_CHILDREN] = "WATCHING_CHILDREN",
  [ACQUIRE_DECIDED] = "DECIDED",
  [ACQUIRE_ENDED] = "ENDED",
};

/* The edges an acquire may take. The start creates, or waits for a
 * connection first; a made node is listed and judged, then waited on
 * (one node or the children; a predicate may switch between them); a
 * node that vanished is created again (a requeue). In place, only a reply
 * (the create's, a listing's) can decide the end, which is then posted;
 * anywhere else the end comes at once, from any step but the last.
 * Staying put is no transition and always allowed. */
static gboolean
acquire_step_allowed (AcquireStep from, AcquireStep to)
{
  switch (to)
    {
    case ACQUIRE_CONNECTING:
      return from == ACQUIRE_STARTING;
    case ACQUIRE_CREATING:
      return from == ACQUIRE_STARTING || from == ACQUIRE_CONNECTING ||
             from == ACQUIRE_LISTING || from == ACQUIRE_WATCHING_NODE ||
             from == ACQUIRE_WATCHING_CHILDREN;
    case ACQUIRE_LISTING:
      return from == ACQUIRE_CREATING;
    case ACQUIRE_WATCHING_NODE:
    case ACQUIRE_WATCHING_CHILDREN:
      return from == ACQUIRE_LISTING || from == ACQUIRE_WATCHING_NODE ||
             from == ACQUIRE_WATCHING_CHILDREN;
    case ACQUIRE_DECIDED:
      return from == ACQUIRE_CREATING || from == ACQUIRE_LISTING ||
             from == ACQUIRE_WATCHING_NODE || from == ACQUIRE_WATCHING_CHILDREN;
    case ACQUIRE_ENDED:
      return from != ACQUIRE_ENDED;
    case ACQUIRE_STARTING:
    default:
      return FALSE;
    }
}

/* The one place an acquire's step changes. An edge the table does not
 * have is a bug of this file: refused, loudly. */
static gboolean
acquire_set_step (Acquire *acquire, AcquireStep to)
{
  ZkrQueueLock *lock = acquire->lock;
  AcquireStep from = acquire->step;

  if (from == to)
    return TRUE;
  if (!acquire_step_allowed (from, to))
    {
      g_critical ("%s %s: acquire refused %s -> %s", lock->recipe->kind, lock->user_path,
                  acquire_step_names[from], acquire_step_names[to]);
      return FALSE;
    }
  if (g_atomic_int_get (&lock->log_steps))
    g_debug ("%s %s: acquire %s -> %s", lock->recipe->kind, lock->user_path,
             acquire_step_names[from], acquire_step_names[to]);
  acquire->step = to;
  return TRUE;
}

/* Stops everything that can call back into the acquire. */
static void
acquire_detach (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  acquire_set_step (acquire, ACQUIRE_ENDED);
  if (lock->acquire == acquire)
    lock->acquire = NULL;
  zkr__armed_detach (&acquire->armed);
  if (acquire->watch_id != 0)
    zkr__session_watch_remove (lock->session, acquire->watch_id);
  acquire->watch_id = 0;
  acquire_own_forget (acquire);
  zkr__resend_pause_stop (&acquire->resend, TRUE);
}

static void
acquire_succeed (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;
  /* The watch on our node, set and unfired, becomes the hold's. */
  gboolean watched = acquire->own_watch != 0 && acquire->own_seen;
  struct Stat own_stat = acquire->own_stat;

  acquire_detach (acquire);
  g_mutex_lock (&lock->mutex);
  zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_HELD);
  g_free (lock->node_path);
  lock->node_path = g_steal_pointer (&acquire->node_path);
  lock->token = acquire->stat.czxid;
  g_mutex_unlock (&lock->mutex);
  zkr__queue_hold_start (lock, watched ? &own_stat : NULL);
  zkr__queue_lock_answer (lock, &acquire->waiter, NULL);
  acquire_unref (acquire);
}

static void
acquire_return_error (Acquire *acquire, GError *error)
{
  ZkrQueueLock *lock = acquire->lock;

  g_mutex_lock (&lock->mutex);
  zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_IDLE);
  g_mutex_unlock (&lock->mutex);
  zkr__queue_lock_answer (lock, &acquire->waiter, error);
  acquire_unref (acquire);
}

typedef struct {
  Acquire *acquire;
  GError *error;
} FailPosted;

static gboolean acquire_fail_posted (gpointer data);

/* Ends the acquire with @error at once and removes our node (or the one
 * a create in flight may have made) in the background. The caller is
 * never made to wait for that delete: on a connection that died without
 * a word its reply comes only when the partition heals, long after the
 * deadline the caller was promised. A delete still pending is harmless
 * to the queue: requests go in order, so a new acquire of this object
 * is queued behind it, and any waiter behind our node is woken by it. */
static void
acquire_fail (Acquire *acquire, GError *error)
{
  ZkrQueueLock *lock = acquire->lock;
  FailPosted *fail;

  if (acquire->step == ACQUIRE_ENDED)
    {
      g_error_free (error);
      return;
    }
  if (zkr__session_in_place (lock->session))
    {
      /* Ending an acquire answers the caller and may run the recipe's
       * code: not on the completion thread (see ACQUIRE_IN_PLACE). */
      fail = g_new0 (FailPosted, 1);
      fail->acquire = acquire_ref (acquire);
      fail->error = error;
      zkr__session_post (lock->session, acquire_fail_posted, fail, NULL);
      acquire_set_step (acquire, ACQUIRE_DECIDED);
      return;
    }
  acquire_detach (acquire);
  if (acquire->create != NULL)
    zkr__protected_create_abandon (g_steal_pointer (&acquire->create));
  else if (acquire->node_path != NULL)
    zkr__guaranteed_delete (lock->session, acquire->node_path, NULL, NULL);
  acquire_return_error (acquire, error);
}

static gboolean
acquire_fail_posted (gpointer data)
{
  FailPosted *fail = data;

  acquire_fail (fail->acquire, fail->error);
  acquire_unref (fail->acquire);
  g_free (fail);
  return G_SOURCE_REMOVE;
}

static void
acquire_fail_rc (Acquire *acquire, int rc, const char *what)
{
  GError *error = NULL;

  if (rc == ZCLOSING || zkr_session_get_state (acquire->lock->session) == ZKR_SESSION_STATE_CLOSED)
    g_set_error (&error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                 "acquire %s %s: the session was closed", acquire->lock->recipe->kind,
                 acquire->lock->user_path);
  else
    zkr__set_error_from_zk (&error, rc, what, acquire->lock->user_path,
                            zkr_session_get_id (acquire->lock->session));
  acquire_fail (acquire, error);
}

/* The armed deadline passed (worker). */
static void
acquire_on_deadline (gpointer owner)
{
  Acquire *acquire = owner;

  acquire_fail (acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                                      "timed out acquiring %s %s", acquire->lock->recipe->kind,
                                      acquire->lock->user_path));
}

/* The cancellable was cancelled (worker, or the start standing in for it). */
static void
acquire_on_cancelled (gpointer owner)
{
  Acquire *acquire = owner;

  acquire_fail (acquire, zkr__error_new_cancelled ("acquire %s %s", acquire->lock->recipe->kind,
                                                   acquire->lock->user_path));
}

/* What acquires did, process-wide; queue-test.c (in the tests' hooks
 * library only) reads it. */
ZkrQueueCounts zkr__queue_counts;

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
          zkr__session_watch_remove (acquire->lock->session, acquire->watch_id);
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
      else if (reply->rc != ZOK && !zkr__zk_rc_is_retryable (reply->rc))
        acquire_fail_rc (acquire, reply->rc, "watch predecessor of");
      else if (reply->rc != ZOK)
        acquire_look_again_later (acquire);
      /* ZOK: wait for the event. */
    }
  acquire_unref (acquire);
}

/* ---- the node we wait on, when its going lets us through ------------- */

/* Drops the watch on our node (the server's stays, and fires into
 * nothing) and what it told. */
static void
acquire_own_forget (Acquire *acquire)
{
  if (acquire->own_watch != 0)
    zkr__session_watch_remove (acquire->lock->session, acquire->own_watch);
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
          acquire_own_forget (acquire);
          if (reply->rc == ZNONODE)
            /* Someone deleted it: a listing shows that, and we queue
             * again. */
            acquire_list (acquire);
          else if (!zkr__zk_rc_is_retryable (reply->rc))
            acquire_fail_rc (acquire, reply->rc, "watch our own node under");
          else
            acquire_look_again_later (acquire);
        }
    }
  acquire_unref (acquire);
}

/* get_data of our node with a watch: not exists, which on a node already
 * gone would leave a creation watch behind. */
static void
acquire_check_own (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  if (acquire->own_watch == 0)
    acquire->own_watch = zkr__session_watch_add (lock->session, acquire->node_path,
                                                 acquire_on_own_event, acquire);
  acquire->own_seen = FALSE;
  acquire->own_checks_in_flight++;
  ZKR_QUEUE_COUNT (own_checks);
  zkr__op_get_full (lock->session, acquire->node_path, TRUE,
                    ACQUIRE_IN_PLACE | ZKR_REPLY_STAT_ONLY, acquire_own_reply,
                    acquire_ref (acquire));
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
      zkr__session_post (lock->session, acquire_through_posted, acquire_ref (acquire),
                         (GDestroyNotify) acquire_unref);
      acquire_set_step (acquire, ACQUIRE_DECIDED);
      return;
    }
  if (acquire->stat.ephemeralOwner != zkr_session_get_id (lock->session))
    acquire_fail (acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED,
                                        "our node %s belongs to an old session", acquire->node_path));
  else
    acquire_succeed (acquire);
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
      acquire_fail (acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
                                          "our node %s vanished while acquiring %s %s",
                                          acquire->node_name, lock->recipe->kind, lock->user_path));
      return;
    }
  if (lock->recipe->predicate (children, (guint) ours, &wait_on, lock->predicate_data))
    {
      acquire_through (acquire);
      return;
    }
  if (acquire->try_once)
    {
      acquire_on_deadline (acquire);
      return;
    }
  if (wait_on == NULL)
    {
      /* Wait for any change of the children. Listings in this mode leave
       * a child watch, so the one we just evaluated did, unless this is
       * the first time: then list again with a watch. */
      if (acquire->step != ACQUIRE_WATCHING_CHILDREN)
        {
          acquire_set_step (acquire, ACQUIRE_WATCHING_CHILDREN);
          acquire_list (acquire);
        }
      return;
    }
  acquire_set_step (acquire, ACQUIRE_WATCHING_NODE);
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
    zkr__session_watch_remove (lock->session, acquire->watch_id);
  acquire->through_when_gone = !lock->recipe->nodes_come_ahead &&
                               acquire_through_without (lock, children, (guint) ours, wait_on);
  acquire->waited_gone = FALSE;
  if (acquire->through_when_gone)
    /* Its going is all we wait for: a plain watch, no listing. */
    acquire->watch_id = zkr__session_watch_add (lock->session, watch_path,
                                                acquire_on_waited_event, acquire);
  else
    acquire->watch_id = zkr__session_watch_add_listing (lock->session, watch_path, lock->path,
                                                        acquire_on_watch_listing, acquire);
  g_free (acquire->watch_path);
  acquire->watch_path = watch_path;
  acquire->watch_name = zkr__path_basename (watch_path);
  /* get_data, not exists: an exists on a node already gone would leave a
   * creation watch behind. */
  /* ZOK means "wait for the event": no need to wake the worker for it. */
  zkr__op_get_full (lock->session, watch_path, TRUE,
                    ZKR_WAKE_ON_ERROR | ACQUIRE_IN_PLACE | ZKR_REPLY_STAT_ONLY,
                    acquire_watch_reply, acquire_ref (acquire));
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
      else if (zkr__zk_rc_is_retryable (reply->rc))
        acquire_look_again_later (acquire);
      else if (zkr__zk_rc_is_server_answer (reply->rc))
        acquire_fail_rc (acquire, reply->rc, "list");
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
  acquire_unref (acquire);
}

static void
acquire_list (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;

  gboolean watch_children = acquire->step == ACQUIRE_WATCHING_CHILDREN;

  if (watch_children && acquire->watch_id == 0)
    acquire->watch_id = zkr__session_watch_add (lock->session, lock->path, acquire_on_watch, acquire);
  acquire->listings_in_flight++;
  ZKR_QUEUE_COUNT (listings);
  zkr__op_get_children_full (lock->session, lock->path, watch_children, ACQUIRE_IN_PLACE,
                             acquire_list_reply, acquire_ref (acquire));
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
      acquire_fail_rc (acquire, rc, "create lock node under");
      return;
    }
  acquire_set_step (acquire, ACQUIRE_LISTING);
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

static void
acquire_create (Acquire *acquire)
{
  ZkrQueueLock *lock = acquire->lock;
  const char *client_id = lock->node_data != NULL ? lock->node_data
                                                 : zkr_session_get_client_id (lock->session);

  /* A sequential node's name is the recipe's prefix as it is. */
  g_autofree char *suffixed = acquire->fixed_suffix != NULL
                                ? g_strconcat (lock->recipe->lock_name, acquire->fixed_suffix, NULL)
                                : NULL;
  const char *name = suffixed != NULL ? suffixed : lock->recipe->lock_name;

  acquire_set_step (acquire, ACQUIRE_CREATING);
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
    zkr__session_watch_remove (acquire->lock->session, acquire->watch_id);
  acquire->watch_id = 0;
  acquire_own_forget (acquire);
  acquire->through_when_gone = FALSE;
  acquire->waited_gone = FALSE;
  acquire->node_name = NULL;
  g_clear_pointer (&acquire->node_path, g_free);
  g_clear_pointer (&acquire->early_listing, g_ptr_array_unref);
  memset (&acquire->stat, 0, sizeof acquire->stat);
  acquire_create (acquire);
}

/* Our node is made and its verdict still open: list again and re-judge
 * (a watch event may have died with the connection; something the
 * predicate reads changed). Not while CREATING (the protected create
 * waits for the connection itself and a listing follows it) nor once
 * DECIDED (the end is posted; nothing a listing shows can change it). */
static void
acquire_relist (Acquire *acquire)
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

static void
acquire_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Acquire *acquire = user_data;

  (void) session;
  if (acquire->step == ACQUIRE_ENDED)
    return;
  switch (state)
    {
    case ZKR_SESSION_STATE_CONNECTED:
    case ZKR_SESSION_STATE_RECONNECTED:
      /* Not started yet (waiting for a connection), or waiting: look again
       * (a watch event may have been lost with the connection). */
      zkr__resend_pause_stop (&acquire->resend, TRUE);
      /* What we saw of our own node before may be stale: events that
       * libzookeeper's re-set watches bring come in no set order. The
       * listing looks again. */
      acquire_own_forget (acquire);
      if (acquire->step == ACQUIRE_CONNECTING)
        acquire_create (acquire);
      else
        acquire_relist (acquire);
      break;
    case ZKR_SESSION_STATE_LOST:
      acquire_fail (acquire, g_error_new (ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED,
                                          "the session was lost while acquiring %s %s",
                                          acquire->lock->recipe->kind, acquire->lock->user_path));
      break;
    case ZKR_SESSION_STATE_CLOSED:
      acquire_fail_rc (acquire, ZCLOSING, "acquire");
      break;
    case ZKR_SESSION_STATE_CONNECTING:
    case ZKR_SESSION_STATE_SUSPENDED:
    default:
      break;
    }
}

static gpointer
acquire_ref_owner (gpointer owner)
{
  return acquire_ref (owner);
}

static void
acquire_unref_owner (gpointer owner)
{
  acquire_unref (owner);
}

static const ZkrArmedHooks acquire_hooks = {
  .ref = acquire_ref_owner,
  .unref = acquire_unref_owner,
  .on_state = acquire_on_state,
  .on_deadline = acquire_on_deadline,
  .on_cancelled = acquire_on_cancelled,
};

static gboolean
acquire_start (gpointer data)
{
  Acquire *acquire = data;
  ZkrQueueLock *lock = acquire->lock;

  /* What a release from the caller's thread left running. */
  zkr__queue_hold_stop (lock);
  lock->acquire = acquire;
  switch (zkr__armed_arm (&acquire->armed))
    {
    case ZKR_ARMED_CANCELLED:
      /* Cancelled before the call: nothing is sent. */
      acquire_on_cancelled (acquire);
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_CLOSED:
      acquire_fail_rc (acquire, ZCLOSING, "acquire");
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_LOST:
      /* A fresh session is on its way: wait for it, as for a reconnect. */
    case ZKR_ARMED_GO:
    default:
      break;
    }
  /* A session timer: added by a stand-in, it wakes the worker only if due
   * before the worker's planned wake-up. */
  zkr__armed_set_deadline (&acquire->armed, acquire->deadline);
  if (zkr_session_is_connected (lock->session))
    acquire_create (acquire);
  else
    /* acquire_on_state creates on (RE)CONNECTED. */
    acquire_set_step (acquire, ACQUIRE_CONNECTING);
  return G_SOURCE_REMOVE;
}

/* Hands the acquire to the worker. From another thread, the caller runs
 * acquire_start itself, standing in for the worker (holding its turn):
 * the deadline timer and the cancellable are armed before this returns,
 * whatever the connection does (a start queued for the worker would wait
 * for a wake-up that a connection which died without a word never
 * brings), and the create and its listing go out without a thread
 * hand-off. Their replies cannot overtake the start: they need the turn.
 * On the worker, the start is posted (never inside the caller's call). */
void
zkr__queue_acquire_post_start (Acquire *acquire, const ZkrQueueWaiter *waiter)
{
  ZkrSession *session = acquire->lock->session;

  acquire->waiter = *waiter;
  if (zkr__session_in_worker (session))
    {
      zkr__session_post (session, acquire_start, acquire, NULL);
      return;
    }
  zkr__session_stand_in_begin (session);
  (void) acquire_start (acquire);
  zkr__session_stand_in_end (session);
}

Acquire *
zkr__queue_acquire_new (ZkrQueueLock *lock, int timeout_ms, GCancellable *cancellable,
                       const char *fixed_suffix, GError **error)
{
  Acquire *acquire;

  /* Asked once per acquire, before its first line (core/log.h: the debug
   * lines of hot paths). */
  g_atomic_int_set (&lock->log_steps, zkr__log_debug_enabled ());
  g_mutex_lock (&lock->mutex);
  if (lock->state != ZKR_QUEUE_LOCK_IDLE)
    {
      g_mutex_unlock (&lock->mutex);
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD,
                   "%s %s is already %s by this object", lock->recipe->kind, lock->user_path,
                   lock->state == ZKR_QUEUE_LOCK_ACQUIRING ? "being acquired" : "held");
      return NULL;
    }
  zkr__queue_lock_set_state_locked (lock, ZKR_QUEUE_LOCK_ACQUIRING);
  g_mutex_unlock (&lock->mutex);

  acquire = g_new0 (Acquire, 1);
  g_atomic_ref_count_init (&acquire->ref);
  acquire->lock = zkr__queue_lock_ref (lock);
  acquire->try_once = timeout_ms == 0;
  acquire->deadline = timeout_ms > 0 ? g_get_monotonic_time () + (gint64) timeout_ms * 1000
                                     : G_MAXINT64;
  acquire->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  zkr__armed_init (&acquire->armed, &acquire_hooks, acquire, lock->session, acquire->cancellable);
  acquire->fixed_suffix = g_strdup (fixed_suffix);
  return acquire;
}

static gboolean
reevaluate_in_worker (gpointer data)
{
  ZkrQueueLock *lock = data;
  Acquire *acquire = lock->acquire;

  if (acquire != NULL)
    acquire_relist (acquire);
  zkr__queue_lock_unref (lock);
  return G_SOURCE_REMOVE;
}

void
zkr__queue_acquire_reevaluate (ZkrQueueLock *lock)
{
  g_return_if_fail (lock != NULL);
  zkr__session_post (lock->session, reevaluate_in_worker, zkr__queue_lock_ref (lock), NULL);
}

void
zkr__queue_acquire_abandon (ZkrQueueLock *lock)
{
  if (lock->acquire != NULL)
    acquire_fail (lock->acquire, zkr__error_new_cancelled ("acquire %s %s (the lock was freed)",
                                                         lock->recipe->kind, lock->user_path));
}
