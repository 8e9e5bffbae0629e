// A covenant test as an analyst reads it: the covenants' table (level, actual, headroom, status),
// the findings, each ratio's history against its step-down schedule, and the compliance summary
// meant for print — per covenant the calculation (formula, each input with its value and source),
// the agreement's words for the level, its schedule and its definitions.
//
// Every figure, status and finding is the API's: the console formats them and never re-judges.

import { lineChart, proportionBar } from './charts.js';
import { amount, dateTime, exactAmount, multiple, percent, words } from './format.js';
import { badge, h, table } from './render.js';

/** A covenant's level or actual as read: an amount in its currency ("USD 25.0 m"), else a multiple. */
function figure(covenant, value) {
  return covenant.currency ? amount(value, covenant.currency) : multiple(value);
}

/** How a covenant's level reads: "at most 4.50×" (a maximum) or "at least 3.00×" (a minimum). */
export function limit(covenant) {
  if (covenant.threshold === null || covenant.threshold === undefined) return '—';
  return `${covenant.operator === 'min' ? 'at least' : 'at most'} ${figure(covenant, covenant.threshold)}`;
}

/** The severity of the finding the API made about a covenant, if any (`concern`, `watch`). */
function severityOf(test, covenant) {
  return (test.findings ?? []).find((finding) => finding.covenant === covenant.name)?.severity ?? null;
}

/** Headroom as a bar and its percentage; the bar's colour is the covenant's status or finding. */
function headroom(test, covenant) {
  if (covenant.headroom_pct === null || covenant.headroom_pct === undefined) return h('span', { class: 'figure muted' }, '—');
  const text = percent(covenant.headroom_pct);
  const tone = covenant.status === 'breach' ? 'breach' : severityOf(test, covenant) ?? covenant.status;
  return h('span', { class: 'headroom' }, proportionBar(covenant.headroom_pct, `Headroom ${text}`, `tone-${tone}`), h('span', { class: 'figure' }, text));
}

/** Why a covenant could not be tested, in the API's words: what is missing, else its notes. */
function untested(covenant) {
  if (covenant.status !== 'not_testable') return null;
  const why = (covenant.missing_inputs ?? []).length > 0 ? `Missing: ${covenant.missing_inputs.join('; ')}` : (covenant.notes ?? []).join('; ');
  return why ? h('small', { class: 'why' }, why) : null;
}

/** The covenants of one test: name, level in force, actual, headroom and status. */
export function covenantTable(test) {
  const rows = (test.covenants ?? []).map((covenant) =>
    h(
      'tr',
      { dataset: { covenant: covenant.name } },
      h('th', { scope: 'row' }, covenant.name, h('small', { class: 'kind' }, words(covenant.kind)), untested(covenant)),
      h('td', { class: 'number threshold' }, limit(covenant)),
      h('td', { class: 'number actual' }, figure(covenant, covenant.actual)),
      h('td', { class: 'headroom-cell' }, headroom(test, covenant)),
      h('td', { class: 'status' }, badge(covenant.status)),
    ),
  );
  return h(
    'table',
    { class: 'covenants' },
    h('caption', {}, `Covenants tested for the period ending ${test.period_end}`),
    h('thead', {}, h('tr', {}, ['Covenant', 'Level', 'Actual', 'Headroom', 'Status'].map((name, i) => h('th', { scope: 'col', class: i === 1 || i === 2 ? 'number' : null }, name)))),
    h('tbody', {}, rows),
  );
}

export function findingsList(test) {
  const findings = test.findings ?? [];
  if (findings.length === 0) return h('p', { class: 'muted findings-none' }, 'No finding: no covenant is breached or passes with less than 10% headroom.');
  return h('ul', { class: 'findings' }, findings.map((finding) => h('li', {}, badge(finding.severity), ' ', finding.statement)));
}

/** The counts of the test's summary in words. */
export function summaryLine(test) {
  const summary = test.summary ?? {};
  return h(
    'p',
    { class: 'compliance' },
    'Compliance: ',
    badge(summary.compliance ?? test.compliance),
    ` ${summary.tested ?? 0} tested: ${summary.pass ?? 0} pass, ${summary.breach ?? 0} breach, ${summary.not_testable ?? 0} not testable.`,
  );
}

/**
 * The level a schedule sets on `date` (`YYYY-MM-DD`), or null: the step covering it, and when
 * several do (an amendment's restated level is listed last), the last, as the API reads it.
 */
function levelOn(schedule, date) {
  const step = schedule.findLast((s) => (s.from === null || s.from <= date) && (s.to === null || date <= s.to));
  return step ? step.threshold : null;
}

/**
 * Each covenant's actuals, one per test date of the deal's tests (the latest test of a date), against
 * the levels of the schedule of `latest` (the test shown), drawn as steps.
 */
export function historyCharts(tests, latest) {
  return (latest.covenants ?? []).map((covenant) => {
    const actuals = new Map();
    // The list is newest first: the first test of a date is the latest of that date.
    for (const test of tests) {
      const found = (test.covenants ?? []).find((c) => c.name === covenant.name);
      if (found && !actuals.has(test.period_end)) actuals.set(test.period_end, found.actual ?? null);
    }
    const schedule = covenant.schedule ?? [];
    const stepDates = schedule.flatMap((step) => [step.from, step.to]).filter((date) => date !== null);
    const labels = [...new Set([...actuals.keys(), ...stepDates])].sort();
    const level = covenant.operator === 'min' ? 'Minimum' : 'Maximum';
    const series = [
      { name: 'Actual', values: labels.map((date) => (actuals.has(date) ? actuals.get(date) : null)) },
      {
        name: `${level} in the schedule`,
        step: true,
        // Without a schedule the level in force holds throughout.
        openStart: schedule.length === 0 || schedule.some((step) => step.from === null),
        openEnd: schedule.length === 0 || schedule.some((step) => step.to === null),
        values: labels.map((date) => (schedule.length > 0 ? levelOn(schedule, date) : actuals.has(date) ? covenant.threshold : null)),
      },
    ];
    const tested = [...actuals.entries()].sort(([a], [b]) => a.localeCompare(b));
    const description =
      `${covenant.name}: ${tested.map(([date, value]) => `${figure(covenant, value)} at ${date}`).join(', ') || 'no actual'}; ` +
      `schedule: ${schedule.map((step) => stepWords(covenant, step)).join('; ') || `${limit(covenant)} throughout`}.`;
    return lineChart({ title: `${covenant.name} against its schedule`, description, labels, series, format: (value) => figure(covenant, value) });
  });
}

/** A schedule step in words: "4.50× from 2024-06-30 to 2025-03-31". */
function stepWords(covenant, step) {
  const from = step.from ? `from ${step.from}` : 'from the start';
  const to = step.to ? ` to ${step.to}` : ' onwards';
  return `${figure(covenant, step.threshold)} ${from}${to}`;
}

/** A schedule as a table: each level with the dates it covers and the agreement's words. */
function scheduleTable(covenant) {
  const schedule = covenant.schedule ?? [];
  if (schedule.length === 0) return h('p', { class: 'muted' }, 'The agreement states no step-down schedule for this covenant.');
  return table(
    'Schedule',
    ['From', 'To', 'Level', "The agreement's words"],
    schedule.map((step) => [step.from ?? 'the start', step.to ?? 'onwards', figure(covenant, step.threshold), h('q', {}, step.quote)]),
    { className: 'schedule' },
  );
}

/** The definitions the agreement gave for the ratio, quoted. */
function definitionQuotes(definition, currency) {
  const read = definition?.read ?? [];
  const cash = definition?.net_of_cash;
  if (read.length === 0 && !cash) return h('p', { class: 'muted' }, 'The agreement defines none of its terms in a form read here: the market-standard definition applies.');
  return h(
    'dl',
    { class: 'definitions' },
    read.map((entry) => [h('dt', {}, entry.term), h('dd', {}, h('q', {}, entry.quote))]),
    cash ? [h('dt', {}, 'Cash netted'), h('dd', {}, cash.cap === null ? 'without a cap' : `up to ${exactAmount(cash.cap, currency)}${cash.cap_is_lower_bound ? ' (the lower branch of a “greater of”)' : ''}: `, h('q', {}, cash.quote))] : null,
  );
}

/** One covenant's calculation schedule, with the agreement's words. */
function calculation(test, covenant) {
  const currency = test.currency ?? null;
  const cushion = covenant.ebitda_cushion;
  const facts = [
    ['Status', badge(covenant.status)],
    ['Level in force', [limit(covenant), covenant.quote ? [' — ', h('q', {}, covenant.quote)] : null]],
    ['Actual', figure(covenant, covenant.actual)],
    ['Headroom', percent(covenant.headroom_pct)],
    cushion ? ['EBITDA cushion', `${amount(cushion.amount, currency)} (${percent(cushion.pct)}) above a breakeven of ${amount(cushion.breakeven, currency)}`] : null,
    (covenant.missing_inputs ?? []).length > 0 ? ['Missing inputs', covenant.missing_inputs.join('; ')] : null,
  ].filter(Boolean);
  return h(
    'article',
    { class: 'calculation', dataset: { covenant: covenant.name } },
    h('h3', {}, covenant.name),
    h('dl', { class: 'summary' }, facts.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)])),
    covenant.formula ? h('p', { class: 'formula' }, `= ${covenant.formula}`) : null,
    (covenant.inputs ?? []).length > 0
      ? table('Inputs', ['Input', 'Value', 'Source'], covenant.inputs.map((input) => [h('code', {}, input.name), exactAmount(input.value, currency), input.source]), { className: 'inputs' })
      : null,
    scheduleTable(covenant),
    h('h4', {}, 'Definitions'),
    definitionQuotes(covenant.definition, currency),
    (covenant.notes ?? []).length > 0 ? [h('h4', {}, 'Notes'), h('ul', {}, covenant.notes.map((note) => h('li', {}, note)))] : null,
  );
}

/** The compliance summary of one test, laid out for print. */
export function complianceSummary(dealId, test) {
  const facts = [
    ['Deal', String(dealId)],
    ['Test date', test.period_end],
    ['Test period', test.test_period ?? '—'],
    ['Agreement', `${test.document_title ?? `Document ${test.document_id}`} (document ${test.document_id}, version ${test.document_version})`],
    ['Statements', test.statement_set_id ? `Statement set ${test.statement_set_id}` : 'Supplied with the request'],
    ['Currency', test.currency ?? '—'],
    (test.amendments_applied ?? []).length > 0 ? ['Amendments applied', test.amendments_applied.map((a) => `document ${a.document_id} from ${a.from}`).join('; ')] : null,
    ['Tested', dateTime(test.created_at)],
    ['Test id', test.test_id],
  ].filter(Boolean);
  return h(
    'section',
    { class: 'compliance-summary', 'aria-labelledby': 'compliance-heading' },
    h('h2', { id: 'compliance-heading' }, `Covenant compliance summary for the period ending ${test.period_end}`),
    h('dl', { class: 'summary' }, facts.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)])),
    summaryLine(test),
    covenantTable(test),
    h('h3', {}, 'Findings'),
    findingsList(test),
    (test.covenants ?? []).map((covenant) => calculation(test, covenant)),
  );
}
