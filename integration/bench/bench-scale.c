/* zkr benchmark: scale (many locks, many held, deep queues), one program in four modes.
 * ceiling: the server's write ceiling, a raw create/delete loop of
 * ephemeral-sequential nodes. many-locks: N lock paths each acquired and
 * released in a loop, zkr's async mutex calls (--impl zkr) or the same on
 * raw libzookeeper (--impl raw). held: one session acquires N locks and
 * holds them (memory, times; --expire: the session expired from outside,
 * every loss listener counted). deep-queue: many waiters on one lock from
 * several processes (this program again): server watches, wake-ups per
 * hand-off, hand-off latency. Each run prints one JSON line on stdout and
 * a human line on stderr; figures, never a pass/fail (docs/design.md §8.7).
 *
 * Linked with the static library and its test hooks (zkr_internal_dep, as
 * the demo is), not with libzkr: the expiry from outside and the queue
 * engine's wake-up counters are internal. The objects are libzkr's. */

#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <zkr/zkr.h>

#include "bench-common.h"
#include "queue-lock.h"
#include "session-private.h"

/* The longest wait for a batch of requests, acquisitions or a drain. */
#define SETTLE_US (180 * G_USEC_PER_SEC)
/* How long a held lock is left before its memory is read: the hold's
 * watch on its own node is placed 0.1 to 1.1 s after the grant. */
#define HOLD_SETTLE_MS 2000
/* Listings of the queue the deep-queue parent times for their cost. */
#define LISTING_SAMPLES 20

typedef struct {
  char *hosts;
  char *mode;
  char *impl;
  char *root;
  int sessions;
  int window;
  int locks;
  int waiters;
  int procs;
  int session_timeout_ms;
  int server_pid;     /* a local server's process, for its CPU time; 0: none */
  double seconds;
  double warmup;
  gboolean expire;
  char *child_path;   /* deep-queue-child: the lock's path */
} Options;

/* ---- figures of the process ------------------------------------------- */

typedef struct {
  gint64 cpu_us;      /* user + system, all threads */
  gint64 rss_kib;     /* resident now */
  gint64 heap_bytes;  /* malloc'd and in use, every arena (mallinfo2) */
} Usage;

static void
usage_take (Usage *usage)
{
  struct rusage ru;
  struct mallinfo2 heap = mallinfo2 ();
  long size = 0, resident = 0;
  FILE *statm = fopen ("/proc/self/statm", "r");

  getrusage (RUSAGE_SELF, &ru);
  usage->cpu_us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * G_USEC_PER_SEC +
                  ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
  if (statm == NULL || fscanf (statm, "%ld %ld", &size, &resident) != 2)
    resident = 0;
  if (statm != NULL)
    fclose (statm);
  usage->rss_kib = resident * (sysconf (_SC_PAGESIZE) / 1024);
  usage->heap_bytes = (gint64) (heap.uordblks + heap.hblkhd);
}

/* The CPU time (user + system) process @pid has used, from /proc; 0 when
 * unknown. */
static gint64
process_cpu_us (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *text = NULL;
  const char *after_name;
  unsigned long user_ticks, system_ticks;

  if (pid <= 0 || !g_file_get_contents (path, &text, NULL, NULL) ||
      (after_name = strrchr (text, ')')) == NULL)
    return 0;
  /* Fields 3 (state) to 13, then utime and stime (proc(5)). */
  if (sscanf (after_name + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
              &user_ticks, &system_ticks) != 2)
    return 0;
  return (gint64) (user_ticks + system_ticks) * G_USEC_PER_SEC / sysconf (_SC_CLK_TCK);
}

static gint64
max_rss_kib (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* Nearest rank of @p (0-100) in @values (µs, sorted here), in ms. */
static double
percentile_ms (GArray *values, double p)
{
  guint rank;

  if (values->len == 0)
    return 0;
  g_array_sort (values, compare_gint64);
  rank = (guint) (p / 100.0 * values->len + 0.999999);
  rank = CLAMP (rank, 1, values->len);
  return g_array_index (values, gint64, rank - 1) / 1000.0;
}

/* ---- many raw requests at once ------------------------------------------ */

/* Requests sent together and waited for together. Freed by the last of
 * the waiter and the answers: a wait that gives up leaves it to them. */
typedef struct {
  GMutex lock;
  GCond cond;
  int pending;
  int failures;
  int first_rc;
  gboolean abandoned;
} Batch;

static Batch *
batch_new (int pending)
{
  Batch *batch = g_new0 (Batch, 1);

  g_mutex_init (&batch->lock);
  g_cond_init (&batch->cond);
  batch->pending = pending;
  return batch;
}

static void
batch_free (Batch *batch)
{
  g_mutex_clear (&batch->lock);
  g_cond_clear (&batch->cond);
  g_free (batch);
}

/* Any thread (libzookeeper's completion thread, or the sender when a
 * request could not be sent). */
static void
batch_one_done (Batch *batch, int rc)
{
  gboolean orphan;

  g_mutex_lock (&batch->lock);
  if (rc != ZOK && batch->failures++ == 0)
    batch->first_rc = rc;
  batch->pending--;
  orphan = batch->abandoned && batch->pending == 0;
  g_cond_broadcast (&batch->cond);
  g_mutex_unlock (&batch->lock);
  if (orphan)
    batch_free (batch);
}

static void
batch_created (int rc, const char *value, const void *data)
{
  (void) value;
  batch_one_done ((Batch *) data, rc == ZNODEEXISTS ? ZOK : rc);
}

static void
batch_deleted (int rc, const void *data)
{
  batch_one_done ((Batch *) data, rc == ZNONODE ? ZOK : rc);
}

/* Waits for every answer and frees @batch; FALSE (named) on a failure or
 * when the answers did not all come in time. */
static gboolean
batch_finish (Batch *batch, const char *what)
{
  gint64 deadline = g_get_monotonic_time () + SETTLE_US;
  gboolean done;

  g_mutex_lock (&batch->lock);
  while (batch->pending > 0 && g_cond_wait_until (&batch->cond, &batch->lock, deadline))
    ;
  done = batch->pending == 0;
  batch->abandoned = !done;
  g_mutex_unlock (&batch->lock);
  if (!done)
    {
      g_printerr ("bench-scale: %s: answers missing after %d s\n", what,
                  (int) (SETTLE_US / G_USEC_PER_SEC));
      return FALSE;
    }
  if (batch->failures > 0)
    g_printerr ("bench-scale: %s: %d failed, the first with %s\n", what, batch->failures,
                zerror (batch->first_rc));
  done = batch->failures == 0;
  batch_free (batch);
  return done;
}

/* ---- the nodes of a run ------------------------------------------------- */

static char *
lock_parent (const char *root, int i)
{
  return g_strdup_printf ("%s/l%d", root, i);
}

/* /zkr-bench, @root and @parents lock paths under it (persistent). */
static gboolean
tree_create (zhandle_t *zh, const char *root, int parents)
{
  Batch *batch;
  int rc;

  (void) zoo_create (zh, "/zkr-bench", NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  rc = zoo_create (zh, root, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  if (rc != ZOK)
    {
      g_printerr ("bench-scale: create %s: %s\n", root, zerror (rc));
      return FALSE;
    }
  batch = batch_new (parents);
  for (int i = 0; i < parents; i++)
    {
      g_autofree char *path = lock_parent (root, i);

      rc = zoo_acreate (zh, path, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, batch_created, batch);
      if (rc != ZOK)
        batch_one_done (batch, rc);
    }
  return batch_finish (batch, "create the lock paths");
}

static void
delete_tree (zhandle_t *zh, const char *path)
{
  struct String_vector children = { 0 };

  if (zoo_get_children (zh, path, 0, &children) == ZOK)
    for (int i = 0; i < children.count; i++)
      {
        g_autofree char *child = g_strdup_printf ("%s/%s", path, children.data[i]);

        delete_tree (zh, child);
      }
  deallocate_String_vector (&children);
  (void) zoo_delete (zh, path, -1);
}

/* Everything under @root and @root itself, the @parents lock paths first
 * in one batch (anything left under one is removed one by one after). */
static gboolean
tree_remove (zhandle_t *zh, const char *root, int parents)
{
  Batch *batch = batch_new (parents);
  int rc;

  for (int i = 0; i < parents; i++)
    {
      g_autofree char *path = lock_parent (root, i);

      rc = zoo_adelete (zh, path, -1, batch_deleted, batch);
      if (rc != ZOK)
        batch_one_done (batch, rc);
    }
  (void) batch_finish (batch, "delete the lock paths");
  delete_tree (zh, root);
  rc = zoo_exists (zh, root, 0, NULL);
  if (rc != ZNONODE)
    g_printerr ("bench-scale: %s is still there (%s)\n", root, zerror (rc));
  return rc == ZNONODE;
}

/* ---- four-letter words ---------------------------------------------------- */

/* The answer of the first server of @hosts to @command, or NULL (named). */
static char *
fourlw (const char *hosts, const char *command)
{
  g_auto (GStrv) members = g_strsplit (hosts, ",", 2);
  g_autofree char *host = g_strndup (members[0], strcspn (members[0], "/"));
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GSocketConnection) connection = NULL;
  g_autoptr (GString) answer = g_string_new (NULL);
  GError *error = NULL;
  char buffer[65536];
  gssize got;

  g_socket_client_set_timeout (client, 10);
  connection = g_socket_client_connect_to_host (client, host, 2181, NULL, &error);
  if (connection == NULL ||
      !g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                                  command, strlen (command), NULL, NULL, &error))
    {
      g_printerr ("bench-scale: %s to %s: %s\n", command, host, error->message);
      g_error_free (error);
      return NULL;
    }
  while ((got = g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM (connection)),
                                     buffer, sizeof buffer, NULL, &error)) > 0)
    g_string_append_len (answer, buffer, got);
  if (got < 0)
    {
      g_printerr ("bench-scale: %s to %s: %s\n", command, host, error->message);
      g_error_free (error);
      return NULL;
    }
  return g_strdup (answer->str);
}

/* The watches `wchc` lists on nodes under @under, of sessions other than
 * @skip_session ("0x..." or NULL). */
typedef struct {
  guint watches;         /* (session, path) pairs */
  guint distinct_paths;
  guint on_parent;       /* on @under itself: a child watch, a herd */
  guint sessions;        /* sessions with at least one */
} WatchCount;

static gboolean
watch_count_take (const char *hosts, const char *under, const char *skip_session,
                  WatchCount *count)
{
  g_autofree char *answer = fourlw (hosts, "wchc");
  g_autoptr (GHashTable) paths = g_hash_table_new (g_str_hash, g_str_equal);
  g_auto (GStrv) lines = NULL;
  gsize under_len = strlen (under);
  const char *session = "";
  gboolean session_counted = FALSE;

  memset (count, 0, sizeof *count);
  if (answer == NULL)
    return FALSE;
  lines = g_strsplit (answer, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);

      if (g_str_has_prefix (line, "0x"))
        {
          session = line;
          session_counted = FALSE;
          continue;
        }
      if (line[0] != '/' || strncmp (line, under, under_len) != 0 ||
          (line[under_len] != '\0' && line[under_len] != '/') ||
          (skip_session != NULL && g_ascii_strcasecmp (session, skip_session) == 0))
        continue;
      count->watches++;
      count->on_parent += line[under_len] == '\0';
      g_hash_table_add (paths, line);
      if (!session_counted)
        count->sessions++;
      session_counted = TRUE;
    }
  count->distinct_paths = g_hash_table_size (paths);
  return TRUE;
}

/* ---- the loops: shared state ---------------------------------------------- */

/* What every slot of a ceiling or many-locks run shares. */
typedef struct {
  gint running;     /* slots start another cycle while set */
  gint counting;    /* cycles finished now count */
  gint cycles;
  gint in_flight;   /* slots with a cycle under way */
  gint failures;
  gint contended;   /* raw many-locks: a listing showed a node ahead of ours */
  gint error_shown;
} Shared;

static Shared shared;

static void
cycle_done (gboolean ok)
{
  if (!ok)
    g_atomic_int_inc (&shared.failures);
  else if (g_atomic_int_get (&shared.counting))
    g_atomic_int_inc (&shared.cycles);
}

/* Whether a slot starts another cycle; a slot that does not leaves. */
static gboolean
slot_goes_on (void)
{
  if (g_atomic_int_get (&shared.running))
    return TRUE;
  g_atomic_int_add (&shared.in_flight, -1);
  return FALSE;
}

static void
show_first_error (const char *what, const char *message)
{
  if (g_atomic_int_compare_and_exchange (&shared.error_shown, 0, 1))
    g_printerr ("bench-scale: %s: %s (later failures are only counted)\n", what, message);
}

/* The timed part of a run. */
typedef struct {
  double seconds;
  int cycles;
  gint64 cpu_us;
  gint64 server_cpu_us;   /* 0 without --server-pid */
  gboolean drained;   /* every slot stopped in time */
} Phase;

static gboolean
wake_loop (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}

/* Warm-up, the timed phase, then the stop and the drain. Each context of
 * @contexts gets a timer so that its loop looks at the flags again. */
static void
run_phases (const Options *options, GPtrArray *contexts, Phase *phase)
{
  GPtrArray *timers = g_ptr_array_new ();
  gint64 start, deadline, server_before;
  Usage before, after;

  for (guint i = 0; i < contexts->len; i++)
    {
      GSource *source = g_timeout_source_new (50);

      g_source_set_callback (source, wake_loop, NULL, NULL);
      g_source_attach (source, g_ptr_array_index (contexts, i));
      g_ptr_array_add (timers, source);
    }
  g_usleep ((gulong) (options->warmup * G_USEC_PER_SEC));
  usage_take (&before);
  server_before = process_cpu_us (options->server_pid);
  start = g_get_monotonic_time ();
  g_atomic_int_set (&shared.counting, 1);
  g_usleep ((gulong) (options->seconds * G_USEC_PER_SEC));
  g_atomic_int_set (&shared.counting, 0);
  usage_take (&after);
  phase->server_cpu_us = process_cpu_us (options->server_pid) - server_before;
  phase->seconds = (g_get_monotonic_time () - start) / 1e6;
  phase->cycles = g_atomic_int_get (&shared.cycles);
  phase->cpu_us = after.cpu_us - before.cpu_us;
  g_atomic_int_set (&shared.running, 0);
  deadline = g_get_monotonic_time () + SETTLE_US;
  while (g_atomic_int_get (&shared.in_flight) > 0 && g_get_monotonic_time () < deadline)
    g_usleep (1000);
  phase->drained = g_atomic_int_get (&shared.in_flight) == 0;
  if (!phase->drained)
    g_printerr ("bench-scale: %d slots still busy after the run\n",
                g_atomic_int_get (&shared.in_flight));
  for (guint i = 0; i < timers->len; i++)
    {
      g_source_destroy (g_ptr_array_index (timers, i));
      g_source_unref (g_ptr_array_index (timers, i));
    }
  g_ptr_array_unref (timers);
}

/* Who spent the CPU: this process's and the server's cores over the phase. */
static void
result_add_cores (JsonBuilder *builder, const Options *options, const Phase *phase)
{
  bench_json_add_double (builder, "client_cores", phase->cpu_us / (phase->seconds * 1e6), 3);
  if (options->server_pid > 0)
    bench_json_add_double (builder, "server_cores",
                           phase->server_cpu_us / (phase->seconds * 1e6), 3);
}

static JsonBuilder *
result_begin (const Options *options, const char *impl)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  bench_json_add_string (builder, "bench", "scale");
  bench_json_add_string (builder, "mode", options->mode);
  bench_json_add_string (builder, "impl", impl);
  return builder;
}

static void
result_end (JsonBuilder *builder)
{
  json_builder_end_object (builder);
  bench_print_json (builder);
  g_object_unref (builder);
}

/* Raw sessions, one per @count, or NULL (named). */
static GPtrArray *
raw_sessions_open (const Options *options, int count)
{
  GPtrArray *zks = g_ptr_array_new_with_free_func ((GDestroyNotify) bench_zk_close);
  GError *error = NULL;

  for (int k = 0; k < count; k++)
    {
      BenchZk *zk = bench_zk_connect (options->hosts, &error);

      if (zk == NULL)
        {
          g_printerr ("bench-scale: %s\n", error->message);
          g_error_free (error);
          g_ptr_array_unref (zks);
          return NULL;
        }
      g_ptr_array_add (zks, zk);
    }
  return zks;
}

/* ---- 1. ceiling: raw creates and deletes ----------------------------------- */

typedef struct {
  zhandle_t *zh;
  const char *prefix;
} CeilingSlot;

static void ceiling_start (CeilingSlot *slot);

static void
ceiling_deleted (int rc, const void *data)
{
  cycle_done (rc == ZOK);
  ceiling_start ((CeilingSlot *) data);
}

static void
ceiling_created (int rc, const char *value, const void *data)
{
  CeilingSlot *slot = (CeilingSlot *) data;

  if (rc != ZOK)
    ceiling_deleted (rc, slot);
  else if ((rc = zoo_adelete (slot->zh, value, -1, ceiling_deleted, slot)) != ZOK)
    ceiling_deleted (rc, slot);
}

/* The first call, or the completion thread after a cycle. */
static void
ceiling_start (CeilingSlot *slot)
{
  int rc;

  if (!slot_goes_on ())
    return;
  rc = zoo_acreate (slot->zh, slot->prefix, NULL, -1, &ZOO_OPEN_ACL_UNSAFE,
                    ZOO_EPHEMERAL | ZOO_SEQUENCE, ceiling_created, slot);
  if (rc != ZOK)
    {
      show_first_error ("create", zerror (rc));
      g_atomic_int_inc (&shared.failures);
      g_atomic_int_add (&shared.in_flight, -1);
    }
}

static int
run_ceiling (const Options *options, zhandle_t *admin)
{
  int slots_count = options->sessions * options->window;
  CeilingSlot *slots = g_new0 (CeilingSlot, slots_count);
  g_autofree char *prefix = g_strdup_printf ("%s/n-", options->root);
  g_autoptr (GPtrArray) no_contexts = g_ptr_array_new ();
  GPtrArray *zks;
  JsonBuilder *builder;
  Phase phase;

  if (!tree_create (admin, options->root, 0) ||
      (zks = raw_sessions_open (options, options->sessions)) == NULL)
    {
      g_free (slots);
      return 2;
    }
  for (int i = 0; i < slots_count; i++)
    {
      slots[i].zh = bench_zk_handle (g_ptr_array_index (zks, i / options->window));
      slots[i].prefix = prefix;
    }
  g_atomic_int_set (&shared.running, 1);
  g_atomic_int_set (&shared.in_flight, slots_count);
  for (int i = 0; i < slots_count; i++)
    ceiling_start (&slots[i]);
  run_phases (options, no_contexts, &phase);
  g_ptr_array_unref (zks);
  g_free (slots);
  (void) tree_remove (admin, options->root, 0);

  builder = result_begin (options, "raw");
  bench_json_add_int (builder, "sessions", options->sessions);
  bench_json_add_int (builder, "window", options->window);
  bench_json_add_double (builder, "seconds", phase.seconds, 3);
  bench_json_add_int (builder, "cycles", phase.cycles);
  bench_json_add_double (builder, "writes_per_s", 2.0 * phase.cycles / phase.seconds, 1);
  bench_json_add_double (builder, "acquisitions_ceiling_per_s", phase.cycles / phase.seconds, 1);
  bench_json_add_double (builder, "cpu_us_per_write",
                         phase.cycles > 0 ? phase.cpu_us / (2.0 * phase.cycles) : 0, 2);
  result_add_cores (builder, options, &phase);
  bench_json_add_int (builder, "failures", g_atomic_int_get (&shared.failures));
  result_end (builder);
  g_printerr ("ceiling: %d sessions x %d in flight: %.0f writes/s, so at most %.0f "
              "acquisitions/s (%d failures)\n", options->sessions, options->window,
              2.0 * phase.cycles / phase.seconds, phase.cycles / phase.seconds,
              g_atomic_int_get (&shared.failures));
  return phase.drained ? 0 : 2;
}

/* ---- 2. many-locks, raw: create, list, delete ------------------------------- */

typedef struct {
  zhandle_t *zh;
  char *parent;   /* the lock's path */
  char *prefix;   /* parent/lock- */
  char *node;     /* (nullable) our node's full path */
} RawLockSlot;

static void raw_lock_start (RawLockSlot *slot);

static void
raw_lock_deleted (int rc, const void *data)
{
  RawLockSlot *slot = (RawLockSlot *) data;

  g_clear_pointer (&slot->node, g_free);
  if (rc != ZOK)
    show_first_error ("delete", zerror (rc));
  cycle_done (rc == ZOK);
  raw_lock_start (slot);
}

/* Uncontended: ours must be the lowest (the only) node of the listing. */
static void
raw_lock_listed (int rc, const struct String_vector *children, const void *data)
{
  RawLockSlot *slot = (RawLockSlot *) data;
  const char *ours = strrchr (slot->node, '/') + 1;

  if (rc == ZOK)
    for (int i = 0; i < children->count; i++)
      if (strcmp (children->data[i], ours) < 0)
        {
          g_atomic_int_inc (&shared.contended);
          break;
        }
  if (rc != ZOK)
    show_first_error ("list", zerror (rc));
  rc = zoo_adelete (slot->zh, slot->node, -1, raw_lock_deleted, slot);
  if (rc != ZOK)
    raw_lock_deleted (rc, slot);
}

static void
raw_lock_created (int rc, const char *value, const void *data)
{
  RawLockSlot *slot = (RawLockSlot *) data;

  if (rc != ZOK)
    {
      show_first_error ("create", zerror (rc));
      cycle_done (FALSE);
      raw_lock_start (slot);
      return;
    }
  slot->node = g_strdup (value);
  rc = zoo_aget_children (slot->zh, slot->parent, 0, raw_lock_listed, slot);
  if (rc != ZOK)
    raw_lock_listed (rc, NULL, slot);
}

static void
raw_lock_start (RawLockSlot *slot)
{
  int rc;

  if (!slot_goes_on ())
    return;
  rc = zoo_acreate (slot->zh, slot->prefix, NULL, -1, &ZOO_OPEN_ACL_UNSAFE,
                    ZOO_EPHEMERAL | ZOO_SEQUENCE, raw_lock_created, slot);
  if (rc != ZOK)
    {
      show_first_error ("create", zerror (rc));
      g_atomic_int_inc (&shared.failures);
      g_atomic_int_add (&shared.in_flight, -1);
    }
}

static gboolean
many_locks_raw (const Options *options, Phase *phase)
{
  RawLockSlot *slots = g_new0 (RawLockSlot, options->locks);
  g_autoptr (GPtrArray) no_contexts = g_ptr_array_new ();
  GPtrArray *zks = raw_sessions_open (options, options->sessions);

  if (zks == NULL)
    {
      g_free (slots);
      return FALSE;
    }
  for (int i = 0; i < options->locks; i++)
    {
      slots[i].zh = bench_zk_handle (g_ptr_array_index (zks, i % options->sessions));
      slots[i].parent = lock_parent (options->root, i);
      slots[i].prefix = g_strconcat (slots[i].parent, "/lock-", NULL);
    }
  g_atomic_int_set (&shared.running, 1);
  g_atomic_int_set (&shared.in_flight, options->locks);
  for (int i = 0; i < options->locks; i++)
    raw_lock_start (&slots[i]);
  run_phases (options, no_contexts, phase);
  g_ptr_array_unref (zks);
  for (int i = 0; i < options->locks; i++)
    {
      g_free (slots[i].parent);
      g_free (slots[i].prefix);
      g_free (slots[i].node);
    }
  g_free (slots);
  return TRUE;
}

/* ---- 2. many-locks, zkr: zkr_mutex_acquire_async / release_async ----------- */

typedef struct {
  ZkrMutex *mutex;
} ZkrLockSlot;

/* One session; its slots' callbacks run in a context of its own, on a
 * thread of its own (the raw loop's run on each handle's own thread). */
typedef struct {
  ZkrSession *session;
  GMainContext *context;
  GThread *thread;
  GPtrArray *slots;   /* ZkrLockSlot, owned */
} ZkrClient;

static void zkr_lock_start (ZkrLockSlot *slot);

static void
zkr_lock_released (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrLockSlot *slot = data;
  GError *error = NULL;

  (void) source;
  if (!zkr_mutex_release_finish (slot->mutex, result, &error))
    {
      show_first_error ("release", error->message);
      g_error_free (error);
      cycle_done (FALSE);
    }
  else
    cycle_done (TRUE);
  zkr_lock_start (slot);
}

static void
zkr_lock_acquired (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrLockSlot *slot = data;
  GError *error = NULL;

  (void) source;
  if (!zkr_mutex_acquire_finish (slot->mutex, result, &error))
    {
      show_first_error ("acquire", error->message);
      g_error_free (error);
      cycle_done (FALSE);
      zkr_lock_start (slot);
      return;
    }
  zkr_mutex_release_async (slot->mutex, NULL, zkr_lock_released, slot);
}

static void
zkr_lock_start (ZkrLockSlot *slot)
{
  if (slot_goes_on ())
    zkr_mutex_acquire_async (slot->mutex, -1, NULL, zkr_lock_acquired, slot);
}

static void
zkr_lock_slot_free (gpointer data)
{
  ZkrLockSlot *slot = data;

  zkr_mutex_unref (slot->mutex);
  g_free (slot);
}

static gpointer
zkr_client_thread (gpointer data)
{
  ZkrClient *client = data;

  g_main_context_push_thread_default (client->context);
  for (guint j = 0; j < client->slots->len; j++)
    zkr_lock_start (g_ptr_array_index (client->slots, j));
  while (g_atomic_int_get (&shared.in_flight) > 0 || g_atomic_int_get (&shared.running))
    g_main_context_iteration (client->context, TRUE);
  /* The slots' mutexes go on this thread, in their callbacks' context. */
  g_ptr_array_set_size (client->slots, 0);
  g_main_context_pop_thread_default (client->context);
  return NULL;
}

static ZkrSession *
zkr_session_open (const Options *options)
{
  g_autoptr (ZkrSessionOptions) session_options = zkr_session_options_new ();
  ZkrSession *session;
  GError *error = NULL;

  zkr_session_options_set_hosts (session_options, options->hosts);
  zkr_session_options_set_session_timeout_ms (session_options, options->session_timeout_ms);
  session = zkr_session_connect (session_options, &error);
  if (session == NULL)
    {
      g_printerr ("bench-scale: %s\n", error->message);
      g_error_free (error);
    }
  return session;
}

static gboolean
many_locks_zkr (const Options *options, Phase *phase)
{
  ZkrClient *clients = g_new0 (ZkrClient, options->sessions);
  g_autoptr (GPtrArray) contexts = g_ptr_array_new ();
  gboolean ok = TRUE;

  for (int k = 0; k < options->sessions && ok; k++)
    {
      clients[k].session = zkr_session_open (options);
      clients[k].context = g_main_context_new ();
      clients[k].slots = g_ptr_array_new_with_free_func (zkr_lock_slot_free);
      g_ptr_array_add (contexts, clients[k].context);
      ok = clients[k].session != NULL;
    }
  for (int i = 0; i < options->locks && ok; i++)
    {
      ZkrClient *client = &clients[i % options->sessions];
      g_autofree char *path = lock_parent (options->root, i);
      ZkrLockSlot *slot = g_new0 (ZkrLockSlot, 1);

      slot->mutex = zkr_mutex_new (client->session, path, NULL);
      g_ptr_array_add (client->slots, slot);
    }
  if (ok)
    {
      g_atomic_int_set (&shared.running, 1);
      g_atomic_int_set (&shared.in_flight, options->locks);
      for (int k = 0; k < options->sessions; k++)
        clients[k].thread = g_thread_new ("bench-scale", zkr_client_thread, &clients[k]);
      run_phases (options, contexts, phase);
    }
  for (int k = 0; k < options->sessions; k++)
    {
      if (clients[k].thread != NULL)
        g_thread_join (clients[k].thread);
      g_clear_pointer (&clients[k].slots, g_ptr_array_unref);
      g_clear_pointer (&clients[k].session, zkr_session_unref);
      g_clear_pointer (&clients[k].context, g_main_context_unref);
    }
  g_free (clients);
  return ok;
}

static int
run_many_locks (const Options *options, zhandle_t *admin)
{
  gboolean zkr = strcmp (options->impl, "zkr") == 0;
  gboolean ok;
  JsonBuilder *builder;
  Phase phase = { 0 };
  double per_s;

  if (!tree_create (admin, options->root, options->locks))
    return 2;
  ok = zkr ? many_locks_zkr (options, &phase) : many_locks_raw (options, &phase);
  ok = tree_remove (admin, options->root, options->locks) && ok;
  if (!ok)
    return 2;
  per_s = phase.cycles / phase.seconds;
  builder = result_begin (options, options->impl);
  bench_json_add_int (builder, "locks", options->locks);
  bench_json_add_int (builder, "sessions", options->sessions);
  bench_json_add_double (builder, "seconds", phase.seconds, 3);
  bench_json_add_int (builder, "acquisitions", phase.cycles);
  bench_json_add_double (builder, "acquisitions_per_s", per_s, 1);
  bench_json_add_double (builder, "cpu_us_per_acquisition",
                         phase.cycles > 0 ? (double) phase.cpu_us / phase.cycles : 0, 1);
  result_add_cores (builder, options, &phase);
  bench_json_add_int (builder, "max_rss_kib", max_rss_kib ());
  bench_json_add_int (builder, "failures", g_atomic_int_get (&shared.failures));
  bench_json_add_int (builder, "contended", g_atomic_int_get (&shared.contended));
  result_end (builder);
  g_printerr ("many-locks %s: %d locks on %d sessions: %.0f acquisitions/s, %.0f us CPU "
              "each, max RSS %" G_GINT64_FORMAT " KiB (%d failures)\n", options->impl,
              options->locks, options->sessions, per_s,
              phase.cycles > 0 ? (double) phase.cpu_us / phase.cycles : 0.0, max_rss_kib (),
              g_atomic_int_get (&shared.failures));
  return phase.drained && g_atomic_int_get (&shared.failures) == 0 ? 0 : 1;
}

/* ---- 3. held: one session holding many locks ----------------------------- */

typedef struct _Held Held;

typedef struct {
  Held *held;
  ZkrMutex *mutex;
  int lost;        /* LOST events heard */
  int in_doubt;    /* IN_DOUBT events heard */
} HeldSlot;

/* All of it on the main thread: the callbacks and listeners run in the
 * global default context, which it iterates. */
struct _Held {
  HeldSlot *slots;
  int count;
  int answered;    /* acquires (then releases) answered */
  int failures;
  int lost_events;
  gint64 first_lost_us;
  gint64 last_lost_us;
};

static void
held_on_loss (gpointer lock, ZkrLockEvent event, gpointer user_data)
{
  HeldSlot *slot = user_data;
  Held *held = slot->held;

  (void) lock;
  if (event == ZKR_LOCK_IN_DOUBT)
    slot->in_doubt++;
  if (event != ZKR_LOCK_LOST)
    return;
  slot->lost++;
  held->last_lost_us = g_get_monotonic_time ();
  if (held->lost_events++ == 0)
    held->first_lost_us = held->last_lost_us;
}

static void
held_answered (Held *held, gboolean ok, GError *error)
{
  held->answered++;
  if (ok)
    return;
  if (held->failures++ == 0)
    g_printerr ("bench-scale: held: %s (later failures are only counted)\n", error->message);
  g_error_free (error);
}

static void
held_acquired (GObject *source, GAsyncResult *result, gpointer data)
{
  HeldSlot *slot = data;
  GError *error = NULL;

  (void) source;
  held_answered (slot->held, zkr_mutex_acquire_finish (slot->mutex, result, &error), error);
}

static void
held_released (GObject *source, GAsyncResult *result, gpointer data)
{
  HeldSlot *slot = data;
  GError *error = NULL;

  (void) source;
  held_answered (slot->held, zkr_mutex_release_finish (slot->mutex, result, &error), error);
}

static gboolean
held_all_answered (Held *held)
{
  return held->answered == held->count;
}

static gboolean
held_all_lost (Held *held)
{
  return held->lost_events >= held->count;
}

static gboolean
held_never (Held *held)
{
  (void) held;
  return FALSE;
}

/* Iterates the default context until @done or for @timeout_us. */
static gboolean
held_iterate_until (Held *held, gboolean (*done) (Held *), gint64 timeout_us)
{
  gint64 deadline = g_get_monotonic_time () + timeout_us;

  while (!done (held))
    {
      if (g_get_monotonic_time () >= deadline)
        return FALSE;
      g_main_context_iteration (NULL, TRUE);
    }
  return TRUE;
}

/* Expires the session from outside on a thread of its own (the expiring
 * handle's connect blocks), the way the integration tests do, trying
 * again if the session took its connection back first. */
typedef struct {
  ZkrSession *session;
  const char *hosts;
  gint64 started_us;
  gint64 expired_us;   /* when the expiring handle's close returned; 0: failed */
  int attempts;
} Expirer;

static gpointer
expirer_run (gpointer data)
{
  Expirer *expirer = data;
  guint lost_before = zkr_session_get_lost_count (expirer->session);

  expirer->started_us = g_get_monotonic_time ();
  for (expirer->attempts = 1; expirer->attempts <= 3; expirer->attempts++)
    {
      gint64 deadline;

      if (!zkr_session_wait_connected (expirer->session, 20000, NULL, NULL))
        break;
      if (!zkr__session_test_expire_once (expirer->session, expirer->hosts))
        continue;
      expirer->expired_us = g_get_monotonic_time ();
      /* No LOST within a session timeout: the session took its connection
       * back before the other handle's close (the tests' helper sees
       * that too), so nothing expired. */
      deadline = expirer->expired_us +
                 zkr_session_get_timeout_ms (expirer->session) * G_TIME_SPAN_MILLISECOND;
      while (zkr_session_get_lost_count (expirer->session) == lost_before &&
             g_get_monotonic_time () < deadline)
        g_usleep (1000);
      if (zkr_session_get_lost_count (expirer->session) != lost_before)
        return NULL;
    }
  expirer->expired_us = 0;
  return NULL;
}

/* Expires the session while every lock is held; adds the figures. */
static gboolean
held_expire (const Options *options, Held *held, ZkrSession *session, JsonBuilder *builder)
{
  int timeout_ms = zkr_session_get_timeout_ms (session);
  Expirer expirer = { .session = session, .hosts = options->hosts };
  GThread *thread = g_thread_new ("bench-scale-expire", expirer_run, &expirer);
  int once = 0, twice = 0, never = 0, in_doubt = 0;
  double first_ms, last_ms;

  (void) held_iterate_until (held, held_all_lost, (3 * timeout_ms + 60000) * (gint64) 1000);
  g_thread_join (thread);
  /* A second LOST for any lock would come now. */
  (void) held_iterate_until (held, held_never, G_USEC_PER_SEC);
  for (int i = 0; i < held->count; i++)
    {
      once += held->slots[i].lost == 1;
      twice += held->slots[i].lost > 1;
      never += held->slots[i].lost == 0;
      in_doubt += held->slots[i].in_doubt;
    }
  first_ms = expirer.expired_us > 0 ? (held->first_lost_us - expirer.expired_us) / 1000.0 : -1;
  last_ms = expirer.expired_us > 0 ? (held->last_lost_us - expirer.expired_us) / 1000.0 : -1;
  bench_json_add_int (builder, "expired", expirer.expired_us > 0);
  bench_json_add_int (builder, "expire_attempts", expirer.attempts);
  bench_json_add_double (builder, "expire_ms",
                         expirer.expired_us > 0 ? (expirer.expired_us - expirer.started_us) / 1000.0
                                                : -1, 1);
  bench_json_add_int (builder, "session_timeout_ms", timeout_ms);
  bench_json_add_int (builder, "lost_once", once);
  bench_json_add_int (builder, "lost_more_than_once", twice);
  bench_json_add_int (builder, "lost_never", never);
  bench_json_add_int (builder, "in_doubt_events", in_doubt);
  bench_json_add_double (builder, "expiry_to_first_lost_ms", first_ms, 1);
  bench_json_add_double (builder, "expiry_to_last_lost_ms", last_ms, 1);
  g_printerr ("held: expired from outside with %d locks held: LOST once for %d, more than "
              "once for %d, never for %d; the last %.0f ms after the expiry (session timeout "
              "%d ms)\n", held->count, once, twice, never, last_ms, timeout_ms);
  return expirer.expired_us > 0 && once == held->count;
}

/* Releases every lock; adds the figures. */
static gboolean
held_release (Held *held, const Usage *base, JsonBuilder *builder)
{
  gint64 start = g_get_monotonic_time ();
  double release_ms;
  gboolean ok;
  Usage after;

  held->answered = 0;
  for (int i = 0; i < held->count; i++)
    zkr_mutex_release_async (held->slots[i].mutex, NULL, held_released, &held->slots[i]);
  ok = held_iterate_until (held, held_all_answered, SETTLE_US);
  release_ms = (g_get_monotonic_time () - start) / 1000.0;
  usage_take (&after);
  bench_json_add_double (builder, "release_all_ms", release_ms, 1);
  bench_json_add_double (builder, "heap_bytes_per_lock_after_release",
                         (double) (after.heap_bytes - base->heap_bytes) / held->count, 1);
  g_printerr ("held: %d locks released in %.0f ms\n", held->count, release_ms);
  return ok;
}

/* Makes the mutexes and their listeners, acquires them all. */
static gboolean
held_acquire (const Options *options, Held *held, ZkrSession *session, Usage usage[3],
              double *acquire_ms)
{
  gint64 start;
  gboolean ok;

  usage_take (&usage[0]);
  for (int i = 0; i < held->count; i++)
    {
      g_autofree char *path = lock_parent (options->root, i);

      held->slots[i].held = held;
      held->slots[i].mutex = zkr_mutex_new (session, path, NULL);
      zkr_mutex_add_loss_listener (held->slots[i].mutex, held_on_loss, &held->slots[i], NULL);
    }
  usage_take (&usage[1]);
  start = g_get_monotonic_time ();
  for (int i = 0; i < held->count; i++)
    zkr_mutex_acquire_async (held->slots[i].mutex, -1, NULL, held_acquired, &held->slots[i]);
  ok = held_iterate_until (held, held_all_answered, SETTLE_US);
  *acquire_ms = (g_get_monotonic_time () - start) / 1000.0;
  /* Each hold places its node watch a little after the grant. */
  (void) held_iterate_until (held, held_never, HOLD_SETTLE_MS * (gint64) 1000);
  usage_take (&usage[2]);
  return ok && held->failures == 0;
}

static int
run_held (const Options *options, zhandle_t *admin)
{
  Held held = { .count = options->locks };
  g_autofree char *sample_path = lock_parent (options->root, options->locks - 1);
  JsonBuilder *builder;
  ZkrSession *session;
  Usage usage[3];
  WatchCount watches;
  double acquire_ms, n = options->locks;
  guint timer;
  gboolean ok;

  if (!tree_create (admin, options->root, options->locks) ||
      (session = zkr_session_open (options)) == NULL)
    return 2;
  timer = g_timeout_add (50, wake_loop, NULL);
  held.slots = g_new0 (HeldSlot, held.count);
  ok = held_acquire (options, &held, session, usage, &acquire_ms);
  (void) watch_count_take (options->hosts, options->root, NULL, &watches);
  builder = result_begin (options, "zkr");
  bench_json_add_int (builder, "locks", options->locks);
  bench_json_add_int (builder, "path_bytes", (gint64) strlen (sample_path));
  bench_json_add_double (builder, "acquire_all_ms", acquire_ms, 1);
  bench_json_add_double (builder, "heap_bytes_per_mutex",
                         (usage[1].heap_bytes - usage[0].heap_bytes) / n, 1);
  bench_json_add_double (builder, "heap_bytes_per_hold",
                         (usage[2].heap_bytes - usage[1].heap_bytes) / n, 1);
  bench_json_add_double (builder, "heap_bytes_per_held_lock",
                         (usage[2].heap_bytes - usage[0].heap_bytes) / n, 1);
  bench_json_add_double (builder, "rss_bytes_per_held_lock",
                         (usage[2].rss_kib - usage[0].rss_kib) * 1024.0 / n, 1);
  bench_json_add_int (builder, "server_watches", watches.watches);
  g_printerr ("held: %d locks acquired in %.0f ms; per held lock %.0f bytes of heap "
              "(%.0f the mutex, %.0f the hold), %.0f of RSS; %u watches on the server\n",
              options->locks, acquire_ms, (usage[2].heap_bytes - usage[0].heap_bytes) / n,
              (usage[1].heap_bytes - usage[0].heap_bytes) / n,
              (usage[2].heap_bytes - usage[1].heap_bytes) / n,
              (usage[2].rss_kib - usage[0].rss_kib) * 1024.0 / n, watches.watches);
  if (ok)
    ok = options->expire ? held_expire (options, &held, session, builder)
                         : held_release (&held, &usage[0], builder);
  bench_json_add_int (builder, "failures", held.failures);
  bench_json_add_int (builder, "max_rss_kib", max_rss_kib ());
  result_end (builder);
  for (int i = 0; i < held.count; i++)
    g_clear_pointer (&held.slots[i].mutex, zkr_mutex_unref);
  zkr_session_close (session);
  zkr_session_unref (session);
  /* What the unrefs and the close left for this context. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_source_remove (timer);
  g_free (held.slots);
  ok = tree_remove (admin, options->root, options->locks) && ok;
  return ok ? 0 : 1;
}

/* ---- 4. deep-queue: a child process's waiters --------------------------- */

typedef struct {
  gint64 grant_us;     /* the acquire's callback ran */
  gint64 release_us;   /* its release was called */
} Hold;

typedef struct _Child Child;

typedef struct {
  Child *child;
  ZkrMutex *mutex;
} Waiter;

/* A child's waiters queue on one lock and, once through, release and
 * queue again until the parent says stop. All on the main thread. */
struct _Child {
  Waiter *waiters;
  int count;
  int done;          /* waiters that stopped */
  int failures;
  GArray *holds;     /* Hold */
  gint stop;         /* atomic: set by the thread reading stdin */
};

static void waiter_start (Waiter *waiter);

static void
waiter_failed (Waiter *waiter, GError *error)
{
  if (waiter->child->failures++ == 0)
    g_printerr ("bench-scale: deep-queue child: %s (later failures are only counted)\n",
                error->message);
  g_error_free (error);
}

static void
waiter_released (GObject *source, GAsyncResult *result, gpointer data)
{
  Waiter *waiter = data;
  GError *error = NULL;

  (void) source;
  if (!zkr_mutex_release_finish (waiter->mutex, result, &error))
    waiter_failed (waiter, error);
  if (g_atomic_int_get (&waiter->child->stop))
    waiter->child->done++;
  else
    waiter_start (waiter);
}

static void
waiter_acquired (GObject *source, GAsyncResult *result, gpointer data)
{
  Waiter *waiter = data;
  GError *error = NULL;
  Hold hold;

  (void) source;
  if (!zkr_mutex_acquire_finish (waiter->mutex, result, &error))
    {
      waiter_failed (waiter, error);
      waiter->child->done++;
      return;
    }
  hold.grant_us = g_get_monotonic_time ();
  hold.release_us = g_get_monotonic_time ();
  g_array_append_val (waiter->child->holds, hold);
  zkr_mutex_release_async (waiter->mutex, NULL, waiter_released, waiter);
}

static void
waiter_start (Waiter *waiter)
{
  zkr_mutex_acquire_async (waiter->mutex, -1, NULL, waiter_acquired, waiter);
}

/* The parent writes a byte (or closes the pipe) to stop the waiters. */
static gpointer
child_read_stop (gpointer data)
{
  Child *child = data;
  char byte;
  ssize_t got = read (STDIN_FILENO, &byte, 1);

  (void) got;  /* a byte, the end of the pipe or an error: all mean stop */
  g_atomic_int_set (&child->stop, 1);
  g_main_context_wakeup (NULL);
  return NULL;
}

/* The child's one line: its holds and the engine's counters. */
static void
child_print (Child *child)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "holds");
  json_builder_begin_array (builder);
  for (guint i = 0; i < child->holds->len; i++)
    {
      Hold *hold = &g_array_index (child->holds, Hold, i);

      json_builder_begin_array (builder);
      json_builder_add_int_value (builder, hold->grant_us);
      json_builder_add_int_value (builder, hold->release_us);
      json_builder_end_array (builder);
    }
  json_builder_end_array (builder);
  bench_json_add_int (builder, "watch_wakeups", zkr__queue_test_get_watch_wakeups ());
  bench_json_add_int (builder, "listings", zkr__queue_test_get_listings ());
  bench_json_add_int (builder, "listings_after_no_node",
                      zkr__queue_test_get_listings_after_no_node ());
  bench_json_add_int (builder, "failures", child->failures);
  bench_json_add_int (builder, "unfinished", child->count - child->done);
  json_builder_end_object (builder);
  bench_print_json (builder);
}

static int
run_deep_queue_child (const Options *options)
{
  Child child = { .count = options->waiters };
  GPtrArray *sessions = g_ptr_array_new ();
  gint64 stop_seen = 0;
  guint timer;

  for (int k = 0; k < options->sessions; k++)
    {
      ZkrSession *session = zkr_session_open (options);

      if (session == NULL)
        return 2;
      g_ptr_array_add (sessions, session);
    }
  child.holds = g_array_new (FALSE, FALSE, sizeof (Hold));
  child.waiters = g_new0 (Waiter, child.count);
  g_thread_unref (g_thread_new ("bench-scale-stop", child_read_stop, &child));
  timer = g_timeout_add (50, wake_loop, NULL);
  for (int i = 0; i < child.count; i++)
    {
      child.waiters[i].child = &child;
      child.waiters[i].mutex = zkr_mutex_new (g_ptr_array_index (sessions, i % options->sessions),
                                              options->child_path, NULL);
      waiter_start (&child.waiters[i]);
    }
  while (child.done < child.count)
    {
      if (stop_seen == 0 && g_atomic_int_get (&child.stop))
        stop_seen = g_get_monotonic_time ();
      if (stop_seen != 0 && g_get_monotonic_time () - stop_seen > SETTLE_US)
        break;
      g_main_context_iteration (NULL, TRUE);
    }
  child_print (&child);
  for (int i = 0; i < child.count; i++)
    zkr_mutex_unref (child.waiters[i].mutex);
  for (guint k = 0; k < sessions->len; k++)
    {
      zkr_session_close (g_ptr_array_index (sessions, k));
      zkr_session_unref (g_ptr_array_index (sessions, k));
    }
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_source_remove (timer);
  g_ptr_array_unref (sessions);
  g_array_unref (child.holds);
  g_free (child.waiters);
  return child.done == child.count && child.failures == 0 ? 0 : 1;
}

/* ---- 4. deep-queue: the parent ------------------------------------------ */

typedef struct {
  GPid pid;
  int stdin_fd;
  int stdout_fd;
  gboolean reaped;
  int status;      /* once reaped */
} ChildProc;

/* FALSE once any child has ended (none should before it is told to stop). */
static gboolean
children_alive (ChildProc *procs, int count)
{
  gboolean alive = TRUE;

  for (int p = 0; p < count; p++)
    {
      if (!procs[p].reaped && waitpid (procs[p].pid, &procs[p].status, WNOHANG) == procs[p].pid)
        procs[p].reaped = TRUE;
      alive = alive && !procs[p].reaped;
    }
  return alive;
}

/* Starts this program again @options->procs times as deep-queue children
 * on @path, the waiters spread over them; how many started. */
static int
children_spawn (const Options *options, const char *path, ChildProc *procs)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *sessions = g_strdup_printf ("%d", options->sessions);
  g_autofree char *timeout = g_strdup_printf ("%d", options->session_timeout_ms);
  GError *error = NULL;

  for (int p = 0; p < options->procs; p++)
    {
      g_autofree char *waiters = g_strdup_printf ("%d", options->waiters / options->procs +
                                                  (p < options->waiters % options->procs));
      char *argv[] = { self, "--mode", "deep-queue-child", "--hosts", options->hosts,
                       "--child-path", (char *) path, "--waiters", waiters,
                       "--sessions", sessions, "--session-timeout-ms", timeout, NULL };

      if (self == NULL ||
          !g_spawn_async_with_pipes (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                     &procs[p].pid, &procs[p].stdin_fd, &procs[p].stdout_fd,
                                     NULL, &error))
        {
          g_printerr ("bench-scale: starting a deep-queue child: %s\n",
                      error != NULL ? error->message : "no /proc/self/exe");
          g_clear_error (&error);
          return p;
        }
    }
  return options->procs;
}

/* Children of a start that failed half-way: ended, not heard. */
static void
children_kill (ChildProc *procs, int count)
{
  for (int p = 0; p < count; p++)
    {
      kill (procs[p].pid, SIGKILL);
      close (procs[p].stdin_fd);
      close (procs[p].stdout_fd);
      if (!procs[p].reaped)
        (void) waitpid (procs[p].pid, NULL, 0);
      g_spawn_close_pid (procs[p].pid);
    }
}

/* Reads a child's line to its end and reaps it. (transfer full) */
static char *
child_collect (ChildProc *proc)
{
  GString *text = g_string_new (NULL);
  char buffer[65536];
  ssize_t got;

  while ((got = read (proc->stdout_fd, buffer, sizeof buffer)) > 0)
    g_string_append_len (text, buffer, got);
  close (proc->stdout_fd);
  if (!proc->reaped && waitpid (proc->pid, &proc->status, 0) == proc->pid)
    proc->reaped = TRUE;
  g_spawn_close_pid (proc->pid);
  if (!WIFEXITED (proc->status) || WEXITSTATUS (proc->status) != 0)
    g_printerr ("bench-scale: a deep-queue child ended with status %d\n", proc->status);
  return g_string_free (text, FALSE);
}

/* What the children said, added up. */
typedef struct {
  GArray *holds;   /* Hold, every child's */
  gint64 watch_wakeups;
  gint64 listings;
  gint64 listings_after_no_node;
  gint64 failures;
  gint64 unfinished;
} Gathered;

static gboolean
gathered_add (Gathered *gathered, const char *line)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *object;
  JsonArray *holds;

  if (!json_parser_load_from_data (parser, line, -1, NULL) ||
      json_parser_get_root (parser) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_printerr ("bench-scale: a deep-queue child's answer is no JSON object: '%.80s'\n", line);
      gathered->failures++;
      return FALSE;
    }
  object = json_node_get_object (json_parser_get_root (parser));
  holds = json_object_get_array_member (object, "holds");
  for (guint i = 0; i < json_array_get_length (holds); i++)
    {
      JsonArray *pair = json_array_get_array_element (holds, i);
      Hold hold = { json_array_get_int_element (pair, 0), json_array_get_int_element (pair, 1) };

      g_array_append_val (gathered->holds, hold);
    }
  gathered->watch_wakeups += json_object_get_int_member (object, "watch_wakeups");
  gathered->listings += json_object_get_int_member (object, "listings");
  gathered->listings_after_no_node += json_object_get_int_member (object, "listings_after_no_node");
  gathered->failures += json_object_get_int_member (object, "failures");
  gathered->unfinished += json_object_get_int_member (object, "unfinished");
  return TRUE;
}

static int
compare_holds (gconstpointer a, gconstpointer b)
{
  return compare_gint64 (&((const Hold *) a)->grant_us, &((const Hold *) b)->grant_us);
}

/* Polls @path until it has @count children (or a child ended); the count
 * seen last. */
static int
queue_wait (zhandle_t *zh, const char *path, int count, ChildProc *procs, int procs_count)
{
  gint64 deadline = g_get_monotonic_time () + SETTLE_US;
  int seen = -1;

  while (g_get_monotonic_time () < deadline && children_alive (procs, procs_count))
    {
      struct Stat stat;

      if (zoo_exists (zh, path, 0, &stat) == ZOK)
        seen = stat.numChildren;
      if (seen >= count)
        break;
      g_usleep (50000);
    }
  return seen;
}

/* Polls wchc until the waiters' watches reach @count, then reads them
 * again a little later: a herd or a duplicate would show as more. */
static void
watches_wait (const Options *options, const char *path, const char *skip, int count,
              WatchCount *watches)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (watch_count_take (options->hosts, path, skip, watches) &&
         (int) watches->watches < count && g_get_monotonic_time () < deadline)
    g_usleep (100000);
  g_usleep (500000);
  (void) watch_count_take (options->hosts, path, skip, watches);
}

/* A listing's round trip and size, @path as the waiters see it now. */
static double
listing_sample (zhandle_t *zh, const char *path, gint64 *bytes)
{
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));

  *bytes = 0;
  for (int i = 0; i < LISTING_SAMPLES; i++)
    {
      struct String_vector children = { 0 };
      gint64 start = g_get_monotonic_time (), took;

      if (zoo_get_children (zh, path, 0, &children) != ZOK)
        continue;
      took = g_get_monotonic_time () - start;
      g_array_append_val (times, took);
      *bytes = 4;
      for (int c = 0; c < children.count; c++)
        *bytes += 4 + (gint64) strlen (children.data[c]);
      deallocate_String_vector (&children);
    }
  return percentile_ms (times, 50);
}

/* The hand-offs between holds sorted by grant: each from a release to
 * the next grant, those in [@from, @to] timed into @latencies; a grant
 * before the previous release is a violation. */
static int
handoffs_take (GArray *holds, gint64 from, gint64 to, GArray *latencies)
{
  int violations = 0;

  g_array_sort (holds, compare_holds);
  for (guint i = 0; i + 1 < holds->len; i++)
    {
      Hold *hold = &g_array_index (holds, Hold, i), *next = hold + 1;
      gint64 took = next->grant_us - hold->release_us;

      if (took < 0)
        violations++;
      else if (hold->release_us >= from && next->grant_us <= to)
        g_array_append_val (latencies, took);
    }
  return violations;
}

typedef struct {
  int queued;
  WatchCount watches;
  double listing_ms;
  gint64 listing_bytes;
  gint64 gate_us;
  gint64 stop_us;
} DeepRun;

/* Prints the run's figures; the violations seen. */
static int
deep_queue_report (const Options *options, DeepRun *run, Gathered *gathered)
{
  g_autoptr (GArray) latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
  int violations = handoffs_take (gathered->holds, run->gate_us, run->stop_us, latencies);
  double window_s = (run->stop_us - run->gate_us) / 1e6, holds = MAX (gathered->holds->len, 1);
  double p50 = percentile_ms (latencies, 50), p99 = percentile_ms (latencies, 99);
  JsonBuilder *builder = result_begin (options, "zkr");

  bench_json_add_int (builder, "waiters", options->waiters);
  bench_json_add_int (builder, "procs", options->procs);
  bench_json_add_int (builder, "sessions_per_proc", options->sessions);
  bench_json_add_int (builder, "queued", run->queued);
  bench_json_add_int (builder, "server_watches", run->watches.watches);
  bench_json_add_int (builder, "watched_nodes", run->watches.distinct_paths);
  bench_json_add_int (builder, "watches_on_lock_path", run->watches.on_parent);
  bench_json_add_int (builder, "watching_sessions", run->watches.sessions);
  bench_json_add_double (builder, "listing_ms_p50", run->listing_ms, 3);
  bench_json_add_int (builder, "listing_bytes", run->listing_bytes);
  bench_json_add_double (builder, "seconds", window_s, 3);
  bench_json_add_int (builder, "holds", gathered->holds->len);
  bench_json_add_int (builder, "handoffs", latencies->len);
  bench_json_add_double (builder, "handoffs_per_s", latencies->len / window_s, 1);
  bench_json_add_double (builder, "handoff_ms_p50", p50, 3);
  bench_json_add_double (builder, "handoff_ms_p99", p99, 3);
  bench_json_add_double (builder, "wakeups_per_handoff", gathered->watch_wakeups / holds, 3);
  bench_json_add_double (builder, "listings_per_acquire", gathered->listings / holds, 3);
  bench_json_add_int (builder, "listings_after_no_node", gathered->listings_after_no_node);
  bench_json_add_int (builder, "violations", violations);
  bench_json_add_int (builder, "failures", gathered->failures + gathered->unfinished);
  result_end (builder);
  g_printerr ("deep-queue: %d waiters from %d processes: %u watches on %u nodes (%u on the "
              "lock's path), %.3f wake-ups per hand-off; hand-off p50 %.2f ms, p99 %.2f ms "
              "(%u hand-offs, %.0f/s); a listing of the queue %.2f ms, %" G_GINT64_FORMAT
              " bytes; %d violations\n", options->waiters, options->procs, run->watches.watches,
              run->watches.distinct_paths, run->watches.on_parent,
              gathered->watch_wakeups / holds, p50, p99, latencies->len,
              latencies->len / window_s, run->listing_ms, run->listing_bytes, violations);
  return violations;
}

/* The gate (our own hold) keeps the lock while the children queue; its
 * release starts the hand-offs, the stop ends the timed window. */
static gboolean
deep_queue_drive (const Options *options, zhandle_t *admin, const char *path,
                  ZkrSession *session, ZkrMutex *gate, ChildProc *procs, DeepRun *run)
{
  g_autofree char *gate_id = NULL;
  GError *error = NULL;

  run->queued = queue_wait (admin, path, options->waiters + 1, procs, options->procs) - 1;
  if (run->queued < options->waiters)
    g_printerr ("bench-scale: only %d of %d waiters queued\n", run->queued, options->waiters);
  gate_id = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x",
                             zkr_session_get_id (session));
  watches_wait (options, path, gate_id, options->waiters, &run->watches);
  run->listing_ms = listing_sample (admin, path, &run->listing_bytes);
  run->gate_us = g_get_monotonic_time ();
  if (!zkr_mutex_release (gate, &error))
    {
      g_printerr ("bench-scale: the gate's release: %s\n", error->message);
      g_error_free (error);
    }
  g_usleep ((gulong) (options->seconds * G_USEC_PER_SEC));
  run->stop_us = g_get_monotonic_time ();
  for (int p = 0; p < options->procs; p++)
    {
      if (write (procs[p].stdin_fd, "x", 1) != 1)
        g_printerr ("bench-scale: telling a deep-queue child to stop: %s\n", g_strerror (errno));
      close (procs[p].stdin_fd);
    }
  return run->queued == options->waiters;
}

static int
run_deep_queue (const Options *options, zhandle_t *admin)
{
  g_autofree char *path = g_strdup_printf ("%s/lock", options->root);
  ChildProc *procs = g_new0 (ChildProc, options->procs);
  Gathered gathered = { .holds = g_array_new (FALSE, FALSE, sizeof (Hold)) };
  DeepRun run = { 0 };
  ZkrSession *session = NULL;
  ZkrMutex *gate = NULL;
  GError *error = NULL;
  int spawned, violations = 0;
  gboolean ok;

  ok = tree_create (admin, options->root, 0) && (session = zkr_session_open (options)) != NULL;
  if (ok && ((gate = zkr_mutex_new (session, path, &error)) == NULL ||
             !zkr_mutex_acquire (gate, 30000, NULL, &error)))
    {
      g_printerr ("bench-scale: the gate: %s\n", error->message);
      g_clear_error (&error);
      ok = FALSE;
    }
  spawned = ok ? children_spawn (options, path, procs) : 0;
  if (spawned < options->procs)
    {
      children_kill (procs, spawned);
      ok = FALSE;
    }
  else
    {
      ok = deep_queue_drive (options, admin, path, session, gate, procs, &run);
      for (int p = 0; p < options->procs; p++)
        {
          g_autofree char *line = child_collect (&procs[p]);

          ok = gathered_add (&gathered, line) && ok;
        }
      violations = deep_queue_report (options, &run, &gathered);
    }
  g_clear_pointer (&gate, zkr_mutex_unref);
  if (session != NULL)
    zkr_session_close (session);
  g_clear_pointer (&session, zkr_session_unref);
  ok = tree_remove (admin, options->root, 0) && ok;
  g_array_unref (gathered.holds);
  g_free (procs);
  return ok && violations == 0 && gathered.failures + gathered.unfinished == 0 ? 0 : 1;
}

/* ---- the command line ----------------------------------------------------- */

static const char *const modes[] = { "ceiling", "many-locks", "held", "deep-queue",
                                     "deep-queue-child", NULL };

/* A bad value named on stderr; FALSE then. */
static gboolean
options_check (Options *options)
{
  const char *bad = NULL;

  if (options->hosts == NULL)
    options->hosts = g_strdup (g_getenv ("ZKR_BENCH_HOSTS"));
  if (options->mode == NULL || !g_strv_contains (modes, options->mode))
    bad = "--mode must be ceiling, many-locks, held or deep-queue";
  else if (options->hosts == NULL)
    bad = "no --hosts and no ZKR_BENCH_HOSTS";
  else if (strcmp (options->impl, "zkr") != 0 && strcmp (options->impl, "raw") != 0)
    bad = "--impl must be zkr or raw";
  else if (options->sessions < 1 || options->window < 1 || options->procs < 1)
    bad = "--sessions, --window and --procs must be >= 1";
  else if (options->waiters < options->procs && strcmp (options->mode, "deep-queue") == 0)
    bad = "--waiters must be >= --procs";
  else if (options->seconds <= 0 || options->warmup < 0 || options->session_timeout_ms <= 0)
    bad = "--seconds and --session-timeout-ms must be > 0, --warmup >= 0";
  else if (strcmp (options->mode, "deep-queue-child") == 0 && options->child_path == NULL)
    bad = "--mode deep-queue-child needs --child-path";
  if (options->locks == 0)
    options->locks = strcmp (options->mode != NULL ? options->mode : "", "held") == 0 ? 10000 : 100;
  if (bad == NULL && options->locks < 1)
    bad = "--locks must be >= 1";
  if (bad != NULL)
    g_printerr ("bench-scale: %s (got --mode %s --impl %s --sessions %d --window %d --locks %d "
                "--waiters %d --procs %d --seconds %g --warmup %g --session-timeout-ms %d)\n",
                bad, options->mode != NULL ? options->mode : "(none)", options->impl,
                options->sessions, options->window, options->locks, options->waiters,
                options->procs, options->seconds, options->warmup, options->session_timeout_ms);
  return bad == NULL;
}

static int
run_mode (const Options *options)
{
  GError *error = NULL;
  BenchZk *admin;
  int status;

  if (strcmp (options->mode, "deep-queue-child") == 0)
    return run_deep_queue_child (options);
  admin = bench_zk_connect (options->hosts, &error);
  if (admin == NULL)
    {
      g_printerr ("bench-scale: %s\n", error->message);
      g_error_free (error);
      return 2;
    }
  if (strcmp (options->mode, "ceiling") == 0)
    status = run_ceiling (options, bench_zk_handle (admin));
  else if (strcmp (options->mode, "many-locks") == 0)
    status = run_many_locks (options, bench_zk_handle (admin));
  else if (strcmp (options->mode, "held") == 0)
    status = run_held (options, bench_zk_handle (admin));
  else
    status = run_deep_queue (options, bench_zk_handle (admin));
  bench_zk_close (admin);
  return status;
}

int
main (int argc, char **argv)
{
  Options options = { .sessions = 1, .window = 64, .waiters = 1000, .procs = 10,
                      .session_timeout_ms = 10000, .seconds = 5, .warmup = 1 };
  GOptionEntry entries[] = {
    { "hosts", 0, 0, G_OPTION_ARG_STRING, &options.hosts, "connect string (default: $ZKR_BENCH_HOSTS)", "H" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &options.mode, "ceiling, many-locks, held or deep-queue", "M" },
    { "impl", 0, 0, G_OPTION_ARG_STRING, &options.impl, "many-locks: zkr (default) or raw", "I" },
    { "sessions", 0, 0, G_OPTION_ARG_INT, &options.sessions, "sessions (deep-queue: per process; default 1)", "S" },
    { "window", 0, 0, G_OPTION_ARG_INT, &options.window, "ceiling: requests in flight per session (default 64)", "W" },
    { "locks", 0, 0, G_OPTION_ARG_INT, &options.locks, "lock paths (default 100; held: 10000)", "N" },
    { "waiters", 0, 0, G_OPTION_ARG_INT, &options.waiters, "deep-queue: waiters in all (default 1000)", "N" },
    { "procs", 0, 0, G_OPTION_ARG_INT, &options.procs, "deep-queue: processes (default 10)", "P" },
    { "seconds", 0, 0, G_OPTION_ARG_DOUBLE, &options.seconds, "timed seconds (default 5)", "S" },
    { "warmup", 0, 0, G_OPTION_ARG_DOUBLE, &options.warmup, "untimed seconds first (default 1)", "S" },
    { "expire", 0, 0, G_OPTION_ARG_NONE, &options.expire, "held: expire the session from outside instead of releasing", NULL },
    { "session-timeout-ms", 0, 0, G_OPTION_ARG_INT, &options.session_timeout_ms, "zkr sessions' timeout (default 10000)", "T" },
    { "server-pid", 0, 0, G_OPTION_ARG_INT, &options.server_pid, "ceiling, many-locks: a local server's process id, for its CPU time", "PID" },
    { "child-path", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &options.child_path, NULL, NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- zkr at scale");
  GError *error = NULL;
  int status = 64;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-scale: %s\n", error->message);
      g_error_free (error);
      return 64;
    }
  if (options.impl == NULL)
    options.impl = g_strdup ("zkr");
  if (options_check (&options))
    {
      options.root = g_strdup_printf ("/zkr-bench/scale-%s-%d", options.mode, (int) getpid ());
      status = run_mode (&options);
    }
  g_free (options.hosts);
  g_free (options.mode);
  g_free (options.impl);
  g_free (options.root);
  g_free (options.child_path);
  return status;
}
