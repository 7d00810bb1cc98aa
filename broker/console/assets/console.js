// The console's entry point: learns from /api/overview whether writes are allowed, then serves
// the hash routes into main#view.

import { get } from './api.js';
import { el, flash } from './dom.js';
import { setOverview } from './state.js';
import { start } from './router.js';
import { overview } from './views/overview.js';
import { topics } from './views/topics.js';
import { topic } from './views/topic.js';
import { partition } from './views/partition.js';
import { groups } from './views/groups.js';
import { group } from './views/group.js';
import { schemas } from './views/schemas.js';
import { subject } from './views/subject.js';
import { security } from './views/security.js';

const routes = [
  [/^\/$/, 'overview', overview],
  [/^\/topics$/, 'topics', topics],
  [/^\/topics\/([^/]+)$/, 'topic', topic],
  [/^\/topics\/([^/]+)\/partitions\/(\d+)$/, 'partition', partition],
  [/^\/groups$/, 'groups', groups],
  [/^\/groups\/([^/]+)$/, 'group', group],
  [/^\/schemas$/, 'schemas', schemas],
  [/^\/schemas\/([^/]+)$/, 'subject', subject],
  [/^\/security$/, 'security', security],
];

async function notFound() {
  return el('section', null, el('h1', null, 'Not found'), el('p', null, 'No such page in the console. ', el('a', { href: '#/' }, 'Back to the overview')));
}

async function main() {
  try {
    setOverview(await get('/api/overview'));
  } catch {
    setOverview(null); // read-only until the overview says otherwise
  }
  start(routes, {
    main: document.getElementById('view'),
    nav: document.querySelector('nav'),
    notFound,
    onError: (e) => flash(e.message, 'error'),
  });
}

main();
