"""socket.send.buffer.bytes / socket.receive.buffer.bytes reach the broker's client sockets.

    /usr/bin/python3 test_socket_options.py /path/to/skiff

A raw client connects and completes an ApiVersions v0 exchange (so the broker has accepted the
connection and set it up); `ss` then shows the broker side of that connection, whose skmem
fields rb (receive buffer) and tb (send buffer) are what SO_RCVBUF / SO_SNDBUF set, doubled by
Linux for bookkeeping (socket(7)). With the settings at -1 (the default) the kernel's own
values stay, which differ from the configured ones.
"""

import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

SEND_BUFFER = 98304
RECEIVE_BUFFER = 73728


def api_versions_v0(sock):
    client_id = b"skiff-socket-options"
    body = struct.pack(">hhih", 18, 0, 7, len(client_id)) + client_id
    sock.sendall(struct.pack(">i", len(body)) + body)
    size = struct.unpack(">i", skiff_harness.recv_exactly(sock, 4))[0]
    response = skiff_harness.recv_exactly(sock, size)
    assert struct.unpack(">i", response[:4])[0] == 7, "correlation id"


def broker_side_buffers(broker_port, client_port):
    """(rb, tb) of the broker's socket for the connection from client_port."""
    out = subprocess.run(["ss", "-tmnH", "state", "established", "( sport = :%d and dport = :%d )"
                          % (broker_port, client_port)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True,
                         timeout=10).stdout.decode()
    m = re.search(r"skmem:\(r\d+,rb(\d+),t\d+,tb(\d+)", out)
    if not m:
        raise AssertionError("no skmem in ss output: %r" % out)
    return int(m.group(1)), int(m.group(2))


class SocketOptionsTest(unittest.TestCase):
    def buffers_of(self, overrides):
        with skiff_harness.Broker(overrides, name="socket-options broker") as broker:
            sock = socket.create_connection(("127.0.0.1", broker.port), timeout=10)
            try:
                api_versions_v0(sock)
                return broker_side_buffers(broker.port, sock.getsockname()[1])
            finally:
                sock.close()

    def test_configured_buffer_sizes_are_set_on_client_connections(self):
        rb, tb = self.buffers_of({"socket.send.buffer.bytes": SEND_BUFFER,
                                  "socket.receive.buffer.bytes": RECEIVE_BUFFER})
        self.assertEqual(tb, 2 * SEND_BUFFER)
        self.assertEqual(rb, 2 * RECEIVE_BUFFER)

    def test_default_leaves_the_kernel_values(self):
        rb, tb = self.buffers_of({})
        self.assertNotEqual(tb, 2 * SEND_BUFFER)
        self.assertNotEqual(rb, 2 * RECEIVE_BUFFER)


class ListenFailureTest(unittest.TestCase):
    def test_a_taken_port_is_a_clear_error_and_exit_code_1(self):
        # It used to end in SIGBUS while unwinding (a work guard outlived its io_context).
        code, out, port = skiff_harness.run_with_a_taken_port(
            lambda port: {"listeners": "PLAINTEXT://127.0.0.1:%d" % port})
        self.assertEqual(code, 1, out)
        self.assertIn("cannot listen on PLAINTEXT://127.0.0.1:%d" % port, out)

    def test_a_listener_named_by_host_name_is_resolved(self):
        # PLAINTEXT://localhost:PORT, as Kafka's listeners allow (was SIGBUS as well).
        port = skiff_harness.free_port()
        with tempfile.TemporaryDirectory() as data:
            proc = skiff_harness.spawn(
                [skiff_harness.binary(), "--override", "log.dirs=" + data,
                 "--override", "listeners=PLAINTEXT://localhost:%d" % port],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            try:
                skiff_harness.wait_until(lambda: skiff_harness.api_versions_answered(port), 30,
                                         what="ApiVersions on localhost:%d" % port)
            finally:
                proc.terminate()
                out = proc.communicate(timeout=30)[0].decode(errors="replace")
            self.assertEqual(proc.returncode, 0, out)
            self.assertIn("skiff listening on 127.0.0.1:%d" % port, out)

if __name__ == "__main__":
    skiff_harness.run_tests()
