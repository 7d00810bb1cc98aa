"""kafka-ts 1.5's share-group requests (ShareFetch v2, ShareAcknowledge v2, the share-offsets
admin APIs) against the real skiff binary: node/kafka_ts_share_requests.mjs. kafka-ts picks the
versions skiff advertises, encodes with its own encoders and decodes skiff's answers with its own
decoders; the errors checked are those of the requests' own fields (docs/share-groups.md).

    /usr/bin/python3 test_node_share_requests.py /path/to/skiff

Installed as test_node_platformatic.py installs it (node/package-lock.json, `npm ci` once into
the build directory); skips, saying why, without Node.js.
"""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402
from test_node_platformatic import MIN_NODE, NODE_SRC, node_version  # noqa: E402


class KafkaTsShareRequestsTest(unittest.TestCase):
    def setUp(self):
        version = node_version()
        if version is None:
            self.skipTest("SKIPPED: node is not installed")
        if version < MIN_NODE:
            self.skipTest("SKIPPED: node %s is older than %s" % (".".join(map(str, version)),
                                                                 ".".join(map(str, MIN_NODE))))

    def test_share_requests_as_kafka_ts_sends_them(self):
        dest = npm_clients.install(NODE_SRC, "node-clients", ("kafka_ts_share_requests.mjs",))
        with skiff_harness.Broker({"num.partitions": "1"}, name="kafka-ts share broker") as broker:
            proc = subprocess.run(["node", "kafka_ts_share_requests.mjs", broker.bootstrap],
                                  cwd=dest, capture_output=True, text=True, timeout=120)
            sys.stdout.write(proc.stdout)
            sys.stderr.write(proc.stderr[-4000:])
            self.assertEqual(proc.returncode, 0, "the kafka-ts share requests script failed")
            self.assertIn("ok: kafka-ts share requests against skiff", proc.stdout)


if __name__ == "__main__":
    skiff_harness.run_tests()
