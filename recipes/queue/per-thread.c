/* zkr: the part of a lock object with one queue entry per thread that the
 * reentrant mutex and the read-write lock share (see per-thread.h), and the
 * per-thread keys its entries are found by. */

#include "notifier.h"
#include "per-thread.h"
#include "ref.h"

struct _ZkrThreadKey {
  gatomicrefcount ref;
  gint ended;            /* atomic: the thread exited */
};

static void
thread_key_thread_exit (gpointer data)
{
  ZkrThreadKey *key = data;

  g_atomic_int_set (&key->ended, 1);
  zkr__per_thread_key_unref (key);
}

/* The thread's own reference, dropped when it exits. */
static GPrivate thread_key = G_PRIVATE_INIT (thread_key_thread_exit);

ZkrThreadKey *
zkr__per_thread_key_self (void)
{
  ZkrThreadKey *key = g_private_get (&thread_key);

  if (key == NULL)
    {
      key = g_new0 (ZkrThreadKey, 1);
      g_atomic_ref_count_init (&key->ref);
      g_private_set (&thread_key, key);
    }
  return key;
}

ZkrThreadKey *
zkr__per_thread_key_ref (ZkrThreadKey *key)
{
  g_atomic_ref_count_inc (&key->ref);
  return key;
}

void
zkr__per_thread_key_unref (ZkrThreadKey *key)
{
  if (g_atomic_ref_count_dec (&key->ref))
    g_free (key);
}

/* Loss events are delivered only while someone holds the object. */
static gpointer
per_thread_try_ref (gpointer object)
{
  ZkrPerThread *pt = object;

  return zkr__ref_try (&pt->ref) ? object : NULL;
}

gboolean
zkr__per_thread_init (ZkrPerThread *pt, ZkrSession *session, const char *path,
                      const ZkrQueueRecipe *recipe, void (*object_unref) (gpointer),
                      GDestroyNotify entry_free, gboolean (*entry_idle) (gpointer entry),
                      GError **error)
{
  ZkrQueueLock *probe;

  probe = zkr__queue_lock_new (session, path, recipe, NULL, error);
  if (probe == NULL)
    return FALSE;
  zkr__queue_lock_free (probe);
  g_atomic_ref_count_init (&pt->ref);
  pt->session = zkr_session_ref (session);
  pt->path = g_strdup (path);
  pt->loss = zkr__notifier_new (pt, per_thread_try_ref, object_unref, zkr__queue_hold_loss_marshal);
  g_mutex_init (&pt->lock);
  pt->entries = g_hash_table_new_full (NULL, NULL, (GDestroyNotify) zkr__per_thread_key_unref,
                                       entry_free);
  pt->entry_idle = entry_idle;
  return TRUE;
}

gboolean
zkr__per_thread_unref (ZkrPerThread *pt)
{
  GHashTable *entries;

  if (!g_atomic_ref_count_dec (&pt->ref))
    return FALSE;
  /* Taken under the lock: the entries were last written under it, by
   * threads whose hand-over of the last reference may have gone through
   * ways no tool can follow (a session event caused through a socket). */
  g_mutex_lock (&pt->lock);
  entries = g_steal_pointer (&pt->entries);
  g_mutex_unlock (&pt->lock);
  /* Gives up every thread's holds in the background; once the entries'
   * frees returned, no relay runs or starts, so the notifier may go. */
  g_hash_table_unref (entries);
  zkr__notifier_free (pt->loss);
  zkr_session_unref (pt->session);
  g_mutex_clear (&pt->lock);
  g_free (pt->path);
  return TRUE;
}

gpointer
zkr__per_thread_lookup_locked (ZkrPerThread *pt, ZkrThreadKey *key)
{
  return g_hash_table_lookup (pt->entries, key);
}

/* An ended thread makes no call any more, so nobody but an async acquire
 * still under way could use its entry; such an entry is not idle. */
static gboolean
entry_is_dead_and_idle (gpointer key, gpointer entry, gpointer data)
{
  ZkrPerThread *pt = data;

  return g_atomic_int_get (&((ZkrThreadKey *) key)->ended) && pt->entry_idle (entry);
}

void
zkr__per_thread_insert_locked (ZkrPerThread *pt, ZkrThreadKey *key, gpointer entry)
{
  g_hash_table_foreach_remove (pt->entries, entry_is_dead_and_idle, pt);
  g_hash_table_insert (pt->entries, zkr__per_thread_key_ref (key), entry);
}

void
zkr__per_thread_relay_loss (gpointer queue, ZkrLockEvent event, gpointer object)
{
  ZkrPerThread *pt = object;

  (void) queue;
  zkr__notifier_emit (pt->loss, event);
}
