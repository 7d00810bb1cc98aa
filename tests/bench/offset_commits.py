#!/usr/bin/python3
"""Synchronous offset commits per second and their latency, in durable mode or the default.

    /usr/bin/python3 tests/bench/offset_commits.py SKIFF [--committers 1,10] [--seconds 5]
                     [--rounds 2] [--mode durable,default]

Each round starts a fresh skiff (a temporary data directory, an ephemeral port; durable mode is
log.flush.interval.messages=1), then N confluent-kafka consumers, each in a group of its own,
commit an offset of one partition synchronously in a loop for the given time, all at once: the
pattern of consumers that commit after every batch they process. Latency is commit() to its
return. Prints one line per round:

    result workload=offset_commits mode=durable committers=10 commits_per_s=... p50_ms=...
"""
import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import skiff_harness  # noqa: E402
from latency_stats import percentile  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

TOPIC = "commits"


def run_round(bootstrap, committers, seconds):
    p = Producer({"bootstrap.servers": bootstrap, "broker.address.family": "v4"})
    p.produce(TOPIC, value=b"x")
    p.flush(30)
    latencies = [[] for _ in range(committers)]
    ready = threading.Barrier(committers + 1)

    def commit_loop(n):
        c = Consumer({"bootstrap.servers": bootstrap, "broker.address.family": "v4",
                      "group.id": "committer-%d" % n, "enable.auto.commit": False})
        try:
            c.commit(offsets=[TopicPartition(TOPIC, 0, 0)], asynchronous=False)  # connected
            ready.wait()
            end = time.monotonic() + seconds
            offset = 1
            while time.monotonic() < end:
                t = time.perf_counter()
                c.commit(offsets=[TopicPartition(TOPIC, 0, offset)], asynchronous=False)
                latencies[n].append(time.perf_counter() - t)
                offset += 1
        finally:
            c.close()

    threads = [threading.Thread(target=commit_loop, args=(n,)) for n in range(committers)]
    for t in threads:
        t.start()
    ready.wait()
    for t in threads:
        t.join()
    samples = sorted(x for per in latencies for x in per)
    return len(samples) / seconds, percentile(samples, 0.5) * 1e3, percentile(samples, 0.99) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("skiff")
    ap.add_argument("--committers", default="1,10")
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--mode", default="durable,default")
    args = ap.parse_args()
    skiff_harness._binary = os.path.abspath(args.skiff)
    for _ in range(args.rounds):
        for mode in args.mode.split(","):
            for committers in (int(n) for n in args.committers.split(",")):
                overrides = {"num.partitions": 1}
                if mode == "durable":
                    overrides["log.flush.interval.messages"] = 1
                broker = skiff_harness.Broker(overrides, name="commit bench").start()
                try:
                    rate, p50, p99 = run_round(broker.bootstrap, committers, args.seconds)
                finally:
                    broker.stop()
                print("result workload=offset_commits mode=%s committers=%d commits_per_s=%.0f "
                      "p50_ms=%.2f p99_ms=%.2f" % (mode, committers, rate, p50, p99), flush=True)


if __name__ == "__main__":
    main()
