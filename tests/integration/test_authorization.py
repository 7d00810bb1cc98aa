"""ACL enforcement on the real skiff binary, with the clients users have.

    /usr/bin/python3 test_authorization.py /path/to/skiff

skiff runs with its authorizer (authorizer.class.name=...StandardAuthorizer), super.users
User:admin, a PLAINTEXT and a SASL_PLAINTEXT listener, and two SCRAM users made with
`skiff user add`. The admin (kafka-python's KafkaAdminClient over SASL) creates two topics and
gives alice WRITE and READ on the topics starting "orders-" and READ on the group "billing".
Then alice:
- produces to orders-eu (confluent-kafka) and consumes every message back, in order, in group
  billing (kafka-python);
- is refused, with Kafka's error codes: producing to payments (TOPIC_AUTHORIZATION_FAILED in the
  delivery report), consuming in group "other" (GROUP_AUTHORIZATION_FAILED), creating and
  deleting topics (TOPIC_AUTHORIZATION_FAILED), describing the ACLs
  (CLUSTER_AUTHORIZATION_FAILED), and a transactional producer (TRANSACTIONAL_ID_
  AUTHORIZATION_FAILED), through kafka-python's and confluent-kafka's admin and client APIs;
- does not see payments in the topic list (Metadata hides what she may not describe);
- an anonymous client on the PLAINTEXT listener, with no ACL, sees no topic at all.
"""

import os
import re
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic as CkNewTopic  # noqa: E402
from kafka import KafkaConsumer  # noqa: E402
from kafka import errors as Errors  # noqa: E402
from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType,  # noqa: E402
                         ACLResourcePatternType, KafkaAdminClient, NewTopic, ResourcePattern,
                         ResourcePatternFilter, ResourceType)

TIMEOUT_S = 20
N = 30
SASL_LISTEN_RE = re.compile(r"skiff listening on 127\.0\.0\.1:(\d+) \(SASL_PLAINTEXT\)")
USERS = {"admin": "admin-secret", "alice": "alice-secret"}


class AuthorizationTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({
            "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            "sasl.enabled.mechanisms": "SCRAM-SHA-256",
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users": "User:admin",
        }, name="authorizing broker").owned_by(cls)
        os.makedirs(cls.broker.data_dir, exist_ok=True)
        for user, password in USERS.items():
            skiff_harness.add_scram_user(cls.broker.data_dir, user, password)
        cls.broker.start()
        m = SASL_LISTEN_RE.search(cls.broker.log_text())
        assert m, cls.broker.log_text()
        cls.bootstrap = "127.0.0.1:%s" % m.group(1)
        cls.admin = KafkaAdminClient(**cls.kafka_python_conf("admin"))
        cls.admin.create_topics([NewTopic("orders-eu", 1, 1), NewTopic("payments", 1, 1)])
        allow = ACLPermissionType.ALLOW
        prefixed = ResourcePattern(ResourceType.TOPIC, "orders-", ACLResourcePatternType.PREFIXED)
        group = ResourcePattern(ResourceType.GROUP, "billing", ACLResourcePatternType.LITERAL)
        result = cls.admin.create_acls([
            ACL("User:alice", "*", ACLOperation.WRITE, allow, prefixed),
            ACL("User:alice", "*", ACLOperation.READ, allow, prefixed),
            ACL("User:alice", "*", ACLOperation.READ, allow, group),
        ])
        assert not result["failed"], result

    @classmethod
    def tearDownClass(cls):
        cls.admin.close()

    @classmethod
    def kafka_python_conf(cls, user):
        return {"bootstrap_servers": cls.bootstrap, "security_protocol": "SASL_PLAINTEXT",
                "sasl_mechanism": "SCRAM-SHA-256", "sasl_plain_username": user,
                "sasl_plain_password": USERS[user], "request_timeout_ms": TIMEOUT_S * 1000}

    @classmethod
    def rdkafka_conf(cls, user):
        return {"bootstrap.servers": cls.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": user,
                "sasl.password": USERS[user]}

    def test_alice_produces_and_consumes_what_she_may(self):
        sent = [("m-%d-%s" % (i, uuid.uuid4().hex[:6])).encode() for i in range(N)]
        p = Producer(dict(self.rdkafka_conf("alice"), **{"enable.idempotence": True}))
        errors = []
        for m in sent:
            p.produce("orders-eu", m, on_delivery=lambda e, _m: e and errors.append(e))
        self.assertEqual(p.flush(TIMEOUT_S), 0)
        self.assertEqual(errors, [])
        c = KafkaConsumer("orders-eu", group_id="billing", auto_offset_reset="earliest",
                          consumer_timeout_ms=TIMEOUT_S * 1000,
                          **self.kafka_python_conf("alice"))
        got = []
        for record in c:
            got.append(record.value)
            if got[-len(sent):] == sent:
                break
        c.commit()
        c.close()
        self.assertEqual(got[-len(sent):], sent)

    def test_alice_is_refused_everything_else(self):
        # Producing to a topic she may not write: the delivery report says why.
        error = skiff_harness.delivery_error(self.rdkafka_conf("alice"), "payments")
        self.assertIsNotNone(error)
        self.assertEqual(error.code(), KafkaError.TOPIC_AUTHORIZATION_FAILED)

        # Consuming in a group she may not read.
        c = Consumer(dict(self.rdkafka_conf("alice"), **{"group.id": "other",
                                                          "auto.offset.reset": "earliest"}))
        c.subscribe(["orders-eu"])
        seen = None
        for _ in range(TIMEOUT_S * 2):
            msg = c.poll(0.5)
            if msg is not None and msg.error():
                seen = msg.error()
                break
        c.close()
        self.assertIsNotNone(seen, "no error for a group alice may not read")
        self.assertEqual(seen.code(), KafkaError.GROUP_AUTHORIZATION_FAILED)

        # Admin operations, through kafka-python's admin client.
        alice = KafkaAdminClient(**self.kafka_python_conf("alice"))
        try:
            with self.assertRaises(Errors.TopicAuthorizationFailedError):
                alice.create_topics([NewTopic("orders-new", 1, 1)])
            with self.assertRaises(Errors.TopicAuthorizationFailedError):
                alice.delete_topics(["orders-eu"])
            with self.assertRaises(Errors.ClusterAuthorizationFailedError):
                alice.describe_acls(ACLFilter(
                    principal=None, host="*", operation=ACLOperation.ANY,
                    permission_type=ACLPermissionType.ANY,
                    resource_pattern=ResourcePatternFilter(ResourceType.ANY, None,
                                                           ACLResourcePatternType.ANY)))
            # Metadata leaves out what she may not describe.
            self.assertEqual(sorted(alice.list_topics()), ["orders-eu"])
        finally:
            alice.close()

        # And through confluent-kafka's.
        ck = AdminClient(self.rdkafka_conf("alice"))
        futures = ck.create_topics([CkNewTopic("orders-ck", 1, 1)])
        with self.assertRaises(KafkaException) as raised:
            futures["orders-ck"].result(TIMEOUT_S)
        self.assertEqual(raised.exception.args[0].code(), KafkaError.TOPIC_AUTHORIZATION_FAILED)
        self.assertEqual(sorted(ck.list_topics(timeout=TIMEOUT_S).topics), ["orders-eu"])
        # The admin still sees both, and nothing alice was refused happened.
        self.assertEqual(sorted(t for t in self.admin.list_topics() if not t.startswith("__")),
                         ["orders-eu", "payments"])

        # A transactional producer needs WRITE on its transactional id.
        txn = Producer(dict(self.rdkafka_conf("alice"), **{"transactional.id": "alice-tx"}))
        with self.assertRaises(KafkaException) as raised:
            txn.init_transactions(TIMEOUT_S)
        self.assertEqual(raised.exception.args[0].code(),
                         KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)

    def test_an_anonymous_client_without_acls_sees_nothing(self):
        ck = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        self.assertEqual(list(ck.list_topics(timeout=TIMEOUT_S).topics), [])
        self.assertIsNotNone(skiff_harness.delivery_error(
            {"bootstrap.servers": self.broker.bootstrap}, "orders-eu"))


if __name__ == "__main__":
    skiff_harness.run_tests()
