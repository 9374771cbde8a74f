#!/usr/bin/env bash
# zkr benchmarks: runs bench-raw (the raw libzookeeper lock loop) and
# bench-mutex (the zkr mutex) against the same server for several client
# counts, prints each program's JSON line, then a table of zkr/raw ratios.
# Timings are output, never a pass/fail: the exit status only says whether
# every run completed with no violation (docs/design.md §8.7).
set -euo pipefail

usage() {
  cat <<'EOF'
usage: run-bench.sh [OPTIONS]
  --hosts H         ZooKeeper connect string (default: $ZKR_BENCH_HOSTS); use one server
  --clients LIST    client counts, e.g. "1 4 16" or 1,4,16 (default: 1 4 16)
  --seconds S       length of each timed run (default: 5)
  --cycles M        fixed timed cycles per client instead of --seconds
  --hold-us U       how long each acquisition is held (default: 0)
  --warmup W        untimed cycles per client before timing (default: 50)
  --repeat N        runs per program and client count; the table shows medians (default: 1)
  --bin-dir DIR     where bench-raw (or bench-raw-curator) and bench-mutex are
                    (default: $ZKR_BENCH_BIN_DIR, else <repo>/build/integration/bench)
  --path-prefix P   parent of the lock paths (default: /zkr-bench)
  --baseline B      raw (default): the raw loop on plain "lock-" nodes (bench-raw);
                    raw-curator: the same loop on Curator's node layout, as zkr
                    writes it (bench-raw-curator); the "raw" columns are then its
                    figures
  --run-timeout T   seconds before a run that hangs is killed and counted as failed
                    (default: 4 x --seconds + 60, or 600 with --cycles)
  --server-warmup S seconds each program runs untimed at the largest client count
                    before the series, so the server's JIT is warm (default: 5; 0: none)
  -h, --help
Each pair runs back to back (raw first on odd repeats, zkr first on even
ones). Exit status: 0 when every run finished with 0 violations.
EOF
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hosts=${ZKR_BENCH_HOSTS:-}
clients="1 4 16"
seconds=5
cycles=""
hold_us=0
warmup=50
repeat=1
bin_dir=${ZKR_BENCH_BIN_DIR:-$script_dir/../../build/integration/bench}
path_prefix=/zkr-bench
baseline=raw
run_timeout=""
server_warmup=5

while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --clients) clients=${2//,/ }; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --cycles) cycles=$2; shift 2 ;;
    --hold-us) hold_us=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --path-prefix) path_prefix=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --run-timeout) run_timeout=$2; shift 2 ;;
    --server-warmup) server_warmup=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run-bench.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

if [ -z "$run_timeout" ]; then
  if [ -n "$cycles" ]; then run_timeout=600; else run_timeout=$(awk -v s="$seconds" 'BEGIN { printf "%d", 4 * s + 60 }'); fi
fi
if [ -z "$hosts" ]; then
  echo "run-bench.sh: no --hosts and ZKR_BENCH_HOSTS is unset" >&2
  exit 2
fi
case $hosts in
  *,*) echo "run-bench.sh: warning: '$hosts' names several servers; the figures assume one" >&2 ;;
esac
case $baseline in
  raw) baseline_prog=bench-raw ;;
  raw-curator) baseline_prog=bench-raw-curator ;;
  *) echo "run-bench.sh: --baseline must be raw or raw-curator, not '$baseline'" >&2; exit 2 ;;
esac
for prog in "$baseline_prog" bench-mutex; do
  if [ ! -x "$bin_dir/$prog" ]; then
    echo "run-bench.sh: $bin_dir/$prog not found (build with -Dbench=enabled, or give --bin-dir)" >&2
    exit 2
  fi
done

# results["raw:4"]="cycles_per_s p50 p99 violations;..." one entry per run
declare -A results=()
failed=0

json_field() { # LINE KEY
  sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p" <<<"$1"
}

run_one() { # IMPL K REPEAT
  local impl=$1 k=$2 r=$3 prog line status
  prog=$baseline_prog
  [ "$impl" = zkr ] && prog=bench-mutex
  local args=(--hosts "$hosts" --path "$path_prefix/$impl-k$k-r$r-$$"
              --clients "$k" --hold-us "$hold_us" --warmup "$warmup")
  if [ -n "$cycles" ]; then
    args+=(--cycles "$cycles")
  else
    args+=(--seconds "$seconds")
  fi
  status=0
  line=$(timeout --kill-after=10 "$run_timeout" "$bin_dir/$prog" "${args[@]}") || status=$?
  if [ -z "$line" ] || { [ $status -ne 0 ] && [ $status -ne 1 ]; }; then
    [ $status -ne 124 ] || echo "run-bench.sh: killed after $run_timeout s (a hang?)" >&2
    echo "run-bench.sh: $prog ${args[*]} failed (exit $status)" >&2
    failed=1
    return
  fi
  echo "$line"
  [ $status -eq 0 ] || failed=1
  results["$impl:$k"]+="$(json_field "$line" cycles_per_s) $(json_field "$line" acquire_ms_p50) \
$(json_field "$line" acquire_ms_p99) $(json_field "$line" violations);"
}

# A server's JIT compiles its hot paths under the first seconds of load:
# each program runs untimed first (output dropped), so that the first pairs
# do not measure a server that is still warming up.
if [ "$server_warmup" != 0 ]; then
  max_k=0
  for k in $clients; do [ "$k" -gt "$max_k" ] && max_k=$k; done
  warmup_timeout=$(awk -v s="$server_warmup" 'BEGIN { printf "%d", 4 * s + 60 }')
  for prog in "$baseline_prog" bench-mutex; do
    timeout --kill-after=10 "$warmup_timeout" "$bin_dir/$prog" --hosts "$hosts" \
      --path "$path_prefix/server-warmup-$prog-$$" --clients "$max_k" --hold-us "$hold_us" \
      --warmup 0 --seconds "$server_warmup" >/dev/null ||
      { echo "run-bench.sh: the server warm-up with $prog failed" >&2; failed=1; }
  done
fi

for ((r = 1; r <= repeat; r++)); do
  for k in $clients; do
    if ((r % 2)); then order="raw zkr"; else order="zkr raw"; fi
    for impl in $order; do
      run_one "$impl" "$k" "$r"
    done
  done
done

# The table: medians over the repeats, zkr/raw beside each pair. Higher is
# better for cycles/s, lower for the acquire latencies. "pairs" is the
# median of the per-repeat ratios of cycles/s: the two runs of a repeat go
# back to back, so it cancels a machine whose speed drifts between repeats
# (shown only when every run of the row finished); "mean+-se" is their mean
# and its standard error (with 10 or more repeats, mean +- 2 se is a fair
# range for the true ratio on that machine).
echo
[ "$baseline" = raw ] || echo "baseline: $baseline ($baseline_prog) in the raw columns"
{
  printf 'K\traw cyc/s\tzkr cyc/s\tzkr/raw\traw p50 ms\tzkr p50 ms\tzkr/raw\traw p99 ms\tzkr p99 ms\tzkr/raw\tviolations\n'
  for k in $clients; do
    printf '%s\t%s\t%s\n' "$k" "${results[raw:$k]:-}" "${results[zkr:$k]:-}"
  done
} | awk -F'\t' '
  function median(list, col,    n, i, j, t, v, parts, f) {
    n = split(list, parts, ";"); j = 0
    for (i = 1; i <= n; i++) if (parts[i] != "") { split(parts[i], f, " "); v[++j] = f[col] + 0 }
    if (j == 0) return "nan"
    for (i = 2; i <= j; i++) { t = v[i]; for (n = i - 1; n >= 1 && v[n] > t; n--) v[n + 1] = v[n]; v[n + 1] = t }
    return (j % 2) ? v[(j + 1) / 2] : (v[j / 2] + v[j / 2 + 1]) / 2
  }
  function sum(list, col,    n, i, s, parts, f) {
    n = split(list, parts, ";"); s = 0
    for (i = 1; i <= n; i++) if (parts[i] != "") { split(parts[i], f, " "); s += f[col] }
    return s
  }
  # The median of zkr/raw over the repeats, pairing the i-th run of each.
  function pair_median(raw, zkr,    n, m, i, j, t, v, a, b, fa, fb) {
    n = split(raw, a, ";"); m = split(zkr, b, ";")
    if (n != m) return "nan"
    j = 0
    for (i = 1; i <= n; i++) if (a[i] != "" && b[i] != "") {
      split(a[i], fa, " "); split(b[i], fb, " ")
      if (fa[1] + 0 > 0) v[++j] = (fb[1] + 0) / (fa[1] + 0)
    }
    if (j == 0) return "nan"
    # Their mean and its standard error, for the mean+-se column.
    pair_mean = 0; for (i = 1; i <= j; i++) pair_mean += v[i]; pair_mean /= j
    pair_se = "nan"
    if (j > 1) {
      t = 0; for (i = 1; i <= j; i++) t += (v[i] - pair_mean) ^ 2
      pair_se = sqrt(t / (j - 1) / j)
    }
    for (i = 2; i <= j; i++) { t = v[i]; for (n = i - 1; n >= 1 && v[n] > t; n--) v[n + 1] = v[n]; v[n + 1] = t }
    return (j % 2) ? v[(j + 1) / 2] : (v[j / 2] + v[j / 2 + 1]) / 2
  }
  function num(v, digits) { return v == "nan" ? "-" : sprintf("%." digits "f", v) }
  function ratio(a, b) { return (a == "nan" || b == "nan" || b == 0) ? "-" : sprintf("%.2f", a / b) }
  NR == 1 { printf "%3s %10s %10s %7s %6s %11s   %10s %10s %7s   %10s %10s %7s   %s\n", "K", "raw cyc/s", "zkr cyc/s", "zkr/raw", "pairs", "mean+-se", "raw p50ms", "zkr p50ms", "zkr/raw", "raw p99ms", "zkr p99ms", "zkr/raw", "violations"; next }
  {
    rc = median($2, 1); zc = median($3, 1); r50 = median($2, 2); z50 = median($3, 2)
    r99 = median($2, 3); z99 = median($3, 3)
    pair_mean = "nan"; pair_se = "nan"
    pm = pair_median($2, $3)
    ms = (pair_mean == "nan") ? "-" : (pair_se == "nan") ? num(pair_mean, 3) : num(pair_mean, 3) "+-" num(pair_se, 3)
    printf "%3s %10s %10s %7s %6s %11s   %10s %10s %7s   %10s %10s %7s   %d\n", $1, num(rc, 1), num(zc, 1),
           ratio(zc, rc), num(pm, 2), ms, num(r50, 3), num(z50, 3), ratio(z50, r50), num(r99, 3), num(z99, 3),
           ratio(z99, r99), sum($2, 4) + sum($3, 4)
  }'
exit $failed
