"""The console's consumer-group API (docs/console-api.md, "Consumer groups") against the real
skiff binary, with a confluent-kafka consumer group on the Kafka side.

    /usr/bin/python3 test_console_api_groups.py /path/to/skiff

1. A consumer of group `lagtest` consumes a topic of 3 partitions and commits an offset of its
   choosing per partition. While it is a member, GET /api/groups/lagtest shows the group Stable,
   the member with its assignment (decoded from the consumer protocol's bytes) covering the three
   partitions, and per partition the committed offset, the log end offset and the lag exactly as
   the client computes them (get_watermark_offsets' high watermark minus committed()). A reset
   is refused while the group has a member (Kafka's rule) and commits nothing.
2. After the consumer closed, a reset to earliest is accepted and a new consumer of the group
   resumes from offset 0 on every partition (its auto.offset.reset is `latest`, so only the
   committed offsets can put it there); resets to latest, a timestamp and an offset commit what
   ListOffsets answers, read back with committed().
3. Bad input: an unknown group is 404 with GROUP_ID_NOT_FOUND; malformed or wrong-typed reset
   bodies are 400 and commit nothing; with console.read.only=true (the default) a reset is 403.
4. A KIP-848 group (one @platformatic/kafka member with groupProtocol 'consumer',
   node/platformatic_group_member.mjs, installed by npm_clients) is described through
   ConsumerGroupDescribe: type `consumer`, its member owning every partition, the offsets it
   auto-commits with their lag. A reset is refused while it is a member and accepted once it
   left. Skipped without Node.js 20.19.4+.
"""

import json
import os
import subprocess
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402
from test_node_platformatic import MIN_NODE, NODE_SRC, node_version  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

TOPIC = "lag-orders"
GROUP = "lagtest"
PER_PARTITION = {0: 12, 1: 7, 2: 20}
COMMIT_AT = {0: 5, 1: 7, 2: 1}


def http(method, url, body=None):
    data = None if body is None else (body if isinstance(body, bytes) else body.encode())
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode())


def console_broker(read_only=False):
    return skiff_harness.Broker({"console.listeners": "http://127.0.0.1:0",
                                 "console.read.only": "true" if read_only else "false",
                                 "group.initial.rebalance.delay.ms": 0},
                                name="console")


class ConsoleGroupsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = console_broker().owned_by(cls)
        cls.broker.start()
        cls.api = "http://127.0.0.1:%d/api" % cls.broker.console_port()
        admin = AdminClient({"bootstrap.servers": cls.broker.bootstrap})
        for f in admin.create_topics([NewTopic(TOPIC, 3, 1)]).values():
            f.result(30)
        producer = Producer({"bootstrap.servers": cls.broker.bootstrap, "acks": "all"})
        for p, n in PER_PARTITION.items():
            for i in range(n):
                producer.produce(TOPIC, value=b"v%d-%d" % (p, i), partition=p,
                                 timestamp=1_700_000_000_000 + i * 1000)
        assert producer.flush(30) == 0

    def consumer(self, group=GROUP, reset="earliest"):
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": group,
                      "enable.auto.commit": False, "auto.offset.reset": reset,
                      "session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
        self.addCleanup(c.close)
        return c

    def committed(self, group=GROUP):
        c = self.consumer(group)
        got = c.committed([TopicPartition(TOPIC, p) for p in PER_PARTITION], timeout=30)
        return {tp.partition: tp.offset for tp in got}

    def consume_until(self, consumer, want, timeout_s=30):
        """Polls until `want(messages)` holds; the messages polled so far."""
        messages = []
        deadline = time.monotonic() + timeout_s
        while not want(messages):
            self.assertLess(time.monotonic(), deadline, "consumed only %d" % len(messages))
            m = consumer.poll(0.5)
            if m is not None and m.error() is None:
                messages.append(m)
        return messages

    def test_1_lag_members_and_a_refused_reset(self):
        c = self.consumer()
        c.subscribe([TOPIC])
        total = sum(PER_PARTITION.values())
        self.consume_until(c, lambda ms: len(ms) >= total)
        c.commit(offsets=[TopicPartition(TOPIC, p, o) for p, o in COMMIT_AT.items()],
                 asynchronous=False)

        status, group = http("GET", self.api + "/groups/" + GROUP)
        self.assertEqual(status, 200, group)
        self.assertEqual(group["type"], "classic")
        self.assertEqual(group["state"], "Stable")
        self.assertEqual(group["protocol_type"], "consumer")
        self.assertEqual(len(group["members"]), 1, group)
        assigned = {(a["topic"], p) for a in group["members"][0]["assignment"]
                    for p in a["partitions"]}
        self.assertEqual(assigned, {(TOPIC, p) for p in PER_PARTITION})

        # The lag as the client computes it: high watermark - committed, per partition.
        committed = {tp.partition: tp.offset for tp in
                     c.committed([TopicPartition(TOPIC, p) for p in PER_PARTITION], timeout=30)}
        offsets = {o["partition"]: o for o in group["offsets"] if o["topic"] == TOPIC}
        self.assertEqual(set(offsets), set(PER_PARTITION))
        total_lag = 0
        for p in PER_PARTITION:
            _low, high = c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=30)
            self.assertEqual(offsets[p]["committed_offset"], committed[p])
            self.assertEqual(offsets[p]["log_end_offset"], high)
            self.assertEqual(offsets[p]["lag"], high - committed[p])
            total_lag += high - committed[p]
        self.assertEqual(group["lag"], total_lag)

        status, listed = http("GET", self.api + "/groups")
        self.assertEqual(status, 200)
        row = [g for g in listed["groups"] if g["group_id"] == GROUP]
        self.assertEqual(len(row), 1, listed)
        self.assertEqual((row[0]["type"], row[0]["state"], row[0]["members"]),
                         ("classic", "Stable", 1))

        # Kafka refuses to alter the offsets of a group with members: so does the console.
        status, refused = http("POST", self.api + "/groups/%s/offsets/reset" % GROUP,
                               json.dumps({"to": "earliest"}))
        self.assertEqual(status, 400, refused)
        self.assertEqual(refused["kafka_error"], "UNKNOWN_MEMBER_ID")
        self.assertIn("members", refused["message"])
        self.assertEqual(self.committed(), COMMIT_AT)
        c.close()

    def test_2_reset_an_empty_group_and_the_consumer_resumes_from_it(self):
        # Test 1's consumer left; the group is empty (or never had members when run alone).
        status, body = http("POST", self.api + "/groups/%s/offsets/reset" % GROUP,
                            json.dumps({"to": "offset", "offset": 3, "topics": [TOPIC]}))
        self.assertEqual(status, 200, body)
        self.assertEqual(self.committed(), {0: 3, 1: 3, 2: 3})

        status, body = http("POST", self.api + "/groups/%s/offsets/reset" % GROUP,
                            json.dumps({"to": "latest"}))
        self.assertEqual(status, 200, body)
        self.assertEqual(self.committed(), PER_PARTITION)
        status, group = http("GET", self.api + "/groups/" + GROUP)
        self.assertEqual(group["lag"], 0)

        # Record i of each partition has timestamp 1700000000000 + i s: the first at/after
        # +5.5 s is offset 6, or the end where a partition has fewer records.
        status, body = http("POST", self.api + "/groups/%s/offsets/reset" % GROUP,
                            json.dumps({"to": "timestamp", "timestamp": 1_700_000_005_500}))
        self.assertEqual(status, 200, body)
        self.assertEqual(self.committed(), {p: min(6, n) for p, n in PER_PARTITION.items()})

        status, body = http("POST", self.api + "/groups/%s/offsets/reset" % GROUP,
                            json.dumps({"to": "earliest"}))
        self.assertEqual(status, 200, body)
        self.assertEqual({(o["partition"], o["offset"]) for o in body["offsets"]},
                         {(p, 0) for p in PER_PARTITION})
        self.assertEqual(self.committed(), {p: 0 for p in PER_PARTITION})

        # auto.offset.reset=latest: only the committed offsets can start it at 0.
        c = self.consumer(reset="latest")
        c.subscribe([TOPIC])
        total = sum(PER_PARTITION.values())
        got = self.consume_until(c, lambda ms: len(ms) >= total)
        first = {}
        for m in got:
            first.setdefault(m.partition(), m.offset())
        self.assertEqual(first, {p: 0 for p in PER_PARTITION})
        self.assertEqual(len(got), total)

    def test_3_bad_input_changes_nothing(self):
        status, body = http("GET", self.api + "/groups/no-such-group")
        self.assertEqual(status, 404, body)
        self.assertEqual(body["kafka_error"], "GROUP_ID_NOT_FOUND")
        self.assertEqual(body["error_code"], 404)

        group = "bad-input-group"
        c = self.consumer(group)
        c.commit(offsets=[TopicPartition(TOPIC, 0, 2)], asynchronous=False)
        for bad in [b"{", b"not json", b"[]", b'{"to":"yesterday"}', b'{"to":"offset"}',
                    b'{"to":"offset","offset":-5}', b'{"to":"offset","offset":"3"}',
                    b'{"to":"timestamp","timestamp":1e400}', b'{"to":"earliest","topics":"x"}',
                    b'{"to":"offset","offset":123456789012345678901234567890}']:
            status, body = http("POST", self.api + "/groups/%s/offsets/reset" % group, bad)
            self.assertEqual(status, 400, (bad, body))
            self.assertEqual(body["error_code"], 400)
            self.assertIsInstance(body["message"], str)
        status, body = http("POST", self.api + "/groups/%s/offsets/reset" % group,
                            json.dumps({"to": "earliest", "topics": ["no-such-topic"]}))
        self.assertEqual(status, 404, body)
        got = c.committed([TopicPartition(TOPIC, 0)], timeout=30)
        self.assertEqual(got[0].offset, 2)

    def test_4_reset_is_refused_in_read_only_mode(self):
        b = console_broker(read_only=True).owned_by(self)
        b.start()
        api = "http://127.0.0.1:%d/api" % b.console_port()
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "ro"})
        self.addCleanup(c.close)
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        for f in admin.create_topics([NewTopic("ro-topic", 1, 1)]).values():
            f.result(30)
        c.commit(offsets=[TopicPartition("ro-topic", 0, 0)], asynchronous=False)
        status, body = http("POST", api + "/groups/ro/offsets/reset", json.dumps({"to": "latest"}))
        self.assertEqual(status, 403, body)
        self.assertIn("read-only", body["message"])
        status, body = http("GET", api + "/groups/ro")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["offsets"][0]["committed_offset"], 0)

    def test_5_a_kip848_consumer_group(self):
        version = node_version()
        if version is None or version < MIN_NODE:
            self.skipTest("SKIPPED: node %s is missing or older than %s" % (version, MIN_NODE))
        dest = npm_clients.install(NODE_SRC, "node-clients", ("platformatic_group_member.mjs",))
        group = "kip848-console"
        member = skiff_harness.spawn(["node", "platformatic_group_member.mjs",
                                      self.broker.bootstrap, TOPIC, group], cwd=dest,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(member.stdout.close)
        self.addCleanup(member.stdin.close)
        self.addCleanup(lambda: skiff_harness.stop_process(member, grace_s=5))
        seen = {"assigned": None, "got": 0, "left": threading.Event()}

        def read():
            for line in member.stdout:
                line = line.rstrip("\n")
                if line.startswith("assigned"):
                    text = line[len("assigned"):].strip()
                    seen["assigned"] = sorted(int(p) for p in text.split(",")) if text else []
                elif line.startswith("got "):
                    seen["got"] += 1
                elif line == "left":
                    seen["left"].set()
        threading.Thread(target=read, daemon=True).start()

        total = sum(PER_PARTITION.values())
        # It reads everything and auto-commits every 100 ms: the group's lag drops to 0.
        skiff_harness.wait_until(lambda: seen["got"] >= total, 60, what="the member consumed")

        def described():
            status, body = http("GET", self.api + "/groups/" + group)
            self.assertEqual(status, 200, body)
            return body
        skiff_harness.wait_until(
            lambda: {o["partition"]: o["lag"] for o in described()["offsets"]}
            == {p: 0 for p in PER_PARTITION}, 30, what="lag 0 on every partition")
        body = described()
        self.assertEqual((body["type"], body["protocol_type"]), ("consumer", "consumer"))
        self.assertEqual(body["state"], "Stable")
        self.assertEqual(len(body["members"]), 1, body)
        owned = {(a["topic"], p) for a in body["members"][0]["assignment"] for p in a["partitions"]}
        self.assertEqual(owned, {(TOPIC, p) for p in PER_PARTITION})
        self.assertEqual({o["partition"]: o["committed_offset"] for o in body["offsets"]},
                         PER_PARTITION)
        status, listed = http("GET", self.api + "/groups")
        self.assertIn({"group_id": group, "type": "consumer", "state": "Stable",
                       "protocol_type": "consumer", "members": 1}, listed["groups"])

        status, refused = http("POST", self.api + "/groups/%s/offsets/reset" % group,
                               json.dumps({"to": "earliest"}))
        self.assertEqual(status, 400, refused)
        self.assertEqual(self.committed(group), PER_PARTITION)

        member.stdin.write("leave\n")
        member.stdin.flush()
        self.assertTrue(seen["left"].wait(30), "the member did not leave")
        status, body = http("POST", self.api + "/groups/%s/offsets/reset" % group,
                            json.dumps({"to": "earliest"}))
        self.assertEqual(status, 200, body)
        self.assertEqual(self.committed(group), {p: 0 for p in PER_PARTITION})
        self.assertEqual(described()["lag"], total)


if __name__ == "__main__":
    skiff_harness.run_tests()
