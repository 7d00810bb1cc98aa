"""ConsumerGroupHeartbeat (KIP-848) from raw sockets against the real skiff binary: each error a
client can provoke, as the client sees it on the wire, and a malformed request closing only its
own connection while another client's group keeps going.

    /usr/bin/python3 test_consumer_group_bad_input.py /path/to/skiff

The requests are built byte by byte here (v1, flexible: compact strings and arrays, tagged
fields), so what is checked is the wire, not skiff's own codec.
"""

import os
import socket
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from test_bad_input import RawBrokerTestBase, frame  # noqa: E402

HEARTBEAT = 68
V1 = 1

NONE = 0
UNKNOWN_MEMBER_ID = 25
INVALID_REQUEST = 42
GROUP_MAX_SIZE_REACHED = 81
FENCED_MEMBER_EPOCH = 110
UNRELEASED_INSTANCE_ID = 111
UNSUPPORTED_ASSIGNOR = 112
INVALID_REGULAR_EXPRESSION = 128


def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def cstring(s):
    """Compact nullable string: length + 1 as an unsigned varint, 0 for null."""
    if s is None:
        return b"\x00"
    data = s.encode()
    return uvarint(len(data) + 1) + data


def carray(items, encode):
    if items is None:
        return b"\x00"
    return uvarint(len(items) + 1) + b"".join(encode(i) for i in items)


def heartbeat_v1(group, member, epoch, instance=None, rebalance_timeout=30000, topics=("t",),
                 regex=None, assignor=None, owned=()):
    body = (cstring(group) + cstring(member) + struct.pack(">i", epoch) + cstring(instance)
            + cstring(None)  # rack_id
            + struct.pack(">i", rebalance_timeout)
            + carray(None if topics is None else list(topics), cstring)
            + cstring(regex) + cstring(assignor)
            + carray(None if owned is None else list(owned), lambda tp: tp)  # owned: empty here
            + b"\x00")  # tagged fields
    return body


def read_uvarint(data, pos):
    shift = n = 0
    while True:
        b = data[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n, pos
        shift += 7


def parse_heartbeat_response(body):
    """Response header v1 (the tag buffer after the correlation id), then the v1 body's head."""
    pos = 1  # the header's empty tag buffer
    _throttle, error = struct.unpack(">ih", body[pos:pos + 6])
    pos += 6
    n, pos = read_uvarint(body, pos)
    message = None if n == 0 else body[pos:pos + n - 1].decode()
    pos += max(n - 1, 0)
    n, pos = read_uvarint(body, pos)
    member = None if n == 0 else body[pos:pos + n - 1].decode()
    pos += max(n - 1, 0)
    epoch = struct.unpack(">i", body[pos:pos + 4])[0]
    return error, message, member, epoch


class ConsumerGroupBadInputTest(RawBrokerTestBase):
    overrides = {"num.partitions": 2, "group.consumer.max.size": 2}

    def beat(self, s, body):
        corr = self.next_corr()
        s.sendall(frame(HEARTBEAT, V1, corr, body, flexible_header=True))
        return parse_heartbeat_response(self.recv_response(s, corr))

    def expect(self, body, error, in_message=None):
        s = self.connect()
        got, message, _, _ = self.beat(s, body)
        self.assertEqual(got, error, "error code (message: %r)" % message)
        if in_message:
            self.assertIsNotNone(message)
            self.assertIn(in_message, message)
        return s

    def test_each_error_as_the_client_sees_it(self):
        self.expect(heartbeat_v1("g1", "m1", 0, rebalance_timeout=-1), INVALID_REQUEST,
                    "RebalanceTimeoutMs")
        self.expect(heartbeat_v1("g1", "", 0), INVALID_REQUEST, "MemberId")
        self.expect(heartbeat_v1("g1", "m1", 0, topics=None), INVALID_REQUEST,
                    "SubscribedTopicNames")
        self.expect(heartbeat_v1("g1", "m1", 0, assignor="sticky"), UNSUPPORTED_ASSIGNOR, "sticky")
        self.expect(heartbeat_v1("g1", "m1", 0, topics=None, regex="t-("),
                    INVALID_REGULAR_EXPRESSION, "t-(")
        self.expect(heartbeat_v1("g1", "nobody", 3, owned=None), UNKNOWN_MEMBER_ID)

        # A member that joins, then sends an epoch that is not its own.
        s = self.connect()
        error, _, member, epoch = self.beat(s, heartbeat_v1("g2", "m1", 0))
        self.assertEqual((error, member, epoch), (NONE, "m1", 1))
        error, message, _, _ = self.beat(s, heartbeat_v1("g2", "m1", 7, owned=None))
        self.assertEqual(error, FENCED_MEMBER_EPOCH, message)
        # group.consumer.max.size=2: a third member is refused.
        self.assertEqual(self.beat(s, heartbeat_v1("g2", "m2", 0))[0], NONE)
        self.expect(heartbeat_v1("g2", "m3", 0), GROUP_MAX_SIZE_REACHED, "2 members")
        # A second process with an instance id still in use.
        self.assertEqual(self.beat(s, heartbeat_v1("g3", "a", 0, instance="i"))[0], NONE)
        self.expect(heartbeat_v1("g3", "b", 0, instance="i"), UNRELEASED_INSTANCE_ID)

    def test_malformed_request_closes_only_its_connection(self):
        # A member of a group, on its own connection.
        member = self.connect()
        error, _, _, epoch = self.beat(member, heartbeat_v1("g4", "m1", 0))
        self.assertEqual((error, epoch), (NONE, 1))
        # A heartbeat cut short in its subscription array.
        body = heartbeat_v1("g4", "bad", 0)
        cut = self.connect()
        corr = self.next_corr()
        cut.sendall(frame(HEARTBEAT, V1, corr, body[:len(body) - 6], flexible_header=True))
        self.assert_closed(cut, "truncated ConsumerGroupHeartbeat")
        # An array length that claims more elements than the frame holds.
        huge = self.connect()
        corr = self.next_corr()
        bogus = (cstring("g4") + cstring("bad") + struct.pack(">i", 0) + cstring(None) + cstring(None)
                 + struct.pack(">i", 30000) + uvarint(1 << 28))
        huge.sendall(frame(HEARTBEAT, V1, corr, bogus, flexible_header=True))
        self.assert_closed(huge, "ConsumerGroupHeartbeat with an impossible array length")
        # The member is still served, in the same epoch, and nobody joined.
        error, message, _, epoch = self.beat(member, heartbeat_v1("g4", "m1", 1, owned=None,
                                                                   rebalance_timeout=-1, topics=None))
        self.assertEqual((error, epoch), (NONE, 1), message)


if __name__ == "__main__":
    skiff_harness.run_tests()
