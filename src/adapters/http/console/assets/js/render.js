// Building the page without ever parsing HTML: every element is created by name and every value
// from the API enters the page as a text node, so a title like `<img src=x onerror=…>` is shown as
// those characters. Links are only made to this console's own screens or to http(s) addresses.

import { ApiError } from './api.js';

/**
 * `h('button', {type: 'button', onclick: f}, 'Save')`. Attributes are set by name; `on…` keys add
 * listeners; children are nodes or strings (strings become text nodes); null and false are skipped.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      element.className = value;
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else if (name === 'href') {
      element.setAttribute('href', safeHref(value));
    } else if (value === true) {
      element.setAttribute(name, '');
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

/** Appends children: nodes as they are, anything else as text. */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replaces an element's content. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/**
 * An address a link may carry: a screen of this console (`#/…`), a path of this origin, or an
 * http(s) address. Anything else (`javascript:`, `data:`) becomes an inert `#`.
 */
export function safeHref(raw) {
  const value = String(raw ?? '');
  if (value.startsWith('#/')) return value;
  // `//host` and `/\host` leave the origin; a single slash stays on it.
  if (value.startsWith('/')) return value[1] === '/' || value[1] === '\\' ? '#' : value;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : '#';
  } catch {
    return '#';
  }
}

/** A link that opens outside the console, without handing it this page. */
export function externalLink(href, ...children) {
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, ...children);
}

/** An API error (or any failure) in words: the message, and what the detail adds. */
export function describeError(error) {
  if (!(error instanceof ApiError)) return `Something went wrong in the console: ${error?.message ?? error}`;
  const parts = [sentence(error.message)];
  const detail = error.detail && typeof error.detail === 'object' ? error.detail : null;
  if (detail) {
    if (typeof detail.field === 'string') parts.push(`Check the ${detail.field.replaceAll('_', ' ').replaceAll('.', ' › ')} field.`);
    if (Array.isArray(detail.candidates) && detail.candidates.length > 0) {
      const names = detail.candidates.slice(0, 5).map((c) => (c.ticker ? `${c.name} (${c.ticker})` : c.name));
      parts.push(`Did you mean ${names.join(', ')}?`);
    }
    if (typeof detail.quota === 'string') parts.push(`Your ${detail.quota} quota is ${detail.limit}; you use ${detail.used}.`);
    if (Array.isArray(detail.accepted)) parts.push(`Accepted types: ${detail.accepted.join(', ')}.`);
    if (typeof detail.max_bytes === 'number') parts.push(`The limit is ${detail.max_bytes.toLocaleString('en-US')} bytes.`);
    if (typeof detail.provider === 'string') parts.push(`The provider was ${detail.provider}.`);
  }
  if (error.status === 429 || error.status === 503) {
    parts.push(error.retryAfter ? `Try again in ${error.retryAfter} s.` : 'Try again shortly.');
  }
  return parts.join(' ');
}

function sentence(text) {
  const trimmed = String(text).trim();
  if (trimmed === '') return 'The request failed.';
  const first = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** A visible, announced error box. */
export function errorBox(error) {
  return h('p', { class: 'error', role: 'alert' }, describeError(error));
}

/** Shows `error` in `slot` (an element kept for messages). */
export function showError(slot, error) {
  replace(slot, errorBox(error));
}

/** An indeterminate or determinate progress bar with its words. */
export function progress(label, percent = null) {
  const bar = h('progress', { max: '100', 'aria-label': label });
  if (percent !== null) bar.value = percent;
  return h('div', { class: 'progress', role: 'status' }, bar, h('span', {}, label));
}

/** A state word as a coloured badge (`completed`, `failed`, `draft` …). */
export function badge(word) {
  const value = String(word ?? 'unknown');
  return h('span', { class: `badge state-${value.replace(/[^a-z_]/gi, '')}` }, value.replaceAll('_', ' '));
}

/** A table with a header row; `rows` are arrays of cells (nodes or text). */
export function table(caption, headings, rows, { className = '' } = {}) {
  return h(
    'table',
    { class: className },
    caption ? h('caption', {}, caption) : null,
    h('thead', {}, h('tr', {}, headings.map((heading) => h('th', { scope: 'col' }, heading)))),
    h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell) => h('td', {}, cell))))),
  );
}

/** A labelled form control: `field('Title', h('input', {...}))` with a generated id. */
let nextId = 0;
export function field(label, control, hint = null) {
  const id = control.id || `control-${++nextId}`;
  control.id = id;
  const hintNode = hint ? h('small', { id: `${id}-hint` }, hint) : null;
  if (hintNode) control.setAttribute('aria-describedby', hintNode.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintNode);
}

/** Previous / next buttons and "page x of y"; nothing when everything fits on one page. */
export function pager(page, totalPages, go) {
  const last = Math.max(1, totalPages);
  if (last === 1 && page === 1) return null;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h('button', { type: 'button', class: 'secondary', disabled: page <= 1, onclick: () => go(page - 1) }, 'Previous page'),
    h('span', {}, `Page ${page} of ${last}`),
    h('button', { type: 'button', class: 'secondary', disabled: page >= last, onclick: () => go(page + 1) }, 'Next page'),
  );
}

/** The screen's heading, focused so keyboard and screen-reader users land on it. */
export function heading(text) {
  return h('h1', { tabindex: '-1' }, text);
}
