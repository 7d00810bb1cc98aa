// One consumer-protocol member (@platformatic/kafka, groupProtocol 'consumer') of a group, for
// tests that drive it from outside (test_group_migration.py, test_group_configs.py): it prints
// "assigned P,P,..." whenever its partitions change and "got VALUE" for each message, commits
// every 100 ms, and on a "leave" line on stdin leaves the group, prints "left" and exits.
//
// Usage: node platformatic_group_member.mjs HOST:PORT TOPIC GROUP [CLIENT_ID]
import { createInterface } from 'node:readline'
import { Consumer, stringDeserializers } from '@platformatic/kafka'

const [broker, topic, group, clientId = 'migration-member'] = process.argv.slice(2)
const consumer = new Consumer({
  clientId, groupId: group, groupProtocol: 'consumer',
  deserializers: stringDeserializers, bootstrapBrokers: [broker], retries: 20, retryDelay: 200
})
const stream = await consumer.consume({
  topics: [topic], mode: 'committed', fallbackMode: 'earliest', autocommit: 100,
  sessionTimeout: 10000, rebalanceTimeout: 10000
})
let shown = ''
const timer = setInterval(() => {
  const now = (consumer.assignments ?? []).filter(t => t.topic === topic)
    .flatMap(t => t.partitions).sort((a, b) => a - b).join(',')
  if (now !== shown) {
    shown = now
    console.log(`assigned ${now}`)
  }
}, 100)
const reading = (async () => {
  for await (const m of stream) console.log(`got ${m.value}`)
})().catch(() => {})
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'leave') break
}
clearInterval(timer)
await stream.close()
await consumer.close(true)
await reading
console.log('left')
process.exit(0)
