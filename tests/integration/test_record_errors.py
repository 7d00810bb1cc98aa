"""Per-record errors (KIP-467: Produce v8+'s record_errors and error_message) against the real
skiff binary.

    /usr/bin/python3 test_record_errors.py /path/to/skiff

librdkafka reads record_errors from 2.4 on; Debian's confluent-kafka uses librdkafka 2.0.2, so
the per-message check takes node-rdkafka 3.6.0 (librdkafka 2.12, built from npm as in
test_node_rdkafka.py) and replays librdkafka 2.15's own test 0011_produce_batch
(test_message_single_partition_record_fail): 100 messages in one batch to a compacted topic
(cleanup.policy=compact,delete), every tenth without a key: exactly those 10 fail with INVALID_RECORD,
the other 90 with librdkafka's _INVALID_DIFFERENT_RECORD, nothing of the batch is stored; one
message per batch: the 10 fail, the 90 are stored and read back. Two records of five outside
message.timestamp.before.max.ms fail (INVALID_TIMESTAMP from the broker, which librdkafka
reports as INVALID_RECORD for a batch with several record errors), the other three with
_INVALID_DIFFERENT_RECORD. node-rdkafka hands JavaScript only the text of an error's code, so
the test tells the codes apart by their text.

With confluent-kafka (librdkafka 2.0.2, which ignores record_errors) every message of a batch
with a keyless record fails with INVALID_RECORD and nothing of that batch is stored.

The node part skips, saying why, when Node.js or npm is missing.
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402,E501
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "node_rdkafka")
TIMEOUT_S = 20
# node-rdkafka reports a delivery error by the text of its code only (see the script).
INVALID_RECORD = "Broker: Broker failed to validate record"  # 87
# librdkafka's own _INVALID_DIFFERENT_RECORD (-138), for the records not listed in record_errors
DIFFERENT_RECORD = ("Local: an invalid record in the same batch caused the failure of this "
                    "message too")


def install():
    return npm_clients.install(SRC, "node-rdkafka-clients",
                               ("rdkafka_consumer_protocol.cjs", "rdkafka_record_errors.cjs"),
                               installed_marker="node_modules/node-rdkafka/build/Release",
                               nice=True, timeout=900)


def watermarks(bootstrap, topic):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "marks-" + topic})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=TIMEOUT_S)
    finally:
        c.close()


def consume_values(bootstrap, topic, expected_count):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader-" + topic,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False,
                  "enable.partition.eof": True})
    c.assign([TopicPartition(topic, 0, 0)])
    out = []
    try:
        def more():
            msg = c.poll(0.5)
            if msg is None:
                return False
            if msg.error():
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    return len(out) >= expected_count
                raise KafkaException(msg.error())
            out.append(msg.value())
            return False
        skiff_harness.wait_until(more, TIMEOUT_S, interval_s=0, what="%d records" % expected_count)
    finally:
        c.close()
    return out


class RecordErrorsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker(name="record errors broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        cls.broker.cleanup()

    def create(self, name, config):
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        fs = admin.create_topics([NewTopic(name, num_partitions=1, replication_factor=1,
                                           config=config)])
        fs[name].result(timeout=TIMEOUT_S)

    def test_librdkafka_2_12_sees_each_records_error(self):
        if shutil.which("node") is None or shutil.which("npm") is None:
            self.skipTest("SKIPPED: node or npm is not installed")
        dest = install()
        self.create("compacted-0011", {"cleanup.policy": "compact,delete"})
        self.create("bounded-ts", {"message.timestamp.before.max.ms": "3600000"})
        proc = subprocess.run(["node", "rdkafka_record_errors.cjs", self.broker.bootstrap,
                               "compacted-0011", "bounded-ts"],
                              cwd=dest, capture_output=True, text=True, timeout=240)
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        self.assertEqual(proc.returncode, 0, "the librdkafka record-errors script failed")
        cases = {c["case"]: c for c in map(json.loads, proc.stdout.splitlines())}
        self.assertTrue(cases["version"]["librdkafka"].startswith("2.12"), cases["version"])

        keyless = [i % 10 == 0 for i in range(100)]
        one = cases["one-batch"]["codes"]
        self.assertEqual([one[i] for i in range(100) if keyless[i]], [INVALID_RECORD] * 10)
        self.assertEqual([one[i] for i in range(100) if not keyless[i]], [DIFFERENT_RECORD] * 90)

        per_message = cases["batch-per-message"]["codes"]
        self.assertEqual([per_message[i] for i in range(100) if keyless[i]], [INVALID_RECORD] * 10)
        self.assertEqual([per_message[i] for i in range(100) if not keyless[i]], [None] * 90)
        # Only the 90 keyed messages of the second round were stored, in order.
        self.assertEqual(watermarks(self.broker.bootstrap, "compacted-0011"), (0, 90))
        self.assertEqual(consume_values(self.broker.bootstrap, "compacted-0011", 90),
                         [b"0011 test message #%d" % i for i in range(100) if not keyless[i]])

        # Two records out of range: librdkafka gives the listed ones INVALID_RECORD when a batch
        # has more than one record error, the others its _INVALID_DIFFERENT_RECORD. (With
        # exactly one, librdkafka 2.12's rd_kafka_interceptors_on_acknowledgement_queue sets the
        # partition's error on every message of the batch: the client's doing, not the
        # broker's.)
        self.assertEqual(cases["timestamp"]["codes"],
                         [DIFFERENT_RECORD, INVALID_RECORD, DIFFERENT_RECORD, INVALID_RECORD,
                          DIFFERENT_RECORD])
        self.assertEqual(watermarks(self.broker.bootstrap, "bounded-ts"), (0, 0))

    def test_librdkafka_2_0_fails_the_whole_batch(self):
        self.create("compacted-old-client", {"cleanup.policy": "compact,delete"})
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "linger.ms": 500,
                      "retries": 0})
        p.list_topics("compacted-old-client", timeout=TIMEOUT_S)  # the leader known first
        codes = {}
        for i in range(20):
            value = b"v%d" % i
            p.produce("compacted-old-client", value=value, key=None if i % 5 == 0 else value,
                      on_delivery=lambda err, msg, i=i: codes.__setitem__(
                          i, err.code() if err else None))
        self.assertEqual(p.flush(TIMEOUT_S), 0)
        self.assertEqual(sorted(codes), list(range(20)))
        # Every keyless message fails; a keyed one fails with it when the client put them in one
        # batch (how librdkafka batches is its own affair), and is stored otherwise.
        self.assertEqual({codes[i] for i in range(0, 20, 5)}, {KafkaError.INVALID_RECORD})
        self.assertLessEqual(set(codes.values()), {None, KafkaError.INVALID_RECORD})
        delivered = [b"v%d" % i for i in range(20) if codes[i] is None]
        self.assertLess(len(delivered), 16, "no keyed message shared a batch with a keyless one")
        self.assertEqual(watermarks(self.broker.bootstrap, "compacted-old-client"),
                         (0, len(delivered)))
        if delivered:
            self.assertEqual(consume_values(self.broker.bootstrap, "compacted-old-client",
                                            len(delivered)), delivered)
        # The broker's log names the first refused records, as Kafka's message does.
        self.assertIn("record errors in total, and only showing the first three errors at most: "
                      "[RecordError(batchIndex=0, message='Compacted topic cannot accept message "
                      "without key in topic partition compacted-old-client-0.')",
                      self.broker.log_text())

if __name__ == "__main__":
    skiff_harness.run_tests()
