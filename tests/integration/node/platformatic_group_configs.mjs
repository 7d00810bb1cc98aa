// A group's own configs (KIP-848 / KIP-932: IncrementalAlterConfigs and DescribeConfigs on a
// GROUP resource, type 32) through @platformatic/kafka's Admin, for test_group_configs.py.
//
//   node platformatic_group_configs.mjs set HOST:PORT GROUP NAME=VALUE...   (NAME= deletes)
//     prints RESULT {"error": CODE, "message": TEXT}: the broker's answer for the group
//   node platformatic_group_configs.mjs describe HOST:PORT GROUP
//     prints RESULT {"NAME": [VALUE, SOURCE], ...}: every config the broker lists for the group
import assert from 'node:assert/strict'
import { Admin, ConfigResourceTypes, IncrementalAlterConfigOperationTypes } from '@platformatic/kafka'

const [mode, broker, group, ...pairs] = process.argv.slice(2)
assert.ok(mode && broker && group, 'usage: node platformatic_group_configs.mjs set|describe HOST:PORT GROUP ...')
const admin = new Admin({ clientId: 'group-configs', bootstrapBrokers: [broker], retries: 5, retryDelay: 200 })
const result = obj => console.log('RESULT ' + JSON.stringify(obj))

if (mode === 'set') {
  const configs = pairs.map(pair => {
    const at = pair.indexOf('=')
    const name = pair.slice(0, at)
    const value = pair.slice(at + 1)
    return value === ''
      ? { name, configOperation: IncrementalAlterConfigOperationTypes.DELETE }
      : { name, configOperation: IncrementalAlterConfigOperationTypes.SET, value }
  })
  try {
    await admin.incrementalAlterConfigs({
      resources: [{ resourceType: ConfigResourceTypes.GROUP, resourceName: group, configs }]
    })
    result({ error: 0, message: null })
  } catch (e) {
    // The client throws on the resource's error code; the answer is in the error's response.
    const answer = e.response?.responses?.[0] ?? e.errors?.[0]?.response?.responses?.[0]
    if (!answer) throw e
    result({ error: answer.errorCode, message: answer.errorMessage })
  }
} else if (mode === 'describe') {
  const [described] = await admin.describeConfigs({
    resources: [{ resourceType: ConfigResourceTypes.GROUP, resourceName: group }]
  })
  result(Object.fromEntries(described.configs.map(c => [c.name, [c.value, c.configSource]])))
} else {
  throw new Error(`unknown mode ${mode}`)
}
await admin.close()
process.exit(0)
