// The console's shell: the header (screens, who is signed in, sign-out) and a hash router that
// shows one screen at a time. Each screen is a module with `show(view, params, context)`; leaving
// a screen aborts its `context.signal`, which stops its polling and streams.

import { currentUser, onSessionChange, signOut } from './api.js';
import { replace } from './render.js';
import * as admin from './screens/admin.js';
import * as analyses from './screens/analyses.js';
import * as analysisDetail from './screens/analysis_detail.js';
import * as chat from './screens/chat.js';
import * as dealDetail from './screens/deal_detail.js';
import * as deals from './screens/deals.js';
import * as documentDetail from './screens/document_detail.js';
import * as documents from './screens/documents.js';
import * as research from './screens/research.js';
import * as signin from './screens/signin.js';

/** `#/screen/param` → [screen module, params, nav name]. */
const ROUTES = [
  [/^#\/chat(?:\/([\w-]+))?$/, chat, 'chat'],
  [/^#\/analyses$/, analyses, 'analyses'],
  [/^#\/analyses\/([\w-]+)$/, analysisDetail, 'analyses'],
  [/^#\/research(?:\/([\w-]+))?$/, research, 'research'],
  [/^#\/documents$/, documents, 'documents'],
  [/^#\/documents\/(\d+)$/, documentDetail, 'documents'],
  [/^#\/deals$/, deals, 'deals'],
  [/^#\/deals\/(\d+)(?:\/tests\/([\w-]+))?$/, dealDetail, 'deals'],
  [/^#\/deals\/(\d+)\/tests\/([\w-]+)\/summary$/, { show: dealDetail.showSummary }, 'deals'],
  [/^#\/admin$/, admin, 'admin'],
];
const HOME = '#/chat';

const view = document.getElementById('view');
const notice = document.getElementById('notice');
let leaving = null;

/** A short message in the shared status line (announced to screen readers). */
function say(text) {
  notice.textContent = text;
}

function renderHeader(user) {
  const signedIn = user !== null;
  document.getElementById('nav').hidden = !signedIn;
  document.getElementById('who').hidden = !signedIn;
  if (!signedIn) return;
  document.getElementById('who-name').textContent = user.email ?? user.wallet_address ?? 'signed in';
  document.getElementById('who-role').textContent = user.role;
  document.querySelector('#nav [data-screen="admin"]').hidden = user.role !== 'admin';
}

function markCurrent(name) {
  for (const link of document.querySelectorAll('#nav a')) {
    if (link.dataset.screen === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function route() {
  leaving?.abort();
  leaving = new AbortController();
  const context = { signal: leaving.signal, user: currentUser(), say, go: (hash) => (location.hash = hash) };
  say('');
  if (!context.user) {
    markCurrent(null);
    await signin.show(view, [], context);
    return;
  }
  const match = ROUTES.map(([pattern, screen, name]) => [pattern.exec(location.hash), screen, name]).find(([m]) => m);
  if (!match) {
    location.replace(HOME);
    return;
  }
  const [found, screen, name] = match;
  markCurrent(name);
  replace(view);
  try {
    await screen.show(view, found.slice(1), context);
  } catch (error) {
    if (error.name !== 'AbortError') throw error;
  }
  // Land keyboard and screen-reader users on the new screen's heading.
  view.querySelector('h1')?.focus({ preventScroll: true });
}

// A quiet token refresh changes the session but not who is signed in: the screen stays.
let shownUser = null;
onSessionChange((user) => {
  renderHeader(user);
  const id = user ? user.id : null;
  if (id !== shownUser) {
    shownUser = id;
    route();
  }
});

document.getElementById('sign-out').addEventListener('click', async () => {
  await signOut();
  say('You are signed out.');
});

window.addEventListener('hashchange', route);
renderHeader(null);
route();
