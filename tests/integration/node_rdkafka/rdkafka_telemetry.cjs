// librdkafka 2.12 (node-rdkafka 3.6) producer and consumer for skiff's client telemetry test
// (KIP-714): they produce and consume a few records, print "ready", and keep running (so they go
// on pushing their metrics, when the broker asks for them) until a line arrives on stdin; then
// they close (a terminating push) and the script prints "ok".
const assert = require('node:assert/strict')
const readline = require('node:readline')
const Kafka = require('node-rdkafka')

const [broker, topic] = process.argv.slice(2)
assert.ok(broker && topic, 'usage: node rdkafka_telemetry.cjs HOST:PORT TOPIC')
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const COUNT = 20

function connect (client) {
  return new Promise((resolve, reject) => client.connect({}, err => err ? reject(err) : resolve(client)))
}
function disconnect (client) {
  return new Promise(resolve => client.disconnect(() => resolve()))
}
async function until (what, cond, ms = 60000) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) { if (cond()) return; await sleep(100) }
  throw new Error(`timed out waiting for ${what}`)
}

;(async () => {
  const p = await connect(new Kafka.Producer({
    'bootstrap.servers': broker, 'client.id': 'tel-producer', dr_cb: true, 'linger.ms': 0
  }))
  let delivered = 0
  p.on('delivery-report', err => { assert.ifError(err); delivered++ })
  const poll = setInterval(() => p.poll(), 50)
  for (let i = 0; i < COUNT; i++) p.produce(topic, null, Buffer.from(`v${i}`))
  await until('delivery reports', () => delivered === COUNT)

  const c = await connect(new Kafka.KafkaConsumer({
    'bootstrap.servers': broker, 'client.id': 'tel-consumer', 'group.id': 'tel-group'
  }, { 'auto.offset.reset': 'earliest' }))
  let received = 0
  c.on('data', () => { received++ })
  c.subscribe([topic])
  c.consume()
  await until('the records consumed', () => received === COUNT)
  console.log('ready')

  await new Promise(resolve => readline.createInterface({ input: process.stdin }).once('line', resolve))
  clearInterval(poll)
  await disconnect(c)
  await disconnect(p)
  console.log('ok: produced and consumed', COUNT)
  process.exit(0)
})().catch(err => { console.error(err); process.exit(1) })
