"""skiff's schema registry (issue 34) with the Go client lensesio/schema-registry 0.1.0 (Debian's
golang-github-lensesio-schema-registry-dev), against the real skiff binary.

    /usr/bin/python3 test_schema_registry_go.py /path/to/skiff

go_schema_registry/main.go, built here offline with GO111MODULE=off GOPATH=/usr/share/gocode,
registers Avro schemas (the same schema again and under another subject keeps its id, an
incompatible one is refused with 409, an invalid one with 42201), lists subjects and versions,
gets schemas by id, by version and the latest, asks whether a schema is registered (true, false
on 40403), reads 40401/40402/40403 from the client's own error value, checks compatibility and
sets a subject's level, deletes a version and a subject (soft, then hard) and reads the effects
back through the client, and registers from 8 goroutines at once (every id distinct). The client
sends its bodies chunked and without a Content-Type. Version 0.1.0 has no calls for compatibility,
levels or deletes: the program makes those requests with net/http. This test then checks, over
HTTP, that the registry holds what the program reported. Skipped, saying why, when `go` or the
package is missing.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402

GOPATH = "/usr/share/gocode"
CLIENT = os.path.join(GOPATH, "src/github.com/lensesio/schema-registry")
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go_schema_registry", "main.go")

MISSING = None
if shutil.which("go") is None:
    MISSING = "`go` not found (Debian package golang-go)"
elif not os.path.isdir(CLIENT):
    MISSING = ("lensesio/schema-registry not found in %s (Debian package "
               "golang-github-lensesio-schema-registry-dev)" % CLIENT)


@unittest.skipIf(MISSING is not None, "lensesio/schema-registry test skipped: %s" % MISSING)
class LensesioClientTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="skiff-go-sr-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.program = os.path.join(self.tmp, "go_schema_registry")
        env = dict(os.environ, GO111MODULE="off", GOPATH=GOPATH,
                   GOCACHE=os.path.join(self.tmp, "cache"), GOFLAGS="")
        subprocess.run(["nice", "-n", "10", "go", "build", "-o", self.program, SOURCE], env=env,
                       check=True, timeout=240)
        self.broker = skiff_harness.Broker({"schema.registry.listeners": "http://127.0.0.1:0"},
                                           name="registry").owned_by(self)
        self.broker.start()
        self.url = "http://127.0.0.1:%d" % self.broker.registry_port()

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            return json.loads(r.read())

    def test_lensesio_client(self):
        r = subprocess.run([self.program, self.url], capture_output=True, text=True, timeout=120)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        self.assertEqual(r.returncode, 0, "the Go program failed: %s" % r.stderr)
        line = [x for x in r.stdout.splitlines() if x.startswith("ok: lensesio/schema-registry ")]
        self.assertEqual(len(line), 1, r.stdout)
        ids = json.loads(line[0].split(" ", 2)[2])

        # What the program reported is what the registry holds.
        self.assertEqual(sorted(self.get("/subjects")),
                         ["go-par-%d" % w for w in range(8)] + ["go-users-value"])
        self.assertEqual(self.get("/subjects/go-users-value/versions"), [1, 2])
        self.assertEqual([self.get("/subjects/go-users-value/versions/%d" % v)["id"]
                          for v in (1, 2)], [ids["id1"], ids["id2"]])
        # The soft-deleted version 3's schema, still served by its id.
        id3 = json.loads(self.get("/schemas/ids/%d" % ids["id3"])["schema"])
        self.assertEqual([f["name"] for f in id3["fields"]], ["id", "email", "age", "city"])
        every = [ids["id1"], ids["id2"], ids["id3"]] + [i for w in ids["parallel"] for i in w]
        self.assertEqual(len(set(every)), 3 + 8 * 5, "ids handed out twice: %s" % every)
        for w, worker_ids in enumerate(ids["parallel"]):
            self.assertEqual([self.get("/subjects/go-par-%d/versions/%d" % (w, v))["id"]
                              for v in range(1, 6)], worker_ids)
        self.broker.stop()


if __name__ == "__main__":
    skiff_harness.run_tests()
