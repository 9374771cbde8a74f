/* zkr fault suite: one contending client process. It takes and releases one
 * lock in a loop (a mutex, a rwlock as writer or reader, or one lease of a
 * semaphore), writes to a fenced "resource" file while holding, and appends
 * every step to a history file with CLOCK_MONOTONIC times (the same clock in
 * every process), for integration/faults/faults.py to check.
 *
 * Other modes of the same program, for the nemesis and the checker:
 *   --expire SIDFILE  expire the session named in SIDFILE from outside
 *   --count PATH      print the ephemeral nodes left under PATH, then delete it
 *   --storm DIR       an expiry storm: expire the sessions of DIR's clients
 *                     from outside again and again (--clients, --every-ms,
 *                     --for-ms), logged to DIR/storm.log
 *
 * A lock kind is a ModeOps table (open, acquire, release, close); the leader
 * latch is one too (a term is a hold).
 *
 * Every acquire is a deadline-bounded call, logged as a `call` line: a third
 * of them (seeded) take a short timeout, half of those a cancel at a seeded
 * time, half go through the _async twin. A timer thread of our own cancels
 * on time and measures how late this process itself ran after the call's
 * deadline, to tell a late library from a process that was not scheduled. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>
#include <zkr/zkr.h>

#include "fault-call.h"
#include "log.h"
#include "session-private.h"
#include "wait.h"

typedef struct _Worker Worker;

/* One deadline-bounded acquire. The plan is drawn before the call; the
 * times are CLOCK_MONOTONIC microseconds. */
/* A bounded call (fault-call.h). */
typedef FaultCall Call;

/* One lock kind. The acquires return the fencing token of the new hold;
 * the blocking one brackets its bounded call with fault_call_begin/_end.
 * acquire_async is NULL when the kind has no _async twin. */
typedef struct {
  const char *name;
  gboolean (*open) (Worker *worker, GError **error);
  gboolean (*acquire) (Worker *worker, Call *call, gint64 *token, GError **error);
  void (*acquire_async) (Worker *worker, Call *call, GAsyncReadyCallback callback,
                         gpointer user_data);
  gboolean (*acquire_finish) (Worker *worker, GAsyncResult *result, gint64 *token,
                              GError **error);
  gboolean (*release) (Worker *worker, GError **error);
  void (*close) (Worker *worker);
  gboolean writes_resource;   /* readers of a rwlock only read */
} ModeOps;

struct _Worker {
  const ModeOps *ops;
  char *hosts;
  char *path;
  char *history_path;
  char *resource_path;
  char *state_path;
  char *sid_path;
  int id;
  int session_timeout_ms;
  int leases;              /* resource window: the N highest tokens are current */
  int hold_max_us;
  gboolean plain_calls;    /* every acquire a blocking 1 s one, no cancel */
  GRand *rand;

  int history_fd;
  int state_fd;
  int resource_fd;
  int resource_log_fd;

  ZkrSession *session;
  ZkrMutex *mutex;
  ZkrRwlock *rwlock;
  ZkrSemaphore *semaphore;
  GPtrArray *leases_held;  /* of ZkrLease */
  ZkrLeaderLatch *latch;   /* the latch of the current term */

  /* The loss listener's thread and context. */
  GMainContext *listener_context;
  GMainLoop *listener_loop;
  GThread *listener_thread;
  ZkrWait ready;           /* the listener thread has set things up (a
                            * GMutex and GCond of ours, which TSan builds
                            * see, unlike GAsyncQueue's inside libglib) */
  gint lost;               /* set by the listener on LOST, cleared per hold */

  /* Async acquires run their callbacks here, on the main thread. */
  GMainContext *call_context;

  FaultCallTimer timer;    /* the deadline timer thread (fault-call.h) */
};

static volatile sig_atomic_t stop_requested;

static void
on_term (int signum)
{
  (void) signum;
  stop_requested = 1;
}

/* ---- history ------------------------------------------------------- */

/* One line, one write(2) on an O_APPEND descriptor: lines from the main
 * thread and the listener thread never interleave, and a line written
 * before a SIGKILL is kept. */
static void G_GNUC_PRINTF (2, 3)
history (Worker *worker, const char *format, ...)
{
  va_list args;
  g_autofree char *line = NULL;

  va_start (args, format);
  line = g_strdup_vprintf (format, args);
  va_end (args);
  if (write (worker->history_fd, line, strlen (line)) < 0)
    g_printerr ("worker %d: history write: %s\n", worker->id, g_strerror (errno));
}

static void
set_state (Worker *worker, char state)
{
  if (pwrite (worker->state_fd, &state, 1, 0) != 1)
    g_printerr ("worker %d: state write: %s\n", worker->id, g_strerror (errno));
}

static const char *
error_name (const GError *error)
{
  return error == NULL ? "none" : error->message;
}

/* ---- the fenced resource ------------------------------------------- */

/* The resource keeps the @leases highest tokens it accepted (one for a
 * mutex) and refuses a token lower than all of them: a holder whose token
 * is older than that many newer holders' has lost its lock (for a mutex,
 * exactly the fencing rule "lower than the highest seen"). Every decision
 * is appended to the resource log while the flock is held, so the log's
 * order is the resource's order. Returns TRUE when accepted. */
static gboolean
resource_write (Worker *worker, gint64 token)
{
  gint64 top[16] = { 0 };
  char buffer[512];
  ssize_t got;
  int n = 0, i;
  gboolean accepted;
  gint64 now;
  g_autofree char *line = NULL;

  if (flock (worker->resource_fd, LOCK_EX) != 0)
    g_error ("flock: %s", g_strerror (errno));
  got = pread (worker->resource_fd, buffer, sizeof buffer - 1, 0);
  buffer[got > 0 ? got : 0] = '\0';
  for (char *p = buffer, *end; n < worker->leases && *p != '\0'; p = end)
    {
      gint64 value = g_ascii_strtoll (p, &end, 10);
      if (end == p)
        break;
      top[n++] = value;
    }
  /* top[] is sorted descending; the threshold is its last entry once full. */
  accepted = n < worker->leases || token >= top[n - 1];
  if (accepted)
    {
      gboolean present = FALSE;
      for (i = 0; i < n; i++)
        present |= top[i] == token;
      if (!present)
        {
          if (n < worker->leases)
            n++;
          for (i = n - 1; i > 0 && top[i - 1] < token; i--)
            top[i] = top[i - 1];
          top[i] = token;
          GString *text = g_string_new (NULL);
          for (i = 0; i < n; i++)
            g_string_append_printf (text, "%" G_GINT64_FORMAT "\n", top[i]);
          if (ftruncate (worker->resource_fd, 0) != 0
              || pwrite (worker->resource_fd, text->str, text->len, 0) != (ssize_t) text->len)
            g_error ("resource write: %s", g_strerror (errno));
          g_string_free (text, TRUE);
        }
    }
  now = g_get_monotonic_time ();
  line = g_strdup_printf ("%" G_GINT64_FORMAT " %d %" G_GINT64_FORMAT " %c\n",
                          now, worker->id, token, accepted ? 'A' : 'R');
  if (write (worker->resource_log_fd, line, strlen (line)) < 0)
    g_error ("resource log: %s", g_strerror (errno));
  flock (worker->resource_fd, LOCK_UN);
  history (worker, "write %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s\n",
           token, now, accepted ? "accepted" : "refused");
  return accepted;
}

/* A holder that was told its lock is lost stops using the resource: the
 * write is skipped and the skip recorded. */
static void
guarded_write (Worker *worker, gint64 token)
{
  if (!worker->ops->writes_resource)
    return;
  if (g_atomic_int_get (&worker->lost))
    {
      history (worker, "skip %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
               token, g_get_monotonic_time ());
      return;
    }
  resource_write (worker, token);
}

/* ---- listeners ----------------------------------------------------- */

static void
on_loss (gpointer lock, ZkrLockEvent event, gpointer user_data)
{
  Worker *worker = user_data;

  (void) lock;
  if (event == ZKR_LOCK_LOST)
    g_atomic_int_set (&worker->lost, 1);
  history (worker, "loss %s %" G_GINT64_FORMAT "\n", zkr_lock_event_name (event),
           g_get_monotonic_time ());
}

/* The session id and password, for an expiry from outside (--expire). */
static void
publish_session (Worker *worker)
{
  fault_publish_session (worker->session, worker->sid_path);
}

static void
on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Worker *worker = user_data;

  history (worker, "session %s %" G_GINT64_FORMAT " %" G_GINT64_MODIFIER "x\n",
           zkr_session_state_name (state), g_get_monotonic_time (),
           zkr_session_get_id (session));
  if (state == ZKR_SESSION_STATE_CONNECTED)
    publish_session (worker);
}

static gboolean worker_open (Worker *worker, GError **error);

/* Listeners run in the context that was thread-default when they were
 * added, so the session and the lock are set up here, with this thread's
 * context pushed, and the listeners then run here while the main thread
 * blocks in acquire. */
static gpointer
listener_main (gpointer data)
{
  Worker *worker = data;
  GError *error = NULL;

  g_main_context_push_thread_default (worker->listener_context);
  if (!worker_open (worker, &error))
    g_error ("worker %d: %s", worker->id, error->message);
  zkr__wait_done (&worker->ready);
  g_main_loop_run (worker->listener_loop);
  g_main_context_pop_thread_default (worker->listener_context);
  return NULL;
}

/* ---- deadline-bounded calls ---------------------------------------- */

/* The share of acquires with a short timeout (the others wait 1 s, as
 * they always did), and the timer thread's tick once a call is past its
 * first bound. */
#define SHORT_CALL_SHARE 0.33
#define PLAIN_TIMEOUT_MS 1000

/* Draws the plan of the next acquire from the worker's seeded generator:
 * a short call has a timeout of 200-1500 ms, a cancel in half of them
 * (half of those within 20 ms of the start, racing the grant), and the
 * _async twin in half of them where the kind has one. */
static void
call_plan (Worker *worker, Call *call)
{
  GRand *rand = worker->rand;

  memset (call, 0, sizeof *call);
  call->timeout_ms = PLAIN_TIMEOUT_MS;
  call->cancel_after_us = -1;
  if (worker->plain_calls || g_rand_double (rand) >= SHORT_CALL_SHARE)
    return;
  call->timeout_ms = g_rand_int_range (rand, 200, 1501);
  call->cancellable = g_cancellable_new ();
  if (g_rand_boolean (rand))
    call->cancel_after_us = g_rand_boolean (rand)
      ? g_rand_int_range (rand, 0, 20 * 1000)
      : g_rand_int_range (rand, 20 * 1000, call->timeout_ms * 1000);
  call->use_async = worker->ops->acquire_async != NULL && g_rand_boolean (rand);
}






/* call SEQ API TIMEOUT_MS START DEADLINE CANCEL_AT CANCELLED ANSWERED
 *      OUTCOME TIMER_LATE_MAX TIMER_LATE_SUM (times in us, 0 = none) */
static void
call_log (Worker *worker, guint64 seq, const Call *call, gboolean ok, const GError *error)
{
  if (call->t_start == 0)
    return;
  history (worker, "call %" G_GUINT64_FORMAT " %s %d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
           " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s %" G_GINT64_FORMAT
           " %" G_GINT64_FORMAT "\n",
           seq, call->use_async ? "async" : "sync", call->timeout_ms, call->t_start,
           call->deadline, call->cancel_at, call->t_cancel, call->t_answer,
           fault_call_outcome (ok, error), call->timer_late_max, call->timer_late_sum);
}

typedef struct {
  Worker *worker;
  Call *call;
  GAsyncResult *result;
} AsyncWait;

static void
on_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncWait *wait = user_data;

  (void) source;
  fault_call_end (&wait->worker->timer, wait->call);
  wait->result = g_object_ref (result);
}

/* The _async twin, run on the main thread's own context until its
 * callback: the answer is the callback, as a GLib caller sees it. */
static gboolean
acquire_async (Worker *worker, Call *call, gint64 *token, GError **error)
{
  AsyncWait wait = { worker, call, NULL };
  gboolean ok;

  g_main_context_push_thread_default (worker->call_context);
  fault_call_begin (&worker->timer, call);
  worker->ops->acquire_async (worker, call, on_acquired, &wait);
  while (wait.result == NULL)
    g_main_context_iteration (worker->call_context, TRUE);
  g_main_context_pop_thread_default (worker->call_context);
  ok = worker->ops->acquire_finish (worker, wait.result, token, error);
  g_object_unref (wait.result);
  return ok;
}

/* ---- the lock kinds ------------------------------------------------ */

static gboolean
mutex_open (Worker *worker, GError **error)
{
  worker->mutex = zkr_mutex_new (worker->session, worker->path, error);
  if (worker->mutex == NULL)
    return FALSE;
  zkr_mutex_add_loss_listener (worker->mutex, on_loss, worker, NULL);
  return TRUE;
}

static gboolean
mutex_acquire (Worker *worker, Call *call, gint64 *token, GError **error)
{
  gboolean ok;

  fault_call_begin (&worker->timer, call);
  ok = zkr_mutex_acquire (worker->mutex, call->timeout_ms, call->cancellable, error);
  fault_call_end (&worker->timer, call);
  if (ok)
    *token = zkr_mutex_get_fencing_token (worker->mutex);
  return ok;
}

static void
mutex_acquire_async (Worker *worker, Call *call, GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_mutex_acquire_async (worker->mutex, call->timeout_ms, call->cancellable, callback, user_data);
}

static gboolean
mutex_acquire_finish (Worker *worker, GAsyncResult *result, gint64 *token, GError **error)
{
  if (!zkr_mutex_acquire_finish (worker->mutex, result, error))
    return FALSE;
  *token = zkr_mutex_get_fencing_token (worker->mutex);
  return TRUE;
}

static gboolean
mutex_release (Worker *worker, GError **error)
{
  return zkr_mutex_release (worker->mutex, error);
}

static void
mutex_close (Worker *worker)
{
  g_clear_pointer (&worker->mutex, zkr_mutex_unref);
}

static gboolean
rwlock_open (Worker *worker, GError **error)
{
  worker->rwlock = zkr_rwlock_new (worker->session, worker->path, error);
  if (worker->rwlock == NULL)
    return FALSE;
  zkr_rwlock_add_loss_listener (worker->rwlock, on_loss, worker, NULL);
  return TRUE;
}

static gboolean
writer_acquire (Worker *worker, Call *call, gint64 *token, GError **error)
{
  gboolean ok;

  fault_call_begin (&worker->timer, call);
  ok = zkr_rwlock_acquire_write (worker->rwlock, call->timeout_ms, call->cancellable, error);
  fault_call_end (&worker->timer, call);
  if (ok)
    *token = zkr_rwlock_get_write_token (worker->rwlock);
  return ok;
}

static void
writer_acquire_async (Worker *worker, Call *call, GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_rwlock_acquire_write_async (worker->rwlock, call->timeout_ms, call->cancellable,
                                  callback, user_data);
}

static gboolean
writer_acquire_finish (Worker *worker, GAsyncResult *result, gint64 *token, GError **error)
{
  if (!zkr_rwlock_acquire_write_finish (worker->rwlock, result, error))
    return FALSE;
  *token = zkr_rwlock_get_write_token (worker->rwlock);
  return TRUE;
}

static gboolean
writer_release (Worker *worker, GError **error)
{
  return zkr_rwlock_release_write (worker->rwlock, error);
}

static gboolean
reader_acquire (Worker *worker, Call *call, gint64 *token, GError **error)
{
  gboolean ok;

  fault_call_begin (&worker->timer, call);
  ok = zkr_rwlock_acquire_read (worker->rwlock, call->timeout_ms, call->cancellable, error);
  fault_call_end (&worker->timer, call);
  if (ok)
    *token = zkr_rwlock_get_read_token (worker->rwlock);
  return ok;
}

static void
reader_acquire_async (Worker *worker, Call *call, GAsyncReadyCallback callback, gpointer user_data)
{
  zkr_rwlock_acquire_read_async (worker->rwlock, call->timeout_ms, call->cancellable,
                                 callback, user_data);
}

static gboolean
reader_acquire_finish (Worker *worker, GAsyncResult *result, gint64 *token, GError **error)
{
  if (!zkr_rwlock_acquire_read_finish (worker->rwlock, result, error))
    return FALSE;
  *token = zkr_rwlock_get_read_token (worker->rwlock);
  return TRUE;
}

static gboolean
reader_release (Worker *worker, GError **error)
{
  return zkr_rwlock_release_read (worker->rwlock, error);
}

static void
rwlock_close (Worker *worker)
{
  g_clear_pointer (&worker->rwlock, zkr_rwlock_unref);
}

static gboolean
semaphore_open (Worker *worker, GError **error)
{
  worker->semaphore = zkr_semaphore_new (worker->session, worker->path,
                                         (guint) worker->leases, error);
  if (worker->semaphore == NULL)
    return FALSE;
  zkr_semaphore_add_loss_listener (worker->semaphore, on_loss, worker, NULL);
  return TRUE;
}

static gboolean
semaphore_keep (Worker *worker, GPtrArray *leases, gint64 *token)
{
  if (leases == NULL)
    return FALSE;
  worker->leases_held = leases;
  *token = zkr_lease_get_fencing_token (g_ptr_array_index (leases, 0));
  return TRUE;
}

static gboolean
semaphore_acquire (Worker *worker, Call *call, gint64 *token, GError **error)
{
  GPtrArray *leases;

  fault_call_begin (&worker->timer, call);
  leases = zkr_semaphore_acquire (worker->semaphore, 1, call->timeout_ms, call->cancellable, error);
  fault_call_end (&worker->timer, call);
  return semaphore_keep (worker, leases, token);
}

static void
semaphore_acquire_async (Worker *worker, Call *call, GAsyncReadyCallback callback,
                         gpointer user_data)
{
  zkr_semaphore_acquire_async (worker->semaphore, 1, call->timeout_ms, call->cancellable,
                               callback, user_data);
}

static gboolean
semaphore_acquire_finish (Worker *worker, GAsyncResult *result, gint64 *token, GError **error)
{
  return semaphore_keep (worker, zkr_semaphore_acquire_finish (worker->semaphore, result, error),
                         token);
}

static gboolean
semaphore_release (Worker *worker, GError **error)
{
  gboolean ok = zkr_lease_release (g_ptr_array_index (worker->leases_held, 0), error);

  /* Freeing the handle keeps a pending delete going in the background. */
  g_clear_pointer (&worker->leases_held, g_ptr_array_unref);
  return ok;
}

static void
semaphore_close (Worker *worker)
{
  g_clear_pointer (&worker->leases_held, g_ptr_array_unref);
  g_clear_pointer (&worker->semaphore, zkr_semaphore_unref);
}

/* The leader latch: a term is one latch, from start to close (Curator's
 * way to give up leadership). not_leader ends a term as LOST ends a hold.
 * The latch is made on the listener thread, so that its listener runs
 * there; the main thread starts it and waits for leadership. */
static void
on_not_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  on_loss (latch, ZKR_LOCK_LOST, user_data);
}

typedef struct {
  Worker *worker;
  ZkrLeaderLatch *latch;
  GError *error;
  GAsyncQueue *done;
} LatchMake;

static gboolean
latch_make (gpointer data)
{
  LatchMake *make = data;
  g_autofree char *id = g_strdup_printf ("fault-worker-%d", make->worker->id);

  make->latch = zkr_leader_latch_new (make->worker->session, make->worker->path, id, &make->error);
  if (make->latch != NULL)
    zkr_leader_latch_add_listener (make->latch, NULL, on_not_leader, make->worker, NULL);
  g_async_queue_push (make->done, GINT_TO_POINTER (1));
  return G_SOURCE_REMOVE;
}

static gboolean
latch_open (Worker *worker, GError **error)
{
  (void) worker;
  (void) error;
  return TRUE;
}

static void
latch_drop (ZkrLeaderLatch *latch)
{
  zkr_leader_latch_close (latch, ZKR_LEADER_CLOSE_SILENT, NULL);
  zkr_leader_latch_unref (latch);
}

/* Only the wait for leadership is the bounded call: start returns at
 * once, and close (on failure) is not bounded by the caller. */
static gboolean
latch_acquire (Worker *worker, Call *call, gint64 *token, GError **error)
{
  LatchMake make = { worker, NULL, NULL, g_async_queue_new () };
  gboolean ok;

  g_main_context_invoke (worker->listener_context, latch_make, &make);
  g_async_queue_pop (make.done);
  g_async_queue_unref (make.done);
  if (make.latch == NULL)
    {
      g_propagate_error (error, make.error);
      return FALSE;
    }
  ok = zkr_leader_latch_start (make.latch, error);
  if (ok)
    {
      fault_call_begin (&worker->timer, call);
      ok = zkr_leader_latch_await (make.latch, call->timeout_ms, call->cancellable, error);
      fault_call_end (&worker->timer, call);
    }
  if (!ok)
    {
      latch_drop (make.latch);
      return FALSE;
    }
  worker->latch = make.latch;
  *token = zkr_leader_latch_get_fencing_token (make.latch);
  return TRUE;
}

static gboolean
latch_release (Worker *worker, GError **error)
{
  gboolean ok = zkr_leader_latch_close (worker->latch, ZKR_LEADER_CLOSE_SILENT, error);

  g_clear_pointer (&worker->latch, zkr_leader_latch_unref);
  return ok;
}

static void
latch_close (Worker *worker)
{
  g_clear_pointer (&worker->latch, latch_drop);
}

static const ModeOps modes[] = {
  { "latch", latch_open, latch_acquire, NULL, NULL, latch_release, latch_close, TRUE },
  { "mutex", mutex_open, mutex_acquire, mutex_acquire_async, mutex_acquire_finish,
    mutex_release, mutex_close, TRUE },
  { "writer", rwlock_open, writer_acquire, writer_acquire_async, writer_acquire_finish,
    writer_release, rwlock_close, TRUE },
  { "reader", rwlock_open, reader_acquire, reader_acquire_async, reader_acquire_finish,
    reader_release, rwlock_close, FALSE },
  { "semaphore", semaphore_open, semaphore_acquire, semaphore_acquire_async,
    semaphore_acquire_finish, semaphore_release, semaphore_close, TRUE },
};

/* ---- raw listings (a handle of our own, not the recipes') ----------- */

typedef struct {
  GMutex lock;
  GCond cond;
  gboolean connected;
  gboolean expired;        /* the session to resume was gone already */
} RawWait;

static void
raw_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
  RawWait *wait = ctx;

  (void) zh;
  (void) path;
  if (type == ZOO_SESSION_EVENT &&
      (state == ZOO_CONNECTED_STATE || state == ZOO_EXPIRED_SESSION_STATE))
    {
      g_mutex_lock (&wait->lock);
      if (state == ZOO_CONNECTED_STATE)
        wait->connected = TRUE;
      else
        wait->expired = TRUE;
      g_cond_broadcast (&wait->cond);
      g_mutex_unlock (&wait->lock);
    }
}

/* A connected raw handle, optionally resuming @client (an expiry from
 * outside); NULL once @client's session turns out to be expired already,
 * or at @deadline (monotonic). */
static zhandle_t *
raw_connect_until (const char *hosts, const clientid_t *client, RawWait *wait, gint64 deadline)
{
  zhandle_t *zh;
  gboolean connected;

  g_mutex_init (&wait->lock);
  g_cond_init (&wait->cond);
  wait->connected = FALSE;
  wait->expired = FALSE;
  zh = zookeeper_init2 (hosts, raw_watcher, 10000, client, wait, 0, zkr__log_zookeeper_message);
  g_mutex_lock (&wait->lock);
  while (!wait->connected && !wait->expired &&
         g_cond_wait_until (&wait->cond, &wait->lock, deadline))
    ;
  connected = wait->connected;
  g_mutex_unlock (&wait->lock);
  if (!connected && zh != NULL)
    {
      zookeeper_close (zh);
      zh = NULL;
    }
  return zh;
}

/* The same, waiting up to 20 s. */
static zhandle_t *
raw_connect (const char *hosts, const clientid_t *client, RawWait *wait)
{
  return raw_connect_until (hosts, client, wait, g_get_monotonic_time () + 20 * G_USEC_PER_SEC);
}

static void
raw_close (zhandle_t *zh, RawWait *wait)
{
  if (zh != NULL)
    zookeeper_close (zh);
  g_mutex_clear (&wait->lock);
  g_cond_clear (&wait->cond);
}

/* Appends to @out the ephemeral nodes under @path (owned by @owner, or by
 * anyone when 0), depth first. Returns the ZooKeeper rc of the walk. */
static int
collect_ephemerals (zhandle_t *zh, const char *path, gint64 owner, GPtrArray *out)
{
  struct String_vector children = { 0 };
  int rc = zoo_get_children (zh, path, 0, &children);

  if (rc == ZNONODE)
    return ZOK;
  if (rc != ZOK)
    return rc;
  for (int i = 0; i < children.count && rc == ZOK; i++)
    {
      g_autofree char *child = g_strconcat (g_str_equal (path, "/") ? "" : path, "/",
                                            children.data[i], NULL);
      struct Stat stat;
      rc = zoo_exists (zh, child, 0, &stat);
      if (rc == ZNONODE)
        {
          rc = ZOK;
          continue;
        }
      if (rc == ZOK && stat.ephemeralOwner != 0 && (owner == 0 || stat.ephemeralOwner == owner))
        g_ptr_array_add (out, g_strdup_printf ("%s owner 0x%" PRIx64, child,
                                               (uint64_t) stat.ephemeralOwner));
      if (rc == ZOK)
        rc = collect_ephemerals (zh, child, owner, out);
    }
  deallocate_String_vector (&children);
  return rc;
}

static int
delete_tree (zhandle_t *zh, const char *path)
{
  struct String_vector children = { 0 };
  int rc = zoo_get_children (zh, path, 0, &children);

  if (rc == ZNONODE)
    return ZOK;
  for (int i = 0; rc == ZOK && i < children.count; i++)
    {
      g_autofree char *child = g_strconcat (path, "/", children.data[i], NULL);
      rc = delete_tree (zh, child);
    }
  deallocate_String_vector (&children);
  if (rc == ZOK)
    rc = zoo_delete (zh, path, -1);
  return rc == ZNONODE ? ZOK : rc;
}

/* --count: the nodes left by every client, after they all exited. */
static int
count_main (const char *hosts, const char *path)
{
  RawWait wait;
  zhandle_t *zh = raw_connect (hosts, NULL, &wait);
  g_autoptr (GPtrArray) left = g_ptr_array_new_with_free_func (g_free);
  int rc;

  if (zh == NULL)
    {
      g_printerr ("count: cannot connect to %s\n", hosts);
      raw_close (NULL, &wait);
      return 2;
    }
  rc = collect_ephemerals (zh, path, 0, left);
  for (guint i = 0; i < left->len; i++)
    printf ("left %s\n", (char *) g_ptr_array_index (left, i));
  if (rc == ZOK)
    rc = delete_tree (zh, path);
  printf ("count %u rc %s\n", left->len, zerror (rc));
  raw_close (zh, &wait);
  return rc == ZOK ? 0 : 2;
}

/* The session id and password a client published in @sid_path
 * (fault_publish_session); FALSE when there is none (yet). */
static gboolean
read_sid (const char *sid_path, clientid_t *client)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) words = NULL;

  memset (client, 0, sizeof *client);
  if (!g_file_get_contents (sid_path, &text, NULL, NULL))
    return FALSE;
  words = g_strsplit (g_strstrip (text), " ", 2);
  if (g_strv_length (words) != 2 || strlen (words[1]) != 2 * sizeof client->passwd)
    return FALSE;
  client->client_id = (int64_t) g_ascii_strtoull (words[0], NULL, 16);
  for (gsize i = 0; i < sizeof client->passwd; i++)
    {
      char byte[3] = { words[1][2 * i], words[1][2 * i + 1], '\0' };
      client->passwd[i] = (char) g_ascii_strtoull (byte, NULL, 16);
    }
  return TRUE;
}

/* --expire: the standard way to expire a session from outside: a second
 * handle joins it with its id and password, then closes it. */
static int
expire_main (const char *hosts, const char *sid_path)
{
  clientid_t client;
  RawWait wait;
  zhandle_t *zh;

  if (!read_sid (sid_path, &client))
    return 2;
  zh = raw_connect (hosts, &client, &wait);
  printf ("expire %" PRIx64 " %s\n", (uint64_t) client.client_id, zh != NULL ? "done" : "failed");
  raw_close (zh, &wait);
  return zh != NULL ? 0 : 1;
}

/* --storm: an expiry storm. One thread per client expires that client's
 * current session (its .sid file) from outside every @every_ms, for
 * @for_ms, each expiry logged to storm.log as "expire CLIENT START END
 * OUTCOME" (monotonic us; OUTCOME: done, gone when the published session
 * had expired already, failed, or no-sid). The clients' starts are spread
 * over the period, so the ensemble sees one expiry every @every_ms/N. */
typedef struct {
  const char *hosts;
  char *sid_path;
  int client;
  gint64 every_us;
  gint64 offset_us;
  gint64 until;
  int log_fd;
  GThread *thread;
} StormClient;

/* How long one expiry may take to connect before it is given up. */
#define STORM_CONNECT_US (2 * G_USEC_PER_SEC)

static const char *
storm_expire_once (StormClient *storm)
{
  clientid_t client;
  RawWait wait;
  zhandle_t *zh;
  const char *outcome;

  if (!read_sid (storm->sid_path, &client))
    return "no-sid";
  zh = raw_connect_until (storm->hosts, &client, &wait, g_get_monotonic_time () + STORM_CONNECT_US);
  outcome = zh != NULL ? "done" : wait.expired ? "gone" : "failed";
  raw_close (zh, &wait);
  return outcome;
}

static gpointer
storm_client_main (gpointer data)
{
  StormClient *storm = data;
  gint64 next = g_get_monotonic_time () + storm->offset_us;

  for (;;)
    {
      gint64 now = g_get_monotonic_time (), start;
      const char *outcome;
      g_autofree char *line = NULL;

      if (next > now)
        g_usleep ((gulong) (next - now));
      start = g_get_monotonic_time ();
      if (start >= storm->until)
        return NULL;
      outcome = storm_expire_once (storm);
      line = g_strdup_printf ("expire %d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s\n",
                              storm->client, start, g_get_monotonic_time (), outcome);
      if (write (storm->log_fd, line, strlen (line)) < 0)
        g_printerr ("storm: log write: %s\n", g_strerror (errno));
      /* The next slot, never a burst to catch up with a slow expiry. */
      next = MAX (next + storm->every_us, g_get_monotonic_time ());
    }
}

static int
storm_main (const char *hosts, const char *dir, int clients, int every_ms, int for_ms)
{
  g_autofree char *log_path = g_build_filename (dir, "storm.log", NULL);
  int log_fd = open (log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  gint64 until = g_get_monotonic_time () + (gint64) for_ms * 1000;
  StormClient *storms;

  if (log_fd < 0 || clients < 1 || every_ms < 1 || for_ms < 0)
    {
      g_printerr ("storm: %s\n", log_fd < 0 ? g_strerror (errno)
                                            : "--clients and --every-ms must be positive");
      if (log_fd >= 0)
        close (log_fd);
      return 2;
    }
  storms = g_new0 (StormClient, clients);
  for (int i = 0; i < clients; i++)
    {
      g_autofree char *name = g_strdup_printf ("w%d.sid", i + 1);

      storms[i] = (StormClient) { .hosts = hosts, .sid_path = g_build_filename (dir, name, NULL),
                                  .client = i + 1, .every_us = (gint64) every_ms * 1000,
                                  .offset_us = (gint64) every_ms * 1000 * i / clients,
                                  .until = until, .log_fd = log_fd };
      storms[i].thread = g_thread_new ("storm", storm_client_main, &storms[i]);
    }
  for (int i = 0; i < clients; i++)
    {
      g_thread_join (storms[i].thread);
      g_free (storms[i].sid_path);
    }
  g_free (storms);
  close (log_fd);
  return 0;
}

/* At exit: every node this client's current session owns must be gone once
 * its pending deletes finished (a leak here is an orphan for the life of
 * the session). Waits up to 10 s for the background deletes. */
static void
check_own_nodes (Worker *worker)
{
  gint64 owner = zkr_session_get_id (worker->session);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  RawWait wait;
  zhandle_t *zh = raw_connect (worker->hosts, NULL, &wait);
  g_autoptr (GPtrArray) left = NULL;
  int rc = ZOK;

  if (zh == NULL)
    {
      history (worker, "leftover-unknown cannot-connect\n");
      raw_close (NULL, &wait);
      return;
    }
  do
    {
      g_clear_pointer (&left, g_ptr_array_unref);
      left = g_ptr_array_new_with_free_func (g_free);
      rc = collect_ephemerals (zh, worker->path, owner, left);
      if (rc == ZOK && left->len == 0)
        break;
      g_usleep (100 * 1000);
    }
  while (g_get_monotonic_time () < deadline);
  history (worker, "leftover %u %s\n", left->len, zerror (rc));
  for (guint i = 0; i < left->len; i++)
    history (worker, "leftover-node %s\n", (char *) g_ptr_array_index (left, i));
  raw_close (zh, &wait);
}

/* ---- the loop ------------------------------------------------------ */

/* A timeout or a cancel is retried at once, any other failure after 50 ms. */
static void
acquire_failed (Worker *worker, guint64 seq, const GError *error)
{
  gint64 now = g_get_monotonic_time ();

  if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT))
    history (worker, "timeout %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT "\n", seq, now);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    history (worker, "cancelled %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT "\n", seq, now);
  else
    {
      history (worker, "fail %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %s\n", seq, now,
               error_name (error));
      g_usleep (50 * 1000);
    }
}

static void
hold_once (Worker *worker, guint64 seq, gint64 t_req)
{
  g_autoptr (GError) error = NULL;
  gint64 token = 0, t_got, t_rel, t_done;
  gboolean ok;
  Call call;

  g_atomic_int_set (&worker->lost, 0);
  call_plan (worker, &call);
  if (call.use_async)
    ok = acquire_async (worker, &call, &token, &error);
  else
    ok = worker->ops->acquire (worker, &call, &token, &error);
  /* The hold starts at the answer, not after the token was read: a loss
   * right after the answer (an expiry from outside, say) then falls inside
   * the hold, whose token reads 0 (not held any more). */
  t_got = call.t_answer != 0 ? call.t_answer : g_get_monotonic_time ();
  call_log (worker, seq, &call, ok, error);
  g_clear_object (&call.cancellable);
  if (!ok)
    {
      acquire_failed (worker, seq, error);
      return;
    }
  /* Token 0: lost already (its loss listener may not have run yet); the
   * hold makes no writes. */
  if (token == 0)
    g_atomic_int_set (&worker->lost, 1);
  set_state (worker, 'H');
  history (worker, "acq %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
           " %" G_GINT64_FORMAT " %" G_GINT64_MODIFIER "x\n",
           seq, token, t_req, t_got, zkr_session_get_id (worker->session));
  /* The work: a write when the hold starts, some time, a write at its end
   * (a holder paused in between comes back with a stale token). */
  guarded_write (worker, token);
  g_usleep ((gulong) g_rand_int_range (worker->rand, 0, worker->hold_max_us + 1));
  guarded_write (worker, token);
  set_state (worker, 'W');
  t_rel = g_get_monotonic_time ();
  ok = worker->ops->release (worker, &error);
  t_done = g_get_monotonic_time ();
  history (worker, "rel %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s\n",
           seq, t_rel, t_done, ok ? "ok" : error_name (error));
}

static void
timer_stop (Worker *worker)
{
  fault_call_timer_stop (&worker->timer);
}

static gboolean
worker_open (Worker *worker, GError **error)
{
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autofree char *client_id = g_strdup_printf ("fault-worker-%d", worker->id);

  zkr_session_options_set_hosts (options, worker->hosts);
  zkr_session_options_set_session_timeout_ms (options, worker->session_timeout_ms);
  zkr_session_options_set_connection_timeout_ms (options, 30000);
  zkr_session_options_set_client_id (options, client_id);
  worker->session = zkr_session_new (options, error);
  if (worker->session == NULL)
    return FALSE;
  zkr_session_add_state_listener (worker->session, on_state, worker, NULL);
  return worker->ops->open (worker, error);
}

static int
worker_main (Worker *worker)
{
  g_autoptr (GError) error = NULL;
  guint64 seq = 0;

  worker->listener_context = g_main_context_new ();
  worker->listener_loop = g_main_loop_new (worker->listener_context, FALSE);
  worker->call_context = g_main_context_new ();
  fault_call_timer_start (&worker->timer);
  zkr__wait_init (&worker->ready);
  worker->listener_thread = g_thread_new ("listener", listener_main, worker);
  zkr__wait_block (&worker->ready);
  if (!zkr_session_wait_connected (worker->session, 30000, NULL, &error))
    g_error ("connect: %s", error->message);
  history (worker, "start %" G_GINT64_FORMAT " %s %d %d\n", g_get_monotonic_time (),
           worker->ops->name, worker->session_timeout_ms, zkr_session_get_timeout_ms (worker->session));

  while (!stop_requested)
    hold_once (worker, seq++, g_get_monotonic_time ());

  check_own_nodes (worker);
  worker->ops->close (worker);
  zkr_session_close (worker->session);
  history (worker, "exit %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  g_clear_pointer (&worker->session, zkr_session_unref);
  g_main_loop_quit (worker->listener_loop);
  g_thread_join (worker->listener_thread);
  g_main_loop_unref (worker->listener_loop);
  g_main_context_unref (worker->listener_context);
  timer_stop (worker);
  g_main_context_unref (worker->call_context);
  return 0;
}

static const ModeOps *
find_mode (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (modes); i++)
    if (g_strcmp0 (modes[i].name, name) == 0)
      return &modes[i];
  return NULL;
}

static int
open_or_die (const char *path, int flags)
{
  int fd = open (path, flags | O_CLOEXEC, 0644);

  if (fd < 0)
    g_error ("%s: %s", path, g_strerror (errno));
  return fd;
}

int
main (int argc, char **argv)
{
  Worker worker = { 0 };
  g_autofree char *mode = NULL;
  g_autofree char *expire = NULL;
  g_autofree char *count = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *storm = NULL;
  int storm_every_ms = 300, storm_for_ms = 0, storm_clients = 0;
  int seed = 0;
  GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_STRING, &mode, "mutex, writer, reader, semaphore or latch", "MODE" },
    { "hosts", 0, 0, G_OPTION_ARG_STRING, &worker.hosts, "Connect string", "HOSTS" },
    { "path", 0, 0, G_OPTION_ARG_STRING, &worker.path, "Lock path", "PATH" },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "Run directory", "DIR" },
    { "id", 0, 0, G_OPTION_ARG_INT, &worker.id, "Worker number", "N" },
    { "session-timeout", 0, 0, G_OPTION_ARG_INT, &worker.session_timeout_ms, "ms", "MS" },
    { "leases", 0, 0, G_OPTION_ARG_INT, &worker.leases, "Semaphore leases (1 otherwise)", "N" },
    { "hold-max-us", 0, 0, G_OPTION_ARG_INT, &worker.hold_max_us, "Longest hold", "US" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &seed, "Random seed", "N" },
    { "expire", 0, 0, G_OPTION_ARG_FILENAME, &expire, "Expire the session in FILE", "FILE" },
    { "count", 0, 0, G_OPTION_ARG_STRING, &count, "List and delete nodes under PATH", "PATH" },
    { "storm", 0, 0, G_OPTION_ARG_FILENAME, &storm,
      "Expire the sessions of the clients of run directory DIR again and again", "DIR" },
    { "clients", 0, 0, G_OPTION_ARG_INT, &storm_clients, "--storm: how many clients", "N" },
    { "every-ms", 0, 0, G_OPTION_ARG_INT, &storm_every_ms, "--storm: each client's period", "MS" },
    { "for-ms", 0, 0, G_OPTION_ARG_INT, &storm_for_ms, "--storm: how long", "MS" },
    { "plain-calls", 0, 0, G_OPTION_ARG_NONE, &worker.plain_calls,
      "Every acquire blocking, 1 s, no cancel", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- zkr fault-suite client");
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || worker.hosts == NULL)
    {
      g_printerr ("zkr-fault-worker: %s\n", error != NULL ? error->message : "--hosts is required");
      return 2;
    }
  zoo_set_debug_level (ZOO_LOG_LEVEL_ERROR);
  if (expire != NULL || count != NULL || storm != NULL)
    {
      /* The one-shot commands: what the options took is freed here too
       * (the sanitizer builds run them and fail on a leak). */
      int rc = expire != NULL ? expire_main (worker.hosts, expire)
               : count != NULL ? count_main (worker.hosts, count)
                               : storm_main (worker.hosts, storm, storm_clients, storm_every_ms,
                                             storm_for_ms);

      g_free (worker.hosts);
      g_free (worker.path);
      return rc;
    }

  worker.ops = find_mode (mode);
  if (worker.ops == NULL || worker.path == NULL || dir == NULL || worker.session_timeout_ms <= 0)
    {
      g_printerr ("zkr-fault-worker: --mode, --path, --dir and --session-timeout are required\n");
      return 2;
    }
  if (worker.leases < 1 || worker.leases > 16)
    worker.leases = 1;
  worker.rand = g_rand_new_with_seed ((guint32) seed ^ (guint32) worker.id * 2654435761u);
  worker.history_path = g_strdup_printf ("%s/w%d.history", dir, worker.id);
  worker.state_path = g_strdup_printf ("%s/w%d.state", dir, worker.id);
  worker.sid_path = g_strdup_printf ("%s/w%d.sid", dir, worker.id);
  worker.resource_path = g_strdup_printf ("%s/resource", dir);
  worker.history_fd = open_or_die (worker.history_path, O_WRONLY | O_CREAT | O_APPEND);
  worker.state_fd = open_or_die (worker.state_path, O_WRONLY | O_CREAT);
  worker.resource_fd = open_or_die (worker.resource_path, O_RDWR | O_CREAT);
  {
    g_autofree char *log_path = g_strdup_printf ("%s/resource.log", dir);
    worker.resource_log_fd = open_or_die (log_path, O_WRONLY | O_CREAT | O_APPEND);
  }
  set_state (&worker, 'W');
  signal (SIGTERM, on_term);
  signal (SIGINT, on_term);

  int rc = worker_main (&worker);

  close (worker.history_fd);
  close (worker.state_fd);
  close (worker.resource_fd);
  close (worker.resource_log_fd);
  g_rand_free (worker.rand);
  g_free (worker.history_path);
  g_free (worker.state_path);
  g_free (worker.sid_path);
  g_free (worker.resource_path);
  g_free (worker.hosts);
  g_free (worker.path);
  return rc;
}
