"""What Kafka 4.x clients and admin tools read from Metadata and the Describe calls, on the real
skiff binary with third-party clients (docs/protocol.md, "Metadata and the Describe calls").

    /usr/bin/python3 test_metadata_kafka4.py /path/to/skiff

1. Internal topics: kafka-python's KafkaAdminClient.list_topics shows __consumer_offsets and
   __transaction_state, describe_topics marks them is_internal; a kafka-python consumer
   subscribed by pattern ('.*') leaves them out (exclude_internal_topics) and consumes the
   user topic; confluent-kafka's producer to __consumer_offsets gets Kafka's
   INVALID_TOPIC_EXCEPTION (TOPIC_EXCEPTION) and nothing is appended.
2. Authorized operations (KIP-430) without an authorizer: kafka-ts 1.5's Metadata (v13 topics,
   v10 cluster), DescribeCluster, DescribeTopicPartitions, DescribeGroups and
   ConsumerGroupDescribe (node/kafka_ts_authorized_operations.mjs) get every operation Kafka's
   ACLs know for the resource type; not asked, INT32_MIN. DescribeTopicPartitions' ELR fields
   are empty lists. (kafka-python 2.0.2's describe_consumer_groups asks too, but its
   DescribeGroups v3 response schema puts authorized_operations outside the group array, so it
   reports None whatever the broker says; Debian's confluent-kafka 1.7 has no describe calls.)
3. The same with the authorizer on (allow.everyone.if.no.acl.found, ACLs for User:ANONYMOUS:
   READ on the topic and the groups, DESCRIBE on the cluster): the bit sets the ACLs allow, with
   the implied DESCRIBE.
4. REBOOTSTRAP_REQUIRED (KIP-1102) on demand through the control API: node-rdkafka 3.6.0
   (librdkafka 2.12) gets it in a Metadata v13 answer, starts its re-bootstrap sequence and
   keeps producing (node_rdkafka/rdkafka_rebootstrap.cjs); every message is consumed back once.
   A Metadata v12 request (no field for it) has its connection closed instead.

The Node.js parts skip, saying why, when node or npm is missing.
"""

import json
import os
import shutil
import subprocess
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402
from test_control_api import Control, answered, metadata_request  # noqa: E402

from kafka import KafkaConsumer, KafkaProducer, TopicPartition  # noqa: E402
from kafka.admin import (ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType,  # noqa: E402
                         KafkaAdminClient, NewTopic, ResourcePattern, ResourceType)

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_S = 20
INT32_MIN = -2 ** 31
INTERNAL = ["__consumer_offsets", "__transaction_state"]

# Kafka's AclOperation codes, and AclEntry.supportedOperations per resource type.
READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE = 3, 4, 5, 6, 7, 8
CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE = 9, 10, 11, 12


def bits(*ops):
    return sum(1 << op for op in ops)


ALL_TOPIC = bits(READ, WRITE, CREATE, DESCRIBE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS)
ALL_GROUP = bits(READ, DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS)
ALL_CLUSTER = bits(CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER,
                   DESCRIBE)


def need_node(test):
    if shutil.which("node") is None or shutil.which("npm") is None:
        test.skipTest("SKIPPED: node or npm is not installed")


def run_node(cwd, *args, timeout=240):
    proc = subprocess.run(["node"] + list(args), cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    return proc


class Setup:
    """A topic with a message, and a classic group with a committed offset (kafka-python)."""

    def __init__(self, test, broker):
        self.test = test
        self.broker = broker
        run = uuid.uuid4().hex[:8]
        self.topic = "orders-" + run
        self.classic_group = "classic-" + run
        self.consumer_group = "kip848-" + run
        admin = self.admin()
        admin.create_topics([NewTopic(self.topic, 2, 1)])
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap)
        producer.send(self.topic, b"hello", partition=0).get(timeout=TIMEOUT_S)
        producer.close()
        consumer = KafkaConsumer(self.topic, bootstrap_servers=broker.bootstrap,
                                 group_id=self.classic_group, auto_offset_reset="earliest",
                                 enable_auto_commit=False, consumer_timeout_ms=TIMEOUT_S * 1000)
        for _ in consumer:
            break
        consumer.commit()
        consumer.close()

    def admin(self):
        admin = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap,
                                 request_timeout_ms=TIMEOUT_S * 1000)
        self.test.addCleanup(admin.close)
        return admin

    def kafka_ts(self):
        dest = npm_clients.install(os.path.join(HERE, "node"), "node-clients",
                                   ("kafka_ts_authorized_operations.mjs",))
        proc = run_node(dest, "kafka_ts_authorized_operations.mjs", self.broker.bootstrap,
                        self.topic, self.classic_group, self.consumer_group)
        self.test.assertEqual(proc.returncode, 0, "the kafka-ts script failed")
        return json.loads(proc.stdout.strip().splitlines()[-1])


class InternalTopicsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"num.partitions": 1}, name="internal topics broker")
        cls.broker.owned_by(cls).start()

    def test_listed_and_marked_internal(self):
        setup = Setup(self, self.broker)
        admin = setup.admin()
        topics = admin.list_topics()
        for name in INTERNAL + [setup.topic]:
            self.assertIn(name, topics)
        described = {t["topic"]: t for t in admin.describe_topics()}
        for name in INTERNAL:
            self.assertTrue(described[name]["is_internal"], name)
            self.assertTrue(described[name]["partitions"], name)
        self.assertFalse(described[setup.topic]["is_internal"])

    def test_pattern_subscription_leaves_them_out(self):
        setup = Setup(self, self.broker)
        consumer = KafkaConsumer(bootstrap_servers=self.broker.bootstrap,
                                 group_id="pattern-" + setup.topic, auto_offset_reset="earliest",
                                 consumer_timeout_ms=TIMEOUT_S * 1000)
        self.addCleanup(consumer.close)
        consumer.subscribe(pattern=".*")
        got = []
        for m in consumer:
            got.append((m.topic, m.value))
            if (setup.topic, b"hello") in got:
                break
        self.assertIn((setup.topic, b"hello"), got)
        subscribed = consumer.subscription()
        self.assertIn(setup.topic, subscribed)
        for name in INTERNAL:
            self.assertNotIn(name, subscribed)
        self.assertFalse({tp.topic for tp in consumer.assignment()} & set(INTERNAL))

    def end_offsets(self, topic):
        consumer = KafkaConsumer(bootstrap_servers=self.broker.bootstrap)
        try:
            parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic)]
            return consumer.end_offsets(parts)
        finally:
            consumer.close()

    def test_produce_to_an_internal_topic_is_refused(self):
        before = self.end_offsets("__consumer_offsets")
        error = skiff_harness.delivery_error({"bootstrap.servers": self.broker.bootstrap},
                                             "__consumer_offsets")
        self.assertIsNotNone(error)
        self.assertEqual(error.code(), 17, error)  # INVALID_TOPIC_EXCEPTION, as Kafka answers
        self.assertEqual(self.end_offsets("__consumer_offsets"), before)


class AuthorizedOperationsTest(unittest.TestCase):
    def test_without_an_authorizer_every_operation(self):
        need_node(self)
        with skiff_harness.Broker({"num.partitions": 1}, name="no authorizer") as broker:
            setup = Setup(self, broker)
            out = setup.kafka_ts()
            self.assertEqual(out["metadataTopic"], ALL_TOPIC)
            self.assertEqual(out["metadataTopicNotAsked"], INT32_MIN)
            self.assertEqual(out["metadataErrorCode"], 0)
            self.assertEqual(out["metadataV10Cluster"], ALL_CLUSTER)
            self.assertEqual(out["describeCluster"], ALL_CLUSTER)
            self.assertEqual(out["describeClusterNotAsked"], INT32_MIN)
            self.assertEqual(out["describeTopicPartitions"], ALL_TOPIC)
            self.assertEqual(out["elr"], [[[], []], [[], []]])
            self.assertEqual(out["describeGroups"], ALL_GROUP)
            self.assertEqual(out["describeGroupsNotAsked"], INT32_MIN)
            self.assertEqual(out["consumerGroupDescribeError"], 0)
            self.assertEqual(out["consumerGroupDescribe"], ALL_GROUP)
            self.assertEqual(out["consumerGroupDescribeNotAsked"], INT32_MIN)
            internal = {t["name"] for t in out["allTopics"] if t["internal"]}
            self.assertEqual(internal, set(INTERNAL))

    def test_with_acls_what_they_allow(self):
        need_node(self)
        with skiff_harness.Broker({
                "num.partitions": 1,
                "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "allow.everyone.if.no.acl.found": "true"}, name="with ACLs") as broker:
            setup = Setup(self, broker)  # before any ACL: everyone may do everything

            def allow(rtype, name, op):
                return ACL("User:ANONYMOUS", "*", op, ACLPermissionType.ALLOW,
                           ResourcePattern(rtype, name, ACLResourcePatternType.LITERAL))
            result = setup.admin().create_acls([
                allow(ResourceType.TOPIC, setup.topic, ACLOperation.READ),
                allow(ResourceType.GROUP, setup.classic_group, ACLOperation.READ),
                allow(ResourceType.GROUP, setup.consumer_group, ACLOperation.READ),
                allow(ResourceType.CLUSTER, "kafka-cluster", ACLOperation.DESCRIBE)])
            self.assertFalse(result["failed"], result)

            out = setup.kafka_ts()
            self.assertEqual(out["metadataTopic"], bits(READ, DESCRIBE))
            self.assertEqual(out["metadataV10Cluster"], bits(DESCRIBE))
            self.assertEqual(out["describeCluster"], bits(DESCRIBE))
            self.assertEqual(out["describeTopicPartitions"], bits(READ, DESCRIBE))
            self.assertEqual(out["describeGroups"], bits(READ, DESCRIBE))
            self.assertEqual(out["consumerGroupDescribe"], bits(READ, DESCRIBE))
            self.assertEqual(out["describeGroupsNotAsked"], INT32_MIN)
            # Every topic the client may describe: the internal ones have no ACL, and
            # allow.everyone.if.no.acl.found lets it.
            self.assertEqual({t["name"] for t in out["allTopics"]}, set(INTERNAL + [setup.topic]))


class RebootstrapTest(unittest.TestCase):
    def test_librdkafka_rebootstraps_and_keeps_producing(self):
        need_node(self)
        dest = npm_clients.install(os.path.join(HERE, "node_rdkafka"), "node-rdkafka-clients",
                                   ("rdkafka_rebootstrap.cjs",),
                                   installed_marker="node_modules/node-rdkafka/build/Release",
                                   nice=True, timeout=900)
        with skiff_harness.Broker({"num.partitions": 1, "metrics.listener": "HTTP://127.0.0.1:0",
                                   "control.api.enable": "true"},
                                  name="rebootstrap broker") as broker:
            control = Control(broker)
            topic = "rebootstrap-" + uuid.uuid4().hex[:8]
            proc = run_node(dest, "rdkafka_rebootstrap.cjs", broker.bootstrap, topic, control.base)
            self.assertEqual(proc.returncode, 0, "the librdkafka rebootstrap script failed")
            self.assertIn("ok: rebootstrapped, delivered 40", proc.stdout)
            self.assertIn("librdkafka 2.12", proc.stdout)
            rules = control.ok("GET", "/control/faults")["rules"]
            self.assertEqual([(r["error"], r["fired"]) for r in rules],
                             [("REBOOTSTRAP_REQUIRED", 1)])

            consumer = KafkaConsumer(topic, bootstrap_servers=broker.bootstrap,
                                     auto_offset_reset="earliest",
                                     consumer_timeout_ms=5000)
            values = sorted(m.value.decode() for m in consumer)
            consumer.close()
            self.assertEqual(values, sorted("m-%d" % i for i in range(40)))

    def test_before_v13_the_connection_is_closed(self):
        with skiff_harness.Broker({"metrics.listener": "HTTP://127.0.0.1:0",
                                   "control.api.enable": "true"},
                                  name="rebootstrap v12 broker") as broker:
            control = Control(broker)
            port = int(broker.bootstrap.rsplit(":", 1)[1])
            self.assertTrue(answered(port, metadata_request(12)))
            rule = control.add_rule(api="Metadata", action="error", error="REBOOTSTRAP_REQUIRED",
                                    count=2)
            self.assertFalse(answered(port, metadata_request(12)))
            self.assertTrue(answered(port, metadata_request(13)))  # answered, with the error
            self.assertEqual(control.rule(rule["id"])["fired"], 2)
            self.assertTrue(answered(port, metadata_request(12)))  # the rule is spent


if __name__ == "__main__":
    skiff_harness.run_tests()
