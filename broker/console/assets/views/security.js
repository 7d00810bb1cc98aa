// #/security : ACLs and SCRAM users, read-only (never a salt or a key: the API has none). Each
// part needs its own permission (DescribeAcls, DescribeUserScramCredentials: DESCRIBE on the
// cluster), so one refused still shows the other.

import { get } from '../api.js';
import { el, table } from '../dom.js';
import { show } from '../format.js';

const ACL_FIELDS = ['resource_type', 'resource_name', 'pattern_type', 'principal', 'host', 'operation', 'permission'];

const refused = (e) => el('p', { class: 'error' }, e.message);

function acls(answer) {
  return [
    answer.authorizer ? null : el('p', { class: 'muted', id: 'no-authorizer' }, 'No authorizer is configured (authorizer.class.name): every request is allowed.'),
    table('acls', ['Resource type', 'Resource', 'Pattern', 'Principal', 'Host', 'Operation', 'Permission'],
      (answer.acls || []).map((a) => el('tr', null, ACL_FIELDS.map((f) => el('td', { 'data-field': f, class: f === 'permission' ? `perm-${String(a[f]).toLowerCase()}` : null }, show(a[f]))))), 'No ACLs.'),
  ];
}

function users(answer) {
  return table('users', ['User', 'Mechanisms'], (answer.users || []).map((u) => el('tr', { 'data-user': u.name },
    el('td', { class: 'name' }, show(u.name)),
    el('td', null, (u.mechanisms || []).map((m) => `${m.mechanism} (${m.iterations} iterations)`).join(', ')))), 'No SCRAM users.');
}

export async function security() {
  const [a, u] = await Promise.allSettled([get('/api/acls'), get('/api/users')]);
  if (a.status === 'rejected' && u.status === 'rejected') throw a.reason;
  return el('section', null,
    el('h1', null, 'Security'),
    el('h2', null, 'ACLs'),
    a.status === 'fulfilled' ? acls(a.value) : refused(a.reason),
    el('h2', null, 'SCRAM users'),
    u.status === 'fulfilled' ? users(u.value) : refused(u.reason));
}
