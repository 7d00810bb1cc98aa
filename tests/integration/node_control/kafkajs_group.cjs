// KafkaJS 2.2.4 consumer-group member for test_control_api.py (run with NODE_PATH at the
// node_modules of node_schema_registry/'s install). Usage:
//   node kafkajs_group.cjs BOOTSTRAP TOPIC GROUP CLIENT_ID EXPECTED
// Subscribes, commits after every batch (autoCommit with threshold 1), prints "seen N" whenever
// the number of distinct values grows, and once it has seen EXPECTED distinct values and their
// commit went through, prints "done {json}" and exits 0. The Python side injects the faults.
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic, groupId, clientId, expectedText] = process.argv.slice(2);
const expected = Number(expectedText);

async function main() {
  const kafka = new Kafka({
    clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING,
    connectionTimeout: 3000, requestTimeout: 5000,
    retry: { initialRetryTime: 100, maxRetryTime: 1000, retries: 20 },
  });
  const consumer = kafka.consumer({
    groupId, sessionTimeout: 6000, heartbeatInterval: 200, maxWaitTimeInMs: 100,
    retry: { initialRetryTime: 100, maxRetryTime: 1000, retries: 20 },
  });
  const seen = new Map();
  let crashes = 0;
  consumer.on(consumer.events.CRASH, (e) => {
    crashes += 1;
    process.stderr.write(`crash (restart: ${e.payload.restart}): ${e.payload.error}\n`);
  });
  let finished;
  const done = new Promise((resolve) => { finished = resolve; });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    autoCommit: true, autoCommitThreshold: 1,
    eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, heartbeat }) => {
      const before = seen.size;
      for (const m of batch.messages) {
        const v = m.value.toString();
        seen.set(v, (seen.get(v) || 0) + 1);
        resolveOffset(m.offset);
      }
      await commitOffsetsIfNecessary();
      await heartbeat();
      if (seen.size !== before) process.stdout.write(`seen ${seen.size}\n`);
      if (seen.size >= expected) finished();
    },
  });
  await done;
  // The last batch's offsets are committed (commitOffsetsIfNecessary ran with threshold 1);
  // disconnecting commits anything left.
  await consumer.disconnect();
  const duplicates = [...seen.values()].filter((n) => n > 1).length;
  process.stdout.write(`done ${JSON.stringify({ distinct: seen.size, duplicates, crashes })}\n`);
}

main().then(() => process.exit(0), (e) => {
  process.stderr.write(`failed: ${e && e.stack || e}\n`);
  process.exit(1);
});
