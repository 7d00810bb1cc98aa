"""The schema registry in the skiff binary (issue 34), driven by Debian's confluent-kafka 1.7:
its SchemaRegistryClient, the JSON Schema and Protobuf serializers, and the older AvroProducer
and AvroConsumer (with Debian's python3-avro), against the real broker.

    /usr/bin/python3 test_schema_registry.py /path/to/skiff

- Registration, lookup, versions, ids shared across subjects, compatibility set and tested,
  an incompatible schema refused with 409, soft and hard deletes with Confluent's rules.
- Records serialized with a registered schema go through skiff and come back deserialized,
  every one, in order (JSON Schema, Protobuf, Avro).
- The registry's state is the _schemas topic, in Confluent's record format, read back by a
  plain Kafka consumer; after kill -9 during a stream of registrations every acknowledged one is
  there with its id and new ids continue above the highest.
- Bad input gets Confluent's error codes and stores nothing; the Kafka side keeps serving.
- Broker-side validation (confluent.value.schema.validation): records without a registered
  schema id are refused with INVALID_RECORD, none of their batch stored.
- HTTPS with skiff's keystore, BASIC authentication against skiff's SCRAM users, and ACLs per
  subject through the topic ACLs.
"""

import base64
import json
import os
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.error import SchemaRegistryError  # noqa: E402
from confluent_kafka.schema_registry.json_schema import (JSONDeserializer,  # noqa: E402
                                                         JSONSerializer)
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402
from kafka.admin import (ACL, ACLOperation, ACLPermissionType,  # noqa: E402
                         ACLResourcePatternType, KafkaAdminClient, ResourcePattern, ResourceType)

CT = "application/vnd.schemaregistry.v1+json"
# requests lets these variables override a session's own CA file (the SchemaRegistryClient's
# ssl.ca.location): the HTTPS test's CA would be ignored where they are set.
for _name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
    os.environ.pop(_name, None)

ORDER_V1 = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                       "fields": [{"name": "id", "type": "long"},
                                  {"name": "item", "type": "string"}]})
# A field added with a default: BACKWARD compatible.
ORDER_V2 = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                       "fields": [{"name": "id", "type": "long"},
                                  {"name": "item", "type": "string"},
                                  {"name": "qty", "type": "int", "default": 1}]})
# A field added without a default: not BACKWARD compatible with v1.
ORDER_BAD = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                        "fields": [{"name": "id", "type": "long"},
                                   {"name": "item", "type": "string"},
                                   {"name": "price", "type": "double"}]})


def http(port, method, path, body=None, headers=None, scheme="http", context=None):
    """(status, decoded JSON or raw text) of one request to the registry."""
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request("%s://127.0.0.1:%d%s" % (scheme, port, path), data=data,
                                 method=method, headers=dict({"Content-Type": CT},
                                                             **(headers or {})))
    try:
        with urllib.request.urlopen(req, timeout=30, context=context) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def registry_broker(**overrides):
    b = skiff_harness.Broker(dict({"schema.registry.listeners": "http://127.0.0.1:0"},
                                  **overrides), name="registry")
    b.start()
    return b


class RegistryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = registry_broker()
        cls.port = cls.broker.registry_port()
        cls.url = "http://127.0.0.1:%d" % cls.port

    @classmethod
    def tearDownClass(cls):
        cls.broker.stop()

    def client(self):
        # A fresh client each time: its caches must not answer for the registry.
        return SchemaRegistryClient({"url": self.url})

    def test_register_lookup_versions_compatibility_and_deletes(self):
        sr = self.client()
        v1 = Schema(ORDER_V1, "AVRO")
        id1 = sr.register_schema("orders-value", v1)
        self.assertGreater(id1, 0)
        # The same schema again, even with other whitespace, is the same version and id; under
        # another subject it keeps its id.
        spaced = Schema(json.dumps(json.loads(ORDER_V1), indent=2), "AVRO")
        self.assertEqual(self.client().register_schema("orders-value", spaced), id1)
        self.assertEqual(self.client().register_schema("orders-copy-value", v1), id1)
        self.assertEqual(json.loads(sr.get_schema(id1).schema_str), json.loads(ORDER_V1))
        found = self.client().lookup_schema("orders-value", spaced)
        self.assertEqual((found.schema_id, found.version, found.subject),
                         (id1, 1, "orders-value"))

        self.assertTrue(sr.test_compatibility("orders-value", Schema(ORDER_V2, "AVRO")))
        self.assertFalse(sr.test_compatibility("orders-value", Schema(ORDER_BAD, "AVRO")))
        with self.assertRaises(SchemaRegistryError) as refused:
            sr.register_schema("orders-value", Schema(ORDER_BAD, "AVRO"))
        self.assertEqual(refused.exception.http_status_code, 409)
        id2 = sr.register_schema("orders-value", Schema(ORDER_V2, "AVRO"))
        self.assertGreater(id2, id1)
        latest = self.client().get_latest_version("orders-value")
        self.assertEqual((latest.version, latest.schema_id), (2, id2))
        self.assertEqual(sr.get_versions("orders-value"), [1, 2])
        self.assertEqual(sr.get_version("orders-value", 1).schema_id, id1)

        # Compatibility levels, per subject and global.
        self.assertEqual(sr.get_compatibility(), "BACKWARD")
        sr.set_compatibility("orders-value", "NONE")
        self.assertEqual(sr.get_compatibility("orders-value"), "NONE")
        self.assertGreater(sr.register_schema("orders-value", Schema(ORDER_BAD, "AVRO")), id2)
        status, body = http(self.port, "GET", "/config/orders-copy-value")
        self.assertEqual((status, body["error_code"]), (404, 40408))

        # Deletes: a version, then the subject soft, then hard (only after soft).
        self.assertEqual(sr.delete_version("orders-value", 3), 3)
        self.assertEqual(sr.get_versions("orders-value"), [1, 2])
        status, body = http(self.port, "DELETE", "/subjects/orders-value?permanent=true")
        self.assertEqual((status, body["error_code"]), (404, 40405))
        self.assertEqual(sorted(sr.delete_subject("orders-value")), [1, 2])
        self.assertNotIn("orders-value", sr.get_subjects())
        status, deleted = http(self.port, "GET", "/subjects?deleted=true")
        self.assertIn("orders-value", deleted)
        # (confluent-kafka's delete_subject(permanent=True) soft-deletes first: here that would
        # be 40404, as from Confluent's registry, so the hard delete is asked for directly.)
        status, body = http(self.port, "DELETE", "/subjects/orders-value")
        self.assertEqual((status, body["error_code"]), (404, 40404))
        status, body = http(self.port, "DELETE", "/subjects/orders-value?permanent=true")
        # Every version goes, the one deleted alone before too.
        self.assertEqual((status, sorted(body)), (200, [1, 2, 3]))
        status, deleted = http(self.port, "GET", "/subjects?deleted=true")
        self.assertNotIn("orders-value", deleted)
        # The id is still served: another subject holds it.
        self.assertEqual(json.loads(sr.get_schema(id1).schema_str), json.loads(ORDER_V1))
        status, body = http(self.port, "GET", "/subjects/orders-value/versions/1")
        self.assertEqual((status, body["error_code"]), (404, 40401))

    def test_json_schema_records_round_trip_through_skiff(self):
        schema = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#",
                             "title": "Reading", "type": "object",
                             "properties": {"sensor": {"type": "string"},
                                            "value": {"type": "number"}},
                             "required": ["sensor", "value"]})
        sr = self.client()
        ser = JSONSerializer(schema, sr)
        topic = "readings"
        p = Producer({"bootstrap.servers": self.broker.bootstrap})
        sent = [{"sensor": "s%d" % (i % 3), "value": i * 0.5} for i in range(200)]
        for r in sent:
            p.produce(topic, value=ser(r, SerializationContext(topic, MessageField.VALUE)))
        self.assertEqual(p.flush(30), 0)
        de = JSONDeserializer(schema)
        got = [de(v, SerializationContext(topic, MessageField.VALUE))
               for v in consume_all(self.broker, topic, len(sent))]
        self.assertEqual(got, sent)
        latest = sr.get_latest_version("readings-value")
        self.assertEqual(latest.schema.schema_type, "JSON")
        self.assertEqual(json.loads(latest.schema.schema_str), json.loads(schema))

    def test_protobuf_records_round_trip_through_skiff(self):
        from confluent_kafka.schema_registry.protobuf import (ProtobufDeserializer,
                                                              ProtobufSerializer)
        module = compile_proto(
            "telemetry.proto",
            'syntax = "proto3";\npackage tel;\n'
            'import "google/protobuf/timestamp.proto";\n'
            "message Sample {\n  string host = 1;\n  double load = 2;\n"
            "  google.protobuf.Timestamp at = 3;\n  repeated string tags = 4;\n}\n")
        sr = self.client()
        ser = ProtobufSerializer(module.Sample, sr)
        topic = "telemetry"
        p = Producer({"bootstrap.servers": self.broker.bootstrap})
        sent = []
        for i in range(100):
            m = module.Sample(host="h%d" % i, load=i / 10, tags=["a", str(i)])
            m.at.seconds = 1700000000 + i
            sent.append(m)
            p.produce(topic, value=ser(m, SerializationContext(topic, MessageField.VALUE)))
        self.assertEqual(p.flush(30), 0)
        de = ProtobufDeserializer(module.Sample)
        got = [de(v, SerializationContext(topic, MessageField.VALUE))
               for v in consume_all(self.broker, topic, len(sent))]
        self.assertEqual(got, sent)
        latest = sr.get_latest_version("telemetry-value")
        self.assertEqual(latest.schema.schema_type, "PROTOBUF")
        self.assertIn("message Sample", latest.schema.schema_str)

    def test_avro_producer_and_consumer(self):
        from confluent_kafka import avro
        from confluent_kafka.avro import AvroConsumer, AvroProducer
        topic = "avro-orders"
        producer = AvroProducer({"bootstrap.servers": self.broker.bootstrap,
                                 "schema.registry.url": self.url},
                                default_value_schema=avro.loads(ORDER_V1))
        sent = [{"id": i, "item": "item-%d" % i} for i in range(300)]
        for v in sent:
            producer.produce(topic=topic, value=v)
        self.assertEqual(producer.flush(30), 0)
        consumer = AvroConsumer({"bootstrap.servers": self.broker.bootstrap,
                                 "group.id": "avro-readers", "auto.offset.reset": "earliest",
                                 "schema.registry.url": self.url})
        consumer.subscribe([topic])
        got = []
        deadline = time.monotonic() + 60
        while len(got) < len(sent) and time.monotonic() < deadline:
            m = consumer.poll(1)
            if m is not None and not m.error():
                got.append(m.value())
        consumer.close()
        self.assertEqual(got, sent)

    def test_state_is_the_schemas_topic_in_confluents_format(self):
        sr = self.client()
        sid = sr.register_schema("format-check-value", Schema(ORDER_V1, "AVRO"))
        sr.set_compatibility("format-check-value", "FULL")
        records = {}
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "schemas-reader",
                      "auto.offset.reset": "earliest", "enable.auto.commit": False})
        c.subscribe(["_schemas"])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or m.error():
                if records.get("config"):
                    break
                continue
            key = json.loads(m.key())
            if key.get("subject") == "format-check-value":
                value = json.loads(m.value()) if m.value() is not None else None
                records["schema" if key["keytype"] == "SCHEMA" else "config"] = (key, value)
        c.close()
        key, value = records["schema"]
        self.assertEqual(key, {"keytype": "SCHEMA", "subject": "format-check-value",
                               "version": 1, "magic": 1})
        self.assertEqual((value["subject"], value["version"], value["id"], value["deleted"]),
                         ("format-check-value", 1, sid, False))
        self.assertEqual(json.loads(value["schema"]), json.loads(ORDER_V1))
        key, value = records["config"]
        self.assertEqual(key, {"keytype": "CONFIG", "subject": "format-check-value", "magic": 0})
        self.assertEqual(value["compatibilityLevel"], "FULL")
        # Written by the registry only.
        err = skiff_harness.delivery_error({"bootstrap.servers": self.broker.bootstrap},
                                           "_schemas")
        self.assertEqual(err.code(), KafkaError.TOPIC_EXCEPTION)

    def test_bad_input_gets_confluents_errors_and_stores_nothing(self):
        port = self.port
        status, before = http(port, "GET", "/subjects")
        cases = [
            ("POST", "/subjects/bad-value/versions", b"{not json", 400, None),
            ("POST", "/subjects/bad-value/versions", {"schema": 42}, 422, None),
            ("POST", "/subjects/bad-value/versions", {"schema": "{\"type\": \"nope\"}"}, 422,
             42201),
            ("POST", "/subjects/bad-value/versions", {"schema": ORDER_V1, "schemaType": "XML"},
             422, None),
            ("POST", "/subjects/bad-value/versions",
             {"schema": ORDER_V1, "references": [{"name": "x", "subject": "none", "version": 1}]},
             422, 42201),
            ("GET", "/subjects/bad-value/versions/abc", None, 422, 42202),
            ("GET", "/subjects/bad-value/versions/0", None, 422, 42202),
            ("GET", "/subjects/bad-value/versions/99999999999999", None, 422, 42202),
            ("GET", "/subjects/..%2Fconfig/versions", None, 404, 40401),
            ("GET", "/schemas/ids/99999", None, 404, 40403),
            ("PUT", "/config", {"compatibility": "SIDEWAYS"}, 422, 42203),
            ("PUT", "/mode", {"mode": "NAP"}, 422, 42204),
            ("GET", "/no/such/route", None, 404, None),
        ]
        for method, path, body, want_status, want_code in cases:
            status, answer = http(port, method, path, body)
            self.assertEqual(status, want_status, (method, path, answer))
            if want_code is not None:
                self.assertEqual(answer["error_code"], want_code, (method, path, answer))
        # A body over schema.registry.max.request.bytes (4 MiB) is refused from its declared
        # length, before it is read: 413, and the connection closed.
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(b"POST /subjects/big-value/versions HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: " + CT.encode() + b"\r\nContent-Length: 6000000\r\n\r\n")
            answer = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
        self.assertTrue(answer.startswith(b"HTTP/1.1 413 "), answer)
        self.assertIn(b'"error_code":413', answer)
        status, after = http(port, "GET", "/subjects")
        self.assertEqual(after, before)
        self.assertTrue(skiff_harness.api_versions_answered(self.broker.port))
        self.assertEqual(http(port, "GET", "/schemas/types")[1], ["JSON", "PROTOBUF", "AVRO"])


def avro_record(*fields, name="Evo"):
    return json.dumps({"type": "record", "name": name, "fields": list(fields)})


def proto(body):
    return 'syntax = "proto3";\npackage evo;\nmessage Evo {\n' + body + "}\n"


def json_schema(required):
    return json.dumps({"type": "object", "properties": {"a": {"type": "string"},
                                                        "b": {"type": "integer"}},
                       "required": required})


# Schema evolution cases, (old, new) of a type, with the verdict of registering `new` after `old`
# under BACKWARD, FORWARD and FULL: the cases users meet, each verdict Confluent's.
F_INT = {"name": "f", "type": "int"}
EVOLUTION = [
    ("avro field added with default", "AVRO", avro_record(F_INT),
     avro_record(F_INT, {"name": "g", "type": "string", "default": "x"}), (True, True, True)),
    ("avro field added without default", "AVRO", avro_record(F_INT),
     avro_record(F_INT, {"name": "g", "type": "string"}), (False, True, False)),
    ("avro field removed (it had no default)", "AVRO",
     avro_record(F_INT, {"name": "g", "type": "string"}), avro_record(F_INT),
     (True, False, False)),
    ("avro int promoted to long", "AVRO", avro_record(F_INT),
     avro_record({"name": "f", "type": "long"}), (True, False, False)),
    ("avro field renamed with an alias", "AVRO", avro_record(F_INT),
     avro_record({"name": "f2", "type": "int", "aliases": ["f"]}), (True, False, False)),
    ("avro enum symbol added", "AVRO",
     avro_record({"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}}),
     avro_record({"name": "e", "type": {"type": "enum", "name": "E",
                                        "symbols": ["A", "B", "C"]}}), (True, False, False)),
    ("avro union widened", "AVRO", avro_record({"name": "u", "type": ["null", "string"]}),
     avro_record({"name": "u", "type": ["null", "string", "int"]}), (True, False, False)),
    ("protobuf field renumbered", "PROTOBUF", proto("  string a = 1;\n"),
     proto("  string a = 2;\n"), (True, True, True)),
    ("protobuf int32 to int64", "PROTOBUF", proto("  int32 a = 1;\n"),
     proto("  int64 a = 1;\n"), (True, True, True)),
    ("protobuf int32 to string", "PROTOBUF", proto("  int32 a = 1;\n"),
     proto("  string a = 1;\n"), (False, False, False)),
    ("json property made required", "JSON", json_schema([]), json_schema(["a"]),
     (False, True, False)),
]


class CompatibilityMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = registry_broker()
        cls.port = cls.broker.registry_port()

    @classmethod
    def tearDownClass(cls):
        cls.broker.stop()

    def register(self, subject, schema_type, schema):
        return http(self.port, "POST", "/subjects/%s/versions" % subject,
                    {"schema": schema, "schemaType": schema_type})

    def test_evolution_cases_at_each_level(self):
        for n, (what, schema_type, old, new, verdicts) in enumerate(EVOLUTION):
            for level, compatible in zip(("BACKWARD", "FORWARD", "FULL"), verdicts):
                subject = "evo-%d-%s" % (n, level.lower())
                self.assertEqual(http(self.port, "PUT", "/config/" + subject,
                                      {"compatibility": level})[0], 200)
                status, first = self.register(subject, schema_type, old)
                self.assertEqual(status, 200, (what, first))
                status, body = self.register(subject, schema_type, new)
                self.assertEqual(status, 200 if compatible else 409, (what, level, body))
                # The dry run agrees, and says why when it refuses.
                status, check = http(self.port, "POST",
                                     "/compatibility/subjects/%s/versions/1?verbose=true"
                                     % subject, {"schema": new, "schemaType": schema_type})
                self.assertEqual((status, check["is_compatible"]), (200, compatible),
                                 (what, level))
                if not compatible:
                    self.assertTrue(check["messages"], (what, level))

    def test_transitive_levels_check_every_version(self):
        # v3 reads v2's data but not v1's: BACKWARD takes it, BACKWARD_TRANSITIVE does not.
        chain = [avro_record(F_INT),
                 avro_record(F_INT, {"name": "g", "type": "string", "default": "x"}),
                 avro_record(F_INT, {"name": "g", "type": "string"})]
        # v1's readers need g and have no default; v2 gives it a default, v3 drops it.
        forward_chain = [avro_record(F_INT, {"name": "g", "type": "string"}),
                         avro_record(F_INT, {"name": "g", "type": "string", "default": "x"}),
                         avro_record(F_INT)]
        for level, versions, last_ok in (
                ("BACKWARD", chain, True), ("BACKWARD_TRANSITIVE", chain, False),
                ("FORWARD", forward_chain, True), ("FORWARD_TRANSITIVE", forward_chain, False),
                ("FULL_TRANSITIVE", chain, False)):
            subject = "chain-" + level.lower()
            http(self.port, "PUT", "/config/" + subject, {"compatibility": level})
            for v in versions[:2]:
                self.assertEqual(self.register(subject, "AVRO", v)[0], 200, level)
            status, body = self.register(subject, "AVRO", versions[2])
            self.assertEqual(status, 200 if last_ok else 409, (level, body))


class BrokerSideValidationTest(unittest.TestCase):
    def test_records_without_a_registered_schema_id_are_refused(self):
        b = registry_broker()
        try:
            sr = SchemaRegistryClient({"url": "http://127.0.0.1:%d" % b.registry_port()})
            admin = AdminClient({"bootstrap.servers": b.bootstrap})
            topic = "validated"
            fs = admin.create_topics([NewTopic(topic, 1, 1, config={
                "confluent.value.schema.validation": "true"})])
            fs[topic].result(30)
            sid = sr.register_schema(topic + "-value", Schema(ORDER_V1, "AVRO"))
            other = sr.register_schema("elsewhere-value", Schema(ORDER_V2, "AVRO"))
            good = b"\x00" + struct.pack(">i", sid) + b"\x02\x08item"
            reports = []
            p = Producer({"bootstrap.servers": b.bootstrap, "linger.ms": 0,
                          "message.timeout.ms": 10000, "retries": 0})
            for value in [good, b"plain text", b"\x00" + struct.pack(">i", other) + b"x",
                          b"\x00" + struct.pack(">i", 4242) + b"x", b"\x00\x01", good]:
                p.produce(topic, value=value, on_delivery=lambda e, m: reports.append(e))
                p.flush(20)
            self.assertEqual(len(reports), 6)
            self.assertIsNone(reports[0])
            self.assertIsNone(reports[5])
            for e in reports[1:5]:
                self.assertEqual(e.code(), KafkaError.INVALID_RECORD, e)
            self.assertEqual(consume_all(b, topic, 2), [good, good])
        finally:
            b.stop()


class DurabilityTest(unittest.TestCase):
    def test_every_acknowledged_registration_survives_kill_9(self):
        b = registry_broker(**{"schema.registry.listeners": "http://127.0.0.1:%d"
                               % skiff_harness.free_port()})
        try:
            port = b.registry_port()
            acknowledged = {}
            stop = threading.Event()

            def register():
                i = 0
                while not stop.is_set():
                    subject = "s%d-value" % i
                    schema = json.dumps({"type": "record", "name": "R%d" % i,
                                         "fields": [{"name": "f", "type": "int"}]})
                    try:
                        status, body = http(port, "POST", "/subjects/%s/versions" % subject,
                                            {"schema": schema})
                    except OSError:
                        return
                    if status == 200:
                        acknowledged[subject] = body["id"]
                    i += 1

            t = threading.Thread(target=register)
            t.start()
            skiff_harness.wait_until(lambda: len(acknowledged) >= 50, 60, what="registrations")
            b.kill()
            stop.set()
            t.join(30)
            b.start()
            port = b.registry_port()
            for subject, sid in acknowledged.items():
                status, body = http(port, "GET", "/subjects/%s/versions/latest" % subject)
                self.assertEqual((status, body.get("id")), (200, sid), subject)
            status, body = http(port, "POST", "/subjects/after-value/versions",
                                {"schema": json.dumps({"type": "fixed", "name": "F",
                                                       "size": 3})})
            self.assertEqual(status, 200)
            self.assertGreater(body["id"], max(acknowledged.values()))
        finally:
            b.stop()


class SecurityTest(unittest.TestCase):
    def test_https_basic_auth_and_subject_acls(self):
        tmp = tempfile.mkdtemp(prefix="skiff-sr-tls-")
        try:
            key, cert = os.path.join(tmp, "key.pem"), os.path.join(tmp, "cert.pem")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                            "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                            "-addext", "subjectAltName=IP:127.0.0.1"],
                           check=True, capture_output=True)
            keystore = os.path.join(tmp, "keystore.pem")
            with open(keystore, "w") as out:
                out.write(open(key).read() + open(cert).read())
            b = skiff_harness.Broker({
                "schema.registry.listeners": "https://127.0.0.1:0",
                "schema.registry.authentication": "BASIC",
                "ssl.keystore.location": keystore, "ssl.keystore.type": "PEM",
                "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users": "User:ANONYMOUS;User:admin"}, name="secure-registry")
            os.makedirs(b.data_dir, exist_ok=True)
            skiff_harness.add_scram_user(b.data_dir, "admin", "admin-secret")
            skiff_harness.add_scram_user(b.data_dir, "alice", "alice-secret")
            b.start()
            try:
                port = b.registry_port()
                ctx = ssl.create_default_context(cafile=cert)
                status, body = http(port, "GET", "/subjects", scheme="https", context=ctx)
                self.assertEqual((status, body["error_code"]), (401, 401))
                wrong = {"Authorization": "Basic " + base64.b64encode(b"alice:nope").decode()}
                self.assertEqual(http(port, "GET", "/subjects", headers=wrong, scheme="https",
                                      context=ctx)[0], 401)
                admin = SchemaRegistryClient({"url": "https://127.0.0.1:%d" % port,
                                              "ssl.ca.location": cert,
                                              "basic.auth.user.info": "admin:admin-secret"})
                sid = admin.register_schema("payments-value", Schema(ORDER_V1, "AVRO"))
                admin.register_schema("secrets-value", Schema(ORDER_V2, "AVRO"))
                # alice may read the topic "payments": she reads its subject, nothing else,
                # and may not register.
                acl = ACL("User:alice", "*", ACLOperation.READ, ACLPermissionType.ALLOW,
                          ResourcePattern(ResourceType.TOPIC, "payments",
                                          ACLResourcePatternType.LITERAL))
                admin_client = KafkaAdminClient(bootstrap_servers=b.bootstrap,
                                                request_timeout_ms=15000)
                self.assertEqual(admin_client.create_acls([acl])["failed"], [])
                admin_client.close()
                alice = SchemaRegistryClient({"url": "https://127.0.0.1:%d" % port,
                                              "ssl.ca.location": cert,
                                              "basic.auth.user.info": "alice:alice-secret"})
                self.assertEqual(alice.get_latest_version("payments-value").schema_id, sid)
                self.assertEqual(json.loads(alice.get_schema(sid).schema_str),
                                 json.loads(ORDER_V1))
                with self.assertRaises(SchemaRegistryError) as denied:
                    alice.get_latest_version("secrets-value")
                self.assertEqual(denied.exception.error_code, 40301)
                with self.assertRaises(SchemaRegistryError) as denied:
                    alice.register_schema("payments-value", Schema(ORDER_V2, "AVRO"))
                self.assertEqual(denied.exception.error_code, 40301)
                self.assertNotIn("secrets-value", alice.get_subjects())
            finally:
                b.stop()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def consume_all(broker, topic, expected, timeout_s=60):
    """The values of every record of `topic`, from the beginning, once `expected` came."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "reader-" + topic,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([topic])
    out = []
    deadline = time.monotonic() + timeout_s
    while len(out) < expected and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            out.append(m.value())
    # Nothing beyond what was expected.
    end = time.monotonic() + 1
    while time.monotonic() < end:
        m = c.poll(0.2)
        if m is not None and not m.error():
            out.append(m.value())
    c.close()
    return out


_compiled = {}


def compile_proto(name, text):
    """The Python module protoc (Debian's protobuf-compiler) generates for a .proto."""
    if name in _compiled:
        return _compiled[name]
    out = tempfile.mkdtemp(prefix="skiff-proto-")
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
    subprocess.run(["protoc", "-I", out, "--python_out", out, os.path.join(out, name)],
                   check=True)
    sys.path.insert(0, out)
    module = __import__(name.replace(".proto", "_pb2"))
    _compiled[name] = module
    return module


if __name__ == "__main__":
    skiff_harness.run_tests()
