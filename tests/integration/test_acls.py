"""ACL administration (CreateAcls, DescribeAcls, DeleteAcls) on the real skiff binary, with
kafka-python's KafkaAdminClient (2.0.2).

    /usr/bin/python3 test_acls.py /path/to/skiff

Debian's confluent-kafka (1.7.0) has no ACL admin calls (AclBinding came in 1.9), so librdkafka's
ACL API is exercised from C++ instead (acls_test.cpp in this folder).

Against a broker started with
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer: create bindings
(and the INVALID_REQUEST for a CLUSTER binding not named kafka-cluster), describe with literal,
prefixed, MATCH and ANY filters, delete with filters (the deleted bindings come back), restart the
broker and find the remaining ones still there; a corrupt ACL file stops the broker at start.
Without an authorizer every ACL request fails with SECURITY_DISABLED. Enforcement is tested in
test_authorization.py.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from kafka import errors as Errors  # noqa: E402
from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType,  # noqa: E402
                         ACLResourcePatternType, KafkaAdminClient, ResourcePattern,
                         ResourcePatternFilter, ResourceType)

TIMEOUT_S = 15
# The admin client connects in plaintext, as User:ANONYMOUS: a super user, so that it may alter
# and describe the ACLs (cluster ALTER / DESCRIBE).
AUTHORIZER = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
              "super.users": "User:ANONYMOUS"}
LITERAL = ACLResourcePatternType.LITERAL
PREFIXED = ACLResourcePatternType.PREFIXED


def acl(rtype, name, pattern, principal, operation, permission=ACLPermissionType.ALLOW, host="*"):
    return ACL(principal, host, operation, permission, ResourcePattern(rtype, name, pattern))


def acl_filter(rtype=ResourceType.ANY, name=None, pattern=ACLResourcePatternType.ANY,
               principal=None, host=None, operation=ACLOperation.ANY,
               permission=ACLPermissionType.ANY):
    return ACLFilter(principal, host, operation, permission,
                     ResourcePatternFilter(rtype, name, pattern))


def key(a):
    p = a.resource_pattern
    return (p.resource_type.value, p.resource_name, p.pattern_type.value, a.principal, a.host,
            a.operation.value, a.permission_type.value)


class AclTest(unittest.TestCase):
    def setUp(self):
        self.broker = skiff_harness.Broker(AUTHORIZER, name="acl broker").owned_by(self)
        self.broker.start()
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()

    def admin(self):
        client = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap,
                                  request_timeout_ms=TIMEOUT_S * 1000)
        self.clients.append(client)
        return client

    def describe(self, admin, f):
        found, error = admin.describe_acls(f)
        self.assertIs(error, Errors.NoError)
        return sorted(found, key=key)

    def test_create_describe_delete_restart(self):
        admin = self.admin()
        acls = [
            acl(ResourceType.TOPIC, "orders", LITERAL, "User:alice", ACLOperation.READ),
            acl(ResourceType.TOPIC, "orders-", PREFIXED, "User:alice", ACLOperation.WRITE),
            acl(ResourceType.TOPIC, "*", LITERAL, "User:ops", ACLOperation.ALL),
            acl(ResourceType.TOPIC, "orders", LITERAL, "User:bob", ACLOperation.WRITE,
                ACLPermissionType.DENY, host="10.0.0.1"),
            acl(ResourceType.GROUP, "g1", LITERAL, "User:alice", ACLOperation.READ),
            acl(ResourceType.CLUSTER, "kafka-cluster", LITERAL, "User:ops",
                ACLOperation.ALTER_CONFIGS),
            acl(ResourceType.TRANSACTIONAL_ID, "tx-", PREFIXED, "User:alice", ACLOperation.WRITE),
        ]
        result = admin.create_acls(acls)
        self.assertEqual(result["failed"], [])
        self.assertEqual(len(result["succeeded"]), len(acls))

        everything = self.describe(admin, acl_filter())
        self.assertEqual([key(a) for a in everything], sorted(key(a) for a in acls))

        literal = self.describe(admin, acl_filter(ResourceType.TOPIC, "orders", LITERAL))
        self.assertEqual([a.principal for a in literal], ["User:alice", "User:bob"])
        self.assertEqual(literal[1].permission_type, ACLPermissionType.DENY)
        self.assertEqual(literal[1].host, "10.0.0.1")

        prefixed = self.describe(admin, acl_filter(ResourceType.TOPIC, "orders-", PREFIXED))
        self.assertEqual([(a.resource_pattern.resource_name, a.operation) for a in prefixed],
                         [("orders-", ACLOperation.WRITE)])

        match = self.describe(admin, acl_filter(ResourceType.TOPIC, "orders-eu",
                                                ACLResourcePatternType.MATCH))
        self.assertEqual(sorted(a.resource_pattern.resource_name for a in match), ["*", "orders-"])

        self.assertEqual(len(self.describe(admin, acl_filter(principal="User:ops"))), 2)
        deny = self.describe(admin, acl_filter(permission=ACLPermissionType.DENY))
        self.assertEqual([a.principal for a in deny], ["User:bob"])

        # Delete alice's topic bindings; a filter matching nothing deletes nothing.
        f_alice = acl_filter(ResourceType.TOPIC, principal="User:alice")
        f_none = acl_filter(ResourceType.TOPIC, "nope", LITERAL)
        (r_alice, r_none) = admin.delete_acls([f_alice, f_none])
        self.assertIs(r_alice[2], Errors.NoError)
        deleted = sorted((a for a, _ in r_alice[1]), key=key)
        self.assertEqual([(a.resource_pattern.resource_name, a.resource_pattern.pattern_type)
                          for a in deleted], [("orders", LITERAL), ("orders-", PREFIXED)])
        self.assertEqual([e for _, e in r_alice[1]], [Errors.NoError] * 2)
        self.assertEqual(r_none[1], [])
        self.assertEqual(len(self.describe(admin, acl_filter())), 5)

        # Restart on the same data directory: the remaining bindings are still there.
        self.broker.restart()
        after = self.describe(self.admin(), acl_filter())
        self.assertEqual(len(after), 5)
        self.assertNotIn(("User:alice", ResourceType.TOPIC),
                         [(a.principal, a.resource_pattern.resource_type) for a in after])
        self.assertIn(("kafka-cluster", ACLOperation.ALTER_CONFIGS),
                      [(a.resource_pattern.resource_name, a.operation) for a in after])

    def test_invalid_binding_is_refused(self):
        admin = self.admin()
        bad = acl(ResourceType.CLUSTER, "my-cluster", LITERAL, "User:ops", ACLOperation.ALTER)
        good = acl(ResourceType.TOPIC, "t", LITERAL, "User:ops", ACLOperation.READ)
        result = admin.create_acls([bad, good])
        self.assertEqual(result["succeeded"], [good])
        self.assertEqual(result["failed"], [(bad, Errors.InvalidRequestError)])
        self.assertEqual(len(self.describe(admin, acl_filter())), 1)

    def test_corrupt_file_refused_at_start(self):
        result = self.admin().create_acls(
            [acl(ResourceType.TOPIC, "t", LITERAL, "User:a", ACLOperation.READ)])
        self.assertEqual(len(result["succeeded"]), 1)
        self.broker.stop()
        path = os.path.join(self.broker.data_dir, "acl-bindings")
        with open(path) as f:
            text = f.read()
        self.assertTrue(text.startswith("skiff-acl-bindings\t1\n"), text)
        with open(path, "w") as f:
            f.write(text.replace("end\t1", "end\t7"))
        with self.assertRaises(skiff_harness.BrokerError) as ctx:
            self.broker.start()
        self.assertIn("acl-bindings is corrupt", str(ctx.exception))
        self.assertIn("line 3", str(ctx.exception))


class NoAuthorizerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker(name="no-authorizer broker").owned_by(cls)
        cls.broker.start()

    def test_security_disabled(self):
        admin = KafkaAdminClient(bootstrap_servers=self.broker.bootstrap,
                                 request_timeout_ms=TIMEOUT_S * 1000)
        try:
            with self.assertRaises(Errors.SecurityDisabledError):
                admin.describe_acls(acl_filter())
            bad = acl(ResourceType.TOPIC, "t", LITERAL, "User:a", ACLOperation.READ)
            result = admin.create_acls([bad])
            self.assertEqual(result["succeeded"], [])
            self.assertEqual(result["failed"], [(bad, Errors.SecurityDisabledError)])
            ((_, deleted, error),) = admin.delete_acls([acl_filter()])
            self.assertIs(error, Errors.SecurityDisabledError)
            self.assertEqual(deleted, [])
        finally:
            admin.close()


if __name__ == "__main__":
    skiff_harness.run_tests()
