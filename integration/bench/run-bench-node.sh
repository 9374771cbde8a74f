#!/usr/bin/env bash
# zkr benchmark: async node throughput, zkr's public node calls against the
# same loop on raw libzookeeper async calls (bench-node --impl
# raw|raw-context|zkr: raw-context hands every answer to the session's own
# GMainContext thread, as zkr's calls promise to, and sends the next request
# from there), for several windows (requests in flight per session). Runs
# the three back to back in rounds, rotating which goes first, prints every
# JSON line, then per window the median cycles per second of each and the
# median of the per-round ratios. Figures, never a pass/fail: the exit
# status only says whether every run completed.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: run-bench-node.sh [--hosts H] [--sessions K] [--windows "1 16 256"]
                         [--seconds S] [--repeat N] [--bin-dir DIR] [--pin-server PID]
  --hosts H      connect string (default: $ZKR_BENCH_HOSTS); one server is best
  --sessions K   sessions per run (default: 4)
  --windows L    requests in flight per session (default: 1 16 256)
  --seconds S    timed seconds per run (default: 5), after 1 s untimed
  --repeat N     rounds per window; the table shows medians (default: 3)
  --bin-dir DIR  where bench-node is (default: <repo>/build/integration/bench)
  --pin-server PID  the server (PID, every thread) on the last CPU, the
                 benchmark on the others, for the series (integration/bench/pin-lib.sh)
USAGE
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hosts=${ZKR_BENCH_HOSTS:-}
sessions=4
windows="1 16 256"
seconds=5
repeat=3
bin_dir=$script_dir/../../build/integration/bench
server_pid=
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --sessions) sessions=$2; shift 2 ;;
    --windows) windows=${2//,/ }; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --pin-server) server_pid=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
[ -n "$hosts" ] || { echo "run-bench-node.sh: no --hosts and no ZKR_BENCH_HOSTS" >&2; exit 2; }
bench=$bin_dir/bench-node
[ -x "$bench" ] || { echo "run-bench-node.sh: $bench not built (meson setup -Dbench=enabled)" >&2; exit 2; }

# shellcheck source=integration/bench/pin-lib.sh
. "$script_dir/pin-lib.sh"
results=$(mktemp)
trap 'rm -f "$results"; pin_restore' EXIT
if [ -n "$server_pid" ]; then
  pin_server run-bench-node.sh "$server_pid" || exit 2
fi
status=0
run() {
  "${pin_prefix[@]}" "$bench" --hosts "$hosts" --impl "$1" --sessions "$sessions" --window "$2" \
    --seconds "$seconds" --warmup 1 | tee -a "$results" || status=1
}
impls=(raw raw-context zkr)
for w in $windows; do
  for ((r = 0; r < repeat; r++)); do
    for ((i = 0; i < 3; i++)); do
      run "${impls[(r + i) % 3]}" "$w"
    done
  done
done

python3 - "$results" "$sessions" "${server_pid:+pinned: the server on the last CPU, the benchmark on the others}" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
impls = ("raw", "raw-context", "zkr")
print(f"\nasync node throughput, {sys.argv[2]} sessions: cycles/s (create+set+delete), medians;")
print("the ratios are medians of the per-round ratios (runs of one round are back to back)")
if sys.argv[3]:
    print(sys.argv[3])
print(f"{'window':>7} {'raw':>10} {'raw-ctx':>10} {'zkr':>10} {'zkr/raw':>8} {'zkr/raw-ctx':>12}"
      f" {'cpu raw':>8} {'cpu zkr':>8}")
for w in sorted({r["window"] for r in rows}):
    runs = {i: [r for r in rows if r["window"] == w and r["impl"] == i] for i in impls}
    rounds = list(zip(*(runs[i] for i in impls)))
    med = {i: statistics.median(r["cycles_per_s"] for r in runs[i]) for i in impls}
    # The client's own CPU time per cycle, µs (bench-node measures it).
    cpu = {i: statistics.median(r.get("client_cpu_us_per_cycle", 0) for r in runs[i])
           for i in impls}
    vs_raw = statistics.median(z["cycles_per_s"] / r["cycles_per_s"] for r, _, z in rounds)
    vs_ctx = statistics.median(z["cycles_per_s"] / c["cycles_per_s"] for _, c, z in rounds)
    print(f"{w:>7} {med['raw']:>10.1f} {med['raw-context']:>10.1f} {med['zkr']:>10.1f}"
          f" {vs_raw:>8.3f} {vs_ctx:>12.3f} {cpu['raw']:>8.1f} {cpu['zkr']:>8.1f}")
print("cpu: the benchmark process's CPU time per cycle, µs (median)")
PY
exit $status
