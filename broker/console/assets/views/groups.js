// #/groups : groups of every type with their state, members and total lag.

import { get, apiPath } from '../api.js';
import { el, table, hashOf } from '../dom.js';
import { show } from '../format.js';

// /api/groups does not carry lag; when it does not, each group's own answer gives it (bounded,
// so a broker with thousands of groups is not asked thousands of times per look).
const LAG_LOOKUPS = 100;

async function withLag(groups) {
  const missing = groups.filter((g) => g.lag === undefined).slice(0, LAG_LOOKUPS);
  await Promise.all(missing.map(async (g) => {
    try {
      g.lag = (await get(apiPath('groups', g.group_id))).lag;
    } catch {
      g.lag = null;
    }
  }));
  return groups;
}

export async function groups() {
  const list = await withLag((await get('/api/groups')).groups || []);
  list.sort((a, b) => (a.group_id < b.group_id ? -1 : 1));
  return el('section', null,
    el('h1', null, 'Consumer groups ', el('span', { class: 'count' }, `(${list.length})`)),
    table('groups', ['Group', 'Type', 'State', 'Protocol type', 'Members', 'Lag'], list.map((g) =>
      el('tr', { 'data-group': g.group_id },
        el('td', { class: 'name' }, el('a', { href: hashOf('groups', g.group_id), 'data-group-link': true }, g.group_id)),
        el('td', { 'data-field': 'type' }, show(g.type)),
        el('td', { 'data-field': 'state' }, show(g.state)),
        el('td', { 'data-field': 'protocol_type' }, show(g.protocol_type)),
        el('td', { class: 'num', 'data-field': 'members' }, show(g.members)),
        el('td', { class: 'num', 'data-field': 'lag' }, show(g.lag)))), 'No groups.'));
}
