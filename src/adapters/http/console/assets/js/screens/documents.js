// Documents: upload a credit agreement (PDF, HTML, DOCX or text, as the API accepts them), and the
// documents the analyst may read, searched and paged.

import { getJson, postForm } from '../api.js';
import { agreementValue, dateTime } from '../format.js';
import { badge, errorBox, field, h, heading, pager, progress, replace, table } from '../render.js';

const PAGE_SIZE = 20;
/** The chosen file as the multipart body the upload endpoints take (`file`), or null when none is chosen. */
export function uploadBody(fileInput) {
  const chosen = fileInput.files[0];
  if (!chosen) return null;
  const body = new FormData();
  body.append('file', chosen, chosen.name);
  return { chosen, body };
}

export const ACCEPT = '.pdf,.html,.htm,.docx,.txt,application/pdf,text/html,text/plain,application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export async function show(view, _params, context) {
  const listSlot = h('div', { class: 'slot' });
  const search = h('input', { type: 'search', name: 'search' });
  const searchForm = h('form', { class: 'search', role: 'search' }, field('Search documents', search, 'Title, party, borrower or words of the text.'), h('button', { type: 'submit', class: 'secondary' }, 'Search'));
  let words = '';
  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    words = search.value.trim();
    renderPage(listSlot, 1, words, context);
  });
  const canWrite = context.user.role !== 'viewer';
  replace(
    view,
    heading('Documents'),
    canWrite ? uploadForm(context) : h('p', { class: 'muted' }, 'Viewers read documents; an analyst or administrator uploads them.'),
    h('section', { class: 'card', 'aria-labelledby': 'documents-heading' }, h('h2', { id: 'documents-heading' }, 'Your documents'), searchForm, listSlot),
  );
  await renderPage(listSlot, 1, words, context);
}

async function renderPage(slot, page, words, context) {
  replace(slot, progress('Loading documents…'));
  const query = new URLSearchParams({ page: String(page), limit: String(PAGE_SIZE) });
  if (words) query.set('search', words);
  try {
    const body = await getJson(`/api/documents?${query}`, { signal: context.signal });
    if (body.documents.length === 0) {
      replace(slot, h('p', { class: 'muted' }, words ? 'No document contains every word searched for.' : 'No documents yet.'));
      return;
    }
    const rows = body.documents.map((document) => [
      h('a', { href: `#/documents/${document.document_id}`, class: 'document-title' }, document.title),
      document.borrower ?? '—',
      document.total_commitment ? agreementValue(document.total_commitment) : '—',
      badge(document.workflow_state),
      `v${document.current_version}`,
      dateTime(document.updated_at),
    ]);
    replace(
      slot,
      h('p', { class: 'muted' }, `${body.total} document${body.total === 1 ? '' : 's'}`),
      table(null, ['Title', 'Borrower', 'Commitment', 'Review', 'Version', 'Updated'], rows, { className: 'list' }),
      pager(page, body.total_pages, (next) => renderPage(slot, next, words, context)),
    );
  } catch (error) {
    if (error.name !== 'AbortError') replace(slot, errorBox(error));
  }
}

function uploadForm(context) {
  const file = h('input', { type: 'file', name: 'file', accept: ACCEPT, required: true });
  const title = h('input', { type: 'text', name: 'title', maxlength: '500' });
  const deal = h('input', { type: 'number', name: 'deal_id', min: '1', step: '1' });
  const status = h('div', { class: 'slot', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Upload and extract');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'upload-heading' },
    h('h2', { id: 'upload-heading' }, 'Upload an agreement'),
    h('div', { class: 'inline-fields' }, field('File (PDF, HTML, DOCX or text)', file), field('Title (optional)', title, 'Defaults to the file name.'), field('Deal id (optional)', deal)),
    submit,
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const upload = uploadBody(file);
    if (!upload) return;
    const { chosen, body } = upload;
    if (title.value.trim()) body.append('title', title.value.trim());
    if (deal.value.trim()) body.append('deal_id', deal.value.trim());
    submit.disabled = true;
    replace(status, progress(`Uploading ${chosen.name} and extracting its terms…`));
    try {
      const created = await postForm('/api/documents', body, { signal: context.signal });
      context.go(`#/documents/${created.document.document_id}`);
    } catch (error) {
      if (error.name !== 'AbortError') replace(status, errorBox(error));
      submit.disabled = false;
    }
  });
  return form;
}
