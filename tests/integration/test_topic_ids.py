"""Topic ids against the real skiff binary, over raw sockets (stdlib encoders written here).

    /usr/bin/python3 test_topic_ids.py /path/to/skiff

Topics are created and produced to with confluent_kafka; Metadata v12-13, Fetch v13/v17/v18,
DeleteTopics v6 and DescribeTopicPartitions v0 are hand-encoded so the test sees exactly what a
client of those versions sees, and so are the Kafka 4.x versions no client here speaks yet:
Produce v13, OffsetCommit v10 and OffsetFetch v10 by topic id, ListOffsets v11 and
InitProducerId v6. The partition.metadata files are read directly from the data dir.
"""

import base64
import os
import socket
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from test_bad_input import record_batch  # noqa: E402
from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

NONE = 0
UNSUPPORTED_VERSION = 35
TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53
UNKNOWN_TOPIC_ID = 100
ZERO_ID = b"\x00" * 16


# ---- encoding (flexible versions only) --------------------------------------------------------
def uvarint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def cstr(s):
    if s is None:
        return b"\x00"
    b = s.encode()
    return uvarint(len(b) + 1) + b


def carray(items):
    return uvarint(len(items) + 1) + b"".join(items)


TAGS = b"\x00"


class Buf:
    def __init__(self, data):
        self.d = data
        self.p = 0

    def take(self, n):
        v = self.d[self.p:self.p + n]
        if len(v) != n:
            raise AssertionError("response truncated")
        self.p += n
        return v

    def i8(self):
        return struct.unpack(">b", self.take(1))[0]

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def i64(self):
        return struct.unpack(">q", self.take(8))[0]

    def uvarint(self):
        shift = n = 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    def varint(self):
        n = self.uvarint()
        return (n >> 1) ^ -(n & 1)

    def cstr(self):
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1).decode()

    def cbytes(self):
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1)

    def carray(self, fn):
        n = self.uvarint()
        return None if n == 0 else [fn() for _ in range(n - 1)]

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def kafka_id_text(raw):
    """Kafka's Uuid.toString: base64url without padding."""
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def records_of(data, from_offset):
    """Values of the records at from_offset and later in v2 batches (uncompressed), in order. A
    batch comes back whole, so a fetch from its middle also returns the records before; clients
    drop those, and so does this."""
    values = []
    b = Buf(data or b"")
    while len(b.d) - b.p >= 61:
        base_offset = b.i64()
        length = b.i32()
        batch = Buf(b.take(length))
        batch.take(4 + 1 + 4)  # leader epoch, magic, crc
        attributes = batch.i16()
        assert attributes & 7 == 0, "compressed batch"
        batch.take(4 + 8 + 8 + 8 + 2 + 4)
        count = batch.i32()
        for _ in range(count):
            batch.varint()  # length
            batch.i8()
            batch.varint()
            offset = base_offset + batch.varint()
            klen = batch.varint()
            if klen > 0:
                batch.take(klen)
            vlen = batch.varint()
            value = batch.take(vlen) if vlen >= 0 else None
            if offset >= from_offset:
                values.append(value)
            for _ in range(batch.varint()):
                batch.take(batch.varint())
                hlen = batch.varint()
                if hlen > 0:
                    batch.take(hlen)
    return values


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.corr = 0

    def close(self):
        self.sock.close()

    def call(self, key, version, body):
        """Request header v2, response header v1 (every API here is flexible in these versions;
        ApiVersions is not used)."""
        self.corr += 1
        header = struct.pack(">hhih", key, version, self.corr, 4) + b"test" + TAGS
        msg = header + body
        self.sock.sendall(struct.pack(">i", len(msg)) + msg)
        size = struct.unpack(">i", skiff_harness.recv_exactly(self.sock, 4))[0]
        b = Buf(skiff_harness.recv_exactly(self.sock, size))
        assert b.i32() == self.corr
        b.tags()
        return b

    # Metadata v12: topics by name or by id.
    def metadata(self, names=None, ids=None, version=12):
        topics = [(ZERO_ID, n) for n in (names or [])] + [(i, None) for i in (ids or [])]
        body = carray([tid + cstr(n) + TAGS for tid, n in topics]) + b"\x00\x00" + TAGS
        b = self.call(3, version, body)
        b.i32()
        b.carray(lambda: (b.i32(), b.cstr(), b.i32(), b.cstr(), b.tags()))
        b.cstr()
        b.i32()

        def topic():
            error, name, tid, _internal = b.i16(), b.cstr(), b.take(16), b.i8()
            parts = b.carray(lambda: (b.i16(), b.i32(), b.i32(), b.i32(), b.carray(b.i32),
                                      b.carray(b.i32), b.carray(b.i32), b.tags()))
            b.i32()
            b.tags()
            return {"error": error, "name": name, "id": tid, "partitions": len(parts or [])}
        return b.carray(topic)

    # Fetch v13+ by topic id: {(id, partition): offset} -> {id: [(partition, error, values)]}.
    # From v18 each partition carries the tagged HighWatermark (tag 1) a follower would send.
    def fetch(self, wanted, version=13):
        by_topic = {}
        offsets = {}
        hw_tag = uvarint(1) + uvarint(1) + uvarint(8) + struct.pack(">q", -1)
        for (tid, p), off in wanted.items():
            offsets[(tid, p)] = off
            by_topic.setdefault(tid, []).append(
                struct.pack(">iiqiqi", p, -1, off, -1, -1, 1 << 20)
                + (hw_tag if version >= 18 else TAGS))
        body = (struct.pack(">i", -1) if version <= 14 else b"")
        body += struct.pack(">iiibii", 0, 1, 1 << 24, 0, 0, -1)
        body += carray([tid + carray(ps) + TAGS for tid, ps in by_topic.items()])
        body += carray([]) + cstr("") + TAGS
        b = self.call(1, version, body)
        b.i32()
        assert b.i16() == NONE
        b.i32()
        out = {}

        def part(tid):
            index, error = b.i32(), b.i16()
            b.i64(), b.i64(), b.i64()
            b.carray(lambda: (b.i64(), b.i64(), b.tags()))
            b.i32()
            recs = b.cbytes()
            b.tags()
            return (index, error, records_of(recs, offsets[(tid, index)]))

        def topic():
            tid = b.take(16)
            out[tid] = b.carray(lambda: part(tid))
            b.tags()
        b.carray(topic)
        return out

    # Produce v13 (Kafka 4.1) by topic id: {id: {partition: batch}} -> {id: [(partition, error,
    # base_offset)]}.
    def produce_by_id(self, batches):
        body = cstr(None) + struct.pack(">hi", -1, 10000)
        body += carray([tid + carray([struct.pack(">i", p) + uvarint(len(batch) + 1) + batch + TAGS
                                      for p, batch in parts.items()]) + TAGS
                        for tid, parts in batches.items()]) + TAGS
        b = self.call(0, 13, body)
        out = {}

        def part():
            index, error, base = b.i32(), b.i16(), b.i64()
            b.i64(), b.i64()
            b.carray(lambda: (b.i32(), b.cstr(), b.tags()))
            b.cstr()
            b.tags()
            return (index, error, base)

        def topic():
            tid = b.take(16)
            out[tid] = b.carray(part)
            b.tags()
        b.carray(topic)
        return out

    # OffsetCommit v10 by topic id, a simple commit: {(id, partition): offset} -> {id: [(partition,
    # error)]}.
    def commit_by_id(self, group, offsets):
        by_topic = {}
        for (tid, p), off in offsets.items():
            by_topic.setdefault(tid, []).append(struct.pack(">iqi", p, off, -1) + cstr("") + TAGS)
        body = cstr(group) + struct.pack(">i", -1) + cstr("") + cstr(None)
        body += carray([tid + carray(ps) + TAGS for tid, ps in by_topic.items()]) + TAGS
        b = self.call(8, 10, body)
        b.i32()
        out = {}

        def topic():
            tid = b.take(16)
            out[tid] = b.carray(lambda: (b.i32(), b.i16(), b.tags())[:2])
            b.tags()
        b.carray(topic)
        return out

    # OffsetFetch v10 by topic id, one group: {id: [partitions]} or None (every committed
    # partition) -> {id: [(partition, offset, error)]}.
    def fetch_offsets_by_id(self, group, wanted):
        topics = b"\x00" if wanted is None else carray(
            [tid + carray([struct.pack(">i", p) for p in ps]) + TAGS for tid, ps in wanted.items()])
        body = carray([cstr(group) + cstr(None) + struct.pack(">i", -1) + topics + TAGS])
        body += b"\x00" + TAGS  # require_stable false
        b = self.call(9, 10, body)
        b.i32()
        out = {}

        def part():
            index, offset = b.i32(), b.i64()
            b.i32(), b.cstr()
            error = b.i16()
            b.tags()
            return (index, offset, error)

        def topic():
            tid = b.take(16)
            out[tid] = b.carray(part)
            b.tags()

        def group_entry():
            assert b.cstr() == group
            b.carray(topic)
            assert b.i16() == NONE
            b.tags()
        b.carray(group_entry)
        return out

    # ListOffsets v11 for one partition: (error, timestamp, offset, leader_epoch).
    def list_offset(self, topic, partition, timestamp):
        body = struct.pack(">ib", -1, 0)
        body += carray([cstr(topic) + carray([struct.pack(">iiq", partition, -1, timestamp) + TAGS])
                        + TAGS])
        body += struct.pack(">i", 1000) + TAGS
        b = self.call(2, 11, body)
        b.i32()
        [[result]] = b.carray(lambda: (b.cstr(), b.carray(
            lambda: (b.i32(), b.i16(), b.i64(), b.i64(), b.i32(), b.tags())[1:5]), b.tags())[1])
        return result

    # InitProducerId v6: (error, producer_id, ongoing_txn_producer_id).
    def init_producer_id(self, transactional_id, enable_2pc, keep_prepared_txn=False):
        body = cstr(transactional_id) + struct.pack(">iqh??", 60000, -1, -1, enable_2pc,
                                                    keep_prepared_txn) + TAGS
        b = self.call(22, 6, body)
        b.i32()
        error, pid = b.i16(), b.i64()
        b.i16()
        ongoing = b.i64()
        return (error, pid, ongoing)

    # Metadata v13's top-level error code (KIP-1102), after the topics.
    def metadata_v13_error(self, name):
        body = carray([ZERO_ID + cstr(name) + TAGS]) + b"\x00\x00" + TAGS
        b = self.call(3, 13, body)
        b.i32()
        b.carray(lambda: (b.i32(), b.cstr(), b.i32(), b.cstr(), b.tags()))
        b.cstr()
        b.i32()
        b.carray(lambda: (b.i16(), b.cstr(), b.take(16), b.i8(), b.carray(
            lambda: (b.i16(), b.i32(), b.i32(), b.i32(), b.carray(b.i32), b.carray(b.i32),
                     b.carray(b.i32), b.tags())), b.i32(), b.tags()))
        error = b.i16()
        b.tags()
        return error

    # DeleteTopics v6 by id: [(name, id, error)].
    def delete_by_id(self, ids):
        body = carray([cstr(None) + tid + TAGS for tid in ids]) + struct.pack(">i", 10000) + TAGS
        b = self.call(20, 6, body)
        b.i32()
        return b.carray(lambda: (b.cstr(), b.take(16), b.i16(), b.cstr(), b.tags())[:3])

    # DescribeTopicPartitions v0: ([(name, id, [partitions])], next_cursor or None).
    def describe_topic_partitions(self, names, limit, cursor=None):
        body = carray([cstr(n) + TAGS for n in names]) + struct.pack(">i", limit)
        body += b"\xff" if cursor is None else b"\x01" + cstr(cursor[0]) + struct.pack(
            ">i", cursor[1]) + TAGS
        body += TAGS
        b = self.call(75, 0, body)
        b.i32()

        def part():
            b.i16()
            index = b.i32()
            b.i32(), b.i32(), b.carray(b.i32), b.carray(b.i32), b.carray(b.i32)
            b.carray(b.i32), b.carray(b.i32)
            b.tags()
            return index

        def topic():
            error, name, tid, _ = b.i16(), b.cstr(), b.take(16), b.i8()
            parts = b.carray(part)
            b.i32()
            b.tags()
            return (error, name, tid, parts)
        topics = b.carray(topic)
        cursor = None
        if b.i8() >= 0:
            cursor = (b.cstr(), b.i32())
            b.tags()
        return topics, cursor


def read_partition_metadata(broker, topic, partition):
    with open(os.path.join(broker.partition_dir(topic, partition), "partition.metadata")) as f:
        return f.read()


class TopicIdsTest(unittest.TestCase):
    def setUp(self):
        self.broker = skiff_harness.Broker().start()
        self.client = Client(self.broker.port)

    def tearDown(self):
        self.client.close()
        self.broker.stop()
        self.broker.cleanup()

    def create(self, name, partitions):
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        for f in admin.create_topics([NewTopic(name, partitions, 1)]).values():
            f.result(30)

    def produce(self, topic, values, partition=0):
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "compression.type": "none",
                      "linger.ms": 0})
        for v in values:
            p.produce(topic, v, partition=partition)
        self.assertEqual(p.flush(30), 0)

    def topic_id(self, name):
        [t] = self.client.metadata([name])
        self.assertEqual(t["error"], NONE)
        return t["id"]

    def test_metadata_v12_id_is_the_one_in_partition_metadata(self):
        self.create("ids-meta", 3)
        tid = self.topic_id("ids-meta")
        self.assertNotEqual(tid, ZERO_ID)
        expected = "version: 0\ntopic_id: %s\n" % kafka_id_text(tid)
        for p in range(3):
            self.assertEqual(read_partition_metadata(self.broker, "ids-meta", p), expected)
        # By id: the same topic, named.
        [t] = self.client.metadata(ids=[tid])
        self.assertEqual((t["error"], t["name"], t["id"], t["partitions"]),
                         (NONE, "ids-meta", tid, 3))
        # The id survives a restart.
        self.client.close()
        self.broker.restart()
        self.client = Client(self.broker.port)
        self.assertEqual(self.topic_id("ids-meta"), tid)

    def test_fetch_by_id_returns_the_records(self):
        self.create("ids-fetch", 2)
        values = [b"m%d" % i for i in range(20)]
        self.produce("ids-fetch", values, partition=1)
        tid = self.topic_id("ids-fetch")
        for version in (13, 17):
            got = self.client.fetch({(tid, 1): 0, (tid, 0): 0}, version)
            self.assertEqual(list(got), [tid])
            parts = {p: (e, vals) for p, e, vals in got[tid]}
            self.assertEqual(parts[1], (NONE, values), "v%d" % version)
            self.assertEqual(parts[0], (NONE, []), "v%d" % version)
        # From an offset in the middle.
        got = self.client.fetch({(tid, 1): 15})
        self.assertEqual(got[tid][0][2], values[15:])

    def test_kafka_4_versions_by_topic_id(self):
        """What a Kafka 4.1/4.2 client sends: produce, fetch and commit by id, nothing by name."""
        self.create("ids-k4", 2)
        tid = self.topic_id("ids-k4")
        unknown = bytes(range(16))
        self.assertEqual(self.client.metadata_v13_error("ids-k4"), NONE)
        batch = record_batch([(None, b"k4-%d" % i, [], 0) for i in range(3)], 1700000000000)
        got = self.client.produce_by_id({tid: {1: batch}, unknown: {0: batch}})
        self.assertEqual(got[tid], [(1, NONE, 0)])
        self.assertEqual(got[unknown], [(0, UNKNOWN_TOPIC_ID, -1)])
        got = self.client.produce_by_id({tid: {1: batch}})
        self.assertEqual(got[tid], [(1, NONE, 3)])
        # Every record back, in order, exactly once, by id at Fetch v18.
        values = [b"k4-%d" % i for i in range(3)] * 2
        got = self.client.fetch({(tid, 1): 0, (tid, 0): 0}, 18)
        parts = {p: (e, vals) for p, e, vals in got[tid]}
        self.assertEqual(parts, {1: (NONE, values), 0: (NONE, [])})
        # Offsets committed and read back by id; an unknown id is refused and stores nothing.
        got = self.client.commit_by_id("g-k4", {(tid, 1): 6, (unknown, 0): 1})
        self.assertEqual(got, {tid: [(1, NONE)], unknown: [(0, UNKNOWN_TOPIC_ID)]})
        got = self.client.fetch_offsets_by_id("g-k4", {tid: [0, 1], unknown: [0]})
        self.assertEqual(got, {tid: [(0, -1, NONE), (1, 6, NONE)],
                               unknown: [(0, -1, UNKNOWN_TOPIC_ID)]})
        self.assertEqual(self.client.fetch_offsets_by_id("g-k4", None), {tid: [(1, 6, NONE)]})
        # ListOffsets v11: latest, and -6 (earliest pending upload) without remote storage.
        self.assertEqual(self.client.list_offset("ids-k4", 1, -1)[0::2], (NONE, 6))
        self.assertEqual(self.client.list_offset("ids-k4", 1, -6), (NONE, -1, -1, -1))
        # InitProducerId v6: two-phase commit refused as by Kafka with it turned off.
        self.assertEqual(self.client.init_producer_id("txn-2pc", True)[0],
                         TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        self.assertEqual(self.client.init_producer_id(None, False, True)[0], UNSUPPORTED_VERSION)
        error, pid, ongoing = self.client.init_producer_id(None, False)
        self.assertEqual((error, ongoing), (NONE, -1))
        self.assertGreaterEqual(pid, 0)

    def test_delete_and_recreate_gives_a_new_id(self):
        self.create("ids-again", 1)
        self.produce("ids-again", [b"old"])
        old = self.topic_id("ids-again")
        [(name, rid, error)] = self.client.delete_by_id([old])
        self.assertEqual((name, rid, error), ("ids-again", old, NONE))
        self.create("ids-again", 1)
        self.produce("ids-again", [b"new"])
        new = self.topic_id("ids-again")
        self.assertNotEqual(new, old)
        self.assertNotEqual(new, ZERO_ID)
        got = self.client.fetch({(old, 0): 0})
        self.assertEqual(got[old], [(0, UNKNOWN_TOPIC_ID, [])])
        got = self.client.fetch({(new, 0): 0})
        self.assertEqual(got[new], [(0, NONE, [b"new"])])
        [t] = self.client.metadata(ids=[old])
        self.assertEqual((t["error"], t["name"], t["id"]), (UNKNOWN_TOPIC_ID, None, old))
        [(_, _, error)] = self.client.delete_by_id([old])
        self.assertEqual(error, UNKNOWN_TOPIC_ID)

    def test_describe_topic_partitions_pages(self):
        self.create("ids-dtp-a", 3)
        self.create("ids-dtp-b", 2)
        seen = []
        cursor = None
        pages = 0
        while True:
            topics, cursor = self.client.describe_topic_partitions(
                ["ids-dtp-b", "ids-dtp-a"], 2, cursor)
            pages += 1
            for error, name, tid, parts in topics:
                self.assertEqual(error, NONE)
                self.assertEqual(tid, self.topic_id(name))
                seen += [(name, p) for p in parts]
            if cursor is None:
                break
        self.assertEqual(seen, [("ids-dtp-a", 0), ("ids-dtp-a", 1), ("ids-dtp-a", 2),
                                ("ids-dtp-b", 0), ("ids-dtp-b", 1)])
        self.assertEqual(pages, 3)


class PartitionMetadataAtStartTest(unittest.TestCase):
    def test_tampered_file_stops_the_broker_naming_the_dir(self):
        broker = skiff_harness.Broker().start()
        try:
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            for f in admin.create_topics([NewTopic("ids-tamper", 2, 1)]).values():
                f.result(30)
            broker.stop()
            path = os.path.join(broker.partition_dir("ids-tamper", 1), "partition.metadata")
            other = kafka_id_text(bytes(range(1, 17)))
            with open(path, "w") as f:
                f.write("version: 0\ntopic_id: %s\n" % other)
            with self.assertRaises(skiff_harness.BrokerError) as failed:
                broker.start()
            self.assertIn(broker.partition_dir("ids-tamper", 1), str(failed.exception))
            self.assertIn("inconsistent topic id", str(failed.exception))
            self.assertNotEqual(broker.proc.returncode, 0)
        finally:
            broker.kill()
            broker.cleanup()

    def test_dir_without_the_file_gets_one_at_start(self):
        broker = skiff_harness.Broker().start()
        try:
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            for f in admin.create_topics([NewTopic("ids-old", 2, 1)]).values():
                f.result(30)
            broker.stop()
            for p in range(2):  # as skiff wrote them before topic ids
                os.remove(os.path.join(broker.partition_dir("ids-old", p), "partition.metadata"))
            broker.start()
            texts = [read_partition_metadata(broker, "ids-old", p) for p in range(2)]
            self.assertEqual(texts[0], texts[1])
            client = Client(broker.port)
            [t] = client.metadata(["ids-old"])
            client.close()
            self.assertNotEqual(t["id"], ZERO_ID)
            self.assertEqual(texts[0], "version: 0\ntopic_id: %s\n" % kafka_id_text(t["id"]))
            broker.stop()
        finally:
            broker.kill()
            broker.cleanup()


if __name__ == "__main__":
    skiff_harness.run_tests()
