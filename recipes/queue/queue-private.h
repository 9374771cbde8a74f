/* zkr internal: what the queue engine's files share and nothing else
 * includes: the entry's struct and state, who hears an acquire's or a
 * release's answer,
 * and the calls between the entry (queue-lock.c), its acquire
 * (queue-acquire.c), its loss watch (queue-hold.c), its release
 * (queue-release.c) and revocation (queue-revocation.c). Recipes include
 * queue-lock.h. */
#pragma once

#include "queue-lock.h"
#include "wait.h"

G_BEGIN_DECLS

/* An entry's state (docs/design.md §3.1, §3.6), changed only by
 * zkr__queue_lock_set_state_locked(). */
typedef enum {
  ZKR_QUEUE_LOCK_IDLE,
  ZKR_QUEUE_LOCK_ACQUIRING,
  ZKR_QUEUE_LOCK_HELD,
  ZKR_QUEUE_LOCK_IN_DOUBT,
} ZkrQueueLockState;

/* An acquire under way (queue-acquire-private.h). */
typedef struct _ZkrQueueAcquire ZkrQueueAcquire;

struct _ZkrQueueLock {
  gatomicrefcount ref;
  ZkrSession *session;            /* (owned) */
  char *path;                     /* full path, namespace applied */
  char *user_path;                /* as given, for messages */
  const ZkrQueueRecipe *recipe;
  gpointer predicate_data;
  char *node_data;                /* (nullable) our node's data; NULL: the client id */
  GMutex hook_lock;               /* guards the hook and its calls */
  ZkrLockLossFunc loss_hook;      /* (nullable) called on the worker */
  gpointer loss_hook_data;
  ZkrRevocation *revocation;      /* (nullable) hook_lock; queue-revocation.c */

  GMutex mutex;
  ZkrQueueLockState state;        /* protected by mutex */
  char *node_path;                /* (nullable) protected by mutex */
  gint64 token;                   /* protected by mutex */
  guint releases_pending;         /* deletes of releases not yet confirmed; mutex */

  /* Worker thread only. */
  ZkrQueueAcquire *acquire;
  guint hold_listener;
  guint node_watch;
  guint node_watch_timer;         /* the deferred watch (0: none) */
  ZkrResendPause hold_resend;     /* a verify or node watch answered "retry" */
  guint deadline_timer;           /* the safe deadline while suspended (0: none) */
  int revoke_version;             /* the hold's data version judged last (queue-revocation.c) */
  gint log_steps;                 /* (atomic) the debug log was on when the
                                   * last acquire began: its steps' and the
                                   * lock's state lines are written (asking
                                   * at each line costs a contended
                                   * acquisition about 2,700 instructions) */
};

/* A blocking acquire or release waits on this (on its stack) instead of
 * a GTask in a main context of its own: one futex wake-up instead of an
 * event fd, a context and a task per call. */
typedef struct {
  ZkrWait wait;
  GError *error;   /* (owned) (nullable): NULL means granted (released) */
} ZkrQueueWait;

/* Who hears an acquire's or a release's outcome: exactly one of the
 * three (a release has no @done). */
typedef struct {
  GTask *task;                   /* (owned) (nullable) until returned */
  ZkrQueueWait *wait;            /* (nullable) a blocking caller instead
                                  * of @task, until answered */
  ZkrQueueDoneFunc done;         /* (nullable) code of the worker's instead
                                  * of @task (zkr__queue_lock_acquire_on_worker) */
  gpointer done_data;
} ZkrQueueWaiter;

/* queue-lock.c: the entry. */
ZkrQueueLock *zkr__queue_lock_ref (ZkrQueueLock *lock);
void zkr__queue_lock_unref (ZkrQueueLock *lock);
/* Under lock->mutex: the one place the entry's state changes; FALSE (and
 * a critical) for an edge the table does not have. */
gboolean zkr__queue_lock_set_state_locked (ZkrQueueLock *lock, ZkrQueueLockState to);
ZkrQueueLockState zkr__queue_lock_get_state (ZkrQueueLock *lock);
/* Hands @error (transfer full; NULL: granted) to whoever waits in
 * @waiter, and takes that one out of it: the blocking caller (which may
 * return at once), the worker's own code (posted) or the task (in its own
 * context). Worker or stand-in, never in place. */
void zkr__queue_lock_answer (ZkrQueueLock *lock, ZkrQueueWaiter *waiter, GError *error);

/* queue-acquire.c: the acquire (docs/design.md §3.1). */
/* Marks @lock as acquiring and returns a new acquire, not yet started;
 * NULL with ZKR_ERROR_ALREADY_HELD when @lock is held or acquiring. Any
 * thread. */
ZkrQueueAcquire *zkr__queue_acquire_new (ZkrQueueLock *lock, int timeout_ms,
                                         GCancellable *cancellable,
                                         const char *fixed_suffix, GError **error);
/* Starts @acquire (transfer full), answering @waiter (copied; its task is
 * taken over): off the worker the caller stands in and runs the start
 * (docs/design.md §5.1); on the worker it is posted. */
void zkr__queue_acquire_post_start (ZkrQueueAcquire *acquire, const ZkrQueueWaiter *waiter);
/* The entry is being freed: an acquire under way fails (CANCELLED) and
 * gives its node up in the background. Worker only. */
void zkr__queue_acquire_abandon (ZkrQueueLock *lock);

/* queue-hold.c: the loss watch of a held entry (docs/design.md §3.6).
 * Worker or stand-in. */
/* Starts it right after a grant; in doubt at once if already SUSPENDED.
 * @watched (nullable): a data watch on our node is already set on the
 * server, and this is what its read found (the acquire's; the hold takes
 * it over); NULL: the hold sets its own, a little later. */
void zkr__queue_hold_start (ZkrQueueLock *lock, const struct Stat *watched);
/* Stops its listener, watch and timers (a release, a new acquire, the
 * free). */
void zkr__queue_hold_stop (ZkrQueueLock *lock);
/* Declares a held entry lost (@why for the log): not held, token 0, the
 * hook told, our node guaranteed-deleted. Does nothing if not held. */
void zkr__queue_hold_mark_lost (ZkrQueueLock *lock, const char *why);

/* What acquires did, process-wide, for the tests: the watch events that
 * woke a waiter, the listings sent (and those sent after a watch request
 * was answered "no node"), the reads of our own node while waiting.
 * Counting stays on the hot path because only the engine sees these
 * requests; each count is one relaxed atomic add (no ordering with any
 * other memory: a reader wants a total, never a happens-before). The
 * getters are in queue-test.c, linked into the tests' hooks library only. */
typedef struct {
  guint watch_wakeups;
  guint listings;
  guint listings_after_no_node;
  guint own_checks;
} ZkrQueueCounts;

extern ZkrQueueCounts zkr__queue_counts;

#define ZKR_QUEUE_COUNT(field) \
  ((void) __atomic_fetch_add (&zkr__queue_counts.field, 1, __ATOMIC_RELAXED))

/* queue-revocation.c: the loss watch's stat of our node; reads the data when
 * its version moved and relays a revocation request. Worker only. */
void zkr__queue_revocation_check (ZkrQueueLock *lock, const struct Stat *stat);

G_END_DECLS
