// kafka-ts 1.5's low-level share group requests against a running skiff: ShareGroupHeartbeat v1
// (members join with the member ids they chose, heartbeat, leave), ShareGroupDescribe v1,
// ListGroups v5 with the "share" type filter, and IncrementalAlterConfigs / DescribeConfigs on
// the GROUP resource (type 32). One step per run; prints one JSON line with what the broker
// answered; test_share_group_membership.py says what it must be.
//
// Usage: node kafka_ts_share_membership.mjs HOST:PORT GROUP TOPIC STEP [ARGS...]
//   join M1 M2 M3          the members join (epoch 0), then heartbeat once more each
//   beat M:EPOCH ...       one heartbeat each with that epoch
//   leave M:EPOCH          a heartbeat with epoch -1
//   describe               ShareGroupDescribe and ListGroups
//   set-config NAME VALUE  IncrementalAlterConfigs SET on the group
//   get-config             DescribeConfigs of the group
import assert from 'node:assert/strict'
import { API, createKafkaClient, setLogger } from 'kafka-ts'

const [host, port] = (process.argv[2] ?? '').split(':')
const [group, topic, step, ...args] = process.argv.slice(3)
assert.ok(host && port && group && topic && step, 'usage: see the header')
setLogger({ debug () {}, info () {}, warn () {}, error (...a) { console.error(...a) } })
const kafka = createKafkaClient({ clientId: 'kafka-ts-share', bootstrapServers: [{ host, port: Number(port) }] })
const cluster = kafka.createCluster()
await cluster.connect()

// A request whose error kafka-ts throws: the decoded answer (errors included) instead.
const send = async (api, body) => {
  try {
    return await cluster.sendRequest(api, body)
  } catch (e) {
    if (e.errorCode === undefined) throw e
    return e.response ?? { errorCode: e.errorCode, errorMessage: e.errorMessage ?? null }
  }
}
const uuidHex = id => Buffer.isBuffer(id) ? id.toString('hex') : String(id)
const heartbeat = async (memberId, memberEpoch, subscribed) => {
  const r = await send(API.SHARE_GROUP_HEARTBEAT, {
    groupId: group, memberId, memberEpoch, rackId: null, subscribedTopicNames: subscribed
  })
  return {
    errorCode: r.errorCode,
    errorMessage: r.errorMessage ?? null,
    memberId: r.memberId ?? null,
    memberEpoch: r.memberEpoch ?? null,
    heartbeatIntervalMs: r.heartbeatIntervalMs ?? null,
    assignment: r.assignment
      ? r.assignment.topicPartitions.map(tp => ({ topicId: uuidHex(tp.topicId), partitions: tp.partitions }))
      : null
  }
}

const out = { step }
if (step === 'join') {
  out.joined = {}
  for (const m of args) out.joined[m] = await heartbeat(m, 0, [topic])
  // Each heartbeats again with its epoch: the others' joins moved the assignment.
  out.steady = {}
  for (const m of args) out.steady[m] = await heartbeat(m, out.joined[m].memberEpoch, null)
} else if (step === 'beat') {
  out.beats = {}
  for (const a of args) {
    const [m, epoch] = a.split(':')
    out.beats[m] = await heartbeat(m, Number(epoch), null)
  }
} else if (step === 'leave') {
  const [m, epoch] = args[0].split(':')
  out.left = await heartbeat(m, -1, null)
  out.epochBefore = Number(epoch)
} else if (step === 'describe') {
  const d = await send(API.SHARE_GROUP_DESCRIBE, { groupIds: [group], includeAuthorizedOperations: true })
  const g = d.groups[0]
  out.describe = {
    errorCode: g.errorCode,
    groupState: g.groupState,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    assignorName: g.assignorName,
    authorizedOperations: g.authorizedOperations,
    members: g.members.map(m => ({
      memberId: m.memberId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      subscribedTopicNames: m.subscribedTopicNames,
      assignment: m.assignment.topicPartitions.map(tp => ({ topicName: tp.topicName, partitions: tp.partitions }))
    }))
  }
  const listed = await send(API.LIST_GROUPS, { statesFilter: [], typesFilter: ['share'] })
  out.listShare = listed.groups.map(x => ({ groupId: x.groupId, protocolType: x.protocolType, groupState: x.groupState, groupType: x.groupType }))
  const consumers = await send(API.LIST_GROUPS, { statesFilter: [], typesFilter: ['consumer'] })
  out.listConsumer = consumers.groups.map(x => x.groupId)
} else if (step === 'set-config') {
  const r = await send(API.INCREMENTAL_ALTER_CONFIGS, {
    resources: [{ resourceType: 32, resourceName: group, configs: [{ name: args[0], configOperation: 0, value: args[1] }] }],
    validateOnly: false
  })
  out.responses = (r.responses ?? []).map(x => ({ errorCode: x.errorCode, errorMessage: x.errorMessage ?? null }))
} else if (step === 'get-config') {
  const r = await send(API.DESCRIBE_CONFIGS, {
    resources: [{ resourceType: 32, resourceName: group, configurationKeys: null }],
    includeSynonyms: false,
    includeDocumentation: false
  })
  out.errorCode = r.results[0].errorCode
  out.configs = Object.fromEntries(r.results[0].configs.map(c => [c.name, { value: c.value, source: c.configSource }]))
} else {
  throw new Error('unknown step ' + step)
}
console.log(JSON.stringify(out))
await cluster.disconnect()
