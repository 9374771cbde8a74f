/* zkr benchmarks: what zkr-bench, bench-raw and bench-mutex share. The
 * command line, the K client threads with their warmup, start barrier and
 * timed cycles, the in-process holder check, the percentiles and the one
 * JSON line (written with json-glib, as integration/bench's other programs
 * write theirs); a small synchronous libzookeeper handle for preparing and
 * removing the lock's path; and the lock implementations themselves
 * (BenchImpl: how a client connects, acquires and releases). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <zookeeper/zookeeper.h>

G_BEGIN_DECLS

typedef struct {
  char *hosts;       /* --hosts, else ZKR_BENCH_HOSTS, else 127.0.0.1:2181 */
  char *path;        /* --path, else "/zkr-bench/<impl>-<pid>" */
  guint clients;     /* --clients K >= 1 */
  guint cycles;      /* --cycles M: timed cycles per client */
  guint hold_us;     /* --hold-us U: how long each acquisition is held */
  guint warmup;      /* --warmup W: untimed cycles per client first */
  double seconds;    /* --seconds S > 0: the timed phase lasts S seconds
                      * instead of M cycles per client */
  gboolean progress; /* a progress line on stderr while the clients run */
} BenchOptions;

/**
 * BenchImpl:
 * One lock implementation. Every function runs on the client's own thread.
 * @client_new connects one client (its own session) to @options->hosts,
 * for the lock at @options->path. @acquire blocks until held, @release
 * gives it up; both fail with a GError that the driver prints.
 * @client_free closes the session and frees the client.
 * @creates_path: TRUE when the driver must create @options->path (and its
 * missing ancestors) as persistent nodes before the clients start; FALSE
 * when the implementation creates what it needs itself.
 * @max_holders: how many clients may hold at once (the violation check);
 * 0 for no limit (shared read locks).
 */
typedef struct {
  const char *name;
  gboolean creates_path;
  guint max_holders;
  gpointer (*client_new) (const BenchOptions *options, GError **error);
  gboolean (*acquire) (gpointer client, GError **error);
  gboolean (*release) (gpointer client, GError **error);
  void (*client_free) (gpointer client);
} BenchImpl;

/* The textbook loop on raw libzookeeper (the baseline; "raw-curator": the
 * same loop on Curator's node layout, as zkr writes it), and zkr's locks
 * through the public API: "raw", "mutex", "rwlock-read", "rwlock-write",
 * "semaphore" (one lease, so that it excludes like a mutex). */
extern const BenchImpl bench_impl_raw;
extern const BenchImpl bench_impl_raw_curator;
extern const BenchImpl bench_impl_mutex;
extern const BenchImpl bench_impl_rwlock_read;
extern const BenchImpl bench_impl_rwlock_write;
extern const BenchImpl bench_impl_semaphore;
/* Counters (bench-counter.c): a cycle is one contended increment, nothing
 * held; "raw-counter" (get + set with version on raw libzookeeper),
 * "atomic-long", "atomic-long-promoted". */
extern const BenchImpl bench_impl_raw_counter;
extern const BenchImpl bench_impl_raw_counter_async;
extern const BenchImpl bench_impl_atomic_long;
extern const BenchImpl bench_impl_atomic_long_promoted;
/* The implementation called @name, or NULL. */
const BenchImpl *bench_impl_lookup (const char *name);
#define BENCH_IMPL_NAMES                                                      \
  "raw|raw-curator|mutex|rwlock-read|rwlock-write|semaphore|raw-counter|atomic-long|" \
  "atomic-long-promoted"

/* The command line, in two steps so that a caller can add options of its
 * own to the same GOptionContext: bench_args_add() adds --path --clients
 * --cycles --hold-us --warmup --seconds (and --hosts when @with_hosts) to
 * @group; after parsing, bench_args_finish() checks the values and fills
 * @options, taking @default_hosts when --hosts was not given. */
typedef struct _BenchArgs BenchArgs;
BenchArgs *bench_args_new (void);
void bench_args_add (BenchArgs *args, GOptionGroup *group, gboolean with_hosts);
gboolean bench_args_finish (BenchArgs *args, const char *impl_name, const char *default_hosts,
                            BenchOptions *options, GError **error);
void bench_args_free (BenchArgs *args);
void bench_options_clear (BenchOptions *options);

/* Prepares the path, runs the clients, prints the JSON line on stdout,
 * removes the path's nodes that the run (or the implementation) created.
 * Returns 0, 1 when violations were seen, 2 when a client failed or the
 * server could not be reached (the failure is printed on stderr, prefixed
 * with @program). */
int bench_run (const char *program, const BenchImpl *impl, const BenchOptions *options);

/* The whole bench-raw / bench-mutex program: parses @argv, runs. Returns
 * bench_run()'s status, or 2 on a bad command line. */
int bench_main (const BenchImpl *impl, int argc, char **argv);

/* A raw libzookeeper_mt handle that knows when it is connected. */
typedef struct _BenchZk BenchZk;

/* Opens a handle to @hosts and waits (up to 15 s) for the connection.
 * ZooKeeper's log goes to g_debug, as zkr routes it. (transfer full) */
BenchZk *bench_zk_connect (const char *hosts, GError **error);
zhandle_t *bench_zk_handle (BenchZk *zk);
/* Closes the session (its ephemeral nodes go at once) and frees @zk. */
void bench_zk_close (BenchZk *zk);

/* Members of the JSON object being built: an integer, a string, and a
 * figure rounded to @decimals places (the precision it is measured to).
 * json-glib writes a double with all the digits that give it back (5.011
 * comes out as 5.0110000000000001), the same number to any JSON reader. */
void bench_json_add_int (JsonBuilder *builder, const char *name, gint64 value);
void bench_json_add_string (JsonBuilder *builder, const char *name, const char *value);
void bench_json_add_double (JsonBuilder *builder, const char *name, double value, int decimals);
/* Prints @builder's value as one line on stdout and flushes it. */
void bench_print_json (JsonBuilder *builder);

/* Sets @error from ZooKeeper's code @rc: "WHAT PATH: ZooKeeper's error". */
void bench_set_zk_error (GError **error, int rc, const char *what, const char *path);

G_END_DECLS
