// One deal: its latest covenant test (or the one chosen) with the covenants' levels, actuals,
// headroom and findings, each ratio's history against its step-down schedule, a form that runs a
// new test on one of the deal's statement sets, and everything filed under the deal, per kind,
// linked to its screen where the console has one. The compliance summary of a test opens as a
// print view (`#/deals/{id}/tests/{test}/summary`).

import { getJson, postJson } from '../api.js';
import { complianceSummary, covenantTable, findingsList, historyCharts, summaryLine } from '../covenants.js';
import { dateTime, words } from '../format.js';
import { badge, errorBox, field, h, heading, progress, replace, table } from '../render.js';
import { openDealForm } from './deals.js';

export async function show(view, [dealId, testId], context) {
  const body = h('div', {}, progress('Loading the deal…'));
  replace(view, h('p', { class: 'no-print' }, h('a', { href: '#/deals' }, '← Open another deal')), heading(`Deal ${dealId}`), body);
  await load(body, dealId, testId, context);
}

/** Reads the workspace, the tests and the test to show (the one named, else the latest), then draws them. */
async function load(slot, dealId, testId, context, shown = null) {
  const base = `/api/deals/${encodeURIComponent(dealId)}`;
  let workspace;
  let list;
  try {
    [workspace, list] = await Promise.all([getJson(base, { signal: context.signal }), getJson(`${base}/covenant-tests`, { signal: context.signal })]);
  } catch (error) {
    // A deal the analyst may see nothing of is a 404: offer to open another.
    if (error.name !== 'AbortError') replace(slot, errorBox(error), error.status === 404 ? openDealForm(context, dealId) : null);
    return;
  }
  const chosen = testId ?? list.covenant_tests[0]?.test_id ?? null;
  let test = shown;
  try {
    if (!test && chosen) test = await getJson(`${base}/covenant-tests/${encodeURIComponent(chosen)}`, { signal: context.signal });
  } catch (error) {
    if (error.name === 'AbortError') return;
    test = { error };
  }
  render(slot, dealId, workspace, list, test, context);
}

function render(slot, dealId, workspace, list, test, context) {
  const latest = list.covenant_tests[0]?.test_id ?? null;
  const covenants = !test
    ? h('section', { class: 'card' }, h('h2', {}, 'Covenants'), h('p', { class: 'muted' }, 'No covenant test of this deal yet: run one below.'))
    : test.error
      ? h('section', { class: 'card' }, h('h2', {}, 'Covenants'), errorBox(test.error))
      : covenantsCard(dealId, test, test.test_id === latest);
  replace(
    slot,
    covenants,
    runForm(slot, dealId, workspace, context),
    list.total > 0 ? historyCard(dealId, list, test?.error ? null : test) : null,
    recordsCard(dealId, workspace),
  );
}

function covenantsCard(dealId, test, isLatest) {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'covenants-heading', dataset: { test: test.test_id } },
    h('h2', { id: 'covenants-heading' }, isLatest ? 'Covenants: the latest test' : 'Covenants: an earlier test'),
    h('p', { class: 'muted' }, `Tested ${dateTime(test.created_at)} on `, h('a', { href: `#/documents/${test.document_id}` }, test.document_title ?? `document ${test.document_id}`), `, version ${test.document_version}${test.test_period ? `; test period: ${test.test_period}` : ''}.`),
    summaryLine(test),
    covenantTable(test),
    h('h3', {}, 'Findings'),
    findingsList(test),
    h('p', { class: 'actions' }, h('a', { class: 'button', href: `#/deals/${dealId}/tests/${test.test_id}/summary` }, 'Print summary')),
  );
}

/** A covenant test on one of the deal's statement sets, at a date and on a document if chosen. */
function runForm(slot, dealId, workspace, context) {
  const sets = workspace.statement_sets?.items ?? [];
  const section = h('section', { class: 'card', 'aria-labelledby': 'run-heading' }, h('h2', { id: 'run-heading' }, 'Run a covenant test'));
  if (sets.length === 0) {
    section.append(h('p', { class: 'muted' }, `No statements are filed under deal ${dealId}: store the borrower's statements with this deal number to test its covenants.`));
    return section;
  }
  const set = h(
    'select',
    { name: 'statement_set_id', required: true },
    sets.map((s) => h('option', { value: s.id }, `${s.borrower_name ?? 'Statements'} · ${s.currency ?? ''} · latest period ${s.latest_period_end ?? '—'} · stored ${dateTime(s.created_at)}`)),
  );
  const periodEnd = h('input', { type: 'date', name: 'period_end' });
  const documents = workspace.documents?.items ?? [];
  const agreement = h(
    'select',
    { name: 'document_id' },
    h('option', { value: '' }, 'The latest agreement stating financial covenants'),
    documents.map((d) => h('option', { value: String(d.id) }, `${d.title} (document ${d.id}, version ${d.current_version})`)),
  );
  const submit = h('button', { type: 'submit' }, 'Run the test');
  const status = h('div', { class: 'slot', 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'run-test', 'aria-labelledby': 'run-heading' },
    h('div', { class: 'inline-fields' }, field('Statements', set), field('Test date (optional)', periodEnd, "Defaults to the statements' latest period."), field('Agreement (optional)', agreement)),
    submit,
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const request = { statement_set_id: set.value };
    if (periodEnd.value) request.period_end = periodEnd.value;
    if (agreement.value) request.document_id = Number(agreement.value);
    submit.disabled = true;
    replace(status, progress('Testing the covenants…'));
    try {
      const test = await postJson(`/api/deals/${encodeURIComponent(dealId)}/covenant-tests`, request, { signal: context.signal });
      // The new test's own address, without leaving the screen (no hashchange: the screen stays).
      history.replaceState(null, '', `#/deals/${dealId}/tests/${test.test_id}`);
      await load(slot, dealId, test.test_id, context, test);
      context.say(`Covenants tested for the period ending ${test.period_end}: ${words(test.summary?.compliance ?? '')}.`);
      slot.querySelector('#covenants-heading')?.scrollIntoView({ block: 'start' });
    } catch (error) {
      if (error.name === 'AbortError') return;
      replace(status, errorBox(error));
      submit.disabled = false;
    }
  });
  section.append(form);
  return section;
}

/** Each ratio's actuals against its schedule, and the deal's tests, newest first. */
function historyCard(dealId, list, shown) {
  const rows = list.covenant_tests.map((t) => [
    t.test_id === shown?.test_id ? h('strong', {}, `${t.period_end} (shown)`) : h('a', { href: `#/deals/${dealId}/tests/${t.test_id}` }, t.period_end),
    badge(t.compliance),
    `${t.summary?.pass ?? 0} pass, ${t.summary?.breach ?? 0} breach, ${t.summary?.not_testable ?? 0} not testable`,
    dateTime(t.created_at),
  ]);
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'history-heading' },
    h('h2', { id: 'history-heading' }, 'History'),
    shown ? h('div', { class: 'charts' }, historyCharts(list.covenant_tests, shown)) : null,
    table(`Covenant tests (${list.total})`, ['Test date', 'Compliance', 'Covenants', 'Tested'], rows, { className: 'list tests' }),
  );
}

/** Where each kind of record opens, when the console has a screen for it. */
const KINDS = [
  ['documents', 'Documents', (d) => [h('a', { href: `#/documents/${d.id}` }, d.title ?? `Document ${d.id}`), ` · version ${d.current_version}`]],
  ['statement_sets', 'Statement sets', (s) => `${s.borrower_name ?? 'Statements'} · ${s.currency ?? ''} · latest period ${s.latest_period_end ?? '—'}`],
  ['covenant_tests', 'Covenant tests', (t, dealId) => h('a', { href: `#/deals/${dealId}/tests/${t.id}` }, `Test date ${t.period_end}`)],
  ['analyses', 'Analyses', (a) => h('a', { href: `#/analyses/${a.id}` }, `${words(a.kind)} analysis`)],
  ['research', 'Research', (r) => h('a', { href: `#/research/${r.id}` }, r.query ?? 'Research')],
  ['people', 'People', (p) => p.person_name ?? 'Person'],
  ['chat_sessions', 'Conversations', (c) => h('a', { href: `#/chat/${c.id}` }, c.title ?? 'Conversation')],
];

function recordsCard(dealId, workspace) {
  const present = KINDS.filter(([key]) => (workspace[key]?.total ?? 0) > 0);
  const absent = KINDS.filter(([key]) => (workspace[key]?.total ?? 0) === 0).map(([, name]) => name.toLowerCase());
  return h(
    'section',
    { class: 'card records', 'aria-labelledby': 'records-heading' },
    h('h2', { id: 'records-heading' }, 'Filed under this deal'),
    present.map(([key, name, describe]) => {
      const kind = workspace[key];
      const shown = kind.items.length < kind.total ? ` (latest ${kind.items.length} of ${kind.total})` : ` (${kind.total})`;
      return table(`${name}${shown}`, ['Record', 'Status', 'Created'], kind.items.map((item) => [describe(item, dealId), badge(item.status), dateTime(item.created_at)]), { className: `list kind-${key}` });
    }),
    absent.length > 0 ? h('p', { class: 'muted' }, `Nothing else: no ${absent.join(', no ')}.`) : null,
  );
}

/** The print view of one test: the compliance summary and a button that prints it. */
export async function showSummary(view, [dealId, testId], context) {
  const body = h('div', {}, progress('Loading the compliance summary…'));
  replace(view, h('p', { class: 'no-print' }, h('a', { href: `#/deals/${dealId}/tests/${testId}` }, `← Deal ${dealId}`)), heading(`Deal ${dealId}: covenant compliance`), body);
  try {
    const test = await getJson(`/api/deals/${encodeURIComponent(dealId)}/covenant-tests/${encodeURIComponent(testId)}`, { signal: context.signal });
    replace(
      body,
      h('p', { class: 'no-print actions' }, h('button', { type: 'button', onclick: () => window.print() }, 'Print'), h('span', { class: 'muted' }, 'Prints the summary alone, without the console around it.')),
      complianceSummary(dealId, test),
    );
  } catch (error) {
    if (error.name !== 'AbortError') replace(body, errorBox(error));
  }
}
