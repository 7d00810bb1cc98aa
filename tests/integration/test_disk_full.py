"""A full disk against the real skiff binary: produce is refused with KAFKA_STORAGE_ERROR and
nothing of a refused batch is stored, reads keep working, writes resume once space is freed, and
the broker logs the run of identical errors once plus a count, not once per refused batch.

    sudo /usr/bin/python3 test_disk_full.py /path/to/skiff

The data directory is a 32 MiB tmpfs the test mounts itself, so it needs root (CI runs as root);
elsewhere it is skipped with a message saying so.
"""

import errno
import os
import re
import socket
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from test_bad_input import frame, parse_produce_v3_response, produce_v3_body, record_batch  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

NONE = 0
KAFKA_STORAGE_ERROR = 56
TOPIC = "full"
REFUSED_TARGET = 2000  # produce requests refused while the disk is full
VALUE = b"v" * 4000


class DiskFullTest(unittest.TestCase):
    broker = None
    mounted = False
    config = {"num.partitions": 1}

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to mount a small tmpfs as the data directory")
        cls.broker = skiff_harness.Broker(cls.config, name="disk-full broker")
        os.makedirs(cls.broker.data_dir)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", cls.broker.data_dir],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise unittest.SkipTest("mounting a tmpfs is not permitted here: %s"
                                    % r.stdout.decode(errors="replace").strip())
        cls.mounted = True
        cls.broker.start()

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.broker:
                cls.broker.stop()
        finally:
            if cls.mounted:
                subprocess.run(["umount", "-l", cls.broker.data_dir])

    def produce_raw(self, sock, corr, value):
        batch = record_batch([(b"k", value, [], 0)], int(time.time() * 1000))
        sock.sendall(frame(0, 3, corr, produce_v3_body(TOPIC, 0, batch)))
        size = struct.unpack(">i", self.recv_exact(sock, 4))[0]
        data = self.recv_exact(sock, size)
        self.assertEqual(struct.unpack(">i", data[:4])[0], corr)
        parts, _ = parse_produce_v3_response(data[4:])
        _, _, error, base_offset, _ = parts[0]
        return error, base_offset

    def recv_exact(self, sock, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = sock.recv(n - len(buf))
            self.assertTrue(chunk, "broker closed the connection")
            buf += chunk
        return bytes(buf)

    def consume_all(self, expected_count):
        c = Consumer({"bootstrap.servers": self.broker.bootstrap, "group.id": "disk-full-reader",
                      "enable.auto.commit": False, "broker.address.family": "v4"})
        try:
            c.assign([TopicPartition(TOPIC, 0, 0)])
            got = []
            deadline = time.monotonic() + 30
            while len(got) < expected_count and time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is None or m.error():
                    continue
                got.append((m.offset(), m.value()))
            return got
        finally:
            c.close()

    def test_full_disk_refuses_cleanly_keeps_reads_and_recovers(self):
        # Some data before the disk fills.
        p = Producer({"bootstrap.servers": self.broker.bootstrap, "broker.address.family": "v4"})
        for i in range(100):
            p.produce(TOPIC, value=b"before-%d" % i)
        self.assertEqual(p.flush(30), 0)

        # Fill the file system.
        filler = os.path.join(self.broker.data_dir, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while True:
                os.write(fd, b"\0" * (1 << 16))
        except OSError as e:
            self.assertEqual(e.errno, errno.ENOSPC)
        finally:
            os.close(fd)

        sock = socket.create_connection(("127.0.0.1", self.broker.port), timeout=10)
        self.addCleanup(sock.close)
        acknowledged = {}  # offset -> value
        refused = 0
        corr = 0
        # The active segment keeps up to 1 MiB of blocks reserved, so the first batches may
        # still fit; after those every produce is refused.
        while refused < REFUSED_TARGET and corr < REFUSED_TARGET + 2000:
            corr += 1
            value = VALUE + b"-%d" % corr
            error, base = self.produce_raw(sock, corr, value)
            if error == NONE:
                acknowledged[base] = value
            else:
                self.assertEqual(error, KAFKA_STORAGE_ERROR)
                refused += 1
        self.assertEqual(refused, REFUSED_TARGET, "the disk never filled up")
        self.assertTrue(self.broker.alive())

        # One log line for the whole run of refusals, not one per batch.
        failures = re.findall(r"^(?!.*more like this).*append to full-0 failed", self.broker.log_text(),
                              re.M)
        self.assertLessEqual(len(failures), 2, "append failures flooded the log")

        # Reads keep working: every acknowledged record is there, in order, nothing refused.
        expected = 100 + len(acknowledged)
        got = self.consume_all(expected)
        self.assertEqual(len(got), expected)
        self.assertEqual([o for o, _ in got], list(range(expected)))
        self.assertEqual([v for _, v in got[:100]], [b"before-%d" % i for i in range(100)])
        for offset, value in got[100:]:
            self.assertEqual(value, acknowledged[offset])

        # Space freed: writes are accepted again, right after the last acknowledged offset.
        os.unlink(filler)
        error, base = self.produce_raw(sock, corr + 1, b"after")
        self.assertEqual(error, NONE)
        self.assertEqual(base, expected)
        got = self.consume_all(expected + 1)
        self.assertEqual(got[-1], (expected, b"after"))

        # The count of the suppressed repeats is logged once the interval is over.
        summary = skiff_harness.wait_until(
            lambda: re.search(r"(\d+) more like this in the last 10 s, the latest: append to full-0 failed",
                              self.broker.log_text()), 20, what="the repeat count in the log")
        self.assertGreaterEqual(int(summary.group(1)), 1)
        self.broker.verify_log(TOPIC, 0)


class DurableDiskFullTest(DiskFullTest):
    """The same in durable mode, where the active segment's file is grown ahead of its data
    (fallocate; storage/log_segment.cpp) and a refused batch must leave no size behind either."""
    config = {"num.partitions": 1, "log.flush.interval.messages": 1}


if __name__ == "__main__":
    skiff_harness.run_tests()
