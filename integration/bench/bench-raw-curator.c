/* zkr benchmarks: the textbook ZooKeeper lock on raw libzookeeper_mt with
 * Curator's node layout (tools/bench/bench-raw.c): what the layout alone
 * costs, for run-bench.sh --baseline raw-curator. The same run as
 * `zkr-bench --impl raw-curator`. */

#include "bench-common.h"

int
main (int argc, char **argv)
{
  return bench_main (&bench_impl_raw_curator, argc, argv);
}
