// librdkafka 2.12 (node-rdkafka 3.6.0) told to rebootstrap (KIP-1102) by skiff: a producer
// delivers a first half of its messages, then the control API answers its next Metadata request
// (v13) with the top-level REBOOTSTRAP_REQUIRED; librdkafka starts its re-bootstrap sequence
// (metadata.recovery.strategy=rebootstrap, its default) and the producer goes on to deliver the
// second half. Prints the steps and, last, "ok: rebootstrapped" with the counts.
//
// Usage: node rdkafka_rebootstrap.cjs HOST:PORT TOPIC CONTROL_BASE_URL
'use strict'
const assert = require('node:assert/strict')
const Kafka = require('node-rdkafka')

const [bootstrap, topic, control] = process.argv.slice(2)
assert.ok(bootstrap && topic && control, 'usage: node rdkafka_rebootstrap.cjs HOST:PORT TOPIC URL')
const HALF = 20

function step (name) { console.log(`-- ${name}`) }

async function main () {
  let rebootstrapped = false
  const metadataVersions = new Set()
  const producer = new Kafka.Producer({
    'bootstrap.servers': bootstrap,
    'client.id': 'rdkafka-rebootstrap',
    dr_msg_cb: true, // delivery reports with the message value
    // The debug contexts make librdkafka log its re-bootstrap and the Metadata versions it sends.
    debug: 'metadata,protocol',
    'topic.metadata.refresh.interval.ms': 1000,
    'metadata.recovery.strategy': 'rebootstrap'
  })
  const delivered = []
  const failed = []
  producer.on('delivery-report', (err, report) => {
    if (err) failed.push(String(err))
    else delivered.push(report.value.toString())
  })
  producer.on('event.log', log => {
    if (/Starting re-bootstrap sequence/.test(log.message)) rebootstrapped = true
    const sent = /Sent MetadataRequest \(v(\d+)/.exec(log.message)
    if (sent) metadataVersions.add(Number(sent[1]))
  })
  producer.setPollInterval(50)
  await new Promise((resolve, reject) => {
    producer.once('ready', resolve)
    producer.once('connection.failure', reject)
    producer.connect()
  })
  console.log(`librdkafka ${Kafka.librdkafkaVersion}`)

  const flush = () => new Promise((resolve, reject) =>
    producer.flush(20000, err => (err ? reject(err) : resolve())))
  const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
  // The reports reach JavaScript on the poll after librdkafka's flush.
  const produce = async (from) => {
    for (let i = from; i < from + HALF; i++) producer.produce(topic, null, Buffer.from(`m-${i}`))
    await flush()
    const deadline = Date.now() + 20000
    while (delivered.length + failed.length < from + HALF && Date.now() < deadline) await sleep(50)
  }

  step('first half')
  await produce(0)
  assert.equal(delivered.length, HALF, `first half: ${failed}`)

  step('REBOOTSTRAP_REQUIRED for the next Metadata request')
  const res = await fetch(`${control}/control/faults`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ api: 'Metadata', action: 'error', error: 'REBOOTSTRAP_REQUIRED', count: 1 })
  })
  assert.equal(res.status, 201, await res.text())
  const deadline = Date.now() + 30000
  while (!rebootstrapped && Date.now() < deadline) await sleep(100)
  assert.ok(rebootstrapped, 'librdkafka never started its re-bootstrap sequence')

  step('second half after the re-bootstrap')
  await produce(HALF)
  assert.equal(delivered.length, 2 * HALF, `second half: ${failed}`)
  assert.deepEqual(failed, [])
  await new Promise(resolve => producer.disconnect(resolve))
  console.log(`ok: rebootstrapped, delivered ${delivered.length}, metadata versions ` +
    `${[...metadataVersions].sort((a, b) => a - b).join(',')}`)
}

main().catch(err => {
  console.error(err)
  process.exit(1)
})
