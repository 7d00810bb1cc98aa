// Share consumers (KIP-932) on kafka-ts 1.5's low-level requests against a running skiff:
// kafka-ts has the encoders of ShareGroupHeartbeat, ShareFetch and ShareAcknowledge but no share
// consumer, so this script is one, written the way Kafka's KafkaShareConsumer behaves:
// - ShareGroupHeartbeat: joins with a member id it generates (v1), epoch 0, heartbeats at the
//   interval the broker answers, leaves with epoch -1;
// - ShareFetch: a share session per member (epoch 0 opens it with the assigned partitions, then
//   +1 per request, only changes sent), records outside the acquired ranges dropped, the
//   acknowledgements of the previous batch piggy-backed on the next fetch (or sent with
//   ShareAcknowledge), offsets of an acquired range without a record acknowledged as gaps;
// - after a lost connection (the broker killed): reconnects, rejoins if fenced, opens a new session.
// Each member has a behaviour per record (accept; release the first N deliveries; reject or
// always release some keys; hold = stop acknowledging, keep the locks) and the script prints
// one JSON line per event for the Python side (test_share_groups*.py), which checks the
// invariants:
//   {"event":"delivery","member","partition","offset","key","delivery_count","ack"}
//   {"event":"ack","member","partition","first","last","types","error"}   (error 0: applied;
//    -1: unknown, the connection was lost with the request in flight; -2: not sent, the session
//    they belonged to is gone)
//   {"event":"fetched","member","records"}   (a ShareFetch that delivered records: how many)
//
// Usage:
//   node kafka_ts_share_consumer.mjs consume HOST:PORT CONFIG_JSON
//     CONFIG: { group, topic, members: [{ name, accept?, releaseFirst?, rejectKeys?,
//               releaseKeys?, hold?, fetches?, ackWith?: 'fetch'|'ack', startDelayMs?,
//               startAfter?: NAME, processMs? }],
//               stopAfterFinal?, idleMs?, maxMs?, maxRecords?, maxWaitMs?, minBytes?, batchSize?,
//               stopFile?, quiet? }
//     quiet (the benchmark): every record accepted, no line per event, counts in the last line.
//     Stops when stopAfterFinal distinct records were accepted or rejected (acknowledgements
//     applied), when idleMs passed without a delivery (after the first), when stopFile exists,
//     or after maxMs; then sends what it owes and leaves.
//   node kafka_ts_share_consumer.mjs group-config HOST:PORT GROUP NAME=VALUE...
//     IncrementalAlterConfigs (SET) on the GROUP resource; prints RESULT {error}.
//   node kafka_ts_share_consumer.mjs bad HOST:PORT CONFIG_JSON      the bad-input probes; RESULT {...}
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { API, createKafkaClient, setLogger } from 'kafka-ts'

const [mode, bootstrap, ...args] = process.argv.slice(2)
const [host, port] = (bootstrap ?? '').split(':')
assert.ok(mode && host && port, 'usage: node kafka_ts_share_consumer.mjs MODE HOST:PORT ...')
setLogger({ debug () {}, info () {}, warn () {}, error () {} })
const kafka = createKafkaClient({ clientId: 'kafka-ts-share', bootstrapServers: [{ host, port: Number(port) }] })
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const emit = obj => process.stdout.write(JSON.stringify(obj) + '\n')

const ACCEPT = 1
const RELEASE = 2
const REJECT = 3
const GAP = 0
const ERR = {
  UNKNOWN_MEMBER_ID: 25,
  FENCED_MEMBER_EPOCH: 110,
  UNRELEASED_INSTANCE_ID: 111,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  SHARE_SESSION_NOT_FOUND: 122,
  INVALID_SHARE_SESSION_EPOCH: 123
}

// A request's answer even when kafka-ts threw for an error code inside it (its throwIfError
// throws on the first partition error; the records beside it were still acquired and must be
// processed). Connection errors are rethrown.
async function answer (promise) {
  try {
    return await promise
  } catch (e) {
    if (e.errorCode !== undefined && e.response) return e.response
    if (e.errorCode !== undefined) return { errorCode: e.errorCode, errorMessage: e.errorMessage }
    throw e
  }
}

// Cluster connection that comes back after the broker was killed and restarted.
class Connection {
  constructor () { this.cluster = null }
  async send (api, request) {
    for (let attempt = 0; ; attempt++) {
      try {
        if (!this.cluster) {
          const cluster = kafka.createCluster()
          await cluster.connect()
          this.cluster = cluster
        }
        return await this.cluster.sendRequest(api, request)
      } catch (e) {
        if (e.errorCode !== undefined) throw e
        // Lost or refused connection: the broker is restarting. The request may have been
        // applied or not: the caller reports its acknowledgements' outcome as unknown (-1).
        this.retried = true
        const stale = this.cluster
        this.cluster = null
        if (stale) await stale.disconnect().catch(() => {})
        if (attempt >= 300) throw e
        await sleep(100)
      }
    }
  }
  async close () { if (this.cluster) await this.cluster.disconnect().catch(() => {}) }
}

async function topicIds (conn, topics) {
  const md = await conn.send(API.METADATA, {
    allowTopicAutoCreation: false, includeTopicAuthorizedOperations: false, topics: topics.map(name => ({ id: null, name }))
  })
  const byId = new Map()
  for (const t of md.topics) byId.set(t.topicId, t.name)
  return byId
}

// One share consumer.
class Member {
  constructor (cfg, run) {
    this.cfg = cfg
    this.run = run
    this.name = cfg.name
    this.memberId = randomUUID()
    this.memberEpoch = 0
    this.intervalMs = 1000
    this.assignment = new Map() // topicId -> Set(partition)
    this.sessionEpoch = 0
    this.inSession = new Map() // topicId -> Set(partition) the session fetches
    this.pending = new Map() // `${topicId}:${p}` -> Map(offset -> type), acknowledgements owed
    this.hbConn = new Connection()
    this.fetchConn = new Connection()
    this.fetches = 0
    this.stopped = false
    this.left = false
  }

  // ---- membership -------------------------------------------------------------------------
  async heartbeat (leaving = false) {
    const r = await answer(this.hbConn.send(API.SHARE_GROUP_HEARTBEAT, {
      groupId: this.run.group,
      memberId: this.memberId,
      memberEpoch: leaving ? -1 : this.memberEpoch,
      rackId: null,
      subscribedTopicNames: this.memberEpoch === 0 && !leaving ? [this.run.topic] : null
    }))
    if (leaving) return r
    if (r.errorCode === ERR.UNKNOWN_MEMBER_ID || r.errorCode === ERR.FENCED_MEMBER_EPOCH) {
      // Fenced (e.g. the broker lost the member, or its session timed out): rejoin with the same
      // member id at epoch 0; whatever it held was released by the broker.
      emit({ event: 'fenced', member: this.name, error: r.errorCode })
      this.memberEpoch = 0
      this.pending.clear()
      this.sessionEpoch = 0
      this.inSession.clear()
      return r
    }
    if (r.errorCode) {
      emit({ event: 'heartbeat_error', member: this.name, error: r.errorCode })
      return r
    }
    this.memberEpoch = r.memberEpoch
    if (r.heartbeatIntervalMs > 0) this.intervalMs = r.heartbeatIntervalMs
    if (r.assignment) {
      const a = new Map()
      for (const tp of r.assignment.topicPartitions) a.set(tp.topicId, new Set(tp.partitions))
      this.assignment = a
      emit({ event: 'assignment', member: this.name, epoch: this.memberEpoch, partitions: [...a.values()].flatMap(s => [...s]).sort() })
    }
    return r
  }

  async heartbeatLoop () {
    while (!this.left) {
      try {
        await this.heartbeat()
      } catch (e) {
        emit({ event: 'heartbeat_exception', member: this.name, message: String(e) })
      }
      const until = Date.now() + Math.min(this.intervalMs, 5000)
      while (!this.left && Date.now() < until) await sleep(50)
    }
  }

  // ---- acknowledgements -------------------------------------------------------------------
  owe (topicId, partition, offset, type) {
    const k = `${topicId}:${partition}`
    if (!this.pending.has(k)) this.pending.set(k, new Map())
    this.pending.get(k).set(offset, type)
  }

  // The owed acknowledgements as AcknowledgementBatches: contiguous offsets in one batch, one
  // type for the batch when all are the same, else one per offset.
  takeAcks () {
    const topics = new Map()
    for (const [k, offsets] of this.pending) {
      const [topicId, p] = k.split(':')
      const sorted = [...offsets.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      const batches = []
      for (const o of sorted) {
        const last = batches[batches.length - 1]
        if (last && last.lastOffset + 1n === o) {
          last.lastOffset = o
          last.acknowledgeTypes.push(offsets.get(o))
        } else {
          batches.push({ firstOffset: o, lastOffset: o, acknowledgeTypes: [offsets.get(o)] })
        }
      }
      for (const b of batches) if (b.acknowledgeTypes.every(t => t === b.acknowledgeTypes[0])) b.acknowledgeTypes = [b.acknowledgeTypes[0]]
      if (!topics.has(topicId)) topics.set(topicId, [])
      topics.get(topicId).push({ partitionIndex: Number(p), acknowledgementBatches: batches })
    }
    this.pending = new Map()
    return topics
  }

  reportAcks (sent, errors) {
    if (this.run.quiet) {
      for (const e of errors.values()) if (e) this.run.ackErrors++
      return
    }
    for (const [topicId, partitions] of sent) {
      for (const p of partitions) {
        const error = errors.get(`${topicId}:${p.partitionIndex}`) ?? 0
        for (const b of p.acknowledgementBatches) {
          emit({ event: 'ack', member: this.name, partition: p.partitionIndex, first: Number(b.firstOffset), last: Number(b.lastOffset), types: b.acknowledgeTypes, error })
        }
      }
    }
  }

  // ---- fetching ---------------------------------------------------------------------------
  decide (key, deliveryCount) {
    const c = this.cfg
    if (c.hold) return null
    if (c.rejectKeys && c.rejectKeys.includes(key)) return REJECT
    if (c.releaseKeys && c.releaseKeys.includes(key)) return RELEASE
    if (c.releaseFirst && deliveryCount <= c.releaseFirst) return RELEASE
    return ACCEPT
  }

  async shareFetch () {
    const acks = this.takeAcks()
    if (this.sessionEpoch === 0 && acks.size) {
      // Epoch 0 opens a session and must not carry acknowledgements (Kafka refuses them): these
      // belong to a session that is gone, whose records the broker released or will at the
      // end of their locks. Reported as never sent (-2).
      this.reportAcks(acks, new Map([...acks].flatMap(([t, ps]) => ps.map(p => [`${t}:${p.partitionIndex}`, -2]))))
      acks.clear()
    }
    // Epoch 0 opens the session with every assigned partition; later requests send only what
    // changed (new partitions, acknowledgements) and forget what is no longer assigned.
    const topics = new Map()
    const forgotten = []
    if (this.sessionEpoch === 0) this.inSession = new Map()
    for (const [topicId, parts] of this.assignment) {
      const had = this.inSession.get(topicId) ?? new Set()
      for (const p of parts) {
        if (!had.has(p)) {
          if (!topics.has(topicId)) topics.set(topicId, new Map())
          topics.get(topicId).set(p, [])
        }
      }
    }
    for (const [topicId, had] of this.inSession) {
      const now = this.assignment.get(topicId) ?? new Set()
      const gone = [...had].filter(p => !now.has(p))
      if (gone.length) forgotten.push({ topicId, partitions: gone })
    }
    for (const [topicId, partitions] of acks) {
      for (const p of partitions) {
        if (!topics.has(topicId)) topics.set(topicId, new Map())
        topics.get(topicId).set(p.partitionIndex, p.acknowledgementBatches)
      }
    }
    const request = {
      groupId: this.run.group,
      memberId: this.memberId,
      shareSessionEpoch: this.sessionEpoch,
      maxWaitMs: this.run.maxWaitMs ?? 500,
      minBytes: this.run.minBytes ?? 1,
      maxBytes: 52428800,
      maxRecords: this.run.maxRecords ?? 500,
      batchSize: this.run.batchSize ?? 500,
      topics: [...topics].map(([topicId, parts]) => ({
        topicId, partitions: [...parts].map(([partitionIndex, acknowledgementBatches]) => ({ partitionIndex, acknowledgementBatches }))
      })),
      forgottenTopicsData: forgotten
    }
    this.fetchConn.retried = false
    const r = await answer(this.fetchConn.send(API.SHARE_FETCH, request))
    if (this.fetchConn.retried) {
      this.reportAcks(acks, new Map([...acks].flatMap(([t, ps]) => ps.map(p => [`${t}:${p.partitionIndex}`, -1]))))
      acks.clear()
    }
    if (r.errorCode) {
      emit({ event: 'fetch_error', member: this.name, error: r.errorCode, epoch: this.sessionEpoch })
      // The acknowledgements were not applied: the records come back after their locks expire.
      this.reportAcks(acks, new Map([...acks].flatMap(([t, ps]) => ps.map(p => [`${t}:${p.partitionIndex}`, r.errorCode]))))
      // A lost session (the broker restarted, or evicted it): open a new one.
      if (r.errorCode === ERR.SHARE_SESSION_NOT_FOUND || r.errorCode === ERR.INVALID_SHARE_SESSION_EPOCH) this.sessionEpoch = 0
      if (r.errorCode === ERR.UNKNOWN_MEMBER_ID) { this.memberEpoch = 0; this.sessionEpoch = 0 }
      await sleep(100)
      return 0
    }
    // The session now holds what was sent.
    for (const [topicId, parts] of topics) {
      if (!this.inSession.has(topicId)) this.inSession.set(topicId, new Set())
      for (const p of parts.keys()) this.inSession.get(topicId).add(p)
    }
    for (const f of forgotten) for (const p of f.partitions) this.inSession.get(f.topicId)?.delete(p)
    this.sessionEpoch = this.sessionEpoch === 2147483647 ? 1 : this.sessionEpoch + 1
    // The acknowledgements were applied before the records were acquired: reported first.
    const ackErrors = new Map()
    for (const t of r.responses) {
      for (const p of t.partitions) ackErrors.set(`${t.topicId}:${p.partitionIndex}`, p.acknowledgeErrorCode)
    }
    this.reportAcks(acks, ackErrors)
    let delivered = 0
    for (const t of r.responses) {
      for (const p of t.partitions) {
        if (p.errorCode) emit({ event: 'partition_error', member: this.name, partition: p.partitionIndex, error: p.errorCode })
        delivered += this.deliver(t.topicId, p)
      }
    }
    if (this.cfg.ackWith === 'ack' && this.pending.size) await this.shareAcknowledge()
    return delivered
  }

  // Hands the acquired records of one partition to the behaviour, in offset order; records
  // outside the acquired ranges are dropped, acquired offsets without a record are gaps.
  deliver (topicId, p) {
    if (!p.acquiredRecords.length) return 0
    const byOffset = new Map()
    for (const batch of p.records) {
      if (batch.isControlBatch) continue
      for (const rec of batch.records) byOffset.set(batch.baseOffset + BigInt(rec.offsetDelta), rec)
    }
    let n = 0
    for (const range of p.acquiredRecords) {
      for (let o = range.firstOffset; o <= range.lastOffset; o++) {
        const rec = byOffset.get(o)
        if (!rec) {
          if (!this.cfg.hold) this.owe(topicId, p.partitionIndex, o, GAP)
          continue
        }
        n++
        if (this.run.quiet) {
          // The benchmark: accept everything, count, print nothing per record.
          this.owe(topicId, p.partitionIndex, o, ACCEPT)
          this.run.finalCount++
          this.run.bytes += rec.value === null ? 0 : rec.value.length
          continue
        }
        const key = rec.key === null ? null : rec.key.toString()
        const type = this.decide(key, range.deliveryCount)
        emit({ event: 'delivery', member: this.name, partition: p.partitionIndex, offset: Number(o), key, delivery_count: range.deliveryCount, ack: type })
        if (type !== null) {
          this.owe(topicId, p.partitionIndex, o, type)
          if (type === ACCEPT || type === REJECT) this.run.final.add(`${p.partitionIndex}:${o}`)
        }
      }
    }
    return n
  }

  async shareAcknowledge (epoch = this.sessionEpoch) {
    const acks = this.takeAcks()
    if (!acks.size) return
    this.fetchConn.retried = false
    const r = await answer(this.fetchConn.send(API.SHARE_ACKNOWLEDGE, {
      groupId: this.run.group,
      memberId: this.memberId,
      shareSessionEpoch: epoch,
      topics: [...acks].map(([topicId, partitions]) => ({ topicId, partitions }))
    }))
    const errors = new Map()
    for (const t of r.responses ?? []) for (const p of t.partitions) errors.set(`${t.topicId}:${p.partitionIndex}`, p.errorCode)
    if (r.errorCode) for (const [t, ps] of acks) for (const p of ps) errors.set(`${t}:${p.partitionIndex}`, r.errorCode)
    if (this.fetchConn.retried) for (const [t, ps] of acks) for (const p of ps) errors.set(`${t}:${p.partitionIndex}`, -1)
    if (r.errorCode === ERR.SHARE_SESSION_NOT_FOUND || r.errorCode === ERR.INVALID_SHARE_SESSION_EPOCH) this.sessionEpoch = 0
    else if (!r.errorCode && epoch !== -1) this.sessionEpoch++
    this.reportAcks(acks, errors)
  }

  async fetchLoop () {
    if (this.cfg.startDelayMs) await sleep(this.cfg.startDelayMs)
    // startAfter: another member's name; this one fetches once that one got records (so that the
    // other holds them first).
    while (this.cfg.startAfter && !this.stopped && !this.run.delivered.has(this.cfg.startAfter)) await sleep(50)
    while (!this.stopped) {
      if (this.memberEpoch === 0 || this.assignment.size === 0 ||
          (this.cfg.fetches !== undefined && this.fetches >= this.cfg.fetches)) {
        await sleep(50)
        continue
      }
      try {
        const n = await this.shareFetch()
        if (n > 0 && !this.run.quiet) emit({ event: 'fetched', member: this.name, records: n })
        if (n > 0) {
          // processMs: the time the application takes with a batch before its next fetch.
          if (this.cfg.processMs) await sleep(this.cfg.processMs)
          this.fetches++
          this.run.lastDelivery = Date.now()
          this.run.firstDelivery ??= this.run.lastDelivery
          this.run.delivered.add(this.name)
        }
      } catch (e) {
        emit({ event: 'fetch_exception', member: this.name, message: String(e) })
        await sleep(100)
      }
    }
  }

  // Sends what it owes (closing the share session with epoch -1), then leaves the group.
  async close () {
    try {
      if (this.pending.size && this.sessionEpoch > 0) await this.shareAcknowledge(-1)
    } catch (e) {
      emit({ event: 'close_exception', member: this.name, message: String(e) })
    }
    this.left = true
    try {
      const r = await this.heartbeat(true)
      emit({ event: 'left', member: this.name, error: r.errorCode })
    } catch (e) {
      emit({ event: 'close_exception', member: this.name, message: String(e) })
    }
    await this.hbConn.close()
    await this.fetchConn.close()
  }
}

async function consume (cfg) {
  const run = { ...cfg, final: new Set(), finalCount: 0, bytes: 0, ackErrors: 0, delivered: new Set(), lastDelivery: 0 }
  const members = cfg.members.map(m => new Member(m, run))
  const started = Date.now()
  const hb = members.map(m => m.heartbeatLoop())
  const fetch = members.map(m => m.fetchLoop())
  for (;;) {
    await sleep(50)
    const now = Date.now()
    if (cfg.stopAfterFinal && run.final.size + run.finalCount >= cfg.stopAfterFinal) break
    if (cfg.idleMs && run.lastDelivery && now - run.lastDelivery > cfg.idleMs) break
    if (cfg.stopFile && existsSync(cfg.stopFile)) break
    if (now - started > (cfg.maxMs ?? 60000)) { emit({ event: 'timeout' }); break }
  }
  for (const m of members) m.stopped = true
  await Promise.all(fetch)
  // Acknowledgements still owed (the last batch) go out, accepted records are counted final.
  await Promise.all(members.map(m => m.close()))
  await Promise.all(hb)
  emit({ event: 'done', final: run.final.size + run.finalCount, bytes: run.bytes, ackErrors: run.ackErrors, firstDeliveryMs: run.firstDelivery ? run.firstDelivery - started : null, lastDeliveryMs: run.lastDelivery - started })
}

// ---- the other modes ----------------------------------------------------------------------
async function groupConfig (group, pairs) {
  const conn = new Connection()
  const r = await answer(conn.send(API.INCREMENTAL_ALTER_CONFIGS, {
    resources: [{
      resourceType: 32, // GROUP
      resourceName: group,
      configs: pairs.map(p => {
        const i = p.indexOf('=')
        return { name: p.slice(0, i), configOperation: 0, value: p.slice(i + 1) }
      })
    }],
    validateOnly: false
  }))
  await conn.close()
  const error = r.errorCode || (r.responses ?? []).map(x => x.errorCode).find(e => e) || 0
  console.log('RESULT ' + JSON.stringify({ error, message: r.errorMessage ?? r.responses?.[0]?.errorMessage ?? null }))
}

if (mode === 'consume') {
  await consume(JSON.parse(args[0]))
} else if (mode === 'group-config') {
  await groupConfig(args[0], args.slice(1))
} else if (mode === 'bad') {
  const { badInput } = await import('./kafka_ts_share_bad_input.mjs')
  console.log('RESULT ' + JSON.stringify(await badInput(JSON.parse(args[0]), { kafka, Connection, answer, topicIds, sleep })))
} else {
  throw new Error(`unknown mode ${mode}`)
}
process.exit(0)
