// A partition's segments drawn to scale (width by size), the selected one's details and its
// sparse offset index and time index entries: the storage model as it is on disk.

import { el, svg, table, replace, facts } from '../dom.js';
import { bytes, time, show } from '../format.js';

const W = 960;
const H = 56;
const MIN = 4; // an empty active segment still gets a visible sliver

function details(s) {
  const index = s.index || {};
  const timeIndex = s.time_index || {};
  const shown = (ix) => (ix.entries_shown || []).length;
  return el('div', { class: 'segment-details', 'data-base-offset': s.base_offset },
    el('h3', null, 'Segment ', el('code', null, show(s.file)), s.active ? el('span', { class: 'tag active' }, 'active') : null),
    facts('segment-facts', [
      ['Offsets', `${show(s.base_offset)} … ${show(s.next_offset)} (next)`, 'offsets'],
      ['Size', `${bytes(s.size_bytes)} (${show(s.size_bytes)} bytes)`, 'size'],
      ['Time range', `${time(s.first_timestamp)} … ${time(s.max_timestamp)}`, 'time_range'],
      ['Modified', time(s.modified_ms), 'modified'],
      ['Offset index', `${show(index.entries)} entries, ${bytes(index.size_bytes)}, room for ${show(index.max_entries)}`, 'index'],
      ['Time index', `${show(timeIndex.entries)} entries, ${bytes(timeIndex.size_bytes)}`, 'time_index'],
    ]),
    el('div', { class: 'indexes' },
      el('div', null, el('h4', null, `Offset index (${shown(index)} of ${show(index.entries)} shown)`),
        table('index-entries', ['Offset', 'Position'], (index.entries_shown || []).map((e) =>
          el('tr', null, el('td', { class: 'num' }, show(e.offset)), el('td', { class: 'num' }, show(e.position)))), 'No entries.')),
      el('div', null, el('h4', null, `Time index (${shown(timeIndex)} of ${show(timeIndex.entries)} shown)`),
        table('time-index-entries', ['Timestamp', 'Offset'], (timeIndex.entries_shown || []).map((e) =>
          el('tr', null, el('td', { class: 'num', title: show(e.timestamp) }, time(e.timestamp)), el('td', { class: 'num' }, show(e.offset)))), 'No entries.'))));
}

export function segmentsSection(info) {
  const segments = info.segments || [];
  const total = segments.reduce((sum, s) => sum + (s.size_bytes || 0), 0) || 1;
  const scale = Math.max(0, W - MIN * segments.length) / total;
  const panel = el('div', { class: 'segment-panel' });
  const rects = [];
  let x = 0;
  const select = (rect, s) => {
    for (const r of rects) r.classList.remove('selected');
    rect.classList.add('selected');
    replace(panel, details(s));
  };
  const drawn = segments.map((s) => {
    const width = MIN + (s.size_bytes || 0) * scale;
    const rect = svg('rect', {
      x: x.toFixed(1), y: 4, width: Math.max(1, width - 1).toFixed(1), height: H - 24,
      class: s.active ? 'segment active' : 'segment', tabindex: 0, role: 'button',
      'data-base-offset': s.base_offset, 'data-active': s.active ? 'true' : 'false',
      'aria-label': `segment ${s.base_offset}`,
    }, svg('title', null, `${s.file}: offsets ${s.base_offset}…${s.next_offset}, ${bytes(s.size_bytes)}, ${time(s.first_timestamp)} … ${time(s.max_timestamp)}`));
    rect.addEventListener('click', () => select(rect, s));
    rect.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') select(rect, s);
    });
    rects.push(rect);
    const label = width > 48 ? svg('text', { x: (x + 4).toFixed(1), y: H - 6, class: 'tick' }, String(s.base_offset)) : null;
    x += width;
    return [rect, label];
  });
  const settings = info.settings || {};
  if (segments.length) select(rects[rects.length - 1], segments[segments.length - 1]);
  return el('section', { id: 'segments-section' },
    el('h2', null, `Segments (${segments.length})`),
    el('p', { class: 'muted' },
      `segment.bytes ${show(settings['segment.bytes'])} · segment.ms ${show(settings['segment.ms'])} · index.interval.bytes ${show(settings['index.interval.bytes'])} · widths to scale, ${bytes(total)} in all; click a segment for its indexes`),
    svg('svg', { id: 'segments', viewBox: `0 0 ${W} ${H}`, class: 'segments', role: 'group', 'aria-label': 'segments to scale' }, drawn),
    panel);
}
