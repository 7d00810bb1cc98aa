// @confluentinc/schemaregistry's serializers and deserializers through skiff (KafkaJS moves the
// bytes).
//
//   node confluent_serde.mjs BOOTSTRAP REGISTRY_URL avro|json|protobuf
//
// The schema is registered under the topic's subject (TopicNameStrategy), the serializer takes
// the subject's latest version from the registry (useLatestVersion, no auto-registration) and
// writes Confluent's wire format (magic 0, the 4-byte id, for Protobuf the message indexes); the
// records go through a one-partition topic and a deserializer with a new client reads them back:
// every record, in order, once. Then a second version (a field with a default) is registered and
// a deserializer that reads with the subject's latest version resolves the old records into it
// (Avro). The Protobuf serde works on descriptors: the message's comes from the registry itself,
// as the base64 FileDescriptorProto of `?format=serialized` (what the deserializer asks for too).
// Prints "ok: ...".

import assert from 'node:assert/strict';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import {
  AvroDeserializer, AvroSerializer, JsonDeserializer, JsonSerializer, ProtobufDeserializer,
  ProtobufSerializer, SchemaRegistryClient, SerdeType,
} from '@confluentinc/schemaregistry';
import {
  consumeAll, createTopic, kafka, produceAll, protobufCodec, run, sameData,
} from './common.mjs';

const [bootstrap, url, format] = process.argv.slice(2);
const N = 150;
const fresh = () => new SchemaRegistryClient({ baseURLs: [url], maxRetries: 0 });

const FORMATS = {
  avro: {
    schemaType: 'AVRO',
    v1: { type: 'record', name: 'Parcel', namespace: 'cfl',
      fields: [
        { name: 'id', type: 'long' },
        { name: 'dest', type: 'string' },
        { name: 'fragile', type: 'boolean' },
        { name: 'dims', type: { type: 'array', items: 'float' } },
        { name: 'priority', type: { type: 'enum', name: 'Priority', symbols: ['LOW', 'HIGH'] } },
      ] },
    v2: (v1) => ({ ...v1, fields: [...v1.fields, { name: 'insured', type: 'boolean', default: false }] }),
    record: (i) => ({ id: 5000 + i, dest: `city ${i % 7}`, fragile: i % 2 === 0,
      dims: [i % 10, 0.5, 2.25], priority: i % 3 ? 'LOW' : 'HIGH' }),
    Serializer: AvroSerializer,
    Deserializer: AvroDeserializer,
  },
  json: {
    schemaType: 'JSON',
    v1: { $schema: 'http://json-schema.org/draft-07/schema#', title: 'Parcel', type: 'object',
      properties: {
        id: { type: 'integer' }, dest: { type: 'string' }, fragile: { type: 'boolean' },
        dims: { type: 'array', items: { type: 'number' } },
        priority: { type: 'string', enum: ['LOW', 'HIGH'] },
      },
      required: ['id', 'dest'] },
    record: (i) => ({ id: 5000 + i, dest: `city ${i % 7}`, fragile: i % 2 === 0,
      dims: [i % 10, 0.5, 2.25], priority: i % 3 ? 'LOW' : 'HIGH' }),
    Serializer: JsonSerializer,
    Deserializer: JsonDeserializer,
  },
  protobuf: {
    schemaType: 'PROTOBUF',
    v1: 'syntax = "proto3";\npackage cfl;\n\nimport "google/protobuf/timestamp.proto";\n\n'
      + 'message Parcel {\n  int64 id = 1;\n  string dest = 2;\n  bool fragile = 3;\n'
      + '  repeated float dims = 4;\n  Priority priority = 5;\n  google.protobuf.Timestamp sent = 6;\n'
      + '  enum Priority {\n    LOW = 0;\n    HIGH = 1;\n  }\n}\n',
    record: (i) => ({ id: String(5000 + i), dest: `city ${i % 7}`, fragile: i % 2 === 0,
      dims: [i % 10, 0.5, 2.25], priority: i % 3 ? 'LOW' : 'HIGH',
      sent: `2024-01-01T00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z` }),
    Serializer: ProtobufSerializer,
    Deserializer: ProtobufDeserializer,
  },
};

async function main() {
  const f = FORMATS[format];
  assert.ok(f, `format ${format}`);
  const topic = `cfl-serde-${format}`;
  const subject = `${topic}-value`;
  const text = (s) => (typeof s === 'string' ? s : JSON.stringify(s));
  const id = await fresh().register(subject, { schemaType: f.schemaType, schema: text(f.v1) });
  let codec = { registry: undefined, encode: (r) => r, plain: (m) => m };
  if (format === 'protobuf') {
    const latest = await fresh().getLatestSchemaMetadata(subject, 'serialized');
    const fdp = fromBinary(FileDescriptorProtoSchema, Buffer.from(latest.schema, 'base64'));
    assert.deepStrictEqual([fdp.package, fdp.dependency, fdp.messageType.map((m) => m.name)],
      ['cfl', ['google/protobuf/timestamp.proto'], ['Parcel']], 'serialized descriptor');
    codec = protobufCodec(latest.schema, 'cfl.Parcel');
  }

  const ser = new f.Serializer(fresh(), SerdeType.VALUE,
    { useLatestVersion: true, autoRegisterSchemas: false, validate: true, registry: codec.registry });
  const sent = Array.from({ length: N }, (_, i) => f.record(i));
  const values = [];
  for (const r of sent) values.push(await ser.serialize(topic, codec.encode(r)));
  for (const v of values) {
    assert.equal(v[0], 0, 'magic byte');
    assert.equal(v.readInt32BE(1), id, 'schema id in the record');
    // Protobuf: the message indexes follow, [0] (the first message) written as a single 0.
    if (format === 'protobuf') assert.equal(v[5], 0, 'message indexes');
  }
  const k = kafka(bootstrap, topic);
  await createTopic(k, topic);
  await produceAll(k, topic, values);
  const records = await consumeAll(k, topic, N, `${topic}-readers`);
  const de = new f.Deserializer(fresh(), SerdeType.VALUE, { validate: true });
  const got = [];
  for (const r of records) got.push(codec.plain(await de.deserialize(topic, r.value)));
  sameData(got, sent, 'deserialized records');

  let resolved = '';
  if (f.v2) {
    const id2 = await fresh().register(subject,
      { schemaType: f.schemaType, schema: JSON.stringify(f.v2(f.v1)) });
    assert.ok(id2 > id, `id ${id2} after ${id}`);
    const latest = new f.Deserializer(fresh(), SerdeType.VALUE, { useLatestVersion: true });
    const upgraded = [];
    for (const r of records.slice(0, 10)) upgraded.push(await latest.deserialize(topic, r.value));
    sameData(upgraded, sent.slice(0, 10).map((r) => ({ ...r, insured: false })),
      'version 1 records read with the latest version');
    resolved = ', read as version 2 too';
  }
  console.log(`ok: @confluentinc/schemaregistry ${format} serde: id ${id}, ${N} records back in order${resolved}`);
}

run(main);
