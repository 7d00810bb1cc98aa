"""Share groups (KIP-932) against the real skiff binary, consumed by real share consumers on
kafka-ts 1.5's low-level requests (node/kafka_ts_share_consumer.mjs: ShareGroupHeartbeat,
ShareFetch with share sessions and piggy-backed acknowledgements, ShareAcknowledge), records
produced with confluent-kafka.

    /usr/bin/python3 test_share_groups.py /path/to/skiff [ShareGroupsTest.test_name]

Checked, on a topic of three partitions:
- 1, 3 and 6 members that accept everything: every record accepted exactly once across the
  members, none delivered again after it was accepted;
- released records come back with a higher delivery count, rejected ones never again;
- a member that stops acknowledging (keeps heartbeating, holds the locks): its records go to
  another member once the group's share.record.lock.duration.ms (set with IncrementalAlterConfigs
  on the GROUP resource) passed, with delivery count 2; one whose connection closes (the process
  killed) loses its share session, and its records go to another member at once;
- a record always released is delivered five times (group.share.delivery.count.limit) and then
  archived: never a sixth time, while the records after it are consumed;
- share.isolation.level=read_committed skips an aborted transaction's records (confluent-kafka's
  transactional producer), read_uncommitted gets them;
- a ShareFetch's min_bytes is waited for (up to max_wait_ms) before records are acquired.
kill -9 in the middle: test_share_groups_crash.py; bad input: test_share_groups_bad_input.py.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from share_groups import (ACCEPT, RELEASE, REJECT, SHORT_LOCKS, Consumers,  # noqa: E402
                          ShareGroupTestBase, acks_by_record, create_topic, deliveries_by_record,
                          produce)

from confluent_kafka import Producer  # noqa: E402

PARTITIONS = 3


def keyed(n, prefix="k"):
    """n records spread over the partitions: (partition, key, value)."""
    return [(i % PARTITIONS, "%s%d" % (prefix, i), b"v%d" % i) for i in range(n)]


class ShareGroupsTest(ShareGroupTestBase):
    def start_broker(self, overrides=None):
        return skiff_harness.Broker(dict(SHORT_LOCKS, **(overrides or {})),
                                    name="share groups broker").owned_by(self).start()

    def records_of(self, broker, topic, n):
        """A topic of three partitions with n records; their (partition, offset) set."""
        create_topic(broker, topic, PARTITIONS)
        produce(broker, topic, keyed(n))
        per = [sum(1 for i in range(n) if i % PARTITIONS == p) for p in range(PARTITIONS)]
        return {(p, o) for p in range(PARTITIONS) for o in range(per[p])}

    def run_members(self, members, n):
        broker = self.start_broker()
        topic, group = "share-%d" % members, "sg-%d" % members
        expected = self.records_of(broker, topic, n)
        self.group_config(broker, group, share_auto_offset_reset="earliest")
        # Half the members acknowledge with ShareAcknowledge, half on their next ShareFetch.
        config = {"group": group, "topic": topic, "stopAfterFinal": n, "maxMs": 45000,
                  "maxRecords": 40, "batchSize": 40,
                  "members": [{"name": "m%d" % i, "ackWith": "ack" if i % 2 else "fetch"}
                              for i in range(members)]}
        events = self.consume(broker, config)
        self.assertEqual([e for e in events if e["event"] == "timeout"], [])
        self.assert_accepted_once(events, expected)
        by_member = {}
        for e in events:
            if e["event"] == "delivery":
                by_member[e["member"]] = by_member.get(e["member"], 0) + 1
        sys.stdout.write("deliveries per member (%d members): %s\n" % (members, by_member))
        # Accept-all: each record delivered once, with delivery count 1.
        self.assertEqual(sum(by_member.values()), n)
        return events

    def test_min_bytes_waits_for_that_many_bytes(self):
        """ShareFetch's min_bytes, as Kafka's DelayedShareFetch: records of about 1 KiB produced
        one at a time, 200 ms apart, after the member was assigned its partition; with
        min_bytes 4000 (and max_wait_ms 5000) its first fetch that delivers anything delivers
        at least four of them, where min_bytes 1 would answer the first one alone."""
        broker = self.start_broker()
        topic, group = "share-min-bytes", "sg-min-bytes"
        create_topic(broker, topic, 1)
        self.group_config(broker, group, share_auto_offset_reset="earliest")
        config = {"group": group, "topic": topic, "stopAfterFinal": 8, "maxMs": 45000,
                  "maxWaitMs": 5000, "minBytes": 4000, "members": [{"name": "m0"}]}
        consumers = Consumers(self, broker, config)
        deadline = time.monotonic() + 30
        while consumers.count("assignment") == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertGreater(consumers.count("assignment"), 0, "the member was never assigned")
        time.sleep(0.3)  # its first ShareFetch is waiting
        for i in range(8):
            produce(broker, topic, [(0, "k%d" % i, b"x" * 1000)])
            time.sleep(0.2)
        events = consumers.wait()
        fetched = [e["records"] for e in events if e["event"] == "fetched"]
        sys.stdout.write("records per fetch with min_bytes 4000: %s\n" % fetched)
        self.assertGreaterEqual(fetched[0], 4, "the first fetch delivered %s" % fetched)
        self.assert_accepted_once(events, {(0, o) for o in range(8)})

    def test_one_member_accepts_all(self):
        self.run_members(1, 300)

    def test_three_members_accept_all(self):
        self.run_members(3, 300)

    def test_six_members_accept_all(self):
        self.run_members(6, 300)

    def test_release_redelivers_and_reject_never_again(self):
        broker = self.start_broker()
        topic, group = "share-release", "sg-release"
        n = 30
        expected = self.records_of(broker, topic, n)
        self.group_config(broker, group, share_auto_offset_reset="earliest")
        rejected = ["k3", "k7", "k20"]
        behaviour = {"releaseFirst": 2, "rejectKeys": rejected}
        events = self.consume(broker, {
            "group": group, "topic": topic, "stopAfterFinal": n, "maxMs": 45000,
            "members": [dict(behaviour, name="a"), dict(behaviour, name="b", ackWith="ack")]})
        deliveries = deliveries_by_record(events)
        acks = acks_by_record(events)
        rejected_records = {(int(k[1:]) % PARTITIONS, int(k[1:]) // PARTITIONS) for k in rejected}
        for r in expected:
            counts = sorted(d["delivery_count"] for d in deliveries.get(r, []))
            applied = [t for _m, t, err in acks.get(r, []) if err == 0]
            if r in rejected_records:
                # Rejected at its first delivery: archived, never delivered again.
                self.assertEqual(counts, [1], r)
                self.assertEqual(applied, [REJECT], r)
                continue
            # Sorted: the member that released a record may print that after another member
            # got it again (its ShareFetch released it, then waited for more records).
            # Released twice, each time delivered again with the next count, then accepted.
            self.assertEqual(counts, [1, 2, 3], r)
            self.assertEqual(sorted(applied), [ACCEPT, RELEASE, RELEASE], r)

    def test_lock_expiry_redelivers_to_another_member(self):
        broker = self.start_broker()
        topic, group = "share-lock", "sg-lock"
        n = 12
        # One partition: the simple assignor gives it to both members (with two partitions
        # each member would have its own).
        create_topic(broker, topic, 1)
        produce(broker, topic, [(0, "k%d" % i, b"v") for i in range(n)])
        expected = {(0, o) for o in range(n)}
        self.group_config(broker, group, share_auto_offset_reset="earliest",
                          share_record_lock_duration_ms=2000)
        # The holder fetches once and never acknowledges; it keeps heartbeating, so it is only
        # the lock that gives its records away. The taker starts once the holder has records.
        events = self.consume(broker, {
            "group": group, "topic": topic, "stopAfterFinal": n, "maxMs": 45000,
            "members": [{"name": "holder", "hold": True, "fetches": 1},
                        {"name": "taker", "startAfter": "holder"}]})
        deliveries = deliveries_by_record(events)
        held = {r for r, ds in deliveries.items() if any(d["member"] == "holder" for d in ds)}
        self.assertTrue(held, "the holder got nothing")
        for r in held:
            self.assertEqual(sorted((d["member"], d["delivery_count"]) for d in deliveries[r]),
                             [("holder", 1), ("taker", 2)], r)
        self.assertEqual([e for e in events if e["event"] == "ack" and e["member"] == "holder"], [])
        self.assert_accepted_once(events, expected)

    def test_a_closed_connection_gives_its_records_away_at_once(self):
        broker = self.start_broker()
        topic, group = "share-conn", "sg-conn"
        n = 12
        create_topic(broker, topic, 1)
        produce(broker, topic, [(0, "k%d" % i, b"v") for i in range(n)])
        expected = {(0, o) for o in range(n)}
        # Locks far longer than the taker runs (20 s): only the holder's share session going with
        # its connection (as Kafka drops it) can give its records away in time. Its membership
        # stays until the session timeout (45 s), so neither can a fence.
        self.group_config(broker, group, share_auto_offset_reset="earliest",
                          share_record_lock_duration_ms=30000)
        holder = Consumers(self, broker, {
            "group": group, "topic": topic, "maxMs": 60000,
            "members": [{"name": "holder", "hold": True, "fetches": 1}]})
        try:
            skiff_harness.wait_until(lambda: holder.count("delivery") > 0, 30,
                                     what="records delivered to the holder")
        finally:
            holder.proc.kill()  # SIGKILL: its connections close with no goodbye
            skiff_harness.reap(holder.proc, 10)
            holder.reader.join(10)
            holder.proc.stdout.close()
            holder.proc.stderr.close()
        held = {(e["partition"], e["offset"]) for e in holder.events if e["event"] == "delivery"}
        events = self.consume(broker, {
            "group": group, "topic": topic, "stopAfterFinal": n, "maxMs": 20000,
            "members": [{"name": "taker"}]})
        self.assert_accepted_once(events, expected)
        deliveries = deliveries_by_record(events)
        for r in held:  # delivered once before, to the holder
            self.assertEqual([d["delivery_count"] for d in deliveries[r]], [2], r)

    def test_delivery_count_limit_archives(self):
        broker = self.start_broker()
        topic, group = "share-poison", "sg-poison"
        create_topic(broker, topic, 1)
        produce(broker, topic, [(0, "ok%d" % i, b"x") for i in range(3)] + [(0, "poison", b"p")]
                + [(0, "ok%d" % i, b"x") for i in range(3, 6)])
        self.group_config(broker, group, share_auto_offset_reset="earliest")
        # Stops after 3 s without a delivery: a released record is available again at once, so
        # the poison would come back within that time if it were not archived.
        events = self.consume(broker, {
            "group": group, "topic": topic, "idleMs": 3000, "maxMs": 45000,
            "members": [{"name": "a", "releaseKeys": ["poison"]},
                        {"name": "b", "releaseKeys": ["poison"], "ackWith": "ack"}]})
        deliveries = deliveries_by_record(events)
        self.assertEqual(sorted(d["delivery_count"] for d in deliveries[(0, 3)]), [1, 2, 3, 4, 5])
        self.assert_accepted_once(events, {(0, o) for o in range(7) if o != 3})
        # A new member of the group later gets nothing: the poison is archived, the rest accepted.
        produce(broker, topic, [(0, "after", b"a")])
        later = self.consume(broker, {"group": group, "topic": topic, "stopAfterFinal": 1,
                                      "idleMs": 3000, "maxMs": 30000, "members": [{"name": "c"}]})
        self.assertEqual([(d["offset"], d["key"]) for d in later if d["event"] == "delivery"],
                         [(7, "after")])

    def test_read_committed_skips_aborted(self):
        broker = self.start_broker()
        topic = "share-txn"
        create_topic(broker, topic, 1)
        p = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": "share-txn"})
        p.init_transactions(30)
        for keys, commit in ((["c0", "c1", "c2"], True), (["a0", "a1"], False), (["c3"], True)):
            p.begin_transaction()
            for k in keys:
                p.produce(topic, b"v", k, partition=0)
            p.flush(30)
            if commit:
                p.commit_transaction(30)
            else:
                p.abort_transaction(30)
        for group, isolation, keys in (
                ("sg-committed", "read_committed", ["c0", "c1", "c2", "c3"]),
                ("sg-uncommitted", "read_uncommitted", ["c0", "c1", "c2", "a0", "a1", "c3"])):
            self.group_config(broker, group, share_auto_offset_reset="earliest",
                              share_isolation_level=isolation)
            events = self.consume(broker, {"group": group, "topic": topic, "idleMs": 2500,
                                           "stopAfterFinal": len(keys) + 5, "maxMs": 30000,
                                           "members": [{"name": "m"}]})
            got = [d["key"] for d in events if d["event"] == "delivery"]
            self.assertEqual(got, keys, isolation)
            # Every acquired offset acknowledged: records accepted, the markers' offsets as gaps.
            self.assertEqual([e for e in events if e["event"] == "ack" and e["error"]], [])


if __name__ == "__main__":
    skiff_harness.run_tests()
