"""message.timestamp.type and the timestamp bounds against the real skiff binary, with
confluent-kafka (librdkafka 2.0.2).

    /usr/bin/python3 test_timestamp_type.py /path/to/skiff

Checks:
- AdminClient creates a LogAppendTime topic and alters another one to it; DescribeConfigs shows
  message.timestamp.type (and the bounds) with their sources and defaults.
- Records produced with an old CreateTime timestamp come back to a consumer with
  TIMESTAMP_LOG_APPEND_TIME and the broker's time; the delivery report carries that time too
  (the Produce response's log_append_time_ms).
- offsets_for_times follows the append time; the .timeindex on disk holds it; a kill -9 and a
  restart keep all of it (recovery accepts the stamped batches, dump-log --verify passes).
- On a CreateTime topic, message.timestamp.before.max.ms refuses an old record and the default
  after.max.ms (one hour) a future one with INVALID_TIMESTAMP; nothing of those batches is stored.
"""

import os
import struct
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import (TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME,  # noqa: E402
                             Consumer, KafkaError, KafkaException, Producer, TopicPartition)
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic  # noqa: E402

TIMEOUT_S = 20
HOUR_MS = 3600 * 1000
OLD_TS = 1_000_000  # 1970: far outside any bound, and nothing a broker clock could say


def now_ms():
    return int(time.time() * 1000)


def produce(bootstrap, topic, records):
    """records: (value, timestamp) pairs, sent in one batch. Returns the delivery reports as
    (error code or None, (timestamp type, timestamp)), in order."""
    # A linger far longer than the test: the records wait together in one batch until flush(),
    # which sends at once (librdkafka ignores linger.ms while flushing). With a short linger a
    # loaded machine could split them (seen once in a cold CI run, 2026-12-07: two append times).
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 30000, "retries": 0})
    reports = []
    for value, ts in records:
        p.produce(topic, value=value, key=value, timestamp=ts,
                  on_delivery=lambda err, msg: reports.append(
                      (err.code() if err else None, msg.timestamp())))
    left = p.flush(TIMEOUT_S)
    if left:
        raise AssertionError("%d records not delivered in time" % left)
    return reports


def consume_all(bootstrap, topic, expected_count):
    """Every record of partition 0 from the beginning, as (value, (timestamp type, ts))."""
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
            out.append((msg.value(), msg.timestamp()))
            return False
        skiff_harness.wait_until(more, TIMEOUT_S, interval_s=0, what="%d records" % expected_count)
    finally:
        c.close()
    return out


def offset_for_time(bootstrap, topic, ts):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "times-" + topic})
    try:
        (tp,) = c.offsets_for_times([TopicPartition(topic, 0, ts)], timeout=TIMEOUT_S)
        return tp.offset
    finally:
        c.close()


def watermarks(bootstrap, topic):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "marks-" + topic})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=TIMEOUT_S)
    finally:
        c.close()


def time_index_entries(partition_dir):
    """(timestamp, offset) entries of the first segment's .timeindex (12 bytes each, zero-padded
    while the segment is active)."""
    with open(os.path.join(partition_dir, "00000000000000000000.timeindex"), "rb") as f:
        data = f.read()
    out = []
    for at in range(0, len(data) - 11, 12):
        ts, rel = struct.unpack(">qi", data[at:at + 12])
        if ts == 0 and rel == 0 and at > 0:
            break
        out.append((ts, rel))
    return out


class TimestampTypeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker(name="timestamp type broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        cls.broker.cleanup()

    def admin(self):
        return AdminClient({"bootstrap.servers": self.broker.bootstrap})

    def create(self, name, config):
        admin = self.admin()
        fs = admin.create_topics([NewTopic(name, num_partitions=1, replication_factor=1,
                                           config=config)])
        fs[name].result(timeout=TIMEOUT_S)

    def describe(self, name):
        admin = self.admin()  # kept while its futures are pending
        futures = admin.describe_configs([ConfigResource("topic", name)])
        (only,) = futures.values()
        return only.result(timeout=TIMEOUT_S)

    def assert_log_append_time(self, topic, values, before, after):
        got = consume_all(self.broker.bootstrap, topic, len(values))
        self.assertEqual([v for v, _ in got], values)
        for value, (ts_type, ts) in got:
            self.assertEqual(ts_type, TIMESTAMP_LOG_APPEND_TIME, value)
            self.assertGreaterEqual(ts, before, value)
            self.assertLessEqual(ts, after, value)
        return got

    def test_log_append_time_topics_created_and_altered(self):
        self.create("lat-created", {"message.timestamp.type": "LogAppendTime",
                                    "index.interval.bytes": "0"})
        self.create("lat-altered", {})
        configs = self.describe("lat-altered")
        self.assertEqual(configs["message.timestamp.type"].value, "CreateTime")
        self.assertEqual(configs["message.timestamp.type"].source,
                         ConfigSource.DEFAULT_CONFIG.value)
        self.assertEqual(configs["message.timestamp.after.max.ms"].value, str(HOUR_MS))
        self.assertEqual(configs["message.timestamp.before.max.ms"].value,
                         "9223372036854775807")
        res = ConfigResource("topic", "lat-altered",
                             set_config={"message.timestamp.type": "LogAppendTime"})
        admin = self.admin()
        admin.alter_configs([res])[res].result(timeout=TIMEOUT_S)
        configs = self.describe("lat-altered")
        self.assertEqual(configs["message.timestamp.type"].value, "LogAppendTime")
        self.assertEqual(configs["message.timestamp.type"].source,
                         ConfigSource.DYNAMIC_TOPIC_CONFIG.value)

        for topic in ("lat-created", "lat-altered"):
            before = now_ms()
            reports = produce(self.broker.bootstrap, topic,
                              [(b"a", OLD_TS), (b"b", OLD_TS + 1), (b"c", OLD_TS + 2)])
            after = now_ms()
            for err, (ts_type, ts) in reports:
                self.assertIsNone(err)
                # The delivery report carries the Produce response's log_append_time_ms.
                self.assertEqual(ts_type, TIMESTAMP_LOG_APPEND_TIME)
                self.assertTrue(before <= ts <= after, (before, ts, after))
            got = self.assert_log_append_time(topic, [b"a", b"b", b"c"], before, after)
            stamped = got[0][1][1]
            self.assertEqual({ts for _, (_, ts) in got}, {stamped})  # one batch, one time

            # Offsets by time follow the append time, not the producer's 1970 timestamps.
            self.assertEqual(offset_for_time(self.broker.bootstrap, topic, OLD_TS), 0)
            self.assertEqual(offset_for_time(self.broker.bootstrap, topic, stamped), 0)
            self.assertEqual(offset_for_time(self.broker.bootstrap, topic, after + HOUR_MS), -1)

        # The time index on disk holds the append time (index.interval.bytes=0: the second
        # batch adds the entry, as Kafka's rule adds one once more than the interval was written).
        produce(self.broker.bootstrap, "lat-created", [(b"d", OLD_TS)])
        entries = time_index_entries(self.broker.partition_dir("lat-created", 0))
        self.assertTrue(entries, "no time index entry")
        self.assertGreater(entries[0][0], now_ms() - HOUR_MS)

        # A CreateTime topic next to them keeps the producer's time.
        self.create("ct", {})
        ts = now_ms() - 1000
        (report,) = produce(self.broker.bootstrap, "ct", [(b"x", ts)])
        self.assertEqual(report, (None, (TIMESTAMP_CREATE_TIME, ts)))
        self.assertEqual(consume_all(self.broker.bootstrap, "ct", 1),
                         [(b"x", (TIMESTAMP_CREATE_TIME, ts))])

    def test_kill_and_restart_keeps_the_append_times(self):
        self.create("lat-crash", {"message.timestamp.type": "LogAppendTime"})
        before = now_ms()
        produce(self.broker.bootstrap, "lat-crash", [(b"p", OLD_TS), (b"q", OLD_TS)])
        after = now_ms()
        first = self.assert_log_append_time("lat-crash", [b"p", b"q"], before, after)
        self.broker.kill()
        self.broker.verify_log("lat-crash", 0)  # CRCs recomputed on append are valid
        self.broker.start()
        self.assertEqual(self.assert_log_append_time("lat-crash", [b"p", b"q"], before, after),
                         first)
        self.assertEqual(self.describe("lat-crash")["message.timestamp.type"].value,
                         "LogAppendTime")
        self.assertEqual(offset_for_time(self.broker.bootstrap, "lat-crash", before), 0)
        # Still stamping after the restart.
        later = now_ms()
        produce(self.broker.bootstrap, "lat-crash", [(b"r", OLD_TS)])
        got = consume_all(self.broker.bootstrap, "lat-crash", 3)
        self.assertEqual(got[2][1][0], TIMESTAMP_LOG_APPEND_TIME)
        self.assertGreaterEqual(got[2][1][1], later)

    def test_timestamp_bounds_refuse_old_and_future_records(self):
        self.create("bounded", {"message.timestamp.before.max.ms": str(HOUR_MS)})
        t = now_ms()
        for bad in (t - 2 * HOUR_MS, t + 2 * HOUR_MS):
            (report,) = produce(self.broker.bootstrap, "bounded", [(b"bad", bad)])
            self.assertEqual(report[0], KafkaError.INVALID_TIMESTAMP, bad)
        self.assertEqual(watermarks(self.broker.bootstrap, "bounded"), (0, 0))
        self.assertIn("One or more records have been rejected due to invalid timestamp",
                      self.broker.log_text())
        reports = produce(self.broker.bootstrap, "bounded",
                          [(b"ok1", t - HOUR_MS // 2), (b"ok2", t + HOUR_MS // 2)])
        self.assertEqual([err for err, _ in reports], [None, None])
        self.assertEqual(watermarks(self.broker.bootstrap, "bounded"), (0, 2))

        # A bad value for the config is INVALID_CONFIG.
        with self.assertRaises(KafkaException) as refused:
            self.create("bad-type", {"message.timestamp.type": "BrokerTime"})
        self.assertEqual(refused.exception.args[0].code(), KafkaError.INVALID_CONFIG)

    def test_unsupported_topic_configs_are_refused_saying_why(self):
        with self.assertRaises(KafkaException) as refused:
            self.create("tiered", {"remote.storage.enable": "true"})
        self.assertEqual(refused.exception.args[0].code(), KafkaError.INVALID_CONFIG)
        self.assertIn("not supported by skiff", refused.exception.args[0].str())
        # Replication keys a single broker can take as no-ops are accepted and shown, and so are
        # the defaults of the features skiff lacks (tools send every key with its default).
        self.create("replicated", {"min.insync.replicas": "2",
                                   "unclean.leader.election.enable": "false",
                                   "preallocate": "false", "remote.storage.enable": "false"})
        configs = self.describe("replicated")
        self.assertEqual(configs["min.insync.replicas"].value, "2")
        self.assertEqual(configs["unclean.leader.election.enable"].value, "false")
        self.assertEqual(configs["preallocate"].value, "false")
        self.assertEqual(configs["segment.jitter.ms"].value, "0")
        self.assertEqual(configs["segment.jitter.ms"].source, ConfigSource.DEFAULT_CONFIG.value)


if __name__ == "__main__":
    skiff_harness.run_tests()
