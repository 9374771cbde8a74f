/* zkr CLI: the connection options, command-line parsing with usage errors
 * and --help, messages and connecting, shared by every subcommand. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkr-cli.h"
#include "zkr-help.h"

#define DEFAULT_HOSTS "127.0.0.1:2181"

static void
cli_vprint (ZkrCli *cli, const char *format, va_list args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);

  fprintf (stderr, "zkr %s: %s\n", cli->command, message);
  fflush (stderr);
}

void
zkr_cli_error (ZkrCli *cli, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  cli_vprint (cli, format, args);
  va_end (args);
}

void
zkr_cli_note (ZkrCli *cli, const char *format, ...)
{
  va_list args;

  if (cli->quiet)
    return;
  va_start (args, format);
  cli_vprint (cli, format, args);
  va_end (args);
}

int
zkr_cli_usage_error (ZkrCli *cli, const char *format, ...)
{
  const ZkrHelpPage *page = zkr_help_lookup (cli->command);
  va_list args;

  va_start (args, format);
  cli_vprint (cli, format, args);
  va_end (args);
  for (guint i = 0; page != NULL && page->synopsis[i] != NULL; i++)
    fprintf (stderr, "%s %s\n", i == 0 ? "Usage:" : "   or:", page->synopsis[i]);
  fprintf (stderr, "Try 'zkr %s --help' for more information.\n", cli->command);
  return ZKR_EXIT_USAGE;
}

/* The options' descriptions are in the command's page (docs/man/), which
 * --help prints: here only what the parser needs. */
GOptionContext *
zkr_cli_context_new (ZkrCli *cli, const GOptionEntry *entries)
{
  const GOptionEntry connection_entries[] = {
    { "hosts", 'H', 0, G_OPTION_ARG_STRING, &cli->hosts, NULL, NULL },
    { "namespace", 0, 0, G_OPTION_ARG_STRING, &cli->name_space, NULL, NULL },
    { "session-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &cli->session_timeout_s, NULL, NULL },
    { "auth-file", 0, 0, G_OPTION_ARG_FILENAME, &cli->auth_file, NULL, NULL },
    { "auth", 0, 0, G_OPTION_ARG_STRING, &cli->auth, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  const GOptionEntry last_entries[] = {
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &cli->quiet, NULL, NULL },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &cli->help, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autofree char *prgname = g_strdup_printf ("zkr %s", cli->command);
  GOptionContext *context = g_option_context_new (NULL);

  g_set_prgname (prgname);
  /* --help is ours (the page); GOption's would list the options bare. */
  g_option_context_set_help_enabled (context, FALSE);
  /* One group, so that GOption's listing (the check of --help) has every
   * option. */
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_main_entries (context, connection_entries, NULL);
  g_option_context_add_main_entries (context, last_entries, NULL);
  return context;
}

/* --help: the command's page. Its options are checked against the
 * parser's here, where the parser's complete list is at hand (GOption's
 * listing has every entry), so that a test running each command's --help
 * catches an option added without its documentation, or a page that
 * promises one the parser refuses. */
static int
cli_help (ZkrCli *cli, GOptionContext *context)
{
  const ZkrHelpPage *page = zkr_help_lookup (cli->command);
  g_autofree char *listing = NULL;
  g_autofree char *mismatch = NULL;

  if (page == NULL)
    {
      zkr_cli_error (cli, "no help page: docs/man/zkr-%s.txt is missing", cli->command);
      return EXIT_FAILURE;
    }
  if (!zkr_help_print (page, stdout))
    return ZKR_EXIT_IOERR;
  listing = g_option_context_get_help (context, TRUE, NULL);
  mismatch = zkr_help_check_options (page, listing);
  if (mismatch == NULL)
    return 0;
  zkr_cli_error (cli, "the help does not match the parser: %s", mismatch);
  return EXIT_FAILURE;
}

/* Wipes and frees a secret. */
static void
secret_free (char *secret)
{
  if (secret != NULL)
    memset (secret, 0, strlen (secret));
  g_free (secret);
}

/* The longest first line of --auth-file read: "user:password" is far
 * shorter; a larger file (or /dev/zero) is never read whole. */
#define AUTH_LINE_MAX_BYTES 4096

/* --auth-file's first line (without its line end), or NULL and a usage
 * error naming the file (never a byte of what it holds). */
static char *
cli_read_auth_file (ZkrCli *cli)
{
  char buffer[AUTH_LINE_MAX_BYTES + 1];
  FILE *stream = fopen (cli->auth_file, "rb");
  const char *problem = NULL;
  char *line = NULL;
  size_t got, len;

  if (stream == NULL)
    {
      zkr_cli_usage_error (cli, "cannot read --auth-file '%s': %s", cli->auth_file,
                           g_strerror (errno));
      return NULL;
    }
  got = fread (buffer, 1, sizeof buffer, stream);
  len = 0;
  while (len < got && buffer[len] != '\r' && buffer[len] != '\n' && buffer[len] != '\0')
    len++;
  if (ferror (stream))
    problem = "a read error";
  else if (len > AUTH_LINE_MAX_BYTES)
    problem = "its first line is longer than " G_STRINGIFY (AUTH_LINE_MAX_BYTES) " bytes";
  else
    line = g_strndup (buffer, len);
  fclose (stream);
  memset (buffer, 0, sizeof buffer);
  if (problem != NULL)
    zkr_cli_usage_error (cli, "cannot read --auth-file '%s': %s", cli->auth_file, problem);
  return line;
}

/* The credentials: --auth-file, --auth (with a warning: the command line
 * is readable by every local user), else $ZKR_AUTH. Never echoed. */
static gboolean
cli_read_credentials (ZkrCli *cli)
{
  const char *env_auth = g_getenv ("ZKR_AUTH");
  const char *source = "--auth";

  if (cli->auth != NULL && cli->auth_file != NULL)
    {
      zkr_cli_usage_error (cli, "--auth and --auth-file: give one");
      return FALSE;
    }
  if (cli->auth_file != NULL)
    {
      cli->auth = cli_read_auth_file (cli);
      if (cli->auth == NULL)
        return FALSE;
      source = "the first line of --auth-file";
    }
  else if (cli->auth != NULL)
    zkr_cli_error (cli, "warning: --auth puts the password on the command line, where other "
                   "local users can read it; use --auth-file FILE or $ZKR_AUTH");
  else if (env_auth != NULL && *env_auth != '\0')
    {
      cli->auth = g_strdup (env_auth);
      source = "$ZKR_AUTH";
    }
  if (cli->auth != NULL && (strchr (cli->auth, ':') == NULL || cli->auth[0] == ':'))
    {
      /* Never echo the value: it holds a password. */
      zkr_cli_usage_error (cli, "bad credentials in %s: need USER:PASSWORD", source);
      return FALSE;
    }
  return TRUE;
}

static gboolean
cli_check_connection_options (ZkrCli *cli)
{
  const char *env_hosts = g_getenv ("ZKR_HOSTS");

  if (cli->session_timeout_s != 0
      && !(cli->session_timeout_s >= 0.001 && cli->session_timeout_s <= 1e6))
    {
      zkr_cli_usage_error (cli, "bad --session-timeout %g: need seconds > 0",
                           cli->session_timeout_s);
      return FALSE;
    }
  if (!cli_read_credentials (cli))
    return FALSE;
  if (cli->hosts == NULL)
    cli->hosts = g_strdup (env_hosts != NULL && *env_hosts != '\0' ? env_hosts : DEFAULT_HOSTS);
  return TRUE;
}

gboolean
zkr_cli_parse (ZkrCli *cli, GOptionContext *context, int *argc, char ***argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) secrets = g_ptr_array_new ();

  /* The values of --auth, found before GOption moves the array about
   * (the strings stay where they are; a CMD's own words after "--" are
   * not ours). */
  for (int i = 1; i < *argc && strcmp ((*argv)[i], "--") != 0; i++)
    if (g_str_has_prefix ((*argv)[i], "--auth="))
      g_ptr_array_add (secrets, (*argv)[i] + strlen ("--auth="));
    else if (strcmp ((*argv)[i], "--auth") == 0 && i + 1 < *argc)
      g_ptr_array_add (secrets, (*argv)[++i]);
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      zkr_cli_usage_error (cli, "%s", error->message);
      return FALSE;
    }
  /* As GOption's own --help did: print and exit, before the arguments
   * and the credentials are looked at. */
  if (cli->help)
    exit (cli_help (cli, context));
  /* GOption kept a copy: what ps shows of our command line from now on
   * is stars. */
  for (guint i = 0; i < secrets->len; i++)
    {
      char *secret = g_ptr_array_index (secrets, i);

      memset (secret, '*', strlen (secret));
    }
  return cli_check_connection_options (cli);
}

char **
zkr_cli_split_command (int *argc, char **argv)
{
  for (int i = 1; i < *argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        char **command = g_strdupv (argv + i + 1);

        *argc = i;
        return command;
      }
  return NULL;
}

gboolean
zkr_cli_check_path_and_command (ZkrCli *cli, int argc, char **argv, char **command)
{
  if (argc < 2)
    zkr_cli_usage_error (cli, "missing PATH");
  else if (argc > 2)
    zkr_cli_usage_error (cli, "unexpected argument '%s' (put CMD after '--')", argv[2]);
  else if (command == NULL || command[0] == NULL)
    zkr_cli_usage_error (cli, "missing '--' and CMD");
  else
    return TRUE;
  return FALSE;
}

int
zkr_cli_exit_status_for (const GError *error)
{
  if (error->domain != ZKR_ERROR)
    return ZKR_EXIT_UNAVAILABLE;
  switch (error->code)
    {
    case ZKR_ERROR_INVALID_ARGUMENT:
      return ZKR_EXIT_USAGE;
    case ZKR_ERROR_TIMEOUT:
      return ZKR_EXIT_TIMEOUT;
    case ZKR_ERROR_LOCK_LOST:
      return ZKR_EXIT_LOCK_LOST;
    case ZKR_ERROR_AUTH:
      return ZKR_EXIT_NOPERM;
    case ZKR_ERROR_NO_NODE:
      return ZKR_EXIT_NO_NODE;
    case ZKR_ERROR_NODE_EXISTS:
      return ZKR_EXIT_NODE_EXISTS;
    case ZKR_ERROR_BAD_VERSION:
      return ZKR_EXIT_BAD_VERSION;
    case ZKR_ERROR_NOT_EMPTY:
      return ZKR_EXIT_NOT_EMPTY;
    default:
      return ZKR_EXIT_UNAVAILABLE;
    }
}

int
zkr_cli_report (ZkrCli *cli, const GError *error)
{
  if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT))
    return zkr_cli_usage_error (cli, "%s", error->message);
  zkr_cli_error (cli, "%s", error->message);
  return zkr_cli_exit_status_for (error);
}

/* How long connecting may take when the command's --timeout allows more
 * (or it has none): then giving up means ZooKeeper is unreachable (69). */
#define CLI_CONNECT_TIMEOUT_MS 15000

ZkrSession *
zkr_cli_connect (ZkrCli *cli, int *exit_status)
{
  return zkr_cli_connect_by (cli, 0, exit_status);
}

ZkrSession *
zkr_cli_connect_by (ZkrCli *cli, gint64 deadline, int *exit_status)
{
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GError) error = NULL;
  ZkrSession *session;
  gint64 left_ms = deadline != 0 ? (deadline - g_get_monotonic_time ()) / 1000 : G_MAXINT64;
  /* The command's deadline is the nearer limit: running out of it is a
   * timeout (75), as for any other step of the command. */
  gboolean by_deadline = left_ms < CLI_CONNECT_TIMEOUT_MS;

  zkr_session_options_set_connection_timeout_ms (options,
                                                 by_deadline ? (int) MAX (left_ms, 1)
                                                             : CLI_CONNECT_TIMEOUT_MS);
  zkr_session_options_set_hosts (options, cli->hosts);
  if (cli->name_space != NULL)
    zkr_session_options_set_namespace (options, cli->name_space);
  if (cli->session_timeout_s > 0)
    zkr_session_options_set_session_timeout_ms (options, (int) (cli->session_timeout_s * 1000));
  if (cli->auth != NULL)
    {
      const char *colon = strchr (cli->auth, ':');
      g_autofree char *user = g_strndup (cli->auth, colon - cli->auth);

      zkr_session_options_set_digest_auth (options, user, colon + 1);
    }
  session = zkr_session_connect (options, &error);
  if (session == NULL)
    {
      *exit_status = zkr_cli_exit_status_for (error);
      if (*exit_status == ZKR_EXIT_TIMEOUT && by_deadline)
        {
          zkr_cli_error (cli, "not connected within --timeout: %s", error->message);
          return NULL;
        }
      if (*exit_status == ZKR_EXIT_TIMEOUT)
        *exit_status = ZKR_EXIT_UNAVAILABLE;
      zkr_cli_error (cli, "%s", error->message);
    }
  return session;
}

gint64
zkr_cli_deadline (double timeout_s)
{
  if (!(timeout_s > 0))
    return 0;
  return g_get_monotonic_time () + (gint64) MIN (timeout_s * G_USEC_PER_SEC, (double) G_MAXINT64 / 2);
}

int
zkr_cli_left_ms (gint64 deadline)
{
  gint64 left_ms = (deadline - g_get_monotonic_time ()) / 1000;

  return (int) CLAMP (left_ms, 1, G_MAXINT);
}

void
zkr_cli_clear (ZkrCli *cli)
{
  g_clear_pointer (&cli->hosts, g_free);
  g_clear_pointer (&cli->name_space, g_free);
  g_clear_pointer (&cli->auth, secret_free);
  g_clear_pointer (&cli->auth_file, g_free);
}

int
zkr_cli_run (ZkrCliRun *run, const GOptionEntry *entries, const ZkrCliSteps *steps,
             int argc, char **argv)
{
  g_autoptr (GOptionContext) context = NULL;
  g_auto (GStrv) command = zkr_cli_split_command (&argc, argv);
  int status = ZKR_EXIT_USAGE;

  context = zkr_cli_context_new (&run->cli, entries);
  if (zkr_cli_parse (&run->cli, context, &argc, &argv)
      && steps->check_arguments (run, argc, argv, command))
    {
      run->deadline = zkr_cli_deadline (run->timeout_s);
      run->session = zkr_cli_connect_by (&run->cli, run->deadline, &status);
      if (run->session != NULL)
        {
          run->loop = g_main_loop_new (NULL, FALSE);
          status = steps->run_connected (run, command);
          /* What was made on the session goes while it is still open. */
          if (steps->drop != NULL)
            steps->drop (run);
          zkr_session_close (run->session);
          g_clear_pointer (&run->session, zkr_session_unref);
          g_clear_pointer (&run->loop, g_main_loop_unref);
        }
    }
  zkr_cli_clear (&run->cli);
  return status;
}
