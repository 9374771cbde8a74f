/* zkr: the command-line tool. `zkr COMMAND [OPTION…]`: each subcommand
 * parses its own options (the connection options are common to all) and
 * returns sysexits-style statuses (zkr-cli.h); `zkr help [COMMAND]`
 * prints the pages generated from docs/man/ (zkr-help.h). */

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkr-cli.h"
#include "zkr-help.h"

typedef struct {
  const char *name;
  int (*run) (int argc, char **argv);
} ZkrCommand;

/* What each command does is on its page (docs/man/zkr-COMMAND.txt), which
 * `zkr help` lists in its own order. */
static const ZkrCommand commands[] = {
  { "get", zkr_cmd_get },
  { "set", zkr_cmd_set },
  { "ls", zkr_cmd_ls },
  { "create", zkr_cmd_create },
  { "rm", zkr_cmd_rm },
  { "watch", zkr_cmd_watch },
  { "lock", zkr_cmd_lock },
  { "elect", zkr_cmd_elect },
  { "barrier", zkr_cmd_barrier },
  { "counter", zkr_cmd_counter },
  { "revoke", zkr_cmd_revoke },
  { "holders", zkr_cmd_holders },
  { "register", zkr_cmd_register },
  { "services", zkr_cmd_services },
  { "members", zkr_cmd_members },
};

static const ZkrCommand *
command_lookup (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (name, commands[i].name) == 0)
      return &commands[i];
  return NULL;
}

/* After a bad command line: why, the usage lines and the commands, on
 * stderr. */
static int G_GNUC_PRINTF (1, 2)
usage_error (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  fprintf (stderr, "zkr: ");
  vfprintf (stderr, format, args);
  fputc ('\n', stderr);
  va_end (args);
  for (guint i = 0; zkr_help_main.synopsis[i] != NULL; i++)
    fprintf (stderr, "%s %s\n", i == 0 ? "Usage:" : "   or:", zkr_help_main.synopsis[i]);
  fprintf (stderr, "Commands:");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (stderr, "%s %s", i == 0 ? "" : ",", commands[i].name);
  fprintf (stderr, "\nTry 'zkr help' or 'zkr help COMMAND' for more information.\n");
  return ZKR_EXIT_USAGE;
}

/* Every command has a page and every page a command: the list that `zkr
 * help` prints is generated from the pages, the commands are the table
 * above. Checked where both are at hand, so that a test of `zkr help`
 * catches a command added without its page. */
static gboolean
check_pages (void)
{
  gboolean ok = TRUE;

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (zkr_help_lookup (commands[i].name) == NULL)
      {
        fprintf (stderr, "zkr: the help does not match the commands: %s has no page "
                 "(docs/man/zkr-%s.txt)\n", commands[i].name, commands[i].name);
        ok = FALSE;
      }
  for (const ZkrHelpPage *page = zkr_help_commands; page->command != NULL; page++)
    if (command_lookup (page->command) == NULL)
      {
        fprintf (stderr, "zkr: the help does not match the commands: no command %s for its "
                 "page\n", page->command);
        ok = FALSE;
      }
  return ok;
}

/* zkr help [COMMAND]: zkr's page, or COMMAND's (the same as COMMAND
 * --help, which also checks its options). */
static int
help (int argc, char **argv)
{
  const ZkrCommand *command;
  char *help_argv[] = { NULL, (char *) "--help", NULL };

  if (argc > 3)
    return usage_error ("help: unexpected argument '%s'", argv[3]);
  if (argc < 3)
    {
      if (!zkr_help_print (&zkr_help_main, stdout))
        return ZKR_EXIT_IOERR;
      return check_pages () ? 0 : EXIT_FAILURE;
    }
  command = command_lookup (argv[2]);
  if (command == NULL)
    return usage_error ("help: unknown command '%s'", argv[2]);
  help_argv[0] = (char *) command->name;
  return command->run (2, help_argv);
}

int
main (int argc, char **argv)
{
  const ZkrCommand *command;

  setlocale (LC_ALL, "");
  g_set_prgname ("zkr");
  if (argc < 2)
    return usage_error ("missing COMMAND");
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "help") == 0)
    return help (argc, argv);
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("zkr %s\n", ZKR_VERSION_STRING);
      return 0;
    }
  command = command_lookup (argv[1]);
  if (command == NULL)
    return usage_error ("unknown command '%s'", argv[1]);
  return command->run (argc - 1, argv + 1);
}
