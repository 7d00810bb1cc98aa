// Hash routes (#/topics/{topic}, ...): each names a view function that returns the view's node.
// A navigation that happens while a view still loads makes that load's result be dropped, and a
// view's timers end when the view is left.

import { clear, append, clearFlash, flash } from './dom.js';

const SECTION = { topic: 'topics', partition: 'topics', group: 'groups', subject: 'schemas' };
let generation = 0;
let leaving = [];
let pendingFlash = null;

function decode(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

function match(routes, hash) {
  const path = hash.replace(/^#/, '') || '/';
  for (const [pattern, name, view] of routes) {
    const m = pattern.exec(path);
    if (!m) continue;
    const params = m.slice(1).map(decode);
    if (params.includes(null)) break;
    return { name, view, params };
  }
  return null;
}

export function start(routes, { main, nav, notFound, onError }) {
  async function render() {
    for (const stop of leaving) stop();
    leaving = [];
    const mine = ++generation;
    clearFlash();
    if (pendingFlash) {
      flash(pendingFlash);
      pendingFlash = null;
    }
    const route = match(routes, location.hash) || { name: 'notfound', view: notFound, params: [] };
    const section = SECTION[route.name] || route.name;
    for (const a of nav.querySelectorAll('a[data-nav]')) {
      if (a.dataset.nav === section) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    main.dataset.view = route.name;
    main.dataset.ready = 'false';
    append(clear(main), document.createTextNode('Loading…'));
    const ctx = {
      params: route.params,
      current: () => mine === generation,
      // Runs fn every ms while this view is shown and the tab visible.
      every(ms, fn) {
        const timer = setInterval(() => {
          if (!document.hidden && mine === generation) fn();
        }, ms);
        leaving.push(() => clearInterval(timer));
      },
      // Shows the view's new content (a refresh or a reload after a write).
      show(node) {
        if (mine !== generation) return;
        append(clear(main), node);
        main.dataset.ready = 'true';
      },
      loading() {
        if (mine === generation) main.dataset.ready = 'false';
      },
      ready() {
        if (mine === generation) main.dataset.ready = 'true';
      },
      go(hash, message) {
        pendingFlash = message || null;
        if (location.hash === hash) render();
        else location.hash = hash;
      },
    };
    try {
      const node = await route.view(ctx);
      ctx.show(node);
    } catch (e) {
      if (mine !== generation) return;
      onError(e);
      append(clear(main), notFound ? document.createTextNode(`Could not load this page: ${e.message}`) : null);
      main.dataset.ready = 'error';
    }
  }
  window.addEventListener('hashchange', render);
  render();
}
