"""librdkafka 2.12 with group.protocol=consumer (KIP-848) against the real skiff binary.

    /usr/bin/python3 test_node_rdkafka.py /path/to/skiff

Debian's librdkafka (2.0.2) predates the consumer protocol, so this test takes a newer one from
npm: node-rdkafka 3.6.0, pinned in node_rdkafka/package.json and package-lock.json, which builds
its bundled librdkafka 2.12.0 from the package's sources at `npm ci` (no download beyond npm's
registry; Node's headers from Debian's /usr/include/node). It is installed into the build
directory (node-rdkafka-clients/) once per lock file; the build took 2 min 46 s here, niced,
beside other work. Its script, node_rdkafka/rdkafka_consumer_protocol.cjs: a regular-expression
subscription (resolved by the broker, docs/consumer-groups.md) that picks up a topic created
after it subscribed, and a second member that shares the partitions with no message lost.

Skips, saying why, when Node.js or npm is missing. A failing `npm ci` fails the test.
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
SRC = os.path.join(HERE, "node_rdkafka")


def install():
    # The build of librdkafka runs niced and may take minutes.
    return npm_clients.install(SRC, "node-rdkafka-clients", ("rdkafka_consumer_protocol.cjs",),
                               installed_marker="node_modules/node-rdkafka/build/Release",
                               nice=True, timeout=900)


class NodeRdkafkaConsumerProtocolTest(unittest.TestCase):
    def test_regex_subscription_and_sharing(self):
        if shutil.which("node") is None or shutil.which("npm") is None:
            self.skipTest("SKIPPED: node or npm is not installed")
        dest = install()
        with skiff_harness.Broker({"group.consumer.heartbeat.interval.ms": "500",
                                   "group.consumer.min.heartbeat.interval.ms": "100"},
                                  name="librdkafka consumer-protocol broker") as broker:
            proc = subprocess.run(["node", "rdkafka_consumer_protocol.cjs", broker.bootstrap],
                                  cwd=dest, capture_output=True, text=True, timeout=240)
            sys.stdout.write(proc.stdout)
            sys.stderr.write(proc.stderr)
            self.assertEqual(proc.returncode, 0, "the librdkafka consumer-protocol script failed")
            self.assertIn("ok: librdkafka 2.12.0 consumer protocol against skiff", proc.stdout)


if __name__ == "__main__":
    skiff_harness.run_tests()
