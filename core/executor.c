/* zkr: the executor (docs/design.md §1.2): one worker thread iterating a
 * private GMainContext, the turn that whoever runs the worker's code holds,
 * the ordered post queue with its stand-ins and in-place runs, and the
 * worker's one-shot timers. Nothing here knows what a session is. */

#include <errno.h>

#include "context.h"
#include "executor.h"
#include "ref.h"
#include "wait.h"

typedef struct {
  GList link;                 /* in the executor's posts; link.data is the post */
  GSourceFunc func;
  gpointer data;
  GDestroyNotify destroy;
} Post;

typedef struct {
  GList link;                 /* in the executor's timers; link.data is the timer */
  guint id;
  gint64 when;                /* monotonic, microseconds */
  gint64 latest;              /* when + slack */
  GSourceFunc func;
  gpointer data;
  GDestroyNotify destroy;
} Timer;

typedef struct {
  GSource source;
  ZkrExecutor *executor;
} ExecutorSource;

struct _ZkrExecutor {
  gatomicrefcount *owner_ref; /* (nullable) */
  GDestroyNotify owner_unref;
  gpointer owner;

  /* ctx, loop and worker are read-only after new(). */
  GMainContext *ctx;
  GMainLoop *loop;
  GThread *worker;
  GDestroyNotify exited;      /* set before the quit is posted */
  gpointer exited_data;

  /* Whoever runs the worker's code holds the turn: the worker except while
   * it polls, or a stand-in (a thread blocked in a call, or sending what
   * the worker would) in its place; see zkr__executor_block_standing_in. */
  GMutex turn;
  gpointer stand_in;          /* (atomic) the stand-in holding the turn
                               * (its this_thread address) */
  guint stand_in_posts;       /* (atomic) posts stand-ins ran */
  guint in_place_posts;       /* (atomic) posts run in place */

  GMutex post_lock;
  GQueue posts;               /* of Post*; post_lock */
  gboolean post_wake_set;     /* the post source's ready time is set; post_lock */
  guint posts_not_in_place;   /* queued posts that may not run in place; post_lock */
  GQueue stand_ins;           /* of ZkrWait*, threads blocked standing in; post_lock */
  GQueue timers;              /* of Timer*, soonest first; post_lock */
  gint64 planned_wake;        /* when the worker's poll ends (G_MAXINT64: never;
                               * G_MININT64: it is awake); post_lock */
  guint next_timer_id;        /* post_lock */
  /* Posts and timers freed, kept for the next ones (a contended lock
   * queues about five posts and adds a timer per acquisition: each a
   * malloc and a free, often on two threads, without these), at most
   * SPARES_MAX of each; freed with the executor. post_lock. */
  GQueue spare_posts;         /* of Post* */
  GQueue spare_timers;        /* of Timer* */
  GSource *post_source;       /* attached for the executor's life */
  GSource *timer_source;      /* likewise */
};

#define SPARES_MAX 64

typedef enum {
  POST_WAKE = 1 << 0,     /* the posts are to run soon */
  POST_IN_PLACE = 1 << 1, /* may run on the posting thread */
} PostFlags;

/* Thread-local state, as compiler TLS rather than GPrivate: these are
 * asked several times per node call, and a GPrivate (or g_thread_self())
 * costs a library call and a lookup each time. None needs a destructor. */
/* The executor whose worker this thread is, if any. */
static __thread ZkrExecutor *worker_executor;
/* The executor whose posts this thread is running in place, if any. */
static __thread ZkrExecutor *in_place_executor;
/* How many executors' code this thread runs right now (as the worker, a
 * stand-in, or running posts in place): never user code meanwhile
 * (docs/design.md §7). */
static __thread guint code_depth;
/* Its address names this thread while it lives (a stand-in's mark). */
static __thread char this_thread;

static void
code_enter (void)
{
  code_depth++;
}

static void
code_leave (void)
{
  code_depth--;
}

gboolean
zkr__executor_code_running (void)
{
  return code_depth != 0;
}

gboolean
zkr__executor_is_worker_thread (ZkrExecutor *executor)
{
  return worker_executor == executor;
}

gboolean
zkr__executor_in_worker (ZkrExecutor *executor)
{
  return zkr__executor_is_worker_thread (executor) ||
         (gpointer) &this_thread == g_atomic_pointer_get (&executor->stand_in);
}

gboolean
zkr__executor_in_place (ZkrExecutor *executor)
{
  return in_place_executor == executor;
}

GMainContext *
zkr__executor_get_context (ZkrExecutor *executor)
{
  return executor->ctx;
}

guint
zkr__executor_count_stand_in_posts (ZkrExecutor *executor)
{
  return (guint) g_atomic_int_get (&executor->stand_in_posts);
}

guint
zkr__executor_count_in_place_posts (ZkrExecutor *executor)
{
  return (guint) g_atomic_int_get (&executor->in_place_posts);
}

/* ---- posts --------------------------------------------------------- */

/* Runs @post's destroy notify; the post itself is left to the caller. */
static void
post_destroy (Post *post)
{
  if (post->destroy != NULL)
    post->destroy (post->data);
}

/* Under post_lock: @spent (of Post* or Timer*, through their links) kept
 * in @spares up to SPARES_MAX, the rest freed. */
static void
spares_give_locked (GQueue *spares, GQueue *spent)
{
  GList *link;

  while ((link = g_queue_pop_head_link (spent)) != NULL)
    {
      if (spares->length < SPARES_MAX)
        g_queue_push_head_link (spares, link);
      else
        g_free (link->data);
    }
}

/* Under post_lock: a Post or Timer (@size bytes) from @spares, else a new
 * one. */
static gpointer
spares_take_locked (GQueue *spares, gsize size)
{
  GList *link = g_queue_pop_head_link (spares);

  return link != NULL ? link->data : g_malloc (size);
}

static void
spares_free (GQueue *spares)
{
  GList *link;

  while ((link = g_queue_pop_head_link (spares)) != NULL)
    g_free (link->data);
}

/* Under post_lock, by whoever holds the turn: takes the queued posts. */
static GQueue
posts_take_locked (ZkrExecutor *executor)
{
  GQueue batch = executor->posts;

  g_queue_init (&executor->posts);
  executor->posts_not_in_place = 0;
  return batch;
}

static Post *
queue_pop_post (GQueue *queue)
{
  GList *link = g_queue_pop_head_link (queue);

  return link != NULL ? link->data : NULL;
}

/* Runs @batch in order; returns how many ran. The executor outlives the
 * batch (a post that drops its owner's last reference stops it at the
 * earliest behind this batch; in place and standing in, a reference is
 * held), so the posts go back to its spares at the end, under one lock. */
static guint
batch_run (ZkrExecutor *executor, GQueue *batch)
{
  GQueue spent = G_QUEUE_INIT;
  Post *post;
  guint ran = 0;

  while ((post = queue_pop_post (batch)) != NULL)
    {
      /* Every post runs once (they all return G_SOURCE_REMOVE). */
      (void) post->func (post->data);
      post_destroy (post);
      g_queue_push_tail_link (&spent, &post->link);
      ran++;
    }
  if (ran != 0)
    {
      g_mutex_lock (&executor->post_lock);
      spares_give_locked (&executor->spare_posts, &spent);
      g_mutex_unlock (&executor->post_lock);
    }
  return ran;
}

/* Whoever holds the turn (the worker, or a stand-in): takes the queued
 * posts and runs them, in order; returns how many. The worker clears its
 * wake flag with the taking (it reset the ready time just before): a
 * waking post after that sets both again, so nothing that asked for a
 * wake-up is left waiting. */
static guint
posts_run (ZkrExecutor *executor, gboolean worker)
{
  GQueue batch;

  g_mutex_lock (&executor->post_lock);
  if (worker)
    executor->post_wake_set = FALSE;
  batch = posts_take_locked (executor);
  g_mutex_unlock (&executor->post_lock);
  return batch_run (executor, &batch);
}

/* Worker thread: runs what was posted. Quiet posts run with the next
 * batch. */
static gboolean
posts_dispatch (GSource *source, GSourceFunc callback, gpointer user_data)
{
  (void) callback;
  (void) user_data;
  g_source_set_ready_time (source, -1);
  (void) posts_run (((ExecutorSource *) source)->executor, TRUE);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs posts_funcs = {
  .dispatch = posts_dispatch,
};

/* Under post_lock: the queued posts are to run soon. A thread blocked
 * standing in runs them (one thread hand-off instead of two: the replies'
 * completion thread wakes the waiter, not the worker which would then wake
 * it); with none, the worker does. */
static void
post_wake_locked (ZkrExecutor *executor)
{
  ZkrWait *stand_in = g_queue_peek_head (&executor->stand_ins);

  if (stand_in != NULL)
    {
      g_mutex_lock (&stand_in->lock);
      stand_in->kicked = TRUE;
      zkr__wait_wake_locked (stand_in);
      g_mutex_unlock (&stand_in->lock);
    }
  else if (!executor->post_wake_set)
    {
      executor->post_wake_set = TRUE;
      g_source_set_ready_time (executor->post_source, 0);
    }
}

static gboolean
owner_unref_run (gpointer data)
{
  ZkrExecutor *executor = data;

  executor->owner_unref (executor->owner);
  return G_SOURCE_REMOVE;
}

/* Under post_lock, which it releases: runs the queued posts on this
 * thread in the worker's place when that is allowed, and returns TRUE;
 * FALSE (the lock still held) when it is not. Allowed when every queued
 * post may run in place, the turn is free (never waited for: the thread
 * holding it may be waiting for this one, closing a handle, say), and the
 * owner is not being finalized. The posts run under a reference of ours on
 * the owner, which is never the last one dropped here: finalizing may wait
 * for this thread. */
static gboolean
posts_run_in_place_locked (ZkrExecutor *executor)
{
  GQueue batch;

  if (executor->posts_not_in_place != 0 || !g_mutex_trylock (&executor->turn))
    return FALSE;
  if (executor->owner_ref != NULL && !zkr__ref_try (executor->owner_ref))
    {
      g_mutex_unlock (&executor->turn);
      return FALSE;
    }
  batch = posts_take_locked (executor);
  g_mutex_unlock (&executor->post_lock);
  g_atomic_pointer_set (&executor->stand_in, (gpointer) &this_thread);
  code_enter (); /* left in zkr__executor_stand_in_end() */
  in_place_executor = executor;
  zkr__context_hold_wakeups ();
  g_atomic_int_add (&executor->in_place_posts, (gint) batch_run (executor, &batch));
  in_place_executor = NULL;
  zkr__executor_stand_in_end (executor);
  zkr__context_send_wakeups ();
  if (executor->owner_ref != NULL && !zkr__ref_drop_unless_last (executor->owner_ref))
    zkr__executor_post (executor, owner_unref_run, executor, NULL);
  return TRUE;
}

static void
post_push (ZkrExecutor *executor, GSourceFunc func, gpointer data, GDestroyNotify destroy,
           PostFlags flags)
{
  Post *post;

  /* Always deferred: completions never run inside the call that caused
   * them. */
  g_mutex_lock (&executor->post_lock);
  post = spares_take_locked (&executor->spare_posts, sizeof (Post));
  post->link = (GList) { .data = post };
  post->func = func;
  post->data = data;
  post->destroy = destroy;
  g_queue_push_tail_link (&executor->posts, &post->link);
  if (!(flags & POST_IN_PLACE))
    executor->posts_not_in_place++;
  else if ((flags & POST_WAKE) && posts_run_in_place_locked (executor))
    return;
  /* Still under the lock: once it is released the post can run, and it
   * may drop the owner's last reference (the owner is then freed on the
   * worker). The worker takes the queue only after resetting the ready
   * time, and GLib never holds its context's lock while calling a source
   * (posts_dispatch, the timers' functions) that takes this one. */
  if (flags & POST_WAKE)
    post_wake_locked (executor);
  g_mutex_unlock (&executor->post_lock);
}

void
zkr__executor_post (ZkrExecutor *executor, GSourceFunc func, gpointer data,
                    GDestroyNotify destroy)
{
  post_push (executor, func, data, destroy, POST_WAKE);
}

void
zkr__executor_post_quiet (ZkrExecutor *executor, GSourceFunc func, gpointer data,
                          GDestroyNotify destroy)
{
  post_push (executor, func, data, destroy, 0);
}

void
zkr__executor_post_in_place (ZkrExecutor *executor, GSourceFunc func, gpointer data,
                             GDestroyNotify destroy, gboolean wake)
{
  post_push (executor, func, data, destroy, POST_IN_PLACE | (wake ? POST_WAKE : 0));
}

/* ---- stand-ins ----------------------------------------------------- */

void
zkr__executor_stand_in_begin (ZkrExecutor *executor)
{
  g_mutex_lock (&executor->turn);
  g_atomic_pointer_set (&executor->stand_in, (gpointer) &this_thread);
  code_enter ();
}

void
zkr__executor_stand_in_end (ZkrExecutor *executor)
{
  code_leave ();
  g_atomic_pointer_set (&executor->stand_in, NULL);
  g_mutex_unlock (&executor->turn);
}

/* Runs the queued posts in this thread, in the worker's place. */
static void
stand_in_run_posts (ZkrExecutor *executor)
{
  zkr__executor_stand_in_begin (executor);
  g_atomic_int_add (&executor->stand_in_posts, (gint) posts_run (executor, FALSE));
  zkr__executor_stand_in_end (executor);
}

static guint timers_run_due (ZkrExecutor *executor);

/* Sleeps until @wait is done or kicked, or @until passed; returns whether
 * it is done, and clears the kick into *@kicked. */
static gboolean
stand_in_sleep (ZkrWait *wait, gint64 until, gboolean *kicked)
{
  gboolean done;

  g_mutex_lock (&wait->lock);
  while (!wait->done && !wait->kicked && zkr__wait_sleep_until_locked (wait, until))
    ;
  done = wait->done;
  *kicked = wait->kicked;
  wait->kicked = FALSE;
  g_mutex_unlock (&wait->lock);
  return done;
}

/* The call's deadline passed and it has not answered: this thread runs
 * the posts and the timers that are due itself, in the worker's place,
 * so that the call's deadline timer fires now whether or not the worker
 * was woken for it, or is scheduled at all. */
static void
stand_in_run_due (ZkrExecutor *executor)
{
  zkr__executor_stand_in_begin (executor);
  g_atomic_int_add (&executor->stand_in_posts, (gint) posts_run (executor, FALSE));
  (void) timers_run_due (executor);
  zkr__executor_stand_in_end (executor);
}

/* After its deadline, a stand-in looks again this often until its call
 * answers (the deadline timer counts whole milliseconds, so it is due up
 * to a millisecond after the call's own deadline). */
#define STAND_IN_RETRY_US 2000

void
zkr__executor_block_standing_in (ZkrExecutor *executor, ZkrWait *wait, gint64 deadline)
{
  /* In the stand-ins' queue while this call blocks: its frame outlives it. */
  GList stand_in_link = { .data = wait };
  gboolean done, kicked, owed;
  gint64 until = deadline;

  if (zkr__executor_in_worker (executor))
    {
      zkr__wait_block (wait);
      return;
    }
  /* Our own reference: the posts we run may drop the others. */
  if (executor->owner_ref != NULL)
    g_atomic_ref_count_inc (executor->owner_ref);
  g_mutex_lock (&executor->post_lock);
  g_queue_push_tail_link (&executor->stand_ins, &stand_in_link);
  g_mutex_unlock (&executor->post_lock);
  do
    {
      done = stand_in_sleep (wait, until, &kicked);
      if (kicked)
        stand_in_run_posts (executor);
      else if (!done)
        {
          stand_in_run_due (executor);
          until = g_get_monotonic_time () + STAND_IN_RETRY_US;
        }
    }
  while (!done);
  g_mutex_lock (&executor->post_lock);
  g_queue_unlink (&executor->stand_ins, &stand_in_link);
  /* A wake-up handed to us after our last look is passed on. */
  g_mutex_lock (&wait->lock);
  owed = wait->kicked;
  g_mutex_unlock (&wait->lock);
  if (owed)
    post_wake_locked (executor);
  g_mutex_unlock (&executor->post_lock);
  g_mutex_clear (&wait->lock);
  g_cond_clear (&wait->cond);
  if (executor->owner_ref != NULL)
    executor->owner_unref (executor->owner);
}

/* ---- timers -------------------------------------------------------- */

/* Under post_lock: @timer in its place, before the timers due at the same
 * time. Looked for from the latest: a call's deadline is most often the
 * latest of all (they are added in the order the calls start), so adding
 * one costs the same with 1 or 1,000 calls in flight. */
static void
timers_insert_locked (ZkrExecutor *executor, Timer *timer)
{
  GList *after = executor->timers.tail;

  while (after != NULL && ((Timer *) after->data)->when >= timer->when)
    after = after->prev;
  if (after == NULL)
    g_queue_push_head_link (&executor->timers, &timer->link);
  else
    g_queue_insert_after_link (&executor->timers, after, &timer->link);
}

/* Runs @timer's destroy notify, then keeps it as a spare (or frees it). */
static void
timer_free (ZkrExecutor *executor, Timer *timer)
{
  GQueue spent = G_QUEUE_INIT;

  if (timer->destroy != NULL)
    timer->destroy (timer->data);
  g_queue_push_tail_link (&spent, &timer->link);
  g_mutex_lock (&executor->post_lock);
  spares_give_locked (&executor->spare_timers, &spent);
  g_mutex_unlock (&executor->post_lock);
}

guint
zkr__executor_timer_add (ZkrExecutor *executor, guint delay_ms, guint slack_ms,
                         GSourceFunc func, gpointer data, GDestroyNotify destroy)
{
  gint64 when = g_get_monotonic_time () + (gint64) delay_ms * 1000;
  Timer *timer;
  gboolean wake = FALSE;
  guint id;

  g_return_val_if_fail (zkr__executor_in_worker (executor), 0);
  g_mutex_lock (&executor->post_lock);
  timer = spares_take_locked (&executor->spare_timers, sizeof (Timer));
  timer->link = (GList) { .data = timer };
  timer->when = when;
  timer->latest = when + (gint64) slack_ms * 1000;
  timer->func = func;
  timer->data = data;
  timer->destroy = destroy;
  id = timer->id = ++executor->next_timer_id;
  timers_insert_locked (executor, timer);
  /* Only a timer whose latest time comes before the worker's poll ends
   * needs to wake it: from a stand-in, a timer per grant (most of them
   * removed again unfired) then mostly costs no wake-up of the worker. */
  if (timer->latest < executor->planned_wake)
    {
      executor->planned_wake = timer->latest;
      wake = TRUE;
    }
  g_mutex_unlock (&executor->post_lock);
  if (wake)
    g_main_context_wakeup (executor->ctx);
  return id;
}

void
zkr__executor_timer_remove (ZkrExecutor *executor, guint id)
{
  Timer *removed = NULL;

  g_return_if_fail (zkr__executor_in_worker (executor));
  g_mutex_lock (&executor->post_lock);
  /* From the soonest: the timers removed are mostly the oldest ones (a
   * call's deadline, removed at its answer). */
  for (GList *l = executor->timers.head; l != NULL; l = l->next)
    if (((Timer *) l->data)->id == id)
      {
        removed = l->data;
        g_queue_unlink (&executor->timers, l);
        break;
      }
  g_mutex_unlock (&executor->post_lock);
  if (removed != NULL)
    timer_free (executor, removed);
}

void
zkr__executor_timer_clear (ZkrExecutor *executor, guint *id)
{
  if (*id != 0)
    zkr__executor_timer_remove (executor, *id);
  *id = 0;
}

/* Under post_lock: whether the soonest timer is due at @now. */
static gboolean
timers_due_locked (ZkrExecutor *executor, gint64 now)
{
  Timer *soonest = g_queue_peek_head (&executor->timers);

  return soonest != NULL && soonest->when <= now;
}

/* Worker thread, before its poll: the poll ends at the soonest timer's
 * latest time at the latest, and that is published for timer_add. */
static gboolean
timers_prepare (GSource *source, gint *timeout)
{
  ZkrExecutor *executor = ((ExecutorSource *) source)->executor;
  gint64 now = g_get_monotonic_time ();
  gint64 wake = G_MAXINT64;
  gboolean due;

  g_mutex_lock (&executor->post_lock);
  due = timers_due_locked (executor, now);
  for (GList *l = executor->timers.head; l != NULL; l = l->next)
    wake = MIN (wake, ((Timer *) l->data)->latest);
  /* Due now: the worker does not sleep before it prepares again. */
  executor->planned_wake = due ? G_MININT64 : wake;
  g_mutex_unlock (&executor->post_lock);
  if (due)
    *timeout = 0;
  else if (wake == G_MAXINT64)
    *timeout = -1;
  else
    *timeout = (gint) MIN ((wake - now + 999) / 1000, G_MAXINT);
  return due;
}

/* Worker thread, after its poll: it is awake until it prepares again, so
 * a timer added meanwhile needs no wake-up. */
static gboolean
timers_check (GSource *source)
{
  ZkrExecutor *executor = ((ExecutorSource *) source)->executor;
  gboolean due;

  g_mutex_lock (&executor->post_lock);
  executor->planned_wake = G_MININT64;
  due = timers_due_locked (executor, g_get_monotonic_time ());
  g_mutex_unlock (&executor->post_lock);
  return due;
}

/* Whoever holds the turn (the worker, or a stand-in past its call's
 * deadline): runs the timers due now, soonest first; returns how many. */
static guint
timers_run_due (ZkrExecutor *executor)
{
  gint64 now = g_get_monotonic_time ();
  guint ran = 0;

  for (;; ran++)
    {
      Timer *timer = NULL;

      g_mutex_lock (&executor->post_lock);
      if (timers_due_locked (executor, now))
        timer = g_queue_pop_head_link (&executor->timers)->data;
      g_mutex_unlock (&executor->post_lock);
      if (timer == NULL)
        return ran;
      /* One-shot: the return value is not looked at. */
      (void) timer->func (timer->data);
      timer_free (executor, timer);
    }
}

/* Worker thread, holding the turn: runs the timers that are due. */
static gboolean
timers_dispatch (GSource *source, GSourceFunc callback, gpointer user_data)
{
  (void) callback;
  (void) user_data;
  (void) timers_run_due (((ExecutorSource *) source)->executor);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs timers_funcs = {
  .prepare = timers_prepare,
  .check = timers_check,
  .dispatch = timers_dispatch,
};

/* ---- the worker ---------------------------------------------------- */

/* The worker is GLib's own loop (g_main_loop_run), not a hand-written one.
 * GLib offers no hook around a dispatch, but it does let us replace the one
 * call in which the worker sleeps, its poll function: the worker holds the
 * turn all the time and gives it up only inside that poll, so every
 * dispatch (and every source's prepare and check) runs with the turn, and a
 * stand-in or an in-place run gets the turn exactly while the worker
 * sleeps. The timers are one GSource whose prepare publishes the time the
 * worker's poll ends (the soonest timer's latest time): a timer added from
 * a stand-in (which holds the turn, so the worker is asleep in that poll)
 * wakes the worker only if it is due before then. Posts are a second
 * GSource whose ready time is the wake-up, so a post while one is pending
 * costs no system call. Both run at the priority idle posts had, posts
 * first (attached first), so a wake-up runs the posts and then the timers
 * that are due, in that order. Nothing may iterate the worker's context
 * but the worker, and never from inside a dispatch (a nested poll would
 * give up the turn in the middle of a dispatch). */

/* The worker's poll: the one place it gives up the turn (see the top of
 * this file). GLib calls it without its context's lock. */
static gint
worker_poll (GPollFD *fds, guint count, gint timeout)
{
  ZkrExecutor *executor = worker_executor;
  gint ready;
  int saved_errno;

  g_mutex_unlock (&executor->turn);
  ready = g_poll (fds, count, timeout);
  saved_errno = errno;
  g_mutex_lock (&executor->turn);
  errno = saved_errno;
  return ready;
}

static gpointer
worker_main (gpointer data)
{
  ZkrExecutor *executor = data;

  worker_executor = executor;
  g_main_context_push_thread_default (executor->ctx);
  code_enter ();
  g_mutex_lock (&executor->turn);
  g_main_loop_run (executor->loop);
  g_mutex_unlock (&executor->turn);
  code_leave ();
  g_main_context_pop_thread_default (executor->ctx);
  worker_executor = NULL;
  if (executor->exited != NULL)
    executor->exited (executor->exited_data);
  return NULL;
}

static gboolean
worker_quit (gpointer data)
{
  ZkrExecutor *executor = data;

  g_main_loop_quit (executor->loop);
  return G_SOURCE_REMOVE;
}

static GSource *
executor_source_attach (ZkrExecutor *executor, GSourceFuncs *funcs, const char *name)
{
  GSource *source = g_source_new (funcs, sizeof (ExecutorSource));

  ((ExecutorSource *) source)->executor = executor;
  /* The priority idle posts had. */
  g_source_set_priority (source, G_PRIORITY_DEFAULT_IDLE);
  g_source_set_static_name (source, name);
  g_source_attach (source, executor->ctx);
  return source;
}

ZkrExecutor *
zkr__executor_new (const char *thread_name, gatomicrefcount *owner_ref,
                   GDestroyNotify owner_unref, gpointer owner)
{
  ZkrExecutor *executor = g_new0 (ZkrExecutor, 1);

  executor->owner_ref = owner_ref;
  executor->owner_unref = owner_unref;
  executor->owner = owner;
  executor->ctx = g_main_context_new ();
  g_main_context_set_poll_func (executor->ctx, worker_poll);
  executor->loop = g_main_loop_new (executor->ctx, FALSE);
  g_mutex_init (&executor->turn);
  g_mutex_init (&executor->post_lock);
  g_queue_init (&executor->posts);
  g_queue_init (&executor->stand_ins);
  g_queue_init (&executor->timers);
  g_queue_init (&executor->spare_posts);
  g_queue_init (&executor->spare_timers);
  executor->planned_wake = G_MAXINT64;
  executor->post_source = executor_source_attach (executor, &posts_funcs, "zkr-worker-posts");
  executor->timer_source = executor_source_attach (executor, &timers_funcs, "zkr-worker-timers");
  executor->worker = g_thread_new (thread_name, worker_main, executor);
  return executor;
}

void
zkr__executor_stop (ZkrExecutor *executor, GDestroyNotify exited, gpointer data)
{
  GThread *worker = executor->worker;

  if (zkr__executor_is_worker_thread (executor))
    {
      /* From inside the worker: it finishes the posts already queued and
       * runs @exited as it ends. */
      zkr__executor_stop_detached (executor, exited, data);
      return;
    }
  zkr__executor_post (executor, worker_quit, executor, NULL);
  g_thread_join (worker);
  if (exited != NULL)
    exited (data);
}

void
zkr__executor_stop_detached (ZkrExecutor *executor, GDestroyNotify exited, gpointer data)
{
  /* Read before the quit is posted: from then on the worker may end and
   * @exited free the executor. */
  GThread *worker = executor->worker;

  /* Written before the post, which publishes them to the worker (the post
   * queue's lock orders the two threads). */
  executor->exited = exited;
  executor->exited_data = data;
  zkr__executor_post (executor, worker_quit, executor, NULL);
  /* Nobody joins the worker: GLib detaches it. */
  g_thread_unref (worker);
}

static void
source_drop (GSource **source)
{
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

void
zkr__executor_free (ZkrExecutor *executor)
{
  Post *post;

  source_drop (&executor->post_source);
  source_drop (&executor->timer_source);
  /* What was posted behind the worker's quit is dropped (their destroy
   * notifies may still hand back spares: freed last). */
  while ((post = queue_pop_post (&executor->posts)) != NULL)
    {
      post_destroy (post);
      g_free (post);
    }
  while (!g_queue_is_empty (&executor->timers))
    timer_free (executor, g_queue_pop_head_link (&executor->timers)->data);
  spares_free (&executor->spare_posts);
  spares_free (&executor->spare_timers);
  g_main_loop_unref (executor->loop);
  g_main_context_unref (executor->ctx);
  g_mutex_clear (&executor->post_lock);
  g_mutex_clear (&executor->turn);
  g_free (executor);
}
