"""Malformed and hostile input over raw sockets against the real skiff binary.

    /usr/bin/python3 test_bad_input.py /path/to/skiff

Every bad input goes over its own TCP connection, hand-encoded with struct (stdlib only), and
the test asserts either that the broker closes that connection (recv returns b'' within a few
seconds) or the exact error code in its response. After EACH bad input a good produce + consume
through confluent_kafka on fresh connections must succeed and the broker process must still be
alive. Record batches v2 are built here (with a pure-Python CRC-32C) and proven valid by a
positive control before their corrupted variants are used.

Broker started with socket.request.max.bytes=1048576.
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

MAX_REQUEST = 1048576
CLOSE_TIMEOUT_S = 5.0

# Kafka error codes used here.
NONE = 0
CORRUPT_MESSAGE = 2
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_REQUIRED_ACKS = 21
UNSUPPORTED_VERSION = 35
UNSUPPORTED_FOR_MESSAGE_FORMAT = 43

# What skiff advertises (ApiVersions response), key: (min, max).
EXPECTED_APIS = {0: (0, 13), 1: (0, 18), 2: (0, 11), 3: (0, 13), 8: (0, 10), 9: (0, 10),
                 10: (0, 6), 11: (0, 9), 15: (0, 6), 16: (0, 5), 18: (0, 4), 19: (0, 7),
                 20: (0, 6), 21: (0, 2), 22: (0, 6), 29: (0, 3), 30: (0, 3),
                 31: (0, 3), 35: (0, 4), 46: (0, 0), 47: (0, 0),
                 60: (0, 2), 75: (0, 0)}

# ---------------------------------------------------------------------------------------------
# Wire encoding
# ---------------------------------------------------------------------------------------------


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC32C[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def varint(n):
    z = (n << 1) ^ (n >> 63)  # zigzag (varlong-safe for |n| < 2**63)
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def kstring(s):
    if s is None:
        return struct.pack(">h", -1)
    b = s.encode() if isinstance(s, str) else s
    return struct.pack(">h", len(b)) + b


def kbytes(b):
    if b is None:
        return struct.pack(">i", -1)
    return struct.pack(">i", len(b)) + b


def record_batch(records, base_ts):
    """Record batch v2, no compression. records: [(key, value, [(hkey, hval)], ts_delta)]."""
    body = bytearray()
    for i, (key, value, headers, ts_delta) in enumerate(records):
        r = bytearray(b"\x00")  # attributes
        r += varint(ts_delta) + varint(i)
        r += varint(-1) if key is None else varint(len(key)) + key
        r += varint(-1) if value is None else varint(len(value)) + value
        r += varint(len(headers))
        for hk, hv in headers:
            hk = hk.encode()
            r += varint(len(hk)) + hk
            r += varint(-1) if hv is None else varint(len(hv)) + hv
        body += varint(len(r)) + r
    max_ts = base_ts + max(rec[3] for rec in records)
    after_crc = struct.pack(">hiqqqhii", 0, len(records) - 1, base_ts, max_ts, -1, -1, -1, len(records)) + body
    crc = crc32c(after_crc)
    batch_length = 4 + 1 + 4 + len(after_crc)  # leader epoch + magic + crc + rest
    return struct.pack(">qiibI", 0, batch_length, -1, 2, crc) + after_crc


def legacy_message_set_v1(key, value, ts):
    """A pre-0.11 message set: one magic-1 message (CRC-32/IEEE over magic..value)."""
    body = struct.pack(">bbq", 1, 0, ts) + kbytes(key) + kbytes(value)
    msg = struct.pack(">I", zlib.crc32(body)) + body
    return struct.pack(">qi", 0, len(msg)) + msg


def frame(api_key, version, corr, body, client_id="skiff-bad-input", flexible_header=False):
    header = struct.pack(">hhi", api_key, version, corr) + kstring(client_id)
    if flexible_header:
        header += b"\x00"  # empty tagged fields (request header v2)
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


def produce_v3_body(topic, partition, records, acks=-1, timeout_ms=10000):
    return (kstring(None) + struct.pack(">hi", acks, timeout_ms) + struct.pack(">i", 1) + kstring(topic)
            + struct.pack(">i", 1) + struct.pack(">i", partition) + kbytes(records))


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.d, self.p)
        self.p += struct.calcsize(fmt)
        return v if len(v) > 1 else v[0]

    def string(self):
        n = self.take(">h")
        if n < 0:
            return None
        s = self.d[self.p:self.p + n].decode()
        self.p += n
        return s

    def done(self):
        return self.p == len(self.d)


def parse_produce_v3_response(body):
    r = Reader(body)
    out = []
    for _ in range(r.take(">i")):
        name = r.string()
        for _ in range(r.take(">i")):
            partition, error, base_offset, append_time = r.take(">ihqq")
            out.append((name, partition, error, base_offset, append_time))
    throttle = r.take(">i")
    assert r.done(), "trailing bytes in Produce v3 response"
    return out, throttle


def parse_api_versions_v0(body):
    r = Reader(body)
    error = r.take(">h")
    apis = [r.take(">hhh") for _ in range(r.take(">i"))]
    assert r.done(), "trailing bytes in ApiVersions v0 response: %r" % body[r.p:]
    return error, apis


# ---------------------------------------------------------------------------------------------
# Test case
# ---------------------------------------------------------------------------------------------


class RawBrokerTestBase(unittest.TestCase):
    """Helpers plus one broker per test class (no tests of its own)."""
    broker = None
    corr = 1000
    overrides = {"socket.request.max.bytes": MAX_REQUEST, "num.partitions": 1}

    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker(cls.overrides, name=cls.__name__ + " broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.broker.stop()  # SIGTERM, exit code 0: bad clients must not break shutdown
        finally:
            cls.broker.cleanup()

    # ---- raw socket helpers ----------------------------------------------------------------
    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.broker.port), timeout=CLOSE_TIMEOUT_S)
        self.addCleanup(s.close)
        return s

    def next_corr(self):
        RawBrokerTestBase.corr += 1
        return RawBrokerTestBase.corr

    def recv_exact(self, s, n):
        buf = bytearray()
        deadline = time.monotonic() + CLOSE_TIMEOUT_S
        while len(buf) < n:
            if time.monotonic() > deadline:
                self.fail("timed out reading %d bytes (got %d)" % (n, len(buf)))
            chunk = s.recv(n - len(buf))
            if not chunk:
                self.fail("connection closed after %d of %d bytes" % (len(buf), n))
            buf += chunk
        return bytes(buf)

    def recv_response(self, s, corr):
        size = struct.unpack(">i", self.recv_exact(s, 4))[0]
        self.assertGreaterEqual(size, 4)
        data = self.recv_exact(s, size)
        self.assertEqual(struct.unpack(">i", data[:4])[0], corr, "correlation id")
        return data[4:]  # response header v0: just the correlation id

    def assert_closed(self, s, what):
        """The broker must close the connection: recv gives b'' (or a reset), never data."""
        deadline = time.monotonic() + CLOSE_TIMEOUT_S
        received = b""
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                return
            if not chunk:
                self.assertEqual(received, b"", "%s: broker sent data before closing" % what)
                return
            received += chunk
        self.fail("%s: connection still open after %.0fs (received %r)" % (what, CLOSE_TIMEOUT_S, received[:64]))

    def send_bad_expect_close(self, data, what, shutdown_write=False):
        s = self.connect()
        s.sendall(data)
        if shutdown_write:
            s.shutdown(socket.SHUT_WR)
        self.assert_closed(s, what)

    def raw_produce(self, topic, partition, records, acks=-1):
        s = self.connect()
        corr = self.next_corr()
        s.sendall(frame(0, 3, corr, produce_v3_body(topic, partition, records, acks=acks)))
        parts, throttle = parse_produce_v3_response(self.recv_response(s, corr))
        self.assertEqual(throttle, 0)
        self.assertEqual(len(parts), 1, parts)
        return parts[0]

    # ---- client helpers (confluent_kafka) --------------------------------------------------
    def client_conf(self):
        return {"bootstrap.servers": self.broker.bootstrap, "broker.address.family": "v4",
                "client.id": "skiff-it-verify"}

    def produce_via_client(self, topic, messages):
        from confluent_kafka import Producer
        p = Producer(dict(self.client_conf(), **{"acks": "all", "linger.ms": 0, "message.timeout.ms": 20000}))
        reports = []
        for key, value in messages:
            p.produce(topic, key=key, value=value, partition=0,
                      on_delivery=lambda err, msg: reports.append((err, msg.offset())))
        self.assertEqual(p.flush(30), 0, "undelivered messages")
        self.assertEqual(len(reports), len(messages))
        for err, _ in reports:
            self.assertIsNone(err, "delivery failed: %s" % err)
        return [off for _, off in reports]

    def consume_via_client(self, topic, start, count):
        from confluent_kafka import Consumer, KafkaError, TopicPartition
        # fetch.wait.max.ms is short so that no long-poll Fetch of this consumer is still parked
        # in the broker after close() (see DisconnectDuringFetchTest for why that matters).
        c = Consumer(dict(self.client_conf(), **{"group.id": "skiff-it-unused-group", "enable.auto.commit": False,
                                                 "enable.auto.offset.store": False, "auto.offset.reset": "error",
                                                 "fetch.wait.max.ms": 10}))
        try:
            c.assign([TopicPartition(topic, 0, start)])
            got = []
            deadline = time.monotonic() + 20
            while len(got) < count and time.monotonic() < deadline:
                for m in c.consume(num_messages=count - len(got), timeout=0.5):
                    if m.error():
                        if m.error().code() == KafkaError._PARTITION_EOF:
                            continue
                        self.fail("consume error: %s" % m.error())
                    got.append(m)
            self.assertEqual(len(got), count, "records consumed from %s@%d" % (topic, start))
            return got
        finally:
            c.close()

    def end_offset(self, topic):
        from confluent_kafka import Consumer, TopicPartition
        c = Consumer(dict(self.client_conf(), **{"group.id": "skiff-it-unused-group", "enable.auto.commit": False}))
        try:
            return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)[1]
        finally:
            c.close()

    def assert_broker_healthy(self, after):
        self.assertTrue(self.broker.alive(), "broker died after %s" % after)
        value = ("good after %s" % after).encode()
        # A fresh topic each time: a verifying consumer of an earlier check may still have a
        # Fetch parked on its topic (librdkafka closes sockets only when the handle is freed), and
        # waking that with new data is what DisconnectDuringFetchTest covers, not this check.
        topic = "good-%d" % self.next_corr()
        offsets = self.produce_via_client(topic, [(b"k", value), (b"k", value + b" (2)")])
        self.assertEqual(offsets, [0, 1])
        got = self.consume_via_client(topic, 0, 2)
        self.assertEqual([(m.offset(), m.key(), m.value()) for m in got],
                         [(0, b"k", value), (1, b"k", value + b" (2)")])
        self.assertTrue(self.broker.alive(), "broker died after %s" % after)


class BadInputTest(RawBrokerTestBase):
    # ---- sanity of the encoders --------------------------------------------------------------
    def test_00_encoders(self):
        self.assertEqual(crc32c(b"123456789"), 0xE3069283)
        self.assertEqual(varint(0), b"\x00")
        self.assertEqual(varint(-1), b"\x01")
        self.assertEqual(varint(1), b"\x02")
        self.assertEqual(varint(300), b"\xd8\x04")

    def test_01_valid_raw_produce_positive_control(self):
        """The hand-built batch is accepted and reads back exactly: the encoders are right."""
        topic = "raw-valid"
        self.produce_via_client(topic, [(b"seed", b"seed")])  # creates the topic; offset 0
        base_ts = int(time.time() * 1000) - 1000
        batch = record_batch([(b"k0", b"v0", [("h", b"x")], 0), (None, b"v1", [], 5),
                              (b"k2", None, [("a", b"1"), ("b", None)], 9)], base_ts)
        name, partition, error, base_offset, append_time = self.raw_produce(topic, 0, batch)
        self.assertEqual((name, partition, error, base_offset, append_time), (topic, 0, NONE, 1, -1))
        got = self.consume_via_client(topic, 1, 3)
        self.assertEqual([(m.offset(), m.key(), m.value(), m.headers(), m.timestamp()) for m in got],
                         [(1, b"k0", b"v0", [("h", b"x")], (1, base_ts)),
                          (2, None, b"v1", None, (1, base_ts + 5)),
                          (3, b"k2", None, [("a", b"1"), ("b", None)], (1, base_ts + 9))])
        self.assertEqual(self.end_offset(topic), 4)
        self.assert_broker_healthy("a valid raw produce")

    # ---- framing -----------------------------------------------------------------------------
    def test_garbage_http_request(self):
        # "GET " read as a frame size is 1195725856 > socket.request.max.bytes.
        self.send_bad_expect_close(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP request")
        self.assert_broker_healthy("an HTTP request")

    def test_garbage_small_frame(self):
        # A plausible size followed by junk: api_key 0xdead (negative) is not an API.
        self.send_bad_expect_close(b"\x00\x00\x00\x08\xde\xad\xbe\xef\xca\xfe\xba\xbe", "junk frame")
        self.assert_broker_healthy("a junk frame")

    def test_garbage_random_bytes(self):
        junk = bytes((i * 131 + 17) % 256 for i in range(4096))  # size prefix 0x11946217: too large
        self.send_bad_expect_close(junk, "random bytes")
        self.assert_broker_healthy("random bytes")

    def test_frame_larger_than_socket_request_max_bytes(self):
        # Only the size and a few bytes are sent: the broker must refuse without waiting for 2 MiB.
        self.send_bad_expect_close(struct.pack(">i", 2 * 1024 * 1024) + b"\x00\x12\x00\x00", "2 MiB frame size")
        self.assert_broker_healthy("an oversized frame")

    def test_frame_just_over_limit_with_body(self):
        s = self.connect()
        try:
            s.sendall(struct.pack(">i", MAX_REQUEST + 1) + b"\x00" * (MAX_REQUEST + 1))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the broker may already have closed: that is the expected outcome
        self.assert_closed(s, "frame of socket.request.max.bytes + 1")
        self.assert_broker_healthy("a frame one byte over the limit")

    def test_negative_frame_size(self):
        self.send_bad_expect_close(struct.pack(">i", -1) + b"\x00" * 16, "frame size -1")
        self.send_bad_expect_close(struct.pack(">i", -2147483648), "frame size INT32_MIN")
        self.assert_broker_healthy("negative frame sizes")

    def test_zero_frame_size(self):
        self.send_bad_expect_close(struct.pack(">i", 0), "frame size 0")
        self.assert_broker_healthy("a zero-size frame")

    def test_truncated_frame_then_eof(self):
        # Size says 100, only 10 bytes follow, then the client half-closes.
        self.send_bad_expect_close(struct.pack(">i", 100) + frame(18, 0, 1, b"")[4:14], "truncated frame",
                                   shutdown_write=True)
        self.assert_broker_healthy("a truncated frame")

    def test_truncated_header(self):
        # A complete frame holding only part of a request header (client_id length says 20).
        payload = struct.pack(">hhih", 3, 1, 7, 20) + b"abc"
        self.send_bad_expect_close(struct.pack(">i", len(payload)) + payload, "header cut inside client_id")
        self.assert_broker_healthy("a truncated request header")

    def test_body_cut_inside_field_metadata(self):
        # Metadata v1: topics array of 1, topic name length 20, only 3 bytes of it.
        body = struct.pack(">i", 1) + struct.pack(">h", 20) + b"abc"
        self.send_bad_expect_close(frame(3, 1, self.next_corr(), body), "Metadata v1 cut inside a topic name")
        self.assert_broker_healthy("a Metadata request cut inside a field")

    def test_body_cut_inside_field_produce(self):
        # Produce v3 whose records length says 500 but the frame ends after 20 bytes of it.
        body = kstring(None) + struct.pack(">hi", -1, 1000) + struct.pack(">i", 1) + kstring("raw-cut") \
            + struct.pack(">ii", 1, 0) + struct.pack(">i", 500) + b"\x00" * 20
        self.produce_via_client("raw-cut", [(None, b"seed")])
        self.send_bad_expect_close(frame(0, 3, self.next_corr(), body), "Produce v3 cut inside records")
        self.assertEqual(self.end_offset("raw-cut"), 1, "nothing stored")
        self.assert_broker_healthy("a Produce request cut inside a field")

    # ---- API keys and versions ---------------------------------------------------------------
    def test_unknown_api_key(self):
        self.send_bad_expect_close(frame(999, 0, self.next_corr(), b""), "api key 999")
        self.send_bad_expect_close(frame(-1, 0, self.next_corr(), b""), "api key -1")
        # A key skiff serves with its only field cut short. (Bytes after the last field are
        # ignored, as Kafka ignores them: tests/protocol/malformed_test.cpp.)
        self.send_bad_expect_close(frame(10, 0, self.next_corr(), struct.pack(">h", 5) + b"g"),
                                   "FindCoordinator v0 with its key cut short")
        self.assert_broker_healthy("unknown API keys")

    def test_unsupported_metadata_version(self):
        self.send_bad_expect_close(frame(3, 99, self.next_corr(), struct.pack(">i", -1)), "Metadata v99")
        self.send_bad_expect_close(frame(3, -1, self.next_corr(), struct.pack(">i", -1)), "Metadata v-1")
        self.send_bad_expect_close(frame(1, 99, self.next_corr(), b""), "Fetch v99")
        self.assert_broker_healthy("unsupported Metadata versions")

    def test_versions_past_the_newest_served(self):
        # A body valid at the newest served version is answered there, and the same bytes one
        # version later close the connection (the version alone is refused).
        bodies = {
            # ListGroups v5: states_filter [], types_filter [], tagged fields.
            16: b"\x01\x01\x00",
            # InitProducerId v6: transactional_id null, timeout, producer id -1, epoch -1,
            # enable_2pc false, keep_prepared_txn false, tags.
            22: b"\x00" + struct.pack(">iqh??", 60000, -1, -1, False, False) + b"\x00",
        }
        for key, body in bodies.items():
            newest = EXPECTED_APIS[key][1]
            s = self.connect()
            corr = self.next_corr()
            s.sendall(frame(key, newest, corr, body, flexible_header=True))
            self.assertTrue(self.recv_response(s, corr), "api key %d v%d answered" % (key, newest))
            s.close()
            self.send_bad_expect_close(frame(key, newest + 1, self.next_corr(), body, flexible_header=True),
                                       "api key %d v%d" % (key, newest + 1))
        self.assert_broker_healthy("versions past the newest served")

    def check_api_list(self, apis):
        keys = [a[0] for a in apis]
        self.assertEqual(len(keys), len(set(keys)), "duplicate API keys: %s" % keys)
        table = {k: (lo, hi) for k, lo, hi in apis}
        for key, rng in EXPECTED_APIS.items():
            self.assertEqual(table.get(key), rng, "api key %d range" % key)

    def test_api_versions_unsupported_version(self):
        s = self.connect()
        corr = self.next_corr()
        # As a new client would send it: ApiVersions v99 with a v2 (flexible) header and a v3-style
        # body (compact client_software_name/version + tagged fields).
        body = b"\x06skiff\x04" + b"1.0" + b"\x00"
        s.sendall(frame(18, 99, corr, body, flexible_header=True))
        error, apis = parse_api_versions_v0(self.recv_response(s, corr))
        self.assertEqual(error, UNSUPPORTED_VERSION)
        self.check_api_list(apis)
        # The connection stays usable: the client retries with v0 on the same socket.
        corr = self.next_corr()
        s.sendall(frame(18, 0, corr, b""))
        error, apis = parse_api_versions_v0(self.recv_response(s, corr))
        self.assertEqual(error, NONE)
        self.check_api_list(apis)
        self.assert_broker_healthy("ApiVersions v99")

    def test_api_versions_v99_with_v1_header(self):
        s = self.connect()
        corr = self.next_corr()
        s.sendall(frame(18, 99, corr, b""))
        error, apis = parse_api_versions_v0(self.recv_response(s, corr))
        self.assertEqual(error, UNSUPPORTED_VERSION)
        self.check_api_list(apis)
        self.assert_broker_healthy("ApiVersions v99 (v1 header)")

    # ---- Produce payloads ----------------------------------------------------------------------
    def test_produce_corrupt_crc(self):
        topic = "raw-corrupt"
        self.produce_via_client(topic, [(b"seed", b"seed-0"), (b"seed", b"seed-1")])
        before = self.end_offset(topic)
        self.assertEqual(before, 2)
        good = record_batch([(b"key", b"value-that-gets-flipped", [("h", b"v")], 0)], int(time.time() * 1000))
        # Flip one byte inside the value (covered by the CRC, not a length field).
        i = good.index(b"value-that-gets-flipped") + 3
        bad = good[:i] + bytes([good[i] ^ 0x01]) + good[i + 1:]
        self.assertEqual(len(bad), len(good))
        self.assertNotEqual(crc32c(bad[21:]), struct.unpack(">I", bad[17:21])[0])
        name, partition, error, base_offset, _ = self.raw_produce(topic, 0, bad)
        self.assertEqual((name, partition, error, base_offset), (topic, 0, CORRUPT_MESSAGE, -1))
        # Flipping the stored CRC itself is refused the same way.
        bad_crc = good[:17] + bytes([good[17] ^ 0x80]) + good[18:]
        name, partition, error, base_offset, _ = self.raw_produce(topic, 0, bad_crc)
        self.assertEqual((name, partition, error, base_offset), (topic, 0, CORRUPT_MESSAGE, -1))
        self.assertEqual(self.end_offset(topic), before, "a corrupt batch must store nothing")
        # The untouched batch is accepted right after, at the old end offset.
        name, partition, error, base_offset, _ = self.raw_produce(topic, 0, good)
        self.assertEqual((name, partition, error, base_offset), (topic, 0, NONE, before))
        got = self.consume_via_client(topic, 0, 3)
        self.assertEqual([(m.offset(), m.value()) for m in got],
                         [(0, b"seed-0"), (1, b"seed-1"), (2, b"value-that-gets-flipped")])
        self.assert_broker_healthy("a corrupt CRC")

    def test_produce_batch_length_beyond_records(self):
        topic = "raw-corrupt-length"
        self.produce_via_client(topic, [(None, b"seed")])
        good = record_batch([(b"k", b"v", [], 0)], int(time.time() * 1000))
        # batchLength claims 100 more bytes than the records field holds.
        bad = good[:8] + struct.pack(">i", struct.unpack(">i", good[8:12])[0] + 100) + good[12:]
        name, partition, error, base_offset, _ = self.raw_produce(topic, 0, bad)
        self.assertEqual((name, partition, error, base_offset), (topic, 0, CORRUPT_MESSAGE, -1))
        self.assertEqual(self.end_offset(topic), 1)
        self.assert_broker_healthy("a batch length beyond the records")

    def test_produce_magic_1_message_set(self):
        topic = "raw-magic1"
        self.produce_via_client(topic, [(None, b"seed")])
        legacy = legacy_message_set_v1(b"k", b"old format", int(time.time() * 1000))
        name, partition, error, base_offset, _ = self.raw_produce(topic, 0, legacy)
        self.assertEqual((name, partition, error, base_offset), (topic, 0, UNSUPPORTED_FOR_MESSAGE_FORMAT, -1))
        self.assertEqual(self.end_offset(topic), 1, "nothing stored")
        self.assert_broker_healthy("a magic-1 message set")

    def test_produce_invalid_acks(self):
        topic = "raw-acks"
        self.produce_via_client(topic, [(None, b"seed")])
        batch = record_batch([(b"k", b"v", [], 0)], int(time.time() * 1000))
        for acks in (5, 2, -2):
            name, partition, error, base_offset, _ = self.raw_produce(topic, 0, batch, acks=acks)
            self.assertEqual((name, partition, error, base_offset), (topic, 0, INVALID_REQUIRED_ACKS, -1),
                             "acks=%d" % acks)
        self.assertEqual(self.end_offset(topic), 1, "nothing stored")
        self.assert_broker_healthy("invalid acks")

    def test_produce_unknown_partition(self):
        topic = "raw-unknown-partition"
        self.produce_via_client(topic, [(None, b"seed")])
        batch = record_batch([(b"k", b"v", [], 0)], int(time.time() * 1000))
        for p in (1, -1):
            name, partition, error, base_offset, _ = self.raw_produce(topic, p, batch)
            self.assertEqual((name, partition, error, base_offset), (topic, p, UNKNOWN_TOPIC_OR_PARTITION, -1))
        self.assert_broker_healthy("an unknown partition")


def fetch_v4_body(topic, partition, offset, max_wait_ms, min_bytes=1, max_bytes=50 << 20):
    return (struct.pack(">iiiib", -1, max_wait_ms, min_bytes, max_bytes, 0) + struct.pack(">i", 1) + kstring(topic)
            + struct.pack(">i", 1) + struct.pack(">iqi", partition, offset, max_bytes))


class DisconnectDuringFetchTest(RawBrokerTestBase):
    """A client that goes away while the broker still owes it a Fetch response.

    A fresh broker per test, so a crash here cannot take other tests down with it. The broker
    runs with the default SIGPIPE disposition (subprocess restores it), as it would in production.
    """

    @classmethod
    def setUpClass(cls):
        pass

    @classmethod
    def tearDownClass(cls):
        pass

    def setUp(self):
        self.broker = skiff_harness.Broker({"num.partitions": 1}, name="%s broker" % self._testMethodName)
        self.broker.start()

    def tearDown(self):
        try:
            self.broker.stop()  # SIGTERM, exit code 0
        finally:
            self.broker.cleanup()

    def close_with_reset(self, s):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()

    def test_disconnect_while_fetch_is_parked(self):
        """Long-poll Fetch at the end offset, client resets, then data arrives for that fetch."""
        topic = "parked"
        self.produce_via_client(topic, [(b"k", b"v0")])
        for round_ in range(3):
            s = self.connect()
            end = self.end_offset(topic)
            s.sendall(frame(1, 4, self.next_corr(), fetch_v4_body(topic, 0, end, max_wait_ms=10000)))
            time.sleep(0.3)  # the broker has parked the fetch
            # An orderly close (FIN): the broker's first write still succeeds, the peer answers
            # it with a reset, and the record data that follows hits a dead socket.
            s.close()
            # Wakes the parked fetch: its response (record data) goes to a closed socket.
            wake = record_batch([(b"k", b"wake-%d" % round_, [], 0)], int(time.time() * 1000))
            try:
                result = self.raw_produce(topic, 0, wake)
            except (AssertionError, OSError):
                result = None
            time.sleep(0.3)
            self.assertTrue(self.broker.alive(), "broker died (exit %s) writing a Fetch response to a client "
                            "that had disconnected" % self.broker.proc.poll())
            self.assertEqual(result, (topic, 0, NONE, end, -1))
        self.assert_broker_healthy("a client reset during a parked Fetch")

    def test_disconnect_during_large_fetch_response(self):
        """Client resets while a multi-megabyte Fetch response is being written."""
        topic = "large"
        p_values = [(None, bytes([65 + i % 26]) * 1000) for i in range(3000)]
        self.produce_via_client(topic, p_values)
        for round_ in range(10):
            s = self.connect()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(frame(1, 4, self.next_corr(), fetch_v4_body(topic, 0, 0, max_wait_ms=0)))
            self.assertEqual(len(self.recv_exact(s, 64)), 64)  # the response has started
            self.close_with_reset(s)
            time.sleep(0.3)
            self.assertTrue(self.broker.alive(), "broker died (exit %s) after a client reset during a large "
                            "Fetch response (round %d)" % (self.broker.proc.poll(), round_))
        self.assert_broker_healthy("client resets during large Fetch responses")


if __name__ == "__main__":
    skiff_harness.run_tests()
