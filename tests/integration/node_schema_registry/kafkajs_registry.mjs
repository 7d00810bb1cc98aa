// @kafkajs/confluent-schema-registry against skiff's registry, its records moved through skiff by
// KafkaJS.
//
//   node kafkajs_registry.mjs BOOTSTRAP REGISTRY_URL avro|json|protobuf
//
// Registers a schema of the format (the client asks GET /config/{subject} first and sets the
// subject's level on a first registration), registers it again (same id), finds its id by
// subject, version and schema, registers a compatible evolution (new id) and is refused an
// incompatible one (409). Records encoded with both versions (and for Avro, with a schema that
// references another subject's) are produced to a one-partition topic, consumed back by a new
// group and decoded by a client that has cached nothing, so every schema comes from the registry
// by id: every record back, in order, exactly once. Prints "ok: ..." at the end.

import assert from 'node:assert/strict';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import {
  consumeAll, createTopic, kafka, produceAll, rejection, run, sameData,
} from './common.mjs';

const [bootstrap, url, format] = process.argv.slice(2);
const N = 120;

const FORMATS = {
  avro: {
    type: SchemaType.AVRO,
    v1: {
      type: 'record', name: 'Payment', namespace: 'kjs',
      fields: [
        { name: 'id', type: 'long' },
        { name: 'amount', type: 'double' },
        { name: 'currency', type: { type: 'enum', name: 'Currency', symbols: ['EUR', 'USD', 'GBP'] } },
        { name: 'note', type: ['null', 'string'], default: null },
        { name: 'tags', type: { type: 'array', items: 'string' } },
      ],
    },
    // A field added with a default: BACKWARD compatible.
    v2: (v1) => ({ ...v1, fields: [...v1.fields, { name: 'channel', type: 'string', default: 'web' }] }),
    // A field added without a default: not BACKWARD compatible.
    bad: (v1) => ({ ...v1, fields: [...v1.fields, { name: 'country', type: 'string' }] }),
    record: (i, version) => ({
      id: 1000 + i, amount: i * 0.25, currency: ['EUR', 'USD', 'GBP'][i % 3],
      note: i % 4 === 0 ? null : `note ${i}`, tags: Array.from({ length: i % 3 }, (_, j) => `t${j}`),
      ...(version === 2 ? { channel: i % 2 ? 'shop' : 'app' } : {}),
    }),
    plain: (decoded) => decoded,
  },
  json: {
    type: SchemaType.JSON,
    v1: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'Item', type: 'object',
      properties: {
        sku: { type: 'string', maxLength: 20 },
        qty: { type: 'integer' },
        price: { type: 'number' },
        labels: { type: 'array', items: { type: 'string' } },
      },
      required: ['sku', 'qty'],
    },
    // A longer maxLength (MAX_LENGTH_INCREASED): BACKWARD compatible.
    v2: (v1) => ({ ...v1, properties: { ...v1.properties, sku: { type: 'string', maxLength: 40 } } }),
    // A property made required (REQUIRED_ATTRIBUTE_ADDED): not BACKWARD compatible.
    bad: (v1) => ({ ...v1, required: [...v1.required, 'price'] }),
    record: (i, version) => ({
      sku: version === 2 ? `sku-long-name-number-${i}` : `sku-${i}`, qty: i,
      ...(i % 2 ? { price: i * 1.5 } : {}), labels: Array.from({ length: i % 3 }, (_, j) => `l${j}`),
    }),
    plain: (decoded) => decoded,
  },
  protobuf: {
    type: SchemaType.PROTOBUF,
    v1: 'syntax = "proto3";\npackage kjs;\n\nmessage Reading {\n  string sensor = 1;\n'
      + '  double value = 2;\n  int32 seq = 3;\n  repeated string labels = 4;\n}\n',
    // A field added (FIELD_ADDED): compatible.
    v2: (v1) => v1.replace('repeated string labels = 4;', 'repeated string labels = 4;\n  string unit = 5;'),
    // A string field turned int32 (FIELD_SCALAR_KIND_CHANGED): incompatible.
    bad: (v1) => v1.replace('string sensor = 1;', 'int32 sensor = 1;'),
    record: (i, version) => ({
      sensor: `s${i % 5}`, value: i / 8, seq: i, labels: Array.from({ length: i % 3 }, (_, j) => `l${j}`),
      ...(version === 2 ? { unit: 'kPa' } : {}),
    }),
    // protobufjs leaves proto3 defaults (0, empty lists) off a decoded message's own fields.
    plain: (decoded) => decoded.$type.toObject(decoded, { defaults: true, arrays: true }),
  },
};

async function main() {
  const f = FORMATS[format];
  assert.ok(f, `format ${format}`);
  const text = (s) => (typeof s === 'string' ? s : JSON.stringify(s));
  const schema = (s) => ({ type: f.type, schema: text(s) });
  const v1 = schema(f.v1);
  const v2 = schema(f.v2(f.v1));
  const bad = schema(f.bad(f.v1));
  const subject = `kjs-${format}-value`;
  const topic = `kjs-${format}`;
  const fresh = () => new SchemaRegistry({ host: url, retry: { retries: 0 } });

  const registry = fresh();
  const { id: id1 } = await registry.register(v1, { subject });
  assert.ok(Number.isInteger(id1) && id1 > 0, `id ${id1}`);
  // Again from a client without caches: GET /config/{subject} now answers the level the first
  // registration set, and the same schema keeps its id.
  assert.equal((await fresh().register(v1, { subject })).id, id1, 'registered again');
  assert.equal(await fresh().getLatestSchemaId(subject), id1, 'latest id');
  assert.equal(await fresh().getRegistryId(subject, 1), id1, 'id of version 1');
  assert.equal(await fresh().getRegistryIdBySchema(subject, v1), id1, 'id by schema');
  // The client compares the subject's level with the one it is asked for.
  const mismatch = await rejection(fresh().register(v1, { subject, compatibility: 'FULL' }),
    'register asking for FULL on a BACKWARD subject');
  assert.equal(mismatch.name, 'ConfluentSchemaRegistryCompatibilityError', mismatch.message);
  assert.match(mismatch.message, /FULL != BACKWARD/);

  const { id: id2 } = await fresh().register(v2, { subject });
  assert.ok(id2 > id1, `evolved schema id ${id2} after ${id1}`);
  assert.equal(await fresh().getLatestSchemaId(subject), id2, 'latest id after evolution');
  assert.equal(await fresh().getRegistryId(subject, 2), id2, 'id of version 2');
  const refused = await rejection(fresh().register(bad, { subject }), 'incompatible schema');
  assert.equal(refused.status, 409, refused.message);
  assert.equal(await fresh().getLatestSchemaId(subject), id2, 'latest id after the refusal');
  const unknown = await rejection(fresh().getLatestSchemaId(`kjs-${format}-nobody`), 'unknown subject');
  assert.equal(unknown.status, 404, unknown.message);
  const noId = await rejection(fresh().getSchema(987654), 'unknown id');
  assert.equal(noId.status, 404, noId.message);

  // The records: both versions, and for Avro a third schema referencing another subject's.
  const plan = [];
  for (let i = 0; i < N; i++) plan.push({ id: i % 2 ? id2 : id1, value: f.record(i, i % 2 ? 2 : 1) });
  if (format === 'avro') {
    const money = { type: 'record', name: 'Money', namespace: 'kjs',
      fields: [{ name: 'units', type: 'long' }, { name: 'currency', type: 'string' }] };
    const { id: moneyId } = await fresh().register(schema(money), { subject: 'kjs-money' });
    const invoice = { type: 'record', name: 'Invoice', namespace: 'kjs',
      fields: [{ name: 'number', type: 'string' }, { name: 'total', type: 'kjs.Money' }] };
    const { id: invoiceId } = await fresh().register(
      { ...schema(invoice), references: [{ name: 'kjs.Money', subject: 'kjs-money', version: 1 }] },
      { subject: 'kjs-invoice-value' });
    assert.ok(invoiceId > moneyId, `invoice id ${invoiceId}, money id ${moneyId}`);
    for (let i = 0; i < 30; i++) {
      plan.splice(i * 4, 0, { id: invoiceId,
        value: { number: `INV-${i}`, total: { units: 100 * i, currency: 'EUR' } } });
    }
  }
  const encoder = fresh();
  const encoded = [];
  for (const p of plan) encoded.push(await encoder.encode(p.id, p.value));
  for (const [i, buf] of encoded.entries()) {
    assert.equal(buf[0], 0, 'magic byte');
    assert.equal(buf.readInt32BE(1), plan[i].id, `schema id in record ${i}`);
  }

  const k = kafka(bootstrap, `kjs-${format}`);
  await createTopic(k, topic);
  await produceAll(k, topic, encoded);
  const records = await consumeAll(k, topic, plan.length, `kjs-${format}-readers`);
  const decoder = fresh();
  const decoded = [];
  for (const r of records) decoded.push(f.plain(await decoder.decode(r.value)));
  sameData(decoded, plan.map((p) => p.value), 'decoded records');

  if (format === 'avro') {
    // Read as version 2: version 1 records get the new field's default.
    const first = plan.findIndex((p) => p.id === id1);
    const asV2 = await fresh().decode(records[first].value,
      { [SchemaType.AVRO]: { readerSchema: f.v2(f.v1) } });
    sameData(asV2, { ...plan[first].value, channel: 'web' }, 'version 1 record read as version 2');
  }
  console.log(`ok: @kafkajs/confluent-schema-registry ${format}: ids ${id1}, ${id2}; `
    + `${plan.length} records back in order`);
}

run(main);
