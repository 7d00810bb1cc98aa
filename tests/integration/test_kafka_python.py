"""kafka-python (2.0.2) against the real skiff binary.

    /usr/bin/python3 test_kafka_python.py /path/to/skiff

Checks: KafkaProducer with acks='all' and acks=1 sends 1000 keyed records with headers to a
2-partition topic, every future resolves and offsets are contiguous per partition in send order;
a group-less KafkaConsumer (assign + seek_to_beginning) reads every record back exactly once with
the same key, value, headers and per-partition order; end_offsets / beginning_offsets; explicit
CreateTime timestamps (timestamp_ms=) come back unchanged and offsets_for_times finds the first
offset at/after a timestamp. kafka-python's broker version is auto-detected from ApiVersions (no
api_version override).
"""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from kafka import KafkaConsumer, KafkaProducer, TopicPartition  # noqa: E402

PARTITIONS = 2
N = 1000


class KafkaPythonTest(unittest.TestCase):
    broker = None

    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"num.partitions": PARTITIONS}, name="kafka-python broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.broker.stop()  # SIGTERM, exit code 0
        finally:
            cls.broker.cleanup()

    # ---- helpers ---------------------------------------------------------------------------
    def producer(self, **kw):
        p = KafkaProducer(bootstrap_servers=self.broker.bootstrap, client_id="skiff-it-kp",
                          request_timeout_ms=20000, max_block_ms=20000, **kw)
        self.addCleanup(p.close, 5)
        return p

    def consumer(self, **kw):
        c = KafkaConsumer(bootstrap_servers=self.broker.bootstrap, group_id=None, client_id="skiff-it-kc",
                          enable_auto_commit=False, auto_offset_reset="none",
                          request_timeout_ms=30000, **kw)
        self.addCleanup(c.close)
        return c

    def consume_exactly(self, consumer, expected_total, timeout_s=30.0):
        """Polls until expected_total records arrived, then 1 s more to catch duplicates."""
        got = {}
        count = 0
        deadline = time.monotonic() + timeout_s
        while count < expected_total and time.monotonic() < deadline:
            for tp, records in consumer.poll(timeout_ms=500).items():
                got.setdefault(tp.partition, []).extend(records)
                count += len(records)
        self.assertEqual(count, expected_total, "records consumed before the deadline")
        extra_deadline = time.monotonic() + 1.0
        while time.monotonic() < extra_deadline:
            for tp, records in consumer.poll(timeout_ms=200).items():
                got.setdefault(tp.partition, []).extend(records)
                count += len(records)
        self.assertEqual(count, expected_total, "records delivered more than once / unexpected records")
        return got

    # ---- tests -----------------------------------------------------------------------------
    def produce_and_consume(self, acks):
        topic = "kp-acks-%s" % acks
        producer = self.producer(acks=acks, linger_ms=5)
        sent = []  # (future, key, value, headers) in send order
        for i in range(N):
            key = ("key-%02d" % (i % 37)).encode()
            value = ("value-%s-%04d" % (acks, i)).encode()
            headers = [("idx", str(i).encode()), ("acks", str(acks).encode()), ("empty", b"")]
            sent.append((producer.send(topic, key=key, value=value, headers=headers), key, value, headers))
        producer.flush(timeout=30)
        expected = {p: [] for p in range(PARTITIONS)}
        for fut, key, value, headers in sent:
            md = fut.get(timeout=30)
            self.assertEqual(md.topic, topic)
            expected[md.partition].append((md.offset, key, value, headers))
        for p in range(PARTITIONS):
            offsets = [e[0] for e in expected[p]]
            self.assertEqual(offsets, list(range(len(offsets))),
                             "acks=%s partition %d: offsets not contiguous from 0 in send order" % (acks, p))
            self.assertGreater(len(offsets), 100, "keys should spread over both partitions")
        self.assertEqual(sum(len(v) for v in expected.values()), N)

        consumer = self.consumer()
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        consumer.seek_to_beginning()
        got = self.consume_exactly(consumer, N)
        for p in range(PARTITIONS):
            actual = [(r.offset, r.key, r.value, list(r.headers)) for r in got.get(p, [])]
            self.assertEqual(actual, expected[p], "acks=%s partition %d content/order" % (acks, p))
            for r in got.get(p, []):
                self.assertEqual(r.topic, topic)
                self.assertEqual(r.timestamp_type, 0, "CreateTime")

        self.assertEqual(consumer.end_offsets(tps), {tp: len(expected[tp.partition]) for tp in tps})
        self.assertEqual(consumer.beginning_offsets(tps), {tp: 0 for tp in tps})
        # Seeking into the middle reads exactly from there.
        consumer.seek(tps[0], 10)
        consumer.seek(tps[1], len(expected[1]))  # at the end: nothing
        got = self.consume_exactly(consumer, len(expected[0]) - 10)
        self.assertEqual([(r.offset, r.key, r.value, list(r.headers)) for r in got[0]], expected[0][10:])
        self.assertNotIn(1, got)

    def test_acks_all(self):
        self.produce_and_consume("all")

    def test_acks_1(self):
        self.produce_and_consume(1)

    def test_timestamps_and_offsets_for_times(self):
        topic = "kp-times"
        base = int(time.time() * 1000) - 600000  # ten minutes ago, one record a second
        producer = self.producer(acks="all")
        futs = [producer.send(topic, partition=0, key=b"t%d" % i, value=b"ts-%d" % i, timestamp_ms=base + i * 1000)
                for i in range(20)]
        producer.flush(timeout=30)
        mds = [f.get(timeout=30) for f in futs]
        self.assertEqual([(m.partition, m.offset) for m in mds], [(0, i) for i in range(20)])
        self.assertEqual([m.timestamp for m in mds], [base + i * 1000 for i in range(20)])

        consumer = self.consumer()
        tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
        consumer.assign([tp0, tp1])
        consumer.seek_to_beginning()
        got = self.consume_exactly(consumer, 20)
        self.assertEqual([(r.offset, r.timestamp, r.timestamp_type, r.value) for r in got[0]],
                         [(i, base + i * 1000, 0, b"ts-%d" % i) for i in range(20)])

        def at(ts, tp=tp0):
            return consumer.offsets_for_times({tp: ts})[tp]

        r = at(base + 5000)  # exact hit
        self.assertEqual((r.offset, r.timestamp), (5, base + 5000))
        r = at(base + 5500)  # between records 5 and 6: the first at/after is 6
        self.assertEqual((r.offset, r.timestamp), (6, base + 6000))
        r = at(base - 1)
        self.assertEqual((r.offset, r.timestamp), (0, base))
        r = at(base + 19000)
        self.assertEqual((r.offset, r.timestamp), (19, base + 19000))
        self.assertIsNone(at(base + 19001), "no record at/after the last timestamp")
        self.assertIsNone(at(base, tp1), "empty partition")
        self.assertEqual(consumer.end_offsets([tp0, tp1]), {tp0: 20, tp1: 0})

    def test_restart_keeps_data(self):
        """SIGTERM restart and kill -9 restart on the same data dir: every acked record survives."""
        topic = "kp-restart"

        def produce(start, count):
            producer = self.producer(acks="all", linger_ms=5)
            futs = [producer.send(topic, key=b"r%d" % (i % 5), value=b"restart-%04d" % i,
                                  headers=[("i", str(i).encode())]) for i in range(start, start + count)]
            producer.flush(timeout=30)
            return [(f.get(timeout=30), i) for f, i in zip(futs, range(start, start + count))]

        def read_all(expected):
            consumer = self.consumer()
            tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
            consumer.assign(tps)
            consumer.seek_to_beginning()
            got = self.consume_exactly(consumer, sum(len(v) for v in expected.values()))
            for p in range(PARTITIONS):
                self.assertEqual([(r.offset, r.key, r.value, list(r.headers)) for r in got.get(p, [])],
                                 expected[p], "partition %d after restart" % p)
            self.assertEqual(consumer.end_offsets(tps), {tp: len(expected[tp.partition]) for tp in tps})

        expected = {p: [] for p in range(PARTITIONS)}

        def record(results):
            for md, i in results:
                self.assertEqual(md.offset, len(expected[md.partition]), "offsets continue after restart")
                expected[md.partition].append((md.offset, b"r%d" % (i % 5), b"restart-%04d" % i,
                                               [("i", str(i).encode())]))

        record(produce(0, 300))
        self.broker.stop()  # SIGTERM -> exit 0
        for p in range(PARTITIONS):
            self.broker.verify_log(topic, p)
        self.broker.start()
        read_all(expected)
        record(produce(300, 200))

        self.broker.kill()  # kill -9: acked records were written before the responses went out
        self.broker.start()
        read_all(expected)
        record(produce(500, 100))
        read_all(expected)
        self.broker.stop()
        for p in range(PARTITIONS):
            self.broker.verify_log(topic, p)
        self.broker.start()  # running again for the other tests
        read_all(expected)

    def test_broker_version_detected(self):
        # Not a workaround: record what kafka-python inferred from ApiVersions, and make sure it
        # is new enough for headers (0.11+) and offsets_for_times (0.10.1+).
        c = self.consumer()
        version = c.config["api_version"]
        sys.stderr.write("kafka-python inferred broker version %s\n" % (version,))
        self.assertGreaterEqual(version, (0, 11, 0))


if __name__ == "__main__":
    skiff_harness.run_tests()
