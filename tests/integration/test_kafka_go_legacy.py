"""kafka-go 0.2.x (Debian's golang-github-segmentio-kafka-go-dev) against the real skiff binary.

    /usr/bin/python3 test_kafka_go_legacy.py /path/to/skiff

kafka-go 0.2.x predates record batch v2: its Writer sends Produce v2 with message format v1
(uncompressed, and gzip wrapper messages), its Reader reads Fetch v2 (message format v1) after
ListOffsets v1. A tiny Go program (kafka_go_legacy/main.go, built here with
GO111MODULE=off GOPATH=/usr/share/gocode) writes two rounds with the Writer, kafka-python's
default (v2) producer writes one in between; the kafka-go Reader then reads all of them back in
order, exactly once, keys, values and timestamps intact, and a v2 consumer sees the kafka-go
messages unchanged too. Skipped, saying why, when `go` or the kafka-go package is missing.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

GOPATH = "/usr/share/gocode"
KAFKA_GO = os.path.join(GOPATH, "src/github.com/segmentio/kafka-go")
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kafka_go_legacy", "main.go")
N = 30

MISSING = None
if shutil.which("go") is None:
    MISSING = "`go` not found (Debian package golang-go)"
elif not os.path.isdir(KAFKA_GO):
    MISSING = "kafka-go not found in %s (Debian package golang-github-segmentio-kafka-go-dev)" % KAFKA_GO


@unittest.skipIf(MISSING is not None, "kafka-go test skipped: %s" % MISSING)
class KafkaGoLegacyTest(unittest.TestCase):
    broker = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="skiff-kafka-go-")
        cls.program = os.path.join(cls.tmp, "kafka_go_legacy")
        env = dict(os.environ, GO111MODULE="off", GOPATH=GOPATH, GOCACHE=os.path.join(cls.tmp, "cache"),
                   GOFLAGS="")
        subprocess.run(["go", "build", "-o", cls.program, SOURCE], env=env, check=True, timeout=240)
        cls.broker = skiff_harness.Broker({"num.partitions": 1}, name="kafka-go broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.broker:
                cls.broker.stop()
        finally:
            if cls.broker:
                cls.broker.cleanup()
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def go(self, *args):
        r = subprocess.run([self.program] + [str(a) for a in args], capture_output=True, text=True,
                           timeout=90)
        self.assertEqual(r.returncode, 0, "kafka-go %s failed: %s" % (args[0], r.stderr))
        return r.stdout

    def test_writer_and_reader_mixed_with_a_v2_producer(self):
        from kafka import KafkaConsumer, KafkaProducer, TopicPartition
        topic = "kafka-go-legacy"
        base = int(time.time() * 1000) - 3600000
        expected = []  # (key, value, timestamp)

        self.go("produce", self.broker.bootstrap, topic, N, "plain", "none", base)
        expected += [(b"plain-key-%d" % i, b"plain-value-%d" % i, base + i) for i in range(N)]

        p = KafkaProducer(bootstrap_servers=self.broker.bootstrap, acks="all", linger_ms=5)
        self.addCleanup(p.close, 5)
        futs = [p.send(topic, key=b"v2-key-%d" % i, value=b"v2-value-%d" % i, partition=0,
                       timestamp_ms=base + 1000 + i, headers=[("h", b"x")]) for i in range(N)]
        p.flush(timeout=30)
        self.assertEqual([f.get(timeout=30).offset for f in futs], list(range(N, 2 * N)))
        expected += [(b"v2-key-%d" % i, b"v2-value-%d" % i, base + 1000 + i) for i in range(N)]

        self.go("produce", self.broker.bootstrap, topic, N, "gz", "gzip", base + 2000)
        expected += [(b"gz-key-%d" % i, b"gz-value-%d" % i, base + 2000 + i) for i in range(N)]

        lines = self.go("consume", self.broker.bootstrap, topic, len(expected)).splitlines()
        got = []
        for line in lines:
            offset, key, value, ts = line.split(" ")
            got.append((int(offset), key.encode(), value.encode(), int(ts)))
        self.assertEqual(got, [(i,) + e for i, e in enumerate(expected)], "kafka-go Reader")

        c = KafkaConsumer(bootstrap_servers=self.broker.bootstrap, group_id=None, enable_auto_commit=False,
                          auto_offset_reset="none")
        self.addCleanup(c.close)
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek_to_beginning()
        records = []
        deadline = time.monotonic() + 30
        while len(records) < len(expected) and time.monotonic() < deadline:
            for _, rs in c.poll(timeout_ms=500).items():
                records.extend(rs)
        self.assertEqual([(r.offset, r.key, r.value, r.timestamp) for r in records],
                         [(i,) + e for i, e in enumerate(expected)], "v2 consumer")


if __name__ == "__main__":
    skiff_harness.run_tests()
