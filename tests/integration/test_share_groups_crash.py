"""Share groups (KIP-932) across kill -9 of the broker, three times while share consumers on
kafka-ts 1.5 (node/kafka_ts_share_consumer.mjs) consume: they reconnect, rejoin when fenced,
open new share sessions, and go on.

    /usr/bin/python3 test_share_groups_crash.py /path/to/skiff

Checked, from the consumers' events:
- a record whose acceptance the broker answered is never delivered again;
- records acquired but not acknowledged when the broker died are delivered again, with a
  higher delivery count (the count is in __share_group_state, written when they were acquired);
- every record ends up accepted, once;
- a poison record, released at every delivery, stops at the delivery count limit (5) across the
  crashes: never a count given twice, never a sixth delivery.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skiff_harness  # noqa: E402
from share_groups import (ACCEPT, SHORT_LOCKS, Consumers, ShareGroupTestBase,  # noqa: E402
                          acks_by_record, create_topic, deliveries_by_record, produce)

PARTITIONS = 3
RECORDS = 900
KILLS = 3


class ShareGroupCrashTest(ShareGroupTestBase):
    def test_kill_9_while_consuming(self):
        self.crash_while_consuming({})

    def test_kill_9_while_consuming_in_durable_mode(self):
        # Durable mode answers a ShareFetch or ShareAcknowledge once its __share_group_state
        # records are synced by a group-commit thread (not on the network thread): the same
        # promises hold.
        self.crash_while_consuming({"log.flush.interval.messages": 1})

    def crash_while_consuming(self, overrides):
        port = skiff_harness.free_port()
        broker = skiff_harness.Broker(dict(SHORT_LOCKS, listeners="PLAINTEXT://127.0.0.1:%d" % port,
                                           **overrides),
                                      name="share crash broker").owned_by(self).start()
        topic, group = "share-crash", "sg-crash"
        create_topic(broker, topic, PARTITIONS)
        records = [(i % PARTITIONS, "k%d" % i, b"v" * 100) for i in range(RECORDS)]
        poison_index = 4  # partition 1, offset 1
        records[poison_index] = (poison_index % PARTITIONS, "poison", b"p")
        # Batches of 10: a share fetch acquires whole batches, so fetches of 15 records take
        # one or two of them, and the kills find records in every state.
        produce(broker, topic, records, batch_records=10)
        self.group_config(broker, group, share_auto_offset_reset="earliest",
                          share_record_lock_duration_ms=3000)
        # Small fetches so that the kills land in the middle; every member releases the poison.
        stop_file = os.path.join(broker.tmp, "stop")
        consumers = Consumers(self, broker, {
            "group": group, "topic": topic, "maxRecords": 15, "batchSize": 15, "maxMs": 120000,
            "stopFile": stop_file,
            "members": [{"name": "m%d" % i, "releaseKeys": ["poison"], "processMs": 100,
                         "ackWith": "ack" if i == 2 else "fetch"} for i in range(3)]})
        try:
            for k in range(KILLS):
                target = (k + 1) * RECORDS // (KILLS + 2)
                skiff_harness.wait_until(lambda: consumers.count("delivery") >= target, 60,
                                         what="%d deliveries before kill %d" % (target, k + 1))
                broker.kill()
                broker.start()
            # Then until every record is accepted or archived, and a little more so that a record
            # delivered again after its acceptance would show.
            def settled():
                acks = acks_by_record(consumers.events)
                done = sum(1 for a in acks.values()
                           if any(t == ACCEPT and e in (0, -1) for _m, t, e in a))
                return done >= RECORDS - 1
            skiff_harness.wait_until(settled, 90, interval_s=0.2, what="every record accepted")
            time.sleep(4)  # past a lock (3 s): anything still held would come back
        finally:
            open(stop_file, "w").close()
        events = consumers.wait()

        expected = {(p, o) for p in range(PARTITIONS) for o in range(RECORDS // PARTITIONS)}
        poison = (poison_index % PARTITIONS, poison_index // PARTITIONS)
        deliveries = deliveries_by_record(events)
        self.assert_accepted_once(events, expected - {poison})
        counts = [d["delivery_count"] for d in deliveries[poison]]
        self.assertEqual(sorted(counts), list(range(1, len(counts) + 1)),
                         "the poison's delivery counts: %s" % counts)
        self.assertLessEqual(max(counts), 5)
        self.assertEqual(max(counts), 5, "the poison never reached the limit: %s" % counts)
        # The crashes did land while records were held: some were delivered again.
        again = [r for r, ds in deliveries.items() if r != poison and len(ds) > 1]
        sys.stdout.write("records delivered again after a crash: %d; fenced events: %d\n"
                         % (len(again), sum(1 for e in events if e["event"] == "fenced")))
        for r in again:
            counts = sorted(d["delivery_count"] for d in deliveries[r])
            self.assertEqual(counts, list(range(1, len(counts) + 1)), r)


if __name__ == "__main__":
    skiff_harness.run_tests()
