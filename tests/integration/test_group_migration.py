"""Online migration between the group protocols (docs/consumer-groups.md, "Migration").

    /usr/bin/python3 test_group_migration.py /path/to/skiff

A group of two kafka-python consumers (Debian's python3-kafka: the classic protocol, eager range
assignment, auto-commit) consumes a topic of 6 partitions under a continuous produce. A
@platformatic/kafka member with the consumer protocol (node/platformatic_group_member.mjs) joins
it: the broker upgrades the group to a consumer group (group.consumer.migration.policy's default,
bidirectional), the classic members keep being served through JoinGroup/SyncGroup/Heartbeat and
the three share the partitions. The consumer-protocol member leaves: the group goes back to
classic and the two kafka-python members share all partitions again. Every acknowledged message
is consumed, and a message is consumed twice only where a partition moved before its consumer's
last commit (bounded below). With the policy `disabled`, the consumer-protocol member is refused
(GROUP_ID_NOT_FOUND: the group stays classic) and the classic members are not disturbed.
"""

import os
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402
from test_node_platformatic import MIN_NODE, NODE_SRC, node_version  # noqa: E402

import kafka  # noqa: E402
from kafka.admin import KafkaAdminClient, NewTopic  # noqa: E402

PARTITIONS = 6


class ClassicMember:
    """A kafka-python consumer polled on its own thread."""

    def __init__(self, name, bootstrap, topic, group, received):
        self.name = name
        self.received = received
        self.running = True
        self.consumer = kafka.KafkaConsumer(
            bootstrap_servers=bootstrap, group_id=group, client_id=name,
            auto_offset_reset="earliest", enable_auto_commit=True, auto_commit_interval_ms=100,
            session_timeout_ms=10000, heartbeat_interval_ms=300, max_poll_interval_ms=60000,
            api_version=(2, 0, 0))
        self.consumer.subscribe([topic])
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self.running:
            for records in self.consumer.poll(timeout_ms=100).values():
                for r in records:
                    key = r.value.decode()
                    self.received[key] = self.received.get(key, 0) + 1

    def owned(self):
        return sorted(tp.partition for tp in self.consumer.assignment())

    def close(self):
        self.running = False
        self.thread.join()
        self.consumer.close()


class NodeMember:
    """node/platformatic_group_member.mjs: one consumer-protocol member, driven over stdin."""

    def __init__(self, dest, bootstrap, topic, group, received, client_id="migration-member"):
        self.received = received
        self.assigned = None
        self.left = threading.Event()
        self.proc = subprocess.Popen(["node", "platformatic_group_member.mjs", bootstrap, topic,
                                      group, client_id], cwd=dest, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr),
                         daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("got "):
                v = line[4:]
                self.received[v] = self.received.get(v, 0) + 1
            elif line.startswith("assigned"):
                text = line[len("assigned"):].strip()
                self.assigned = sorted(int(p) for p in text.split(",")) if text else []
            elif line == "left":
                self.left.set()

    def owned(self):
        return self.assigned or []

    def leave(self):
        self.proc.stdin.write("leave\n")
        self.proc.stdin.flush()
        self.left.wait(30)
        return self.proc.wait(30)


class GroupMigrationTest(unittest.TestCase):
    def setUp(self):
        version = node_version()
        if version is None or version < MIN_NODE:
            self.skipTest("SKIPPED: node %s is missing or older than %s" % (version, MIN_NODE))
        self.dest = npm_clients.install(NODE_SRC, "node-clients",
                                        ("platformatic_group_member.mjs",))

    def start(self, broker, topic):
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        admin.create_topics([NewTopic(topic, PARTITIONS, 1)])
        admin.close()
        self.sent, self.received = [], {}
        self.producing = threading.Event()
        self.producing.set()

        def produce():
            p = kafka.KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", linger_ms=0)
            i = 0
            while self.producing.is_set():
                value = "m-%d" % i
                p.send(topic, value.encode(), partition=i % PARTITIONS).add_callback(
                    lambda _md, v=value: self.sent.append(v))
                i += 1
                time.sleep(0.005)
            p.flush(60)
            p.close()
        self.producer = threading.Thread(target=produce, daemon=True)
        self.producer.start()

    def covered(self, members):
        owned = [m.owned() for m in members]
        flat = [p for o in owned for p in o]
        return sorted(flat) == list(range(PARTITIONS)) and all(owned)

    def finish(self, members):
        self.producing.clear()
        self.producer.join(90)
        skiff_harness.wait_until(lambda: all(v in self.received for v in self.sent), 90,
                                 what="every acknowledged message consumed")
        for m in members:
            m.close()
        twice = sum(1 for v in self.sent if self.received.get(v, 0) > 1)
        print("%d sent, all consumed; %d consumed twice" % (len(self.sent), twice))
        return twice

    def test_classic_group_upgrades_and_downgrades_online(self):
        with skiff_harness.Broker({"group.consumer.heartbeat.interval.ms": "300",
                                   "group.consumer.min.heartbeat.interval.ms": "100",
                                   "group.initial.rebalance.delay.ms": "0"},
                                  name="migration broker") as broker:
            topic, group = "migration", "migration-group"
            self.start(broker, topic)
            classic = [ClassicMember("classic-%d" % i, broker.bootstrap, topic, group,
                                     self.received) for i in (1, 2)]
            skiff_harness.wait_until(lambda: self.covered(classic), 60,
                                     what="two classic members sharing the topic")

            node = NodeMember(self.dest, broker.bootstrap, topic, group, self.received)
            skiff_harness.wait_until(
                lambda: "upgraded from classic" in broker.log_text(), 30,
                what="the group upgraded to the consumer protocol")
            skiff_harness.wait_until(lambda: self.covered(classic + [node]), 60,
                                     what="three members (two classic) sharing the topic")
            print("with the consumer-protocol member:", [m.owned() for m in classic],
                  node.owned())

            self.assertEqual(node.leave(), 0, "".join(node.stderr))
            skiff_harness.wait_until(
                lambda: "downgraded to classic" in broker.log_text(), 30,
                what="the group downgraded to classic")
            skiff_harness.wait_until(lambda: self.covered(classic), 60,
                                     what="the two classic members sharing the topic again")
            twice = self.finish(classic)
            self.assertLessEqual(twice, len(self.sent) / 20)

    def test_disabled_policy_refuses_the_consumer_protocol_member(self):
        with skiff_harness.Broker({"group.consumer.migration.policy": "disabled",
                                   "group.initial.rebalance.delay.ms": "0"},
                                  name="no-migration broker") as broker:
            topic, group = "no-migration", "no-migration-group"
            self.start(broker, topic)
            classic = [ClassicMember("classic-%d" % i, broker.bootstrap, topic, group,
                                     self.received) for i in (1, 2)]
            skiff_harness.wait_until(lambda: self.covered(classic), 60,
                                     what="two classic members sharing the topic")
            before = [m.owned() for m in classic]
            node = NodeMember(self.dest, broker.bootstrap, topic, group, self.received)
            time.sleep(3)
            self.assertFalse(node.owned(), "the consumer-protocol member was given partitions")
            self.assertNotIn("upgraded from classic", broker.log_text())
            self.assertEqual([m.owned() for m in classic], before)
            node.proc.kill()
            node.proc.wait()
            self.finish(classic)


if __name__ == "__main__":
    skiff_harness.run_tests()
