/* zkr fault suite: what the client programs share (fault-worker.c,
 * counter-worker.c, barrier-worker.c, cache-worker.c, group-worker.c): a
 * bounded call's record and the timer thread that cancels it when planned
 * and measures how late this process itself ran, the outcome's name for
 * the history, and the session id file the nemesis expires a session
 * with. */
#pragma once

#include <zkr/zkr.h>

G_BEGIN_DECLS

/* The tick at which the timer thread wakes once a call's first bound
 * passed, until the call answers. */
#define FAULT_CALL_TICK_US (10 * 1000)

/* One bounded call. */
typedef struct {
  int timeout_ms;
  gint64 cancel_after_us;     /* from the start; -1: no cancel planned */
  gboolean use_async;
  GCancellable *cancellable;  /* NULL for a plain call */

  gint64 t_start;             /* 0: the call never started */
  gint64 deadline;
  gint64 cancel_at;           /* planned, 0 when none */
  gint64 t_cancel;            /* when the timer thread cancelled, 0 if it did not */
  gint64 t_answer;            /* the blocking call returned, or the callback ran */
  gboolean answered;
  gint64 timer_late_max;      /* the timer thread's worst wake-up lateness */
  gint64 timer_late_sum;      /* its total lateness, from the first bound on */
} FaultCall;

/* The timer thread of one client; @lock guards @call and the FaultCall it
 * points to. */
typedef struct {
  GThread *thread;
  GMutex lock;
  GCond cond;
  FaultCall *call;
  gboolean quit;
} FaultCallTimer;

void fault_call_timer_start (FaultCallTimer *timer);
/* Stops and joins the thread (no call may be under way). */
void fault_call_timer_stop (FaultCallTimer *timer);
/* Right before the bounded call: its deadline and cancel time count from
 * here, a little before the library's own start, so the check is if
 * anything strict. */
void fault_call_begin (FaultCallTimer *timer, FaultCall *call);
/* Right after the answer (in the async callback for an async call): waits
 * until the timer thread let go of the call, so the call and its
 * cancellable may go. */
void fault_call_end (FaultCallTimer *timer, FaultCall *call);
/* "granted", "timeout", "cancelled", "other" or the ZKR_ERROR_* name. */
const char *fault_call_outcome (gboolean ok, const GError *error);

/* Writes @session's id and password ("<hex id> <hex password>") to
 * @sid_path (atomically: a temporary file renamed), for an expiry from
 * outside. */
void fault_publish_session (ZkrSession *session, const char *sid_path);

G_END_DECLS
