// #/schemas : the schema registry's subjects.

import { get, ApiError } from '../api.js';
import { el, table, hashOf } from '../dom.js';
import { registryOff } from '../state.js';

// The registry switched off is a state of the broker, not a failure of the page (and asking for
// its subjects then would only log a 404 in the browser).
function off(message) {
  return el('section', null, el('h1', null, 'Schemas'), el('p', { id: 'registry-off', class: 'muted' }, message));
}

export async function schemas() {
  if (registryOff()) return off('The schema registry is off (schema.registry.listeners is empty).');
  let subjects;
  try {
    subjects = await get('/api/schema-registry/subjects');
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return off(e.message);
    throw e;
  }
  subjects = Array.isArray(subjects) ? [...subjects].sort() : [];
  return el('section', null,
    el('h1', null, 'Schema subjects ', el('span', { class: 'count' }, `(${subjects.length})`)),
    table('subjects', ['Subject'], subjects.map((s) =>
      el('tr', { 'data-subject': s }, el('td', { class: 'name' }, el('a', { href: hashOf('schemas', s), 'data-subject-link': true }, s)))), 'No subjects registered.'));
}
