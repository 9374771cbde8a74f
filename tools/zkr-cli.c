/* zkr CLI: the connection options, command-line parsing with usage errors,
 * messages and connecting, shared by every subcommand. */

#include <stdio.h>
#include <string.h>

#include "zkr-cli.h"

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
  va_list args;

  va_start (args, format);
  cli_vprint (cli, format, args);
  va_end (args);
  fprintf (stderr, "Usage: zkr %s [OPTION…]%s%s\nTry 'zkr %s --help' for more information.\n",
           cli->command, *cli->parameters != '\0' ? " " : "", cli->parameters, cli->command);
  return ZKR_EXIT_USAGE;
}

GOptionContext *
zkr_cli_context_new (ZkrCli *cli, const char *summary, const char *description,
                     const GOptionEntry *entries)
{
  const GOptionEntry hosts_entry[] = {
    { "hosts", 'H', 0, G_OPTION_ARG_STRING, &cli->hosts,
      "ZooKeeper connect string host:port[,host:port…][/chroot] "
      "(default: $ZKR_HOSTS, else " DEFAULT_HOSTS ")", "HOSTS" },
    G_OPTION_ENTRY_NULL,
  };
  const GOptionEntry session_entries[] = {
    { "namespace", 0, 0, G_OPTION_ARG_STRING, &cli->name_space,
      "Resolve every PATH under /NAMESPACE (Curator's namespace)", "NAMESPACE" },
    { "session-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &cli->session_timeout_s,
      "Requested session timeout in seconds (default: 10); the server may adjust it",
      "SECONDS" },
    { "auth", 0, 0, G_OPTION_ARG_STRING, &cli->auth,
      "Digest credentials sent on every connect (never printed)", "USER:PASSWORD" },
    G_OPTION_ENTRY_NULL,
  };
  const GOptionEntry quiet_entry[] = {
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &cli->quiet,
      "No notes on stderr (lock in doubt or restored, timeout); errors and a lost lock are still reported", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autofree char *prgname = g_strdup_printf ("zkr %s", cli->command);
  GOptionContext *context = g_option_context_new (cli->parameters);

  g_set_prgname (prgname);
  g_option_context_set_summary (context, summary);
  if (description != NULL)
    g_option_context_set_description (context, description);
  /* One group, so that --help shows every option. */
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_main_entries (context, hosts_entry, NULL);
  if (!cli->hosts_only)
    g_option_context_add_main_entries (context, session_entries, NULL);
  g_option_context_add_main_entries (context, quiet_entry, NULL);
  return context;
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
  if (cli->auth != NULL && (strchr (cli->auth, ':') == NULL || cli->auth[0] == ':'))
    {
      /* Never echo the value: it holds a password. */
      zkr_cli_usage_error (cli, "bad --auth: need USER:PASSWORD");
      return FALSE;
    }
  if (cli->hosts == NULL)
    cli->hosts = g_strdup (env_hosts != NULL && *env_hosts != '\0' ? env_hosts : DEFAULT_HOSTS);
  return TRUE;
}

gboolean
zkr_cli_parse (ZkrCli *cli, GOptionContext *context, int *argc, char ***argv)
{
  g_autoptr (GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      zkr_cli_usage_error (cli, "%s", error->message);
      return FALSE;
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

ZkrSession *
zkr_cli_connect (ZkrCli *cli, int *exit_status)
{
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GError) error = NULL;
  ZkrSession *session;

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
      if (*exit_status == ZKR_EXIT_TIMEOUT)
        *exit_status = ZKR_EXIT_UNAVAILABLE;
      zkr_cli_error (cli, "%s", error->message);
    }
  return session;
}

void
zkr_cli_clear (ZkrCli *cli)
{
  g_clear_pointer (&cli->hosts, g_free);
  g_clear_pointer (&cli->name_space, g_free);
  if (cli->auth != NULL)
    memset (cli->auth, 0, strlen (cli->auth));
  g_clear_pointer (&cli->auth, g_free);
}
