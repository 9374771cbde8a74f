/* zkr benchmarks: the zkr mutex (tools/bench/bench-zkr.c), the same run as
 * `zkr-bench --impl mutex`, kept as a program of its own for run-bench.sh.
 * Its JSON line says "impl":"zkr", as it always has. */

#include "bench-common.h"

int
main (int argc, char **argv)
{
  BenchImpl impl = bench_impl_mutex;

  impl.name = "zkr";
  return bench_main (&impl, argc, argv);
}
