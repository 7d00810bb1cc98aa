"""Confluent REST Proxy v3 on skiff's console listener (docs/console-api.md, "REST Proxy v3"),
driven with curl the way REST Proxy's documentation does, and read back with real clients.

    /usr/bin/python3 test_rest_proxy_v3.py /path/to/skiff

1. GET /v3/clusters, /v3/clusters/{id}, its topics and one topic: REST Proxy's shapes, the
   cluster id the Kafka clients see, the topic's partition count.
2. curl posts one JSON record, then a streamed batch (several JSON objects back to back, sent
   with Transfer-Encoding: chunked) in the BINARY form with headers: one result per record, in
   order; confluent-kafka and kcat read back exactly those keys, values and headers in order.
3. A record with a key and no partition lands where Kafka's default partitioner (murmur2, as
   librdkafka's murmur2_random) puts the same key.
4. Bad input gets REST Proxy's error shape and stores nothing (the high watermarks do not move):
   malformed JSON, wrong types, an unsupported format, an unknown topic (not created either), an
   unknown cluster, a body over console's limit (413 from the HTTP stack); and read-only mode.
"""

import base64
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

TOPIC = "rest-orders"


def curl(method, url, body=None, headers=()):
    """(status, body text) of one curl call; `body` is sent as is (--data-binary)."""
    args = ["curl", "-sS", "-X", method, "-o", "-", "-w", "\n%{http_code}",
            "-H", "Content-Type: application/json"]
    for h in headers:
        args += ["-H", h]
    tmp = None
    if body is not None:
        tmp = tempfile.NamedTemporaryFile(delete=False)
        tmp.write(body if isinstance(body, bytes) else body.encode())
        tmp.close()
        args += ["--data-binary", "@" + tmp.name]
    try:
        out = subprocess.run(args + [url], capture_output=True, timeout=60, check=True).stdout
    finally:
        if tmp:
            os.unlink(tmp.name)
    text, _, status = out.decode().rpartition("\n")
    return int(status), text


def results(text):
    """The JSON objects of a streamed answer, in order."""
    decoder = json.JSONDecoder()
    out, at = [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return out
        obj, at = decoder.raw_decode(text, at)
        out.append(obj)


def b64(data):
    return base64.b64encode(data).decode()


def rest_broker(read_only=False):
    return skiff_harness.Broker({"console.listeners": "http://127.0.0.1:0",
                                 "console.read.only": "true" if read_only else "false",
                                 "auto.create.topics.enable": "true"}, name="rest")


class RestProxyV3Test(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = rest_broker().owned_by(cls)
        cls.broker.start()
        cls.base = "http://127.0.0.1:%d/v3" % cls.broker.console_port()
        admin = AdminClient({"bootstrap.servers": cls.broker.bootstrap})
        for f in admin.create_topics([NewTopic(TOPIC, 3, 1), NewTopic("keyed", 5, 1)]).values():
            f.result(30)
        cls.cluster_id = admin.list_topics(timeout=30).cluster_id

    def records_url(self, topic=TOPIC):
        return "%s/clusters/%s/topics/%s/records" % (self.base, self.cluster_id, topic)

    def watermarks(self, topic=TOPIC, partitions=3):
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "wm"})
        try:
            return [c.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1]
                    for p in range(partitions)]
        finally:
            c.close()

    def read_partition(self, partition, topic=TOPIC):
        """Every record of one partition, with confluent-kafka."""
        end = self.watermarks(topic, partition + 1)[partition]
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "reader",
                      "enable.auto.commit": False})
        try:
            c.assign([TopicPartition(topic, partition, 0)])
            got = []
            while len(got) < end:
                m = c.poll(10)
                self.assertIsNotNone(m, "read %d of %d" % (len(got), end))
                self.assertIsNone(m.error())
                got.append(m)
            return got
        finally:
            c.close()

    def test_1_cluster_and_topics(self):
        status, text = curl("GET", self.base + "/clusters")
        self.assertEqual(status, 200, text)
        body = json.loads(text)
        self.assertEqual(body["kind"], "KafkaClusterList")
        self.assertEqual([c["cluster_id"] for c in body["data"]], [self.cluster_id])
        self.assertTrue(body["data"][0]["metadata"]["self"].endswith("/v3/clusters/" + self.cluster_id))

        status, text = curl("GET", "%s/clusters/%s/topics" % (self.base, self.cluster_id))
        self.assertEqual(status, 200, text)
        topics = {t["topic_name"]: t for t in json.loads(text)["data"]}
        self.assertEqual(topics[TOPIC]["partitions_count"], 3)
        self.assertEqual(topics[TOPIC]["kind"], "KafkaTopic")

        status, text = curl("GET", "%s/clusters/%s/topics/%s" % (self.base, self.cluster_id, TOPIC))
        self.assertEqual(status, 200, text)
        self.assertEqual(json.loads(text)["partitions_count"], 3)

    def test_2_one_record_then_a_streamed_binary_batch_read_back_in_order(self):
        before = self.watermarks()
        status, text = curl("POST", self.records_url(), json.dumps({
            "partition_id": 1,
            "key": {"type": "STRING", "data": "order-1"},
            "value": {"type": "JSON", "data": {"amount": 12, "note": "<script>x</script>"}},
        }))
        self.assertEqual(status, 200, text)
        one = json.loads(text)
        self.assertEqual(one["error_code"], 200)
        self.assertEqual((one["cluster_id"], one["topic_name"], one["partition_id"]),
                         (self.cluster_id, TOPIC, 1))
        self.assertEqual(one["offset"], before[1])
        self.assertEqual(one["key"], {"type": "STRING", "size": 7})

        sent = [(b"k%d" % i, bytes([0, 255, i]) + b"payload", [("trace", b"t%d" % i),
                                                             ("bin", b"\x00\x01")])
                for i in range(6)]
        stream = "".join(json.dumps({
            "partition_id": 2,
            "key": {"type": "BINARY", "data": b64(k)},
            "value": {"type": "BINARY", "data": b64(v)},
            "headers": [{"name": n, "value": b64(hv)} for n, hv in hs],
        }) + "\n" for k, v, hs in sent)
        status, text = curl("POST", self.records_url(), stream,
                            headers=["Transfer-Encoding: chunked"])
        self.assertEqual(status, 200, text)
        answers = results(text)
        self.assertEqual(len(answers), 6, text)
        self.assertEqual([a["error_code"] for a in answers], [200] * 6)
        self.assertEqual([a["offset"] for a in answers], list(range(before[2], before[2] + 6)))
        self.assertEqual([a["value"]["size"] for a in answers], [len(v) for _, v, _ in sent])

        got = self.read_partition(2)[before[2]:]
        self.assertEqual([(m.key(), m.value(), m.headers()) for m in got],
                         [(k, v, hs) for k, v, hs in sent])
        first = self.read_partition(1)[before[1]]
        self.assertEqual(first.key(), b"order-1")
        self.assertEqual(json.loads(first.value()),
                         {"amount": 12, "note": "<script>x</script>"})

        # kcat reads the same partition's keys in the same order.
        out = subprocess.run(["kcat", "-b", self.broker.bootstrap, "-C", "-t", TOPIC, "-p", "2",
                              "-o", str(before[2]), "-e", "-q", "-f", "%k\n"],
                             capture_output=True, timeout=60, check=True).stdout
        self.assertEqual(out.split(b"\n")[:6], [k for k, _, _ in sent])

    def test_3_a_key_lands_where_kafkas_default_partitioner_puts_it(self):
        producer = Producer({"bootstrap.servers": self.broker.bootstrap,
                             "partitioner": "murmur2_random"})
        for key in ["user-42", "user-7", "a", "some longer key with spaces"]:
            delivered = []
            producer.produce("keyed", key=key.encode(), value=b"x",
                             on_delivery=lambda err, msg: delivered.append(msg.partition()))
            producer.flush(30)
            status, text = curl("POST", self.records_url("keyed"), json.dumps(
                {"key": {"type": "STRING", "data": key}, "value": {"type": "STRING", "data": "y"}}))
            self.assertEqual(status, 200, text)
            self.assertEqual(json.loads(text)["partition_id"], delivered[0], key)

    def test_4_bad_input_gets_rest_proxys_errors_and_stores_nothing(self):
        before = self.watermarks()
        url = self.records_url()
        for body in ['{"value": {"type": "STRING", "data": "a"}', "not json",
                     '{"value": {"type": "STRING", "data": "a"}} {"value": ',
                     '{"value": {"type": "STRING", "data": 5}}',
                     '{"partition_id": "one", "value": {"type": "STRING", "data": "a"}}',
                     '{"value": {"type": "BINARY", "data": "***"}}',
                     '{"value": {"type": "AVRO", "data": {"a": 1}}}',
                     '{"value": {"schema_id": 1, "data": {"a": 1}}}',
                     '{"headers": [{"name": 5}], "value": {"type": "STRING", "data": "a"}}']:
            status, text = curl("POST", url, body)
            self.assertEqual(status, 400, (body, text))
            answer = json.loads(text)
            self.assertEqual(answer["error_code"], 400)
            self.assertIsInstance(answer["message"], str)

        status, text = curl("POST", self.records_url("no-such-topic"),
                            '{"value": {"type": "STRING", "data": "a"}}')
        self.assertEqual(status, 404, text)
        self.assertEqual(json.loads(text)["error_code"], 40403)
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        self.assertNotIn("no-such-topic", admin.list_topics(timeout=30).topics)

        status, text = curl("POST", "%s/clusters/not-this-one/topics/%s/records" % (self.base, TOPIC),
                            '{"value": {"type": "STRING", "data": "a"}}')
        self.assertEqual(status, 404, text)
        self.assertEqual(json.loads(text)["error_code"], 404)

        big = json.dumps({"value": {"type": "STRING", "data": "x" * (2 << 20)}})
        status, text = curl("POST", url, big)
        self.assertEqual(status, 413, text)
        self.assertEqual(json.loads(text)["error_code"], 413)

        self.assertEqual(self.watermarks(), before)

    def test_5_read_only_refuses_produce(self):
        b = rest_broker(read_only=True).owned_by(self)
        b.start()
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        for f in admin.create_topics([NewTopic("ro", 1, 1)]).values():
            f.result(30)
        cluster = admin.list_topics(timeout=30).cluster_id
        base = "http://127.0.0.1:%d/v3/clusters/%s" % (b.console_port(), cluster)
        status, text = curl("POST", base + "/topics/ro/records",
                            '{"value": {"type": "STRING", "data": "a"}}')
        self.assertEqual(status, 403, text)
        self.assertEqual(json.loads(text)["error_code"], 403)
        status, text = curl("GET", base + "/topics/ro")
        self.assertEqual(status, 200, text)
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "ro"})
        self.addCleanup(c.close)
        self.assertEqual(c.get_watermark_offsets(TopicPartition("ro", 0), timeout=30)[1], 0)


if __name__ == "__main__":
    skiff_harness.run_tests()
