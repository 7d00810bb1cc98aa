"""The console's view of a KIP-932 share group (docs/console-api.md, "Consumer groups": GET
/api/groups and GET /api/groups/{group} of type `share`) against the real skiff binary, with
real share consumers on the Kafka side: node/kafka_ts_share_consumer.mjs (kafka-ts 1.5's
ShareGroupHeartbeat, ShareFetch and ShareAcknowledge, driven through share_groups.py), records
produced with confluent-kafka. What a user reads in the console must be what the consumers did.

    /usr/bin/python3 test_console_share_groups.py /path/to/skiff [Class.test_name]

Checked, on a topic of three partitions holding a different number of records each:
1. While two share consumers are members and have accepted every record, GET /api/groups lists
   the group as type `share`, state `Stable`, 2 members; GET /api/groups/{group} shows the two
   members (their client id and subscription, each at the group's epoch) with the assignments
   the consumers were given, covering the three partitions exactly once between them, and per
   partition a start offset (and committed offset) equal to the log end offset, lag 0.
2. Once the consumers left: state `Empty`, no members, the start offsets kept; records produced
   after that show as lag, per partition and in total, the start offsets unchanged.
3. A group id that does not exist: 404 with GROUP_ID_NOT_FOUND, and it is not listed.
Skipped without Node.js 20.19.4+ (the pinned clients need it).
"""

import json
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from share_groups import (ACCEPT, SHORT_LOCKS, Consumers, ShareGroupTestBase,  # noqa: E402
                          acks_by_record, create_topic, produce)

TOPIC = "console-share-orders"
GROUP = "console-share"
# A different count per partition, so that an offset or a lag shown on the wrong partition fails.
PER_PARTITION = {0: 7, 1: 4, 2: 11}
# Produced once the consumers left: the lag the console must then show.
LATER = {0: 3, 1: 0, 2: 5}
CLIENT_ID = "kafka-ts-share"  # node/kafka_ts_share_consumer.mjs's client id


def http_get(url):
    """(status, JSON body) of a GET, error statuses included."""
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode())


def records(per_partition, prefix):
    """(partition, key, value) tuples: per_partition[p] records on partition p."""
    return [(p, "%s-%d-%d" % (prefix, p, i), b"v%d" % i)
            for p, n in per_partition.items() for i in range(n)]


class ConsoleShareGroupsTest(ShareGroupTestBase):
    @classmethod
    def setUpClass(cls):
        # Read-only (the default, said here): every route used is a GET.
        cls.broker = skiff_harness.Broker(
            dict(SHORT_LOCKS, **{"console.listeners": "http://127.0.0.1:0",
                                 "console.read.only": "true"}),
            name="console share groups").owned_by(cls)
        cls.broker.start()
        cls.api = "http://127.0.0.1:%d/api" % cls.broker.console_port()

    # ---- the console -----------------------------------------------------------------------
    def described(self, group):
        status, body = http_get(self.api + "/groups/" + urllib.parse.quote(group, safe=""))
        self.assertEqual(status, 200, body)
        return body

    def listed(self, group):
        """The group's row in GET /api/groups, or None."""
        status, body = http_get(self.api + "/groups")
        self.assertEqual(status, 200, body)
        rows = [g for g in body["groups"] if g["group_id"] == group]
        self.assertLessEqual(len(rows), 1, body)
        return rows[0] if rows else None

    def offsets_by_partition(self, body):
        """{partition: (start_offset, committed_offset, log_end_offset, lag)} of the topic."""
        rows = [o for o in body["offsets"] if o["topic"] == TOPIC]
        self.assertEqual(len(rows), len({o["partition"] for o in rows}), body["offsets"])
        return {o["partition"]: (o["start_offset"], o["committed_offset"], o["log_end_offset"],
                                 o["lag"]) for o in rows}

    def assigned(self, member):
        """The member's assignment: its partitions of the topic, sorted."""
        self.assertEqual([a["topic"] for a in member["assignment"]], [TOPIC], member)
        return sorted(member["assignment"][0]["partitions"])

    # ---- the consumers ---------------------------------------------------------------------
    def start_consumers(self, names):
        """Share consumers of GROUP that accept everything and stay members until stopped."""
        tmp = tempfile.mkdtemp(prefix="skiff-console-share-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        stop_file = os.path.join(tmp, "stop")
        # Half acknowledge with ShareAcknowledge, half on their next ShareFetch.
        consumers = Consumers(self, self.broker, {
            "group": GROUP, "topic": TOPIC, "stopFile": stop_file, "maxMs": 60000,
            "members": [{"name": n, "ackWith": "ack" if i % 2 else "fetch"}
                        for i, n in enumerate(names)]})
        consumers.stop_file = stop_file
        self.addCleanup(self.kill_consumers, consumers)  # however the test ends
        return consumers

    @staticmethod
    def kill_consumers(consumers):
        """Stops the node process if the test did not (a failure), and closes its pipes."""
        if consumers.proc.poll() is None:
            skiff_harness.stop_process(consumers.proc, grace_s=5)
        consumers.reader.join(5)
        for pipe in (consumers.proc.stdout, consumers.proc.stderr):
            if not pipe.closed:
                pipe.close()

    @staticmethod
    def stop_consumers(consumers):
        """Has them send what they owe and leave the group; their events."""
        open(consumers.stop_file, "w").close()
        return consumers.wait(30)

    @staticmethod
    def events_of(consumers):
        with consumers.lock:
            return list(consumers.events)

    def accepted(self, consumers):
        """The (partition, offset) records whose ACCEPT the broker applied."""
        return {r for r, acks in acks_by_record(self.events_of(consumers)).items()
                if any(t == ACCEPT and err == 0 for _m, t, err in acks)}

    def last_assignments(self, consumers):
        """{member name: partitions} from each consumer's latest assignment event."""
        return {e["member"]: sorted(e["partitions"]) for e in self.events_of(consumers)
                if e["event"] == "assignment"}

    # ---- the tests -------------------------------------------------------------------------
    def test_1_share_group_as_its_consumers_see_it(self):
        partitions = sorted(PER_PARTITION)
        create_topic(self.broker, TOPIC, len(partitions))
        produce(self.broker, TOPIC, records(PER_PARTITION, "k"))
        self.group_config(self.broker, GROUP, share_auto_offset_reset="earliest")
        expected = {(p, o) for p, n in PER_PARTITION.items() for o in range(n)}

        consumers = self.start_consumers(["a", "b"])
        skiff_harness.wait_until(lambda: self.accepted(consumers) >= expected, 30,
                                 what="every record accepted")

        # Settled: both members at the group's epoch, shown with the assignments the consumers
        # last received (ShareGroupHeartbeat), as a user would compare them.
        def settled():
            body = self.described(GROUP)
            members = body["members"]
            if len(members) != 2 or any(m["member_epoch"] != body["group_epoch"]
                                        for m in members):
                return None
            theirs = sorted(self.last_assignments(consumers).values())
            return body if sorted(self.assigned(m) for m in members) == theirs else None
        body = skiff_harness.wait_until(settled, 20, interval_s=0.2,
                                        what="two members at the group's epoch, as assigned")

        status, overview = http_get(self.api + "/overview")
        self.assertEqual(status, 200, overview)
        self.assertEqual((body["group_id"], body["type"], body["state"], body["protocol_type"],
                          body["protocol"], body["coordinator"]),
                         (GROUP, "share", "Stable", "share", "simple", overview["node_id"]))
        members = body["members"]
        self.assertEqual(len({m["member_id"] for m in members}), 2, members)
        for m in members:
            self.assertEqual((m["client_id"], m["host"], m["subscribed_topics"]),
                             (CLIENT_ID, "/127.0.0.1", [TOPIC]), m)
            self.assertTrue(self.assigned(m), "a member with nothing assigned: %s" % members)
        # Two members, three partitions: every partition to exactly one of them.
        owned = [p for m in members for p in self.assigned(m)]
        self.assertEqual(sorted(owned), partitions, members)
        # Every record accepted: each share-partition starts at its log end, nothing left.
        self.assertEqual(self.offsets_by_partition(body),
                         {p: (n, n, n, 0) for p, n in PER_PARTITION.items()})
        self.assertEqual(body["lag"], 0)
        self.assertEqual(self.listed(GROUP), {"group_id": GROUP, "type": "share",
                                              "state": "Stable", "protocol_type": "share",
                                              "members": 2})

        # The consumers leave: the group is empty and keeps its start offsets.
        events = self.stop_consumers(consumers)
        self.assert_accepted_once(events, expected)
        self.assertEqual(sorted(e["error"] for e in events if e["event"] == "left"), [0, 0])
        body = skiff_harness.wait_until(
            lambda: (lambda b: b if b["state"] == "Empty" else None)(self.described(GROUP)),
            10, interval_s=0.2, what="the group Empty")
        self.assertEqual((body["type"], body["members"]), ("share", []))
        self.assertEqual(self.offsets_by_partition(body),
                         {p: (n, n, n, 0) for p, n in PER_PARTITION.items()})
        self.assertEqual(body["lag"], 0)
        self.assertEqual(self.listed(GROUP), {"group_id": GROUP, "type": "share",
                                              "state": "Empty", "protocol_type": "share",
                                              "members": 0})

        # Records nobody consumed yet: the lag, the start offsets where the consumers left them.
        produce(self.broker, TOPIC, records(LATER, "later"))
        body = self.described(GROUP)
        self.assertEqual(self.offsets_by_partition(body),
                         {p: (n, n, n + LATER[p], LATER[p]) for p, n in PER_PARTITION.items()})
        self.assertEqual(body["lag"], sum(LATER.values()))
        self.assertEqual((body["state"], body["members"]), ("Empty", []))

    def test_2_unknown_group_is_not_found(self):
        group = "no-such-share-group"
        status, body = http_get(self.api + "/groups/" + group)
        self.assertEqual(status, 404, body)
        self.assertEqual((body["error_code"], body["kafka_error"]), (404, "GROUP_ID_NOT_FOUND"))
        self.assertIn(group, body["message"])
        self.assertIsNone(self.listed(group))


if __name__ == "__main__":
    skiff_harness.run_tests()
