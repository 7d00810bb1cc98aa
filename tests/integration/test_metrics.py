"""The metrics endpoint (metrics.listener) against the real skiff binary, a real Prometheus and
real clients (issue 19).

    /usr/bin/python3 test_metrics.py /path/to/skiff

- GET /metrics passes `promtool check metrics` (Debian's prometheus package), and its counters
  match what confluent-kafka did: 1,000 records produced to a topic, a group that consumed 600
  of them and committed has a lag of 400; /health/live and /health/ready answer 200.
- A real Prometheus scrapes skiff every second; its HTTP API returns the same numbers.
- Bad HTTP (garbage, a 20 KB header, a request that never ends, an unknown path, POST) gets its
  status code or a closed connection, and the Kafka listener keeps serving meanwhile.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

TIMEOUT_S = 30
TOPIC = "metered"
RECORDS = 1000
CONSUMED = 600


def http(port, path, method="GET"):
    """(status, body) of one request to the endpoint."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def raw(port, data, wait_s=5):
    """Sends raw bytes, returns what the endpoint answers before it closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait_s) as s:
        try:
            s.sendall(data)
        except OSError:
            pass  # closed before we finished sending (an oversized head)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk


def sample(text, name, labels=None):
    """The value of one series in exposition text, or None."""
    want = name
    if labels:
        want += "{" + ",".join('%s="%s"' % kv for kv in labels.items()) + "}"
    for line in text.splitlines():
        if line.startswith(want + " "):
            return float(line.split(" ")[-1])
    return None


class MetricsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({"metrics.listener": "HTTP://127.0.0.1:0",
                                           "num.partitions": 1,
                                           "group.initial.rebalance.delay.ms": 0},
                                          name="metrics broker")
        cls.broker.start()
        cls.port = cls.broker.metrics_port()
        cls.produce_and_consume_halfway()

    @classmethod
    def tearDownClass(cls):
        cls.broker.stop()
        cls.broker.cleanup()

    @classmethod
    def produce_and_consume_halfway(cls):
        p = Producer({"bootstrap.servers": cls.broker.bootstrap, "linger.ms": 5})
        for i in range(RECORDS):
            p.produce(TOPIC, key=b"k%d" % i, value=b"v" * 100, partition=0)
        assert p.flush(TIMEOUT_S) == 0
        c = Consumer({"bootstrap.servers": cls.broker.bootstrap, "group.id": "halfway",
                      "enable.auto.commit": False, "auto.offset.reset": "earliest"})
        c.assign([TopicPartition(TOPIC, 0, 0)])
        got = 0
        deadline = time.monotonic() + TIMEOUT_S
        while got < CONSUMED and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            got += 1
            if got == CONSUMED:
                c.commit(offsets=[TopicPartition(TOPIC, 0, m.offset() + 1)], asynchronous=False)
        c.close()
        assert got == CONSUMED, got

    def test_promtool_accepts_the_scrape_and_counters_match_the_clients(self):
        status, text = http(self.port, "/metrics")
        self.assertEqual(status, 200)
        check = subprocess.run(["promtool", "check", "metrics"], input=text.encode(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        self.assertEqual(check.returncode, 0, check.stdout.decode())
        self.assertEqual(sample(text, "skiff_topic_produced_records_total", {"topic": TOPIC}),
                         RECORDS)
        self.assertEqual(sample(text, "skiff_partition_log_end_offset",
                                {"topic": TOPIC, "partition": "0"}), RECORDS)
        self.assertEqual(sample(text, "skiff_group_committed_offset",
                                {"group": "halfway", "topic": TOPIC, "partition": "0"}), CONSUMED)
        self.assertEqual(sample(text, "skiff_group_lag",
                                {"group": "halfway", "topic": TOPIC, "partition": "0"}),
                         RECORDS - CONSUMED)
        self.assertGreater(sample(text, "skiff_topic_fetched_bytes_total", {"topic": TOPIC}),
                           CONSUMED * 100)
        # One consumer read from offset 0 in order: at least what it consumed, and (prefetching)
        # at most every record once.
        fetched = sample(text, "skiff_topic_fetched_records_total", {"topic": TOPIC})
        self.assertGreaterEqual(fetched, CONSUMED)
        self.assertLessEqual(fetched, RECORDS)
        self.assertGreaterEqual(sample(text, "skiff_requests_total", {"api": "Produce"}), 1)
        self.assertGreaterEqual(sample(text, "skiff_request_errors_total",
                                       {"api": "Produce", "error": "NONE"}), 1)
        self.assertGreaterEqual(sample(text, "skiff_request_duration_seconds_count",
                                       {"api": "Produce"}), 1)
        self.assertEqual(sample(text, "skiff_build_info", {"version": "0.1.0"}), 1)
        self.assertGreater(sample(text, "process_open_fds"), 0)
        self.assertGreater(sample(text, "process_resident_memory_bytes"), 1 << 20)
        self.assertGreater(sample(text, "skiff_log_dir_free_bytes"), 0)
        self.assertGreaterEqual(sample(text, "skiff_connections_accepted_total"), 2)
        self.assertIsNotNone(sample(text, "skiff_log_recovery_seconds"))
        self.assertIsNotNone(sample(text, "skiff_log_fsync_duration_seconds_count"))
        self.assertIsNotNone(sample(text, "skiff_log_flush_duration_seconds_count"))

    def test_the_monitoring_setup_parses_and_queries_metrics_that_exist(self):
        import yaml  # python3-yaml (.ci/install-deps)

        docker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docker")
        monitoring = os.path.join(docker, "monitoring")
        def load(path, parse):
            with open(path) as f:
                return parse(f)

        compose = load(os.path.join(docker, "compose.yaml"), yaml.safe_load)
        for service in ("prometheus", "grafana"):
            self.assertEqual(compose["services"][service]["profiles"], ["monitoring"])
        for root, _, files in os.walk(monitoring):
            for name in files:
                if name.endswith(".yml"):
                    self.assertIsInstance(load(os.path.join(root, name), yaml.safe_load), dict)
        check = subprocess.run(["promtool", "check", "config",
                                os.path.join(monitoring, "prometheus.yml")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        self.assertEqual(check.returncode, 0, check.stdout.decode())

        dashboard = load(os.path.join(monitoring, "grafana", "dashboards", "skiff.json"),
                         json.load)
        exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
        self.assertGreaterEqual(len(exprs), 10)
        _, text = http(self.port, "/metrics")
        scraped = {re.split(r"[{ ]", line, 1)[0] for line in text.splitlines()
                   if line and not line.startswith("#")}
        for expr in exprs:
            for name in re.findall(r"\b((?:skiff|process)_[a-z_]+)\b", expr):
                self.assertIn(name, scraped, "the dashboard queries %s (%s)" % (name, expr))

    def test_health_endpoints(self):
        self.assertEqual(http(self.port, "/health/live")[0], 200)
        self.assertEqual(http(self.port, "/health/ready")[0], 200)

    def test_a_real_prometheus_scrapes_the_same_numbers(self):
        prometheus = shutil.which("prometheus")
        self.assertIsNotNone(prometheus, "Debian's prometheus package")
        tmp = tempfile.mkdtemp(prefix="skiff-prometheus-")
        web = skiff_harness.free_port()
        with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n"
                    "scrape_configs:\n  - job_name: skiff\n    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % self.port)
        log = open(os.path.join(tmp, "prometheus.log"), "wb")
        proc = skiff_harness.spawn([prometheus,
                                    "--config.file=" + os.path.join(tmp, "prometheus.yml"),
                                    "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                                    "--web.listen-address=127.0.0.1:%d" % web],
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            def query(expr):
                url = "http://127.0.0.1:%d/api/v1/query?%s" % (
                    web, urllib.parse.urlencode({"query": expr}))
                try:
                    with urllib.request.urlopen(url, timeout=5) as r:
                        result = json.load(r)["data"]["result"]
                except OSError:
                    return None
                return float(result[0]["value"][1]) if result else None

            skiff_harness.wait_until(
                lambda: query('skiff_topic_produced_records_total{topic="%s"}' % TOPIC) == RECORDS,
                TIMEOUT_S, 0.5, "Prometheus to scrape the produced records")
            self.assertEqual(query('skiff_group_lag{group="halfway",topic="%s"}' % TOPIC),
                             RECORDS - CONSUMED)
            self.assertEqual(query('up{job="skiff"}'), 1)
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()
            shutil.rmtree(tmp, ignore_errors=True)

    def test_bad_http_gets_its_answer_and_kafka_keeps_serving(self):
        self.assertTrue(raw(self.port, b"\x16\x03\x01 garbage\r\n\r\n").startswith(
            b"HTTP/1.1 400 "))
        huge = b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n"
        # Over the 8 KiB head limit: 431 Request Header Fields Too Large.
        self.assertTrue(raw(self.port, huge).startswith(b"HTTP/1.1 431 "))
        self.assertEqual(http(self.port, "/nope")[0], 404)
        self.assertEqual(http(self.port, "/metrics", method="POST")[0], 405)
        # A request that never ends: closed at the endpoint's deadline, with no answer; the
        # Kafka side answers meanwhile.
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\n")
            self.assertTrue(skiff_harness.api_versions_answered(self.broker.port))
            self.assertEqual(s.recv(1024), b"")
        self.assertLess(time.monotonic() - started, 20)
        self.assertEqual(http(self.port, "/health/live")[0], 200)


if __name__ == "__main__":
    skiff_harness.run_tests()
