"""Bad input for share groups (KIP-932) against the real skiff binary: kafka-ts 1.5's low-level
requests (node/kafka_ts_share_bad_input.mjs) and raw malformed frames.

    /usr/bin/python3 test_share_groups_bad_input.py /path/to/skiff

Checked, each with the error code Kafka answers and nothing changed:
- acknowledging records another member acquired (ShareAcknowledge, and piggy-backed on
  ShareFetch), or an offset past the log's end: INVALID_RECORD_STATE; the holder still accepts them;
- acknowledging after the lock expired: INVALID_RECORD_STATE, and the records go to another
  member with delivery count 2;
- a wrong share session epoch: INVALID_SHARE_SESSION_EPOCH; a session never opened:
  SHARE_SESSION_NOT_FOUND; one session more than group.share.max.share.sessions:
  SHARE_SESSION_LIMIT_REACHED, until one closes;
- ShareFetch and ShareAcknowledge of a member the group does not know: UNKNOWN_MEMBER_ID;
- a malformed ShareFetch frame closes that connection while share consumers on other connections
  go on consuming every record.
"""

import json
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from share_groups import (INVALID_RECORD_STATE, INVALID_SHARE_SESSION_EPOCH,  # noqa: E402
                          SHARE_SESSION_LIMIT_REACHED, SHARE_SESSION_NOT_FOUND, SHORT_LOCKS,
                          UNKNOWN_MEMBER_ID, Consumers, ShareGroupTestBase, create_topic, produce)
from test_bad_input import frame  # noqa: E402

# Long enough for the probes before the expiry one to finish within a lock.
LOCK_MS = 5000
SHARE_FETCH = 78


def malformed_share_fetch_bodies():
    """ShareFetch v1 bodies that cannot be decoded: cut in the middle, a compact array claiming
    more elements than there are bytes, a negative string length."""
    group = b"\x09bad-group"  # compact string: length + 1
    member = b"\x05abcd"
    fixed = struct.pack(">iiiiii", 0, 500, 1, 1 << 20, 100, 100)
    whole = group + member + fixed + b"\x01" + b"\x01" + b"\x00"  # no topics, none forgotten
    return [
        whole[:7],                                       # cut in the member id
        group + member + fixed + b"\xff\xff\xff\x0f",    # topics: a quarter of a billion
        b"\x80\x80\x80\x80\x80\x80" + whole,             # a varint longer than five bytes
    ]


class ShareGroupBadInputTest(ShareGroupTestBase):
    def test_errors_and_state_unchanged(self):
        broker = skiff_harness.Broker(dict(SHORT_LOCKS, **{"group.share.max.share.sessions": "3"}),
                                      name="share bad input broker").owned_by(self).start()
        topic, group = "share-bad", "sg-bad"
        create_topic(broker, topic, 1)
        produce(broker, topic, [(0, "k%d" % i, b"v") for i in range(10)], batch_each=True)
        self.group_config(broker, group, share_auto_offset_reset="earliest",
                          share_record_lock_duration_ms=LOCK_MS)
        r = self.node("bad", broker.bootstrap, json.dumps({"group": group, "topic": topic,
                                                           "lockMs": LOCK_MS, "sessions": 3}))
        sys.stdout.write("bad input results: %s\n" % r)
        self.assertTrue(r["aAcquired"], "member a acquired nothing")
        self.assertEqual(r["aAcquired"][0][0], 0)
        self.assertTrue(r["bAcquired"], "member b acquired nothing")
        a_last = r["aAcquired"][-1][1]
        # b got only what a does not hold, for the first time.
        self.assertEqual(r["bAcquired"][0][0], a_last + 1)
        self.assertTrue(all(count == 1 for _f, _l, count in r["aAcquired"] + r["bAcquired"]))
        self.assertEqual(r["notAcquiredAck"], INVALID_RECORD_STATE)
        self.assertEqual(r["notAcquiredPiggyBack"], INVALID_RECORD_STATE)
        self.assertEqual(r["holderAccepts"], 0)
        self.assertEqual(r["beyondEndAck"], INVALID_RECORD_STATE)
        self.assertEqual(r["wrongEpoch"], INVALID_SHARE_SESSION_EPOCH)
        self.assertEqual(r["unknownSession"], SHARE_SESSION_NOT_FOUND)
        self.assertEqual(r["unknownMember"], UNKNOWN_MEMBER_ID)
        # ShareAcknowledge from a stranger: Kafka checks its session before its membership.
        self.assertIn(r["unknownMemberAck"], (UNKNOWN_MEMBER_ID, SHARE_SESSION_NOT_FOUND))
        # b's late acknowledgement changed nothing: the records went to c, second delivery.
        self.assertEqual(r["expiredAck"], INVALID_RECORD_STATE)
        self.assertEqual(r["afterExpiryError"], 0)
        self.assertEqual(r["afterExpiry"][0][0], a_last + 1)
        self.assertTrue(all(c == 2 for _f, _l, c in r["afterExpiry"]), r["afterExpiry"])
        self.assertEqual(r["overLimit"], SHARE_SESSION_LIMIT_REACHED)
        self.assertEqual(r["closeSession"], 0)
        self.assertEqual(r["afterClose"], 0)
        self.assertTrue(broker.alive())

    def test_malformed_frame_closes_only_that_connection(self):
        broker = skiff_harness.Broker(name="share malformed broker").owned_by(self).start()
        topic, group = "share-malformed", "sg-malformed"
        n = 200
        create_topic(broker, topic, 3)
        self.group_config(broker, group, share_auto_offset_reset="earliest")
        consumers = Consumers(self, broker, {
            "group": group, "topic": topic, "stopAfterFinal": n, "maxMs": 45000,
            "maxRecords": 20, "members": [{"name": "a"}, {"name": "b", "ackWith": "ack"}]})
        produce(broker, topic, [(i % 3, "k%d" % i, b"v") for i in range(n // 2)])
        skiff_harness.wait_until(lambda: consumers.count("delivery") > 0, 30, what="first deliveries")
        for corr, body in enumerate(malformed_share_fetch_bodies()):
            with socket.create_connection(("127.0.0.1", broker.port), timeout=10) as s:
                s.sendall(frame(SHARE_FETCH, 1, corr, body, flexible_header=True))
                self.assertEqual(s.recv(1), b"", "malformed ShareFetch %d: connection not closed" % corr)
        produce(broker, topic, [(i % 3, "k%d" % i, b"v") for i in range(n // 2, n)])
        events = consumers.wait()
        self.assertEqual([e for e in events if e["event"] == "timeout"], [])
        expected = {(p, o) for p in range(3) for o in range(sum(1 for i in range(n) if i % 3 == p))}
        self.assert_accepted_once(events, expected)
        self.assertTrue(broker.alive())


if __name__ == "__main__":
    skiff_harness.run_tests()
