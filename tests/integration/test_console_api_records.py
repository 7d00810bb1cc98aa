"""The console's records and schema registry API (docs/console-api.md, "Records" and "Schema
registry") on the real skiff binary, with the console and the registry on ephemeral ports, and
Debian's confluent-kafka 1.7 on the Kafka side:

    /usr/bin/python3 test_console_api_records.py /path/to/skiff

- Records a confluent-kafka producer sent (headers, a binary value, a hostile value, a
  gzip-compressed batch) come back from GET .../records every one, in order, with their headers;
  paging with next_offset from the beginning reads each exactly once.
- Values serialized by JSONSerializer, the Avro producer and ProtobufSerializer (through skiff's
  registry) come back decoded; the registry is readable through /api/schema-registry/ and two
  versions of a subject diff line by line.
- A record produced with POST .../records is consumed by confluent-kafka with its key, value and
  headers, on the partition Kafka's default partitioner picks for its key.
- Bad input (unknown topic or partition, malformed JSON, wrong types) gets a JSON error and
  stores nothing.
"""

import json
import os
import sys
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from confluent_kafka.schema_registry import SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.json_schema import JSONSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402


def api(port, method, path, body=None, raw=None):
    """(status, decoded JSON) of one call to the console's API."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data,
                                 method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    return status, json.loads(text)


def records_path(topic, partition, **query):
    return "/api/topics/%s/partitions/%d/records?%s" % (
        urllib.parse.quote(topic, safe=""), partition, urllib.parse.urlencode(query))


class ConsoleRecordsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"console.listeners": "http://127.0.0.1:0",
                                           "console.read.only": "false",
                                           "schema.registry.listeners": "http://127.0.0.1:0"},
                                          name="console-records")
        cls.broker.start()
        cls.port = cls.broker.console_port()
        cls.registry_url = "http://127.0.0.1:%d" % cls.broker.registry_port()

    @classmethod
    def tearDownClass(cls):
        cls.broker.stop()

    def create_topic(self, name, partitions=1):
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        for f in admin.create_topics([NewTopic(name, partitions, 1)]).values():
            f.result(30)

    def page(self, topic, partition=0, **query):
        status, body = api(self.port, "GET", records_path(topic, partition, **query))
        self.assertEqual(status, 200, body)
        return body

    def test_every_record_comes_back_in_order_with_its_headers(self):
        topic = "browse"
        self.create_topic(topic)
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "linger.ms": 0})
        sent = [
            (b"k0", b"plain text", [("trace", b"t-0")]),
            (b"k1", b"\xff\xfe\x00\x01binary", [("bin", b"\x00\xff"), ("empty", b"")]),
            (None, b"<script>alert(1)</script><img src=x onerror=alert(2)>", []),
            (b"k3", b'{"json": [1, 2, 3]}', [("a", b"1"), ("a", b"2")]),
        ]
        for key, value, headers in sent:
            p.produce(topic, key=key, value=value, headers=headers)
            p.flush(30)  # a batch each
        # Then one gzip-compressed batch of ten records, 1 ms apart: the lookup by timestamp
        # below must find the last one inside the batch, not the batch's first record.
        gz = Producer({"bootstrap.servers": self.broker.bootstrap, "compression.type": "gzip",
                       "linger.ms": 500, "batch.num.messages": 100})
        start_ms = int(time.time() * 1000)
        for i in range(10):
            value = ("compressed %d " % i).encode() * 20
            gz.produce(topic, key=b"g%d" % i, value=value, headers=[("n", str(i).encode())],
                       timestamp=start_ms + i)
            sent.append((b"g%d" % i, value, [("n", str(i).encode())]))
        self.assertEqual(gz.flush(30), 0)

        body = self.page(topic, **{"from": "beginning", "limit": 500})
        self.assertEqual(body["high_watermark"], len(sent))
        self.assertEqual(body["next_offset"], len(sent))
        got = body["records"]
        self.assertEqual([r["offset"] for r in got], list(range(len(sent))))
        for record, (key, value, headers) in zip(got, sent):
            if key is None:
                self.assertIsNone(record["key"])
            else:
                self.assertEqual(bytes.fromhex(record["key"]["hex"]), key)
            self.assertEqual(bytes.fromhex(record["value"]["hex"]), value)
            self.assertEqual(record["value"]["size"], len(value))
            self.assertEqual([(h["key"], bytes.fromhex(h["value"]["hex"]))
                              for h in record["headers"]], headers)
        self.assertEqual(got[0]["value"]["text"], "plain text")
        self.assertEqual(got[0]["headers"][0]["value"]["text"], "t-0")
        self.assertNotIn("text", got[1]["value"])  # binary: hex only
        self.assertEqual(got[2]["value"]["text"], sent[2][1].decode())  # data, as sent
        self.assertTrue(got[3]["value"]["json"])
        self.assertEqual(got[0]["batch"]["compression"], "none")
        compressed = got[4:]
        self.assertEqual({r["batch"]["compression"] for r in compressed}, {"gzip"})
        self.assertEqual(compressed[0]["value"]["text"], sent[4][1].decode())
        # The last ones, and the pages from the beginning, each record once.
        tail = self.page(topic, limit=3)
        self.assertEqual([r["offset"] for r in tail["records"]],
                         [len(sent) - 3, len(sent) - 2, len(sent) - 1])
        seen, offset = [], 0
        while offset < len(sent):
            page = self.page(topic, **{"from": "offset", "offset": offset, "limit": 3})
            seen += [r["offset"] for r in page["records"]]
            self.assertGreater(page["next_offset"], offset)
            offset = page["next_offset"]
        self.assertEqual(seen, list(range(len(sent))))
        # By timestamp: the first record at or after the last record's timestamp.
        ts = got[-1]["timestamp"]
        found = self.page(topic, **{"from": "timestamp", "timestamp": ts})["records"]
        self.assertTrue(found and found[0]["timestamp"] >= ts)
        self.assertEqual([r["offset"] for r in found], [len(sent) - 1])

    def test_schema_registry_encoded_values_come_back_decoded(self):
        topic = "readings"
        self.create_topic(topic)
        schema = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#",
                             "title": "Reading", "type": "object",
                             "properties": {"sensor": {"type": "string"},
                                            "value": {"type": "number"}}})
        sr = SchemaRegistryClient({"url": self.registry_url})
        ser = JSONSerializer(schema, sr)
        p = Producer({"bootstrap.servers": self.broker.bootstrap})
        sent = [{"sensor": "s<%d>" % i, "value": i * 0.5} for i in range(3)]
        for v in sent:
            p.produce(topic, value=ser(v, SerializationContext(topic, MessageField.VALUE)))
        self.assertEqual(p.flush(30), 0)
        got = self.page(topic, **{"from": "beginning"})["records"]
        self.assertEqual([r["value"]["schema"]["decoded"] for r in got], sent)
        self.assertEqual(got[0]["value"]["schema"]["type"], "JSON")
        self.assertEqual(got[0]["value"]["schema"]["subject"], "readings-value")
        status, subjects = api(self.port, "GET", "/api/schema-registry/subjects")
        self.assertEqual(status, 200)
        self.assertIn("readings-value", subjects)

    def test_avro_values_come_back_decoded_and_versions_diff(self):
        from confluent_kafka import avro
        from confluent_kafka.avro import AvroProducer
        topic = "avro-orders"
        self.create_topic(topic)
        v1 = {"type": "record", "name": "Order", "namespace": "shop",
              "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"},
                         {"name": "note", "type": ["null", "string"], "default": None},
                         {"name": "tags", "type": {"type": "array", "items": "string"}}]}
        producer = AvroProducer({"bootstrap.servers": self.broker.bootstrap,
                                 "schema.registry.url": self.registry_url},
                                default_value_schema=avro.loads(json.dumps(v1)))
        sent = [{"id": i, "item": "item-%d" % i, "note": None if i % 2 else "n%d" % i,
                 "tags": ["t"] * i} for i in range(5)]
        for v in sent:
            producer.produce(topic=topic, value=v)
        self.assertEqual(producer.flush(30), 0)
        got = self.page(topic, **{"from": "beginning"})["records"]
        self.assertEqual([r["value"]["schema"]["decoded"] for r in got], sent)
        self.assertEqual(got[0]["value"]["schema"]["type"], "AVRO")

        v2 = dict(v1, fields=v1["fields"] + [{"name": "qty", "type": "int", "default": 1}])
        sr = SchemaRegistryClient({"url": self.registry_url})
        from confluent_kafka.schema_registry import Schema
        sr.register_schema(topic + "-value", Schema(json.dumps(v2), "AVRO"))
        status, diff = api(self.port, "GET",
                           "/api/schema-registry/subjects/%s-value/diff?from=1&to=2" % topic)
        self.assertEqual(status, 200, diff)
        added = [line["text"] for line in diff["lines"] if line["op"] == "+"]
        self.assertTrue(any('"qty"' in line for line in added), diff)
        self.assertFalse([line for line in diff["lines"] if line["op"] == "-"
                          and '"item"' in line["text"]])

    def test_protobuf_values_come_back_decoded(self):
        from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
        from test_schema_registry import compile_proto
        module = compile_proto(
            "console_sample.proto",
            'syntax = "proto3";\npackage tel;\n'
            'import "google/protobuf/timestamp.proto";\n'
            "message Sample {\n  string host = 1;\n  double load = 2;\n"
            "  google.protobuf.Timestamp at = 3;\n  repeated string tags = 4;\n}\n")
        topic = "samples"
        self.create_topic(topic)
        ser = ProtobufSerializer(module.Sample, SchemaRegistryClient({"url": self.registry_url}))
        p = Producer({"bootstrap.servers": self.broker.bootstrap})
        m = module.Sample(host="h1", load=0.5, tags=["a", "b"])
        m.at.seconds = 1700000000
        p.produce(topic, value=ser(m, SerializationContext(topic, MessageField.VALUE)))
        self.assertEqual(p.flush(30), 0)
        got = self.page(topic, **{"from": "beginning"})["records"]
        decoded = got[0]["value"]["schema"].get("decoded")
        self.assertEqual(decoded, {"host": "h1", "load": 0.5, "at": "2023-11-14T22:13:20Z",
                                   "tags": ["a", "b"]}, got[0]["value"])

    def test_a_record_produced_with_the_api_is_consumed(self):
        topic = "from-console"
        self.create_topic(topic, 3)
        status, body = api(self.port, "POST", "/api/topics/%s/records" % topic,
                           {"key": "user-42", "value": "hello \u00e9 <b>", "headers": [
                               {"key": "trace", "value": "abc"}, {"key": "none", "value": None}]})
        self.assertEqual(status, 200, body)
        partition, offset = body["partition"], body["offset"]
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "console-reader",
                      "enable.auto.commit": False})
        c.assign([TopicPartition(topic, partition, offset)])
        m = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                break
        c.close()
        self.assertIsNotNone(m)
        self.assertEqual((m.key(), m.value()), (b"user-42", "hello \u00e9 <b>".encode()))
        self.assertEqual(m.headers(), [("trace", b"abc"), ("none", None)])
        self.assertEqual(m.offset(), offset)
        # The same key goes to the same partition again.
        status, again = api(self.port, "POST", "/api/topics/%s/records" % topic,
                            {"key": "user-42", "value": "again"})
        self.assertEqual((status, again["partition"]), (200, partition))

    def test_bad_input_gets_json_errors_and_stores_nothing(self):
        topic = "guarded"
        self.create_topic(topic)
        for raw in (b"{not json", b"[1]", b'{"value": 5}', b'{"partition": "x"}',
                    b'{"headers": [{"value": "no key"}]}', b'{"partition": 99999999999}'):
            status, body = api(self.port, "POST", "/api/topics/%s/records" % topic, raw=raw)
            self.assertEqual(status, 400, (raw, body))
            self.assertEqual(body["error_code"], 400)
        status, body = api(self.port, "POST", "/api/topics/%s/records" % topic,
                           {"partition": 4, "value": "v"})
        self.assertEqual((status, body.get("kafka_error")), (404, "UNKNOWN_TOPIC_OR_PARTITION"))
        status, body = api(self.port, "POST", "/api/topics/no-such-topic/records", {"value": "v"})
        self.assertEqual(status, 404, body)
        status, body = api(self.port, "GET", records_path("no-such-topic", 0))
        self.assertEqual((status, body.get("kafka_error")), (404, "UNKNOWN_TOPIC_OR_PARTITION"))
        status, body = api(self.port, "GET", records_path(topic, 0, **{"from": "yesterday"}))
        self.assertEqual(status, 400)
        self.assertEqual(self.page(topic)["high_watermark"], 0)
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        self.assertNotIn("no-such-topic", admin.list_topics(timeout=10).topics)


if __name__ == "__main__":
    skiff_harness.run_tests()
