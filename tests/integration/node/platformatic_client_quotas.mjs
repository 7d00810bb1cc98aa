// Client quotas (KIP-546: AlterClientQuotas and DescribeClientQuotas) through @platformatic/kafka's
// Admin, for test_client_quotas.py.
//
//   node platformatic_client_quotas.mjs set HOST:PORT ENTITY KEY=VALUE...   (KEY= removes it)
//     ENTITY: "client-id=app", "user=alice,client-id=<default>"...
//     prints RESULT {"error": CODE, "message": TEXT}: the broker's answer for the entity
//   node platformatic_client_quotas.mjs describe HOST:PORT
//     prints RESULT [{"entity": {"TYPE": NAME-or-null}, "values": {"KEY": VALUE}}, ...]
import assert from 'node:assert/strict'
import { Admin, ClientQuotaMatchTypes } from '@platformatic/kafka'

const [mode, broker, entity, ...pairs] = process.argv.slice(2)
assert.ok(mode && broker, 'usage: node platformatic_client_quotas.mjs set|describe HOST:PORT ...')
const admin = new Admin({ clientId: 'client-quotas', bootstrapBrokers: [broker], retries: 5, retryDelay: 200 })
const result = obj => console.log('RESULT ' + JSON.stringify(obj))

try {
  if (mode === 'set') {
    const entities = entity.split(',').map(part => {
      const [entityType, name] = part.split('=')
      return { entityType, entityName: name === '<default>' ? null : name }
    })
    const ops = pairs.map(pair => {
      const [key, value] = pair.split('=')
      return value === '' ? { key, remove: true } : { key, value: Number(value), remove: false }
    })
    try {
      const [answer] = await admin.alterClientQuotas({ entries: [{ entities, ops }] })
      result({ error: answer.errorCode, message: answer.errorMessage })
    } catch (e) {
      // The client throws on an entry's error code; the answer is in the error's response.
      const answer = e.response?.entries?.[0] ?? e.errors?.[0]?.response?.entries?.[0]
      if (!answer) throw e
      result({ error: answer.errorCode, message: answer.errorMessage })
    }
  } else if (mode === 'describe') {
    // Every entity with a user, then every one with a client id (the union of the two).
    const seen = new Map()
    for (const entityType of ['user', 'client-id']) {
      const entries = await admin.describeClientQuotas({
        components: [{ entityType, matchType: ClientQuotaMatchTypes.ANY }]
      })
      const defaults = await admin.describeClientQuotas({
        components: [{ entityType, matchType: ClientQuotaMatchTypes.DEFAULT }]
      })
      for (const e of [...entries, ...defaults]) {
        const key = JSON.stringify(e.entity)
        seen.set(key, {
          entity: Object.fromEntries(e.entity.map(c => [c.entityType, c.entityName ?? null])),
          values: Object.fromEntries(e.values.map(v => [v.key, v.value]))
        })
      }
    }
    result([...seen.values()])
  } else {
    throw new Error('unknown mode ' + mode)
  }
} finally {
  await admin.close()
}
