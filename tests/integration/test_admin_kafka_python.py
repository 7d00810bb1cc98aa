"""kafka-python's KafkaAdminClient (2.0.2) administering topics on the real skiff binary.

    /usr/bin/python3 test_admin_kafka_python.py /path/to/skiff

Checks: CreateTopics with 3 partitions and segment.bytes, the topic in Metadata and in
DescribeConfigs (override source for segment.bytes, default source elsewhere), produced records
rolling segments at the topic's size, AlterConfigs, CreatePartitions, the overrides surviving a
restart, DeleteTopics removing the directories; and the error codes for a duplicate topic, a bad
name, an unknown config, a bad replication factor, shrinking partitions and deleting a missing
topic.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from kafka import KafkaConsumer, KafkaProducer  # noqa: E402
from kafka.admin import (ConfigResource, ConfigResourceType, KafkaAdminClient,  # noqa: E402
                         NewPartitions, NewTopic)
from kafka import errors as Errors  # noqa: E402

DYNAMIC_TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5
SEGMENT_BYTES = 16384


class KafkaPythonAdminTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"log.retention.bytes": "1000000000"},
                                          name="kafka-python admin broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        cls.broker.cleanup()

    def admin(self):
        a = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap, client_id="skiff-admin-test",
                             request_timeout_ms=10000)
        self.addCleanup(a.close)
        return a

    def partitions_of(self, topic):
        consumer = KafkaConsumer(bootstrap_servers=self.broker.bootstrap)
        try:
            consumer.topics()  # refresh metadata for all topics
            parts = consumer.partitions_for_topic(topic)
            return sorted(parts) if parts else []
        finally:
            consumer.close()

    def topic_configs(self, admin, topic):
        resp = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)],
                                      include_synonyms=True)
        self.assertEqual(len(resp), 1)
        (error_code, _msg, _type, name, entries) = resp[0].resources[0]
        self.assertEqual(error_code, 0)
        self.assertEqual(name, topic)
        # v1+: (name, value, read_only, config_source, is_sensitive, synonyms)
        return {e[0]: (e[1], e[3]) for e in entries}

    def segment_logs(self, topic, partition):
        d = self.broker.partition_dir(topic, partition)
        return sorted(f for f in os.listdir(d) if f.endswith(".log"))

    def test_topic_lifecycle(self):
        admin = self.admin()
        admin.create_topics([NewTopic("orders", 3, 1, topic_configs={"segment.bytes": str(SEGMENT_BYTES)})])
        self.assertEqual(self.partitions_of("orders"), [0, 1, 2])

        configs = self.topic_configs(admin, "orders")
        self.assertEqual(configs["segment.bytes"], (str(SEGMENT_BYTES), DYNAMIC_TOPIC_CONFIG))
        self.assertEqual(configs["retention.ms"], ("604800000", DEFAULT_CONFIG))
        self.assertEqual(configs["retention.bytes"], ("1000000000", STATIC_BROKER_CONFIG))
        self.assertEqual(configs["cleanup.policy"][0], "delete")

        # 200 records of ~1 KiB, one per batch, into partition 0: segments roll at 16 KiB.
        producer = KafkaProducer(bootstrap_servers=self.broker.bootstrap, acks="all", linger_ms=0,
                                 batch_size=1)
        for i in range(200):
            producer.send("orders", value=b"x" * 1000, partition=0).get(timeout=10)
        producer.close()
        logs = self.segment_logs("orders", 0)
        self.assertGreaterEqual(len(logs), 10, logs)
        for name in logs[:-1]:
            size = os.path.getsize(os.path.join(self.broker.partition_dir("orders", 0), name))
            self.assertLessEqual(size, SEGMENT_BYTES, name)
        self.broker.verify_log("orders", 0)

        admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, "orders",
                                            configs={"segment.bytes": str(SEGMENT_BYTES),
                                                     "retention.ms": "3600000"})])
        configs = self.topic_configs(admin, "orders")
        self.assertEqual(configs["retention.ms"], ("3600000", DYNAMIC_TOPIC_CONFIG))

        admin.create_partitions({"orders": NewPartitions(5)})
        self.assertEqual(self.partitions_of("orders"), [0, 1, 2, 3, 4])
        self.assertTrue(os.path.isdir(self.broker.partition_dir("orders", 4)))

        # Overrides and partitions survive a restart.
        self.broker.restart()
        admin = self.admin()
        configs = self.topic_configs(admin, "orders")
        self.assertEqual(configs["segment.bytes"], (str(SEGMENT_BYTES), DYNAMIC_TOPIC_CONFIG))
        self.assertEqual(configs["retention.ms"], ("3600000", DYNAMIC_TOPIC_CONFIG))
        self.assertEqual(self.partitions_of("orders"), [0, 1, 2, 3, 4])

        admin.delete_topics(["orders"])
        self.assertNotIn("orders", self.partitions_of_all())
        data = self.broker.data_dir
        skiff_harness.wait_until(
            lambda: not [d for d in os.listdir(data) if d.startswith("orders-")], 10,
            what="orders-* directories deleted")
        with self.assertRaises(Errors.UnknownTopicOrPartitionError):
            admin.delete_topics(["orders"])

    def partitions_of_all(self):
        consumer = KafkaConsumer(bootstrap_servers=self.broker.bootstrap)
        try:
            return consumer.topics()
        finally:
            consumer.close()

    def test_errors(self):
        admin = self.admin()
        admin.create_topics([NewTopic("dup", 1, 1)])
        with self.assertRaises(Errors.TopicAlreadyExistsError):
            admin.create_topics([NewTopic("dup", 1, 1)])
        with self.assertRaises(Errors.InvalidTopicError):
            admin.create_topics([NewTopic("bad name!", 1, 1)])
        with self.assertRaises(Errors.InvalidConfigurationError) as ctx:
            admin.create_topics([NewTopic("badcfg", 1, 1, topic_configs={"compression.level": "3"})])
        self.assertIn("compression.level", str(ctx.exception))
        with self.assertRaises(Errors.InvalidConfigurationError):
            admin.create_topics([NewTopic("badcfg", 1, 1, topic_configs={"segment.bytes": "abc"})])
        with self.assertRaises(Errors.InvalidReplicationFactorError):
            admin.create_topics([NewTopic("rf3", 1, 3)])
        with self.assertRaises(Errors.InvalidPartitionsError):
            admin.create_topics([NewTopic("zero", 0, 1)])
        with self.assertRaises(Errors.InvalidPartitionsError):
            admin.create_partitions({"dup": NewPartitions(1)})
        with self.assertRaises(Errors.UnknownTopicOrPartitionError):
            admin.delete_topics(["never-created"])
        # validate_only creates nothing.
        admin.create_topics([NewTopic("dry", 2, 1)], validate_only=True)
        self.assertNotIn("dry", self.partitions_of_all())
        self.assertFalse(os.path.exists(self.broker.partition_dir("dry", 0)))
        for name in ("badcfg", "rf3", "zero"):
            self.assertFalse(os.path.exists(self.broker.partition_dir(name, 0)), name)


if __name__ == "__main__":
    skiff_harness.run_tests()
