"""The console's HTTP API for the cluster and topics (docs/console-api.md, "Cluster" and
"Topics"), on the real skiff binary, checked against what real Kafka clients see.

    /usr/bin/python3 test_console_api_topics.py /path/to/skiff

1. confluent-kafka produces to a topic of three partitions: /api/topics counts its records and
   /api/topics/{t} shows per partition the watermarks the client's own
   get_watermark_offsets() returns; /api/overview counts the topic's partitions and, after one
   sampling interval, shows produce traffic.
2. A topic with a small segment.bytes (created through the API) rolls several segments under
   kcat's produce: /segments lists them oldest first, contiguous, each .log's size as on disk,
   and for each sealed one as many offset index entries as its .index file holds (size / 8).
3. A topic created through the API is produced to and consumed from with kcat; a config altered
   through the API is read back with confluent-kafka's AdminClient.describe_configs; its
   partitions added through the API are what the client's metadata lists; deleted through the
   API, the client's metadata no longer lists it. Bad input (malformed JSON, wrong types,
   partitions 0 and 2^40, names with '/' or 300 characters, an existing topic, an invalid config)
   is a JSON 400/409 and creates nothing.
4. Read-only mode (the default): every write is a 403 and nothing changes; reads work.
"""

import json
import os
import subprocess
import time
import unittest
import urllib.error
import urllib.request

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

from skiff_harness import Broker, run_tests, wait_until

WRITABLE = {"console.listeners": "http://127.0.0.1:0", "console.read.only": "false"}


def api(broker, method, path, body=None):
    """(status, JSON body) of one call to the console's API."""
    data = None
    headers = {}
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (broker.console_port(), path),
                                 data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def produce(broker, topic, count, partition=None, value_bytes=10):
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0})
    for i in range(count):
        kwargs = {"key": b"k%d" % i, "value": (b"v%d" % i).ljust(value_bytes, b"x")}
        if partition is not None:
            kwargs["partition"] = partition
        elif count > 1:
            kwargs["partition"] = i % 3
        p.produce(topic, **kwargs)
    assert p.flush(30) == 0


def topic_names(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    return admin.list_topics(timeout=10).topics


def kcat(*args, stdin=None):
    r = subprocess.run(["kcat"] + list(args), input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if r.returncode != 0:
        raise AssertionError("kcat %s: %s" % (" ".join(args), r.stderr.decode()))
    return r.stdout.decode()


class ConsoleTopicsApi(unittest.TestCase):
    def setUp(self):
        self.broker = Broker(WRITABLE)
        self.addCleanup(self.broker.cleanup)
        self.broker.start()

    def test_offsets_match_the_clients_watermarks(self):
        b = self.broker
        status, _ = api(b, "POST", "/api/topics", {"name": "orders", "partitions": 3})
        self.assertEqual(status, 201)
        produce(b, "orders", 30)
        produce(b, "orders", 4, partition=1)
        status, listing = api(b, "GET", "/api/topics")
        self.assertEqual(status, 200)
        orders = [t for t in listing["topics"] if t["name"] == "orders"]
        self.assertEqual(len(orders), 1, listing)
        self.assertEqual(orders[0]["records"], 34)
        self.assertEqual(orders[0]["partitions"], 3)
        self.assertGreater(orders[0]["size_bytes"], 34 * 10)

        status, topic = api(b, "GET", "/api/topics/orders")
        self.assertEqual(status, 200)
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "watermarks"})
        self.addCleanup(c.close)
        for p in topic["partitions"]:
            low, high = c.get_watermark_offsets(TopicPartition("orders", p["partition"]),
                                                timeout=10)
            self.assertEqual((p["log_start_offset"], p["high_watermark"]), (low, high), p)
            self.assertEqual(p["log_end_offset"], high)
            self.assertEqual(p["last_stable_offset"], high)
            self.assertEqual(p["segments"], 1)
        self.assertEqual(topic["partitions"][1]["high_watermark"], 14)

        status, overview = api(b, "GET", "/api/overview")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(overview["data"]["partitions"], 3)
        self.assertGreater(overview["data"]["disk_total_bytes"], 0)
        self.assertEqual(overview["listeners"][0]["port"], int(b.bootstrap.split(":")[1]))
        self.assertEqual(overview["console"]["read_only"], False)
        # The sampler's first rates come one interval (5 s) after start; produce meanwhile
        # so an interval with traffic is sampled.
        def produced():
            produce(b, "orders", 3)
            samples = api(b, "GET", "/api/overview")[1]["rates"]["samples"]
            return any(s["produce_bytes_per_s"] > 0 for s in samples)
        wait_until(produced, 30, interval_s=1, what="a sample with produce traffic")

    def test_segments_match_the_files_on_disk(self):
        b = self.broker
        status, body = api(b, "POST", "/api/topics",
                           {"name": "rolled", "partitions": 1,
                            "configs": {"segment.bytes": "2048", "index.interval.bytes": "100"}})
        self.assertEqual(status, 201, body)
        lines = "".join("k%d:%s\n" % (i, "x" * 200) for i in range(60)).encode()
        kcat("-b", b.bootstrap, "-P", "-t", "rolled", "-K:", "-p", "0", "-X", "linger.ms=0",
             "-X", "batch.num.messages=1", stdin=lines)
        status, body = api(b, "GET", "/api/topics/rolled/partitions/0/segments")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["log_end_offset"], 60)
        self.assertEqual(body["settings"]["segment.bytes"], 2048)
        segments = body["segments"]
        self.assertGreater(len(segments), 3, body)
        d = b.partition_dir("rolled", 0)
        on_disk = sorted(f for f in os.listdir(d) if f.endswith(".log"))
        self.assertEqual([s["file"] for s in segments], on_disk)
        expected_base = 0
        for s in segments:
            self.assertEqual(s["base_offset"], expected_base)
            expected_base = s["next_offset"]
            path = os.path.join(d, s["file"])
            self.assertEqual(s["size_bytes"], os.path.getsize(path))
            if not s["active"]:
                index = path[:-len(".log")] + ".index"
                self.assertEqual(s["index"]["entries"], os.path.getsize(index) // 8, s)
                self.assertGreater(s["index"]["entries"], 0, s)
                self.assertEqual(len(s["index"]["entries_shown"]), s["index"]["entries"])
        self.assertEqual(expected_base, 60)
        self.assertEqual([s["active"] for s in segments], [False] * (len(segments) - 1) + [True])

    def test_writes_through_the_api_are_what_clients_see(self):
        b = self.broker
        status, body = api(b, "POST", "/api/topics", {"name": "made-here", "partitions": 2})
        self.assertEqual(status, 201, body)
        self.assertEqual(len(body["partitions"]), 2)
        kcat("-b", b.bootstrap, "-P", "-t", "made-here", "-K:", "-p", "1",
             stdin=b"a:one\nb:two\n")
        out = kcat("-b", b.bootstrap, "-C", "-t", "made-here", "-p", "1", "-o", "beginning",
                   "-e", "-f", "%k=%s\n")
        self.assertEqual(out, "a=one\nb=two\n")

        status, body = api(b, "PATCH", "/api/topics/made-here/configs",
                           {"set": {"retention.ms": "3600000"}})
        self.assertEqual(status, 200, body)
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        resource = ConfigResource(ConfigResource.Type.TOPIC, "made-here")
        configs = admin.describe_configs([resource])[resource].result(timeout=10)
        self.assertEqual(configs["retention.ms"].value, "3600000")

        status, body = api(b, "POST", "/api/topics/made-here/partitions", {"count": 5})
        self.assertEqual(status, 200, body)
        self.assertEqual(len(topic_names(b)["made-here"].partitions), 5)

        # Kafka's errors, and malformed bodies: nothing created.
        status, body = api(b, "POST", "/api/topics", {"name": "made-here"})
        self.assertEqual((status, body["kafka_error"]), (409, "TOPIC_ALREADY_EXISTS"))
        status, body = api(b, "POST", "/api/topics",
                           {"name": "bad-config", "configs": {"retention.ms": "never"}})
        self.assertEqual((status, body["kafka_error"]), (400, "INVALID_CONFIG"), body)
        for bad in [b"{not json", {"name": 5}, {"name": "t1", "partitions": 0},
                    {"name": "t1", "partitions": 2 ** 40}, {"name": "t1", "partitions": "2"},
                    {"name": "a/b"}, {"name": "n" * 300}, {"name": "t1", "configs": [1]}]:
            status, body = api(b, "POST", "/api/topics", bad)
            self.assertEqual(status, 400, (bad, body))
            self.assertEqual(body["error_code"], 400)
            self.assertIn("message", body)
        names = topic_names(b)
        for t in ["t1", "bad-config", "a/b", "n" * 300]:
            self.assertNotIn(t, names)

        status, body = api(b, "DELETE", "/api/topics/made-here")
        self.assertEqual((status, body), (200, {"deleted": "made-here"}))
        wait_until(lambda: "made-here" not in topic_names(b), 10, what="topic gone")
        self.assertEqual(api(b, "GET", "/api/topics/made-here")[0], 404)


class ConsoleReadOnly(unittest.TestCase):
    def test_read_only_refuses_every_write(self):
        b = Broker({"console.listeners": "http://127.0.0.1:0"})  # console.read.only default
        self.addCleanup(b.cleanup)
        b.start()
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        admin.create_topics([NewTopic("kept", 1)])["kept"].result(timeout=10)
        writes = [("POST", "/api/topics", {"name": "new-one"}),
                  ("DELETE", "/api/topics/kept", None),
                  ("POST", "/api/topics/kept/partitions", {"count": 4}),
                  ("PATCH", "/api/topics/kept/configs", {"set": {"retention.ms": "1000"}})]
        for method, path, body in writes:
            status, answer = api(b, method, path, body)
            self.assertEqual(status, 403, (method, path, answer))
            self.assertIn("read-only", answer["message"])
        names = topic_names(b)
        self.assertNotIn("new-one", names)
        self.assertEqual(len(names["kept"].partitions), 1)
        resource = ConfigResource(ConfigResource.Type.TOPIC, "kept")
        configs = admin.describe_configs([resource])[resource].result(timeout=10)
        self.assertEqual(configs["retention.ms"].value, "604800000")
        status, overview = api(b, "GET", "/api/overview")
        self.assertEqual((status, overview["console"]["read_only"]), (200, True))
        self.assertEqual(api(b, "GET", "/api/topics/kept")[0], 200)


if __name__ == "__main__":
    run_tests()
