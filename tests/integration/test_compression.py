"""compression.type and message.format.version against the real skiff binary.

    /usr/bin/python3 test_compression.py /path/to/skiff

Topics with compression.type zstd, uncompressed and producer get records from librdkafka
(confluent_kafka) producers using lz4, gzip, snappy and zstd. Every record is consumed back in
order exactly once with its value intact, and `skiff dump-log` on the partition shows the codec
the topic stores (the producer's for `producer`). A raw Produce of a batch with a correct CRC
but a garbage compressed body gets CORRUPT_MESSAGE and the log end offset does not move.
The broker's compression.type is the default of topics without their own. (The AlterConfigs /
DescribeConfigs round trip of both keys is in test_admin_confluent.py.)
"""

import os
import re
import socket
import struct
import sys
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from test_bad_input import (crc32c, frame, parse_produce_v3_response,  # noqa: E402
                            produce_v3_body, record_batch)

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic  # noqa: E402

TIMEOUT_S = 15
CORRUPT_MESSAGE = 2
PRODUCER_CODECS = ["lz4", "gzip", "snappy", "zstd"]
RECORDS_PER_CODEC = 300
CODEC_BITS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


def value_of(topic, codec, i):
    # compressible, and distinct per record
    return ("%s/%s/%05d " % (topic, codec, i) + "payload " * (i % 20)).encode()


class CompressionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"num.partitions": 1}, name="compression broker")
        cls.broker.start()
        cls.admin = AdminClient({"bootstrap.servers": cls.broker.bootstrap})

    @classmethod
    def tearDownClass(cls):
        cls.broker.stop()
        cls.broker.cleanup()

    def create(self, topic, config):
        fs = self.admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1,
                                                config=config)])
        fs[topic].result(timeout=TIMEOUT_S)

    def describe(self, topic):
        (f,) = self.admin.describe_configs([ConfigResource("topic", topic)]).values()
        return f.result(timeout=TIMEOUT_S)

    def produce_all(self, topic):
        errors = []
        for codec in PRODUCER_CODECS:
            p = Producer({"bootstrap.servers": self.broker.bootstrap, "compression.codec": codec,
                          "linger.ms": 20, "enable.idempotence": True})
            for i in range(RECORDS_PER_CODEC):
                p.produce(topic, key=b"%d" % i, value=value_of(topic, codec, i), partition=0,
                          on_delivery=lambda err, msg: err and errors.append(err))
            self.assertEqual(p.flush(TIMEOUT_S), 0)
        self.assertEqual(errors, [])

    def consume_all(self, topic):
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "g-" + topic,
                      "enable.auto.commit": False, "auto.offset.reset": "earliest"})
        try:
            c.assign([TopicPartition(topic, 0, 0)])
            got = []
            want = len(PRODUCER_CODECS) * RECORDS_PER_CODEC
            skiff_harness.wait_until(lambda: self._poll_into(c, got) >= want, 30,
                                     what="%d records from %s" % (want, topic))
            return got
        finally:
            c.close()

    def _poll_into(self, c, got):
        for m in c.consume(500, 0.2):
            if m.error():
                raise KafkaException(m.error())
            got.append((m.offset(), m.value()))
        return len(got)

    def stored_codecs(self, topic):
        d = self.broker.partition_dir(topic, 0)
        codecs = set()
        for name in sorted(os.listdir(d)):
            if name.endswith(".log"):
                codecs |= set(re.findall(r"compresscodec: (\w+)",
                                         self.broker.dump_log(os.path.join(d, name))))
        return codecs

    def check_topic(self, topic, expected_codecs):
        self.produce_all(topic)
        got = self.consume_all(topic)
        expected = [value_of(topic, codec, i) for codec in PRODUCER_CODECS
                    for i in range(RECORDS_PER_CODEC)]
        self.assertEqual([o for o, _ in got], list(range(len(expected))))  # in order, once
        self.assertEqual([v for _, v in got], expected)
        self.assertEqual(self.stored_codecs(topic), expected_codecs)
        self.broker.verify_log(topic, 0)

    def test_zstd_topic_recompresses(self):
        self.create("t-zstd", {"compression.type": "zstd"})
        self.assertEqual(self.describe("t-zstd")["compression.type"].value, "zstd")
        self.check_topic("t-zstd", {"zstd"})

    def test_uncompressed_topic_decompresses(self):
        self.create("t-plain", {"compression.type": "uncompressed"})
        self.check_topic("t-plain", {"none"})

    def test_gzip_topic(self):
        self.create("t-gzip", {"compression.type": "gzip"})
        self.check_topic("t-gzip", {"gzip"})

    def test_producer_topic_keeps_codecs(self):
        self.create("t-producer", {})
        configs = self.describe("t-producer")
        self.assertEqual(configs["compression.type"].value, "producer")
        self.assertEqual(configs["compression.type"].source, ConfigSource.DEFAULT_CONFIG.value)
        self.check_topic("t-producer", set(PRODUCER_CODECS))

    # ---- corrupt input -----------------------------------------------------------------------
    def raw_produce(self, topic, batch):
        with socket.create_connection(("127.0.0.1", self.broker.port), timeout=10) as s:
            s.sendall(frame(0, 3, 77, produce_v3_body(topic, 0, batch)))
            size = struct.unpack(">i", skiff_harness.recv_exactly(s, 4))[0]
            data = skiff_harness.recv_exactly(s, size)
        responses, _ = parse_produce_v3_response(data[4:])
        return responses

    def end_offset(self, topic):
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "w"})
        try:
            return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=TIMEOUT_S)[1]
        finally:
            c.close()

    def with_codec(self, batch, codec, body):
        """The batch with its records replaced by `body` and codec bits set; CRC recomputed."""
        head = bytearray(batch[:61])
        struct.pack_into(">i", head, 8, 61 - 12 + len(body))
        attributes = struct.unpack_from(">h", head, 21)[0]
        struct.pack_into(">h", head, 21, (attributes & ~7) | CODEC_BITS[codec])
        crc = crc32c(bytes(head[21:]) + body)
        struct.pack_into(">I", head, 17, crc)
        return bytes(head) + body

    def test_corrupt_compressed_batch_is_refused(self):
        self.create("t-corrupt", {"compression.type": "zstd"})
        good = record_batch([(b"k", b"v", [], 0)], 1700000000000)
        self.assertEqual(self.raw_produce("t-corrupt", good)[0][2], 0)  # positive control
        before = self.end_offset("t-corrupt")
        self.assertEqual(before, 1)
        # Not zstd: a batch already in the topic's codec is stored as sent, never decompressed.
        for codec in ["lz4", "gzip", "snappy"]:
            bad = self.with_codec(good, codec, b"\x00garbage, not a compressed stream" * 3)
            ((_, _, error, _, _),) = self.raw_produce("t-corrupt", bad)
            self.assertEqual(error, CORRUPT_MESSAGE, codec)
            self.assertEqual(self.end_offset("t-corrupt"), before, codec)
        # Valid compression around bytes that are not records: refused the same way.
        gz = zlib.compressobj(wbits=31)
        body = gz.compress(b"not records at all") + gz.flush()
        ((_, _, error, _, _),) = self.raw_produce("t-corrupt", self.with_codec(good, "gzip", body))
        self.assertEqual(error, CORRUPT_MESSAGE)
        self.assertEqual(self.end_offset("t-corrupt"), before)
        self.broker.verify_log("t-corrupt", 0)


class BrokerDefaultCompressionTest(unittest.TestCase):
    """The broker's compression.type is the default of topics that do not set it."""

    def test_broker_default_applies(self):
        with skiff_harness.Broker({"num.partitions": 1, "compression.type": "gzip"},
                                  name="gzip-default broker") as broker:
            p = Producer({"bootstrap.servers": broker.bootstrap, "compression.codec": "lz4"})
            for i in range(50):
                p.produce("auto-created", value=b"value %d" % i, partition=0)
            self.assertEqual(p.flush(TIMEOUT_S), 0)
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            (f,) = admin.describe_configs([ConfigResource("topic", "auto-created")]).values()
            c = f.result(timeout=TIMEOUT_S)["compression.type"]
            self.assertEqual(c.value, "gzip")
            self.assertEqual(c.source, ConfigSource.STATIC_BROKER_CONFIG.value)
            d = broker.partition_dir("auto-created", 0)
            logs = [n for n in os.listdir(d) if n.endswith(".log")]
            out = "".join(broker.dump_log(os.path.join(d, n)) for n in logs)
            self.assertEqual(set(re.findall(r"compresscodec: (\w+)", out)), {"gzip"})


if __name__ == "__main__":
    skiff_harness.run_tests()
