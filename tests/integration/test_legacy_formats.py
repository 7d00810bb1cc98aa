"""Message formats v0/v1 (pre-0.11 clients) against the real skiff binary.

    /usr/bin/python3 test_legacy_formats.py /path/to/skiff

kafka-python 2.0.2 with api_version=(0, 9) (Produce v1 / Fetch v1 / ListOffsets v0, message format
v0) and api_version=(0, 10, 1) (Produce v2 / Fetch v3, message format v1), mixed on one topic
with a v2 producer (kafka-python auto-detected, record batch v2 with headers), a confluent-kafka
producer, and librdkafka with api.version.request=false broker.version.fallback=0.9.0 (Produce v1,
message format v0); a librdkafka consumer with the same settings reads everything back too: each round of each producer is acknowledged with contiguous offsets; then a consumer of
each kind reads the topic back: every message in order, exactly once, keys and values intact,
timestamps where the format has them (v0 messages have none: -1 in v1 and v2), headers only from
the v2 producer and only for the v2 consumer. Uncompressed and gzip (the codecs kafka-python has
without extra modules). And as a raw Produce v2 shows it: a v1 message set with one bad CRC is
answered CORRUPT_MESSAGE and stores nothing; the same set intact is stored right after.
"""

import os
import socket
import struct
import sys
import time
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from kafka import KafkaConsumer, KafkaProducer, TopicPartition  # noqa: E402

ROUND = 25
CORRUPT_MESSAGE = 2


def message_v1(key, value, ts):
    """One magic-1 message entry; CRC-32 (zlib) over magic..value."""
    body = struct.pack(">bbqi", 1, 0, ts, len(key)) + key + struct.pack(">i", len(value)) + value
    msg = struct.pack(">I", zlib.crc32(body)) + body
    return struct.pack(">qi", 0, len(msg)) + msg


def kstring(s):
    return struct.pack(">h", len(s)) + s.encode()


def raw_produce_v2(port, topic, records):
    """Produce v2 (acks=1) of `records` to partition 0; returns (error_code, base_offset)."""
    body = struct.pack(">hi", 1, 10000) + struct.pack(">i", 1) + kstring(topic) + struct.pack(">i", 1)
    body += struct.pack(">ii", 0, len(records)) + records
    header = struct.pack(">hhi", 0, 2, 7) + kstring("skiff-it-raw")
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
        size = struct.unpack(">i", skiff_harness.recv_exactly(s, 4))[0]
        data = skiff_harness.recv_exactly(s, size)
    pos = 4 + 4  # correlation id, topic count
    name_len = struct.unpack(">h", data[pos:pos + 2])[0]
    pos += 2 + name_len + 4  # name, partition count
    _, error, base_offset = struct.unpack(">ihq", data[pos:pos + 14])
    return error, base_offset


class LegacyFormatsTest(unittest.TestCase):
    broker = None

    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"num.partitions": 1}, name="legacy-formats broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.broker.stop()
        finally:
            cls.broker.cleanup()

    def producer(self, **kw):
        p = KafkaProducer(bootstrap_servers=self.broker.bootstrap, client_id="skiff-it-legacy",
                          request_timeout_ms=20000, max_block_ms=20000, acks="all", **kw)
        self.addCleanup(p.close, 5)
        return p

    def consumer(self, **kw):
        c = KafkaConsumer(bootstrap_servers=self.broker.bootstrap, group_id=None,
                          client_id="skiff-it-legacy-c", enable_auto_commit=False,
                          auto_offset_reset="none", request_timeout_ms=30000, **kw)
        self.addCleanup(c.close)
        return c

    def send_round(self, producer, topic, tag, rnd, expected, with_ts, with_headers):
        """One round of ROUND messages; appends (offset, key, value, ts, headers) to expected."""
        base_ts = int(time.time() * 1000) - 3600000 + rnd * 1000
        futs = []
        for i in range(ROUND):
            key = None if i % 7 == 3 else ("%s-key-%d" % (tag, i)).encode()
            value = ("%s-round-%d-value-%03d" % (tag, rnd, i)).encode()
            ts = base_ts + i if with_ts else None
            headers = [("tag", tag.encode()), ("i", str(i).encode())] if with_headers else None
            kw = {"timestamp_ms": ts} if ts is not None else {}
            if headers:
                kw["headers"] = headers
            futs.append((producer.send(topic, key=key, value=value, partition=0, **kw), key, value, ts,
                         headers or []))
        producer.flush(timeout=30)
        for fut, key, value, ts, headers in futs:
            md = fut.get(timeout=30)
            self.assertEqual(md.offset, len(expected), "%s: offsets contiguous in send order" % tag)
            expected.append((md.offset, key, value, ts, headers))

    def send_confluent_round(self, topic, rnd, expected, legacy=False):
        """confluent-kafka: record batch v2, or with legacy=True librdkafka told the broker is
        0.9.0 (no ApiVersions request): Produce v1, message format v0, no timestamps."""
        from confluent_kafka import Producer
        conf = {"bootstrap.servers": self.broker.bootstrap, "broker.address.family": "v4",
                "acks": "all", "linger.ms": 5, "message.timeout.ms": 20000}
        if legacy:
            conf.update({"api.version.request": False, "broker.version.fallback": "0.9.0"})
        p = Producer(conf)
        base_ts = int(time.time() * 1000) - 1800000 + rnd * 1000
        reports = []
        sent = []
        for i in range(ROUND):
            tag = "rk09" if legacy else "ck"
            key = ("%s-key-%d" % (tag, i)).encode()
            value = ("%s-round-%d-value-%03d" % (tag, rnd, i)).encode()
            kw = {} if legacy else {"timestamp": base_ts + i, "headers": [("tag", b"ck")]}
            sent.append((key, value, None if legacy else base_ts + i, kw.get("headers", [])))
            p.produce(topic, key=key, value=value, partition=0,
                      on_delivery=lambda err, msg: reports.append((err, msg.offset())), **kw)
        self.assertEqual(p.flush(30), 0)
        self.assertEqual([e for e, _ in reports], [None] * ROUND)
        for (key, value, ts, headers), (_, offset) in zip(sent, reports):
            self.assertEqual(offset, len(expected))
            expected.append((offset, key, value, ts, headers))

    def consume_all(self, consumer, topic, count, timeout_s=30.0):
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning()
        got = []
        deadline = time.monotonic() + timeout_s
        while len(got) < count and time.monotonic() < deadline:
            for _, records in consumer.poll(timeout_ms=500).items():
                got.extend(records)
        extra = time.monotonic() + 1.0  # then a little more, to catch duplicates
        while time.monotonic() < extra:
            for _, records in consumer.poll(timeout_ms=200).items():
                got.extend(records)
        self.assertEqual(len(got), count, "every message exactly once")
        self.assertEqual(consumer.end_offsets([tp]), {tp: count})
        return got

    def check(self, got, expected, fmt):
        """fmt: the message format the consumer reads (0, 1 or 2)."""
        for r, (offset, key, value, ts, headers) in zip(got, expected):
            where = "format v%d consumer at offset %d" % (fmt, offset)
            self.assertEqual((r.offset, r.key, r.value), (offset, key, value), where)
            if fmt >= 1:
                self.assertEqual(r.timestamp, ts if ts is not None else -1, where)
            if fmt == 2:
                self.assertEqual(list(r.headers), headers, where)

    def test_corrupt_message_set_is_refused_and_stores_nothing(self):
        topic = "legacy-corrupt"
        p = self.producer()
        self.assertEqual(p.send(topic, b"seed", partition=0).get(timeout=30).offset, 0)
        good = message_v1(b"k1", b"first", 1000) + message_v1(b"k2", b"second", 1001)
        bad = bytearray(good)
        bad[-1] ^= 0x01  # the second message's value no longer matches its CRC
        self.assertEqual(raw_produce_v2(self.broker.port, topic, bytes(bad)), (CORRUPT_MESSAGE, -1))
        self.assertEqual(raw_produce_v2(self.broker.port, topic, good), (0, 1))
        c = self.consumer(api_version=(0, 10, 1))
        got = self.consume_all(c, topic, 3)
        self.assertEqual([(r.offset, r.key, r.value, r.timestamp) for r in got],
                         [(0, None, b"seed", got[0].timestamp), (1, b"k1", b"first", 1000),
                          (2, b"k2", b"second", 1001)])

    def test_mixed_formats_on_one_topic(self):
        for compression in (None, "gzip"):
            with self.subTest(compression=compression):
                self.mixed(compression)

    def mixed(self, compression):
        topic = "legacy-mixed-%s" % (compression or "none")
        kw = {"compression_type": compression} if compression else {}
        v09 = self.producer(api_version=(0, 9), linger_ms=5, **kw)
        v010 = self.producer(api_version=(0, 10, 1), linger_ms=5, **kw)
        v2 = self.producer(linger_ms=5, **kw)
        expected = []
        for rnd in range(2):
            self.send_round(v09, topic, "v09", rnd, expected, with_ts=False, with_headers=False)
            self.send_round(v010, topic, "v010", rnd, expected, with_ts=True, with_headers=False)
            self.send_round(v2, topic, "v2", rnd, expected, with_ts=True, with_headers=True)
            self.send_confluent_round(topic, rnd, expected)
            self.send_confluent_round(topic, rnd, expected, legacy=True)
        n = len(expected)
        self.assertEqual(n, 10 * ROUND)

        for fmt, api_version in ((0, (0, 9)), (1, (0, 10, 1)), (2, None)):
            kw = {"api_version": api_version} if api_version else {}
            # Small fetches for the old formats: the converted answers are cut at
            # max_partition_fetch_bytes, so the consumers page through the log.
            c = self.consumer(max_partition_fetch_bytes=2048 if fmt < 2 else 1048576, **kw)
            self.check(self.consume_all(c, topic, n), expected, fmt)
            # And from the middle of a stored batch.
            tp = TopicPartition(topic, 0)
            c.seek(tp, 3 * ROUND + 5)
            got = []
            deadline = time.monotonic() + 30
            while len(got) < n - (3 * ROUND + 5) and time.monotonic() < deadline:
                for _, records in c.poll(timeout_ms=500).items():
                    got.extend(records)
            self.check(got, expected[3 * ROUND + 5:], fmt)
            self.assertEqual(len(got), n - (3 * ROUND + 5))

        # librdkafka told the broker is 0.9.0: ListOffsets v0 and Fetch v1 (message format v0).
        from confluent_kafka import OFFSET_BEGINNING, Consumer
        from confluent_kafka import TopicPartition as CkPartition
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "broker.address.family": "v4",
                      "group.id": "unused", "enable.auto.commit": False, "api.version.request": False,
                      "broker.version.fallback": "0.9.0", "fetch.message.max.bytes": 4096})
        self.addCleanup(c.close)
        c.assign([CkPartition(topic, 0, OFFSET_BEGINNING)])
        got = []
        deadline = time.monotonic() + 30
        while len(got) < n and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None:
                self.assertIsNone(m.error(), str(m.error()))
                got.append((m.offset(), m.key(), m.value()))
        self.assertEqual(got, [(o, k, v) for o, k, v, _, _ in expected], "librdkafka 0.9.0 consumer")


if __name__ == "__main__":
    skiff_harness.run_tests()
