// #/topics : every topic the caller may describe, and the create form when writable.

import { get, request } from '../api.js';
import { el, table, hashOf } from '../dom.js';
import { bytes } from '../format.js';
import { writable } from '../state.js';
import { writeForm, field, intField } from '../forms.js';

function row(t) {
  return el('tr', { 'data-topic': t.name, class: t.internal ? 'internal' : null },
    el('td', { class: 'name' }, el('a', { href: hashOf('topics', t.name), 'data-topic-link': true }, t.name),
      t.internal ? el('span', { class: 'tag' }, 'internal') : null),
    el('td', { class: 'num', 'data-field': 'partitions' }, String(t.partitions)),
    el('td', { class: 'num', 'data-field': 'records' }, String(t.records)),
    el('td', { class: 'num', 'data-field': 'size', 'data-bytes': t.size_bytes, title: t.size_bytes === null ? 'needs DESCRIBE on the cluster' : `${t.size_bytes} bytes` }, bytes(t.size_bytes)));
}

function createForm(ctx) {
  return writeForm('create-topic', 'Create a topic', [
    field('Name', el('input', { name: 'name', required: true, maxlength: 249, autocomplete: 'off' })),
    field('Partitions', el('input', { name: 'partitions', type: 'number', min: 1, placeholder: 'broker default' })),
  ], 'Create', async (data) => {
    const body = { name: String(data.get('name')).trim() };
    const partitions = intField(data, 'partitions', 'Partitions');
    if (partitions !== undefined) body.partitions = partitions;
    await request('POST', '/api/topics', body);
    ctx.go(hashOf('topics'), `Created topic ${body.name}`);
  });
}

export async function topics(ctx) {
  const { topics: list } = await get('/api/topics');
  list.sort((a, b) => (a.internal - b.internal) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rows = list.map(row);
  const filter = el('input', { id: 'topic-filter', type: 'search', placeholder: 'Filter topics', 'aria-label': 'Filter topics' });
  filter.addEventListener('input', () => {
    const needle = filter.value.toLowerCase();
    for (const r of rows) r.hidden = !r.dataset.topic.toLowerCase().includes(needle);
  });
  return el('section', null,
    el('h1', null, 'Topics ', el('span', { class: 'count' }, `(${list.length})`)),
    filter,
    table('topics', ['Name', 'Partitions', 'Records', 'Size'], rows, 'No topics yet.'),
    writable() ? createForm(ctx) : null);
}

