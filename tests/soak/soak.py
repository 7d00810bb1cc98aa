#!/usr/bin/env python3
"""kill -9 soak test: skiff is killed at random moments under load and restarted on the same
data directory, N times; at the end nothing acknowledged is lost, duplicated or reordered.

    /usr/bin/python3 tests/soak/soak.py build/broker/skiff [--cycles 50] [--partitions 4]
                     [--min-up 1.0] [--max-up 4.0] [--seed N] [--durable]

--durable runs the broker in durable mode (log.flush.interval.messages=1: group commit).

--power-cut FIFO --data-dir DIR: a power cut after each kill, on LazyFS (dsrhaslab/lazyfs, a FUSE
file system that drops every unsynced byte on command; not part of skiff, built and mounted
outside this repository): DIR is on its mount, FIFO its faults FIFO, and "lazyfs::clear-cache"
is written to it between the kill and the restart. With --power-cut-done FIFO2 (LazyFS's
fifo_path_completed) the restart waits for LazyFS to confirm. Durable mode only: every check
below holds across power cuts there. (The default mode may lose what was acknowledged since the
last fsync, as it promises; its idempotent producer then meets sequence errors, which this load
does not model.)

Load: an idempotent acks=all producer (librdkafka through confluent-kafka) writing
sequence-numbered messages ("<partition>:<seq>") to every partition, and a group consumer that
commits synchronously after every message batch it reads. Each cycle waits a random time, kills
the broker with SIGKILL and restarts it on the same port and data directory, timing the restart
from exec to the first answered ApiVersions.

Checked at the end:
  - every acknowledged message is in its partition exactly once, and each partition holds its
    sequence numbers in order with nothing else;
  - committed offsets never went backwards: after every restart the group's committed offsets
    are at least what the consumer had successfully committed before the kill, and never past
    the end of the log;
  - `skiff dump-log --verify` is clean on every partition directory.
Prints each cycle's restart time and exits non-zero on any violation.
"""

import argparse
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import skiff_harness  # noqa: E402
from skiff_harness import api_versions_answered, free_port  # noqa: E402

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition  # noqa: E402

TOPIC = "soak"
GROUP = "soak-group"


class Load:
    """The producer and consumer threads and what they saw."""

    def __init__(self, bootstrap, partitions):
        self.partitions = partitions
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.acked = {p: set() for p in range(partitions)}  # partition -> acknowledged seqs
        self.failed = 0  # deliveries that reported an error (not acknowledged)
        self.fatal = None
        self.committed = {p: -1 for p in range(partitions)}  # successfully committed offsets
        self.consumed = 0
        self.producer = Producer({
            "bootstrap.servers": bootstrap, "broker.address.family": "v4",
            "enable.idempotence": True, "acks": "all", "linger.ms": 5,
            "message.timeout.ms": 300000, "reconnect.backoff.max.ms": 200, "log_level": 2,
        })
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "broker.address.family": "v4", "group.id": GROUP,
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "session.timeout.ms": 10000, "reconnect.backoff.max.ms": 200, "log_level": 2,
        })
        self.threads = [threading.Thread(target=self.produce, daemon=True),
                        threading.Thread(target=self.consume, daemon=True)]

    def start(self):
        for t in self.threads:
            t.start()

    def on_delivery(self, err, msg):
        with self.lock:
            if err is not None:
                self.failed += 1
                if err.fatal():
                    self.fatal = str(err)
                return
            p, seq = msg.value().decode().split(":")
            self.acked[int(p)].add(int(seq))

    def produce(self):
        seq = [0] * self.partitions
        while not self.stop.is_set():
            for p in range(self.partitions):
                for _ in range(10):
                    try:
                        self.producer.produce(TOPIC, value=("%d:%d" % (p, seq[p])).encode(),
                                              partition=p, on_delivery=self.on_delivery)
                        seq[p] += 1
                    except BufferError:  # the queue is full while the broker is down
                        self.producer.poll(0.05)
            self.producer.poll(0)
            time.sleep(0.005)
        self.producer.flush(300)

    def consume(self):
        self.consumer.subscribe([TOPIC])
        while not self.stop.is_set():
            msgs = self.consumer.consume(500, 0.2)
            if not msgs:
                continue
            self.consumed += len([m for m in msgs if not m.error()])
            try:
                offsets = self.consumer.commit(asynchronous=False)
            except KafkaException:
                continue  # the broker is down: commit again after the next batch
            with self.lock:
                for tp in offsets or []:
                    if tp.error is None and tp.offset >= 0:
                        self.committed[tp.partition] = max(self.committed[tp.partition], tp.offset)
        self.consumer.close()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(330)


def committed_offsets(bootstrap, partitions):
    """The group's committed offsets as OffsetFetch returns them (without joining the group)."""
    c = Consumer({"bootstrap.servers": bootstrap, "broker.address.family": "v4", "group.id": GROUP,
                  "log_level": 2})
    try:
        tps = c.committed([TopicPartition(TOPIC, p) for p in range(partitions)], timeout=30)
        return {tp.partition: tp.offset for tp in tps}
    finally:
        c.close()


def log_ends(bootstrap, partitions):
    """Each partition's high watermark."""
    c = Consumer({"bootstrap.servers": bootstrap, "broker.address.family": "v4",
                  "group.id": "soak-ends", "log_level": 2})
    try:
        return {p: c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=30)[1]
                for p in range(partitions)}
    finally:
        c.close()


def cut_power(fifo, done_fifo):
    """LazyFS's clear-cache: every byte not fsynced is gone, as after a power cut."""
    with open(fifo, "w") as f:
        f.write("lazyfs::clear-cache\n")
    if done_fifo:
        with open(done_fifo) as f:
            f.readline()
    else:
        time.sleep(1.0)


def read_partitions(bootstrap, partitions, expected):
    """Every message of every partition, from the beginning, as (partition, seq) in log order."""
    c = Consumer({"bootstrap.servers": bootstrap, "broker.address.family": "v4",
                  "group.id": "soak-verifier", "enable.auto.commit": False, "log_level": 2})
    out = {p: [] for p in range(partitions)}
    try:
        c.assign([TopicPartition(TOPIC, p, 0) for p in range(partitions)])
        total = sum(expected.values())
        got = 0
        idle_deadline = time.monotonic() + 30
        while got < total and time.monotonic() < idle_deadline:
            for m in c.consume(1000, 0.5):
                if m.error():
                    continue
                p, seq = m.value().decode().split(":")
                out[int(p)].append(int(seq))
                got += 1
                idle_deadline = time.monotonic() + 30
        # Drain a little longer: anything beyond the expected count is a duplicate to report.
        for m in c.consume(1000, 2.0):
            if not m.error():
                p, seq = m.value().decode().split(":")
                out[int(p)].append(int(seq))
    finally:
        c.close()
    return out


def main(argv=None, cut=None):
    """`cut`, from another driver of power cuts (loop_power_cut.py): called between each kill and
    the restart in place of LazyFS's clear-cache."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("skiff")
    ap.add_argument("--cycles", type=int, default=5)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--min-up", type=float, default=1.0, help="shortest time between kills (s)")
    ap.add_argument("--max-up", type=float, default=4.0, help="longest time between kills (s)")
    ap.add_argument("--segment-bytes", type=int, default=1 << 20)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--durable", action="store_true",
                    help="durable mode: log.flush.interval.messages=1 (group commit)")
    ap.add_argument("--power-cut", metavar="FIFO", help="LazyFS's faults FIFO (see above)")
    ap.add_argument("--power-cut-done", metavar="FIFO", help="LazyFS's fifo_path_completed")
    ap.add_argument("--data-dir", help="the data directory (on the LazyFS mount)")
    args = ap.parse_args(argv)
    if (args.power_cut or cut) and not (args.data_dir and args.durable):
        ap.error("power cuts need --durable and --data-dir on the cut file system")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    skiff_harness._binary = os.path.abspath(args.skiff)

    port = free_port()
    broker = skiff_harness.Broker({
        "listeners": "PLAINTEXT://127.0.0.1:%d" % port,
        "num.partitions": args.partitions,
        "log.segment.bytes": args.segment_bytes,
        "group.initial.rebalance.delay.ms": 0,
        **({"log.flush.interval.messages": 1} if args.durable else {}),
    }, name="soak broker")
    if args.data_dir:
        broker.data_dir = args.data_dir
    print("soak: %d cycles, %d partitions, seed %d, data in %s"
          % (args.cycles, args.partitions, seed, broker.data_dir), flush=True)
    problems = []
    restart_s = []
    try:
        broker.start()
        load = Load(broker.bootstrap, args.partitions)
        load.start()
        # The first kill only once the load's topic exists (its first produce creates it):
        # killed before, the restart has no such topic and the checks below cannot ask about it.
        skiff_harness.wait_until(lambda: all(load.acked.values()), 60,
                                 what="a message acknowledged in every partition")
        for cycle in range(1, args.cycles + 1):
            time.sleep(rng.uniform(args.min_up, args.max_up))
            with load.lock:
                before = dict(load.committed)
            broker.kill()
            if cut:
                cut()
            elif args.power_cut:
                cut_power(args.power_cut, args.power_cut_done)
            t0 = time.monotonic()
            broker.start()
            skiff_harness.wait_until(lambda: api_versions_answered(port), 120,
                                     what="ApiVersions after restart")
            restart_s.append(time.monotonic() - t0)
            after = committed_offsets(broker.bootstrap, args.partitions)
            ends = log_ends(broker.bootstrap, args.partitions)
            for p, off in before.items():
                if off >= 0 and after.get(p, -1) < off:
                    problems.append("cycle %d: committed offset of partition %d went back from %d to %d"
                                    % (cycle, p, off, after.get(p, -1)))
                if after.get(p, -1) > ends[p]:
                    problems.append("cycle %d: committed offset %d of partition %d is past the "
                                    "log end %d" % (cycle, after[p], p, ends[p]))
            with load.lock:
                acked = sum(len(s) for s in load.acked.values())
            print("cycle %3d: restart %.3f s, %d acknowledged, %d consumed so far"
                  % (cycle, restart_s[-1], acked, load.consumed), flush=True)
        load.finish()
        if load.fatal:
            problems.append("the producer hit a fatal error: %s" % load.fatal)

        expected = {p: len(s) for p, s in load.acked.items()}
        logs = read_partitions(broker.bootstrap, args.partitions, expected)
        for p in range(args.partitions):
            seqs = logs[p]
            acked = load.acked[p]
            missing = acked - set(seqs)
            if missing:
                problems.append("partition %d: %d acknowledged messages missing (first %s)"
                                % (p, len(missing), sorted(missing)[:5]))
            if len(seqs) != len(set(seqs)):
                problems.append("partition %d: %d duplicates" % (p, len(seqs) - len(set(seqs))))
            if seqs != sorted(seqs):
                problems.append("partition %d: sequence numbers out of order" % p)
            if seqs and seqs != list(range(len(seqs))):
                problems.append("partition %d: holds sequences other than 0..%d" % (p, len(seqs) - 1))
        broker.stop()
        for p in range(args.partitions):
            try:
                broker.verify_log(TOPIC, p)
            except skiff_harness.BrokerError as e:
                problems.append(str(e))
        total = sum(expected.values())
        print("soak: %d cycles, %d messages acknowledged, %d delivery errors, all read back: %s"
              % (args.cycles, total, load.failed, "no" if problems else "yes"))
        if restart_s:
            ordered = sorted(restart_s)
            print("restart after kill -9 (exec to ApiVersions): min %.3f s, median %.3f s, max %.3f s"
                  % (ordered[0], ordered[len(ordered) // 2], ordered[-1]))
    except Exception as e:  # report with the broker's log below
        problems.append("soak aborted: %r" % e)
    finally:
        broker.kill()
    if problems:
        for p in problems:
            print("FAIL:", p)
        skiff_harness.dump_all_logs(tail_lines=80)
        broker.cleanup()
        print("0 passed, 1 failed")
        return 1
    broker.cleanup()
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
