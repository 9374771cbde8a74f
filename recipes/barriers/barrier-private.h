/* zkr: what the two barriers share: one call's life in the caller's
 * context (its task, deadline, cancel, the request in flight, the exists
 * watch it waits on) on top of the public node and watch calls. */
#pragma once

#include <gio/gio.h>
#include <zkr/node.h>
#include <zkr/watch.h>

G_BEGIN_DECLS

typedef struct _ZkrBarrierCall ZkrBarrierCall;

/* The call's next step, in the caller's context. */
typedef void (*ZkrBarrierStepFunc) (ZkrBarrierCall *call);
/* Runs once as the call ends (@error NULL: success), before the task
 * returns; the recipe's bookkeeping (state, the background delete). */
typedef void (*ZkrBarrierEndFunc) (ZkrBarrierCall *call, const GError *error);

/* Every step runs in @context (the task's); the call ends only when no
 * request is out, so a blocking twin's private context has nothing left
 * in it when the call returns. */
struct _ZkrBarrierCall {
  GTask *task;                /* (owned) */
  ZkrSession *session;        /* (owned) */
  GMainContext *context;      /* (owned) */
  char *what;                 /* (owned) "double barrier enter on /p", for messages */
  int timeout_ms;
  gint64 deadline_us;         /* monotonic; only when timeout_ms > 0 */
  GCancellable *cancel;       /* (owned) ours, given to every request */
  GSource *timer;             /* (owned) (nullable) */
  GCancellable *user_cancellable; /* (owned) (nullable) the user's */
  gulong cancel_id;           /* its cancel, posted to @context */
  struct _ZkrBarrierCancel *cancel_link; /* (owned) (nullable) what that post finds */
  GError *stop;               /* (owned) (nullable) why the call stops */
  gboolean in_flight;         /* a request is out */
  guint watch_id;             /* the exists watch, 0 none */
  gboolean waiting;           /* parked until the watch fires */
  gboolean woken;             /* the watch fired (while not waiting yet) */
  ZkrBarrierStepFunc on_wake; /* the step after a wake-up */
  ZkrBarrierEndFunc on_end;   /* (nullable) */
  gpointer data;              /* the recipe's */
  GDestroyNotify data_free;   /* (nullable) */
};

/* A call for @source_object, its task made here (in the user's call, so
 * in the user's context), its deadline and cancel armed before this
 * returns. */
ZkrBarrierCall *zkr__barrier_call_new (ZkrSession *session, gpointer source_object,
                                       const char *what, int timeout_ms,
                                       GCancellable *cancellable, gpointer source_tag,
                                       GAsyncReadyCallback callback, gpointer user_data);
/* The timeout for the next request: what is left of the deadline (>= 1),
 * 0 (try once) or -1 (none). */
int zkr__barrier_call_remaining (ZkrBarrierCall *call);
/* Runs @step in the call's context, that context thread-default (so the
 * requests it starts answer there). */
void zkr__barrier_call_run (ZkrBarrierCall *call, ZkrBarrierStepFunc step);
/* A request's answer came: FALSE if the call stopped meanwhile (it has
 * ended then; do nothing more). */
gboolean zkr__barrier_call_answered (ZkrBarrierCall *call);
/* Ends the call: @error (transfer full) (nullable) prefixed with the
 * call's name, or success. */
void zkr__barrier_call_end (ZkrBarrierCall *call, GError *error);
/* A GAsyncReadyCallback for a zkr_node_delete_async() whose answer ends
 * the call (@data): a node already gone is a success. */
void zkr__barrier_call_end_deleted (GObject *source, GAsyncResult *result, gpointer data);
/* A zkr_node_create_async() callback (@data: the call) that ends the call:
 * created, or made by someone else first (NODE_EXISTS), is success. The
 * barrier's set and the double barrier's ready node. */
void zkr__barrier_call_end_created (GObject *source, GAsyncResult *result, gpointer data);
/* Ends with TIMEOUT if the call only tries once, else waits for the
 * watch (at once if it fired already), then @on_wake. */
void zkr__barrier_call_wait (ZkrBarrierCall *call, ZkrBarrierStepFunc on_wake);
/* An exists read of @path (under the namespace) leaving the call's one
 * watch; @done runs with the answer (TRUE: the node exists) in the call's
 * context. A previous watch is removed first. */
typedef void (*ZkrBarrierExistsFunc) (ZkrBarrierCall *call, gboolean exists, GError *error);
void zkr__barrier_call_watch_exists (ZkrBarrierCall *call, const char *path,
                                     ZkrBarrierExistsFunc done);
/* Removes the call's watch, if any (local: the server's stays until it
 * fires, as Curator's does). */
void zkr__barrier_call_unwatch (ZkrBarrierCall *call);

/* Deletes @path (under the namespace) in the background on the session's
 * worker: retried after a connection loss, across LOST, until done or
 * CLOSED. Any thread. */
void zkr__barrier_delete_in_background (ZkrSession *session, const char *path);

/* The blocking twin of an async call: runs it in a private context. */
typedef void (*ZkrBarrierAsyncFunc) (gpointer object, int timeout_ms,
                                     GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data);
typedef gboolean (*ZkrBarrierFinishFunc) (gpointer object, GAsyncResult *result,
                                          GError **error);
gboolean zkr__barrier_run_blocking (gpointer object, ZkrBarrierAsyncFunc start,
                                    ZkrBarrierFinishFunc finish, int timeout_ms,
                                    GCancellable *cancellable, GError **error);

/* Path checks shared by both barriers: a valid path, not "/". */
gboolean zkr__barrier_validate_path (const char *path, GError **error);

G_END_DECLS
