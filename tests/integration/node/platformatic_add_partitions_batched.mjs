// AddPartitionsToTxn v5 in Kafka's broker-to-broker form (KIP-890 part 1), sent with
// @platformatic/kafka 1.35's low-level API against a running skiff: one request carrying several
// transactions, one of them verify_only. Prints `RESULT {json}` with each transaction's
// per-partition error codes for test_transactions_v2.py.
//
// Usage: node platformatic_add_partitions_batched.mjs HOST:PORT TOPIC (TOPIC has 2 partitions)
import assert from 'node:assert/strict'
import { Connection, addPartitionsToTxnV3, addPartitionsToTxnV5, initProducerIdV5 } from '@platformatic/kafka'

const [bootstrap, topic] = process.argv.slice(2)
const [host, port] = (bootstrap ?? '').split(':')
assert.ok(host && port && topic, 'usage: node platformatic_add_partitions_batched.mjs HOST:PORT TOPIC')
const connection = new Connection('platformatic-apt-v5')
await connection.connect(host, Number(port))

// The response, whether or not some partition carries an error (the client throws then).
async function batched (transactions) {
  try {
    return await addPartitionsToTxnV5.api.async(connection, transactions)
  } catch (e) {
    if (!e.response) throw e
    return e.response
  }
}
const codes = response => Object.fromEntries(response.resultsByTransaction.map(t =>
  [t.transactionalId, t.topicResults.flatMap(r => r.resultsByPartition.map(p => p.partitionErrorCode))]))

const a = await initProducerIdV5.api.async(connection, 'plt-tx-a', 60000, -1n, -1)
const b = await initProducerIdV5.api.async(connection, 'plt-tx-b', 60000, -1n, -1)
// tx-b holds partition 0 (a client's v3 add).
await addPartitionsToTxnV3.api.async(connection, [{
  transactionalId: 'plt-tx-b', producerId: b.producerId, producerEpoch: b.producerEpoch, topics: [{ name: topic, partitions: [0] }]
}])
const tx = (id, p, verifyOnly, partitions) =>
  ({ transactionalId: id, producerId: p.producerId, producerEpoch: p.producerEpoch, verifyOnly, topics: [{ name: topic, partitions }] })

const result = {}
const first = await batched([
  tx('plt-tx-a', a, false, [0, 1]), // added
  tx('plt-tx-b', b, true, [0, 1]), // verified only: 0 is in, 1 is not
  tx('plt-tx-none', a, false, [0]), // unknown transactional id
  tx('plt-tx-c', a, true, [0, 7]) // partition 7 does not exist
])
result.topLevel = first.errorCode
result.first = codes(first)
// tx-a's partitions were added; tx-b's partition 1 was not.
result.verifyAfter = codes(await batched([tx('plt-tx-a', a, true, [0, 1]), tx('plt-tx-b', b, true, [0, 1])]))
// A wrong epoch and the same transactional id twice.
result.fenced = codes(await batched([tx('plt-tx-a', { ...a, producerEpoch: a.producerEpoch + 5 }, true, [0])]))
const dup = await batched([tx('plt-tx-a', a, true, [0]), tx('plt-tx-a', a, true, [1])])
result.duplicateTopLevel = dup.errorCode
connection.close(() => {})
console.log('RESULT ' + JSON.stringify(result))
console.log('ok: @platformatic/kafka batched AddPartitionsToTxn')
