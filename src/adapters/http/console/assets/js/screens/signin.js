// Sign-in: e-mail and password, or an Ethereum wallet through the browser's provider.

import { signIn } from '../api.js';
import { knownDevice, rememberDevice } from '../device.js';
import { errorBox, field, h, heading, progress, replace } from '../render.js';
import { signInWithWallet, walletAvailable } from '../wallet.js';

export async function show(view, _params, context) {
  const status = h('div', { class: 'slot', 'aria-live': 'polite' });
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'password-heading' },
    h('h2', { id: 'password-heading' }, 'With e-mail and password'),
    field('E-mail', email),
    field('Password', password),
    submit,
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    replace(status, progress('Signing in…'));
    try {
      const signedIn = await signIn(email.value, password.value, knownDevice(email.value));
      rememberDevice(email.value, signedIn.deviceToken);
      // The session change shows the screen asked for.
    } catch (error) {
      replace(status, errorBox(error));
      submit.disabled = false;
      password.select();
    }
  });

  const walletButton = h('button', { type: 'button', class: 'secondary', id: 'wallet-sign-in' }, 'Sign in with an Ethereum wallet');
  const walletNote = h('p', { class: 'muted', id: 'wallet-note' });
  const walletStatus = h('div', { class: 'slot', 'aria-live': 'polite' });
  walletButton.addEventListener('click', async () => {
    if (!walletAvailable()) {
      replace(walletNote, 'No Ethereum wallet was found in this browser. Install or unlock one (it provides window.ethereum), then try again.');
      return;
    }
    walletButton.disabled = true;
    try {
      await signInWithWallet((step) => replace(walletStatus, progress(step)));
    } catch (error) {
      const refused = error && (error.code === 4001 || /reject|denied/i.test(error.message ?? ''));
      replace(walletStatus, refused ? h('p', { class: 'error', role: 'alert' }, 'The wallet declined to sign; you are not signed in.') : errorBox(error));
      walletButton.disabled = false;
    }
  });
  const wallet = h(
    'section',
    { class: 'card', 'aria-labelledby': 'wallet-heading' },
    h('h2', { id: 'wallet-heading' }, 'With an Ethereum wallet'),
    h('p', {}, 'Your wallet signs a one-time Sign-In with Ethereum message for this service. A wallet that signs in for the first time gets the viewer role; an administrator can promote it.'),
    walletButton,
    walletNote,
    walletStatus,
  );

  replace(
    view,
    h(
      'div',
      { class: 'signin' },
      heading('Sign in to the creditflow console'),
      h('p', { class: 'muted' }, 'Your sign-in lasts while this tab is open: the console keeps no access or refresh token on disk, so reloading the page signs you out. It remembers only that this browser signed in to your account before, so that a lock-out caused by someone guessing your password elsewhere does not keep you out here.'),
      h('div', { class: 'columns' }, form, wallet),
    ),
  );
  if (!context.signal.aborted) email.focus();
}
