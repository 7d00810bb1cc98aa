#!/usr/bin/python3
"""Transactions per second and their latency, one message each, in durable mode or the default.

    /usr/bin/python3 tests/bench/concurrent_transactions.py SKIFF [--producers 1,10] [--seconds 5]
                     [--rounds 2] [--mode durable,default] [--partitions 1]

Each round starts a fresh skiff (a temporary data directory, an ephemeral port; durable mode is
log.flush.interval.messages=1) and creates the topic by producing one message to it without a
transaction. Then N confluent-kafka producers, each with a transactional.id of its own and in a
thread of its own, run init_transactions() and one warm-up transaction, and all at once loop for
the given time: begin_transaction(), produce() one 100-byte message (a producer's i-th message
to partition i % partitions), commit_transaction(). Latency is begin_transaction() to the return
of commit_transaction(). After the round a read_committed consumer reads the topic back (for at
most --verify-seconds) and must find exactly the messages of the committed transactions, the
warm-ups included, plus the one that created the topic; otherwise this exits non-zero. Prints
one line per round:

    result workload=transactions mode=durable producers=10 partitions=1 txns_per_s=... p50_ms=...
"""
import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import skiff_harness  # noqa: E402
from latency_stats import percentile  # noqa: E402

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition  # noqa: E402

TOPIC = "txns"
VALUE = b"x" * 100
TIMEOUT_S = 30  # for init_transactions() and commit_transaction()


def read_committed(bootstrap, partitions, expected, seconds):
    """How many records a read_committed consumer reads from the start of every partition, until
    it has reached the end of all of them with at least `expected` read, or for `seconds` at
    most."""
    c = Consumer({"bootstrap.servers": bootstrap, "broker.address.family": "v4",
                  "group.id": "txn-verify", "enable.auto.commit": False,
                  "isolation.level": "read_committed", "enable.partition.eof": True})
    try:
        c.assign([TopicPartition(TOPIC, p, 0) for p in range(partitions)])
        count, at_end = 0, set()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is None:
                continue
            if m.error():
                if m.error().code() != KafkaError._PARTITION_EOF:
                    raise SystemExit("transactions bench: read-back failed: %s" % m.error())
                at_end.add(m.partition())
                if len(at_end) == partitions and count >= expected:
                    break
                continue
            at_end.discard(m.partition())
            count += 1
        return count
    finally:
        c.close()


def run_round(bootstrap, producers, partitions, seconds, verify_seconds):
    p = Producer({"bootstrap.servers": bootstrap, "broker.address.family": "v4"})
    p.produce(TOPIC, value=b"create", partition=0)
    if p.flush(30) != 0:
        raise SystemExit("transactions bench: could not create topic %s" % TOPIC)
    latencies = [[] for _ in range(producers)]
    committed = [0] * producers  # warm-ups included
    errors = []
    ready = threading.Barrier(producers + 1)

    def txn_loop(n):
        try:
            tp = Producer({"bootstrap.servers": bootstrap, "broker.address.family": "v4",
                           "transactional.id": "txn-bench-%d" % n})
            tp.init_transactions(TIMEOUT_S)
            i = 0
            tp.begin_transaction()  # warm-up: connections, AddPartitionsToTxn paths
            tp.produce(TOPIC, value=VALUE, partition=i % partitions)
            tp.commit_transaction(TIMEOUT_S)
            committed[n] += 1
            i += 1
            ready.wait()
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                t = time.perf_counter()
                tp.begin_transaction()
                tp.produce(TOPIC, value=VALUE, partition=i % partitions)
                tp.commit_transaction(TIMEOUT_S)
                latencies[n].append(time.perf_counter() - t)
                committed[n] += 1
                i += 1
        except threading.BrokenBarrierError:
            pass  # another producer failed before the start: it reports why
        except Exception as e:
            errors.append("producer %d: %s" % (n, e))
            ready.abort()  # nobody waits for this one at the barrier

    threads = [threading.Thread(target=txn_loop, args=(n,)) for n in range(producers)]
    for t in threads:
        t.start()
    try:
        ready.wait()
    except threading.BrokenBarrierError:
        pass
    for t in threads:
        t.join()
    if errors:
        raise SystemExit("transactions bench: " + "; ".join(errors))
    expected = sum(committed) + 1  # the record that created the topic is read back too
    read = read_committed(bootstrap, partitions, expected, verify_seconds)
    if read != expected:
        raise SystemExit("transactions bench: read_committed read %d records back, expected %d "
                         "(%d committed transactions and the topic's first record)"
                         % (read, expected, expected - 1))
    samples = sorted(x for per in latencies for x in per)
    return len(samples) / seconds, percentile(samples, 0.5) * 1e3, percentile(samples, 0.99) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("skiff")
    ap.add_argument("--producers", default="1,10")
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--mode", default="durable,default")
    ap.add_argument("--partitions", type=int, default=1)
    ap.add_argument("--verify-seconds", type=float, default=30)
    args = ap.parse_args()
    skiff_harness._binary = os.path.abspath(args.skiff)
    for _ in range(args.rounds):
        for mode in args.mode.split(","):
            for producers in (int(n) for n in args.producers.split(",")):
                overrides = {"num.partitions": args.partitions}
                if mode == "durable":
                    overrides["log.flush.interval.messages"] = 1
                broker = skiff_harness.Broker(overrides, name="transactions bench").start()
                try:
                    rate, p50, p99 = run_round(broker.bootstrap, producers, args.partitions,
                                               args.seconds, args.verify_seconds)
                finally:
                    broker.stop()
                    broker.cleanup()
                print("result workload=transactions mode=%s producers=%d partitions=%d "
                      "txns_per_s=%.0f p50_ms=%.2f p99_ms=%.2f verified=yes"
                      % (mode, producers, args.partitions, rate, p50, p99), flush=True)


if __name__ == "__main__":
    main()
