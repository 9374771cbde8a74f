/* zkr internal: what the session's own files share with each other (the
 * session object itself and the calls between them): session.c, the state
 * machine; session-async.c, its async connect and close;
 * session-wait.c, the wait for the connection; session-handle.c, the handle
 * and its events; watches.c, the watch registry; session-options.c; and
 * the tests' session-test.c. Recipes and the other core files use
 * session-private.h instead. */
#pragma once

#include "executor.h"
#include "hosts.h"
#include "notifier.h"
#include "session-private.h"

G_BEGIN_DECLS

/* The context a handle's watcher gets (session-handle.c). */
typedef struct _ZkrHandleContext ZkrHandleContext;

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
  ZkrHandleContext *handle_ctx; /* (owned) (nullable) protected by lock */
  guint generation;           /* protected by lock */
  gint64 session_id;          /* protected by lock */
  gint64 handle_session_id;   /* the current handle's session once it
                               * connected, 0 before; protected by lock */
  int timeout_ms;             /* negotiated T; protected by lock */
  gint64 handle_opened;       /* monotonic time of zookeeper_init2; lock */
  gboolean auth_failed;       /* protected by lock */
  gboolean close_done;        /* protected by lock */
  guint closers;              /* old handles still being closed off the
                               * turn (after LOST); protected by lock */
  guint lost_count;           /* protected by lock */
  guint pending_deletes;      /* protected by lock */
  /* The state of the tests' fault hooks (set in session-test.c, which
   * only the tests link; read by the library's requests in op.c through
   * zkr__session_test_take_*, which therefore stay in the library). */
  gboolean drop_next_create_reply; /* protected by lock */
  gboolean drop_next_set_reply; /* protected by lock */
  guint close_stall_ms;       /* the next handle's close takes this much
                               * longer; protected by lock */
  gint rewrite_rc;            /* the answer given instead; atomic */
  gint rewrite_left;          /* answers still to rewrite (-1: all); atomic */
  gint rewritten;             /* answers rewritten so far; atomic */
  char *rewrite_prefix;       /* only requests at or under it (NULL: all);
                               * protected by lock */
  ZkrNotifier *listeners;     /* public state listeners */
  GArray *internal_listeners; /* of InternalListener, in id order (ids only
                               * grow); a removed one stays as a hole (func
                               * NULL) until holes are half; protected by
                               * lock */
  guint internal_holes;       /* protected by lock */
  GHashTable *watches;        /* id -> Watch* (watches.c); protected by lock */
  guint next_id;              /* protected by lock */

  GMutex clock_lock;
  gint64 last_ok_send;        /* protected by clock_lock */

  /* The worker, its turn, posts and timers (read-only after new()). */
  ZkrExecutor *executor;
  /* Timers of session-handle.c; touched only by the thread holding the
   * turn. */
  guint ping_timer;
  guint ping_period_ms;
  guint deadline_timer;
  guint reopen_timer;
  guint reopen_attempt;
  gint64 reopen_started;
};

/* session.c */
gboolean zkr__session_state_is_connected (ZkrSessionState state);
/* Worker (turn held), no lock held: the one place the state changes;
 * FALSE when the table refuses the edge. */
gboolean zkr__session_set_state (ZkrSession *session, ZkrSessionState state);
/* Worker (turn held), no lock held: closes the session if it is open,
 * then marks the close done (waking zkr_session_close()). */
void zkr__session_close_in_worker (ZkrSession *session);
/* The liveness clock restarts at @send_time (a new session). */
void zkr__session_clock_reset (ZkrSession *session, gint64 send_time);

/* session-handle.c. Any thread, no lock held: opens a fresh handle. */
gboolean zkr__session_handle_open (ZkrSession *session, GError **error);
/* Turn held, no lock held: closes the handle, if any, and returns once
 * it is closed (the user's close: the server drops our ephemeral nodes at
 * once). */
void zkr__session_handle_close (ZkrSession *session);
/* No lock held: returns once no old handle is being closed any more
 * (before the session is freed). */
void zkr__session_handle_wait_closers (ZkrSession *session);
/* Turn held: stops the ping, the suspended deadline and the reopen. */
void zkr__session_handle_timers_stop (ZkrSession *session);

/* watches.c */
GHashTable *zkr__watches_new (void);
/* The reads one event sends: a list on the caller's stack, { NULL, NULL }
 * when empty, linked through the reads themselves (no allocation to
 * collect them). */
typedef struct _ZkrWatchAnswer ZkrWatchAnswer;
typedef struct {
  ZkrWatchAnswer *first;
  ZkrWatchAnswer *last;
} ZkrWatchAnswers;
/* ZooKeeper's completion thread, as a node event on @path arrives on handle
 * @generation: collects the reads of the answered watches on @path (a
 * listing watch's listing, a persistent watch's own reads), sent after the
 * caller posted the event (see zkr__watches_send_listings), and returns
 * whether the event must wake the worker (a plain watch waits for it, an
 * answered watch's replies may run in place, or the handle is no longer
 * current). The reads to send go to @listings. */
gboolean zkr__watches_fire_listings (ZkrSession *session, guint generation, int type,
                                     const char *path, ZkrWatchAnswers *listings);
/* No lock held: sends what zkr__watches_fire_listings() collected and
 * empties @listings (each read's reply frees it). */
void zkr__watches_send_listings (ZkrSession *session, ZkrWatchAnswers *listings);
/* Worker: a node event on handle @generation runs the watches on @path. */
void zkr__watches_dispatch (ZkrSession *session, guint generation, int type, const char *path);

/* session-options.c: checks @options and parses their hosts into @hosts. */
gboolean zkr__session_options_validate (const ZkrSessionOptions *options, ZkrHosts *hosts,
                                        GError **error);

G_END_DECLS
