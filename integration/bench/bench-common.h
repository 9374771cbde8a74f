/* zkr benchmarks: what bench_raw and bench_mutex share. The command line,
 * the K client threads with their warmup, start barrier and timed cycles,
 * the in-process holder check, the percentiles and the one JSON line; and
 * a small synchronous libzookeeper handle for preparing and removing the
 * lock's path. Each program only supplies how a client connects, acquires
 * and releases (BenchImpl). */
#pragma once

#include <glib.h>
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
 */
typedef struct {
  const char *name;
  gboolean creates_path;
  gpointer (*client_new) (const BenchOptions *options, GError **error);
  gboolean (*acquire) (gpointer client, GError **error);
  gboolean (*release) (gpointer client, GError **error);
  void (*client_free) (gpointer client);
} BenchImpl;

/* The whole program: parses @argv, runs the benchmark, removes the path's
 * nodes that it (or the implementation) created, prints the JSON line on
 * stdout. Returns the exit status: 0, 1 when violations were seen, 2 on a
 * bad command line or a failed client. */
int bench_main (const BenchImpl *impl, int argc, char **argv);

/* A raw libzookeeper_mt handle that knows when it is connected. */
typedef struct _BenchZk BenchZk;

/* Opens a handle to @hosts and waits (up to 15 s) for the connection.
 * ZooKeeper's log goes to g_debug, as zkr routes it. (transfer full) */
BenchZk *bench_zk_connect (const char *hosts, GError **error);
zhandle_t *bench_zk_handle (BenchZk *zk);
/* Closes the session (its ephemeral nodes go at once) and frees @zk. */
void bench_zk_close (BenchZk *zk);

/* Sets @error from ZooKeeper's code @rc: "WHAT PATH: ZooKeeper's error". */
void bench_set_zk_error (GError **error, int rc, const char *what, const char *path);

G_END_DECLS
