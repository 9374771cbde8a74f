/* zkr bench: the lock benchmark as one subcommand: K clients, each its own
 * session, acquire/hold/release one lock, and one JSON line with the
 * throughput and acquire latencies. The same driver and implementations as
 * integration/bench's bench-raw and bench-mutex (tools/bench/). */

#include <unistd.h>

#include "bench-common.h"
#include "zkr-cli.h"

static const char bench_description[] =
  "K clients (threads, each its own ZooKeeper session) contend for one lock at\n"
  "--path: each warms up for W untimed cycles, then all start together and\n"
  "run M timed cycles (or --seconds S) of acquire, hold U microseconds,\n"
  "release. Prints one JSON line on stdout:\n"
  "  {\"impl\":..., \"clients\":K, \"cycles_total\":..., \"seconds\":...,\n"
  "   \"cycles_per_s\":..., \"acquire_ms_p50\":..., \"acquire_ms_p99\":...,\n"
  "   \"violations\":N}\n"
  "violations counts acquisitions that found more holders than the lock\n"
  "allows (always 0 for a correct lock). With stderr on a terminal, a\n"
  "progress line is shown there. The nodes the run creates are removed.\n"
  "\n"
  "Implementations (--impl):\n"
  "  raw           the textbook lock loop on raw libzookeeper (the baseline)\n"
  "  raw-curator   the same loop on Curator's node layout, as zkr writes it\n"
  "  mutex         zkr's mutex (default)\n"
  "  rwlock-read   zkr's read-write lock, every client reading (shared)\n"
  "  rwlock-write  zkr's read-write lock, every client writing\n"
  "  semaphore     zkr's semaphore with one lease\n"
  "  raw-counter   counters: one cycle is one contended increment of one\n"
  "                8-byte counter, a raw get + set-with-version loop (the\n"
  "                counters' baseline)\n"
  "  atomic-long   zkr's atomic long, optimistic, retried without sleeping\n"
  "  atomic-long-promoted  the same, promoted to a mutex after two tries\n"
  "\n"
  "Use one server and compare implementations in the same run: the figures\n"
  "are only meaningful as ratios.\n"
  "\n"
  "Exit status: 0 done; 1 violations seen; 64 bad arguments; 69 a client\n"
  "failed or ZooKeeper is unreachable.\n"
  "\n"
  "Example:\n"
  "  zkr bench --impl raw --clients 4 --seconds 5\n"
  "  zkr bench --impl mutex --clients 4 --seconds 5\n"
  "  zkr bench --impl atomic-long --clients 4 --seconds 5";

int
zkr_cmd_bench (int argc, char **argv)
{
  ZkrCli cli = { .command = "bench", .parameters = "", .hosts_only = TRUE };
  g_autofree char *impl_name = NULL;
  GOptionEntry entries[] = {
    { "impl", 'i', 0, G_OPTION_ARG_STRING, &impl_name,
      "The lock to measure: " BENCH_IMPL_NAMES " (default: mutex)", "IMPL" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  BenchArgs *args = bench_args_new ();
  BenchOptions options = { 0 };
  const BenchImpl *impl = NULL;
  int status = ZKR_EXIT_USAGE;

  context = zkr_cli_context_new (&cli, "Measure a contended lock.", bench_description, entries);
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
