"""Client quotas (docs/quotas.md) against the real skiff binary, with third-party clients.

    /usr/bin/python3 test_client_quotas.py /path/to/skiff

@platformatic/kafka's Admin sets and reads the quotas (AlterClientQuotas, DescribeClientQuotas);
confluent-kafka (librdkafka) produces and consumes under them and reports the broker's throttle
times through its throttle callback:
- a producer whose client id has a producer_byte_rate is throttled (throttle events with a time
  above zero, and skiff counts the throttled responses on /metrics, and shows that client's rate,
  quota and throttle time) while one with another client id is not; every message of both is stored once, in order;
- a consumer whose client id has a consumer_byte_rate is throttled and still reads every message
  once, in order;
- kafka-ts share consumers (node/kafka_ts_share_consumer.mjs) under a consumer_byte_rate get
  throttled ShareFetch responses (counted on /metrics) and still accept every record exactly once;
- the quotas survive a restart, a removed one is gone, and a key skiff does not enforce is refused
  with INVALID_REQUEST and Kafka's message.

The broker measures over 3 windows of 1 s (quota.window.num=3), so a burst counts over 2 s and
the test runs in seconds; the assertions are on what the clients are told and receive, never on
how long anything took.
"""

import json
import os
import subprocess
import sys
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_clients  # noqa: E402
import share_groups  # noqa: E402
import skiff_harness  # noqa: E402
from test_node_platformatic import MIN_NODE, NODE_SRC, node_version  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

INVALID_REQUEST = 42
MESSAGES = 80
VALUE = 4000  # bytes: 320 KB from each producer, over twice what their quotas let through in 2 s


class ClientQuotasTest(unittest.TestCase):
    def setUp(self):
        version = node_version()
        if version is None or version < MIN_NODE:
            self.skipTest("SKIPPED: node %s is missing or older than %s" % (version, MIN_NODE))
        self.dest = npm_clients.install(NODE_SRC, "node-clients", ("platformatic_client_quotas.mjs",
                                                                   share_groups.SCRIPT))
        self.broker = skiff_harness.Broker({
            "quota.window.num": 3,
            "metrics.listener": "HTTP://127.0.0.1:0"}, name="quotas broker").owned_by(self).start()

    def quotas(self, mode, *args):
        proc = subprocess.run(["node", "platformatic_client_quotas.mjs", mode,
                               self.broker.bootstrap] + list(args),
                              cwd=self.dest, capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-3000:])
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        self.assertEqual(len(line), 1, proc.stdout[-3000:])
        return json.loads(line[0][len("RESULT "):])

    def metric(self, series):
        """The value of one /metrics series ('name{labels}'), None when it is not there."""
        url = "http://127.0.0.1:%d/metrics" % self.broker.metrics_port()
        with urllib.request.urlopen(url, timeout=10) as r:
            for line in r.read().decode().splitlines():
                if line.startswith(series + " "):
                    return float(line.split()[-1])
        return None

    def throttled_responses(self, kind):
        value = self.metric('skiff_quota_throttled_responses_total{kind="%s"}' % kind)
        self.assertIsNotNone(value, "no skiff_quota_throttled_responses_total for %s" % kind)
        return value

    def client_series(self, name, kind, client_id):
        return self.metric('%s{kind="%s",user="",client_id="%s"}' % (name, kind, client_id))

    def produce(self, topic, client_id):
        """MESSAGES values "<client_id>-<i>" padded to VALUE bytes; returns the throttle events."""
        throttles = []
        delivered = []
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "client.id": client_id,
                      "acks": "all", "linger.ms": 5, "batch.size": 16384,
                      "throttle_cb": lambda e: throttles.append(e.throttle_time)})
        for i in range(MESSAGES):
            value = ("%s-%d-" % (client_id, i)).encode().ljust(VALUE, b".")
            p.produce(topic, value, callback=lambda err, msg: delivered.append(err))
            p.poll(0)
        self.assertEqual(p.flush(120), 0, "messages left unsent")
        self.assertEqual(delivered, [None] * MESSAGES)
        return throttles

    def consume(self, topic, client_id):
        """Every message of the topic's one partition; returns (values, throttle events)."""
        throttles = []
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "client.id": client_id,
                      "group.id": client_id, "enable.auto.commit": False,
                      "throttle_cb": lambda e: throttles.append(e.throttle_time)})
        c.assign([TopicPartition(topic, 0, 0)])
        values = []
        try:
            skiff_harness.wait_until(
                lambda: self._poll_into(c, values) >= 2 * MESSAGES, timeout_s=120,
                what="every message consumed")
        finally:
            c.close()
        return values, throttles

    @staticmethod
    def _poll_into(consumer, values):
        msg = consumer.poll(0.2)
        if msg is not None and msg.error() is None:
            values.append(msg.value())
        return len(values)

    def test_throttled_clients_get_everything_through_and_are_told_to_wait(self):
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        for f in admin.create_topics([NewTopic("quotas", 1, 1)]).values():
            f.result(30)

        self.assertEqual(self.quotas("set", "client-id=slow-producer", "producer_byte_rate=60000"),
                         {"error": 0, "message": None})
        self.assertEqual(self.quotas("set", "client-id=slow-consumer", "consumer_byte_rate=100000"),
                         {"error": 0, "message": None})
        self.assertEqual(self.quotas("set", "user=<default>", "producer_byte_rate=1000000000"),
                         {"error": 0, "message": None})
        described = self.quotas("describe")
        self.assertIn({"entity": {"client-id": "slow-producer"},
                       "values": {"producer_byte_rate": 60000}}, described)
        self.assertIn({"entity": {"client-id": "slow-consumer"},
                       "values": {"consumer_byte_rate": 100000}}, described)

        # The default user's quota comes first in Kafka's order, even for slow-producer (an
        # unauthenticated client is the user ANONYMOUS): remove it so that the client-id's applies.
        self.assertEqual(self.quotas("set", "user=<default>", "producer_byte_rate="),
                         {"error": 0, "message": None})

        free = self.produce("quotas", "free-producer")
        self.assertEqual([t for t in free if t > 0], [], "a client without a quota was throttled")
        self.assertEqual(self.throttled_responses("produce"), 0)
        slow = self.produce("quotas", "slow-producer")
        self.assertTrue([t for t in slow if t > 0], "slow-producer was never throttled: %s" % slow)
        self.assertGreater(self.throttled_responses("produce"), 0)
        # Kafka's per-client quota metrics: the throttled client's rate, quota and throttle time;
        # none for a client no quota applies to.
        self.assertEqual(self.client_series("skiff_quota_byte_rate_limit", "produce",
                                            "slow-producer"), 60000)
        self.assertGreater(self.client_series("skiff_quota_byte_rate", "produce",
                                              "slow-producer"), 0)
        self.assertGreater(self.client_series("skiff_quota_throttle_time_seconds_total",
                                              "produce", "slow-producer"), 0)
        self.assertIsNone(self.client_series("skiff_quota_byte_rate", "produce", "free-producer"))

        values, throttles = self.consume("quotas", "slow-consumer")
        want = [("%s-%d-" % (who, i)).encode().ljust(VALUE, b".")
                for who in ("free-producer", "slow-producer") for i in range(MESSAGES)]
        self.assertEqual(len(values), len(want))
        self.assertEqual(values, want, "messages lost, repeated or out of order")
        self.assertTrue([t for t in throttles if t > 0], "slow-consumer was never throttled")
        self.assertGreater(self.throttled_responses("fetch"), 0)
        self.assertGreater(self.client_series("skiff_quota_throttle_time_seconds_total", "fetch",
                                              "slow-consumer"), 0)

    def test_share_consumers_over_their_quota_are_throttled_and_get_every_record_once(self):
        topic, group, records = "share-quotas", "sg-quotas", 60
        share_groups.create_topic(self.broker, topic, 1)
        # 240 KB, six times what the quota lets through in its 2 s span.
        share_groups.produce(self.broker, topic,
                             [(0, "k%d" % i, b"%d-" % i + b"." * VALUE) for i in range(records)],
                             batch_records=5)
        # The share consumer script's client id.
        self.assertEqual(self.quotas("set", "client-id=kafka-ts-share", "consumer_byte_rate=40000"),
                         {"error": 0, "message": None})
        proc = subprocess.run(["node", share_groups.SCRIPT, "group-config", self.broker.bootstrap,
                               group, "share.auto.offset.reset=earliest"],
                              cwd=self.dest, capture_output=True, text=True, timeout=60)
        self.assertIn('RESULT {"error":0', proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:])
        self.assertEqual(self.throttled_responses("fetch"), 0)

        config = {"group": group, "topic": topic, "stopAfterFinal": records, "maxMs": 60000,
                  "members": [{"name": "m0"}, {"name": "m1", "ackWith": "ack"}]}
        events = share_groups.Consumers(self, self.broker, config).wait(120)
        acks = share_groups.acks_by_record(events)
        accepted = {r: [m for m, t, err in a if t == share_groups.ACCEPT and err == 0]
                    for r, a in acks.items()}
        self.assertEqual(sorted(accepted), [(0, o) for o in range(records)], "records never accepted")
        self.assertEqual([r for r, ms in accepted.items() if len(ms) != 1], [],
                         "records accepted more than once")
        self.assertGreater(self.throttled_responses("fetch"), 0, "no ShareFetch was throttled")

    def test_quotas_survive_a_restart_and_unenforced_keys_are_refused(self):
        self.assertEqual(self.quotas("set", "user=alice,client-id=<default>",
                                     "producer_byte_rate=1048576", "consumer_byte_rate=2097152"),
                         {"error": 0, "message": None})
        self.assertEqual(self.quotas("set", "client-id=gone", "producer_byte_rate=5"),
                         {"error": 0, "message": None})
        self.assertEqual(self.quotas("set", "client-id=gone", "producer_byte_rate="),
                         {"error": 0, "message": None})
        refused = self.quotas("set", "user=bob", "request_percentage=50")
        self.assertEqual(refused["error"], INVALID_REQUEST)
        self.assertIn("request_percentage", refused["message"])
        self.broker.restart()
        self.assertEqual(self.quotas("describe"),
                         [{"entity": {"user": "alice", "client-id": None},
                           "values": {"producer_byte_rate": 1048576,
                                      "consumer_byte_rate": 2097152}}])


if __name__ == "__main__":
    skiff_harness.run_tests()
