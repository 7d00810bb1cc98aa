// #/ : the broker, its listeners and security, uptime, data directory and disk use, and the
// produce/fetch rates as charts, refreshed every 5 s while shown.

import { get } from '../api.js';
import { el, facts, table } from '../dom.js';
import { bytes, duration, rate, show } from '../format.js';
import { lineChart } from '../charts.js';
import { setOverview } from '../state.js';

function build(o) {
  const data = o.data || {};
  const security = o.security || {};
  const consoleInfo = o.console || {};
  const samples = (o.rates && o.rates.samples) || [];
  const series = (field) => samples.map((s) => ({ x: s.time_ms, y: s[field] }));
  const used = data.disk_total_bytes > 0 && data.disk_free_bytes >= 0 ? 1 - data.disk_free_bytes / data.disk_total_bytes : null;
  const meter = used === null ? null : el('meter', { min: 0, max: 1, value: used.toFixed(3), title: `${Math.round(used * 100)}% of the disk used` });
  return el('section', { id: 'overview' },
    el('h1', null, 'Overview'),
    el('div', { class: 'cards' },
      el('section', { class: 'card' }, el('h2', null, 'Broker'),
        facts('broker-facts', [
          ['Cluster id', show(o.cluster_id), 'cluster_id'],
          ['Node id', show(o.node_id), 'node_id'],
          ['Version', show(o.version), 'version'],
          ['Uptime', duration(o.uptime_ms), 'uptime'],
          ['Groups', show(o.groups), 'groups'],
          ['Schema registry', o.schema_registry ? 'on' : 'off', 'schema_registry'],
        ])),
      el('section', { class: 'card' }, el('h2', null, 'Data'),
        facts('data-facts', [
          ['Log dir', show(data.log_dir), 'log_dir'],
          ['Size', bytes(data.size_bytes), 'size'],
          ['Disk', used === null ? 'unknown' : [meter, ` ${bytes(data.disk_free_bytes)} free of ${bytes(data.disk_total_bytes)}`], 'disk'],
          ['Topics', show(data.topics), 'topics'],
          ['Partitions', show(data.partitions), 'partitions'],
          ['Segments', show(data.segments), 'segments'],
        ])),
      el('section', { class: 'card' }, el('h2', null, 'Security'),
        facts('security-facts', [
          ['Authorizer', security.authorizer ? 'on (ACLs enforced)' : 'off', 'authorizer'],
          ['SASL', (security.sasl_mechanisms || []).join(', ') || 'none', 'sasl'],
          ['TLS', security.tls ? 'on' : 'off', 'tls'],
          ['Console', consoleInfo.read_only === false ? 'read-write' : 'read-only', 'read_only'],
          ['Signed in as', show(consoleInfo.principal), 'principal'],
        ]))),
    el('h2', null, 'Listeners'),
    table('listeners', ['Name', 'Host', 'Port', 'Security protocol'],
      (o.listeners || []).map((l) => el('tr', null,
        el('td', null, show(l.name)), el('td', null, show(l.host)),
        el('td', { class: 'num' }, show(l.port)), el('td', null, show(l.security_protocol))))),
    el('h2', null, 'Rates'),
    el('div', { class: 'charts' },
      el('figure', null, lineChart('produce-rate', 'Produce bytes per second', series('produce_bytes_per_s'), rate),
        el('figcaption', null, 'Produce')),
      el('figure', null, lineChart('fetch-rate', 'Fetch bytes per second', series('fetch_bytes_per_s'), rate),
        el('figcaption', null, 'Fetch'))));
}

export async function overview(ctx) {
  const load = async () => {
    const o = await get('/api/overview');
    setOverview(o);
    return build(o);
  };
  ctx.every(5000, async () => {
    try {
      ctx.show(await load());
    } catch {
      /* the next tick tries again; the data shown stays */
    }
  });
  return load();
}
