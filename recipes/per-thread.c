/* zkr: the part of a lock object with one queue entry per thread that the
 * reentrant mutex and the read-write lock share (see per-thread.h). */

#include "per-thread.h"

gboolean
zkr_per_thread_init (ZkrPerThread *pt, ZkrSession *session, const char *path,
                     const ZkrQueueRecipe *recipe, void (*object_unref) (gpointer),
                     GDestroyNotify entry_free, GError **error)
{
  ZkrQueueLock *probe;

  probe = zkr_queue_lock_new (session, path, recipe, NULL, NULL, NULL, NULL, error);
  if (probe == NULL)
    return FALSE;
  zkr_queue_lock_free (probe);
  g_atomic_ref_count_init (&pt->ref);
  pt->session = zkr_session_ref (session);
  pt->path = g_strdup (path);
  pt->loss = zkr_notifier_new (pt, zkr_per_thread_try_ref, object_unref, zkr_queue_loss_marshal);
  g_mutex_init (&pt->lock);
  pt->entries = g_hash_table_new_full (NULL, NULL, NULL, entry_free);
  return TRUE;
}

gboolean
zkr_per_thread_unref (ZkrPerThread *pt)
{
  if (!g_atomic_ref_count_dec (&pt->ref))
    return FALSE;
  /* Gives up every thread's holds in the background; once the entries'
   * frees returned, no relay runs or starts, so the notifier may go. */
  g_hash_table_unref (pt->entries);
  zkr_notifier_free (pt->loss);
  zkr_session_unref (pt->session);
  g_mutex_clear (&pt->lock);
  g_free (pt->path);
  return TRUE;
}

/* Loss events are delivered only while someone holds the object. */
gpointer
zkr_per_thread_try_ref (gpointer object)
{
  ZkrPerThread *pt = object;

  return zkr_ref_try (&pt->ref) ? object : NULL;
}

void
zkr_per_thread_relay_loss (gpointer queue, ZkrLockEvent event, gpointer object)
{
  ZkrPerThread *pt = object;

  (void) queue;
  zkr_notifier_emit (pt->loss, event);
}
