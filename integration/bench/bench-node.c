/* zkr benchmark: async node throughput. K sessions each keep W requests in
 * flight, every slot cycling create + set + delete of a node of its own;
 * the same loop on raw libzookeeper async calls (--impl raw: the next
 * request sent from the completion thread), on raw async calls whose
 * answers are handed to a thread of the session's own GMainContext with
 * g_main_context_invoke(), which sends the next request (--impl
 * raw-context: the thread a zkr answer is promised to, and nothing of
 * zkr), and on zkr's public node calls (--impl zkr), one JSON line per
 * run with the cycles per second. A figure, never a pass/fail
 * (docs/design.md §8.7). */

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <zkr/zkr.h>

#include "bench-common.h"

#define CALL_MS 30000

typedef struct {
  char *hosts;
  char *impl;
  int sessions;
  int window;
  double seconds;
  double warmup;
  char *root;
} Options;

/* Shared by every slot: whether to go on, and the cycles counted. */
typedef struct {
  gint running;         /* slots start another cycle while set */
  gint counting;        /* cycles finished now count */
  gint cycles;          /* atomic */
  gint in_flight;       /* slots with a cycle under way */
  gint failures;
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

/* ---- raw libzookeeper ---------------------------------------------------- */

typedef struct {
  zhandle_t *zh;
  char *path;
} RawSlot;

static void raw_start (RawSlot *slot);

static void
raw_deleted (int rc, const void *data)
{
  RawSlot *slot = (RawSlot *) data;

  cycle_done (rc == ZOK);
  raw_start (slot);
}

static void
raw_set (int rc, const struct Stat *stat, const void *data)
{
  RawSlot *slot = (RawSlot *) data;

  (void) stat;
  if (rc != ZOK || zoo_adelete (slot->zh, slot->path, -1, raw_deleted, slot) != ZOK)
    raw_deleted (ZAPIERROR, slot);
}

static void
raw_created (int rc, const char *value, const struct Stat *stat, const void *data)
{
  RawSlot *slot = (RawSlot *) data;

  (void) value;
  (void) stat;
  if (rc != ZOK ||
      zoo_aset (slot->zh, slot->path, "payload-2", 9, -1, raw_set, slot) != ZOK)
    raw_deleted (ZAPIERROR, slot);
}

/* The first call, or the completion thread after a cycle. */
static void
raw_start (RawSlot *slot)
{
  if (!g_atomic_int_get (&shared.running))
    {
      g_atomic_int_add (&shared.in_flight, -1);
      return;
    }
  if (zoo_acreate2 (slot->zh, slot->path, "payload-1", 9, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                    raw_created, slot) != ZOK)
    {
      g_atomic_int_inc (&shared.failures);
      g_atomic_int_add (&shared.in_flight, -1);
    }
}

/* ---- raw libzookeeper, answers in a GMainContext ------------------------- */

typedef enum { STEP_START, STEP_CREATED, STEP_SET, STEP_DELETED } CtxStep;

typedef struct {
  zhandle_t *zh;
  char *path;
  GMainContext *context;  /* the session's thread's */
  CtxStep step;           /* the answer awaited, then handed over */
  int rc;                 /* that answer's */
} CtxSlot;

static gboolean ctx_step (gpointer data);

/* On the completion thread: the answer goes to the session's thread. */
static void
ctx_answer (CtxSlot *slot, int rc)
{
  slot->rc = rc;
  g_main_context_invoke (slot->context, ctx_step, slot);
}

static void
ctx_created (int rc, const char *value, const struct Stat *stat, const void *data)
{
  (void) value;
  (void) stat;
  ctx_answer ((CtxSlot *) data, rc);
}

static void
ctx_set (int rc, const struct Stat *stat, const void *data)
{
  (void) stat;
  ctx_answer ((CtxSlot *) data, rc);
}

static void
ctx_deleted (int rc, const void *data)
{
  ctx_answer ((CtxSlot *) data, rc);
}

/* In the session's thread: the next request of the cycle. As the raw
 * loop: a failed answer ends its cycle (counted failed) and the slot
 * starts another; a request that cannot even be sent stops the slot. */
static gboolean
ctx_step (gpointer data)
{
  CtxSlot *slot = data;
  int rc = ZOK;

  if (slot->step != STEP_START && slot->rc != ZOK)
    slot->step = STEP_DELETED;
  switch (slot->step)
    {
    case STEP_DELETED:
      cycle_done (slot->rc == ZOK);
      G_GNUC_FALLTHROUGH;
    case STEP_START:
      if (!g_atomic_int_get (&shared.running))
        {
          g_atomic_int_add (&shared.in_flight, -1);
          return G_SOURCE_REMOVE;
        }
      slot->step = STEP_CREATED;
      rc = zoo_acreate2 (slot->zh, slot->path, "payload-1", 9, &ZOO_OPEN_ACL_UNSAFE,
                         ZOO_PERSISTENT, ctx_created, slot);
      break;
    case STEP_CREATED:
      slot->step = STEP_SET;
      rc = zoo_aset (slot->zh, slot->path, "payload-2", 9, -1, ctx_set, slot);
      break;
    case STEP_SET:
      slot->step = STEP_DELETED;
      rc = zoo_adelete (slot->zh, slot->path, -1, ctx_deleted, slot);
      break;
    }
  if (rc != ZOK)
    {
      g_atomic_int_inc (&shared.failures);
      g_atomic_int_add (&shared.in_flight, -1);
    }
  return G_SOURCE_REMOVE;
}

static void
ctx_start (gpointer slot)
{
  (void) ctx_step (slot);
}

/* ---- a session's thread (raw-context and zkr) ---------------------------- */

/* One session's callbacks run in a context of its own, on a thread of its
 * own (the raw loop's completions run on each handle's own thread). */
typedef struct {
  GMainContext *context;
  GThread *thread;
  gpointer slots;            /* window of them, slot_size bytes each */
  gsize slot_size;
  int window;
  void (*start) (gpointer slot);
} LoopClient;

static gpointer
loop_client_thread (gpointer data)
{
  LoopClient *client = data;

  g_main_context_push_thread_default (client->context);
  for (int j = 0; j < client->window; j++)
    client->start ((char *) client->slots + (gsize) j * client->slot_size);
  while (g_atomic_int_get (&shared.in_flight) > 0 || g_atomic_int_get (&shared.running))
    g_main_context_iteration (client->context, TRUE);
  g_main_context_pop_thread_default (client->context);
  return NULL;
}

static void run_phases (const Options *options, GPtrArray *contexts);

/* Starts each client's thread, runs the phases, joins the threads. */
static void
loop_clients_run (const Options *options, LoopClient *clients)
{
  GPtrArray *contexts = g_ptr_array_new ();

  for (int k = 0; k < options->sessions; k++)
    g_ptr_array_add (contexts, clients[k].context);
  g_atomic_int_set (&shared.running, 1);
  g_atomic_int_set (&shared.in_flight, options->sessions * options->window);
  for (int k = 0; k < options->sessions; k++)
    clients[k].thread = g_thread_new ("bench-node", loop_client_thread, &clients[k]);
  run_phases (options, contexts);
  for (int k = 0; k < options->sessions; k++)
    g_thread_join (clients[k].thread);
  g_ptr_array_unref (contexts);
}

/* ---- zkr ------------------------------------------------------------------ */

typedef struct {
  ZkrSession *session;
  char *path;
} ZkrSlot;

static void zkr_start (ZkrSlot *slot);

static void
zkr_deleted (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrSlot *slot = data;

  (void) source;
  cycle_done (zkr_node_delete_finish (slot->session, result, NULL));
  zkr_start (slot);
}

static void
zkr_set (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrSlot *slot = data;

  (void) source;
  if (!zkr_node_set_finish (slot->session, result, NULL, NULL))
    g_atomic_int_inc (&shared.failures);
  zkr_node_delete_async (slot->session, slot->path, -1, CALL_MS, NULL, zkr_deleted, slot);
}

static void
zkr_created (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrSlot *slot = data;

  (void) source;
  if (!zkr_node_create_finish (slot->session, result, NULL, NULL, NULL))
    g_atomic_int_inc (&shared.failures);
  zkr_node_set_async (slot->session, slot->path, "payload-2", 9, -1, CALL_MS, NULL, zkr_set,
                      slot);
}

static void
zkr_start (ZkrSlot *slot)
{
  if (!g_atomic_int_get (&shared.running))
    {
      g_atomic_int_add (&shared.in_flight, -1);
      return;
    }
  zkr_node_create_async (slot->session, slot->path, "payload-1", 9, ZKR_CREATE_PERSISTENT,
                         ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, zkr_created, slot);
}

static void
zkr_start_slot (gpointer slot)
{
  zkr_start (slot);
}

/* ---- the run ------------------------------------------------------------- */

static gboolean
wake_loops (gpointer data)
{
  (void) data;
  return G_SOURCE_CONTINUE;
}

/* This process's CPU time (user + system), µs. */
static gint64
process_cpu_us (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return ((gint64) usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * G_USEC_PER_SEC +
         usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

/* The one JSON line (run-bench-node.sh reads it). @cpu_us: the process's
 * CPU time over the timed seconds: the client's own cost per cycle, which
 * the scheduling of client and server on shared cores does not move as
 * much as the throughput. */
static void
print_result (const Options *options, double seconds, gint64 cpu_us)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  int cycles = g_atomic_int_get (&shared.cycles);

  json_builder_begin_object (builder);
  bench_json_add_string (builder, "bench", "node");
  bench_json_add_string (builder, "impl", options->impl);
  bench_json_add_int (builder, "sessions", options->sessions);
  bench_json_add_int (builder, "window", options->window);
  bench_json_add_double (builder, "seconds", seconds, 3);
  bench_json_add_int (builder, "cycles", cycles);
  bench_json_add_double (builder, "cycles_per_s", cycles / options->seconds, 1);
  bench_json_add_double (builder, "ops_per_s", 3.0 * cycles / options->seconds, 1);
  bench_json_add_int (builder, "failures", g_atomic_int_get (&shared.failures));
  bench_json_add_double (builder, "client_cpu_us_per_cycle",
                         cycles > 0 ? (double) cpu_us / cycles : 0.0, 1);
  json_builder_end_object (builder);
  bench_print_json (builder);
}

static void
run_phases (const Options *options, GPtrArray *contexts)
{
  gint64 start, cpu_start;
  GSList *timers = NULL;

  /* Iterations block: a timer in each context makes them look at the
   * flags again after the run stops. */
  for (guint i = 0; i < contexts->len; i++)
    {
      GSource *source = g_timeout_source_new (50);

      g_source_set_callback (source, wake_loops, NULL, NULL);
      g_source_attach (source, g_ptr_array_index (contexts, i));
      timers = g_slist_prepend (timers, source);
    }
  g_usleep ((gulong) (options->warmup * G_USEC_PER_SEC));
  start = g_get_monotonic_time ();
  cpu_start = process_cpu_us ();
  g_atomic_int_set (&shared.counting, 1);
  g_usleep ((gulong) (options->seconds * G_USEC_PER_SEC));
  g_atomic_int_set (&shared.counting, 0);
  g_atomic_int_set (&shared.running, 0);
  print_result (options, (g_get_monotonic_time () - start) / 1e6, process_cpu_us () - cpu_start);
  while (g_atomic_int_get (&shared.in_flight) > 0)
    g_usleep (1000);
  for (GSList *l = timers; l != NULL; l = l->next)
    {
      g_source_destroy (l->data);
      g_source_unref (l->data);
    }
  g_slist_free (timers);
}

static int
run_raw (const Options *options)
{
  GPtrArray *zks = g_ptr_array_new ();
  GPtrArray *no_contexts = g_ptr_array_new ();
  RawSlot *slots = g_new0 (RawSlot, options->sessions * options->window);
  GError *error = NULL;

  for (int k = 0; k < options->sessions; k++)
    {
      BenchZk *zk = bench_zk_connect (options->hosts, &error);

      if (zk == NULL)
        {
          g_printerr ("bench-node: %s\n", error->message);
          return 2;
        }
      g_ptr_array_add (zks, zk);
      for (int j = 0; j < options->window; j++)
        {
          RawSlot *slot = &slots[k * options->window + j];

          slot->zh = bench_zk_handle (zk);
          slot->path = g_strdup_printf ("%s/s%d-%d", options->root, k, j);
        }
    }
  g_atomic_int_set (&shared.running, 1);
  g_atomic_int_set (&shared.in_flight, options->sessions * options->window);
  for (int i = 0; i < options->sessions * options->window; i++)
    raw_start (&slots[i]);
  run_phases (options, no_contexts);
  for (guint k = 0; k < zks->len; k++)
    bench_zk_close (g_ptr_array_index (zks, k));
  for (int i = 0; i < options->sessions * options->window; i++)
    g_free (slots[i].path);
  g_free (slots);
  g_ptr_array_unref (zks);
  g_ptr_array_unref (no_contexts);
  return 0;
}

static int
run_raw_context (const Options *options)
{
  LoopClient *clients = g_new0 (LoopClient, options->sessions);
  BenchZk **zks = g_new0 (BenchZk *, options->sessions);
  GError *error = NULL;

  for (int k = 0; k < options->sessions; k++)
    {
      CtxSlot *slots = g_new0 (CtxSlot, options->window);

      zks[k] = bench_zk_connect (options->hosts, &error);
      if (zks[k] == NULL)
        {
          g_printerr ("bench-node: %s\n", error->message);
          return 2;
        }
      clients[k] = (LoopClient) { .context = g_main_context_new (), .slots = slots,
                                  .slot_size = sizeof (CtxSlot), .window = options->window,
                                  .start = ctx_start };
      for (int j = 0; j < options->window; j++)
        slots[j] = (CtxSlot) {
          .zh = bench_zk_handle (zks[k]), .context = clients[k].context, .step = STEP_START,
          .path = g_strdup_printf ("%s/s%d-%d", options->root, k, j),
        };
    }
  loop_clients_run (options, clients);
  for (int k = 0; k < options->sessions; k++)
    {
      CtxSlot *slots = clients[k].slots;

      bench_zk_close (zks[k]);
      for (int j = 0; j < options->window; j++)
        g_free (slots[j].path);
      g_free (slots);
      g_main_context_unref (clients[k].context);
    }
  g_free (clients);
  g_free (zks);
  return 0;
}

static int
run_zkr (const Options *options)
{
  LoopClient *clients = g_new0 (LoopClient, options->sessions);
  g_autoptr (ZkrSessionOptions) session_options = zkr_session_options_new ();
  GError *error = NULL;

  zkr_session_options_set_hosts (session_options, options->hosts);
  for (int k = 0; k < options->sessions; k++)
    {
      ZkrSession *session = zkr_session_connect (session_options, &error);
      ZkrSlot *slots;

      if (session == NULL)
        {
          g_printerr ("bench-node: %s\n", error->message);
          return 2;
        }
      slots = g_new0 (ZkrSlot, options->window);
      clients[k] = (LoopClient) { .context = g_main_context_new (), .slots = slots,
                                  .slot_size = sizeof (ZkrSlot), .window = options->window,
                                  .start = zkr_start_slot };
      for (int j = 0; j < options->window; j++)
        slots[j] = (ZkrSlot) { .session = session,
                               .path = g_strdup_printf ("%s/s%d-%d", options->root, k, j) };
    }
  loop_clients_run (options, clients);
  for (int k = 0; k < options->sessions; k++)
    {
      ZkrSlot *slots = clients[k].slots;

      zkr_session_unref (slots[0].session);
      for (int j = 0; j < options->window; j++)
        g_free (slots[j].path);
      g_free (slots);
      g_main_context_unref (clients[k].context);
    }
  g_free (clients);
  return 0;
}

/* The root for the slots' nodes, made before and removed after the run
 * (with whatever a slot stopped in the middle of its cycle left). */
static gboolean
root_prepare (const Options *options, gboolean remove)
{
  GError *error = NULL;
  BenchZk *zk = bench_zk_connect (options->hosts, &error);
  struct String_vector children = { 0 };
  int rc;

  if (zk == NULL)
    {
      g_printerr ("bench-node: %s\n", error->message);
      g_error_free (error);
      return FALSE;
    }
  if (!remove)
    {
      (void) zoo_create (bench_zk_handle (zk), "/zkr-bench", NULL, -1, &ZOO_OPEN_ACL_UNSAFE,
                         ZOO_PERSISTENT, NULL, 0);
      rc = zoo_create (bench_zk_handle (zk), options->root, NULL, -1, &ZOO_OPEN_ACL_UNSAFE,
                       ZOO_PERSISTENT, NULL, 0);
    }
  else
    {
      if (zoo_get_children (bench_zk_handle (zk), options->root, 0, &children) == ZOK)
        for (int i = 0; i < children.count; i++)
          {
            g_autofree char *child = g_strdup_printf ("%s/%s", options->root, children.data[i]);

            (void) zoo_delete (bench_zk_handle (zk), child, -1);
          }
      deallocate_String_vector (&children);
      rc = zoo_delete (bench_zk_handle (zk), options->root, -1);
    }
  bench_zk_close (zk);
  if (rc != ZOK)
    g_printerr ("bench-node: %s %s: %s\n", remove ? "delete" : "create", options->root,
                zerror (rc));
  return rc == ZOK;
}

int
main (int argc, char **argv)
{
  Options options = { .sessions = 1, .window = 1, .seconds = 5, .warmup = 1 };
  GOptionEntry entries[] = {
    { "hosts", 0, 0, G_OPTION_ARG_STRING, &options.hosts, "connect string", "H" },
    { "impl", 0, 0, G_OPTION_ARG_STRING, &options.impl, "raw, raw-context or zkr", "I" },
    { "sessions", 0, 0, G_OPTION_ARG_INT, &options.sessions, "sessions (K)", "K" },
    { "window", 0, 0, G_OPTION_ARG_INT, &options.window, "requests in flight per session", "W" },
    { "seconds", 0, 0, G_OPTION_ARG_DOUBLE, &options.seconds, "timed seconds", "S" },
    { "warmup", 0, 0, G_OPTION_ARG_DOUBLE, &options.warmup, "untimed seconds first", "S" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- async node throughput");
  GError *error = NULL;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-node: %s\n", error->message);
      return 2;
    }
  if (options.hosts == NULL)
    options.hosts = g_strdup (g_getenv ("ZKR_BENCH_HOSTS"));
  if (options.hosts == NULL || options.impl == NULL ||
      (strcmp (options.impl, "raw") != 0 && strcmp (options.impl, "raw-context") != 0 &&
       strcmp (options.impl, "zkr") != 0) ||
      options.sessions < 1 || options.window < 1 || options.seconds <= 0 || options.warmup < 0)
    {
      g_printerr ("bench-node: need --hosts (or ZKR_BENCH_HOSTS), --impl raw|raw-context|zkr, "
                  "--sessions >= 1, --window >= 1, --seconds > 0\n");
      return 2;
    }
  options.root = g_strdup_printf ("/zkr-bench/node-%s-%d", options.impl, (int) getpid ());
  if (!root_prepare (&options, FALSE))
    return 2;
  if (strcmp (options.impl, "raw") == 0)
    status = run_raw (&options);
  else if (strcmp (options.impl, "raw-context") == 0)
    status = run_raw_context (&options);
  else
    status = run_zkr (&options);
  if (!root_prepare (&options, TRUE))
    status = 2;
  if (g_atomic_int_get (&shared.failures) > 0)
    status = MAX (status, 1);
  g_free (options.root);
  g_free (options.hosts);
  g_free (options.impl);
  return status;
}
