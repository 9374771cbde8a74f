#!/usr/bin/env bash
# zkr benchmark: a write's way to a cache in another session, a ZkrNodeCache
# listener against a raw one-shot data watch re-armed by a get (bench-cache
# --impl raw|zkr). Runs each pair back to back, alternating which goes
# first, prints every JSON line, then the medians of p50 and p99 and the
# zkr/raw ratios. Figures, never a pass/fail: the exit status only says
# whether every run completed.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: run-bench-cache.sh [--hosts H] [--count N] [--interval-ms MS]
                          [--repeat N] [--bin-dir DIR]
  --hosts H        connect string (default: $ZKR_BENCH_HOSTS); one server is best
  --count N        timed writes per run (default: 2000), after 200 untimed
  --interval-ms MS time between writes (default: 5)
  --repeat N       pairs; the table shows medians (default: 3)
  --bin-dir DIR    where bench-cache is (default: <repo>/build/integration/bench)
USAGE
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hosts=${ZKR_BENCH_HOSTS:-}
count=2000
interval_ms=5
repeat=3
bin_dir=$script_dir/../../build/integration/bench
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --interval-ms) interval_ms=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
[ -n "$hosts" ] || { echo "run-bench-cache.sh: no --hosts and no ZKR_BENCH_HOSTS" >&2; exit 2; }
bench=$bin_dir/bench-cache
[ -x "$bench" ] || { echo "run-bench-cache.sh: $bench not built (meson setup -Dbench=enabled)" >&2; exit 2; }

results=$(mktemp)
trap 'rm -f "$results"' EXIT
status=0
run() {
  "$bench" --hosts "$hosts" --impl "$1" --count "$count" --warmup 200 \
    --interval-ms "$interval_ms" | tee -a "$results" || status=1
}
for ((r = 1; r <= repeat; r++)); do
  if ((r % 2)); then run raw; run zkr; else run zkr; run raw; fi
done

python3 - "$results" "$interval_ms" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
if {r["impl"] for r in rows} != {"raw", "zkr"}:
    sys.exit("run-bench-cache.sh: no completed run of raw or of zkr: no ratios")
print(f"\nwrite to cache event in another session, one write every {sys.argv[2]} ms: "
      "microseconds, medians of the runs")
print(f"{'':>8} {'raw':>8} {'zkr':>8} {'zkr/raw':>8}")
for key in ("p50_us", "p90_us", "p99_us", "max_us"):
    med = {i: statistics.median(r[key] for r in rows if r["impl"] == i) for i in ("raw", "zkr")}
    print(f"{key[:-3]:>8} {med['raw']:>8.0f} {med['zkr']:>8.0f} {med['zkr'] / med['raw']:>8.3f}")
PY
exit $status
