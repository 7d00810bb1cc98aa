// @platformatic/kafka (a current pure-JavaScript client that speaks only new API versions:
// Metadata v12 with topic ids, Produce v9+, Fetch v12-17, ListOffsets v7+, OffsetFetch v8-9,
// CreateTopics v7, DeleteTopics v6) against a running skiff.
//
// Usage: node platformatic_kafka.mjs HOST:PORT
// Each step asserts what a user would check; the first failure exits non-zero with its message.
import assert from 'node:assert/strict'
import {
  Admin,
  Consumer,
  Producer,
  stringDeserializers,
  stringSerializers
} from '@platformatic/kafka'

const broker = process.argv[2]
assert.ok(broker, 'usage: node platformatic_kafka.mjs HOST:PORT')
const base = { bootstrapBrokers: [broker], retries: 5, retryDelay: 200, timeout: 15000 }
const run = `${process.pid}-${Date.now()}`

function step (name) {
  console.log(`-- ${name}`)
}

// Reads `count` messages from a consumer stream, then closes the stream.
async function take (stream, count, label) {
  const got = []
  const timer = setTimeout(() => {
    console.error(`${label}: timed out with ${got.length} of ${count} messages`)
    process.exit(1)
  }, 60000)
  for await (const message of stream) {
    got.push(message)
    if (got.length === count) break
  }
  clearTimeout(timer)
  await stream.close()
  return got
}

function byPartitionInOrder (messages) {
  const parts = new Map()
  for (const m of messages) {
    if (!parts.has(m.partition)) parts.set(m.partition, [])
    parts.get(m.partition).push(m)
  }
  for (const [partition, list] of parts) {
    for (let i = 1; i < list.length; i++) {
      assert.ok(list[i].offset > list[i - 1].offset, `partition ${partition} out of order`)
    }
  }
  return parts
}

const admin = new Admin({ clientId: 'skiff-admin', ...base })
const topic = `platformatic-${run}`
const doomed = `platformatic-doomed-${run}`

step('CreateTopics v7: two topics, 3 partitions each')
const created = await admin.createTopics({ topics: [topic, doomed], partitions: 3, replicas: 1 })
assert.equal(created.length, 2)
for (const t of created) {
  assert.equal(t.partitions, 3, `${t.name}: partitions`)
  assert.match(t.id, /^[0-9a-f-]{36}$/, `${t.name}: topic id`)
  assert.notEqual(t.id, '00000000-0000-0000-0000-000000000000', `${t.name}: zero topic id`)
}

step('Metadata v12: the topics, their ids and one broker leading every partition')
const metadata = await admin.metadata({ topics: [topic, doomed], forceUpdate: true })
assert.equal(metadata.brokers.size, 1)
for (const t of created) {
  const meta = metadata.topics.get(t.name)
  assert.ok(meta, `${t.name} missing from metadata`)
  assert.equal(meta.partitionsCount, 3)
  assert.equal(meta.id, t.id, `${t.name}: metadata id differs from CreateTopics id`)
  const [brokerId] = metadata.brokers.keys()
  for (const p of meta.partitions) assert.equal(p.leader, brokerId)
}

step('DeleteTopics v6: the doomed topic goes, the other stays')
await admin.deleteTopics({ topics: [doomed] })
const after = await admin.metadata({ topics: [topic], forceUpdate: true })
assert.ok(after.topics.has(topic))
const listing = await admin.listTopics()
assert.ok(listing.includes(topic), 'kept topic missing from listTopics')
assert.ok(!listing.includes(doomed), 'deleted topic still listed')

step('Produce (idempotent): 300 keyed messages in 3 sends')
const producer = new Producer({
  clientId: 'skiff-producer',
  idempotent: true,
  serializers: stringSerializers,
  ...base
})
const sent = []
const beforeProduce = BigInt(Date.now())
for (let send = 0; send < 3; send++) {
  const messages = []
  for (let i = 0; i < 100; i++) {
    const n = send * 100 + i
    messages.push({ topic, key: `key-${n % 7}`, value: `value-${n}`, headers: { n: String(n) } })
  }
  const result = await producer.send({ messages })
  assert.ok(result.offsets && result.offsets.length > 0, 'send returned no offsets')
  sent.push(...messages)
}
const afterProduce = BigInt(Date.now())

step('Consume from the beginning (no group commits): every message once, in order per partition')
const reader = new Consumer({
  clientId: 'skiff-reader',
  groupId: `reader-${run}`,
  deserializers: stringDeserializers,
  ...base
})
const all = await take(
  await reader.consume({ topics: [topic], mode: 'earliest', autocommit: false }),
  sent.length,
  'earliest'
)
assert.deepEqual(all.map(m => m.value).sort(), sent.map(m => m.value).sort())
for (const m of all) {
  const n = Number(m.value.slice('value-'.length))
  assert.equal(m.key, `key-${n % 7}`)
  assert.equal(m.headers.get('n'), String(n))
}
const parts = byPartitionInOrder(all)
for (const list of parts.values()) {
  // One key always lands in one partition, and that partition's values keep produce order.
  const values = list.map(m => Number(m.value.slice('value-'.length)))
  assert.deepEqual(values, [...values].sort((a, b) => a - b))
}
await reader.close()

step('ListOffsets: earliest 0, latest = messages per partition, by timestamp')
const offsetsReader = new Consumer({ clientId: 'skiff-offsets', groupId: `offsets-${run}`, ...base })
const latest = await offsetsReader.listOffsets({ topics: [topic] })
const earliest = await offsetsReader.listOffsets({ topics: [topic], timestamp: -2n })
let total = 0n
for (let p = 0; p < 3; p++) {
  assert.equal(earliest.get(topic)[p], 0n)
  const count = BigInt((parts.get(p) ?? []).length)
  assert.equal(latest.get(topic)[p], count, `partition ${p}: latest offset`)
  total += count
}
assert.equal(total, BigInt(sent.length))
const atStart = await offsetsReader.listOffsets({ topics: [topic], timestamp: beforeProduce - 1n })
const atEnd = await offsetsReader.listOffsets({ topics: [topic], timestamp: afterProduce + 60000n })
for (let p = 0; p < 3; p++) {
  assert.equal(atStart.get(topic)[p], 0n, `partition ${p}: offset for a time before the first message`)
  // As Kafka: no record at or after that time is offset -1, not the log end.
  assert.equal(atEnd.get(topic)[p], -1n, `partition ${p}: offset for a future time`)
}
await offsetsReader.close()

step('Group consumer: read half, commit, close; a new member of the group resumes after it')
const group = `group-${run}`
const half = sent.length / 2
// A member of the group that starts at the group's committed offsets (earliest without one).
async function groupMember (clientId) {
  const consumer = new Consumer({ clientId, groupId: group, deserializers: stringDeserializers, ...base })
  const stream = await consumer.consume({
    topics: [topic],
    mode: 'committed',
    fallbackMode: 'earliest',
    autocommit: false,
    sessionTimeout: 10000,
    heartbeatInterval: 500
  })
  return [consumer, stream]
}
const [first, firstStream] = await groupMember('skiff-group-1')
const firstHalf = await take(firstStream, half, 'group first half')
// Commit, per partition, the offset after the last message read there.
const commits = new Map()
for (const m of firstHalf) commits.set(m.partition, m.offset + 1n)
await first.commit({
  offsets: [...commits].map(([partition, offset]) => ({ topic, partition, offset, leaderEpoch: 0 }))
})
const committed = await first.listCommittedOffsets({ topics: [{ topic, partitions: [0, 1, 2] }] })
for (const [partition, offset] of commits) {
  assert.equal(committed.get(topic)[partition], offset, `OffsetFetch: committed offset of ${partition}`)
}
await first.close()

const readFirst = new Set(firstHalf.map(m => `${m.partition}/${m.offset}`))
let rest = 0n
for (let p = 0; p < 3; p++) rest += latest.get(topic)[p] - (commits.get(p) ?? 0n)
const [second, secondStream] = await groupMember('skiff-group-2')
const secondHalf = await take(secondStream, Number(rest), 'group resume')
for (const m of secondHalf) {
  assert.ok(!readFirst.has(`${m.partition}/${m.offset}`), `re-read ${m.partition}/${m.offset} after commit`)
  assert.ok(m.offset >= (commits.get(m.partition) ?? 0n), 'resumed before the committed offset')
}
const union = [...firstHalf, ...secondHalf].map(m => m.value).sort()
assert.deepEqual(union, sent.map(m => m.value).sort(), 'group halves do not add up to what was sent')
await second.close()

step('OffsetDelete: the group, now empty, forgets partition 0 and keeps the others')
await admin.deleteConsumerGroupOffsets({ groupId: group, topics: [{ name: topic, partitionIndexes: [0] }] })
const checker = new Consumer({ clientId: 'skiff-checker', groupId: group, ...base })
const kept = await checker.listCommittedOffsets({ topics: [{ topic, partitions: [0, 1, 2] }] })
assert.equal(kept.get(topic)[0], -1n, 'partition 0 still has a committed offset')
for (const [partition, offset] of commits) {
  if (partition !== 0) assert.equal(kept.get(topic)[partition], offset, `lost the offset of ${partition}`)
}
await checker.close()

step('DeleteRecords: partition 1 starts at its midpoint; ListOffsets earliest says so')
const mid = latest.get(topic)[1] / 2n
const deleted = await admin.deleteRecords({
  topics: [{ name: topic, partitions: [{ partition: 1, offset: mid }] }]
})
assert.equal(deleted[0].partitions[0].lowWatermark, mid)
const startsReader = new Consumer({ clientId: 'skiff-starts', groupId: `starts-${run}`, ...base })
const starts = await startsReader.listOffsets({ topics: [topic], timestamp: -2n })
assert.equal(starts.get(topic)[1], mid)
assert.equal(starts.get(topic)[0], 0n)
await startsReader.close()

step('DescribeLogDirs: each partition of the topic with its size on disk')
const dirs = await admin.describeLogDirs({ topics: [{ name: topic, partitions: [0, 1, 2] }] })
assert.equal(dirs.length, 1)
const described = dirs[0].results[0].topics.find(t => t.name === topic)
assert.ok(described, 'topic missing from DescribeLogDirs')
assert.deepEqual(described.partitions.map(p => p.partitionIndex).sort(), [0, 1, 2])
for (const p of described.partitions) {
  const hasData = latest.get(topic)[p.partitionIndex] > 0n
  assert.equal(p.partitionSize > 0n, hasData, `partition ${p.partitionIndex}: size ${p.partitionSize}`)
}

await producer.close()
await admin.close()
console.log('ok: @platformatic/kafka against skiff')
