"""Compaction's configuration side against the real skiff binary (issue 18), with confluent-kafka
(librdkafka 2.0.2) and kafka-python.

    /usr/bin/python3 test_compaction_config.py /path/to/skiff

Checks:
- CreateTopics / DescribeConfigs / AlterConfigs with cleanup.policy (compact, compact,delete),
  delete.retention.ms, min/max.compaction.lag.ms and min.cleanable.dirty.ratio; a bad value is
  INVALID_CONFIG; the broker's log.cleaner.* settings in DescribeConfigs of the broker.
- Producing a record without a key to a compacted topic: the client sees INVALID_RECORD (87)
  with Kafka's message, keyed records still go through, and a consumer from the beginning reads
  exactly the keyed records, in order, once (kafka-python sees the error too).
- Retention by age leaves a compact-only topic alone while it empties a delete topic.
- log.cleanup.policy=compact on the broker makes auto-created topics compacted.
"""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import (Consumer, KafkaError, KafkaException, Producer,  # noqa: E402
                             TopicPartition)
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic  # noqa: E402
from kafka import KafkaProducer  # noqa: E402
from kafka import errors as kafka_errors  # noqa: E402

TIMEOUT_S = 15
KEYLESS_MESSAGE = "Compacted topic cannot accept message without key in topic partition"


def consume_all(bootstrap, topic, expected_count):
    """Every record of partition 0 from the beginning, as (offset, key, value)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader-" + topic,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False,
                  "enable.partition.eof": True})
    c.subscribe([topic])
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
            out.append((msg.offset(), msg.key(), msg.value()))
            return False
        skiff_harness.wait_until(more, TIMEOUT_S, interval_s=0, what="%d records" % expected_count)
    finally:
        c.close()
    return out


class CompactionConfigTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"log.retention.check.interval.ms": "200",
                                           "log.cleaner.threads": "2",
                                           "log.cleaner.dedupe.buffer.size": "4194304"},
                                          name="compaction config broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        cls.broker.cleanup()

    def admin(self):
        return AdminClient({"bootstrap.servers": self.broker.bootstrap})

    def create(self, admin, name, config):
        fs = admin.create_topics([NewTopic(name, num_partitions=1, replication_factor=1,
                                           config=config)])
        fs[name].result(timeout=TIMEOUT_S)

    def describe(self, admin, resource_type, name):
        futures = admin.describe_configs([ConfigResource(resource_type, name)])
        (only,) = futures.values()
        return only.result(timeout=TIMEOUT_S)

    def test_topic_configs_through_the_admin_api(self):
        admin = self.admin()
        self.create(admin, "compacted", {"cleanup.policy": "compact",
                                         "delete.retention.ms": "1000",
                                         "min.compaction.lag.ms": "10",
                                         "max.compaction.lag.ms": "600000",
                                         "min.cleanable.dirty.ratio": "0.2"})
        configs = self.describe(admin, "topic", "compacted")
        for key, value in [("cleanup.policy", "compact"), ("delete.retention.ms", "1000"),
                           ("min.compaction.lag.ms", "10"), ("max.compaction.lag.ms", "600000"),
                           ("min.cleanable.dirty.ratio", "0.2")]:
            self.assertEqual(configs[key].value, value, key)
            self.assertEqual(configs[key].source, ConfigSource.DYNAMIC_TOPIC_CONFIG.value, key)

        self.create(admin, "plain", {})
        configs = self.describe(admin, "topic", "plain")
        self.assertEqual(configs["cleanup.policy"].value, "delete")
        self.assertEqual(configs["cleanup.policy"].source, ConfigSource.DEFAULT_CONFIG.value)
        self.assertEqual(configs["min.cleanable.dirty.ratio"].value, "0.5")
        self.assertEqual(configs["max.compaction.lag.ms"].value, "9223372036854775807")

        # AlterConfigs replaces the whole set.
        res = ConfigResource("topic", "plain", set_config={"cleanup.policy": "compact,delete"})
        admin.alter_configs([res])[res].result(timeout=TIMEOUT_S)
        self.assertEqual(self.describe(admin, "topic", "plain")["cleanup.policy"].value,
                         "compact,delete")

        for bad in ({"cleanup.policy": "compacted"}, {"min.cleanable.dirty.ratio": "1.5"},
                    {"min.compaction.lag.ms": "100", "max.compaction.lag.ms": "99"}):
            fs = admin.create_topics([NewTopic("bad", num_partitions=1, replication_factor=1,
                                               config=bad)])
            with self.assertRaises(KafkaException) as ctx:
                fs["bad"].result(timeout=TIMEOUT_S)
            self.assertEqual(ctx.exception.args[0].code(), KafkaError.INVALID_CONFIG, bad)
        self.assertNotIn("bad", admin.list_topics(timeout=TIMEOUT_S).topics)
        res = ConfigResource("topic", "plain", set_config={"cleanup.policy": "purge"})
        with self.assertRaises(KafkaException) as ctx:
            admin.alter_configs([res])[res].result(timeout=TIMEOUT_S)
        self.assertEqual(ctx.exception.args[0].code(), KafkaError.INVALID_CONFIG)
        self.assertEqual(self.describe(admin, "topic", "plain")["cleanup.policy"].value,
                         "compact,delete")

        broker = self.describe(admin, "broker", "1")
        self.assertEqual(broker["log.cleaner.threads"].value, "2")
        self.assertEqual(broker["log.cleaner.threads"].source,
                         ConfigSource.STATIC_BROKER_CONFIG.value)
        self.assertEqual(broker["log.cleaner.dedupe.buffer.size"].value, "4194304")
        self.assertEqual(broker["log.cleanup.policy"].value, "delete")
        self.assertEqual(broker["log.cleaner.enable"].value, "true")
        self.assertEqual(broker["log.cleaner.min.cleanable.ratio"].value, "0.5")
        self.assertEqual(broker["log.cleaner.io.max.bytes.per.second"].value,
                         "1.7976931348623157E308")

    def test_keyless_records_are_refused_by_a_compacted_topic(self):
        admin = self.admin()
        self.create(admin, "keyed-only", {"cleanup.policy": "compact"})
        results = []
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "linger.ms": 0,
                      "compression.type": "lz4"})

        def report(err, msg):
            results.append((err, msg.key()))
        # One flush per message: one batch each, so only the keyless ones fail.
        for i in range(6):
            key = None if i % 3 == 1 else ("k%d" % i).encode()
            p.produce("keyed-only", key=key, value=("v%d" % i).encode(), partition=0,
                      on_delivery=report)
            self.assertEqual(p.flush(TIMEOUT_S), 0)
        self.assertEqual(len(results), 6)
        for i, (err, key) in enumerate(results):
            if i % 3 == 1:
                self.assertIsNotNone(err, i)
                self.assertEqual(err.code(), KafkaError.INVALID_RECORD, err)
                self.assertIsNone(key)
            else:
                self.assertIsNone(err, "%d: %s" % (i, err))

        # librdkafka shows its own text for the code; the broker's log names the partition.
        self.assertIn(KEYLESS_MESSAGE + " keyed-only-0.", self.broker.log_text())

        got = consume_all(self.broker.bootstrap, "keyed-only", 4)
        self.assertEqual([(k, v) for _, k, v in got],
                         [(b"k0", b"v0"), (b"k2", b"v2"), (b"k3", b"v3"), (b"k5", b"v5")])
        self.assertEqual([o for o, _, _ in got], [0, 1, 2, 3])

        # kafka-python 2.0.2 has no class for code 87 (nor reads the error message): it reports
        # UnknownError, and stores nothing (the keyed record after it gets offset 4).
        kp = KafkaProducer(bootstrap_servers=self.broker.bootstrap, retries=0)
        try:
            with self.assertRaises(kafka_errors.UnknownError):
                kp.send("keyed-only", value=b"no key", partition=0).get(timeout=TIMEOUT_S)
            meta = kp.send("keyed-only", key=b"k6", value=b"v6", partition=0).get(
                timeout=TIMEOUT_S)
            self.assertEqual(meta.offset, 4)
        finally:
            kp.close()

    def test_retention_by_age_spares_a_compact_only_topic(self):
        admin = self.admin()
        # Timestamps an hour old, retention of a minute, one record per segment.
        for name, policy in (("kept", "compact"), ("aged", "delete")):
            self.create(admin, name, {"cleanup.policy": policy, "retention.ms": "60000",
                                      "segment.bytes": "100"})
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "linger.ms": 0})
        old = int(time.time() * 1000) - 3600 * 1000
        for i in range(5):
            for name in ("kept", "aged"):
                p.produce(name, key=b"k%d" % i, value=b"v" * 50, partition=0, timestamp=old)
            self.assertEqual(p.flush(TIMEOUT_S), 0)

        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "watermarks"})
        try:
            def low(name):
                return c.get_watermark_offsets(TopicPartition(name, 0), timeout=TIMEOUT_S)[0]
            # Retention passes over every log each time: once "aged" lost its sealed segments,
            # "kept" has been through at least one pass.
            skiff_harness.wait_until(lambda: low("aged") == 4, TIMEOUT_S,
                                     what="retention on the delete topic")
            self.assertEqual(low("kept"), 0)
        finally:
            c.close()
        got = consume_all(self.broker.bootstrap, "kept", 5)
        self.assertEqual([k for _, k, _ in got], [b"k%d" % i for i in range(5)])


class BrokerDefaultPolicyTest(unittest.TestCase):
    def test_log_cleanup_policy_compact_makes_new_topics_compacted(self):
        with skiff_harness.Broker({"log.cleanup.policy": "compact"},
                                  name="compact-by-default broker") as broker:
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            fs = admin.create_topics([NewTopic("t", num_partitions=1, replication_factor=1)])
            fs["t"].result(timeout=TIMEOUT_S)
            futures = admin.describe_configs([ConfigResource("topic", "t")])
            (only,) = futures.values()
            policy = only.result(timeout=TIMEOUT_S)["cleanup.policy"]
            self.assertEqual(policy.value, "compact")
            self.assertEqual(policy.source, ConfigSource.STATIC_BROKER_CONFIG.value)
            errors = []
            p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0})
            p.produce("t", value=b"x", on_delivery=lambda err, msg: errors.append(err))
            self.assertEqual(p.flush(TIMEOUT_S), 0)
            self.assertEqual(len(errors), 1)
            self.assertIsNotNone(errors[0])
            self.assertEqual(errors[0].code(), KafkaError.INVALID_RECORD)

    def test_bad_cleaner_settings_stop_start_up(self):
        broker = skiff_harness.Broker({"log.cleaner.threads": "8",
                                       "log.cleaner.dedupe.buffer.size": "4194304"},
                                      name="bad cleaner settings broker")
        try:
            with self.assertRaises(skiff_harness.BrokerError):
                broker.start()
            self.assertIn("per cleaner thread", broker.log_text())
        finally:
            broker.cleanup()


if __name__ == "__main__":
    skiff_harness.run_tests()
