// #/topics/{topic}/partitions/{p} : the segments, then the messages from an offset, a timestamp,
// the beginning or the end, each value shown in the chosen format, and the produce form.

import { get, request, apiPath } from '../api.js';
import { el, table, replace, hashOf, flash, clearFlash } from '../dom.js';
import { time, show, recordValue } from '../format.js';
import { writable } from '../state.js';
import { writeForm, field } from '../forms.js';
import { segmentsSection } from './segments.js';

const LIVE_POLL_MS = 1000;

function bytesCell(fieldName, value, format) {
  const [text, label] = recordValue(value, format);
  const cell = el('td', { 'data-field': fieldName, 'data-format': label, title: value ? `${label}, ${value.size} bytes` : 'null' });
  if (text === null) cell.classList.add('null');
  if (label === 'hex') cell.classList.add('hex');
  if (value && value.truncated) cell.classList.add('truncated');
  cell.append(el('pre', null, text === null ? 'null' : text));
  return cell;
}

function headersCell(headers) {
  return el('td', { 'data-field': 'headers' }, (headers || []).map((h) => {
    const [text] = recordValue(h.value, 'auto');
    return el('div', { class: 'header' }, `${show(h.key)}: `, text === null ? el('span', { class: 'null' }, 'null') : text);
  }));
}

function batchRow(r, columns) {
  const b = r.batch || {};
  const schema = r.value && r.value.schema;
  return el('tr', { class: 'batch-details' }, el('td', { colspan: columns },
    el('dl', { class: 'facts inline' },
      [['Batch offsets', b.last_offset === undefined ? b.base_offset : `${b.base_offset} … ${b.last_offset}`], ['Producer id', b.producer_id], ['Producer epoch', b.producer_epoch],
        ['Base sequence', b.base_sequence], ['Transactional', b.transactional], ['Control', b.control],
        ['Compression', b.compression], ['Timestamp type', r.timestamp_type],
        ['Key size', r.key ? r.key.size : 'null'], ['Value size', r.value ? r.value.size : 'null'],
        ['Schema', schema ? `${show(schema.type)} id ${show(schema.id)} ${show(schema.subject)}${schema.schema_error ? ` (${schema.schema_error})` : ''}` : null],
      ].filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [el('dt', null, k), el('dd', { 'data-field': k.toLowerCase().replace(/ /g, '_') }, String(v))]))));
}

function recordRows(records, format) {
  const columns = 6;
  return records.map((r) => {
    const toggle = el('button', { type: 'button', class: 'small', 'aria-expanded': 'false', 'aria-label': `batch details of offset ${r.offset}` }, '▸');
    const row = el('tr', { 'data-offset': r.offset },
      el('td', null, toggle),
      el('td', { class: 'num', 'data-field': 'offset' }, show(r.offset)),
      el('td', { class: 'num', 'data-field': 'timestamp', title: `${show(r.timestamp)} (${show(r.timestamp_type)})` }, time(r.timestamp)),
      bytesCell('key', r.key, format === 'schema' ? 'auto' : format),
      bytesCell('value', r.value, format),
      headersCell(r.headers));
    let details = null;
    toggle.addEventListener('click', () => {
      if (details) {
        details.remove();
        details = null;
      } else {
        details = batchRow(r, columns);
        row.after(details);
      }
      toggle.setAttribute('aria-expanded', details ? 'true' : 'false');
      toggle.textContent = details ? '▾' : '▸';
    });
    return row;
  });
}

function parseFrom(from, raw) {
  const value = raw.trim();
  if (from === 'offset') {
    if (!/^\d+$/.test(value)) throw new Error('Enter an offset (a whole number)');
    return { from, offset: value };
  }
  if (from === 'timestamp') {
    const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    if (!isFinite(ms)) throw new Error('Enter a timestamp: milliseconds since the epoch or a date such as 2026-12-06T10:00:00Z');
    return { from, timestamp: String(ms) };
  }
  return { from };
}

function messages(ctx, topic, partition) {
  const from = el('select', { id: 'from', 'aria-label': 'Read from' },
    [['end', 'the end'], ['beginning', 'the beginning'], ['offset', 'offset'], ['timestamp', 'timestamp']]
      .map(([v, t]) => el('option', { value: v }, t)));
  const fromValue = el('input', { id: 'from-value', 'aria-label': 'Offset or timestamp', autocomplete: 'off', disabled: true });
  const limit = el('select', { id: 'limit', 'aria-label': 'Records per page' }, ['20', '50', '100', '500'].map((n) => el('option', { value: n, selected: n === '50' }, n)));
  const format = el('select', { id: 'value-format', 'aria-label': 'Value format' },
    ['auto', 'text', 'json', 'hex', 'schema'].map((f) => el('option', { value: f }, f)));
  const load = el('button', { type: 'button', id: 'load-records' }, 'Load');
  const older = el('button', { type: 'button', id: 'older-records', class: 'small' }, '← Older');
  const newer = el('button', { type: 'button', id: 'newer-records', class: 'small' }, 'Newer →');
  const live = el('button', { type: 'button', id: 'live-tail', class: 'small', 'aria-pressed': 'false',
    title: `Follow the end of the partition: new records are read every ${LIVE_POLL_MS / 1000} s` }, 'Live');
  const status = el('p', { class: 'muted', id: 'records-status' });
  const holder = el('div', { class: 'records-holder' });
  let last = null;

  const draw = () => {
    if (!last) return;
    const records = last.records || [];
    replace(holder, table('records', ['', 'Offset', 'Timestamp', 'Key', 'Value', 'Headers'], recordRows(records, format.value), 'No records here.'));
    const first = records.length ? records[0].offset : last.next_offset;
    replace(status, `${records.length} records · log start ${show(last.log_start_offset)} · high watermark ${show(last.high_watermark)} · next offset ${show(last.next_offset)}${liveRun ? ' · following the end' : ''}`,
      (last.skipped || []).map((k) => el('span', { class: 'skipped' }, ` · batch ${k.base_offset}…${k.last_offset} not readable: ${k.reason}`)));
    older.disabled = !(first > last.log_start_offset);
    newer.disabled = !(last.next_offset < last.high_watermark);
  };
  // The first load is part of the view's own (data-ready comes after it); later ones mark the
  // view not ready while they run, so a test or a user sees when the table is the new one.
  let latest = 0;
  const fetchRecords = async (query, first = false) => {
    const params = new URLSearchParams({ ...query, limit: limit.value });
    const mine = ++latest; // a slow earlier answer never replaces a later one
    if (!first) ctx.loading();
    try {
      const answer = await get(`${apiPath('topics', topic, 'partitions', partition, 'records')}?${params}`);
      if (mine !== latest) return;
      last = answer;
      draw();
    } finally {
      if (!first && mine === latest) ctx.ready();
    }
  };
  // Live tail: the end's last `limit` records, then every LIVE_POLL_MS the records after
  // next_offset, kept to the last `limit`. The records API never waits on the broker (an HTTP
  // thread must not park), so the page polls; it stops when switched off, when another page of
  // records is loaded, on an error, and when the view is left.
  let liveRun = 0; // the running loop's number; 0: not following
  let liveRuns = 0;
  const stopLive = () => {
    liveRun = 0;
    live.setAttribute('aria-pressed', 'false');
  };
  const follow = async (run) => {
    if (run !== liveRun) return;
    if (!live.isConnected) {
      stopLive();
      return;
    }
    const params = new URLSearchParams({ from: 'offset', offset: String(last.next_offset), limit: limit.value });
    const mine = latest;
    try {
      const answer = await get(`${apiPath('topics', topic, 'partitions', partition, 'records')}?${params}`);
      if (run !== liveRun || mine !== latest) return;
      const fresh = answer.records || [];
      // Redrawn only when something changed, so a batch's opened details stay open.
      const changed = fresh.length > 0 || answer.high_watermark !== last.high_watermark ||
        answer.log_start_offset !== last.log_start_offset;
      last = { ...answer, records: (last.records || []).concat(fresh).slice(-Number(limit.value)) };
      if (changed) draw();
    } catch (e) {
      if (run !== liveRun) return;
      stopLive();
      flash(e.message, 'error');
      return;
    }
    setTimeout(() => follow(run), LIVE_POLL_MS);
  };
  live.addEventListener('click', async () => {
    if (liveRun) {
      stopLive();
      return;
    }
    clearFlash();
    const run = ++liveRuns;
    liveRun = run;
    live.setAttribute('aria-pressed', 'true');
    try {
      await fetchRecords({ from: 'end' });
    } catch (e) {
      stopLive();
      flash(e.message, 'error');
      return;
    }
    setTimeout(() => follow(run), LIVE_POLL_MS);
  });
  const guarded = (query) => {
    stopLive();
    clearFlash();
    fetchRecords(query).catch((e) => flash(e.message, 'error'));
  };
  from.addEventListener('change', () => {
    fromValue.disabled = from.value === 'beginning' || from.value === 'end';
    fromValue.placeholder = from.value === 'timestamp' ? 'ms or 2026-12-06T10:00:00Z' : from.value === 'offset' ? 'offset' : '';
    if (!fromValue.disabled) fromValue.focus();
  });
  const submit = () => {
    let query;
    try {
      query = parseFrom(from.value, fromValue.value);
    } catch (e) {
      flash(e.message, 'error');
      return;
    }
    guarded(query);
  };
  load.addEventListener('click', submit);
  fromValue.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') submit();
  });
  format.addEventListener('change', draw);
  older.addEventListener('click', () => {
    const first = last.records.length ? last.records[0].offset : last.next_offset;
    guarded({ from: 'offset', offset: String(Math.max(last.log_start_offset, first - Number(limit.value))) });
  });
  newer.addEventListener('click', () => guarded({ from: 'offset', offset: String(last.next_offset) }));

  const section = el('section', { id: 'messages' },
    el('h2', null, 'Messages'),
    el('div', { class: 'controls' },
      el('label', null, 'From ', from), fromValue, el('label', null, 'Limit ', limit), load,
      el('label', null, 'Value as ', format), older, newer, live),
    status, holder);
  return { section, first: () => fetchRecords({ from: 'end' }, true) };
}

function parseHeaders(text) {
  return String(text || '').split('\n').filter((line) => line.trim() !== '').map((line) => {
    const colon = line.indexOf(':');
    if (colon < 0) return { key: line.trim(), value: null };
    return { key: line.slice(0, colon).trim(), value: line.slice(colon + 1).replace(/^ /, '') };
  });
}

function produceForm(ctx, topic, partition) {
  return writeForm('produce-record', `Produce a test message to partition ${partition}`, [
    field('Key (empty: no key)', el('input', { name: 'key', autocomplete: 'off' })),
    field('Value', el('textarea', { name: 'value', rows: 3 })),
    field('Headers (one "key: value" a line)', el('textarea', { name: 'headers', rows: 2 })),
  ], 'Produce', async (data) => {
    const key = String(data.get('key') ?? '');
    const body = { partition, key: key === '' ? null : key, value: String(data.get('value') ?? ''), headers: parseHeaders(data.get('headers')) };
    const result = await request('POST', apiPath('topics', topic, 'records'), body);
    ctx.go(hashOf('topics', topic, 'partitions', partition), `Produced to partition ${result.partition} at offset ${result.offset}`);
  });
}

export async function partition(ctx) {
  const [topic, p] = ctx.params;
  const number = Number(p);
  const info = await get(apiPath('topics', topic, 'partitions', number, 'segments'));
  const msgs = messages(ctx, topic, number);
  // Segments need DESCRIBE, records READ: a caller with only the first still sees the segments.
  await msgs.first().catch((e) => flash(e.message, 'error'));
  return el('section', null,
    el('p', { class: 'crumbs' }, el('a', { href: hashOf('topics') }, 'Topics'), ' / ', el('a', { href: hashOf('topics', topic) }, topic), ' / '),
    el('h1', { class: 'name' }, `${topic} · partition ${number}`),
    el('p', { class: 'muted' }, `Log start offset ${show(info.log_start_offset)} · log end offset ${show(info.log_end_offset)}`),
    segmentsSection(info),
    msgs.section,
    writable() ? produceForm(ctx, topic, number) : null);
}
