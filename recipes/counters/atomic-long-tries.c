/* zkr: the atomic long's tries, one phase at a time, on the session's
 * worker: read, compute, set with the version read or create, the
 * policies' sleeps on executor timers, a lost write reply resolved by a
 * sync and a read again; one answer in the caller's context. */
#include "armed.h"
#include "context.h"
#include "counter-private.h"
#include "error-private.h"
#include "log.h"
#include "nodes.h"
#include "ops.h"

#include <string.h>

#include <zkr/error.h>

/* How often a first create makes its missing parents again: a container
 * parent may be reaped between their create and ours (as node-op.c). */
#define MAX_PARENT_ROUNDS 5

/* ==== a phase's tries, on the worker ================================== */

/* Where a run of tries is, changed only by tries_set_step(). Worker-side
 * state: read and changed by whichever thread holds the session's turn. */
typedef enum {
  TRIES_STARTING,  /* made; its start has not run yet */
  TRIES_WAITING,   /* for (RE)CONNECTED before (re)sending @resume */
  TRIES_READING,   /* the read in flight */
  TRIES_WRITING,   /* the set or create in flight */
  TRIES_PARENTS,   /* the first create's missing parents being made */
  TRIES_SYNCING,   /* a lost write reply: the sync in flight */
  TRIES_RESOLVING, /* a lost write reply: the read again in flight */
  TRIES_SLEEPING,  /* a policy's sleep (a lost race, or a read to retry) */
  TRIES_ANSWERED,  /* answered; replies still due are dropped */
} TriesStep;

static const char *const tries_step_names[] = {
  [TRIES_STARTING] = "STARTING", [TRIES_WAITING] = "WAITING",
  [TRIES_READING] = "READING",   [TRIES_WRITING] = "WRITING",
  [TRIES_PARENTS] = "PARENTS",   [TRIES_SYNCING] = "SYNCING",
  [TRIES_RESOLVING] = "RESOLVING", [TRIES_SLEEPING] = "SLEEPING",
  [TRIES_ANSWERED] = "ANSWERED",
};

/* One phase (optimistic, or under the mutex): what it needs of the
 * operation, copied, so that it never touches the ZkrAtomicOp (the caller's) but
 * to hand it to the answer. */
typedef struct {
  gatomicrefcount ref;       /* the start, what the start arms (until the
                              * answer), each request in flight, each post
                              * of the cancel handler */
  ZkrAtomicOp *op;                    /* borrowed until the answer carries it off */
  ZkrSession *session;       /* (owned) */
  char *path;                /* (owned) as given, for messages */
  char *full_path;           /* (owned) */
  ZkrRetryPolicy *policy;    /* (owned) the phase's */
  ZkrAtomicOpKind kind;
  gint64 operand;
  gint64 expected;
  int timeout_ms;
  gint64 deadline;           /* monotonic µs; G_MAXINT64: none */
  gboolean try_once;         /* timeout 0: each request sent once, no wait */
  GCancellable *cancellable; /* (owned) (nullable) */
  ZkrArmed armed;            /* the deadline, the cancel, the state listener */
  guint sleep_timer;
  TriesStep step;
  TriesStep resume;          /* WAITING, SLEEPING: what to send next (READING
                              * or SYNCING) */
  guint race_retries;        /* lost races, for the phase's policy */
  guint read_retries;        /* failed reads, for the session's policy */
  gint64 phase_start;
  gint64 read_failed_since;
  guint parent_rounds;
  int read_version;          /* of the last read; -1: no node */
  gint64 read_czxid;         /* of the last read, when a node */
  gint64 read_mzxid;
  gint64 pre_value;
  ZkrAtomicWrite write;
  guint8 written[8];
  guint tries;
  gboolean log_steps;        /* the debug log was on at the start */
} Tries;


static Tries *
tries_ref (Tries *tries)
{
  g_atomic_ref_count_inc (&tries->ref);
  return tries;
}

static void
tries_unref (gpointer data)
{
  Tries *tries = data;

  if (!g_atomic_ref_count_dec (&tries->ref))
    return;
  g_clear_object (&tries->cancellable);
  zkr_retry_policy_unref (tries->policy);
  zkr_session_unref (tries->session);
  g_free (tries->full_path);
  g_free (tries->path);
  g_free (tries);
}

static void
tries_set_step (Tries *tries, TriesStep to)
{
  g_return_if_fail (tries->step != TRIES_ANSWERED);
  if (tries->log_steps)
    g_debug ("atomic long %s: %s -> %s", tries->path, tries_step_names[tries->step],
             tries_step_names[to]);
  tries->step = to;
}

static void tries_send_read (Tries *tries);
static void tries_send_sync (Tries *tries);

/* Stops everything that can call back into @tries but the requests in
 * flight (whose replies are dropped: they hold references). */
static void
tries_detach (Tries *tries)
{
  zkr__armed_detach (&tries->armed);
  zkr__session_timer_clear (tries->session, &tries->sleep_timer);
}

/* The one way out, at most once: @error (transfer full) wins over the
 * outcome. Worker or stand-in; the answer runs later, in the caller's
 * context. */
static void
tries_answer (Tries *tries, ZkrAtomicOutcome outcome, gboolean succeeded, gint64 post_value,
              GError *error)
{
  ZkrAtomicAnswer *answer;

  if (tries->step == TRIES_ANSWERED)
    {
      g_clear_error (&error);
      return;
    }
  tries_set_step (tries, TRIES_ANSWERED);
  tries_detach (tries);
  answer = g_new0 (ZkrAtomicAnswer, 1);
  answer->op = g_steal_pointer (&tries->op);
  answer->outcome = error != NULL ? OUTCOME_ERROR : outcome;
  answer->succeeded = succeeded;
  answer->pre_value = tries->pre_value;
  answer->post_value = post_value;
  answer->tries = tries->tries;
  answer->error = error;
  zkr__context_post_embedded (answer->op->context, &answer->post, zkr__atomic_long_answer_run,
                              answer, zkr__atomic_long_answer_free);
  /* What the start armed held this one; every caller holds one of its own
   * (a request's, a post's, the start's). */
  tries_unref (tries);
}

static void
tries_fail (Tries *tries, GError *error)
{
  tries_answer (tries, OUTCOME_ERROR, FALSE, 0, error);
}

static void
tries_fail_rc (Tries *tries, int rc, const char *what)
{
  GError *error = NULL;

  if (rc == ZCLOSING || zkr_session_get_state (tries->session) == ZKR_SESSION_STATE_CLOSED)
    g_set_error (&error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                 "atomic long %s: the session is closed", tries->path);
  else
    zkr__error_set_from_zk (&error, rc, what, tries->path, zkr_session_get_id (tries->session));
  tries_fail (tries, error);
}

static void
tries_fail_code (Tries *tries, ZkrError code, const char *what)
{
  tries_fail (tries, g_error_new (ZKR_ERROR, code, "atomic long %s: %s%s", tries->path, what,
                                  tries->write != WRITE_NONE
                                    ? " (the last write may or may not have landed)" : ""));
}

static void
tries_fail_cancelled (Tries *tries)
{
  tries_fail (tries, zkr__error_new_cancelled ("atomic long %s%s", tries->path,
                                               tries->write != WRITE_NONE
                                                 ? " (the last write may or may not have landed)"
                                                 : ""));
}

static GError *
tries_unknown_error (Tries *tries, const char *what)
{
  return g_error_new (ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS,
                      "atomic long %s: the connection was lost with our write in flight and "
                      "%s: whether it landed is unknown", tries->path, what);
}

/* ---- retries: the phase's policy after a lost race, the session's
 * after a failed read -------------------------------------------------- */

static gboolean
tries_sleep_over (gpointer data)
{
  Tries *tries = data;

  tries->sleep_timer = 0;
  if (tries->resume == TRIES_SYNCING)
    tries_send_sync (tries);
  else
    tries_send_read (tries);
  return G_SOURCE_REMOVE;
}

/* A sleep on the executor's timers, cut by the deadline's timer (which
 * answers TIMEOUT) and by a cancel (which answers CANCELLED). */
static void
tries_sleep (Tries *tries, guint sleep_ms, TriesStep resume)
{
  tries->resume = resume;
  tries_set_step (tries, TRIES_SLEEPING);
  tries->sleep_timer = zkr__session_timer_add (tries->session, sleep_ms, 0, tries_sleep_over,
                                               tries);
}

/* A try lost a race (or provably wrote nothing): again as the phase's
 * policy allows; then the operation promotes or gives up with succeeded
 * FALSE. */
static void
tries_retry (Tries *tries)
{
  gint64 elapsed_ms = (g_get_monotonic_time () - tries->phase_start) / 1000;
  guint sleep_ms = 0;

  tries->write = WRITE_NONE;
  if (tries->kind == OP_CAS)
    tries_answer (tries, OUTCOME_DONE, FALSE, 0, NULL);
  else if (zkr_retry_policy_allow (tries->policy, tries->race_retries++, MAX (elapsed_ms, 0),
                                   g_random_int (), &sleep_ms))
    tries_sleep (tries, sleep_ms, TRIES_READING);
  else
    tries_answer (tries, OUTCOME_GAVE_UP, FALSE, 0, NULL);
}

/* A read (or the sync) answered "retry" (the connection's trouble, as
 * node.h reads): again after the session policy's sleep, once connected;
 * @rc's error when it allows none. A lost write's resolution that cannot
 * be finished leaves its fate unknown. */
static void
tries_read_failed (Tries *tries, int rc, TriesStep resume)
{
  gint64 now = g_get_monotonic_time ();
  guint sleep_ms = 0;

  if (tries->read_retries == 0)
    tries->read_failed_since = now;
  if (!zkr__error_rc_is_retryable (rc) || tries->try_once ||
      !zkr_retry_policy_allow (zkr__session_get_retry_policy (tries->session),
                               tries->read_retries, (now - tries->read_failed_since) / 1000,
                               g_random_int (), &sleep_ms))
    {
      if (resume == TRIES_SYNCING && zkr__error_code_from_zk (rc) == ZKR_ERROR_CONNECTION_LOSS)
        tries_fail (tries, tries_unknown_error (tries, "the node could not be read again"));
      else
        tries_fail_rc (tries, rc, resume == TRIES_SYNCING ? "sync" : "get");
      return;
    }
  tries->read_retries++;
  tries_sleep (tries, sleep_ms, resume);
}

/* ---- a lost reply ----------------------------------------------------- */

/* Which of a lost reply's outcomes the node read again shows. */
typedef enum { FATE_NOT_LANDED, FATE_UNKNOWN } Fate;

/* The node read again (after a sync that answered) when our write's reply
 * was lost. Only "not landed" can be known: the node untouched since our
 * read (same mzxid), or, for a set, exactly one write since that is not
 * ours (version v + 1 with other bytes: ours then failed on the version),
 * or, for a create, a node still missing or created by someone else with
 * other bytes. Our bytes at the next version prove nothing: another
 * writer's increment from the same value writes the very same bytes, and
 * the 8-byte layout carries no writer. Anything else cannot be told
 * apart either. (Why a write not seen after the sync cannot land later:
 * atomic-long.h.) */
static Fate
tries_fate (Tries *tries, GBytes *data, const struct Stat *stat)
{
  gsize len = 0;
  const void *bytes = data != NULL ? g_bytes_get_data (data, &len) : NULL;
  gboolean ours = len == 8 && memcmp (bytes, tries->written, 8) == 0;

  if (tries->write == WRITE_CREATE)
    return data == NULL || (stat->version == 0 && !ours) ? FATE_NOT_LANDED : FATE_UNKNOWN;
  if (data == NULL || stat->czxid != tries->read_czxid)
    return FATE_UNKNOWN;
  if (stat->mzxid == tries->read_mzxid ||
      (stat->version == tries->read_version + 1 && !ours))
    return FATE_NOT_LANDED;
  return FATE_UNKNOWN;
}

static void
tries_resolved (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Tries *tries = user_data;
  /* A node with no data reads as a GBytes of 0 bytes, a missing one NULL. */
  GBytes *data = reply->rc == ZOK && reply->data == NULL ? g_bytes_new (NULL, 0)
                 : reply->rc == ZOK ? g_bytes_ref (reply->data) : NULL;

  (void) session;
  if (tries->step != TRIES_RESOLVING)
    ;
  else if (reply->rc != ZOK && reply->rc != ZNONODE)
    tries_read_failed (tries, reply->rc, TRIES_SYNCING);
  else if (tries_fate (tries, data, &reply->stat) == FATE_NOT_LANDED)
    tries_retry (tries);
  else
    tries_fail (tries, tries_unknown_error (tries, data == NULL ? "the node is gone"
                                                                : "the node does not tell"));
  g_clear_pointer (&data, g_bytes_unref);
  tries_unref (tries);
}

/* Without an answered sync a read proves nothing: a write of ours still
 * on its way may land after it. */
static void
tries_synced (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Tries *tries = user_data;

  if (tries->step != TRIES_SYNCING)
    ;
  else if (reply->rc != ZOK)
    tries_read_failed (tries, reply->rc, TRIES_SYNCING);
  else
    {
      tries_set_step (tries, TRIES_RESOLVING);
      zkr__op_get (session, tries->full_path, FALSE, tries_resolved, tries_ref (tries));
    }
  tries_unref (tries);
}

static void
tries_send_sync (Tries *tries)
{
  if (!zkr_session_is_connected (tries->session))
    {
      if (tries->try_once)
        tries_fail (tries, tries_unknown_error (tries, "the session is not connected"));
      else
        {
          tries->resume = TRIES_SYNCING;
          tries_set_step (tries, TRIES_WAITING);
        }
      return;
    }
  tries_set_step (tries, TRIES_SYNCING);
  zkr__op_sync_path (tries->session, tries->full_path, tries_synced, tries_ref (tries));
}

/* ---- one try: read, then write with the version read ----------------- */

static void
tries_written (Tries *tries, int rc)
{
  ZkrError code = zkr__error_code_from_zk (rc);
  guint64 big_endian;

  if (rc == ZOK)
    {
      memcpy (&big_endian, tries->written, 8);
      tries_answer (tries, OUTCOME_DONE, TRUE, (gint64) GUINT64_FROM_BE (big_endian), NULL);
    }
  else if (rc == ZBADVERSION || rc == ZNODEEXISTS || (rc == ZNONODE && tries->write == WRITE_SET))
    tries_retry (tries);
  else if (code == ZKR_ERROR_CONNECTION_LOSS)
    tries_send_sync (tries);
  else
    tries_fail_rc (tries, rc, tries->write == WRITE_SET ? "set" : "create");
}

static gboolean
write_posted_run (gpointer data)
{
  Tries *tries = data;

  if (tries->step == TRIES_WRITING)
    tries_written (tries, ZOK);
  return G_SOURCE_REMOVE;
}

/* A set's reply. Its success may come in place (on the completion thread,
 * in the worker's place): the answer is then given right there, one
 * thread hand-off fewer per increment, unless a cancellable is connected,
 * whose disconnecting may wait for a handler running in another thread
 * (nothing in place waits): that one, as every other reply, runs on the
 * worker. */
static void
tries_write_answered (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Tries *tries = user_data;

  if (zkr__session_in_place (session) && tries->armed.cancel_id != 0)
    {
      /* The request's reference, handed over. */
      zkr__session_post (session, write_posted_run, tries, tries_unref);
      return;
    }
  if (tries->step == TRIES_WRITING)
    tries_written (tries, reply->rc);
  tries_unref (tries);
}

static void tries_create_answered (ZkrSession *session, ZkrReply *reply, gpointer user_data);

static void
tries_send_create (Tries *tries)
{
  tries_set_step (tries, TRIES_WRITING);
  zkr__op_create (tries->session, tries->full_path, (const char *) tries->written, 8,
                  ZOO_PERSISTENT, tries_create_answered, tries_ref (tries));
}

static void
tries_parents_made (ZkrSession *session, int rc, gpointer user_data)
{
  Tries *tries = user_data;

  (void) session;
  if (tries->step != TRIES_PARENTS)
    ;
  else if (rc == ZOK)
    tries_send_create (tries);
  else
    {
      /* Nothing of ours is out: the try starts over after the read's
       * policy allows, else @rc's error. */
      tries->write = WRITE_NONE;
      tries_read_failed (tries, rc, TRIES_READING);
    }
  tries_unref (tries);
}

static void
tries_create_answered (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Tries *tries = user_data;

  if (tries->step != TRIES_WRITING)
    ;
  else if (reply->rc == ZNONODE && tries->parent_rounds++ < MAX_PARENT_ROUNDS)
    {
      /* Curator's creatingParentContainersIfNeeded. */
      tries_set_step (tries, TRIES_PARENTS);
      zkr__ensure_parents (session, tries->full_path, tries_parents_made, tries_ref (tries));
    }
  else
    tries_written (tries, reply->rc);
  tries_unref (tries);
}

static void
tries_write (Tries *tries, gint64 new_value)
{
  zkr__atomic_long_encode (new_value, tries->written);
  tries->write = tries->read_version >= 0 ? WRITE_SET : WRITE_CREATE;
  if (tries->write == WRITE_CREATE)
    {
      tries_send_create (tries);
      return;
    }
  tries_set_step (tries, TRIES_WRITING);
  zkr__op_set_full (tries->session, tries->full_path, (const char *) tries->written, 8,
                    tries->read_version, ZKR_WAKE_IN_PLACE, tries_write_answered,
                    tries_ref (tries));
}

/* What a read saw: the try goes on from it (worker, or in place). */
static void
tries_on_read (Tries *tries, int rc, GBytes *data, const struct Stat *stat)
{
  GError *error = NULL;
  gint64 current = 0;

  if (tries->step != TRIES_READING)
    ;
  else if (rc != ZOK && rc != ZNONODE)
    tries_read_failed (tries, rc, TRIES_READING);
  else if (!zkr__atomic_long_decode (rc == ZOK ? data : NULL, tries->path, &current, &error))
    tries_fail (tries, error);
  else
    {
      tries->read_retries = 0;
      tries->read_version = rc == ZOK ? stat->version : -1;
      tries->read_czxid = stat->czxid;
      tries->read_mzxid = stat->mzxid;
      tries->pre_value = current;
      if (tries->kind == OP_GET)
        tries_answer (tries, OUTCOME_DONE, TRUE, current, NULL);
      else if (tries->kind == OP_CAS && (tries->read_version < 0 || current != tries->expected))
        tries_answer (tries, OUTCOME_DONE, FALSE, 0, NULL);
      else if (tries->kind == OP_ADD)
        /* Java's long arithmetic: wraps. */
        tries_write (tries, (gint64) ((guint64) current + (guint64) tries->operand));
      else
        tries_write (tries, tries->operand);
    }
}

/* A read's answer kept for the worker (it came in place). */
typedef struct {
  Tries *tries;              /* (owned) */
  int rc;
  GBytes *data;              /* (owned) (nullable) */
  struct Stat stat;
} ReadPosted;

static gboolean
read_posted_run (gpointer data)
{
  ReadPosted *posted = data;

  tries_on_read (posted->tries, posted->rc, posted->data, &posted->stat);
  return G_SOURCE_REMOVE;
}

static void
read_posted_free (gpointer data)
{
  ReadPosted *posted = data;

  g_clear_pointer (&posted->data, g_bytes_unref);
  tries_unref (posted->tries);
  g_free (posted);
}

/* In place (on the completion thread, in the worker's place) a read only
 * sends the write that follows it: the common step of a try, so the
 * worker is not woken just to send it. Anything else (an answer, which
 * disconnects the cancel and posts to the caller; a sleep; a failure)
 * goes to the worker. */
static gboolean
tries_read_writes_next (Tries *tries, ZkrReply *reply)
{
  gint64 current = 0;

  if (tries->step != TRIES_READING || (reply->rc != ZOK && reply->rc != ZNONODE) ||
      !zkr__atomic_long_decode (reply->rc == ZOK ? reply->data : NULL, tries->path, &current, NULL))
    return FALSE;
  if (tries->kind == OP_CAS)
    return reply->rc == ZOK && current == tries->expected;
  return tries->kind == OP_SET || tries->kind == OP_ADD;
}

static void
tries_read (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  Tries *tries = user_data;
  ReadPosted *posted;

  if (!zkr__session_in_place (session) || tries_read_writes_next (tries, reply))
    {
      tries_on_read (tries, reply->rc, reply->data, &reply->stat);
      tries_unref (tries);
      return;
    }
  posted = g_new0 (ReadPosted, 1);
  posted->tries = tries;     /* the request's reference, handed over */
  posted->rc = reply->rc;
  posted->data = reply->data != NULL ? g_bytes_ref (reply->data) : NULL;
  posted->stat = reply->stat;
  zkr__session_post (session, read_posted_run, posted, read_posted_free);
}

static void
tries_send_read (Tries *tries)
{
  tries->write = WRITE_NONE;
  if (!zkr_session_is_connected (tries->session))
    {
      if (tries->try_once)
        tries_fail_code (tries, ZKR_ERROR_CONNECTION_LOSS,
                         "the session is not connected (timeout 0: no wait)");
      else
        {
          tries->resume = TRIES_READING;
          tries_set_step (tries, TRIES_WAITING);
        }
      return;
    }
  tries->tries++;
  tries_set_step (tries, TRIES_READING);
  zkr__op_get_full (tries->session, tries->full_path, FALSE, ZKR_WAKE_IN_PLACE, tries_read,
                    tries_ref (tries));
}

/* ---- the start, the deadline, the cancel, the session's states ------- */

static void
tries_on_deadline (gpointer data)
{
  Tries *tries = data;

  tries_fail (tries, zkr__atomic_long_timeout_error (tries->path, tries->timeout_ms, tries->write));
}

/* An internal listener: synchronously on the worker at each transition. */
static void
tries_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Tries *tries = user_data;

  (void) session;
  switch (state)
    {
    case ZKR_SESSION_STATE_CONNECTED:
    case ZKR_SESSION_STATE_RECONNECTED:
      /* A reconnect ends a failed read's sleep at once (as node-op.c); a
       * lost race's sleep runs its course. */
      if (tries->step == TRIES_SLEEPING && tries->read_retries > 0)
        {
          zkr__session_timer_clear (tries->session, &tries->sleep_timer);
          tries_sleep_over (tries);
        }
      else if (tries->step == TRIES_WAITING)
        {
          if (tries->resume == TRIES_SYNCING)
            tries_send_sync (tries);
          else
            tries_send_read (tries);
        }
      break;
    case ZKR_SESSION_STATE_LOST:
      tries_fail_code (tries, ZKR_ERROR_SESSION_EXPIRED,
                       "the session was lost (expired) before the answer");
      break;
    case ZKR_SESSION_STATE_CLOSED:
      tries_fail_rc (tries, ZCLOSING, NULL);
      break;
    case ZKR_SESSION_STATE_CONNECTING:
    case ZKR_SESSION_STATE_SUSPENDED:
    default:
      break;
    }
}

static void
tries_on_cancelled (gpointer data)
{
  tries_fail_cancelled (data);
}

static gpointer
tries_ref_hook (gpointer data)
{
  return tries_ref (data);
}

static const ZkrArmedHooks tries_armed_hooks = {
  .ref = tries_ref_hook,
  .unref = tries_unref,
  .on_state = tries_on_state,
  .on_deadline = tries_on_deadline,
  .on_cancelled = tries_on_cancelled,
};

/* Worker or stand-in: everything that can answer is armed here, before
 * the first send, so no reply can come before it. */
static gboolean
tries_start (gpointer data)
{
  Tries *tries = data;

  /* Held by what is armed here (the listener, the timers, the cancel
   * handler) until tries_answer() detaches it. */
  tries_ref (tries);
  switch (zkr__armed_arm (&tries->armed))
    {
    case ZKR_ARMED_CANCELLED:
      tries_fail_cancelled (tries);
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_CLOSED:
      tries_fail_rc (tries, ZCLOSING, NULL);
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_LOST:
      tries_fail_code (tries, ZKR_ERROR_SESSION_EXPIRED,
                       "the session is lost (expired); a fresh one is on its way");
      return G_SOURCE_REMOVE;
    case ZKR_ARMED_GO:
    default:
      break;
    }
  if (tries->deadline != G_MAXINT64 && tries->deadline <= g_get_monotonic_time ())
    {
      tries_fail (tries, zkr__atomic_long_timeout_error (tries->path, tries->timeout_ms,
                                                         WRITE_NONE));
      return G_SOURCE_REMOVE;
    }
  zkr__armed_set_deadline (&tries->armed, tries->deadline);
  tries_send_read (tries);
  return G_SOURCE_REMOVE;
}

/* A phase: its tries on the worker, its answer in @op's context. From a
 * user's thread the caller runs the start itself, standing in for the
 * worker: the deadline timer and the cancel are armed before this
 * returns, whatever the connection does. */
void
zkr__atomic_long_tries_run (ZkrAtomicOp *op)
{
  ZkrAtomicLong *atomic = op->atomic;
  Tries *tries = g_new0 (Tries, 1);

  g_atomic_ref_count_init (&tries->ref);
  tries->op = op;
  tries->session = zkr_session_ref (atomic->session);
  tries->path = g_strdup (atomic->path);
  tries->full_path = g_strdup (atomic->full_path);
  tries->policy = zkr_retry_policy_ref (op->promoted ? atomic->lock_retry_policy
                                                     : atomic->retry_policy);
  tries->kind = op->kind;
  tries->operand = op->operand;
  tries->expected = op->expected;
  tries->timeout_ms = op->timeout_ms;
  tries->deadline = op->timeout_ms > 0 ? op->deadline : G_MAXINT64;
  tries->try_once = op->timeout_ms == 0;
  tries->cancellable = op->cancellable != NULL ? g_object_ref (op->cancellable) : NULL;
  tries->phase_start = g_get_monotonic_time ();
  tries->read_version = -1;
  tries->log_steps = zkr__log_debug_enabled ();
  zkr__armed_init (&tries->armed, &tries_armed_hooks, tries, tries->session,
                   tries->cancellable);
  zkr__armed_run_start (atomic->session, tries_start, tries, tries_unref);
}
