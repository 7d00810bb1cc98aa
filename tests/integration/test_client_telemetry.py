"""Client telemetry (KIP-714) against the real skiff binary.

    /usr/bin/python3 test_client_telemetry.py /path/to/skiff

- A librdkafka 2.12 producer and consumer (node-rdkafka 3.6.0 from npm, as test_node_rdkafka.py
  installs it) against skiff with client.telemetry.enable=true: they fetch a subscription and
  push their metrics, which appear on /metrics as skiff_client_org_apache_kafka_producer_* and
  _consumer_* series labelled with their client ids and software; the scrape passes
  `promtool check metrics`.
- With telemetry off (the default) the same clients never call GetTelemetrySubscriptions or
  PushTelemetry (skiff_requests_total counts no such request, while it counts their Produce and
  Fetch requests).
- Bad pushes get Kafka's errors and change nothing: a malformed payload, a payload that is not in
  the codec it names (INVALID_RECORD), an unknown codec (UNSUPPORTED_COMPRESSION_TYPE), one over
  telemetry.max.bytes (TELEMETRY_TOO_LARGE), a wrong subscription id or an instance skiff never
  handed out (UNKNOWN_SUBSCRIPTION_ID), the zero instance id (INVALID_REQUEST), a push before the
  interval is over (THROTTLING_QUOTA_EXCEEDED). No real client sends such pushes, so these go
  through a small raw-socket sender (KIP-714's v0 messages, hand-encoded); a well-formed push
  through it does show up, so the sender is not what refuses the bad ones.

Skips the librdkafka cases, saying why, when Node.js or npm is missing.
"""

import base64
import os
import shutil
import socket
import struct
import subprocess
import sys
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "node_rdkafka")

NONE = 0
INVALID_REQUEST = 42
UNSUPPORTED_VERSION = 35
UNSUPPORTED_COMPRESSION_TYPE = 76
INVALID_RECORD = 87
THROTTLING_QUOTA_EXCEEDED = 89
UNKNOWN_SUBSCRIPTION_ID = 117
TELEMETRY_TOO_LARGE = 118


def install():
    # The same directory and lock file as test_node_rdkafka.py: one librdkafka build for both.
    return npm_clients.install(SRC, "node-rdkafka-clients",
                               ("rdkafka_consumer_protocol.cjs", "rdkafka_telemetry.cjs"),
                               installed_marker="node_modules/node-rdkafka/build/Release",
                               nice=True, timeout=900)


def scrape(broker):
    url = "http://127.0.0.1:%d/metrics" % broker.metrics_port()
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def promtool(text):
    check = subprocess.run(["promtool", "check", "metrics"], input=text.encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    return check.returncode, check.stdout.decode()


def series(text, prefix, **labels):
    """Sample lines of families starting with prefix whose labels include these."""
    want = ['%s="%s"' % kv for kv in labels.items()]
    return [line for line in text.splitlines()
            if line.startswith(prefix) and all(w in line for w in want)]


def value(text, name, **labels):
    """The value of the first series of family `name` with these labels, or None."""
    lines = series(text, name + ("{" if labels else " "), **labels)
    return float(lines[0].rsplit(" ", 1)[1]) if lines else None


# ---- a raw KIP-714 sender, for the pushes no real client makes ---------------------------------

def uvarint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def read_uvarint(data, at):
    n = shift = 0
    while True:
        b = data[at]
        at += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, at


class RawClient:
    CLIENT_ID = b"raw-telemetry"

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.correlation = 0

    def close(self):
        self.sock.close()

    def call(self, api_key, body):
        """v0 of a flexible API: request header v2, response header v1; the response body."""
        self.correlation += 1
        header = struct.pack(">hhih", api_key, 0, self.correlation, len(self.CLIENT_ID)) + \
            self.CLIENT_ID + b"\x00"
        frame = header + body
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", skiff_harness.recv_exactly(self.sock, 4))[0]
        data = skiff_harness.recv_exactly(self.sock, size)
        assert struct.unpack(">i", data[:4])[0] == self.correlation
        assert data[4] == 0  # no header tags
        return data[5:]

    def subscribe(self, instance=bytes(16)):
        """(error, instance id, subscription id)."""
        data = self.call(71, instance + b"\x00")
        error = struct.unpack(">h", data[4:6])[0]
        got_instance = data[6:22]
        subscription = struct.unpack(">i", data[22:26])[0]
        return error, got_instance, subscription

    def push(self, instance, subscription, payload, compression=0, terminating=False):
        body = instance + struct.pack(">i?b", subscription, terminating, compression) + \
            uvarint(len(payload) + 1) + payload + b"\x00"
        data = self.call(72, body)
        return struct.unpack(">h", data[4:6])[0]


def pb_len(number, body):
    return uvarint(number << 3 | 2) + uvarint(len(body)) + body


def pb_double(number, v):
    return uvarint(number << 3 | 1) + struct.pack("<d", v)


def gauge_payload(name, v):
    """MetricsData > ResourceMetrics > ScopeMetrics > Metric{name, Gauge{NumberDataPoint}}."""
    metric = pb_len(1, name.encode()) + pb_len(5, pb_len(1, pb_double(4, v)))
    return pb_len(1, pb_len(2, pb_len(2, metric)))


def instance_text(instance):
    return base64.urlsafe_b64encode(instance).rstrip(b"=").decode()


# ---- the tests ---------------------------------------------------------------------------------

class LibrdkafkaTelemetryTest(unittest.TestCase):
    def run_clients(self, broker, topic, while_running=None):
        """Runs the node-rdkafka producer and consumer until they have produced and consumed,
        then calls while_running() (they keep pushing meanwhile), then closes them."""
        dest = install()
        proc = subprocess.Popen(["node", "rdkafka_telemetry.cjs", broker.bootstrap, topic],
                                cwd=dest, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        try:
            line = proc.stdout.readline()  # the script's first line, after its records
            self.assertEqual(line.strip(), "ready", "the librdkafka clients did not get ready")
            if while_running:
                while_running()
            proc.stdin.write("stop\n")
            proc.stdin.flush()
            out, _ = proc.communicate(timeout=60)
            sys.stdout.write(out)
            self.assertEqual(proc.returncode, 0, "the librdkafka script failed")
            self.assertIn("ok: produced and consumed 20", out)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    def setUp(self):
        if shutil.which("node") is None or shutil.which("npm") is None:
            self.skipTest("SKIPPED: node or npm is not installed")

    def test_pushed_metrics_appear_on_metrics(self):
        broker = skiff_harness.Broker({"metrics.listener": "HTTP://127.0.0.1:0",
                                       "client.telemetry.enable": "true",
                                       "client.telemetry.push.interval.ms": "1000",
                                       "group.initial.rebalance.delay.ms": "0"},
                                      name="telemetry broker").owned_by(self)
        broker.start()
        seen = {}

        def both_pushed():
            text = scrape(broker)
            producer = series(text, "skiff_client_org_apache_kafka_producer_",
                              client_id="tel-producer")
            # The consumer's own count of its partitions: the topic's one, once it has it.
            assigned = value(text, "skiff_client_org_apache_kafka_consumer_coordinator_"
                             "assigned_partitions", client_id="tel-consumer", group_id="tel-group")
            if producer and assigned == 1:
                seen["text"] = text
                return True
            return False

        self.run_clients(broker, "telemetry-on", lambda: skiff_harness.wait_until(
            both_pushed, 60, 0.2, "producer and consumer metrics on /metrics"))
        text = seen["text"]
        code, out = promtool(text)
        self.assertEqual(code, 0, out)
        # The producer's count of its connections, a delta sum, as a counter, labelled with who
        # it is (librdkafka counts from its first subscription, so it may well be 0 here).
        created = series(text, "skiff_client_org_apache_kafka_producer_connection_creation_total{",
                         client_id="tel-producer")
        self.assertTrue(created, text)
        self.assertGreaterEqual(float(created[0].rsplit(" ", 1)[1]), 0)
        self.assertIn("# TYPE skiff_client_org_apache_kafka_producer_connection_creation_total "
                      "counter", text)
        self.assertIn('client_software_name="', created[0])
        self.assertNotIn('client_software_name=""', created[0])
        # Gauges per broker node, with the node id as a label.
        latency = series(text, "skiff_client_org_apache_kafka_producer_node_request_latency_avg{",
                         client_id="tel-producer")
        self.assertTrue(latency, text)
        self.assertIn('node_id="', latency[0])
        self.assertGreaterEqual(value(text, "skiff_client_telemetry_pushes_total", error="NONE"), 2)
        self.assertGreaterEqual(value(text, "skiff_client_telemetry_clients"), 2)

    def test_off_the_clients_never_call_the_apis(self):
        broker = skiff_harness.Broker({"metrics.listener": "HTTP://127.0.0.1:0",
                                       "group.initial.rebalance.delay.ms": "0"},
                                      name="telemetry-off broker").owned_by(self)
        broker.start()
        self.run_clients(broker, "telemetry-off")
        text = scrape(broker)
        self.assertGreaterEqual(value(text, "skiff_requests_total", api="Produce"), 1)
        self.assertGreaterEqual(value(text, "skiff_requests_total", api="Fetch"), 1)
        self.assertIsNone(value(text, "skiff_requests_total", api="GetTelemetrySubscriptions"))
        self.assertIsNone(value(text, "skiff_requests_total", api="PushTelemetry"))
        self.assertEqual(series(text, "skiff_client_"), [])


class BadPushesTest(unittest.TestCase):
    def start(self, overrides):
        broker = skiff_harness.Broker(dict({"metrics.listener": "HTTP://127.0.0.1:0"},
                                           **overrides), name="bad telemetry broker")
        broker.owned_by(self)
        broker.start()
        client = RawClient(broker.port)
        self.addCleanup(client.close)
        return broker, client

    def test_off_the_apis_answer_unsupported_version(self):
        broker, client = self.start({})
        self.assertEqual(client.subscribe()[0], UNSUPPORTED_VERSION)
        self.assertEqual(client.push(os.urandom(16), 1, gauge_payload("org.apache.kafka.x", 1)),
                         UNSUPPORTED_VERSION)
        self.assertEqual(series(scrape(broker), "skiff_client_"), [])

    def test_bad_pushes_get_kafkas_errors_and_change_nothing(self):
        broker, client = self.start({"client.telemetry.enable": "true",
                                     "client.telemetry.push.interval.ms": "60000",
                                     "telemetry.max.bytes": "1024"})
        good = gauge_payload("org.apache.kafka.raw.level", 42)

        def fresh():
            # A new instance for each bad push: its first push is never early.
            error, instance, subscription = client.subscribe()
            self.assertEqual(error, NONE)
            self.assertNotEqual(instance, bytes(16))
            return instance, subscription

        bad = [
            ("malformed", lambda i, s: client.push(i, s, b"\x0a\x7fnot a protobuf"),
             INVALID_RECORD),
            ("says gzip, is not", lambda i, s: client.push(i, s, good, compression=1),
             INVALID_RECORD),
            ("unknown codec", lambda i, s: client.push(i, s, good, compression=7),
             UNSUPPORTED_COMPRESSION_TYPE),
            ("over telemetry.max.bytes",
             lambda i, s: client.push(i, s, gauge_payload("org.apache.kafka.raw.level." +
                                                          "x" * 1100, 1)),
             TELEMETRY_TOO_LARGE),
            ("wrong subscription id", lambda i, s: client.push(i, s ^ 1, good),
             UNKNOWN_SUBSCRIPTION_ID),
            ("instance never handed out", lambda i, s: client.push(os.urandom(16), s, good),
             UNKNOWN_SUBSCRIPTION_ID),
            ("zero instance id", lambda i, s: client.push(bytes(16), s, good), INVALID_REQUEST),
        ]
        for what, send, expected in bad:
            instance, subscription = fresh()
            self.assertEqual(send(instance, subscription), expected, what)
        text = scrape(broker)
        self.assertEqual(series(text, "skiff_client_org_apache_kafka_raw"), [], text)
        self.assertEqual(value(text, "skiff_client_telemetry_pushes_total",
                               error="INVALID_RECORD"), 2)
        self.assertIsNone(value(text, "skiff_client_telemetry_pushes_total", error="NONE"))

        # The same sender's well-formed push is kept; one more before the interval is refused
        # and leaves the value as it was.
        instance, subscription = fresh()
        self.assertEqual(client.push(instance, subscription, good), NONE)
        self.assertEqual(client.push(instance, subscription,
                                     gauge_payload("org.apache.kafka.raw.level", 7)),
                         THROTTLING_QUOTA_EXCEEDED)
        text = scrape(broker)
        code, out = promtool(text)
        self.assertEqual(code, 0, out)
        self.assertEqual(value(text, "skiff_client_org_apache_kafka_raw_level",
                               client_id="raw-telemetry",
                               client_instance_id=instance_text(instance)), 42)
        # Kafka's other answer: asking for the subscription again before the interval is over.
        self.assertEqual(client.subscribe(instance)[0], THROTTLING_QUOTA_EXCEEDED)


if __name__ == "__main__":
    skiff_harness.run_tests()
