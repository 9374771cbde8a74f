/* zkr internal: what an acquire's two files share, queue-acquire.c (its
 * life: made, armed, stepped, ended) and queue-steps.c (its requests):
 * the acquire's struct, its steps, and the calls between the two. The
 * rest of the engine knows an acquire through queue-private.h only. */
#pragma once

#include "armed.h"
#include "nodes.h"
#include "queue-private.h"

G_BEGIN_DECLS

/* Where an acquire is (docs/design.md §3.1), in one field that changes
 * only through zkr__queue_acquire_set_step(). Steps are worker-side state: read and
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

/* queue-acquire.c's and queue-steps.c's name for ZkrQueueAcquire. */
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
  AcquireStep step;              /* zkr__queue_acquire_set_step() only. The step alone
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
 * own state; the two ways out, zkr__queue_steps_through and zkr__queue_acquire_fail (which
 * answer the caller, start the hold and so may run the user's listeners),
 * post themselves when zkr__session_in_place(). */
#define ACQUIRE_IN_PLACE ZKR_WAKE_IN_PLACE

/* queue-acquire.c. Worker or stand-in, as every call on an acquire. */
Acquire *zkr__queue_acquire_ref (Acquire *acquire);
void zkr__queue_acquire_unref (Acquire *acquire);
/* Moves @acquire to @to (its one field of where it is), logging the
 * change; refuses (FALSE, a critical) an edge not allowed. */
gboolean zkr__queue_acquire_set_step (Acquire *acquire, AcquireStep to);
/* The predicate let us through on our node: the entry is held, the
 * caller answered (from in place: posted). */
void zkr__queue_acquire_succeed (Acquire *acquire);
/* Ends @acquire with @error (transfer full), giving its node up in the
 * background; _rc: a ZooKeeper code, @what naming the request. */
void zkr__queue_acquire_fail (Acquire *acquire, GError *error);
void zkr__queue_acquire_fail_rc (Acquire *acquire, int rc, const char *what);
/* The deadline passed; also how a try-once acquire (timeout 0) that was
 * not let through ends. */
void zkr__queue_acquire_on_deadline (gpointer owner);

/* queue-steps.c. */
/* Creates our node (protected create) and lists behind it. */
void zkr__queue_steps_create (Acquire *acquire);
/* Our node is made and its verdict open: list again and judge. */
void zkr__queue_steps_relist (Acquire *acquire);
/* Drops the watch on our own node and what it told. */
void zkr__queue_steps_forget_own (Acquire *acquire);

G_END_DECLS
