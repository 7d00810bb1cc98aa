"""`skiff user` against the real binary: add, list, remove SCRAM users in the data directory.

    /usr/bin/python3 test_user_command.py /path/to/skiff

Checks the exit codes, that the credentials file never holds a password, that what it holds is
RFC 5802's StoredKey / ServerKey for the password (recomputed here with hashlib), that the data
directory is found the way the broker finds it (--override, --config, SKIFF_LOG_DIRS), and that a
broker started on that data directory still starts and stops cleanly.
"""

import base64
import hashlib
import hmac
import os
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

CREDENTIALS_FILE = "scram-credentials"
HASHES = {"SCRAM-SHA-256": hashlib.sha256, "SCRAM-SHA-512": hashlib.sha512}


def clean_env():
    """The environment without any SKIFF_* setting, so that only the test's choices apply."""
    return {k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")}


def run_user(args, data_dir=None, env=None, stdin=None):
    cmd = [skiff_harness.binary(), "user"] + args
    if data_dir is not None:
        cmd += ["--override", "log.dirs=" + data_dir]
    r = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env if env is not None else clean_env(), timeout=60)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def read_credentials(data_dir):
    """{(user, mechanism): (iterations, salt, stored_key, server_key)} from the file."""
    with open(os.path.join(data_dir, CREDENTIALS_FILE)) as f:
        lines = [line for line in f.read().splitlines() if not line.startswith("#")]
    assert lines[0] == "version 1", lines
    assert lines[-1] == "end %d" % (len(lines) - 2), lines
    out = {}
    for line in lines[1:-1]:
        user, mechanism, iterations, salt, stored, server = line.split(" ")
        out[(base64.b64decode(user).decode(), mechanism)] = (
            int(iterations), base64.b64decode(salt), base64.b64decode(stored),
            base64.b64decode(server))
    return out


def expected_keys(mechanism, password, salt, iterations):
    """RFC 5802: StoredKey = H(HMAC(SaltedPassword, "Client Key")), ServerKey = HMAC(..., "Server Key")."""
    h = HASHES[mechanism]
    salted = hashlib.pbkdf2_hmac(h().name, password.encode(), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", h).digest()
    return h(client_key).digest(), hmac.new(salted, b"Server Key", h).digest()


class UserCommandTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="skiff-user-")
        self.data_dir = os.path.join(self.tmp, "data")

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.tmp])

    def assert_user(self, args, code=0, data_dir=None, **kw):
        rc, out, err = run_user(args, data_dir or self.data_dir, **kw)
        self.assertEqual(rc, code, "skiff user %s: exit %d\nstdout: %s\nstderr: %s"
                         % (" ".join(args), rc, out, err))
        return out, err

    def test_add_list_remove(self):
        passwords = {"alice": "alice-Secret-1", "bob": "bob-Secret-2", "c,a=rol": "carol-Secret-3"}
        self.assert_user(["add", "alice", "--password", passwords["alice"]])
        self.assert_user(["add", "bob", "--password", passwords["bob"], "--mechanism",
                          "SCRAM-SHA-512", "--iterations", "8192"])
        self.assert_user(["add", "c,a=rol", "--password-file", "-"],
                         stdin=(passwords["c,a=rol"] + "\n").encode())

        path = os.path.join(self.data_dir, CREDENTIALS_FILE)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        with open(path, "rb") as f:
            raw = f.read()
        for pw in passwords.values():
            self.assertNotIn(pw.encode(), raw)

        creds = read_credentials(self.data_dir)
        self.assertEqual(sorted(creds), [
            ("alice", "SCRAM-SHA-256"), ("alice", "SCRAM-SHA-512"), ("bob", "SCRAM-SHA-512"),
            ("c,a=rol", "SCRAM-SHA-256"), ("c,a=rol", "SCRAM-SHA-512")])
        for (user, mechanism), (iterations, salt, stored, server) in creds.items():
            self.assertEqual(iterations, 8192 if user == "bob" else 4096)
            self.assertEqual(len(salt), 32)
            self.assertEqual((stored, server),
                             expected_keys(mechanism, passwords[user], salt, iterations),
                             "%s %s" % (user, mechanism))
        self.assertNotEqual(creds[("alice", "SCRAM-SHA-256")][1],
                            creds[("c,a=rol", "SCRAM-SHA-256")][1], "salts must be random")

        out, _ = self.assert_user(["list"])
        self.assertEqual(out.splitlines(), [
            "alice\tSCRAM-SHA-256 (iterations 4096), SCRAM-SHA-512 (iterations 4096)",
            "bob\tSCRAM-SHA-512 (iterations 8192)",
            "c,a=rol\tSCRAM-SHA-256 (iterations 4096), SCRAM-SHA-512 (iterations 4096)"])
        for pw in passwords.values():
            self.assertNotIn(pw, out)

        # A new password replaces the old credential.
        old = creds[("alice", "SCRAM-SHA-256")]
        out, _ = self.assert_user(["add", "alice", "--password", "alice-New-4", "--mechanism",
                                   "SCRAM-SHA-256"])
        self.assertIn("updated", out)
        new = read_credentials(self.data_dir)[("alice", "SCRAM-SHA-256")]
        self.assertNotEqual(new[2], old[2])
        self.assertEqual(new[2:], expected_keys("SCRAM-SHA-256", "alice-New-4", new[1], 4096))

        self.assert_user(["remove", "bob"])
        _, err = self.assert_user(["remove", "bob"], code=1)
        self.assertIn("no user 'bob'", err)
        out, _ = self.assert_user(["list"])
        self.assertEqual([line.split("\t")[0] for line in out.splitlines()], ["alice", "c,a=rol"])

    def test_usage_errors(self):
        for args in (["add", "alice"],                                   # no password
                     ["add", "alice", "--password", ""],
                     ["add", "--password", "pw"],                        # no name
                     ["add", "a", "b", "--password", "pw"],
                     ["add", "alice", "--password", "pw", "--mechanism", "PLAIN"],
                     ["add", "alice", "--password", "pw", "--iterations", "4095"],
                     ["add", "alice", "--password", "pw", "--iterations", "16385"],
                     ["add", "alice", "--password", "pw", "--iterations", "lots"],
                     ["remove"],
                     ["list", "extra"],
                     ["list", "--password", "pw"],
                     ["frobnicate"],
                     [],
                     ["list", "--override", "log.segment.bytes=banana"]):
            self.assert_user(args, code=2)
        self.assertFalse(os.path.exists(os.path.join(self.data_dir, CREDENTIALS_FILE)))
        out, _ = self.assert_user(["--help"])
        self.assertIn("skiff user add NAME", out)

    def test_finds_the_data_directory_like_the_broker(self):
        # --config FILE
        config = os.path.join(self.tmp, "server.properties")
        with open(config, "w") as f:
            f.write("log.dirs=%s\n" % self.data_dir)
        rc, out, err = run_user(["add", "alice", "--password", "pw-1", "--config", config])
        self.assertEqual(rc, 0, err)
        self.assertIn(("alice", "SCRAM-SHA-256"), read_credentials(self.data_dir))
        # The SKIFF_LOG_DIRS setting, as the container image sets it.
        env = clean_env()
        env["SKIFF_LOG_DIRS"] = self.data_dir
        rc, out, err = run_user(["list"], env=env)
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.startswith("alice\t"), out)
        # --override beats both.
        other = os.path.join(self.tmp, "other")
        rc, out, err = run_user(["list", "--config", config], data_dir=other, env=env)
        self.assertEqual((rc, out), (0, ""), err)

    def test_corrupt_file_is_an_error(self):
        self.assert_user(["add", "alice", "--password", "pw-1"])
        path = os.path.join(self.data_dir, CREDENTIALS_FILE)
        with open(path) as f:
            good = f.read()
        with open(path, "w") as f:
            f.write(good.replace("end 2\n", ""))
        _, err = self.assert_user(["list"], code=1)
        self.assertIn("corrupt", err)
        _, err = self.assert_user(["add", "bob", "--password", "pw-2"], code=1)
        with open(path) as f:
            self.assertEqual(f.read(), good.replace("end 2\n", ""), "a corrupt file is left alone")

    def test_broker_starts_on_the_data_directory(self):
        broker = skiff_harness.Broker(name="user-command")
        self.assert_user(["add", "admin", "--password", "admin-Secret-9"],
                         data_dir=broker.data_dir)
        path = os.path.join(broker.data_dir, CREDENTIALS_FILE)
        with open(path, "rb") as f:
            before = f.read()
        try:
            broker.start()
            self.assertEqual(broker.health(), 0)
            broker.stop()
            broker.start()  # and again, on the data directory it wrote itself
            self.assertEqual(broker.health(), 0)
            broker.stop()
        finally:
            if broker.alive():
                broker.kill()
        with open(path, "rb") as f:
            self.assertEqual(f.read(), before)
        out, _ = self.assert_user(["list"], data_dir=broker.data_dir)
        self.assertTrue(out.startswith("admin\t"), out)


if __name__ == "__main__":
    skiff_harness.run_tests()
