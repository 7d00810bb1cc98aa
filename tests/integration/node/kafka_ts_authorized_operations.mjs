// kafka-ts 1.5's requests with KIP-430's authorized operations asked for, against a running
// skiff: Metadata v13 (topics) and v10 (the cluster, which later versions dropped),
// DescribeCluster, DescribeTopicPartitions, DescribeGroups and ConsumerGroupDescribe (of a
// KIP-848 group it joins first), each also once without asking. Prints one JSON object with the bit sets the broker answered; the Python
// test (test_metadata_kafka4.py) says what they must be, with and without ACLs.
//
// Usage: node kafka_ts_authorized_operations.mjs HOST:PORT TOPIC CLASSIC_GROUP CONSUMER_GROUP
import assert from 'node:assert/strict'
import { API, createKafkaClient, setLogger } from 'kafka-ts'
import { METADATA_V10 } from 'kafka-ts/dist/api/metadata/v10.js'

const [host, port] = (process.argv[2] ?? '').split(':')
const [topic, classicGroup, consumerGroup] = process.argv.slice(3)
assert.ok(host && port && topic && classicGroup && consumerGroup,
  'usage: node kafka_ts_authorized_operations.mjs HOST:PORT TOPIC CLASSIC_GROUP CONSUMER_GROUP')
setLogger({ debug () {}, info () {}, warn () {}, error (...a) { console.error(...a) } })
const kafka = createKafkaClient({ clientId: 'kafka-ts-430', bootstrapServers: [{ host, port: Number(port) }] })
// A KIP-848 consumer group for ConsumerGroupDescribe, joined before the describes.
const consumer = await kafka.startConsumer({
  groupId: consumerGroup,
  groupProtocol: 'consumer',
  topics: [topic],
  fromTimestamp: -2n,
  rebalanceTimeoutMs: 10000,
  onBatch: async () => {}
})
const cluster = kafka.createCluster()
await cluster.connect()

const out = {}
const metadata = include => cluster.sendRequest(API.METADATA, {
  allowTopicAutoCreation: false,
  includeTopicAuthorizedOperations: include,
  topics: [{ id: null, name: topic }]
})
out.metadataTopic = (await metadata(true)).topics[0].topicAuthorizedOperations
out.metadataTopicNotAsked = (await metadata(false)).topics[0].topicAuthorizedOperations
out.metadataErrorCode = (await metadata(false)).errorCode

// Every topic: the internal ones are listed, with is_internal.
const all = await cluster.sendRequest(API.METADATA, {
  allowTopicAutoCreation: false, includeTopicAuthorizedOperations: false, topics: null
})
out.allTopics = all.topics.map(t => ({ name: t.name, internal: t.isInternal }))

const v10 = await cluster.sendRequest(METADATA_V10, {
  allowTopicAutoCreation: false,
  includeClusterAuthorizedOperations: true,
  includeTopicAuthorizedOperations: false,
  topics: [{ id: null, name: topic }]
})
out.metadataV10Cluster = v10.clusterAuthorizedOperations

const describeCluster = include => cluster.sendRequest(API.DESCRIBE_CLUSTER, {
  includeClusterAuthorizedOperations: include, endpointType: 1, includeFencedBrokers: false
})
out.describeCluster = (await describeCluster(true)).clusterAuthorizedOperations
out.describeClusterNotAsked = (await describeCluster(false)).clusterAuthorizedOperations

const dtp = await cluster.sendRequest(API.DESCRIBE_TOPIC_PARTITIONS, {
  topics: [{ name: topic }], responsePartitionLimit: 100, cursor: null
})
out.describeTopicPartitions = dtp.topics[0].topicAuthorizedOperations
out.elr = dtp.topics[0].partitions.map(p => [p.eligibleLeaderReplicas, p.lastKnownElr])

// The group calls go to the coordinator: skiff's one broker.
const describeGroups = include => cluster.sendRequest(API.DESCRIBE_GROUPS, {
  groups: [classicGroup], includeAuthorizedOperations: include
})
out.describeGroups = (await describeGroups(true)).groups[0].authorizedOperations
out.describeGroupsNotAsked = (await describeGroups(false)).groups[0].authorizedOperations

const consumerGroupDescribe = include => cluster.sendRequest(API.CONSUMER_GROUP_DESCRIBE, {
  groupIds: [consumerGroup], includeAuthorizedOperations: include
})
const described = await consumerGroupDescribe(true)
out.consumerGroupDescribeError = described.groups[0].errorCode
out.consumerGroupDescribe = described.groups[0].authorizedOperations
out.consumerGroupDescribeNotAsked =
  (await consumerGroupDescribe(false)).groups[0].authorizedOperations

await cluster.disconnect()
await consumer.close()
console.log(JSON.stringify(out))
