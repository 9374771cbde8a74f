/* zkr internal: the one queue engine (docs/design.md §3.1). A ZkrQueueLock
 * is one participant in the queue of ephemeral-sequential nodes under a
 * path: it creates its node (protected), lists the queue right behind the
 * create, asks the recipe's predicate whether it is through or which one
 * node to watch, and waits on that node only. While held it watches for
 * loss (docs/design.md §3.6). Every recipe is this engine plus a
 * predicate. */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/revocation.h>

#include "nodes.h"

G_BEGIN_DECLS

/* Sorts @names (char *) the recipe's way; with @ours, only as far as
 * zkr__nodename_sort_up_to() does, and returns the index of @ours (-1: not
 * there); with @ours NULL, all of it, and returns -1. */
typedef gint (*ZkrQueueSortFunc) (GPtrArray *names, const char *lock_name, const char *ours);

/* @sorted: the queue's children in order up to ours (the recipe's sort
 * with ours: what comes after is in no order, so a predicate looks only at
 * [0..@ours] and the length); @ours: our index in it. Returns TRUE when we
 * are through; otherwise sets *@wait_on to the name of the one node
 * (before ours) to wait on, or leaves it NULL to wait for any change of
 * the children (a child watch on the path: the semaphore's leases).
 * Unless the recipe says nodes_come_ahead, nodes before ours only ever
 * go, so the engine counts on this: a
 * predicate that lets us through lets us through with fewer nodes before
 * ours, and when the node it named goes, it is asked about the listing
 * without that node to know whether its going alone lets us through
 * (docs/design.md §3.1 step 4). */
typedef gboolean (*ZkrQueuePredicate) (GPtrArray *sorted, guint ours,
                                       const char **wait_on, gpointer data);

typedef struct {
  const char *lock_name;        /* "lock-", "__READ__", "latch-", ... */
  ZkrQueueSortFunc sort;
  ZkrQueuePredicate predicate;
  const char *kind;             /* "mutex", ... for messages */
  gboolean nodes_come_ahead;    /* a node may be made that sorts before a
                                 * waiting one (the rwlock's downgrade: a
                                 * read node named after its write node), so
                                 * a wait judges a fresh listing at every
                                 * wake-up (docs/design.md §3.1 step 4) */
} ZkrQueueRecipe;

typedef struct _ZkrQueueLock ZkrQueueLock;

/* @path: the recipe's path as the user gave it (validated here; the
 * session's namespace is applied). @recipe must outlive the lock.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming the path. */
ZkrQueueLock *zkr__queue_lock_new (ZkrSession *session, const char *path,
                                   const ZkrQueueRecipe *recipe,
                                   gpointer predicate_data,
                                   GError **error);
/* Releases in the background if held, then frees. */
void zkr__queue_lock_free (ZkrQueueLock *lock);

/* Starts acquiring; the result goes to @task (g_task_return_boolean or an
 * error). Fails at once with ZKR_ERROR_ALREADY_HELD when held or
 * acquiring. timeout_ms: 0 = try once, < 0 = forever. Any thread. */
void zkr__queue_lock_acquire (ZkrQueueLock *lock, int timeout_ms,
                              GCancellable *cancellable, GTask *task);
/* The same, creating our node as "_c_<uuid>-<lock_name><fixed_suffix>",
 * EPHEMERAL and not sequential, when @fixed_suffix is given (the rwlock
 * downgrade: a read node that takes the write node's sequence). */
void zkr__queue_lock_acquire_full (ZkrQueueLock *lock, int timeout_ms,
                                   GCancellable *cancellable, const char *fixed_suffix,
                                   GTask *task);
/* How an acquire started by the worker's own code hears its outcome:
 * @error is NULL when granted (transfer none). */
typedef void (*ZkrQueueDoneFunc) (ZkrQueueLock *lock, const GError *error, gpointer user_data);
/* zkr__queue_lock_acquire() for code that runs on the worker (a recipe's
 * election logic): @done runs on the worker (or a thread standing in for
 * it), never in place and never inside this call. Not a GTask: a task
 * made here would capture the thread-default context of whichever thread
 * happens to run the worker's code, a stand-in's among them, and return
 * there. Worker or stand-in only. */
void zkr__queue_lock_acquire_on_worker (ZkrQueueLock *lock, int timeout_ms,
                                        GCancellable *cancellable, ZkrQueueDoneFunc done,
                                        gpointer user_data);
/* The blocking acquire: the same as zkr__queue_lock_acquire() waited
 * for, without a main context or a task (never from the worker). */
gboolean zkr__queue_lock_acquire_sync (ZkrQueueLock *lock, int timeout_ms,
                                       GCancellable *cancellable, GError **error);
/* The same with a fixed node suffix, as zkr__queue_lock_acquire_full(). */
gboolean zkr__queue_lock_acquire_sync_full (ZkrQueueLock *lock, int timeout_ms,
                                            GCancellable *cancellable,
                                            const char *fixed_suffix, GError **error);
/* Runs @async_start (which must end up returning into a GTask whose
 * callback this function waits for) on a private main context, then
 * returns the GTask's boolean result. The blocking twin of any _async. */
typedef void (*ZkrAsyncStart) (gpointer object, int timeout_ms, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data);
gboolean zkr__queue_task_run_sync (gpointer object, ZkrAsyncStart async_start, int timeout_ms,
                                   GCancellable *cancellable, GError **error);

/* Asks a waiting acquire to list the queue again and re-run its predicate
 * (something the predicate reads changed: the semaphore's shared count).
 * Does nothing unless @lock is waiting with its node created. Any thread. */
void zkr__queue_acquire_reevaluate (ZkrQueueLock *lock);

/* Deletes our node; see zkr_mutex_release() for the contract. Any thread
 * but the worker. */
gboolean zkr__queue_release_sync (ZkrQueueLock *lock, GError **error);
/* The same, answered into @task (g_task_return_boolean or an error, in
 * the task's context; transfer full): NOT_HELD at once; else TRUE once the
 * server confirmed the delete, CONNECTION_LOSS when the connection is or
 * goes down first, G_IO_ERROR_CANCELLED soon after @cancellable is
 * cancelled. Either way the lock is no longer held from this call on and
 * the delete goes on in the background. Any thread but the worker. */
void zkr__queue_release_async (ZkrQueueLock *lock, GCancellable *cancellable, GTask *task);
/* The same for code that runs on the worker (a recipe's close): @done
 * hears the answer on the worker, never inside this call (NOT_HELD
 * included). Any thread. */
void zkr__queue_release_on_worker (ZkrQueueLock *lock, ZkrQueueDoneFunc done,
                                   gpointer user_data);
/* A task for a recipe's _async call that the engine answers: named
 * @name, tagged @source_tag, its cancellable not checked at the return
 * (the engine reports a cancel itself, and an answer that came first
 * stands). (transfer full) */
GTask *zkr__queue_task_new (GCancellable *cancellable, GAsyncReadyCallback callback,
                            gpointer user_data, gpointer source_tag, const char *name);
/* Returns @error (transfer full; NULL: TRUE) on @task and drops it: for
 * what a recipe answers itself, before the engine is asked. */
void zkr__queue_task_answer (GTask *task, GError *error);
/* g_task_propagate_boolean() of a task zkr__queue_task_new() made with
 * @source_tag; a critical and FALSE for another result. */
gboolean zkr__queue_task_finish (GAsyncResult *result, gpointer source_tag, GError **error);
/* Gives the lock back without waiting for the server: no longer held at
 * once, our node deleted in the background (guaranteed delete; pending
 * until the server confirmed it), the delete sent before this returns
 * (off the worker the caller stands in for it): what the session sends
 * after this goes out behind it. FALSE when not held. Any thread, the
 * worker included: for giving back what a call with a deadline took when
 * the call fails (a rollback must not wait on a dead connection, and
 * answers after this: docs/design.md §5.2). */
gboolean zkr__queue_release_in_background (ZkrQueueLock *lock);
gboolean zkr__queue_release_is_pending (ZkrQueueLock *lock);
gboolean zkr__queue_lock_is_held (ZkrQueueLock *lock);
gboolean zkr__queue_lock_is_busy (ZkrQueueLock *lock); /* held or acquiring */
gint64 zkr__queue_lock_get_token (ZkrQueueLock *lock);
char *zkr__queue_lock_dup_node_path (ZkrQueueLock *lock);
/* The public verify (zkr_mutex_verify()): blocking, any thread but one
 * running session code; @cancellable armed as a node call's. */
gboolean zkr__queue_lock_verify (ZkrQueueLock *lock, GCancellable *cancellable, GError **error);
/* Blocking, any thread but one running session code: one round trip on the
 * entry's session behind what it sent before, so that the delete an acquire
 * sent when it gave up (its rollback) is applied for everyone once this
 * returns TRUE (a session's requests are applied in order). FALSE at once
 * when the session is not connected, or when the round trip failed (the
 * delete goes on in the background). For closes that promise the node is
 * gone. */
gboolean zkr__queue_lock_flush (ZkrQueueLock *lock);
/* zkr__queue_lock_flush() without blocking: @done hears whether the round
 * trip came back, once: on the worker, or in place (FALSE) when the session
 * is not connected. Any thread. */
typedef void (*ZkrQueueFlushFunc) (gboolean flushed, gpointer user_data);
void zkr__queue_lock_flush_async (ZkrQueueLock *lock, ZkrQueueFlushFunc done, gpointer user_data);


/* A hook called on the worker thread, synchronously, with every loss
 * event of @lock (its lock argument is the ZkrQueueLock). For recipes made
 * of several queue entries that relay events to one notifier. Set it before
 * the first acquire. The hook runs under a lock of the entry's own: it
 * must not call zkr__queue_lock_free() or set_loss_hook on this entry. No call runs or starts once
 * zkr__queue_lock_free() returned. */
void zkr__queue_lock_set_loss_hook (ZkrQueueLock *lock, ZkrLockLossFunc hook, gpointer user_data);

/* Revocation (queue-revocation.c, docs/design.md §3.7). A recipe object
 * that can be made revocable owns one ZkrRevocation (its listener, told in
 * its own context with @source as the lock argument; @source_ref as a
 * notifier's) and hands it to each of its entries; a held entry then reads
 * its node's data when the data version moves and relays each
 * "__REVOKE__". Free it after every entry naming it was freed. */
typedef struct _ZkrRevocation ZkrRevocation;
ZkrRevocation *zkr__queue_revocation_new (gpointer source, gpointer (*source_ref) (gpointer),
                                          void (*source_unref) (gpointer));
void zkr__queue_revocation_free (ZkrRevocation *revocation);
/* Replaces the listener (NULL @func: not revocable); the old one's
 * @destroy runs in its context. Any thread. */
void zkr__queue_revocation_set_listener (ZkrRevocation *revocation, ZkrRevocationFunc func,
                                         gpointer user_data, GDestroyNotify destroy);
/* Before the first acquire, as the loss hook. */
void zkr__queue_revocation_set (ZkrQueueLock *lock, ZkrRevocation *revocation);

/* The data of the nodes @lock creates (UTF-8 text, copied): the leader
 * recipes write the participant id there, as Curator does. NULL (the
 * default) writes the session's client id. Set it before the first
 * acquire; not thread-safe against an acquire in progress. */
void zkr__queue_lock_set_node_data (ZkrQueueLock *lock, const char *data);

/* The queue of @lock's path, in the recipe's order. */
GPtrArray *zkr__queue_participants_list_for_lock (ZkrQueueLock *lock, GCancellable *cancellable,
                                                  GError **error);
/* The queue under @path as @recipe sees it, in the recipe's order: blocking
 * node calls, each sent once, @cancellable armed on each (a cancel answers
 * G_IO_ERROR_CANCELLED at once and nothing more is sent). Any thread but
 * one running session code. */
GPtrArray *zkr__queue_participants_list (ZkrSession *session, const char *path,
                                         const ZkrQueueRecipe *recipe,
                                         gpointer predicate_data, GCancellable *cancellable,
                                         GError **error);

/* The ZkrNotifyMarshal of loss listeners (ZkrLockLossFunc). */
void zkr__queue_hold_loss_marshal (GCallback func, gpointer source, int event, gpointer user_data);

/* Curator's InterProcessMutex: "lock-" nodes, first in line holds. */
extern const ZkrQueueRecipe zkr__queue_mutex_recipe;

/* The mutex predicate (through at index 0, else wait on index - 1). */
gboolean zkr__queue_lock_predicate_first (GPtrArray *sorted, guint ours,
                                          const char **wait_on, gpointer data);

/* Test hooks, defined in queue-test.c, which only the tests link (the
 * tests' hooks library), never libzkr. */

/* Test hook: watch events that woke a waiter in this process so far. */
guint zkr__queue_test_get_watch_wakeups (void);
/* Test hook: listings acquires in this process sent so far, and how many
 * of them were sent after a watch request was answered "no node". */
guint zkr__queue_test_get_listings (void);
guint zkr__queue_test_get_listings_after_no_node (void);
/* Test hook: reads of their own node (with a watch) acquires in this
 * process sent so far, while waiting on a node whose going lets them
 * through. */
guint zkr__queue_test_get_own_checks (void);

G_END_DECLS
