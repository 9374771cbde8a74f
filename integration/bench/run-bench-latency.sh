#!/usr/bin/env bash
# zkr benchmark: one lock over a slower network. Loopback hides round trips;
# here every client reaches the server through the test proxy, which holds
# each byte RTT/2 each way (zkr-test-proxy --delay-us). For each round trip
# and client count: zkr's mutex, the raw libzookeeper lock loop (zkr-bench
# --impl raw) and Curator's InterProcessMutex (CuratorMutexBench, Debian's
# Curator 5.4.0), back to back in rotating order. Prints every JSON line
# (with "rtt_ms" added), then a table of medians: cycles/s, acquire p50/p99,
# and zkr's ratio to each. Figures, never a pass/fail: the exit status only
# says whether every run completed.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: run-bench-latency.sh [--hosts H] [--rtts "0.5 2 10"] [--clients "1 16"]
                            [--seconds S] [--repeat N] [--build-dir DIR] [--out FILE]
  --hosts H      the server (default: $ZKR_BENCH_HOSTS); one server is best
  --rtts L       round trips added, in milliseconds (default: 0.5 2 10)
  --clients L    client counts (default: 1 16)
  --seconds S    timed seconds per run (default: 5)
  --repeat N     runs per implementation and point; the table shows medians (default: 1)
  --build-dir D  the meson build directory (default: <repo>/build)
  --out FILE     also append the JSON lines to FILE
USAGE
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hosts=${ZKR_BENCH_HOSTS:-}
rtts="0.5 2 10"
clients="1 16"
seconds=5
repeat=1
build_dir=$script_dir/../../build
out=
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --rtts) rtts=${2//,/ }; shift 2 ;;
    --clients) clients=${2//,/ }; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
[ -n "$hosts" ] || { echo "run-bench-latency.sh: no --hosts and no ZKR_BENCH_HOSTS" >&2; exit 2; }
bench=$build_dir/tools/bench/zkr-bench
proxy_bin=$build_dir/integration/proxy/zkr-test-proxy
classpath_file=$build_dir/integration/interop/classpath.txt
for f in "$bench" "$proxy_bin"; do
  [ -x "$f" ] || { echo "run-bench-latency.sh: $f not built" >&2; exit 2; }
done
[ -r "$classpath_file" ] ||
  { echo "run-bench-latency.sh: $classpath_file missing (meson -Dinterop=enabled)" >&2; exit 2; }
classpath=$(cat "$classpath_file")

results=$(mktemp)
proxy_in=
proxy_pid=
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  if [ -n "$proxy_pid" ]; then
    { echo quit >&"$proxy_in"; } 2>/dev/null || true
    wait "$proxy_pid" 2>/dev/null || true
  fi
  rm -f "$results"
}
trap cleanup EXIT

# One proxy for the whole run; its delay changes between points.
coproc PROXY { exec "$proxy_bin" --upstreams "$hosts"; }
proxy_in=${PROXY[1]}
proxy_pid=$PROXY_PID
read -r word address <&"${PROXY[0]}"
[ "$word" = listening ] || { echo "run-bench-latency.sh: the proxy did not start" >&2; exit 1; }
proxy_command() {
  local answer
  echo "$1" >&"$proxy_in"
  read -r answer <&"${PROXY[0]}"
  [ "$answer" = ok ] || { echo "run-bench-latency.sh: proxy: $1: $answer" >&2; exit 1; }
}

status=0
run() { # impl rtt k
  local line warmup=5
  # Curator's warm-up also warms its JVM: more cycles.
  [ "$1" != curator ] || warmup=50
  if [ "$1" = curator ]; then
    line=$(timeout $((4 * ${seconds%.*} + 120)) java -cp "$classpath" CuratorMutexBench \
      --hosts "$address" --clients "$3" --seconds "$seconds" --warmup "$warmup" \
      --path "/zkr-bench/latency-curator-$3" 2>/dev/null | tail -n 1) || true
  else
    line=$(timeout $((4 * ${seconds%.*} + 120)) "$bench" --hosts "$address" --quiet \
      --impl "$1" --clients "$3" --seconds "$seconds" --warmup "$warmup" \
      --path "/zkr-bench/latency-$1-$3") || true
  fi
  case $line in
    '{'*) line="{\"rtt_ms\":$2,${line#\{}"
          echo "$line" | tee -a "$results"
          [ -z "$out" ] || echo "$line" >>"$out" ;;
    *) echo "run-bench-latency.sh: $1, $3 clients, $2 ms failed" >&2; status=1 ;;
  esac
}
impls=(mutex raw curator)
for rtt in $rtts; do
  delay_us=$(python3 -c "print(round($rtt * 1000 / 2))")
  proxy_command "delay $delay_us"
  for k in $clients; do
    for ((r = 0; r < repeat; r++)); do
      for ((i = 0; i < ${#impls[@]}; i++)); do
        run "${impls[(i + r) % ${#impls[@]}]}" "$rtt" "$k"
      done
    done
  done
done

python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
points = sorted({(r["rtt_ms"], r["clients"]) for r in rows})
def med(impl, point, key):
    v = [r[key] for r in rows if r["impl"] == impl and (r["rtt_ms"], r["clients"]) == point]
    return statistics.median(v) if v else None
print("\none lock through the proxy: medians (cycles/s; acquire p50/p99 in ms)")
print("%6s %7s | %9s %15s | %9s %15s | %9s %15s | %8s %8s" % (
    "rtt ms", "clients", "zkr", "p50/p99", "raw", "p50/p99", "curator", "p50/p99",
    "zkr/raw", "zkr/cur"))
for p in points:
    cells, rate = [], {}
    for impl in ("mutex", "raw", "curator"):
        c, a, b = (med(impl, p, k) for k in ("cycles_per_s", "acquire_ms_p50", "acquire_ms_p99"))
        rate[impl] = c
        cells += ["%9.1f" % c if c is not None else "%9s" % "-",
                  "%7.2f/%-7.2f" % (a, b) if a is not None else "%15s" % "-"]
    ratio = lambda o: "%8.2f" % (rate["mutex"] / rate[o]) if rate["mutex"] and rate[o] else "%8s" % "-"
    print("%6s %7d | %s %s | %s %s | %s %s | %s %s" % (p[0], p[1], *cells, ratio("raw"), ratio("curator")))
PY
exit $status
