"""ShareFetch (78), ShareAcknowledge (79) and the share-offsets admin APIs (90-92) from raw
sockets against the real skiff binary: the errors a request's own fields provoke, as a client
sees them on the wire, and a malformed frame of each API closing only its own connection while
the broker keeps serving other clients.

    /usr/bin/python3 test_share_fetch_bad_input.py /path/to/skiff

The requests are built byte by byte here, following the schemas kafka-ts 1.5 prints in its
encoders (all flexible: compact strings and arrays, tagged fields), so what is checked is the
wire, not skiff's own codec. The errors checked are those a request gets before the share
group's membership is consulted, so they hold whether or not share groups are wired.
"""

import os
import struct
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from test_bad_input import RawBrokerTestBase, frame  # noqa: E402
from test_consumer_group_bad_input import carray, cstring, read_uvarint, uvarint  # noqa: E402

SHARE_FETCH = 78
SHARE_ACKNOWLEDGE = 79
DESCRIBE_SHARE_GROUP_OFFSETS = 90
ALTER_SHARE_GROUP_OFFSETS = 91
DELETE_SHARE_GROUP_OFFSETS = 92

INVALID_REQUEST = 42
INVALID_SHARE_SESSION_EPOCH = 123


def ack_batch(first, last, types):
    return struct.pack(">qq", first, last) + carray(types, lambda t: struct.pack(">b", t)) + b"\x00"


def share_fetch_v1(group, member, epoch, topics=(), max_records=100, version=1):
    """topics: [(topic uuid bytes, [(partition, [ack batches])])]; version 2 adds
    share_acquire_mode and is_renew_ack after batch_size."""
    def partition(p):
        return struct.pack(">i", p[0]) + carray(p[1], lambda b: b) + b"\x00"

    def topic(t):
        return t[0] + carray(t[1], partition) + b"\x00"

    return (cstring(group) + cstring(member) + struct.pack(">i", epoch)
            + struct.pack(">iiiii", 0, 1, 1 << 20, max_records, max_records)
            + (b"\x00\x00" if version >= 2 else b"")
            + carray(list(topics), topic)
            + carray([], lambda f: f)  # forgotten_topics_data
            + b"\x00")


def share_acknowledge_v1(group, member, epoch, topics=()):
    def partition(p):
        return struct.pack(">i", p[0]) + carray(p[1], lambda b: b) + b"\x00"

    def topic(t):
        return t[0] + carray(t[1], partition) + b"\x00"

    return (cstring(group) + cstring(member) + struct.pack(">i", epoch)
            + carray(list(topics), topic) + b"\x00")


def describe_offsets_v1(group, topic):
    t = cstring(topic) + carray([0], lambda p: struct.pack(">i", p)) + b"\x00"
    return carray([cstring(group) + carray([t], lambda x: x) + b"\x00"], lambda g: g) + b"\x00"


def alter_offsets_v0(group, topic):
    p = struct.pack(">iq", 0, 5) + b"\x00"
    t = cstring(topic) + carray([p], lambda x: x) + b"\x00"
    return cstring(group) + carray([t], lambda x: x) + b"\x00"


def delete_offsets_v0(group, topic):
    return cstring(group) + carray([cstring(topic) + b"\x00"], lambda x: x) + b"\x00"


def top_level_error(body):
    """Response header v1 (a tag buffer after the correlation id), throttle_time_ms, error_code,
    error_message: the head ShareFetch and ShareAcknowledge responses share."""
    pos = 1
    _throttle, error = struct.unpack(">ih", body[pos:pos + 6])
    pos += 6
    n, pos = read_uvarint(body, pos)
    message = None if n == 0 else body[pos:pos + n - 1].decode()
    return error, message


class ShareFetchBadInputTest(RawBrokerTestBase):
    overrides = {"num.partitions": 1}

    def call(self, api, version, body):
        s = self.connect()
        corr = self.next_corr()
        s.sendall(frame(api, version, corr, body, flexible_header=True))
        return top_level_error(self.recv_response(s, corr))

    def test_share_fetch_without_a_group_id_is_invalid_request(self):
        error, message = self.call(SHARE_FETCH, 1, share_fetch_v1(None, "m1", 0))
        self.assertEqual(error, INVALID_REQUEST, message)
        self.assertIn("group id", message)

    def test_share_fetch_opening_a_session_with_acknowledgements_is_invalid_request(self):
        topic = uuid.uuid4().bytes
        body = share_fetch_v1("g", "m1", 0, [(topic, [(0, [ack_batch(0, 3, [1])])])])
        error, message = self.call(SHARE_FETCH, 1, body)
        self.assertEqual(error, INVALID_REQUEST, message)

    def test_share_acknowledge_cannot_open_a_session(self):
        topic = uuid.uuid4().bytes
        body = share_acknowledge_v1("g", "m1", 0, [(topic, [(0, [ack_batch(0, 0, [1])])])])
        error, message = self.call(SHARE_ACKNOWLEDGE, 1, body)
        self.assertEqual(error, INVALID_SHARE_SESSION_EPOCH, message)

    def test_malformed_frames_close_only_their_connection(self):
        topic = uuid.uuid4().bytes
        acks = [(topic, [(0, [ack_batch(0, 9, [1])])])]
        cases = [
            (SHARE_FETCH, 1, share_fetch_v1("g", "m1", 3, acks), "ShareFetch v1"),
            (SHARE_FETCH, 2, share_fetch_v1("g", "m1", 3, acks, version=2), "ShareFetch v2"),
            (SHARE_ACKNOWLEDGE, 1, share_acknowledge_v1("g", "m1", 3, acks), "ShareAcknowledge v1"),
            (DESCRIBE_SHARE_GROUP_OFFSETS, 1, describe_offsets_v1("g", "t"),
             "DescribeShareGroupOffsets v1"),
            (ALTER_SHARE_GROUP_OFFSETS, 0, alter_offsets_v0("g", "t"), "AlterShareGroupOffsets v0"),
            (DELETE_SHARE_GROUP_OFFSETS, 0, delete_offsets_v0("g", "t"),
             "DeleteShareGroupOffsets v0"),
        ]
        for api, version, body, what in cases:
            with self.subTest(what):
                cut = body[:len(body) - 4]  # cut short inside its last array
                self.send_bad_expect_close(
                    frame(api, version, self.next_corr(), cut, flexible_header=True),
                    "truncated " + what)
        # An array length that claims more elements than the frame holds.
        bogus = cstring("g") + cstring("m1") + struct.pack(">i", 1) + struct.pack(">iiiii", 0, 1, 1, 1, 1) \
            + uvarint(1 << 28)
        self.send_bad_expect_close(frame(SHARE_FETCH, 1, self.next_corr(), bogus, flexible_header=True),
                                   "ShareFetch with an impossible array length")
        # A well-formed request on a fresh connection is still answered, and the broker serves
        # producers and consumers as before.
        error, _ = self.call(SHARE_FETCH, 1, share_fetch_v1(None, "m1", 0))
        self.assertEqual(error, INVALID_REQUEST)
        self.assert_broker_healthy("malformed share requests")


if __name__ == "__main__":
    skiff_harness.run_tests()
