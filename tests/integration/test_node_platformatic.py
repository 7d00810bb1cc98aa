"""@platformatic/kafka (Node.js; speaks only new API versions) against the real skiff binary.

    /usr/bin/python3 test_node_platformatic.py /path/to/skiff

The client is pinned in node/package.json and node/package-lock.json and installed with `npm ci`
into the build directory (next to the skiff binary, `node-clients/`), once per lock file. Its
script, node/platformatic_kafka.mjs, checks metadata with topic ids, CreateTopics v7 and
DeleteTopics v6, idempotent produce, consuming from the beginning, ListOffsets (earliest, latest,
by timestamp), and a consumer group that commits and is resumed by a new member;
node/platformatic_consumer_group.mjs, a KIP-848 consumer-protocol group of three and then four
members sharing 12 partitions under a continuous produce (docs/consumer-groups.md); and
node/kafka_ts_consumer_group.mjs, the same protocol with kafka-ts 1.5 (another client's
implementation of it).

Skips, saying why, when Node.js is missing or older than the pinned version needs (1.35.0 is the
last release that runs on Node 20; later ones need Node 22). A failing `npm ci` (no registry)
fails the test: CI must run it.
"""

import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_SRC = os.path.join(HERE, "node")
MIN_NODE = (20, 19, 4)  # @platformatic/kafka 1.35.0's engines field
# Heartbeats every 500 ms, so that a rebalance takes a few of them (Kafka's lower bound, 5000,
# lowered as a test cluster does).
FAST_HEARTBEATS = {"group.consumer.heartbeat.interval.ms": "500",
                   "group.consumer.min.heartbeat.interval.ms": "100"}


def node_version():
    node = shutil.which("node")
    if node is None:
        return None
    out = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout
    return tuple(int(x) for x in out.strip().lstrip("v").split(".")[:3])


def install_clients():
    return npm_clients.install(NODE_SRC, "node-clients",
                               ("platformatic_kafka.mjs", "platformatic_consumer_group.mjs",
                                "kafka_ts_consumer_group.mjs"))


class PlatformaticKafkaTest(unittest.TestCase):
    def setUp(self):
        version = node_version()
        if version is None:
            self.skipTest("SKIPPED: node is not installed")
        if version < MIN_NODE:
            self.skipTest("SKIPPED: node %s is older than %s, which @platformatic/kafka 1.35.0 needs"
                          % (".".join(map(str, version)), ".".join(map(str, MIN_NODE))))

    def test_admin_produce_consume_group_offsets(self):
        dest = install_clients()
        with skiff_harness.Broker({"num.partitions": "3"}) as broker:
            proc = subprocess.run(["node", "platformatic_kafka.mjs", broker.bootstrap], cwd=dest,
                                  capture_output=True, text=True, timeout=240)
            sys.stdout.write(proc.stdout)
            sys.stderr.write(proc.stderr)
            self.assertEqual(proc.returncode, 0, "the @platformatic/kafka script failed")
            self.assertIn("ok: @platformatic/kafka against skiff", proc.stdout)

    def test_consumer_protocol_group(self):
        """KIP-848 (groupProtocol 'consumer'): node/platformatic_consumer_group.mjs."""
        dest = install_clients()
        with skiff_harness.Broker(FAST_HEARTBEATS,
                                  name="consumer-protocol broker") as broker:
            proc = subprocess.run(["node", "platformatic_consumer_group.mjs", broker.bootstrap],
                                  cwd=dest, capture_output=True, text=True, timeout=240)
            sys.stdout.write(proc.stdout)
            sys.stderr.write(proc.stderr)
            self.assertEqual(proc.returncode, 0, "the consumer-protocol group script failed")
            self.assertIn("ok: KIP-848 consumer group with @platformatic/kafka against skiff",
                          proc.stdout)

    def test_consumer_protocol_group_kafka_ts(self):
        """KIP-848 with kafka-ts 1.5: node/kafka_ts_consumer_group.mjs."""
        dest = install_clients()
        with skiff_harness.Broker(FAST_HEARTBEATS,
                                  name="kafka-ts consumer-protocol broker") as broker:
            proc = subprocess.run(["node", "kafka_ts_consumer_group.mjs", broker.bootstrap],
                                  cwd=dest, capture_output=True, text=True, timeout=240)
            sys.stdout.write(proc.stdout)
            sys.stderr.write(proc.stderr[-4000:])
            self.assertEqual(proc.returncode, 0, "the kafka-ts consumer-protocol script failed")
            self.assertIn("ok: kafka-ts consumer protocol against skiff", proc.stdout)


if __name__ == "__main__":
    skiff_harness.run_tests()
