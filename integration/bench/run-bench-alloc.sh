#!/usr/bin/env bash
# zkr benchmark: allocations and instructions per acquisition,
# one lock, K clients, for the zkr mutex, the raw loop on Curator's node
# layout and the plain raw loop. Each implementation runs twice, with few
# and with many cycles per client (the same warm-up), under the malloc
# counter (malloc-count.so, G_SLICE=always-malloc); a figure per
# acquisition is the difference of the two runs' counts over the
# difference of their acquisitions, so start-up and shut-down drop out.
# With --callgrind the same pairs run under callgrind for instructions.
# With --attribute DIR the mutex and raw-curator pairs also run under DHAT
# and callgrind, kept in DIR, and zkr's own allocations and instructions
# per acquisition are listed by the zkr function that made them.
# Counts, not timings: they do not depend on the machine's load.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: run-bench-alloc.sh --hosts H [--clients K] [--cycles "200 1200"] [--warmup W]
                          [--impls "mutex raw-curator raw"] [--callgrind]
                          [--attribute DIR] [--bin-dir DIR] [--zkr-bench FILE]
  --hosts H         the server (default: $ZKR_BENCH_HOSTS); one server is best
  --clients K       clients contending for the lock (default: 4)
  --cycles "A B"    timed cycles per client of the two runs (default: 200 1200)
  --warmup W        untimed cycles per client first, both runs (default: 20)
  --impls L         zkr-bench implementations (default: mutex raw-curator raw)
  --callgrind       instructions per acquisition too (valgrind --tool=callgrind)
  --attribute DIR   per-function tables for mutex and raw-curator (DHAT and
                    callgrind output kept in DIR)
  --bin-dir DIR     where malloc-count.so is (default: <repo>/build/integration/bench)
  --zkr-bench FILE  default: BIN-DIR/../../tools/bench/zkr-bench
USAGE
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/../.." && pwd)
hosts=${ZKR_BENCH_HOSTS:-}
clients=4
cycles="200 1200"
warmup=20
impls="mutex raw-curator raw"
callgrind=0
attribute=
bin_dir=$script_dir/../../build/integration/bench
zkr_bench=
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --cycles) cycles=${2//,/ }; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --impls) impls=${2//,/ }; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    --attribute) attribute=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --zkr-bench) zkr_bench=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run-bench-alloc.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$hosts" ] || { echo "run-bench-alloc.sh: no --hosts and no ZKR_BENCH_HOSTS" >&2; exit 2; }
read -r cycles_few cycles_many extra <<<"$cycles"
[[ -z ${extra:-} && ${cycles_few:-} =~ ^[0-9]+$ && ${cycles_many:-} =~ ^[0-9]+$ &&
   cycles_many -gt cycles_few ]] ||
  { echo "run-bench-alloc.sh: --cycles '$cycles': need two numbers, the second larger" >&2; exit 2; }
counter=$bin_dir/malloc-count.so
[ -r "$counter" ] || { echo "run-bench-alloc.sh: $counter not built (meson setup -Dbench=enabled)" >&2; exit 2; }
counter=$(cd "$(dirname "$counter")" && pwd)/malloc-count.so
[ -n "$zkr_bench" ] || zkr_bench=$bin_dir/../../tools/bench/zkr-bench
[ -x "$zkr_bench" ] || { echo "run-bench-alloc.sh: $zkr_bench not built" >&2; exit 2; }
if ((callgrind)) || [ -n "$attribute" ]; then
  command -v valgrind >/dev/null || { echo "run-bench-alloc.sh: valgrind not found" >&2; exit 2; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -z "$attribute" ] || mkdir -p "$attribute"
status=0

# bench IMPL CYCLES TAG [RUNNER...]: one zkr-bench run, its JSON line in
# $work/IMPL-CYCLES-TAG.json; a run that fails is reported.
bench() {
  local impl=$1 n=$2 tag=$3
  shift 3
  if ! timeout --kill-after=10 900 "$@" "$zkr_bench" --hosts "$hosts" --quiet --impl "$impl" \
    --clients "$clients" --cycles "$n" --warmup "$warmup" --path "/zkr-bench/alloc-$impl-$$" \
    >"$work/$impl-$n-$tag.json" 2>"$work/$impl-$n-$tag.err"; then
    echo "run-bench-alloc.sh: $impl, $n cycles ($tag) failed:" >&2
    tail -5 "$work/$impl-$n-$tag.err" >&2
    status=1
  fi
}

for impl in $impls; do
  for n in $cycles_few $cycles_many; do
    # env, not timeout, is the process preloaded: it execs zkr-bench, so
    # only zkr-bench's exit writes a count.
    bench "$impl" "$n" count env G_SLICE=always-malloc ZKR_MALLOC_COUNT_OUT="$work/$impl-$n.count" \
      LD_PRELOAD="$counter"
    if ((callgrind)); then
      bench "$impl" "$n" callgrind valgrind --tool=callgrind \
        --callgrind-out-file="$work/$impl-$n.callgrind"
    fi
  done
done

if [ -n "$attribute" ]; then
  # Full stacks, and file names relative to the repository so that zkr's
  # own frames (core/, recipes/) can be told from the bench's and GLib's.
  for impl in mutex raw-curator; do
    for n in $cycles_few $cycles_many; do
      bench "$impl" "$n" dhat valgrind --tool=dhat --num-callers=64 \
        --fullpath-after="$repo_root/" --dhat-out-file="$attribute/$impl-$n.dhat"
      [ -s "$work/$impl-$n.callgrind" ] ||
        bench "$impl" "$n" callgrind valgrind --tool=callgrind \
          --callgrind-out-file="$work/$impl-$n.callgrind"
      cp "$work/$impl-$n.callgrind" "$attribute/$impl-$n.callgrind"
    done
  done
fi

python3 - "$work" "$clients" "$cycles_few" "$cycles_many" "$impls" "${attribute:-}" "$repo_root" <<'PY'
import collections, json, os, re, subprocess, sys
work, clients, few, many, impls, attribute, root = sys.argv[1:8]
clients, few, many = int(clients), int(few), int(many)
acquisitions = clients * (many - few)

def last_json(path):
    try:
        lines = [l for l in open(path) if l.startswith("{")]
    except OSError:
        return None
    return json.loads(lines[-1]) if lines else None

def callgrind_total(path):
    try:
        for line in open(path):
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None

def per_acq(a, b):
    return None if a is None or b is None else (b - a) / acquisitions

def fmt(x, digits=1):
    return "-" if x is None else "{:,.{}f}".format(x, digits)

print("allocations and instructions per acquisition: %d clients, one lock, runs of %d and %d"
      " cycles per client (%d acquisitions apart)" % (clients, few, many, acquisitions))
print("%-12s %8s %7s %7s %7s %8s %7s %10s" % ("impl", "allocs", "malloc", "calloc", "realloc",
                                             "memalign", "frees", "instr"))
rows = {}
for impl in impls.split():
    a, b = last_json("%s/%s-%d.count" % (work, impl, few)), last_json("%s/%s-%d.count" % (work, impl, many))
    counts = {k: per_acq(a and a[k], b and b[k]) for k in
              ("allocations", "malloc", "calloc", "realloc", "memalign", "free")}
    counts["instr"] = per_acq(callgrind_total("%s/%s-%d.callgrind" % (work, impl, few)),
                              callgrind_total("%s/%s-%d.callgrind" % (work, impl, many)))
    rows[impl] = counts
    print("%-12s %8s %7s %7s %7s %8s %7s %10s" % (impl, fmt(counts["allocations"]), fmt(counts["malloc"]),
          fmt(counts["calloc"]), fmt(counts["realloc"]), fmt(counts["memalign"]), fmt(counts["free"]),
          fmt(counts["instr"], 0)))
z, base = rows.get("mutex"), rows.get("raw-curator")
if z and base and z["allocations"] is not None and base["allocations"] is not None:
    line = "mutex - raw-curator: %s allocations per acquisition" % fmt(z["allocations"] - base["allocations"])
    if z["instr"] and base["instr"]:
        line += ", %s instructions (mutex/raw-curator %.3f)" % (
            fmt(z["instr"] - base["instr"], 0), z["instr"] / base["instr"])
    print(line)

if not attribute:
    sys.exit(0)

# DHAT: every allocation stack is charged to its first frame, from the
# allocator down, in zkr's sources (core/, recipes/: zkr's own, GLib's on
# its behalf included), in libzookeeper (its own: the raw loops make them
# too) or in the benchmark's driver; GLib's, libc's and the allocator's
# frames are passed over.
frame_re = re.compile(r"^0x[0-9A-Fa-f]+: (.*?) \((.*)\)$")
allocators = {"malloc", "calloc", "realloc", "memalign", "posix_memalign", "aligned_alloc", "???"}
def owner(frames, ftbl):
    via = []
    for i in frames:
        m = frame_re.match(ftbl[i])
        if not m:
            continue
        fn, where = m.groups()
        where = os.path.normpath(where) if not where.startswith("in ") else where
        if where.startswith("core/") or where.startswith("recipes/"):
            return "zkr", fn, where, via[-1] if via else "-"
        if "libzookeeper" in where:
            return "libzookeeper", "", "", ""
        if where.startswith("tools/") or where.startswith("integration/"):
            return "bench", fn, where, ""
        if fn not in allocators:
            via.append(fn)
    return "other", "", "", ""

def dhat_counts(path):
    data = json.load(open(path))
    ftbl = data["ftbl"]
    by = collections.Counter()
    for pp in data["pps"]:
        by[owner(pp["fs"], ftbl)] += pp["tbk"]
    return by

def callgrind_inclusive(path):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    costs = {}
    for line in out.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*?):(\S+)(?: \[(.*)\])?$", line)
        if m:
            cost, src, fn = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
            key = (fn, os.path.relpath(src, root) if src.startswith(root) else src)
            costs[key] = max(costs.get(key, 0), cost)
    return costs

for impl in ("mutex", "raw-curator"):
    a = dhat_counts("%s/%s-%d.dhat" % (attribute, impl, few))
    b = dhat_counts("%s/%s-%d.dhat" % (attribute, impl, many))
    diff = {k: (b[k] - a.get(k, 0)) / acquisitions for k in b}
    groups, functions = collections.Counter(), collections.Counter()
    for key, v in diff.items():
        groups[key[0]] += v
        if key[0] == "zkr":
            functions[key[1]] += v
    print("\n%s, allocations per acquisition by owner (DHAT): %s" % (
        impl, ", ".join("%s %.1f" % (g, v) for g, v in groups.most_common())))
    # Each zkr function, then its call sites (file:line, through which
    # GLib call, if any).
    for fn, total in functions.most_common():
        if total < 0.05:
            continue
        print("  %6.2f  %s" % (total, fn))
        for key, v in sorted(diff.items(), key=lambda kv: -kv[1]):
            if key[0] == "zkr" and key[1] == fn and v >= 0.05:
                print("          %6.2f  %s via %s" % (v, key[2], key[3]))

a = callgrind_inclusive("%s/mutex-%d.callgrind" % (attribute, few))
b = callgrind_inclusive("%s/mutex-%d.callgrind" % (attribute, many))
print("\nmutex, zkr functions' inclusive instructions per acquisition (callgrind, top 25):")
own = [(k, (v - a.get(k, 0)) / acquisitions) for k, v in b.items()
       if k[1].startswith("core/") or k[1].startswith("recipes/")]
for (fn, src), v in sorted(own, key=lambda kv: -kv[1])[:25]:
    print("  %8s  %s (%s)" % (fmt(v, 0), fn, src))

# GLib's log calls and the allocator, wherever called from: the largest
# parts of the difference between the two implementations.
print("\ninclusive instructions per acquisition of GLib's log and the allocator (callgrind):")
print("  %-14s %10s %12s" % ("function", "mutex", "raw-curator"))
per = {}
for impl in ("mutex", "raw-curator"):
    a = callgrind_inclusive("%s/%s-%d.callgrind" % (attribute, impl, few))
    b = callgrind_inclusive("%s/%s-%d.callgrind" % (attribute, impl, many))
    per[impl] = collections.Counter()
    for (fn, _), v in b.items():
        per[impl][fn] = max(per[impl][fn], v)
    for (fn, _), v in a.items():
        per[impl][fn + " "] = max(per[impl][fn + " "], v)
for fn in ("g_log", "malloc", "calloc", "realloc", "free"):
    print("  %-14s %10s %12s" % (fn, *(fmt((per[i][fn] - per[i][fn + " "]) / acquisitions, 0)
                                      for i in ("mutex", "raw-curator"))))
PY
exit $status
