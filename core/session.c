/* zkr: the session manager. One ZooKeeper handle at a time, one state
 * machine (docs/design.md §2) driven on a private worker thread, the
 * liveness clock, and state listeners delivered in their own GMainContexts.
 *
 * Threads: ZooKeeper's completion thread only posts events to the worker
 * (session_watcher); every transition happens on the worker through
 * session_set_state(); public listeners run in their captured contexts. */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "error-private.h"
#include "hosts.h"
#include "log.h"
#include "nodes.h"
#include "notifier.h"
#include "ops.h"
#include "path.h"
#include "session-private.h"

/* The context a handle's watcher gets: which session, which handle
 * generation. Freed only after zookeeper_close() returned, when no
 * ZooKeeper thread can use it any more. */
typedef struct {
  ZkrSession *session;
  guint generation;
} HandleContext;

typedef struct {
  guint id;
  ZkrSessionStateFunc func;
  gpointer user_data;
} InternalListener;

typedef struct {
  guint id;
  char *path;
  ZkrWatchFunc func;                /* (nullable) a plain watch, or: */
  ZkrWatchListingFunc listing_func; /* (nullable) one answered with a listing */
  char *list_path;                  /* listing watch: what to list */
  gboolean listing_sent;            /* listing watch: fired; the listing is on
                                     * its way and its reply runs the watch */
  gpointer user_data;
} Watch;

struct _ZkrSession {
  gatomicrefcount ref;
  ZkrSessionOptions *options; /* (owned) validated; read-only after new() */
  ZkrHosts hosts;             /* read-only after new() */
  struct ACL_vector acl;      /* read-only after new(); data owned if acl_owned */
  gboolean acl_owned;

  /* Lock order: lock before clock_lock. No lock is held while calling out. */
  GMutex lock;
  GCond cond;                 /* state changed, or close finished */
  ZkrSessionState state;      /* protected by lock; changed only on the worker */
  zhandle_t *zh;              /* (owned) (nullable) protected by lock */
  HandleContext *handle_ctx;  /* (owned) (nullable) protected by lock */
  guint generation;           /* protected by lock */
  gint64 session_id;          /* protected by lock */
  gint64 handle_session_id;   /* the current handle's session once it
                               * connected, 0 before; protected by lock */
  int timeout_ms;             /* negotiated T; protected by lock */
  gint64 handle_opened;       /* monotonic time of zookeeper_init2; lock */
  gboolean auth_failed;       /* protected by lock */
  gboolean close_done;        /* protected by lock */
  guint lost_count;           /* protected by lock */
  guint pending_deletes;      /* protected by lock */
  gboolean drop_next_create_reply; /* test hook; protected by lock */
  gint rewrite_rc;            /* test hook: the answer given instead; atomic */
  gint rewrite_left;          /* test hook: answers still to rewrite (-1: all); atomic */
  gint rewritten;             /* test hook: answers rewritten so far; atomic */
  ZkrNotifier *listeners;     /* public state listeners */
  GArray *internal_listeners; /* of InternalListener; protected by lock */
  GHashTable *watches;        /* id -> Watch*; protected by lock */
  guint next_id;              /* protected by lock */

  GMutex clock_lock;
  gint64 last_ok_send;        /* protected by clock_lock */

  /* The worker. ctx, loop and thread are read-only after new(); the
   * sources are touched only by the thread whose turn it is. */
  GMainContext *worker_ctx;
  GMainLoop *worker_loop;
  GThread *worker;
  gboolean free_in_worker;    /* set before the loop quits */
  /* Whoever runs the worker's code holds the turn: the worker around each
   * dispatch, or a stand-in (a thread blocked in the session, or sending
   * what the worker would) in its place; see zkr__session_block_standing_in. */
  GMutex turn;
  GThread *stand_in;          /* (atomic) the stand-in holding the turn */
  guint stand_in_posts;       /* (atomic) test hook: posts stand-ins ran */
  guint in_place_posts;       /* (atomic) test hook: posts run in place */
  /* Posts to the worker: one queue and one source whose ready time is the
   * wake-up, so a post while a wake-up is pending costs no system call and
   * replies that arrive together run in one wake-up. */
  GMutex post_lock;
  GQueue posts;               /* of WorkerPost*; protected by post_lock */
  gboolean post_wake_set;     /* the ready time is set; post_lock */
  guint posts_not_in_place;   /* queued posts that may not run in place
                               * (zkr__session_post_in_place); post_lock */
  GQueue stand_ins;           /* of ZkrWait*, threads blocked standing in;
                               * post_lock */
  GList *timers;              /* of SessionTimer*, soonest first; post_lock */
  gint64 planned_wake;        /* when the worker's poll ends (G_MAXINT64:
                               * never); post_lock */
  gboolean planning;          /* the worker is choosing its poll timeout;
                               * post_lock */
  gboolean timers_changed;    /* a sooner timer came while planning;
                               * post_lock */
  guint next_timer_id;        /* post_lock */
  GSource *post_source;       /* attached for the session's life */
  GSource *ping_source;
  GSource *deadline_source;
  GSource *reopen_source;
  guint reopen_attempt;
  gint64 reopen_started;
};

static const char *const state_names[] = {
  [ZKR_SESSION_STATE_CONNECTING] = "CONNECTING",
  [ZKR_SESSION_STATE_CONNECTED] = "CONNECTED",
  [ZKR_SESSION_STATE_SUSPENDED] = "SUSPENDED",
  [ZKR_SESSION_STATE_RECONNECTED] = "RECONNECTED",
  [ZKR_SESSION_STATE_LOST] = "LOST",
  [ZKR_SESSION_STATE_CLOSED] = "CLOSED",
};

const char *
zkr_session_state_name (ZkrSessionState state)
{
  if ((gsize) state >= G_N_ELEMENTS (state_names))
    return "INVALID";
  return state_names[state];
}

static gboolean
state_is_connected (ZkrSessionState state)
{
  return state == ZKR_SESSION_STATE_CONNECTED || state == ZKR_SESSION_STATE_RECONNECTED;
}

/* The allowed edges of the table in session.h. */
static gboolean
transition_allowed (ZkrSessionState from, ZkrSessionState to)
{
  if (from == ZKR_SESSION_STATE_CLOSED)
    return FALSE;
  switch (to)
    {
    case ZKR_SESSION_STATE_CONNECTED:
      return from == ZKR_SESSION_STATE_CONNECTING || from == ZKR_SESSION_STATE_LOST;
    case ZKR_SESSION_STATE_SUSPENDED:
      return state_is_connected (from);
    case ZKR_SESSION_STATE_RECONNECTED:
      return from == ZKR_SESSION_STATE_SUSPENDED;
    case ZKR_SESSION_STATE_LOST:
      return state_is_connected (from) || from == ZKR_SESSION_STATE_SUSPENDED;
    case ZKR_SESSION_STATE_CLOSED:
      return TRUE;
    case ZKR_SESSION_STATE_CONNECTING:
    default:
      return FALSE;
    }
}

static void session_free (ZkrSession *session);

/* ---- posting to the worker ---------------------------------------- */

typedef struct {
  GSourceFunc func;
  gpointer data;
  GDestroyNotify destroy;
} WorkerPost;

typedef enum {
  POST_WAKE = 1 << 0,     /* the posts are to run soon */
  POST_IN_PLACE = 1 << 1, /* may run on the posting thread: see
                           * zkr__session_post_in_place */
} PostFlags;

/* The session whose posts this thread is running in place, if any. */
static GPrivate in_place_session;
/* How many sessions' code this thread runs right now (as the worker, a
 * stand-in, or running posts in place): never user code meanwhile
 * (docs/design.md, "Threads and contexts"). */
static GPrivate session_code_depth;

static void
session_code_enter (void)
{
  guint depth = GPOINTER_TO_UINT (g_private_get (&session_code_depth));

  g_private_set (&session_code_depth, GUINT_TO_POINTER (depth + 1));
}

static void
session_code_leave (void)
{
  guint depth = GPOINTER_TO_UINT (g_private_get (&session_code_depth));

  g_private_set (&session_code_depth, GUINT_TO_POINTER (depth - 1));
}

gboolean
zkr__session_code_running (void)
{
  return g_private_get (&session_code_depth) != NULL;
}

static void
worker_post_free (WorkerPost *post)
{
  if (post->destroy != NULL)
    post->destroy (post->data);
  g_free (post);
}

/* Under post_lock, by whoever holds the turn: takes the queued posts. */
static GQueue
posts_take_locked (ZkrSession *session)
{
  GQueue batch = session->posts;

  g_queue_init (&session->posts);
  session->posts_not_in_place = 0;
  return batch;
}

/* Runs @batch in order; returns how many ran. */
static guint
batch_run (GQueue *batch)
{
  WorkerPost *post;
  guint ran = 0;

  while ((post = g_queue_pop_head (batch)) != NULL)
    {
      /* Every post runs once (they all return G_SOURCE_REMOVE). */
      (void) post->func (post->data);
      worker_post_free (post);
      ran++;
    }
  return ran;
}

/* Whoever holds the turn (the worker, or a stand-in): takes the queued
 * posts and runs them, in order; returns how many. The worker clears its
 * wake flag with the taking (it reset the ready time just before): a
 * waking post after that sets both again, so nothing that asked for a
 * wake-up is left waiting. */
static guint
posts_run (ZkrSession *session, gboolean worker)
{
  GQueue batch;

  g_mutex_lock (&session->post_lock);
  if (worker)
    session->post_wake_set = FALSE;
  batch = posts_take_locked (session);
  g_mutex_unlock (&session->post_lock);
  return batch_run (&batch);
}

/* Worker thread: runs what was posted. Quiet posts run with the next
 * batch. */
static gboolean
worker_posts_dispatch (GSource *source, GSourceFunc callback, gpointer user_data)
{
  (void) callback;
  g_source_set_ready_time (source, -1);
  (void) posts_run (user_data, TRUE);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs worker_posts_funcs = {
  .dispatch = worker_posts_dispatch,
};

static void
worker_posts_init (ZkrSession *session)
{
  g_mutex_init (&session->post_lock);
  g_queue_init (&session->posts);
  session->post_source = g_source_new (&worker_posts_funcs, sizeof (GSource));
  /* The priority idle posts had: timers still come first. */
  g_source_set_priority (session->post_source, G_PRIORITY_DEFAULT_IDLE);
  g_source_set_callback (session->post_source, NULL, session, NULL);
  g_source_set_static_name (session->post_source, "zkr-worker-posts");
  g_source_attach (session->post_source, session->worker_ctx);
}

/* After the worker ended: what was posted behind its quit is dropped. */
static void
worker_posts_clear (ZkrSession *session)
{
  WorkerPost *post;

  g_source_destroy (session->post_source);
  g_clear_pointer (&session->post_source, g_source_unref);
  while ((post = g_queue_pop_head (&session->posts)) != NULL)
    worker_post_free (post);
  g_mutex_clear (&session->post_lock);
}

/* Under post_lock: the queued posts are to run soon. A thread blocked
 * standing in runs them (one thread hand-off instead of two: the replies'
 * completion thread wakes the waiter, not the worker which would then wake
 * it); with none, the worker does. */
static void
post_wake_locked (ZkrSession *session)
{
  ZkrWait *stand_in = g_queue_peek_head (&session->stand_ins);

  if (stand_in != NULL)
    {
      g_mutex_lock (&stand_in->lock);
      stand_in->kicked = TRUE;
      zkr__wait_wake_locked (stand_in);
      g_mutex_unlock (&stand_in->lock);
    }
  else if (!session->post_wake_set)
    {
      session->post_wake_set = TRUE;
      g_source_set_ready_time (session->post_source, 0);
    }
}

static gboolean
unref_in_worker (gpointer data)
{
  zkr_session_unref (data);
  return G_SOURCE_REMOVE;
}

/* Under post_lock, which it releases: runs the queued posts on this
 * thread in the worker's place when that is allowed, and returns TRUE;
 * FALSE (the lock still held) when it is not. Allowed when every queued
 * post may run in place, the turn is free (never waited for: the thread
 * holding it may be waiting for this one, closing the handle, say), and
 * the session is not being finalized. The posts run under a reference of
 * ours, which is never the last one dropped here: finalizing closes the
 * handle, which waits for this thread. */
static gboolean
posts_run_in_place_locked (ZkrSession *session)
{
  GQueue batch;

  if (session->posts_not_in_place != 0 || !g_mutex_trylock (&session->turn))
    return FALSE;
  if (!zkr__ref_try (&session->ref))
    {
      g_mutex_unlock (&session->turn);
      return FALSE;
    }
  batch = posts_take_locked (session);
  g_mutex_unlock (&session->post_lock);
  g_atomic_pointer_set (&session->stand_in, g_thread_self ());
  session_code_enter (); /* left in zkr__session_stand_in_end() */
  g_private_set (&in_place_session, session);
  g_atomic_int_add (&session->in_place_posts, (gint) batch_run (&batch));
  g_private_set (&in_place_session, NULL);
  zkr__session_stand_in_end (session);
  if (!zkr__ref_drop_unless_last (&session->ref))
    zkr__session_post (session, unref_in_worker, session, NULL);
  return TRUE;
}

static void
worker_post_push (ZkrSession *session, GSourceFunc func, gpointer data,
                  GDestroyNotify destroy, PostFlags flags)
{
  WorkerPost *post = g_new (WorkerPost, 1);

  post->func = func;
  post->data = data;
  post->destroy = destroy;
  /* Always deferred: completions never run inside the call that caused
   * them. */
  g_mutex_lock (&session->post_lock);
  g_queue_push_tail (&session->posts, post);
  if (!(flags & POST_IN_PLACE))
    session->posts_not_in_place++;
  else if ((flags & POST_WAKE) && posts_run_in_place_locked (session))
    return;
  /* Still under the lock: once it is released the post can run, and it
   * may drop the session's last reference (the session is then freed on
   * the worker). The worker takes the queue only after resetting the ready
   * time, and never holds this lock while GLib holds the context's. */
  if (flags & POST_WAKE)
    post_wake_locked (session);
  g_mutex_unlock (&session->post_lock);
}

/* Runs the queued posts in this thread, in the worker's place. */
static void
stand_in_run_posts (ZkrSession *session)
{
  zkr__session_stand_in_begin (session);
  g_atomic_int_add (&session->stand_in_posts, (gint) posts_run (session, FALSE));
  zkr__session_stand_in_end (session);
}

void
zkr__session_stand_in_begin (ZkrSession *session)
{
  g_mutex_lock (&session->turn);
  g_atomic_pointer_set (&session->stand_in, g_thread_self ());
  session_code_enter ();
}

void
zkr__session_stand_in_end (ZkrSession *session)
{
  session_code_leave ();
  g_atomic_pointer_set (&session->stand_in, NULL);
  g_mutex_unlock (&session->turn);
}

void
zkr__session_block_standing_in (ZkrSession *session, ZkrWait *wait)
{
  gboolean owed;

  if (zkr__session_in_worker (session))
    {
      zkr__wait_block (wait);
      return;
    }
  /* Our own reference: the posts we run may drop the others. */
  zkr_session_ref (session);
  g_mutex_lock (&session->post_lock);
  g_queue_push_tail (&session->stand_ins, wait);
  g_mutex_unlock (&session->post_lock);
  for (;;)
    {
      gboolean done, kicked;

      g_mutex_lock (&wait->lock);
      while (!wait->done && !wait->kicked)
        zkr__wait_sleep_locked (wait);
      done = wait->done;
      kicked = wait->kicked;
      wait->kicked = FALSE;
      g_mutex_unlock (&wait->lock);
      if (kicked)
        stand_in_run_posts (session);
      if (done)
        break;
    }
  g_mutex_lock (&session->post_lock);
  g_queue_remove (&session->stand_ins, wait);
  /* A wake-up handed to us after our last look is passed on. */
  g_mutex_lock (&wait->lock);
  owed = wait->kicked;
  g_mutex_unlock (&wait->lock);
  if (owed)
    post_wake_locked (session);
  g_mutex_unlock (&session->post_lock);
  g_mutex_clear (&wait->lock);
  g_cond_clear (&wait->cond);
  zkr_session_unref (session);
}

void
zkr__session_post (ZkrSession *session,
                   GSourceFunc func,
                   gpointer data,
                   GDestroyNotify destroy)
{
  worker_post_push (session, func, data, destroy, POST_WAKE);
}

void
zkr__session_post_quiet (ZkrSession *session,
                         GSourceFunc func,
                         gpointer data,
                         GDestroyNotify destroy)
{
  worker_post_push (session, func, data, destroy, 0);
}

void
zkr__session_post_in_place (ZkrSession *session,
                            GSourceFunc func,
                            gpointer data,
                            GDestroyNotify destroy,
                            gboolean wake)
{
  worker_post_push (session, func, data, destroy, POST_IN_PLACE | (wake ? POST_WAKE : 0));
}

gboolean
zkr__session_in_place (ZkrSession *session)
{
  return g_private_get (&in_place_session) == session;
}

GMainContext *
zkr__session_get_worker_context (ZkrSession *session)
{
  return session->worker_ctx;
}

gboolean
zkr__session_in_worker (ZkrSession *session)
{
  GThread *self = g_thread_self ();

  return self == session->worker || self == g_atomic_pointer_get (&session->stand_in);
}

/* ---- session timers ---------------------------------------------- */

typedef struct {
  guint id;
  gint64 when;                /* monotonic, microseconds */
  gint64 latest;              /* when + slack */
  GSourceFunc func;
  gpointer data;
} SessionTimer;

static gint
timer_compare (gconstpointer a, gconstpointer b)
{
  gint64 x = ((const SessionTimer *) a)->when, y = ((const SessionTimer *) b)->when;

  return x < y ? -1 : x > y;
}

guint
zkr__session_timer_add (ZkrSession *session, guint delay_ms, guint slack_ms, GSourceFunc func,
                        gpointer data)
{
  SessionTimer *timer = g_new (SessionTimer, 1);
  gboolean wake = FALSE;
  guint id;

  g_return_val_if_fail (zkr__session_in_worker (session), 0);
  timer->when = g_get_monotonic_time () + (gint64) delay_ms * 1000;
  timer->latest = timer->when + (gint64) slack_ms * 1000;
  timer->func = func;
  timer->data = data;
  g_mutex_lock (&session->post_lock);
  id = timer->id = ++session->next_timer_id;
  session->timers = g_list_insert_sorted (session->timers, timer, timer_compare);
  /* Only a timer whose latest time comes before the worker's poll ends
   * needs to wake it: from a stand-in, a timer per grant (most of them
   * removed again unfired) then mostly costs no wake-up of the worker. */
  if (session->planning)
    session->timers_changed = TRUE;
  else if (timer->latest < session->planned_wake)
    {
      session->planned_wake = timer->latest;
      wake = TRUE;
    }
  g_mutex_unlock (&session->post_lock);
  if (wake)
    g_main_context_wakeup (session->worker_ctx);
  return id;
}

void
zkr__session_timer_remove (ZkrSession *session, guint id)
{
  g_return_if_fail (zkr__session_in_worker (session));
  g_mutex_lock (&session->post_lock);
  for (GList *l = session->timers; l != NULL; l = l->next)
    if (((SessionTimer *) l->data)->id == id)
      {
        g_free (l->data);
        session->timers = g_list_delete_link (session->timers, l);
        break;
      }
  g_mutex_unlock (&session->post_lock);
}

void
zkr__session_timer_clear (ZkrSession *session, guint *id)
{
  if (*id != 0)
    zkr__session_timer_remove (session, *id);
  *id = 0;
}

/* Worker thread, before polling: shortens GLib's @timeout (ms, -1: none)
 * to the soonest session timer and records when the poll will end. */
static gint
timers_plan (ZkrSession *session, gint timeout)
{
  gint64 now = g_get_monotonic_time ();
  gint64 wake = timeout < 0 ? G_MAXINT64 : now + (gint64) timeout * 1000;

  g_mutex_lock (&session->post_lock);
  session->planning = FALSE;
  if (session->timers_changed)
    {
      session->timers_changed = FALSE;
      wake = now;
    }
  for (GList *l = session->timers; l != NULL; l = l->next)
    wake = MIN (wake, ((SessionTimer *) l->data)->latest);
  session->planned_wake = wake;
  g_mutex_unlock (&session->post_lock);
  if (wake == G_MAXINT64)
    return -1;
  return wake <= now ? 0 : (gint) MIN ((wake - now + 999) / 1000, G_MAXINT);
}

/* Worker thread, holding the turn: runs the timers that are due. */
static void
timers_run (ZkrSession *session)
{
  gint64 now = g_get_monotonic_time ();

  for (;;)
    {
      SessionTimer *timer = NULL;

      g_mutex_lock (&session->post_lock);
      if (session->timers != NULL && ((SessionTimer *) session->timers->data)->when <= now)
        {
          timer = session->timers->data;
          session->timers = g_list_delete_link (session->timers, session->timers);
        }
      g_mutex_unlock (&session->post_lock);
      if (timer == NULL)
        return;
      /* One-shot: the return value is not looked at. */
      (void) timer->func (timer->data);
      g_free (timer);
    }
}

/* GLib's loop, with the turn taken around each dispatch so that a stand-in
 * and the worker never run the session's code at the same time, and the
 * session's own timers (zkr__session_timer_add) served beside GLib's. */
static gpointer
worker_main (gpointer data)
{
  ZkrSession *session = data;
  GMainContext *ctx = session->worker_ctx;
  GPollFD *fds = NULL;
  gint allocated = 0;

  g_main_context_push_thread_default (ctx);
  session_code_enter ();
  while (g_main_loop_is_running (session->worker_loop))
    {
      gint priority, timeout, count;
      gboolean ready;

      g_mutex_lock (&session->post_lock);
      session->planning = TRUE;
      g_mutex_unlock (&session->post_lock);
      g_main_context_prepare (ctx, &priority);
      while ((count = g_main_context_query (ctx, priority, &timeout, fds, allocated)) > allocated)
        {
          allocated = count;
          fds = g_renew (GPollFD, fds, allocated);
        }
      timeout = timers_plan (session, timeout);
      if (count > 0 || timeout != 0)
        g_poll (fds, (guint) count, timeout);
      ready = g_main_context_check (ctx, priority, fds, count);
      g_mutex_lock (&session->turn);
      if (ready)
        g_main_context_dispatch (ctx);
      timers_run (session);
      g_mutex_unlock (&session->turn);
    }
  g_free (fds);
  session_code_leave ();
  g_main_context_pop_thread_default (ctx);
  if (session->free_in_worker)
    session_free (session);
  return NULL;
}

static gboolean
worker_quit (gpointer data)
{
  ZkrSession *session = data;

  g_main_loop_quit (session->worker_loop);
  return G_SOURCE_REMOVE;
}

/* ---- listeners ---------------------------------------------------- */

/* A session being finalized still closes and so still transitions to
 * CLOSED; listeners are not told then, since nobody holds it any more. */
static gpointer
session_try_ref (gpointer data)
{
  ZkrSession *session = data;

  return zkr__ref_try (&session->ref) ? session : NULL;
}

static void
state_marshal (GCallback func, gpointer source, int event, gpointer user_data)
{
  ((ZkrSessionStateFunc) (void (*) (void)) func) (source, (ZkrSessionState) event, user_data);
}

guint
zkr_session_add_state_listener (ZkrSession *session,
                                ZkrSessionStateFunc func,
                                gpointer user_data,
                                GDestroyNotify destroy)
{
  g_return_val_if_fail (session != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__notifier_add (session->listeners, (GCallback) (void (*) (void)) func, user_data, destroy);
}

void
zkr_session_remove_state_listener (ZkrSession *session, guint listener_id)
{
  g_return_if_fail (session != NULL);
  zkr__notifier_remove (session->listeners, listener_id);
}

guint
zkr__session_add_internal_listener (ZkrSession *session,
                                    ZkrSessionStateFunc func,
                                    gpointer user_data)
{
  InternalListener entry = { 0, func, user_data };

  g_mutex_lock (&session->lock);
  entry.id = ++session->next_id;
  g_array_append_val (session->internal_listeners, entry);
  g_mutex_unlock (&session->lock);
  return entry.id;
}

void
zkr__session_remove_internal_listener (ZkrSession *session, guint id)
{
  g_mutex_lock (&session->lock);
  for (guint i = 0; i < session->internal_listeners->len; i++)
    if (g_array_index (session->internal_listeners, InternalListener, i).id == id)
      {
        g_array_remove_index (session->internal_listeners, i);
        break;
      }
  g_mutex_unlock (&session->lock);
}

static gboolean
internal_listener_is_registered (ZkrSession *session, guint id)
{
  gboolean found = FALSE;

  g_mutex_lock (&session->lock);
  for (guint i = 0; i < session->internal_listeners->len && !found; i++)
    found = g_array_index (session->internal_listeners, InternalListener, i).id == id;
  g_mutex_unlock (&session->lock);
  return found;
}

/* ---- the state funnel --------------------------------------------- */

/* Worker thread, no lock held. The only place the state changes. Internal
 * listeners (recipes) hear of it first, synchronously, so that a lock is
 * marked in doubt or lost before any user callback can run. */
static gboolean
session_set_state (ZkrSession *session, ZkrSessionState state)
{
  ZkrSessionState old;
  g_autoptr (GArray) internal = NULL;

  g_mutex_lock (&session->lock);
  old = session->state;
  if (!transition_allowed (old, state))
    {
      g_mutex_unlock (&session->lock);
      g_debug ("session 0x%" G_GINT64_MODIFIER "x: refused %s -> %s",
               session->session_id, zkr_session_state_name (old),
               zkr_session_state_name (state));
      return FALSE;
    }
  session->state = state;
  if (state == ZKR_SESSION_STATE_LOST)
    session->lost_count++;
  g_cond_broadcast (&session->cond);
  internal = g_array_copy (session->internal_listeners);
  g_mutex_unlock (&session->lock);

  g_debug ("session 0x%" G_GINT64_MODIFIER "x: %s -> %s", session->session_id,
           zkr_session_state_name (old), zkr_session_state_name (state));
  for (guint i = 0; i < internal->len; i++)
    {
      InternalListener *entry = &g_array_index (internal, InternalListener, i);

      /* An earlier listener may have removed this one (and freed its
       * data): an acquire failing on LOST abandons its protected create,
       * whose connection wait is further down this copy. */
      if (internal_listener_is_registered (session, entry->id))
        entry->func (session, state, entry->user_data);
    }
  zkr__notifier_emit (session->listeners, state);
  return TRUE;
}

/* ---- the liveness clock ------------------------------------------- */

void
zkr__session_note_answer (ZkrSession *session, gint64 send_time)
{
  g_mutex_lock (&session->clock_lock);
  if (send_time > session->last_ok_send)
    session->last_ok_send = send_time;
  g_mutex_unlock (&session->clock_lock);
}

static void
clock_reset (ZkrSession *session, gint64 send_time)
{
  g_mutex_lock (&session->clock_lock);
  session->last_ok_send = send_time;
  g_mutex_unlock (&session->clock_lock);
}

gint64
zkr_session_get_last_ok_send (ZkrSession *session)
{
  gint64 value;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->clock_lock);
  value = session->last_ok_send;
  g_mutex_unlock (&session->clock_lock);
  return value;
}

static int
liveness_margin_ms (ZkrSession *session, int timeout_ms)
{
  if (session->options->margin_ms >= 0)
    return session->options->margin_ms;
  return MIN (timeout_ms / 10, 1000);
}

gint64
zkr_session_get_safe_deadline (ZkrSession *session)
{
  gint64 last_ok_send;
  int timeout_ms;
  double usable;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  timeout_ms = session->timeout_ms;
  g_mutex_unlock (&session->lock);
  last_ok_send = zkr_session_get_last_ok_send (session);
  if (last_ok_send == 0)
    return 0;
  /* docs/design.md §2.3: the server expires us no earlier than T after it
   * last heard from us, which was no earlier than last_ok_send; shrink T by
   * the worst clock-rate difference and keep a margin to stop work in. */
  usable = timeout_ms * 1000.0 * (1.0 - session->options->drift);
  return last_ok_send + (gint64) usable - (gint64) liveness_margin_ms (session, timeout_ms) * 1000;
}

/* ---- timers (worker thread only) ---------------------------------- */

static void
source_clear (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_source_unref (*source);
      *source = NULL;
    }
}

static GSource *
timer_start (ZkrSession *session, guint ms, GSourceFunc func, const char *name)
{
  GSource *source = g_timeout_source_new (ms);

  g_source_set_callback (source, func, session, NULL);
  g_source_set_static_name (source, name);
  g_source_attach (source, session->worker_ctx);
  return source;
}

static void
ping_done (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  (void) session;
  (void) user_data;
  /* zkr_op_* already advanced the clock for an answered request. */
  g_debug ("liveness ping: %s", zkr__zk_error_name (reply->rc));
}

static void
ping_send (ZkrSession *session)
{
  zkr__op_exists (session, "/", FALSE, ping_done, NULL);
}

static gboolean
ping_tick (gpointer data)
{
  ping_send (data);
  return G_SOURCE_CONTINUE;
}

static void
ping_start (ZkrSession *session, int timeout_ms)
{
  source_clear (&session->ping_source);
  session->ping_source = timer_start (session, MAX (timeout_ms / 3, 1),
                                      ping_tick, "zkr-liveness-ping");
  ping_send (session);
}

/* ---- handles ------------------------------------------------------ */

static void session_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx);

static void
handle_add_auth (ZkrSession *session, zhandle_t *zh)
{
  g_autofree char *cert = NULL;
  int rc;

  if (session->options->auth_user == NULL)
    return;
  cert = g_strdup_printf ("%s:%s", session->options->auth_user, session->options->auth_password);
  rc = zoo_add_auth (zh, "digest", cert, (int) strlen (cert), NULL, NULL);
  memset (cert, 0, strlen (cert));
  if (rc != ZOK)
    g_debug ("zoo_add_auth: %s", zkr__zk_error_name (rc));
}

/* Any thread, no lock held. Opens a fresh handle (a new ZooKeeper session).
 * The lock is held across zookeeper_init2() so that the worker cannot look
 * at events of the new generation before the handle is stored. */
static gboolean
session_open_handle (ZkrSession *session, GError **error)
{
  HandleContext *handle_ctx = g_new0 (HandleContext, 1);
  zhandle_t *zh;
  int saved_errno;

  handle_ctx->session = session;
  g_mutex_lock (&session->lock);
  handle_ctx->generation = ++session->generation;
  session->handle_opened = g_get_monotonic_time ();
  zh = zookeeper_init2 (session->options->hosts, session_watcher,
                        session->options->session_timeout_ms, NULL, handle_ctx,
                        0, zkr__log_zookeeper_message);
  saved_errno = errno;
  if (zh == NULL)
    {
      g_mutex_unlock (&session->lock);
      g_free (handle_ctx);
      g_set_error (error, ZKR_ERROR,
                   saved_errno == EINVAL ? ZKR_ERROR_INVALID_ARGUMENT : ZKR_ERROR_CONNECTION_LOSS,
                   "could not start a ZooKeeper client for \"%s\": %s",
                   session->hosts.hosts, g_strerror (saved_errno));
      return FALSE;
    }
  zoo_set_servers_resolution_delay (zh, ZKR_SESSION_RESOLUTION_DELAY_MS);
  handle_add_auth (session, zh);
  session->zh = zh;
  session->handle_session_id = 0;
  session->handle_ctx = handle_ctx;
  g_mutex_unlock (&session->lock);
  return TRUE;
}

/* Worker thread (or the finalizing thread once the worker is gone), no
 * lock held. zookeeper_close() fails the handle's pending completions with
 * ZCLOSING; they arrive as stale-generation posts and are ignored. */
static void
session_close_handle (ZkrSession *session)
{
  zhandle_t *zh;
  HandleContext *handle_ctx;

  g_mutex_lock (&session->lock);
  zh = g_steal_pointer (&session->zh);
  handle_ctx = g_steal_pointer (&session->handle_ctx);
  session->generation++;
  g_mutex_unlock (&session->lock);
  if (zh != NULL)
    {
      zookeeper_close (zh);
      zkr__ops_handle_closed (session, zh);
    }
  g_free (handle_ctx);
}

zhandle_t *
zkr__session_lock_handle (ZkrSession *session, gint64 *session_id, guint *generation)
{
  g_mutex_lock (&session->lock);
  if (session->zh == NULL)
    {
      g_mutex_unlock (&session->lock);
      return NULL;
    }
  if (session_id != NULL)
    *session_id = session->handle_session_id;
  if (generation != NULL)
    *generation = session->generation;
  return session->zh;
}

void
zkr__session_unlock_handle (ZkrSession *session)
{
  g_mutex_unlock (&session->lock);
}

static gboolean reopen_tick (gpointer data);

/* Worker thread. After LOST: drop the old handle and start a fresh
 * session; when the client cannot even be created, retry with the
 * policy's backoff (never giving up while the session is open). */
static void
session_reopen (ZkrSession *session)
{
  g_autoptr (GError) error = NULL;
  guint sleep_ms = 0;
  gint64 elapsed_ms;

  source_clear (&session->ping_source);
  source_clear (&session->deadline_source);
  source_clear (&session->reopen_source);
  session_close_handle (session);
  if (zkr_session_get_state (session) == ZKR_SESSION_STATE_CLOSED)
    return;
  if (session->reopen_attempt == 0)
    session->reopen_started = g_get_monotonic_time ();
  if (session_open_handle (session, &error))
    {
      session->reopen_attempt = 0;
      return;
    }
  elapsed_ms = (g_get_monotonic_time () - session->reopen_started) / 1000;
  if (!zkr_retry_policy_allow (session->options->retry, session->reopen_attempt,
                               elapsed_ms, g_random_int (), &sleep_ms))
    sleep_ms = 5000;
  session->reopen_attempt++;
  g_debug ("reopening the session failed (%s); next try in %u ms", error->message, sleep_ms);
  session->reopen_source = timer_start (session, sleep_ms, reopen_tick, "zkr-reopen");
}

static gboolean
reopen_tick (gpointer data)
{
  ZkrSession *session = data;

  g_clear_pointer (&session->reopen_source, g_source_unref);
  session_reopen (session);
  return G_SOURCE_REMOVE;
}

/* ---- ZooKeeper events (worker thread) ----------------------------- */

static void
session_declare_lost (ZkrSession *session, const char *why)
{
  g_debug ("session 0x%" G_GINT64_MODIFIER "x lost: %s", session->session_id, why);
  if (session_set_state (session, ZKR_SESSION_STATE_LOST))
    session_reopen (session);
}

typedef struct {
  ZkrSession *session;
  gint64 session_id;
  guint generation;
} ExpiredNote;

static gboolean
expired_note_run (gpointer data)
{
  ExpiredNote *note = data;
  ZkrSession *session = note->session;
  gboolean same;

  g_mutex_lock (&session->lock);
  /* The same handle, and the session it has now (or had not yet when the
   * request went out: the first session of that handle). */
  if (note->generation != 0)
    same = session->zh != NULL && session->generation == note->generation &&
           (note->session_id == 0 || note->session_id == session->handle_session_id);
  else
    same = session->zh != NULL && session->session_id == note->session_id;
  g_mutex_unlock (&session->lock);
  if (same && (state_is_connected (zkr_session_get_state (session)) ||
               zkr_session_get_state (session) == ZKR_SESSION_STATE_SUSPENDED))
    session_declare_lost (session, "a request was answered: session expired");
  return G_SOURCE_REMOVE;
}

void
zkr__session_note_expired (ZkrSession *session, gint64 session_id, guint generation)
{
  ExpiredNote *note = g_new0 (ExpiredNote, 1);

  note->session = session;
  note->session_id = session_id;
  note->generation = generation;
  zkr__session_post (session, expired_note_run, note, g_free);
}

static gboolean
deadline_tick (gpointer data)
{
  ZkrSession *session = data;

  g_clear_pointer (&session->deadline_source, g_source_unref);
  if (zkr_session_get_state (session) == ZKR_SESSION_STATE_SUSPENDED)
    session_declare_lost (session, "suspended for the whole session timeout");
  return G_SOURCE_REMOVE;
}

static void
on_connected (ZkrSession *session, zhandle_t *zh)
{
  const clientid_t *client = zoo_client_id (zh);
  ZkrSessionState old;
  gint64 previous_id, opened;
  int timeout_ms = zoo_recv_timeout (zh);

  g_mutex_lock (&session->lock);
  old = session->state;
  previous_id = session->session_id;
  session->session_id = client->client_id;
  session->handle_session_id = client->client_id;
  session->timeout_ms = timeout_ms;
  opened = session->handle_opened;
  g_mutex_unlock (&session->lock);

  source_clear (&session->deadline_source);
  if (old == ZKR_SESSION_STATE_CONNECTING || old == ZKR_SESSION_STATE_LOST)
    {
      /* A new session: the server started its timer after we asked for
       * it, so the time we asked is a safe start for the clock. */
      clock_reset (session, opened);
      session_set_state (session, ZKR_SESSION_STATE_CONNECTED);
    }
  else if (old == ZKR_SESSION_STATE_SUSPENDED && previous_id == client->client_id)
    session_set_state (session, ZKR_SESSION_STATE_RECONNECTED);
  else if (old == ZKR_SESSION_STATE_SUSPENDED)
    {
      clock_reset (session, opened);
      session_set_state (session, ZKR_SESSION_STATE_LOST);
      session_set_state (session, ZKR_SESSION_STATE_CONNECTED);
    }
  if (state_is_connected (zkr_session_get_state (session)))
    ping_start (session, timeout_ms);
}

static void
on_disconnected (ZkrSession *session)
{
  gint64 deadline, now;
  int timeout_ms;

  if (!state_is_connected (zkr_session_get_state (session)))
    return;
  source_clear (&session->ping_source);
  session_set_state (session, ZKR_SESSION_STATE_SUSPENDED);
  g_mutex_lock (&session->lock);
  timeout_ms = session->timeout_ms;
  g_mutex_unlock (&session->lock);
  /* LOST once the server may have expired us: T after the last request it
   * answered was sent. */
  deadline = zkr_session_get_last_ok_send (session) + (gint64) timeout_ms * 1000;
  now = g_get_monotonic_time ();
  source_clear (&session->deadline_source);
  session->deadline_source = timer_start (session,
                                          deadline > now ? (guint) ((deadline - now + 999) / 1000) : 0,
                                          deadline_tick, "zkr-suspended-deadline");
}

static void
on_auth_failed (ZkrSession *session)
{
  g_mutex_lock (&session->lock);
  session->auth_failed = TRUE;
  g_cond_broadcast (&session->cond);
  g_mutex_unlock (&session->lock);
  /* The handle is dead for good; a fresh one would fail the same way, so
   * report LOST and stop (wait_connected reports ZKR_ERROR_AUTH). */
  source_clear (&session->ping_source);
  source_clear (&session->deadline_source);
  session_set_state (session, ZKR_SESSION_STATE_LOST);
}

static void
on_zk_state (ZkrSession *session, guint generation, int zk_state)
{
  zhandle_t *zh;

  g_mutex_lock (&session->lock);
  zh = session->zh;
  if (generation != session->generation || zh == NULL ||
      session->state == ZKR_SESSION_STATE_CLOSED)
    {
      g_mutex_unlock (&session->lock);
      return;
    }
  g_mutex_unlock (&session->lock);

  if (zk_state == ZOO_CONNECTED_STATE)
    on_connected (session, zh);
  else if (zk_state == ZOO_EXPIRED_SESSION_STATE)
    {
      if (zkr_session_get_state (session) == ZKR_SESSION_STATE_CONNECTING)
        session_reopen (session);
      else
        session_declare_lost (session, "expired by the server");
    }
  else if (zk_state == ZOO_AUTH_FAILED_STATE)
    on_auth_failed (session);
  else
    on_disconnected (session);
}

static void
watch_free (gpointer data)
{
  Watch *watch = data;

  g_free (watch->path);
  g_free (watch->list_path);
  g_free (watch);
}

/* A listing watch that fired: the listing sent for it. */
typedef struct {
  guint watch_id;
  int type;           /* the event's type */
} WatchListing;

/* Worker thread: the listing a listing watch asked for came back; the
 * watch runs with it unless it was removed meanwhile. */
static void
watch_listing_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  WatchListing *listing = user_data;
  gpointer watch = NULL;

  g_mutex_lock (&session->lock);
  g_hash_table_steal_extended (session->watches, GUINT_TO_POINTER (listing->watch_id), NULL,
                               &watch);
  g_mutex_unlock (&session->lock);
  if (watch != NULL)
    {
      ((Watch *) watch)->listing_func (session, listing->type, reply, ((Watch *) watch)->user_data);
      watch_free (watch);
    }
  g_free (listing);
}

/* Under the session lock: marks the listing watches on @path that have not
 * fired yet and adds their listings to @out (WatchListing*, then the path
 * to list, in pairs); returns whether a plain watch is on @path too. */
static gboolean
watches_fire_listings (ZkrSession *session, int type, const char *path, GPtrArray *out)
{
  GHashTableIter iter;
  gpointer value;
  gboolean plain = FALSE;

  g_hash_table_iter_init (&iter, session->watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Watch *watch = value;
      WatchListing *listing;

      if (g_strcmp0 (watch->path, path) != 0)
        continue;
      if (watch->func != NULL)
        {
          plain = TRUE;
          continue;
        }
      if (watch->listing_sent)
        continue;
      watch->listing_sent = TRUE;
      listing = g_new0 (WatchListing, 1);
      listing->watch_id = watch->id;
      listing->type = type;
      g_ptr_array_add (out, listing);
      g_ptr_array_add (out, g_strdup (watch->list_path));
    }
  return plain;
}

/* No lock held: sends the listings watches_fire_listings() collected. */
static void
watches_send_listings (ZkrSession *session, GPtrArray *listings)
{
  for (guint i = 0; i + 1 < listings->len; i += 2)
    {
      g_autofree char *list_path = g_ptr_array_index (listings, i + 1);

      zkr__op_get_children (session, list_path, FALSE, watch_listing_reply,
                            g_ptr_array_index (listings, i));
    }
  g_ptr_array_unref (listings);
}

static void
on_node_event (ZkrSession *session, guint generation, int type, const char *path)
{
  g_autoptr (GPtrArray) fired = g_ptr_array_new_with_free_func (watch_free);
  GPtrArray *listings = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  g_mutex_lock (&session->lock);
  if (generation != session->generation)
    {
      g_mutex_unlock (&session->lock);
      g_ptr_array_unref (listings);
      return;
    }
  /* Listing watches added after the event passed the completion thread. */
  watches_fire_listings (session, type, path, listings);
  g_hash_table_iter_init (&iter, session->watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Watch *watch = value;
      if (watch->func != NULL && g_strcmp0 (watch->path, path) == 0)
        {
          g_ptr_array_add (fired, watch);
          g_hash_table_iter_steal (&iter);
        }
    }
  g_mutex_unlock (&session->lock);
  watches_send_listings (session, listings);
  for (guint i = 0; i < fired->len; i++)
    {
      Watch *watch = g_ptr_array_index (fired, i);
      watch->func (session, type, path, watch->user_data);
    }
}

typedef struct {
  ZkrSession *session;
  guint generation;
  int type;
  int state;
  char *path;
} HandleEvent;

static void
handle_event_free (gpointer data)
{
  HandleEvent *event = data;

  g_free (event->path);
  g_free (event);
}

static gboolean
handle_event_dispatch (gpointer data)
{
  HandleEvent *event = data;

  if (event->type == ZOO_SESSION_EVENT)
    on_zk_state (event->session, event->generation, event->state);
  else
    on_node_event (event->session, event->generation, event->type, event->path);
  return G_SOURCE_REMOVE;
}

/* ZooKeeper's completion thread: must not block; only posts, and sends the
 * listings of listing watches (their replies then wake the worker, so the
 * event itself need not when no plain watch waits for it). */
static void
session_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
  HandleContext *handle_ctx = ctx;
  ZkrSession *session = handle_ctx->session;
  HandleEvent *event = g_new0 (HandleEvent, 1);
  GPtrArray *listings = g_ptr_array_new ();
  gboolean plain = TRUE;

  (void) zh;
  event->session = session;
  event->generation = handle_ctx->generation;
  event->type = type;
  event->state = state;
  event->path = g_strdup (path);
  if (type != ZOO_SESSION_EVENT && path != NULL)
    {
      g_mutex_lock (&session->lock);
      if (handle_ctx->generation == session->generation)
        plain = watches_fire_listings (session, type, path, listings);
      g_mutex_unlock (&session->lock);
    }
  /* The event first: a listing's reply is handled after it. */
  if (plain || listings->len == 0)
    zkr__session_post (session, handle_event_dispatch, event, handle_event_free);
  else
    zkr__session_post_quiet (session, handle_event_dispatch, event, handle_event_free);
  watches_send_listings (session, listings);
}

/* ---- watches ------------------------------------------------------ */

static guint
watch_insert (ZkrSession *session, Watch *watch)
{
  guint id;

  g_mutex_lock (&session->lock);
  id = watch->id = ++session->next_id;
  g_hash_table_insert (session->watches, GUINT_TO_POINTER (id), watch);
  g_mutex_unlock (&session->lock);
  return id;
}

guint
zkr__session_watch_add (ZkrSession *session,
                        const char *path,
                        ZkrWatchFunc func,
                        gpointer user_data)
{
  Watch *watch = g_new0 (Watch, 1);

  watch->path = g_strdup (path);
  watch->func = func;
  watch->user_data = user_data;
  return watch_insert (session, watch);
}

guint
zkr__session_watch_add_listing (ZkrSession *session,
                                const char *path,
                                const char *list_path,
                                ZkrWatchListingFunc func,
                                gpointer user_data)
{
  Watch *watch = g_new0 (Watch, 1);

  watch->path = g_strdup (path);
  watch->list_path = g_strdup (list_path);
  watch->listing_func = func;
  watch->user_data = user_data;
  return watch_insert (session, watch);
}

void
zkr__session_watch_remove (ZkrSession *session, guint id)
{
  g_mutex_lock (&session->lock);
  g_hash_table_remove (session->watches, GUINT_TO_POINTER (id));
  g_mutex_unlock (&session->lock);
}


/* ---- construction ------------------------------------------------- */

static gboolean
options_validate (const ZkrSessionOptions *options, ZkrHosts *hosts, GError **error)
{
  if (options->hosts == NULL)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "no connect string given");
      return FALSE;
    }
  if (!zkr__hosts_parse (options->hosts, hosts, error))
    return FALSE;
  if (options->session_timeout_ms <= 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid session timeout %d ms: must be > 0", options->session_timeout_ms);
      return FALSE;
    }
  if (options->connection_timeout_ms <= 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid connection timeout %d ms: must be > 0", options->connection_timeout_ms);
      return FALSE;
    }
  if (!zkr__namespace_validate (options->name_space, error))
    return FALSE;
  if (options->auth_user != NULL &&
      (*options->auth_user == '\0' || strchr (options->auth_user, ':') != NULL ||
       options->auth_password == NULL))
    {
      /* The user name may be shown; the password never is. */
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid digest user \"%s\": must be non-empty, without ':', with a password",
                   options->auth_user);
      return FALSE;
    }
  if (options->acl != ZKR_ACL_OPEN && options->auth_user == NULL)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "ACL mode %d needs digest auth: set it with zkr_session_options_set_digest_auth()",
                   (int) options->acl);
      return FALSE;
    }
  if ((int) options->acl < ZKR_ACL_OPEN || options->acl > ZKR_ACL_CREATOR_ALL_WORLD_READ)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid ACL mode %d", (int) options->acl);
      return FALSE;
    }
  if (options->client_id == NULL || !g_utf8_validate (options->client_id, -1, NULL) ||
      strlen (options->client_id) > 1024)
    {
      g_autofree char *quoted = zkr__quote_value (options->client_id, -1);

      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid client id %s: must be UTF-8 text of at most 1024 bytes", quoted);
      return FALSE;
    }
  if (!(options->drift >= 0.0 && options->drift < 0.5) || options->margin_ms < -1)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid liveness settings drift %g margin %d ms: need 0 <= drift < 0.5, margin >= 0 (or -1)",
                   options->drift, options->margin_ms);
      return FALSE;
    }
  return TRUE;
}

static void
session_setup_acl (ZkrSession *session)
{
  static struct Id world = { (char *) "world", (char *) "anyone" };
  static struct Id auth = { (char *) "auth", (char *) "" };

  switch (session->options->acl)
    {
    case ZKR_ACL_CREATOR_ALL:
      session->acl = ZOO_CREATOR_ALL_ACL;
      break;
    case ZKR_ACL_CREATOR_ALL_WORLD_READ:
      session->acl.count = 2;
      session->acl.data = g_new0 (struct ACL, 2);
      session->acl.data[0].perms = ZOO_PERM_ALL;
      session->acl.data[0].id = auth;
      session->acl.data[1].perms = ZOO_PERM_READ;
      session->acl.data[1].id = world;
      session->acl_owned = TRUE;
      break;
    case ZKR_ACL_OPEN:
    default:
      session->acl = ZOO_OPEN_ACL_UNSAFE;
      break;
    }
}

ZkrSession *
zkr_session_new (const ZkrSessionOptions *options, GError **error)
{
  ZkrSession *session;
  ZkrHosts hosts = { 0 };

  g_return_val_if_fail (options != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!options_validate (options, &hosts, error))
    {
      zkr__hosts_clear (&hosts);
      return NULL;
    }
  zkr__log_init ();
  session = g_new0 (ZkrSession, 1);
  g_atomic_ref_count_init (&session->ref);
  session->options = zkr_session_options_copy (options);
  session->hosts = hosts;
  session_setup_acl (session);
  g_mutex_init (&session->lock);
  g_cond_init (&session->cond);
  g_mutex_init (&session->clock_lock);
  session->state = ZKR_SESSION_STATE_CONNECTING;
  session->timeout_ms = options->session_timeout_ms;
  session->internal_listeners = g_array_new (FALSE, FALSE, sizeof (InternalListener));
  session->listeners = zkr__notifier_new (session, session_try_ref,
                                          (void (*) (gpointer)) zkr_session_unref, state_marshal);
  session->watches = g_hash_table_new_full (NULL, NULL, NULL, watch_free);
  session->worker_ctx = g_main_context_new ();
  session->worker_loop = g_main_loop_new (session->worker_ctx, TRUE);
  g_mutex_init (&session->turn);
  session->planned_wake = G_MAXINT64;
  worker_posts_init (session);
  session->worker = g_thread_new ("zkr-session", worker_main, session);
  if (!session_open_handle (session, error))
    {
      session->state = ZKR_SESSION_STATE_CLOSED;
      zkr_session_unref (session);
      return NULL;
    }
  return session;
}

ZkrSession *
zkr_session_connect (const ZkrSessionOptions *options, GError **error)
{
  ZkrSession *session;

  g_return_val_if_fail (options != NULL, NULL);
  session = zkr_session_new (options, error);
  if (session == NULL)
    return NULL;
  if (!zkr_session_wait_connected (session, options->connection_timeout_ms, error))
    {
      zkr_session_close (session);
      zkr_session_unref (session);
      return NULL;
    }
  return session;
}

/* ---- close and free ----------------------------------------------- */

/* Worker thread, no lock held. */
static void
session_close_in_worker (ZkrSession *session)
{
  source_clear (&session->ping_source);
  source_clear (&session->deadline_source);
  source_clear (&session->reopen_source);
  if (zkr_session_get_state (session) != ZKR_SESSION_STATE_CLOSED)
    {
      session_set_state (session, ZKR_SESSION_STATE_CLOSED);
      /* Closing the handle sends closeSession: the server deletes our
       * ephemeral nodes now instead of after the timeout. */
      session_close_handle (session);
    }
  g_mutex_lock (&session->lock);
  session->close_done = TRUE;
  g_cond_broadcast (&session->cond);
  g_mutex_unlock (&session->lock);
}

static gboolean
close_dispatch (gpointer data)
{
  session_close_in_worker (data);
  return G_SOURCE_REMOVE;
}

void
zkr_session_close (ZkrSession *session)
{
  g_return_if_fail (session != NULL);
  if (zkr__session_in_worker (session))
    {
      session_close_in_worker (session);
      return;
    }
  zkr__session_post (session, close_dispatch, session, NULL);
  g_mutex_lock (&session->lock);
  while (!session->close_done)
    g_cond_wait (&session->cond, &session->lock);
  g_mutex_unlock (&session->lock);
}

static void
session_free (ZkrSession *session)
{
  zkr__notifier_free (session->listeners);
  g_array_unref (session->internal_listeners);
  g_hash_table_unref (session->watches);
  worker_posts_clear (session);
  g_main_loop_unref (session->worker_loop);
  g_main_context_unref (session->worker_ctx);
  g_mutex_clear (&session->turn);
  g_list_free_full (session->timers, g_free);
  if (session->acl_owned)
    g_free (session->acl.data);
  zkr__hosts_clear (&session->hosts);
  zkr_session_options_free (session->options);
  g_mutex_clear (&session->lock);
  g_cond_clear (&session->cond);
  g_mutex_clear (&session->clock_lock);
  g_free (session);
}

ZkrSession *
zkr_session_ref (ZkrSession *session)
{
  g_return_val_if_fail (session != NULL, NULL);
  g_atomic_ref_count_inc (&session->ref);
  return session;
}

void
zkr_session_unref (ZkrSession *session)
{
  GThread *worker;

  g_return_if_fail (session != NULL);
  if (!g_atomic_ref_count_dec (&session->ref))
    return;
  zkr_session_close (session);
  worker = session->worker;
  if (g_thread_self () == worker)
    {
      /* Dropped from inside the worker: let it finish the items already
       * queued (they do not hold references) and free the session as it
       * exits. */
      session->free_in_worker = TRUE;
      zkr__session_post (session, worker_quit, session, NULL);
      g_thread_unref (worker);
      return;
    }
  zkr__session_post (session, worker_quit, session, NULL);
  g_thread_join (worker);
  session_free (session);
}

/* ---- getters ------------------------------------------------------ */

gboolean
zkr_session_wait_connected (ZkrSession *session, int timeout_ms, GError **error)
{
  gint64 deadline;

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (!zkr__session_in_worker (session), FALSE);
  deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  g_mutex_lock (&session->lock);
  while (!state_is_connected (session->state))
    {
      if (session->state == ZKR_SESSION_STATE_CLOSED)
        {
          g_mutex_unlock (&session->lock);
          g_set_error (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                       "session to \"%s\" is closed", session->hosts.hosts);
          return FALSE;
        }
      if (session->auth_failed)
        {
          g_mutex_unlock (&session->lock);
          g_set_error (error, ZKR_ERROR, ZKR_ERROR_AUTH,
                       "authentication to \"%s\" failed", session->hosts.hosts);
          return FALSE;
        }
      if (timeout_ms == 0 ||
          (timeout_ms > 0 && !g_cond_wait_until (&session->cond, &session->lock, deadline) &&
           !state_is_connected (session->state)))
        {
          g_mutex_unlock (&session->lock);
          g_set_error (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT,
                       "could not connect to \"%s\" within %d ms", session->hosts.hosts, timeout_ms);
          return FALSE;
        }
      if (timeout_ms < 0)
        g_cond_wait (&session->cond, &session->lock);
    }
  g_mutex_unlock (&session->lock);
  return TRUE;
}

ZkrSessionState
zkr_session_get_state (ZkrSession *session)
{
  ZkrSessionState state;

  g_return_val_if_fail (session != NULL, ZKR_SESSION_STATE_CLOSED);
  g_mutex_lock (&session->lock);
  state = session->state;
  g_mutex_unlock (&session->lock);
  return state;
}

gboolean
zkr_session_is_connected (ZkrSession *session)
{
  g_return_val_if_fail (session != NULL, FALSE);
  return state_is_connected (zkr_session_get_state (session));
}

gint64
zkr_session_get_id (ZkrSession *session)
{
  gint64 id;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  id = session->session_id;
  g_mutex_unlock (&session->lock);
  return id;
}

int
zkr_session_get_timeout_ms (ZkrSession *session)
{
  int timeout_ms;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  timeout_ms = session->timeout_ms;
  g_mutex_unlock (&session->lock);
  return timeout_ms;
}

guint
zkr_session_get_lost_count (ZkrSession *session)
{
  guint count;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  count = session->lost_count;
  g_mutex_unlock (&session->lock);
  return count;
}

static char *
format_sockaddr (const struct sockaddr_storage *address)
{
  char text[INET6_ADDRSTRLEN] = "";

  if (address->ss_family == AF_INET)
    {
      const struct sockaddr_in *in = (const struct sockaddr_in *) address;
      inet_ntop (AF_INET, &in->sin_addr, text, sizeof text);
      return g_strdup_printf ("%s:%u", text, ntohs (in->sin_port));
    }
  if (address->ss_family == AF_INET6)
    {
      const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) address;
      inet_ntop (AF_INET6, &in6->sin6_addr, text, sizeof text);
      return g_strdup_printf ("[%s]:%u", text, ntohs (in6->sin6_port));
    }
  return NULL;
}

char *
zkr_session_dup_connected_host (ZkrSession *session)
{
  struct sockaddr_storage address;
  socklen_t len = sizeof address;
  char *text = NULL;

  g_return_val_if_fail (session != NULL, NULL);
  g_mutex_lock (&session->lock);
  if (session->zh != NULL && state_is_connected (session->state) &&
      zookeeper_get_connected_host (session->zh, (struct sockaddr *) &address, &len) != NULL)
    text = format_sockaddr (&address);
  g_mutex_unlock (&session->lock);
  return text;
}

const char *
zkr_session_get_client_id (ZkrSession *session)
{
  g_return_val_if_fail (session != NULL, NULL);
  return session->options->client_id;
}

char *
zkr__session_resolve_path (ZkrSession *session, const char *path)
{
  return zkr__path_prefix_namespace (session->options->name_space, path);
}

const struct ACL_vector *
zkr__session_get_acl_vector (ZkrSession *session)
{
  return &session->acl;
}

ZkrRetryPolicy *
zkr__session_get_retry_policy (ZkrSession *session)
{
  return session->options->retry;
}

const ZkrSessionOptions *
zkr__session_get_options (ZkrSession *session)
{
  return session->options;
}

void
zkr__session_test_drop_next_create_reply (ZkrSession *session)
{
  g_mutex_lock (&session->lock);
  session->drop_next_create_reply = TRUE;
  g_mutex_unlock (&session->lock);
}

gboolean
zkr__session_test_take_drop_create_reply (ZkrSession *session)
{
  gboolean drop;

  g_mutex_lock (&session->lock);
  drop = session->drop_next_create_reply;
  session->drop_next_create_reply = FALSE;
  g_mutex_unlock (&session->lock);
  return drop;
}

void
zkr__session_test_rewrite_answers (ZkrSession *session, int rc, int count)
{
  g_atomic_int_set (&session->rewrite_left, 0);
  g_atomic_int_set (&session->rewrite_rc, rc);
  g_atomic_int_set (&session->rewrite_left, count);
}

gboolean
zkr__session_test_take_rewrite (ZkrSession *session, int *rc)
{
  gint left;

  do
    {
      left = g_atomic_int_get (&session->rewrite_left);
      if (left == 0)
        return FALSE;
    }
  while (left > 0 && !g_atomic_int_compare_and_exchange (&session->rewrite_left, left, left - 1));
  *rc = g_atomic_int_get (&session->rewrite_rc);
  g_atomic_int_inc (&session->rewritten);
  return TRUE;
}

guint
zkr__session_test_count_rewritten (ZkrSession *session)
{
  return (guint) g_atomic_int_get (&session->rewritten);
}

guint
zkr__session_test_count_stand_in_posts (ZkrSession *session)
{
  return (guint) g_atomic_int_get (&session->stand_in_posts);
}

guint
zkr__session_test_count_in_place_posts (ZkrSession *session)
{
  return (guint) g_atomic_int_get (&session->in_place_posts);
}

void
zkr__session_pending_deletes_add (ZkrSession *session, int delta)
{
  g_mutex_lock (&session->lock);
  session->pending_deletes = (guint) ((int) session->pending_deletes + delta);
  g_mutex_unlock (&session->lock);
}

guint
zkr__session_get_pending_deletes (ZkrSession *session)
{
  guint count;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  count = session->pending_deletes;
  g_mutex_unlock (&session->lock);
  return count;
}

gboolean
zkr__session_test_copy_client_id (ZkrSession *session, clientid_t *out)
{
  gboolean ok = FALSE;

  g_mutex_lock (&session->lock);
  if (session->zh != NULL && state_is_connected (session->state))
    {
      *out = *zoo_client_id (session->zh);
      ok = TRUE;
    }
  g_mutex_unlock (&session->lock);
  return ok;
}

/* ---- expiry from outside (tests and the demo) ------------------------ */

typedef struct {
  GMutex lock;
  GCond cond;
  gboolean connected;
} Expirer;

static void
expirer_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
  Expirer *expirer = ctx;

  (void) zh;
  (void) path;
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE)
    {
      g_mutex_lock (&expirer->lock);
      expirer->connected = TRUE;
      g_cond_broadcast (&expirer->cond);
      g_mutex_unlock (&expirer->lock);
    }
}

gboolean
zkr__session_test_expire_once (ZkrSession *session, const char *hosts)
{
  Expirer expirer = { 0 };
  clientid_t client;
  zhandle_t *zh;
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  gboolean connected;

  if (!zkr__session_test_copy_client_id (session, &client))
    return FALSE;
  g_mutex_init (&expirer.lock);
  g_cond_init (&expirer.cond);
  zh = zookeeper_init2 (hosts, expirer_watcher, 10000, &client, &expirer, 0,
                        zkr__log_zookeeper_message);
  g_mutex_lock (&expirer.lock);
  while (!expirer.connected && g_cond_wait_until (&expirer.cond, &expirer.lock, deadline))
    ;
  connected = expirer.connected;
  g_mutex_unlock (&expirer.lock);
  if (zh != NULL)
    zookeeper_close (zh);
  g_mutex_clear (&expirer.lock);
  g_cond_clear (&expirer.cond);
  return connected;
}
