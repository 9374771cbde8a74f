/* zkr benchmarks: the textbook ZooKeeper lock on raw libzookeeper_mt, the
 * baseline zkr is measured against (tools/bench/bench-raw.c). The same run
 * as `zkr-bench --impl raw`, kept as a program of its own for run-bench.sh. */

#include "bench-common.h"

int
main (int argc, char **argv)
{
  return bench_main (&bench_impl_raw, argc, argv);
}
