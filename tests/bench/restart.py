#!/usr/bin/python3
"""Restart time of skiff after kill -9: from exec to the first answered ApiVersions.

    restart.py --skiff BIN --client BENCH_CLIENT --data DIR --partitions P --bytes N
               --segment-bytes S [--cache cold,warm] [--value-size B] [--batch-size B]
               [--extra KEY=VALUE]...

One data point: start skiff on an empty data dir (topic `restart` with P partitions, segments of
S bytes), write N value bytes spread evenly over the partitions with `bench_client fill`, wait
`--settle` seconds, kill -9. Then, for each cache mode in order, start skiff again and time it
until it answers ApiVersions; kill -9 it right after the answer and go on with the next mode.
`cold` runs `sync; echo 3 > /proc/sys/vm/drop_caches` before the exec (root only).

The second restart follows a broker that ran for only a few milliseconds, so it sees the same
data with at most what that broker flushed in between; cold goes first so that it is the one
measured on the untouched directory.

`--clean-start` instead stops the writing broker with SIGTERM (a clean shutdown) and times
clean starts. `--prepared` skips the write and times restarts of an existing DIR.

Prints one line per measurement:
    result partitions=P bytes=N segment_bytes=S cache=cold seconds=1.234 segments=...
"""
import argparse
import os
import resource
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from skiff_harness import api_versions_answered, free_port  # noqa: E402


def start(args, port, log_path):
    cmd = [args.skiff, "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
           "--override", f"log.dirs={args.data}",
           "--override", f"num.partitions={args.partitions}",
           "--override", f"log.segment.bytes={args.segment_bytes}"]
    for kv in args.extra:
        cmd += ["--override", kv]
    log = open(log_path, "ab")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    return proc, t0


def raise_nofile():
    """Many partitions need many descriptors (one per partition, plus connections); skiff
    inherits the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for limit in (1 << 20, hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, max(limit, hard)))
            return
        except (ValueError, OSError):
            pass


def wait_answer(proc, port, t0, timeout=600):
    while time.monotonic() - t0 < timeout:
        if proc.poll() is not None:
            sys.exit(f"skiff exited with {proc.returncode} before answering")
        if api_versions_answered(port):
            return time.monotonic() - t0
        time.sleep(0.002)
    sys.exit("skiff did not answer ApiVersions in time")


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def count_segments(data):
    n = 0
    for d in os.listdir(data):
        p = os.path.join(data, d)
        if os.path.isdir(p) and d.startswith("restart-"):
            n += sum(1 for f in os.listdir(p) if f.endswith(".log"))
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skiff", required=True)
    ap.add_argument("--client", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--partitions", type=int, required=True)
    ap.add_argument("--bytes", type=int, required=True)
    ap.add_argument("--segment-bytes", type=int, default=1073741824)
    ap.add_argument("--value-size", type=int, default=16384)
    ap.add_argument("--batch-size", type=int, default=1000000, help="the producer's batch.size")
    ap.add_argument("--cache", default="cold,warm")
    ap.add_argument("--settle", type=float, default=0.0,
                    help="seconds between the end of the write and kill -9")
    ap.add_argument("--clean-start", action="store_true")
    ap.add_argument("--prepared", action="store_true")
    ap.add_argument("--extra", action="append", default=[])
    args = ap.parse_args()
    raise_nofile()

    port = free_port()
    log_path = args.data.rstrip("/") + ".log"
    if not args.prepared:
        subprocess.run(["rm", "-rf", args.data], check=True)
        proc, t0 = start(args, port, log_path)
        wait_answer(proc, port, t0)
        w0 = time.monotonic()
        fill = subprocess.run([args.client, "fill", "--bootstrap", f"127.0.0.1:{port}",
                               "--topic", "restart", "--partitions", str(args.partitions),
                               "--bytes", str(args.bytes), "--size", str(args.value_size),
                               "--batch-size", str(args.batch_size)],
                              capture_output=True, text=True)
        if fill.returncode != 0:
            proc.kill()
            sys.exit(f"fill failed: {fill.stderr}")
        write_s = time.monotonic() - w0
        time.sleep(args.settle)
        if args.clean_start:
            proc.send_signal(signal.SIGTERM)
        else:
            proc.kill()
        proc.wait()
        print(f"# wrote {args.bytes} bytes in {write_s:.1f} s: {fill.stdout.strip()}", flush=True)

    for cache in [c for c in args.cache.split(",") if c]:
        if cache == "cold":
            drop_caches()
        proc, t0 = start(args, port, log_path)
        seconds = wait_answer(proc, port, t0)
        if args.clean_start:
            proc.send_signal(signal.SIGTERM)
        else:
            proc.kill()
        proc.wait()
        print(f"result partitions={args.partitions} bytes={args.bytes} "
              f"segment_bytes={args.segment_bytes} cache={cache} "
              f"start={'clean' if args.clean_start else 'kill-9'} seconds={seconds:.3f} "
              f"segments={count_segments(args.data)}", flush=True)


if __name__ == "__main__":
    main()
