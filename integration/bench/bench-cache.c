/* zkr benchmark: how long a write takes to reach a cache in another
 * session. One process, two sessions: a raw libzookeeper writer sets a node
 * N times at a steady pace; the reader is a raw one-shot data watch re-armed
 * by a get (--impl raw) or a ZkrNodeCache listener (--impl zkr). One JSON
 * line per run with the latency percentiles. A figure, never a pass/fail
 * (docs/design.md §8.7). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zkr/zkr.h>

#include "bench-common.h"

#define CALL_MS 30000

typedef struct {
  char *hosts;
  char *impl;
  int count;
  int warmup;
  int interval_us;
  char *root;
  char *path;
} Options;

/* The writer stores a write's send time before sending it; the reader
 * reads it after seeing the write, so the send time is there (the atomics
 * only tell TSan what the server's ordering already guarantees). */
typedef struct {
  gint64 *sent_us;       /* per sequence number, CLOCK_MONOTONIC; -1: failed */
  gint64 *latency_us;    /* per sequence number; -1: not seen yet */
  GMutex lock;
  GCond cond;
  int last_seen;         /* lock: the highest sequence number seen */
  int coalesced;         /* lock: writes first seen through a later one */
  gboolean ready;        /* lock: the reader's first read is in */
  gboolean reader_failed; /* lock */
  int total;             /* writes, warm-up included */
  int write_failures;
} Shared;

static Shared shared;

static void
write_data (int seq, char *buf, gsize size)
{
  g_snprintf (buf, size, "seq:%d", seq);
}

/* The reader saw @data (any thread, one at a time): every write up to the
 * sequence number it carries has now been seen. A write overtaken before
 * the reader's get (one-shot watches see the latest data only) counts with
 * the time its successor was seen, as it would reach a user. */
static void
reader_saw (const char *data, gsize len)
{
  gint64 now = g_get_monotonic_time ();
  g_autofree char *text = g_strndup (data, len);
  int seq;

  if (!g_str_has_prefix (text, "seq:"))
    return;
  seq = atoi (text + 4);
  if (seq >= shared.total)
    return;
  g_mutex_lock (&shared.lock);
  shared.ready = TRUE;
  for (int i = shared.last_seen + 1; i <= seq; i++)
    {
      gint64 sent = __atomic_load_n (&shared.sent_us[i], __ATOMIC_ACQUIRE);

      if (sent >= 0)
        shared.latency_us[i] = now - sent;
      if (i < seq)
        shared.coalesced++;
    }
  shared.last_seen = MAX (shared.last_seen, seq);
  g_cond_broadcast (&shared.cond);
  g_mutex_unlock (&shared.lock);
}

/* Waits until @seq is seen (or, with @seq < 0, the first read is in), at
 * most until @deadline_us. */
static gboolean
wait_seen (int seq, gint64 deadline_us)
{
  gboolean ok;

  g_mutex_lock (&shared.lock);
  while (!(ok = seq < 0 ? shared.ready : shared.last_seen >= seq) && !shared.reader_failed &&
         g_cond_wait_until (&shared.cond, &shared.lock, deadline_us))
    ;
  ok = seq < 0 ? shared.ready : shared.last_seen >= seq;
  g_mutex_unlock (&shared.lock);
  return ok;
}

/* ---- raw libzookeeper reader ------------------------------------------- */

static void raw_watch (zhandle_t *zh, int type, int state, const char *path, void *ctx);

static void
raw_data (int rc, const char *value, int len, const struct Stat *stat, const void *data)
{
  (void) stat;
  (void) data;
  if (rc == ZOK && value != NULL && len > 0)
    reader_saw (value, (gsize) len);
}

/* Completion thread: the one-shot watch fired; the get sets it again and
 * brings the data. */
static void
raw_watch (zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
  (void) state;
  if (type == ZOO_SESSION_EVENT)
    return;
  if (zoo_awget (zh, path, raw_watch, ctx, raw_data, ctx) != ZOK)
    g_printerr ("bench-cache: the raw reader could not read %s again\n", path);
}

/* ---- zkr reader ---------------------------------------------------------- */

typedef struct {
  const Options *options;
  ZkrSession *session;
  GMainContext *context;
  GThread *thread;
  gint stop;
  GError *error;
} ZkrReader;

static void
zkr_changed (ZkrNodeCache *cache, const ZkrNodeCacheEvent *event, gpointer user_data)
{
  gsize len = 0;
  const char *data;

  (void) cache;
  (void) user_data;
  if ((event->type != ZKR_NODE_CACHE_CREATED && event->type != ZKR_NODE_CACHE_CHANGED) ||
      event->data == NULL)
    return;
  data = g_bytes_get_data (event->data, &len);
  if (len > 0)
    reader_saw (data, len);
}

/* The listener runs in this thread's context, as a user's would in theirs. */
static gpointer
zkr_reader_thread (gpointer data)
{
  ZkrReader *reader = data;
  ZkrNodeCache *cache;

  g_main_context_push_thread_default (reader->context);
  cache = zkr_node_cache_new (reader->session, reader->options->path, &reader->error);
  if (cache != NULL)
    {
      zkr_node_cache_add_listener (cache, zkr_changed, NULL, NULL);
      if (zkr_node_cache_start (cache, &reader->error))
        while (!g_atomic_int_get (&reader->stop))
          g_main_context_iteration (reader->context, TRUE);
      zkr_node_cache_close (cache);
      while (g_main_context_iteration (reader->context, FALSE))
        ;
      zkr_node_cache_unref (cache);
    }
  if (reader->error != NULL)
    {
      g_mutex_lock (&shared.lock);
      shared.reader_failed = TRUE;
      g_cond_broadcast (&shared.cond);
      g_mutex_unlock (&shared.lock);
    }
  g_main_context_pop_thread_default (reader->context);
  return NULL;
}

/* ---- the run ------------------------------------------------------------- */

/* The writer: the same raw handle and the same synchronous sets for both
 * readers, at a steady pace (the next write leaves at its own tick, or at
 * once if the last one took longer). */
static void
write_all (const Options *options, zhandle_t *zh)
{
  gint64 tick = g_get_monotonic_time ();
  int total = options->warmup + options->count;

  for (int i = 0; i < total; i++)
    {
      char buf[32];
      gint64 now = g_get_monotonic_time ();
      int rc;

      tick += options->interval_us;
      if (tick > now)
        g_usleep ((gulong) (tick - now));
      write_data (i, buf, sizeof buf);
      __atomic_store_n (&shared.sent_us[i], g_get_monotonic_time (), __ATOMIC_RELEASE);
      rc = zoo_set (zh, options->path, buf, (int) strlen (buf), -1);
      if (rc != ZOK)
        {
          __atomic_store_n (&shared.sent_us[i], -1, __ATOMIC_RELEASE);
          shared.write_failures++;
          g_printerr ("bench-cache: set %s: %s\n", options->path, zerror (rc));
        }
    }
}

static int
compare_gint64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* Nearest rank. */
static gint64
percentile (const gint64 *sorted, int n, double p)
{
  int rank = (int) (p * n + 0.999999);

  return n == 0 ? -1 : sorted[CLAMP (rank, 1, n) - 1];
}

static void
report (const Options *options)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  gint64 *sorted = g_new (gint64, options->count);
  int n = 0, missing = 0;

  g_mutex_lock (&shared.lock);
  for (int i = options->warmup; i < options->warmup + options->count; i++)
    if (shared.latency_us[i] >= 0)
      sorted[n++] = shared.latency_us[i];
    else
      missing++;
  g_mutex_unlock (&shared.lock);
  qsort (sorted, (size_t) n, sizeof *sorted, compare_gint64);
  json_builder_begin_object (builder);
  bench_json_add_string (builder, "bench", "cache");
  bench_json_add_string (builder, "impl", options->impl);
  bench_json_add_string (builder, "reader",
                         strcmp (options->impl, "raw") == 0 ? "watch+get" : "node-cache");
  bench_json_add_double (builder, "interval_ms", options->interval_us / 1000.0, 3);
  bench_json_add_int (builder, "count", n);
  bench_json_add_int (builder, "p50_us", percentile (sorted, n, 0.50));
  bench_json_add_int (builder, "p90_us", percentile (sorted, n, 0.90));
  bench_json_add_int (builder, "p99_us", percentile (sorted, n, 0.99));
  bench_json_add_int (builder, "max_us", n > 0 ? sorted[n - 1] : -1);
  bench_json_add_int (builder, "coalesced", shared.coalesced);
  bench_json_add_int (builder, "missing", missing);
  bench_json_add_int (builder, "write_failures", shared.write_failures);
  json_builder_end_object (builder);
  bench_print_json (builder);
  g_free (sorted);
}

/* The whole timed part, once the reader is up: all writes, then the wait
 * for the last one to be seen. */
static gboolean
write_and_wait (const Options *options, zhandle_t *writer)
{
  int last = options->warmup + options->count - 1;

  write_all (options, writer);
  if (!wait_seen (last, g_get_monotonic_time () + CALL_MS * G_TIME_SPAN_MILLISECOND))
    {
      g_printerr ("bench-cache: write %d not seen within %d ms\n", last, CALL_MS);
      return FALSE;
    }
  return TRUE;
}

static int
run_raw (const Options *options, zhandle_t *writer)
{
  GError *error = NULL;
  BenchZk *zk = bench_zk_connect (options->hosts, &error);
  gboolean ok;

  if (zk == NULL)
    {
      g_printerr ("bench-cache: %s\n", error->message);
      g_error_free (error);
      return 2;
    }
  ok = zoo_awget (bench_zk_handle (zk), options->path, raw_watch, NULL, raw_data, NULL) == ZOK &&
       wait_seen (-1, g_get_monotonic_time () + CALL_MS * G_TIME_SPAN_MILLISECOND) &&
       write_and_wait (options, writer);
  if (ok)
    report (options);
  else
    g_printerr ("bench-cache: the raw reader failed\n");
  bench_zk_close (zk);
  return ok ? 0 : 2;
}

static int
run_zkr (const Options *options, zhandle_t *writer)
{
  g_autoptr (ZkrSessionOptions) session_options = zkr_session_options_new ();
  ZkrReader reader = { .options = options };
  gboolean ok;

  zkr_session_options_set_hosts (session_options, options->hosts);
  reader.session = zkr_session_connect (session_options, &reader.error);
  if (reader.session == NULL)
    {
      g_printerr ("bench-cache: %s\n", reader.error->message);
      g_error_free (reader.error);
      return 2;
    }
  reader.context = g_main_context_new ();
  reader.thread = g_thread_new ("bench-cache-reader", zkr_reader_thread, &reader);
  /* The cache's first read reports the node CREATED: the reader is up. */
  ok = wait_seen (-1, g_get_monotonic_time () + CALL_MS * G_TIME_SPAN_MILLISECOND) &&
       write_and_wait (options, writer);
  if (ok)
    report (options);
  g_atomic_int_set (&reader.stop, 1);
  g_main_context_wakeup (reader.context);
  g_thread_join (reader.thread);
  if (reader.error != NULL)
    {
      g_printerr ("bench-cache: %s\n", reader.error->message);
      g_error_free (reader.error);
      ok = FALSE;
    }
  g_main_context_unref (reader.context);
  zkr_session_unref (reader.session);
  return ok ? 0 : 2;
}

/* The root and the node, made before the run (the node holding a sequence
 * number below every write's) and removed after it. */
static gboolean
node_prepare (const Options *options, zhandle_t *zh)
{
  int rc;

  (void) zoo_create (zh, "/zkr-bench", NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
  rc = zoo_create (zh, options->root, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
  if (rc == ZOK)
    rc = zoo_create (zh, options->path, "seq:-1", 6, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL,
                     0);
  if (rc != ZOK)
    g_printerr ("bench-cache: create %s: %s\n", options->path, zerror (rc));
  return rc == ZOK;
}

static gboolean
node_remove (const Options *options, zhandle_t *zh)
{
  int rc = zoo_delete (zh, options->path, -1);

  if (rc == ZOK || rc == ZNONODE)
    rc = zoo_delete (zh, options->root, -1);
  if (rc != ZOK)
    g_printerr ("bench-cache: delete %s: %s\n", options->root, zerror (rc));
  return rc == ZOK;
}

static gboolean
parse_options (Options *options, int *argc, char ***argv)
{
  double interval_ms = 5;
  GOptionEntry entries[] = {
    { "hosts", 0, 0, G_OPTION_ARG_STRING, &options->hosts, "connect string", "H" },
    { "impl", 0, 0, G_OPTION_ARG_STRING, &options->impl, "raw or zkr", "I" },
    { "count", 0, 0, G_OPTION_ARG_INT, &options->count, "timed writes (default 1000)", "N" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &options->warmup, "untimed writes first (default 100)",
      "W" },
    { "interval-ms", 0, 0, G_OPTION_ARG_DOUBLE, &interval_ms,
      "time between writes (default 5)", "MS" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) context =
    g_option_context_new ("- latency from a write to a cache in another session");
  GError *error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      g_printerr ("bench-cache: %s\n", error->message);
      g_error_free (error);
      return FALSE;
    }
  if (options->hosts == NULL)
    options->hosts = g_strdup (g_getenv ("ZKR_BENCH_HOSTS"));
  options->interval_us = (int) (interval_ms * 1000);
  if (options->hosts == NULL || options->impl == NULL ||
      (strcmp (options->impl, "raw") != 0 && strcmp (options->impl, "zkr") != 0) ||
      options->count < 1 || options->warmup < 0 || interval_ms < 0 || interval_ms > 60000)
    {
      g_printerr ("bench-cache: need --hosts (or ZKR_BENCH_HOSTS), --impl raw|zkr, "
                  "--count >= 1, --warmup >= 0, 0 <= --interval-ms <= 60000\n");
      return FALSE;
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  Options options = { .count = 1000, .warmup = 100 };
  GError *error = NULL;
  BenchZk *writer;
  int total, status;

  if (!parse_options (&options, &argc, &argv))
    return 2;
  total = shared.total = options.warmup + options.count;
  shared.sent_us = g_new (gint64, total);
  shared.latency_us = g_new (gint64, total);
  for (int i = 0; i < total; i++)
    shared.sent_us[i] = shared.latency_us[i] = -1;
  shared.last_seen = -1;
  g_mutex_init (&shared.lock);
  g_cond_init (&shared.cond);
  options.root = g_strdup_printf ("/zkr-bench/cache-%s-%d", options.impl, (int) getpid ());
  options.path = g_strdup_printf ("%s/node", options.root);
  writer = bench_zk_connect (options.hosts, &error);
  if (writer == NULL)
    {
      g_printerr ("bench-cache: %s\n", error->message);
      g_error_free (error);
      return 2;
    }
  if (!node_prepare (&options, bench_zk_handle (writer)))
    status = 2;
  else
    status = strcmp (options.impl, "raw") == 0 ? run_raw (&options, bench_zk_handle (writer))
                                               : run_zkr (&options, bench_zk_handle (writer));
  if (!node_remove (&options, bench_zk_handle (writer)))
    status = 2;
  bench_zk_close (writer);
  if (shared.write_failures > 0)
    status = MAX (status, 1);
  g_free (shared.sent_us);
  g_free (shared.latency_us);
  g_free (options.root);
  g_free (options.path);
  g_free (options.hosts);
  g_free (options.impl);
  return status;
}
