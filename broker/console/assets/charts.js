// Small SVG charts drawn with attributes only (the CSP allows no style attributes): a line over
// time for the overview's rates and bars for a group's lag per partition.

import { svg } from './dom.js';

const W = 480;
const H = 120;
const PAD = { left: 64, right: 8, top: 10, bottom: 20 };

function frame(id, label, children) {
  return svg('svg', { id, class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label },
    svg('title', null, label), children);
}

function axis(max, format) {
  const bottom = H - PAD.bottom;
  return [
    svg('line', { x1: PAD.left, y1: bottom, x2: W - PAD.right, y2: bottom, class: 'axis' }),
    svg('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: bottom, class: 'axis' }),
    svg('text', { x: PAD.left - 4, y: PAD.top + 4, class: 'tick', 'text-anchor': 'end' }, format(max)),
    svg('text', { x: PAD.left - 4, y: bottom, class: 'tick', 'text-anchor': 'end' }, format(0)),
  ];
}

// points: [{x: number (time), y: number}], oldest first.
export function lineChart(id, label, points, format) {
  const max = Math.max(1, ...points.map((p) => p.y || 0));
  const x0 = points.length ? points[0].x : 0;
  const span = points.length > 1 ? points[points.length - 1].x - x0 || 1 : 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const coords = points.map((p) => [
    PAD.left + ((p.x - x0) / span) * plotW,
    PAD.top + plotH - ((p.y || 0) / max) * plotH,
  ]);
  const last = points.length ? points[points.length - 1].y : null;
  const d = coords.map(([x, y], i) => `${i ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
  return frame(id, label, [
    axis(max, format),
    points.length > 1 ? svg('path', { d, class: 'line' }) : null,
    svg('text', { x: W - PAD.right, y: H - 4, class: 'tick', 'text-anchor': 'end' },
      points.length ? `now ${format(last)}` : 'no samples yet'),
    svg('text', { x: PAD.left, y: H - 4, class: 'tick' },
      points.length > 1 ? `last ${Math.round(span / 60000) || '<1'} min` : ''),
  ]);
}

// bars: [{label, value}]
export function barChart(id, label, bars, format) {
  const max = Math.max(1, ...bars.map((b) => b.value || 0));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = bars.length ? plotW / bars.length : plotW;
  const width = Math.max(1, Math.min(40, slot * 0.7));
  return frame(id, label, [
    axis(max, format),
    bars.map((b, i) => {
      const h = ((b.value || 0) / max) * plotH;
      const x = PAD.left + i * slot + (slot - width) / 2;
      return svg('g', null,
        svg('rect', { x: x.toFixed(1), y: (PAD.top + plotH - h).toFixed(1), width: width.toFixed(1), height: h.toFixed(1), class: 'bar', 'data-label': b.label, 'data-value': b.value },
          svg('title', null, `${b.label}: ${format(b.value)}`)),
        slot > 24 ? svg('text', { x: (x + width / 2).toFixed(1), y: H - 6, class: 'tick', 'text-anchor': 'middle' }, b.short ?? b.label) : null);
    }),
    bars.length ? null : svg('text', { x: W / 2, y: H / 2, class: 'tick', 'text-anchor': 'middle' }, 'no partitions'),
  ]);
}
