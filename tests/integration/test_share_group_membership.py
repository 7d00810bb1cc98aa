"""Share group membership (KIP-932) against the real broker, driven by kafka-ts 1.5's low-level
requests (node/kafka_ts_share_membership.mjs): three members join a share group on a
3-partition topic with the member ids they chose and each gets one partition (Kafka 4.1+'s
simple assignor balances partitions when members do not outnumber them); ShareGroupDescribe
and ListGroups (type "share") show them; one leaves; after kill -9 and a restart the group and
its remaining members are still there with their epochs and assignments; a stale epoch is
fenced; IncrementalAlterConfigs on the GROUP resource sets share.auto.offset.reset, refuses a
bad value with INVALID_CONFIG, and DescribeConfigs reads it back after a restart.

Skips, saying why, when node or npm is missing.

Usage: python3 test_share_group_membership.py PATH_TO_SKIFF [Class.test_name]
"""
import json
import os
import shutil
import subprocess
import sys
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402

from kafka.admin import KafkaAdminClient, NewTopic  # noqa: E402

TIMEOUT_S = 30
INVALID_CONFIG = 40
UNKNOWN_MEMBER_ID = 25
FENCED_MEMBER_EPOCH = 110


class ShareGroupMembershipTest(unittest.TestCase):
    def setUp(self):
        if shutil.which("node") is None or shutil.which("npm") is None:
            self.skipTest("SKIPPED: node or npm is not installed")
        self.broker = skiff_harness.Broker({"num.partitions": 1}, name="share membership broker")
        self.broker.start()
        self.addCleanup(self.broker.cleanup)
        run = uuid.uuid4().hex[:8]
        self.topic = "jobs-" + run
        self.group = "workers-" + run
        admin = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap,
                                 request_timeout_ms=TIMEOUT_S * 1000)
        admin.create_topics([NewTopic(self.topic, 3, 1)])
        admin.close()
        self.dest = npm_clients.install(os.path.join(HERE, "node"), "node-clients",
                                        ("kafka_ts_share_membership.mjs",))

    def step(self, *args):
        proc = subprocess.run(["node", "kafka_ts_share_membership.mjs", self.broker.bootstrap,
                               self.group, self.topic] + list(args), cwd=self.dest,
                              capture_output=True, text=True, timeout=120)
        sys.stderr.write(proc.stderr)
        self.assertEqual(proc.returncode, 0, "the kafka-ts script failed: " + proc.stdout)
        return json.loads(proc.stdout.strip().splitlines()[-1])

    def partitions(self, described):
        return {m["memberId"]: sorted(p for a in m["assignment"] for p in a["partitions"])
                for m in described["members"]}

    def test_members_join_leave_and_survive_kill_9(self):
        joined = self.step("join", "m-1", "m-2", "m-3")
        for m in ("m-1", "m-2", "m-3"):
            self.assertEqual(joined["joined"][m]["errorCode"], 0, joined["joined"][m])
            self.assertEqual(joined["joined"][m]["memberId"], m)  # the id the client chose
            self.assertEqual(joined["steady"][m]["errorCode"], 0, joined["steady"][m])
        # After the second round every member is at the group's epoch (3: three joins).
        epochs = {m: joined["steady"][m]["memberEpoch"] for m in ("m-1", "m-2", "m-3")}
        self.assertEqual(set(epochs.values()), {3})

        d = self.step("describe")
        desc = d["describe"]
        self.assertEqual(desc["errorCode"], 0)
        self.assertEqual(desc["groupState"], "Stable")
        self.assertEqual(desc["groupEpoch"], 3)
        self.assertEqual(desc["assignorName"], "simple")
        parts = self.partitions(desc)
        self.assertEqual(sorted(parts), ["m-1", "m-2", "m-3"])
        # Three members, three partitions: one each, every partition assigned.
        self.assertEqual(sorted(p for ps in parts.values() for p in ps), [0, 1, 2])
        for ps in parts.values():
            self.assertEqual(len(ps), 1)
        for m in desc["members"]:
            self.assertEqual(m["subscribedTopicNames"], [self.topic])
            self.assertEqual(m["clientId"], "kafka-ts-share")
        self.assertIn({"groupId": self.group, "protocolType": "share", "groupState": "Stable",
                       "groupType": "share"}, d["listShare"])
        self.assertNotIn(self.group, d["listConsumer"])

        left = self.step("leave", "m-3:3")
        self.assertEqual(left["left"]["errorCode"], 0)
        self.assertEqual(left["left"]["memberEpoch"], -1)
        beats = self.step("beat", "m-1:3", "m-2:3")["beats"]
        epoch = beats["m-1"]["memberEpoch"]
        self.assertEqual(epoch, 4)  # the leave moved the group on
        # m-3's partition went to the two that stay: all three are theirs now.
        desc = self.step("describe")["describe"]
        parts = self.partitions(desc)
        self.assertEqual(sorted(parts), ["m-1", "m-2"])
        self.assertEqual(sorted(p for ps in parts.values() for p in ps), [0, 1, 2])

        # kill -9 and a restart: the group and its members come back from __consumer_offsets.
        self.broker.restart(graceful=False)
        desc = self.step("describe")["describe"]
        self.assertEqual(desc["errorCode"], 0)
        self.assertEqual(desc["groupState"], "Stable")
        self.assertEqual(desc["groupEpoch"], 4)
        self.assertEqual(self.partitions(desc), parts)
        beats = self.step("beat", "m-1:4", "m-2:4")["beats"]
        for m in ("m-1", "m-2"):
            self.assertEqual(beats[m]["errorCode"], 0, beats[m])
            self.assertEqual(beats[m]["memberEpoch"], 4)
            self.assertIsNone(beats[m]["assignment"])  # unchanged: no rebalance
        # A stale epoch is fenced; the member that left is unknown.
        stale = self.step("beat", "m-1:2", "m-3:3")["beats"]
        self.assertEqual(stale["m-1"]["errorCode"], FENCED_MEMBER_EPOCH)
        self.assertEqual(stale["m-3"]["errorCode"], UNKNOWN_MEMBER_ID)

    def test_group_config_set_refused_and_kept_across_a_restart(self):
        before = self.step("get-config")
        self.assertEqual(before["errorCode"], 0)
        self.assertEqual(before["configs"]["share.auto.offset.reset"]["value"], "latest")
        bad = self.step("set-config", "share.auto.offset.reset", "sideways")
        self.assertEqual(bad["responses"][0]["errorCode"], INVALID_CONFIG)
        bad = self.step("set-config", "share.record.lock.duration.ms", "1000")
        self.assertEqual(bad["responses"][0]["errorCode"], INVALID_CONFIG)
        ok = self.step("set-config", "share.auto.offset.reset", "earliest")
        self.assertEqual(ok["responses"][0]["errorCode"], 0, ok)
        self.broker.restart(graceful=False)
        after = self.step("get-config")
        self.assertEqual(after["configs"]["share.auto.offset.reset"],
                         {"value": "earliest", "source": 8})  # GROUP_CONFIG
        self.assertEqual(after["configs"]["share.record.lock.duration.ms"]["value"], "30000")


if __name__ == "__main__":
    skiff_harness.run_tests()
