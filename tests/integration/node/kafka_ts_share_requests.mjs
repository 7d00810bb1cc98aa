// kafka-ts 1.5's share-group request encoders (ShareFetch v2, ShareAcknowledge v2,
// DescribeShareGroupOffsets v1, AlterShareGroupOffsets v0, DeleteShareGroupOffsets v0) against a
// running skiff: the versions skiff advertises are the ones kafka-ts picks, every answer decodes
// with kafka-ts's own decoders, and the errors a request's own fields provoke are Kafka's. The
// share-group consumer loops themselves are in the share-group tests; this checks the wire.
//
// Usage: node kafka_ts_share_requests.mjs HOST:PORT
import assert from 'node:assert/strict'
import { API, createKafkaClient, setLogger } from 'kafka-ts'

const [host, port] = (process.argv[2] ?? '').split(':')
assert.ok(host && port, 'usage: node kafka_ts_share_requests.mjs HOST:PORT')
setLogger({ debug () {}, info () {}, warn () {}, error (...a) { console.error(...a) } })
const kafka = createKafkaClient({ clientId: 'kafka-ts-share', bootstrapServers: [{ host, port: Number(port) }] })
const topic = `kafka-ts-share-${process.pid}`
function step (name) { console.log(`-- ${name}`) }

const INVALID_REQUEST = 42
const UNSUPPORTED_VERSION = 35
const GROUP_ID_NOT_FOUND = 69
const INVALID_SHARE_SESSION_EPOCH = 123

// The Kafka error code a request is answered with (kafka-ts throws KafkaTSApiError for it).
async function errorOf (promise) {
  try {
    await promise
  } catch (error) {
    if (typeof error.errorCode === 'number') return error.errorCode
    throw error
  }
  return 0
}

const cluster = kafka.createCluster()
await cluster.connect()
const { controllerId } = await cluster.sendRequest(API.METADATA, {
  allowTopicAutoCreation: false, includeTopicAuthorizedOperations: false, topics: []
})
await cluster.sendRequestToNode(controllerId)(API.CREATE_TOPICS, {
  validateOnly: false,
  timeoutMs: 10000,
  topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }]
})
const metadata = await cluster.sendRequest(API.METADATA, {
  allowTopicAutoCreation: false, includeTopicAuthorizedOperations: false, topics: [{ id: null, name: topic }]
})
const topicId = metadata.topics[0].topicId
assert.match(topicId, /^[0-9a-f]{32}$/)

const fetchRequest = (overrides) => ({
  groupId: 'kafka-ts-share-group',
  memberId: 'kafka-ts-member',
  shareSessionEpoch: 0,
  maxWaitMs: 0,
  minBytes: 1,
  maxBytes: 1 << 20,
  maxRecords: 100,
  batchSize: 100,
  shareAcquireMode: 0,
  isRenewAck: false,
  topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
  forgottenTopicsData: [],
  ...overrides
})
const acks = [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 3n, acknowledgeTypes: [1] }] }] }]

step('ShareFetch v2 opening a session with acknowledgements: INVALID_REQUEST')
assert.equal(await errorOf(cluster.sendRequest(API.SHARE_FETCH, fetchRequest({ topics: acks }))), INVALID_REQUEST)

step('ShareFetch v2 without a group id: INVALID_REQUEST')
assert.equal(await errorOf(cluster.sendRequest(API.SHARE_FETCH, fetchRequest({ groupId: null }))), INVALID_REQUEST)

step('ShareFetch v2 renew request that asks for records: INVALID_REQUEST')
assert.equal(await errorOf(cluster.sendRequest(API.SHARE_FETCH,
  fetchRequest({ shareSessionEpoch: 1, isRenewAck: true, topics: acks }))), INVALID_REQUEST)

step('ShareFetch v2 with an unknown acquire mode: INVALID_REQUEST')
assert.equal(await errorOf(cluster.sendRequest(API.SHARE_FETCH, fetchRequest({ shareAcquireMode: 9 }))), INVALID_REQUEST)

step('ShareAcknowledge v2 cannot open a share session: INVALID_SHARE_SESSION_EPOCH')
assert.equal(await errorOf(cluster.sendRequest(API.SHARE_ACKNOWLEDGE, {
  groupId: 'kafka-ts-share-group', memberId: 'kafka-ts-member', shareSessionEpoch: 0, isRenewAck: false, topics: acks
})), INVALID_SHARE_SESSION_EPOCH)

// A group nobody made: GROUP_ID_NOT_FOUND once share groups run; UNSUPPORTED_VERSION (Kafka's
// answer with share groups off) before that. Either way the answer must decode.
step('DescribeShareGroupOffsets v1 of a group that does not exist')
const describe = await errorOf(cluster.sendRequest(API.DESCRIBE_SHARE_GROUP_OFFSETS, {
  groups: [{ groupId: 'no-such-share-group', topics: [{ topicName: topic, partitions: [0] }] }]
}))
assert.ok([GROUP_ID_NOT_FOUND, UNSUPPORTED_VERSION].includes(describe), `describe answered ${describe}`)

step('AlterShareGroupOffsets v0 of a group that does not exist')
const alter = await errorOf(cluster.sendRequest(API.ALTER_SHARE_GROUP_OFFSETS, {
  groupId: 'no-such-share-group', topics: [{ topicName: topic, partitions: [{ partitionIndex: 0, startOffset: 0n }] }]
}))
assert.ok([GROUP_ID_NOT_FOUND, UNSUPPORTED_VERSION].includes(alter), `alter answered ${alter}`)

step('DeleteShareGroupOffsets v0 of a group that does not exist')
const del = await errorOf(cluster.sendRequest(API.DELETE_SHARE_GROUP_OFFSETS, {
  groupId: 'no-such-share-group', topics: [{ topicName: topic }]
}))
assert.ok([GROUP_ID_NOT_FOUND, UNSUPPORTED_VERSION].includes(del), `delete answered ${del}`)

step('the connection still serves')
const again = await cluster.sendRequest(API.METADATA, {
  allowTopicAutoCreation: false, includeTopicAuthorizedOperations: false, topics: [{ id: null, name: topic }]
})
assert.equal(again.topics[0].topicId, topicId)
await cluster.disconnect()
console.log('ok: kafka-ts share requests against skiff')
