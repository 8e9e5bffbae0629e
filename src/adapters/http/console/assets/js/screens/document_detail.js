// One document: its extracted fields beside its text (each field a button that scrolls to its
// quote in the text and highlights it, with the page for paged files), its versions, and the
// review workflow as the buttons the analyst's role allows in the document's current state.

import { call, getJson, postForm, postJson } from '../api.js';
import { agreementValue, atPointer, dateTime, percent, pointerLabel, words } from '../format.js';
import { badge, errorBox, field, h, heading, progress, replace, table } from '../render.js';
import { ACCEPT, uploadBody } from './documents.js';

/** The review actions, who may take them and from which states (the API checks the same). */
const ACTIONS = [
  { action: 'submit', label: 'Submit for review', roles: ['analyst', 'admin'], from: ['draft', 'rejected'] },
  { action: 'approve', label: 'Approve', roles: ['admin'], from: ['submitted'] },
  { action: 'reject', label: 'Reject', roles: ['admin'], from: ['submitted'] },
  { action: 'publish', label: 'Publish', roles: ['admin'], from: ['approved'] },
  { action: 'archive', label: 'Archive', roles: ['admin'], from: ['draft', 'submitted', 'approved', 'rejected', 'published'] },
];

export async function show(view, [id], context) {
  const body = h('div', {}, progress('Loading the document…'));
  replace(view, h('p', {}, h('a', { href: '#/documents' }, '← All documents')), body);
  try {
    const { document } = await getJson(`/api/documents/${id}`, { signal: context.signal });
    render(body, document, document.current_version, context);
  } catch (error) {
    if (error.name !== 'AbortError') replace(body, heading('Document'), errorBox(error));
  }
}

function render(slot, document, versionNumber, context) {
  const version = document.versions.find((v) => v.version === versionNumber) ?? document.versions.at(-1);
  const summary = [
    ['Borrower', document.borrower],
    ['Total commitment', document.total_commitment ? agreementValue(document.total_commitment) : null],
    ['Governing law', document.governing_law],
    ['Agreement date', document.agreement_date],
    ['Deal', document.deal_id ? h('a', { href: `#/deals/${document.deal_id}` }, `Deal ${document.deal_id}`) : null],
    ['Updated', dateTime(document.updated_at)],
  ].filter(([, value]) => value !== null && value !== undefined);
  replace(
    slot,
    heading(document.title),
    h('p', { class: 'doc-state' }, 'Review state: ', badge(document.workflow_state), ` · version ${document.current_version}`),
    h('dl', { class: 'summary' }, summary.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value instanceof Node ? value : String(value))])),
    reviewPanel(slot, document, context),
    versionPanel(slot, document, version, context),
    extractionView(document, version),
    historyPanel(document),
  );
}

function reviewPanel(slot, document, context) {
  const allowed = ACTIONS.filter((a) => a.roles.includes(context.user.role) && a.from.includes(document.workflow_state));
  if (allowed.length === 0) {
    return h('section', { class: 'card review', 'aria-labelledby': 'review-heading' }, h('h2', { id: 'review-heading' }, 'Review'), h('p', { class: 'muted' }, `No review step is open to your role (${context.user.role}) while the document is ${document.workflow_state}.`));
  }
  const comment = h('input', { type: 'text', name: 'comment', maxlength: '2000' });
  const status = h('div', { class: 'slot', 'aria-live': 'polite' });
  const buttons = allowed.map((a) =>
    h('button', {
      type: 'button',
      class: a.action === 'reject' || a.action === 'archive' ? 'secondary' : '',
      dataset: { action: a.action },
      onclick: async (event) => {
        for (const button of buttons) button.disabled = true;
        replace(status, progress(`${a.label}…`));
        try {
          const body = { action: a.action };
          if (comment.value.trim()) body.comment = comment.value.trim();
          const changed = await postJson(`/api/documents/${document.document_id}/workflow`, body, { signal: context.signal });
          render(slot, changed.document, changed.document.current_version, context);
          context.say(`${a.label}: the document is now ${changed.document.workflow_state}.`);
        } catch (error) {
          if (error.name === 'AbortError') return;
          replace(status, errorBox(error));
          for (const button of buttons) button.disabled = false;
          event.target.focus();
        }
      },
    }, a.label),
  );
  return h('section', { class: 'card review', 'aria-labelledby': 'review-heading' }, h('h2', { id: 'review-heading' }, 'Review'), field('Comment (optional)', comment), h('div', { class: 'actions' }, buttons), status);
}

function versionPanel(slot, document, version, context) {
  const select = h(
    'select',
    { name: 'version' },
    document.versions.map((v) => {
      const option = h('option', { value: String(v.version) }, `Version ${v.version} · ${dateTime(v.created_at)}${v.version === document.current_version ? ' (current)' : ''}`);
      option.selected = v.version === version.version;
      return option;
    }),
  );
  select.addEventListener('change', () => render(slot, document, Number(select.value), context));
  const report = version.extraction ?? {};
  const download = version.original
    ? h('button', { type: 'button', class: 'secondary', onclick: () => downloadOriginal(document, version, status) }, `Download the original (${version.original.media_type})`)
    : null;
  const status = h('div', { class: 'slot' });
  return h(
    'section',
    { class: 'card versions', 'aria-labelledby': 'versions-heading' },
    h('h2', { id: 'versions-heading' }, 'Versions'),
    h('div', { class: 'inline-fields' }, field('Version shown', select), download),
    h('p', {}, 'Extraction: ', badge(report.status ?? 'unknown')),
    (report.missing_fields ?? []).length > 0 ? h('p', { class: 'muted' }, `Not found in the text: ${report.missing_fields.map(pointerOrWords).join(', ')}.`) : null,
    (report.warnings ?? []).length > 0 ? h('ul', { class: 'warnings' }, report.warnings.map((w) => h('li', {}, typeof w === 'string' ? w : w.message ?? 'A warning without a message.'))) : null,
    status,
    newVersionForm(slot, document, context),
  );
}

/** A new version from a file, for the roles that write documents, while the document takes them. */
function newVersionForm(slot, document, context) {
  if (!['analyst', 'admin'].includes(context.user.role) || document.workflow_state === 'archived') return null;
  const file = h('input', { type: 'file', name: 'version_file', accept: ACCEPT, required: true });
  const submit = h('button', { type: 'submit', class: 'secondary' }, 'Upload as the next version');
  const status = h('div', { class: 'slot', 'aria-live': 'polite' });
  const form = h('form', { class: 'new-version', 'aria-label': 'New version' }, field('New version (PDF, HTML, DOCX or text)', file), submit, status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const upload = uploadBody(file);
    if (!upload) return;
    const { chosen, body } = upload;
    submit.disabled = true;
    replace(status, progress(`Uploading ${chosen.name} and extracting its terms…`));
    try {
      const changed = await postForm(`/api/documents/${document.document_id}/versions`, body, { signal: context.signal });
      render(slot, changed.document, changed.document.current_version, context);
      context.say(`Version ${changed.document.current_version} stored; the document is ${changed.document.workflow_state}.`);
    } catch (error) {
      if (error.name !== 'AbortError') replace(status, errorBox(error));
      submit.disabled = false;
    }
  });
  return form;
}

/** Rates are stored as decimal fractions ("0.0275"): shown as percentages, as agreements state them. */
const RATE_FIELDS = /\/(spread|baseRateSpread|floor|margin|rate)$/i;

function fieldValue(pointer, value) {
  if (RATE_FIELDS.test(pointer) && value !== null && value !== '' && Number.isFinite(Number(value))) return percent(value);
  return agreementValue(value);
}

function pointerOrWords(name) {
  return String(name).startsWith('/') ? pointerLabel(name) : words(name);
}

/** Fetches the original with the token and hands it to the browser as a download. */
async function downloadOriginal(document, version, status) {
  try {
    const response = await call('GET', `/api/documents/${document.document_id}/versions/${version.version}/original`);
    const url = URL.createObjectURL(await response.blob());
    const link = h('a', { download: `document-${document.document_id}-v${version.version}` });
    link.href = url;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (error) {
    replace(status, errorBox(error));
  }
}

/** UTF-16 index of each UTF-8 byte offset the API gives (offsets are bytes of the stored text). */
function byteToIndex(text) {
  const encoder = new TextEncoder();
  return (offset) => {
    let bytes = 0;
    let index = 0;
    for (const character of text) {
      if (bytes >= offset) break;
      bytes += encoder.encode(character).length;
      index += character.length;
    }
    return index;
  };
}

/** The page a byte offset falls on, from the version's page starts (1-based), or null. */
function pageOf(pageStarts, offset) {
  if (!Array.isArray(pageStarts) || pageStarts.length === 0) return null;
  let page = 0;
  while (page + 1 < pageStarts.length && pageStarts[page + 1] <= offset) page += 1;
  return page + 1;
}

function extractionView(document, version) {
  const text = version.text ?? '';
  const provenance = version.extraction?.provenance ?? {};
  const toIndex = byteToIndex(text);
  const pre = h('pre', { class: 'document-text', tabindex: '0', 'aria-label': 'Document text' }, text);
  const where = h('p', { class: 'muted', 'aria-live': 'polite' }, 'Choose a field to see where the text says it.');
  const entries = Object.entries(provenance)
    .filter(([, p]) => p && Number.isFinite(p.start) && Number.isFinite(p.end))
    .sort((a, b) => a[1].start - b[1].start);

  let selected = null;
  const highlight = (button, pointer, p) => {
    let start = toIndex(p.start);
    let end = toIndex(p.end);
    if (p.quote && text.slice(start, end) !== p.quote) {
      // Offsets of an older extraction may not line up; the quote itself still finds its place.
      const found = text.indexOf(p.quote);
      if (found >= 0) [start, end] = [found, found + p.quote.length];
    }
    const mark = h('mark', { id: 'quote', tabindex: '-1' }, text.slice(start, end));
    replace(pre, text.slice(0, start), mark, text.slice(end));
    // Scroll the text, not the page, to the quote; then bring the text into view if it is not.
    pre.scrollTop = Math.max(0, mark.offsetTop - pre.clientHeight / 2);
    pre.scrollIntoView({ block: 'nearest' });
    selected?.setAttribute('aria-pressed', 'false');
    button.setAttribute('aria-pressed', 'true');
    selected = button;
    const page = p.page ?? pageOf(version.page_starts, p.start);
    replace(where, `${pointerLabel(pointer)}: “${p.quote ?? text.slice(start, end)}”${page ? ` — page ${page}` : ''}`);
  };

  const fields = entries.map(([pointer, p]) => {
    const value = atPointer(version.agreement, pointer);
    const page = p.page ?? pageOf(version.page_starts, p.start);
    const button = h(
      'button',
      { type: 'button', class: 'field-button', 'aria-pressed': 'false', dataset: { pointer } },
      h('span', { class: 'field-name' }, pointerLabel(pointer)),
      h('span', { class: 'field-value' }, value === undefined ? p.quote : fieldValue(pointer, value)),
      page ? h('span', { class: 'field-page' }, `page ${page}`) : null,
    );
    button.addEventListener('click', () => highlight(button, pointer, p));
    return h('li', {}, button);
  });

  return h(
    'section',
    { class: 'extraction', 'aria-label': 'Extracted fields and text' },
    h('div', { class: 'card fields' }, h('h2', {}, `Extracted fields (${entries.length})`), entries.length === 0 ? h('p', { class: 'muted' }, 'No field was extracted from this version.') : h('ul', { class: 'field-list' }, fields)),
    h('div', { class: 'card text' }, h('h2', {}, `Text of version ${version.version}`), where, pre),
  );
}

function historyPanel(document) {
  const rows = (document.workflow?.history ?? []).map((event) => [dateTime(event.at), words(event.action), event.from ? `${event.from} → ${event.to}` : event.to, event.comment ?? '']);
  const linked = document.workflow_data ?? {};
  const runs = [
    ...(linked.analyses ?? []).map((a) => h('li', {}, h('a', { href: `#/analyses/${a.analysis_id}` }, `${words(a.analysis_type)} analysis`), ' ', badge(a.status))),
    ...(linked.research ?? []).map((r) => h('li', {}, h('a', { href: `#/research/${r.research_id}` }, r.query), ' ', badge(r.status))),
  ];
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'history-heading' },
    h('h2', { id: 'history-heading' }, 'History'),
    table(null, ['When', 'Step', 'State', 'Comment'], rows),
    runs.length > 0 ? [h('h3', {}, 'Runs linked to this deal'), h('ul', {}, runs)] : null,
  );
}
