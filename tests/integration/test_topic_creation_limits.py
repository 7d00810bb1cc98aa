"""Topic creation that runs out of file descriptors, against the real skiff binary.

The broker runs with RLIMIT_NOFILE soft 256 / hard 300 (set in the child before exec). Every
partition holds at least one descriptor, so a topic of 2,000 partitions cannot be created:

* start-up raises the soft limit to the hard one and logs both, and warns that 300 is low;
* CreateTopics of 2,000 partitions (with a config override) answers KAFKA_STORAGE_ERROR with a
  message; no directory or overrides file of the topic remains and Metadata does not list it;
* the broker still serves: a small topic is created, produced to and consumed with
  confluent-kafka;
* Metadata auto-creation with num.partitions=2000 answers LEADER_NOT_AVAILABLE, leaves nothing
  behind, and repeated metadata requests neither retry the creation each time (back-off) nor
  log a line each.
"""

import os
import resource
import struct
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

SOFT_LIMIT = 256
HARD_LIMIT = 300
HUGE = 2000  # partitions: more than 300 descriptors allow, at one or more per partition
TIMEOUT_S = 20
LEADER_NOT_AVAILABLE = 5


def low_fd_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT_LIMIT, HARD_LIMIT))


def kstring(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def metadata_v1_topic_error(sock, topic, correlation):
    """Sends Metadata v1 for one topic (v1: auto-creation when the broker allows it) and returns
    (error code, partition count) of the topic in the answer."""
    body = struct.pack(">hhi", 3, 1, correlation) + kstring("limits-test")
    body += struct.pack(">i", 1) + kstring(topic)
    sock.sendall(struct.pack(">i", len(body)) + body)
    size = struct.unpack(">i", skiff_harness.recv_exactly(sock, 4))[0]
    data = skiff_harness.recv_exactly(sock, size)
    pos = 0

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return v[0]

    def take_string():
        nonlocal pos
        n = take(">h")
        s = data[pos:pos + max(n, 0)].decode()
        pos += max(n, 0)
        return s

    assert take(">i") == correlation
    for _ in range(take(">i")):  # brokers: node_id, host, port, rack
        take(">i"), take_string(), take(">i"), take_string()
    take(">i")  # controller_id
    assert take(">i") == 1
    error = take(">h")
    name = take_string()
    assert name == topic, name
    take(">b")  # is_internal
    return error, take(">i")


class TopicCreationLimitsTest(unittest.TestCase):
    def start_broker(self, overrides=None):
        broker = skiff_harness.Broker(overrides or {}, name="fd-limit broker",
                                      preexec_fn=low_fd_limit)
        broker.start()
        self.addCleanup(broker.cleanup)
        return broker

    def leftovers(self, broker, topic):
        found = [d for d in os.listdir(broker.data_dir) if d.startswith(topic + "-")]
        configs = os.path.join(broker.data_dir, "topic-configs")
        if os.path.isdir(configs):
            found += [os.path.join("topic-configs", f) for f in os.listdir(configs)
                      if f.startswith(topic + ".")]
        return found

    def test_soft_limit_raised_and_create_topics_rolled_back(self):
        broker = self.start_broker()
        log = broker.log_text()
        self.assertIn("file descriptor limit: soft %d (was %d), hard %d"
                      % (HARD_LIMIT, SOFT_LIMIT, HARD_LIMIT), log)
        self.assertIn("the descriptor limit is %d" % HARD_LIMIT, log)

        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        started = time.monotonic()
        futures = admin.create_topics([NewTopic("huge", num_partitions=HUGE, replication_factor=1,
                                                config={"retention.ms": "3600000"})])
        with self.assertRaises(KafkaException) as ctx:
            futures["huge"].result(timeout=TIMEOUT_S)
        err = ctx.exception.args[0]
        sys.stderr.write("\nCreateTopics of %d partitions under a limit of %d: %s (%.2f s)\n"
                         % (HUGE, HARD_LIMIT, err, time.monotonic() - started))
        self.assertEqual(err.code(), KafkaError.KAFKA_STORAGE_ERROR, err)
        self.assertIn("Too many open files", err.str())
        self.assertEqual(self.leftovers(broker, "huge"), [])
        self.assertNotIn("huge", admin.list_topics(timeout=TIMEOUT_S).topics)
        self.assertEqual(broker.log_text().count("creating topic 'huge'"), 1)

        # Still serving: a small topic is created, produced to and consumed.
        admin.create_topics([NewTopic("small", num_partitions=3, replication_factor=1)])[
            "small"].result(timeout=TIMEOUT_S)
        self.assertEqual(sorted(admin.list_topics(timeout=TIMEOUT_S).topics["small"].partitions),
                         [0, 1, 2])
        errors = []
        p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0})
        for i in range(30):
            p.produce("small", value=b"v%d" % i, partition=i % 3,
                      on_delivery=lambda e, m: e and errors.append(e))
        self.assertEqual(p.flush(TIMEOUT_S), 0)
        self.assertEqual(errors, [])
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "limits",
                      "enable.auto.commit": False})
        c.assign([TopicPartition("small", part, 0) for part in range(3)])
        got = []
        deadline = time.monotonic() + TIMEOUT_S
        while len(got) < 30 and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got.append(m.value())
        c.close()
        self.assertEqual(sorted(got), sorted(b"v%d" % i for i in range(30)))

        # The same name can be created once it fits.
        admin.create_topics([NewTopic("huge", num_partitions=2, replication_factor=1)])[
            "huge"].result(timeout=TIMEOUT_S)
        self.assertEqual(len(admin.list_topics(timeout=TIMEOUT_S).topics["huge"].partitions), 2)
        self.assertTrue(broker.alive())
        del admin, p  # their connections go before the broker does (no reconnect noise)
        broker.stop()

    def test_auto_create_fails_cleanly_and_backs_off(self):
        broker = self.start_broker({"num.partitions": str(HUGE)})
        sock = socket.create_connection(("127.0.0.1", broker.port), timeout=TIMEOUT_S)
        answers = []
        started = time.monotonic()
        for i in range(30):  # 3 s of a client asking every 100 ms
            t = time.monotonic()
            error, partitions = metadata_v1_topic_error(sock, "auto-huge", i + 1)
            answers.append((error, partitions, time.monotonic() - t))
            time.sleep(0.1)
        self.assertEqual({(e, n) for e, n, _ in answers}, {(LEADER_NOT_AVAILABLE, 0)})
        self.assertEqual(self.leftovers(broker, "auto-huge"), [])
        lines = [x for x in broker.log_text().splitlines() if "auto-creating topic 'auto-huge'" in x]
        sys.stderr.write("\n30 metadata requests in %.1f s: first %.3f s, slowest later %.3f s; "
                         "%d error line(s)\n"
                         % (time.monotonic() - started, answers[0][2],
                            max(a[2] for a in answers[1:]), len(lines)))
        self.assertEqual(len(lines), 1, "\n".join(lines[:5]))
        self.assertIn("Too many open files", lines[0])

        # After the back-off (5 s) it is tried again: still failing, still no line per request.
        time.sleep(max(0.0, started + 5.5 - time.monotonic()))
        for i in range(10):
            error, _ = metadata_v1_topic_error(sock, "auto-huge", 100 + i)
            self.assertEqual(error, LEADER_NOT_AVAILABLE)
        lines = [x for x in broker.log_text().splitlines() if "auto-huge" in x]
        self.assertLessEqual(len(lines), 2, "\n".join(lines[:5]))
        self.assertEqual(self.leftovers(broker, "auto-huge"), [])

        # Other topics are unaffected (and a topic that fits is auto-created).
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic("fits", num_partitions=2, replication_factor=1)])[
            "fits"].result(timeout=TIMEOUT_S)
        error, partitions = metadata_v1_topic_error(sock, "fits", 200)
        self.assertEqual((error, partitions), (0, 2))
        self.assertNotIn("auto-huge", admin.list_topics(timeout=TIMEOUT_S).topics)
        sock.close()
        self.assertTrue(broker.alive())
        del admin
        broker.stop()


if __name__ == "__main__":
    skiff_harness.run_tests()
