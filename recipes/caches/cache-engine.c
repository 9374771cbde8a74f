/* zkr: the caches' engine: a subtree mirrored in memory by watched reads
 * on the session's worker (or in its place), each read judged into ADDED /
 * UPDATED / REMOVED, resynchronised by a full read after RECONNECTED and
 * LOST. */

#include <string.h>

#include "cache-private.h"
#include "log.h"
#include "node-private.h"
#include "nodes.h"
#include "ops.h"
#include "path.h"
#include "session-private.h"

/* ---- nodes -------------------------------------------------------- */

typedef struct _CacheWatch CacheWatch;

typedef struct {
  char *path;            /* without the namespace */
  guint depth;           /* 0 for the root */
  gboolean live;         /* its data was read: visible, ADDED reported */
  GBytes *data;          /* (owned) (nullable) while not live */
  ZkrStat stat;
  GHashTable *children;  /* name (borrowed from the child's path) -> child */
  CacheWatch *watch;     /* (nullable) the registered watch of its path */
} CacheNode;

struct _CacheWatch {
  ZkrCacheEngine *engine; /* (owned) */
  char *path;
  guint id;
};

struct _ZkrCacheEngine {
  gatomicrefcount ref;
  ZkrSession *session;   /* (owned) */
  char *root;            /* without the namespace */
  int max_depth;
  GMutex lock;           /* nodes: written on the worker under it, read anywhere */
  GHashTable *nodes;     /* path -> CacheNode (owned); the root always there */
  GMutex hook_lock;      /* the hook runs under it; stop clears it */
  ZkrCacheHookFunc hook;
  gpointer hook_data;
  /* worker only */
  gboolean stopped;
  guint listener_id;
  guint outstanding;     /* reads sent, not yet answered */
  gboolean initialized;
  gboolean in_doubt;     /* a read failed: read everything again */
  gboolean was_connected; /* a CONNECTED is a reconnection only after one */
  ZkrResendPause pause;
};

typedef struct {
  ZkrCacheEngine *engine; /* (owned) */
  char *path;
  gboolean deep;          /* read the children again too (resync) */
  gboolean rearm;         /* the root's exists, sent alone after its data
                           * read found no node */
} CacheRead;

static ZkrCacheEngine *
engine_ref (ZkrCacheEngine *engine)
{
  g_atomic_ref_count_inc (&engine->ref);
  return engine;
}

static void
node_free (gpointer data)
{
  CacheNode *node = data;

  g_free (node->path);
  g_clear_pointer (&node->data, g_bytes_unref);
  g_hash_table_unref (node->children);
  g_free (node);
}

static void
engine_unref (ZkrCacheEngine *engine)
{
  if (!g_atomic_ref_count_dec (&engine->ref))
    return;
  g_hash_table_unref (engine->nodes);
  g_mutex_clear (&engine->lock);
  g_mutex_clear (&engine->hook_lock);
  g_free (engine->root);
  zkr_session_unref (engine->session);
  g_free (engine);
}

static CacheNode *
node_new (ZkrCacheEngine *engine, const char *path, guint depth)
{
  CacheNode *node = g_new0 (CacheNode, 1);

  node->path = g_strdup (path);
  node->depth = depth;
  node->children = g_hash_table_new (g_str_hash, g_str_equal);
  g_mutex_lock (&engine->lock);
  g_hash_table_insert (engine->nodes, node->path, node);
  g_mutex_unlock (&engine->lock);
  return node;
}

/* Worker: hands one event to the owner, unless it stopped listening. */
static void
engine_emit (ZkrCacheEngine *engine, ZkrTreeCacheEventType type, const CacheNode *node)
{
  ZkrTreeCacheEvent event = { .type = type };

  if (node != NULL)
    {
      event.path = node->path;
      event.data = node->data;
      event.stat = node->stat;
    }
  g_mutex_lock (&engine->hook_lock);
  if (engine->hook != NULL)
    engine->hook (&event, engine->hook_data);
  g_mutex_unlock (&engine->hook_lock);
}

/* ---- watches ------------------------------------------------------ */

/* The watch's data read, then its listing (below the maximum depth). */
enum { WATCH_READ_DATA, WATCH_READ_CHILDREN };

static void
watch_free (CacheWatch *watch)
{
  engine_unref (watch->engine);
  g_free (watch->path);
  g_free (watch);
}

static void
node_unwatch (ZkrCacheEngine *engine, CacheNode *node)
{
  CacheWatch *watch = g_steal_pointer (&node->watch);

  if (watch != NULL)
    zkr__watches_remove (engine->session, watch->id); /* frees it */
}

static gboolean
node_lists_children (const ZkrCacheEngine *engine, const CacheNode *node)
{
  return engine->max_depth < 0 || node->depth < (guint) engine->max_depth;
}

static void node_judge_data (ZkrCacheEngine *engine, CacheNode *node, const char *path,
                             ZkrReply *reply, gboolean answered);
static void node_judge_children (ZkrCacheEngine *engine, CacheNode *node, ZkrReply *reply,
                                 gboolean deep);
static void engine_check_initialized (ZkrCacheEngine *engine);
static void node_refresh (ZkrCacheEngine *engine, CacheNode *node, gboolean deep);

/* Worker, or in its place: a read that the node's watch sent as an event
 * arrived (any event: data, children, created, deleted; each read sets
 * ZooKeeper's one-shot watch again) came back. Judged like any read; the
 * watch, and the node with it, may go meanwhile. */
static void
watch_answered (ZkrSession *session, int event_type, guint index, ZkrReply *reply,
                gpointer user_data)
{
  CacheWatch *watch = user_data;
  ZkrCacheEngine *engine = engine_ref (watch->engine);
  g_autofree char *path = g_strdup (watch->path);
  CacheNode *node = engine->stopped ? NULL : g_hash_table_lookup (engine->nodes, path);

  (void) session;
  (void) event_type;
  if (node != NULL && node->watch == watch)
    {
      if (index == WATCH_READ_DATA)
        node_judge_data (engine, node, path, reply, TRUE);
      else
        node_judge_children (engine, node, reply, FALSE);
    }
  engine_check_initialized (engine);
  engine_unref (engine);
}

/* Registered before the node's first read leaves, and kept until the node
 * goes (the root's for good): its events are answered with the node's
 * reads right where they arrive, and the replies run in place when they
 * can, so a change reaches the hub without waking the worker. */
static void
node_watch (ZkrCacheEngine *engine, CacheNode *node)
{
  ZkrWatchRead reads[] = {
    [WATCH_READ_DATA] = { ZKR_WATCH_READ_GET, NULL, TRUE },
    [WATCH_READ_CHILDREN] = { ZKR_WATCH_READ_CHILDREN, NULL, TRUE },
  };
  g_autofree char *full = NULL;

  if (node->watch != NULL)
    return;
  full = zkr__session_resolve_path (engine->session, node->path);
  node->watch = g_new0 (CacheWatch, 1);
  node->watch->engine = engine_ref (engine);
  node->watch->path = g_strdup (node->path);
  node->watch->id = zkr__watches_add_reads (engine->session, full, reads,
                                                  node_lists_children (engine, node) ? 2 : 1,
                                                  ZKR_WAKE_IN_PLACE, watch_answered, node->watch,
                                                  (GDestroyNotify) watch_free);
}

/* ---- removal ------------------------------------------------------ */

/* Worker: @node and everything under it leave the cache, children first,
 * each live one reported REMOVED. The root stays as a node not live. */
static void
node_remove (ZkrCacheEngine *engine, CacheNode *node)
{
  GList *children = g_hash_table_get_values (node->children);

  for (GList *l = children; l != NULL; l = l->next)
    node_remove (engine, l->data);
  g_list_free (children);
  if (node->live)
    engine_emit (engine, ZKR_TREE_CACHE_NODE_REMOVED, node);
  if (node->depth == 0)
    {
      g_mutex_lock (&engine->lock);
      node->live = FALSE;
      g_clear_pointer (&node->data, g_bytes_unref);
      memset (&node->stat, 0, sizeof node->stat);
      g_mutex_unlock (&engine->lock);
      return;
    }
  node_unwatch (engine, node);
  {
    g_autofree char *parent_path = zkr__path_parent (node->path);
    CacheNode *parent = g_hash_table_lookup (engine->nodes, parent_path);

    g_mutex_lock (&engine->lock);
    if (parent != NULL)
      g_hash_table_remove (parent->children, zkr__path_basename (node->path));
    g_hash_table_remove (engine->nodes, node->path);
    g_mutex_unlock (&engine->lock);
  }
}

/* ---- reads -------------------------------------------------------- */

static void engine_resync (ZkrCacheEngine *engine);

static gboolean
resync_pause_done (gpointer data)
{
  ZkrCacheEngine *engine = data;

  engine->pause.timer = 0;
  if (!engine->stopped && zkr_session_is_connected (engine->session))
    engine_resync (engine);
  return G_SOURCE_REMOVE;
}

/* Worker: a read failed for a reason other than a missing node: what it
 * was to tell is in doubt until everything is read again. That happens at
 * the next (RE)CONNECTED; on a live connection (throttled, session moved)
 * after a resend pause. */
static void
engine_read_failed (ZkrCacheEngine *engine, int rc)
{
  engine->in_doubt = TRUE;
  zkr__debug ("cache %s: read failed (%s), in doubt", engine->root, zerror (rc));
  if (rc != ZCONNECTIONLOSS && rc != ZSESSIONEXPIRED && rc != ZCLOSING &&
      !zkr__resend_pause_is_pending (&engine->pause) &&
      zkr_session_is_connected (engine->session))
    zkr__resend_pause_start (&engine->pause, engine->session, resync_pause_done, engine);
}

/* Worker: after each answer (a watch's reads are not counted: they follow
 * a change after the first read of the node). Once nothing is pending and nothing is in
 * doubt, the first full read is over. */
static void
engine_check_initialized (ZkrCacheEngine *engine)
{
  if (engine->stopped || engine->initialized || engine->outstanding > 0 || engine->in_doubt)
    return;
  engine->initialized = TRUE;
  engine_emit (engine, ZKR_TREE_CACHE_INITIALIZED, NULL);
}

static void
engine_read_done (ZkrCacheEngine *engine)
{
  engine->outstanding--;
  engine_check_initialized (engine);
}

static CacheRead *
read_new (ZkrCacheEngine *engine, const char *path, gboolean deep)
{
  CacheRead *read = g_new0 (CacheRead, 1);

  read->engine = engine_ref (engine);
  read->path = g_strdup (path);
  read->deep = deep;
  engine->outstanding++;
  return read;
}

static void
read_free (CacheRead *read)
{
  engine_unref (read->engine);
  g_free (read->path);
  g_free (read);
}

static void root_rearm (ZkrCacheEngine *engine, CacheNode *root);

/* Worker, or in its place (ZOK only): the node's data, read at @path (not
 * the node's: @node may go here). Decides ADDED / UPDATED / REMOVED: by
 * czxid (another node of the same name: REMOVED, then ADDED) and mzxid (a
 * read returning what is cached reports nothing). */
static void
node_judge_data (ZkrCacheEngine *engine, CacheNode *node, const char *path, ZkrReply *reply,
                 gboolean answered)
{
  ZkrStat stat;
  ZkrTreeCacheEventType type = ZKR_TREE_CACHE_NODE_UPDATED;
  gboolean report = TRUE;
  gboolean replaced = FALSE;

  if (reply->rc == ZNONODE && node->depth > 0)
    node_remove (engine, node); /* frees it */
  else if (reply->rc == ZNONODE)
    {
      node_remove (engine, node);
      /* The root's watch sent no exists (a data read is all a change
       * needs): one now leaves the creation watch a get could not. */
      if (answered)
        root_rearm (engine, node);
    }
  if (reply->rc == ZNONODE)
    return;
  if (reply->rc != ZOK)
    {
      engine_read_failed (engine, reply->rc);
      return;
    }
  zkr__node_result_stat_copy (&stat, &reply->stat);
  if (node->live && node->stat.czxid != stat.czxid)
    {
      /* A non-root node leaves the map (and is freed) here. */
      replaced = node->depth > 0;
      node_remove (engine, node);
    }
  if (!replaced)
    {
      if (!node->live)
        type = ZKR_TREE_CACHE_NODE_ADDED;
      else if (node->stat.mzxid == stat.mzxid)
        report = FALSE;
      g_mutex_lock (&engine->lock);
      if (report)
        {
          g_clear_pointer (&node->data, g_bytes_unref);
          node->data = reply->data != NULL ? g_bytes_ref (reply->data) : g_bytes_new (NULL, 0);
        }
      node->stat = stat;
      node->live = TRUE;
      g_mutex_unlock (&engine->lock);
      if (report)
        engine_emit (engine, type, node);
    }
  else
    {
      /* A non-root node removed for its new czxid left the map: it is
       * read again as a new node. */
      g_autofree char *parent_path = zkr__path_parent (path);
      CacheNode *parent = g_hash_table_lookup (engine->nodes, parent_path);

      if (parent != NULL && parent->live)
        {
          CacheNode *fresh = node_new (engine, path, parent->depth + 1);

          g_mutex_lock (&engine->lock);
          g_hash_table_insert (parent->children, (char *) zkr__path_basename (fresh->path), fresh);
          g_mutex_unlock (&engine->lock);
          node_refresh (engine, fresh, TRUE);
        }
    }
}

static void
data_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  CacheRead *read = user_data;
  ZkrCacheEngine *engine = read->engine;
  CacheNode *node = engine->stopped ? NULL : g_hash_table_lookup (engine->nodes, read->path);

  (void) session;
  /* No node: gone since (a later listing dropped it), this answer is older. */
  if (node != NULL)
    node_judge_data (engine, node, read->path, reply, FALSE);
  engine_read_done (engine);
  read_free (read);
}

static gboolean
names_contain (GPtrArray *names, const char *name)
{
  for (guint i = 0; i < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      return TRUE;
  return FALSE;
}

/* Worker: @node's children as listed now: those gone leave, new ones are
 * read (and reported once their data is in); a resync reads the others
 * again too. */
static void
node_apply_listing (ZkrCacheEngine *engine, CacheNode *node, GPtrArray *names, gboolean deep)
{
  GList *cached = g_hash_table_get_values (node->children);

  for (GList *l = cached; l != NULL; l = l->next)
    {
      CacheNode *child = l->data;

      if (!names_contain (names, zkr__path_basename (child->path)))
        node_remove (engine, child);
      else if (deep)
        node_refresh (engine, child, TRUE);
    }
  g_list_free (cached);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *path = NULL;
      CacheNode *child;

      if (g_hash_table_contains (node->children, name))
        continue;
      path = zkr__path_join (node->path, name);
      child = node_new (engine, path, node->depth + 1);
      g_mutex_lock (&engine->lock);
      g_hash_table_insert (node->children, (char *) zkr__path_basename (child->path), child);
      g_mutex_unlock (&engine->lock);
      node_refresh (engine, child, TRUE);
    }
}

/* Worker, or in its place (ZOK only): @node's listing. */
static void
node_judge_children (ZkrCacheEngine *engine, CacheNode *node, ZkrReply *reply, gboolean deep)
{
  if (reply->rc == ZNONODE)
    node_remove (engine, node);
  else if (reply->rc != ZOK)
    engine_read_failed (engine, reply->rc);
  else if (node->live)
    node_apply_listing (engine, node, reply->children, deep);
  /* else: the root, created after its data read said no node; its
   * creation event reads it again. */
}

static void
children_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  CacheRead *read = user_data;
  ZkrCacheEngine *engine = read->engine;
  CacheNode *node = engine->stopped ? NULL : g_hash_table_lookup (engine->nodes, read->path);

  (void) session;
  if (node != NULL)
    node_judge_children (engine, node, reply, read->deep);
  engine_read_done (engine);
  read_free (read);
}

/* Worker, or in its place (ZOK only). An exists sent alone after a data
 * read found no root that finds one now came after its creation, whose
 * event went to nobody: the root is read again. */
static void
exists_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  CacheRead *read = user_data;
  ZkrCacheEngine *engine = read->engine;
  CacheNode *root = engine->stopped ? NULL : g_hash_table_lookup (engine->nodes, engine->root);

  (void) session;
  if (root != NULL && reply->rc != ZOK && reply->rc != ZNONODE)
    engine_read_failed (engine, reply->rc);
  else if (root != NULL && reply->rc == ZOK && read->rearm && !root->live)
    node_refresh (engine, root, TRUE);
  engine_read_done (engine);
  read_free (read);
}

static void
root_rearm (ZkrCacheEngine *engine, CacheNode *root)
{
  g_autofree char *full = zkr__session_resolve_path (engine->session, root->path);
  CacheRead *read = read_new (engine, root->path, TRUE);

  read->rearm = TRUE;
  zkr__op_exists (engine->session, full, TRUE, exists_reply, read);
}

/* Worker, or in its place: reads @node with watches, its watch registered
 * before the requests leave. The root is also watched with exists, whose
 * watch outlives its absence (a data read of a missing node leaves none).
 * The replies run in place when they can (ZOK only: all they do then is
 * judge, send reads and queue events for the hub). */
static void
node_refresh (ZkrCacheEngine *engine, CacheNode *node, gboolean deep)
{
  g_autofree char *full = zkr__session_resolve_path (engine->session, node->path);

  node_watch (engine, node);
  if (node->depth == 0)
    zkr__op_exists (engine->session, full, TRUE, exists_reply, read_new (engine, node->path, deep));
  zkr__op_get_full (engine->session, full, TRUE, ZKR_WAKE_IN_PLACE, data_reply,
                    read_new (engine, node->path, deep));
  if (node_lists_children (engine, node))
    zkr__op_get_children_full (engine->session, full, TRUE, ZKR_WAKE_IN_PLACE, children_reply,
                               read_new (engine, node->path, deep));
}

/* Worker: reads the whole subtree again; the differences are reported. */
static void
engine_resync (ZkrCacheEngine *engine)
{
  zkr__resend_pause_stop (&engine->pause, FALSE);
  engine->in_doubt = FALSE;
  engine->was_connected = TRUE;
  node_refresh (engine, g_hash_table_lookup (engine->nodes, engine->root), TRUE);
}

/* Worker: a new session has none of the old one's watches. */
static void
engine_drop_watches (ZkrCacheEngine *engine)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, engine->nodes);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    node_unwatch (engine, value);
}

static void
engine_on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  ZkrCacheEngine *engine = user_data;

  (void) session;
  switch (state)
    {
    case ZKR_SESSION_STATE_SUSPENDED:
      engine_emit (engine, ZKR_TREE_CACHE_CONNECTION_SUSPENDED, NULL);
      break;
    case ZKR_SESSION_STATE_LOST:
      engine_drop_watches (engine);
      engine_emit (engine, ZKR_TREE_CACHE_CONNECTION_LOST, NULL);
      break;
    case ZKR_SESSION_STATE_RECONNECTED:
    case ZKR_SESSION_STATE_CONNECTED:
      /* A session's first CONNECTED is no reconnection (Curator reports
       * the new session after LOST as RECONNECTED too). */
      if (engine->was_connected)
        engine_emit (engine, ZKR_TREE_CACHE_CONNECTION_RECONNECTED, NULL);
      engine_resync (engine);
      break;
    case ZKR_SESSION_STATE_CLOSED:
      {
        ZkrTreeCacheEvent event = { .type = ZKR_CACHE_EVENT_SESSION_CLOSED };

        g_mutex_lock (&engine->hook_lock);
        if (engine->hook != NULL)
          engine->hook (&event, engine->hook_data);
        g_mutex_unlock (&engine->hook_lock);
      }
      break;
    default:
      break;
    }
}

static gboolean
engine_start_in_worker (gpointer data)
{
  ZkrCacheEngine *engine = data;

  if (engine->stopped)
    return G_SOURCE_REMOVE;
  /* The listener and the state read happen on the worker, where states
   * change: no transition falls between them. */
  engine->listener_id = zkr__session_add_internal_listener (engine->session, engine_on_state, engine);
  if (zkr_session_get_state (engine->session) == ZKR_SESSION_STATE_CLOSED)
    engine_on_state (engine->session, ZKR_SESSION_STATE_CLOSED, engine);
  else if (zkr_session_is_connected (engine->session))
    engine_resync (engine);
  return G_SOURCE_REMOVE;
}

static gboolean
engine_stop_in_worker (gpointer data)
{
  ZkrCacheEngine *engine = data;

  engine->stopped = TRUE;
  if (engine->listener_id != 0)
    zkr__session_remove_internal_listener (engine->session, engine->listener_id);
  engine->listener_id = 0;
  zkr__resend_pause_stop (&engine->pause, TRUE);
  engine_drop_watches (engine);
  return G_SOURCE_REMOVE;
}

ZkrCacheEngine *
zkr__cache_engine_new (ZkrSession *session, const char *path, int max_depth,
                       ZkrCacheHookFunc hook, gpointer hook_data)
{
  ZkrCacheEngine *engine = g_new0 (ZkrCacheEngine, 1);

  g_atomic_ref_count_init (&engine->ref);
  g_mutex_init (&engine->lock);
  g_mutex_init (&engine->hook_lock);
  engine->session = zkr_session_ref (session);
  engine->root = g_strdup (path);
  engine->max_depth = max_depth;
  engine->hook = hook;
  engine->hook_data = hook_data;
  engine->nodes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, node_free);
  engine->pause.session = engine->session;
  node_new (engine, path, 0);
  return engine;
}

void
zkr__cache_engine_start (ZkrCacheEngine *engine)
{
  zkr__session_post (engine->session, engine_start_in_worker, engine_ref (engine),
                     (GDestroyNotify) engine_unref);
}

void
zkr__cache_engine_stop (ZkrCacheEngine *engine)
{
  g_mutex_lock (&engine->hook_lock);
  engine->hook = NULL;
  g_mutex_unlock (&engine->hook_lock);
  zkr__session_post (engine->session, engine_stop_in_worker, engine,
                     (GDestroyNotify) engine_unref);
}

GBytes *
zkr__cache_engine_get_data (ZkrCacheEngine *engine, const char *path, ZkrStat *stat)
{
  GBytes *data = NULL;
  CacheNode *node;

  g_mutex_lock (&engine->lock);
  node = g_hash_table_lookup (engine->nodes, path);
  if (node != NULL && node->live)
    {
      data = g_bytes_ref (node->data);
      if (stat != NULL)
        *stat = node->stat;
    }
  g_mutex_unlock (&engine->lock);
  return data;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char **
zkr__cache_engine_get_children (ZkrCacheEngine *engine, const char *path)
{
  GPtrArray *names = NULL;
  CacheNode *node;

  g_mutex_lock (&engine->lock);
  node = g_hash_table_lookup (engine->nodes, path);
  if (node != NULL && node->live)
    {
      GHashTableIter iter;
      gpointer key, value;

      names = g_ptr_array_new ();
      g_hash_table_iter_init (&iter, node->children);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (((CacheNode *) value)->live)
          g_ptr_array_add (names, g_strdup (key));
    }
  g_mutex_unlock (&engine->lock);
  if (names == NULL)
    return NULL;
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

guint
zkr__cache_engine_count (ZkrCacheEngine *engine)
{
  GHashTableIter iter;
  gpointer value;
  guint count = 0;

  g_mutex_lock (&engine->lock);
  g_hash_table_iter_init (&iter, engine->nodes);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    count += ((CacheNode *) value)->live ? 1 : 0;
  g_mutex_unlock (&engine->lock);
  return count;
}
