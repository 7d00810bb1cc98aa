"""Turns the raw lines of tests/bench/run.sh into the results page and the throughput plot.

Input lines (one per workload run, key=value tokens):
  broker=skiff round=1 size=100 acks=1 workload=produce msgs=.. mb_per_s=.. broker_cpu_s=..
  limit round=1 limit=loopback_sendfile ... mb_per_s=..
  rss round=1 broker=skiff kib=..
  startup round=1 seconds=.. idle_rss_kb=..   (tests/bench/startup.py: exec to first answer)
Every figure in the table is the median over the rounds. Writes OUT/RESULTS.md and
OUT/throughput.png (gnuplot), and prints the table on stdout. When tests/bench/analysis.md
exists, it is appended to the page unchanged (the hand-written profile and explanations), and
so are tests/bench/restart-results.md (the figures of restart.sh) and
tests/bench/reliability-results.md (connection memory and the kill -9 soak) and
tests/bench/scaling-results.md (the figures of sweep.sh) and tests/bench/compression-results.md
(the figures of compression.sh).
"""

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

SIZES = [100, 1024, 65536]
SIZE_NAMES = {100: "100 B", 1024: "1 KiB", 65536: "64 KiB"}


def parse(path):
    runs, limits, rss = [], [], []
    for line in open(path):
        tokens = line.split()
        if not tokens:
            continue
        kind = tokens[0] if "=" not in tokens[0] else "run"
        fields = dict(t.split("=", 1) for t in tokens if "=" in t)
        if kind == "limit":
            limits.append(fields)
        elif kind in ("rss", "startup"):
            fields["kind"] = kind
            rss.append(fields)
        else:
            runs.append(fields)
    return runs, limits, rss


def median(values):
    return statistics.median(values) if values else None


def pick(runs, broker, workload, key, size=None, acks=None):
    out = []
    for r in runs:
        if r["broker"] != broker or r["workload"] != workload:
            continue
        if size is not None and int(r["size"]) != size:
            continue
        if acks is not None and r["acks"] != acks:
            continue
        if key == "cpu_s_per_gb":
            out.append(float(r["broker_cpu_s"]) / (float(r["bytes"]) / 1e9))
        else:
            out.append(float(r[key]))
    return median(out)


def fmt(v):
    if v is None:
        return "n/a"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}"


def machine():
    model = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem_kib = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            mem_kib = int(line.split()[1])
    return (f"{os.cpu_count()} CPUs ({model}), {mem_kib / 1048576:.1f} GiB RAM, "
            f"Linux {platform.release()}")


def build_rows(runs, limits):
    rows = []  # (figure, unit, skiff, peer, target_text, met)

    def ratio_row(figure, unit, s, p, lo=None, hi=None):
        target, met = "", None
        if s is not None and p and lo is not None:
            target, met = f"skiff/peer >= {lo}", s / p >= lo
        if s is not None and p and hi is not None:
            target, met = f"skiff/peer <= {hi}", s / p <= hi
        rows.append((figure, unit, s, p, target, met))

    for acks in ["1", "all"]:
        for size in SIZES:
            lo = 0.9 if size < 65536 else 0.8
            for key, unit in [("msgs_per_s", "msgs/s"), ("mb_per_s", "MB/s")]:
                s = pick(runs, "skiff", "produce", key, size, acks)
                p = pick(runs, "peer", "produce", key, size, acks)
                ratio_row(f"produce acks={acks} {SIZE_NAMES[size]}", unit, s, p,
                          lo=lo if key == "mb_per_s" else None)
    for size in SIZES:
        for key, unit in [("msgs_per_s", "msgs/s"), ("mb_per_s", "MB/s")]:
            s = pick(runs, "skiff", "consume", key, size)
            p = pick(runs, "peer", "consume", key, size)
            ratio_row(f"consume {SIZE_NAMES[size]}", unit, s, p,
                      lo=1.0 if key == "mb_per_s" else None)
    for key, name in [("p50_us", "p50"), ("p99_us", "p99"), ("max_us", "max")]:
        s = pick(runs, "skiff", "latency", key)
        p = pick(runs, "peer", "latency", key)
        ratio_row(f"produce latency {name} (acks=all, 1 in flight, 100 B)", "µs", s, p,
                  hi=1.5 if key == "p99_us" else None)
    for key, name in [("p50_us", "p50"), ("p99_us", "p99"), ("max_us", "max")]:
        s = pick(runs, "skiff-tmpfs", "latency", key)
        if s is not None:  # diagnostic: the same run with skiff's data on tmpfs, no target
            p = pick(runs, "peer", "latency", key)
            ratio_row(f"produce latency {name}, skiff's data on tmpfs (diagnostic)", "µs", s, p)
    for acks in ["1", "all"]:
        for size in SIZES:
            s = pick(runs, "skiff", "produce", "cpu_s_per_gb", size, acks)
            p = pick(runs, "peer", "produce", "cpu_s_per_gb", size, acks)
            ratio_row(f"broker CPU per GB produced, acks={acks} {SIZE_NAMES[size]}", "s/GB", s, p)
    for size in SIZES:
        s = pick(runs, "skiff", "consume", "cpu_s_per_gb", size)
        p = pick(runs, "peer", "consume", "cpu_s_per_gb", size)
        rows.append((f"broker CPU per GB consumed, {SIZE_NAMES[size]}", "s/GB", s, p,
                     "skiff <= 0.3 s/GB", None if s is None else s <= 0.3))
    return rows


def limit_rows(runs, limits, rss):
    loop = median([float(l["mb_per_s"]) for l in limits if l["limit"] == "loopback_sendfile"])
    cache = median([float(l["mb_per_s"]) for l in limits if l["limit"] == "pagecache_write"])
    rows = []
    c64 = pick(runs, "skiff", "consume", "mb_per_s", 65536)
    p64 = pick(runs, "skiff", "produce", "mb_per_s", 65536, "1")
    rows.append(("loopback TCP, sendfile of a cached file", "MB/s", loop, "", "", None))
    sender = median([float(l["sender_cpu_s_per_gb"]) for l in limits
                     if l["limit"] == "loopback_sendfile" and "sender_cpu_s_per_gb" in l])
    rows.append(("loopback sendfile: sending thread's CPU per GB", "s/GB", sender, "", "", None))
    rows.append(("page-cache write, 1 MiB writes, no fsync", "MB/s", cache, "", "", None))
    if c64 is not None and loop:
        rows.append(("skiff consume 64 KiB / loopback limit", "ratio", c64 / loop, "",
                     ">= 0.5", c64 / loop >= 0.5))
    if p64 is not None and cache:
        rows.append(("skiff produce acks=1 64 KiB / page-cache write", "ratio", p64 / cache, "",
                     "", None))
    starts = [r for r in rss if r["kind"] == "startup" and "seconds" in r]
    if starts:
        rows.append(("time from exec to the first answered ApiVersions, empty data directory",
                     "ms", median([float(r["seconds"]) * 1000 for r in starts]), "", "", None))
        rows.append(("skiff resident memory (VmRSS) 1 s after that start, idle", "MiB",
                     median([int(r["idle_rss_kb"]) for r in starts]) / 1024, "", "", None))
    kib = [int(r["kib"]) for r in rss if r["kind"] == "rss"]
    if kib:
        rows.append(("skiff resident memory (VmRSS) at the end of each round", "MiB",
                     median(kib) / 1024, "", "rounds: " +
                     ", ".join(f"{k / 1024:.0f}" for k in kib), None))
    return rows


def markdown(rows, lrows):
    out = ["| figure | unit | skiff | peer | skiff/peer | target | met |",
           "|---|---|---:|---:|---:|---|---|"]
    for figure, unit, s, p, target, met in rows:
        ratio = f"{s / p:.2f}" if s is not None and p else "n/a"
        verdict = "" if met is None else ("yes" if met else "**no**")
        out.append(f"| {figure} | {unit} | {fmt(s)} | {fmt(p)} | {ratio} | {target} | {verdict} |")
    out += ["", "| machine limit / skiff against it | unit | value | target | met |",
            "|---|---|---:|---|---|"]
    for figure, unit, v, _, target, met in lrows:
        verdict = "" if met is None else ("yes" if met else "**no**")
        out.append(f"| {figure} | {unit} | {fmt(v)} | {target} | {verdict} |")
    return "\n".join(out)


def plot(runs, out_dir):
    data = os.path.join(tempfile.mkdtemp(), "throughput.dat")
    with open(data, "w") as f:
        f.write("# size skiff_p1 peer_p1 skiff_pall peer_pall skiff_c peer_c (MB/s)\n")
        for size in SIZES:
            vals = [pick(runs, b, "produce", "mb_per_s", size, a)
                    for a in ["1", "all"] for b in ["skiff", "peer"]]
            vals += [pick(runs, b, "consume", "mb_per_s", size) for b in ["skiff", "peer"]]
            f.write(f"{size} " + " ".join(fmt(v).replace(",", "") for v in vals) + "\n")
    if not shutil.which("gnuplot"):
        print("gnuplot not found: no plot", file=sys.stderr)
        return False
    png = os.path.join(out_dir, "throughput.png")
    script = f"""
set terminal pngcairo size 900,560 font 'sans,10'
set output '{png}'
set title 'Throughput against value size (median of rounds; one client, one partition)'
set xlabel 'value size (bytes)'
set ylabel 'MB/s of values (log scale)'
set logscale xy
set xtics ('100 B' 100, '1 KiB' 1024, '64 KiB' 65536)
set key left top
set grid
plot '{data}' u 1:2 w lp lw 2 pt 7 lc rgb '#1f77b4' t 'skiff produce acks=1', \\
     '' u 1:3 w lp lw 2 pt 7 dt 2 lc rgb '#1f77b4' t 'peer produce acks=1', \\
     '' u 1:4 w lp lw 2 pt 5 lc rgb '#2ca02c' t 'skiff produce acks=all', \\
     '' u 1:5 w lp lw 2 pt 5 dt 2 lc rgb '#2ca02c' t 'peer produce acks=all', \\
     '' u 1:6 w lp lw 2 pt 9 lc rgb '#d62728' t 'skiff consume', \\
     '' u 1:7 w lp lw 2 pt 9 dt 2 lc rgb '#d62728' t 'peer consume'
"""
    result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if result.returncode != 0:
        script = script.replace("pngcairo size 900,560 font 'sans,10'", "png size 900,560")
        result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if result.returncode != 0:
        print("gnuplot failed: " + result.stderr, file=sys.stderr)
        return False
    return True


def main():
    ap = argparse.ArgumentParser()
    for a in ["raw", "out-dir", "mode", "rounds", "pass-bytes", "elapsed-s", "load-start",
              "load-end", "commit"]:
        ap.add_argument("--" + a, required=True)
    args = ap.parse_args()
    runs, limits, rss = parse(args.raw)
    rows = build_rows(runs, limits)
    lrows = limit_rows(runs, limits, rss)
    table = markdown(rows, lrows)
    print(table)
    plotted = plot(runs, args.out_dir)
    pass_mib = int(args.pass_bytes) / 1048576
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = [
        "# skiff benchmark results", "",
        f"Generated by `tests/bench/run.sh{' --short' if args.mode == 'short' else ''}` "
        f"on {now}, commit `{args.commit}`.", "",
        f"- Machine: {machine()}; broker, peer and client share it.",
        f"- Load average (1/5/15 min) at start: {args.load_start}; at end: {args.load_end}. "
        "Other processes running at the same time make every figure noisier; the ratios come "
        "from the same minutes for both brokers.",
        f"- {args.rounds} rounds, each running every workload against skiff then the peer; "
        f"every figure is the median over the rounds. Wall time of the workloads: "
        f"{args.elapsed_s} s.",
        "- Peer: librdkafka's in-memory mock broker (`rdkafka_mock.h`, librdkafka 2.0.2, "
        "`tests/bench/mock_peer.cpp`). skiff writes every batch to its segment files (page cache, "
        "no fsync by default, as Kafka).",
        "- Client: one librdkafka 2.0.2 client per run (`tests/bench/bench_client.cpp`), default "
        "settings (linger.ms=5, batch.size 1 MB, no compression), everything to partition 0. "
        "MB = 10^6 bytes of values. Produce runs stop after a fixed time or byte count.",
        f"- Consume: {pass_mib:.0f} MiB of values are produced (acks=1) into a fresh topic, then "
        f"read from offset 0 to the end in passes (legacy consumer: start at offset 0, no group; "
        f"fetch.wait.max.ms=1), repeated for a fixed time. **The peer keeps only about 5 MiB per "
        f"partition, so the consumed data is sized within that**, and both brokers serve the same "
        f"bytes from memory (skiff: page cache, sendfile).",
        "- Latency: acks=all, linger.ms=0, one message in flight (wait for each delivery report), "
        "100-byte values; measured by the client from produce() to its delivery report. "
        "The rows marked diagnostic repeat skiff's run with its data directory on tmpfs "
        "(/dev/shm), to separate the broker's latency from the file system's; they have no "
        "target.",
        "- skiff restarts with an empty data directory before each of its produce runs: "
        "sustained writes of several GB slow every file write on this machine to the disk's "
        "write-back speed (see the analysis below), which would measure the disk, not the broker. "
        "Resident memory is read at the end of each round (after the 64 KiB runs and latency).",
        "- CPU: utime+stime of the broker process (all threads) from /proc/PID/stat around the "
        "timed part of each run, divided by the GB of values moved.",
        "", table, "",
    ]
    if plotted:
        page += ["![throughput against value size](throughput.png)", ""]
    # Hand-written parts: the analysis of this run, then the restart figures of restart.sh.
    for name in ("analysis.md", "restart-results.md", "reliability-results.md",
                 "scaling-results.md", "compression-results.md"):
        part = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
        if os.path.exists(part):
            page += [open(part).read().rstrip(), ""]
    with open(os.path.join(args.out_dir, "RESULTS.md"), "w") as f:
        f.write("\n".join(page))


if __name__ == "__main__":
    main()
