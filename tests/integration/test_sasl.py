"""SASL authentication on a SASL_PLAINTEXT listener, with the clients users have.

    /usr/bin/python3 test_sasl.py /path/to/skiff

skiff runs with a PLAINTEXT and a SASL_PLAINTEXT listener, sasl.enabled.mechanisms
PLAIN,SCRAM-SHA-256,SCRAM-SHA-512 and a user made with `skiff user add` before it starts. Checks:
- kcat (librdkafka), confluent-kafka and kafka-python each produce messages and consume them
  all back, in order and exactly once, with each mechanism (kafka-python sends SaslHandshake v0
  and its tokens unframed; librdkafka uses SaslAuthenticate);
- a wrong password and an unknown user fail with the client's authentication error, the same
  message for both, and the broker logs the failure with the peer address, while an
  authenticated client keeps working;
- a client that sends Metadata before authenticating is disconnected; a mechanism the listener
  does not enable gets UNSUPPORTED_SASL_MECHANISM with the enabled list;
- connections.max.reauth.ms: SaslAuthenticate v1 tells the client the session lifetime, and a
  request after it has run out closes the connection unless the client re-authenticated;
- listener.name.<listener>.sasl.enabled.mechanisms narrows one listener;
- DescribeUserScramCredentials / AlterUserScramCredentials (KIP-554, raw v0 requests: the
  Python clients here predate them): a user created over the wire with a client-side salted
  password authenticates and produces and consumes; Kafka's per-user refusals; a deleted user
  can no longer authenticate.
"""

import hashlib
import os
import re
import socket
import struct
import subprocess
import sys
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, Producer  # noqa: E402
from kafka import KafkaConsumer, KafkaProducer  # noqa: E402
from kafka.errors import KafkaError as PyKafkaError  # noqa: E402

USER, PASSWORD = "alice", "alice-secret"
MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
N = 50
TIMEOUT_S = 20
SASL_LISTEN_RE = re.compile(r"skiff listening on 127\.0\.0\.1:(\d+) \(SASL_PLAINTEXT\)")


def frame_request(api_key, version, corr, body, flexible_header=False):
    header = struct.pack(">hhi", api_key, version, corr) + struct.pack(">h", 4) + b"test"
    if flexible_header:
        header += b"\x00"
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


def read_frame(sock):
    size = struct.unpack(">i", skiff_harness.recv_exactly(sock, 4))[0]
    return skiff_harness.recv_exactly(sock, size)


def kstring(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def closed_within(sock, seconds=5):
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


class SaslTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker({
            "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            "sasl.enabled.mechanisms": ",".join(MECHANISMS),
            "connections.max.reauth.ms": "3000",
        }, name="sasl broker")
        os.makedirs(cls.broker.data_dir, exist_ok=True)
        skiff_harness.add_scram_user(cls.broker.data_dir, USER, PASSWORD)
        cls.broker.start()
        m = SASL_LISTEN_RE.search(cls.broker.log_text())
        assert m, cls.broker.log_text()
        cls.sasl_port = int(m.group(1))
        cls.sasl_bootstrap = "127.0.0.1:%d" % cls.sasl_port

    @classmethod
    def tearDownClass(cls):
        cls.broker.cleanup()

    def rdkafka_conf(self, mechanism, user=USER, password=PASSWORD):
        return {"bootstrap.servers": self.sasl_bootstrap, "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanisms": mechanism, "sasl.username": user, "sasl.password": password}

    def messages(self, tag):
        return [("%s-%d" % (tag, i)).encode() for i in range(N)]

    # ---- the three client families -----------------------------------------------------------
    def test_kcat_each_mechanism(self):
        for mechanism in MECHANISMS:
            with self.subTest(mechanism=mechanism):
                topic = "kcat-" + mechanism.lower()
                sasl = ["-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=" + mechanism,
                        "-X", "sasl.username=" + USER, "-X", "sasl.password=" + PASSWORD]
                sent = self.messages(topic)
                subprocess.run(["kcat", "-b", self.sasl_bootstrap, "-P", "-t", topic] + sasl,
                               input=b"\n".join(sent) + b"\n", check=True, timeout=TIMEOUT_S)
                out = subprocess.run(["kcat", "-b", self.sasl_bootstrap, "-C", "-t", topic, "-o",
                                      "beginning", "-e", "-q"] + sasl,
                                     stdout=subprocess.PIPE, check=True, timeout=TIMEOUT_S)
                self.assertEqual(out.stdout.splitlines(), sent)

    def test_confluent_kafka_each_mechanism(self):
        for mechanism in MECHANISMS:
            with self.subTest(mechanism=mechanism):
                topic = "confluent-" + mechanism.lower()
                sent = self.messages(topic)
                p = Producer(self.rdkafka_conf(mechanism))
                for v in sent:
                    p.produce(topic, v)
                self.assertEqual(p.flush(TIMEOUT_S), 0)
                c = Consumer(dict(self.rdkafka_conf(mechanism), **{
                    "group.id": "g-" + uuid.uuid4().hex, "auto.offset.reset": "earliest"}))
                c.subscribe([topic])
                got = []
                deadline = time.monotonic() + TIMEOUT_S
                while len(got) < N and time.monotonic() < deadline:
                    msg = c.poll(0.5)
                    if msg is not None and not msg.error():
                        got.append(msg.value())
                c.close()
                self.assertEqual(got, sent)

    def test_kafka_python_each_mechanism(self):
        for mechanism in MECHANISMS:
            with self.subTest(mechanism=mechanism):
                topic = "python-" + mechanism.lower()
                conf = dict(bootstrap_servers=self.sasl_bootstrap, security_protocol="SASL_PLAINTEXT",
                            sasl_mechanism=mechanism, sasl_plain_username=USER,
                            sasl_plain_password=PASSWORD)
                sent = self.messages(topic)
                p = KafkaProducer(**conf)
                for v in sent:
                    p.send(topic, v)
                p.flush(TIMEOUT_S)
                p.close()
                c = KafkaConsumer(topic, auto_offset_reset="earliest", consumer_timeout_ms=5000,
                                  group_id="g-" + uuid.uuid4().hex, **conf)
                got = [m.value for m in c]
                c.close()
                self.assertEqual(got, sent)

    # ---- failures ------------------------------------------------------------------------------
    def rdkafka_auth_error(self, mechanism, user, password):
        errors = []
        p = Producer(dict(self.rdkafka_conf(mechanism, user, password),
                          error_cb=lambda e: errors.append(e), **{"message.timeout.ms": 3000}))
        p.produce("never", b"x")
        p.flush(5)
        auth = [e for e in errors if e.code() == KafkaError._AUTHENTICATION]
        self.assertTrue(auth, "no authentication error among %r" % errors)
        # librdkafka appends how long the attempt took: " (after 4ms in state AUTH_REQ)".
        return re.sub(r" \(after \d+ms in state [A-Z_]+.*\)$", "", auth[0].str())

    def test_wrong_password_and_unknown_user_fail_alike(self):
        # An authenticated client keeps working throughout.
        good = Producer(self.rdkafka_conf("SCRAM-SHA-256"))
        for mechanism in MECHANISMS:
            with self.subTest(mechanism=mechanism):
                wrong = self.rdkafka_auth_error(mechanism, USER, "not-the-password")
                unknown = self.rdkafka_auth_error(mechanism, "mallory", "whatever")
                self.assertIn("Authentication failed", wrong)
                # The same message whether the user exists or not.
                self.assertEqual(wrong.replace("mallory", USER), unknown.replace("mallory", USER))
                good.produce("still-working", b"ok")
                self.assertEqual(good.flush(TIMEOUT_S), 0)
        with self.assertRaises(PyKafkaError):
            KafkaProducer(bootstrap_servers=self.sasl_bootstrap, security_protocol="SASL_PLAINTEXT",
                          sasl_mechanism="SCRAM-SHA-512", sasl_plain_username=USER,
                          sasl_plain_password="wrong", api_version_auto_timeout_ms=5000)
        log = self.broker.log_text()
        # Rate limited per peer host: the first failure of the run is logged in full (it may be
        # another test's, with another mechanism), later ones are counted.
        self.assertRegex(log, r"connection 127\.0\.0\.1:\d+: SASL/[A-Z0-9-]+ authentication failed")
        self.assertNotIn("not-the-password", log)

    def test_requests_before_authentication_close_the_connection(self):
        s = socket.create_connection(("127.0.0.1", self.sasl_port))
        s.sendall(frame_request(3, 1, 1, struct.pack(">i", -1)))  # Metadata v1, all topics
        self.assertTrue(closed_within(s), "Metadata before SASL authentication was served")
        s.close()
        # ApiVersions is answered, and so is a handshake naming a mechanism not enabled (with the
        # list), after which the connection closes.
        s = socket.create_connection(("127.0.0.1", self.sasl_port))
        s.sendall(frame_request(18, 0, 2, b""))
        self.assertEqual(struct.unpack(">ih", read_frame(s)[:6]), (2, 0))
        s.sendall(frame_request(17, 1, 3, kstring("GSSAPI")))
        body = read_frame(s)
        corr, error, count = struct.unpack(">ihi", body[:10])
        self.assertEqual((corr, error, count), (3, 33, 3))  # UNSUPPORTED_SASL_MECHANISM
        self.assertTrue(closed_within(s))
        s.close()
        # On the PLAINTEXT listener SASL is refused with ILLEGAL_SASL_STATE, as Kafka does.
        s = socket.create_connection(("127.0.0.1", self.broker.port))
        s.sendall(frame_request(17, 1, 4, kstring("PLAIN")))
        self.assertEqual(struct.unpack(">ih", read_frame(s)[:6]), (4, 34))
        s.close()

    def plain_authenticate(self, s, corr, version=1):
        token = b"\x00" + USER.encode() + b"\x00" + PASSWORD.encode()
        s.sendall(frame_request(17, 1, corr, kstring("PLAIN")))
        self.assertEqual(struct.unpack(">ih", read_frame(s)[:6]), (corr, 0))
        s.sendall(frame_request(36, version, corr + 1, struct.pack(">i", len(token)) + token))
        body = read_frame(s)
        corr_back, error = struct.unpack(">ih", body[:6])
        self.assertEqual((corr_back, error), (corr + 1, 0))
        # error_message (null), auth_bytes (empty), session_lifetime_ms
        self.assertEqual(body[6:8], b"\xff\xff")
        lifetime = struct.unpack(">q", body[12:20])[0]
        return lifetime

    def test_session_lifetime_and_reauthentication(self):
        s = socket.create_connection(("127.0.0.1", self.sasl_port))
        self.assertEqual(self.plain_authenticate(s, 10), 3000)
        s.sendall(frame_request(3, 1, 20, struct.pack(">i", 0)))  # Metadata, no topics
        self.assertEqual(struct.unpack(">i", read_frame(s)[:4])[0], 20)
        time.sleep(1.5)
        self.plain_authenticate(s, 30)  # re-authenticate before the session runs out
        time.sleep(2)  # past the first session's end, within the second's
        s.sendall(frame_request(3, 1, 40, struct.pack(">i", 0)))
        self.assertEqual(struct.unpack(">i", read_frame(s)[:4])[0], 40)
        time.sleep(3.2)  # past the second's end
        s.sendall(frame_request(3, 1, 50, struct.pack(">i", 0)))
        self.assertTrue(closed_within(s), "a request after the session expired was served")
        s.close()

    def test_listener_override_narrows_the_mechanisms(self):
        with skiff_harness.Broker({
                "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
                "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "SCRAM-SHA-512"}) as b:
            port = int(SASL_LISTEN_RE.search(b.log_text()).group(1))
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(frame_request(17, 1, 1, kstring("PLAIN")))
            body = read_frame(s)
            self.assertEqual(struct.unpack(">ihi", body[:10]), (1, 33, 1))
            self.assertEqual(body[10:12 + len("SCRAM-SHA-512")], kstring("SCRAM-SHA-512"))
            s.close()

    # ---- KIP-554: users managed over the wire --------------------------------------------------
    def admin_request(self, api_key, body):
        """One flexible (v0) request on the PLAINTEXT listener; returns the body after the
        response header (correlation id and an empty tag buffer)."""
        s = socket.create_connection(("127.0.0.1", self.broker.port))
        try:
            s.sendall(frame_request(api_key, 0, 77, body, flexible_header=True))
            resp = read_frame(s)
        finally:
            s.close()
        self.assertEqual(struct.unpack(">i", resp[:4])[0], 77)
        self.assertEqual(resp[4], 0)
        return resp[5:]

    def alter_scram(self, upsertions=(), deletions=()):
        """AlterUserScramCredentials v0; each upsertion (user, mechanism, password, iterations)
        is salted and hashed here, as an admin client does. Returns [(user, error, message)]."""
        body = bytes([len(deletions) + 1])
        for user, mechanism in deletions:
            body += cstring(user) + struct.pack(">b", mechanism) + b"\x00"
        body += bytes([len(upsertions) + 1])
        for user, mechanism, password, iterations in upsertions:
            salt = os.urandom(16)
            digest = "sha256" if mechanism == 1 else "sha512"
            salted = hashlib.pbkdf2_hmac(digest, password.encode(), salt, iterations)
            body += (cstring(user) + struct.pack(">bi", mechanism, iterations) + cbytes(salt) +
                     cbytes(salted) + b"\x00")
        r = Reader(self.admin_request(51, body + b"\x00"))
        r.take(">i")  # throttle_time_ms
        results = []
        for _ in range(r.uvarint() - 1):
            results.append((r.cstring(), r.take(">h"), r.cstring()))
            r.uvarint()  # tags
        return results

    def describe_scram(self):
        """DescribeUserScramCredentials v0 for every user: {user: {mechanism: iterations}}."""
        r = Reader(self.admin_request(50, b"\x00\x00"))
        r.take(">i")
        self.assertEqual(r.take(">h"), 0)
        r.cstring()
        users = {}
        for _ in range(r.uvarint() - 1):
            user, error = r.cstring(), r.take(">h")
            r.cstring()  # error_message
            self.assertEqual(error, 0)
            infos = {}
            for _ in range(r.uvarint() - 1):
                mechanism, iterations = r.take(">b"), r.take(">i")
                r.uvarint()
                infos[mechanism] = iterations
            r.uvarint()
            users[user] = infos
        return users

    def test_user_scram_credentials_api(self):
        # A user created over the wire authenticates with the password it was salted from.
        self.assertEqual(self.alter_scram(upsertions=[("carol", 2, "carol-pw", 8192)]),
                         [("carol", 0, None)])
        self.assertEqual(self.describe_scram().get("carol"), {2: 8192})
        self.assertEqual(self.describe_scram().get(USER), {1: 4096, 2: 4096})
        topic = "scram-api-" + uuid.uuid4().hex[:8]
        conf = self.rdkafka_conf("SCRAM-SHA-512", "carol", "carol-pw")
        p = Producer(conf)
        for m in self.messages("carol"):
            p.produce(topic, m)
        self.assertEqual(p.flush(TIMEOUT_S), 0)
        c = KafkaConsumer(topic, bootstrap_servers=self.sasl_bootstrap,
                          security_protocol="SASL_PLAINTEXT", sasl_mechanism="SCRAM-SHA-512",
                          sasl_plain_username="carol", sasl_plain_password="carol-pw",
                          auto_offset_reset="earliest", consumer_timeout_ms=TIMEOUT_S * 1000)
        got = []
        for record in c:
            got.append(record.value)
            if len(got) == N:
                break
        c.close()
        self.assertEqual(got, self.messages("carol"))
        # Kafka's refusals come back per user.
        self.assertEqual(self.alter_scram(upsertions=[("dave", 1, "pw", 100)]),
                         [("dave", 93, "Too few iterations")])
        self.assertEqual(self.alter_scram(deletions=[("nobody", 1)]),
                         [("nobody", 91, "Attempt to delete a user credential that does not "
                                         "exist")])
        # Deleted, carol can no longer authenticate; alice still can.
        self.assertEqual(self.alter_scram(deletions=[("carol", 2)]), [("carol", 0, None)])
        self.assertNotIn("carol", self.describe_scram())
        self.assertIn("Authentication failed",
                      self.rdkafka_auth_error("SCRAM-SHA-512", "carol", "carol-pw"))


class Reader:
    """Reads a flexible response body."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        value = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += struct.calcsize(fmt)
        return value

    def uvarint(self):
        value, shift = 0, 0
        while True:
            b = self.data[self.pos]
            self.pos += 1
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7

    def cstring(self):
        n = self.uvarint()
        if n == 0:
            return None
        s = self.data[self.pos:self.pos + n - 1].decode()
        self.pos += n - 1
        return s


def cstring(s):
    b = s.encode()
    return bytes([len(b) + 1]) + b


def cbytes(b):
    return bytes([len(b) + 1]) + b


if __name__ == "__main__":
    skiff_harness.run_tests()
