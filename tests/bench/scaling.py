#!/usr/bin/env python3
"""Tables and plot of tests/bench/sweep.sh.

  scaling.py --raw OUT/scaling-raw.txt --out-dir OUT

Reads the labelled result lines of sweep.sh, writes OUT/scaling.md (markdown tables: medians
over the rounds) and OUT/scaling.png (gnuplot, when installed: throughput and broker CPU per GB
against partition count, skiff and the peer), and prints the tables on stdout.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def parse(path):
    runs, sendfiles, meta = [], [], {}
    for line in open(path):
        tokens = line.split()
        if not tokens or tokens[0].startswith("#"):
            continue
        fields = dict(t.split("=", 1) for t in tokens if "=" in t)
        if tokens[0] == "meta":
            meta.update(fields)
        elif tokens[0] == "sendfile":
            sendfiles.append(fields)
        else:
            runs.append(fields)
    return runs, sendfiles, meta


def med(values):
    values = [float(v) for v in values]
    return statistics.median(values) if values else None


def fmt(v, digits=None):
    if v is None:
        return "-"
    if digits is not None:
        return f"{v:,.{digits}f}"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}"


def cpu_per_gb(run):
    gb = float(run["bytes"]) / 1e9
    return float(run["broker_cpu_s"]) / gb if gb > 0 else None


def partition_table(runs):
    sweep = [r for r in runs if r.get("sweep") == "partitions"]
    counts = sorted({int(r["partitions"]) for r in sweep})
    rows, points = [], []
    for p in counts:
        per = {}
        for b in ("skiff", "peer"):
            rs = [r for r in sweep if r["broker"] == b and int(r["partitions"]) == p]
            per[b] = {
                "n": len(rs),
                "msgs": med(r["msgs_per_s"] for r in rs),
                "mb": med(r["mb_per_s"] for r in rs),
                "cpu": med(r["broker_cpu_s"] for r in rs),
                "cpugb": med(cpu_per_gb(r) for r in rs if cpu_per_gb(r) is not None),
                "all_mb": [float(r["mb_per_s"]) for r in rs],
            }
        s, q = per["skiff"], per["peer"]
        ratio = s["mb"] / q["mb"] if s["mb"] and q["mb"] else None
        rows.append(
            f"| {p:,} | {fmt(s['msgs'], 0)} | {fmt(q['msgs'], 0)} | {fmt(s['mb'], 1)} | "
            f"{fmt(q['mb'], 1)} | {fmt(ratio, 2)} | {fmt(s['cpu'], 2)} | {fmt(q['cpu'], 2)} | "
            f"{fmt(s['cpugb'], 2)} | {fmt(q['cpugb'], 2)} | "
            f"{', '.join(f'{v:.0f}' for v in s['all_mb'])} / "
            f"{', '.join(f'{v:.0f}' for v in q['all_mb'])} |")
        points.append((p, s["mb"], q["mb"], s["cpugb"], q["cpugb"]))
    head = (
        "| partitions | skiff msgs/s | peer msgs/s | skiff MB/s | peer MB/s | skiff/peer | "
        "skiff CPU s | peer CPU s | skiff CPU s/GB | peer CPU s/GB | MB/s per round, skiff / peer |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    return head + "\n" + "\n".join(rows), points


def many_table(runs, sendfiles):
    many = [r for r in runs if r.get("sweep") == "many"]
    if not many:
        return ""
    rows = []
    for b in ("skiff", "peer"):
        rs = [r for r in many if r["broker"] == b]
        if not rs:
            continue
        fetches = med(r["fetch_requests"] for r in rs)
        sf = ""
        if b == "skiff":
            per = []
            for r in rs:
                c = [s for s in sendfiles if s["round"] == r["round"] and s["calls"].isdigit()]
                if c and int(r["fetch_requests"]) > 0:
                    per.append((int(c[0]["calls"]), int(r["fetch_requests"])))
            if per:
                parts_n = int(rs[0]["partitions"])
                sf = (f"{fmt(med(c for c, _ in per), 0)} | "
                      f"{fmt(med(c / parts_n for c, _ in per), 2)}")
        rows.append(
            f"| {b} | {rs[0]['partitions']} | {fmt(med(r['msgs_per_s'] for r in rs), 0)} | "
            f"{fmt(med(r['mb_per_s'] for r in rs), 1)} | "
            f"{fmt(med(cpu_per_gb(r) for r in rs), 2)} | {fmt(fetches, 0)} | {sf or '- | -'} |")
    return ("| broker | partitions | msgs/s | MB/s | broker CPU s/GB | Fetch requests | "
            "sendfile calls | sendfile calls per partition |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows))


def clients_table(runs):
    cl = [r for r in runs if r.get("sweep") == "clients"]
    if not cl:
        return ""
    rows = []
    for r in cl:
        rows.append(
            f"| {r['broker']} | {r['consumer_mode']} | {r['producers']} / {r['consumers']} | "
            f"{r['partitions']} | {fmt(float(r['msgs_per_s']), 0)} | {fmt(float(r['mb_per_s']), 1)} | "
            f"{fmt(float(r['p50_us']) / 1000, 1)} | {fmt(float(r['p99_us']) / 1000, 1)} | "
            f"{fmt(float(r['consume_msgs_per_s']), 0)} | "
            f"{float(r['consumed_of_expected']) * 100:.1f} % | {fmt(float(r['assign_s']), 1)} | "
            f"{fmt(float(r['consume_seconds']), 1)} | {fmt(float(r['broker_cpu_s']), 2)} | "
            f"{fmt(float(r.get('client_cpu_s', 'nan')), 2)} |")
    return ("| broker | consumers | producers / consumers | partitions | produce msgs/s | "
            "produce MB/s | produce p50 ms | produce p99 ms | consumed msgs/s (all consumers) | "
            "consumed of expected | assignment wait s | timed s | broker CPU s | "
            "client process CPU s |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows))


def plot(points, out_dir, before=None, before_label=""):
    if not shutil.which("gnuplot"):
        print("gnuplot not found: no plot", file=sys.stderr)
        return False
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        for p, smb, pmb, scpu, pcpu in points:
            f.write(f"{p} {smb or 'NaN'} {pmb or 'NaN'} {scpu or 'NaN'} {pcpu or 'NaN'}\n")
        data = f.name
    extra = ""
    if before:
        with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
            for p, smb, _, scpu, _ in before:
                f.write(f"{p} {smb or 'NaN'} {scpu or 'NaN'}\n")
            before_data = f.name
        extra = before_data
    png = os.path.join(out_dir, "scaling.png")
    xtics = ", ".join(f"'{p:,}' {p}" for p, *_ in points)
    script = f"""
set terminal pngcairo size 1000,460 font 'sans,10'
set output '{png}'
set termoption noenhanced
set multiplot layout 1,2 title 'Produce, 100 B values, acks=1, one producer, round-robin over the partitions (medians)'
set logscale x
set xrange [*:*]
set offsets graph 0.05, graph 0.05, 0, 0
set xtics ({xtics})
set xlabel 'partitions of the topic'
set grid
set key right top
set logscale y
set ylabel 'MB/s of values (log scale)'
plot '{data}' u 1:2 w lp lw 2 pt 7 lc rgb '#1f77b4' t 'skiff', \\
     '' u 1:3 w lp lw 2 pt 5 dt 2 lc rgb '#ff7f0e' t 'peer (librdkafka mock)'{{BEFORE_MB}}
set ylabel 'broker CPU seconds per GB of values (log scale)'
set key right bottom
plot '{data}' u 1:4 w lp lw 2 pt 7 lc rgb '#1f77b4' t 'skiff', \\
     '' u 1:5 w lp lw 2 pt 5 dt 2 lc rgb '#ff7f0e' t 'peer (librdkafka mock)'{{BEFORE_CPU}}
unset multiplot
"""
    before_mb = before_cpu = ""
    if extra:
        before_mb = (f", \\\n     '{extra}' u 1:2 w lp lw 1 pt 6 dt 3 lc rgb '#7f7f7f' "
                     f"t 'skiff {before_label}'")
        before_cpu = (f", \\\n     '{extra}' u 1:3 w lp lw 1 pt 6 dt 3 lc rgb '#7f7f7f' "
                      f"t 'skiff {before_label}'")
    script = script.replace("{BEFORE_MB}", before_mb).replace("{BEFORE_CPU}", before_cpu)
    result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if result.returncode != 0:
        script = script.replace("pngcairo size 1000,460 font 'sans,10'", "png size 1000,460")
        result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    os.unlink(data)
    if extra:
        os.unlink(extra)
    if result.returncode != 0:
        print("gnuplot failed: " + result.stderr, file=sys.stderr)
        return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--before", help="raw lines of an earlier run: its skiff line is drawn too")
    ap.add_argument("--before-label", default="(earlier run)")
    args = ap.parse_args()
    runs, sendfiles, meta = parse(args.raw)
    ptable, points = partition_table(runs)
    parts = [
        f"Commit `{meta.get('commit', '?')}`, {meta.get('start', '?')} to {meta.get('end', '?')}; "
        f"load average (1/5/15 min) at start {meta.get('load_start', '?').replace('/', ' ')}, "
        f"at end {meta.get('load_end', '?').replace('/', ' ')}; workloads {meta.get('elapsed_s', '?')} s.",
        "",
        "**Partition sweep** (one producer, 100 B values, acks=1, round-robin over the partitions; "
        "medians):",
        "",
        ptable,
    ]
    mt = many_table(runs, sendfiles)
    if mt:
        parts += ["", "**One consumer of many partitions** (1 KiB values, read from the beginning; "
                  "medians):", "", mt]
    ct = clients_table(runs)
    if ct:
        parts += ["", "**Client sweep** (one run each):", "", ct]
    text = "\n".join(parts) + "\n"
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "scaling.md"), "w") as f:
        f.write(text)
    print(text)
    before = partition_table(parse(args.before)[0])[1] if args.before else None
    if points and plot(points, args.out_dir, before, args.before_label):
        print(f"wrote {os.path.join(args.out_dir, 'scaling.png')}", file=sys.stderr)


if __name__ == "__main__":
    main()
