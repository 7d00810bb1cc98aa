"""Log cleaner benchmark: how fast skiff compacts, how much memory it takes, and what cleaning
costs the producers meanwhile.

    /usr/bin/python3 tests/bench/compaction.py SKIFF BENCH_CLIENT [--mb 1024] [--dups 10,90]
                                                  [--load-seconds 8]

For each duplicate share D (percent of records that overwrite an earlier key):

 1. skiff starts with log.cleaner.enable=false. A compacted topic `kv` (segment.bytes 128 MiB,
    min.cleanable.dirty.ratio 0.01) gets --mb MB of 1 KiB values from confluent-kafka; keys are
    distinct except for D% of the records, which reuse an earlier key. Then bench_client produces
    to a delete-policy topic `load` for --load-seconds: the producer's MB/s with the cleaner off.
 2. skiff restarts on the same data with the cleaner on (log.cleaner.backoff.ms=100) and the same
    bench_client run starts at once: its MB/s while the cleaner works. The cleaning time runs
    from the broker listening to cleaner-offset-checkpoint naming `kv` (one pass: the key map of
    128 MiB holds 5.6 million keys); MB/s cleaned is the `kv` bytes below the active segment
    divided by that time.
 3. Memory: the broker's peak resident set (VmHWM) in step 2 against step 1.
 4. `skiff dump-log --verify` on `kv` afterwards.

Prints one "result ..." line per D and a table. Never fails on a number; fails when a step does.
The figures are only as quiet as the machine: run nothing else meanwhile.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import skiff_harness  # noqa: E402

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

VALUE = b"v" * 1024
SEGMENT_BYTES = 128 << 20


def vm_hwm_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def create_topics(bootstrap):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fs = admin.create_topics([
        NewTopic("kv", num_partitions=1, replication_factor=1,
                 config={"cleanup.policy": "compact", "segment.bytes": str(SEGMENT_BYTES),
                         "min.cleanable.dirty.ratio": "0.01"}),
        NewTopic("load", num_partitions=1, replication_factor=1)])
    for f in fs.values():
        f.result(timeout=30)


def produce_keyed(bootstrap, mb, dup_percent):
    """--mb MB of 1 KiB values; dup_percent% of the records reuse an earlier key."""
    total = mb * 1000 * 1000 // len(VALUE)
    rng = random.Random(42)
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1000000,
                  "queue.buffering.max.kbytes": 1048576, "acks": "1"})
    errors = []
    fresh = 0
    start = time.monotonic()
    for _ in range(total):
        if fresh > 0 and rng.random() * 100 < dup_percent:
            key = b"%012d" % rng.randrange(fresh)
        else:
            key = b"%012d" % fresh
            fresh += 1
        while True:
            try:
                p.produce("kv", key=key, value=VALUE, partition=0,
                          on_delivery=lambda err, msg: err and errors.append(err))
                break
            except BufferError:
                p.poll(0.01)
        p.poll(0)
    if p.flush(120) != 0 or errors:
        raise RuntimeError("keyed produce failed: %s" % errors[:3])
    return total, fresh, time.monotonic() - start


def log_bytes(part_dir):
    files = sorted(f for f in os.listdir(part_dir) if f.endswith(".log"))
    sizes = [os.path.getsize(os.path.join(part_dir, f)) for f in files]
    return sum(sizes), sum(sizes[:-1])  # all, and all but the active segment


def run_load(client, bootstrap, pid, seconds):
    out = subprocess.run(
        [client, "produce", "--bootstrap", bootstrap, "--topic", "load", "--size", "1024",
         "--acks", "1", "--max-bytes", str(1 << 40), "--seconds", str(seconds),
         "--broker-pid", str(pid)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=seconds + 120, check=True)
    m = re.search(rb"mb_per_s=([0-9.]+)", out.stdout)
    if not m:
        raise RuntimeError("bench_client: %s" % out.stdout.decode())
    return float(m.group(1))


def checkpoint_has_kv(data_dir):
    path = os.path.join(data_dir, "cleaner-offset-checkpoint")
    try:
        with open(path) as f:
            return any(line.startswith("kv 0 ") for line in f)
    except OSError:
        return False


def one(skiff, client, mb, dup_percent, load_seconds):
    broker = skiff_harness.Broker({"num.partitions": 1, "log.cleaner.enable": "false"},
                                  name="compaction bench %d%%" % dup_percent)
    try:
        broker.start()
        create_topics(broker.bootstrap)
        records, keys, produce_s = produce_keyed(broker.bootstrap, mb, dup_percent)
        off_mb_s = run_load(client, broker.bootstrap, broker.proc.pid, load_seconds)
        off_hwm = vm_hwm_kib(broker.proc.pid)
        broker.stop()
        part = broker.partition_dir("kv", 0)
        before_all, cleanable = log_bytes(part)

        broker.overrides["log.cleaner.enable"] = "true"
        broker.overrides["log.cleaner.backoff.ms"] = "100"
        broker.start()
        t0 = time.monotonic()
        load = subprocess.Popen(
            [client, "produce", "--bootstrap", broker.bootstrap, "--topic", "load", "--size",
             "1024", "--acks", "1", "--max-bytes", str(1 << 40), "--seconds", str(load_seconds),
             "--broker-pid", str(broker.proc.pid)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        skiff_harness.wait_until(lambda: checkpoint_has_kv(broker.data_dir), 600, 0.02,
                                 "the cleaner to finish kv")
        clean_s = time.monotonic() - t0
        on_hwm = vm_hwm_kib(broker.proc.pid)
        out, _ = load.communicate(timeout=load_seconds + 120)
        m = re.search(rb"mb_per_s=([0-9.]+)", out)
        if load.returncode != 0 or not m:
            raise RuntimeError("bench_client: %s" % out.decode())
        on_mb_s = float(m.group(1))
        after_all, _ = log_bytes(part)
        broker.verify_log("kv", 0)
        return {
            "dups": dup_percent, "records": records, "keys": keys,
            "keyed_produce_mb_s": round(records * len(VALUE) / 1e6 / produce_s, 1),
            "log_mb_before": round(before_all / 1e6, 1), "cleanable_mb": round(cleanable / 1e6, 1),
            "log_mb_after": round(after_all / 1e6, 1), "clean_s": round(clean_s, 2),
            "cleaned_mb_s": round(cleanable / 1e6 / clean_s, 1),
            "rss_peak_mib_cleaner_off": round(off_hwm / 1024, 1),
            "rss_peak_mib_cleaner_on": round(on_hwm / 1024, 1),
            "load_mb_s_cleaner_off": off_mb_s, "load_mb_s_while_cleaning": on_mb_s,
        }
    finally:
        broker.cleanup()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("skiff")
    ap.add_argument("bench_client")
    ap.add_argument("--mb", type=int, default=1024)
    ap.add_argument("--dups", default="10,90")
    ap.add_argument("--load-seconds", type=int, default=8)
    args = ap.parse_args()
    skiff_harness._binary = os.path.abspath(args.skiff)
    rows = []
    for d in (int(x) for x in args.dups.split(",")):
        r = one(args.skiff, os.path.abspath(args.bench_client), args.mb, d, args.load_seconds)
        print("result " + " ".join("%s=%s" % kv for kv in r.items()), flush=True)
        rows.append(r)
    print("\n| duplicates | log before MB | cleanable MB | after MB | clean s | cleaned MB/s "
          "| peak RSS MiB off / on | producer MB/s off / while cleaning |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %d%% | %.0f | %.0f | %.0f | %.1f | %.0f | %.0f / %.0f | %.0f / %.0f |" % (
            r["dups"], r["log_mb_before"], r["cleanable_mb"], r["log_mb_after"], r["clean_s"],
            r["cleaned_mb_s"], r["rss_peak_mib_cleaner_off"], r["rss_peak_mib_cleaner_on"],
            r["load_mb_s_cleaner_off"], r["load_mb_s_while_cleaning"]))


if __name__ == "__main__":
    main()
