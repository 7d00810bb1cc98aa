// librdkafka 2.12 (node-rdkafka 3.6) with group.protocol=consumer against a running skiff: a
// regular-expression subscription that picks up a topic created after it subscribed, two
// members that share partitions, and a new pattern assigned a heartbeat after the literal topic
// subscribed with it (Kafka resolves new patterns asynchronously).
const assert = require('node:assert/strict')
const Kafka = require('node-rdkafka')

const broker = process.argv[2]
assert.ok(broker, 'usage: node rdkafka_consumer_protocol.cjs HOST:PORT')
const run = `${process.pid}-${Date.now()}`
const prefix = `rx-${run}`
const first = `${prefix}-first`
const later = `${prefix}-later`
const group = `rdkafka-848-${run}`
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
function step (name) { console.log(`-- ${name}`) }

function admin () {
  return Kafka.AdminClient.create({ 'bootstrap.servers': broker })
}
function createTopic (client, topic, partitions) {
  return new Promise((resolve, reject) =>
    client.createTopic({ topic, num_partitions: partitions, replication_factor: 1 }, 10000,
      err => err ? reject(err) : resolve()))
}
function producer () {
  const p = new Kafka.Producer({ 'bootstrap.servers': broker, dr_cb: true, 'linger.ms': 0 })
  return new Promise((resolve, reject) => {
    p.connect({}, err => err ? reject(err) : resolve(p))
  })
}
async function produce (p, topic, values) {
  let delivered = 0
  const done = new Promise(resolve => p.on('delivery-report', () => { if (++delivered === values.length) resolve() }))
  for (const v of values) p.produce(topic, null, Buffer.from(v))
  const poll = setInterval(() => p.poll(), 20)
  await done
  clearInterval(poll)
}

function consumer (name, received) {
  const c = new Kafka.KafkaConsumer({
    'bootstrap.servers': broker,
    'group.id': group,
    'group.protocol': 'consumer',
    'client.id': name,
    'enable.auto.commit': true,
    'auto.commit.interval.ms': 200,
    'topic.metadata.refresh.interval.ms': 1000
  }, { 'auto.offset.reset': 'earliest' })
  c.on('data', m => received.set(`${m.topic}/${m.value}`, (received.get(`${m.topic}/${m.value}`) ?? 0) + 1))
  return new Promise((resolve, reject) => {
    c.connect({}, err => {
      if (err) return reject(err)
      c.subscribe([new RegExp(`^${prefix}-.*`)])
      c.consume()
      resolve(c)
    })
  })
}

async function until (what, cond, ms = 60000) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) { if (cond()) return; await sleep(100) }
  throw new Error(`timed out waiting for ${what}`)
}

;(async () => {
  const a = admin()
  await createTopic(a, first, 4)
  const p = await producer()
  const received = new Map()
  step('a librdkafka consumer-protocol member subscribes to ^' + prefix + '-.*')
  const c1 = await consumer('rdkafka-1', received)
  const firstValues = Array.from({ length: 40 }, (_, i) => `f${i}`)
  await produce(p, first, firstValues)
  await until('the first topic consumed', () => firstValues.every(v => received.has(`${first}/${v}`)))
  step('a topic created after it subscribed is picked up')
  await createTopic(a, later, 2)
  const laterValues = Array.from({ length: 20 }, (_, i) => `l${i}`)
  await produce(p, later, laterValues)
  await until('the later topic consumed', () => laterValues.every(v => received.has(`${later}/${v}`)))
  step('a second member joins and shares the partitions')
  const c2 = await consumer('rdkafka-2', received)
  await until('both members holding partitions', () => {
    const a1 = c1.assignments().length
    const a2 = c2.assignments().length
    return a1 > 0 && a2 > 0 && a1 + a2 === 6
  })
  const more = Array.from({ length: 60 }, (_, i) => `m${i}`)
  await produce(p, first, more)
  await until('every message after the join consumed', () => more.every(v => received.has(`${first}/${v}`)))
  console.log(`    member 1: ${c1.assignments().length} partitions, member 2: ${c2.assignments().length}`)
  step('a pattern new to a group counts from the heartbeat after the one bringing it, as in Kafka')
  const literal = `lit-${run}` // outside the pattern
  await createTopic(a, literal, 1)
  const events = [] // the topics of each non-empty assignment, in order
  const c3 = new Kafka.KafkaConsumer({
    'bootstrap.servers': broker,
    'group.id': `${group}-order`,
    'group.protocol': 'consumer',
    'client.id': 'rdkafka-3',
    rebalance_cb: true,
    'topic.metadata.refresh.interval.ms': 1000
  }, { 'auto.offset.reset': 'earliest' })
  c3.on('rebalance', (err, assignment) => {
    if (err.code === Kafka.CODES.ERRORS.ERR__ASSIGN_PARTITIONS && assignment.length > 0) {
      events.push([...new Set(assignment.map(tp => tp.topic))].sort())
    }
  })
  await new Promise((resolve, reject) => c3.connect({}, err => err ? reject(err) : resolve()))
  c3.subscribe([new RegExp(`^${prefix}-.*`), literal])
  c3.consume()
  await until('the literal topic and the pattern\'s assigned', () => c3.assignments().length === 7)
  console.log(`    assignments in order: ${JSON.stringify(events)}`)
  assert.deepEqual(events, [[literal], [first, later].sort()])
  // Revoked through the callback while the event loop runs: a close with partitions still
  // assigned waits for a rebalance callback that node-rdkafka cannot serve during disconnect.
  c3.unsubscribe()
  await until('c3 unassigned', () => c3.assignments().length === 0)
  await new Promise(resolve => c3.disconnect(resolve))
  await new Promise(resolve => c1.disconnect(resolve))
  await new Promise(resolve => c2.disconnect(resolve))
  await new Promise(resolve => p.disconnect(resolve))
  a.disconnect()
  console.log('ok: librdkafka ' + Kafka.librdkafkaVersion + ' consumer protocol against skiff')
  process.exit(0)
})().catch(err => { console.error(err); process.exit(1) })
