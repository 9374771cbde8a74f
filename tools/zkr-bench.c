/* zkr bench: the lock benchmark as one subcommand: K clients, each its own
 * session, acquire/hold/release one lock, and one JSON line with the
 * throughput and acquire latencies. The same driver and implementations as
 * integration/bench's bench-raw and bench-mutex (tools/bench/). */

#include <unistd.h>

#include "bench-common.h"
#include "zkr-cli.h"

int
zkr_cmd_bench (int argc, char **argv)
{
  ZkrCli cli = { .command = "bench", .hosts_only = TRUE };
  g_autofree char *impl_name = NULL;
  GOptionEntry entries[] = {
    { "impl", 'i', 0, G_OPTION_ARG_STRING, &impl_name, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  BenchArgs *args = bench_args_new ();
  BenchOptions options = { 0 };
  const BenchImpl *impl = NULL;
  int status = ZKR_EXIT_USAGE;

  context = zkr_cli_context_new (&cli, entries);
  bench_args_add (args, g_option_context_get_main_group (context), FALSE);
  if (!zkr_cli_parse (&cli, context, &argc, &argv))
    ;
  else if (argc > 1)
    zkr_cli_usage_error (&cli, "unexpected argument '%s'", argv[1]);
  else if ((impl = bench_impl_lookup (impl_name != NULL ? impl_name : "mutex")) == NULL)
    zkr_cli_usage_error (&cli, "unknown --impl '%s': need one of " BENCH_IMPL_NAMES, impl_name);
  else if (!bench_args_finish (args, impl->name, cli.hosts, &options, &error))
    zkr_cli_usage_error (&cli, "%s", error->message);
  else
    {
      options.progress = !cli.quiet && isatty (STDERR_FILENO);
      status = bench_run ("zkr bench", impl, &options);
      if (status == 2)
        status = ZKR_EXIT_UNAVAILABLE;
    }
  bench_options_clear (&options);
  bench_args_free (args);
  zkr_cli_clear (&cli);
  return status;
}
