"""skiff's schema registry (issue 34) with the Node.js schema-registry clients, and across clients
with Python, against the real skiff binary.

    /usr/bin/python3 test_schema_registry_node.py /path/to/skiff

The clients are pinned in node_schema_registry/package.json and package-lock.json
(@kafkajs/confluent-schema-registry 3.9.0, the last for Node 20; @confluentinc/schemaregistry
1.10.1 with @bufbuild/protobuf 2.17.0 for its Protobuf descriptors; KafkaJS 2.2.4 moves the
bytes) and installed with `npm ci` into the build directory (`node-schema-registry/`), once per
lock file. One broker with its registry serves every case:

- @kafkajs/confluent-schema-registry (node_schema_registry/kafkajs_registry.mjs), for Avro, JSON
  Schema and Protobuf each: register (the same schema again keeps its id), the id by subject,
  version and schema, a compatible evolution and an incompatible one refused with 409, unknown
  subject and id answered 404, the subject's level as the client checks it; records of both
  versions (for Avro also of a schema referencing another subject's) through skiff and decoded by
  a client that has cached nothing: every record back, in order, exactly once.
- @confluentinc/schemaregistry (confluent_registry.mjs): register, get by id, latest, by version,
  lookup, versions, subjects, default and subject compatibility set and read back, compatibility
  tested both ways, soft and hard deletes of a version and a subject, Confluent's error codes in
  the client's RestError (40401, 40402, 40403, 40404, 40405, 40408, 409, 42201), a subject name
  that needs percent-encoding and non-ASCII schema text.
- Its Avro, JSON and Protobuf serializers and deserializers through skiff (confluent_serde.mjs;
  Protobuf with the descriptor the registry serves as `?format=serialized`).
- Across clients (cross.mjs), for Avro and JSON Schema: Python writes half of a topic
  (confluent-kafka 1.7's JSONSerializer; for Avro the confluent_kafka.avro serializer with
  python3-avro, as Debian has no fastavro for the newer AvroSerializer), the Node client the other
  half with the same schema (which keeps Python's id), and both Node clients and Python read
  every record back, each finding the writer's schema in the registry by the record's id. And
  Protobuf records from confluent-kafka's ProtobufSerializer (a google/protobuf/timestamp.proto
  import registered as a reference) read by the Node client.

Skips, saying why, when Node.js is missing or older than 20. A failing `npm ci` (no registry)
fails the test: CI must run it.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from google.protobuf import json_format  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_SRC = os.path.join(HERE, "node_schema_registry")
SCRIPTS = ("common.mjs", "kafkajs_registry.mjs", "confluent_registry.mjs", "confluent_serde.mjs",
           "cross.mjs")
MIN_NODE = (20, 0, 0)  # the engines of @confluentinc/schemaregistry's dependencies
N = 100

# The records and schemas of the cross-client cases.
AVRO_SCHEMA = {
    "type": "record", "name": "Trade", "namespace": "cross",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "symbol", "type": "string"},
        {"name": "price", "type": "double"},
        {"name": "buy", "type": "boolean"},
        {"name": "venue", "type": {"type": "enum", "name": "Venue",
                                   "symbols": ["XETR", "XPAR", "XLON"]}},
        {"name": "legs", "type": {"type": "array", "items": "int"}},
        {"name": "attrs", "type": {"type": "map", "values": "string"}},
        {"name": "memo", "type": ["null", "string"], "default": None},
        {"name": "party", "type": {"type": "record", "name": "Party",
                                   "fields": [{"name": "lei", "type": "string"},
                                              {"name": "desk", "type": "int"}]}},
    ]}
JSON_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#", "title": "Trade", "type": "object",
    "properties": {
        "id": {"type": "integer"}, "symbol": {"type": "string"}, "price": {"type": "number"},
        "buy": {"type": "boolean"}, "legs": {"type": "array", "items": {"type": "integer"}},
        "memo": {"type": ["string", "null"]},
        "party": {"type": "object", "properties": {"lei": {"type": "string"},
                                                   "desk": {"type": "integer"}},
                  "required": ["lei"]},
    },
    "required": ["id", "symbol", "price"]}


PROTO = """syntax = "proto3";
package cross;

import "google/protobuf/timestamp.proto";

message Trade {
  int64 id = 1;
  string symbol = 2;
  double price = 3;
  bool buy = 4;
  Venue venue = 5;
  repeated int32 legs = 6;
  map<string, string> attrs = 7;
  Party party = 8;
  google.protobuf.Timestamp at = 9;
}

message Party {
  string lei = 1;
  int32 desk = 2;
}

enum Venue {
  XETR = 0;
  XPAR = 1;
  XLON = 2;
}
"""


def trade(i, source):
    return {"id": 10 ** 10 + i, "symbol": "%s-%d" % (source, i), "price": i * 0.125,
            "buy": i % 2 == 0, "venue": ["XETR", "XPAR", "XLON"][i % 3],
            "legs": list(range(i % 4)), "attrs": {"k%d" % j: "v%d" % j for j in range(i % 3)},
            "memo": None if i % 5 == 0 else "memo %d" % i,
            "party": {"lei": "LEI%05d" % i, "desk": i % 7}}


def json_trade(i, source):
    t = trade(i, source)
    del t["venue"], t["attrs"]
    if i % 3 == 0:
        del t["party"]
    return t


def compile_proto(directory, name, text):
    """The Python module protoc (Debian's protobuf-compiler) generates for a .proto."""
    with open(os.path.join(directory, name), "w") as f:
        f.write(text)
    subprocess.run(["protoc", "-I", directory, "--python_out", directory,
                    os.path.join(directory, name)], check=True, timeout=60)
    sys.path.insert(0, directory)
    try:
        return __import__(name[:-len(".proto")] + "_pb2")
    finally:
        sys.path.remove(directory)


def node_version():
    node = shutil.which("node")
    if node is None:
        return None
    out = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout
    return tuple(int(x) for x in out.strip().lstrip("v").split(".")[:3])


class NodeSchemaRegistryTest(unittest.TestCase):
    broker = None

    @classmethod
    def setUpClass(cls):
        version = node_version()
        if version is None:
            raise unittest.SkipTest("SKIPPED: node is not installed")
        if version < MIN_NODE:
            raise unittest.SkipTest("SKIPPED: node %s is older than %s"
                                    % (".".join(map(str, version)), ".".join(map(str, MIN_NODE))))
        cls.dest = npm_clients.install(NODE_SRC, "node-schema-registry", SCRIPTS)
        # A group's first rebalance without the 3 s wait for more members: every consumer here
        # is alone in its group.
        cls.broker = skiff_harness.Broker({"schema.registry.listeners": "http://127.0.0.1:0",
                                           "group.initial.rebalance.delay.ms": "0"},
                                          name="registry").owned_by(cls)
        cls.broker.start()
        cls.url = "http://127.0.0.1:%d" % cls.broker.registry_port()

    @classmethod
    def tearDownClass(cls):
        if cls.broker is not None and cls.broker.alive():
            cls.broker.stop()

    def node(self, script, *args, stdin=None, expect=None):
        """Runs node_schema_registry/SCRIPT with args; its stdout, after checking it exited 0
        (and printed `expect`)."""
        argv = ["node", script] + [str(a) for a in args]
        started = time.monotonic()
        proc = subprocess.run(argv, cwd=self.dest, input=stdin, capture_output=True, text=True,
                              timeout=150)
        sys.stderr.write("[%s: %.1f s]\n" % (" ".join(argv), time.monotonic() - started))
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        self.assertEqual(proc.returncode, 0,
                         "%s failed:\n%s" % (" ".join(argv), proc.stderr[-2000:]))
        if expect is not None:
            self.assertIn(expect, proc.stdout)
        return proc.stdout

    # ---- @kafkajs/confluent-schema-registry ------------------------------------------------
    def test_kafkajs_client_avro(self):
        self.node("kafkajs_registry.mjs", self.broker.bootstrap, self.url, "avro",
                  expect="ok: @kafkajs/confluent-schema-registry avro")

    def test_kafkajs_client_protobuf(self):
        self.node("kafkajs_registry.mjs", self.broker.bootstrap, self.url, "protobuf",
                  expect="ok: @kafkajs/confluent-schema-registry protobuf")

    def test_kafkajs_client_json(self):
        self.node("kafkajs_registry.mjs", self.broker.bootstrap, self.url, "json",
                  expect="ok: @kafkajs/confluent-schema-registry json")

    # ---- @confluentinc/schemaregistry ------------------------------------------------------
    def test_confluent_client_registry_calls(self):
        self.node("confluent_registry.mjs", self.url,
                  expect="ok: @confluentinc/schemaregistry client")

    def test_confluent_avro_serde(self):
        self.node("confluent_serde.mjs", self.broker.bootstrap, self.url, "avro",
                  expect="ok: @confluentinc/schemaregistry avro serde")

    def test_confluent_protobuf_serde(self):
        self.node("confluent_serde.mjs", self.broker.bootstrap, self.url, "protobuf",
                  expect="ok: @confluentinc/schemaregistry protobuf serde")

    def test_confluent_json_serde(self):
        self.node("confluent_serde.mjs", self.broker.bootstrap, self.url, "json",
                  expect="ok: @confluentinc/schemaregistry json serde")

    # ---- across clients --------------------------------------------------------------------
    def create_topic(self, topic):
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        futures = admin.create_topics([NewTopic(topic, 1, 1)], operation_timeout=30)
        futures[topic].result(timeout=30)

    def node_reads(self, fmt, topic, n):
        """The records of topic as the Node clients decode them: [(offset, id, value)]."""
        out = json.loads(self.node("cross.mjs", "consume", self.broker.bootstrap, self.url, fmt,
                                   topic, n))
        return [(r["offset"], r["id"], r["value"]) for r in out]

    def python_reads(self, topic, n):
        """The raw values of topic's partition 0, each once and in order (offsets 0..n-1)."""
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "python-" + topic,
                      "auto.offset.reset": "earliest", "enable.auto.commit": False})
        got = []
        try:
            c.subscribe([topic])
            deadline = time.monotonic() + 60
            while len(got) < n and time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is not None and not m.error():
                    got.append((m.offset(), m.value()))
            end = time.monotonic() + 1  # nothing beyond them
            while time.monotonic() < end:
                m = c.poll(0.2)
                if m is not None and not m.error():
                    got.append((m.offset(), m.value()))
        finally:
            c.close()
        self.assertEqual([o for o, _ in got], list(range(n)), "offsets read by Python")
        return [v for _, v in got]

    def python_produce(self, fmt, topic, records):
        """Produces records to partition 0 of topic with Python's serializer for fmt (which
        registers the schema under topic-value); the schema id the registry gave it."""
        from confluent_kafka.schema_registry import SchemaRegistryClient
        if fmt == "avro":
            from confluent_kafka import avro
            from confluent_kafka.avro import AvroProducer, CachedSchemaRegistryClient
            producer = AvroProducer({"bootstrap.servers": self.broker.bootstrap,
                                     "schema.registry.url": self.url, "enable.idempotence": True},
                                    default_value_schema=avro.loads(json.dumps(AVRO_SCHEMA)))
            for v in records:
                producer.produce(topic=topic, partition=0, value=v)
            self.assertEqual(producer.flush(30), 0)
            schema_id, _, version = CachedSchemaRegistryClient({"url": self.url}) \
                .get_latest_schema(topic + "-value")
            self.assertEqual(version, 1)
            return schema_id
        from confluent_kafka import Producer
        from confluent_kafka.schema_registry.json_schema import JSONSerializer
        from confluent_kafka.serialization import MessageField, SerializationContext
        sr = SchemaRegistryClient({"url": self.url})
        self.addCleanup(sr.__exit__)  # its HTTP session
        ser = JSONSerializer(json.dumps(JSON_SCHEMA), sr)
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "enable.idempotence": True})
        for v in records:
            p.produce(topic, partition=0,
                      value=ser(v, SerializationContext(topic, MessageField.VALUE)))
        self.assertEqual(p.flush(30), 0)
        return sr.get_latest_version(topic + "-value").schema_id

    def python_decode(self, fmt, topic, values, schema_id):
        """values (raw records) as Python's deserializer for fmt reads them, each finding its
        writer's schema in the registry by the id in the record."""
        self.assertEqual({int.from_bytes(v[1:5], "big") for v in values}, {schema_id})
        if fmt == "avro":
            # The confluent_kafka.avro serializer (AvroConsumer's).
            from confluent_kafka.avro import CachedSchemaRegistryClient
            from confluent_kafka.avro.serializer.message_serializer import MessageSerializer
            serializer = MessageSerializer(CachedSchemaRegistryClient({"url": self.url}))
            return [serializer.decode_message(v) for v in values]
        from confluent_kafka.schema_registry import SchemaRegistryClient
        from confluent_kafka.schema_registry.json_schema import JSONDeserializer
        from confluent_kafka.serialization import MessageField, SerializationContext
        # confluent-kafka 1.7's JSONDeserializer takes its schema from the caller: the one the
        # records' id names in the registry.
        with SchemaRegistryClient({"url": self.url}) as sr:
            schema = sr.get_schema(schema_id)
        self.assertEqual((schema.schema_type, json.loads(schema.schema_str)), ("JSON", JSON_SCHEMA))
        de = JSONDeserializer(schema.schema_str)
        return [de(v, SerializationContext(topic, MessageField.VALUE)) for v in values]

    def across(self, fmt, record):
        """Python writes the first half of a topic, the Node client the second (registering the
        same schema under the same subject: Python's id, no new version), then both Node clients
        and Python read every record back, in order, once."""
        topic = "across-" + fmt
        self.create_topic(topic)
        half = N // 2
        from_python = [record(i, "py") for i in range(half)]
        from_node = [record(i, "node") for i in range(half)]
        python_id = self.python_produce(fmt, topic, from_python)
        schema = json.dumps(AVRO_SCHEMA if fmt == "avro" else JSON_SCHEMA)
        out = self.node("cross.mjs", "produce", self.broker.bootstrap, self.url, fmt, topic, half,
                        stdin=json.dumps({"schema": schema, "records": from_node}))
        self.assertEqual(json.loads(out)["id"], python_id,
                         "the same schema registered by the Node client: Python's id")
        with urllib.request.urlopen("%s/subjects/%s-value/versions" % (self.url, topic),
                                    timeout=30) as r:
            self.assertEqual(json.loads(r.read()), [1])
        sent = from_python + from_node
        self.assertEqual(self.node_reads(fmt, topic, N),
                         [(i, python_id, v) for i, v in enumerate(sent)], "read by Node")
        self.assertEqual(self.python_decode(fmt, topic, self.python_reads(topic, N), python_id),
                         sent, "read by Python")

    def test_avro_across_python_and_node(self):
        self.across("avro", trade)

    def test_json_across_python_and_node(self):
        self.across("json", json_trade)

    def test_python_protobuf_to_node(self):
        from confluent_kafka import Producer
        from confluent_kafka.schema_registry import SchemaRegistryClient
        from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
        from confluent_kafka.serialization import MessageField, SerializationContext
        tmp = tempfile.mkdtemp(prefix="skiff-proto-")
        self.addCleanup(shutil.rmtree, tmp, True)
        module = compile_proto(tmp, "cross_trade.proto", PROTO)
        topic = "py-to-node-protobuf"
        self.create_topic(topic)
        sr = SchemaRegistryClient({"url": self.url})
        self.addCleanup(sr.__exit__)  # its HTTP session
        # It registers google/protobuf/timestamp.proto as a reference, under its own subject.
        ser = ProtobufSerializer(module.Trade, sr)
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "enable.idempotence": True})
        sent = []
        for i in range(N):
            t = trade(i, "py")
            m = module.Trade(id=t["id"], symbol=t["symbol"], price=t["price"], buy=t["buy"],
                             venue=t["venue"], legs=t["legs"], attrs=t["attrs"],
                             party=module.Party(lei=t["party"]["lei"], desk=t["party"]["desk"]))
            m.at.seconds = 1700000000 + i
            sent.append(m)
            p.produce(topic, partition=0,
                      value=ser(m, SerializationContext(topic, MessageField.VALUE)))
        self.assertEqual(p.flush(30), 0)
        schema_id = sr.get_latest_version(topic + "-value").schema_id
        # The proto3 JSON mapping by field name, every field: what the Node script prints.
        expected = [json_format.MessageToDict(m, preserving_proto_field_name=True,
                                              including_default_value_fields=True)
                    for m in sent]
        self.assertEqual(self.node_reads("protobuf", topic, N),
                         [(i, schema_id, v) for i, v in enumerate(expected)])


if __name__ == "__main__":
    skiff_harness.run_tests()
