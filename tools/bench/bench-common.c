/* zkr benchmarks: the driver shared by zkr-bench, bench-raw and bench-mutex. K client
 * threads connect and warm up, wait at one start barrier, run their timed
 * acquire/hold/release cycles, and wait again before closing so that no
 * session teardown lands inside another client's measurement. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <zkr/zkr.h>

#include "bench-common.h"

#define BENCH_CONNECT_TIMEOUT_MS 15000
#define BENCH_SESSION_TIMEOUT_MS 10000

G_DEFINE_QUARK (zkr-bench-error-quark, bench_error)
#define BENCH_ERROR (bench_error_quark ())

/* ---- raw ZooKeeper handle ---------------------------------------------- */

struct _BenchZk {
  zhandle_t *zh;
  GMutex lock;
  GCond cond;
  int state;     /* the last session state ZooKeeper reported; lock */
};

void
bench_set_zk_error (GError **error, int rc, const char *what, const char *path)
{
  g_set_error (error, BENCH_ERROR, rc, "%s %s: %s", what, path, zerror (rc));
}

/* Same routing as zkr's: ZooKeeper's chatter only with G_MESSAGES_DEBUG. */
static void
zk_log (const char *message)
{
  g_debug ("zookeeper: %s", message);
}

/* Runs on ZooKeeper's completion thread: record, wake, nothing else. */
static void
zk_session_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
  BenchZk *zk = ctx;

  (void) zh;
  (void) path;
  if (type != ZOO_SESSION_EVENT)
    return;
  g_mutex_lock (&zk->lock);
  zk->state = state;
  g_cond_broadcast (&zk->cond);
  g_mutex_unlock (&zk->lock);
}

static gboolean
zk_wait_connected (BenchZk *zk, const char *hosts, GError **error)
{
  gint64 deadline = g_get_monotonic_time () + BENCH_CONNECT_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;
  gboolean timed_out = FALSE;
  int state;

  g_mutex_lock (&zk->lock);
  while (zk->state != ZOO_CONNECTED_STATE && zk->state != ZOO_EXPIRED_SESSION_STATE
         && zk->state != ZOO_AUTH_FAILED_STATE && !timed_out)
    timed_out = !g_cond_wait_until (&zk->cond, &zk->lock, deadline);
  state = zk->state;
  g_mutex_unlock (&zk->lock);
  if (state == ZOO_CONNECTED_STATE)
    return TRUE;
  g_set_error (error, BENCH_ERROR, ZCONNECTIONLOSS, "could not connect to %s within %d ms",
               hosts, BENCH_CONNECT_TIMEOUT_MS);
  return FALSE;
}

BenchZk *
bench_zk_connect (const char *hosts, GError **error)
{
  BenchZk *zk = g_new0 (BenchZk, 1);

  g_mutex_init (&zk->lock);
  g_cond_init (&zk->cond);
  zk->zh = zookeeper_init2 (hosts, zk_session_watcher, BENCH_SESSION_TIMEOUT_MS, NULL, zk, 0,
                            zk_log);
  if (zk->zh == NULL)
    {
      g_set_error (error, BENCH_ERROR, ZSYSTEMERROR, "zookeeper_init %s: %s", hosts,
                   g_strerror (errno));
      bench_zk_close (zk);
      return NULL;
    }
  /* The same libzookeeper setting as a zkr session: the raw loop is the
   * limit of the same client, not of a worse-configured one. */
  zoo_set_servers_resolution_delay (zk->zh, ZKR_SESSION_RESOLUTION_DELAY_MS);
  if (!zk_wait_connected (zk, hosts, error))
    {
      bench_zk_close (zk);
      return NULL;
    }
  return zk;
}

zhandle_t *
bench_zk_handle (BenchZk *zk)
{
  return zk->zh;
}

void
bench_zk_close (BenchZk *zk)
{
  if (zk == NULL)
    return;
  /* After zookeeper_close() returns no watcher runs, so zk may go. */
  if (zk->zh != NULL)
    zookeeper_close (zk->zh);
  g_mutex_clear (&zk->lock);
  g_cond_clear (&zk->cond);
  g_free (zk);
}

/* ---- the lock's path ----------------------------------------------------- */

/* "/a/b/c" -> "/a", "/a/b", "/a/b/c". (transfer full) */
static GPtrArray *
path_prefixes (const char *path)
{
  GPtrArray *prefixes = g_ptr_array_new_with_free_func (g_free);

  for (const char *p = path + 1; ; p++)
    if (*p == '/' || *p == '\0')
      {
        g_ptr_array_add (prefixes, g_strndup (path, p - path));
        if (*p == '\0')
          break;
      }
  return prefixes;
}

/* Notes which of @path and its ancestors are missing (the ones we may
 * remove at the end), and creates them persistent when @create. */
static GPtrArray *
path_prepare (zhandle_t *zh, const char *path, gboolean create, GError **error)
{
  g_autoptr (GPtrArray) prefixes = path_prefixes (path);
  g_autoptr (GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < prefixes->len; i++)
    {
      const char *node = prefixes->pdata[i];
      struct Stat stat;
      int rc = zoo_exists (zh, node, 0, &stat);

      if (rc == ZOK)
        continue;
      if (rc != ZNONODE)
        {
          bench_set_zk_error (error, rc, "exists", node);
          return NULL;
        }
      g_ptr_array_add (missing, g_strdup (node));
      rc = create ? zoo_create (zh, node, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0)
                  : ZOK;
      if (rc != ZOK && rc != ZNODEEXISTS)
        {
          bench_set_zk_error (error, rc, "create", node);
          return NULL;
        }
    }
  return g_steal_pointer (&missing);
}

/* Deletes @node and everything under it; ZNONODE counts as done. */
static int
delete_tree (zhandle_t *zh, const char *node)
{
  struct String_vector children = { 0, NULL };
  int rc = zoo_get_children (zh, node, 0, &children);

  if (rc == ZNONODE)
    return ZOK;
  for (int i = 0; rc == ZOK && i < children.count; i++)
    {
      g_autofree char *child = g_strconcat (node, "/", children.data[i], NULL);

      rc = delete_tree (zh, child);
    }
  deallocate_String_vector (&children);
  if (rc == ZOK)
    rc = zoo_delete (zh, node, -1);
  return rc == ZNONODE ? ZOK : rc;
}

/* Removes what did not exist before the run, deepest first. The lock path
 * goes with whatever is left under it; an ancestor that someone else has
 * filled meanwhile (ZNOTEMPTY) is theirs now and stays. */
static gboolean
path_cleanup (zhandle_t *zh, const char *path, GPtrArray *missing)
{
  gboolean ok = TRUE;

  for (guint i = missing->len; i-- > 0;)
    {
      const char *node = missing->pdata[i];
      int rc = strcmp (node, path) == 0 ? delete_tree (zh, node) : zoo_delete (zh, node, -1);

      if (rc != ZOK && rc != ZNONODE && rc != ZNOTEMPTY)
        {
          g_printerr ("warning: could not delete %s: %s\n", node, zerror (rc));
          ok = FALSE;
        }
    }
  return ok;
}

/* ---- the clients ----------------------------------------------------- */

typedef struct _BenchRun BenchRun;

typedef struct {
  BenchRun *run;
  guint index;
  GThread *thread;
  gpointer handle;       /* the implementation's client, NULL once closed */
  GArray *acquire_us;    /* gint64 per timed cycle */
  GError *error;         /* the first failure */
} BenchClient;

struct _BenchRun {
  const BenchImpl *impl;
  const BenchOptions *options;
  GMutex lock;
  GCond cond;
  guint ready;           /* through the warmup, or failed; lock */
  guint finished;        /* through the timed cycles, or failed; lock */
  gboolean started;      /* lock */
  gboolean may_close;    /* lock */
  gint64 start_us;       /* monotonic; written before started */
  gint64 deadline_us;    /* 0 when counting cycles; written before started */
  gint64 end_us;         /* when the last client finished; lock */
  gint aborted;          /* atomic: a client failed, the others stop */
  gint holders;          /* atomic: clients holding the lock right now */
  gint cycles_done;      /* atomic: timed cycles completed so far */
  gint violations;       /* atomic: acquisitions that found another holder */
};

/* Counts @counter up, then waits for @gate (both under run->lock). */
static void
run_arrive_and_wait (BenchRun *run, guint *counter, gboolean *gate)
{
  g_mutex_lock (&run->lock);
  (*counter)++;
  if (counter == &run->finished)
    run->end_us = g_get_monotonic_time ();
  g_cond_broadcast (&run->cond);
  while (!*gate)
    g_cond_wait (&run->cond, &run->lock);
  g_mutex_unlock (&run->lock);
}

/* A failed client closes at once: its session's ephemeral node goes, so
 * no waiter stays queued behind it, and the others stop after their cycle. */
static void
client_fail (BenchClient *client)
{
  g_atomic_int_set (&client->run->aborted, 1);
  if (client->handle != NULL)
    client->run->impl->client_free (client->handle);
  client->handle = NULL;
}

/* One acquire/hold/release; @acquire_us gets the time from calling acquire
 * to holding. The holder count must go from 0 to 1 on every acquisition. */
static gboolean
client_cycle (BenchClient *client, gint64 *acquire_us)
{
  BenchRun *run = client->run;
  gint64 called = g_get_monotonic_time ();

  if (!run->impl->acquire (client->handle, &client->error))
    return FALSE;
  *acquire_us = g_get_monotonic_time () - called;
  if (g_atomic_int_add (&run->holders, 1) >= (gint) run->impl->max_holders
      && run->impl->max_holders > 0)
    g_atomic_int_inc (&run->violations);
  if (run->options->hold_us > 0)
    g_usleep (run->options->hold_us);
  g_atomic_int_add (&run->holders, -1);
  return run->impl->release (client->handle, &client->error);
}

static gboolean
client_warmup (BenchClient *client)
{
  gint64 ignored;

  for (guint i = 0; i < client->run->options->warmup; i++)
    if (g_atomic_int_get (&client->run->aborted) || !client_cycle (client, &ignored))
      return FALSE;
  return TRUE;
}

static gboolean
client_timed_done (BenchClient *client, guint64 done)
{
  BenchRun *run = client->run;

  if (g_atomic_int_get (&run->aborted))
    return TRUE;
  if (run->deadline_us > 0)
    return g_get_monotonic_time () >= run->deadline_us;
  return done >= run->options->cycles;
}

static void
client_timed (BenchClient *client)
{
  gint64 acquire_us;

  for (guint64 done = 0; !client_timed_done (client, done); done++)
    {
      if (!client_cycle (client, &acquire_us))
        {
          client_fail (client);
          return;
        }
      g_array_append_val (client->acquire_us, acquire_us);
      g_atomic_int_inc (&client->run->cycles_done);
    }
}

static gpointer
client_main (gpointer data)
{
  BenchClient *client = data;
  BenchRun *run = client->run;

  client->handle = run->impl->client_new (run->options, &client->error);
  if (client->handle == NULL && client->error == NULL)
    g_set_error (&client->error, BENCH_ERROR, ZSYSTEMERROR, "could not open a client");
  if (client->handle == NULL || !client_warmup (client))
    client_fail (client);
  run_arrive_and_wait (run, &run->ready, &run->started);
  if (client->handle != NULL)
    client_timed (client);
  run_arrive_and_wait (run, &run->finished, &run->may_close);
  if (client->handle != NULL)
    run->impl->client_free (client->handle);
  client->handle = NULL;
  return NULL;
}

/* Waits for a change of the run (under run->lock); with --progress, also
 * redraws the progress line every 250 ms. */
static void
run_wait_showing_progress (BenchRun *run)
{
  gint64 now = g_get_monotonic_time ();
  double elapsed = (now - run->start_us) / (double) G_USEC_PER_SEC;
  gint done = g_atomic_int_get (&run->cycles_done);

  if (!run->options->progress)
    {
      g_cond_wait (&run->cond, &run->lock);
      return;
    }
  g_printerr ("\r\033[K%s: %d cycles in %.1f s (%.0f/s), %u of %u clients done",
              run->impl->name, done, elapsed, elapsed > 0 ? done / elapsed : 0.0,
              run->finished, run->options->clients);
  g_cond_wait_until (&run->cond, &run->lock, now + 250 * G_TIME_SPAN_MILLISECOND);
}

/* Starts the clients, opens the barrier once all are warm, waits for all
 * to finish, lets them close, and joins them. */
static void
run_clients (BenchRun *run, BenchClient *clients)
{
  guint k = run->options->clients;

  for (guint i = 0; i < k; i++)
    {
      g_autofree char *name = g_strdup_printf ("bench-client-%u", i);

      clients[i] = (BenchClient) { .run = run, .index = i,
                                   .acquire_us = g_array_new (FALSE, FALSE, sizeof (gint64)) };
      clients[i].thread = g_thread_new (name, client_main, &clients[i]);
    }
  g_mutex_lock (&run->lock);
  while (run->ready < k)
    g_cond_wait (&run->cond, &run->lock);
  run->start_us = g_get_monotonic_time ();
  if (run->options->seconds > 0)
    run->deadline_us = run->start_us + (gint64) (run->options->seconds * G_USEC_PER_SEC);
  run->started = TRUE;
  g_cond_broadcast (&run->cond);
  while (run->finished < k)
    run_wait_showing_progress (run);
  if (run->options->progress)
    g_printerr ("\r\033[K");
  run->may_close = TRUE;
  g_cond_broadcast (&run->cond);
  g_mutex_unlock (&run->lock);
  for (guint i = 0; i < k; i++)
    g_thread_join (clients[i].thread);
}

/* ---- results -------------------------------------------------------------- */

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least @p % of them at or below. */
static double
percentile_ms (GArray *sorted_us, double p)
{
  gsize rank;

  if (sorted_us->len == 0)
    return 0;
  rank = (gsize) ceil (p / 100.0 * sorted_us->len);
  rank = CLAMP (rank, 1, sorted_us->len);
  return g_array_index (sorted_us, gint64, rank - 1) / 1000.0;
}

void
bench_json_add_int (JsonBuilder *builder, const char *name, gint64 value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

void
bench_json_add_string (JsonBuilder *builder, const char *name, const char *value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, value);
}

void
bench_json_add_double (JsonBuilder *builder, const char *name, double value, int decimals)
{
  double scale = pow (10, decimals);

  json_builder_set_member_name (builder, name);
  json_builder_add_double_value (builder, round (value * scale) / scale);
}

void
bench_print_json (JsonBuilder *builder)
{
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  g_autofree char *text = NULL;

  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
  fflush (stdout);
}

/* The result: the keys and their order are what `./run bench`,
 * run-bench.sh and docs/performance.md's examples read. */
static void
print_result (BenchRun *run, BenchClient *clients)
{
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  double seconds = (run->end_us - run->start_us) / (double) G_USEC_PER_SEC;

  for (guint i = 0; i < run->options->clients; i++)
    g_array_append_vals (all, clients[i].acquire_us->data, clients[i].acquire_us->len);
  g_array_sort (all, compare_gint64);
  json_builder_begin_object (builder);
  bench_json_add_string (builder, "impl", run->impl->name);
  bench_json_add_int (builder, "clients", run->options->clients);
  bench_json_add_int (builder, "cycles_total", all->len);
  bench_json_add_double (builder, "seconds", seconds, 3);
  bench_json_add_double (builder, "cycles_per_s", seconds > 0 ? all->len / seconds : 0.0, 1);
  bench_json_add_double (builder, "acquire_ms_p50", percentile_ms (all, 50), 3);
  bench_json_add_double (builder, "acquire_ms_p99", percentile_ms (all, 99), 3);
  bench_json_add_int (builder, "violations", g_atomic_int_get (&run->violations));
  json_builder_end_object (builder);
  bench_print_json (builder);
}

/* Prints every client's failure; TRUE when no client failed. */
static gboolean
report_failures (const char *program, BenchRun *run, BenchClient *clients)
{
  gboolean ok = !g_atomic_int_get (&run->aborted);

  for (guint i = 0; i < run->options->clients; i++)
    if (clients[i].error != NULL)
      {
        g_printerr ("%s: client %u: %s\n", program, i, clients[i].error->message);
        ok = FALSE;
      }
  return ok;
}

/* ---- command line ----------------------------------------------------- */

struct _BenchArgs {
  char *hosts;
  char *path;
  int clients, cycles, hold_us, warmup;
  double seconds;
};

BenchArgs *
bench_args_new (void)
{
  BenchArgs *args = g_new0 (BenchArgs, 1);

  args->clients = 1;
  args->cycles = 1000;
  args->warmup = 20;
  return args;
}

void
bench_args_free (BenchArgs *args)
{
  if (args == NULL)
    return;
  g_free (args->hosts);
  g_free (args->path);
  g_free (args);
}

void
bench_args_add (BenchArgs *args, GOptionGroup *group, gboolean with_hosts)
{
  GOptionEntry entries[] = {
    { "path", 0, 0, G_OPTION_ARG_STRING, &args->path,
      "The lock's path (default: /zkr-bench/IMPL-PID)", "P" },
    { "clients", 0, 0, G_OPTION_ARG_INT, &args->clients,
      "Concurrent clients, each its own session (1)", "K" },
    { "cycles", 0, 0, G_OPTION_ARG_INT, &args->cycles, "Timed cycles per client (1000)", "M" },
    { "hold-us", 0, 0, G_OPTION_ARG_INT, &args->hold_us,
      "How long each acquisition is held, in microseconds (0)", "U" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &args->warmup, "Untimed cycles per client first (20)", "W" },
    { "seconds", 0, 0, G_OPTION_ARG_DOUBLE, &args->seconds,
      "Run the timed phase for S seconds instead of --cycles", "S" },
    G_OPTION_ENTRY_NULL,
  };
  GOptionEntry hosts_entries[] = {
    { "hosts", 0, 0, G_OPTION_ARG_STRING, &args->hosts,
      "ZooKeeper connect string (default: $ZKR_BENCH_HOSTS, else 127.0.0.1:2181)", "H" },
    G_OPTION_ENTRY_NULL,
  };

  if (with_hosts)
    g_option_group_add_entries (group, hosts_entries);
  g_option_group_add_entries (group, entries);
}

gboolean
bench_args_finish (BenchArgs *args, const char *impl_name, const char *default_hosts,
                   BenchOptions *options, GError **error)
{
  if (args->clients < 1 || args->cycles < 1 || args->hold_us < 0 || args->warmup < 0
      || !(args->seconds >= 0 && args->seconds < 1e6))
    {
      g_set_error (error, BENCH_ERROR, ZBADARGUMENTS,
                   "need --clients >= 1, --cycles >= 1, --hold-us >= 0, --warmup >= 0 "
                   "and --seconds >= 0");
      return FALSE;
    }
  options->clients = args->clients;
  options->cycles = args->cycles;
  options->hold_us = args->hold_us;
  options->warmup = args->warmup;
  options->seconds = args->seconds;
  options->hosts = g_strdup (args->hosts != NULL ? args->hosts : default_hosts);
  options->path = args->path != NULL ? g_strdup (args->path)
                                     : g_strdup_printf ("/zkr-bench/%s-%d", impl_name,
                                                        (int) getpid ());
  if (options->path[0] != '/' || options->path[1] == '\0' || g_str_has_suffix (options->path, "/")
      || strstr (options->path, "//") != NULL)
    {
      g_set_error (error, BENCH_ERROR, ZBADARGUMENTS, "bad --path '%s'", options->path);
      return FALSE;
    }
  return TRUE;
}

void
bench_options_clear (BenchOptions *options)
{
  g_clear_pointer (&options->hosts, g_free);
  g_clear_pointer (&options->path, g_free);
}

/* Prepares the path, runs the clients, prints, cleans up. */
static int
bench_run_on (const char *program, const BenchImpl *impl, const BenchOptions *options,
              BenchZk *admin)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) missing = NULL;
  BenchRun run = { .impl = impl, .options = options };
  BenchClient *clients;
  int status;

  missing = path_prepare (bench_zk_handle (admin), options->path, impl->creates_path, &error);
  if (missing == NULL)
    {
      g_printerr ("%s: %s\n", program, error->message);
      return 2;
    }
  g_mutex_init (&run.lock);
  g_cond_init (&run.cond);
  clients = g_new0 (BenchClient, options->clients);
  run_clients (&run, clients);
  if (report_failures (program, &run, clients))
    {
      print_result (&run, clients);
      status = g_atomic_int_get (&run.violations) == 0 ? 0 : 1;
    }
  else
    status = 2;
  for (guint i = 0; i < options->clients; i++)
    {
      g_array_unref (clients[i].acquire_us);
      g_clear_error (&clients[i].error);
    }
  g_free (clients);
  g_mutex_clear (&run.lock);
  g_cond_clear (&run.cond);
  path_cleanup (bench_zk_handle (admin), options->path, missing);
  return status;
}

int
bench_run (const char *program, const BenchImpl *impl, const BenchOptions *options)
{
  g_autoptr (GError) error = NULL;
  BenchZk *admin = bench_zk_connect (options->hosts, &error);
  int status;

  if (admin == NULL)
    {
      g_printerr ("%s: %s\n", program, error->message);
      return 2;
    }
  status = bench_run_on (program, impl, options, admin);
  bench_zk_close (admin);
  return status;
}

int
bench_main (const BenchImpl *impl, int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *program = g_strdup_printf ("bench_%s", impl->name);
  g_autoptr (GOptionContext) context = g_option_context_new ("- one contended lock, timed");
  GOptionGroup *group = g_option_group_new (NULL, NULL, NULL, NULL, NULL);
  const char *env_hosts = g_getenv ("ZKR_BENCH_HOSTS");
  BenchArgs *args = bench_args_new ();
  BenchOptions options = { 0 };
  int status = 2;

  bench_args_add (args, group, TRUE);
  g_option_context_set_main_group (context, group);
  if (!g_option_context_parse (context, &argc, &argv, &error)
      || (argc > 1 && (g_set_error (&error, BENCH_ERROR, ZBADARGUMENTS, "unexpected argument '%s'",
                                    argv[1]), TRUE))
      || !bench_args_finish (args, impl->name,
                             env_hosts != NULL && *env_hosts ? env_hosts : "127.0.0.1:2181",
                             &options, &error))
    g_printerr ("%s: %s (see --help)\n", program, error->message);
  else
    status = bench_run (program, impl, &options);
  bench_args_free (args);
  bench_options_clear (&options);
  return status;
}
