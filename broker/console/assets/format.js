// How numbers, sizes, times and record bytes are written on the page.

export function bytes(n) {
  if (typeof n !== 'number' || !isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function rate(n) {
  return typeof n === 'number' ? `${bytes(Math.round(n))}/s` : '—';
}

export function duration(ms) {
  if (typeof ms !== 'number' || ms < 0) return '—';
  let s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d) return `${d}d ${h}h ${m}m`;
  if (h) return `${h}h ${m}m ${s}s`;
  return m ? `${m}m ${s}s` : `${s}s`;
}

export function time(ms) {
  if (typeof ms !== 'number' || ms < 0) return String(ms ?? '—');
  const date = new Date(ms);
  return isNaN(date) ? String(ms) : date.toISOString().replace('T', ' ').replace('Z', '');
}

export function show(v) {
  return v === null || v === undefined ? '—' : String(v);
}

// A record's key, value or header value as the API gives it: null, or {size, hex, text?, json?,
// schema?, truncated?}. Returns [text, label]: the bytes in the requested format, falling back
// the way "auto" does when the format does not apply (binary is always shown as hex).
export function recordValue(value, format = 'auto') {
  if (value === null || value === undefined) return [null, 'null'];
  const schema = value.schema;
  const decoded = schema && schema.decoded !== undefined;
  if (format === 'hex') return [value.hex ?? '', 'hex'];
  if ((format === 'schema' || format === 'auto') && decoded) {
    return [JSON.stringify(schema.decoded, null, 2), `${schema.type || 'schema'} #${schema.id}`];
  }
  if (format === 'schema' && schema && schema.schema_error) return [value.hex ?? '', `hex (${schema.schema_error})`];
  if ((format === 'json' || format === 'auto') && value.json && typeof value.text === 'string') {
    try {
      return [JSON.stringify(JSON.parse(value.text), null, 2), 'json'];
    } catch {
      /* shown as text below */
    }
  }
  if (typeof value.text === 'string') return [value.text, 'text'];
  return [value.hex ?? '', 'hex'];
}
