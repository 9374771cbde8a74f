/* zkr CLI: what the node commands (get, set, ls, rm, create, watch) share:
 * their common options (--json, --timeout, and for writes --fenced-by and
 * --fenced), connecting, the JSON of a stat, and writing to stdout. */
#pragma once

#include <json-glib/json-glib.h>

#include "zkr-cli.h"

G_BEGIN_DECLS

#define ZKR_NODE_DEFAULT_TIMEOUT_S 30.0

typedef struct {
  ZkrCli cli;
  gboolean json;            /* --json */
  double timeout_s;         /* --timeout, seconds >= 0 */
  char *fenced_by;          /* --fenced-by NODE */
  gboolean fenced;          /* --fenced: NODE is $ZKR_LOCK_NODE */
  const char *fence_node;   /* the node a write is fenced by, NULL for none */
  ZkrSession *session;      /* (owned) once connected */
  gint64 deadline;          /* monotonic µs: --timeout counted from before
                             * the connect, which it bounds too */
} ZkrNodeCmd;

#define ZKR_NODE_CMD_INIT(name) \
  { .cli = { .command = (name) }, .timeout_s = ZKR_NODE_DEFAULT_TIMEOUT_S }

/* A context with @entries, then --json and --timeout, then (@writes) the
 * fencing options, then the connection options. (transfer full) */
GOptionContext *zkr_node_cmd_context_new (ZkrNodeCmd *cmd, const GOptionEntry *entries,
                                          gboolean writes);

/* Parses and checks the common options and that there are a PATH and at
 * most @max_args arguments in all after the command (argv[1]...). On a
 * bad command line prints the usage error and returns FALSE: exit with
 * ZKR_EXIT_USAGE. */
gboolean zkr_node_cmd_parse (ZkrNodeCmd *cmd, GOptionContext *context, int *argc, char ***argv,
                             int max_args);

/* Connects; 0, or the exit status (the reason printed). */
int zkr_node_cmd_connect (ZkrNodeCmd *cmd);

/* The timeout for the next node call: what is left of --timeout (one
 * deadline for the whole command, however many calls it makes; at least
 * 1 ms), or 0 for --timeout 0 (try once). */
int zkr_node_cmd_timeout_ms (ZkrNodeCmd *cmd);

/* Closes the session, frees what the options allocated, returns @status. */
int zkr_node_cmd_finish (ZkrNodeCmd *cmd, int status);

/* What a reading command does once connected (@cmd is the one given to
 * zkr_node_cmd_run(), which may start a larger struct): @argument is the
 * second argument, NULL without one. Returns the exit status. */
typedef int (*ZkrNodeCmdRun) (ZkrNodeCmd *cmd, const char *path, const char *argument);
/* The whole of a command that checks nothing before connecting but its
 * options and "PATH [ARGUMENT]" (get, ls, watch, members, revoke): parses
 * @entries and the common options (no fencing: nothing is written), a PATH
 * and at most @max_args arguments (1 or 2), connects, runs @run, then
 * closes (zkr_node_cmd_finish()). Returns the exit status (ZKR_EXIT_USAGE
 * for a bad command line). */
int zkr_node_cmd_run (ZkrNodeCmd *cmd, const GOptionEntry *entries, int max_args,
                      ZkrNodeCmdRun run, int argc, char **argv);

/* Adds "stat": {czxid, mzxid, pzxid, ctime, mtime, version, cversion,
 * aversion, ephemeral_owner ("0x" + 16 hex digits), data_length,
 * num_children} to the object being built. */
void zkr_node_json_add_stat (JsonBuilder *builder, const ZkrStat *stat);

/* Adds "data" (the text, or null when the data is not UTF-8 or holds a
 * NUL byte) and "data_base64" (always: binary-safe). */
void zkr_node_json_add_data (JsonBuilder *builder, GBytes *data);

/* Prints the built value on stdout as one line. 0, or ZKR_EXIT_IOERR. */
int zkr_node_print_json (ZkrNodeCmd *cmd, JsonBuilder *builder);

/* Writes @len bytes on stdout as they are. 0, or ZKR_EXIT_IOERR. */
int zkr_node_print_bytes (ZkrNodeCmd *cmd, const void *data, gsize len);

/* Reports @error (zkr_cli_report()) and returns the exit status. */
int zkr_node_cmd_report (ZkrNodeCmd *cmd, const GError *error);

/* The writes fenced by cmd->fence_node (zkr-node-fence.c): each is one
 * transaction of a check that the lock node exists and the write, so a
 * gone node writes nothing and fails ZKR_ERROR_LOCK_LOST. Otherwise as
 * zkr_node_set(), zkr_node_create() (@parents: missing ancestors are
 * created in the same transaction) and zkr_node_delete(). */
gboolean zkr_node_fenced_set (ZkrNodeCmd *cmd, const char *path, const void *data, gsize len,
                              int version, ZkrStat *stat, GError **error);
gboolean zkr_node_fenced_create (ZkrNodeCmd *cmd, const char *path, const void *data, gsize len,
                                 ZkrCreateMode mode, gboolean parents, char **created_path,
                                 ZkrStat *stat, GError **error);
gboolean zkr_node_fenced_delete (ZkrNodeCmd *cmd, const char *path, int version, GError **error);

G_END_DECLS
