"""Shared helpers for skiff's Python integration tests.

Each test file is run as ``/usr/bin/python3 test_x.py /path/to/skiff``. The harness starts the
real binary on an ephemeral port (``listeners=PLAINTEXT://127.0.0.1:0``) with a fresh temporary
data directory, reads the bound port from the broker's log line

    skiff listening on 127.0.0.1:PORT (PLAINTEXT), advertised as 127.0.0.1:PORT

and stops it with SIGTERM (asserting exit code 0), SIGKILL, or restarts it on the same data
directory. When a test run fails, the logs of every broker started in this process are printed.
Only the standard library is used here, so the raw-socket tests can rely on it too.

Every process a test starts goes through spawn(), so none outlives the test: it dies with this
process even when this process is SIGKILLed (a ctest timeout), and run_tests() and an atexit hook
stop whatever is still running on every other way out (failed setUp, exceptions, Ctrl-C, SIGTERM).
"""

import atexit
import ctypes
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

METRICS_RE = re.compile(r"metrics on http://127\.0\.0\.1:(\d+)/metrics")
REGISTRY_RE = re.compile(r"schema registry on https?://127\.0\.0\.1:(\d+)")
CONSOLE_RE = re.compile(r"console on https?://127\.0\.0\.1:(\d+)")
LISTEN_RE = re.compile(r"skiff listening on 127\.0\.0\.1:(\d+) \(PLAINTEXT\), advertised as 127\.0\.0\.1:(\d+)")
START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 20.0
PR_SET_PDEATHSIG = 1

_binary = None
_all_brokers = []
_live = set()  # Popen objects from spawn() not yet reaped
_libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child only calls prctl


def binary():
    """The skiff binary given as argv[1] (see run_tests)."""
    if _binary is None:
        raise RuntimeError("skiff binary path not set: run via skiff_harness.run_tests()")
    return _binary


class BrokerError(AssertionError):
    pass


def spawn(args, preexec_fn=None, **popen_args):
    """subprocess.Popen(args, **popen_args) for a process this test owns: PR_SET_PDEATHSIG makes
    the kernel SIGKILL it when the thread that started it ends (so start long-lived processes from
    the main thread), and it is stopped at exit if nobody reaped it before. `preexec_fn` runs in
    the child after that, before exec."""
    parent = os.getpid()

    def die_with_parent():
        # prctl is variadic: its arguments are read as unsigned longs, so pass them as such.
        _libc.prctl(PR_SET_PDEATHSIG, *(ctypes.c_ulong(a) for a in (signal.SIGKILL, 0, 0, 0)))
        if os.getppid() != parent:  # the parent died before prctl: no signal will come
            os._exit(1)
        if preexec_fn is not None:
            preexec_fn()

    proc = subprocess.Popen(args, preexec_fn=die_with_parent, **popen_args)
    _live.add(proc)
    return proc


def reap(proc, timeout_s):
    """Waits up to timeout_s for a spawned process; its exit code, or None if it still runs."""
    try:
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return None
    _live.discard(proc)
    return code


def stop_process(proc, grace_s=STOP_TIMEOUT_S):
    """SIGTERM, then SIGKILL if it has not exited after grace_s; reaps it. The exit code (negative
    for a signal), or None if it could not be reaped."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        code = reap(proc, grace_s)
        if code is not None:
            return code
        proc.kill()
    return reap(proc, 10)


@atexit.register
def _stop_leftovers():
    for proc in list(_live):
        if proc.poll() is None:
            sys.stderr.write("skiff_harness: pid %d (%s) still running at exit: stopping it\n"
                             % (proc.pid, " ".join(map(str, proc.args))[:200]))
            stop_process(proc, grace_s=5)
        _live.discard(proc)


class Broker:
    """One skiff process plus its data directory. Restartable on the same data directory."""

    def __init__(self, overrides=None, name="broker", preexec_fn=None):
        self.name = name
        self.overrides = dict(overrides or {})
        # Runs in the child before exec: e.g. resource.setrlimit for a test that needs the broker
        # to run out of file descriptors.
        self.preexec_fn = preexec_fn
        self.tmp = tempfile.mkdtemp(prefix="skiff-it-")
        self.data_dir = os.path.join(self.tmp, "data")
        self.proc = None
        self.port = None
        self.generation = 0
        self.log_path = None
        self.stopped_logs = []  # (path) of earlier generations, for the failure dump
        _all_brokers.append(self)

    # ---- lifecycle -------------------------------------------------------------------------
    def start(self):
        if self.proc is not None and self.proc.poll() is None:
            raise BrokerError("%s already running" % self.name)
        self.generation += 1
        self.log_path = os.path.join(self.tmp, "skiff-%d.log" % self.generation)
        self.stopped_logs.append(self.log_path)
        args = [binary(),
                "--override", "listeners=PLAINTEXT://127.0.0.1:0",
                "--override", "log.dirs=" + self.data_dir,
                # No metrics endpoint unless a test asks for one (on an ephemeral port: see
                # metrics_port()), so that brokers started in parallel never race for 9649.
                "--override", "metrics.listener=",
                # Nor a schema registry (see registry_port()): port 8081 is raced for the same way.
                "--override", "schema.registry.listeners=",
                # Nor a console (see console_port()): port 8080 likewise.
                "--override", "console.listeners="]
        for k, v in self.overrides.items():
            args += ["--override", "%s=%s" % (k, v)]
        with open(self.log_path, "wb") as log:
            self.proc = spawn(args, stdout=log, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, preexec_fn=self.preexec_fn)
        try:
            return self._wait_listening()
        except BaseException:  # also KeyboardInterrupt: no broker left behind a failed start
            if self.proc.poll() is None:
                self.kill()
            else:
                _live.discard(self.proc)  # exited: keep proc, tests read its returncode
            raise

    def _wait_listening(self):
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            m = LISTEN_RE.search(self.log_text())
            if m:
                self.port = int(m.group(1))
                if int(m.group(2)) != self.port:
                    raise BrokerError("advertised port %s != bound port %s" % (m.group(2), m.group(1)))
                return self
            if self.proc.poll() is not None:
                raise BrokerError("%s exited with %s before listening:\n%s"
                                  % (self.name, self.proc.returncode, self.log_text()))
            time.sleep(0.02)
        raise BrokerError("%s did not log its listening port within %.0fs:\n%s"
                          % (self.name, START_TIMEOUT_S, self.log_text()))

    def stop(self, expect_code=0):
        """Graceful shutdown with SIGTERM; asserts the exit code (0 by default)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = reap(self.proc, STOP_TIMEOUT_S)
        if code is None:
            self.proc.kill()
            reap(self.proc, 10)
            raise BrokerError("%s did not exit within %.0fs of SIGTERM:\n%s"
                              % (self.name, STOP_TIMEOUT_S, self.log_text()))
        self.proc = None
        if expect_code is not None and code != expect_code:
            raise BrokerError("%s exited with %s after SIGTERM (expected %s):\n%s"
                              % (self.name, code, expect_code, self.log_text()))
        return code

    def kill(self):
        """SIGKILL (crash simulation). Safe to call when not running."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.kill()
        code = reap(self.proc, 10)
        self.proc = None
        return code

    def restart(self, graceful=True):
        if graceful:
            self.stop()
        else:
            self.kill()
        return self.start()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def cleanup(self):
        """Kills the broker and removes its directory; safe to call again."""
        self.kill()
        if os.path.isdir(self.tmp):
            # Keep the logs for the failure dump before the directory goes.
            self._saved_logs = self._read_logs()
            shutil.rmtree(self.tmp, ignore_errors=True)

    def owned_by(self, test):
        """Has `test` clean this broker up however it ends, setUp failures included: a TestCase
        (from setUp or a test) or a TestCase class (from setUpClass). Returns the broker."""
        if isinstance(test, type):
            test.addClassCleanup(self.cleanup)
        else:
            test.addCleanup(self.cleanup)
        return self

    # ---- helpers ---------------------------------------------------------------------------
    @property
    def bootstrap(self):
        return "127.0.0.1:%d" % self.port

    def metrics_port(self):
        """The metrics endpoint's port, for a broker started with
        ``metrics.listener=HTTP://127.0.0.1:0`` (from its log line)."""
        m = METRICS_RE.search(self.log_text())
        if not m:
            raise BrokerError("%s logged no metrics endpoint:\n%s" % (self.name, self.log_text()))
        return int(m.group(1))

    def registry_port(self):
        """The schema registry's port, for a broker started with
        ``schema.registry.listeners=http://127.0.0.1:0`` (from its log line)."""
        return self._logged_port(REGISTRY_RE, "schema registry")

    def console_port(self):
        """The web console's port, for a broker started with
        ``console.listeners=http://127.0.0.1:0`` (from its log line)."""
        return self._logged_port(CONSOLE_RE, "console")

    def _logged_port(self, pattern, what):
        # The line may follow the Kafka listener's "listening" line by a moment (seen twice
        # under load): wait for it a while rather than read the log once.
        deadline = time.monotonic() + 10
        while True:
            m = pattern.search(self.log_text())
            if m:
                return int(m.group(1))
            if time.monotonic() > deadline:
                raise BrokerError("%s logged no %s:\n%s" % (self.name, what, self.log_text()))
            time.sleep(0.02)

    def log_text(self):
        if not self.log_path or not os.path.exists(self.log_path):
            return ""
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def _read_logs(self):
        out = []
        for p in self.stopped_logs:
            try:
                with open(p, "rb") as f:
                    out.append((p, f.read().decode("utf-8", "replace")))
            except OSError:
                pass
        return out

    def partition_dir(self, topic, partition):
        return os.path.join(self.data_dir, "%s-%d" % (topic, partition))

    def verify_log(self, topic, partition):
        """Runs ``skiff dump-log --verify`` on one partition directory; raises on failure."""
        d = self.partition_dir(topic, partition)
        r = subprocess.run([binary(), "dump-log", "--verify", d], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60)
        if r.returncode != 0:
            raise BrokerError("dump-log --verify %s exited %d:\n%s"
                              % (d, r.returncode, r.stdout.decode("utf-8", "replace")))
        return r.stdout.decode("utf-8", "replace")

    def dump_log(self, path):
        """Output of ``skiff dump-log PATH``; raises when it exits non-zero."""
        r = subprocess.run([binary(), "dump-log", path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60)
        if r.returncode != 0:
            raise BrokerError("dump-log %s exited %d:\n%s"
                              % (path, r.returncode, r.stdout.decode("utf-8", "replace")))
        return r.stdout.decode("utf-8", "replace")

    def health(self):
        r = subprocess.run([binary(), "health", "--bootstrap-server", self.bootstrap],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
        return r.returncode

    def __enter__(self):
        try:
            return self.start()
        except BaseException:  # __exit__ does not run when __enter__ fails
            self.cleanup()
            raise

    def __exit__(self, *exc):
        self.cleanup()
        return False


def dump_all_logs(stream=sys.stderr, tail_lines=200):
    for b in _all_brokers:
        logs = getattr(b, "_saved_logs", None)
        if logs is None:
            logs = b._read_logs()
        for path, text in logs:
            lines = text.splitlines()
            stream.write("\n===== %s log %s (last %d of %d lines) =====\n"
                         % (b.name, os.path.basename(path), min(tail_lines, len(lines)), len(lines)))
            stream.write("\n".join(lines[-tail_lines:]) + "\n")
    stream.flush()


def add_scram_user(data_dir, user, password):
    """`skiff user add` (both SCRAM mechanisms) in a broker's data directory, before it starts."""
    r = subprocess.run([binary(), "user", "add", user, "--password", password,
                        "--override", "log.dirs=" + data_dir],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert r.returncode == 0, r.stderr


def delivery_error(producer_conf, topic, timeout_s=20):
    """Produces one message with confluent-kafka and returns its delivery report's error (a
    KafkaError, or None when it was delivered)."""
    from confluent_kafka import Producer  # only the tests that call this need it
    reports = []
    p = Producer(dict(producer_conf, **{"message.timeout.ms": 10000}))
    p.produce(topic, b"x", on_delivery=lambda e, _m: reports.append(e))
    p.flush(timeout_s)
    assert len(reports) == 1, "no delivery report for %s within %s s" % (topic, timeout_s)
    return reports[0]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_with_a_taken_port(settings_for):
    """Runs skiff to its exit while a port of 127.0.0.1 is taken (a socket listening on it), to
    see how it refuses an address it cannot bind: settings_for(port) gives its settings beside a
    fresh log.dirs. Returns (exit code, output, port)."""
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with tempfile.TemporaryDirectory() as data:
            args = [binary(), "--override", "log.dirs=" + data]
            for key, value in settings_for(port).items():
                args += ["--override", "%s=%s" % (key, value)]
            run = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 timeout=30)
    finally:
        taken.close()
    return run.returncode, run.stdout.decode(errors="replace"), port


def recv_exactly(sock, n):
    """Exactly n bytes from sock; AssertionError if the broker closes the connection first."""
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise AssertionError("broker closed the connection")
        data += chunk
    return data


def api_versions_answered(port):
    """True when a broker on port answers an ApiVersions v0 request."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            client_id = b"skiff-harness"
            body = struct.pack(">hhih", 18, 0, 12345, len(client_id)) + client_id
            s.sendall(struct.pack(">i", len(body)) + body)
            head = b""
            while len(head) < 8:
                chunk = s.recv(8 - len(head))
                if not chunk:
                    return False
                head += chunk
            _, correlation = struct.unpack(">ii", head)
            return correlation == 12345
    except OSError:
        return False


def wait_until(predicate, timeout_s, interval_s=0.05, what="condition"):
    deadline = time.monotonic() + timeout_s
    while True:
        v = predicate()
        if v:
            return v
        if time.monotonic() >= deadline:
            raise AssertionError("timed out after %.1fs waiting for %s" % (timeout_s, what))
        time.sleep(interval_s)


def _interrupted(signum, _frame):
    # As Ctrl-C: unittest lets KeyboardInterrupt through (it records other exceptions as test
    # errors and goes on), so the cleanup in run_tests runs.
    raise KeyboardInterrupt("signal %d" % signum)


def run_tests():
    """Entry point: takes the skiff binary from argv[1], runs unittest, dumps logs on failure."""
    global _binary
    if len(sys.argv) < 2:
        sys.stderr.write("usage: %s /path/to/skiff [unittest args]\n" % sys.argv[0])
        sys.exit(2)
    _binary = os.path.abspath(sys.argv[1])
    if not os.access(_binary, os.X_OK):
        sys.stderr.write("skiff binary %s is not executable\n" % _binary)
        sys.exit(2)
    argv = [sys.argv[0]] + sys.argv[2:]
    signal.signal(signal.SIGTERM, _interrupted)
    try:
        prog = unittest.main(module="__main__", argv=argv, exit=False, verbosity=2)
        ok = prog.result.wasSuccessful()
    finally:
        for b in _all_brokers:
            try:
                b.cleanup()
            except Exception as e:  # cleanup must not hide the test result
                sys.stderr.write("cleanup of %s failed: %s\n" % (b.name, e))
    if not ok:
        dump_all_logs()
    sys.exit(0 if ok else 1)
