/* zkr fault suite, cache mode: one program, two roles. The writer makes
 * random creates, sets and deletes in a 3-level tree, spread over the
 * fault phase; a cache client mirrors that tree with a ZkrTreeCache and,
 * once told the faults stopped (SIGUSR1), checks that its cache and the
 * replay of its events equal a fresh read of the server within one session
 * timeout.
 *
 *   zkr-cache-worker --role writer --hosts H --path P --ops N --duration-ms D --seed S
 *   zkr-cache-worker --role cache --hosts H --path P --dir DIR --id I --session-timeout MS
 *   zkr-cache-worker --role recreate --hosts H --path P --ops N --seed S
 *
 * The re-creator (a nemesis fault of cache_mode.py) picks N nodes of the
 * tree, sets each three times, then deletes it (with its subtree) and
 * creates it again with other data in one transaction: a new node at a
 * lower version (0), which no watch sees missing; only its czxid tells
 * it is not the one cached. Its line: "recreated N of M".
 *
 * Output, one line each: the writer "write N failed at T ms: ..." for each
 * failed write, then "writes N ok N failed N" (its last line); a cache client
 * "initialized", then "check ok <ms> nodes <n> events <n>" or
 * "check FAIL <why>". Exit 0 when all is well, 1 on a failed check, 2 on a
 * usage or setup error. The cache client also writes DIR/w<I>.sid (the
 * session's id and password) for the nemesis' expiry, as the fault worker
 * does. */

#include <stdio.h>
#include <string.h>

#include <glib-unix.h>

#include "context.h"
#include "fault-call.h"
#include "session-private.h"

#include <zkr/zkr.h>

#define CALL_MS 2000

typedef struct {
  char *role;
  char *hosts;
  char *path;
  char *dir;
  int id;
  int ops;
  int duration_ms;
  int seed;
  int session_timeout_ms;
} Options;

/* ---- the writer ---------------------------------------------------- */

static char *
random_path (GRand *rand, const char *root)
{
  GString *path = g_string_new (root);
  int depth = g_rand_int_range (rand, 1, 4);

  for (int d = 0; d < depth; d++)
    g_string_append_printf (path, "/n%d", g_rand_int_range (rand, 0, 4));
  return g_string_free (path, FALSE);
}

/* One random write; TRUE when the server applied it or refused it for the
 * tree's state (a create of an existing node, a set or delete of a missing
 * one, a delete of a node with children): only connection trouble fails. */
static gboolean
random_write (ZkrSession *session, GRand *rand, const char *root, int n, GError **error_out)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = random_path (rand, root);
  g_autofree char *data = g_strdup_printf ("w%d", n);
  int kind = g_rand_int_range (rand, 0, 20);
  gboolean ok;

  if (kind < 8)
    ok = zkr_node_create (session, path, data, strlen (data), ZKR_CREATE_PERSISTENT,
                          ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL, NULL, &error);
  else if (kind < 15)
    ok = zkr_node_set (session, path, data, strlen (data), -1, CALL_MS, NULL, NULL, &error);
  else
    ok = zkr_node_delete (session, path, -1, CALL_MS, NULL, &error);
  if (ok || g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NODE_EXISTS) ||
      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE) ||
      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_EMPTY))
    return TRUE;
  g_propagate_error (error_out, g_steal_pointer (&error));
  return FALSE;
}

static int
writer_main (const Options *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) o->seed);
  ZkrSession *session;
  gint64 start;
  int ok = 0, failed = 0;

  zkr_session_options_set_hosts (options, o->hosts);
  zkr_session_options_set_session_timeout_ms (options, 10000);
  session = zkr_session_new (options, &error);
  if (session == NULL || !zkr_session_wait_connected (session, 30000, NULL, &error))
    {
      printf ("writer: %s\n", error->message);
      return 2;
    }
  if (!zkr_node_create (session, o->path, NULL, 0, ZKR_CREATE_PERSISTENT,
                        ZKR_CREATE_PARENTS_PERSISTENT, 10000, NULL, NULL, NULL, &error) &&
      !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NODE_EXISTS))
    {
      printf ("writer: %s\n", error->message);
      zkr_session_unref (session);
      return 2;
    }
  start = g_get_monotonic_time ();
  for (int n = 0; n < o->ops; n++)
    {
      /* Spread over the fault phase: write n is due at start + n * D / N. */
      gint64 due = start + (gint64) n * o->duration_ms * 1000 / MAX (o->ops, 1);
      gint64 now = g_get_monotonic_time ();

      if (due > now)
        g_usleep ((gulong) (due - now));
      g_autoptr (GError) write_error = NULL;

      if (random_write (session, rand, o->path, n, &write_error))
        ok++;
      else
        {
          /* Each failure on a line of its own, on the monotonic clock (ms),
           * the phase's faults (nemesis.log) being on the same clock: a
           * failure is explained by the fault it fell in. */
          failed++;
          printf ("write %d failed at %" G_GINT64_FORMAT " ms: %s\n", n,
                  g_get_monotonic_time () / 1000, write_error->message);
        }
    }
  printf ("writes %d ok %d failed %d\n", o->ops, ok, failed);
  zkr_session_unref (session);
  return 0;
}

/* ---- the re-creator ------------------------------------------------ */

/* @path and every node below it, children before their parent. */
static void
collect_subtree (ZkrSession *session, const char *path, GPtrArray *out)
{
  g_auto (GStrv) children = zkr_node_get_children (session, path, CALL_MS, NULL, NULL, NULL);

  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    {
      g_autofree char *child = g_strdup_printf ("%s/%s", path, children[i]);

      collect_subtree (session, child, out);
    }
  g_ptr_array_add (out, g_strdup (path));
}

/* Sets @path three times (its version climbs), then deletes it with its
 * subtree and creates it again holding other data, atomically. TRUE when
 * the transaction went through; FALSE when the tree moved meanwhile (the
 * writer's own writes) or the connection failed. */
static gboolean
recreate_one (ZkrSession *session, const char *path, int n)
{
  g_autoptr (GPtrArray) subtree = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (ZkrTxn) txn = zkr_txn_new (session);
  g_autofree char *data = g_strdup_printf ("r%d", n);

  g_autoptr (GError) error = NULL;

  for (int i = 0; i < 3 && error == NULL; i++)
    {
      g_autofree char *set = g_strdup_printf ("s%d-%d", n, i);

      zkr_node_set (session, path, set, strlen (set), -1, CALL_MS, NULL, NULL, &error);
    }
  if (error == NULL)
    {
      collect_subtree (session, path, subtree);
      for (guint i = 0; i < subtree->len; i++)
        zkr_txn_delete (txn, g_ptr_array_index (subtree, i), -1);
      zkr_txn_create (txn, path, data, strlen (data), ZKR_CREATE_PERSISTENT);
      zkr_txn_commit (txn, CALL_MS, NULL, &error);
    }
  if (error != NULL)
    printf ("recreate of %s: %s\n", path, error->message);
  return error == NULL;
}

static int
recreate_main (const Options *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) o->seed);
  g_autoptr (GPtrArray) nodes = g_ptr_array_new_with_free_func (g_free);
  ZkrSession *session;
  int done = 0, tried = 0;

  zkr_session_options_set_hosts (options, o->hosts);
  zkr_session_options_set_session_timeout_ms (options, 10000);
  session = zkr_session_new (options, &error);
  if (session == NULL || !zkr_session_wait_connected (session, 30000, NULL, &error))
    {
      printf ("recreate: %s\n", error->message);
      g_clear_pointer (&session, zkr_session_unref);
      return 2;
    }
  collect_subtree (session, o->path, nodes);
  g_ptr_array_remove_index (nodes, nodes->len - 1); /* the root stays */
  for (; tried < o->ops && nodes->len > 0; tried++)
    {
      guint pick = (guint) g_rand_int_range (rand, 0, (gint32) nodes->len);

      done += recreate_one (session, g_ptr_array_index (nodes, pick), o->seed + tried);
      g_ptr_array_remove_index_fast (nodes, pick);
    }
  printf ("recreated %d of %d\n", done, tried);
  zkr_session_unref (session);
  return 0;
}

/* ---- the cache client ---------------------------------------------- */

/* What the events say of a node: the node (its czxid: one deleted and
 * created again is another) and its last change. */
typedef struct {
  gint64 czxid;
  gint64 mzxid;
} Modelled;

typedef struct {
  const Options *options;
  ZkrSession *session;
  ZkrTreeCache *cache;
  GMainLoop *loop;
  GMutex lock;
  GHashTable *model;     /* path -> Modelled: the events replayed; under lock */
  guint events;          /* under lock */
  guint violations;      /* under lock: ADDED of a known node, UPDATED or REMOVED
                          * of an unknown one, UPDATED not moving mzxid or of
                          * another node (its czxid) */
  char *first_violation; /* under lock */
  char *verdict;         /* the check's line */
  gboolean passed;
  gboolean checking;
} Client;

static void
note_violation_locked (Client *c, const char *what, const char *path)
{
  if (c->violations++ == 0)
    c->first_violation = g_strdup_printf ("%s %s", what, path);
}

static void
on_event (ZkrTreeCache *cache, const ZkrTreeCacheEvent *event, gpointer user_data)
{
  Client *c = user_data;
  Modelled *known;
  Modelled seen = { event->stat.czxid, event->stat.mzxid };

  (void) cache;
  if (event->path == NULL)
    return;
  g_mutex_lock (&c->lock);
  c->events++;
  known = g_hash_table_lookup (c->model, event->path);
  if (event->type == ZKR_TREE_CACHE_NODE_ADDED && known != NULL)
    note_violation_locked (c, "ADDED of a known node", event->path);
  else if (event->type == ZKR_TREE_CACHE_NODE_UPDATED &&
           (known == NULL || known->mzxid >= seen.mzxid))
    note_violation_locked (c, "UPDATED without a change", event->path);
  else if (event->type == ZKR_TREE_CACHE_NODE_UPDATED && known->czxid != seen.czxid)
    note_violation_locked (c, "UPDATED of another node (a new czxid)", event->path);
  else if (event->type == ZKR_TREE_CACHE_NODE_REMOVED && known == NULL)
    note_violation_locked (c, "REMOVED of an unknown node", event->path);
  if (event->type == ZKR_TREE_CACHE_NODE_REMOVED)
    g_hash_table_remove (c->model, event->path);
  else
    g_hash_table_insert (c->model, g_strdup (event->path), g_memdup2 (&seen, sizeof seen));
  g_mutex_unlock (&c->lock);
}

/* The session id and password, for an expiry from outside. */
static void
publish_session (Client *c)
{
  g_autofree char *path = g_strdup_printf ("%s/w%d.sid", c->options->dir, c->options->id);

  fault_publish_session (c->session, path);
}

static void
on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  (void) session;
  if (state == ZKR_SESSION_STATE_CONNECTED)
    publish_session (user_data);
}

/* Compares @path and below: the server (read through the cache's own
 * session, so after every event it delivered), the cache, the events. */
static gboolean
compare_node (Client *c, const char *path, guint *count, char **why)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) on_server = NULL;
  g_autoptr (GBytes) cached = NULL;
  g_auto (GStrv) server_children = NULL;
  g_auto (GStrv) cached_children = NULL;
  ZkrStat server_stat, cached_stat;
  Modelled *modelled;
  gboolean same_model;

  on_server = zkr_node_get (c->session, path, CALL_MS, NULL, &server_stat, &error);
  if (on_server == NULL && !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    {
      *why = g_strdup_printf ("read of %s failed: %s", path, error->message);
      return FALSE;
    }
  cached = zkr_tree_cache_get_data (c->cache, path, &cached_stat);
  g_mutex_lock (&c->lock);
  modelled = g_hash_table_lookup (c->model, path);
  same_model = on_server == NULL ? modelled == NULL
                                 : modelled != NULL && modelled->mzxid == server_stat.mzxid &&
                                     modelled->czxid == server_stat.czxid;
  g_mutex_unlock (&c->lock);
  if ((on_server == NULL) != (cached == NULL) || !same_model)
    {
      *why = g_strdup_printf ("%s: on the server %d, cached %d, events agree %d", path,
                              on_server != NULL, cached != NULL, same_model);
      return FALSE;
    }
  if (on_server == NULL)
    return TRUE;
  (*count)++;
  if (!g_bytes_equal (on_server, cached) || server_stat.mzxid != cached_stat.mzxid ||
      server_stat.czxid != cached_stat.czxid || server_stat.version != cached_stat.version)
    {
      *why = g_strdup_printf ("%s: server version %d, cached %d", path, server_stat.version,
                              cached_stat.version);
      return FALSE;
    }
  server_children = zkr_node_get_children (c->session, path, CALL_MS, NULL, NULL, &error);
  cached_children = zkr_tree_cache_get_children (c->cache, path);
  if (server_children == NULL || cached_children == NULL ||
      !g_strv_equal ((const char *const *) server_children, (const char *const *) cached_children))
    {
      *why = g_strdup_printf ("%s: children differ", path);
      return FALSE;
    }
  for (guint i = 0; server_children[i] != NULL; i++)
    {
      g_autofree char *child = g_strdup_printf ("%s/%s", path, server_children[i]);

      if (!compare_node (c, child, count, why))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_done (gpointer data)
{
  Client *c = data;

  printf ("%s\n", c->verdict);
  fflush (stdout);
  g_main_loop_quit (c->loop);
  return G_SOURCE_REMOVE;
}

/* The check's thread: the cache equals the server within one session
 * timeout, or the check fails with the last difference seen. */
static gpointer
check_thread (gpointer data)
{
  Client *c = data;
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = start + (gint64) c->options->session_timeout_ms * 1000;
  g_autofree char *why = NULL;

  for (;;)
    {
      guint count = 0, modelled, events, violations;

      g_clear_pointer (&why, g_free);
      if (compare_node (c, c->options->path, &count, &why))
        {
          g_mutex_lock (&c->lock);
          modelled = g_hash_table_size (c->model);
          events = c->events;
          violations = c->violations;
          g_mutex_unlock (&c->lock);
          if (modelled == count && zkr_tree_cache_count (c->cache) == count && violations == 0)
            {
              c->passed = TRUE;
              c->verdict = g_strdup_printf ("check ok %" G_GINT64_FORMAT " nodes %u events %u",
                                            (g_get_monotonic_time () - start) / 1000, count, events);
              break;
            }
          why = violations > 0 ? g_strdup_printf ("%u event violations, first: %s", violations,
                                                  c->first_violation)
                               : g_strdup_printf ("%u nodes, %u cached, %u in the events", count,
                                                  zkr_tree_cache_count (c->cache), modelled);
        }
      if (g_get_monotonic_time () >= deadline)
        {
          c->verdict = g_strdup_printf ("check FAIL after %d ms: %s",
                                        c->options->session_timeout_ms, why);
          break;
        }
      g_usleep (50 * 1000);
    }
  /* zkr__context_post: its hand-off is one ThreadSanitizer can see. */
  zkr__context_post (g_main_context_default (), check_done, c, NULL);
  return NULL;
}

static gboolean
on_check_signal (gpointer data)
{
  Client *c = data;

  if (!c->checking)
    {
      c->checking = TRUE;
      g_thread_unref (g_thread_new ("check", check_thread, c));
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_term_signal (gpointer data)
{
  Client *c = data;

  /* A check under way ends by its own deadline and reports. */
  if (c->checking)
    return G_SOURCE_CONTINUE;
  c->verdict = g_strdup ("check FAIL: stopped before the check");
  g_main_loop_quit (c->loop);
  return G_SOURCE_CONTINUE;
}

static int
cache_main (const Options *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  Client c = { .options = o };
  guint usr1, term;
  int rc = 2;

  g_mutex_init (&c.lock);
  c.model = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  c.loop = g_main_loop_new (NULL, FALSE);
  zkr_session_options_set_hosts (options, o->hosts);
  zkr_session_options_set_session_timeout_ms (options, o->session_timeout_ms);
  c.session = zkr_session_new (options, &error);
  if (c.session == NULL)
    goto out;
  zkr_session_add_state_listener (c.session, on_state, &c, NULL);
  if (!zkr_session_wait_connected (c.session, 30000, NULL, &error))
    goto out;
  /* The listener may have missed the first CONNECTED. */
  publish_session (&c);
  c.cache = zkr_tree_cache_new (c.session, o->path, -1, &error);
  if (c.cache == NULL)
    goto out;
  zkr_tree_cache_add_listener (c.cache, on_event, &c, NULL);
  if (!zkr_tree_cache_start (c.cache, &error) ||
      !zkr_tree_cache_wait_initialized (c.cache, 30000, NULL, &error))
    goto out;
  printf ("initialized\n");
  fflush (stdout);
  usr1 = g_unix_signal_add (SIGUSR1, on_check_signal, &c);
  term = g_unix_signal_add (SIGTERM, on_term_signal, &c);
  g_main_loop_run (c.loop);
  g_source_remove (usr1);
  g_source_remove (term);
  rc = c.passed ? 0 : 1;
out:
  if (error != NULL)
    printf ("cache: %s\n", error->message);
  if (c.cache != NULL)
    {
      zkr_tree_cache_close (c.cache);
      zkr_tree_cache_unref (c.cache);
    }
  /* What the closed cache still had queued for this context. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  if (c.session != NULL)
    zkr_session_unref (c.session);
  g_hash_table_unref (c.model);
  g_main_loop_unref (c.loop);
  g_mutex_clear (&c.lock);
  g_free (c.verdict);
  g_free (c.first_violation);
  return rc;
}

int
main (int argc, char **argv)
{
  Options o = { .ops = 1000, .duration_ms = 30000, .seed = 1, .session_timeout_ms = 4000,
                .dir = NULL };
  GOptionEntry entries[] = {
    { "role", 0, 0, G_OPTION_ARG_STRING, &o.role, "writer, cache or recreate", "ROLE" },
    { "hosts", 0, 0, G_OPTION_ARG_STRING, &o.hosts, "connect string", "HOSTS" },
    { "path", 0, 0, G_OPTION_ARG_STRING, &o.path, "the tree's root", "PATH" },
    { "dir", 0, 0, G_OPTION_ARG_STRING, &o.dir, "the run's directory (cache)", "DIR" },
    { "id", 0, 0, G_OPTION_ARG_INT, &o.id, "the client's number (cache)", "N" },
    { "ops", 0, 0, G_OPTION_ARG_INT, &o.ops, "writes to make (writer), nodes to re-create (recreate)", "N" },
    { "duration-ms", 0, 0, G_OPTION_ARG_INT, &o.duration_ms, "spread them over (writer)", "MS" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &o.seed, "the writer's seed", "N" },
    { "session-timeout", 0, 0, G_OPTION_ARG_INT, &o.session_timeout_ms, "session timeout", "MS" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- zkr fault suite: cache mode");
  g_autoptr (GError) error = NULL;
  int rc;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || o.role == NULL ||
      o.hosts == NULL || o.path == NULL || (g_strcmp0 (o.role, "cache") == 0 && o.dir == NULL))
    {
      printf ("usage: %s\n", error != NULL ? error->message : "--role, --hosts and --path (and "
                                                              "--dir for a cache) are required");
      return 2;
    }
  if (g_strcmp0 (o.role, "writer") == 0)
    rc = writer_main (&o);
  else if (g_strcmp0 (o.role, "cache") == 0)
    rc = cache_main (&o);
  else if (g_strcmp0 (o.role, "recreate") == 0)
    rc = recreate_main (&o);
  else
    {
      printf ("usage: unknown role %s\n", o.role);
      rc = 2;
    }
  g_free (o.role);
  g_free (o.hosts);
  g_free (o.path);
  g_free (o.dir);
  return rc;
}
