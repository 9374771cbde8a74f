/* zkr: the command-line tool. `zkr COMMAND [OPTION…]`: each subcommand
 * parses its own options (the connection options are common to all) and
 * returns sysexits-style statuses (zkr-cli.h). */

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "zkr-cli.h"

typedef struct {
  const char *name;
  const char *summary;
  int (*run) (int argc, char **argv);
} ZkrCommand;

static const ZkrCommand commands[] = {
  { "lock", "Run a command while holding a distributed lock", zkr_cmd_lock },
  { "elect", "Run a command while this process is the elected leader", zkr_cmd_elect },
  { "holders", "List who holds and who waits for a lock or leadership", zkr_cmd_holders },
  { "bench", "Measure a contended lock", zkr_cmd_bench },
};

static void
print_usage (FILE *out)
{
  fprintf (out,
           "Usage:\n"
           "  zkr COMMAND [OPTION…] [ARGUMENT…]\n"
           "\n"
           "ZooKeeper recipes from the shell: locks and leader elections that\n"
           "several machines share, with Curator-compatible node layouts.\n"
           "\n"
           "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out,
           "\n"
           "Every command takes --hosts HOSTS (default: $ZKR_HOSTS, else\n"
           "127.0.0.1:2181) and --quiet; `zkr COMMAND --help` shows the rest.\n"
           "\n"
           "Examples:\n"
           "  zkr lock /locks/backup -- ./backup.sh\n"
           "  zkr elect --id \"$(hostname)\" /election/scheduler -- ./scheduler\n"
           "  zkr holders --json /locks/backup\n"
           "  zkr bench --impl mutex --clients 4\n"
           "\n"
           "Exit status: 64 bad arguments; others per command (see its --help).\n");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  g_set_prgname ("zkr");
  if (argc < 2)
    {
      fprintf (stderr, "zkr: missing COMMAND\n");
      print_usage (stderr);
      return ZKR_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("zkr %s\n", ZKR_VERSION_STRING);
      return 0;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);
  fprintf (stderr, "zkr: unknown command '%s'\n", argv[1]);
  print_usage (stderr);
  return ZKR_EXIT_USAGE;
}
