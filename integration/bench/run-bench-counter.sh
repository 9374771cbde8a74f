#!/usr/bin/env bash
# zkr benchmark: contended increments of one counter (the atomic long against raw loops).
# zkr's atomic long, optimistic and promoted, against the textbook raw
# libzookeeper loop (zkr-bench --impl raw-counter: blocking get +
# set-with-version) and the same increment on raw async calls with the
# caller blocked until its end (raw-counter-async: the threads any blocking
# call made of async requests goes through). Rounds of the four back to
# back, rotating which goes first; prints every JSON line, then per client
# count the median increments per second of each and the medians of the
# per-round ratios. Figures, never a pass/fail: the exit status only says
# whether every run completed.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: run-bench-counter.sh [--hosts H] [--clients "1 4 16"] [--seconds S]
                            [--repeat N] [--bin-dir DIR] [--pin-server PID]
  --hosts H      connect string (default: $ZKR_BENCH_HOSTS); one server is best
  --clients L    client counts (default: 1 4 16)
  --seconds S    timed seconds per run (default: 5), after 50 untimed increments
  --repeat N     rounds per client count (default: 3)
  --bin-dir DIR  where zkr-bench is (default: <repo>/build/tools/bench)
  --pin-server PID  the server (PID, every thread) on the last CPU, the
                 benchmark on the others, for the series (integration/bench/pin-lib.sh)
USAGE
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hosts=${ZKR_BENCH_HOSTS:-}
clients="1 4 16"
seconds=5
repeat=3
bin_dir=$script_dir/../../build/tools/bench
server_pid=
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --clients) clients=${2//,/ }; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --pin-server) server_pid=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
[ -n "$hosts" ] || { echo "run-bench-counter.sh: no --hosts and no ZKR_BENCH_HOSTS" >&2; exit 2; }
bench=$bin_dir/zkr-bench
[ -x "$bench" ] || { echo "run-bench-counter.sh: $bench not built" >&2; exit 2; }

# shellcheck source=integration/bench/pin-lib.sh
. "$script_dir/pin-lib.sh"
results=$(mktemp)
trap 'rm -f "$results"; pin_restore' EXIT
if [ -n "$server_pid" ]; then
  pin_server run-bench-counter.sh "$server_pid" || exit 2
fi
status=0
impls=(raw-counter raw-counter-async atomic-long atomic-long-promoted)
for k in $clients; do
  for ((r = 0; r < repeat; r++)); do
    for ((i = 0; i < ${#impls[@]}; i++)); do
      impl=${impls[(r + i) % ${#impls[@]}]}
      timeout $((4 * ${seconds%.*} + 180)) "${pin_prefix[@]}" "$bench" --hosts "$hosts" --quiet --impl "$impl" \
        --clients "$k" --seconds "$seconds" --warmup 50 --path "/zkr-bench/counter-$impl-$k" |
        tee -a "$results" || { echo "run-bench-counter.sh: $impl with $k clients failed" >&2; status=1; }
    done
  done
done

python3 - "$results" "${server_pid:+pinned}" "${impls[@]}" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
pinned = sys.argv[2] == "pinned"
impls = sys.argv[3:]
print("\ncontended increments of one counter: increments/s, medians; the ratios are")
print("medians of the per-round ratios (the runs of one round are back to back)")
if pinned:
    print("pinned: the server on the last CPU, the benchmarks on the others")
print(f"{'clients':>7} {'raw':>9} {'raw-async':>10} {'atomic':>9} {'promoted':>9}"
      f" {'atomic/raw':>11} {'atomic/raw-async':>17} {'promoted/raw':>13}")
for k in sorted({r["clients"] for r in rows}):
    runs = {i: [r["cycles_per_s"] for r in rows if r["clients"] == k and r["impl"] == i]
            for i in impls}
    rounds = list(zip(*(runs[i] for i in impls)))
    med = {i: statistics.median(runs[i]) for i in impls}
    ratio = lambda a, b: statistics.median(x[impls.index(a)] / x[impls.index(b)] for x in rounds)
    print(f"{k:>7} {med['raw-counter']:>9.1f} {med['raw-counter-async']:>10.1f}"
          f" {med['atomic-long']:>9.1f} {med['atomic-long-promoted']:>9.1f}"
          f" {ratio('atomic-long', 'raw-counter'):>11.3f}"
          f" {ratio('atomic-long', 'raw-counter-async'):>17.3f}"
          f" {ratio('atomic-long-promoted', 'raw-counter'):>13.3f}")
PY
exit $status
