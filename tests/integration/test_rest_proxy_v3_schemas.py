"""REST Proxy v3's produce through skiff's schema registry (docs/console-api.md, "REST Proxy v3"):
curl posts JSON with the schema it names, and Confluent's own deserializers in confluent-kafka
read back exactly the values sent, so the bytes are what Confluent's serializers write.

    /usr/bin/python3 test_rest_proxy_v3_schemas.py /path/to/skiff

1. AVRO with the schema's text: looked up under "<topic>-value" and registered when new (the
   same text twice is one schema), a union and a default; AvroConsumer reads it back.
2. A key and a value by schema_id, a value by schema_version, and a value with neither type nor
   schema (the subject's latest); AvroConsumer reads keys and values.
3. JSONSCHEMA and PROTOBUF: JSONDeserializer and ProtobufDeserializer read back the values.
4. What cannot be serialized is refused with a 400 that says why, and nothing is stored: data
   that is not a value of the schema, an unknown id, a type that is not the schema's, a strategy
   that needs a record name without a schema; a key or value without type or schema on a topic
   whose subject has no schema is stored as JSON, as before.
"""

import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from test_rest_proxy_v3 import curl, results  # noqa: E402
from test_schema_registry import compile_proto  # noqa: E402

from confluent_kafka import Consumer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

ORDER = {"type": "record", "name": "Order", "namespace": "shop",
         "fields": [{"name": "id", "type": "long"},
                    {"name": "item", "type": "string"},
                    {"name": "note", "type": ["null", "string"], "default": None},
                    {"name": "qty", "type": "int", "default": 1}]}
KEY = {"type": "record", "name": "OrderKey", "namespace": "shop",
       "fields": [{"name": "region", "type": "string"}, {"name": "n", "type": "int"}]}


class RestProxyV3SchemasTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"console.listeners": "http://127.0.0.1:0",
                                           "console.read.only": "false",
                                           "schema.registry.listeners": "http://127.0.0.1:0"},
                                          name="rest-schemas").owned_by(cls)
        cls.broker.start()
        cls.registry_url = "http://127.0.0.1:%d" % cls.broker.registry_port()
        cls.base = "http://127.0.0.1:%d/v3" % cls.broker.console_port()
        admin = AdminClient({"bootstrap.servers": cls.broker.bootstrap})
        topics = ["avro-text", "avro-ids", "json-orders", "proto-orders", "refused", "plain"]
        for f in admin.create_topics([NewTopic(t, 1, 1) for t in topics]).values():
            f.result(30)
        cls.cluster_id = admin.list_topics(timeout=30).cluster_id

    def post(self, topic, *records):
        """Posts the records (streamed when several); returns (status, [results])."""
        url = "%s/clusters/%s/topics/%s/records" % (self.base, self.cluster_id, topic)
        status, text = curl("POST", url, "\n".join(json.dumps(r) for r in records))
        return status, results(text)

    def read_all(self, consumer, topic):
        """(key, value) of every record of partition 0 as `consumer` reads them; closes it."""
        try:
            end = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)[1]
            consumer.assign([TopicPartition(topic, 0, 0)])
            got = []
            deadline = time.monotonic() + 60
            while len(got) < end and time.monotonic() < deadline:
                m = consumer.poll(1)
                if m is not None and m.error() is None:
                    got.append((m.key(), m.value()))
            self.assertEqual(len(got), end)
            return got
        finally:
            consumer.close()

    def raw_records(self, topic):
        """The bytes of every key and value, with confluent-kafka."""
        return self.read_all(Consumer({"bootstrap.servers": self.broker.bootstrap,
                                       "group.id": "raw", "enable.auto.commit": False}), topic)

    def avro_records(self, topic):
        """Every key and value as Confluent's AvroConsumer reads them."""
        from confluent_kafka.avro import AvroConsumer
        return self.read_all(AvroConsumer({"bootstrap.servers": self.broker.bootstrap,
                                           "group.id": "avro-" + topic,
                                           "enable.auto.commit": False,
                                           "schema.registry.url": self.registry_url}), topic)

    def test_1_avro_with_the_schema_text_registers_it_once(self):
        text = json.dumps(ORDER)
        status, answers = self.post(
            "avro-text",
            {"value": {"type": "AVRO", "schema": text,
                       "data": {"id": 1, "item": "lamp", "note": {"string": "fragile"}, "qty": 2}}},
            {"value": {"type": "AVRO", "schema": text, "data": {"id": 2, "item": "desk"}}})
        self.assertEqual(status, 200, answers)
        self.assertEqual([a["error_code"] for a in answers], [200, 200], answers)
        sr = SchemaRegistryClient({"url": self.registry_url})
        latest = sr.get_latest_version("avro-text-value")
        self.assertEqual(latest.version, 1)  # the same text twice: one version
        for a in answers:
            self.assertEqual(a["value"]["type"], "AVRO")
            self.assertEqual(a["value"]["subject"], "avro-text-value")
            self.assertEqual(a["value"]["schema_id"], latest.schema_id)
            self.assertEqual(a["value"]["schema_version"], 1)
        self.assertEqual([v for _, v in self.avro_records("avro-text")],
                         [{"id": 1, "item": "lamp", "note": "fragile", "qty": 2},
                          {"id": 2, "item": "desk", "note": None, "qty": 1}])

    def test_2_by_id_by_version_and_the_latest(self):
        sr = SchemaRegistryClient({"url": self.registry_url})
        value_id = sr.register_schema("avro-ids-value", Schema(json.dumps(ORDER), "AVRO"))
        key_id = sr.register_schema("avro-ids-key", Schema(json.dumps(KEY), "AVRO"))
        status, answers = self.post(
            "avro-ids",
            {"key": {"schema_id": key_id, "data": {"region": "eu", "n": 1}},
             "value": {"schema_id": value_id, "data": {"id": 10, "item": "a"}}},
            {"key": {"schema_version": 1, "data": {"region": "us", "n": 2}},
             "value": {"schema_version": 1, "data": {"id": 11, "item": "b"}}},
            {"key": {"data": {"region": "ap", "n": 3}},
             "value": {"data": {"id": 12, "item": "c", "note": {"string": "latest"}}}})
        self.assertEqual(status, 200, answers)
        self.assertEqual([a["error_code"] for a in answers], [200] * 3, answers)
        for a in answers:
            self.assertEqual((a["key"]["schema_id"], a["key"]["subject"]), (key_id, "avro-ids-key"))
            self.assertEqual((a["value"]["schema_id"], a["value"]["subject"]),
                             (value_id, "avro-ids-value"))
        self.assertEqual(self.avro_records("avro-ids"), [
            ({"region": "eu", "n": 1}, {"id": 10, "item": "a", "note": None, "qty": 1}),
            ({"region": "us", "n": 2}, {"id": 11, "item": "b", "note": None, "qty": 1}),
            ({"region": "ap", "n": 3}, {"id": 12, "item": "c", "note": "latest", "qty": 1})])

    def test_3_json_schema_and_protobuf_read_back_by_confluents_deserializers(self):
        from confluent_kafka.schema_registry.json_schema import JSONDeserializer
        from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer
        reading = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#",
                              "title": "Reading", "type": "object",
                              "properties": {"sensor": {"type": "string"},
                                             "value": {"type": "number"}}})
        sent = [{"sensor": "s%d" % i, "value": i * 0.5} for i in range(3)]
        status, answers = self.post("json-orders", *[
            {"value": {"type": "JSONSCHEMA", "schema": reading, "data": v}} for v in sent])
        self.assertEqual(status, 200, answers)
        self.assertEqual([a["value"]["type"] for a in answers], ["JSONSCHEMA"] * 3, answers)
        de = JSONDeserializer(reading)
        got = [de(v, SerializationContext("json-orders", MessageField.VALUE))
               for _, v in self.raw_records("json-orders")]
        self.assertEqual(got, sent)

        # The data goes into the schema's first message, as REST Proxy serializes.
        proto = ('syntax = "proto3";\npackage restv3;\n'
                 "message Basket {\n  string owner = 1;\n  repeated Line lines = 2;\n"
                 "  map<string, int32> counts = 3;\n  bool paid = 4;\n}\n"
                 "message Line {\n  string sku = 1;\n  int64 cents = 2;\n}\n")
        module = compile_proto("restv3.proto", proto)
        data = {"owner": "ann", "lines": [{"sku": "a", "cents": "1099"}, {"sku": "b", "cents": 5}],
                "counts": {"a": 1, "b": 2}, "paid": True}
        status, answers = self.post(
            "proto-orders", {"value": {"type": "PROTOBUF", "schema": proto, "data": data}})
        self.assertEqual(status, 200, answers)
        self.assertEqual(answers[0]["value"]["type"], "PROTOBUF")
        de = ProtobufDeserializer(module.Basket)
        (_, raw), = self.raw_records("proto-orders")
        got = de(raw, SerializationContext("proto-orders", MessageField.VALUE))
        want = module.Basket(owner="ann", paid=True,
                             lines=[module.Line(sku="a", cents=1099), module.Line(sku="b", cents=5)])
        want.counts["a"] = 1
        want.counts["b"] = 2
        self.assertEqual(got, want)

    def test_4_what_cannot_be_serialized_is_refused_and_nothing_stored(self):
        sr = SchemaRegistryClient({"url": self.registry_url})
        order_id = sr.register_schema("refused-value", Schema(json.dumps(ORDER), "AVRO"))
        for record, words in [
                ({"value": {"schema_id": order_id, "data": {"id": "one", "item": "x"}}},
                 "id: expected an integer"),
                ({"value": {"schema_id": order_id, "data": {"id": 1}}},
                 "item: missing, and the field has no default"),
                ({"value": {"schema_id": 987654, "data": {"id": 1}}}, "schema 987654 not found"),
                ({"value": {"type": "JSONSCHEMA", "schema_id": order_id, "data": {}}},
                 "is AVRO"),
                ({"value": {"subject_name_strategy": "RECORD_NAME", "data": {"id": 1}}},
                 "needs a schema with a record name"),
                ({"value": {"schema_version": 7, "data": {"id": 1}}}, "no schema for subject"),
                ({"value": {"type": "AVRO", "schema": "{not avro", "data": 1}}, "schema")]:
            status, answers = self.post("refused", record)
            self.assertEqual(status, 400, (record, answers))
            self.assertEqual(answers[0]["error_code"], 400)
            self.assertIn(words, answers[0]["message"], record)
        self.assertEqual(self.raw_records("refused"), [])

        # No schema for the subject and no type: JSON, as without a registry.
        status, answers = self.post("plain", {"value": {"data": {"a": 1}}})
        self.assertEqual(status, 200, answers)
        self.assertEqual(answers[0]["value"], {"type": "JSON", "size": 7})
        self.assertEqual(self.raw_records("plain"), [(None, b'{"a":1}')])


if __name__ == "__main__":
    skiff_harness.run_tests()
