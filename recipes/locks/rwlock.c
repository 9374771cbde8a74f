/* zkr: the read-write lock, Curator's InterProcessReadWriteLock layout: the
 * queue engine with a read and a write predicate, two entries per thread
 * (one per side), the hold counts kept here, and the downgrade that names
 * the read node after the write node's sequence (Curator 5.5+,
 * CURATOR-621) so that no queued writer gets in between.
 *
 * Threads: the public functions may be called from any thread and act for
 * the calling thread; the predicates run on the session's worker. The
 * per-thread table is behind rwlock->lock. */

#include <string.h>

#include "context.h"
#include "error-private.h"
#include "queue-lock.h"
#include "nodename.h"
#include "notifier.h"
#include "per-thread.h"
#include "ref.h"
#include "rwlock-private.h"

#include <zkr/rwlock.h>

typedef enum {
  SIDE_READ,
  SIDE_WRITE,
} SideKind;

static const char *const side_names[] = { "read", "write" };

typedef struct {
  ZkrQueueLock *queue;   /* (owned) */
  guint count;           /* holds by the thread; 0 while acquiring */
  gint64 token;          /* a downgrade's token (the write hold's), else 0 */
} Side;

/* One thread's entries. The read entry's predicate data is the write
 * entry: freed read first, so the write entry outlives every evaluation of
 * the read entry (both frees run on the worker, in posting order). */
typedef struct {
  Side sides[2];
} Holds;

struct _ZkrRwlock {
  ZkrPerThread base;     /* first: entries are Holds*, one per thread */
  ZkrRevocation *revocation[2];  /* (owned) per side, handed to every
                                  * thread's entry of that side */
};

/* ==== the pure parts: sort, predicates, downgrade name ================ */

gint
zkr__rwlock_sort (GPtrArray *names, const char *lock_name, const char *ours)
{
  (void) lock_name;
  return zkr__nodename_sort_rwlock_up_to (names, ours);
}

const ZkrQueueRecipe zkr__rwlock_write_recipe = {
  .lock_name = ZKR_NODE_WRITE_LOCK_NAME,
  .sort = zkr__rwlock_sort,
  .predicate = zkr__queue_lock_predicate_first,
  .kind = "write lock",
  .nodes_come_ahead = TRUE,
};

const ZkrQueueRecipe zkr__rwlock_read_recipe = {
  .lock_name = ZKR_NODE_READ_LOCK_NAME,
  .sort = zkr__rwlock_sort,
  .predicate = zkr__rwlock_predicate_read,
  .kind = "read lock",
  .nodes_come_ahead = TRUE,
};

const ZkrQueueRecipe zkr__rwlock_listing_recipe = {
  .lock_name = ZKR_NODE_READ_LOCK_NAME,
  .sort = zkr__rwlock_sort,
  .predicate = zkr__rwlock_predicate_listing,
  .kind = "read-write lock",
  .nodes_come_ahead = TRUE,
};

/* Curator's tests: node.contains(WRITE_LOCK_NAME), and likewise READ. */
static gboolean
node_is_write (const char *name)
{
  return strstr (name, ZKR_NODE_WRITE_LOCK_NAME) != NULL;
}

static gboolean
node_is_read (const char *name)
{
  return strstr (name, ZKR_NODE_READ_LOCK_NAME) != NULL && !node_is_write (name);
}

static gboolean
same_key (const char *a, const char *b)
{
  return strcmp (zkr__nodename_rwlock_sort_key (a), zkr__nodename_rwlock_sort_key (b)) == 0;
}

/* The nearest write node before @ours, not counting one with our own sort
 * key: a downgrade read node carries its write node's sequence and must not
 * wait for it (whichever of the two sorts first: ties go by full name, and
 * Curator's stable sort leaves them in listing order). Curator waits on the
 * first write node instead; the nearest wakes a reader once per writer
 * ahead, not once per writer ahead of the first. */
static const char *
read_blocker (GPtrArray *sorted, guint ours)
{
  const char *name = g_ptr_array_index (sorted, ours);

  for (guint i = ours; i-- > 0;)
    {
      const char *other = g_ptr_array_index (sorted, i);

      if (node_is_write (other) && !same_key (other, name))
        return other;
    }
  return NULL;
}

gboolean
zkr__rwlock_predicate_read (GPtrArray *sorted, guint ours, const char **wait_on, gpointer data)
{
  ZkrQueueLock *write = data;

  /* Curator: writeLock.isOwnedByCurrentThread() -> through. */
  if (write != NULL && zkr__queue_lock_is_held (write))
    return TRUE;
  *wait_on = read_blocker (sorted, ours);
  return *wait_on == NULL;
}

gboolean
zkr__rwlock_predicate_listing (GPtrArray *sorted, guint ours, const char **wait_on, gpointer data)
{
  const char *name = g_ptr_array_index (sorted, ours);

  (void) data;
  (void) wait_on;
  if (node_is_read (name))
    return read_blocker (sorted, ours) == NULL;
  if (!node_is_write (name))
    return FALSE;
  for (guint i = 0; i < ours; i++)
    {
      const char *other = g_ptr_array_index (sorted, i);

      if (!node_is_read (other) || !same_key (other, name))
        return FALSE;
    }
  return TRUE;
}

/* Curator's getSortingSequence(): fixForSorting of the write lock's path. */
char *
zkr__rwlock_downgrade_suffix (const char *write_node)
{
  g_return_val_if_fail (write_node != NULL, NULL);
  return g_strdup (zkr__nodename_rwlock_sort_key (write_node));
}

/* ==== the object ====================================================== */

static ZkrQueueLock *
side_queue_new (ZkrRwlock *rwlock, SideKind kind, ZkrQueueLock *write)
{
  ZkrQueueLock *queue;

  /* Its events reach the listeners through the hook alone, which stops
   * when the entry is freed. */
  queue = zkr__queue_lock_new (rwlock->base.session, rwlock->base.path,
                               kind == SIDE_READ ? &zkr__rwlock_read_recipe : &zkr__rwlock_write_recipe,
                               write, NULL);
  zkr__queue_lock_set_loss_hook (queue, zkr__per_thread_relay_loss, rwlock);
  zkr__queue_revocation_set (queue, rwlock->revocation[kind]);
  return queue;
}

static void
holds_free (gpointer data)
{
  Holds *holds = data;

  zkr__queue_lock_free (holds->sides[SIDE_READ].queue);
  zkr__queue_lock_free (holds->sides[SIDE_WRITE].queue);
  g_free (holds);
}

static gboolean
side_is_idle (const Side *side)
{
  return side->count == 0 && !zkr__queue_lock_is_busy (side->queue) &&
         !zkr__queue_release_is_pending (side->queue);
}

/* Neither side holds, takes or gives back anything. Lock held. */
static gboolean
holds_are_idle (gpointer data)
{
  Holds *holds = data;

  return side_is_idle (&holds->sides[SIDE_READ]) && side_is_idle (&holds->sides[SIDE_WRITE]);
}

/* Revocation requests are delivered only while someone holds the lock. */
static gpointer
rwlock_try_ref (gpointer data)
{
  ZkrRwlock *rwlock = data;

  return zkr__ref_try (&rwlock->base.ref) ? rwlock : NULL;
}

ZkrRwlock *
zkr_rwlock_new (ZkrSession *session, const char *path, GError **error)
{
  ZkrRwlock *rwlock;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  rwlock = g_new0 (ZkrRwlock, 1);
  if (!zkr__per_thread_init (&rwlock->base, session, path, &zkr__rwlock_listing_recipe,
                             (void (*) (gpointer)) zkr_rwlock_unref, holds_free, holds_are_idle,
                             error))
    {
      g_free (rwlock);
      return NULL;
    }
  for (guint i = 0; i < G_N_ELEMENTS (rwlock->revocation); i++)
    rwlock->revocation[i] = zkr__queue_revocation_new (rwlock, rwlock_try_ref,
                                                       (void (*) (gpointer)) zkr_rwlock_unref);
  return rwlock;
}

ZkrRwlock *
zkr_rwlock_ref (ZkrRwlock *rwlock)
{
  g_return_val_if_fail (rwlock != NULL, NULL);
  g_atomic_ref_count_inc (&rwlock->base.ref);
  return rwlock;
}

void
zkr_rwlock_unref (ZkrRwlock *rwlock)
{
  g_return_if_fail (rwlock != NULL);
  if (!zkr__per_thread_unref (&rwlock->base))
    return;
  /* Every entry's free has returned: none relays a request any more. */
  for (guint i = 0; i < G_N_ELEMENTS (rwlock->revocation); i++)
    zkr__queue_revocation_free (rwlock->revocation[i]);
  g_free (rwlock);
}

/* The calling thread's entries, made on first use. Lock held. */
static Holds *
holds_for_thread_locked (ZkrRwlock *rwlock, ZkrThreadKey *key)
{
  Holds *holds = zkr__per_thread_lookup_locked (&rwlock->base, key);

  if (holds == NULL)
    {
      holds = g_new0 (Holds, 1);
      holds->sides[SIDE_WRITE].queue = side_queue_new (rwlock, SIDE_WRITE, NULL);
      holds->sides[SIDE_READ].queue = side_queue_new (rwlock, SIDE_READ,
                                                      holds->sides[SIDE_WRITE].queue);
      zkr__per_thread_insert_locked (&rwlock->base, key, holds);
    }
  return holds;
}

static gboolean
side_is_held (const Side *side)
{
  return side->count > 0 && zkr__queue_lock_is_held (side->queue);
}

/* The calling thread's side @kind if it holds it, else NULL. Lock held. */
static Side *
held_by_self_locked (ZkrRwlock *rwlock, SideKind kind)
{
  Holds *holds = zkr__per_thread_lookup_locked (&rwlock->base, zkr__per_thread_key_self ());

  if (holds == NULL || !side_is_held (&holds->sides[kind]))
    return NULL;
  return &holds->sides[kind];
}

/* ==== acquire ========================================================= */

/* What an acquire by the calling thread needs, decided under the lock. */
typedef enum {
  PREPARE_REENTERED,     /* counted, nothing to send */
  PREPARE_REFUSED,       /* the error is set */
  PREPARE_ACQUIRE,       /* the engine must take the queue (with the suffix) */
} PrepareOutcome;

typedef struct {
  ZkrRwlock *rwlock;     /* (owned) */
  ZkrThreadKey *key;     /* (owned) the calling thread's */
  SideKind kind;
  gboolean downgrade;
  GTask *outer;          /* (owned) */
} FirstAcquire;

/* A downgrade's read node sorts where the write node is, ahead of the
 * writers queued behind it; that is only right while we hold the write
 * node. If the write lock was lost meanwhile, give the read node up (in
 * the background) with a fresh entry in its place. Lock held. */
static gboolean
downgrade_still_valid_locked (ZkrRwlock *rwlock, Holds *holds, ZkrQueueLock **stale)
{
  ZkrQueueLock *write = holds->sides[SIDE_WRITE].queue;

  if (zkr__queue_lock_is_held (write))
    return TRUE;
  *stale = holds->sides[SIDE_READ].queue;
  holds->sides[SIDE_READ].queue = side_queue_new (rwlock, SIDE_READ, write);
  return FALSE;
}

/* The engine granted the first hold of @kind by @key's thread: count it,
 * or for a downgrade keep it only while the write hold is still ours.
 * Returns NULL or ZKR_ERROR_LOCK_LOST (transfer full). Shared by both
 * acquire paths: the async one in the caller's context, the blocking one
 * in its thread. The entries of a thread that ended meanwhile may be gone
 * already (lost, then dropped as idle): nothing to count then, and a
 * downgrade is lost. */
static GError *
grant_finish (ZkrRwlock *rwlock, ZkrThreadKey *key, SideKind kind, gboolean downgrade)
{
  ZkrQueueLock *stale = NULL;
  gboolean lost = FALSE;
  Holds *holds;

  g_mutex_lock (&rwlock->base.lock);
  holds = zkr__per_thread_lookup_locked (&rwlock->base, key);
  if (holds == NULL)
    lost = downgrade;
  else if (!downgrade)
    holds->sides[kind].count = 1;
  else if (downgrade_still_valid_locked (rwlock, holds, &stale))
    {
      /* The read hold takes the write node's place in the queue, so
       * it takes its token too: its own czxid is above that of the
       * writers queued behind, who hold after it. */
      holds->sides[SIDE_READ].count = 1;
      holds->sides[SIDE_READ].token = zkr__queue_lock_get_token (holds->sides[SIDE_WRITE].queue);
    }
  else
    lost = TRUE;
  g_mutex_unlock (&rwlock->base.lock);
  if (!lost)
    return NULL;
  /* Its node's delete sent before this acquire answers (the free alone
   * would post it to the worker): what this session sends next is queued
   * behind it (docs/design.md §5.2). */
  if (stale != NULL)
    (void) zkr__queue_release_in_background (stale);
  zkr__queue_lock_free (stale);
  return g_error_new (ZKR_ERROR, ZKR_ERROR_LOCK_LOST,
                      "downgrade of read-write lock %s: the write lock was lost "
                      "while taking the read lock", rwlock->base.path);
}

/* In the caller's context: the engine granted the thread's first hold. */
static void
first_acquire_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FirstAcquire *first = user_data;
  GError *error = NULL;

  (void) source;
  if (g_task_propagate_boolean (G_TASK (result), &error))
    error = grant_finish (first->rwlock, first->key, first->kind, first->downgrade);
  if (error != NULL)
    g_task_return_error (first->outer, error);
  else
    g_task_return_boolean (first->outer, TRUE);
  g_object_unref (first->outer);
  zkr__per_thread_key_unref (first->key);
  zkr_rwlock_unref (first->rwlock);
  g_free (first);
}

/* Counts a reentry, refuses an upgrade, or hands back in *@queue the
 * calling thread's entry for the engine to take, with the downgrade
 * suffix in *@suffix when it is one. Lock held. */
static PrepareOutcome
acquire_prepare_locked (ZkrRwlock *rwlock, SideKind kind, ZkrQueueLock **queue,
                        char **suffix, GError **error)
{
  Holds *holds = holds_for_thread_locked (rwlock, zkr__per_thread_key_self ());
  Side *side = &holds->sides[kind];
  Side *write = &holds->sides[SIDE_WRITE];

  if (side_is_held (side))
    {
      /* Reentry: counted here, nothing sent. */
      side->count++;
      return PREPARE_REENTERED;
    }
  if (kind == SIDE_WRITE && side_is_held (&holds->sides[SIDE_READ]))
    {
      /* Our own read node would block our write node forever. */
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD,
                   "read-write lock %s: this thread holds the read lock; "
                   "upgrading to the write lock is not supported "
                   "(release the read lock first)", rwlock->base.path);
      return PREPARE_REFUSED;
    }
  side->count = 0; /* a hold that was lost starts over */
  side->token = 0;
  if (kind == SIDE_READ && side_is_held (write))
    {
      g_autofree char *write_node = zkr__queue_lock_dup_node_path (write->queue);

      if (write_node != NULL)
        *suffix = zkr__rwlock_downgrade_suffix (write_node);
    }
  *queue = side->queue;
  return PREPARE_ACQUIRE;
}

static PrepareOutcome
acquire_prepare (ZkrRwlock *rwlock, SideKind kind, ZkrQueueLock **queue, char **suffix,
                 GError **error)
{
  PrepareOutcome outcome;

  g_mutex_lock (&rwlock->base.lock);
  outcome = acquire_prepare_locked (rwlock, kind, queue, suffix, error);
  g_mutex_unlock (&rwlock->base.lock);
  return outcome;
}

static void
rwlock_acquire_async (ZkrRwlock *rwlock, SideKind kind, int timeout_ms,
                      GCancellable *cancellable, GAsyncReadyCallback callback,
                      gpointer user_data, gpointer source_tag)
{
  g_autofree char *suffix = NULL;
  ZkrQueueLock *queue = NULL;
  GError *error = NULL;
  FirstAcquire *first;
  GTask *outer, *inner;

  zkr__context_assert_user ("an async acquire of a read-write lock called");
  outer = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (outer, source_tag);
  g_task_set_name (outer, kind == SIDE_READ ? "zkr_rwlock_acquire_read" : "zkr_rwlock_acquire_write");
  /* As the mutex: a cancel is reported by the engine, after our node is
   * gone; a lock granted just before the cancel stays granted. */
  g_task_set_check_cancellable (outer, FALSE);
  switch (acquire_prepare (rwlock, kind, &queue, &suffix, &error))
    {
    case PREPARE_REENTERED:
      g_task_return_boolean (outer, TRUE);
      g_object_unref (outer);
      return;
    case PREPARE_REFUSED:
      g_task_return_error (outer, error);
      g_object_unref (outer);
      return;
    case PREPARE_ACQUIRE:
      break;
    }
  first = g_new0 (FirstAcquire, 1);
  first->rwlock = zkr_rwlock_ref (rwlock);
  first->key = zkr__per_thread_key_ref (zkr__per_thread_key_self ());
  first->kind = kind;
  first->downgrade = suffix != NULL;
  first->outer = outer;
  inner = g_task_new (NULL, cancellable, first_acquire_done, first);
  g_task_set_check_cancellable (inner, FALSE);
  zkr__queue_lock_acquire_full (queue, timeout_ms, cancellable, suffix, inner);
}

/* The blocking twin of rwlock_acquire_async(): the same decisions, the
 * engine's blocking acquire in between, all in the calling thread (whose
 * entries they are). */
static gboolean
rwlock_acquire_sync (ZkrRwlock *rwlock, SideKind kind, int timeout_ms,
                     GCancellable *cancellable, GError **error)
{
  g_autofree char *suffix = NULL;
  ZkrQueueLock *queue = NULL;
  GError *lost;

  switch (acquire_prepare (rwlock, kind, &queue, &suffix, error))
    {
    case PREPARE_REENTERED:
      return TRUE;
    case PREPARE_REFUSED:
      return FALSE;
    case PREPARE_ACQUIRE:
      break;
    }
  if (!zkr__queue_lock_acquire_sync_full (queue, timeout_ms, cancellable, suffix, error))
    return FALSE;
  lost = grant_finish (rwlock, zkr__per_thread_key_self (), kind, suffix != NULL);
  if (lost == NULL)
    return TRUE;
  g_propagate_error (error, lost);
  return FALSE;
}

void
zkr_rwlock_acquire_read_async (ZkrRwlock *rwlock, int timeout_ms, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (rwlock != NULL);
  rwlock_acquire_async (rwlock, SIDE_READ, timeout_ms, cancellable, callback, user_data,
                        zkr_rwlock_acquire_read_async);
}

void
zkr_rwlock_acquire_write_async (ZkrRwlock *rwlock, int timeout_ms, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (rwlock != NULL);
  rwlock_acquire_async (rwlock, SIDE_WRITE, timeout_ms, cancellable, callback, user_data,
                        zkr_rwlock_acquire_write_async);
}

gboolean
zkr_rwlock_acquire_read_finish (ZkrRwlock *rwlock, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  g_return_val_if_fail (G_IS_TASK (result), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (result, zkr_rwlock_acquire_read_async), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
zkr_rwlock_acquire_write_finish (ZkrRwlock *rwlock, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  g_return_val_if_fail (G_IS_TASK (result), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (result, zkr_rwlock_acquire_write_async), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
zkr_rwlock_acquire_read (ZkrRwlock *rwlock, int timeout_ms, GCancellable *cancellable,
                         GError **error)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  return rwlock_acquire_sync (rwlock, SIDE_READ, timeout_ms, cancellable, error);
}

gboolean
zkr_rwlock_acquire_write (ZkrRwlock *rwlock, int timeout_ms, GCancellable *cancellable,
                          GError **error)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  return rwlock_acquire_sync (rwlock, SIDE_WRITE, timeout_ms, cancellable, error);
}

/* ==== release and the rest ============================================ */

/* Counts the calling thread's release of @kind down: FALSE with NOT_HELD
 * when it does not hold that side; else TRUE, with *@queue its entry when
 * the count reached zero and the node must go (NULL: still held). Only
 * this thread acquires or releases through its held entry, and the table
 * keeps it until the object goes, so it stays valid unlocked. */
static gboolean
release_prepare (ZkrRwlock *rwlock, SideKind kind, ZkrQueueLock **queue, GError **error)
{
  Side *side;

  *queue = NULL;
  g_mutex_lock (&rwlock->base.lock);
  side = held_by_self_locked (rwlock, kind);
  if (side != NULL && --side->count == 0)
    *queue = side->queue;
  g_mutex_unlock (&rwlock->base.lock);
  if (side == NULL)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD,
                 "%s lock %s is not held by this thread", side_names[kind], rwlock->base.path);
  return side != NULL;
}

static gboolean
rwlock_release (ZkrRwlock *rwlock, SideKind kind, GError **error)
{
  ZkrQueueLock *queue;

  if (!release_prepare (rwlock, kind, &queue, error))
    return FALSE;
  return queue == NULL || zkr__queue_release_sync (queue, error);
}

static void
rwlock_release_async (ZkrRwlock *rwlock, SideKind kind, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data, gpointer source_tag)
{
  GError *error = NULL;
  ZkrQueueLock *queue;
  GTask *task;

  zkr__context_assert_user ("an async release of a read-write lock called");
  task = zkr__queue_task_new (cancellable, callback, user_data, source_tag,
                              kind == SIDE_READ ? "zkr_rwlock_release_read"
                                                : "zkr_rwlock_release_write");
  /* Refused (the error set) or counted down (still held): answered here. */
  (void) release_prepare (rwlock, kind, &queue, &error);
  if (queue == NULL)
    zkr__queue_task_answer (task, error);
  else
    zkr__queue_release_async (queue, cancellable, task);
}

gboolean
zkr_rwlock_release_read (ZkrRwlock *rwlock, GError **error)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  return rwlock_release (rwlock, SIDE_READ, error);
}

gboolean
zkr_rwlock_release_write (ZkrRwlock *rwlock, GError **error)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  return rwlock_release (rwlock, SIDE_WRITE, error);
}

void
zkr_rwlock_release_read_async (ZkrRwlock *rwlock, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (rwlock != NULL);
  rwlock_release_async (rwlock, SIDE_READ, cancellable, callback, user_data,
                        zkr_rwlock_release_read_async);
}

void
zkr_rwlock_release_write_async (ZkrRwlock *rwlock, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (rwlock != NULL);
  rwlock_release_async (rwlock, SIDE_WRITE, cancellable, callback, user_data,
                        zkr_rwlock_release_write_async);
}

gboolean
zkr_rwlock_release_read_finish (ZkrRwlock *rwlock, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  return zkr__queue_task_finish (result, zkr_rwlock_release_read_async, error);
}

gboolean
zkr_rwlock_release_write_finish (ZkrRwlock *rwlock, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  return zkr__queue_task_finish (result, zkr_rwlock_release_write_async, error);
}

gboolean
zkr_rwlock_is_release_pending (ZkrRwlock *rwlock)
{
  gboolean pending = FALSE;
  Holds *holds;

  g_return_val_if_fail (rwlock != NULL, FALSE);
  g_mutex_lock (&rwlock->base.lock);
  holds = zkr__per_thread_lookup_locked (&rwlock->base, zkr__per_thread_key_self ());
  if (holds != NULL)
    pending = zkr__queue_release_is_pending (holds->sides[SIDE_READ].queue) ||
              zkr__queue_release_is_pending (holds->sides[SIDE_WRITE].queue);
  g_mutex_unlock (&rwlock->base.lock);
  return pending;
}

static guint
hold_count (ZkrRwlock *rwlock, SideKind kind)
{
  Side *side;
  guint count;

  g_mutex_lock (&rwlock->base.lock);
  side = held_by_self_locked (rwlock, kind);
  count = side != NULL ? side->count : 0;
  g_mutex_unlock (&rwlock->base.lock);
  return count;
}

gboolean
zkr_rwlock_is_read_held (ZkrRwlock *rwlock)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  return hold_count (rwlock, SIDE_READ) > 0;
}

gboolean
zkr_rwlock_is_write_held (ZkrRwlock *rwlock)
{
  g_return_val_if_fail (rwlock != NULL, FALSE);
  return hold_count (rwlock, SIDE_WRITE) > 0;
}

guint
zkr_rwlock_get_read_hold_count (ZkrRwlock *rwlock)
{
  g_return_val_if_fail (rwlock != NULL, 0);
  return hold_count (rwlock, SIDE_READ);
}

guint
zkr_rwlock_get_write_hold_count (ZkrRwlock *rwlock)
{
  g_return_val_if_fail (rwlock != NULL, 0);
  return hold_count (rwlock, SIDE_WRITE);
}

/* The calling thread's held entry of @kind, else NULL. */
static ZkrQueueLock *
held_queue (ZkrRwlock *rwlock, SideKind kind)
{
  Side *side;

  g_mutex_lock (&rwlock->base.lock);
  side = held_by_self_locked (rwlock, kind);
  g_mutex_unlock (&rwlock->base.lock);
  return side != NULL ? side->queue : NULL;
}

gint64
zkr_rwlock_get_read_token (ZkrRwlock *rwlock)
{
  gint64 token = 0;
  Side *side;

  g_return_val_if_fail (rwlock != NULL, 0);
  g_mutex_lock (&rwlock->base.lock);
  side = held_by_self_locked (rwlock, SIDE_READ);
  if (side != NULL)
    token = side->token != 0 ? side->token : zkr__queue_lock_get_token (side->queue);
  g_mutex_unlock (&rwlock->base.lock);
  return token;
}

gint64
zkr_rwlock_get_write_token (ZkrRwlock *rwlock)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (rwlock != NULL, 0);
  queue = held_queue (rwlock, SIDE_WRITE);
  return queue != NULL ? zkr__queue_lock_get_token (queue) : 0;
}

char *
zkr_rwlock_dup_read_node_path (ZkrRwlock *rwlock)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (rwlock != NULL, NULL);
  queue = held_queue (rwlock, SIDE_READ);
  return queue != NULL ? zkr__queue_lock_dup_node_path (queue) : NULL;
}

char *
zkr_rwlock_dup_write_node_path (ZkrRwlock *rwlock)
{
  ZkrQueueLock *queue;

  g_return_val_if_fail (rwlock != NULL, NULL);
  queue = held_queue (rwlock, SIDE_WRITE);
  return queue != NULL ? zkr__queue_lock_dup_node_path (queue) : NULL;
}

gboolean
zkr_rwlock_verify (ZkrRwlock *rwlock, GCancellable *cancellable, GError **error)
{
  ZkrQueueLock *write, *read;

  g_return_val_if_fail (rwlock != NULL, FALSE);
  write = held_queue (rwlock, SIDE_WRITE);
  read = held_queue (rwlock, SIDE_READ);
  if (write == NULL && read == NULL)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD,
                   "read-write lock %s is not held by this thread", rwlock->base.path);
      return FALSE;
    }
  if (write != NULL && !zkr__queue_lock_verify (write, cancellable, error))
    return FALSE;
  return read == NULL || zkr__queue_lock_verify (read, cancellable, error);
}

guint
zkr_rwlock_add_loss_listener (ZkrRwlock *rwlock, ZkrLockLossFunc func,
                              gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (rwlock != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__notifier_add (rwlock->base.loss, (GCallback) (void (*) (void)) func, user_data, destroy);
}

void
zkr_rwlock_remove_loss_listener (ZkrRwlock *rwlock, guint listener_id)
{
  g_return_if_fail (rwlock != NULL);
  zkr__notifier_remove (rwlock->base.loss, listener_id);
}

GPtrArray *
zkr_rwlock_list_participants (ZkrRwlock *rwlock, GCancellable *cancellable, GError **error)
{
  GPtrArray *participants;

  g_return_val_if_fail (rwlock != NULL, NULL);
  participants = zkr__queue_participants_list (rwlock->base.session, rwlock->base.path,
                                               &zkr__rwlock_listing_recipe, NULL, cancellable,
                                               error);
  if (participants == NULL)
    return NULL;
  /* Curator's getParticipantNodes() keeps only nodes with the lock names. */
  for (guint i = participants->len; i-- > 0;)
    {
      const ZkrParticipant *participant = g_ptr_array_index (participants, i);

      if (!node_is_read (participant->node) && !node_is_write (participant->node))
        g_ptr_array_remove_index (participants, i);
    }
  return participants;
}

void
zkr_rwlock_make_read_revocable (ZkrRwlock *rwlock, ZkrRevocationFunc func, gpointer user_data,
                                GDestroyNotify destroy)
{
  g_return_if_fail (rwlock != NULL);
  zkr__queue_revocation_set_listener (rwlock->revocation[SIDE_READ], func, user_data, destroy);
}

void
zkr_rwlock_make_write_revocable (ZkrRwlock *rwlock, ZkrRevocationFunc func, gpointer user_data,
                                 GDestroyNotify destroy)
{
  g_return_if_fail (rwlock != NULL);
  zkr__queue_revocation_set_listener (rwlock->revocation[SIDE_WRITE], func, user_data, destroy);
}
