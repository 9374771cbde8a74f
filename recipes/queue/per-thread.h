/* zkr internal: what a lock object with one queue entry per thread keeps
 * (the reentrant mutex, the read-write lock): its reference count, session
 * and path, the loss listeners every entry's events are relayed to, and the
 * table of per-thread entries behind one lock. The entries themselves (what
 * a thread holds, and how many times) are the recipe's.
 *
 * A ZkrPerThread must be the first member of the object's struct: the
 * object's pointer and its ZkrPerThread's are the same, which is what the
 * listeners and the loss hooks are given.
 *
 * Entries are keyed by a ZkrThreadKey, not by GThread *: a thread's key is
 * never another thread's, while a GThread's address is reused by a thread
 * started after it ended, which would inherit its holds. */
#pragma once

#include "queue-lock.h"
#include "notifier.h"

G_BEGIN_DECLS

typedef struct _ZkrThreadKey ZkrThreadKey;

/* The calling thread's key (transfer none): made on first use, marked
 * ended when the thread exits, freed once nothing holds it. Any thread. */
ZkrThreadKey *zkr__per_thread_key_self (void);
ZkrThreadKey *zkr__per_thread_key_ref (ZkrThreadKey *key);
void zkr__per_thread_key_unref (ZkrThreadKey *key);

typedef struct {
  gatomicrefcount ref;
  ZkrSession *session;   /* (owned) */
  char *path;            /* as given */
  ZkrNotifier *loss;     /* the object's loss listeners */
  GMutex lock;
  GHashTable *entries;   /* ZkrThreadKey* (a reference) -> the recipe's
                          * entry; protected by lock */
  gboolean (*entry_idle) (gpointer entry); /* see zkr__per_thread_init() */
} ZkrPerThread;

/* Checks @path the way every entry's queue (with @recipe) will, then sets
 * up @pt with one reference. @object_unref is the object's public unref
 * (loss deliveries hold the object while queued); @entry_free frees an
 * entry (at the last unref, or when its thread ended); @entry_idle says,
 * under the lock, whether an entry holds nothing, acquires nothing and
 * releases nothing: such an entry of a thread that ended is dropped.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming the path (@pt untouched). */
gboolean zkr__per_thread_init (ZkrPerThread *pt, ZkrSession *session, const char *path,
                               const ZkrQueueRecipe *recipe, void (*object_unref) (gpointer),
                               GDestroyNotify entry_free, gboolean (*entry_idle) (gpointer entry),
                               GError **error);
/* Drops a reference. TRUE when it was the last: every entry is freed (they
 * give their holds up in the background) and @pt cleared; the caller then
 * frees the object. */
gboolean zkr__per_thread_unref (ZkrPerThread *pt);
/* The entry of @key's thread, or NULL. Lock held. */
gpointer zkr__per_thread_lookup_locked (ZkrPerThread *pt, ZkrThreadKey *key);
/* Adds @entry for @key's thread (none yet; a reference on @key is taken),
 * first dropping the idle entries of threads that ended, so that the table
 * does not grow with every short-lived thread that ever used the object.
 * Lock held. */
void zkr__per_thread_insert_locked (ZkrPerThread *pt, ZkrThreadKey *key, gpointer entry);
/* A loss hook (zkr__queue_lock_set_loss_hook) relaying an entry's event to
 * the object's listeners; @object is the user data. Worker thread. */
void zkr__per_thread_relay_loss (gpointer queue, ZkrLockEvent event, gpointer object);

G_END_DECLS
