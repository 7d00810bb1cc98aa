// KIP-848 group state across broker restarts, with @platformatic/kafka (groupProtocol
// 'consumer'): three members share 12 partitions under a continuous produce; the broker is
// killed (SIGKILL) while the group is stable, killed again just after a fourth member joined
// (its reassignment under way), and stopped cleanly (SIGTERM). After each restart the members
// carry on with their member ids, epochs and partitions: the group epoch does not move, no
// member joins again, and ConsumerGroupDescribe shows the same assignment; every message
// produced is consumed and the committed offsets never go back.
//
// Usage: node platformatic_group_restart.mjs HOST:PORT
// The restarts are the caller's: this script prints "RESTART kill" or "RESTART clean" on a line
// of its own and waits for a line on stdin once the broker listens again on the same port.
import assert from 'node:assert/strict'
import { createInterface } from 'node:readline'
import { Admin, Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka'
import { API, createKafkaClient, setLogger } from 'kafka-ts'

const broker = process.argv[2]
assert.ok(broker, 'usage: node platformatic_group_restart.mjs HOST:PORT')
const [host, port] = broker.split(':')
const base = { bootstrapBrokers: [broker], retries: 100, retryDelay: 200, timeout: 5000 }
const run = `${process.pid}-${Date.now()}`
const topic = `restart-${run}`
const group = `restart-group-${run}`
const PARTITIONS = 12

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
const step = name => console.log(`-- ${name}`)
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
async function until (what, condition, ms = 60000) {
  const deadline = Date.now() + ms
  let last
  while (Date.now() < deadline) {
    try {
      if (await condition()) return
    } catch (e) {
      last = e // the broker may be restarting
    }
    await sleep(100)
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last.stack})` : ''}`)
}
async function restart (how) {
  console.log(`RESTART ${how}`)
  const { done } = await lines.next()
  assert.ok(!done, 'the caller closed stdin instead of restarting the broker')
}

// The group as the broker describes it: ConsumerGroupDescribe through kafka-ts's API (the one of
// @platformatic/kafka 1.35 misreads the member fields).
setLogger({ debug () {}, info () {}, warn () {}, error () {} })
const describer = createKafkaClient({ clientId: 'restart-describer', bootstrapServers: [{ host, port: Number(port) }] })
async function describe () {
  const cluster = describer.createCluster()
  try {
    await cluster.connect()
    const r = await cluster.sendRequest(API.CONSUMER_GROUP_DESCRIBE, { groupIds: [group], includeAuthorizedOperations: false })
    const g = r.groups[0]
    const members = Object.fromEntries(g.members.map(m => [m.memberId, {
      epoch: m.memberEpoch,
      partitions: m.assignment.topicPartitions.flatMap(t => t.partitions).sort((x, y) => x - y)
    }]))
    return { state: g.groupState, epoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, members }
  } finally {
    await cluster.disconnect().catch(() => {})
  }
}

const admin = new Admin({ clientId: 'restart-admin', ...base })
await admin.createTopics({ topics: [topic], partitions: PARTITIONS, replicas: 1 })

// The producer: one message every 5 ms, round robin, retrying through the restarts. A message
// counts as sent once acknowledged.
const producer = new Producer({ clientId: 'restart-producer', serializers: stringSerializers, ...base })
const sent = []
let producing = true
const producerDone = (async () => {
  for (let i = 0; producing; i++) {
    const value = `m-${i}`
    try {
      await producer.send({ messages: [{ topic, value, partition: i % PARTITIONS }] })
      sent.push(value)
    } catch {
      await sleep(100) // the broker is down: the same message again
      i--
    }
    await sleep(5)
  }
})()

const received = new Map()
const members = new Map()
const joins = [] // member names, each time a member (re)joined the group
async function join (name) {
  const consumer = new Consumer({
    clientId: name, groupId: group, groupProtocol: 'consumer', deserializers: stringDeserializers, ...base
  })
  consumer.on('consumer:group:join', () => joins.push(name))
  const stream = await consumer.consume({
    topics: [topic], mode: 'committed', fallbackMode: 'earliest', autocommit: 200,
    sessionTimeout: 20000, rebalanceTimeout: 20000
  })
  stream.on('error', () => {}) // fetches fail while the broker is down; the stream carries on
  const done = (async () => {
    for await (const m of stream) received.set(m.value, (received.get(m.value) ?? 0) + 1)
  })().catch(() => {})
  members.set(name, { consumer, stream, done })
}
const owned = name => (members.get(name).consumer.assignments ?? [])
  .filter(t => t.topic === topic).flatMap(t => t.partitions).sort((x, y) => x - y)
async function stable (count) {
  const d = await describe()
  const all = Object.values(d.members).flatMap(m => m.partitions)
  return d.state === 'Stable' && Object.keys(d.members).length === count &&
    all.length === PARTITIONS && new Set(all).size === PARTITIONS &&
    [...members.keys()].every(n => owned(n).length > 0)
}
const ids = () => Object.fromEntries([...members].map(([n, m]) => [n, m.consumer.memberId]))

// After a restart: the broker still has the group as it was, and the members did not rejoin.
async function assertResumed (before, idsBefore, how) {
  const joinsBefore = joins.length
  // A few heartbeats (the broker runs with a heartbeat interval of 500 ms).
  await until('every member heartbeating again', async () => {
    const d = await describe()
    return Object.keys(d.members).length === members.size
  })
  await sleep(3000)
  const after = await describe()
  console.log(`    after the ${how} restart: epoch ${after.epoch}, ${JSON.stringify(after.members)}`)
  assert.equal(after.epoch, before.epoch, `the group epoch moved across the ${how} restart`)
  assert.deepEqual(after.members, before.members, `members, epochs or assignments changed across the ${how} restart`)
  assert.deepEqual(ids(), idsBefore, 'a member id changed')
  assert.equal(joins.length, joinsBefore, `members joined again after the ${how} restart: ${joins.slice(joinsBefore)}`)
  for (const [name, m] of Object.entries(after.members)) {
    const member = [...members.entries()].find(([, x]) => x.consumer.memberId === name)
    assert.ok(member, `the broker has a member ${name} no consumer has`)
    assert.deepEqual(owned(member[0]), m.partitions, `${member[0]} consumes other partitions than the broker assigned`)
  }
}

// The committed offsets, polled: they never go back (polls fail while the broker is down).
const highest = new Map()
let polling = true
const offsetsPoller = (async () => {
  while (polling) {
    try {
      const offsets = await admin.listConsumerGroupOffsets({ groups: [group] })
      for (const t of offsets[0]?.topics ?? []) {
        for (const p of t.partitions) {
          if (p.committedOffset < 0n) continue
          const before = highest.get(p.partitionIndex) ?? -1n
          assert.ok(p.committedOffset >= before,
            `committed offset of partition ${p.partitionIndex} went back from ${before} to ${p.committedOffset}`)
          highest.set(p.partitionIndex, p.committedOffset)
        }
      }
    } catch (e) {
      if (e instanceof assert.AssertionError) throw e
    }
    await sleep(250)
  }
})()

step('three consumer-protocol members share 12 partitions')
for (const n of ['member-1', 'member-2', 'member-3']) await join(n)
await until('a stable group of three', () => stable(3))
let before = await describe()
console.log(`    epoch ${before.epoch}, ${JSON.stringify(before.members)}`)

step('kill -9 of the broker while the group is stable')
await restart('kill')
await assertResumed(before, ids(), 'kill -9')

step('a fourth member joins; kill -9 while its reassignment is under way')
await join('member-4')
const epochWithFour = (await describe()).epoch
assert.ok(epochWithFour > before.epoch, 'the fourth member did not bump the group epoch')
await restart('kill')
await until('a stable group of four', () => stable(4))
before = await describe()
console.log(`    epoch ${before.epoch}, ${JSON.stringify(before.members)}`)
assert.equal(before.epoch, epochWithFour, 'the group epoch moved across the restart')

step('a clean restart (SIGTERM) of the stable group of four')
await restart('clean')
await assertResumed(before, ids(), 'clean')

step('the producer stops: every message it sent is consumed')
producing = false
await producerDone
await until(`all ${sent.length} messages consumed`, () => sent.every(v => received.has(v)), 90000)
const twice = sent.filter(v => received.get(v) > 1).length
console.log(`    ${sent.length} sent, all consumed; ${twice} consumed twice`)
assert.ok(twice <= sent.length / 10, `${twice} of ${sent.length} messages consumed twice`)
polling = false
await offsetsPoller
for (const { consumer, stream } of members.values()) {
  await stream.close()
  await consumer.close(true)
}
await producer.close()
await admin.close()
console.log('ok: KIP-848 group state across restarts with @platformatic/kafka against skiff')
process.exit(0)
