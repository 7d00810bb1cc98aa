// Transactions V2 (KIP-890) driven through kafka-ts 1.5's low-level requests against a running
// skiff: kafka-ts's producer is not transactional, so the script sends what a Kafka 4.x
// transactional producer sends under transaction.version 2 - InitProducerId, Produce v12 with no
// AddPartitionsToTxn, TxnOffsetCommit v5 with no AddOffsetsToTxn, EndTxn v5 - and checks the
// answers. Prints one line `RESULT {json}` for the Python side (test_transactions_v2.py), which
// checks the records with a read_committed consumer.
//
// Usage:
//   node kafka_ts_transactions_v2.mjs v2 HOST:PORT TOPIC TXID GROUP   commit, abort, zombie, bad input
//   node kafka_ts_transactions_v2.mjs v1 HOST:PORT TOPIC TXID         the feature below 2
//   node kafka_ts_transactions_v2.mjs end HOST:PORT TXID PID EPOCH    one EndTxn v5 commit
//   node kafka_ts_transactions_v2.mjs features HOST:PORT              ApiVersions' finalized features
//   node kafka_ts_transactions_v2.mjs update HOST:PORT LEVEL TYPE VALIDATE   one UpdateFeatures v1
import assert from 'node:assert/strict'
import { API, createKafkaClient, setLogger } from 'kafka-ts'

const [mode, bootstrap, ...args] = process.argv.slice(2)
const [host, port] = (bootstrap ?? '').split(':')
assert.ok(mode && host && port, 'usage: node kafka_ts_transactions_v2.mjs MODE HOST:PORT ...')
setLogger({ debug () {}, info () {}, warn () {}, error (...a) { console.error(...a) } })
const kafka = createKafkaClient({ clientId: 'kafka-ts-txn-v2', bootstrapServers: [{ host, port: Number(port) }] })
const cluster = kafka.createCluster()
await cluster.connect()

// The request at exactly `version` (kafka-ts picks the newest both sides serve otherwise).
function at (api, version) {
  while (api.apiVersion > version) api = api.fallback
  assert.equal(api.apiVersion, version)
  return api
}

// The Kafka error a request failed with (kafka-ts throws KafkaTSApiError), or 0.
async function errorOf (promise) {
  try {
    await promise
    return 0
  } catch (e) {
    if (e.errorCode === undefined) throw e
    return e.errorCode
  }
}

async function initProducerId (transactionalId) {
  return cluster.sendRequest(at(API.INIT_PRODUCER_ID, 5), {
    transactionalId, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1
  })
}

// One transactional batch of `values` at Produce v12 (names, no topic ids).
function produce (transactionalId, topic, partition, producer, sequence, values) {
  const now = BigInt(Date.now())
  return cluster.sendRequest(at(API.PRODUCE, 12), {
    transactionalId,
    acks: -1,
    timeoutMs: 10000,
    topicData: [{
      name: topic,
      topicId: '',
      partitionData: [{
        index: partition,
        baseOffset: 0n,
        partitionLeaderEpoch: -1,
        attributes: 0x10, // transactional
        lastOffsetDelta: values.length - 1,
        baseTimestamp: now,
        maxTimestamp: now,
        producerId: producer.producerId,
        producerEpoch: producer.producerEpoch,
        baseSequence: sequence,
        records: values.map((value, i) => ({
          attributes: 0, timestampDelta: 0n, offsetDelta: i, key: `k-${value}`, value, headers: []
        }))
      }]
    }]
  })
}

function endTxn (transactionalId, producer, committed) {
  return cluster.sendRequest(at(API.END_TXN, 5), {
    transactionalId, producerId: producer.producerId, producerEpoch: producer.producerEpoch, committed
  })
}

function txnOffsetCommit (transactionalId, groupId, producer, topic, offset) {
  return cluster.sendRequest(at(API.TXN_OFFSET_COMMIT, 5), {
    transactionalId,
    groupId,
    producerId: producer.producerId,
    producerEpoch: producer.producerEpoch,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: BigInt(offset), committedLeaderEpoch: -1, committedMetadata: '' }] }]
  })
}

async function createTopic (topic) {
  await cluster.sendRequest(API.CREATE_TOPICS, {
    validateOnly: false,
    timeoutMs: 10000,
    topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }]
  })
}

const result = {}
const pid = p => ({ producerId: p.producerId.toString(), producerEpoch: p.producerEpoch })

if (mode === 'v2') {
  const [topic, txid, group] = args
  await createTopic(topic)
  const first = await initProducerId(txid)
  result.init = pid(first)
  // Transaction 1, committed: the produce adds its partition, the offset commit the group's.
  await produce(txid, topic, 0, first, 0, ['c0', 'c1', 'c2'])
  await txnOffsetCommit(txid, group, first, topic, 42)
  const committed = await endTxn(txid, first, true)
  result.commit = pid(committed)
  assert.equal(committed.producerId, first.producerId)
  assert.equal(committed.producerEpoch, first.producerEpoch + 1, 'EndTxn v5 bumps the epoch')
  // A retry of that EndTxn (its answer lost) gets the same answer.
  result.commitRetry = pid(await endTxn(txid, first, true))
  // Transaction 2 at the bumped epoch, aborted: the epoch moves again.
  await produce(txid, topic, 0, committed, 0, ['a0', 'a1'])
  const aborted = await endTxn(txid, committed, false)
  result.abort = pid(aborted)
  assert.equal(aborted.producerEpoch, committed.producerEpoch + 1)
  // The zombie: the first incarnation's epoch writes late, ends late.
  result.zombieProduce = await errorOf(produce(txid, topic, 0, first, 3, ['zombie']))
  result.zombieEndTxn = await errorOf(endTxn(txid, first, true))
  result.zombieOffsets = await errorOf(txnOffsetCommit(txid, group, first, topic, 99))
  // Transaction 3, committed, so the read_committed consumer has something after the abort.
  await produce(txid, topic, 0, aborted, 0, ['c3'])
  result.commit2 = pid(await endTxn(txid, aborted, true))
  // Bad input for EndTxn v5: unknown transactional id, another producer id, a wrong epoch.
  const current = { producerId: aborted.producerId, producerEpoch: aborted.producerEpoch + 1 }
  result.badUnknownId = await errorOf(endTxn(`${txid}-unknown`, current, true))
  result.badProducerId = await errorOf(endTxn(txid, { ...current, producerId: current.producerId + 1000n }, true))
  result.badEpoch = await errorOf(endTxn(txid, { ...current, producerEpoch: 999 }, true))
  // Produce v12 from a producer id this transactional id does not hold.
  result.badProduceId = await errorOf(produce(txid, topic, 0, { ...current, producerId: first.producerId + 1000n }, 0, ['x']))
} else if (mode === 'v1') {
  const [topic, txid] = args
  await createTopic(topic)
  const p = await initProducerId(txid)
  result.init = pid(p)
  // Below level 2 a v12 produce adds nothing: the partition was not added.
  result.implicitProduce = await errorOf(produce(txid, topic, 0, p, 0, ['v1-0']))
  await cluster.sendRequest(at(API.ADD_PARTITIONS_TO_TXN, 3), {
    v3AndBelowTransactionalId: txid,
    v3AndBelowProducerId: p.producerId,
    v3AndBelowProducerEpoch: p.producerEpoch,
    v3AndBelowTopics: [{ name: topic, partitions: [0] }]
  })
  await produce(txid, topic, 0, p, 0, ['v1-0'])
  result.commit = pid(await endTxn(txid, p, true))
} else if (mode === 'end') {
  const [txid, producerId, producerEpoch] = args
  const producer = { producerId: BigInt(producerId), producerEpoch: Number(producerEpoch) }
  try {
    result.end = pid(await endTxn(txid, producer, true))
  } catch (e) {
    if (e.errorCode === undefined) throw e
    result.error = e.errorCode
  }
} else if (mode === 'features') {
  const r = await cluster.sendRequest(at(API.API_VERSIONS, 3), {})
  result.endTxnMax = r.versions.find(v => v.apiKey === 26).maxVersion
  // kafka-ts keeps the tagged fields as raw bytes: tag 2 is finalized_features, a compact
  // array of { name, max_version_level, min_version_level, tagged fields }.
  const raw = r.tags[2]
  result.finalized = {}
  if (raw) {
    let at = 0
    const uvarint = () => { let v = 0; let s = 0; let b; do { b = raw[at++]; v |= (b & 0x7f) << s; s += 7 } while (b & 0x80); return v }
    const count = uvarint() - 1
    for (let i = 0; i < count; i++) {
      const len = uvarint() - 1
      const name = raw.subarray(at, at + len).toString('utf8'); at += len
      const max = raw.readInt16BE(at); at += 2
      raw.readInt16BE(at); at += 2
      uvarint() // the entry's tagged fields
      result.finalized[name] = max
    }
  }
} else if (mode === 'update') {
  const [level, type, validateOnly] = args
  result.error = await errorOf(cluster.sendRequest(at(API.UPDATE_FEATURES, 1), {
    timeoutMs: 10000,
    featureUpdates: [{ feature: 'transaction.version', maxVersionLevel: Number(level), upgradeType: Number(type) }],
    validateOnly: validateOnly === 'true'
  }))
} else {
  throw new Error(`unknown mode ${mode}`)
}

await cluster.disconnect()
console.log('RESULT ' + JSON.stringify(result))
console.log(`ok: kafka-ts transactions v2 ${mode}`)
