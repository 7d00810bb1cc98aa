"""Transactions (KIP-98) with confluent-kafka (librdkafka 2.0.2) against the real skiff binary.

    /usr/bin/python3 test_transactions.py /path/to/skiff

Checks what a user of exactly-once processing relies on:
- commit and abort: a read_committed consumer sees every committed record once, in order, and
  nothing of an aborted transaction; a read_uncommitted consumer sees the aborted ones too;
- an exactly-once consume-transform-produce pipeline (send_offsets_to_transaction) that aborts a
  share of its transactions on purpose and whose broker is killed with SIGKILL at three points of
  a transaction: the output holds every input record's transform exactly once for
  read_committed, and the log files pass `skiff dump-log --verify`;
- fencing: a second producer with the same transactional.id fences the first, whose commit then
  fails with a fatal error and whose records never become visible;
- timeout: a transaction left open past transaction.timeout.ms is aborted by the broker;
- a power cut that kept a partition's open transaction and lost the coordinator's records of it
  (played by cutting __transaction_state back after kill -9): the transaction is aborted at start,
  whole when it lost one of its partitions, read_committed consumers get past it, and the
  producer's commit after the restart fails instead of being answered as a success;
- bad input from a raw client: a control batch, and a transactional batch whose producer does
  not hold the transactional id, are refused with Kafka's error codes and nothing is stored.
"""

import os
import random
import struct
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from test_bad_input import crc32c, frame, kstring, kbytes, parse_produce_v3_response, record_batch  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402

INVALID_RECORD = 87
INVALID_PRODUCER_ID_MAPPING = 49
TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53


def consume_all(bootstrap, topic, partitions, isolation, expect_at_least=0, idle_s=3.0):
    """Every record of `topic` from the beginning: [(partition, offset, key, value)]."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "verify-%s" % isolation,
                  "enable.auto.commit": False, "isolation.level": isolation,
                  "enable.partition.eof": True, "broker.address.family": "v4"})
    try:
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        out, eof = [], set()
        deadline = time.monotonic() + 60
        last = time.monotonic()
        while time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is None:
                if len(eof) == partitions and len(out) >= expect_at_least and time.monotonic() - last > idle_s:
                    break
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    eof.add(m.partition())
                    continue
                raise KafkaException(m.error())
            last = time.monotonic()
            out.append((m.partition(), m.offset(), m.key(), m.value()))
        return out
    finally:
        c.close()


def produce_plain(bootstrap, topic, records):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5,
                  "broker.address.family": "v4"})
    for partition, key, value in records:
        p.produce(topic, key=key, value=value, partition=partition)
    assert p.flush(30) == 0, "plain produce did not finish"


def txn_producer(bootstrap, txn_id, **extra):
    conf = {"bootstrap.servers": bootstrap, "transactional.id": txn_id, "linger.ms": 5,
            "broker.address.family": "v4"}
    conf.update(extra)
    p = Producer(conf)
    p.init_transactions(30)
    return p


class TransactionsTest(unittest.TestCase):
    broker = None

    @classmethod
    def setUpClass(cls):
        # A fixed port, so that clients of a killed broker reconnect to its restart, as they
        # would to a real broker coming back on its address.
        port = skiff_harness.free_port()
        cls.broker = skiff_harness.Broker({
            "listeners": "PLAINTEXT://127.0.0.1:%d" % port,
            "num.partitions": 3,
            "group.initial.rebalance.delay.ms": 0,
            "transaction.abort.timed.out.transaction.cleanup.interval.ms": 500,
        }, name="transactions broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.broker.stop()
        finally:
            cls.broker.cleanup()

    # ---- commit and abort ------------------------------------------------------------------
    def test_commit_and_abort(self):
        topic = "txn-basic"
        bs = self.broker.bootstrap
        p = txn_producer(bs, "basic")
        expected = []
        for txn, commit in enumerate([True, False, True, False, True]):
            p.begin_transaction()
            for i in range(30):
                key, value = b"k%d" % (i % 3), b"txn%d-%d" % (txn, i)
                p.produce(topic, key=key, value=value, partition=i % 3)
                if commit:
                    expected.append((i % 3, key, value))
            if commit:
                p.commit_transaction(30)
            else:
                p.flush(30)  # sent and stored before the abort (else the client just drops them)
                p.abort_transaction(30)
        committed = consume_all(bs, topic, 3, "read_committed", expect_at_least=len(expected))
        for part in range(3):
            self.assertEqual([(k, v) for (pp, _, k, v) in committed if pp == part],
                             [(k, v) for (pp, k, v) in expected if pp == part])
        # read_uncommitted sees the aborted records as well (never the markers).
        everything = consume_all(bs, topic, 3, "read_uncommitted", expect_at_least=150)
        self.assertEqual(len(everything), 150)
        self.broker.verify_log(topic, 0)

    # ---- fencing ---------------------------------------------------------------------------
    def test_second_producer_fences_the_first(self):
        topic = "txn-fenced"
        bs = self.broker.bootstrap
        first = txn_producer(bs, "fenced-id")
        first.begin_transaction()
        for i in range(10):
            first.produce(topic, value=b"zombie-%d" % i, partition=0)
        first.flush(30)
        second = txn_producer(bs, "fenced-id")  # aborts the first's open transaction
        with self.assertRaises(KafkaException) as caught:
            first.commit_transaction(30)
        self.assertTrue(caught.exception.args[0].fatal(), caught.exception.args[0])
        second.begin_transaction()
        second.produce(topic, value=b"live", partition=0)
        second.commit_transaction(30)
        got = consume_all(bs, topic, 3, "read_committed", expect_at_least=1)
        self.assertEqual([v for (_, _, _, v) in got], [b"live"])

    # ---- timeout ---------------------------------------------------------------------------
    def test_open_transaction_is_aborted_after_its_timeout(self):
        topic = "txn-timeout"
        bs = self.broker.bootstrap
        p = txn_producer(bs, "timeout-id", **{"transaction.timeout.ms": 2000})
        p.begin_transaction()
        for i in range(5):
            p.produce(topic, value=b"abandoned-%d" % i, partition=1)
        p.flush(30)
        # Abandoned: no commit, no abort. The broker aborts it: the marker makes the log end 6,
        # and a read_committed consumer then reads to the end and sees none of the records (had
        # the marker been a COMMIT it would see all five).
        c = Consumer({"bootstrap.servers": bs, "group.id": "timeout-check",
                      "isolation.level": "read_uncommitted", "broker.address.family": "v4"})
        try:
            tp = TopicPartition(topic, 1)
            skiff_harness.wait_until(
                lambda: c.get_watermark_offsets(tp, timeout=5, cached=False)[1] == 6, 30,
                what="the abort marker after the transaction timeout")
        finally:
            c.close()
        self.assertEqual(consume_all(bs, topic, 3, "read_committed"), [])
        self.assertEqual(len(consume_all(bs, topic, 3, "read_uncommitted", expect_at_least=5)), 5)

    # ---- exactly-once pipeline through SIGKILL ---------------------------------------------
    def test_exactly_once_pipeline_survives_kill_9(self):
        src, dst, n = "eos-in", "eos-out", 900
        produce_plain(self.broker.bootstrap, src,
                      [(i % 3, b"key-%d" % i, b"v-%d" % i) for i in range(n)])
        rng = random.Random(17)
        # Where the broker dies: 'open' (records produced, nothing committed), 'offsets' (offsets
        # sent to the transaction, not committed), 'committed' (right after the commit).
        kills = {4: "open", 9: "offsets", 14: "committed"}
        txn = aborted = kills_done = 0
        done = False
        while not done:
            bs = self.broker.bootstrap
            producer = txn_producer(bs, "eos-pipeline")
            # The group's membership survives the kill (docs/consumer-groups.md): the killed
            # run's consumer, which cannot leave, holds the next one's join until its session
            # times out, so the session is short.
            consumer = Consumer({"bootstrap.servers": bs, "group.id": "eos-group",
                                 "isolation.level": "read_committed", "enable.auto.commit": False,
                                 "auto.offset.reset": "earliest", "broker.address.family": "v4",
                                 "session.timeout.ms": 6000, "heartbeat.interval.ms": 1000})
            consumer.subscribe([src])
            killed = False
            idle_polls = 0
            while not killed:
                msgs = [m for m in consumer.consume(40, timeout=1.0) if not m.error()]
                if not msgs:
                    idle_polls += 1
                    if idle_polls >= 5 and self._group_caught_up(consumer, src, n):
                        done = True
                        break
                    continue
                idle_polls = 0
                txn += 1
                producer.begin_transaction()
                for m in msgs:
                    producer.produce(dst, key=m.key(), value=b"T:" + m.value(), partition=m.partition())
                stage = kills.get(txn)
                if stage == "open":
                    producer.flush(30)
                    self.broker.kill()
                    killed = True
                    break
                producer.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                                     consumer.consumer_group_metadata(), 30)
                if stage == "offsets":
                    self.broker.kill()
                    killed = True
                    break
                if stage is None and rng.random() < 0.25:
                    producer.abort_transaction(30)
                    aborted += 1
                    self._rewind(consumer)
                    continue
                producer.commit_transaction(30)
                if stage == "committed":
                    self.broker.kill()
                    killed = True
            if killed:
                kills_done += 1
                self.broker.start()  # same data directory, same port
            consumer.close()
            del producer
        self.assertEqual(kills_done, 3)
        self.assertGreater(aborted, 0)
        got = consume_all(self.broker.bootstrap, dst, 3, "read_committed", expect_at_least=n)
        values = sorted(v for (_, _, _, v) in got)
        self.assertEqual(values, sorted(b"T:v-%d" % i for i in range(n)), "exactly once, nothing aborted")
        for part in range(3):  # per partition in input order
            seq = [int(v.split(b"-")[1]) for (pp, _, _, v) in got if pp == part]
            self.assertEqual(seq, sorted(seq))
        uncommitted = consume_all(self.broker.bootstrap, dst, 3, "read_uncommitted", expect_at_least=n + 1)
        self.assertGreater(len(uncommitted), n, "aborted transforms are visible to read_uncommitted")
        for part in range(3):
            self.broker.verify_log(dst, part)

    def _rewind(self, consumer):
        """After an abort: back to the committed offsets (the aborted offsets never applied)."""
        parts = consumer.committed(consumer.assignment(), timeout=30)
        for tp in parts:
            consumer.seek(TopicPartition(tp.topic, tp.partition, tp.offset if tp.offset >= 0 else 0))

    def _group_caught_up(self, consumer, topic, n):
        parts = consumer.committed([TopicPartition(topic, p) for p in range(3)], timeout=30)
        return sum(max(tp.offset, 0) for tp in parts) == n

    # ---- bad input -------------------------------------------------------------------------
    def test_raw_control_batch_and_foreign_transactional_batch_are_refused(self):
        topic = "txn-raw"
        bs = self.broker.bootstrap
        produce_plain(bs, topic, [(0, b"seed", b"seed")])
        victim = txn_producer(bs, "victim-id")
        victim.begin_transaction()
        victim.produce(topic, value=b"victim", partition=0)
        victim.flush(30)
        base = record_batch([(b"k", b"v", [], 0)], int(time.time() * 1000))
        # A control batch (a forged COMMIT marker): INVALID_RECORD.
        control = self._patch(base, attributes=0x30, producer_id=0, epoch=0, sequence=-1)
        self.assertEqual(self._raw_produce(topic, control, "victim-id"), INVALID_RECORD)
        # A transactional batch under another client's transactional id with an invented
        # producer id: refused, nothing stored.
        forged = self._patch(base, attributes=0x10, producer_id=999999, epoch=0, sequence=0)
        self.assertIn(self._raw_produce(topic, forged, "victim-id"),
                      (INVALID_PRODUCER_ID_MAPPING, 59))  # 59 UNKNOWN_PRODUCER_ID: never issued
        # The same with a producer id this broker did issue (to an idempotent producer): still
        # not the id that holds "victim-id".
        issued = self._raw_init_producer_id()
        forged = self._patch(base, attributes=0x10, producer_id=issued, epoch=0, sequence=0)
        self.assertEqual(self._raw_produce(topic, forged, "victim-id"), INVALID_PRODUCER_ID_MAPPING)
        # Transactional records without a transactional id.
        self.assertEqual(self._raw_produce(topic, forged, None), TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        victim.commit_transaction(30)
        got = consume_all(bs, topic, 3, "read_committed", expect_at_least=2)
        self.assertEqual([v for (_, _, _, v) in got], [b"seed", b"victim"])

    @staticmethod
    def _patch(batch, attributes, producer_id, epoch, sequence):
        b = bytearray(batch)
        struct.pack_into(">h", b, 21, attributes)
        struct.pack_into(">qhi", b, 43, producer_id, epoch, sequence)
        struct.pack_into(">I", b, 17, crc32c(bytes(b[21:])))
        return bytes(b)

    def _raw_request(self, api_key, version, body):
        import socket
        with socket.create_connection(("127.0.0.1", self.broker.port), timeout=10) as s:
            s.sendall(frame(api_key, version, 7, body))
            size = struct.unpack(">i", skiff_harness.recv_exactly(s, 4))[0]
            resp = skiff_harness.recv_exactly(s, size)
        assert struct.unpack(">i", resp[:4])[0] == 7
        return resp[4:]

    def _raw_init_producer_id(self):
        """InitProducerId v0 without a transactional id: an idempotent producer's id."""
        resp = self._raw_request(22, 0, kstring(None) + struct.pack(">i", 60000))
        _, error, pid, epoch = struct.unpack(">ihqh", resp)
        self.assertEqual((error, epoch), (0, 0))
        return pid

    def _raw_produce(self, topic, batch, transactional_id):
        body = (kstring(transactional_id) + struct.pack(">hi", -1, 10000) + struct.pack(">i", 1) + kstring(topic)
                + struct.pack(">i", 1) + struct.pack(">i", 0) + kbytes(batch))
        resp = self._raw_request(0, 3, body)
        results, _ = parse_produce_v3_response(resp)
        self.assertEqual(len(results), 1)
        return results[0][2]


class LostCoordinatorRecordsTest(unittest.TestCase):
    """A power cut can keep a partition's transactional batches and lose the coordinator's records
    of them: the two logs reach the disk independently (the default mode syncs neither per
    request; a topic with flush.messages=1 on a broker without it syncs only the data). The cut is
    played here by killing the broker and truncating __transaction_state's segment back to a size
    it had earlier, as the page cache's unsynced tail would be lost. Nothing would then ever write
    the partition's marker: its last stable offset would stay put and read_committed consumers
    would stall on it for good. skiff aborts such transactions at start-up."""

    def setUp(self):
        self.broker = skiff_harness.Broker({
            "listeners": "PLAINTEXT://127.0.0.1:%d" % skiff_harness.free_port(),
            "num.partitions": 2,
        }, name="lost coordinator records broker").owned_by(self)
        self.broker.start()

    def _state_segment(self):
        d = self.broker.partition_dir("__transaction_state", 0)
        return os.path.join(d, sorted(f for f in os.listdir(d) if f.endswith(".log"))[-1])

    def _cut_state_log_back_to(self, segment, size):
        self.broker.kill()
        self.assertGreater(os.path.getsize(segment), size, "the coordinator wrote nothing to lose")
        os.truncate(segment, size)
        self.broker.start()

    def _last_stable_offset(self, topic, partition):
        """ListOffsets LATEST for read_committed: where such a consumer's reading stops."""
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "lso",
                      "isolation.level": "read_committed", "broker.address.family": "v4"})
        try:
            return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=10, cached=False)[1]
        finally:
            c.close()

    def test_a_transaction_the_coordinator_never_recorded_is_aborted_at_start(self):
        topic = "lost-txn"
        bs = self.broker.bootstrap
        produce_plain(bs, topic, [(0, b"k", b"before")])
        segment = self._state_segment()
        size_before = os.path.getsize(segment)
        p = txn_producer(bs, "lost-id")
        p.begin_transaction()
        for i in range(3):
            p.produce(topic, value=b"open-%d" % i, partition=0)
        self.assertEqual(p.flush(30), 0)
        # Offsets in the transaction too: __consumer_offsets holds them pending.
        group = Consumer({"bootstrap.servers": bs, "group.id": "lost-group",
                          "broker.address.family": "v4"})
        p.send_offsets_to_transaction([TopicPartition(topic, 1, 42)],
                                      group.consumer_group_metadata(), 30)
        group.close()
        produce_plain(bs, topic, [(0, b"k", b"after-%d" % i) for i in range(2)])
        del p
        self._cut_state_log_back_to(segment, size_before)  # InitProducerId and the adds: gone

        # The ABORT marker after the six records: the last stable offset reaches the log end, 7
        # (it stayed at 1, the open transaction's first offset, for good), and read_committed
        # readers get every committed record, none of the open transaction's.
        self.assertEqual(self._last_stable_offset(topic, 0), 7)
        committed = consume_all(self.broker.bootstrap, topic, 2, "read_committed", expect_at_least=3)
        self.assertEqual([v for (_, _, _, v) in committed], [b"before", b"after-0", b"after-1"])
        uncommitted = consume_all(self.broker.bootstrap, topic, 2, "read_uncommitted", expect_at_least=6)
        self.assertEqual(len(uncommitted), 6)
        self.broker.verify_log(topic, 0)
        self.assertIn("aborting the transaction that producer id", self.broker.log_text())
        # The pending offsets were dropped with the transaction: a read_committed consumer asks
        # for stable offsets and gets "none committed" (it got UNSTABLE_OFFSET_COMMIT, retried
        # until its timeout, while they were pending).
        group = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "lost-group",
                          "isolation.level": "read_committed", "broker.address.family": "v4"})
        try:
            self.assertLess(group.committed([TopicPartition(topic, 1)], timeout=15)[0].offset, 0)
        finally:
            group.close()
        # The transactional id starts afresh and commits.
        again = txn_producer(self.broker.bootstrap, "lost-id")
        again.begin_transaction()
        again.produce(topic, value=b"committed", partition=0)
        again.commit_transaction(30)
        committed = consume_all(self.broker.bootstrap, topic, 2, "read_committed", expect_at_least=4)
        self.assertEqual([v for (_, _, _, v) in committed][-1], b"committed")

    def test_a_commit_after_the_restart_is_refused_not_taken_for_a_retry(self):
        topic = "lost-next"
        bs = self.broker.bootstrap
        p = txn_producer(bs, "next-id")
        p.begin_transaction()
        p.produce(topic, value=b"first", partition=0)
        p.commit_transaction(30)
        segment = self._state_segment()
        size_after_first = os.path.getsize(segment)
        p.begin_transaction()
        p.produce(topic, value=b"second", partition=0)
        self.assertEqual(p.flush(30), 0)
        self._cut_state_log_back_to(segment, size_after_first)  # the second one's add: gone

        # The coordinator has the id as it was after the first commit, at the same epoch. Had it
        # kept that epoch, this commit would be answered NONE, as the retry of the first one
        # (Kafka's answer to a repeated EndTxn), while the second transaction is aborted: a
        # commit the client saw succeed and nobody can read.
        with self.assertRaises(KafkaException):
            p.commit_transaction(30)
        self.assertEqual(self._last_stable_offset(topic, 0), 4)  # first, COMMIT, second, ABORT
        committed = consume_all(self.broker.bootstrap, topic, 2, "read_committed", expect_at_least=1)
        self.assertEqual([v for (_, _, _, v) in committed], [b"first"])
        self.broker.verify_log(topic, 0)

    def test_a_transaction_that_lost_one_partition_is_aborted_whole(self):
        topic = "lost-part"
        bs = self.broker.bootstrap
        p = txn_producer(bs, "part-id")
        p.begin_transaction()
        p.produce(topic, value=b"p0", partition=0)
        self.assertEqual(p.flush(30), 0)
        segment = self._state_segment()
        size_with_p0 = os.path.getsize(segment)
        p.produce(topic, value=b"p1", partition=1)
        self.assertEqual(p.flush(30), 0)
        self._cut_state_log_back_to(segment, size_with_p0)  # the add of partition 1: gone

        # Both partitions get their ABORT marker (the last stable offsets move past the records,
        # from 0): had partition 1 alone been aborted, the producer's commit would make
        # partition 0's half of the transaction visible.
        self.assertEqual([self._last_stable_offset(topic, part) for part in (0, 1)], [2, 2])
        # The producer that sent it is fenced, as after a timeout; nothing of it is committed.
        with self.assertRaises(KafkaException):
            p.commit_transaction(30)
        self.assertEqual(consume_all(self.broker.bootstrap, topic, 2, "read_committed"), [])
        for part in (0, 1):
            self.broker.verify_log(topic, part)
        self.assertIn("aborting the transaction of 'part-id'", self.broker.log_text())

if __name__ == "__main__":
    skiff_harness.run_tests()
