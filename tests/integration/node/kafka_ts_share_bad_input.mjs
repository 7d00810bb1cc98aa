// Bad input for share groups (KIP-932), from kafka-ts 1.5's low-level requests: each probe sends
// what a confused or malicious share consumer would and records the error code skiff answers, and
// what the records' state is afterwards (another member still gets them, their holder can still
// accept them). Loaded by kafka_ts_share_consumer.mjs's `bad` mode; test_share_groups_bad_input.py
// checks the result.
//
// CONFIG: { group, topic, lockMs, sessions }: `topic` has one partition holding records at
// offsets 0..9 (the test produces them); the group's lock duration is `lockMs`; the broker allows
// `sessions` share sessions.
import { randomUUID } from 'node:crypto'
import { API } from 'kafka-ts'

const ACCEPT = 1

export async function badInput (cfg, { Connection, answer, topicIds, sleep }) {
  const conn = new Connection()
  const ids = await topicIds(conn, [cfg.topic])
  const topicId = [...ids].find(([, name]) => name === cfg.topic)[0]
  const result = {}
  const members = []

  async function heartbeat (m) {
    const r = await answer(conn.send(API.SHARE_GROUP_HEARTBEAT, {
      groupId: cfg.group,
      memberId: m.id,
      memberEpoch: m.epoch,
      rackId: null,
      subscribedTopicNames: m.epoch === 0 ? [cfg.topic] : null
    }))
    if (!r.errorCode) m.epoch = r.memberEpoch
    if (r.assignment) m.assigned = r.assignment.topicPartitions.length > 0
    return r
  }
  // A member of the group with partition 0 assigned (Kafka's simple assignor shares it).
  async function join () {
    const m = { id: randomUUID(), epoch: 0, assigned: false, session: 0 }
    for (let i = 0; i < 100 && !m.assigned; i++) {
      const r = await heartbeat(m)
      if (r.errorCode) throw new Error(`heartbeat error ${r.errorCode}`)
      if (!m.assigned) await sleep(100)
    }
    if (!m.assigned) throw new Error('no assignment')
    members.push(m)
    return m
  }
  // Members must keep heartbeating while the probes run (the lock probe waits).
  let stop = false
  const beating = (async () => {
    while (!stop) {
      await sleep(500)
      for (const m of members) if (!stop) await heartbeat(m).catch(() => {})
    }
  })()

  function partitions (acks) {
    return [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks ?? [] }] }]
  }
  // One ShareFetch of partition 0 at the member's session epoch; the epoch moves on when it was
  // accepted. Returns { error, partitionError, ackError, acquired: [[first, last, count]] }.
  async function fetch (m, { acks, epoch, maxRecords = 100, maxWaitMs = 100 } = {}) {
    const e = epoch ?? m.session
    const r = await answer(conn.send(API.SHARE_FETCH, {
      groupId: cfg.group,
      memberId: m.id,
      shareSessionEpoch: e,
      maxWaitMs,
      minBytes: 1,
      maxBytes: 1048576,
      maxRecords,
      batchSize: maxRecords,
      // Epoch 0 opens the session with the partition; later the partition is sent only to
      // carry acknowledgements.
      topics: e === 0 || acks ? partitions(acks) : [],
      forgottenTopicsData: []
    }))
    if (!r.errorCode && epoch === undefined) m.session++
    const p = (r.responses ?? []).flatMap(t => t.partitions).find(x => x.partitionIndex === 0)
    return {
      error: r.errorCode,
      partitionError: p?.errorCode ?? 0,
      ackError: p?.acknowledgeErrorCode ?? 0,
      acquired: (p?.acquiredRecords ?? []).map(a => [Number(a.firstOffset), Number(a.lastOffset), a.deliveryCount])
    }
  }
  async function acknowledge (m, first, last, type = ACCEPT) {
    const r = await answer(conn.send(API.SHARE_ACKNOWLEDGE, {
      groupId: cfg.group,
      memberId: m.id,
      shareSessionEpoch: m.session,
      topics: partitions([{ firstOffset: BigInt(first), lastOffset: BigInt(last), acknowledgeTypes: [type] }])
    }))
    if (!r.errorCode) m.session++
    const p = (r.responses ?? []).flatMap(t => t.partitions).find(x => x.partitionIndex === 0)
    return r.errorCode || p?.errorCode || 0
  }
  // Fetches until something is acquired (a fetch may answer before the records are read).
  async function fetchSome (m, opts) {
    for (let i = 0; i < 20; i++) {
      const f = await fetch(m, { maxWaitMs: 1000, ...opts })
      if (f.error || f.acquired.length) return f
    }
    return { error: -1, acquired: [] }
  }

  try {
    const a = await join()
    const b = await join()
    // A acquires offsets 0..2 (maxRecords 3; a batch may overshoot, it is the acquired ranges
    // that count).
    const fa = await fetchSome(a, { maxRecords: 3 })
    result.aAcquired = fa.acquired
    const aLast = fa.acquired.length ? fa.acquired[fa.acquired.length - 1][1] : 0
    // B opens its session (and acquires what is left), then acknowledges A's records.
    const fb = await fetchSome(b)
    result.bAcquired = fb.acquired
    result.notAcquiredAck = await acknowledge(b, 0, aLast)
    // Piggy-backed on a fetch the same: the acknowledgement error on the partition.
    result.notAcquiredPiggyBack = (await fetch(b, { acks: [{ firstOffset: 0n, lastOffset: BigInt(aLast), acknowledgeTypes: [ACCEPT] }] })).ackError
    // Unchanged: A, the holder, can still accept them.
    result.holderAccepts = await acknowledge(a, 0, aLast)
    // An offset past the end of the log was never acquired by anyone.
    result.beyondEndAck = await acknowledge(b, 1000, 1000)

    // Wrong session epoch (the next one is a.session), and a session that was never opened.
    result.wrongEpoch = (await fetch(a, { epoch: a.session + 5 })).error
    const c = await join()
    result.unknownSession = (await fetch(c, { epoch: 3 })).error
    // A member id the group does not know.
    const stranger = { id: randomUUID(), epoch: 0, session: 0 }
    result.unknownMember = (await fetch(stranger, { epoch: 0 })).error
    stranger.session = 1 // as if it had a session: epoch 0 cannot acknowledge
    result.unknownMemberAck = await acknowledge(stranger, 0, 0)

    // The lock expires: B's records (acquired above) are available again after lockMs; B's late
    // acknowledgement is refused, and another member gets them with a higher delivery count.
    if (fb.acquired.length) {
      await sleep(cfg.lockMs + 1500)
      const [first, last] = [fb.acquired[0][0], fb.acquired[fb.acquired.length - 1][1]]
      result.expiredAck = await acknowledge(b, first, last)
      const again = await fetchSome(c)
      result.afterExpiry = again.acquired
      result.afterExpiryError = again.error
    }

    // The session limit: `sessions` sessions are open now (a, b, c) when cfg.sessions is 3; one
    // more member's first fetch is refused.
    const d = await join()
    result.overLimit = (await fetch(d, { epoch: 0 })).error
    // Closing a session (epoch -1) makes room.
    result.closeSession = (await fetch(c, { epoch: -1 })).error
    result.afterClose = (await fetch(d, { epoch: 0 })).error
  } finally {
    stop = true
    await beating
    for (const m of members) {
      m.epoch = -1
      await heartbeat(m).catch(() => {})
    }
    await conn.close()
  }
  return result
}
