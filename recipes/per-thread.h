/* zkr internal: what a lock object with one queue entry per thread keeps
 * (the reentrant mutex, the read-write lock): its reference count, session
 * and path, the loss listeners every entry's events are relayed to, and the
 * table of per-thread entries behind one lock. The entries themselves (what
 * a thread holds, and how many times) are the recipe's.
 *
 * A ZkrPerThread must be the first member of the object's struct: the
 * object's pointer and its ZkrPerThread's are the same, which is what the
 * listeners and the entries' owner references are given. */
#pragma once

#include "lock-queue.h"
#include "notifier.h"

G_BEGIN_DECLS

typedef struct {
  gatomicrefcount ref;
  ZkrSession *session;   /* (owned) */
  char *path;            /* as given */
  ZkrNotifier *loss;     /* the object's loss listeners */
  GMutex lock;
  GHashTable *entries;   /* GThread* -> the recipe's entry; protected by lock */
} ZkrPerThread;

/* Checks @path the way every entry's queue (with @recipe) will, then sets
 * up @pt with one reference. @object_unref is the object's public unref
 * (loss deliveries hold the object while queued); @entry_free frees an
 * entry when its thread's row goes (at the last unref).
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming the path (@pt untouched). */
gboolean zkr_per_thread_init (ZkrPerThread *pt, ZkrSession *session, const char *path,
                              const ZkrQueueRecipe *recipe, void (*object_unref) (gpointer),
                              GDestroyNotify entry_free, GError **error);
/* Drops a reference. TRUE when it was the last: every entry is freed (they
 * give their holds up in the background) and @pt cleared; the caller then
 * frees the object. */
gboolean zkr_per_thread_unref (ZkrPerThread *pt);
/* A queue entry's owner reference (zkr_queue_lock_new's @owner_ref): the
 * object, or NULL once it is being finalized. */
gpointer zkr_per_thread_try_ref (gpointer object);
/* A loss hook (zkr_queue_lock_set_loss_hook) relaying an entry's event to
 * the object's listeners; @object is the user data. Worker thread. */
void zkr_per_thread_relay_loss (gpointer queue, ZkrLockEvent event, gpointer object);

G_END_DECLS
