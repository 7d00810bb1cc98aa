// #/groups/{group} : state and protocol, members and their assignments, committed offsets with
// lag per partition (and as bars), and the reset form when writable.

import { get, request, apiPath } from '../api.js';
import { el, table, hashOf, facts } from '../dom.js';
import { show } from '../format.js';
import { barChart } from '../charts.js';
import { writable } from '../state.js';
import { writeForm, field, intField } from '../forms.js';

function resetForm(ctx, g) {
  const topics = [...new Set((g.offsets || []).map((o) => o.topic))];
  const to = el('select', { name: 'to' }, ['earliest', 'latest', 'timestamp', 'offset'].map((v) => el('option', { value: v }, v)));
  const timestamp = el('input', { name: 'timestamp', autocomplete: 'off', placeholder: 'ms or 2026-12-06T10:00:00Z', disabled: true });
  const offset = el('input', { name: 'offset', type: 'number', min: 0, disabled: true });
  to.addEventListener('change', () => {
    timestamp.disabled = to.value !== 'timestamp';
    offset.disabled = to.value !== 'offset';
  });
  return writeForm('reset-offsets', 'Reset offsets (the group must have no members)', [
    field('To', to), field('Timestamp', timestamp), field('Offset', offset),
    field('Topics (none chosen: all)', el('select', { name: 'topics', multiple: true, size: Math.min(4, Math.max(2, topics.length)) },
      topics.map((t) => el('option', { value: t }, t)))),
  ], 'Reset', async (data) => {
    const body = { to: String(data.get('to')) };
    if (body.to === 'timestamp') {
      const raw = String(data.get('timestamp') || '').trim();
      const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
      if (!isFinite(ms)) throw new Error('Enter a timestamp: milliseconds since the epoch or a date');
      body.timestamp = ms;
    }
    if (body.to === 'offset') {
      body.offset = intField(data, 'offset', 'The offset');
      if (body.offset === undefined) throw new Error('Enter the offset');
    }
    const chosen = data.getAll('topics').map(String);
    if (chosen.length) body.topics = chosen;
    const result = await request('POST', apiPath('groups', g.group_id, 'offsets', 'reset'), body);
    const n = (result.offsets || []).length;
    ctx.go(hashOf('groups', g.group_id), `Reset ${n} offset${n === 1 ? '' : 's'} of ${g.group_id}`);
  });
}

export async function group(ctx) {
  const [id] = ctx.params;
  const g = await get(apiPath('groups', id));
  const offsets = [...(g.offsets || [])].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  return el('section', null,
    el('p', { class: 'crumbs' }, el('a', { href: hashOf('groups') }, 'Groups'), ' / '),
    el('h1', { class: 'name' }, g.group_id),
    facts('group-facts', [
      ['Type', show(g.type), 'type'], ['State', show(g.state), 'state'],
      ['Protocol type', show(g.protocol_type), 'protocol_type'], ['Protocol', show(g.protocol), 'protocol'],
      ['Coordinator', show(g.coordinator), 'coordinator'], ['Lag', show(g.lag), 'lag'],
    ]),
    el('h2', null, `Members (${(g.members || []).length})`),
    table('members', ['Member id', 'Client id', 'Host', 'Assignment'], (g.members || []).map((m) =>
      el('tr', { 'data-member': m.member_id },
        el('td', { class: 'mono' }, show(m.member_id)), el('td', null, show(m.client_id)), el('td', null, show(m.host)),
        el('td', null, (m.assignment || []).map((a) => el('div', null, `${a.topic}: ${(a.partitions || []).join(', ')}`))))), 'No members.'),
    el('h2', null, 'Offsets and lag'),
    barChart('lag-chart', 'Lag per partition', offsets.map((o) => ({ label: `${o.topic}-${o.partition}`, short: String(o.partition), value: o.lag || 0 })), show),
    table('group-offsets', ['Topic', 'Partition', 'Committed offset', 'Log end offset', 'Lag', 'Metadata'], offsets.map((o) =>
      el('tr', { 'data-topic': o.topic, 'data-partition': o.partition },
        el('td', { class: 'name' }, el('a', { href: hashOf('topics', o.topic) }, o.topic)),
        el('td', { class: 'num' }, el('a', { href: hashOf('topics', o.topic, 'partitions', o.partition) }, show(o.partition))),
        el('td', { class: 'num', 'data-field': 'committed_offset' }, show(o.committed_offset)),
        el('td', { class: 'num', 'data-field': 'log_end_offset' }, show(o.log_end_offset)),
        el('td', { class: 'num', 'data-field': 'lag' }, show(o.lag)),
        el('td', { class: 'mono' }, o.metadata || ''))), 'No committed offsets.'),
    writable() ? resetForm(ctx, g) : null);
}
