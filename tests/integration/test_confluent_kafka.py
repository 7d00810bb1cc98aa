"""confluent-kafka-python (librdkafka 2.0.2) against the real skiff binary.

    /usr/bin/python3 test_confluent_kafka.py /path/to/skiff

Checks: a Producer (acks=all, linger.ms) delivers 2000 keyed records with headers to a
3-partition topic with contiguous per-partition offsets in produce order; a Consumer reads them
back exactly once, in order, with identical keys/values/headers/timestamps. skiff has no group
coordinator, so the Consumer gets a group.id (librdkafka requires one) but only ever uses
assign() with explicit offsets and enable.auto.commit=False. Also get_watermark_offsets,
offsets_for_times on explicit CreateTime timestamps, and a round trip per compression codec
(gzip, snappy, lz4, zstd) including reads that start in the middle of a compressed batch and a
check that the stored log really holds compressed batches.
"""

import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402

PARTITIONS = 3


class ConfluentKafkaTest(unittest.TestCase):
    broker = None

    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"num.partitions": PARTITIONS}, name="confluent-kafka broker")
        cls.broker.start()
        cls.client_errors = []

    @classmethod
    def tearDownClass(cls):
        try:
            cls.broker.stop()  # SIGTERM, exit code 0
        finally:
            cls.broker.cleanup()
        if cls.client_errors:
            sys.stderr.write("librdkafka error_cb reports (informational):\n")
            for e in cls.client_errors[:20]:
                sys.stderr.write("  %s\n" % e)

    # ---- helpers ---------------------------------------------------------------------------
    def _error_cb(self, err):
        self.client_errors.append(str(err))

    def producer(self, **extra):
        conf = {"bootstrap.servers": self.broker.bootstrap, "client.id": "skiff-it-ck",
                "acks": "all", "linger.ms": 20, "message.timeout.ms": 30000,
                "broker.address.family": "v4", "error_cb": self._error_cb}
        conf.update(extra)
        return Producer(conf)

    def consumer(self):
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "client.id": "skiff-it-ck",
                      "group.id": "skiff-it-unused-group", "enable.auto.commit": False,
                      "enable.auto.offset.store": False, "auto.offset.reset": "error",
                      "broker.address.family": "v4", "error_cb": self._error_cb})
        self.addCleanup(c.close)
        return c

    def produce_all(self, producer, messages):
        """messages: list of dicts for Producer.produce. Returns delivery reports in send order."""
        reports = [None] * len(messages)

        def on_delivery(i):
            def cb(err, msg):
                reports[i] = (err, msg.partition(), msg.offset(), msg.timestamp())
            return cb

        for i, m in enumerate(messages):
            deadline = time.monotonic() + 30
            while True:
                try:
                    producer.produce(on_delivery=on_delivery(i), **m)
                    break
                except BufferError:
                    if time.monotonic() > deadline:
                        raise
                    producer.poll(0.1)
            producer.poll(0)
        self.assertEqual(producer.flush(30), 0, "messages still undelivered after flush(30)")
        for i, r in enumerate(reports):
            self.assertIsNotNone(r, "no delivery report for message %d" % i)
            self.assertIsNone(r[0], "delivery of message %d failed: %s" % (i, r[0]))
        return reports

    def consume_exactly(self, consumer, expected_total, timeout_s=30.0):
        got = {}
        count = 0
        deadline = time.monotonic() + timeout_s

        def take(msgs):
            nonlocal count
            for m in msgs:
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        continue
                    self.fail("consume error: %s" % m.error())
                got.setdefault(m.partition(), []).append(m)
                count += 1

        while count < expected_total and time.monotonic() < deadline:
            take(consumer.consume(num_messages=500, timeout=0.5))
        self.assertEqual(count, expected_total, "records consumed before the deadline")
        extra_deadline = time.monotonic() + 1.0
        while time.monotonic() < extra_deadline:
            take(consumer.consume(num_messages=500, timeout=0.2))
        self.assertEqual(count, expected_total, "records delivered more than once / unexpected records")
        return got

    @staticmethod
    def row(m):
        return (m.offset(), m.key(), m.value(), m.headers())

    def expected_by_partition(self, messages, reports):
        exp = {p: [] for p in range(PARTITIONS)}
        for m, (_, part, off, ts) in zip(messages, reports):
            hdrs = m.get("headers")
            exp[part].append((off, m.get("key"), m["value"], hdrs))
        for p, rows in exp.items():
            self.assertEqual([r[0] for r in rows], list(range(len(rows))),
                             "partition %d: offsets not contiguous from 0 in produce order" % p)
        return exp

    # ---- tests -----------------------------------------------------------------------------
    def test_produce_consume_2000_with_headers(self):
        topic = "ck-main"
        n = 2000
        messages = [{"topic": topic, "key": b"key-%03d" % (i % 101), "value": b"value-%05d" % i,
                     "headers": [("idx", str(i).encode()), ("src", b"confluent"), ("dup", b"a"), ("dup", b"b")]}
                    for i in range(n)]
        reports = self.produce_all(self.producer(), messages)
        exp = self.expected_by_partition(messages, reports)
        for p in range(PARTITIONS):
            self.assertGreater(len(exp[p]), 300, "keys should spread over all partitions")

        c = self.consumer()
        c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
        got = self.consume_exactly(c, n)
        for p in range(PARTITIONS):
            self.assertEqual([self.row(m) for m in got[p]], exp[p], "partition %d content/order" % p)
        # Timestamps round trip: what the delivery report said is what the consumer sees.
        sent_ts = {(part, off): ts for (_, part, off, ts) in reports}
        for p in range(PARTITIONS):
            for m in got[p]:
                self.assertEqual(m.timestamp(), sent_ts[(p, m.offset())])
                self.assertEqual(m.timestamp()[0], 1)  # TIMESTAMP_CREATE_TIME

        for p in range(PARTITIONS):
            self.assertEqual(c.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False),
                             (0, len(exp[p])), "watermarks of partition %d" % p)

        # Re-assign from the middle of one partition only.
        c2 = self.consumer()
        c2.assign([TopicPartition(topic, 1, 100)])
        got = self.consume_exactly(c2, len(exp[1]) - 100)
        self.assertEqual([self.row(m) for m in got[1]], exp[1][100:])

    def test_offsets_for_times(self):
        topic = "ck-times"
        base = int(time.time() * 1000) - 600000
        messages = [{"topic": topic, "partition": 2, "value": b"t-%d" % i, "timestamp": base + i * 1000}
                    for i in range(20)]
        reports = self.produce_all(self.producer(), messages)
        self.assertEqual([(r[1], r[2]) for r in reports], [(2, i) for i in range(20)])

        c = self.consumer()
        c.assign([TopicPartition(topic, 2, 0)])
        got = self.consume_exactly(c, 20)
        self.assertEqual([(m.offset(), m.timestamp(), m.value()) for m in got[2]],
                         [(i, (1, base + i * 1000), b"t-%d" % i) for i in range(20)])

        def at(ts, p=2):
            r = c.offsets_for_times([TopicPartition(topic, p, ts)], timeout=10)
            self.assertEqual(len(r), 1)
            self.assertIsNone(r[0].error, r[0].error)
            return r[0].offset

        self.assertEqual(at(base + 7000), 7)
        self.assertEqual(at(base + 7001), 8)
        self.assertEqual(at(base - 5000), 0)
        self.assertEqual(at(base + 19000), 19)
        self.assertEqual(at(base + 19001), -1)  # nothing at/after: OFFSET_END sentinel
        self.assertEqual(at(base, p=0), -1)  # empty partition
        self.assertEqual(c.get_watermark_offsets(TopicPartition(topic, 2), timeout=10, cached=False), (0, 20))
        self.assertEqual(c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False), (0, 0))

    def compression_round_trip(self, codec):
        topic = "ck-comp-%s" % codec
        n = 600
        filler = b"compressible-" * 20
        messages = [{"topic": topic, "key": b"k%02d" % (i % 17), "value": b"%05d-" % i + filler,
                     "headers": [("codec", codec.encode())]} for i in range(n)]
        reports = self.produce_all(self.producer(**{"compression.type": codec, "linger.ms": 100,
                                                    "batch.num.messages": 1000}), messages)
        exp = self.expected_by_partition(messages, reports)

        c = self.consumer()
        c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
        got = self.consume_exactly(c, n)
        for p in range(PARTITIONS):
            self.assertEqual([self.row(m) for m in got[p]], exp[p], "%s partition %d" % (codec, p))
            self.assertEqual(c.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False),
                             (0, len(exp[p])))

        # Starting inside a compressed batch: the first record seen is exactly the requested one.
        p = max(exp, key=lambda k: len(exp[k]))
        start = len(exp[p]) // 2 + 1
        c2 = self.consumer()
        c2.assign([TopicPartition(topic, p, start)])
        got = self.consume_exactly(c2, len(exp[p]) - start)
        self.assertEqual([self.row(m) for m in got[p]], exp[p][start:], "%s from offset %d" % (codec, start))

        # The broker keeps the producer's batches as they were sent (compression.type=producer):
        # every stored batch carries the codec, as `skiff dump-log` reports it.
        codecs = set()
        for part in range(PARTITIONS):
            out = self.broker.dump_log(self.broker.partition_dir(topic, part))
            codecs.update(re.findall(r"compresscodec: (\w+)", out))
        if codec == "lz4" and codecs == {"none"}:
            # librdkafka 2.0.2 gates LZ4 on the broker advertising FindCoordinator (its
            # "LZ4" feature flag, rdkafka_feature.c) and skiff has no group APIs, so the client
            # sends these batches uncompressed. Still a full round trip; nothing more to check.
            sys.stderr.write("note: librdkafka sent lz4 batches uncompressed (no FindCoordinator)\n")
            return
        self.assertEqual(codecs, {codec}, "%s: stored batch codecs" % codec)
        raw = sum(len(m["value"]) for m in messages)
        stored = 0
        for part in range(PARTITIONS):
            d = self.broker.partition_dir(topic, part)
            stored += sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".log"))
        self.assertLess(stored, raw // 3, "%s: %d bytes stored for %d raw value bytes" % (codec, stored, raw))

    def test_init_transactions_finds_the_coordinator_and_fences_by_id(self):
        # FindCoordinator key type 1 and InitProducerId with a transactional id: both producers
        # get going; the second one's init fences the first (the coordinator's own tests cover
        # the epochs and errors).
        first = self.producer(**{"transactional.id": "skiff-it-txn"})
        first.init_transactions(30)
        second = self.producer(**{"transactional.id": "skiff-it-txn"})
        second.init_transactions(30)
        second.begin_transaction()
        second.commit_transaction(30)  # nothing registered: librdkafka sends no EndTxn

    def test_compression_gzip(self):
        self.compression_round_trip("gzip")

    def test_compression_snappy(self):
        self.compression_round_trip("snappy")

    def test_compression_lz4(self):
        self.compression_round_trip("lz4")

    def test_compression_zstd(self):
        self.compression_round_trip("zstd")


if __name__ == "__main__":
    skiff_harness.run_tests()
