"""A consumer group's own configs (KIP-848's group configs, docs/consumer-groups.md#group-configs).

    /usr/bin/python3 test_group_configs.py /path/to/skiff

With @platformatic/kafka's Admin (IncrementalAlterConfigs and DescribeConfigs on a GROUP
resource) and its consumer-protocol members (node/platformatic_group_member.mjs), against a
broker whose own group.consumer.session.timeout.ms and group.consumer.heartbeat.interval.ms are
Kafka's defaults (45 s, 5 s):

- values outside the broker's bounds, a session timeout not above the heartbeat interval and an
  unknown name are refused with INVALID_CONFIG and a message naming the rule, and change
  nothing; DescribeConfigs shows the broker's values (DEFAULT_CONFIG) until the group has its
  own (GROUP_CONFIG);
- group A gets consumer.heartbeat.interval.ms=500 and consumer.session.timeout.ms=3000; group B
  none. A's members heartbeat every half second, B's every five (counted by the broker's request
  capture, per client id);
- one member of each group is killed with SIGKILL at the same moment: A's survivor gets all the
  partitions within seconds, while B's still has only its own (B's dead member keeps its
  partitions for the broker's 45 s);
- the configs survive a restart of the broker, and DeleteGroups would drop them (share groups'
  tests check that; it is the same code).
"""

import json
import os
import subprocess
import sys
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402
from test_group_migration import NodeMember  # noqa: E402
from test_node_platformatic import MIN_NODE, NODE_SRC, node_version  # noqa: E402

from kafka.admin import KafkaAdminClient, NewTopic  # noqa: E402

PARTITIONS = 4
INVALID_CONFIG = 40
GROUP_CONFIG = 8
DEFAULT_CONFIG = 5


class GroupConfigsTest(unittest.TestCase):
    def setUp(self):
        version = node_version()
        if version is None or version < MIN_NODE:
            self.skipTest("SKIPPED: node %s is missing or older than %s" % (version, MIN_NODE))
        self.dest = npm_clients.install(NODE_SRC, "node-clients",
                                        ("platformatic_group_member.mjs",
                                         "platformatic_group_configs.mjs"))
        # The broker keeps Kafka's default timing; only the lower bounds are lowered, so that a
        # group may ask for a 3 s session.
        self.broker = skiff_harness.Broker({
            "group.consumer.min.session.timeout.ms": 2000,
            "group.consumer.min.heartbeat.interval.ms": 200,
            "group.initial.rebalance.delay.ms": 0,
            "metrics.listener": "HTTP://127.0.0.1:0",
            "control.api.enable": "true"}, name="group configs broker").owned_by(self).start()
        self.members = []
        self.addCleanup(self.stop_members)

    def stop_members(self):
        for m in self.members:
            if m.proc.poll() is None:
                m.proc.kill()
            m.proc.wait(10)
            for pipe in (m.proc.stdin, m.proc.stdout, m.proc.stderr):
                pipe.close()

    def configs(self, mode, group, *pairs):
        proc = subprocess.run(["node", "platformatic_group_configs.mjs", mode,
                               self.broker.bootstrap, group] + list(pairs),
                              cwd=self.dest, capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-3000:])
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        self.assertEqual(len(line), 1, proc.stdout[-3000:])
        return json.loads(line[0][len("RESULT "):])

    def heartbeats_since(self, sequence, client_id):
        """ConsumerGroupHeartbeat requests the broker received from client_id after sequence."""
        url = ("http://127.0.0.1:%d/control/requests?api=ConsumerGroupHeartbeat&client_id=%s"
               "&after=%d" % (self.broker.metrics_port(), client_id, sequence))
        with urllib.request.urlopen(url, timeout=10) as r:
            return len(json.load(r)["requests"])

    def last_sequence(self):
        url = "http://127.0.0.1:%d/control/requests?limit=1" % self.broker.metrics_port()
        with urllib.request.urlopen(url, timeout=10) as r:
            requests = json.load(r)["requests"]
        return requests[-1]["sequence"] if requests else 0

    def member(self, group, client_id):
        m = NodeMember(self.dest, self.broker.bootstrap, self.topic, group, {}, client_id)
        self.members.append(m)
        return m

    def test_a_groups_own_session_timeout_and_heartbeat_interval(self):
        self.topic = "group-configs"
        admin = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap)
        admin.create_topics([NewTopic(self.topic, PARTITIONS, 1)])
        admin.close()

        # Refused, each with the rule it breaks; nothing is kept.
        refusals = [
            (["consumer.session.timeout.ms=1000"], "group.consumer.min.session.timeout.ms"),
            (["consumer.session.timeout.ms=70000"], "group.consumer.max.session.timeout.ms"),
            (["consumer.heartbeat.interval.ms=100"], "group.consumer.min.heartbeat.interval.ms"),
            # 3 s is not above the broker's 5 s interval, which applies while A has none.
            (["consumer.session.timeout.ms=3000"], "must be greater than"),
            (["consumer.rebalance.timeout.ms=1000"], "Unknown group config name"),
            (["consumer.session.timeout.ms=soon"], "consumer.session.timeout.ms"),
        ]
        for pairs, why in refusals:
            answer = self.configs("set", "A", *pairs)
            self.assertEqual(answer["error"], INVALID_CONFIG, "%s: %s" % (pairs, answer))
            self.assertIn(why, answer["message"] or "", pairs)
        described = self.configs("describe", "A")
        self.assertEqual(described["consumer.session.timeout.ms"], ["45000", DEFAULT_CONFIG])
        self.assertEqual(described["consumer.heartbeat.interval.ms"], ["5000", DEFAULT_CONFIG])

        answer = self.configs("set", "A", "consumer.session.timeout.ms=3000",
                              "consumer.heartbeat.interval.ms=500")
        self.assertEqual(answer["error"], 0, answer)
        described = self.configs("describe", "A")
        self.assertEqual(described["consumer.session.timeout.ms"], ["3000", GROUP_CONFIG])
        self.assertEqual(described["consumer.heartbeat.interval.ms"], ["500", GROUP_CONFIG])
        self.assertEqual(self.configs("describe", "B")["consumer.session.timeout.ms"],
                         ["45000", DEFAULT_CONFIG])

        a1, a2 = self.member("A", "cfg-a-1"), self.member("A", "cfg-a-2")
        b1, b2 = self.member("B", "cfg-b-1"), self.member("B", "cfg-b-2")
        for name, pair in (("A", (a1, a2)), ("B", (b1, b2))):
            skiff_harness.wait_until(
                lambda p=pair: sorted(p[0].owned() + p[1].owned()) == list(range(PARTITIONS))
                and all(m.owned() for m in p),
                60, what="group %s's two members sharing the %d partitions" % (name, PARTITIONS))

        # The heartbeat interval each member is told, as the broker sees it.
        start = self.last_sequence()
        time.sleep(5)
        a_beats, b_beats = self.heartbeats_since(start, "cfg-a-1"), self.heartbeats_since(
            start, "cfg-b-1")
        self.assertGreaterEqual(a_beats, 6, "A's member: 500 ms heartbeats over 5 s")
        self.assertLessEqual(b_beats, 2, "B's member: 5 s heartbeats over 5 s")

        # One member of each group dies at the same moment.
        b_owned = b1.owned()
        killed = time.monotonic()
        a2.proc.kill()
        b2.proc.kill()
        skiff_harness.wait_until(lambda: a1.owned() == list(range(PARTITIONS)), 30,
                                 what="A's survivor taking all partitions after A's 3 s session")
        took = time.monotonic() - killed
        sys.stdout.write("A's dead member removed and its partitions reassigned in %.1f s\n" % took)
        self.assertEqual(b1.owned(), b_owned,
                         "B's dead member is still in its 45 s session: nothing moved in B")

        # Kept across a restart.
        self.broker.restart()
        described = self.configs("describe", "A")
        self.assertEqual(described["consumer.session.timeout.ms"], ["3000", GROUP_CONFIG])
        self.assertEqual(described["consumer.heartbeat.interval.ms"], ["500", GROUP_CONFIG])

        # DELETE (an empty value here) gives the broker's back.
        self.assertEqual(self.configs("set", "A", "consumer.session.timeout.ms=",
                                      "consumer.heartbeat.interval.ms=")["error"], 0)
        self.assertEqual(self.configs("describe", "A")["consumer.session.timeout.ms"],
                         ["45000", DEFAULT_CONFIG])


if __name__ == "__main__":
    skiff_harness.run_tests()
