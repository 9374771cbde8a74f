/* zkr-bench: the lock benchmark as a program of its own, never installed
 * (so that the installed zkr does not link raw libzookeeper): K clients,
 * each its own session, acquire/hold/release one lock, and one JSON line
 * with the throughput and acquire latencies. The command line is the one
 * `zkr bench` had; the driver and implementations are integration/bench's
 * too (bench-common.c). */

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "bench-common.h"

/* sysexits.h values, as the zkr tool's (tools/zkr-cli.h). */
#define BENCH_EXIT_USAGE 64
#define BENCH_EXIT_UNAVAILABLE 69

#define BENCH_DEFAULT_HOSTS "127.0.0.1:2181"

static const char bench_summary[] =
  "K clients (threads, each its own ZooKeeper session) contend for one lock at\n"
  "--path: each warms up for W untimed cycles, then all start together and run\n"
  "M timed cycles (or --seconds S) of acquire, hold U microseconds, release.\n"
  "violations counts acquisitions that found more holders than the lock allows\n"
  "(always 0 for a correct lock). With stderr on a terminal, a progress line is\n"
  "shown there. The nodes the run creates are removed.\n"
  "\n"
  "Implementations (--impl):\n"
  "  raw                   the textbook lock loop on raw libzookeeper (the baseline)\n"
  "  raw-curator           the same loop on Curator's node layout, as zkr writes it\n"
  "  mutex                 zkr's mutex (the default)\n"
  "  rwlock-read           zkr's read-write lock, every client reading (shared)\n"
  "  rwlock-write          zkr's read-write lock, every client writing\n"
  "  semaphore             zkr's semaphore with one lease\n"
  "  raw-counter           counters: one cycle is one contended increment of one\n"
  "                        8-byte counter, a raw get + set-with-version loop (the\n"
  "                        counters' baseline)\n"
  "  raw-counter-async     the same increment on raw async calls (the set sent\n"
  "                        from the get's completion), the caller blocked until\n"
  "                        it ends: the threads a blocking call on async\n"
  "                        requests goes through, and nothing else\n"
  "  atomic-long           zkr's atomic long, optimistic, retried without sleeping\n"
  "  atomic-long-promoted  the same, promoted to a mutex after two tries\n"
  "\n"
  "Use one server and compare implementations in the same run: the figures are\n"
  "only meaningful as ratios.";

static const char bench_description[] =
  "Output: one JSON line on stdout:\n"
  "  {\"impl\":..., \"clients\":K, \"cycles_total\":..., \"seconds\":...,\n"
  "   \"cycles_per_s\":..., \"acquire_ms_p50\":..., \"acquire_ms_p99\":...,\n"
  "   \"violations\":N}\n"
  "\n"
  "Exit status: 0 done; 1 violations seen; 64 bad arguments; 69 a client failed,\n"
  "or ZooKeeper is unreachable.\n"
  "\n"
  "Environment: ZKR_HOSTS, the connect string when --hosts is not given.\n"
  "\n"
  "Examples:\n"
  "  zkr-bench --impl raw --clients 4 --seconds 5\n"
  "  zkr-bench --impl mutex --clients 4 --seconds 5\n"
  "  zkr-bench --impl atomic-long --clients 4 --seconds 5\n";

/* "zkr-bench: MESSAGE", the usage and a pointer to --help on stderr, as
 * zkr's commands print them. */
static int G_GNUC_PRINTF (1, 2)
bench_usage_error (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "zkr-bench: %s\nUsage: zkr-bench [OPTION…]\n"
           "Try 'zkr-bench --help' for more information.\n", message);
  return BENCH_EXIT_USAGE;
}

/* --hosts, else $ZKR_HOSTS, else the local default: as zkr's commands. */
static const char *
bench_hosts (const char *hosts)
{
  const char *env_hosts = g_getenv ("ZKR_HOSTS");

  if (hosts != NULL)
    return hosts;
  return env_hosts != NULL && *env_hosts != '\0' ? env_hosts : BENCH_DEFAULT_HOSTS;
}

int
main (int argc, char **argv)
{
  g_autofree char *impl_name = NULL;
  g_autofree char *hosts = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    { "impl", 'i', 0, G_OPTION_ARG_STRING, &impl_name,
      "The lock to measure, one of the implementations above (default: mutex)", "IMPL" },
    G_OPTION_ENTRY_NULL,
  };
  GOptionEntry last_entries[] = {
    { "hosts", 'H', 0, G_OPTION_ARG_STRING, &hosts,
      "ZooKeeper connect string (default: $ZKR_HOSTS, else 127.0.0.1:2181)", "HOSTS" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress line on stderr", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  BenchArgs *args = bench_args_new ();
  BenchOptions options = { 0 };
  const BenchImpl *impl = NULL;
  int status = BENCH_EXIT_USAGE;

  setlocale (LC_ALL, "");
  g_set_prgname ("zkr-bench");
  g_option_context_set_summary (context, bench_summary);
  g_option_context_set_description (context, bench_description);
  g_option_context_add_main_entries (context, entries, NULL);
  bench_args_add (args, g_option_context_get_main_group (context), FALSE);
  g_option_context_add_main_entries (context, last_entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    bench_usage_error ("%s", error->message);
  else if (argc > 1)
    bench_usage_error ("unexpected argument '%s'", argv[1]);
  else if ((impl = bench_impl_lookup (impl_name != NULL ? impl_name : "mutex")) == NULL)
    bench_usage_error ("unknown --impl '%s': need one of " BENCH_IMPL_NAMES, impl_name);
  else if (!bench_args_finish (args, impl->name, bench_hosts (hosts), &options, &error))
    bench_usage_error ("%s", error->message);
  else
    {
      options.progress = !quiet && isatty (STDERR_FILENO);
      status = bench_run ("zkr-bench", impl, &options);
      if (status == 2)
        status = BENCH_EXIT_UNAVAILABLE;
    }
  bench_options_clear (&options);
  bench_args_free (args);
  return status;
}
