"""Durable mode (log.flush.interval.messages=1) against the real skiff binary, with
confluent-kafka producers and consumers: every acks=all message is acknowledged once it is on
disk, concurrent producers share the syncs (group commit), consumers see every message once and
in order, and an unclean restart keeps everything that was acknowledged.

    /usr/bin/python3 test_durable_mode.py /path/to/skiff
"""

import os
import re
import sys
import threading
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, Producer  # noqa: E402

TOPIC = "durable"
PRODUCERS = 10
MESSAGES = 300  # per producer


def scrape(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        return r.read().decode()


def sample(text, name, labels=""):
    m = re.search(r"^%s%s (\S+)$" % (re.escape(name), re.escape(labels)), text, re.M)
    return float(m.group(1)) if m else 0.0


def produce_concurrently(bootstrap):
    """PRODUCERS threads, each with its own idempotent acks=all producer, each message sent
    and waited for before the next: every send of every thread is in flight at once."""
    errors, acked = [], [0] * PRODUCERS

    def run(n):
        p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                      "linger.ms": 0})

        def on_delivery(err, _msg):
            if err is not None:
                errors.append(err)
            else:
                acked[n] += 1

        for i in range(MESSAGES):
            p.produce(TOPIC, key=b"p%d" % n, value=b"%d:%d" % (n, i), on_delivery=on_delivery)
            p.flush(30)
        p.flush(30)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(PRODUCERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors, acked


def consume_all(bootstrap, expected, timeout_s=60):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "durable-reader",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([TOPIC])
    values = []
    try:
        skiff_harness.wait_until(lambda: values.extend(
            m.value() for m in c.consume(500, 1) if m.error() is None) or len(values) >= expected,
            timeout_s, what="%d messages consumed" % expected)
    finally:
        c.close()
    return values


class DurableModeTest(unittest.TestCase):
    def test_acknowledged_after_sync_shared_and_kept_across_a_crash(self):
        with skiff_harness.Broker({"num.partitions": 1, "log.flush.interval.messages": 1,
                                   "metrics.listener": "HTTP://127.0.0.1:0"},
                                  name="durable broker").owned_by(self) as broker:
            errors, acked = produce_concurrently(broker.bootstrap)
            self.assertEqual(errors, [])
            self.assertEqual(acked, [MESSAGES] * PRODUCERS)

            metrics = scrape(broker.metrics_port())
            produces = sample(metrics, "skiff_requests_total", '{api="Produce"}')
            flushes = sample(metrics, "skiff_log_flush_duration_seconds_count")
            sys.stderr.write("%d produce requests, %d log syncs\n" % (produces, flushes))
            # Every acknowledged request waited for a sync, and no request got two.
            self.assertGreaterEqual(produces, PRODUCERS * MESSAGES)
            self.assertGreater(flushes, 0)
            self.assertLessEqual(flushes, produces)

            values = consume_all(broker.bootstrap, PRODUCERS * MESSAGES)
            self.assertEqual(len(values), PRODUCERS * MESSAGES)  # each exactly once
            for n in range(PRODUCERS):
                mine = [v for v in values if v.startswith(b"%d:" % n)]
                self.assertEqual(mine, [b"%d:%d" % (n, i) for i in range(MESSAGES)])

            # kill -9 and restart: the acknowledged messages are all there, nothing twice.
            broker.restart(graceful=False)
            again = consume_all(broker.bootstrap, PRODUCERS * MESSAGES)
            self.assertEqual(sorted(again), sorted(values))
            broker.verify_log(TOPIC, 0)


if __name__ == "__main__":
    skiff_harness.run_tests()
