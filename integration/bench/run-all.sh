#!/usr/bin/env bash
# zkr's benchmark series (`./run bench`, `./run bench-scale`): a one-server
# ensemble of its own (nosync, full JIT, warmed up), zkr-bench for every lock
# at 1, 4, 16, 64 clients, the node calls, the counter, the cache, the
# latency, the scale and the allocation series, each by its run-bench-*.sh
# beside this file. Timings are output, never a pass/fail: the exit status
# says whether every run completed. Run from the repository's root by ./run,
# after the build.
# usage: run-all.sh [--scale-only] [--build-dir DIR]   (default: build)
set -uo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." || exit 1
repo_root=$PWD
bench_dir=$repo_root/integration/bench
ensemble_sh=$repo_root/integration/ensemble.sh
build_dir=build
scale_only=0
while (($# > 0)); do
  case $1 in
    --scale-only) scale_only=1 ;;
    --build-dir) build_dir=${2:?--build-dir takes a directory}; shift ;;
    *) echo "run-all.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

header() { printf '\n==> %s\n' "$*"; }

# The ensemble this script starts is stopped on any exit (failure, Ctrl-C).
owns_ensemble=0
on_exit() { if ((owns_ensemble)); then "$ensemble_sh" stop; fi; }
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

BENCH_IMPLS="raw mutex rwlock-read rwlock-write semaphore"
BENCH_CLIENTS="1 4 16 64"

# The table and the plot data (bench-report.py).
bench_report() {
  python3 "$bench_dir/bench-report.py" "$1" "$2" "$3" "$BENCH_IMPLS"
}

# Two panels, log-x: cycles/s and acquire p99 against the client count, one
# line per implementation.
bench_plot() {
  local data=$1 png=$2 plots="" i=0 impl
  for impl in $BENCH_IMPLS; do
    plots+="${plots:+, }'$data' index $i using 1:COLUMN with linespoints lw 2 title '$impl'"
    i=$((i + 1))
  done
  gnuplot <<GNUPLOT
set terminal pngcairo size 1200,500 font ",11"
set output '$png'
set multiplot layout 1,2 title "zkr bench: one lock, K clients (one ZooKeeper server, full JIT, loopback, nosync)"
set logscale x 2
set xrange [0.8:80]
set xtics (1, 4, 16, 64)
set xlabel "clients"
set grid
set key top left
set ylabel "cycles/s (acquire + release)"
set yrange [0:*]
plot ${plots//COLUMN/2}
set ylabel "acquire p99 (ms)"
set logscale y 10
set yrange [*:*]
plot ${plots//COLUMN/3}
unset multiplot
GNUPLOT
}

# The benchmarks' own one-server ensemble, away from the tests' default
# one; the EXIT trap stops it (owns_ensemble), whatever happens.
bench_ensemble_start() {
  ZKR_ENSEMBLE_DIR=$repo_root/$build_dir/bench-ensemble
  ZKR_ENSEMBLE_PORT_BASE=${ZKR_BENCH_PORT_BASE:-25810}
  export ZKR_ENSEMBLE_DIR ZKR_ENSEMBLE_PORT_BASE
  owns_ensemble=1
  # The JVM's default JIT, as a production server runs (the tests' servers
  # stop at C1 to start quicker): a server that spends more CPU per request
  # than a real one would misstate what the clients cost on a small machine.
  "$ensemble_sh" start --servers 1 --nosync --full-jit
}

# bench_scale HOSTS SECONDS WARMUP: the scale runs
# (integration/bench/run-bench-scale.sh): build/bench/scale.jsonl, the
# summary in build/bench/scale.txt.
bench_scale() {
  header "scale: the write ceiling, many locks, 10,000 held, deep queues ($2 s per run)"
  integration/bench/run-bench-scale.sh --hosts "$1" --bin-dir "$build_dir/integration/bench" \
    --zkr-bench "$build_dir/tools/bench/zkr-bench" --seconds "$2" --server-warmup "$3" \
    --server-pid "$("$ensemble_sh" pid 1)" --out "$build_dir/bench/scale.jsonl" 2>&1 | tee "$build_dir/bench/scale.txt"
}

cmd_bench_scale() {
  local hosts
  bench_ensemble_start || return 1
  hosts=$("$ensemble_sh" hosts) || return 1
  mkdir -p "$build_dir/bench"
  bench_scale "$hosts" "${ZKR_BENCH_SECONDS:-5}" 5
}

cmd_bench() {
  command -v gnuplot >/dev/null || { echo "run-all.sh: gnuplot not found (./run deps)" >&2; return 1; }
  local bench=$build_dir/tools/bench/zkr-bench seconds=${ZKR_BENCH_SECONDS:-5}
  local out_dir=$build_dir/bench results=$build_dir/bench/results.jsonl
  local hosts k impl line failed=0
  bench_ensemble_start || return 1
  hosts=$("$ensemble_sh" hosts) || return 1
  mkdir -p "$out_dir" docs
  : >"$results"
  header "server warm-up: the raw loop and the mutex, $seconds s each, untimed"
  for impl in raw mutex; do
    timeout $((4 * seconds + 180)) "$bench" --hosts "$hosts" --quiet --impl "$impl" \
      --clients 16 --seconds "$seconds" --warmup 10 --path "/zkr-bench/warm-up-$impl" >/dev/null ||
      { echo "bench: the warm-up with $impl failed" >&2; failed=1; }
  done
  header "zkr-bench: $seconds s per run; impls: $BENCH_IMPLS; clients: $BENCH_CLIENTS"
  # Every implementation at one client count back to back, so that the
  # ratios compare runs made under the same machine load.
  for k in $BENCH_CLIENTS; do
    for impl in $BENCH_IMPLS; do
      if line=$(timeout $((4 * seconds + 180)) "$bench" --hosts "$hosts" --quiet \
        --impl "$impl" --clients "$k" --seconds "$seconds" --warmup 10 \
        --path "/zkr-bench/$impl-$k"); then
        echo "$line" | tee -a "$results"
      else
        echo "bench: $impl with $k clients failed" >&2
        failed=1
      fi
    done
  done
  header "results: $results, table: docs/bench.md, plot: docs/bench.png"
  bench_report "$results" docs/bench.md "$out_dir/bench.dat" || return 1
  bench_plot "$out_dir/bench.dat" docs/bench.png || return 1
  # The async node calls against raw libzookeeper's (integration/bench, in
  # the same build).
  header "async node throughput: zkr's node calls against raw libzookeeper's"
  integration/bench/run-bench-node.sh --hosts "$hosts" --bin-dir "$build_dir/integration/bench" \
    --seconds "$seconds" --repeat 3 | tee "$out_dir/node.txt" || failed=1
  # Contended increments: the atomic long against raw get + set loops.
  header "contended increments: zkr's atomic long against raw libzookeeper loops"
  integration/bench/run-bench-counter.sh --hosts "$hosts" --bin-dir "$build_dir/tools/bench" \
    --seconds "$seconds" --repeat 3 | tee "$out_dir/counter.txt" || failed=1
  # Both again with the server on a core of its own and the benchmark on
  # the others, as on machines of their own: sharing two cores, where the
  # scheduler puts the server's threads moves a run by a factor of two.
  header "the same two, the server pinned to the last CPU, the benchmark to the others"
  integration/bench/run-bench-node.sh --hosts "$hosts" --bin-dir "$build_dir/integration/bench" \
    --seconds "$seconds" --repeat 3 --pin-server "$("$ensemble_sh" pid 1)" |
    tee "$out_dir/node-pinned.txt" || failed=1
  integration/bench/run-bench-counter.sh --hosts "$hosts" --bin-dir "$build_dir/tools/bench" \
    --seconds "$seconds" --repeat 3 --pin-server "$("$ensemble_sh" pid 1)" |
    tee "$out_dir/counter-pinned.txt" || failed=1
  # A write's way to a cache in another session: a node cache's listener
  # against a raw watch re-armed by a get (same build directory).
  header "cache latency: a node cache's listener against a raw watch loop"
  integration/bench/run-bench-cache.sh --hosts "$hosts" --bin-dir "$build_dir/integration/bench" \
    --repeat 3 | tee "$out_dir/cache.txt" || failed=1
  # One lock over a slower network: the test proxy adds 0.5, 2 and 10 ms
  # round trips; zkr's mutex, the raw loop and Curator's InterProcessMutex.
  header "a slower network: one lock through a delaying proxy (zkr, raw, Curator)"
  : >"$out_dir/latency.jsonl"
  integration/bench/run-bench-latency.sh --hosts "$hosts" --build-dir "$build_dir" \
    --seconds "$seconds" --out "$out_dir/latency.jsonl" | tee "$out_dir/latency.txt" || failed=1
  # The server is warm by now.
  bench_scale "$hosts" "$seconds" 0 || failed=1
  # Counts, not timings: allocations (integration/bench/malloc-count.c) and
  # instructions (callgrind) per acquisition, the mutex against the raw loops.
  header "allocations and instructions per acquisition: one lock, 4 clients"
  integration/bench/run-bench-alloc.sh --hosts "$hosts" --bin-dir "$build_dir/integration/bench" \
    --callgrind | tee "$out_dir/alloc.txt" || failed=1
  return $failed
}

if ((scale_only)); then
  cmd_bench_scale
else
  cmd_bench
fi
