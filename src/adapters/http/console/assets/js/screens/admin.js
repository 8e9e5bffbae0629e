// Administration: every user with their role and whether they may sign in, changed one user at a
// time, and a form that creates a password user. Only administrators see this screen; the API
// refuses everyone else anyway.

import { getJson, patchJson, postJson } from '../api.js';
import { dateTime } from '../format.js';
import { errorBox, field, h, heading, progress, replace } from '../render.js';

const ROLES = ['viewer', 'analyst', 'admin'];

export async function show(view, _params, context) {
  const listSlot = h('div', { class: 'slot' });
  replace(view, heading('Administration'), createForm(listSlot, context), h('section', { class: 'card', 'aria-labelledby': 'users-heading' }, h('h2', { id: 'users-heading' }, 'Users'), listSlot));
  await renderUsers(listSlot, context);
}

function roleSelect(current, label) {
  return h('select', { name: 'role', 'aria-label': label }, ROLES.map((role) => {
    const option = h('option', { value: role }, role);
    option.selected = role === current;
    return option;
  }));
}

async function renderUsers(slot, context) {
  replace(slot, progress('Loading users…'));
  try {
    const { users } = await getJson('/api/admin/users', { signal: context.signal });
    const rows = users.map((user) => userRow(user, context));
    replace(
      slot,
      h('table', { class: 'list users' },
        h('thead', {}, h('tr', {}, ['User', 'Role', 'Can sign in', 'Created', 'Change'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, rows)),
    );
  } catch (error) {
    if (error.name !== 'AbortError') replace(slot, errorBox(error));
  }
}

function userRow(user, context) {
  const name = user.email ?? user.wallet_address ?? user.id;
  const role = roleSelect(user.role, `Role of ${name}`);
  const enabled = h('input', { type: 'checkbox', 'aria-label': `${name} may sign in` });
  enabled.checked = !user.disabled;
  const status = h('div', { class: 'slot', 'aria-live': 'polite' });
  const save = h('button', { type: 'button', class: 'secondary' }, 'Save');
  const self = user.id === context.user.id;
  if (self) {
    // The API refuses to let administrators demote or disable themselves; say so up front.
    role.disabled = true;
    enabled.disabled = true;
    save.disabled = true;
  }
  save.addEventListener('click', async () => {
    const changes = {};
    if (role.value !== user.role) changes.role = role.value;
    if (enabled.checked === user.disabled) changes.disabled = !enabled.checked;
    if (Object.keys(changes).length === 0) {
      replace(status, 'Nothing to change.');
      return;
    }
    save.disabled = true;
    try {
      const updated = await patchJson(`/api/admin/users/${user.id}`, changes, { signal: context.signal });
      Object.assign(user, updated);
      replace(status, `Saved: ${updated.role}${updated.disabled ? ', disabled' : ''}.`);
    } catch (error) {
      if (error.name !== 'AbortError') replace(status, errorBox(error));
    } finally {
      save.disabled = false;
    }
  });
  return h('tr', { dataset: { user: user.id } },
    h('td', {}, name, user.email ? null : h('small', { class: 'muted' }, ' (wallet)')),
    h('td', {}, role),
    h('td', {}, enabled),
    h('td', {}, dateTime(user.created_at)),
    h('td', {}, self ? h('small', { class: 'muted' }, 'This is you') : save, status),
  );
}

function createForm(listSlot, context) {
  const email = h('input', { type: 'email', name: 'email', required: true, autocomplete: 'off' });
  const password = h('input', { type: 'password', name: 'password', required: true, minlength: '12', autocomplete: 'new-password' });
  const role = roleSelect('analyst', null);
  const status = h('div', { class: 'slot', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Create the user');
  const form = h('form', { class: 'card', 'aria-labelledby': 'create-heading' },
    h('h2', { id: 'create-heading' }, 'New user'),
    h('div', { class: 'inline-fields' }, field('E-mail', email), field('Password', password, 'At least 12 characters.'), field('Role', role)),
    submit, status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const created = await postJson('/api/admin/users', { email: email.value.trim(), password: password.value, role: role.value }, { signal: context.signal });
      replace(status, `Created ${created.email} (${created.role}).`);
      form.reset();
      await renderUsers(listSlot, context);
    } catch (error) {
      if (error.name !== 'AbortError') replace(status, errorBox(error));
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
