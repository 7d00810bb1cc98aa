"""Transactions V2 (KIP-890) against the real skiff binary, with Node.js clients from npm.

    /usr/bin/python3 test_transactions_v2.py /path/to/skiff

kafka-ts 1.5's producer is not transactional, so node/kafka_ts_transactions_v2.mjs sends through
kafka-ts's low-level requests what a Kafka 4.x transactional producer sends under
transaction.version 2: InitProducerId, Produce v12 (no AddPartitionsToTxn), TxnOffsetCommit v5
(no AddOffsetsToTxn), EndTxn v5. Checked here:
- a transaction committed and one aborted: a read_committed consumer (confluent-kafka) sees
  exactly the committed records, the offsets committed in the transaction are the group's;
- EndTxn v5 bumps the epoch every time; a retried EndTxn gets the same answer;
- the zombie (the first epoch) is refused: its late produce, EndTxn and offset commit;
- bad input: unknown transactional id, another producer id, a wrong epoch;
- the state survives kill -9 (the retry rule of V2 needs the client's transaction version, kept
  in the tagged fields of __transaction_state);
- ApiVersions' finalized transaction.version, UpdateFeatures (validate_only, downgrade rules,
  kept across kill -9), and with the feature below 2 clients get V1 behaviour;
- @platformatic/kafka 1.35 sends AddPartitionsToTxn v5 in Kafka's batched form with verify_only;
- malformed frames of the new forms (raw bytes, as test_bad_input.py sends them) close the
  connection and change nothing.
The V1 clients are covered, unchanged, by test_transactions.py.

Skips, saying why, when Node.js is missing or too old for the pinned clients.
"""

import json
import os
import socket
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402
from test_bad_input import frame  # noqa: E402
from test_node_platformatic import MIN_NODE, node_version  # noqa: E402

from confluent_kafka import Consumer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_SRC = os.path.join(HERE, "node")

INVALID_PRODUCER_EPOCH = 47
INVALID_PRODUCER_ID_MAPPING = 49
UNKNOWN_PRODUCER_ID = 59
OPERATION_NOT_ATTEMPTED = 55
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_REQUEST = 42
PRODUCER_FENCED = 90
INVALID_UPDATE_VERSION = 95
TRANSACTION_ABORTABLE = 120


def install_clients():
    return npm_clients.install(NODE_SRC, "node-clients",
                               ("kafka_ts_transactions_v2.mjs",
                                "platformatic_add_partitions_batched.mjs"))


def consume_values(bootstrap, topic, isolation, expect):
    """The values of `topic` partition 0 from the beginning, read until `expect` are there (or
    20 s passed), then a little longer so that anything extra would show up too."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "verify-%s-%s" % (topic, isolation),
                  "enable.auto.commit": False, "isolation.level": isolation,
                  "auto.offset.reset": "earliest"})
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        values = []
        deadline = time.time() + 20
        settle = None
        while time.time() < deadline:
            m = c.poll(0.2)
            if m is not None and not m.error():
                values.append(m.value().decode())
            if len(values) >= expect and settle is None:
                settle = time.time() + 1.5
            if settle is not None and time.time() > settle:
                break
        return values
    finally:
        c.close()


def committed_offset(bootstrap, group, topic):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                  "enable.auto.commit": False})
    try:
        return c.committed([TopicPartition(topic, 0)], timeout=10)[0].offset
    finally:
        c.close()


class TransactionsV2Test(unittest.TestCase):
    def setUp(self):
        version = node_version()
        if version is None:
            self.skipTest("SKIPPED: node is not installed")
        if version < MIN_NODE:
            self.skipTest("SKIPPED: node %s is older than %s, which the pinned clients need"
                          % (".".join(map(str, version)), ".".join(map(str, MIN_NODE))))
        self.dest = install_clients()

    def node(self, script, *args):
        proc = subprocess.run(["node", script] + [str(a) for a in args], cwd=self.dest,
                              capture_output=True, text=True, timeout=120)
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr[-4000:])
        self.assertEqual(proc.returncode, 0, "%s %s failed" % (script, args[0]))
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        self.assertEqual(len(line), 1, "no RESULT line")
        return json.loads(line[0][len("RESULT "):])

    def kafka_ts(self, mode, broker, *args):
        return self.node("kafka_ts_transactions_v2.mjs", mode, broker.bootstrap, *args)

    def test_commit_abort_epoch_bump_and_zombie(self):
        with skiff_harness.Broker(name="transactions v2 broker").owned_by(self) as broker:
            r = self.kafka_ts("v2", broker, "tv2", "tv2-tx", "tv2-group")
            epoch = r["init"]["producerEpoch"]
            pid = r["init"]["producerId"]
            # Every EndTxn moved the epoch on by one; the producer id stayed.
            self.assertEqual(r["commit"], {"producerId": pid, "producerEpoch": epoch + 1})
            self.assertEqual(r["commitRetry"], r["commit"])
            self.assertEqual(r["abort"], {"producerId": pid, "producerEpoch": epoch + 2})
            self.assertEqual(r["commit2"], {"producerId": pid, "producerEpoch": epoch + 3})
            # The first incarnation is a zombie after the first commit.
            self.assertEqual(r["zombieProduce"], INVALID_PRODUCER_EPOCH)
            self.assertEqual(r["zombieEndTxn"], PRODUCER_FENCED)
            self.assertEqual(r["zombieOffsets"], INVALID_PRODUCER_EPOCH)
            # Bad input.
            self.assertEqual(r["badUnknownId"], INVALID_PRODUCER_ID_MAPPING)
            self.assertEqual(r["badProducerId"], INVALID_PRODUCER_ID_MAPPING)
            self.assertEqual(r["badEpoch"], PRODUCER_FENCED)
            self.assertEqual(r["badProduceId"], UNKNOWN_PRODUCER_ID)
            # Exactly the committed records for read_committed; the aborted ones only for
            # read_uncommitted; the zombie's nowhere.
            self.assertEqual(consume_values(broker.bootstrap, "tv2", "read_committed", 4),
                             ["c0", "c1", "c2", "c3"])
            self.assertEqual(consume_values(broker.bootstrap, "tv2", "read_uncommitted", 6),
                             ["c0", "c1", "c2", "a0", "a1", "c3"])
            # TxnOffsetCommit v5 (no AddOffsetsToTxn) committed with the transaction.
            self.assertEqual(committed_offset(broker.bootstrap, "tv2-group", "tv2"), 42)

            # kill -9: the bumped epoch and the V2 retry rule (it needs the client's transaction
            # version from __transaction_state's tagged fields) are still there.
            broker.kill()
            broker.start()
            retry = self.kafka_ts("end", broker, "tv2-tx", pid, epoch + 2)
            self.assertEqual(retry.get("end"), {"producerId": pid, "producerEpoch": epoch + 3})
            again = self.kafka_ts("end", broker, "tv2-tx", pid, epoch + 3)
            self.assertEqual(again.get("error"), PRODUCER_FENCED)
            self.assertEqual(consume_values(broker.bootstrap, "tv2", "read_committed", 4),
                             ["c0", "c1", "c2", "c3"])

    def test_features_update_and_level_below_two(self):
        with skiff_harness.Broker(name="features broker").owned_by(self) as broker:
            f = self.kafka_ts("features", broker)
            self.assertEqual(f["finalized"], {"transaction.version": 2, "share.version": 1})
            self.assertEqual(f["endTxnMax"], 5)
            # Lowering needs a downgrade type; validate_only changes nothing.
            self.assertEqual(self.kafka_ts("update", broker, 1, 1, "false")["error"],
                             INVALID_UPDATE_VERSION)
            self.assertEqual(self.kafka_ts("update", broker, 3, 1, "false")["error"],
                             INVALID_UPDATE_VERSION)
            self.assertEqual(self.kafka_ts("update", broker, 1, 2, "true")["error"], 0)
            self.assertEqual(self.kafka_ts("features", broker)["finalized"],
                             {"transaction.version": 2, "share.version": 1})
            self.assertEqual(self.kafka_ts("update", broker, 1, 2, "false")["error"], 0)
            self.assertEqual(self.kafka_ts("features", broker)["finalized"],
                             {"transaction.version": 1, "share.version": 1})
            # Kept across kill -9.
            broker.kill()
            broker.start()
            self.assertEqual(self.kafka_ts("features", broker)["finalized"],
                             {"transaction.version": 1, "share.version": 1})
            # At level 1 a Kafka 4.x client gets transactions V1: no implicit add, no bump.
            r = self.kafka_ts("v1", broker, "tv1", "tv1-tx")
            self.assertEqual(r["implicitProduce"], TRANSACTION_ABORTABLE)
            self.assertEqual(r["commit"]["producerEpoch"], r["init"]["producerEpoch"])
            self.assertEqual(consume_values(broker.bootstrap, "tv1", "read_committed", 1),
                             ["v1-0"])

    def test_level_set_by_setting(self):
        with skiff_harness.Broker({"transaction.version": "0"},
                                  name="level 0 broker").owned_by(self) as broker:
            # share.version (KIP-932) stays finalized at its default, 1.
            self.assertEqual(self.kafka_ts("features", broker)["finalized"], {"share.version": 1})

    def test_batched_add_partitions_platformatic(self):
        with skiff_harness.Broker(name="batched add broker").owned_by(self) as broker:
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            for f in admin.create_topics([NewTopic("apt", 2, 1)]).values():
                f.result(timeout=20)
            r = self.node("platformatic_add_partitions_batched.mjs", broker.bootstrap, "apt")
            self.assertEqual(r["topLevel"], 0)
            self.assertEqual(r["first"], {
                "plt-tx-a": [0, 0],
                "plt-tx-b": [0, TRANSACTION_ABORTABLE],
                "plt-tx-none": [INVALID_PRODUCER_ID_MAPPING],
                "plt-tx-c": [OPERATION_NOT_ATTEMPTED, UNKNOWN_TOPIC_OR_PARTITION],
            })
            self.assertEqual(r["verifyAfter"], {"plt-tx-a": [0, 0],
                                                "plt-tx-b": [0, TRANSACTION_ABORTABLE]})
            self.assertEqual(r["fenced"], {"plt-tx-a": [PRODUCER_FENCED]})
            self.assertEqual(r["duplicateTopLevel"], INVALID_REQUEST)

    def test_malformed_requests_close_the_connection_and_change_nothing(self):
        def uvarint_str(text):
            b = text.encode()
            return bytes([len(b) + 1]) + b
        update = (struct.pack(">i", 60000) + b"\x02" + uvarint_str("transaction.version")
                  + struct.pack(">hb", 0, 2) + b"\x00" + b"\x00\x00")  # a well-formed v1 body
        truncated = {
            "UpdateFeatures v1": (57, 1, update[:-6]),
            "EndTxn v5": (26, 5, uvarint_str("tv2-tx") + struct.pack(">q", 0)),
            "AddPartitionsToTxn v5": (24, 5, b"\x02" + uvarint_str("tv2-tx") + b"\x00\x00"),
            "TxnOffsetCommit v5": (28, 5, uvarint_str("tv2-tx") + uvarint_str("g")),
        }
        with skiff_harness.Broker(name="bad input broker").owned_by(self) as broker:
            for what, (key, version, body) in truncated.items():
                with socket.create_connection(("127.0.0.1", broker.port), timeout=10) as s:
                    s.sendall(frame(key, version, 7, body, flexible_header=True))
                    self.assertEqual(s.recv(65536), b"", "%s: connection not closed" % what)
            # The level did not move, and a well-formed request is still answered.
            self.assertEqual(self.kafka_ts("features", broker)["finalized"],
                             {"transaction.version": 2, "share.version": 1})


if __name__ == "__main__":
    skiff_harness.run_tests()
