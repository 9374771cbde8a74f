/* zkr: revocation (docs/design.md §3.7), Curator's Revocable and Revoker:
 * the engine's side (a held entry reads its node's data when its version
 * moves and relays Curator's "__REVOKE__" to the recipe's listener), the
 * listener's delivery in the user's context, and the public revoker. */

#include <string.h>

#include "context.h"
#include "error-private.h"
#include "queue-private.h"
#include "log.h"
#include "nodename.h"
#include "notifier.h"
#include "path.h"
#include "session-private.h"

#include <zkr/node.h>
#include <zkr/revocation.h>

/* ==== the listener of a recipe object ================================== */

struct _ZkrRevocation {
  ZkrNotifier *notifier;   /* (owned) its one listener, if any */
  GMutex mutex;            /* guards listener against concurrent setters */
  guint listener;          /* the notifier's id, 0: not revocable */
  gint revocable;          /* atomic: listener != 0, read by the engine */
};

static void
revocation_marshal (GCallback func, gpointer source, int event, gpointer user_data)
{
  (void) event;
  ((ZkrRevocationFunc) (void (*) (void)) func) (source, user_data);
}

/* A notifier, so that a request is delivered as loss events are: in the
 * listener's context, in order, only while someone holds @source, never
 * after the listener was replaced (docs/design.md, "Ownership and
 * unref"). */
ZkrRevocation *
zkr__queue_revocation_new (gpointer source, gpointer (*source_ref) (gpointer),
                           void (*source_unref) (gpointer))
{
  ZkrRevocation *revocation = g_new0 (ZkrRevocation, 1);

  revocation->notifier = zkr__notifier_new (source, source_ref, source_unref,
                                            revocation_marshal);
  g_mutex_init (&revocation->mutex);
  return revocation;
}

/* After zkr__queue_lock_free() of every entry that names it. */
void
zkr__queue_revocation_free (ZkrRevocation *revocation)
{
  if (revocation == NULL)
    return;
  zkr__notifier_free (revocation->notifier);
  g_mutex_clear (&revocation->mutex);
  g_free (revocation);
}

void
zkr__queue_revocation_set_listener (ZkrRevocation *revocation, ZkrRevocationFunc func,
                                    gpointer user_data, GDestroyNotify destroy)
{
  g_mutex_lock (&revocation->mutex);
  if (revocation->listener != 0)
    zkr__notifier_remove (revocation->notifier, revocation->listener);
  revocation->listener = 0;
  if (func != NULL)
    revocation->listener = zkr__notifier_add (revocation->notifier,
                                              (GCallback) (void (*) (void)) func,
                                              user_data, destroy);
  g_atomic_int_set (&revocation->revocable, revocation->listener != 0);
  g_mutex_unlock (&revocation->mutex);
}

/* ==== the engine's side ================================================= */

void
zkr__queue_revocation_set (ZkrQueueLock *lock, ZkrRevocation *revocation)
{
  g_mutex_lock (&lock->hook_lock);
  lock->revocation = revocation;
  g_mutex_unlock (&lock->hook_lock);
}

static gboolean
lock_is_revocable (ZkrQueueLock *lock)
{
  gboolean revocable;

  g_mutex_lock (&lock->hook_lock);
  revocable = lock->revocation != NULL && g_atomic_int_get (&lock->revocation->revocable);
  g_mutex_unlock (&lock->hook_lock);
  return revocable;
}

typedef struct {
  ZkrQueueLock *lock;   /* (owned) */
  char *node;           /* the hold's node when the read left */
} RevokeRead;

static gboolean
data_is_request (GBytes *data)
{
  gsize len = 0;
  const char *bytes = data != NULL ? g_bytes_get_data (data, &len) : NULL;

  return len == strlen (ZKR_REVOKE_MESSAGE) && memcmp (bytes, ZKR_REVOKE_MESSAGE, len) == 0;
}

/* Same hold (a stale reply of an earlier hold's node is dropped), a data
 * version not judged yet (so one write is one request, however many
 * reads saw it), and still held: then the request goes to the listener. */
static void
revoke_read_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  RevokeRead *read = user_data;
  ZkrQueueLock *lock = read->lock;
  gboolean same_hold;

  (void) session;
  g_mutex_lock (&lock->mutex);
  same_hold = g_strcmp0 (lock->node_path, read->node) == 0 &&
              (lock->state == ZKR_QUEUE_LOCK_HELD || lock->state == ZKR_QUEUE_LOCK_IN_DOUBT);
  g_mutex_unlock (&lock->mutex);
  if (same_hold && reply->rc == ZOK && reply->has_stat && reply->stat.version > lock->revoke_version)
    {
      lock->revoke_version = reply->stat.version;
      if (data_is_request (reply->data))
        {
          zkr__debug ("%s %s: revocation requested (%s, data version %d)", lock->recipe->kind,
                   lock->user_path, read->node, reply->stat.version);
          /* Under hook_lock, as the loss hook: zkr__queue_lock_free()
           * clears the pointer under it, so nothing is emitted after. */
          g_mutex_lock (&lock->hook_lock);
          if (lock->revocation != NULL)
            zkr__notifier_emit (lock->revocation->notifier, 0);
          g_mutex_unlock (&lock->hook_lock);
        }
    }
  zkr__queue_lock_unref (lock);
  g_free (read->node);
  g_free (read);
}

/* Called by the loss watch with each stat of our node it gets (the watch
 * is an exists on our node, so a write of its data fires it and it is set
 * again). Curator's holder reads the data at each data event; zkr reads it
 * only when the version moved past what it judged, and also when the watch
 * is first set, so that a request written before that is not missed (a
 * write that came before the watch fires no event). Worker only. */
void
zkr__queue_revocation_check (ZkrQueueLock *lock, const struct Stat *stat)
{
  RevokeRead *read;

  if (stat->version <= lock->revoke_version || !lock_is_revocable (lock))
    return;
  read = g_new0 (RevokeRead, 1);
  read->node = zkr__queue_lock_dup_node_path (lock);
  if (read->node == NULL)
    {
      g_free (read);
      return;
    }
  read->lock = zkr__queue_lock_ref (lock);
  zkr__op_get (lock->session, read->node, FALSE, revoke_read_reply, read);
}

/* ==== the revoker ======================================================== */

static void
revoke_set_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  (void) source;
  if (zkr_node_set_finish (g_task_get_task_data (task), result, NULL, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
  g_object_unref (task);
}

/* @node_path is a full path on the server, as *_dup_node_path() and
 * $ZKR_LOCK_NODE give it (and as fences take it): the same path under the
 * session's namespace, for the node calls; NULL when it is outside it.
 * (transfer full) */
static char *
revoke_path_in_namespace (ZkrSession *session, const char *node_path)
{
  g_autofree char *root = zkr__session_resolve_path (session, "/");
  gsize root_len = strlen (root);

  if (strcmp (root, "/") == 0)
    return g_strdup (node_path);
  if (strncmp (node_path, root, root_len) == 0 && node_path[root_len] == '/')
    return g_strdup (node_path + root_len);
  return NULL;
}

void
zkr_revoke_async (ZkrSession *session, const char *node_path, int timeout_ms,
                  GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autofree char *path = NULL;
  GTask *task;

  g_return_if_fail (session != NULL);
  zkr__context_assert_user ("zkr_revoke_async() called");
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zkr_revoke_async);
  g_task_set_name (task, "zkr_revoke");
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, zkr_session_ref (session), (GDestroyNotify) zkr_session_unref);
  path = node_path != NULL ? revoke_path_in_namespace (session, node_path) : NULL;
  if (node_path != NULL && path == NULL)
    {
      g_autofree char *root = zkr__session_resolve_path (session, "/");

      g_task_return_new_error (task, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                               "invalid lock node \"%s\": outside the session's namespace %s",
                               node_path, root);
      g_object_unref (task);
      return;
    }
  /* Curator's request: its bytes at any version; the node set answers in
   * this thread-default context, where the task returns too. */
  zkr_node_set_async (session, path, ZKR_REVOKE_MESSAGE, strlen (ZKR_REVOKE_MESSAGE), -1,
                      timeout_ms, cancellable, revoke_set_done, task);
}

gboolean
zkr_revoke_finish (ZkrSession *session, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (G_IS_TASK (result), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (result, zkr_revoke_async), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

typedef struct {
  ZkrSession *session;
  const char *path;
  int timeout_ms;
} SyncArgs;

static void
revoke_sync_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
                   gpointer user_data)
{
  SyncArgs *args = data;

  zkr_revoke_async (args->session, args->path, args->timeout_ms, cancellable, callback,
                    user_data);
}

gboolean
zkr_revoke (ZkrSession *session, const char *node_path, int timeout_ms,
            GCancellable *cancellable, GError **error)
{
  SyncArgs args = { session, node_path, timeout_ms };
  GAsyncResult *result;
  gboolean ok;

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  result = zkr__context_run_sync (revoke_sync_start, &args, cancellable);
  ok = zkr_revoke_finish (session, result, error);
  g_object_unref (result);
  return ok;
}

/* ==== revoking a lock's holder =========================================== */

typedef struct {
  ZkrSession *session;      /* (owned) */
  char *lock_path;
  char *node;               /* (nullable) the node asked */
  gint64 deadline;          /* monotonic µs; 0: none */
  int timeout_ms;
} HolderCall;

static void
holder_call_free (gpointer data)
{
  HolderCall *call = data;

  zkr_session_unref (call->session);
  g_free (call->lock_path);
  g_free (call->node);
  g_free (call);
}

/* The lowest sequence: every lock layout ends its names with ZooKeeper's
 * ten digits, whatever comes before (a read-write lock's two kinds
 * interleave by it, docs/design.md §3.3). Names without one are no lock
 * node. */
static const char *
holder_pick (char **names)
{
  const char *first = NULL;
  gint64 first_seq = G_MAXINT64;

  for (guint i = 0; names[i] != NULL; i++)
    {
      gint64 seq;

      if (zkr__nodename_parse_sequence (names[i], &seq) && seq < first_seq)
        {
          first = names[i];
          first_seq = seq;
        }
    }
  return first;
}

static void
holder_set_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  HolderCall *call = g_task_get_task_data (task);
  GError *error = NULL;

  (void) source;
  if (zkr_revoke_finish (call->session, result, &error))
    g_task_return_pointer (task, g_strdup (call->node), g_free);
  else
    g_task_return_error (task, error);
  g_object_unref (task);
}

/* What is left of the one deadline for the next request; -1 (and the
 * error set) when nothing is. @after names the request done. */
static int
holder_time_left (HolderCall *call, const char *after, GError **error)
{
  gint64 left;

  if (call->deadline == 0)
    return call->timeout_ms;
  left = (call->deadline - g_get_monotonic_time ()) / 1000;
  if (left > 0)
    return (int) MIN (left, G_MAXINT);
  g_set_error (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT,
               "revoke the holder of %s: the deadline passed after the %s", call->lock_path, after);
  return -1;
}

static void
holder_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  HolderCall *call = g_task_get_task_data (task);
  g_auto (GStrv) names = NULL;
  GError *error = NULL;
  const char *first;
  int left;

  (void) source;
  names = zkr_node_get_children_finish (call->session, result, NULL, &error);
  first = names != NULL ? holder_pick (names) : NULL;
  if (names != NULL && first == NULL)
    g_set_error (&error, ZKR_ERROR, ZKR_ERROR_NO_NODE,
                 "revoke the holder of %s: no lock node under it", call->lock_path);
  left = error == NULL ? holder_time_left (call, "listing", &error) : -1;
  if (error != NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  {
    g_autofree char *full_lock_path = zkr__session_resolve_path (call->session, call->lock_path);

    /* A full path, as zkr_revoke() takes it and *_dup_node_path() gives. */
    call->node = zkr__path_join (full_lock_path, first);
  }
  zkr_revoke_async (call->session, call->node, left, g_task_get_cancellable (task),
                    holder_set_done, task);
}

/* The session's server caught up with the leader: the listing shows the
 * holder as of the call, even one another client's session just made. */
static void
holder_synced (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  HolderCall *call = g_task_get_task_data (task);
  GError *error = NULL;
  int left;

  (void) source;
  left = zkr_node_sync_finish (call->session, result, &error)
           ? holder_time_left (call, "sync", &error) : -1;
  if (error != NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  zkr_node_get_children_async (call->session, call->lock_path, left,
                               g_task_get_cancellable (task), holder_listed, task);
}

void
zkr_revoke_holder_async (ZkrSession *session, const char *lock_path, int timeout_ms,
                         GCancellable *cancellable, GAsyncReadyCallback callback,
                         gpointer user_data)
{
  GTask *task;
  HolderCall *call;

  g_return_if_fail (session != NULL);
  zkr__context_assert_user ("zkr_revoke_holder_async() called");
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zkr_revoke_holder_async);
  g_task_set_name (task, "zkr_revoke_holder");
  g_task_set_check_cancellable (task, FALSE);
  call = g_new0 (HolderCall, 1);
  call->session = zkr_session_ref (session);
  call->lock_path = g_strdup (lock_path);
  call->timeout_ms = timeout_ms;
  /* One deadline, fixed now, for the listing and the write. */
  if (timeout_ms > 0)
    call->deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  g_task_set_task_data (task, call, holder_call_free);
  zkr_node_sync_async (session, lock_path, timeout_ms, cancellable, holder_synced, task);
}

char *
zkr_revoke_holder_finish (ZkrSession *session, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_async_result_is_tagged (result, zkr_revoke_holder_async), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
holder_sync_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
                   gpointer user_data)
{
  SyncArgs *args = data;

  zkr_revoke_holder_async (args->session, args->path, args->timeout_ms, cancellable, callback,
                           user_data);
}

char *
zkr_revoke_holder (ZkrSession *session, const char *lock_path, int timeout_ms,
                   GCancellable *cancellable, GError **error)
{
  SyncArgs args = { session, lock_path, timeout_ms };
  GAsyncResult *result;
  char *node;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  result = zkr__context_run_sync (holder_sync_start, &args, cancellable);
  node = zkr_revoke_holder_finish (session, result, error);
  g_object_unref (result);
  return node;
}
