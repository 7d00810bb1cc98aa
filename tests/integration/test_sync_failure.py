"""A disk that fails a sync (or takes its time), against the real skiff binary: skiff halts at once with a message
saying why (as Kafka halts when its log directory fails), acknowledges nothing that the failed
sync was to make durable, never writes the clean-shutdown marker, and the next start recovers
the log with every acknowledged message in it once and in order.

    sudo /usr/bin/python3 test_sync_failure.py /path/to/skiff

The data directory is a FUSE file system the test mounts itself (faulty_fs.py, on Debian's
python3-fusepy): it passes everything through to a directory beside it, except that while a
switch file exists every fsync and fdatasync answers EIO, as a disk whose write-back failed does.
Retrying such a sync is what skiff must not do: Linux marks the pages that failed clean, so the
retry succeeds without writing them (storage/sync_failure.h). Mounting needs root and /dev/fuse;
elsewhere the test is skipped with a message saying so.
"""

import os
import shutil
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

FAULTY_FS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "faulty_fs.py")
TOPIC = "synced"
HALTED = "Halting without a clean shutdown"


class SyncFailureTest(unittest.TestCase):
    def broker_on_faulty_fs(self, overrides, name):
        """A broker whose data directory is a faulty_fs mount; self.switch fails its syncs."""
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to mount a FUSE file system as the data directory")
        if not os.path.exists("/dev/fuse"):
            raise unittest.SkipTest("no /dev/fuse here: cannot mount the failing file system")
        broker = skiff_harness.Broker(overrides, name=name)
        backing = os.path.join(broker.tmp, "backing")
        os.makedirs(backing)
        os.makedirs(broker.data_dir)
        self.switch = os.path.join(broker.tmp, "fail-syncs")
        self.addCleanup(shutil.rmtree, broker.tmp, ignore_errors=True)  # last: after the umount
        with open(os.path.join(broker.tmp, "faulty-fs.log"), "wb") as log:
            fs = skiff_harness.spawn(["/usr/bin/python3", FAULTY_FS, backing, broker.data_dir,
                                      self.switch], stdout=log, stderr=subprocess.STDOUT)
        self.addCleanup(skiff_harness.stop_process, fs)
        self.addCleanup(subprocess.run, ["umount", "-l", broker.data_dir])
        skiff_harness.wait_until(lambda: os.path.ismount(broker.data_dir) or fs.poll() is not None,
                                 20, what="the FUSE mount")
        if not os.path.ismount(broker.data_dir):
            with open(os.path.join(broker.tmp, "faulty-fs.log")) as f:
                raise unittest.SkipTest("mounting a FUSE file system is not permitted here: %s"
                                        % f.read().strip()[-500:])
        return broker.owned_by(self).start()  # its cleanup runs before the umount's

    def fail_syncs(self, on):
        if on:
            open(self.switch, "w").close()
        else:
            os.unlink(self.switch)

    def produce(self, broker, values, **conf):
        """Idempotent acks=all unless `conf` says otherwise; returns the values acknowledged
        and the delivery errors."""
        p = Producer(dict({"bootstrap.servers": broker.bootstrap, "acks": "all",
                           "enable.idempotence": True, "linger.ms": 0,
                           "message.timeout.ms": 6000, "broker.address.family": "v4"}, **conf))
        acked, errors = [], []

        def on_delivery(err, msg):
            (errors if err else acked).append(err if err else msg.value())

        for v in values:
            p.produce(TOPIC, value=v, on_delivery=on_delivery)
        p.flush(30)
        return acked, errors

    def assert_halted(self, broker, timeout_s=30):
        """The broker exits by itself with code 1 and says why; returns what it logged."""
        code = skiff_harness.reap(broker.proc, timeout_s)
        self.assertIsNotNone(code, "skiff kept running after a sync failed:\n" + broker.log_text())
        self.assertEqual(code, 1)
        text = broker.log_text()
        self.assertRegex(text, r"\[critical\] fsync \S+: Input/output error: .*" + HALTED)
        self.assertNotIn("shutdown complete", text)
        broker.proc = None
        return text

    def restart_and_read(self, broker, expected, recovered=True):
        """Restarts on the healed disk: recovered (no clean-shutdown marker) unless stopped
        cleanly, and the log is exactly `expected`, then possibly values the failure left
        unacknowledged."""
        if os.path.exists(self.switch):
            self.fail_syncs(False)
        broker.start()
        self.assertEqual("no clean-shutdown marker" in broker.log_text(), recovered)
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "reader",
                      "enable.auto.commit": False, "broker.address.family": "v4"})
        got = []
        try:
            c.assign([TopicPartition(TOPIC, 0, 0)])
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is None:
                    if len(got) >= len(expected):
                        break
                    continue
                if m.error() is None:
                    got.append((m.offset(), m.value()))
        finally:
            c.close()
        self.assertEqual([o for o, _ in got], list(range(len(got))))  # no hole, no repeat
        self.assertEqual([v for _, v in got[:len(expected)]], expected)
        broker.verify_log(TOPIC, 0)
        return [v for _, v in got[len(expected):]]

    def test_durable_mode_halts_instead_of_acknowledging(self):
        broker = self.broker_on_faulty_fs({"num.partitions": 1,
                                           "log.flush.interval.messages": 1}, "durable broker")
        before = [b"before-%d" % i for i in range(200)]
        acked, errors = self.produce(broker, before)
        self.assertEqual((acked, errors), (before, []))

        self.fail_syncs(True)
        acked, errors = self.produce(broker, [b"during"])
        self.assertEqual(acked, [], "acknowledged although its sync failed")
        self.assertEqual(len(errors), 1)
        self.assert_halted(broker)

        # The unacknowledged message may be on disk (a failed produce may have been stored,
        # as in Kafka), but only once, after everything acknowledged.
        rest = self.restart_and_read(broker, before)
        self.assertIn(rest, ([], [b"during"]))

    def test_default_mode_halts_when_a_rolled_segment_cannot_be_synced(self):
        # Small segments: the sealed ones are synced in the background after each roll.
        broker = self.broker_on_faulty_fs({"num.partitions": 1, "log.segment.bytes": 16384},
                                          "default-mode broker")
        before = [b"before-%04d-" % i + b"x" * 1000 for i in range(100)]
        acked, errors = self.produce(broker, before)
        self.assertEqual((acked, errors), (before, []))

        # Acknowledged without a sync in this mode; the rolls they cause need one.
        self.fail_syncs(True)
        during = [b"during-%04d-" % i + b"x" * 1000 for i in range(50)]
        acked, _ = self.produce(broker, during)
        self.assertEqual(acked, during[:len(acked)])
        text = self.assert_halted(broker)
        self.assertNotIn("(retried)", text)

        rest = self.restart_and_read(broker, before + acked)
        self.assertEqual(rest, during[len(acked):len(acked) + len(rest)])

    def test_a_failed_write_is_refused_stores_nothing_and_writing_resumes(self):
        # Unlike a failed sync, a failed write leaves nothing behind that a later sync could
        # vouch for: the next append writes at the same position. So skiff answers
        # KAFKA_STORAGE_ERROR and keeps serving, as for a full disk (test_disk_full.py).
        broker = self.broker_on_faulty_fs({"num.partitions": 1}, "write-failure broker")
        before = [b"before-%d" % i for i in range(50)]
        acked, errors = self.produce(broker, before)
        self.assertEqual((acked, errors), (before, []))

        open(self.switch + ".writes", "w").close()
        acked, errors = self.produce(broker, [b"refused-%d" % i for i in range(5)])
        self.assertEqual(acked, [])
        self.assertEqual(len(errors), 5)
        # The broker's answer itself, which the idempotent producer retries until its timeout:
        # a producer without retries is told KAFKA_STORAGE_ERROR.
        acked, errors = self.produce(broker, [b"refused-once"], **{"enable.idempotence": False,
                                                                   "retries": 0})
        self.assertEqual(acked, [])
        self.assertEqual([e.code() for e in errors], [KafkaError.KAFKA_STORAGE_ERROR])
        self.assertTrue(broker.alive())
        self.assertIn("Input/output error", broker.log_text())
        os.unlink(self.switch + ".writes")

        after = [b"after-%d" % i for i in range(50)]
        acked, errors = self.produce(broker, after)
        self.assertEqual((acked, errors), (after, []))
        broker.stop()
        self.assertEqual(self.restart_and_read(broker, before + after, recovered=False), [])

    def hold_syncs(self):
        """From now until the returned file is removed, every fsync of the mount waits."""
        hold = self.switch + ".hold"
        open(hold, "w").close()
        self.addCleanup(lambda: os.path.exists(hold) and os.unlink(hold))
        return hold

    def wait_until_held(self, what):
        skiff_harness.wait_until(lambda: os.path.exists(self.switch + ".holding"), 20, what=what)

    def read_from_start(self, broker, count):
        """The first `count` values of the partition, read by a new consumer (10 s at most)."""
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "reader",
                      "enable.auto.commit": False, "broker.address.family": "v4"})
        try:
            c.assign([TopicPartition(TOPIC, 0, 0)])
            got = []
            deadline = time.monotonic() + 10
            while len(got) < count and time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is not None and m.error() is None:
                    got.append(m.value())
            return got
        finally:
            c.close()

    def assert_others_served(self, broker, durable_values):
        """While a sync is held: another client of the (one) network thread gets its metadata,
        and a consumer reads what is already durable."""
        md = AdminClient({"bootstrap.servers": broker.bootstrap,
                          "broker.address.family": "v4"}).list_topics(timeout=10)
        self.assertEqual(len(md.topics[TOPIC].partitions), 1)
        self.assertEqual(self.read_from_start(broker, len(durable_values)), durable_values)

    def test_a_sync_that_hangs_holds_up_only_the_produce_waiting_for_it(self):
        # One network thread, so every client shares it. A durable-mode produce waits for its
        # sync; the thread that serves its connection must not, or every other client of that
        # thread waits for the disk too (skiff synced a lone append on the network thread until
        # 2026-12-07).
        broker = self.broker_on_faulty_fs({"num.partitions": 1, "log.flush.interval.messages": 1,
                                           "num.network.threads": 1}, "hung-sync broker")
        acked, errors = self.produce(broker, [b"first"])
        self.assertEqual((acked, errors), ([b"first"], []))

        hold = self.hold_syncs()
        p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 0,
                      "enable.idempotence": True, "broker.address.family": "v4"})
        delivered = []
        p.produce(TOPIC, value=b"held", on_delivery=lambda err, msg: delivered.append(
            err if err else msg.value()))
        p.poll(0)
        self.wait_until_held("the produce's sync to reach the disk")
        p.poll(0.5)
        self.assertEqual(delivered, [], "acknowledged before its sync ended")
        self.assert_others_served(broker, [b"first"])
        self.assertEqual(delivered, [], "acknowledged before its sync ended")

        os.unlink(hold)
        p.flush(30)
        self.assertEqual(delivered, [b"held"])
        self.assertEqual(self.read_from_start(broker, 2), [b"first", b"held"])

    def assert_held_alone(self, broker, call, what, durable_values):
        """Holds every sync, makes `call` in a thread, and checks that it is not answered while
        the hold lasts but other clients are served; then releases the hold and checks that
        `call` returns."""
        hold = self.hold_syncs()
        outcome = []

        def make_call():
            try:
                call()
                outcome.append("answered")
            except Exception as e:  # noqa: BLE001 (reported by the assertion below)
                outcome.append(repr(e))
        t = threading.Thread(target=make_call, daemon=True)
        t.start()
        self.wait_until_held(what + "'s sync to reach the disk")
        t.join(0.5)
        self.assertEqual(outcome, [], what + " was answered before its sync ended")
        self.assert_others_served(broker, durable_values)
        self.assertEqual(outcome, [], what + " was answered before its sync ended")
        os.unlink(hold)
        t.join(30)
        self.assertEqual(outcome, ["answered"])

    def test_an_offset_commit_whose_sync_hangs_holds_up_only_that_commit(self):
        # Durable mode syncs an OffsetCommit before answering it. Until 2026-12-07 that sync ran
        # on the network thread, under the offsets store's lock: while the disk took its time,
        # every client of that thread (and every other commit) waited too.
        broker = self.broker_on_faulty_fs({"num.partitions": 1, "log.flush.interval.messages": 1,
                                           "num.network.threads": 1}, "hung-commit broker")
        acked, errors = self.produce(broker, [b"first", b"second"])
        self.assertEqual((acked, errors), ([b"first", b"second"], []))
        conf = {"bootstrap.servers": broker.bootstrap, "group.id": "committer",
                "enable.auto.commit": False, "broker.address.family": "v4"}
        committer = Consumer(conf)
        self.addCleanup(committer.close)
        committer.commit(offsets=[TopicPartition(TOPIC, 0, 1)], asynchronous=False)

        self.assert_held_alone(
            broker, lambda: committer.commit(offsets=[TopicPartition(TOPIC, 0, 2)],
                                             asynchronous=False),
            "the commit", [b"first", b"second"])
        check = Consumer(conf)
        try:
            [tp] = check.committed([TopicPartition(TOPIC, 0)], timeout=10)
            self.assertEqual(tp.offset, 2)
        finally:
            check.close()

    def test_a_transaction_whose_sync_hangs_holds_up_only_that_transaction(self):
        # Durable mode syncs what the transaction coordinator appends to __transaction_state
        # (InitProducerId, AddPartitionsToTxn, EndTxn) and the markers it writes before
        # answering. Until 2026-12-07 those syncs ran on the network thread that read the
        # request: while the disk took its time, every client of that thread waited too.
        broker = self.broker_on_faulty_fs({"num.partitions": 1, "log.flush.interval.messages": 1,
                                           "num.network.threads": 1}, "hung-transaction broker")
        acked, errors = self.produce(broker, [b"first"])
        self.assertEqual((acked, errors), ([b"first"], []))
        txn_topic = "transactional"
        p = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": "held",
                      "linger.ms": 0, "broker.address.family": "v4"})
        p.init_transactions(10)
        p.begin_transaction()
        values = [b"txn-%d" % i for i in range(5)]
        delivered = []
        for v in values:
            p.produce(txn_topic, value=v, on_delivery=lambda err, msg: delivered.append(
                err if err else msg.value()))
        self.assertEqual(p.flush(10), 0)
        self.assertEqual(delivered, values)

        # faulty_fs holds the syncs of every file of the mount, not those of one partition. So
        # the hold starts only now, with the records and AddPartitionsToTxn durable: the syncs
        # the commit waits for are then all the coordinator's (EndTxn's PrepareCommit in
        # __transaction_state-0 first; its markers and CompleteCommit after the release).
        self.assert_held_alone(broker, lambda: p.commit_transaction(30), "the transaction",
                               [b"first"])
        # Every committed record once and in order (offsets without a hole or a repeat), and
        # nothing after them: the end of the partition comes next.
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "reader",
                      "enable.auto.commit": False, "isolation.level": "read_committed",
                      "enable.partition.eof": True, "broker.address.family": "v4"})
        try:
            c.assign([TopicPartition(txn_topic, 0, 0)])
            got = []
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is None:
                    continue
                if m.error() is None:
                    got.append((m.offset(), m.value()))
                elif m.error().code() == KafkaError._PARTITION_EOF and len(got) >= len(values):
                    break
        finally:
            c.close()
        self.assertEqual(got, list(enumerate(values)))

    def test_a_consumer_group_forms_while_the_disk_holds_its_syncs(self):
        # A group's membership records (JoinGroup, SyncGroup) are appended to __consumer_offsets
        # and, in durable mode, synced by a group-commit thread without the answer waiting: the
        # members' answers come from the coordinator's memory. Until 2026-12-07 they were
        # fdatasynced on the network thread that read the request, so while the disk took its
        # time the group could not form, and every other client of that thread waited too.
        broker = self.broker_on_faulty_fs({"num.partitions": 1, "log.flush.interval.messages": 1,
                                           "num.network.threads": 1,
                                           "group.initial.rebalance.delay.ms": 0},
                                          "held-group broker")
        acked, errors = self.produce(broker, [b"first"])
        self.assertEqual((acked, errors), ([b"first"], []))

        hold = self.hold_syncs()
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "held-group",
                      "enable.auto.commit": False, "auto.offset.reset": "earliest",
                      "broker.address.family": "v4"})
        self.addCleanup(c.close)
        c.subscribe([TOPIC])
        got = []
        deadline = time.monotonic() + 20
        while not got and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and m.error() is None:
                got.append(m.value())
        self.assertTrue(os.path.exists(self.switch + ".holding"),
                        "the group's records were never synced: the test held nothing")
        self.assertEqual(got, [b"first"], "the group did not form while the disk held its syncs")
        self.assert_others_served(broker, [b"first"])

        os.unlink(hold)
        # The commit is waited for, and its sync covers the membership records before it.
        c.commit(message=m, asynchronous=False)
        [tp] = c.committed([TopicPartition(TOPIC, 0)], timeout=10)
        self.assertEqual(tp.offset, 1)

    def test_a_shutdown_whose_last_sync_fails_is_not_a_clean_one(self):
        broker = self.broker_on_faulty_fs({"num.partitions": 1}, "shutdown broker")
        before = [b"before-%d" % i for i in range(100)]
        acked, errors = self.produce(broker, before)
        self.assertEqual((acked, errors), (before, []))

        self.fail_syncs(True)
        broker.proc.terminate()  # SIGTERM: closing the logs syncs them
        self.assert_halted(broker)
        self.assertFalse(os.path.exists(os.path.join(broker.tmp, "backing", ".kafka_cleanshutdown")))
        self.assertEqual(self.restart_and_read(broker, before), [])


if __name__ == "__main__":
    skiff_harness.run_tests()
