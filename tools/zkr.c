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
  { "get", "Print a node's data (--json: with its stat)", zkr_cmd_get },
  { "set", "Replace a node's data", zkr_cmd_set },
  { "ls", "List a node's children (-R: the whole tree below it)", zkr_cmd_ls },
  { "create", "Create a node", zkr_cmd_create },
  { "rm", "Delete a node (-r: and everything below it)", zkr_cmd_rm },
  { "watch", "Print each change of a node until interrupted", zkr_cmd_watch },
  { "lock", "Run a command while holding a distributed lock", zkr_cmd_lock },
  { "elect", "Run a command while this process is the elected leader", zkr_cmd_elect },
  { "barrier", "Wait at a barrier, or run a command inside a double barrier", zkr_cmd_barrier },
  { "counter", "Read, add to or set a shared atomic counter", zkr_cmd_counter },
  { "revoke", "Ask the holder of a revocable lock to release it", zkr_cmd_revoke },
  { "holders", "List who holds and who waits for a lock or leadership", zkr_cmd_holders },
  { "register", "Run a command while a service instance is registered (discovery)", zkr_cmd_register },
  { "services", "List the registered services, or a service's instances", zkr_cmd_services },
  { "members", "List the members of a group and their payloads", zkr_cmd_members },
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
           "several machines share, with Curator-compatible node layouts, and the\n"
           "nodes themselves (writes may be fenced by a lock).\n"
           "\n"
           "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf (out,
           "\n"
           "Every command takes --hosts HOSTS (default: $ZKR_HOSTS, else\n"
           "127.0.0.1:2181) and --quiet, all but bench --namespace NAMESPACE;\n"
           "the node commands take --json and --timeout SECONDS; `zkr COMMAND\n"
           "--help` shows the rest.\n"
           "\n"
           "Examples:\n"
           "  zkr lock /locks/backup -- ./backup.sh\n"
           "  zkr elect --id \"$(hostname)\" /election/scheduler -- ./scheduler\n"
           "  zkr holders --json /locks/backup\n"
           "  zkr bench --impl mutex --clients 4\n"
           "  zkr get --json /config/mode\n"
           "  zkr lock /locks/config -- zkr set --fenced /config/mode active\n"
           "  zkr register api --address 10.0.0.5 --port 8080 -- ./api-server\n"
           "  zkr services --json api\n"
           "\n"
           "Exit status: 64 bad arguments; 65 bad version; 66 no such node; 67 node\n"
           "not empty; 69 ZooKeeper unreachable or failed; 70 lock lost (or a\n"
           "fenced write's lock node gone); 73 node exists; 74 output not written;\n"
           "75 timed out; 77 authentication or ACL refused; others per command\n"
           "(see its --help).\n");
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
