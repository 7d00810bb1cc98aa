// The Node side of test_schema_registry_node.py's cross-client cases (Python <-> Node through one
// skiff topic and registry).
//
//   node cross.mjs produce BOOTSTRAP REGISTRY_URL avro|json TOPIC FIRST < {"schema", "records"}
//       registers the schema under TOPIC-value with @confluentinc/schemaregistry, serializes every
//       record with its serializer (the subject's latest version) and produces them in order to
//       partition 0 of TOPIC (which exists), checking they land at offsets FIRST...; prints
//       {"id": ID}
//   node cross.mjs consume BOOTSTRAP REGISTRY_URL avro|json|protobuf TOPIC N
//       reads the N records of TOPIC with a new consumer group and decodes each with both Node
//       clients (@confluentinc/schemaregistry's deserializer and @kafkajs/confluent-schema-
//       registry's decode), which must agree; prints [{"offset", "id", "value"}, ...]. Protobuf
//       only with the first: @kafkajs/confluent-schema-registry writes and reads no message
//       indexes (it strips leading zero bytes), so it is not a reader of Confluent's framing;
//       the values are the proto JSON mapping by field name (int64 as strings, enums by name,
//       every field).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
  AvroDeserializer, AvroSerializer, JsonDeserializer, JsonSerializer, ProtobufDeserializer,
  SchemaRegistryClient, SerdeType,
} from '@confluentinc/schemaregistry';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import {
  consumeAll, kafka, produceAll, protobufCodec, run, sameData,
} from './common.mjs';

// The last argument: FIRST (produce) or N (consume).
const [mode, bootstrap, url, format, topic, number] = process.argv.slice(2);
const SERDE = {
  avro: { schemaType: 'AVRO', Serializer: AvroSerializer, Deserializer: AvroDeserializer },
  json: { schemaType: 'JSON', Serializer: JsonSerializer, Deserializer: JsonDeserializer },
  protobuf: { schemaType: 'PROTOBUF', Deserializer: ProtobufDeserializer },
}[format];
const client = () => new SchemaRegistryClient({ baseURLs: [url], maxRetries: 0 });

async function produce() {
  const { schema, records } = JSON.parse(fs.readFileSync(0, 'utf8'));
  const id = await client().register(`${topic}-value`, { schemaType: SERDE.schemaType, schema });
  const ser = new SERDE.Serializer(client(), SerdeType.VALUE,
    { useLatestVersion: true, autoRegisterSchemas: false, validate: true });
  const values = [];
  for (const r of records) values.push(await ser.serialize(topic, r));
  await produceAll(kafka(bootstrap, `cross-${topic}`), topic, values, Number(number));
  console.log(JSON.stringify({ id }));
}

async function consume() {
  const k = kafka(bootstrap, `cross-${topic}`);
  const records = await consumeAll(k, topic, Number(number), `node-${topic}`);
  const confluent = new SERDE.Deserializer(client(), SerdeType.VALUE, { validate: true });
  const kafkajsRegistry = new SchemaRegistry({ host: url, retry: { retries: 0 } });
  const out = [];
  const codecs = new Map(); // Protobuf: schema id -> codec
  for (const r of records) {
    assert.equal(r.value[0], 0, `magic byte at offset ${r.offset}`);
    const id = r.value.readInt32BE(1);
    let value = await confluent.deserialize(topic, r.value);
    if (format === 'protobuf') {
      if (!codecs.has(id)) {
        const info = await client().getBySubjectAndId(`${topic}-value`, id, 'serialized');
        codecs.set(id, protobufCodec(info.schema, value.$typeName));
      }
      value = codecs.get(id).plain(value);
    } else {
      sameData(await kafkajsRegistry.decode(r.value), value,
        `@kafkajs/confluent-schema-registry and @confluentinc/schemaregistry at offset ${r.offset}`);
    }
    out.push({ offset: r.offset, id, value });
  }
  console.log(JSON.stringify(out));
}

run(mode === 'produce' ? produce : consume);
