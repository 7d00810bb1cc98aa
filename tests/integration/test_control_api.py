"""The test-control API (issue 35) driven the way a client library's test suite would use it,
with real third-party clients against the real skiff binary.

    /usr/bin/python3 test_control_api.py /path/to/skiff

The API is served on the metrics listener under /control when control.api.enable=true. Each
case injects faults through it and checks what a user of the client would check:

1. An idempotent acks=all confluent-kafka producer under Produce errors
   (NOT_LEADER_OR_FOLLOWER x3, REQUEST_TIMED_OUT x2), a dropped request (the client's
   request.timeout.ms lowered) and a closed connection: every acknowledged message is consumed
   back exactly once, in order; each rule fired exactly as often as it was told to; the captured
   Produce requests show the failed attempts (marked with the rule) and the retries after them.
   librdkafka's idempotent producer times an in-flight Produce out with its messages
   (message.timeout.ms), not after request.timeout.ms: the dropped request's messages fail with
   a timeout, the next batch goes through, and none of the dropped ones is in the log. A rule on
   one partition answers only that partition: the other one's records are written once.
2. A transactional confluent-kafka producer whose AddPartitionsToTxn is answered
   CONCURRENT_TRANSACTIONS twice and whose EndTxn is answered COORDINATOR_LOAD_IN_PROGRESS
   once, plus one aborted transaction: a read_committed consumer sees exactly the committed
   messages, read_uncommitted sees all of them.
3. A confluent-kafka consumer group under COORDINATOR_NOT_AVAILABLE on FindCoordinator,
   NOT_COORDINATOR on OffsetCommit and on Heartbeat and REBALANCE_IN_PROGRESS on Heartbeat: it
   consumes everything, and its committed offsets, read by a separate consumer's committed(),
   never go back and end at the log end. The same with KafkaJS 2.2.4 (the package of
   node_schema_registry/, installed by npm_clients) when Node.js is there.
4. Version emulation (emulate.kafka.version=2.8, 3.9, 4.0): ApiVersions parsed by hand over a
   socket holds the release's range (intersected with skiff's own) for a set of keys; a request
   above (or, for 4.0, below) the release's range closes the connection; kafka-python and
   confluent-kafka (and Sarama 1.22 from Debian's golang-github-shopify-sarama-dev when it is
   installed) produce and consume; every request they sent (the capture) is within the
   advertised range. Switching the release at run time with PUT /control/emulation and back.
5. A 3 s outage in refuse mode in the middle of an idempotent acks=all produce and an assign()
   consume: both reconnect, every acknowledged message is consumed once, in order. A blackhole
   outage: a metadata request times out client-side, then the producer recovers with nothing
   lost or duplicated.
6. A slow disk (write_latency_ms 300) with a short message.timeout.ms: some deliveries fail
   with a timeout; after DELETE /control/disk every later message delivers; nothing acknowledged
   is missing or duplicated.
7. Bad input to the API (malformed JSON, unknown API, unknown error name, unknown field,
   partition without topic: 400 with a JSON error, no rule added), a rule that matches nothing
   (fired 0 after traffic), a bearer token (missing or wrong: 401, nothing changed), the API off
   (404 with a JSON error saying so; emulate.kafka.version still applies): after all of it the
   Kafka side still serves a produce and a consume.

"""

import json
import os
import queue
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CONTROL_ON = {"metrics.listener": "HTTP://127.0.0.1:0", "control.api.enable": "true",
              "num.partitions": 1, "group.initial.rebalance.delay.ms": 0}

# What each emulated release's broker advertises, for a few keys, from Apache Kafka's sources
# (clients/src/main/resources/common/message/*Request.json of the release's tag; 4.0 after
# KIP-896's removals, with Produce 0-12 as 4.0.0 shipped it, KAFKA-18659).
KAFKA_RANGES = {
    "2.8": {0: (0, 9), 1: (0, 12), 2: (0, 6), 3: (0, 11), 8: (0, 8), 9: (0, 7), 10: (0, 3),
            11: (0, 7), 12: (0, 4), 18: (0, 3), 22: (0, 4)},
    "3.9": {0: (0, 11), 1: (0, 17), 2: (0, 9), 3: (0, 12), 8: (0, 9), 9: (0, 9), 10: (0, 6),
            11: (0, 9), 12: (0, 4), 18: (0, 4), 22: (0, 5)},
    "4.0": {0: (0, 12), 1: (4, 17), 2: (1, 10), 3: (0, 13), 8: (2, 9), 9: (1, 9), 10: (0, 6),
            11: (2, 9), 12: (0, 4), 18: (0, 4), 22: (0, 5)},
}
NOT_IN_2_8 = (68, 75)  # ConsumerGroupHeartbeat (3.7), DescribeTopicPartitions (3.8)

GOPATH = "/usr/share/gocode"
SARAMA = os.path.join(GOPATH, "src/github.com/Shopify/sarama")
SARAMA_SOURCE = os.path.join(HERE, "go_control", "main.go")
NODE_SRC = os.path.join(HERE, "node_schema_registry")
KAFKAJS_SCRIPT = os.path.join(HERE, "node_control", "kafkajs_group.cjs")


# ---- the control API over HTTP ----------------------------------------------------------------
class Control:
    def __init__(self, broker, token=None):
        self.base = "http://127.0.0.1:%d" % broker.metrics_port()
        self.token = token

    def call(self, method, path, body=None, raw=None, token=None, auth=True):
        """(status, parsed JSON body) of one request; body is sent as JSON, raw as given."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        tok = token if token is not None else self.token
        if auth and tok:
            req.add_header("Authorization", "Bearer " + tok)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                status, text = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read()
        try:
            return status, json.loads(text) if text else None
        except ValueError:
            return status, text

    def ok(self, method, path, body=None, expect=200):
        status, j = self.call(method, path, body)
        if status != expect:
            raise AssertionError("%s %s %s: expected %d, got %d %s"
                                 % (method, path, json.dumps(body), expect, status, j))
        return j

    def add_rule(self, **rule):
        return self.ok("POST", "/control/faults", rule, expect=201)

    def rule(self, rule_id):
        return self.ok("GET", "/control/faults/%d" % rule_id)

    def requests(self, **query):
        q = "&".join("%s=%s" % kv for kv in query.items())
        return self.ok("GET", "/control/requests" + ("?" + q if q else ""))["requests"]

    def last_sequence(self):
        r = self.requests(limit=1)
        return r[-1]["sequence"] if r else 0

    def reset(self):
        self.ok("DELETE", "/control/faults")
        self.ok("DELETE", "/control/outage")
        self.ok("DELETE", "/control/disk")


# ---- raw Kafka requests for ApiVersions and the emulation's version checks --------------------
def api_versions(port):
    """{api_key: (min, max)} from an ApiVersions v0 request, parsed by hand."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        cid = b"ctl-raw"
        body = struct.pack(">hhih", 18, 0, 4242, len(cid)) + cid
        s.sendall(struct.pack(">i", len(body)) + body)
        (size,) = struct.unpack(">i", skiff_harness.recv_exactly(s, 4))
        data = skiff_harness.recv_exactly(s, size)
    correlation, error, n = struct.unpack_from(">ihi", data, 0)
    assert correlation == 4242 and error == 0, (correlation, error)
    out = {}
    for i in range(n):
        key, lo, hi = struct.unpack_from(">hhh", data, 10 + 6 * i)
        out[key] = (lo, hi)
    return out


def metadata_request(version):
    """A framed Metadata request for every topic at `version` (9 and up: flexible)."""
    cid = b"ctl-raw"
    header = struct.pack(">hhih", 3, version, 7, len(cid)) + cid
    if version >= 9:
        header += b"\x00"  # no tagged fields
        # topics: null (compact), allow_auto_topic_creation, [include_cluster_authorized_
        # operations up to v10], include_topic_authorized_operations, no tagged fields
        body = b"\x00\x01" + (b"\x00" if version <= 10 else b"") + b"\x00\x00"
    else:
        body = struct.pack(">i", -1) + (b"\x01" if version >= 4 else b"") + \
            (b"\x00\x00" if version >= 8 else b"")
    return struct.pack(">i", len(header + body)) + header + body


def list_offsets_v0_request():
    cid = b"ctl-raw"
    msg = struct.pack(">hhih", 2, 0, 7, len(cid)) + cid + struct.pack(">ii", -1, 0)
    return struct.pack(">i", len(msg)) + msg


def answered(port, frame):
    """True when the broker answers `frame` (correlation id 7), False when it closes the
    connection instead."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(frame)
        try:
            head = s.recv(8)
        except ConnectionResetError:
            return False
        if len(head) == 0:
            return False
        while len(head) < 8:
            more = s.recv(8 - len(head))
            if not more:
                return False
            head += more
        return struct.unpack(">ii", head)[1] == 7


# ---- client helpers ---------------------------------------------------------------------------
def base_conf(broker, client_id):
    return {"bootstrap.servers": broker.bootstrap, "client.id": client_id,
            "broker.address.family": "v4", "reconnect.backoff.ms": 50,
            "reconnect.backoff.max.ms": 500}


def create_topic(broker, topic, partitions=1):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap, "broker.address.family": "v4"})
    for f in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        f.result(20)


def produce(producer, topic, values, partition=0, flush_s=30):
    """Produces values in order; [(value, error or None, offset)] in send order."""
    reports = {}

    def cb(err, msg):
        reports[msg.value()] = (err, msg.offset())

    for v in values:
        while True:
            try:
                producer.produce(topic, v, partition=partition, on_delivery=cb)
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
    producer.flush(flush_s)
    return [(v,) + reports.get(v, ("no delivery report", None)) for v in values]


def read_partition(broker, topic, partition=0, expect=None, isolation="read_uncommitted",
                   timeout_s=20.0, idle_s=1.0):
    """Every record of topic/partition from offset 0: [(offset, value)]. Reads until `expect`
    records (or the log end when None), then idle_s longer to catch extra ones."""
    c = Consumer(dict(base_conf(broker, "ctl-reader"), **{
        "group.id": "ctl-reader", "enable.auto.commit": False, "isolation.level": isolation,
        "enable.partition.eof": True, "fetch.wait.max.ms": 100}))
    try:
        c.assign([TopicPartition(topic, partition, 0)])
        got = []
        eof = False
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    eof = True
                    if expect is None or len(got) >= expect:
                        break
                    continue
                raise AssertionError("consume error: %s" % m.error())
            got.append((m.offset(), m.value()))
            if expect is not None and len(got) >= expect and eof:
                break
        end = time.monotonic() + idle_s
        while time.monotonic() < end:
            m = c.poll(0.1)
            if m is not None and not m.error():
                got.append((m.offset(), m.value()))
        return got
    finally:
        c.close()


class ControlApiCase(unittest.TestCase):
    """One broker with the control API on, shared by the cases; each starts and ends with no
    rule, no outage and no disk delay."""
    broker = None

    @classmethod
    def setUpClass(cls):
        cls.broker = skiff_harness.Broker(CONTROL_ON, name="control broker").owned_by(cls)
        cls.broker.start()
        cls.control = Control(cls.broker)

    def setUp(self):
        self.control.reset()
        self.addCleanup(self.control.reset)
        self.client_errors = []

    def error_cb(self, err):
        self.client_errors.append(str(err))

    def assert_exactly_once_in_order(self, consumed, acked, what):
        values = [v for _, v in consumed]
        dupes = sorted({v for v in values if values.count(v) > 1})
        self.assertEqual(dupes, [], "%s: records consumed more than once" % what)
        missing = [v for v in acked if v not in set(values)]
        self.assertEqual(missing, [], "%s: acknowledged records missing" % what)
        order = [v for v in values if v in set(acked)]
        self.assertEqual(order, acked, "%s: acknowledged records out of order" % what)
        offsets = [o for o, _ in consumed]
        self.assertEqual(offsets, sorted(offsets), "%s: offsets not increasing" % what)


class FaultInjectionTest(ControlApiCase):
    # ---- 1 --------------------------------------------------------------------------------
    def test_idempotent_producer_survives_produce_faults(self):
        topic = "ctl-idem"
        create_topic(self.broker, topic)
        cid = "idem-producer"
        p = Producer(dict(base_conf(self.broker, cid), **{
            "enable.idempotence": True, "acks": "all", "linger.ms": 5,
            "message.timeout.ms": 4000, "request.timeout.ms": 1500, "error_cb": self.error_cb}))
        phases = [("not-leader", {"action": "error", "error": "NOT_LEADER_OR_FOLLOWER", "count": 3}),
                  ("timed-out", {"action": "error", "error": "REQUEST_TIMED_OUT", "count": 2}),
                  ("drop", {"action": "drop", "count": 1}),
                  ("close", {"action": "close", "count": 1})]
        acked = []
        timed_out = []
        # A first batch without faults: the producer has its id and connection before the rules.
        for v, err, _ in produce(p, topic, [b"warm-%02d" % i for i in range(10)]):
            self.assertIsNone(err, v)
            acked.append(v)
        for name, rule in phases:
            with self.subTest(phase=name):
                after = self.control.last_sequence()
                r = self.control.add_rule(api="Produce", topic=topic, client_id=cid, **rule)
                self.assertEqual(r["remaining"], rule["count"])
                reports = produce(p, topic, [b"%s-%02d" % (name.encode(), i) for i in range(30)])
                failed = [(v, err) for v, err, _ in reports if err is not None]
                if name == "drop":
                    # librdkafka's idempotent producer times a Produce request out with its
                    # messages (message.timeout.ms), not after request.timeout.ms: the dropped
                    # request's messages fail with a timeout. A second batch must get through.
                    self.assertEqual([v for v, err in failed if err.code() not in
                                      (KafkaError._MSG_TIMED_OUT, KafkaError._TIMED_OUT)], [],
                                     "drop: failures other than timeouts: %s" % failed)
                    timed_out += [v for v, _ in failed]
                    acked += [v for v, err, _ in reports if err is None]
                    reports = produce(p, topic, [b"drop-after-%02d" % i for i in range(30)])
                    failed = [(v, err) for v, err, _ in reports if err is not None]
                self.assertEqual(failed, [], "%s: deliveries failed" % name)
                acked += [v for v, _, _ in reports]
                got = self.control.rule(r["id"])
                self.assertEqual((got["fired"], got["remaining"]), (rule["count"], 0),
                                 "%s: the rule fired as often as it was told: %s" % (name, got))
                produces = self.control.requests(api="Produce", client_id=cid, after=after)
                faulted = [q for q in produces if q.get("fault_rule") == r["id"]]
                self.assertEqual(len(faulted), rule["count"],
                                 "%s: captured Produce requests marked with the rule" % name)
                retried = [q for q in produces if q["sequence"] > faulted[-1]["sequence"]
                           and q.get("fault_rule") is None]
                self.assertTrue(retried, "%s: no Produce request after the last faulted one" % name)
                for q in produces:
                    self.assertEqual(q["acks"], -1)
                    self.assertEqual([t["name"] for t in q["topics"]], [topic])
        consumed = read_partition(self.broker, topic, expect=len(acked))
        self.assert_exactly_once_in_order(consumed, acked, "idempotent producer")
        self.assertEqual([v for _, v in consumed], acked, "a dropped request applied nothing")

    def test_produce_error_is_per_partition(self):
        """A rule on one partition answers only that partition with the error: the other
        partition's records in the same requests are written once, not twice."""
        topic, cid = "ctl-per-partition", "pp-producer"
        create_topic(self.broker, topic, 2)
        p = Producer(dict(base_conf(self.broker, cid), **{
            "enable.idempotence": True, "acks": "all", "linger.ms": 50,
            "message.timeout.ms": 20000, "error_cb": self.error_cb}))
        produce(p, topic, [b"warm"], partition=0)
        produce(p, topic, [b"warm"], partition=1)
        r = self.control.add_rule(api="Produce", topic=topic, partition=1, client_id=cid,
                                  action="error", error="NOT_LEADER_OR_FOLLOWER", count=2)
        values = {part: [b"pp-%d-%02d" % (part, i) for i in range(20)] for part in (0, 1)}
        reports = {}
        for i in range(20):
            for part in (0, 1):
                p.produce(topic, values[part][i], partition=part,
                          on_delivery=lambda err, msg: reports.__setitem__(msg.value(), err))
        self.assertEqual(p.flush(30), 0)
        self.assertEqual({v: str(e) for v, e in reports.items() if e is not None}, {})
        got = self.control.rule(r["id"])
        self.assertEqual((got["fired"], got["remaining"]), (2, 0), got)
        faulted = [q for q in self.control.requests(api="Produce", client_id=cid)
                   if q.get("fault_rule") == r["id"]]
        self.assertEqual(len(faulted), 2)
        for q in faulted:
            self.assertIn(1, q["topics"][0]["partitions"], q)
        for part in (0, 1):
            consumed = read_partition(self.broker, topic, part, expect=21)
            self.assert_exactly_once_in_order(consumed, [b"warm"] + values[part],
                                              "partition %d" % part)

    def test_fail_response_applies_the_request_then_fails_it(self):
        """fail_response is the lost answer: the batch is stored, the client hears an error.
        An idempotent producer's retry is then recognised (stored once); a plain producer's
        retry is a second copy, which is what shows the first was applied."""
        topic = "ctl-fail-response"
        create_topic(self.broker, topic, 2)
        idem = Producer(dict(base_conf(self.broker, "fr-idempotent"), **{
            "enable.idempotence": True, "acks": "all", "error_cb": self.error_cb}))
        produce(idem, topic, [b"warm"], partition=0)
        r = self.control.add_rule(api="Produce", client_id="fr-idempotent",
                                  action="fail_response", error="NOT_LEADER_OR_FOLLOWER", count=2)
        values = [b"fr-%02d" % i for i in range(10)]
        reports = produce(idem, topic, values, partition=0)
        self.assertEqual([e for _, e, _ in reports], [None] * 10)
        self.assertEqual(self.control.rule(r["id"])["fired"], 2)
        self.assert_exactly_once_in_order(read_partition(self.broker, topic, 0, expect=11),
                                          [b"warm"] + values, "idempotent producer")

        plain = Producer(dict(base_conf(self.broker, "fr-plain"), **{
            "enable.idempotence": False, "acks": "all", "retries": 5,
            "max.in.flight.requests.per.connection": 1}))
        produce(plain, topic, [b"warm"], partition=1)
        r = self.control.add_rule(api="Produce", client_id="fr-plain", topic=topic, partition=1,
                                  action="fail_response", error="NOT_LEADER_OR_FOLLOWER", count=1)
        reports = produce(plain, topic, [b"twice"], partition=1)
        self.assertEqual(reports[0][1], None)
        self.assertEqual(self.control.rule(r["id"])["fired"], 1)
        values = [v for _, v in read_partition(self.broker, topic, 1, expect=3)]
        self.assertEqual(values, [b"warm", b"twice", b"twice"],
                         "the failed answer's batch was not stored before the retry")

    def test_latency_and_probability(self):
        """A latency rule delays and then serves; a probability rule fires on some of its
        matches only, and its counts say how many."""
        topic = "ctl-latency"
        create_topic(self.broker, topic)
        p = Producer(dict(base_conf(self.broker, "lat-producer"), **{"acks": "all"}))
        produce(p, topic, [b"warm"])
        slow = self.control.add_rule(api="Produce", client_id="lat-producer", action="latency",
                                     latency_ms=300, count=1)
        self.assertEqual([e for _, e, _ in produce(p, topic, [b"slow"])], [None])
        self.assertEqual(self.control.rule(slow["id"])["fired"], 1)
        some = self.control.add_rule(api="Metadata", client_id="lat-meta", action="fail_response",
                                     error="LEADER_NOT_AVAILABLE", probability=0.5)
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap, "client.id": "lat-meta",
                             "broker.address.family": "v4"})
        for _ in range(20):
            admin.list_topics(topic, timeout=10)
        got = self.control.rule(some["id"])
        self.assertGreaterEqual(got["matched"], 20, got)
        self.assertLess(got["fired"], got["matched"], got)
        self.assertEqual([v for _, v in read_partition(self.broker, topic, expect=2)],
                         [b"warm", b"slow"])

    # ---- 2 --------------------------------------------------------------------------------
    def test_transactions_with_retriable_coordinator_errors(self):
        topic = "ctl-txn"
        create_topic(self.broker, topic)
        txn_id = "ctl-txn-1"
        apt = self.control.add_rule(api="AddPartitionsToTxn", transactional_id=txn_id,
                                    action="error", error="CONCURRENT_TRANSACTIONS", count=2)
        end = self.control.add_rule(api="EndTxn", transactional_id=txn_id, action="error",
                                    error="COORDINATOR_LOAD_IN_PROGRESS", count=1)
        p = Producer(dict(base_conf(self.broker, "txn-producer"), **{
            "transactional.id": txn_id, "acks": "all", "linger.ms": 5,
            "transaction.timeout.ms": 30000, "message.timeout.ms": 30000,
            "error_cb": self.error_cb}))
        p.init_transactions(30)

        def txn(values, commit):
            p.begin_transaction()
            for v in values:
                p.produce(topic, v, partition=0)
                p.poll(0)
            # Sent before the end: abort_transaction() purges what is still queued.
            self.assertEqual(p.flush(30), 0)
            for attempt in range(5):
                try:
                    (p.commit_transaction if commit else p.abort_transaction)(30)
                    return
                except KafkaException as e:
                    # The documented way: retry what says it is retriable.
                    if not e.args[0].retriable() or attempt == 4:
                        raise

        first = [b"c1-%02d" % i for i in range(20)]
        aborted = [b"ab-%02d" % i for i in range(10)]
        last = [b"c2-%02d" % i for i in range(20)]
        txn(first, commit=True)
        txn(aborted, commit=False)
        txn(last, commit=True)
        self.assertEqual(self.control.rule(apt["id"])["fired"], 2)
        self.assertEqual(self.control.rule(end["id"])["fired"], 1)
        # Control records take offsets: read to the end rather than to a count.
        committed = [v for _, v in read_partition(self.broker, topic, isolation="read_committed")]
        self.assertEqual(committed, first + last, "read_committed sees exactly the commits")
        everything = [v for _, v in read_partition(self.broker, topic)]
        self.assertEqual(everything, first + aborted + last, "read_uncommitted sees all")
        ends = self.control.requests(api="EndTxn", client_id="txn-producer")
        self.assertEqual([q.get("fault_rule") for q in ends].count(end["id"]), 1)
        self.assertGreaterEqual(len(ends), 4, "EndTxn retried after the injected error")
        self.assertTrue(all(q["transactional_ids"] == [txn_id] for q in ends), ends)

    # ---- 3 --------------------------------------------------------------------------------
    def test_consumer_group_survives_coordinator_faults(self):
        topic, group, cid = "ctl-group", "ctl-group-1", "cg-member"
        create_topic(self.broker, topic, 2)
        ends = {0: 0, 1: 0}
        p = Producer(dict(base_conf(self.broker, "cg-producer"), **{"acks": "all"}))

        def produce_half(tag):
            for part in (0, 1):
                for v, err, off in produce(p, topic, [b"%s-%d-%02d" % (tag, part, i)
                                                     for i in range(50)], partition=part):
                    self.assertIsNone(err)
                    ends[part] = off + 1

        produce_half(b"a")
        rules = [self.control.add_rule(api="FindCoordinator", client_id=cid, action="error",
                                       error="COORDINATOR_NOT_AVAILABLE", count=2),
                 self.control.add_rule(api="OffsetCommit", group=group, client_id=cid,
                                       action="error", error="NOT_COORDINATOR", count=1)]
        c = Consumer(dict(base_conf(self.broker, cid), **{
            "group.id": group, "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "session.timeout.ms": 6000, "heartbeat.interval.ms": 200,
            "fetch.wait.max.ms": 100, "error_cb": self.error_cb}))
        self.addCleanup(c.close)
        monitor = Consumer(dict(base_conf(self.broker, "cg-monitor"), **{"group.id": group,
                                                                        "enable.auto.commit": False}))
        self.addCleanup(monitor.close)
        c.subscribe([topic])
        seen = {}
        history = {0: [], 1: []}
        commit_errors = []

        def step(duration_s):
            deadline = time.monotonic() + duration_s
            while time.monotonic() < deadline:
                msgs = c.consume(num_messages=20, timeout=0.2)
                for m in msgs:
                    if m.error():
                        continue
                    seen[m.value()] = seen.get(m.value(), 0) + 1
                if msgs:
                    try:
                        c.commit(asynchronous=False)
                    except KafkaException as e:
                        commit_errors.append(str(e))  # retried by the next commit
                for tp in monitor.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)],
                                            timeout=5):
                    if tp.offset >= 0:
                        history[tp.partition].append(tp.offset)

        def wait_for(pred, what, timeout_s=20):
            deadline = time.monotonic() + timeout_s
            while not pred():
                self.assertLess(time.monotonic(), deadline, "timed out waiting for " + what)
                step(0.3)

        def committed_end():
            return all(history[q] and history[q][-1] == ends[q] for q in (0, 1))

        wait_for(lambda: len(seen) == 100 and committed_end(), "the first 100 committed")
        hb = self.control.add_rule(api="Heartbeat", group=group, client_id=cid, action="error",
                                   error="NOT_COORDINATOR", count=1)
        wait_for(lambda: self.control.rule(hb["id"])["fired"] == 1, "the NOT_COORDINATOR heartbeat")
        rb = self.control.add_rule(api="Heartbeat", group=group, client_id=cid, action="error",
                                   error="REBALANCE_IN_PROGRESS", count=1)
        joins_before = len(self.control.requests(api="JoinGroup", client_id=cid))
        wait_for(lambda: self.control.rule(rb["id"])["fired"] == 1, "the REBALANCE_IN_PROGRESS heartbeat")
        produce_half(b"b")
        wait_for(lambda: len(seen) == 200 and committed_end(), "all 200 committed")
        joins_after = len(self.control.requests(api="JoinGroup", client_id=cid))

        for r in rules + [hb, rb]:
            got = self.control.rule(r["id"])
            self.assertEqual((got["fired"], got["remaining"]), (r["remaining"], 0),
                             "rule %s fired as told" % got)
        self.assertEqual(len(seen), 200, "every record consumed")
        for part in (0, 1):
            h = history[part]
            self.assertEqual(h, sorted(h), "committed offset of partition %d went back: %s" % (part, h))
            self.assertEqual(h[-1], ends[part])
        self.assertGreater(joins_after, joins_before, "REBALANCE_IN_PROGRESS made the member rejoin")

    def test_kafkajs_consumer_group_survives_coordinator_faults(self):
        node = shutil.which("node")
        if node is None:
            self.skipTest("node is not installed")
        import npm_clients
        dest = npm_clients.install(NODE_SRC, "node-schema-registry", ())
        topic, group, cid = "ctl-kjs", "ctl-kjs-group", "kjs-member"
        create_topic(self.broker, topic, 2)
        p = Producer(dict(base_conf(self.broker, "kjs-producer"), **{"acks": "all"}))
        ends = {0: 0, 1: 0}

        def produce_half(tag):
            for part in (0, 1):
                for v, err, off in produce(p, topic, [b"%s-%d-%02d" % (tag, part, i)
                                                     for i in range(30)], partition=part):
                    self.assertIsNone(err)
                    ends[part] = off + 1

        produce_half(b"a")
        rules = [self.control.add_rule(api="FindCoordinator", client_id=cid, action="error",
                                       error="COORDINATOR_NOT_AVAILABLE", count=2),
                 self.control.add_rule(api="OffsetCommit", group=group, client_id=cid,
                                       action="error", error="NOT_COORDINATOR", count=1)]
        env = dict(os.environ, NODE_PATH=os.path.join(dest, "node_modules"))
        proc = skiff_harness.spawn(["node", KAFKAJS_SCRIPT, self.broker.bootstrap, topic, group,
                                    cid, "120"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, env=env)
        self.addCleanup(proc.stderr.close)
        self.addCleanup(proc.stdout.close)
        self.addCleanup(skiff_harness.stop_process, proc, 5)
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
        stderr = []
        threading.Thread(target=lambda: [stderr.append(x) for x in proc.stderr], daemon=True).start()
        monitor = Consumer(dict(base_conf(self.broker, "kjs-monitor"), **{"group.id": group,
                                                                         "enable.auto.commit": False}))
        self.addCleanup(monitor.close)
        history = {0: [], 1: []}
        progress = {"seen": 0, "done": None}

        def step(duration_s):
            deadline = time.monotonic() + duration_s
            while time.monotonic() < deadline:
                try:
                    line = lines.get(timeout=0.1)
                    if line.startswith("seen "):
                        progress["seen"] = int(line.split()[1])
                    elif line.startswith("done "):
                        progress["done"] = json.loads(line[5:])
                except queue.Empty:
                    pass
                for tp in monitor.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)],
                                            timeout=5):
                    if tp.offset >= 0:
                        history[tp.partition].append(tp.offset)
                if proc.poll() is not None and progress["done"] is None and lines.empty():
                    self.fail("the KafkaJS script exited %s: %s" % (proc.returncode, "".join(stderr)[-3000:]))

        def wait_for(pred, what, timeout_s=30):
            deadline = time.monotonic() + timeout_s
            while not pred():
                self.assertLess(time.monotonic(), deadline, "timed out waiting for %s; stderr: %s"
                                % (what, "".join(stderr)[-3000:]))
                step(0.3)

        def committed_end():
            return all(history[q] and history[q][-1] == ends[q] for q in (0, 1))

        wait_for(lambda: progress["seen"] >= 60 and committed_end(), "KafkaJS to commit the first 60")
        hb = self.control.add_rule(api="Heartbeat", group=group, client_id=cid, action="error",
                                   error="NOT_COORDINATOR", count=1)
        wait_for(lambda: self.control.rule(hb["id"])["fired"] == 1, "the NOT_COORDINATOR heartbeat")
        rb = self.control.add_rule(api="Heartbeat", group=group, client_id=cid, action="error",
                                   error="REBALANCE_IN_PROGRESS", count=1)
        wait_for(lambda: self.control.rule(rb["id"])["fired"] == 1, "the REBALANCE_IN_PROGRESS heartbeat")
        produce_half(b"b")
        wait_for(lambda: progress["done"] is not None and committed_end(), "KafkaJS to commit all 120")
        self.assertEqual(skiff_harness.reap(proc, 15), 0, "".join(stderr)[-3000:])
        done = progress["done"]
        self.assertEqual(done["distinct"], 120, done)
        for r in rules + [hb, rb]:
            got = self.control.rule(r["id"])
            self.assertEqual((got["fired"], got["remaining"]), (r["remaining"], 0),
                             "rule %s fired as told" % got)
        for part in (0, 1):
            h = history[part]
            self.assertEqual(h, sorted(h), "committed offset of partition %d went back: %s" % (part, h))
            self.assertEqual(h[-1], ends[part])


class OutageAndDiskTest(ControlApiCase):
    # ---- 5 --------------------------------------------------------------------------------
    def test_refuse_outage_mid_stream(self):
        topic = "ctl-outage"
        create_topic(self.broker, topic)
        p = Producer(dict(base_conf(self.broker, "outage-producer"), **{
            "enable.idempotence": True, "acks": "all", "linger.ms": 5,
            "message.timeout.ms": 30000, "error_cb": self.error_cb}))
        c = Consumer(dict(base_conf(self.broker, "outage-consumer"), **{
            "group.id": "ctl-outage-reader", "enable.auto.commit": False,
            "fetch.wait.max.ms": 100, "error_cb": self.error_cb}))
        self.addCleanup(c.close)
        c.assign([TopicPartition(topic, 0, 0)])
        reports = {}
        consumed = []

        def cb(err, msg):
            reports[msg.value()] = err

        def poll_consumer(t):
            m = c.poll(t)
            if m is not None and not m.error():
                consumed.append((m.offset(), m.value()))

        values = [b"o-%03d" % i for i in range(150)]
        for i, v in enumerate(values):
            if i == 50:
                r = self.control.ok("POST", "/control/outage", {"seconds": 5, "mode": "refuse"})
                self.assertGreaterEqual(r["connections_closed"], 2, r)
                self.assertEqual(r["mode"], "refuse")
                self.assertEqual(self.control.ok("GET", "/control/outage")["outage"]["mode"], "refuse")
                self.assertFalse(skiff_harness.api_versions_answered(self.broker.port),
                                 "a new connection is answered during a refuse outage")
            p.produce(topic, v, partition=0, on_delivery=cb)
            p.poll(0)
            poll_consumer(0.02)
        self.assertEqual(p.flush(30), 0)
        acked = [v for v in values if reports.get(v, "none") is None]
        self.assertEqual(acked, values, "every message delivered after the outage: %s"
                         % {v: str(e) for v, e in reports.items() if e is not None})
        deadline = time.monotonic() + 20
        while len(consumed) < len(acked) and time.monotonic() < deadline:
            poll_consumer(0.2)
        end = time.monotonic() + 1
        while time.monotonic() < end:
            poll_consumer(0.1)
        self.assertIsNone(self.control.ok("GET", "/control/outage")["outage"])
        self.assert_exactly_once_in_order(consumed, acked, "refuse outage")

    def test_blackhole_outage_times_out_then_recovers(self):
        topic = "ctl-blackhole"
        create_topic(self.broker, topic)
        p = Producer(dict(base_conf(self.broker, "bh-producer"), **{
            "enable.idempotence": True, "acks": "all", "linger.ms": 5,
            "request.timeout.ms": 1000, "socket.timeout.ms": 1000,
            "message.timeout.ms": 30000, "error_cb": self.error_cb}))
        before = [b"bh-a-%02d" % i for i in range(10)]
        for v, err, _ in produce(p, topic, before):
            self.assertIsNone(err)
        self.control.ok("POST", "/control/outage", {"seconds": 3, "mode": "blackhole"})
        started = time.monotonic()
        probe = Consumer(dict(base_conf(self.broker, "bh-probe"), **{"group.id": "bh-probe",
                                                                    "socket.timeout.ms": 1000}))
        with self.assertRaises(KafkaException, msg="metadata answered during a blackhole"):
            probe.list_topics(timeout=1.0)
        probe.close()
        during = [b"bh-b-%02d" % i for i in range(20)]
        for v in during:
            p.produce(topic, v, partition=0)
            p.poll(0)
        # Nothing is acknowledged while the broker swallows every request.
        time.sleep(max(0.0, 2.0 - (time.monotonic() - started)))
        self.assertGreater(len(p), 0, "messages acknowledged during a blackhole outage")
        reports = produce(p, topic, [b"bh-c-%02d" % i for i in range(10)])
        self.assertEqual([(v, err) for v, err, _ in reports if err is not None], [])
        self.assertEqual(len(p), 0)
        acked = before + during + [v for v, _, _ in reports]
        consumed = read_partition(self.broker, topic, expect=len(acked))
        self.assert_exactly_once_in_order(consumed, acked, "blackhole outage")

    # ---- 6 --------------------------------------------------------------------------------
    def test_slow_disk_times_out_deliveries_until_cleared(self):
        topic = "ctl-slow-disk"
        create_topic(self.broker, topic)
        self.assertEqual(self.control.ok("PUT", "/control/disk", {"write_latency_ms": 300}),
                         {"write_latency_ms": 300.0, "sync_latency_ms": 0.0})
        p = Producer(dict(base_conf(self.broker, "disk-producer"), **{
            "acks": "all", "linger.ms": 0, "batch.num.messages": 1, "retries": 0,
            "max.in.flight.requests.per.connection": 1, "message.timeout.ms": 1000,
            "error_cb": self.error_cb}))
        slow = produce(p, topic, [b"slow-%02d" % i for i in range(20)])
        timeouts = [v for v, err, _ in slow if err is not None and err.code() in
                    (KafkaError._MSG_TIMED_OUT, KafkaError._TIMED_OUT, KafkaError.REQUEST_TIMED_OUT)]
        other = [(v, err) for v, err, _ in slow if err is not None and v not in timeouts]
        self.assertEqual(other, [], "failures other than timeouts")
        self.assertGreater(len(timeouts), 0, "no delivery timed out on a 300 ms disk")
        self.assertEqual(self.control.ok("DELETE", "/control/disk"),
                         {"write_latency_ms": 0.0, "sync_latency_ms": 0.0})
        fast = produce(p, topic, [b"fast-%02d" % i for i in range(20)])
        self.assertEqual([(v, err) for v, err, _ in fast if err is not None], [],
                         "deliveries failed after DELETE /control/disk")
        acked = [v for v, err, _ in slow + fast if err is None]
        consumed = read_partition(self.broker, topic)
        self.assert_exactly_once_in_order([(o, v) for o, v in consumed if v in set(acked)], acked,
                                          "slow disk")


class BadInputTest(ControlApiCase):
    # ---- 7 --------------------------------------------------------------------------------
    def test_bad_requests_are_refused_and_nothing_changes(self):
        cases = [
            ("malformed JSON", None, b'{"api": "Produce", "action": '),
            ("unknown api", {"api": "NoSuchApi", "action": "error", "error": "NOT_COORDINATOR"}, None),
            ("unknown error name", {"api": "Produce", "action": "error", "error": "NO_SUCH_ERROR"}, None),
            ("unknown field", {"api": "Produce", "action": "close", "colour": "red"}, None),
            ("partition without topic", {"api": "Produce", "partition": 0, "action": "close"}, None),
            ("error without api", {"action": "error", "error": "NOT_COORDINATOR"}, None),
            ("probability above 1", {"api": "Produce", "action": "close", "probability": 2}, None),
            ("error for ApiVersions", {"api": "ApiVersions", "action": "error",
                                       "error": "NOT_COORDINATOR"}, None),
        ]
        for name, body, raw in cases:
            with self.subTest(case=name):
                status, j = self.control.call("POST", "/control/faults", body=body, raw=raw)
                self.assertEqual(status, 400, "%s: %s" % (name, j))
                self.assertIsInstance(j, dict)
                self.assertIsInstance(j.get("error"), str)
                self.assertTrue(j["error"])
        self.assertEqual(self.control.ok("GET", "/control/faults"), {"rules": []})
        for path, body in [("/control/outage", {"seconds": 0}), ("/control/outage", {"seconds": 1, "mode": "x"})]:
            with self.subTest(path=path, body=body):
                status, j = self.control.call("POST", path, body=body)
                self.assertEqual(status, 400, "%s %s: %s" % (path, body, j))
                self.assertIsNone(self.control.ok("GET", "/control/outage")["outage"])
        for body in ({"write_latency_ms": -5}, {"read_latency_ms": 5}):
            status, j = self.control.call("PUT", "/control/disk", body=body)
            self.assertEqual(status, 400, "%s: %s" % (body, j))
        status, j = self.control.call("PUT", "/control/emulation", body={"kafka_version": "1.0"})
        self.assertEqual(status, 400, j)
        status, j = self.control.call("GET", "/control/requests?api=NoSuchApi")
        self.assertEqual(status, 400, j)
        self.assertEqual(self.control.call("GET", "/control/faults/999999")[0], 404)

        # A rule that matches nothing, then traffic: it never fires.
        idle = self.control.add_rule(api="Produce", topic="ctl-nobody-writes-here", action="error",
                                     error="NOT_LEADER_OR_FOLLOWER")
        self.assertNotIn("remaining", idle, "a rule without count or probability stays")
        topic = "ctl-after-bad-input"
        p = Producer(dict(base_conf(self.broker, "bad-input-producer"), **{"acks": "all"}))
        reports = produce(p, topic, [b"ok-%02d" % i for i in range(20)])
        self.assertEqual([(v, err) for v, err, _ in reports if err is not None], [])
        consumed = read_partition(self.broker, topic, expect=20)
        self.assertEqual([v for _, v in consumed], [v for v, _, _ in reports])
        got = self.control.rule(idle["id"])
        self.assertEqual((got["matched"], got["fired"]), (0, 0), got)


    # A typo in a listener's name must not give an outage (or a rule) that silently never
    # applies.
    def test_outage_on_unknown_listener_is_refused(self):
        status, j = self.control.call("POST", "/control/outage",
                                      body={"seconds": 1, "listener": "NO_SUCH_LISTENER"})
        self.assertEqual(status, 400, j)
        self.assertIn("PLAINTEXT", j["error"])  # says which listeners there are
        self.assertEqual(self.control.ok("GET", "/control/outage")["outage"], None)
        status, j = self.control.call("POST", "/control/faults",
                                      body={"listener": "NO_SUCH_LISTENER", "action": "drop"})
        self.assertEqual(status, 400, j)


class ResetAndSnapshotTest(unittest.TestCase):
    """Reset between two tests and a snapshot restored, as a suite uses them, with
    confluent-kafka; each test has its own broker (a reset is what it checks)."""

    def setUp(self):
        self.broker = skiff_harness.Broker(CONTROL_ON, name="reset broker").owned_by(self)
        self.broker.start()
        self.control = Control(self.broker)

    def commit(self, group, topic, offset):
        c = Consumer(dict(base_conf(self.broker, "ctl-committer"), **{"group.id": group}))
        try:
            c.commit(offsets=[TopicPartition(topic, 0, offset)], asynchronous=False)
        finally:
            c.close()

    def committed(self, group, topic):
        c = Consumer(dict(base_conf(self.broker, "ctl-committed"), **{"group.id": group}))
        try:
            return c.committed([TopicPartition(topic, 0)], timeout=10)[0].offset
        finally:
            c.close()

    def topics(self):
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap,
                             "broker.address.family": "v4"})
        return {t for t in admin.list_topics(timeout=10).topics if not t.startswith("_")}

    def test_reset_between_two_tests(self):
        # "Test one" leaves a topic with data, a committed offset and a live producer.
        create_topic(self.broker, "left-over")
        p = Producer(dict(base_conf(self.broker, "ctl-reset"), **{"enable.idempotence": True}))
        acked = [v for v, err, _ in produce(p, "left-over", [b"a%d" % i for i in range(30)])
                 if err is None]
        self.assertEqual(len(acked), 30)
        self.commit("g-reset", "left-over", 30)
        old_dir = self.broker.partition_dir("left-over", 0)
        with open(os.path.join(old_dir, "partition.metadata")) as f:
            old_id = f.read()
        answer = self.control.ok("POST", "/control/reset", {})
        self.assertEqual(answer["topics"], 1, answer)
        self.assertGreaterEqual(answer["groups"], 1, answer)
        # "Test two" starts clean: no topic, no offset; the topic made again starts at 0 with a
        # new id, and the producer of test one reconnects and is served.
        self.assertEqual(self.topics(), set())
        create_topic(self.broker, "left-over")
        with open(os.path.join(self.broker.partition_dir("left-over", 0), "partition.metadata")) as f:
            self.assertNotEqual(f.read(), old_id, "a re-created topic keeps its old id")
        self.assertLess(self.committed("g-reset", "left-over"), 0, "the committed offset survived")
        fresh = produce(p, "left-over", [b"b%d" % i for i in range(10)])
        p.flush(10)
        self.assertEqual([err for _, err, _ in fresh], [None] * 10)
        self.assertEqual([o for _, _, o in fresh], list(range(10)))
        self.assertEqual([v for _, v in read_partition(self.broker, "left-over", expect=10)],
                         [b"b%d" % i for i in range(10)])
        # ... and stays so across a restart.
        self.broker.restart()
        self.assertEqual([v for _, v in read_partition(self.broker, "left-over", expect=10)],
                         [b"b%d" % i for i in range(10)])

    def test_snapshot_and_restore(self):
        create_topic(self.broker, "fixture")
        p = Producer(base_conf(self.broker, "ctl-snapshot"))
        fixture = [b"f%d" % i for i in range(200)]
        self.assertEqual([err for _, err, _ in produce(p, "fixture", fixture)], [None] * 200)
        self.commit("g-fixture", "fixture", 100)
        taken = self.control.ok("POST", "/control/snapshots/base", expect=201)
        self.assertGreater(taken["files"], 0, taken)
        # A test changes everything...
        produce(p, "fixture", [b"later%d" % i for i in range(50)])
        self.commit("g-fixture", "fixture", 250)
        create_topic(self.broker, "made-later")
        # ... and the suite goes back to the fixture.
        self.control.ok("POST", "/control/snapshots/base/restore")
        self.assertEqual(self.topics(), {"fixture"})
        self.assertEqual([v for _, v in read_partition(self.broker, "fixture", expect=200)], fixture)
        self.assertEqual(self.committed("g-fixture", "fixture"), 100)
        again = produce(p, "fixture", [b"after"])
        self.assertEqual(again[0][1:], (None, 200), "the restored log does not end at 200")
        self.broker.restart()
        self.control = Control(self.broker)  # the metrics listener's port is a new one
        self.assertEqual([v for _, v in read_partition(self.broker, "fixture", expect=201)],
                         fixture + [b"after"])
        self.assertEqual(self.committed("g-fixture", "fixture"), 100)
        self.broker.verify_log("fixture", 0)
        listed = self.control.ok("GET", "/control/snapshots")["snapshots"]
        self.assertEqual([s["name"] for s in listed], ["base"])
        # Bad names and unknown snapshots.
        for bad in ("..", "a%2Fb", "x" * 65):
            status, j = self.control.call("POST", "/control/snapshots/" + bad)
            self.assertIn(status, (400, 404), (bad, j))
        status, j = self.control.call("POST", "/control/snapshots/nope/restore")
        self.assertEqual(status, 404, j)
        self.control.ok("DELETE", "/control/snapshots/base")
        self.assertEqual(self.control.ok("GET", "/control/snapshots")["snapshots"], [])


class CommandLineTest(unittest.TestCase):
    """`skiff control`, the same API from a shell: what it prints and its exit codes."""

    def test_skiff_control_commands(self):
        broker = skiff_harness.Broker(dict(CONTROL_ON, **{"control.api.token": "t0k"}),
                                      name="cli broker").owned_by(self)
        broker.start()
        url = "http://127.0.0.1:%d" % broker.metrics_port()

        def run(*args, token="t0k"):
            env = dict(os.environ, SKIFF_CONTROL_TOKEN=token)
            r = subprocess.run([skiff_harness.binary(), "control", "--url", url] + list(args),
                               capture_output=True, text=True, timeout=30, env=env)
            return r.returncode, r.stdout, r.stderr

        code, out, _ = run("faults", "add", json.dumps(
            {"api": "Metadata", "action": "latency", "latency_ms": 1, "count": 1}))
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out)["id"], 1)
        code, out, _ = run("faults", "list")
        self.assertEqual([r["api"] for r in json.loads(out)["rules"]], ["Metadata"])
        code, out, _ = run("emulate", "2.8")
        self.assertEqual((code, json.loads(out)["kafka_version"]), (0, "2.8"))
        self.assertEqual(api_versions(broker.port)[3], (0, 11), "Metadata under 2.8")
        self.assertEqual(run("emulate", "off")[0], 0)
        self.assertEqual(run("disk", "0", "0")[0], 0)
        code, out, _ = run("reset")
        self.assertEqual(code, 0)
        self.assertIn("total_ms", json.loads(out))
        code, out, _ = run("requests", "--api", "ApiVersions", "--limit", "1")
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out)["requests"][0]["api"], "ApiVersions")
        # Refused by the broker: 1, with its JSON error on stderr.
        code, _, err = run("faults", "add", "{\"action\":\"nope\"}")
        self.assertEqual(code, 1)
        self.assertIn("nope", err)
        self.assertEqual(run("status", token="wrong")[0], 1)
        # Usage errors: 2, and nothing sent.
        self.assertEqual(run("faults", "frobnicate")[0], 2)
        self.assertEqual(run()[0], 2)
        code, _, err = run("faults", "clear")
        self.assertEqual(code, 0, err)
        # Nobody listening: 1, saying so.
        r = subprocess.run([skiff_harness.binary(), "control", "--url",
                            "http://127.0.0.1:%d" % skiff_harness.free_port(), "status"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot reach", r.stderr)


class TokenAndDisabledTest(unittest.TestCase):
    def test_token_required(self):
        broker = skiff_harness.Broker(dict(CONTROL_ON, **{"control.api.token": "s3cret"}),
                                      name="token broker").owned_by(self)
        broker.start()
        control = Control(broker, token="s3cret")
        rule = {"api": "Produce", "action": "close", "count": 1}
        for what, kwargs in [("no token", {"auth": False}), ("wrong token", {"token": "guess"})]:
            with self.subTest(what):
                for method, path, body in [("GET", "/control", None),
                                           ("POST", "/control/faults", rule),
                                           ("POST", "/control/outage", {"seconds": 5}),
                                           ("DELETE", "/control/faults", None)]:
                    status, j = control.call(method, path, body=body, **kwargs)
                    self.assertEqual(status, 401, "%s %s with %s: %s" % (method, path, what, j))
                    self.assertIsInstance(j, dict)
                    self.assertIn("error", j)
        status, j = control.call("GET", "/control", raw=None, token=None)
        self.assertEqual(status, 200, j)
        self.assertEqual(j["faults"], 0, "a refused request added a rule")
        self.assertIsNone(control.ok("GET", "/control/outage")["outage"])
        # The token guards /control only: /metrics stays open.
        with urllib.request.urlopen("%s/metrics" % control.base, timeout=10) as r:
            self.assertEqual(r.status, 200)
        p = Producer(dict(base_conf(broker, "token-producer"), **{"acks": "all"}))
        reports = produce(p, "ctl-token", [b"t-%02d" % i for i in range(10)])
        self.assertEqual([(v, err) for v, err, _ in reports if err is not None], [])
        self.assertEqual([v for _, v in read_partition(broker, "ctl-token", expect=10)],
                         [v for v, _, _ in reports])

    def test_api_off_answers_404_and_startup_emulation_still_applies(self):
        broker = skiff_harness.Broker({"metrics.listener": "HTTP://127.0.0.1:0",
                                       "emulate.kafka.version": "2.8"},
                                      name="control-off broker").owned_by(self)
        broker.start()
        control = Control(broker)
        for method, path, body in [("GET", "/control", None), ("GET", "/control/faults", None),
                                   ("POST", "/control/faults",
                                    {"api": "Produce", "action": "close"}),
                                   ("GET", "/control/requests", None),
                                   ("PUT", "/control/emulation", {"kafka_version": "3.9"}),
                                   ("POST", "/control/outage", {"seconds": 5})]:
            with self.subTest(path=path, method=method):
                status, j = control.call(method, path, body=body)
                self.assertEqual(status, 404, "%s %s: %s" % (method, path, j))
                self.assertIsInstance(j, dict)
                self.assertIn("control.api.enable", j.get("error", ""), j)
        with urllib.request.urlopen("%s/metrics" % control.base, timeout=10) as r:
            self.assertEqual(r.status, 200)
        advertised = api_versions(broker.port)
        self.assertEqual(advertised[3][1], 11, "Metadata under emulate.kafka.version=2.8")
        self.assertEqual(advertised[1][1], 12, "Fetch under emulate.kafka.version=2.8")
        p = Producer(dict(base_conf(broker, "off-producer"), **{"acks": "all"}))
        reports = produce(p, "ctl-off", [b"f-%02d" % i for i in range(10)])
        self.assertEqual([(v, err) for v, err, _ in reports if err is not None], [])
        self.assertEqual([v for _, v in read_partition(broker, "ctl-off", expect=10)],
                         [v for v, _, _ in reports])


class EmulationTest(unittest.TestCase):
    own = None  # skiff's own ApiVersions, from a broker without emulation

    @classmethod
    def setUpClass(cls):
        b = skiff_harness.Broker({}, name="own-versions broker").owned_by(cls)
        b.start()
        cls.own = api_versions(b.port)
        b.stop()
        cls.sarama = None
        if os.path.isdir(SARAMA) and shutil.which("go"):
            tmp = tempfile.mkdtemp(prefix="skiff-sarama-")
            cls.addClassCleanup(shutil.rmtree, tmp, True)
            cls.sarama = os.path.join(tmp, "sarama_control")
            env = dict(os.environ, GO111MODULE="off", GOPATH=GOPATH, CGO_ENABLED="0",
                       GOCACHE=os.path.join(tmp, "cache"), GOFLAGS="")
            subprocess.run(["nice", "-n", "10", "go", "build", "-o", cls.sarama, SARAMA_SOURCE],
                           env=env, check=True, timeout=300)

    def expected(self, release):
        out = {}
        for key, (lo, hi) in KAFKA_RANGES[release].items():
            if key in self.own:
                r = (max(lo, self.own[key][0]), min(hi, self.own[key][1]))
                if r[0] <= r[1]:
                    out[key] = r
        return out

    def check_release(self, release, at_startup=True):
        """at_startup: emulate.kafka.version=release; else PUT /control/emulation after start."""
        overrides = dict(CONTROL_ON, **({"emulate.kafka.version": release} if at_startup else {}))
        broker = skiff_harness.Broker(overrides, name="emulating %s" % release).owned_by(self)
        broker.start()
        control = Control(broker)
        if not at_startup:
            self.assertEqual(control.ok("PUT", "/control/emulation",
                                        {"kafka_version": release})["kafka_version"], release)
        self.assertEqual(control.ok("GET", "/control/emulation")["kafka_version"], release)
        advertised = api_versions(broker.port)
        for key, rng in self.expected(release).items():
            self.assertEqual(advertised.get(key), rng, "%s: api key %d" % (release, key))
        for key, (lo, hi) in advertised.items():
            self.assertIn(key, self.own, "%s advertises key %d skiff does not serve" % (release, key))
            self.assertGreaterEqual(lo, self.own[key][0])
            self.assertLessEqual(hi, self.own[key][1])
        if release == "2.8":
            for key in NOT_IN_2_8:
                self.assertNotIn(key, advertised, "2.8 had no api key %d" % key)
        # Above the release's Metadata range the connection is closed, as Kafka does.
        md_max = advertised[3][1]
        self.assertTrue(answered(broker.port, metadata_request(md_max)))
        if md_max < self.own[3][1]:
            self.assertFalse(answered(broker.port, metadata_request(md_max + 1)),
                             "%s: Metadata v%d answered" % (release, md_max + 1))
        # Below it (4.0 dropped ListOffsets v0, KIP-896).
        self.assertEqual(answered(broker.port, list_offsets_v0_request()), advertised[2][0] == 0,
                         "%s: ListOffsets v0" % release)

        # Real clients produce and consume through it.
        topic = "emu-" + release.replace(".", "-")
        p = Producer(dict(base_conf(broker, "emu-confluent"), **{"acks": "all"}))
        reports = produce(p, topic, [b"ck-%02d" % i for i in range(20)])
        self.assertEqual([(v, err) for v, err, _ in reports if err is not None], [])
        self.assertEqual([v for _, v in read_partition(broker, topic, expect=20)],
                         [v for v, _, _ in reports])
        self.kafka_python_round_trip(broker, topic + "-kp")
        if self.sarama:
            self.sarama_round_trip(broker, topic + "-sarama")

        # Every request a client sent is within what this release advertises.
        captured = control.requests()
        self.assertTrue(captured)
        outside = [(q["api"], q["api_version"], q["client_id"]) for q in captured
                   if q["api_key"] in advertised and not
                   advertised[q["api_key"]][0] <= q["api_version"] <= advertised[q["api_key"]][1]]
        self.assertEqual(outside, [], "%s: requests outside the advertised ranges" % release)
        unadvertised = {q["api"] for q in captured if q["api_key"] not in advertised}
        self.assertEqual(unadvertised, set(), "%s: requests for unadvertised APIs" % release)
        if release == "2.8":
            self.assertLessEqual(max(q["api_version"] for q in captured if q["api"] == "Metadata"), 11)
            self.assertLessEqual(max(q["api_version"] for q in captured if q["api"] == "Fetch"), 12)
        clients = {q["client_id"] for q in captured}
        expected_clients = {"emu-confluent", "emu-kafka-python"} | ({"emu-sarama"} if self.sarama else set())
        self.assertTrue(expected_clients <= clients, clients)
        return broker, control

    def kafka_python_round_trip(self, broker, topic):
        from kafka import KafkaConsumer, KafkaProducer, TopicPartition as KTP
        p = KafkaProducer(bootstrap_servers=broker.bootstrap, client_id="emu-kafka-python",
                          acks="all", request_timeout_ms=10000)
        futures = [p.send(topic, b"kp-%02d" % i, partition=0) for i in range(20)]
        offsets = [f.get(timeout=20).offset for f in futures]
        p.close(5)
        self.assertEqual(offsets, list(range(20)))
        c = KafkaConsumer(bootstrap_servers=broker.bootstrap, client_id="emu-kafka-python",
                          enable_auto_commit=False, consumer_timeout_ms=3000)
        try:
            c.assign([KTP(topic, 0)])
            c.seek_to_beginning()
            got = [m.value for m in c]
        finally:
            c.close()
        self.assertEqual(got, [b"kp-%02d" % i for i in range(20)])

    def sarama_round_trip(self, broker, topic):
        r = subprocess.run([self.sarama, broker.bootstrap, topic, "20"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, "Sarama: %s %s" % (r.stdout, r.stderr))
        self.assertIn("ok: sarama", r.stdout)

    def test_emulate_2_8(self):
        self.check_release("2.8")

    def test_emulate_4_0(self):
        self.check_release("4.0", at_startup=False)

    # The start-up setting as well as the run-time call (4.x once failed the setting's check).
    def test_emulate_4_0_from_startup_setting(self):
        broker = skiff_harness.Broker({"emulate.kafka.version": "4.0"},
                                      name="emulating 4.0 at start-up").owned_by(self)
        broker.start()
        self.assertEqual(api_versions(broker.port).get(1, (None,))[0], 4, "Fetch from v4 in 4.0")

    def test_emulate_3_9_and_switch_at_run_time(self):
        broker, control = self.check_release("3.9")
        self.assertEqual(control.ok("PUT", "/control/emulation", {"kafka_version": "2.8"})["kafka_version"], "2.8")
        advertised = api_versions(broker.port)
        for key, rng in self.expected("2.8").items():
            self.assertEqual(advertised.get(key), rng, "after PUT 2.8: api key %d" % key)
        self.assertFalse(answered(broker.port, metadata_request(12)), "Metadata v12 under 2.8")
        self.assertEqual(control.ok("DELETE", "/control/emulation")["kafka_version"], "")
        self.assertEqual(api_versions(broker.port), self.own, "DELETE: skiff's own table again")


if __name__ == "__main__":
    skiff_harness.run_tests()
