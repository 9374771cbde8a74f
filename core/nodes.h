/* zkr internal: the node-level building blocks the recipes stand on, one
 * file each: the resend pause (resend-pause.c) and the wait before a
 * resend (resend-wait.c), ensure-path with CONTAINER parents
 * (ensure-parents.c), Curator's protected ephemeral-sequential create
 * (protected-create.c), the guaranteed delete (guaranteed-delete.c) and
 * the data watch (data-watch.c). One header for them: a recipe takes them
 * together, and each builds on the ones before it. All of it runs on the
 * session's worker thread; every callback runs there too, exactly once,
 * never inside the call that started it. */
#pragma once

#include "ops.h"

G_BEGIN_DECLS

typedef void (*ZkrDoneFunc) (ZkrSession *session, int rc, gpointer user_data);

/* A retryable answer from a server we are still connected to (throttled,
 * session moved) calls for sending again, but not at once: resending the
 * moment each answer comes is a tight loop, and against a throttling
 * server exactly the wrong answer. The first resend goes at once (posted),
 * the next ones after 10 ms, doubling up to 1 s. A session timer
 * (zkr__session_timer_add, no slack). Start and stop the pause on the
 * worker or its stand-in; @func runs there once, unless the pause is
 * cleared first. Clear it after a success (the next pause is short again)
 * and when the owner goes away. */
typedef struct {
  ZkrSession *session; /* (unowned) while pending */
  guint timer;         /* the pending session timer (0: none) */
  guint resends;       /* since the last clear */
} ZkrResendPause;

void zkr__resend_pause_start (ZkrResendPause *pause, ZkrSession *session, GSourceFunc func,
                              gpointer data);
/* Stops a pending pause (@func will not run); @reset also starts the
 * next sequence from the shortest pause. */
void zkr__resend_pause_stop (ZkrResendPause *pause, gboolean reset);
gboolean zkr__resend_pause_is_pending (const ZkrResendPause *pause);
/* Tests: pauses started so far with a delay (not the first, immediate
 * resend), process-wide. */
guint zkr__resend_pause_test_count_delayed (void);

/* A helper waiting before its owner sends again: for the session to be
 * connected again, or, already connected, for a resend pause. It listens
 * for state changes meanwhile (a reconnect ends the pause at once; CLOSED
 * and LOST end the owner) and stops listening before it runs its
 * continuation. Fill every field but @listener_id and @pause (zeroed)
 * before the first start. */
typedef struct {
  ZkrSession *session;
  guint listener_id;
  void (*on_connected) (gpointer owner);
  void (*on_closed) (gpointer owner);
  void (*on_lost) (gpointer owner);   /* nullable: then LOST is ignored */
  gpointer owner;
  ZkrResendPause pause;
} ZkrResendWait;

/* Runs @wait's on_connected after a resend pause if connected, else at
 * the next (RE)CONNECTED; on_closed at CLOSED, on_lost at LOST. Worker or
 * stand-in; not while started already. */
void zkr__resend_wait_start (ZkrResendWait *wait);
/* Stops a started wait (none of its hooks runs); harmless when not
 * started. */
void zkr__resend_wait_cancel (ZkrResendWait *wait);

/* Creates every missing ancestor of @path (not @path itself) as a
 * CONTAINER node; ZNODEEXISTS on the way counts as success. */
void zkr__ensure_parents (ZkrSession *session, const char *path,
                          ZkrDoneFunc func, gpointer user_data);

typedef struct _ZkrProtectedCreate ZkrProtectedCreate;
/* @path and @stat are NULL unless rc is ZOK. */
typedef void (*ZkrCreatedFunc) (ZkrSession *session, int rc, const char *path,
                                const struct Stat *stat, gpointer user_data);
/* Called right after each create request is sent, so that the caller can
 * pipeline a request behind it (the queue engine's listing). */
typedef void (*ZkrSentFunc) (ZkrSession *session, gpointer user_data);

/**
 * zkr__protected_create:
 * Creates "@parent/_c_<uuid>-@name" with @flags (EPHEMERAL|SEQUENCE
 * typically). A missing parent is created (containers) and the create
 * retried. When the reply is lost (connection loss), once connected again
 * it lists @parent and adopts the child carrying our prefix, but only if its
 * ephemeralOwner is our current session; otherwise the create is sent
 * again. A session change (LOST) fails it with ZSESSIONEXPIRED and any node
 * of ours is deleted in the background. @done runs once, unless abandoned.
 * Worker thread, or another thread standing in for it
 * (zkr__session_stand_in_begin): everything after the first send runs where
 * the worker's code runs. With ZKR_WAKE_IN_PLACE in @wake (else 0), the
 * create's successful reply may run in the worker's place on the
 * completion thread (zkr__session_post_in_place), @done with it: @done then
 * keeps that function's rules while zkr__session_in_place() is TRUE.
 * Returns: (transfer none) a handle valid until @done runs or
 * zkr__protected_create_abandon() is called.
 */
ZkrProtectedCreate *zkr__protected_create (ZkrSession *session,
                                           const char *parent,
                                           const char *name,
                                           const char *data, int len,
                                           int flags,
                                           ZkrWake wake,
                                           ZkrSentFunc sent,
                                           ZkrCreatedFunc done,
                                           gpointer user_data);

/* Gives up: @done will not run; a node we created, or may have created,
 * is deleted in the background (find-and-delete by our prefix). */
void zkr__protected_create_abandon (ZkrProtectedCreate *create);

/**
 * zkr__guaranteed_delete:
 * Deletes @path (any version). ZNONODE counts as done. On connection loss
 * the delete stays pending and is sent again whenever the session is
 * connected, across LOST, until it is done or the session is CLOSED (rc
 * ZCLOSING; the server has then deleted our ephemeral nodes itself).
 * @func (nullable) runs once with ZOK or the final error.
 */
void zkr__guaranteed_delete (ZkrSession *session, const char *path,
                             ZkrDoneFunc func, gpointer user_data);

/* Finds the children of @parent that carry the protected @id and deletes
 * them (guaranteed), in the background. */
void zkr__guaranteed_delete_protected (ZkrSession *session, const char *parent, const char *id);

/**
 * ZkrDataWatch:
 * Reads a node's data and reads it again whenever it changes (a data
 * watch, set again after every event), calling @func on the worker with
 * each reading the server answered with ZOK (a missing node is not
 * reported; an exists watch waits for its return, which is read: a node
 * deleted and created again is followed, whatever its version). Started and stopped from any thread but the
 * worker; once zkr__data_watch_stop() returned, @func is not called again.
 * The watch keeps a reference on @session.
 */
typedef struct _ZkrDataWatch ZkrDataWatch;
typedef void (*ZkrDataFunc) (ZkrSession *session, GBytes *data, gpointer user_data);
/* @path: full (namespace applied). */
ZkrDataWatch *zkr__data_watch_start (ZkrSession *session, const char *path,
                                     ZkrDataFunc func, gpointer user_data);
/* Stops and frees @watch (nullable). */
void zkr__data_watch_stop (ZkrDataWatch *watch);

/* Deletes still pending (sent and not yet confirmed). Any thread. */
guint zkr__session_get_pending_deletes (ZkrSession *session);

G_END_DECLS
