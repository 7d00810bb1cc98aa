// Group rebalance and idle-heartbeat figures with @platformatic/kafka (tests/bench/groups.sh).
//
//   node groups.mjs rebalance HOST:PORT PROTOCOL MEMBERS PARTITIONS
//     A group of MEMBERS-1 members (PROTOCOL 'classic' or 'consumer') holding a topic of
//     PARTITIONS partitions settles; then one more member joins. Prints the time from its join
//     call to the moment every member holds its share of a balanced, complete assignment.
//   node groups.mjs idle HOST:PORT MEMBERS
//     MEMBERS consumer-protocol members join a 100-partition topic and stay: they heartbeat,
//     and the 100 that hold a partition long-poll it (nothing is produced, 5 s maxWaitTime). Prints "ready" once all have joined, then idles
//     until killed; the caller measures the broker's CPU meanwhile.
import { Admin, Consumer } from '@platformatic/kafka'

const [mode, broker, ...rest] = process.argv.slice(2)
const base = { bootstrapBrokers: [broker], retries: 10, retryDelay: 250, timeout: 30000 }
const run = `${process.pid}-${Date.now()}`
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

async function topic (partitions) {
  const admin = new Admin({ clientId: 'bench-admin', ...base })
  const name = `bench-groups-${run}`
  await admin.createTopics({ topics: [name], partitions, replicas: 1 })
  await admin.close()
  return name
}

function member (protocol, group, name, i) {
  const consumer = new Consumer({
    clientId: `bench-${i}`,
    groupId: group,
    ...(protocol === 'consumer' ? { groupProtocol: 'consumer' } : {}),
    ...base
  })
  return consumer
}
// consume(): the client's joinGroup() does not subscribe (and is a no-op for the consumer
// protocol). Nothing is produced, so the members' fetches are long polls that wait maxWaitTime.
function join (consumer, name, heartbeatInterval) {
  return consumer.consume({
    topics: [name],
    mode: 'latest',
    autocommit: false,
    sessionTimeout: 60000,
    rebalanceTimeout: 60000,
    heartbeatInterval,
    maxWaitTime: 5000
  })
}
function held (consumer, name) {
  return (consumer.assignments ?? []).filter(a => a.topic === name).flatMap(a => a.partitions)
}
function settled (consumers, name, partitions) {
  const all = consumers.flatMap(c => held(c, name))
  if (all.length !== partitions || new Set(all).size !== partitions) return false
  const low = Math.floor(partitions / consumers.length)
  return consumers.every(c => { const n = held(c, name).length; return n === low || n === low + 1 })
}
async function until (cond, ms) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) { if (cond()) return true; await sleep(5) }
  return false
}

if (mode === 'rebalance') {
  const [protocol, members, partitions] = [rest[0], Number(rest[1]), Number(rest[2])]
  const name = await topic(partitions)
  const group = `bench-${protocol}-${run}`
  const consumers = []
  for (let i = 0; i < members - 1; i++) consumers.push(member(protocol, group, name, i))
  await Promise.all(consumers.map(c => join(c, name, 500)))
  if (!await until(() => settled(consumers, name, partitions), 120000)) throw new Error('the group never settled')
  const late = member(protocol, group, name, members - 1)
  consumers.push(late)
  const started = process.hrtime.bigint()
  join(late, name, 500).catch(e => { console.error(e); process.exit(1) })
  const ok = await until(() => settled(consumers, name, partitions), 120000)
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  console.log(`result protocol=${protocol} members=${members} partitions=${partitions} ok=${ok} ms=${ms.toFixed(1)}`)
  await Promise.all(consumers.map(c => c.close(true).catch(() => {})))
  process.exit(ok ? 0 : 1)
} else if (mode === 'idle') {
  const members = Number(rest[0])
  const name = await topic(100)
  const group = `bench-idle-${run}`
  const consumers = []
  for (let i = 0; i < members; i++) consumers.push(member('consumer', group, name, i))
  for (let i = 0; i < members; i += 50) await Promise.all(consumers.slice(i, i + 50).map(c => join(c, name, 5000)))
  console.log(`ready members=${members}`)
  await sleep(24 * 3600 * 1000)
} else {
  console.error('usage: node groups.mjs rebalance|idle HOST:PORT ...')
  process.exit(2)
}
