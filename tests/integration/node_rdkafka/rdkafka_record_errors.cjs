// librdkafka 2.12 (node-rdkafka 3.6) reading Produce v8+'s per-record errors (KIP-467) from a
// running skiff, as librdkafka's own test 0011_produce_batch does: 100 messages in one batch to
// a compacted topic, every tenth without a key; then the same one message per batch
// (batch.size=1); then two records of five with a timestamp out of
// message.timestamp.before.max.ms.
// Prints one JSON line per case with each message's delivery error text (null when
// delivered); test_record_errors.py checks them. node-rdkafka 3.6 hands a delivery error to
// JavaScript as the text of its code only (rd_kafka_err2str), and lower-cases it in
// err.message; the stack's first line keeps it as librdkafka wrote it.
const assert = require('node:assert/strict')
const Kafka = require('node-rdkafka')

const broker = process.argv[2]
const topic = process.argv[3]
const boundedTopic = process.argv[4]
assert.ok(broker && topic && boundedTopic,
  'usage: node rdkafka_record_errors.cjs HOST:PORT COMPACTED_TOPIC BOUNDED_TOPIC')

function producer (extra) {
  const p = new Kafka.Producer({
    'bootstrap.servers': broker,
    dr_cb: true,
    'linger.ms': 500,
    'message.send.max.retries': 0,
    ...extra
  })
  return new Promise((resolve, reject) => {
    p.connect({}, err => err ? reject(err) : resolve(p))
  })
}

function errorText (err) {
  return String(err.stack).split('\n')[0].replace(/^Error: /, '')
}

// Sends messages [{key, value, timestamp}] and resolves with each one's error text, by index.
async function produceAll (extra, topicName, messages) {
  const p = await producer(extra)
  const codes = new Array(messages.length).fill(null)
  let delivered = 0
  const done = new Promise(resolve => p.on('delivery-report', (err, report) => {
    codes[report.opaque] = err ? errorText(err) : null
    if (++delivered === messages.length) resolve()
  }))
  messages.forEach((m, i) => p.produce(topicName, 0, Buffer.from(m.value),
    m.key === null ? null : Buffer.from(m.key), m.timestamp ?? null, i))
  const poll = setInterval(() => p.poll(), 20)
  await done
  clearInterval(poll)
  await new Promise(resolve => p.disconnect(resolve))
  return codes
}

function hundred () {
  const out = []
  for (let i = 0; i < 100; i++) {
    const value = `0011 test message #${i}`
    out.push({ key: i % 10 === 0 ? null : value, value })
  }
  return out
}

async function main () {
  console.log(JSON.stringify({ case: 'version', librdkafka: Kafka.librdkafkaVersion }))
  console.log(JSON.stringify({ case: 'one-batch', codes: await produceAll({}, topic, hundred()) }))
  console.log(JSON.stringify({
    case: 'batch-per-message',
    codes: await produceAll({ 'batch.size': 1 }, topic, hundred())
  }))
  const now = Date.now()
  console.log(JSON.stringify({
    case: 'timestamp',
    codes: await produceAll({}, boundedTopic, [
      { key: 'a', value: 'a', timestamp: now },
      { key: 'b', value: 'b', timestamp: now - 3 * 3600 * 1000 },
      { key: 'c', value: 'c', timestamp: now },
      { key: 'd', value: 'd', timestamp: now - 4 * 3600 * 1000 },
      { key: 'e', value: 'e', timestamp: now }
    ])
  }))
}

main().then(() => process.exit(0), err => { console.error(err); process.exit(1) })
