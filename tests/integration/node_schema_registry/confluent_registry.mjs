// @confluentinc/schemaregistry's SchemaRegistryClient against skiff's registry.
//
//   node confluent_registry.mjs REGISTRY_URL
//
// Register, get by id, get latest and by version, lookup (id and version of a schema), list
// versions and subjects, the default and a subject's compatibility set and read back, compatibility
// tested (compatible and incompatible, against latest and a version), an incompatible registration
// refused, soft and hard deletes of a version and of the subject, and Confluent's error codes as
// the client's RestError carries them (status and errorCode), a subject name that needs
// percent-encoding and non-ASCII schema text. Every lookup goes through a new
// client, so that no client cache answers for the registry. Prints "ok: ..." at the end.

import assert from 'node:assert/strict';
import { Compatibility, RestError, SchemaRegistryClient } from '@confluentinc/schemaregistry';
import { rejection, run } from './common.mjs';

const [url] = process.argv.slice(2);
const fresh = () => new SchemaRegistryClient({ baseURLs: [url], maxRetries: 0 });

const V1 = { type: 'record', name: 'Shipment', namespace: 'cfl',
  fields: [{ name: 'id', type: 'long' }, { name: 'to', type: 'string' }] };
// A field added with a default: compatible both ways (FULL).
const V2 = { ...V1, fields: [...V1.fields, { name: 'weight', type: 'double', default: 0 }] };
// A field added without a default: not BACKWARD (nor FULL) compatible.
const BAD = { ...V1, fields: [...V1.fields, { name: 'carrier', type: 'string' }] };
const avro = (s, indent) => ({ schemaType: 'AVRO', schema: JSON.stringify(s, null, indent) });

// The RestError a call rejects with, checked against Confluent's status and error code.
async function restError(promise, status, errorCode, what) {
  const e = await rejection(promise, what);
  assert.ok(e instanceof RestError, `${what}: ${e}`);
  assert.deepStrictEqual([e.status, e.errorCode], [status, errorCode], `${what}: ${e.message}`);
  return e;
}

async function main() {
  const subject = 'cfl-shipments-value';
  const id1 = await fresh().register(subject, avro(V1));
  assert.ok(Number.isInteger(id1) && id1 > 0, `id ${id1}`);
  // The same schema with other whitespace: the same id; the full response names it.
  const again = await fresh().registerFullResponse(subject, avro(V1, 2));
  assert.equal(again.id, id1, 'registered again');

  const byId = await fresh().getBySubjectAndId(subject, id1);
  assert.deepStrictEqual(JSON.parse(byId.schema), V1, 'schema by id');
  assert.ok(byId.schemaType === undefined || byId.schemaType === 'AVRO', `type ${byId.schemaType}`);
  const latest = await fresh().getLatestSchemaMetadata(subject);
  assert.deepStrictEqual([latest.id, latest.version, latest.subject], [id1, 1, subject], 'latest');
  assert.deepStrictEqual(JSON.parse(latest.schema), V1, 'latest schema');
  const v1 = await fresh().getSchemaMetadata(subject, 1);
  assert.deepStrictEqual([v1.id, v1.version], [id1, 1], 'version 1');
  // Lookup: is this schema (other whitespace) registered under the subject, with what id/version?
  assert.equal(await fresh().getId(subject, avro(V1, 4)), id1, 'lookup id');
  const found = await fresh().getIdFullResponse(subject, avro(V1, 4));
  assert.deepStrictEqual([found.id, found.version, found.subject], [id1, 1, subject], 'lookup');
  assert.equal(await fresh().getVersion(subject, avro(V1)), 1, 'lookup version');

  // Compatibility: the default, then the subject's own level.
  assert.equal(await fresh().getDefaultCompatibility(), Compatibility.BACKWARD, 'default level');
  await restError(fresh().getCompatibility(subject), 404, 40408, 'subject without its own level');
  assert.equal(await fresh().updateCompatibility(subject, Compatibility.FULL), Compatibility.FULL,
    'level set');
  assert.equal(await fresh().getCompatibility(subject), Compatibility.FULL, 'level read back');
  assert.equal((await fresh().getConfig(subject)).compatibilityLevel, Compatibility.FULL, 'config');
  assert.equal(await fresh().testSubjectCompatibility(subject, avro(V2)), true, 'V2 against latest');
  assert.equal(await fresh().testSubjectCompatibility(subject, avro(BAD)), false, 'BAD against latest');
  assert.equal(await fresh().testCompatibility(subject, 1, avro(V2)), true, 'V2 against version 1');
  assert.equal(await fresh().testCompatibility(subject, 1, avro(BAD)), false, 'BAD against version 1');
  await restError(fresh().register(subject, avro(BAD)), 409, 409, 'incompatible registration');
  const id2 = await fresh().register(subject, avro(V2));
  assert.ok(id2 > id1, `id ${id2} after ${id1}`);
  assert.deepStrictEqual(await fresh().getAllVersions(subject), [1, 2], 'versions');
  assert.equal((await fresh().getLatestSchemaMetadata(subject)).version, 2, 'latest version');
  await restError(fresh().testCompatibility(subject, 7, avro(V2)), 404, 40402,
    'compatibility against a missing version');

  // The default level set and read back (restored after: other scripts share the registry).
  assert.equal(await fresh().updateDefaultCompatibility(Compatibility.FORWARD_TRANSITIVE),
    Compatibility.FORWARD_TRANSITIVE, 'default level set');
  assert.equal(await fresh().getDefaultCompatibility(), Compatibility.FORWARD_TRANSITIVE,
    'default level read back');
  assert.equal(await fresh().updateDefaultCompatibility(Compatibility.BACKWARD), Compatibility.BACKWARD,
    'default level restored');

  // Errors as Confluent's registry answers them.
  await restError(fresh().getLatestSchemaMetadata('cfl-nobody'), 404, 40401, 'unknown subject');
  await restError(fresh().getAllVersions('cfl-nobody'), 404, 40401, 'versions of an unknown subject');
  await restError(fresh().getSchemaMetadata(subject, 9), 404, 40402, 'unknown version');
  await restError(fresh().getBySubjectAndId(subject, 987654), 404, 40403, 'unknown id');
  await restError(fresh().getId(subject, avro(BAD)), 404, 40403, 'lookup of an unregistered schema');
  await restError(fresh().register('cfl-invalid-value', { schemaType: 'AVRO', schema: '{"type":"recrod"}' }),
    422, 42201, 'invalid schema');
  await restError(fresh().deleteSubject(subject, true), 404, 40405, 'hard delete before soft');

  // Deletes: version 2 soft (still readable with deleted=true), then hard.
  assert.equal(await fresh().deleteSubjectVersion(subject, 2), 2, 'version 2 soft-deleted');
  assert.deepStrictEqual(await fresh().getAllVersions(subject), [1], 'versions after the soft delete');
  assert.equal((await fresh().getLatestSchemaMetadata(subject)).version, 1, 'latest after the delete');
  const deleted2 = await fresh().getSchemaMetadata(subject, 2, true);
  assert.deepStrictEqual([deleted2.id, deleted2.version], [id2, 2], 'soft-deleted version, deleted=true');
  await restError(fresh().getSchemaMetadata(subject, 2), 404, 40402, 'soft-deleted version');
  assert.equal(await fresh().deleteSubjectVersion(subject, 2, true), 2, 'version 2 hard-deleted');
  await restError(fresh().getSchemaMetadata(subject, 2, true), 404, 40402, 'hard-deleted version');

  // The subject: soft, then hard.
  const other = 'cfl-keep-value';
  assert.equal(await fresh().register(other, avro(V1)), id1, 'V1 under another subject: same id');
  assert.deepStrictEqual(await fresh().deleteSubject(subject), [1], 'subject soft-deleted');
  const subjects = await fresh().getAllSubjects();
  assert.ok(!subjects.includes(subject) && subjects.includes(other), `subjects ${subjects}`);
  await restError(fresh().getLatestSchemaMetadata(subject), 404, 40401, 'soft-deleted subject');
  await restError(fresh().deleteSubject(subject), 404, 40404, 'soft delete twice');
  assert.deepStrictEqual(await fresh().deleteSubject(subject, true), [1], 'subject hard-deleted');
  await restError(fresh().deleteSubject(subject, true), 404, 40401, 'hard delete twice');
  // The id lives on under the other subject.
  assert.deepStrictEqual(JSON.parse((await fresh().getBySubjectAndId(other, id1)).schema), V1,
    'id of a deleted subject still served');

  // A subject name the client percent-encodes (':', '/', ' ', '+', '%', non-ASCII) and a schema
  // with non-ASCII text, quotes, a backslash and a tab: both back as they were.
  const odd = 'cfl:orders/v1 ünï+code%20';
  const texts = { type: 'record', name: 'Label', namespace: 'cfl', doc: 'Größe 📦 "quoted" \\ back',
    fields: [{ name: 'text', type: 'string', default: 'né 📦', doc: 'tab\there' }] };
  const oddId = await fresh().register(odd, avro(texts));
  const oddLatest = await fresh().getLatestSchemaMetadata(odd);
  assert.deepStrictEqual([oddLatest.subject, oddLatest.id, oddLatest.version], [odd, oddId, 1],
    'odd subject');
  assert.deepStrictEqual(JSON.parse(oddLatest.schema), texts, 'non-ASCII schema text');
  assert.ok((await fresh().getAllSubjects()).includes(odd), 'odd subject listed');

  console.log(`ok: @confluentinc/schemaregistry client: ids ${id1}, ${id2}`);
}

run(main);
