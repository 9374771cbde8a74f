/* zkr: the public one-shot watches (include/zkr/watch.h): a node read run
 * by core/node-op.c that leaves its watch in the session's registry
 * (core/watches.c) when its reply comes; the watch's one end (its event,
 * the session's LOST or CLOSED, or a remove); and the one call of the
 * user's callback, then its destroy notify, in the caller's context. */

#include <zookeeper/zookeeper.h>

#include <zkr/error.h>
#include <zkr/watch.h>

#include "context.h"
#include "node-private.h"
#include "session-private.h"

/* Where a watch is; changed only under watch_lock. */
typedef enum {
  WATCH_READING, /* its read in flight: nothing registered yet */
  WATCH_ARMED,   /* in the registry and its session's set, an id given */
  WATCH_FIRED,   /* out of both; its event on the way to its context */
  WATCH_ENDED,   /* @func ran or never will; @destroy ran or is posted */
} WatchStep;

typedef struct {
  gatomicrefcount ref;    /* the call (until answered), the id table, the
                           * registry entry, each post to the context */
  ZkrSession *session;    /* not owned (a watch does not keep its session):
                           * used only while READING (the call holds it)
                           * or ARMED (CLOSED, which comes before the
                           * session is freed, ends every armed watch) */
  ZkrWatchKind kind;
  char *path;             /* the user's, without the namespace */
  ZkrNodeWatchFunc func;
  gpointer user_data;
  GDestroyNotify destroy; /* (nullable) cleared once run */
  GMainContext *context;  /* (owned) thread-default at the call */
  WatchStep step;         /* watch_lock */
  guint id;               /* watch_lock; 0 until armed */
  guint registry_id;      /* watch_lock; while ARMED */
} NodeWatch;

/* A session's armed watches, for its LOST and CLOSED: one internal
 * listener per session (not one per watch: a transition then costs one
 * call), added with its first armed watch, removed at CLOSED. */
typedef struct {
  guint listener_id;
  GHashTable *armed;      /* NodeWatch* (borrowed: the id table holds them) */
} SessionWatches;

/* Order: watch_lock, then a session's lock (the registry, listeners). */
static GMutex watch_lock;
static GHashTable *watch_by_id;    /* id -> NodeWatch (a reference); armed
                                    * or fired, not ended */
static GHashTable *watch_sessions; /* ZkrSession* -> SessionWatches */
static guint watch_next_id;

static const char *const event_names[] = {
  [ZKR_WATCH_EVENT_CREATED] = "CREATED",
  [ZKR_WATCH_EVENT_DELETED] = "DELETED",
  [ZKR_WATCH_EVENT_DATA_CHANGED] = "DATA_CHANGED",
  [ZKR_WATCH_EVENT_CHILDREN_CHANGED] = "CHILDREN_CHANGED",
  [ZKR_WATCH_EVENT_SESSION_LOST] = "SESSION_LOST",
  [ZKR_WATCH_EVENT_SESSION_CLOSED] = "SESSION_CLOSED",
};

const char *
zkr_watch_event_name (ZkrWatchEvent event)
{
  if ((gsize) event >= G_N_ELEMENTS (event_names))
    return "INVALID";
  return event_names[event];
}

/* ---- the watch ------------------------------------------------------- */

static NodeWatch *
node_watch_ref (NodeWatch *watch)
{
  g_atomic_ref_count_inc (&watch->ref);
  return watch;
}

/* Any thread; takes no lock (the registry and the id table drop theirs
 * under locks). */
static void
node_watch_unref (gpointer data)
{
  NodeWatch *watch = data;

  if (!g_atomic_ref_count_dec (&watch->ref))
    return;
  g_free (watch->path);
  g_main_context_unref (watch->context);
  g_free (watch);
}

static NodeWatch *
node_watch_new (ZkrSession *session, ZkrWatchKind kind, const char *path, ZkrNodeWatchFunc func,
                gpointer user_data, GDestroyNotify destroy)
{
  NodeWatch *watch = g_new0 (NodeWatch, 1);

  g_atomic_ref_count_init (&watch->ref);
  watch->session = session;
  watch->kind = kind;
  watch->path = g_strdup (path);
  watch->func = func;
  watch->user_data = user_data;
  watch->destroy = destroy;
  watch->context = g_main_context_ref_thread_default ();
  return watch;
}

/* Only by whoever moved the watch to ENDED (or its post): once. */
static void
watch_user_destroy (NodeWatch *watch)
{
  GDestroyNotify destroy = g_steal_pointer (&watch->destroy);

  if (destroy != NULL)
    destroy (watch->user_data);
}

/* ZooKeeper's event types that fire each kind, as the server's own data
 * watches (get, exists on a node) and exist watches (exists on a missing
 * node) and child watches fire. */
static guint
watch_event_mask (ZkrWatchKind kind)
{
  switch (kind)
    {
    case ZKR_WATCH_DATA:
      return ZKR_WATCH_TYPE_BIT (ZOO_CHANGED_EVENT) | ZKR_WATCH_TYPE_BIT (ZOO_DELETED_EVENT);
    case ZKR_WATCH_EXISTS:
      return ZKR_WATCH_TYPE_BIT (ZOO_CREATED_EVENT) | ZKR_WATCH_TYPE_BIT (ZOO_CHANGED_EVENT) |
             ZKR_WATCH_TYPE_BIT (ZOO_DELETED_EVENT);
    case ZKR_WATCH_CHILDREN:
    default:
      return ZKR_WATCH_TYPE_BIT (ZOO_CHILD_EVENT) | ZKR_WATCH_TYPE_BIT (ZOO_DELETED_EVENT);
    }
}

static ZkrWatchEvent
watch_event_from_type (int type)
{
  if (type == ZOO_CREATED_EVENT)
    return ZKR_WATCH_EVENT_CREATED;
  if (type == ZOO_DELETED_EVENT)
    return ZKR_WATCH_EVENT_DELETED;
  if (type == ZOO_CHILD_EVENT)
    return ZKR_WATCH_EVENT_CHILDREN_CHANGED;
  return ZKR_WATCH_EVENT_DATA_CHANGED;
}

/* ---- delivery in the watch's context ------------------------------------ */

typedef struct {
  NodeWatch *watch;       /* (owned) a reference */
  ZkrSession *session;    /* (owned) (nullable) NULL: it was being freed */
  ZkrWatchEvent event;
  gboolean ran;
} Delivery;

/* The watch's context: the one call, unless a remove came first. */
static void
delivery_end (Delivery *delivery, gboolean call)
{
  NodeWatch *watch = delivery->watch;
  gboolean ours;

  g_mutex_lock (&watch_lock);
  ours = watch->step == WATCH_FIRED;
  if (ours)
    {
      watch->step = WATCH_ENDED;
      g_hash_table_remove (watch_by_id, GUINT_TO_POINTER (watch->id));
    }
  g_mutex_unlock (&watch_lock);
  if (!ours)
    return; /* removed meanwhile: the remove ran or posted @destroy */
  if (call && delivery->session != NULL)
    {
      zkr__context_assert_user ("a watch's callback");
      watch->func (delivery->session, watch->path, delivery->event, watch->user_data);
    }
  watch_user_destroy (watch);
}

static gboolean
delivery_run (gpointer data)
{
  Delivery *delivery = data;

  delivery->ran = TRUE;
  delivery_end (delivery, TRUE);
  return G_SOURCE_REMOVE;
}

/* Also when the context dropped the post unrun (it was freed): the watch
 * still ends once, without its call. The session's reference may be its
 * last: dropped here, in the user's context, never on the worker. */
static void
delivery_free (gpointer data)
{
  Delivery *delivery = data;

  if (!delivery->ran)
    delivery_end (delivery, FALSE);
  if (delivery->session != NULL)
    zkr_session_unref (delivery->session);
  node_watch_unref (delivery->watch);
  g_free (delivery);
}

/* Worker, watch_lock held, the watch ARMED and already out of the
 * registry: out of its session's set, its event posted. */
static void
watch_fire_locked (NodeWatch *watch, ZkrWatchEvent event)
{
  SessionWatches *set = g_hash_table_lookup (watch_sessions, watch->session);
  Delivery *delivery = g_new0 (Delivery, 1);

  watch->step = WATCH_FIRED;
  watch->registry_id = 0;
  if (set != NULL)
    g_hash_table_remove (set->armed, watch);
  delivery->watch = node_watch_ref (watch);
  /* NULL while the session is being closed by its last unref: nobody
   * holds it, so nobody is told (as its state listeners are not). */
  delivery->session = zkr__session_try_ref (watch->session);
  delivery->event = event;
  zkr__context_post (watch->context, delivery_run, delivery, delivery_free);
}

static gboolean
destroy_run (gpointer data)
{
  watch_user_destroy (data);
  return G_SOURCE_REMOVE;
}

/* Also when the context dropped the post unrun. */
static void
destroy_post_free (gpointer data)
{
  watch_user_destroy (data);
  node_watch_unref (data);
}

/* ---- events, the session's end ---------------------------------------- */

/* Worker: the registry's call for one of our event types. */
static void
watch_on_event (ZkrSession *session, int type, const char *path, gpointer user_data)
{
  NodeWatch *watch = user_data;

  (void) session;
  (void) path;
  g_mutex_lock (&watch_lock);
  if (watch->step == WATCH_ARMED)
    watch_fire_locked (watch, watch_event_from_type (type));
  g_mutex_unlock (&watch_lock);
}

/* Worker, at each transition of a session with watches. SUSPENDED and
 * RECONNECTED change nothing: libzookeeper sets the watches again on the
 * server it reconnects to, which then reports what changed meanwhile. */
static void
watch_on_session_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  SessionWatches *set = user_data;
  g_autoptr (GPtrArray) ending = NULL;
  GHashTableIter iter;
  gpointer key;
  ZkrWatchEvent event = state == ZKR_SESSION_STATE_LOST ? ZKR_WATCH_EVENT_SESSION_LOST
                                                         : ZKR_WATCH_EVENT_SESSION_CLOSED;

  if (state != ZKR_SESSION_STATE_LOST && state != ZKR_SESSION_STATE_CLOSED)
    return;
  g_mutex_lock (&watch_lock);
  ending = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, set->armed);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (ending, key);
  for (guint i = 0; i < ending->len; i++)
    {
      NodeWatch *watch = g_ptr_array_index (ending, i);

      zkr__watches_remove (session, watch->registry_id);
      watch_fire_locked (watch, event);
    }
  if (state == ZKR_SESSION_STATE_CLOSED)
    {
      /* Terminal: no watch is armed on it again, and it may be freed. */
      zkr__session_remove_internal_listener (session, set->listener_id);
      g_hash_table_remove (watch_sessions, session);
      g_hash_table_unref (set->armed);
      g_free (set);
    }
  g_mutex_unlock (&watch_lock);
}

static SessionWatches *
session_watches_locked (ZkrSession *session)
{
  SessionWatches *set;

  if (watch_sessions == NULL)
    {
      watch_sessions = g_hash_table_new (NULL, NULL);
      watch_by_id = g_hash_table_new_full (NULL, NULL, NULL, node_watch_unref);
    }
  set = g_hash_table_lookup (watch_sessions, session);
  if (set == NULL)
    {
      set = g_new0 (SessionWatches, 1);
      set->armed = g_hash_table_new (NULL, NULL);
      set->listener_id = zkr__session_add_internal_listener (session, watch_on_session_state, set);
      g_hash_table_insert (watch_sessions, session, set);
    }
  return set;
}

/* Worker, with the read's successful reply (node-op's watch_armed hook):
 * events that follow the read are dispatched after this. */
static void
watch_arm (ZkrSession *session, gpointer data)
{
  NodeWatch *watch = data;
  SessionWatches *set;
  g_autofree char *full = NULL;

  g_mutex_lock (&watch_lock);
  if (watch->step == WATCH_READING)
    {
      set = session_watches_locked (session);
      watch->step = WATCH_ARMED;
      if (++watch_next_id == 0)
        ++watch_next_id;
      watch->id = watch_next_id;
      g_hash_table_insert (watch_by_id, GUINT_TO_POINTER (watch->id), node_watch_ref (watch));
      g_hash_table_add (set->armed, watch);
      full = zkr__session_resolve_path (session, watch->path);
      watch->registry_id = zkr__watches_add_full (session, full,
                                                        watch_event_mask (watch->kind),
                                                        watch_on_event, node_watch_ref (watch),
                                                        node_watch_unref);
    }
  g_mutex_unlock (&watch_lock);
}

/* ---- remove ------------------------------------------------------------- */

void
zkr_watch_remove (ZkrSession *session, guint watch_id)
{
  gpointer found = NULL;
  NodeWatch *watch;

  g_return_if_fail (session != NULL);
  if (watch_id == 0)
    return;
  g_mutex_lock (&watch_lock);
  if (watch_by_id != NULL)
    found = g_hash_table_lookup (watch_by_id, GUINT_TO_POINTER (watch_id));
  watch = found;
  if (watch == NULL || watch->session != session)
    {
      g_mutex_unlock (&watch_lock);
      return;
    }
  g_hash_table_steal (watch_by_id, GUINT_TO_POINTER (watch_id)); /* its reference is ours */
  if (watch->step == WATCH_ARMED)
    {
      SessionWatches *set = g_hash_table_lookup (watch_sessions, session);

      if (set != NULL)
        g_hash_table_remove (set->armed, watch);
      zkr__watches_remove (session, watch->registry_id);
      watch->registry_id = 0;
    }
  /* A FIRED watch's delivery now finds it ENDED and calls nothing. */
  watch->step = WATCH_ENDED;
  g_mutex_unlock (&watch_lock);
  if (g_main_context_is_owner (watch->context))
    {
      watch_user_destroy (watch);
      node_watch_unref (watch);
    }
  else
    zkr__context_post (watch->context, destroy_run, watch, destroy_post_free);
}

/* ---- the reads ----------------------------------------------------------- */

static const char *const kind_names[] = {
  [ZKR_WATCH_DATA] = "watch_data",
  [ZKR_WATCH_EXISTS] = "watch_exists",
  [ZKR_WATCH_CHILDREN] = "watch_children",
};

static ZkrNodeKind
watch_node_kind (ZkrWatchKind kind)
{
  switch (kind)
    {
    case ZKR_WATCH_DATA:
      return ZKR_NODE_GET;
    case ZKR_WATCH_EXISTS:
      return ZKR_NODE_EXISTS;
    case ZKR_WATCH_CHILDREN:
    default:
      return ZKR_NODE_CHILDREN;
    }
}

/* NULL, or why the input is refused (nothing is sent then). */
static GError *
watch_check (ZkrWatchKind kind, const char *path, ZkrNodeWatchFunc func)
{
  GError *error = NULL;

  if (!zkr__node_check_path (path, watch_node_kind (kind), FALSE, &error))
    return error;
  if (func == NULL)
    return g_error_new (ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                        "%s %s: invalid watch callback NULL", kind_names[kind], path);
  return NULL;
}

/* The read's answer, in the watch's context: a failed read left nothing
 * registered, so the watch ends here and @destroy runs before the
 * caller hears the answer. */
static void
watch_read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ZkrCall *outer = user_data;
  NodeWatch *watch = zkr__call_result_get_data ((GAsyncResult *) outer);
  GError *error = NULL;
  ZkrNodeResult *answer = zkr__call_propagate (result, &error);
  gboolean armed;

  (void) source;
  g_mutex_lock (&watch_lock);
  armed = watch->step != WATCH_READING;
  if (!armed)
    watch->step = WATCH_ENDED;
  g_mutex_unlock (&watch_lock);
  if (!armed)
    watch_user_destroy (watch);
  /* In a dispatch of the caller's context already (the inner call's
   * answer): the caller's callback runs now, not one post later. */
  zkr__call_return_here (outer, answer, (GDestroyNotify) zkr__node_result_free, error);
}

/* The caller's call (or its blocking twin's private context): @watch and
 * @refused taken. The outer call is the caller's; the inner one is
 * node-op's, answered in the same context. */
static void
watch_start (NodeWatch *watch, GError *refused, int timeout_ms, GCancellable *cancellable,
             GAsyncReadyCallback callback, gpointer callback_data, gpointer source_tag)
{
  ZkrCall *outer = zkr__call_new (source_tag, callback, callback_data);
  ZkrCall *inner = zkr__call_new (NULL, watch_read_done, outer);
  ZkrNodeRequest request = { .kind = watch_node_kind (watch->kind), .path = watch->path,
                             .version = -1, .watch_armed = watch_arm, .watch_data = watch };

  /* A cancel is answered G_IO_ERROR_CANCELLED by the read itself. */
  zkr__call_set_data (outer, watch, node_watch_unref);
  if (refused != NULL)
    {
      zkr__call_return (inner, NULL, NULL, refused);
      return;
    }
  zkr__node_op_start (watch->session, &request, timeout_ms, cancellable, inner);
}

static void
watch_call_async (ZkrSession *session, ZkrWatchKind kind, const char *path,
                  ZkrNodeWatchFunc func, gpointer user_data, GDestroyNotify destroy,
                  int timeout_ms, GCancellable *cancellable, GAsyncReadyCallback callback,
                  gpointer callback_data, gpointer source_tag)
{
  zkr__context_assert_user ("a zkr_watch_*_async() call");
  watch_start (node_watch_new (session, kind, path, func, user_data, destroy),
               watch_check (kind, path, func), timeout_ms, cancellable, callback, callback_data,
               source_tag);
}

static ZkrNodeResult *
watch_finish (ZkrSession *session, GAsyncResult *result, gpointer source_tag, ZkrStat *stat,
              guint *watch_id, GError **error)
{
  NodeWatch *watch;
  ZkrNodeResult *answer;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (zkr__call_is_tagged (result, source_tag), NULL);
  watch = zkr__call_result_get_data (result);
  answer = zkr__call_propagate (result, error);
  if (watch_id != NULL)
    {
      g_mutex_lock (&watch_lock);
      *watch_id = answer != NULL ? watch->id : 0;
      g_mutex_unlock (&watch_lock);
    }
  if (answer != NULL && stat != NULL && answer->has_stat)
    *stat = answer->stat;
  return answer;
}

/* The arguments of a blocking call: the watch is made in the caller's
 * call, so that it captures the caller's context, not the private one
 * the call runs in. */
typedef struct {
  NodeWatch *watch;
  GError *refused;
  int timeout_ms;
  gpointer source_tag;
} WatchArgs;

static void
watch_sync_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
                  gpointer user_data)
{
  WatchArgs *args = data;

  watch_start (g_steal_pointer (&args->watch), g_steal_pointer (&args->refused),
               args->timeout_ms, cancellable, callback, user_data, args->source_tag);
}

/* (transfer full) the answer, for the _finish of @source_tag. */
static GAsyncResult *
watch_run_sync (ZkrSession *session, ZkrWatchKind kind, const char *path, ZkrNodeWatchFunc func,
                gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                GCancellable *cancellable, gpointer source_tag)
{
  WatchArgs args = { node_watch_new (session, kind, path, func, user_data, destroy),
                     watch_check (kind, path, func), timeout_ms, source_tag };

  return zkr__context_run_sync (watch_sync_start, &args, cancellable);
}

/* ---- data ------------------------------------------------------------------ */

void
zkr_watch_data_async (ZkrSession *session, const char *path, ZkrNodeWatchFunc func,
                      gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                      GCancellable *cancellable, GAsyncReadyCallback callback,
                      gpointer callback_data)
{
  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  watch_call_async (session, ZKR_WATCH_DATA, path, func, user_data, destroy, timeout_ms,
                    cancellable, callback, callback_data, zkr_watch_data_async);
}

GBytes *
zkr_watch_data_finish (ZkrSession *session, GAsyncResult *result, ZkrStat *stat,
                       guint *watch_id, GError **error)
{
  ZkrNodeResult *answer = watch_finish (session, result, zkr_watch_data_async, stat, watch_id,
                                        error);
  GBytes *data;

  if (answer == NULL)
    return NULL;
  data = g_steal_pointer (&answer->data);
  zkr__node_result_free (answer);
  return data;
}

GBytes *
zkr_watch_data (ZkrSession *session, const char *path, ZkrNodeWatchFunc func, gpointer user_data,
                GDestroyNotify destroy, int timeout_ms, GCancellable *cancellable, ZkrStat *stat,
                guint *watch_id, GError **error)
{
  GAsyncResult *result;
  GBytes *data;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  result = watch_run_sync (session, ZKR_WATCH_DATA, path, func, user_data, destroy, timeout_ms,
                           cancellable, zkr_watch_data_async);
  data = zkr_watch_data_finish (session, result, stat, watch_id, error);
  g_object_unref (result);
  return data;
}

/* ---- exists ---------------------------------------------------------------- */

void
zkr_watch_exists_async (ZkrSession *session, const char *path, ZkrNodeWatchFunc func,
                        gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                        GCancellable *cancellable, GAsyncReadyCallback callback,
                        gpointer callback_data)
{
  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  watch_call_async (session, ZKR_WATCH_EXISTS, path, func, user_data, destroy, timeout_ms,
                    cancellable, callback, callback_data, zkr_watch_exists_async);
}

gboolean
zkr_watch_exists_finish (ZkrSession *session, GAsyncResult *result, ZkrStat *stat,
                         guint *watch_id, GError **error)
{
  ZkrNodeResult *answer = watch_finish (session, result, zkr_watch_exists_async, stat,
                                        watch_id, error);
  gboolean exists = answer != NULL && answer->exists;

  zkr__node_result_free (answer);
  return exists;
}

gboolean
zkr_watch_exists (ZkrSession *session, const char *path, ZkrNodeWatchFunc func,
                  gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                  GCancellable *cancellable, ZkrStat *stat, guint *watch_id, GError **error)
{
  GAsyncResult *result;
  gboolean exists;

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  result = watch_run_sync (session, ZKR_WATCH_EXISTS, path, func, user_data, destroy,
                           timeout_ms, cancellable, zkr_watch_exists_async);
  exists = zkr_watch_exists_finish (session, result, stat, watch_id, error);
  g_object_unref (result);
  return exists;
}

/* ---- children -------------------------------------------------------------- */

void
zkr_watch_children_async (ZkrSession *session, const char *path, ZkrNodeWatchFunc func,
                          gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                          GCancellable *cancellable, GAsyncReadyCallback callback,
                          gpointer callback_data)
{
  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  watch_call_async (session, ZKR_WATCH_CHILDREN, path, func, user_data, destroy, timeout_ms,
                    cancellable, callback, callback_data, zkr_watch_children_async);
}

char **
zkr_watch_children_finish (ZkrSession *session, GAsyncResult *result, ZkrStat *stat,
                           guint *watch_id, GError **error)
{
  ZkrNodeResult *answer = watch_finish (session, result, zkr_watch_children_async, stat,
                                        watch_id, error);
  char **children;

  if (answer == NULL)
    return NULL;
  children = g_steal_pointer (&answer->children);
  zkr__node_result_free (answer);
  return children;
}

char **
zkr_watch_children (ZkrSession *session, const char *path, ZkrNodeWatchFunc func,
                    gpointer user_data, GDestroyNotify destroy, int timeout_ms,
                    GCancellable *cancellable, ZkrStat *stat, guint *watch_id, GError **error)
{
  GAsyncResult *result;
  char **children;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  result = watch_run_sync (session, ZKR_WATCH_CHILDREN, path, func, user_data, destroy,
                           timeout_ms, cancellable, zkr_watch_children_async);
  children = zkr_watch_children_finish (session, result, stat, watch_id, error);
  g_object_unref (result);
  return children;
}
