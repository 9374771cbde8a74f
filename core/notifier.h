/* zkr internal: ordered event delivery to listeners, each in the
 * GMainContext that was thread-default when it was added. Used for session
 * state listeners and lock loss listeners: one mechanism, one set of
 * guarantees (exactly once per event, in order, never on a ZooKeeper
 * thread, removal stops delivery). */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _ZkrNotifier ZkrNotifier;

/* Calls the listener's real callback @func for one event. */
typedef void (*ZkrNotifyMarshal) (GCallback func, gpointer source, int event, gpointer user_data);

/* @source is handed to every callback; it is kept alive with @source_ref
 * and @source_unref while deliveries are queued. @source_ref returns NULL
 * when the source is already being finalized (see zkr__ref_try()): then the
 * event is not delivered, so a listener never sees a dying object. An
 * owner whose memory can go while a notifier is still emitting must not
 * be its source (docs/design.md, "Ownership and unref"): the queue engine's
 * entries emit nothing themselves; their owners relay through the loss
 * hook, which stops when the entry is freed. */
ZkrNotifier *zkr__notifier_new (gpointer source,
                                gpointer (*source_ref) (gpointer),
                                void (*source_unref) (gpointer),
                                ZkrNotifyMarshal marshal);
/* Removes every listener (their destroy notifies run in their contexts). */
void zkr__notifier_free (ZkrNotifier *notifier);

/* Any thread. Returns an id > 0. */
guint zkr__notifier_add (ZkrNotifier *notifier, GCallback func, gpointer user_data,
                         GDestroyNotify destroy);
void zkr__notifier_remove (ZkrNotifier *notifier, guint id);

/* Any thread; queues @event for every listener. */
void zkr__notifier_emit (ZkrNotifier *notifier, int event);

/* Runs @func(@data) in @context, always later (never inside this call),
 * in posting order among posts of equal priority. For user code and what
 * leads to it (listeners, GTask results): in debug builds it is an error,
 * logged as a critical, for @func to run on a thread that runs a session's
 * code (docs/design.md, "Threads and contexts"). Everything the caller
 * wrote before posting is visible to @func: the hand-off is published with
 * an atomic release/acquire pair of our own rather than relying on GLib's
 * internal locking alone, so that ThreadSanitizer can see it too. @destroy
 * runs on @data after @func, or when the context drops the post. */
void zkr__context_post (GMainContext *context, GSourceFunc func, gpointer data,
                        GDestroyNotify destroy);

/* A one-shot hand-off to a blocked thread. The waiter calls
 * zkr__wait_init(), hands the wait to another thread and calls
 * zkr__wait_block(), which returns (and clears the wait) once that thread
 * called zkr__wait_done(). What the other thread wrote before
 * zkr__wait_done() is visible to the waiter after zkr__wait_block(); done
 * touches nothing after its unlock, so the waiter may free the wait at once. */
typedef struct {
  GMutex lock;
  GCond cond;
  gboolean done;
  gboolean kicked;   /* zkr__session_block_standing_in(): posts to run */
  gboolean sleeping; /* the waiter is in g_cond_wait(): only then signal
                      * (GLib's signal is a system call even with no
                      * waiter, and a stand-in often completes its own wait) */
} ZkrWait;

/* Under @wait's lock: sleeps on its cond once (the caller loops). */
void zkr__wait_sleep_locked (ZkrWait *wait);
/* Under @wait's lock: wakes the waiter if it sleeps. */
void zkr__wait_wake_locked (ZkrWait *wait);

void zkr__wait_init (ZkrWait *wait);
void zkr__wait_done (ZkrWait *wait);
void zkr__wait_block (ZkrWait *wait);


/* Debug builds (NDEBUG unset): logs a critical naming @what when the
 * calling thread runs a session's code (zkr__session_code_running()), where
 * user code must never run and whose thread-default context is not the
 * user's. For the points where user code is called or a GTask for it is
 * created. Release builds: nothing. */
void zkr__assert_user_context (const char *what);

/* Takes a reference on @ref unless it already dropped to zero (the object
 * is being finalized). Any thread. Returns TRUE when it took one. */
gboolean zkr__ref_try (gatomicrefcount *ref);
/* Drops a reference on @ref unless it is the last one. Any thread.
 * Returns FALSE, having changed nothing, when it is the last: the caller
 * then drops it where finalizing is allowed. */
gboolean zkr__ref_drop_unless_last (gatomicrefcount *ref);

G_END_DECLS
