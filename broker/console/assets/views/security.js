// #/security : ACLs and SCRAM users (never a salt or a key: the API has none). Each part needs
// its own permission (DescribeAcls, DescribeUserScramCredentials: DESCRIBE on the cluster), so
// one refused still shows the other. With writes allowed: add an ACL, remove one, set a user's
// password, remove a user's credential; Kafka decides (ALTER on the cluster).

import { get, request, apiPath } from '../api.js';
import { el, table, hashOf, flash } from '../dom.js';
import { show } from '../format.js';
import { writable } from '../state.js';
import { writeForm, field, intField } from '../forms.js';

const ACL_FIELDS = ['resource_type', 'resource_name', 'pattern_type', 'principal', 'host', 'operation', 'permission'];
const RESOURCE_TYPES = ['TOPIC', 'GROUP', 'CLUSTER', 'TRANSACTIONAL_ID', 'DELEGATION_TOKEN', 'USER'];
const OPERATIONS = ['ALL', 'READ', 'WRITE', 'CREATE', 'DELETE', 'ALTER', 'DESCRIBE', 'CLUSTER_ACTION',
  'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'CREATE_TOKENS', 'DESCRIBE_TOKENS'];
const MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512'];

const refused = (e) => el('p', { class: 'error' }, e.message);
const select = (name, values, selected) =>
  el('select', { name }, values.map((v) => el('option', { value: v, selected: v === selected }, v)));

// A button that asks first, then sends the request and reloads the view with what happened.
function removeButton(ctx, label, question, send, done, text = 'Remove') {
  const button = el('button', { type: 'button', class: 'small danger', 'aria-label': label }, text);
  button.addEventListener('click', async () => {
    if (!confirm(question)) return;
    try {
      await send();
      ctx.go(hashOf('security'), done);
    } catch (e) {
      flash(e.message, 'error');
    }
  });
  return button;
}

function aclRow(ctx, a, canWrite) {
  const query = new URLSearchParams(ACL_FIELDS.map((f) => [f, a[f]]));
  const what = `${a.permission} ${a.principal} ${a.operation} on ${a.resource_type} ${a.resource_name}`;
  return el('tr', null, ACL_FIELDS.map((f) => el('td', { 'data-field': f, class: f === 'permission' ? `perm-${String(a[f]).toLowerCase()}` : null }, show(a[f]))),
    canWrite ? el('td', null, removeButton(ctx, `remove ACL ${what}`, `Remove the ACL: ${what}?`,
      () => request('DELETE', `/api/acls?${query}`), `Removed the ACL: ${what}`)) : null);
}

function acls(ctx, answer, canWrite) {
  const headers = ['Resource type', 'Resource', 'Pattern', 'Principal', 'Host', 'Operation', 'Permission'];
  return [
    answer.authorizer ? null : el('p', { class: 'muted', id: 'no-authorizer' }, 'No authorizer is configured (authorizer.class.name): every request is allowed.'),
    table('acls', canWrite ? [...headers, ''] : headers, (answer.acls || []).map((a) => aclRow(ctx, a, canWrite)), 'No ACLs.'),
  ];
}

function users(ctx, answer, canWrite) {
  const headers = canWrite ? ['User', 'Mechanisms', ''] : ['User', 'Mechanisms'];
  return table('users', headers, (answer.users || []).map((u) => el('tr', { 'data-user': u.name },
    el('td', { class: 'name' }, show(u.name)),
    el('td', null, (u.mechanisms || []).map((m) => `${m.mechanism} (${m.iterations} iterations)`).join(', ')),
    canWrite ? el('td', null, (u.mechanisms || []).map((m) => removeButton(ctx, `remove ${m.mechanism} of ${u.name}`,
      `Remove ${u.name}'s ${m.mechanism} credential? Clients signing in with it will be refused.`,
      () => request('DELETE', `${apiPath('users', u.name)}?mechanism=${encodeURIComponent(m.mechanism)}`),
      `Removed ${u.name}'s ${m.mechanism} credential`, `Remove ${m.mechanism.replace('SCRAM-', '')}`))) : null)), 'No SCRAM users.');
}

function aclForm(ctx) {
  return writeForm('add-acl', 'Add an ACL', [
    field('Resource type', select('resource_type', RESOURCE_TYPES, 'TOPIC')),
    field('Resource name (kafka-cluster for CLUSTER)', el('input', { name: 'resource_name', required: true, autocomplete: 'off' })),
    field('Pattern', select('pattern_type', ['LITERAL', 'PREFIXED'], 'LITERAL')),
    field('Principal', el('input', { name: 'principal', required: true, placeholder: 'User:alice', autocomplete: 'off' })),
    field('Host', el('input', { name: 'host', value: '*', autocomplete: 'off' })),
    field('Operation', select('operation', OPERATIONS, 'READ')),
    field('Permission', select('permission', ['ALLOW', 'DENY'], 'ALLOW')),
  ], 'Add ACL', async (data) => {
    const body = Object.fromEntries(ACL_FIELDS.map((f) => [f, String(data.get(f) ?? '').trim()]));
    const a = await request('POST', '/api/acls', body);
    ctx.go(hashOf('security'), `Added the ACL: ${a.permission} ${a.principal} ${a.operation} on ${a.resource_type} ${a.resource_name}`);
  });
}

function userForm(ctx) {
  return writeForm('set-user', 'Add a user or change a password', [
    field('User', el('input', { name: 'name', required: true, autocomplete: 'off' })),
    field('Password', el('input', { name: 'password', type: 'password', required: true, autocomplete: 'new-password' })),
    field('Mechanism', select('mechanism', MECHANISMS, 'SCRAM-SHA-256')),
    field('Iterations', el('input', { name: 'iterations', type: 'number', min: 4096, max: 16384, value: 4096 })),
  ], 'Save', async (data, form) => {
    const body = { name: String(data.get('name') ?? '').trim(), password: String(data.get('password') ?? ''),
      mechanism: String(data.get('mechanism')), iterations: intField(data, 'iterations', 'Iterations') };
    const u = await request('POST', '/api/users', body);
    form.reset(); // the password does not stay in the page
    ctx.go(hashOf('security'), `Saved ${u.name}'s ${u.mechanism} credential (${u.iterations} iterations)`);
  });
}

export async function security(ctx) {
  const [a, u] = await Promise.allSettled([get('/api/acls'), get('/api/users')]);
  if (a.status === 'rejected' && u.status === 'rejected') throw a.reason;
  const canWrite = writable();
  return el('section', null,
    el('h1', null, 'Security'),
    el('h2', null, 'ACLs'),
    a.status === 'fulfilled' ? acls(ctx, a.value, canWrite) : refused(a.reason),
    el('h2', null, 'SCRAM users'),
    u.status === 'fulfilled' ? users(ctx, u.value, canWrite) : refused(u.reason),
    canWrite ? el('section', { class: 'writes' }, el('h2', null, 'Change'), el('div', { class: 'forms' }, aclForm(ctx), userForm(ctx))) : null);
}
