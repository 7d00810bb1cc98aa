// kafka-ts 1.5 with groupProtocol 'consumer' (KIP-848) against a running skiff: three members
// share a topic of 12 partitions, a fourth joins while messages keep coming, one leaves; every
// message is consumed.
//
// Usage: node kafka_ts_consumer_group.mjs HOST:PORT
import assert from 'node:assert/strict'
import { API, createKafkaClient, setLogger } from 'kafka-ts'

const [host, port] = (process.argv[2] ?? '').split(':')
assert.ok(host && port, 'usage: node kafka_ts_consumer_group.mjs HOST:PORT')
// Its JSON logger on stdout would drown the steps.
setLogger({ debug () {}, info () {}, warn () {}, error (...a) { console.error(...a) } })
const kafka = createKafkaClient({ clientId: 'kafka-ts-848', bootstrapServers: [{ host, port: Number(port) }] })
const run = `${process.pid}-${Date.now()}`
const topic = `kafka-ts-848-${run}`
const groupId = `kafka-ts-848-group-${run}`
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
function step (name) { console.log(`-- ${name}`) }

const cluster = kafka.createCluster()
await cluster.connect()
const { controllerId } = await cluster.sendRequest(API.METADATA, {
  allowTopicAutoCreation: false, includeTopicAuthorizedOperations: false, topics: []
})
await cluster.sendRequestToNode(controllerId)(API.CREATE_TOPICS, {
  validateOnly: false,
  timeoutMs: 10000,
  topics: [{ name: topic, numPartitions: 12, replicationFactor: 1, assignments: [], configs: [] }]
})
await cluster.disconnect()

const producer = kafka.createProducer({})
const sent = []
async function produce (n) {
  const batch = []
  for (let i = 0; i < n; i++) {
    const value = `v-${sent.length}`
    sent.push(value)
    batch.push({ topic, partition: sent.length % 12, value })
  }
  await producer.send(batch)
}

const received = new Map()
const members = []
async function join () {
  const consumer = await kafka.startConsumer({
    groupId,
    groupProtocol: 'consumer',
    topics: [topic],
    fromTimestamp: -2n,
    rebalanceTimeoutMs: 10000,
    onBatch: async messages => {
      for (const m of messages) {
        const v = m.value.toString()
        received.set(v, (received.get(v) ?? 0) + 1)
      }
    }
  })
  members.push(consumer)
  return consumer
}
async function allConsumed (what) {
  const deadline = Date.now() + 60000
  while (Date.now() < deadline) {
    if (sent.every(v => received.has(v))) return
    await sleep(100)
  }
  throw new Error(`${what}: ${sent.filter(v => !received.has(v)).length} of ${sent.length} messages not consumed`)
}

step('three kafka-ts members, consumer protocol, 12 partitions')
await produce(300)
await join()
await join()
await join()
await allConsumed('three members')
step('a fourth joins while messages keep coming')
const joining = join()
for (let i = 0; i < 10; i++) { await produce(30); await sleep(100) }
await joining
await allConsumed('after the fourth joined')
step('one leaves while messages keep coming')
const leaving = members.shift()
const left = leaving.close()
for (let i = 0; i < 10; i++) { await produce(30); await sleep(100) }
await left
await allConsumed('after one left')
const twice = sent.filter(v => received.get(v) > 1).length
console.log(`    ${sent.length} sent, all consumed, ${twice} twice`)
assert.ok(twice <= sent.length / 10, `${twice} of ${sent.length} consumed twice`)
for (const m of members) await m.close()
await producer.close()
console.log('ok: kafka-ts consumer protocol against skiff')
process.exit(0)
