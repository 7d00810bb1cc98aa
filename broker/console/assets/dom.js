// Element helpers. Text from the broker (names, keys, values, headers, configs) is hostile
// input: it only ever reaches the page through createTextNode or setAttribute, never as markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else if (name === 'href' && !/^[#/]/.test(String(value))) {
      // Links are built by the page itself (hash routes); anything else, javascript: above
      // all, is dropped rather than trusted.
      continue;
    } else if (name === 'style' || name === 'innerHTML') {
      continue; // the CSP forbids style attributes; markup is never built from strings
    } else if (name === 'value' && 'value' in node && node.namespaceURI !== SVG_NS) {
      node.value = String(value);
    } else {
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(node, ...children);
  return node;
}

// Appends strings (as text nodes), nodes and arrays of them; null and undefined are skipped.
export function append(node, ...children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, ...child);
    else if (child instanceof Node) node.append(child);
    else node.append(document.createTextNode(String(child)));
  }
  return node;
}

export function el(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

export function svg(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export function replace(node, ...children) {
  return append(clear(node), ...children);
}

// A table with a header row; rows are <tr> elements built by the caller.
export function table(id, headers, rows, empty = 'None.') {
  const body = el('tbody', null, rows);
  if (!rows.length) body.append(el('tr', { class: 'empty' }, el('td', { colspan: headers.length }, empty)));
  return el('table', { id }, el('thead', null, el('tr', null, headers.map((h) => el('th', { scope: 'col' }, h)))), body);
}

// A definition list from [label, value, field] triples; field becomes data-field.
export function facts(id, items) {
  return el('dl', { id, class: 'facts' },
    items.map(([label, value, field]) => [el('dt', null, label), el('dd', { 'data-field': field }, value)]));
}

export function hashOf(...parts) {
  return '#/' + parts.map((p) => encodeURIComponent(String(p))).join('/');
}

const flashNode = () => document.getElementById('flash');

// The status line: the API's message for an error, a short confirmation for a write.
export function flash(message, kind = 'info') {
  const node = flashNode();
  node.dataset.kind = kind;
  replace(node, message);
  node.hidden = false;
}

export function clearFlash() {
  const node = flashNode();
  delete node.dataset.kind;
  clear(node);
  node.hidden = true;
}
