"""Helpers of the share-group tests (test_share_groups*.py): the real skiff binary, share
consumers from node/kafka_ts_share_consumer.mjs (kafka-ts 1.5's low-level share requests),
topics and records from confluent-kafka, and the invariants checked on the consumers' events.

The consumer script prints one JSON line per event; the ones checked here:
  {"event":"delivery","member","partition","offset","key","delivery_count","ack"}
  {"event":"ack","member","partition","first","last","types","error"}   (error 0: applied)
"""

import json
import os
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402
from test_node_platformatic import MIN_NODE, node_version  # noqa: E402

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_SRC = os.path.join(HERE, "node")
SCRIPT = "kafka_ts_share_consumer.mjs"

GAP, ACCEPT, RELEASE, REJECT = 0, 1, 2, 3
UNKNOWN_MEMBER_ID = 25
INVALID_RECORD_STATE = 121
SHARE_SESSION_NOT_FOUND = 122
INVALID_SHARE_SESSION_EPOCH = 123
SHARE_SESSION_LIMIT_REACHED = 133

# Kafka's group.share.min.record.lock.duration.ms is 15 s: lowered so that a test may set a
# group's share.record.lock.duration.ms to a second or two, as Kafka allows once the minimum is.
# Heartbeats every second (Kafka: 5 s, also the minimum) so that members take a new assignment
# soon after another joins.
SHORT_LOCKS = {"group.share.min.record.lock.duration.ms": "1000",
               "group.share.min.heartbeat.interval.ms": "500",
               "group.share.heartbeat.interval.ms": "1000"}


def install_clients():
    return npm_clients.install(NODE_SRC, "node-clients", (SCRIPT, "kafka_ts_share_bad_input.mjs"))


def create_topic(broker, topic, partitions):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    for f in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        f.result(timeout=20)


def produce(broker, topic, records, batch_each=False, batch_records=10000):
    """records: (partition, key, value) tuples; every one acknowledged or the test fails.
    batch_each: one record per batch (a flush after each), so that a fetch can acquire a
    single one; batch_records: at most that many records per batch (a share fetch acquires
    whole batches)."""
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5,
                  "batch.num.messages": batch_records})
    errors = []
    for partition, key, value in records:
        p.produce(topic, value, key, partition=partition,
                  on_delivery=lambda e, _m: e and errors.append(e))
        if batch_each:
            assert p.flush(30) == 0, "record not delivered"
    assert p.flush(30) == 0, "records not delivered"
    assert not errors, errors


class Consumers:
    """One node process running share consumers; its events as they come (a reader thread)."""

    def __init__(self, test, broker, config):
        self.events = []
        self.lock = threading.Lock()
        self.proc = skiff_harness.spawn(
            ["node", SCRIPT, "consume", broker.bootstrap, json.dumps(config)], cwd=test.dest,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                sys.stdout.write(line)
                continue
            with self.lock:
                self.events.append(ev)

    def count(self, event):
        with self.lock:
            return sum(1 for e in self.events if e["event"] == event)

    def wait(self, timeout_s=90):
        code = skiff_harness.reap(self.proc, timeout_s)
        if code is None:
            self.proc.kill()
            skiff_harness.reap(self.proc, 10)
        self.reader.join(10)
        err = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        if err:
            sys.stderr.write(err[-4000:])
        assert code == 0, "share consumers exited with %s" % code
        return self.events


def acks_by_record(events):
    """{(partition, offset): [(member, type, error)]} from the ack events."""
    out = {}
    for e in events:
        if e["event"] != "ack":
            continue
        types = e["types"]
        for i, o in enumerate(range(e["first"], e["last"] + 1)):
            t = types[0] if len(types) == 1 else types[i]
            out.setdefault((e["partition"], o), []).append((e["member"], t, e["error"]))
    return out


def deliveries_by_record(events):
    """{(partition, offset): [delivery event]}."""
    out = {}
    for e in events:
        if e["event"] == "delivery":
            out.setdefault((e["partition"], e["offset"]), []).append(e)
    return out


class ShareGroupTestBase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        version = node_version()
        if version is None:
            self.skipTest("SKIPPED: node is not installed")
        if version < MIN_NODE:
            self.skipTest("SKIPPED: node %s is older than %s, which the pinned clients need"
                          % (".".join(map(str, version)), ".".join(map(str, MIN_NODE))))
        self.dest = install_clients()

    def node(self, *args):
        proc = subprocess.run(["node", SCRIPT] + [str(a) for a in args], cwd=self.dest,
                              capture_output=True, text=True, timeout=120)
        sys.stderr.write(proc.stderr[-4000:])
        self.assertEqual(proc.returncode, 0, "%s %s failed:\n%s" % (SCRIPT, args[0], proc.stdout[-4000:]))
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        self.assertEqual(len(line), 1, "no RESULT line in:\n" + proc.stdout[-4000:])
        return json.loads(line[0][len("RESULT "):])

    def group_config(self, broker, group, **configs):
        """IncrementalAlterConfigs SET on the GROUP resource (kafka-ts); asserts it applied."""
        pairs = ["%s=%s" % (k.replace("_", "."), v) for k, v in configs.items()]
        r = self.node("group-config", broker.bootstrap, group, *pairs)
        self.assertEqual(r["error"], 0, "group config %s refused: %s" % (pairs, r.get("message")))

    def consume(self, broker, config, timeout_s=90):
        return Consumers(self, broker, config).wait(timeout_s)

    # ---- invariants ------------------------------------------------------------------------
    def assert_accepted_once(self, events, expected):
        """Every record in `expected` ((partition, offset) set) accepted exactly once (an applied
        ACCEPT), and none delivered after it was accepted (no delivery with a higher count).
        A record whose last delivery's ACCEPT was in flight when the broker died (outcome
        unknown, error -1) and that never came back counts as accepted once."""
        acks = acks_by_record(events)
        deliveries = deliveries_by_record(events)
        accepted = {r for r, a in acks.items() if any(t == ACCEPT and err == 0 for _m, t, err in a)}
        unknown = {r for r, a in acks.items()
                   if r not in accepted and a[-1][1] == ACCEPT and a[-1][2] == -1
                   and max(d["delivery_count"] for d in deliveries[r]) ==
                   max(d["delivery_count"] for d in deliveries[r] if d["member"] == a[-1][0])}
        if unknown:
            sys.stdout.write("records accepted while the broker died, not delivered again: %d\n"
                             % len(unknown & expected))
        self.assertEqual(sorted(expected - accepted - unknown), [], "records never accepted")
        for r in expected - unknown:
            applied = [(m, t) for m, t, err in acks[r] if err == 0 and t == ACCEPT]
            self.assertEqual(len(applied), 1, "record %s accepted %d times: %s"
                             % (r, len(applied), acks[r]))
            member = applied[0][0]
            counts = [d["delivery_count"] for d in deliveries[r]]
            mine = max(d["delivery_count"] for d in deliveries[r] if d["member"] == member)
            self.assertEqual(max(counts), mine, "record %s delivered again after %s accepted it: %s"
                             % (r, member, deliveries[r]))
            self.assertEqual(len(counts), len(set(counts)),
                             "record %s: a delivery count given twice: %s" % (r, deliveries[r]))
