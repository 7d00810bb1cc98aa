// #/topics/{topic} : partitions with their offsets and sizes, configs with their sources, and
// (writable) delete, add partitions and edit a config.

import { get, request, apiPath } from '../api.js';
import { el, table, hashOf, flash } from '../dom.js';
import { bytes, show } from '../format.js';
import { writable } from '../state.js';
import { writeForm, field, intField } from '../forms.js';

const OFFSETS = ['log_start_offset', 'log_end_offset', 'high_watermark', 'last_stable_offset'];

function partitionRow(name, p) {
  return el('tr', { 'data-partition': p.partition },
    el('td', { class: 'num' }, el('a', { href: hashOf('topics', name, 'partitions', p.partition) }, String(p.partition))),
    el('td', { class: 'num', 'data-field': 'leader' }, show(p.leader)),
    OFFSETS.map((f) => el('td', { class: 'num', 'data-field': f }, show(p[f]))),
    el('td', { class: 'num', 'data-field': 'size', 'data-bytes': p.size_bytes, title: p.size_bytes === null ? 'needs DESCRIBE on the cluster' : `${p.size_bytes} bytes` }, bytes(p.size_bytes)),
    el('td', { class: 'num', 'data-field': 'segments' }, show(p.segments)));
}

function configRow(c, edit) {
  const value = c.sensitive ? '(sensitive)' : show(c.value);
  return el('tr', { 'data-config': c.name, class: c.source === 'DEFAULT_CONFIG' ? 'default' : null },
    el('td', { class: 'name' }, c.name),
    el('td', { class: 'mono', 'data-field': 'value' }, value),
    el('td', { 'data-field': 'source' }, show(c.source)),
    el('td', null, edit && !c.read_only && !c.sensitive
      ? el('button', { type: 'button', class: 'small', onclick: () => edit(c) }, 'Edit')
      : null));
}

function writeTools(ctx, topic, editing) {
  const { name } = topic;
  const reload = (message) => ctx.go(hashOf('topics', name), message);
  const configName = el('input', { name: 'name', required: true, list: 'config-names', autocomplete: 'off' });
  const configValue = el('input', { name: 'value', autocomplete: 'off' });
  editing.fill = (c) => {
    configName.value = c.name;
    configValue.value = c.value ?? '';
    configValue.focus();
  };
  const alter = writeForm('alter-config', 'Edit a config', [
    field('Config', configName),
    el('datalist', { id: 'config-names' }, topic.configs.filter((c) => !c.read_only).map((c) => el('option', { value: c.name }))),
    field('Value', configValue),
    el('button', { type: 'button', id: 'reset-config', onclick: async () => {
      try {
        await request('PATCH', apiPath('topics', name, 'configs'), { delete: [configName.value] });
        reload(`Reset ${configName.value} to its default`);
      } catch (e) {
        flash(e.message, 'error');
      }
    } }, 'Reset to default'),
  ], 'Set', async (data) => {
    const key = String(data.get('name'));
    await request('PATCH', apiPath('topics', name, 'configs'), { set: { [key]: String(data.get('value')) } });
    reload(`Set ${key}`);
  });
  const add = writeForm('add-partitions', 'Add partitions', [
    field('New total', el('input', { name: 'count', type: 'number', min: topic.partitions.length + 1, required: true, value: topic.partitions.length + 1 })),
  ], 'Add', async (data) => {
    const count = intField(data, 'count', 'The new total');
    await request('POST', apiPath('topics', name, 'partitions'), { count });
    reload(`${name} has ${count} partitions`);
  });
  const remove = el('button', { type: 'button', id: 'delete-topic', class: 'danger' }, 'Delete topic');
  remove.addEventListener('click', async () => {
    if (!confirm(`Delete topic ${name} and all its records?`)) return;
    try {
      await request('DELETE', apiPath('topics', name));
      ctx.go(hashOf('topics'), `Deleted topic ${name}`);
    } catch (e) {
      flash(e.message, 'error');
    }
  });
  return el('section', { class: 'writes' }, el('h2', null, 'Change'), el('div', { class: 'forms' }, add, alter), remove);
}

export async function topic(ctx) {
  const [name] = ctx.params;
  const t = await get(apiPath('topics', name));
  const partitions = [...(t.partitions || [])].sort((a, b) => a.partition - b.partition);
  const configs = [...(t.configs || [])].sort((a, b) => (a.name < b.name ? -1 : 1));
  const canWrite = writable();
  const editing = {};
  const edit = canWrite ? (c) => editing.fill(c) : null;
  return el('section', null,
    el('p', { class: 'crumbs' }, el('a', { href: hashOf('topics') }, 'Topics'), ' / '),
    el('h1', { class: 'name' }, t.name, t.internal ? el('span', { class: 'tag' }, 'internal') : null),
    el('p', { class: 'muted' }, 'Topic id ', el('code', null, show(t.topic_id))),
    el('h2', null, `Partitions (${partitions.length})`),
    table('partitions', ['Partition', 'Leader', 'Log start', 'Log end', 'High watermark', 'Last stable', 'Size', 'Segments'],
      partitions.map((p) => partitionRow(t.name, p))),
    el('h2', null, 'Configs'),
    t.configs_error ? el('p', { class: 'muted', id: 'configs-error' }, show(t.configs_error.message)) : null,
    table('configs', ['Name', 'Value', 'Source', ''], configs.map((c) => configRow(c, edit))),
    canWrite ? writeTools(ctx, { ...t, partitions, configs }, editing) : null);
}
