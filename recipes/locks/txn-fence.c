/* zkr: fences on the locks' current holds (include/zkr/txn.h): each takes
 * the node of the hold now and adds it with zkr_txn_fence(); a lock not
 * held makes the commit fail with ZKR_ERROR_LOCK_LOST, nothing sent. */

#include <zkr/txn.h>

#include "txn-private.h"

/* Fences on @node (taken), or records that @what is not held. */
static void
fence_on (ZkrTxn *txn, char *node, const char *kind, const char *what)
{
  if (node != NULL)
    zkr_txn_fence (txn, node);
  else
    {
      g_autofree char *name = g_strdup_printf ("the %s %s", kind, what);

      zkr__txn_fence_not_held (txn, name);
    }
  g_free (node);
}

void
zkr_txn_fence_mutex (ZkrTxn *txn, ZkrMutex *mutex)
{
  g_return_if_fail (txn != NULL);
  g_return_if_fail (mutex != NULL);
  fence_on (txn, zkr_mutex_dup_node_path (mutex), "mutex", "given");
}

void
zkr_txn_fence_rwlock (ZkrTxn *txn, ZkrRwlock *rwlock)
{
  char *node;

  g_return_if_fail (txn != NULL);
  g_return_if_fail (rwlock != NULL);
  node = zkr_rwlock_dup_write_node_path (rwlock);
  if (node == NULL)
    node = zkr_rwlock_dup_read_node_path (rwlock);
  fence_on (txn, node, "read-write lock", "given");
}

void
zkr_txn_fence_lease (ZkrTxn *txn, ZkrLease *lease)
{
  g_return_if_fail (txn != NULL);
  g_return_if_fail (lease != NULL);
  fence_on (txn, zkr_lease_dup_node_path (lease), "semaphore lease", "given");
}

void
zkr_txn_fence_multi_lock (ZkrTxn *txn, ZkrMultiLock *lock)
{
  const char *const *paths;

  g_return_if_fail (txn != NULL);
  g_return_if_fail (lock != NULL);
  paths = zkr_multi_lock_get_paths (lock);
  for (guint i = 0; paths[i] != NULL; i++)
    fence_on (txn, zkr_multi_lock_dup_node_path (lock, paths[i]), "multi-lock entry", paths[i]);
}

void
zkr_txn_fence_leader_latch (ZkrTxn *txn, ZkrLeaderLatch *latch)
{
  g_return_if_fail (txn != NULL);
  g_return_if_fail (latch != NULL);
  fence_on (txn,
            zkr_leader_latch_has_leadership (latch) ? zkr_leader_latch_dup_node_path (latch)
                                                    : NULL,
            "leader latch", zkr_leader_latch_get_id (latch));
}
