"""Consumer groups from Python: kafka-python and confluent-kafka group consumers against skiff.

Each client subscribes with a group id, consumes part of a 4-partition topic, commits (with
metadata), the broker is restarted (kafka-python: SIGTERM; confluent-kafka: kill -9), and a new
consumer of the same group must read exactly the remaining messages: no gap, no duplicate. Also
checks what the group tools see (committed offsets with metadata, the group listed), and that a
restarted static member (group.instance.id) takes its old place without a rebalance.

Run as: /usr/bin/python3 test_groups_python.py /path/to/skiff
"""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from kafka import KafkaConsumer, TopicPartition as KpTopicPartition  # noqa: E402
from kafka.structs import OffsetAndMetadata  # noqa: E402
import kafka.errors  # noqa: E402

PARTITIONS = 4
OVERRIDES = {"num.partitions": PARTITIONS, "group.initial.rebalance.delay.ms": 0}


def produce(bootstrap, topic, start, end):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    failures = []
    for i in range(start, end):
        p.produce(topic, value=b"m%d" % i, partition=i % PARTITIONS,
                  on_delivery=lambda err, msg: failures.append(err) if err else None)
    assert p.flush(30) == 0
    assert not failures, failures


def expected(total):
    return {(i % PARTITIONS, i // PARTITIONS) for i in range(total)}


class GroupsTest(unittest.TestCase):
    def setUp(self):
        self.broker = skiff_harness.Broker(OVERRIDES, name="groups broker")
        self.broker.start()

    def tearDown(self):
        try:
            if self.broker.alive():
                self.broker.stop()
        finally:
            self.broker.cleanup()

    # ---- kafka-python ----------------------------------------------------------------------
    def kp_consumer(self, topic, group):
        return KafkaConsumer(topic, bootstrap_servers=self.broker.bootstrap, group_id=group,
                             auto_offset_reset="earliest", enable_auto_commit=False,
                             session_timeout_ms=6000, heartbeat_interval_ms=500,
                             consumer_timeout_ms=1000)

    def kp_consume(self, consumer, count, timeout_s=30.0):
        got = []
        deadline = time.monotonic() + timeout_s
        while len(got) < count and time.monotonic() < deadline:
            for tp, records in consumer.poll(timeout_ms=200).items():
                got.extend((r.partition, r.offset) for r in records)
        return got

    def test_kafka_python_group_commit_and_resume_after_sigterm(self):
        topic, group = "kp-groups", "kp-group"
        produce(self.broker.bootstrap, topic, 0, 100)
        c = self.kp_consumer(topic, group)
        first = self.kp_consume(c, 50)
        self.assertGreaterEqual(len(first), 50)
        last = {}
        for p, o in first:
            last[p] = max(last.get(p, -1), o)
        c.commit({KpTopicPartition(topic, p): OffsetAndMetadata(o + 1, "kp-meta")
                  for p, o in last.items()})
        self.assertEqual(c.committed(KpTopicPartition(topic, 0)), last[0] + 1)
        c.close()

        self.broker.restart(graceful=True)
        produce(self.broker.bootstrap, topic, 100, 120)
        c = self.kp_consumer(topic, group)
        rest = self.kp_consume(c, 120 - len(first))
        rest += self.kp_consume(c, 1, timeout_s=2.0)  # a duplicate would show up here
        c.close()
        seen = first + rest
        self.assertEqual(len(seen), len(set(seen)), "duplicates after resuming")
        self.assertEqual(set(seen), expected(120), "gap after resuming")

    # ---- confluent-kafka -------------------------------------------------------------------
    def ck_consumer(self, topic, group):
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": group,
                      "auto.offset.reset": "earliest", "enable.auto.commit": False,
                      "session.timeout.ms": 3000, "heartbeat.interval.ms": 300})
        c.subscribe([topic])
        return c

    def ck_consume(self, consumer, count, timeout_s=30.0):
        got = []
        deadline = time.monotonic() + timeout_s
        while len(got) < count and time.monotonic() < deadline:
            m = consumer.poll(0.2)
            if m is not None and m.error() is None:
                got.append((m.partition(), m.offset()))
        return got

    def test_confluent_kafka_group_commit_and_resume_after_kill_9(self):
        topic, group = "ck-groups", "ck-group"
        produce(self.broker.bootstrap, topic, 0, 100)
        c = self.ck_consumer(topic, group)
        first = self.ck_consume(c, 70)
        self.assertEqual(len(first), 70)
        committed = c.commit(asynchronous=False)
        self.assertTrue(all(tp.error is None for tp in committed), committed)
        # Read back through OffsetFetch: what was committed, per partition.
        last = {}
        for p, o in first:
            last[p] = max(last.get(p, -1), o)
        back = c.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=10)
        for tp in back:
            self.assertEqual(tp.offset, last[tp.partition] + 1 if tp.partition in last else -1001)
        c.close()  # no auto commit: leaving writes nothing more
        self.broker.kill()  # a crash right after the acknowledged commit

        self.broker.start()
        produce(self.broker.bootstrap, topic, 100, 130)
        c = self.ck_consumer(topic, group)
        rest = self.ck_consume(c, 130 - 70)
        rest += self.ck_consume(c, 1, timeout_s=2.0)
        c.close()
        seen = first + rest
        self.assertEqual(len(seen), len(set(seen)), "duplicates after resuming")
        self.assertEqual(set(seen), expected(130), "gap after resuming")
        self.assertIn("group ck-group: rebalanced to generation", self.broker.log_text())



class StaticMembershipTest(unittest.TestCase):
    """KIP-345 with librdkafka: a static member (group.instance.id) closes, which sends no
    LeaveGroup, and a new process with the same instance id subscribes. It must get its old
    partitions back before session.timeout.ms, and the other member must see no rebalance."""

    SESSION_TIMEOUT_MS = 6000

    def setUp(self):
        self.broker = skiff_harness.Broker(OVERRIDES, name="static-membership broker")
        self.broker.start()

    def tearDown(self):
        try:
            if self.broker.alive():
                self.broker.stop()
        finally:
            self.broker.cleanup()

    def static_consumer(self, topic, instance, events):
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "static-group",
                      "group.instance.id": instance, "auto.offset.reset": "earliest",
                      "enable.auto.commit": False,
                      "session.timeout.ms": self.SESSION_TIMEOUT_MS,
                      "heartbeat.interval.ms": 300})

        def on_assign(consumer, partitions):
            events.append(("assign", sorted(tp.partition for tp in partitions)))

        def on_revoke(consumer, partitions):
            events.append(("revoke", sorted(tp.partition for tp in partitions)))

        c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
        return c

    @staticmethod
    def assigned(consumer):
        return sorted(tp.partition for tp in consumer.assignment())

    def poll_until(self, consumers, done, timeout_s):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for c in consumers:
                c.poll(0.1)
            if done():
                return True
        return False

    def test_restarted_static_member_gets_its_partitions_back_without_rebalance(self):
        topic = "static-topic"
        produce(self.broker.bootstrap, topic, 0, 8)
        a_events, b_events = [], []
        a = self.static_consumer(topic, "instance-a", a_events)
        b = self.static_consumer(topic, "instance-b", b_events)
        both = self.poll_until(
            [a, b], lambda: self.assigned(a) and self.assigned(b) and
            len(self.assigned(a)) + len(self.assigned(b)) == PARTITIONS, 30)
        self.assertTrue(both, "the two static members did not share the partitions")
        b_partitions = self.assigned(b)
        a_events.clear()

        started = time.monotonic()
        b.close()  # a static member sends no LeaveGroup
        b_events = []
        b = self.static_consumer(topic, "instance-b", b_events)
        back = self.poll_until([a, b], lambda: self.assigned(b), 30)
        elapsed = time.monotonic() - started
        self.assertTrue(back, "the restarted static member got no assignment")
        self.assertEqual(self.assigned(b), b_partitions)
        self.assertLess(elapsed, self.SESSION_TIMEOUT_MS / 1000.0,
                        "the restart waited for the old member's session to expire")
        self.poll_until([a, b], lambda: False, 1.0)  # a late revoke would show up here
        self.assertEqual(a_events, [], "the other member was rebalanced")
        self.assertEqual(b_events, [("assign", b_partitions)])
        a.close()
        b.close()
        self.assertIn("static member instance-b restarted", self.broker.log_text())


class OffsetMetadataLimitTest(unittest.TestCase):
    """offset.metadata.max.bytes: a longer metadata string is refused with
    OFFSET_METADATA_TOO_LARGE and the previous commit stays; one at the limit is kept."""

    def setUp(self):
        self.broker = skiff_harness.Broker(dict(OVERRIDES, **{"offset.metadata.max.bytes": 100}),
                                           name="metadata-limit broker")
        self.broker.start()

    def tearDown(self):
        try:
            if self.broker.alive():
                self.broker.stop()
        finally:
            self.broker.cleanup()

    def test_metadata_over_the_limit_is_refused_and_the_last_commit_stays(self):
        topic, group = "kp-meta-limit", "kp-meta-group"
        produce(self.broker.bootstrap, topic, 0, 8)
        c = KafkaConsumer(bootstrap_servers=self.broker.bootstrap, group_id=group,
                          enable_auto_commit=False)
        tp = KpTopicPartition(topic, 0)
        c.assign([tp])
        c.commit({tp: OffsetAndMetadata(1, "m" * 100)})
        self.assertEqual(c.committed(tp), 1)
        with self.assertRaises(kafka.errors.OffsetMetadataTooLargeError):
            c.commit({tp: OffsetAndMetadata(2, "m" * 101)})
        self.assertEqual(c.committed(tp), 1)
        c.close()

if __name__ == "__main__":
    skiff_harness.run_tests()
