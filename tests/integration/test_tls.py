"""TLS on SSL and SASL_SSL listeners, with the clients users have and certificates this test
makes with the openssl command-line tool.

    /usr/bin/python3 test_tls.py /path/to/skiff

A CA signs the broker's certificate (its key encrypted, opened with ssl.key.password), a client
certificate for alice, and one that has expired; a second, unknown CA signs another client
certificate. skiff runs with PLAINTEXT, SSL and SASL_SSL listeners, ssl.client.auth=requested,
the built-in authorizer (User:ANONYMOUS and User:alice super users) and an ACL letting the
principal of alice's certificate, User:CN=alice,O=skiff-test, use topics "mtls-*" and read
groups "g-*".
Checks:
- kcat, confluent-kafka and kafka-python each produce messages over SSL and consume every one
  back in order, and the same over SASL_SSL (SCRAM-SHA-256, SCRAM-SHA-512, PLAIN); records of
  100 KiB come back whole (the TLS copy path, several staging buffers per fetch);
- mutual TLS: with alice's certificate each of the three clients is User:CN=alice,O=skiff-test,
  allowed mtls-* and refused other topics (TOPIC_AUTHORIZATION_FAILED);
- an expired client certificate, one from an unknown CA, a plaintext client on the SSL port and
  TLS on the plaintext port each fail while an established client keeps producing; the broker
  logs the failed handshakes;
- ssl.client.auth=required refuses a client without a certificate; the keystore and truststore
  given as PEM text (ssl.keystore.key, ssl.keystore.certificate.chain,
  ssl.truststore.certificates) work as the files do;
- SIGHUP re-reads a replaced keystore: new connections see the new certificate, an open
  connection keeps working.
"""

import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, Producer  # noqa: E402
from kafka import KafkaConsumer, KafkaProducer  # noqa: E402
from kafka.admin import (ACL, ACLOperation, ACLPermissionType,  # noqa: E402
                         ACLResourcePatternType, KafkaAdminClient, ResourcePattern, ResourceType)
from kafka.errors import KafkaError as PyKafkaError  # noqa: E402

N = 40
TIMEOUT_S = 20
KEY_PASSWORD = "keystore-secret"
USER, PASSWORD = "alice", "alice-secret"
LISTEN_RE = {p: re.compile(r"skiff listening on 127\.0\.0\.1:(\d+) \(%s\)" % p)
             for p in ("SSL", "SASL_SSL")}


def openssl(*args):
    r = subprocess.run(["openssl"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    assert r.returncode == 0, r.stderr.decode()


class Certificates:
    """A CA, the broker's certificate and key, and client certificates, in a temp directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="skiff-tls-")
        self.ca = self.make_ca("ca", "skiff test CA")
        self.other_ca = self.make_ca("other-ca", "unknown CA")
        self.server = self.make_cert("server", "/CN=localhost", self.ca,
                                     "subjectAltName=IP:127.0.0.1,DNS:localhost")
        # The keystore: the key encrypted (PKCS#8), then the certificate chain.
        openssl("pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", self.server + ".key",
                "-out", self.server + ".enc.key", "-passout", "pass:" + KEY_PASSWORD)
        self.keystore = self.path("keystore.pem")
        self.write_keystore(self.server, self.keystore)
        # The usual order (organisation, then common name): the principal reads it back to
        # front, as RFC 2253 and Kafka write distinguished names: CN=alice,O=skiff-test.
        self.alice = self.make_cert("alice", "/O=skiff-test/CN=alice", self.ca)
        self.expired = self.make_cert("expired", "/CN=expired", self.ca, days="-1")
        self.stranger = self.make_cert("stranger", "/CN=stranger", self.other_ca)

    def path(self, name):
        return os.path.join(self.dir, name)

    def make_ca(self, name, cn):
        base = self.path(name)
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key",
                "-out", base + ".pem", "-days", "30", "-subj", "/CN=" + cn)
        return base

    def make_cert(self, name, subject, ca, extension=None, days="30"):
        base = self.path(name)
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key", "-out",
                base + ".csr", "-subj", subject)
        args = ["x509", "-req", "-in", base + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
                "-CAcreateserial", "-out", base + ".pem", "-days", days]
        if extension:
            ext = base + ".ext"
            with open(ext, "w") as f:
                f.write(extension + "\n")
            args += ["-extfile", ext]
        openssl(*args)
        return base

    def write_keystore(self, cert, target):
        with open(target + ".tmp", "w") as out:
            for part in (cert + ".enc.key", cert + ".pem"):
                with open(part) as f:
                    out.write(f.read())
        os.replace(target + ".tmp", target)

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def port_of(broker, protocol):
    m = LISTEN_RE[protocol].search(broker.log_text())
    assert m, broker.log_text()
    return int(m.group(1))


class TlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.certs = Certificates()
        cls.broker = skiff_harness.Broker({
            "listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
            "ssl.keystore.location": cls.certs.keystore,
            "ssl.key.password": KEY_PASSWORD,
            "ssl.truststore.location": cls.certs.ca + ".pem",
            "ssl.client.auth": "requested",
            "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users": "User:ANONYMOUS;User:" + USER,
        }, name="tls broker").owned_by(cls)
        os.makedirs(cls.broker.data_dir, exist_ok=True)
        skiff_harness.add_scram_user(cls.broker.data_dir, USER, PASSWORD)
        cls.broker.start()
        cls.ssl_bootstrap = "127.0.0.1:%d" % port_of(cls.broker, "SSL")
        cls.sasl_ssl_bootstrap = "127.0.0.1:%d" % port_of(cls.broker, "SASL_SSL")
        admin = KafkaAdminClient(bootstrap_servers=cls.broker.bootstrap)
        principal = "User:CN=alice,O=skiff-test"
        result = admin.create_acls([
            ACL(principal, "*", ACLOperation.ALL, ACLPermissionType.ALLOW,
                ResourcePattern(ResourceType.TOPIC, "mtls-", ACLResourcePatternType.PREFIXED)),
            ACL(principal, "*", ACLOperation.READ, ACLPermissionType.ALLOW,
                ResourcePattern(ResourceType.GROUP, "g-", ACLResourcePatternType.PREFIXED))])
        admin.close()
        assert not result["failed"], result

    @classmethod
    def tearDownClass(cls):
        cls.certs.cleanup()

    # ---- client settings ---------------------------------------------------------------------
    def rdkafka_ssl(self, cert=None, bootstrap=None):
        conf = {"bootstrap.servers": bootstrap or self.ssl_bootstrap,
                "security.protocol": "SSL", "ssl.ca.location": self.certs.ca + ".pem"}
        if cert:
            conf.update({"ssl.certificate.location": cert + ".pem",
                         "ssl.key.location": cert + ".key"})
        return conf

    def rdkafka_sasl_ssl(self, mechanism):
        return {"bootstrap.servers": self.sasl_ssl_bootstrap, "security.protocol": "SASL_SSL",
                "ssl.ca.location": self.certs.ca + ".pem", "sasl.mechanisms": mechanism,
                "sasl.username": USER, "sasl.password": PASSWORD}

    def python_ssl(self, sasl_mechanism=None):
        conf = {"ssl_cafile": self.certs.ca + ".pem", "ssl_check_hostname": True,
                "request_timeout_ms": TIMEOUT_S * 1000}
        if sasl_mechanism:
            conf.update({"bootstrap_servers": self.sasl_ssl_bootstrap,
                         "security_protocol": "SASL_SSL", "sasl_mechanism": sasl_mechanism,
                         "sasl_plain_username": USER, "sasl_plain_password": PASSWORD})
        else:
            conf.update({"bootstrap_servers": self.ssl_bootstrap, "security_protocol": "SSL"})
        return conf

    def messages(self, tag, size=None):
        if size:
            return [(("%s-%d-" % (tag, i)) * (size // 8 + 1))[:size].encode() for i in range(N)]
        return [("%s-%d-%s" % (tag, i, uuid.uuid4().hex[:6])).encode() for i in range(N)]

    # ---- round trips -------------------------------------------------------------------------
    def confluent_round_trip(self, conf, topic, sent):
        p = Producer(conf)
        errors = []
        for m in sent:
            p.produce(topic, m, on_delivery=lambda e, _m: e and errors.append(e))
        self.assertEqual(p.flush(TIMEOUT_S), 0)
        self.assertEqual(errors, [])
        c = Consumer(dict(conf, **{"group.id": "g-" + uuid.uuid4().hex,
                                   "auto.offset.reset": "earliest",
                                   "fetch.max.bytes": 8 * 1024 * 1024}))
        c.subscribe([topic])
        got = []
        deadline = time.monotonic() + TIMEOUT_S
        while len(got) < len(sent) and time.monotonic() < deadline:
            msg = c.poll(0.5)
            if msg is None:
                continue
            self.assertIsNone(msg.error(), msg.error())
            got.append(msg.value())
        c.close()
        self.assertEqual(got, sent)

    def python_round_trip(self, conf, topic, sent):
        p = KafkaProducer(**conf)
        for m in sent:
            p.send(topic, m)
        p.flush(TIMEOUT_S)
        p.close()
        c = KafkaConsumer(topic, auto_offset_reset="earliest",
                          consumer_timeout_ms=TIMEOUT_S * 1000, **conf)
        got = []
        for record in c:
            got.append(record.value)
            if len(got) == len(sent):
                break
        c.close()
        self.assertEqual(got, sent)

    def kcat(self, args, stdin=None):
        r = subprocess.run(["kcat"] + args, input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return r.stdout

    def kcat_round_trip(self, conf, topic, sent):
        x = []
        for k, v in conf.items():
            x += ["-X", "%s=%s" % (k, v)]
        self.kcat(x + ["-P", "-t", topic], stdin=b"\n".join(sent) + b"\n")
        out = self.kcat(x + ["-C", "-t", topic, "-o", "beginning", "-e", "-c", str(len(sent))])
        self.assertEqual(out.split(b"\n")[:len(sent)], sent)

    def test_each_client_over_ssl(self):
        self.kcat_round_trip(self.rdkafka_ssl(), "ssl-kcat", self.messages("kcat"))
        self.confluent_round_trip(self.rdkafka_ssl(), "ssl-confluent", self.messages("ck"))
        self.python_round_trip(self.python_ssl(), "ssl-python", self.messages("py"))

    def test_each_client_over_sasl_ssl(self):
        self.kcat_round_trip(self.rdkafka_sasl_ssl("SCRAM-SHA-256"), "sasl-ssl-kcat",
                             self.messages("kcat"))
        self.confluent_round_trip(self.rdkafka_sasl_ssl("SCRAM-SHA-512"), "sasl-ssl-confluent",
                                  self.messages("ck"))
        self.python_round_trip(self.python_ssl("PLAIN"), "sasl-ssl-python", self.messages("py"))

    def test_large_records_through_the_tls_copy_path(self):
        # 40 records of 100 KiB: a fetch spans several 256 KiB staging buffers.
        sent = self.messages("big", size=100 * 1024)
        self.confluent_round_trip(dict(self.rdkafka_ssl(), **{"message.max.bytes": 1000000}),
                                  "ssl-large", sent)

    def test_mutual_tls_principal_is_the_certificate_subject(self):
        conf = self.rdkafka_ssl(cert=self.certs.alice)
        self.confluent_round_trip(conf, "mtls-orders", self.messages("mtls"))
        self.kcat_round_trip(conf, "mtls-kcat", self.messages("kcat"))
        self.python_round_trip(dict(self.python_ssl(), ssl_certfile=self.certs.alice + ".pem",
                                    ssl_keyfile=self.certs.alice + ".key"),
                               "mtls-python", self.messages("py"))
        error = skiff_harness.delivery_error(conf, "elsewhere")
        self.assertIsNotNone(error)
        self.assertEqual(error.code(), KafkaError.TOPIC_AUTHORIZATION_FAILED)

    # ---- failures ------------------------------------------------------------------------------
    def rdkafka_fails(self, conf):
        errors = []
        p = Producer(dict(conf, error_cb=lambda e: errors.append(e),
                          **{"message.timeout.ms": 3000}))
        p.produce("never", b"x")
        p.flush(6)
        self.assertTrue(any(e.code() in (KafkaError._SSL, KafkaError._TRANSPORT,
                                         KafkaError._ALL_BROKERS_DOWN) for e in errors),
                        "no TLS error among %r" % errors)

    def test_bad_certificates_and_wrong_protocols_fail_while_others_keep_working(self):
        good = Producer(self.rdkafka_ssl())
        good.produce("still-working", b"ok")
        self.assertEqual(good.flush(TIMEOUT_S), 0)

        self.rdkafka_fails(self.rdkafka_ssl(cert=self.certs.expired))
        self.rdkafka_fails(self.rdkafka_ssl(cert=self.certs.stranger))
        # A plaintext client on the SSL port. (kafka-python 2.0.2 trips over the socket the
        # broker closed in its version probe: ValueError from selectors, instead of its
        # NoBrokersAvailable. Either way the client fails.)
        with self.assertRaises((PyKafkaError, ValueError)):
            KafkaProducer(bootstrap_servers=self.ssl_bootstrap, api_version_auto_timeout_ms=3000)
        # TLS on the plaintext port: the ClientHello is no Kafka frame; the broker closes.
        raw = socket.create_connection(("127.0.0.1", self.broker.port), timeout=5)
        ctx = ssl.create_default_context(cafile=self.certs.ca + ".pem")
        with self.assertRaises((ssl.SSLError, ConnectionError, OSError)):
            ctx.wrap_socket(raw, server_hostname="localhost")
        raw.close()

        good.produce("still-working", b"ok")
        self.assertEqual(good.flush(TIMEOUT_S), 0)
        log = self.broker.log_text()
        self.assertIn("TLS handshake failed", log)
        self.assertRegex(log, r"certificate (has expired|verify failed)")

    def test_required_client_auth_and_pem_text_settings(self):
        with open(self.certs.server + ".enc.key") as f:
            key = f.read()
        with open(self.certs.server + ".pem") as f:
            chain = f.read()
        with open(self.certs.ca + ".pem") as f:
            trusted = f.read()
        with skiff_harness.Broker({
                "listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                "ssl.keystore.key": key, "ssl.keystore.certificate.chain": chain,
                "ssl.key.password": KEY_PASSWORD, "ssl.truststore.certificates": trusted,
                "ssl.client.auth": "required"}, name="mtls-required broker") as b:
            bootstrap = "127.0.0.1:%d" % port_of(b, "SSL")
            self.rdkafka_fails(self.rdkafka_ssl(bootstrap=bootstrap))
            self.confluent_round_trip(self.rdkafka_ssl(cert=self.certs.alice, bootstrap=bootstrap),
                                      "required", self.messages("req"))
            self.assertNotIn(KEY_PASSWORD, b.log_text())
            self.assertNotIn("PRIVATE KEY", b.log_text())

    def served_certificate_cn(self, port):
        ctx = ssl.create_default_context(cafile=self.certs.ca + ".pem")
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as s:
                subject = dict(x[0] for x in s.getpeercert()["subject"])
                return subject["commonName"], s.getpeercert()["serialNumber"]

    def test_sighup_reloads_the_keystore_without_dropping_connections(self):
        port = port_of(self.broker, "SSL")
        before = self.served_certificate_cn(port)
        open_producer = Producer(self.rdkafka_ssl())
        open_producer.produce("reload", b"before")
        self.assertEqual(open_producer.flush(TIMEOUT_S), 0)

        renewed = self.certs.make_cert("server2", "/CN=localhost", self.certs.ca,
                                       "subjectAltName=IP:127.0.0.1,DNS:localhost")
        openssl("pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", renewed + ".key",
                "-out", renewed + ".enc.key", "-passout", "pass:" + KEY_PASSWORD)
        self.certs.write_keystore(renewed, self.certs.keystore)
        self.broker.proc.send_signal(signal.SIGHUP)
        skiff_harness.wait_until(lambda: "TLS keystore and truststore reloaded" in
                                 self.broker.log_text(), 10, what="the reload")
        after = self.served_certificate_cn(port)
        self.assertNotEqual(before[1], after[1])  # a new serial number: the new certificate
        open_producer.produce("reload", b"after")
        self.assertEqual(open_producer.flush(TIMEOUT_S), 0)


if __name__ == "__main__":
    skiff_harness.run_tests()
