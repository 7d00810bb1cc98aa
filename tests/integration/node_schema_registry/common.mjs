// Shared by the scripts of test_schema_registry_node.py: moving bytes through skiff with KafkaJS
// and the checks every script makes. A failed check throws, the script exits 1 with the message.

import assert from 'node:assert/strict';
import { createFileRegistry, fromBinary, fromJson, toJson } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, file_google_protobuf_timestamp } from '@bufbuild/protobuf/wkt';
import kafkajs from 'kafkajs';

const { Kafka, logLevel, Partitioners } = kafkajs;

export const TIMEOUT_MS = 60000;

export function kafka(bootstrap, clientId) {
  return new Kafka({
    clientId,
    brokers: [bootstrap],
    logLevel: logLevel.ERROR,
    connectionTimeout: 10000,
    requestTimeout: 30000,
    retry: { retries: 8 },
  });
}

// Deep equality of plain data: avsc records and protobufjs messages are class instances, so
// both sides go through JSON first.
export function sameData(actual, expected, what) {
  assert.deepStrictEqual(JSON.parse(JSON.stringify(actual)), JSON.parse(JSON.stringify(expected)),
    what);
}

// The error a promise rejects with; fails when it resolves.
export async function rejection(promise, what) {
  try {
    const value = await promise;
    assert.fail(`${what}: expected an error, got ${JSON.stringify(value)}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    return e;
  }
}

export async function createTopic(k, topic) {
  const admin = k.admin();
  await admin.connect();
  try {
    const created = await admin.createTopics({
      topics: [{ topic, numPartitions: 1 }], waitForLeaders: true, timeout: 30000,
    });
    assert.equal(created, true, `topic ${topic} created`);
  } finally {
    await admin.disconnect();
  }
}

// Produces every value (Buffers) to partition 0 of topic, in order, with an idempotent producer;
// checks the offsets the broker assigned are first..first+n-1.
export async function produceAll(k, topic, values, first = 0) {
  const producer = k.producer({ idempotent: true, maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    const offsets = [];
    for (let start = 0; start < values.length; start += 50) {
      const chunk = values.slice(start, start + 50);
      const result = await producer.send({
        topic, acks: -1,
        messages: chunk.map((value, i) => ({
          partition: 0, key: `k${first + start + i}`, value,
        })),
      });
      assert.equal(result.length, 1, 'one partition answered');
      offsets.push(Number(result[0].baseOffset));
    }
    assert.deepStrictEqual(offsets, values.map((_, i) => first + i).filter((_, i) => i % 50 === 0),
      `base offsets of the produced batches of ${topic}`);
  } finally {
    await producer.disconnect();
  }
}

// Every record of partition 0 of topic, read by a fresh consumer group from the beginning: the
// broker must hold exactly n (its high watermark), and the consumer must see offsets 0..n-1, each
// once, in order. Returns [{offset, key, value}] with Buffer values.
export async function consumeAll(k, topic, n, group) {
  const admin = k.admin();
  await admin.connect();
  try {
    const [p0] = await admin.fetchTopicOffsets(topic);
    assert.equal(Number(p0.high), n, `records in ${topic} (high watermark)`);
  } finally {
    await admin.disconnect();
  }
  // A group of its own each time: nothing committed before decides where it starts.
  const consumer = k.consumer({ groupId: `${group}-${process.pid}-${Date.now()}`,
    maxWaitTimeInMs: 200 });
  const got = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${got.length} of ${n} records of ${topic} read in ${TIMEOUT_MS} ms`)),
        TIMEOUT_MS);
      consumer.run({
        eachMessage: async ({ partition, message }) => {
          assert.equal(partition, 0);
          got.push({ offset: Number(message.offset), key: message.key?.toString(), value: message.value });
          if (got.length >= n) {
            clearTimeout(timer);
            resolve();
          }
        },
      }).catch(reject);
    });
    // Anything delivered twice shows up in the offsets after a short wait.
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    await consumer.disconnect();
  }
  assert.deepStrictEqual(got.map((r) => r.offset), [...Array(n).keys()],
    `offsets consumed from ${topic}`);
  return got;
}

// Protobuf messages of type typeName from a schema in the registry's serialized form (base64
// FileDescriptorProto, ?format=serialized), as @confluentinc/schemaregistry's Protobuf serde
// needs them: `registry` for the serializer, `encode` makes a message from the proto JSON
// mapping, `plain` turns a (deserialized) message back into it.
export function protobufCodec(serialized, typeName) {
  const fdp = fromBinary(FileDescriptorProtoSchema, Buffer.from(serialized, 'base64'));
  const registry = createFileRegistry(fdp, (name) => (name === 'google/protobuf/timestamp.proto'
    ? file_google_protobuf_timestamp : undefined));
  const desc = registry.getMessage(typeName);
  assert.ok(desc, `${typeName} in the serialized descriptor`);
  return {
    registry,
    encode: (r) => fromJson(desc, r),
    // By proto field name: the serialized descriptor sets no json_name (protoc would), and
    // @bufbuild/protobuf takes an unset json_name as "".
    plain: (m) => toJson(desc, m, { alwaysEmitImplicit: true, useProtoFieldName: true }),
  };
}

// Runs main, prints its failure and exits 1 on any error.
export function run(main) {
  main().then(() => process.exit(0), (e) => {
    console.error(e && e.stack ? e.stack : e);
    if (e && e.status !== undefined) console.error(`(status ${e.status}, errorCode ${e.errorCode})`);
    process.exit(1);
  });
}
