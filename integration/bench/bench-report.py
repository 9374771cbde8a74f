#!/usr/bin/env python3
# zkr bench's report (integration/bench/run-all.sh): the table (stdout and
# docs/bench.md) and the plot data from results.jsonl: per client count, each
# implementation's cycles/s and acquire latencies, and its throughput as a
# fraction of raw's at the same client count.
# usage: bench-report.py RESULTS_JSONL TABLE_MD PLOT_DATA "IMPL..."
import json, sys, time
results, table_md, data, order = sys.argv[1:5]
rows = [json.loads(line) for line in open(results) if line.strip()]
impls = order.split()
clients = sorted({r["clients"] for r in rows})
by = {(r["impl"], r["clients"]): r for r in rows}
lines = ["| clients | impl | cycles/s | acquire p50 (ms) | acquire p99 (ms) | cycles/s vs raw |",
         "|--:|:--|--:|--:|--:|--:|"]
for k in clients:
    raw = by.get(("raw", k))
    for impl in impls:
        r = by.get((impl, k))
        if r is None:
            continue
        ratio = "%.2f" % (r["cycles_per_s"] / raw["cycles_per_s"]) if raw and raw["cycles_per_s"] else "-"
        lines.append("| %d | %s | %.1f | %.2f | %.2f | %s |" % (
            k, impl, r["cycles_per_s"], r["acquire_ms_p50"], r["acquire_ms_p99"], ratio))
text = "\n".join(lines) + "\n"
with open(table_md, "w") as out:
    out.write("# zkr bench, %s\n\n" % time.strftime("%Y-%m-%d", time.gmtime()))
    out.write("`./run bench`: one ZooKeeper server (full JIT, loopback, nosync), one lock, K clients\n"
              "each with its own session, %g s per run; the last column is the\n"
              "implementation's cycles/s over raw libzookeeper's at the same K.\n"
              "Plot: bench.png.\n\n" % round(rows[0]["seconds"]) if rows else "")
    out.write(text)
sys.stdout.write(text)
# gnuplot: one data block per implementation, in BENCH_IMPLS order.
with open(data, "w") as out:
    for impl in impls:
        out.write("# %s\n" % impl)
        for k in clients:
            r = by.get((impl, k))
            if r is not None:
                out.write("%d %g %g\n" % (k, r["cycles_per_s"], r["acquire_ms_p99"]))
        out.write("\n\n")
