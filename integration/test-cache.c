/* zkr integration: the node cache and the tree cache against the real
 * ensemble: the first read, every event kind, depth, bursts of writes,
 * a killed member, an expired session, a node re-created unseen, close
 * and unref from a listener, bad input and the wait's deadline. */
#include <string.h>

#include "context.h"
#include "itest.h"
#include "proxy.h"
#include "zkr-test.h"

#define WAIT_MS 20000
#define CALL_MS 10000

/* ---- the event log: every event, checked against a model ---------- */

typedef struct {
  int type;
  char *path;
  char *data;
  gint64 mzxid;
  gint64 czxid;
} Seen;

typedef struct {
  GMutex lock;
  GCond cond;
  GPtrArray *seen;        /* of Seen */
  GHashTable *model;      /* path -> Seen (borrowed): replay of the events */
  guint violations;       /* an ADDED of a known node, an UPDATED or REMOVED of an unknown one,
                           * an UPDATED that does not move mzxid */
  guint initialized;
  gboolean destroyed;
  GThread *thread;        /* where the listener ran, NULL if anywhere else too */
  gboolean wrong_thread;
  ItestLoopThread loop;
  ZkrTreeCache *close_on_first;  /* close this one at the first event */
  ZkrTreeCache *unref_on_first;  /* drop this reference at the first event */
  guint after_close;             /* events after the listener closed the cache */
  gboolean closed;
} Log;

static void
seen_free (gpointer data)
{
  Seen *seen = data;

  g_free (seen->path);
  g_free (seen->data);
  g_free (seen);
}

static void
log_record (Log *log, int type, const char *path, GBytes *data, const ZkrStat *stat)
{
  Seen *seen = g_new0 (Seen, 1);
  Seen *known;

  seen->type = type;
  seen->path = g_strdup (path);
  if (data != NULL)
    seen->data = g_strndup (g_bytes_get_data (data, NULL), g_bytes_get_size (data));
  seen->mzxid = stat->mzxid;
  seen->czxid = stat->czxid;
  g_mutex_lock (&log->lock);
  if (log->thread == NULL)
    log->thread = g_thread_self ();
  else if (log->thread != g_thread_self ())
    log->wrong_thread = TRUE;
  g_ptr_array_add (log->seen, seen);
  known = path != NULL ? g_hash_table_lookup (log->model, path) : NULL;
  if (type == ZKR_TREE_CACHE_NODE_ADDED)
    {
      log->violations += known != NULL;
      g_hash_table_insert (log->model, seen->path, seen);
    }
  else if (type == ZKR_TREE_CACHE_NODE_UPDATED)
    {
      log->violations += known == NULL || known->mzxid >= seen->mzxid;
      g_hash_table_insert (log->model, seen->path, seen);
    }
  else if (type == ZKR_TREE_CACHE_NODE_REMOVED)
    {
      log->violations += known == NULL;
      g_hash_table_remove (log->model, path);
    }
  else if (type == ZKR_TREE_CACHE_INITIALIZED)
    log->initialized++;
  g_cond_broadcast (&log->cond);
  g_mutex_unlock (&log->lock);
}

static void
on_tree_event (ZkrTreeCache *cache, const ZkrTreeCacheEvent *event, gpointer user_data)
{
  Log *log = user_data;

  if (log->closed)
    log->after_close++;
  log_record (log, event->type, event->path, event->data, &event->stat);
  if (log->close_on_first == cache)
    {
      log->close_on_first = NULL;
      log->closed = TRUE;
      zkr_tree_cache_close (cache);
    }
  if (log->unref_on_first == cache)
    {
      log->unref_on_first = NULL;
      log->closed = TRUE;
      zkr_tree_cache_unref (cache);
    }
}

static void
on_node_event (ZkrNodeCache *cache, const ZkrNodeCacheEvent *event, gpointer user_data)
{
  (void) cache;
  /* The node cache's types are the tree cache's, renamed. */
  log_record (user_data, event->type, event->data != NULL ? "node" : NULL, event->data,
              &event->stat);
}

static void
on_destroy (gpointer data)
{
  Log *log = data;

  g_mutex_lock (&log->lock);
  log->destroyed = TRUE;
  g_cond_broadcast (&log->cond);
  g_mutex_unlock (&log->lock);
}

static void
log_init (Log *log)
{
  memset (log, 0, sizeof *log);
  g_mutex_init (&log->lock);
  g_cond_init (&log->cond);
  log->seen = g_ptr_array_new_with_free_func (seen_free);
  log->model = g_hash_table_new (g_str_hash, g_str_equal);
  itest_loop_thread_init (&log->loop);
}

/* The listener is added with the log's context thread-default, before the
 * log's thread starts running that context. */
static void
log_listen_begin (Log *log)
{
  g_assert (log->loop.thread == NULL);
  g_main_context_push_thread_default (log->loop.context);
}

static void
log_listen_end (Log *log)
{
  g_main_context_pop_thread_default (log->loop.context);
  itest_loop_thread_start (&log->loop, "cache-listener");
}

static void
log_listen_tree (Log *log, ZkrTreeCache *cache)
{
  log_listen_begin (log);
  zkr_tree_cache_add_listener (cache, on_tree_event, log, on_destroy);
  log_listen_end (log);
}

static void
log_clear (Log *log)
{
  if (log->loop.thread != NULL)
    itest_loop_thread_stop (&log->loop, NULL, NULL);
  g_hash_table_unref (log->model);
  g_ptr_array_unref (log->seen);
  g_mutex_clear (&log->lock);
  g_cond_clear (&log->cond);
}

static guint
log_count_locked (Log *log, int type, const char *path)
{
  guint count = 0;

  for (guint i = 0; i < log->seen->len; i++)
    {
      Seen *seen = g_ptr_array_index (log->seen, i);

      if (seen->type == type && (path == NULL || g_strcmp0 (seen->path, path) == 0))
        count++;
    }
  return count;
}

static guint
log_count (Log *log, int type, const char *path)
{
  guint count;

  g_mutex_lock (&log->lock);
  count = log_count_locked (log, type, path);
  g_mutex_unlock (&log->lock);
  return count;
}

/* TRUE once @type was seen @times times for @path (NULL: any). */
static gboolean
log_wait (Log *log, int type, const char *path, guint times)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  gboolean ok;

  g_mutex_lock (&log->lock);
  while (!(ok = log_count_locked (log, type, path) >= times))
    if (!g_cond_wait_until (&log->cond, &log->lock, deadline))
      {
        ok = log_count_locked (log, type, path) >= times;
        break;
      }
  g_mutex_unlock (&log->lock);
  return ok;
}

/* The position of the first @type event of @path, -1 if none. */
static int
log_index (Log *log, int type, const char *path, int from)
{
  int found = -1;

  g_mutex_lock (&log->lock);
  for (guint i = (guint) MAX (from, 0); i < log->seen->len && found < 0; i++)
    {
      Seen *seen = g_ptr_array_index (log->seen, i);

      if (seen->type == type && g_strcmp0 (seen->path, path) == 0)
        found = (int) i;
    }
  g_mutex_unlock (&log->lock);
  return found;
}

/* ---- comparing a cache with the server -------------------------- */

typedef struct {
  ZkrTreeCache *cache;
  ZkrSession *direct;
  const char *root;
  int max_depth;
  Log *log;            /* (nullable) its model must match too */
  char *difference;    /* the last one found */
} Compare;

static gboolean
compare_node (Compare *c, const char *path, int depth, guint *count)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) on_server = NULL;
  g_autoptr (GBytes) cached = NULL;
  g_auto (GStrv) server_children = NULL;
  g_auto (GStrv) cached_children = NULL;
  ZkrStat server_stat, cached_stat;

  on_server = zkr_node_get (c->direct, path, CALL_MS, NULL, &server_stat, &error);
  cached = zkr_tree_cache_get_data (c->cache, path, &cached_stat);
  if (on_server == NULL || cached == NULL)
    {
      if ((on_server == NULL) != (cached == NULL))
        {
          g_free (c->difference);
          c->difference = g_strdup_printf ("%s: on the server %d, cached %d", path,
                                           on_server != NULL, cached != NULL);
          return FALSE;
        }
      return TRUE;
    }
  (*count)++;
  if (!g_bytes_equal (on_server, cached) || server_stat.version != cached_stat.version ||
      server_stat.mzxid != cached_stat.mzxid || server_stat.czxid != cached_stat.czxid)
    {
      g_free (c->difference);
      c->difference = g_strdup_printf ("%s: data or version differ (server v%d, cache v%d)", path,
                                       server_stat.version, cached_stat.version);
      return FALSE;
    }
  if (c->log != NULL)
    {
      Seen *seen;
      gboolean same;

      g_mutex_lock (&c->log->lock);
      seen = g_hash_table_lookup (c->log->model, path);
      same = seen != NULL && seen->mzxid == server_stat.mzxid;
      g_mutex_unlock (&c->log->lock);
      if (!same)
        {
          g_free (c->difference);
          c->difference = g_strdup_printf ("%s: the events tell another version", path);
          return FALSE;
        }
    }
  if (c->max_depth >= 0 && depth >= c->max_depth)
    return TRUE;
  server_children = zkr_node_get_children (c->direct, path, CALL_MS, NULL, NULL, NULL);
  cached_children = zkr_tree_cache_get_children (c->cache, path);
  if (server_children == NULL || cached_children == NULL ||
      !g_strv_equal ((const char *const *) server_children, (const char *const *) cached_children))
    {
      g_free (c->difference);
      c->difference = g_strdup_printf ("%s: children differ", path);
      return FALSE;
    }
  for (guint i = 0; server_children[i] != NULL; i++)
    {
      g_autofree char *child = g_strdup_printf ("%s/%s", path, server_children[i]);

      if (!compare_node (c, child, depth + 1, count))
        return FALSE;
    }
  return TRUE;
}

static gboolean
cache_equals_server (gpointer data)
{
  Compare *c = data;
  guint count = 0;
  guint modelled = 0;

  if (!compare_node (c, c->root, 0, &count))
    return FALSE;
  if (c->log != NULL)
    {
      g_mutex_lock (&c->log->lock);
      modelled = g_hash_table_size (c->log->model);
      g_mutex_unlock (&c->log->lock);
    }
  if (zkr_tree_cache_count (c->cache) != count || (c->log != NULL && modelled != count))
    {
      g_free (c->difference);
      c->difference = g_strdup_printf ("%u nodes on the server, %u cached, %u in the events", count,
                                       zkr_tree_cache_count (c->cache), modelled);
      return FALSE;
    }
  return TRUE;
}

static void
assert_equal_soon (ZkrTreeCache *cache, ZkrSession *direct, const char *root, int max_depth,
                   Log *log)
{
  Compare c = { cache, direct, root, max_depth, log, NULL };
  gboolean equal = itest_wait_for (cache_equals_server, &c, WAIT_MS);

  if (!equal)
    g_printerr ("cache differs: %s\n", c.difference);
  CU_ASSERT_TRUE (equal);
  g_free (c.difference);
}

/* ---- helpers ------------------------------------------------------ */

static void
make (ZkrSession *session, const char *path, const char *data)
{
  CU_ASSERT_TRUE (zkr_node_create (session, path, data, strlen (data), ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL, NULL, NULL));
}

static void
put (ZkrSession *session, const char *path, const char *data)
{
  CU_ASSERT_TRUE (zkr_node_set (session, path, data, strlen (data), -1, CALL_MS, NULL, NULL, NULL));
}

static char *
sub (const char *root, const char *rest)
{
  return g_strdup_printf ("%s/%s", root, rest);
}

static void
make_sub (ZkrSession *session, const char *root, const char *rest, const char *data)
{
  g_autofree char *path = sub (root, rest);

  make (session, path, data);
}

static void
finish_root (ZkrSession *session, const char *root)
{
  CU_ASSERT_TRUE (itest_delete_tree (session, root));
  CU_ASSERT_TRUE (itest_node_absent (session, root));
}

static ZkrTreeCache *
started_cache (ZkrSession *session, const char *root, int max_depth, Log *log)
{
  g_autoptr (GError) error = NULL;
  ZkrTreeCache *cache = zkr_tree_cache_new (session, root, max_depth, &error);

  CU_ASSERT_PTR_NOT_NULL_FATAL (cache);
  log_listen_tree (log, cache);
  CU_ASSERT_TRUE (zkr_tree_cache_start (cache, &error));
  CU_ASSERT_TRUE (zkr_tree_cache_wait_initialized (cache, WAIT_MS, NULL, &error));
  return cache;
}

/* Random creates, sets and deletes in a 3-level tree under @root. */
static void
random_writes (ZkrSession *session, const char *root, guint count, GRand *rand)
{
  for (guint i = 0; i < count; i++)
    {
      g_autofree char *path = NULL;
      g_autofree char *data = g_strdup_printf ("w%u", i);
      guint depth = (guint) g_rand_int_range (rand, 1, 4);
      GString *p = g_string_new (root);

      for (guint d = 0; d < depth; d++)
        g_string_append_printf (p, "/n%d", g_rand_int_range (rand, 0, 3));
      path = g_string_free (p, FALSE);
      switch (g_rand_int_range (rand, 0, 3))
        {
        case 0:
          (void) zkr_node_create (session, path, data, strlen (data), ZKR_CREATE_PERSISTENT,
                                  ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL, NULL, NULL);
          break;
        case 1:
          (void) zkr_node_set (session, path, data, strlen (data), -1, CALL_MS, NULL, NULL, NULL);
          break;
        default:
          (void) zkr_node_delete (session, path, -1, CALL_MS, NULL, NULL);
          break;
        }
    }
}

/* ---- tests -------------------------------------------------------- */

static void
test_cache__initial_load_reports_every_node_then_initialized_once (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-load");
  g_autofree char *a = sub (root, "a");
  g_autofree char *ax = sub (root, "a/x");
  g_autofree char *b = sub (root, "b");
  g_auto (GStrv) children = NULL;
  g_autoptr (GBytes) data = NULL;
  ZkrTreeCache *cache;
  Log log;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  log_init (&log);
  make (session, ax, "ax");
  make (session, b, "b");
  put (session, a, "a");
  cache = started_cache (session, root, -1, &log);
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_INITIALIZED, NULL, 1));
  CU_ASSERT_EQUAL (log_count (&log, ZKR_TREE_CACHE_NODE_ADDED, NULL), 4);
  /* Parents before children, all before INITIALIZED. */
  CU_ASSERT_TRUE (log_index (&log, ZKR_TREE_CACHE_NODE_ADDED, root, 0) <
                  log_index (&log, ZKR_TREE_CACHE_NODE_ADDED, a, 0));
  CU_ASSERT_TRUE (log_index (&log, ZKR_TREE_CACHE_NODE_ADDED, a, 0) <
                  log_index (&log, ZKR_TREE_CACHE_NODE_ADDED, ax, 0));
  CU_ASSERT_EQUAL (log_index (&log, ZKR_TREE_CACHE_INITIALIZED, NULL, 0), 4);
  children = zkr_tree_cache_get_children (cache, root);
  CU_ASSERT_TRUE_FATAL (children != NULL && g_strv_length (children) == 2);
  CU_ASSERT_STRING_EQUAL (children[0], "a");
  CU_ASSERT_STRING_EQUAL (children[1], "b");
  data = zkr_tree_cache_get_data (cache, ax, NULL);
  CU_ASSERT_TRUE (data != NULL && g_bytes_get_size (data) == 2);
  make_sub (session, root, "c", "c");
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_ADDED, NULL, 5));
  assert_equal_soon (cache, session, root, -1, &log);
  CU_ASSERT_EQUAL (log_count (&log, ZKR_TREE_CACHE_INITIALIZED, NULL), 1);
  CU_ASSERT_EQUAL (log.violations, 0);
  CU_ASSERT_FALSE (log.wrong_thread);
  CU_ASSERT_TRUE (log.thread == log.loop.thread);
  zkr_tree_cache_unref (cache);
  log_clear (&log);
  CU_ASSERT_TRUE (log.destroyed);
  finish_root (session, root);
  zkr_session_unref (session);
}

/* The root deleted and created again is REMOVED then ADDED each time, never
 * an UPDATED (Curator's CURATOR-182/183). */
static void
test_cache__reports_added_updated_removed_and_the_root_coming_and_going (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-kinds");
  g_autofree char *c = sub (root, "c");
  g_autofree char *cy = sub (root, "c/y");
  ZkrTreeCache *cache;
  Log log;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  log_init (&log);
  /* The root does not exist yet: it is added when created. */
  cache = started_cache (session, root, -1, &log);
  CU_ASSERT_EQUAL (zkr_tree_cache_count (cache), 0);
  make (session, root, "r");
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_ADDED, root, 1));
  make (session, cy, "y");
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_ADDED, cy, 1));
  put (session, c, "changed");
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_UPDATED, c, 1));
  put (session, c, "changed");   /* the same data, a new version: still an update */
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_UPDATED, c, 2));
  CU_ASSERT_TRUE (zkr_node_delete (session, cy, -1, CALL_MS, NULL, NULL));
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_REMOVED, cy, 1));
  assert_equal_soon (cache, session, root, -1, &log);
  /* The root and its subtree go: children first. */
  make (session, cy, "y2");
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_ADDED, cy, 2));
  CU_ASSERT_TRUE (itest_delete_tree (session, root));
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_REMOVED, root, 1));
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_REMOVED, cy, 2));
  CU_ASSERT_TRUE (log_index (&log, ZKR_TREE_CACHE_NODE_REMOVED, cy, 0) >= 0);
  CU_ASSERT_EQUAL (zkr_tree_cache_count (cache), 0);
  make (session, root, "again");
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_ADDED, root, 2));
  assert_equal_soon (cache, session, root, -1, &log);
  CU_ASSERT_EQUAL (log.violations, 0);
  zkr_tree_cache_close (cache);
  zkr_tree_cache_close (cache);  /* idempotent */
  CU_ASSERT_PTR_NULL (zkr_tree_cache_get_data (cache, root, NULL));
  zkr_tree_cache_unref (cache);
  log_clear (&log);
  finish_root (session, root);
  zkr_session_unref (session);
}

static void
test_cache__max_depth_is_honoured (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-depth");
  g_autofree char *a = sub (root, "a");
  g_autofree char *ax = sub (root, "a/x");
  ZkrTreeCache *one, *zero;
  Log log1, log0;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  log_init (&log1);
  log_init (&log0);
  make (session, ax, "ax");
  one = started_cache (session, root, 1, &log1);
  zero = started_cache (session, root, 0, &log0);
  CU_ASSERT_EQUAL (zkr_tree_cache_count (one), 2);
  CU_ASSERT_EQUAL (zkr_tree_cache_count (zero), 1);
  CU_ASSERT_PTR_NULL (zkr_tree_cache_get_data (one, ax, NULL));
  make_sub (session, a, "z", "z");
  make_sub (session, root, "b", "b");
  CU_ASSERT_TRUE (log_wait (&log1, ZKR_TREE_CACHE_NODE_ADDED, NULL, 3));
  assert_equal_soon (one, session, root, 1, &log1);
  assert_equal_soon (zero, session, root, 0, &log0);
  CU_ASSERT_EQUAL (log_count (&log1, ZKR_TREE_CACHE_NODE_ADDED, NULL), 3);
  CU_ASSERT_EQUAL (log_count (&log0, ZKR_TREE_CACHE_NODE_ADDED, NULL), 1);
  zkr_tree_cache_unref (one);
  zkr_tree_cache_unref (zero);
  log_clear (&log1);
  log_clear (&log0);
  finish_root (session, root);
  zkr_session_unref (session);
}

/* Random creates, sets and deletes, nodes deleted and re-created in quick
 * succession among them: no second ADDED of a node (Curator's CURATOR-324),
 * and the events replayed equal the server's tree. */
static void
test_cache__burst_of_writes_ends_equal_to_the_server (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *writer = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-burst");
  g_autoptr (GRand) rand = g_rand_new_with_seed (22);
  ZkrTreeCache *cache;
  Log log;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (writer);
  log_init (&log);
  make (writer, root, "");
  cache = started_cache (session, root, -1, &log);
  random_writes (writer, root, 600, rand);
  assert_equal_soon (cache, writer, root, -1, &log);
  CU_ASSERT_EQUAL (log.violations, 0);
  zkr_tree_cache_unref (cache);
  log_clear (&log);
  finish_root (writer, root);
  zkr_session_unref (session);
  zkr_session_unref (writer);
}

static void
test_cache__killed_member_reconnects_and_resyncs (void)
{
  g_autofree char *followers = itest_followers_hosts ();
  ZkrSession *session = itest_connect (followers, 8000);
  ZkrSession *writer = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-kill");
  g_autofree char *host = NULL;
  g_autofree char *command = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  ZkrTreeCache *cache;
  guint server;
  Log log;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (writer);
  log_init (&log);
  make (writer, root, "");
  random_writes (writer, root, 60, rand);
  cache = started_cache (session, root, -1, &log);
  host = zkr_session_dup_connected_host (session);
  server = itest_server_index (host);
  CU_ASSERT_FATAL (server > 0);
  command = g_strdup_printf ("kill %u", server);
  CU_ASSERT_FATAL (itest_ensemble (command));
  random_writes (writer, root, 150, rand);
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_CONNECTION_RECONNECTED, NULL, 1));
  random_writes (writer, root, 50, rand);
  assert_equal_soon (cache, writer, root, -1, &log);
  CU_ASSERT_EQUAL (log.violations, 0);
  CU_ASSERT_EQUAL (log_count (&log, ZKR_TREE_CACHE_CONNECTION_SUSPENDED, NULL), 1);
  CU_ASSERT_EQUAL (log_count (&log, ZKR_TREE_CACHE_INITIALIZED, NULL), 1);
  g_free (command);
  command = g_strdup_printf ("restart %u", server);
  CU_ASSERT (itest_ensemble (command));
  zkr_tree_cache_unref (cache);
  log_clear (&log);
  finish_root (writer, root);
  zkr_session_unref (session);
  zkr_session_unref (writer);
}

static void
test_cache__expiry_resyncs_without_lost_or_duplicated_events (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 8000);
  ZkrSession *writer = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-expiry");
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  ZkrTreeCache *cache;
  Log log;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (writer);
  log_init (&log);
  make (writer, root, "");
  random_writes (writer, root, 80, rand);
  cache = started_cache (session, root, -1, &log);
  CU_ASSERT_TRUE (itest_expire_session (session));
  random_writes (writer, root, 100, rand);
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_CONNECTION_LOST, NULL, 1));
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_CONNECTION_RECONNECTED, NULL, 1));
  assert_equal_soon (cache, writer, root, -1, &log);
  /* The new session watches again: later writes still arrive. */
  random_writes (writer, root, 60, rand);
  assert_equal_soon (cache, writer, root, -1, &log);
  CU_ASSERT_EQUAL (log.violations, 0);
  zkr_tree_cache_unref (cache);
  log_clear (&log);
  finish_root (writer, root);
  zkr_session_unref (session);
  zkr_session_unref (writer);
}

/* Decided by czxid, not by the version, which restarts at 0 (Curator's
 * CURATOR-391, the same mistake in PathChildrenCache). Deleted and created
 * again while the cache's session could see nothing
 * (its link black-holed, the session expired meanwhile): NODE_REMOVED then
 * NODE_ADDED, never an UPDATED of what is another node. */
static void
test_cache__node_recreated_unseen_is_removed_then_added (void)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  ZkrSession *session, *writer = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-recreate");
  g_autofree char *c = sub (root, "c");
  ZkrTreeCache *cache;
  int removed, added;
  Log log;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  CU_ASSERT_PTR_NOT_NULL_FATAL (writer);
  address = zkr_test_proxy_dup_address (proxy);
  session = itest_connect (address, 6000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  log_init (&log);
  make (writer, c, "old");
  cache = started_cache (session, root, -1, &log);
  CU_ASSERT_TRUE (zkr_node_exists (session, "/", CALL_MS, NULL, NULL, NULL));
  zkr_test_proxy_blackhole (proxy);
  CU_ASSERT_TRUE (zkr_node_delete (writer, c, -1, CALL_MS, NULL, NULL));
  make (writer, c, "new");
  CU_ASSERT_TRUE (zkr__session_test_expire_once (session, itest_hosts ()));
  zkr_test_proxy_heal (proxy);
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_CONNECTION_LOST, NULL, 1));
  CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_NODE_ADDED, c, 2));
  assert_equal_soon (cache, writer, root, -1, &log);
  removed = log_index (&log, ZKR_TREE_CACHE_NODE_REMOVED, c, 0);
  added = log_index (&log, ZKR_TREE_CACHE_NODE_ADDED, c, removed + 1);
  CU_ASSERT_TRUE (removed > 0 && added > removed);
  CU_ASSERT_EQUAL (log_count (&log, ZKR_TREE_CACHE_NODE_UPDATED, c), 0);
  CU_ASSERT_EQUAL (log.violations, 0);
  zkr_tree_cache_unref (cache);
  log_clear (&log);
  zkr_session_unref (session);
  zkr_test_proxy_free (proxy);
  finish_root (writer, root);
  zkr_session_unref (writer);
}

static void
test_cache__node_cache_reports_created_changed_deleted (void)
{
  g_autoptr (GError) error = NULL;
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-node");
  ZkrNodeCache *cache;
  g_autoptr (GBytes) data = NULL;
  ZkrStat stat;
  Log log;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  log_init (&log);
  cache = zkr_node_cache_new (session, root, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (cache);
  log_listen_begin (&log);
  zkr_node_cache_add_listener (cache, on_node_event, &log, on_destroy);
  log_listen_end (&log);
  CU_ASSERT_TRUE (zkr_node_cache_start (cache, &error));
  CU_ASSERT_TRUE (zkr_node_cache_wait_initialized (cache, WAIT_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (zkr_node_cache_get_data (cache, NULL));
  make (session, root, "one");
  CU_ASSERT_TRUE (log_wait (&log, ZKR_NODE_CACHE_CREATED, NULL, 1));
  put (session, root, "two");
  CU_ASSERT_TRUE (log_wait (&log, ZKR_NODE_CACHE_CHANGED, NULL, 1));
  data = zkr_node_cache_get_data (cache, &stat);
  CU_ASSERT_TRUE (data != NULL && g_bytes_get_size (data) == 3 && stat.version == 1);
  /* A child is not the node cache's business. */
  make_sub (session, root, "kid", "k");
  CU_ASSERT_TRUE (itest_delete_tree (session, root));
  CU_ASSERT_TRUE (log_wait (&log, ZKR_NODE_CACHE_DELETED, NULL, 1));
  CU_ASSERT_EQUAL (log_count (&log, ZKR_NODE_CACHE_CHANGED, NULL), 1);
  CU_ASSERT_EQUAL (log_count (&log, ZKR_NODE_CACHE_INITIALIZED, NULL), 1);
  CU_ASSERT_EQUAL (log.violations, 0);
  zkr_node_cache_unref (cache);
  log_clear (&log);
  CU_ASSERT_TRUE (log.destroyed);
  CU_ASSERT_TRUE (itest_node_absent (session, root));
  zkr_session_unref (session);
}

/* ---- a node deleted and created again at a lower version ---------- */

/* Sets @path five times (version 5), waits for the cache to hold that
 * version, then deletes it and creates it again holding "reborn" (version
 * 0, a new czxid): another node, which a cache knowing nodes by version
 * alone would take for an older copy of the one it has. */
static void
set_five_times (ZkrSession *writer, const char *path)
{
  for (int i = 1; i <= 5; i++)
    {
      g_autofree char *data = g_strdup_printf ("v%d", i);

      put (writer, path, data);
    }
}

static void
delete_and_make_again (ZkrSession *writer, const char *path)
{
  CU_ASSERT_TRUE (zkr_node_delete (writer, path, -1, CALL_MS, NULL, NULL));
  make (writer, path, "reborn");
}

/* Since @from: @path's events are NODE_REMOVED then NODE_ADDED of the new
 * node (czxid @czxid, data "reborn"), and no UPDATED ever carries the new
 * node's czxid (it is not an update of the old one). */
static void
assert_removed_then_added (Log *log, const char *path, int from, gint64 czxid)
{
  int removed = log_index (log, ZKR_TREE_CACHE_NODE_REMOVED, path, from);
  int added = log_index (log, ZKR_TREE_CACHE_NODE_ADDED, path, removed + 1);
  gboolean updated_new = FALSE;
  Seen *last = NULL;

  CU_ASSERT_TRUE (removed >= from && added > removed);
  g_mutex_lock (&log->lock);
  for (guint i = (guint) MAX (from, 0); i < log->seen->len; i++)
    {
      Seen *seen = g_ptr_array_index (log->seen, i);

      if (g_strcmp0 (seen->path, path) != 0)
        continue;
      updated_new |= seen->type == ZKR_TREE_CACHE_NODE_UPDATED && seen->czxid == czxid;
      last = seen;
    }
  CU_ASSERT_FALSE (updated_new);
  CU_ASSERT_TRUE (last != NULL && last->type == ZKR_TREE_CACHE_NODE_ADDED &&
                  last->czxid == czxid && g_strcmp0 (last->data, "reborn") == 0);
  g_mutex_unlock (&log->lock);
}

static int
log_length (Log *log)
{
  int length;

  g_mutex_lock (&log->lock);
  length = (int) log->seen->len;
  g_mutex_unlock (&log->lock);
  return length;
}

/* @path's stat as the server has it, read by @direct (the writer). */
static ZkrStat
stat_on_server (ZkrSession *direct, const char *path)
{
  ZkrStat stat = { 0 };
  g_autoptr (GBytes) data = zkr_node_get (direct, path, CALL_MS, NULL, &stat, NULL);

  CU_ASSERT_PTR_NOT_NULL (data);
  return stat;
}

/* TRUE once the events told @path's change @mzxid. */
static gboolean
log_wait_mzxid (Log *log, const char *path, gint64 mzxid)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  gboolean ok = FALSE;
  Seen *seen;

  g_mutex_lock (&log->lock);
  while (!(ok = (seen = g_hash_table_lookup (log->model, path)) != NULL && seen->mzxid == mzxid))
    if (!g_cond_wait_until (&log->cond, &log->lock, deadline))
      break;
  g_mutex_unlock (&log->lock);
  return ok;
}

/* The tree cache, its child ROOT/c and (for a root re-created) ROOT
 * itself: deleted and made again at version 0 after five sets, while the
 * cache's session is connected or (@expire) while its link is black-holed
 * and the session expires: the cache ends with the new node (data,
 * version, czxid, as the server has it) and its events say REMOVED, then
 * ADDED. */
static void
tree_cache_recreated_at_a_lower_version (const char *name, gboolean expire, gboolean at_root)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  ZkrSession *session, *writer = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path (name);
  g_autofree char *top = sub (root, "top");
  g_autofree char *c = sub (top, "c");
  const char *target = at_root ? top : c;
  ZkrTreeCache *cache;
  int mark;
  Log log;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  CU_ASSERT_PTR_NOT_NULL_FATAL (writer);
  address = zkr_test_proxy_dup_address (proxy);
  session = itest_connect (address, 6000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  log_init (&log);
  make (writer, c, "old");
  cache = started_cache (session, top, -1, &log);
  set_five_times (writer, target);
  assert_equal_soon (cache, writer, top, -1, &log);
  mark = log_length (&log);
  if (expire)
    {
      CU_ASSERT_TRUE (zkr_node_exists (session, "/", CALL_MS, NULL, NULL, NULL));
      zkr_test_proxy_blackhole (proxy);
    }
  if (at_root)
    {
      CU_ASSERT_TRUE (itest_delete_tree (writer, top));
    }
  else
    {
      CU_ASSERT_TRUE (zkr_node_delete (writer, c, -1, CALL_MS, NULL, NULL));
    }
  make (writer, target, "reborn");
  if (at_root)
    make (writer, c, "child");
  if (expire)
    {
      CU_ASSERT_TRUE (zkr__session_test_expire_once (session, itest_hosts ()));
      zkr_test_proxy_heal (proxy);
      CU_ASSERT_TRUE (log_wait (&log, ZKR_TREE_CACHE_CONNECTION_LOST, NULL, 1));
    }
  assert_equal_soon (cache, writer, top, -1, &log);
  assert_removed_then_added (&log, target, mark, stat_on_server (writer, target).czxid);
  CU_ASSERT_EQUAL (log.violations, 0);
  /* Still watched: a later set is an UPDATED of the new node. */
  put (writer, target, "after");
  assert_equal_soon (cache, writer, top, -1, &log);
  zkr_tree_cache_unref (cache);
  log_clear (&log);
  zkr_session_unref (session);
  zkr_test_proxy_free (proxy);
  finish_root (writer, root);
  zkr_session_unref (writer);
}

static void
test_cache__tree_cache_child_recreated_at_a_lower_version_is_the_new_node (void)
{
  tree_cache_recreated_at_a_lower_version ("cache-lower-child", FALSE, FALSE);
}

static void
test_cache__tree_cache_root_recreated_at_a_lower_version_is_the_new_node (void)
{
  tree_cache_recreated_at_a_lower_version ("cache-lower-root", FALSE, TRUE);
}

static void
test_cache__tree_cache_child_recreated_at_a_lower_version_across_an_expiry (void)
{
  tree_cache_recreated_at_a_lower_version ("cache-lower-child-exp", TRUE, FALSE);
}

static void
test_cache__tree_cache_root_recreated_at_a_lower_version_across_an_expiry (void)
{
  tree_cache_recreated_at_a_lower_version ("cache-lower-root-exp", TRUE, TRUE);
}

typedef struct {
  ZkrNodeCache *cache;
  ZkrSession *direct;
  const char *path;
} NodeCompare;

/* The node cache holds what the server has: data, version, czxid, mzxid. */
static gboolean
node_cache_equals_server (gpointer data)
{
  NodeCompare *c = data;
  ZkrStat server_stat = { 0 }, cached_stat = { 0 };
  g_autoptr (GBytes) on_server = zkr_node_get (c->direct, c->path, CALL_MS, NULL, &server_stat,
                                               NULL);
  g_autoptr (GBytes) cached = zkr_node_cache_get_data (c->cache, &cached_stat);

  return on_server != NULL && cached != NULL && g_bytes_equal (on_server, cached) &&
         server_stat.version == cached_stat.version && server_stat.czxid == cached_stat.czxid &&
         server_stat.mzxid == cached_stat.mzxid;
}

static void
node_cache_assert_equal_soon (ZkrNodeCache *cache, ZkrSession *direct, const char *path)
{
  NodeCompare c = { cache, direct, path };

  CU_ASSERT_TRUE (itest_wait_for (node_cache_equals_server, &c, WAIT_MS));
}

/* The node cache's node deleted and made again at version 0 after five
 * sets, connected or across an expiry of the cache's session: the cache
 * holds the new node, and its listener hears DELETED, then CREATED with
 * the new data (Curator's NodeCache says nodeChanged; both tell the new
 * data). */
static void
node_cache_recreated_at_a_lower_version (const char *name, gboolean expire)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  ZkrSession *session, *writer = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path (name);
  ZkrNodeCache *cache;
  int mark;
  Log log;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  CU_ASSERT_PTR_NOT_NULL_FATAL (writer);
  address = zkr_test_proxy_dup_address (proxy);
  session = itest_connect (address, 6000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  log_init (&log);
  make (writer, path, "old");
  cache = zkr_node_cache_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (cache);
  log_listen_begin (&log);
  zkr_node_cache_add_listener (cache, on_node_event, &log, on_destroy);
  log_listen_end (&log);
  CU_ASSERT_TRUE (zkr_node_cache_start (cache, &error));
  CU_ASSERT_TRUE (zkr_node_cache_wait_initialized (cache, WAIT_MS, NULL, &error));
  set_five_times (writer, path);
  node_cache_assert_equal_soon (cache, writer, path);
  /* The events too (one-shot watches: several sets may make one CHANGED). */
  CU_ASSERT_TRUE (log_wait_mzxid (&log, "node", stat_on_server (writer, path).mzxid));
  mark = log_length (&log);
  if (expire)
    {
      CU_ASSERT_TRUE (zkr_node_exists (session, "/", CALL_MS, NULL, NULL, NULL));
      zkr_test_proxy_blackhole (proxy);
    }
  delete_and_make_again (writer, path);
  if (expire)
    {
      CU_ASSERT_TRUE (zkr__session_test_expire_once (session, itest_hosts ()));
      zkr_test_proxy_heal (proxy);
      CU_ASSERT_TRUE (log_wait (&log, ZKR_NODE_CACHE_CONNECTION_LOST, NULL, 1));
    }
  node_cache_assert_equal_soon (cache, writer, path);
  CU_ASSERT_TRUE (log_wait (&log, ZKR_NODE_CACHE_CREATED, NULL, 2));
  assert_removed_then_added (&log, "node", mark, stat_on_server (writer, path).czxid);
  CU_ASSERT_EQUAL (log.violations, 0);
  put (writer, path, "after");
  node_cache_assert_equal_soon (cache, writer, path);
  zkr_node_cache_unref (cache);
  log_clear (&log);
  zkr_session_unref (session);
  zkr_test_proxy_free (proxy);
  CU_ASSERT_TRUE (itest_delete_tree (writer, path));
  CU_ASSERT_TRUE (itest_node_absent (writer, path));
  zkr_session_unref (writer);
}

static void
test_cache__node_cache_node_recreated_at_a_lower_version_is_the_new_node (void)
{
  node_cache_recreated_at_a_lower_version ("cache-node-lower", FALSE);
}

static void
test_cache__node_cache_node_recreated_at_a_lower_version_across_an_expiry (void)
{
  node_cache_recreated_at_a_lower_version ("cache-node-lower-exp", TRUE);
}

static void
test_cache__close_or_unref_inside_a_listener_stops_the_events (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-inside");
  g_autoptr (GError) error = NULL;
  ZkrTreeCache *closing, *dropped, *control;
  Log log_close, log_drop, log_control;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  log_init (&log_close);
  log_init (&log_drop);
  log_init (&log_control);
  make_sub (session, root, "a", "a");
  closing = zkr_tree_cache_new (session, root, -1, &error);
  dropped = zkr_tree_cache_new (session, root, -1, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (closing);
  CU_ASSERT_PTR_NOT_NULL_FATAL (dropped);
  log_close.close_on_first = closing;
  log_drop.unref_on_first = dropped;   /* the test's only reference */
  log_listen_tree (&log_close, closing);
  log_listen_tree (&log_drop, dropped);
  CU_ASSERT_TRUE (zkr_tree_cache_start (closing, &error));
  CU_ASSERT_TRUE (zkr_tree_cache_start (dropped, &error));
  CU_ASSERT_TRUE (log_wait (&log_close, ZKR_TREE_CACHE_NODE_ADDED, NULL, 1));
  /* A third cache hears "b": by then the others would have heard it. */
  control = started_cache (session, root, -1, &log_control);
  make_sub (session, root, "b", "b");
  CU_ASSERT_TRUE (log_wait (&log_control, ZKR_TREE_CACHE_NODE_ADDED, NULL, 3));
  itest_loop_thread_stop (&log_close.loop, NULL, NULL);
  itest_loop_thread_stop (&log_drop.loop, NULL, NULL);
  /* Each heard one event and nothing after. */
  CU_ASSERT_EQUAL (log_close.seen->len, 1);
  CU_ASSERT_EQUAL (log_drop.seen->len, 1);
  CU_ASSERT_EQUAL (log_close.after_close + log_drop.after_close, 0);
  CU_ASSERT_TRUE (log_drop.destroyed);
  zkr_tree_cache_unref (control);
  log_clear (&log_control);
  zkr_tree_cache_unref (closing);
  log_clear (&log_close);
  log_clear (&log_drop);
  finish_root (session, root);
  zkr_session_unref (session);
}

/* What the listener of the test below saw. */
typedef struct {
  guint seen;
  gboolean destroyed;
} Dropping;

static void
on_event_drop_cache (ZkrTreeCache *cache, const ZkrTreeCacheEvent *event, gpointer user_data)
{
  Dropping *dropping = user_data;

  (void) event;
  if (dropping->seen++ == 0)
    zkr_tree_cache_unref (cache);   /* the test's only reference */
}

static void
dropping_destroyed (gpointer user_data)
{
  ((Dropping *) user_data)->destroyed = TRUE;
}

/* The listener's context is not iterated until the cache has its first
 * full read, so several events (the root, its child, INITIALIZED) are
 * queued there at once. The first drops the last reference: the others
 * must not be delivered (before: each queued delivery held the cache, so
 * they all came, to a listener that had let the cache go). */
static void
test_cache__last_unref_in_a_listener_drops_the_events_queued_behind (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-queued-unref");
  g_autoptr (GError) error = NULL;
  GMainContext *context = g_main_context_new ();
  Dropping dropping = { 0 };
  ZkrTreeCache *cache;
  gint64 deadline;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  make_sub (session, root, "a", "a");
  g_main_context_push_thread_default (context);
  cache = zkr_tree_cache_new (session, root, -1, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (cache);
  zkr_tree_cache_add_listener (cache, on_event_drop_cache, &dropping, dropping_destroyed);
  CU_ASSERT_TRUE (zkr_tree_cache_start (cache, &error));
  CU_ASSERT_TRUE (zkr_tree_cache_wait_initialized (cache, WAIT_MS, NULL, &error));
  CU_ASSERT_EQUAL (dropping.seen, 0);
  /* Everything queued so far runs now, in order; then the destroy notify. */
  deadline = g_get_monotonic_time () + WAIT_MS * G_TIME_SPAN_MILLISECOND;
  while (!dropping.destroyed && g_get_monotonic_time () < deadline)
    g_main_context_iteration (context, FALSE);
  CU_ASSERT_TRUE (dropping.destroyed);
  CU_ASSERT_EQUAL (dropping.seen, 1);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
  finish_root (session, root);
  zkr_session_unref (session);
}

static void
test_cache__bad_input_is_refused (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  ZkrTreeCache *cache;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NULL (zkr_tree_cache_new (session, "a/b", -1, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "a/b") : NULL);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_tree_cache_new (session, "/a", -2, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "-2") : NULL);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_node_cache_new (session, "/a/", &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_tree_cache_new (NULL, "/a", -1, NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_tree_cache_new (session, NULL, -1, NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_node_cache_get_data (NULL, NULL)));
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr_tree_cache_unref (NULL));
  cache = zkr_tree_cache_new (session, "/zkr-it/cache-bad-never-made", -1, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (cache);
  CU_ASSERT_FALSE (zkr_tree_cache_wait_initialized (cache, 10, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_tree_cache_start (cache, &error));
  CU_ASSERT_FALSE (zkr_tree_cache_start (cache, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_tree_cache_get_data (cache, "not a path", NULL));
  ZKR_TEST_EXPECT_ONE_CRITICAL (CU_ASSERT_PTR_NULL (zkr_tree_cache_get_children (cache, NULL)));
  zkr_tree_cache_unref (cache);
  CU_ASSERT_TRUE (itest_node_absent (session, "/zkr-it/cache-bad-never-made"));
  zkr_session_unref (session);
}

static gboolean
cancel_later (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* A black-holed link before the first read: the wait answers by its
 * deadline, or at its cancel, and the cache fills once healed. */
static void
test_cache__wait_initialized_answers_by_its_deadline_when_black_holed (void)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  ZkrSession *session, *writer = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("cache-deadline");
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  ItestLoopThread canceller;
  ZkrTreeCache *cache;
  gint64 start;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  address = zkr_test_proxy_dup_address (proxy);
  session = itest_connect (address, 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  make_sub (writer, root, "a", "a");
  cache = zkr_tree_cache_new (session, root, -1, &error);
  CU_ASSERT_TRUE (zkr_node_exists (session, "/", CALL_MS, NULL, NULL, NULL));
  zkr_test_proxy_blackhole (proxy);
  CU_ASSERT_TRUE (zkr_tree_cache_start (cache, &error));
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_tree_cache_wait_initialized (cache, 300, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  CU_ASSERT_TRUE (g_get_monotonic_time () - start < 2000 * 1000);
  g_clear_error (&error);
  itest_loop_thread_init (&canceller);
  itest_loop_thread_start (&canceller, "canceller");
  zkr__context_post (canceller.context, cancel_later, cancellable, NULL);
  CU_ASSERT_FALSE (zkr_tree_cache_wait_initialized (cache, -1, cancellable, &error));
  CU_ASSERT_TRUE (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  g_clear_error (&error);
  itest_loop_thread_stop (&canceller, NULL, NULL);
  zkr_test_proxy_heal (proxy);
  CU_ASSERT_TRUE (zkr_tree_cache_wait_initialized (cache, WAIT_MS, NULL, &error));
  assert_equal_soon (cache, writer, root, -1, NULL);
  zkr_tree_cache_unref (cache);
  zkr_session_unref (session);
  zkr_test_proxy_free (proxy);
  finish_root (writer, root);
  zkr_session_unref (writer);
}

/* A session closed under a wait for the first read (its link black-holed,
 * so the read cannot finish): the wait answers SESSION_CLOSED, and a start
 * on the closed session is refused. */
static void
test_cache__closed_session_answers_at_once (void)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (itest_hosts (), &error);
  g_autofree char *address = NULL;
  ZkrSession *session;
  ZkrTreeCache *after;
  ZkrNodeCache *node;

  CU_ASSERT_PTR_NOT_NULL_FATAL (proxy);
  address = zkr_test_proxy_dup_address (proxy);
  session = itest_connect (address, 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  node = zkr_node_cache_new (session, "/zkr-it/cache-closed-never-made", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (node);
  CU_ASSERT_TRUE (zkr_node_exists (session, "/", CALL_MS, NULL, NULL, NULL));
  zkr_test_proxy_blackhole (proxy);
  CU_ASSERT_TRUE (zkr_node_cache_start (node, &error));
  zkr_session_close (session);
  CU_ASSERT_FALSE (zkr_node_cache_wait_initialized (node, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  after = zkr_tree_cache_new (session, "/zkr-it/cache-closed-never-made", -1, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (after);
  CU_ASSERT_FALSE (zkr_tree_cache_start (after, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  zkr_tree_cache_unref (after);
  zkr_node_cache_unref (node);
  zkr_session_unref (session);
  zkr_test_proxy_free (proxy);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_cache__initial_load_reports_every_node_then_initialized_once),
  ZKR_TEST_CASE (test_cache__reports_added_updated_removed_and_the_root_coming_and_going),
  ZKR_TEST_CASE (test_cache__max_depth_is_honoured),
  ZKR_TEST_CASE (test_cache__burst_of_writes_ends_equal_to_the_server),
  ZKR_TEST_CASE (test_cache__node_cache_reports_created_changed_deleted),
  ZKR_TEST_CASE (test_cache__close_or_unref_inside_a_listener_stops_the_events),
  ZKR_TEST_CASE (test_cache__last_unref_in_a_listener_drops_the_events_queued_behind),
  ZKR_TEST_CASE (test_cache__bad_input_is_refused),
  ZKR_TEST_CASE (test_cache__closed_session_answers_at_once),
  ZKR_TEST_CASE (test_cache__wait_initialized_answers_by_its_deadline_when_black_holed),
  ZKR_TEST_CASE (test_cache__node_recreated_unseen_is_removed_then_added),
  ZKR_TEST_CASE (test_cache__expiry_resyncs_without_lost_or_duplicated_events),
  ZKR_TEST_CASE (test_cache__killed_member_reconnects_and_resyncs),
  ZKR_TEST_CASE (test_cache__tree_cache_child_recreated_at_a_lower_version_is_the_new_node),
  ZKR_TEST_CASE (test_cache__tree_cache_root_recreated_at_a_lower_version_is_the_new_node),
  ZKR_TEST_CASE (test_cache__tree_cache_child_recreated_at_a_lower_version_across_an_expiry),
  ZKR_TEST_CASE (test_cache__tree_cache_root_recreated_at_a_lower_version_across_an_expiry),
  ZKR_TEST_CASE (test_cache__node_cache_node_recreated_at_a_lower_version_is_the_new_node),
  ZKR_TEST_CASE (test_cache__node_cache_node_recreated_at_a_lower_version_across_an_expiry),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "cache", NULL, NULL, tests);
}
