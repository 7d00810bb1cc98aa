"""Log compaction (cleanup.policy=compact) against the real skiff binary.

    /usr/bin/python3 test_compaction.py /path/to/skiff

Keyed updates and tombstones go into a compacted topic with 4 KiB segments from both
confluent-kafka and kafka-python; the broker's cleaner (log.cleaner.backoff.ms=100) compacts it.
A consumer from the beginning then sees, for every key, only its latest value, at the offset the
producer was told when it was written; a tombstone stays until delete.retention.ms has passed
and the log is cleaned again, then the key is gone. The partition still passes
`skiff dump-log --verify` (gaps in its offsets are fine), cleaner-offset-checkpoint records the
progress, and everything survives a graceful restart and a kill -9. An idempotent producer's
last batch whose records were all replaced stays as an empty batch, and kafka-python reads past
it as confluent-kafka does. A consumer reading the topic
from the beginning in a loop while it is being cleaned never gets an error, and every record it
reads is one that was produced at that offset.
"""

import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from kafka import KafkaConsumer, KafkaProducer  # noqa: E402
from kafka import TopicPartition as KafkaTopicPartition  # noqa: E402

TIMEOUT_S = 20
KEYS = 40
ROUNDS = 10
DELETED = 10  # keys k0..k9 get a tombstone
VALUE_PAD = b"x" * 180


def key_of(i):
    return b"k%02d" % i


def value_of(i, r):
    return b"k%02d-r%02d-" % (i, r) + VALUE_PAD


class Written:
    """What the producers were told: offset -> (key, value)."""

    def __init__(self):
        self.at = {}
        self.lock = threading.Lock()

    def add(self, offset, key, value):
        with self.lock:
            self.at[offset] = (key, value)

    def latest_by_key(self):
        latest = {}
        for offset in sorted(self.at):
            key, value = self.at[offset]
            latest[key] = (offset, value)
        return latest


class CompactionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"num.partitions": 1, "log.cleaner.backoff.ms": 100},
                                          name="compaction broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        cls.broker.stop()
        cls.broker.cleanup()

    def create(self, topic, extra=None):
        config = {"cleanup.policy": "compact", "segment.bytes": "4096",
                  "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "1000"}
        config.update(extra or {})
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        fs = admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1,
                                           config=config)])
        fs[topic].result(timeout=TIMEOUT_S)

    # ---- producing ---------------------------------------------------------------------------
    def produce_confluent(self, topic, records, written):
        errors = []

        def on_delivery(err, msg):
            if err:
                errors.append(err)
            else:
                written.add(msg.offset(), msg.key(), msg.value())

        p = Producer({"bootstrap.servers": self.broker.bootstrap, "linger.ms": 5,
                      "enable.idempotence": True})
        for key, value in records:
            p.produce(topic, key=key, value=value, partition=0, on_delivery=on_delivery)
        self.assertEqual(p.flush(TIMEOUT_S), 0)
        self.assertEqual(errors, [])

    def produce_kafka_python(self, topic, records, written):
        p = KafkaProducer(bootstrap_servers=self.broker.bootstrap, linger_ms=5)
        try:
            futures = [(p.send(topic, key=key, value=value, partition=0), key, value)
                       for key, value in records]
            p.flush(TIMEOUT_S)
            for f, key, value in futures:
                written.add(f.get(timeout=TIMEOUT_S).offset, key, value)
        finally:
            p.close(TIMEOUT_S)

    def write_updates(self, topic, written):
        for r in range(ROUNDS):
            records = [(key_of(i), value_of(i, r)) for i in range(KEYS)]
            if r % 2 == 0:
                self.produce_confluent(topic, records, written)
            else:
                self.produce_kafka_python(topic, records, written)
        tombstones = [(key_of(i), None) for i in range(DELETED)]
        self.produce_kafka_python(topic, tombstones[: DELETED // 2], written)
        self.produce_confluent(topic, tombstones[DELETED // 2:], written)

    def write_filler(self, topic, written, tag):
        # Other keys, enough to roll a few segments: everything before them leaves the active
        # segment and becomes cleanable.
        records = [(b"filler-%s-%d" % (tag, i % 3), VALUE_PAD) for i in range(60)]
        self.produce_confluent(topic, records, written)

    # ---- consuming ---------------------------------------------------------------------------
    def read_all(self, topic):
        """Every record from offset 0 to the high watermark: [(offset, key, value)]."""
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "reader-" + topic,
                      "enable.auto.commit": False, "enable.partition.eof": True})
        try:
            low, high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=TIMEOUT_S)
            c.assign([TopicPartition(topic, 0, 0)])
            got = []
            deadline = time.monotonic() + TIMEOUT_S
            while time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is None:
                    continue
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        if m.offset() >= high:
                            return got
                        continue
                    raise AssertionError("consumer error: %s" % m.error())
                got.append((m.offset(), m.key(), m.value()))
            raise AssertionError("reading %s to offset %d timed out" % (topic, high))
        finally:
            c.close()

    def read_all_kafka_python(self, topic):
        """The same as read_all, with kafka-python's consumer."""
        c = KafkaConsumer(bootstrap_servers=self.broker.bootstrap, enable_auto_commit=False,
                          consumer_timeout_ms=2000)
        try:
            tp = KafkaTopicPartition(topic, 0)
            c.assign([tp])
            c.seek_to_beginning(tp)
            high = c.end_offsets([tp])[tp]
            got = []
            deadline = time.monotonic() + TIMEOUT_S
            while c.position(tp) < high and time.monotonic() < deadline:
                for records in c.poll(timeout_ms=500).values():
                    got.extend((m.offset, m.key, m.value) for m in records)
            self.assertGreaterEqual(c.position(tp), high, "kafka-python read to the end")
            return got
        finally:
            c.close()

    def batches_on_disk(self, topic):
        """Every batch `skiff dump-log` lists in the partition's .log files, as dicts."""
        d = self.broker.partition_dir(topic, 0)
        batches = []
        for name in sorted(os.listdir(d)):
            if not name.endswith(".log"):
                continue
            for line in self.broker.dump_log(os.path.join(d, name)).splitlines():
                if line.startswith("baseOffset:"):
                    words = line.split()
                    batches.append({words[i].rstrip(":"): words[i + 1]
                                    for i in range(0, len(words) - 1, 2)})
        return batches

    def assert_compacted(self, topic, written, tombstones_gone):
        records = self.read_all(topic)
        offsets = [o for o, _, _ in records]
        self.assertEqual(offsets, sorted(set(offsets)), "offsets increase, each once")
        for offset, key, value in records:
            self.assertEqual(written.at.get(offset), (key, value),
                             "offset %d holds what was produced there" % offset)
        latest = written.latest_by_key()
        seen = {}
        for offset, key, value in records:
            if key.startswith(b"k"):
                seen.setdefault(key, []).append((offset, value))
        for i in range(KEYS):
            key = key_of(i)
            offset, value = latest[key]
            if value is None and tombstones_gone:
                self.assertNotIn(key, seen, "deleted key %r is gone" % key)
            else:
                self.assertEqual(seen.get(key), [(offset, value)],
                                 "only the latest record of %r, at its offset" % key)
        return records

    def cleaned(self, topic):
        records = self.read_all(topic)
        keys = [k for _, k, _ in records if k.startswith(b"k")]
        return len(keys) == len(set(keys))

    # ---- tests -------------------------------------------------------------------------------
    def test_latest_value_per_key_tombstones_then_gone(self):
        topic = "compacted"
        self.create(topic)
        written = Written()
        self.write_updates(topic, written)
        self.write_filler(topic, written, b"a")
        skiff_harness.wait_until(lambda: self.cleaned(topic), TIMEOUT_S, 0.2,
                                 "the cleaner to compact %s" % topic)
        self.assert_compacted(topic, written, tombstones_gone=False)
        self.broker.verify_log(topic, 0)
        # The idempotent producers of the early rounds lost every record of their last batches
        # to later rounds: those batches stay as empty ones (producer id and sequence kept), and
        # both clients read past them.
        empty = [b for b in self.batches_on_disk(topic) if b["count"] == "0"]
        self.assertTrue(empty, "an empty batch of an idempotent producer")
        for b in empty:
            self.assertNotEqual(b["producerId"], "-1", b)
            self.assertEqual(b["size"], "61", b)
        self.assertEqual(self.read_all_kafka_python(topic), self.read_all(topic))
        checkpoint = os.path.join(self.broker.data_dir, "cleaner-offset-checkpoint")
        with open(checkpoint) as f:
            lines = f.read().split("\n")
        self.assertTrue(any(line.startswith(topic + " 0 ") for line in lines), lines)

        # delete.retention.ms (1 s) after the clean, the next clean drops the tombstones.
        time.sleep(1.5)
        self.write_filler(topic, written, b"b")

        def tombstones_gone():
            keys = {k for _, k, _ in self.read_all(topic)}
            return not any(key_of(i) in keys for i in range(DELETED))

        skiff_harness.wait_until(tombstones_gone, TIMEOUT_S, 0.2, "the tombstones to go")
        self.assert_compacted(topic, written, tombstones_gone=True)
        self.broker.verify_log(topic, 0)

        # Both kinds of restart keep exactly what the cleaner left.
        before = self.read_all(topic)
        self.broker.restart(graceful=True)
        self.assertEqual(self.read_all(topic), before)
        self.broker.restart(graceful=False)
        self.assertEqual(self.read_all(topic), before)
        self.broker.verify_log(topic, 0)

    def test_reader_during_cleaning_sees_no_error(self):
        topic = "compacted-busy"
        # Tombstones stay for the whole test: the final check expects each one once.
        self.create(topic, {"delete.retention.ms": "600000"})
        written = Written()
        stop = threading.Event()
        problems = []
        passes = [0]

        def reader():
            while not stop.is_set():
                try:
                    for offset, key, value in self.read_all(topic):
                        if key is not None and written.at.get(offset, (key, value)) != (key,
                                                                                        value):
                            problems.append("offset %d: %r" % (offset, key))
                    passes[0] += 1
                except Exception as e:  # any consumer error fails the test
                    problems.append(repr(e))
                    return

        t = threading.Thread(target=reader)
        t.start()
        try:
            for _ in range(3):
                self.write_updates(topic, written)
                self.write_filler(topic, written, b"c")
            skiff_harness.wait_until(lambda: self.cleaned(topic), TIMEOUT_S, 0.2,
                                     "the cleaner to compact %s" % topic)
        finally:
            stop.set()
            t.join(TIMEOUT_S * 2)
        self.assertEqual(problems, [])
        self.assertGreater(passes[0], 0)
        self.assert_compacted(topic, written, tombstones_gone=False)
        self.broker.verify_log(topic, 0)


if __name__ == "__main__":
    skiff_harness.run_tests()
