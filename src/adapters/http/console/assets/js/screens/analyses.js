// Analyses: the analyst's stored quantitative analyses, page by page, and a form that launches a
// company, market or loan-application analysis and follows its progress on the endpoint's own
// Server-Sent Events stream (`stream: true`) until it completes.

import { ApiError, getJson, postStream } from '../api.js';
import { dateTime, words } from '../format.js';
import { badge, errorBox, field, h, heading, pager, progress, replace, table } from '../render.js';

const PAGE_SIZE = 20;

const KINDS = {
  company: {
    label: 'Company',
    path: '/api/quantitative-analysis/company',
    fields: [
      ['company_name', 'Company name', 'text', true, 'Apple Inc'],
      ['ticker', 'Ticker (optional)', 'text', false, 'AAPL'],
    ],
  },
  market: {
    label: 'Market',
    path: '/api/quantitative-analysis/market',
    fields: [
      ['query', 'Instruments, sectors or markets', 'text', true, 'AAPL vs semiconductors'],
      ['time_range', 'Time range', 'select', false, ['3M', '1M', '6M', '1Y', '5Y']],
    ],
  },
  loan_application: {
    label: 'Loan application',
    path: '/api/quantitative-analysis/loan-application',
    fields: [
      ['borrower_name', 'Borrower', 'text', true, 'Apple Inc'],
      ['loan_amount', 'Loan amount (USD)', 'number', true, '250000000'],
      ['loan_type', 'Loan type', 'select', false, ['term_loan', 'revolving', 'bridge', 'other']],
    ],
  },
};

export async function show(view, _params, context) {
  const listSlot = h('div', { class: 'slot' });
  replace(view, heading('Analyses'), launchForm(context), h('section', { class: 'card', 'aria-labelledby': 'list-heading' }, h('h2', { id: 'list-heading' }, 'Your analyses'), listSlot));
  await renderPage(listSlot, 1, context);
}

async function renderPage(slot, page, context) {
  replace(slot, progress('Loading analyses…'));
  try {
    const body = await getJson(`/api/quantitative-analysis/results?page=${page}&limit=${PAGE_SIZE}`, { signal: context.signal });
    if (body.analyses.length === 0) {
      replace(slot, h('p', { class: 'muted' }, 'No analyses yet. Launch one above, or from the chat.'));
      return;
    }
    const rows = body.analyses.map((analysis) => [
      h('a', { href: `#/analyses/${analysis.analysis_id}` }, subjectOf(analysis)),
      words(analysis.analysis_type),
      badge(analysis.status),
      dateTime(analysis.created_at),
    ]);
    replace(slot, table(null, ['Subject', 'Kind', 'Status', 'Started'], rows, { className: 'list' }), pager(page, body.total_pages, (next) => renderPage(slot, next, context)));
  } catch (error) {
    if (error.name !== 'AbortError') replace(slot, errorBox(error));
  }
}

/** What an analysis is about, from its request. */
export function subjectOf(analysis) {
  const request = analysis.request ?? {};
  return request.company_name ?? request.borrower_name ?? request.query ?? `Analysis ${analysis.analysis_id}`;
}

function launchForm(context) {
  const kind = h('select', { name: 'kind' }, Object.entries(KINDS).map(([value, spec]) => h('option', { value }, spec.label)));
  const inputs = h('div', { class: 'inline-fields' });
  const status = h('div', { class: 'slot', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Run the analysis');
  let controls = {};

  const renderFields = () => {
    controls = {};
    replace(
      inputs,
      KINDS[kind.value].fields.map(([name, label, type, required, example]) => {
        const control =
          type === 'select'
            ? h('select', { name }, example.map((option) => h('option', { value: option }, words(option))))
            : h('input', { name, type, required, step: type === 'number' ? 'any' : null, min: type === 'number' ? '1' : null });
        controls[name] = control;
        return field(label, control, type === 'select' || !example ? null : `For example: ${example}`);
      }),
    );
  };
  kind.addEventListener('change', renderFields);
  renderFields();

  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'launch-heading' },
    h('h2', { id: 'launch-heading' }, 'New analysis'),
    h('div', { class: 'inline-fields' }, field('Kind', kind)),
    inputs,
    submit,
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const spec = KINDS[kind.value];
    const body = { stream: true };
    for (const [name, , type] of spec.fields) {
      const value = controls[name].value.trim();
      if (value !== '') body[name] = type === 'number' ? Number(value) : value;
    }
    submit.disabled = true;
    replace(status, progress('Starting…', 0));
    let analysisId = null;
    try {
      await postStream(
        spec.path,
        body,
        (event) => {
          if (event.type === 'started') {
            analysisId = event.data.analysis_id;
            replace(status, progress(event.data.message ?? 'Started', 2));
          } else if (event.type === 'progress') {
            replace(status, progress(event.data.message ?? event.data.step, event.data.progress));
          } else if (event.type === 'completed') {
            analysisId = event.data.analysis_id ?? analysisId;
            replace(status, progress('Completed', 100));
          } else if (event.type === 'error') {
            throw Object.assign(new ApiError(event.data.code ?? 0, `the analysis failed: ${event.data.message ?? 'no reason given'}`), { analysisId });
          }
        },
        { signal: context.signal },
      );
      if (analysisId) context.go(`#/analyses/${analysisId}`);
    } catch (error) {
      if (error.name === 'AbortError') return;
      const failed = error.analysisId ? h('a', { href: `#/analyses/${error.analysisId}` }, 'See the failed run') : null;
      replace(status, errorBox(error), failed);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
