// #/schemas/{subject} : its versions, the chosen one pretty-printed, and the line diff between
// two versions (the API computes it; + and - lines are coloured by CSS on data-op).

import { get, apiPath } from '../api.js';
import { el, replace, hashOf, flash, facts } from '../dom.js';
import { show } from '../format.js';

function pretty(s) {
  if (s.schemaType === 'PROTOBUF') return String(s.schema ?? '');
  try {
    return JSON.stringify(JSON.parse(s.schema), null, 2);
  } catch {
    return String(s.schema ?? '');
  }
}

export async function subject(ctx) {
  const [name] = ctx.params;
  const versions = await get(apiPath('schema-registry', 'subjects', name, 'versions'));
  if (!Array.isArray(versions) || !versions.length) throw new Error(`${name} has no versions`);
  const options = (selected) => versions.map((v) => el('option', { value: v, selected: v === selected }, `version ${v}`));
  const latest = versions[versions.length - 1];
  const from = el('select', { id: 'version-from', 'aria-label': 'Diff from version' }, options(versions.length > 1 ? versions[versions.length - 2] : latest));
  const to = el('select', { id: 'version-to', 'aria-label': 'Diff to version and version shown' }, options(latest));
  const about = el('div');
  const schema = el('pre', { id: 'schema', class: 'code' });
  const diff = el('pre', { id: 'schema-diff', class: 'code diff' });

  let latestLoad = 0;
  const load = async () => {
    const mine = ++latestLoad; // two quick changes: only the last one's answers are shown
    const base = apiPath('schema-registry', 'subjects', name);
    const [chosen, d] = await Promise.all([
      get(`${base}/versions/${encodeURIComponent(to.value)}`),
      get(`${base}/diff?${new URLSearchParams({ from: from.value, to: to.value })}`),
    ]);
    if (mine !== latestLoad) return;
    replace(about, facts('schema-facts', [
      ['Version', show(chosen.version), 'version'], ['Schema id', show(chosen.id), 'id'],
      ['Type', show(chosen.schemaType || 'AVRO'), 'type'],
      ['References', (chosen.references || []).map((r) => `${r.name} → ${r.subject} v${r.version}`).join(', ') || 'none', 'references'],
    ]));
    replace(schema, pretty(chosen));
    replace(diff, (d.lines || []).map((l) => el('span', { 'data-op': l.op }, `${l.op} ${l.text}\n`)));
  };
  const reload = async () => {
    ctx.loading();
    try {
      await load();
    } catch (e) {
      flash(e.message, 'error');
    } finally {
      ctx.ready();
    }
  };
  from.addEventListener('change', reload);
  to.addEventListener('change', reload);
  await load();
  return el('section', null,
    el('p', { class: 'crumbs' }, el('a', { href: hashOf('schemas') }, 'Schemas'), ' / '),
    el('h1', { class: 'name' }, name),
    el('div', { class: 'controls' }, el('label', null, 'Show ', to), el('label', null, 'compared with ', from)),
    about,
    el('div', { class: 'two' },
      el('div', null, el('h2', null, 'Schema'), schema),
      el('div', null, el('h2', null, 'Difference'), diff)));
}
