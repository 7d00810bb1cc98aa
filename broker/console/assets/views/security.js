// #/security : ACLs and SCRAM users, read-only (never a salt or a key: the API has none).

import { get } from '../api.js';
import { el, table } from '../dom.js';
import { show } from '../format.js';

const ACL_FIELDS = ['resource_type', 'resource_name', 'pattern_type', 'principal', 'host', 'operation', 'permission'];

export async function security() {
  const [acls, users] = await Promise.all([get('/api/acls'), get('/api/users')]);
  return el('section', null,
    el('h1', null, 'Security'),
    el('h2', null, 'ACLs'),
    acls.authorizer ? null : el('p', { class: 'muted', id: 'no-authorizer' }, 'No authorizer is configured (authorizer.class.name): every request is allowed.'),
    table('acls', ['Resource type', 'Resource', 'Pattern', 'Principal', 'Host', 'Operation', 'Permission'],
      (acls.acls || []).map((a) => el('tr', null, ACL_FIELDS.map((f) => el('td', { 'data-field': f, class: f === 'permission' ? `perm-${String(a[f]).toLowerCase()}` : null }, show(a[f]))))), 'No ACLs.'),
    el('h2', null, 'SCRAM users'),
    table('users', ['User', 'Mechanisms'], (users.users || []).map((u) => el('tr', { 'data-user': u.name },
      el('td', { class: 'name' }, show(u.name)),
      el('td', null, (u.mechanisms || []).map((m) => `${m.mechanism} (${m.iterations} iterations)`).join(', ')))), 'No SCRAM users.'));
}
