/* zkr CLI: what every subcommand shares: the exit codes, the connection
 * options (--hosts, --namespace, --session-timeout, --auth-file, --auth, --quiet), the
 * parsing of a subcommand's command line with usage errors that exit 64
 * and its --help (the page generated from docs/man/, zkr-help.h), and
 * connecting a session from those options. */
#pragma once

#include <glib.h>
#include <zkr/zkr.h>

G_BEGIN_DECLS

/* sysexits.h values, so that scripts can tell the cases apart; the node
 * commands' own cases take the numbers nearest in meaning. */
#define ZKR_EXIT_USAGE 64        /* EX_USAGE: bad command line */
#define ZKR_EXIT_BAD_VERSION 65  /* EX_DATAERR: the node's version is not --version */
#define ZKR_EXIT_NO_NODE 66      /* EX_NOINPUT: no such node */
#define ZKR_EXIT_NOT_EMPTY 67    /* the node has children (rm without -r) */
#define ZKR_EXIT_UNAVAILABLE 69  /* EX_UNAVAILABLE: could not connect, or the server failed */
#define ZKR_EXIT_LOCK_LOST 70    /* the lock (or leadership) was lost while CMD ran; a
                                  * fenced write's lock node is gone (nothing written) */
#define ZKR_EXIT_NODE_EXISTS 73  /* EX_CANTCREAT: the node already exists */
#define ZKR_EXIT_IOERR 74        /* EX_IOERR: the output could not be written */
#define ZKR_EXIT_TIMEOUT 75      /* EX_TEMPFAIL: not done within --timeout */
#define ZKR_EXIT_NOPERM 77       /* EX_NOPERM: authentication or ACL refused */

typedef struct {
  const char *command;     /* "lock", "holders", ...: its page is docs/man/zkr-COMMAND.txt */
  char *hosts;             /* --hosts, else $ZKR_HOSTS, else 127.0.0.1:2181 */
  char *name_space;        /* --namespace (Curator's): paths resolve under it */
  double session_timeout_s;
  char *auth;              /* user:password: --auth, --auth-file's first line,
                            * else $ZKR_AUTH; wiped at zkr_cli_clear() */
  char *auth_file;         /* --auth-file */
  gboolean quiet;
  gboolean help;           /* -h, --help */
} ZkrCli;

/* A GOptionContext for "zkr COMMAND": the options of the command
 * (@entries) followed by the connection options and --help, all in the
 * main group. Their descriptions are in the command's page, not here:
 * GOption's own help is off. (transfer full) */
GOptionContext *zkr_cli_context_new (ZkrCli *cli, const GOptionEntry *entries);

/* Parses @argv (argv[0] is the subcommand); on a bad command line prints
 * "zkr COMMAND: MESSAGE" and the usage, and returns FALSE: exit with
 * ZKR_EXIT_USAGE. --help prints the command's page and exits 0 (74 if it
 * could not be written); the page's options are checked against the
 * parser's then (zkr_help_check_options()): a difference is reported on
 * stderr and exits 1. */
gboolean zkr_cli_parse (ZkrCli *cli, GOptionContext *context, int *argc, char ***argv);

/* Prints "zkr COMMAND: MESSAGE", the usage lines (the page's synopsis)
 * and a pointer to --help on stderr. Returns ZKR_EXIT_USAGE. */
int zkr_cli_usage_error (ZkrCli *cli, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Prints "zkr COMMAND: MESSAGE" on stderr (always, even with --quiet). */
void zkr_cli_error (ZkrCli *cli, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* The same, unless --quiet. */
void zkr_cli_note (ZkrCli *cli, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Connects a session with the connection options (blocking, up to the
 * connection timeout). On failure prints why and returns NULL with
 * *@exit_status set (ZKR_EXIT_USAGE for bad values, ZKR_EXIT_NOPERM for
 * refused credentials, ZKR_EXIT_UNAVAILABLE otherwise). (transfer full) */
ZkrSession *zkr_cli_connect (ZkrCli *cli, int *exit_status);
/* The same within a command's --timeout: @deadline (monotonic µs,
 * zkr_cli_deadline(); 0 for none) bounds the connect too. Not connected by
 * then: an error line and *@exit_status ZKR_EXIT_TIMEOUT (75); connecting
 * still gives up after 15 s (ZKR_EXIT_UNAVAILABLE, 69) when the
 * deadline is further. (transfer full) */
ZkrSession *zkr_cli_connect_by (ZkrCli *cli, gint64 deadline, int *exit_status);
/* The deadline of a --timeout of @timeout_s seconds from now, taken before
 * connecting; 0 (none) for @timeout_s <= 0. */
gint64 zkr_cli_deadline (double timeout_s);
/* What is left of @deadline, in ms, at least 1. */
int zkr_cli_left_ms (gint64 deadline);

/* Splits "... -- CMD ARGS" at the first "--" (GOption would keep or drop
 * it depending on what follows): returns CMD ARGS, NULL without "--", and
 * cuts *@argc before it. (transfer full) */
char **zkr_cli_split_command (int *argc, char **argv);

/* Checks a "PATH -- CMD [ARG…]" command line after parsing: exactly one
 * PATH, then a CMD. On a bad one prints the usage error and returns FALSE:
 * exit with ZKR_EXIT_USAGE. */
gboolean zkr_cli_check_path_and_command (ZkrCli *cli, int argc, char **argv, char **command);

/* The exit status for a ZKR_ERROR met after connecting: ZKR_ERROR_NO_NODE
 * 66, NODE_EXISTS 73, BAD_VERSION 65, NOT_EMPTY 67, LOCK_LOST 70, TIMEOUT
 * 75, AUTH 77, INVALID_ARGUMENT 64, anything else 69. */
int zkr_cli_exit_status_for (const GError *error);

/* Reports @error met after connecting: a ZKR_ERROR_INVALID_ARGUMENT as a
 * usage error, anything else with zkr_cli_error(). Returns the exit status
 * (zkr_cli_exit_status_for()). */
int zkr_cli_report (ZkrCli *cli, const GError *error);

void zkr_cli_clear (ZkrCli *cli);

/* What a command that runs in a main loop after connecting (lock, elect,
 * barrier, register) holds; its own state starts with one (as `base`), so
 * that zkr_cli_run() takes the command's state as a ZkrCliRun. */
typedef struct {
  ZkrCli cli;
  double timeout_s;     /* the command's --timeout, whatever it means there */
  gint64 deadline;      /* zkr_cli_deadline (timeout_s), taken before
                         * connecting: the connect counts in it */
  ZkrSession *session;  /* (owned) while connected */
  GMainLoop *loop;      /* (owned) while connected, in the default context */
} ZkrCliRun;

/* A command's own steps for zkr_cli_run(); @run is its state (a ZkrCliRun
 * first). */
typedef struct {
  /* After parsing: checks what is left of the command line (argv[0] the
   * subcommand) and CMD (NULL without "--"); on a bad one prints the usage
   * error and returns FALSE. */
  gboolean (*check_arguments) (gpointer run, int argc, char **argv, char **command);
  /* Connected, the loop made: the command's work; returns its exit status. */
  int (*run_connected) (gpointer run, char **command);
  /* (nullable) Drops what run_connected made on the session, before the
   * session closes. */
  void (*drop) (gpointer run);
} ZkrCliSteps;

/* The whole of such a command: splits "-- CMD" off @argv, parses the
 * command's @entries and the connection options, checks the arguments,
 * connects within --timeout (zkr_cli_connect_by()), makes run->loop, runs
 * the command, then drops its objects, closes the session and frees the
 * session and the loop, in that order; clears run->cli last. The command
 * frees its own fields (a guard, after the session closed) afterwards.
 * Returns the exit status: ZKR_EXIT_USAGE for a bad command line,
 * zkr_cli_connect_by()'s when not connected, else run_connected's. */
int zkr_cli_run (ZkrCliRun *run, const GOptionEntry *entries, const ZkrCliSteps *steps,
                 int argc, char **argv);

/* The subcommands: each gets argv with argv[0] = its name. */
int zkr_cmd_lock (int argc, char **argv);
int zkr_cmd_elect (int argc, char **argv);
int zkr_cmd_holders (int argc, char **argv);
int zkr_cmd_get (int argc, char **argv);
int zkr_cmd_set (int argc, char **argv);
int zkr_cmd_ls (int argc, char **argv);
int zkr_cmd_rm (int argc, char **argv);
int zkr_cmd_create (int argc, char **argv);
int zkr_cmd_watch (int argc, char **argv);
int zkr_cmd_barrier (int argc, char **argv);
int zkr_cmd_counter (int argc, char **argv);
int zkr_cmd_revoke (int argc, char **argv);
int zkr_cmd_register (int argc, char **argv);
int zkr_cmd_services (int argc, char **argv);
int zkr_cmd_members (int argc, char **argv);

G_END_DECLS
