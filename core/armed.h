/* zkr: what a call that runs on the session's worker and answers once
 * arms before its first request (docs/design.md §5.6): its deadline timer,
 * its cancel handler and its internal state listener, armed together so
 * that nothing can answer before them, and detached together when it
 * answers. The node calls (node-op.c), the session's wait for the
 * connection (session-wait.c), the lock engine's acquire and release
 * (recipes/queue/queue-acquire.c, queue-release.c) and the atomic long's
 * tries (recipes/counters/atomic-long-tries.c) are such calls; each embeds
 * a ZkrArmed and gives its hooks. */
#pragma once

#include <gio/gio.h>

#include "session-private.h"

G_BEGIN_DECLS

typedef struct {
  /* The owner's reference, held by each post of the cancel handler. */
  gpointer (*ref) (gpointer owner);
  GDestroyNotify unref;
  /* Worker, at each transition of the session, from zkr__armed_arm() until
   * zkr__armed_detach(). */
  ZkrSessionStateFunc on_state;
  /* Worker: the deadline passed; the cancellable was cancelled (both only
   * while armed, and at most once each). */
  void (*on_deadline) (gpointer owner);
  void (*on_cancelled) (gpointer owner);
} ZkrArmedHooks;

typedef struct {
  const ZkrArmedHooks *hooks;
  gpointer owner;
  ZkrSession *session;       /* borrowed: the owner holds it */
  GCancellable *cancellable; /* borrowed (nullable) */
  gulong cancel_id;
  guint listener_id;
  guint deadline_timer;
} ZkrArmed;

/* What the session and the cancellable say at the arming. */
typedef enum {
  ZKR_ARMED_GO,        /* armed: send */
  ZKR_ARMED_CANCELLED, /* cancelled before the call: answer, send nothing */
  ZKR_ARMED_CLOSED,    /* the session is closed */
  ZKR_ARMED_LOST,      /* the session is lost; a fresh one is on its way */
} ZkrArmedStart;

void zkr__armed_init (ZkrArmed *armed, const ZkrArmedHooks *hooks, gpointer owner,
                      ZkrSession *session, GCancellable *cancellable);

/* Runs @start (@owner's start, which arms) for a call made on a user's
 * thread right here, standing in for the worker, so that the deadline and
 * the cancel are armed before the user's call returns whatever the
 * connection does; from the worker itself, posts it. Takes @owner's
 * reference (dropped with @unref). */
void zkr__armed_run_start (ZkrSession *session, GSourceFunc start, gpointer owner,
                           GDestroyNotify unref);

/* Worker or stand-in, once, before the first request: the listener and
 * the cancel handler (an already cancelled one posts its hook at once). Not
 * GO: the caller answers now (the hooks then find it answered). */
ZkrArmedStart zkr__armed_arm (ZkrArmed *armed);

/* Worker or stand-in: the deadline timer for @deadline (monotonic µs;
 * G_MAXINT64: none). */
void zkr__armed_set_deadline (ZkrArmed *armed, gint64 deadline);

/* Worker or stand-in, at the answer: nothing armed calls the owner again
 * (a cancel hook already posted still runs, holding its reference). */
void zkr__armed_detach (ZkrArmed *armed);

G_END_DECLS
