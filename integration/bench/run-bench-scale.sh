#!/usr/bin/env bash
# zkr benchmark: scale (many locks, many held, deep queues), every mode of bench-scale
# against one server: the write ceiling, many independent locks (zkr and
# the raw loop back to back at each size), 10,000 locks held by one session
# (released, then expired from outside), and a deep queue next to the
# 64-client figure of zkr-bench. Writes every JSON line to --out and ends
# with a summary table. Figures, never a pass/fail: the exit status only
# says whether every run completed.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: run-bench-scale.sh [--hosts H] [--bin-dir DIR] [--zkr-bench PATH]
                          [--seconds S] [--server-warmup S] [--server-pid PID]
                          [--out FILE] [--small]
  --hosts H         connect string (default: $ZKR_BENCH_HOSTS); one server
  --bin-dir DIR     where bench-scale is (default: <repo>/build/integration/bench)
  --zkr-bench PATH  zkr-bench, for the 64-client figure (default: DIR/../../tools/bench/zkr-bench)
  --seconds S       timed seconds per run (default: 5)
  --server-warmup S seconds of the ceiling loop, untimed, before the runs, so that
                    the server's JIT is warm (default: 5; 0: none)
  --server-pid PID  the (local) server's process id: the ceiling and many-locks runs
                    report the server's CPU (cores) beside the client's
  --out FILE        the JSON lines, one per run (default: scale.jsonl in the current directory)
  --small           every mode at a small size, 1 s per run: shows that it works
USAGE
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hosts=${ZKR_BENCH_HOSTS:-}
bin_dir=$script_dir/../../build/integration/bench
zkr_bench=""
seconds=5
server_warmup=5
server_pid=0
out=scale.jsonl
small=0
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --zkr-bench) zkr_bench=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --server-warmup) server_warmup=$2; shift 2 ;;
    --server-pid) server_pid=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --small) small=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run-bench-scale.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$hosts" ] || { echo "run-bench-scale.sh: no --hosts and no ZKR_BENCH_HOSTS" >&2; exit 2; }
bench=$bin_dir/bench-scale
[ -x "$bench" ] || { echo "run-bench-scale.sh: $bench not built (meson setup -Dbench=enabled)" >&2; exit 2; }
[ -n "$zkr_bench" ] || zkr_bench=$bin_dir/../../tools/bench/zkr-bench
[ -x "$zkr_bench" ] || { echo "run-bench-scale.sh: $zkr_bench not built" >&2; exit 2; }

if ((small)); then
  seconds=1 windows="4" ceiling_sessions="1" lock_counts="1 10" lock_sessions="1 2"
  held_locks=100 waiter_counts="20" procs=2
else
  windows="64 256" ceiling_sessions="1 4" lock_counts="1 100 1000 10000" lock_sessions="1 4"
  held_locks=10000 waiter_counts="64 1000" procs=10
fi

: >"$out"
status=0
# run ARGS...: one bench-scale run, its JSON line appended to $out (its
# human line goes to stderr); a run that fails or hangs is reported.
run() {
  local line rc=0
  line=$(timeout --kill-after=10 600 "$bench" --hosts "$hosts" "$@") || rc=$?
  if [ -n "$line" ]; then
    echo "$line" >>"$out"
  fi
  if [ $rc -ne 0 ]; then
    echo "run-bench-scale.sh: bench-scale $* failed (exit $rc)" >&2
    status=1
  fi
}

if [ "$server_warmup" != 0 ]; then
  echo "== server warm-up: the ceiling loop, $server_warmup s, untimed" >&2
  timeout --kill-after=10 600 "$bench" --hosts "$hosts" --mode ceiling --sessions 4 \
    --window 64 --seconds "$server_warmup" >/dev/null 2>&1 ||
    { echo "run-bench-scale.sh: the server warm-up failed" >&2; status=1; }
fi

echo "== 1. the write ceiling (raw creates and deletes of ephemeral-sequential nodes)" >&2
for s in $ceiling_sessions; do
  for w in $windows; do
    run --mode ceiling --sessions "$s" --window "$w" --seconds "$seconds" --server-pid "$server_pid"
  done
done

echo "== 2. many independent locks: the raw loop and zkr back to back" >&2
for s in $lock_sessions; do
  i=0
  for n in $lock_counts; do
    if ((i++ % 2)); then order="zkr raw"; else order="raw zkr"; fi
    for impl in $order; do
      run --mode many-locks --impl "$impl" --locks "$n" --sessions "$s" --seconds "$seconds" \
        --server-pid "$server_pid"
    done
  done
done

echo "== 3. $held_locks locks held by one session: released, then expired from outside" >&2
run --mode held --locks "$held_locks"
run --mode held --locks "$held_locks" --expire

echo "== 4. deep queues, and zkr-bench's 64 clients on one lock beside them" >&2
if line=$(timeout --kill-after=10 600 "$zkr_bench" --hosts "$hosts" --quiet --impl mutex \
  --clients 64 --seconds "$seconds" --warmup 10 --path "/zkr-bench/scale-64-$$"); then
  echo "$line" >>"$out"
  echo "zkr-bench --impl mutex --clients 64: $line" >&2
else
  echo "run-bench-scale.sh: zkr-bench with 64 clients failed" >&2
  status=1
fi
for w in $waiter_counts; do
  run --mode deep-queue --waiters "$w" --procs "$procs" --seconds "$seconds"
done

python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
scale = [r for r in rows if r.get("bench") == "scale"]
def mode(m): return [r for r in scale if r["mode"] == m]
ceiling = max((r["acquisitions_ceiling_per_s"] for r in mode("ceiling")), default=0)
print("\nscale: %d runs from %s" % (len(rows), sys.argv[1]))
def cores(r):
    return "%.2f + %s" % (r["client_cores"], "%.2f" % r["server_cores"] if "server_cores" in r else "?")
for r in mode("ceiling"):
    print("ceiling  %d sessions x %3d in flight: %8.0f writes/s -> %7.0f acquisitions/s at most (cores client + server: %s)"
          % (r["sessions"], r["window"], r["writes_per_s"], r["acquisitions_ceiling_per_s"], cores(r)))
print("\nmany-locks  S      N   raw acq/s   zkr acq/s  zkr/raw  zkr/ceiling  CPU us raw/zkr  max RSS KiB raw/zkr  cores client+server raw / zkr")
by = {(r["impl"], r["sessions"], r["locks"]): r for r in mode("many-locks")}
for (impl, s, n) in sorted(k for k in by if k[0] == "zkr"):
    z, raw = by[(impl, s, n)], by.get(("raw", s, n))
    ratio = "%.3f" % (z["acquisitions_per_s"] / raw["acquisitions_per_s"]) if raw and raw["acquisitions_per_s"] else "-"
    share = "%.3f" % (z["acquisitions_per_s"] / ceiling) if ceiling else "-"
    print("           %2d %6d  %10.0f  %10.0f  %7s  %11s  %6.0f / %-6.0f  %6d / %-6d  %s / %s"
          % (s, n, raw["acquisitions_per_s"] if raw else 0, z["acquisitions_per_s"], ratio, share,
             raw["cpu_us_per_acquisition"] if raw else 0, z["cpu_us_per_acquisition"],
             raw["max_rss_kib"] if raw else 0, z["max_rss_kib"], cores(raw) if raw else "-", cores(z)))
for r in mode("held"):
    line = ("\nheld %d: acquired in %.0f ms; per held lock %.0f bytes of heap (%.0f the mutex, %.0f the hold), %.0f of RSS; %d server watches"
            % (r["locks"], r["acquire_all_ms"], r["heap_bytes_per_held_lock"], r["heap_bytes_per_mutex"],
               r["heap_bytes_per_hold"], r["rss_bytes_per_held_lock"], r["server_watches"]))
    if "release_all_ms" in r:
        line += "; released in %.0f ms" % r["release_all_ms"]
    if "lost_once" in r:
        line += ("; expired: LOST once for %d, more than once for %d, never for %d, the last %.0f ms after the expiry (session timeout %d ms)"
                 % (r["lost_once"], r["lost_more_than_once"], r["lost_never"], r["expiry_to_last_lost_ms"], r["session_timeout_ms"]))
    print(line)
for r in rows:
    if "bench" not in r and r.get("clients") == 64:
        print("\nzkr-bench mutex, 64 clients: %.0f cycles/s (one hand-off each: %.3f ms), acquire p50 %.1f ms"
              % (r["cycles_per_s"], 1000 / r["cycles_per_s"] if r["cycles_per_s"] else 0, r["acquire_ms_p50"]))
for r in mode("deep-queue"):
    print("deep-queue %d waiters / %d procs: %d watches on %d nodes (%d on the lock path), %.3f wake-ups per hand-off, "
          "hand-off p50 %.3f ms p99 %.3f ms (%d, %.0f/s), listing %.3f ms %d bytes, %d violations"
          % (r["waiters"], r["procs"], r["server_watches"], r["watched_nodes"], r["watches_on_lock_path"],
             r["wakeups_per_handoff"], r["handoff_ms_p50"], r["handoff_ms_p99"], r["handoffs"],
             r["handoffs_per_s"], r["listing_ms_p50"], r["listing_bytes"], r["violations"]))
PY
exit $status
