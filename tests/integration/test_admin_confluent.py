"""confluent-kafka's AdminClient (librdkafka 2.0.2) administering topics on the real skiff binary.

    /usr/bin/python3 test_admin_confluent.py /path/to/skiff

Checks: create_topics with 3 partitions and segment.bytes, the topic in list_topics and in
describe_configs (sources: topic override, static broker config, default), segments rolling at
the topic's size, alter_configs, create_partitions, delete_topics removing the directories, the
broker resource in describe_configs, compression.type and message.format.version through create,
alter and describe (IncrementalAlterConfigs: tests/broker/handlers), and the error codes librdkafka reports for a duplicate, a
bad name, an unknown config and a bad replication factor; dynamic broker configs through
alter_configs, refused for a static setting, in effect after a restart.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import KafkaError, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import (AdminClient, ConfigResource, ConfigSource,  # noqa: E402
                                   NewPartitions, NewTopic)

SEGMENT_BYTES = 20000
TIMEOUT_S = 15


class ConfluentAdminTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"log.roll.ms": "86400000"}, name="confluent admin broker")
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        cls.broker.cleanup()

    def admin(self):
        return AdminClient({"bootstrap.servers": self.broker.bootstrap})

    def topics(self, admin):
        return admin.list_topics(timeout=TIMEOUT_S).topics

    def describe(self, admin, resource_type, name):
        futures = admin.describe_configs([ConfigResource(resource_type, name)])
        (only,) = futures.values()
        return only.result(timeout=TIMEOUT_S)

    def expect_error(self, future, code):
        with self.assertRaises(KafkaException) as ctx:
            future.result(timeout=TIMEOUT_S)
        self.assertEqual(ctx.exception.args[0].code(), code, ctx.exception)
        return ctx.exception.args[0]

    def test_topic_lifecycle(self):
        admin = self.admin()
        fs = admin.create_topics([NewTopic("events", num_partitions=3, replication_factor=1,
                                           config={"segment.bytes": str(SEGMENT_BYTES)})])
        fs["events"].result(timeout=TIMEOUT_S)
        self.assertEqual(sorted(self.topics(admin)["events"].partitions), [0, 1, 2])

        configs = self.describe(admin, "topic", "events")
        self.assertEqual(configs["segment.bytes"].value, str(SEGMENT_BYTES))
        self.assertEqual(configs["segment.bytes"].source, ConfigSource.DYNAMIC_TOPIC_CONFIG.value)
        self.assertEqual(configs["segment.ms"].value, "86400000")
        self.assertEqual(configs["segment.ms"].source, ConfigSource.STATIC_BROKER_CONFIG.value)
        self.assertEqual(configs["max.message.bytes"].source, ConfigSource.DEFAULT_CONFIG.value)

        broker_configs = self.describe(admin, "broker", "1")
        self.assertEqual(broker_configs["log.roll.ms"].value, "86400000")
        self.assertEqual(broker_configs["log.roll.ms"].source,
                         ConfigSource.STATIC_BROKER_CONFIG.value)
        self.assertEqual(broker_configs["num.partitions"].source, ConfigSource.DEFAULT_CONFIG.value)

        errors = []
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "linger.ms": 0})
        for _ in range(100):
            p.produce("events", value=b"y" * 1000, partition=1,
                      on_delivery=lambda err, msg: err and errors.append(err))
            self.assertEqual(p.flush(TIMEOUT_S), 0)  # one batch per record
        self.assertEqual(errors, [])
        d = self.broker.partition_dir("events", 1)
        logs = sorted(f for f in os.listdir(d) if f.endswith(".log"))
        self.assertGreaterEqual(len(logs), 4, logs)
        for name in logs[:-1]:
            self.assertLessEqual(os.path.getsize(os.path.join(d, name)), SEGMENT_BYTES)

        # max.message.bytes per topic is enforced by Produce.
        fs = admin.alter_configs([ConfigResource("topic", "events",
                                                 set_config={"segment.bytes": str(SEGMENT_BYTES),
                                                             "max.message.bytes": "5000"})])
        list(fs.values())[0].result(timeout=TIMEOUT_S)
        configs = self.describe(admin, "topic", "events")
        self.assertEqual(configs["max.message.bytes"].value, "5000")
        self.assertEqual(configs["max.message.bytes"].source,
                         ConfigSource.DYNAMIC_TOPIC_CONFIG.value)
        p.produce("events", value=b"z" * 8000, partition=0,
                  on_delivery=lambda err, msg: errors.append(err))
        p.flush(TIMEOUT_S)
        self.assertEqual(len(errors), 1)
        self.assertEqual(errors[0].code(), KafkaError.MSG_SIZE_TOO_LARGE)

        fs = admin.create_partitions([NewPartitions("events", 6)])
        fs["events"].result(timeout=TIMEOUT_S)
        self.assertEqual(sorted(self.topics(admin)["events"].partitions), list(range(6)))
        fs = admin.create_partitions([NewPartitions("events", 2)])
        self.expect_error(fs["events"], KafkaError.INVALID_PARTITIONS)

        fs = admin.delete_topics(["events"])
        fs["events"].result(timeout=TIMEOUT_S)
        self.assertNotIn("events", self.topics(admin))
        skiff_harness.wait_until(
            lambda: not [x for x in os.listdir(self.broker.data_dir) if x.startswith("events-")],
            10, what="events-* directories deleted")
        fs = admin.delete_topics(["events"])
        self.expect_error(fs["events"], KafkaError.UNKNOWN_TOPIC_OR_PART)

    def test_compression_and_message_format_configs(self):
        admin = self.admin()
        config = {"compression.type": "lz4", "message.format.version": "0.10.0"}
        admin.create_topics([NewTopic("t-configs", 1, 1, config=config)])["t-configs"].result(
            timeout=TIMEOUT_S)
        configs = self.describe(admin, "topic", "t-configs")
        self.assertEqual(configs["compression.type"].value, "lz4")
        self.assertEqual(configs["compression.type"].source,
                         ConfigSource.DYNAMIC_TOPIC_CONFIG.value)
        self.assertEqual(configs["message.format.version"].value, "0.10.0")

        (f,) = admin.alter_configs([ConfigResource(
            "topic", "t-configs", set_config={"compression.type": "snappy",
                                              "message.format.version": "2.8"})]).values()
        f.result(timeout=TIMEOUT_S)
        configs = self.describe(admin, "topic", "t-configs")
        self.assertEqual(configs["compression.type"].value, "snappy")
        self.assertEqual(configs["message.format.version"].value, "2.8")

        for key, value in [("compression.type", "brotli"), ("compression.type", "none"),
                           ("message.format.version", "banana"),
                           ("message.format.version", "7.1")]:
            (f,) = admin.alter_configs([ConfigResource(
                "topic", "t-configs", set_config={key: value})]).values()
            with self.assertRaises(KafkaException, msg="%s=%s" % (key, value)):
                f.result(timeout=TIMEOUT_S)
        self.assertEqual(self.describe(admin, "topic", "t-configs")["compression.type"].value,
                         "snappy")

        b = self.describe(admin, "broker", "1")
        self.assertEqual(b["compression.type"].value, "producer")
        self.assertIn("log.message.format.version", b)

    def test_errors(self):
        admin = self.admin()
        admin.create_topics([NewTopic("twice", 1, 1)])["twice"].result(timeout=TIMEOUT_S)
        self.expect_error(admin.create_topics([NewTopic("twice", 1, 1)])["twice"],
                          KafkaError.TOPIC_ALREADY_EXISTS)
        self.expect_error(admin.create_topics([NewTopic("no/slash", 1, 1)])["no/slash"],
                          KafkaError.TOPIC_EXCEPTION)
        # Not a version Kafka knows: 0.x versions have three parts (0.10.0).
        err = self.expect_error(
            admin.create_topics([NewTopic("cfg", 1, 1, config={"message.format.version": "0.10"})])["cfg"],
            KafkaError.INVALID_CONFIG)
        self.assertIn("message.format.version", err.str())
        self.expect_error(admin.create_topics([NewTopic("rf", 1, 2)])["rf"],
                          KafkaError.INVALID_REPLICATION_FACTOR)
        # validate_only: nothing is created.
        admin.create_topics([NewTopic("check", 2, 1)], validate_only=True)["check"].result(
            timeout=TIMEOUT_S)
        self.assertNotIn("check", self.topics(admin))
        unknown = admin.describe_configs([ConfigResource("topic", "missing")])
        with self.assertRaises(KafkaException):
            list(unknown.values())[0].result(timeout=TIMEOUT_S)

    def test_dynamic_broker_configs(self):
        # A broker of its own: the values take effect when it starts again.
        with skiff_harness.Broker(name="dynamic configs broker") as broker:
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            resource = ConfigResource("broker", "1", set_config={
                "log.retention.ms": "3600000",
                # What librdkafka's 0081_admin sets: a Kafka setting skiff has no use for, kept.
                "sasl.kerberos.min.time.before.relogin": "58000"})
            list(admin.alter_configs([resource]).values())[0].result(timeout=TIMEOUT_S)
            entries = self.describe(admin, "broker", "1")
            self.assertEqual(entries["log.retention.ms"].value, "3600000")
            self.assertEqual(entries["log.retention.ms"].source,
                             ConfigSource.DYNAMIC_BROKER_CONFIG.value)
            self.assertFalse(entries["log.retention.ms"].is_read_only)
            self.assertEqual(entries["sasl.kerberos.min.time.before.relogin"].value, "58000")
            self.assertTrue(entries["log.dirs"].is_read_only)
            err = self.expect_error(list(admin.alter_configs([ConfigResource(
                "broker", "1", set_config={"num.partitions": "3"})]).values())[0],
                KafkaError.INVALID_CONFIG)
            self.assertIn("Cannot update these configs dynamically", err.str())

            broker.restart()
            self.assertIn("dynamic broker config log.retention.ms=3600000", broker.log_text())
            admin = AdminClient({"bootstrap.servers": broker.bootstrap})
            admin.create_topics([NewTopic("after", 1, 1)])["after"].result(timeout=TIMEOUT_S)
            self.assertEqual(self.describe(admin, "topic", "after")["retention.ms"].value,
                             "3600000")
            self.assertEqual(self.describe(admin, "broker", "1")["log.retention.ms"].value,
                             "3600000")


if __name__ == "__main__":
    skiff_harness.run_tests()
