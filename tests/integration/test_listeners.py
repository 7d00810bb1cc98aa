"""Named listeners: each one advertises its own address; unsupported protocols stop start-up.

    /usr/bin/python3 test_listeners.py /path/to/skiff

skiff runs with two plaintext listeners A and B (listener.security.protocol.map=A:PLAINTEXT,
B:PLAINTEXT) advertised differently. Metadata and FindCoordinator sent through each listener (raw
requests, then confluent-kafka's AdminClient) must name that listener's advertised address, as
Kafka answers. A listener mapped to SSL (or left out of the map) must stop start-up with a clear
error instead of being served in clear text.
"""

import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

LISTENING_RE = re.compile(
    r"skiff listening on 127\.0\.0\.1:(\d+) \((\w+)\), advertised as (\S+):(\d+)")


class Skiff:
    """One skiff process with the given overrides (the harness's Broker expects one PLAINTEXT
    listener); `listening` maps each listener name to (bound port, advertised host, port)."""

    def __init__(self, overrides):
        self.tmp = tempfile.mkdtemp(prefix="skiff-listeners-")
        self.log_path = os.path.join(self.tmp, "skiff.log")
        args = [skiff_harness.binary(), "--override", "log.dirs=" + os.path.join(self.tmp, "data"),
                "--override", "metrics.listener="]
        for key, value in overrides.items():
            args += ["--override", "%s=%s" % (key, value)]
        with open(self.log_path, "wb") as log:
            self.proc = skiff_harness.spawn(args, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
        self.listening = {}

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def wait_listening(self, count):
        deadline = time.monotonic() + skiff_harness.START_TIMEOUT_S
        while time.monotonic() < deadline:
            found = LISTENING_RE.findall(self.log_text())
            if len(found) >= count:
                self.listening = {name: (int(port), host, int(adv_port))
                                  for port, name, host, adv_port in found}
                return self
            if self.proc.poll() is not None:
                raise AssertionError("skiff exited with %s:\n%s"
                                     % (self.proc.returncode, self.log_text()))
            time.sleep(0.02)
        raise AssertionError("skiff did not log %d listeners:\n%s" % (count, self.log_text()))

    def wait_exit(self, timeout_s=20):
        return self.proc.wait(timeout=timeout_s)

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(timeout=skiff_harness.STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("skiff did not stop on SIGTERM:\n" + self.log_text())
            if code != 0:
                raise AssertionError("skiff exited with %s:\n%s" % (code, self.log_text()))
        shutil.rmtree(self.tmp, ignore_errors=True)


def kafka_string(text):
    data = text.encode()
    return struct.pack(">h", len(data)) + data


def exchange(port, api_key, version, body, correlation=41):
    """Sends one request (header v1) to 127.0.0.1:port; returns the response after its
    correlation id."""
    header = struct.pack(">hhi", api_key, version, correlation) + kafka_string("skiff-listeners")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
        size = struct.unpack(">i", skiff_harness.recv_exactly(sock, 4))[0]
        response = skiff_harness.recv_exactly(sock, size)
    assert struct.unpack(">i", response[:4])[0] == correlation, "correlation id"
    return response[4:]


def read_string(data, at):
    (n,) = struct.unpack_from(">h", data, at)
    return data[at + 2:at + 2 + n].decode(), at + 2 + n


def metadata_broker(port):
    """(host, port) of the one broker in a Metadata v1 response, asking for no topics."""
    data = exchange(port, 3, 1, struct.pack(">i", 0))
    (count,) = struct.unpack_from(">i", data, 0)
    assert count == 1, "one broker, got %d" % count
    host, at = read_string(data, 4 + 4)  # after the count and the node id
    (advertised_port,) = struct.unpack_from(">i", data, at)
    return host, advertised_port


def coordinator(port):
    """(host, port) of the coordinator of group "g" from FindCoordinator v1."""
    data = exchange(port, 10, 1, kafka_string("g") + struct.pack(">b", 0))
    throttle, error = struct.unpack_from(">ih", data, 0)
    assert error == 0, "FindCoordinator error %d" % error
    at = 6
    (message_len,) = struct.unpack_from(">h", data, at)
    at += 2 + max(message_len, 0)
    at += 4  # node id
    host, at = read_string(data, at)
    (advertised_port,) = struct.unpack_from(">i", data, at)
    return host, advertised_port


class ListenersTest(unittest.TestCase):
    def start(self, overrides, listeners):
        skiff = Skiff(overrides)
        self.addCleanup(skiff.close)
        return skiff.wait_listening(listeners)

    def test_each_listener_advertises_itself(self):
        # A is not in advertised.listeners: it gives its own address. B is advertised under
        # another name with port 0: the port it bound, filled in per listener.
        skiff = self.start({"listeners": "A://127.0.0.1:0,B://127.0.0.1:0",
                            "listener.security.protocol.map": "A:PLAINTEXT,B:PLAINTEXT",
                            "advertised.listeners": "B://localhost:0"}, 2)
        port_a, host_a, adv_a = skiff.listening["A"]
        port_b, host_b, adv_b = skiff.listening["B"]
        self.assertNotEqual(port_a, port_b)
        self.assertEqual((host_a, adv_a), ("127.0.0.1", port_a))
        self.assertEqual((host_b, adv_b), ("localhost", port_b))
        self.assertEqual(metadata_broker(port_a), ("127.0.0.1", port_a))
        self.assertEqual(metadata_broker(port_b), ("localhost", port_b))
        self.assertEqual(coordinator(port_a), ("127.0.0.1", port_a))
        self.assertEqual(coordinator(port_b), ("localhost", port_b))

    def test_advertised_hosts_that_only_resolve_elsewhere(self):
        # Fixed ports, advertised under other names and ports (a NAT or a container's port
        # mapping): each listener's clients get exactly what was configured for it.
        port_a, port_b = skiff_harness.free_port(), skiff_harness.free_port()
        skiff = self.start({"listeners": "A://127.0.0.1:%d,B://127.0.0.1:%d" % (port_a, port_b),
                            "listener.security.protocol.map": "A:PLAINTEXT,B:PLAINTEXT",
                            "advertised.listeners":
                                "A://internal.example:19092,B://external.example:29092"}, 2)
        self.assertEqual(skiff.listening["A"], (port_a, "internal.example", 19092))
        self.assertEqual(metadata_broker(port_a), ("internal.example", 19092))
        self.assertEqual(metadata_broker(port_b), ("external.example", 29092))
        self.assertEqual(coordinator(port_a), ("internal.example", 19092))
        self.assertEqual(coordinator(port_b), ("external.example", 29092))

    def test_confluent_admin_client_sees_the_listener_it_used(self):
        try:
            from confluent_kafka.admin import AdminClient
        except ImportError:
            self.skipTest("confluent-kafka is not installed")
        port_a, port_b = skiff_harness.free_port(), skiff_harness.free_port()
        self.start({"listeners": "A://127.0.0.1:%d,B://127.0.0.1:%d" % (port_a, port_b),
                    "listener.security.protocol.map": "a:plaintext,b:plaintext",
                    "advertised.listeners": "B://localhost:%d" % port_b}, 2)
        for port, host in ((port_a, "127.0.0.1"), (port_b, "localhost")):
            admin = AdminClient({"bootstrap.servers": "127.0.0.1:%d" % port,
                                 "broker.address.family": "v4"})
            metadata = admin.list_topics(timeout=10)
            brokers = [(b.host, b.port) for b in metadata.brokers.values()]
            self.assertEqual(brokers, [(host, port)], "through 127.0.0.1:%d" % port)

    def refused(self, overrides):
        skiff = Skiff(overrides)
        try:
            code = skiff.wait_exit()
        except subprocess.TimeoutExpired:
            skiff.proc.kill()
            skiff.proc.wait()
            raise AssertionError("skiff kept running:\n" + skiff.log_text())
        text = skiff.log_text()
        shutil.rmtree(skiff.tmp, ignore_errors=True)
        self.assertNotEqual(code, 0, text)
        self.assertNotIn("skiff listening on", text)
        return text

    def test_ssl_listener_without_a_keystore_is_refused_at_startup(self):
        text = self.refused({"listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0"})
        self.assertIn("listener SSL uses security protocol SSL, which needs the broker's key and "
                      "certificate", text)

    def test_custom_name_mapped_to_sasl_ssl_without_a_keystore_is_refused(self):
        text = self.refused({"listeners": "EXTERNAL://127.0.0.1:0",
                             "listener.security.protocol.map": "EXTERNAL:SASL_SSL"})
        self.assertIn("listener EXTERNAL uses security protocol SASL_SSL, which needs the "
                      "broker's key and certificate", text)

    def test_unmapped_listener_name_is_refused(self):
        text = self.refused({"listeners": "INTERNAL://127.0.0.1:0"})
        self.assertIn("INTERNAL is not; add INTERNAL:PLAINTEXT", text)


if __name__ == "__main__":
    skiff_harness.run_tests()
