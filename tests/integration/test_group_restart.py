"""Group state that survives a broker restart (docs/consumer-groups.md, "State across restarts").

    /usr/bin/python3 test_group_restart.py /path/to/skiff

skiff keeps each group's state in __consumer_offsets in Kafka's records (GroupMetadata for a
classic group, the consumer group records for a KIP-848 group), so that after a kill -9 or a
clean stop the members that keep heartbeating carry on without a rebalance. Each test restarts
the broker on the same port and data directory while real clients keep running:

- a KIP-848 group of @platformatic/kafka consumers (node/platformatic_group_restart.mjs): the
  group epoch, member ids, epochs and assignments (from ConsumerGroupDescribe) are the same
  after a kill -9 of a stable group, after a kill -9 just after a fourth member joined, and after
  a clean restart; no member joins again; every message produced is consumed;
- a classic group of confluent-kafka (librdkafka) consumers: after each restart of a stable group
  no rebalance happens (no revoke or assign callback, librdkafka's rebalance count unchanged),
  each member keeps its partitions; a kill -9 while a fourth member joins ends in one group of
  four; every message produced is consumed, none twice between commits of a stable group.
"""

import json
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

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402


def fixed_port_broker(overrides, name):
    """A broker that keeps its port across restarts, as the clients' bootstrap address."""
    port = skiff_harness.free_port()
    settings = {"listeners": "PLAINTEXT://127.0.0.1:%d" % port}
    settings.update(overrides)
    return skiff_harness.Broker(settings, name=name)


class ConsumerProtocolRestartTest(unittest.TestCase):
    def setUp(self):
        version = node_version()
        if version is None or version < MIN_NODE:
            self.skipTest("SKIPPED: node %s is missing or older than %s" % (version, MIN_NODE))

    def test_consumer_group_resumes_after_kill_and_clean_restart(self):
        dest = npm_clients.install(NODE_SRC, "node-clients", ("platformatic_group_restart.mjs",))
        with fixed_port_broker({"group.consumer.heartbeat.interval.ms": "500",
                                "group.consumer.min.heartbeat.interval.ms": "100"},
                               "consumer-protocol restart broker") as broker:
            proc = subprocess.Popen(["node", "platformatic_group_restart.mjs", broker.bootstrap],
                                    cwd=dest, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    text=True)
            restarts = []
            timer = threading.Timer(300, proc.kill)
            timer.start()
            try:
                for line in proc.stdout:
                    sys.stdout.write(line)
                    if line.startswith("RESTART "):
                        how = line.split()[1]
                        broker.restart(graceful=(how == "clean"))
                        restarts.append(how)
                        proc.stdin.write("restarted\n")
                        proc.stdin.flush()
                code = proc.wait()
            finally:
                timer.cancel()
            self.assertEqual(code, 0, "the restart script failed")
            self.assertEqual(restarts, ["kill", "kill", "clean"])
            self.assertIn("restored 1 group(s)", broker.log_text())


class ClassicMember:
    """A confluent-kafka consumer polled on its own thread, recording what a user would see."""

    def __init__(self, name, bootstrap, topic, group, received):
        self.name = name
        self.events = []  # ("assign" | "revoke", partitions)
        self.rebalances = 0  # librdkafka's own count (statistics: cgrp.rebalance_cnt)
        self.received = received
        self.lock = threading.Lock()
        self.running = True
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": group, "client.id": name,
            "session.timeout.ms": 20000, "heartbeat.interval.ms": 500,
            "auto.offset.reset": "earliest", "enable.auto.commit": True,
            "auto.commit.interval.ms": 200, "statistics.interval.ms": 500,
            "stats_cb": self._stats, "reconnect.backoff.max.ms": 500,
        })
        self.consumer.subscribe([topic], on_assign=self._assign, on_revoke=self._revoke)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _stats(self, text):
        cgrp = json.loads(text).get("cgrp") or {}
        self.rebalances = cgrp.get("rebalance_cnt", self.rebalances)

    def _assign(self, _consumer, partitions):
        self.events.append(("assign", sorted(p.partition for p in partitions)))

    def _revoke(self, _consumer, partitions):
        self.events.append(("revoke", sorted(p.partition for p in partitions)))

    def _run(self):
        while self.running:
            m = self.consumer.poll(0.1)
            if m is not None and m.error() is None:
                with self.lock:
                    key = m.value().decode()
                    self.received[key] = self.received.get(key, 0) + 1

    def owned(self):
        return sorted(tp.partition for tp in self.consumer.assignment())

    def close(self):
        self.running = False
        self.thread.join()
        self.consumer.close()


class ClassicRestartTest(unittest.TestCase):
    PARTITIONS = 6

    def test_classic_group_resumes_after_kill_and_clean_restart(self):
        with fixed_port_broker({"group.initial.rebalance.delay.ms": "0"},
                               "classic restart broker") as broker:
            topic, group = "classic-restart", "classic-restart-group"
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            admin.create_topics([NewTopic(topic, self.PARTITIONS, 1)])[topic].result(30)
            sent, received = [], {}
            producing = threading.Event()
            producing.set()

            def produce():
                p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0,
                              "enable.idempotence": True})
                i = 0
                while producing.is_set():
                    value = "m-%d" % i
                    p.produce(topic, value.encode(), partition=i % self.PARTITIONS,
                              on_delivery=lambda err, msg: err is None and
                              sent.append(msg.value().decode()))
                    p.poll(0)
                    i += 1
                    time.sleep(0.005)
                self.assertEqual(p.flush(60), 0)
            producer = threading.Thread(target=produce, daemon=True)
            producer.start()

            members = [ClassicMember("member-%d" % i, broker.bootstrap, topic, group, received)
                       for i in (1, 2, 3)]

            def stable(count):
                owned = [m.owned() for m in members[:count]]
                flat = [p for o in owned for p in o]
                return sorted(flat) == list(range(self.PARTITIONS)) and all(owned)

            def assert_resumed(how):
                time.sleep(2)  # statistics come every 500 ms: let them catch up first
                before = [(m.owned(), len(m.events), m.rebalances) for m in members]
                if how == "kill":
                    broker.kill()
                    broker.start()
                else:
                    broker.restart()
                # Heartbeats and commits go on (librdkafka reconnects within a second); give
                # the members a few seconds, then nothing may have moved.
                skiff_harness.wait_until(lambda: "restored 1 group(s)" in broker.log_text(), 30,
                                         what="the group restored")
                time.sleep(5)
                after = [(m.owned(), len(m.events), m.rebalances) for m in members]
                for m, b, a in zip(members, before, after):
                    self.assertEqual(a, b, "%s rebalanced across the %s restart: events %s"
                                     % (m.name, how, m.events[b[1]:]))

            skiff_harness.wait_until(lambda: stable(3), 60, what="a stable group of three")
            assert_resumed("kill")

            # A fourth member joins; the broker dies while the group rebalances for it.
            members.append(ClassicMember("member-4", broker.bootstrap, topic, group, received))
            skiff_harness.wait_until(lambda: "preparing to rebalance" in broker.log_text(), 30,
                                     what="the rebalance for member-4")
            broker.kill()
            broker.start()
            skiff_harness.wait_until(lambda: stable(4) and all(m.owned() for m in members), 90,
                                     what="a stable group of four after the restart")
            time.sleep(3)
            assert_resumed("clean")

            producing.clear()
            producer.join(90)
            skiff_harness.wait_until(lambda: all(v in received for v in sent), 90,
                                     what="every acknowledged message consumed")
            for m in members:
                m.close()
            twice = sum(1 for v in sent if received.get(v, 0) > 1)
            print("%d sent, all consumed; %d consumed twice" % (len(sent), twice))
            self.assertLess(twice, len(sent) / 10)


if __name__ == "__main__":
    skiff_harness.run_tests()
