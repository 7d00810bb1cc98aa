// The share-group benchmark's producer and its classic consumer group (tests/bench/share.sh),
// on kafka-ts 1.5 like the share consumers they are compared with
// (tests/integration/node/kafka_ts_share_consumer.mjs in its quiet mode).
//
//   node share.mjs fill HOST:PORT TOPIC PARTITIONS RECORDS      RECORDS of 1 KiB, batches of 500
//   node share.mjs group HOST:PORT TOPIC GROUP RECORDS MEMBERS  a classic group of MEMBERS
//                                                              consumers reads RECORDS
// Each prints one line `result key=value...`.
import assert from 'node:assert/strict'
import { API, createKafkaClient, setLogger } from 'kafka-ts'

const [mode, bootstrap, ...args] = process.argv.slice(2)
const [host, port] = (bootstrap ?? '').split(':')
assert.ok(mode && host && port, 'usage: node share.mjs fill|group HOST:PORT ...')
setLogger({ debug () {}, info () {}, warn () {}, error () {} })
const kafka = createKafkaClient({ clientId: 'skiff-share-bench', bootstrapServers: [{ host, port: Number(port) }] })
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

if (mode === 'fill') {
  const [topic, partitions, records] = [args[0], Number(args[1]), Number(args[2])]
  const cluster = kafka.createCluster()
  await cluster.connect()
  await cluster.sendRequest(API.CREATE_TOPICS, {
    validateOnly: false,
    timeoutMs: 10000,
    topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }]
  })
  await cluster.disconnect()
  const producer = kafka.createProducer({})
  const value = 'x'.repeat(1024)
  const started = Date.now()
  for (let sent = 0; sent < records;) {
    const batch = []
    for (let i = 0; i < 500 && sent < records; i++, sent++) batch.push({ topic, partition: sent % partitions, key: null, value })
    await producer.send(batch)
  }
  const ms = Date.now() - started
  await producer.close()
  console.log(`result load=fill records=${records} ms=${ms} mb_s=${(records * 1024 / 1048576 / (ms / 1000)).toFixed(1)}`)
} else if (mode === 'group') {
  const [topic, groupId, records, members] = [args[0], args[1], Number(args[2]), Number(args[3])]
  let count = 0
  let bytes = 0
  let first = 0
  let last = 0
  const started = Date.now()
  const consumers = []
  for (let i = 0; i < members; i++) {
    consumers.push(await kafka.startConsumer({
      groupId,
      topics: [topic],
      fromBeginning: true,
      maxWaitMs: 500,
      onBatch: async messages => {
        first ||= Date.now()
        count += messages.length
        for (const m of messages) bytes += m.value.length
        last = Date.now()
      }
    }))
  }
  while (count < records && Date.now() - started < 600000) await sleep(20)
  await Promise.all(consumers.map(c => c.close()))
  console.log(`result load=group records=${count} bytes=${bytes} ms=${last - started} steady_ms=${last - first}`)
} else {
  throw new Error(`unknown mode ${mode}`)
}
process.exit(0)
