"""The web console (docs/console.md) in a real browser: playwright-core driving Debian's Chromium.

    /usr/bin/python3 test_console_browser.py /path/to/skiff [Class.test_name]

Each test prepares data with the clients users have (kcat, confluent-kafka and its schema
registry serializer), then runs one scenario of console/console_browser.mjs with the console's
URL and the expectations those clients saw as JSON on stdin, and checks its exit code and its
"ok:" line. The scenarios select only by the page's stable hooks (data-view, data-field, ids).

playwright-core is pinned in console/package.json and package-lock.json and installed with
`npm ci` into the build directory (console-browser/, next to the skiff binary) once per lock
file; it downloads no browser: it launches /usr/bin/chromium (.ci/install-deps installs it).

Three brokers: a writable console with the schema registry (most scenarios), one left at the
default console.read.only=true, and one with a SASL_PLAINTEXT listener (basic auth against its
SCRAM users) and the authorizer on.

Screenshots of the main pages go to $SKIFF_CONSOLE_SCREENSHOTS when it is set (docs/images/ holds
the committed ones), to a temporary directory otherwise (so taking them is tested too).
"""

import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import skiff_harness  # noqa: E402
from confluent_kafka import (Consumer, KafkaError, KafkaException, Producer,  # noqa: E402
                             TopicPartition)

HERE = os.path.dirname(os.path.abspath(__file__))
CONSOLE_SRC = os.path.join(HERE, "console")
CHROMIUM = "/usr/bin/chromium"
NODE_TIMEOUT_S = 120
TIMEOUT_S = 20
CONSOLE_ON = {"console.listeners": "http://127.0.0.1:0"}
AUTHORIZER = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
              "super.users": "User:ANONYMOUS"}
USER, PASSWORD = "alice", "alice-secret"
# Read once and kept from the brokers: skiff takes every SKIFF_* variable as a setting and would
# warn about an unknown console.screenshots.
SHOTS_DIR = os.environ.pop("SKIFF_CONSOLE_SCREENSHOTS", None)

HOSTILE_IMG = '<img src=x onerror="window.__pwned=1">'
HOSTILE_SCRIPT = "<script>window.__pwned=1</script>"
HOSTILE_JS = "javascript:window.__pwned=1"
NOT_UTF8 = b"\xff\xfe<b>x</b>\xc3("


def install_console_tests():
    return npm_clients.install(CONSOLE_SRC, "console-browser", ("console_browser.mjs",))


def screenshots_dir(test):
    if SHOTS_DIR:
        os.makedirs(SHOTS_DIR, exist_ok=True)
        return os.path.abspath(SHOTS_DIR)
    d = tempfile.mkdtemp(prefix="skiff-console-shots-")
    test.addCleanup(shutil.rmtree, d, True)
    return d


def kcat(args, data=None):
    r = subprocess.run(["kcat"] + args, input=data, capture_output=True, timeout=60)
    assert r.returncode == 0, "kcat %s: %s" % (args, r.stderr.decode(errors="replace"))
    return r.stdout


def watermarks(bootstrap, topic, partitions):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "console-watermarks"})
    try:
        return [c.get_watermark_offsets(TopicPartition(topic, p), timeout=TIMEOUT_S)
                for p in range(partitions)]
    finally:
        c.close()


class BrowserTestCase(unittest.TestCase):
    """Skips, saying why, without node or Debian's Chromium; installs playwright-core once."""

    @classmethod
    def setUpClass(cls):
        if shutil.which("node") is None:
            raise unittest.SkipTest("SKIPPED: node is not installed")
        if not os.access(CHROMIUM, os.X_OK):
            raise unittest.SkipTest("SKIPPED: %s is missing (apt-get install chromium; "
                                    ".ci/install-deps installs it)" % CHROMIUM)
        cls.node_dir = install_console_tests()

    def browse(self, scenario, url, **plan):
        plan = dict(plan, scenario=scenario, url=url, shots=screenshots_dir(self))
        proc = subprocess.run(["node", "console_browser.mjs"], cwd=self.node_dir,
                              input=json.dumps(plan), capture_output=True, text=True,
                              timeout=NODE_TIMEOUT_S)
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        self.assertEqual(proc.returncode, 0, "scenario %s failed: %s" % (scenario, proc.stdout))
        self.assertIn("ok: %s" % scenario, proc.stdout)


class ConsoleBrowserTest(BrowserTestCase):
    """A writable console with the schema registry, and the data real clients made."""

    TOPIC = "orders"
    PARTITIONS = 3
    GROUP = "console-lag"
    SCHEMA_TOPIC = "payments"
    SUBJECT = "payments-value"
    HOSTILE_TOPIC = "hostile"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.broker = skiff_harness.Broker(dict(CONSOLE_ON, **{
            "console.read.only": "false",
            "schema.registry.listeners": "http://127.0.0.1:0",
            "num.partitions": str(cls.PARTITIONS)}), name="console broker").owned_by(cls)
        cls.broker.start()
        cls.url = "http://127.0.0.1:%d" % cls.broker.console_port()
        cls.registry = "http://127.0.0.1:%d" % cls.broker.registry_port()
        cls.bootstrap = cls.broker.bootstrap
        cls.produce_with_kcat()
        cls.leave_group_lag()
        cls.produce_with_schema()
        cls.produce_hostile()

    # ---- the data, made by real clients --------------------------------------------------------
    @classmethod
    def produce_with_kcat(cls):
        """kcat -P with keys (-K:) and headers (-H), a different number of records per
        partition; auto-created with num.partitions=3."""
        cls.produced = {}
        for p in range(cls.PARTITIONS):
            rows = [("key-%d-%d" % (p, i), "value %d of partition %d" % (i, p))
                    for i in range(3 + 2 * p)]
            kcat(["-b", cls.bootstrap, "-P", "-t", cls.TOPIC, "-p", str(p), "-K:",
                  "-H", "source=kcat", "-H", "partition=%d" % p],
                 data="".join("%s:%s\n" % r for r in rows).encode())
            cls.produced[p] = rows

    @classmethod
    def leave_group_lag(cls):
        """A confluent-kafka consumer in a group consumes, commits offsets short of the end on
        two partitions, and closes."""
        c = Consumer({"bootstrap.servers": cls.bootstrap, "group.id": cls.GROUP,
                      "auto.offset.reset": "earliest", "enable.auto.commit": False})
        try:
            c.subscribe([cls.TOPIC])
            msg = None
            for _ in range(TIMEOUT_S * 2):
                msg = c.poll(0.5)
                if msg is not None and msg.error() is None:
                    break
            assert msg is not None and msg.error() is None, "the group consumed nothing"
            c.commit(offsets=[TopicPartition(cls.TOPIC, 0, 2), TopicPartition(cls.TOPIC, 1, 1)],
                     asynchronous=False)
        finally:
            c.close()

    @classmethod
    def produce_with_schema(cls):
        """JSONSerializer against skiff's registry (version 1 of the subject), then a second
        version adding a property, for the diff."""
        from confluent_kafka.schema_registry import SchemaRegistryClient
        from confluent_kafka.schema_registry.json_schema import JSONSerializer
        from confluent_kafka.serialization import MessageField, SerializationContext
        v1 = {"type": "object", "title": "Payment",
              "properties": {"payer": {"type": "string"}, "cents": {"type": "integer"}}}
        sr = SchemaRegistryClient({"url": cls.registry})
        ser = JSONSerializer(json.dumps(v1), sr)
        cls.payment = {"payer": "ada", "cents": 4200}
        value = ser(cls.payment, SerializationContext(cls.SCHEMA_TOPIC, MessageField.VALUE))
        assert value[0] == 0, "not Confluent's wire format"
        p = Producer({"bootstrap.servers": cls.bootstrap})
        p.produce(cls.SCHEMA_TOPIC, value=value, key=b"payment-1", partition=0)
        assert p.flush(TIMEOUT_S) == 0
        v2 = dict(v1, properties=dict(v1["properties"], memo={"type": "string"}))
        cls.registry_call("PUT", "/config/" + cls.SUBJECT, {"compatibility": "NONE"})
        cls.registry_call("POST", "/subjects/%s/versions" % cls.SUBJECT,
                          {"schemaType": "JSON", "schema": json.dumps(v2)})

    @classmethod
    def registry_call(cls, method, path, body):
        req = urllib.request.Request(
            cls.registry + path, data=json.dumps(body).encode(), method=method,
            headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
            return json.loads(r.read())

    @classmethod
    def produce_hostile(cls):
        """Keys, values and headers that try to be HTML or script, and bytes that are not UTF-8."""
        p = Producer({"bootstrap.servers": cls.bootstrap})
        p.produce(cls.HOSTILE_TOPIC, partition=0, key=HOSTILE_IMG.encode(),
                  value=HOSTILE_SCRIPT.encode(),
                  headers=[(HOSTILE_JS, HOSTILE_IMG.encode()), ("</td><td>", b"</tr>")])
        p.produce(cls.HOSTILE_TOPIC, partition=0, key=HOSTILE_JS.encode(), value=NOT_UTF8,
                  headers=[("x", HOSTILE_SCRIPT.encode())])
        assert p.flush(TIMEOUT_S) == 0

    def topics(self):
        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "console-metadata"})
        try:
            return c.list_topics(timeout=TIMEOUT_S).topics
        finally:
            c.close()

    # ---- the scenarios -------------------------------------------------------------------------
    def test_1_pages_load(self):
        """Each navigation entry renders with no console error and no CSP violation; the
        overview shows the broker's cluster id and data directory."""
        overview = json.loads(urllib.request.urlopen(self.url + "/api/overview",
                                                     timeout=TIMEOUT_S).read())
        self.browse("pages", self.url, cluster_id=overview["cluster_id"],
                    log_dir=overview["data"]["log_dir"])

    def test_2_kcat_topic_offsets(self):
        """The kcat-made topic is listed with its partitions and records; the topic view's offsets
        are those confluent-kafka's get_watermark_offsets reports."""
        marks = watermarks(self.bootstrap, self.TOPIC, self.PARTITIONS)
        partitions = [{"partition": p, "log_start_offset": low, "log_end_offset": high,
                       "high_watermark": high, "last_stable_offset": high}
                      for p, (low, high) in enumerate(marks)]
        self.assertEqual([high for _, high in marks],
                         [len(self.produced[p]) for p in range(self.PARTITIONS)])
        self.browse("topic", self.url, topic=self.TOPIC, partitions=partitions)

    def test_3_messages_and_headers(self):
        """Partition 2's records as kcat consumes them (key, value, headers), shown in the page."""
        out = kcat(["-b", self.bootstrap, "-C", "-t", self.TOPIC, "-p", "2", "-o", "beginning",
                    "-e", "-J"])
        records = []
        for line in out.decode().splitlines():
            m = json.loads(line)
            h = m["headers"]  # kcat -J: [name, value, name, value, ...]
            records.append({"offset": m["offset"], "key": m["key"], "value": m["payload"],
                            "headers": [[h[i], h[i + 1]] for i in range(0, len(h), 2)]})
        self.assertEqual(len(records), len(self.produced[2]))
        self.assertEqual(records[0]["headers"], [["source", "kcat"], ["partition", "2"]])
        self.browse("messages", self.url, topic=self.TOPIC, partition=2, records=records)

    def test_3b_live_tail(self):
        """Live tail: two records kcat wrote before, then eight a confluent-kafka producer writes
        one by one while the page follows the partition; the page shows all ten, in order, each
        once, and reads nothing once switched off or left."""
        topic = "live-tail"
        kcat(["-b", self.bootstrap, "-P", "-t", topic, "-p", "0"], data=b"before-0\nbefore-1\n")
        later = ["live-%d" % i for i in range(8)]
        plan = {"scenario": "live", "url": self.url, "shots": screenshots_dir(self),
                "topic": topic, "partition": 0, "values": ["before-0", "before-1"] + later}
        proc = subprocess.Popen(["node", "console_browser.mjs"], cwd=self.node_dir,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        proc.stdin.write(json.dumps(plan))
        proc.stdin.close()
        lines = []
        try:
            for line in proc.stdout:  # the page follows the end before anything is produced
                lines.append(line)
                if line.startswith("live: following") or line.startswith("FAILED"):
                    break
            if lines and lines[-1].startswith("live: following"):
                producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 0})
                for value in later:
                    producer.produce(topic, value=value.encode(), partition=0)
                    self.assertEqual(producer.flush(TIMEOUT_S), 0)
                    time.sleep(0.3)
            lines.append(proc.stdout.read())
            proc.wait(timeout=NODE_TIMEOUT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        out = "".join(lines)
        sys.stdout.write(out)
        self.assertEqual(proc.returncode, 0, "scenario live failed: %s" % out)
        self.assertIn("ok: live", out)

    def test_4_group_lag(self):
        """The group's committed offsets as a new consumer of the group reads them back, and lag
        = high watermark - committed per partition."""
        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": self.GROUP})
        try:
            committed = c.committed([TopicPartition(self.TOPIC, p) for p in range(self.PARTITIONS)],
                                    timeout=TIMEOUT_S)
        finally:
            c.close()
        marks = watermarks(self.bootstrap, self.TOPIC, self.PARTITIONS)
        offsets = [{"topic": self.TOPIC, "partition": tp.partition, "committed_offset": tp.offset,
                    "log_end_offset": marks[tp.partition][1],
                    "lag": marks[tp.partition][1] - tp.offset}
                   for tp in committed if tp.offset >= 0]
        self.assertEqual([(o["partition"], o["committed_offset"]) for o in offsets],
                         [(0, 2), (1, 1)])
        self.browse("group", self.url, group=self.GROUP, offsets=offsets,
                    lag=sum(o["lag"] for o in offsets))

    def test_5_schema_record_decoded(self):
        """The JSONSerializer's record is shown decoded; the subject's two versions diffed."""
        self.browse("schema", self.url, topic=self.SCHEMA_TOPIC, partition=0, offset=0,
                    decoded=self.payment, subject=self.SUBJECT, added="memo")

    def test_6_create_topic_from_page(self):
        """form#create-topic makes a topic kcat produces to and consumes from; form#produce-record
        puts a test message in it that kcat reads."""
        topic = "made-in-the-browser"
        self.assertNotIn(topic, self.topics())
        self.browse("create", self.url, topic=topic, partitions=2, key="page-key",
                    value="from the page")
        self.assertEqual(len(self.topics()[topic].partitions), 2)
        kcat(["-b", self.bootstrap, "-P", "-t", topic, "-p", "1", "-K:"], data=b"k:from kcat\n")
        out = kcat(["-b", self.bootstrap, "-C", "-t", topic, "-p", "1", "-o", "beginning", "-e",
                    "-f", "%k=%s\\n"])
        self.assertEqual(out, b"page-key=from the page\nk=from kcat\n")

    def test_7_hostile_payloads_render_as_text(self):
        """Keys, values and headers that try to be HTML or script show their exact characters;
        bytes that are not UTF-8 show as hex; nothing from them runs or becomes an element."""
        records = [
            {"offset": 0, "key": HOSTILE_IMG, "value": HOSTILE_SCRIPT,
             "value_hex": HOSTILE_SCRIPT.encode().hex(),
             "headers": [[HOSTILE_JS, HOSTILE_IMG], ["</td><td>", "</tr>"]]},
            {"offset": 1, "key": HOSTILE_JS, "value": None, "value_hex": NOT_UTF8.hex(),
             "headers": [["x", HOSTILE_SCRIPT]]},
        ]
        self.browse("hostile", self.url, topic=self.HOSTILE_TOPIC, records=records)

    def test_8_cross_site_write_refused(self):
        """A page from another origin (a form submitted on load, a no-cors fetch) posting to a
        writable console gets 403 and creates nothing."""
        topic = "created-cross-site"
        pages = {
            "/fetch.html": ("<!doctype html><script>fetch(%s, {method: 'POST', mode: 'no-cors', "
                            "headers: {'Content-Type': 'text/plain'}, body: %s});</script>"
                            % (json.dumps(self.url + "/api/topics"),
                               json.dumps(json.dumps({"name": topic, "partitions": 1})))),
            "/form.html": ("<!doctype html><form method=post enctype=text/plain action=%s>"
                           "<input name='{\"name\": \"%s\", \"x\": \"' value='\"}'></form>"
                           "<script>document.forms[0].submit()</script>"
                           % (json.dumps(self.url + "/api/topics"), topic)),
        }

        class Attacker(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = pages.get(self.path, "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.browse("crosssite", self.url, attacker="http://127.0.0.1:%d" % server.server_port)
        self.assertNotIn(topic, self.topics())


class ReadOnlyConsoleTest(BrowserTestCase):
    """The default console.read.only=true: no write forms, a forced write refused."""

    def test_read_only_refuses_writes(self):
        topic, group = "ro-topic", "ro-group"
        with skiff_harness.Broker(CONSOLE_ON, name="read-only console broker") as broker:
            kcat(["-b", broker.bootstrap, "-P", "-t", topic, "-K:"], data=b"a:1\nb:2\n")
            c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group})
            c.commit(offsets=[TopicPartition(topic, 0, 1)], asynchronous=False)
            c.close()
            before = watermarks(broker.bootstrap, topic, 1)
            self.browse("readonly", "http://127.0.0.1:%d" % broker.console_port(), topic=topic,
                        group=group)
            c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "ro-check"})
            try:
                md = c.list_topics(timeout=TIMEOUT_S).topics
            finally:
                c.close()
            self.assertNotIn("forced-topic", md)
            self.assertEqual(len(md[topic].partitions), 1)
            self.assertEqual(watermarks(broker.bootstrap, topic, 1), before)


class SecurityWritesConsoleTest(BrowserTestCase):
    """A writable console on a broker with the authorizer and a SASL_PLAINTEXT listener: a SCRAM
    user and an ACL added with the page's forms are what a confluent-kafka client signing in as
    that user meets, and removed with the page's buttons they are gone for it."""

    ADMIN, ADMIN_PASSWORD = "admin", "admin-secret"
    NEW_USER, NEW_PASSWORD = "bob", "bob-from-the-page"

    def sign_in(self, broker, password):
        """The topics the new user's Metadata lists when it signs in with `password` over
        SASL/SCRAM, or "refused" when the broker refuses the sign-in (librdkafka's
        _AUTHENTICATION error, seen at once rather than by waiting for a timeout)."""
        m = re.search(r"skiff listening on 127\.0\.0\.1:(\d+) \(SASL_PLAINTEXT\)", broker.log_text())
        self.assertIsNotNone(m, "no SASL_PLAINTEXT listener in the log")
        errors = []
        c = Consumer({"bootstrap.servers": "127.0.0.1:%s" % m.group(1),
                      "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "SCRAM-SHA-256",
                      "sasl.username": self.NEW_USER, "sasl.password": password,
                      "group.id": "security-writes", "error_cb": errors.append})
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while time.monotonic() < deadline:
                try:
                    return set(c.list_topics(timeout=0.5).topics)
                except KafkaException:
                    pass
                c.poll(0)  # serves error_cb
                if any(e.code() == KafkaError._AUTHENTICATION for e in errors):
                    return "refused"
            self.fail("neither metadata nor an authentication error: %s" % errors)
        finally:
            c.close()

    def test_add_and_remove_a_user_and_an_acl(self):
        broker = skiff_harness.Broker(dict(CONSOLE_ON, **{
            "console.read.only": "false",
            "authorizer.class.name": AUTHORIZER["authorizer.class.name"],
            "super.users": "User:ANONYMOUS;User:%s" % self.ADMIN,
            "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            "sasl.enabled.mechanisms": "SCRAM-SHA-256"}), name="security writes console broker")
        broker.owned_by(self)
        os.makedirs(broker.data_dir, exist_ok=True)
        skiff_harness.add_scram_user(broker.data_dir, self.ADMIN, self.ADMIN_PASSWORD)
        broker.start()
        for topic in ("bob-reads", "not-bobs"):
            kcat(["-b", broker.bootstrap, "-P", "-t", topic], data=b"x\n")
        url = "http://127.0.0.1:%d" % broker.console_port()
        plan = {"user": self.ADMIN, "password": self.ADMIN_PASSWORD, "newUser": self.NEW_USER,
                "newPassword": self.NEW_PASSWORD, "aclTopic": "bob-reads"}
        self.assertEqual(self.sign_in(broker, self.NEW_PASSWORD), "refused", "bob signed in before")

        self.browse("security", url, **plan)
        # The password set in the page signs bob in; the READ ACL shows him that topic only.
        seen = self.sign_in(broker, self.NEW_PASSWORD)
        self.assertNotEqual(seen, "refused", "bob could not sign in with the page's password")
        self.assertIn("bob-reads", seen)
        self.assertNotIn("not-bobs", seen)
        self.assertEqual(self.sign_in(broker, "not-the-password"), "refused")

        self.browse("security", url, remove=True, **plan)
        self.assertEqual(self.sign_in(broker, self.NEW_PASSWORD), "refused",
                         "bob still signs in after his credential was removed in the page")


class AuthConsoleTest(BrowserTestCase):
    """A SASL_PLAINTEXT listener: the console asks for basic auth against the SCRAM users, and
    with the authorizer on, a topic the user may not DESCRIBE is not listed."""

    def test_basic_auth_and_acls(self):
        from kafka.admin import (ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType,
                                 KafkaAdminClient, ResourcePattern, ResourceType)
        broker = skiff_harness.Broker(dict(CONSOLE_ON, **AUTHORIZER, **{
            "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            "sasl.enabled.mechanisms": "SCRAM-SHA-256"}), name="auth console broker")
        broker.owned_by(self)
        os.makedirs(broker.data_dir, exist_ok=True)
        skiff_harness.add_scram_user(broker.data_dir, USER, PASSWORD)
        broker.start()
        for topic in ("visible", "secret"):
            kcat(["-b", broker.bootstrap, "-P", "-t", topic], data=b"x\n")

        def allow(rtype, name, op):
            return ACL("User:" + USER, "*", op, ACLPermissionType.ALLOW,
                       ResourcePattern(rtype, name, ACLResourcePatternType.LITERAL))

        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        try:
            result = admin.create_acls([
                allow(ResourceType.TOPIC, "visible", ACLOperation.DESCRIBE),
                allow(ResourceType.TOPIC, "visible", ACLOperation.READ),
                allow(ResourceType.CLUSTER, "kafka-cluster", ACLOperation.DESCRIBE)])
            self.assertEqual(result["failed"], [])
        finally:
            admin.close()
        self.browse("auth", "http://127.0.0.1:%d" % broker.console_port(), user=USER,
                    password=PASSWORD, visible="visible", hidden="secret")


if __name__ == "__main__":
    skiff_harness.run_tests()
