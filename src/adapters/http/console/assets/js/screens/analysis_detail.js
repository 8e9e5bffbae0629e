// One stored analysis: its summary and findings, its metrics as a table with each formula and its
// inputs on demand, SVG charts (ratios over the fiscal years for a company or a private borrower,
// price history, drawdown, returns and volatility for a market analysis), and for a loan application the
// recommendation, the tests behind it and the suggested covenants. A run still going is read again
// every second until it ends.

import { getJson } from '../api.js';
import { barChart, lineChart } from '../charts.js';
import { dateTime, multiple, number, percent, words } from '../format.js';
import { badge, errorBox, h, heading, progress, replace, table } from '../render.js';
import { subjectOf } from './analyses.js';

const POLL_MS = 1000;

export async function show(view, [id], context) {
  const body = h('div', {}, progress('Loading the analysis…'));
  replace(view, h('p', {}, h('a', { href: '#/analyses' }, '← All analyses')), body);
  const load = async () => {
    try {
      const analysis = await getJson(`/api/quantitative-analysis/results/${encodeURIComponent(id)}`, { signal: context.signal });
      render(body, analysis);
      if (analysis.status === 'pending' || analysis.status === 'running') setTimeout(load, POLL_MS);
    } catch (error) {
      if (error.name !== 'AbortError') replace(body, heading('Analysis'), errorBox(error));
    }
  };
  await load();
}

function render(slot, analysis) {
  const result = analysis.result ?? {};
  const data = result.data ?? {};
  const kind = analysis.analysis_type;
  replace(
    slot,
    heading(`${words(kind)} analysis: ${subjectOf(analysis)}`),
    h('p', {}, badge(analysis.status), ` started ${dateTime(analysis.created_at)}`, analysis.completed_at ? `, completed ${dateTime(analysis.completed_at)}` : ''),
    analysis.status === 'pending' || analysis.status === 'running' ? progress('The analysis is running…') : null,
    analysis.error ? h('p', { class: 'error', role: 'alert' }, `The analysis failed: ${analysis.error}`) : null,
    result.summary ? h('section', { class: 'card', 'aria-labelledby': 'summary-heading' }, h('h2', { id: 'summary-heading' }, 'Summary'), h('p', { class: 'answer' }, result.summary)) : null,
    kind === 'loan_application' ? loanSection(data.loan) : null,
    charts(kind, data),
    (result.findings ?? []).length > 0 ? findings(result.findings) : null,
    (result.metrics ?? []).length > 0 ? metricsTable(result.metrics) : null,
    notes(data),
  );
}

function findings(list) {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'findings-heading' },
    h('h2', { id: 'findings-heading' }, 'Findings'),
    h('ul', { class: 'findings' }, list.map((finding) => h('li', {}, badge(finding.severity), ' ', finding.statement))),
  );
}

/** How an analyst writes a figure: the label the API gives it, else (older results) its key in words. */
function labelOf(figure) {
  return figure.label ?? words(figure.name);
}

/** The metrics, each with a button that shows its formula and inputs. */
function metricsTable(metrics) {
  const rows = metrics.map((metric, index) => {
    const details = h(
      'div',
      { class: 'formula', id: `formula-${index}`, hidden: true },
      h('div', {}, `= ${metric.formula}`),
      (metric.inputs ?? []).length > 0 ? h('div', {}, 'where ', metric.inputs.map((input, i) => [i > 0 ? ', ' : '', `${labelOf(input)} = ${number(input.value, input.unit, metric.currency)}`])) : null,
    );
    const toggle = h('button', { type: 'button', class: 'secondary', 'aria-expanded': 'false', 'aria-controls': details.id }, 'Formula');
    toggle.addEventListener('click', () => {
      details.hidden = !details.hidden;
      toggle.setAttribute('aria-expanded', String(!details.hidden));
    });
    const name = metric.symbol ? `${metric.symbol}: ${labelOf(metric)}` : labelOf(metric);
    return h('tr', {}, h('td', {}, name, details), h('td', {}, number(metric.value, metric.unit, metric.currency)), h('td', {}, toggle));
  });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'metrics-heading' },
    h('h2', { id: 'metrics-heading' }, `Metrics (${metrics.length})`),
    h('table', { class: 'metrics' }, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Metric'), h('th', { scope: 'col' }, 'Value'), h('th', { scope: 'col' }, h('span', { class: 'muted' }, 'How')))), h('tbody', {}, rows)),
  );
}

/** Ratios of each fiscal year, from the statements the analysis read. */
const RATIOS = [
  ['Operating margin', (s) => div(s.operating_income, s.revenue), 'operating income / revenue'],
  ['Net margin', (s) => div(s.net_income, s.revenue), 'net income / revenue'],
  ['Debt / equity', (s) => div(s.total_debt, s.equity), 'total debt / equity'],
  ['Current ratio', (s) => div(s.current_assets, s.current_liabilities), 'current assets / current liabilities'],
  ['EBIT interest coverage', (s) => div(s.operating_income, s.interest_expense), 'operating income / interest expense'],
];

function div(a, b) {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : null;
}

function statementCharts(statements) {
  const years = [...statements].sort((a, b) => String(a.fiscal_year_end).localeCompare(String(b.fiscal_year_end)));
  const labels = years.map((s) => String(s.fiscal_year_end).slice(0, 10));
  const series = (from, to) => RATIOS.slice(from, to).map(([name, f]) => ({ name, values: years.map(f) }));
  return [
    lineChart({ title: 'Margins by fiscal year', description: `Operating and net margin, fiscal years ending ${labels.join(', ')}`, labels, series: series(0, 2), format: percent }),
    lineChart({ title: 'Leverage and liquidity by fiscal year', description: `Debt to equity and current ratio, fiscal years ending ${labels.join(', ')}`, labels, series: series(2, 4), format: multiple }),
    lineChart({ title: 'Interest coverage by fiscal year', description: `EBIT interest coverage, fiscal years ending ${labels.join(', ')}`, labels, series: series(4, 5), format: multiple }),
    h('p', { class: 'muted' }, 'From the statements of each fiscal year: ', RATIOS.map(([name, , formula], i) => [i > 0 ? '; ' : '', `${name} = ${formula}`]), '. A year without one of the lines has no point.'),
  ];
}

/** Return, volatility and maximum drawdown of each instrument, and each one's deepest fall. */
function marketCharts(data) {
  const all = [...(data.statistics ?? []), ...(data.benchmark_statistics ? [data.benchmark_statistics] : [])];
  if (all.length === 0) return [];
  const value = (stats, name) => stats.metrics?.find((m) => m.name === name)?.value ?? null;
  const labels = all.map((s) => s.symbol);
  const performance = barChart({
    title: `Return, volatility and maximum drawdown over ${data.time_range ?? 'the window'}`,
    description: `Per instrument: ${labels.join(', ')}`,
    labels,
    series: [
      { name: 'Period return', values: all.map((s) => value(s, 'period_return')) },
      { name: 'Annualised volatility', values: all.map((s) => value(s, 'annualised_volatility')) },
      { name: 'Maximum drawdown', values: all.map((s) => s.max_drawdown?.depth ?? value(s, 'max_drawdown')) },
    ],
    format: percent,
  });
  const prices = Array.isArray(data.prices) ? data.prices.filter((p) => Array.isArray(p.closes) && p.closes.length > 1) : [];
  const history = prices.length > 0 ? priceCharts(prices, all) : [deepestFalls(all)];
  const windows = all.map((s) => [s.symbol, `${s.window?.first_date} – ${s.window?.last_date}`, String(s.window?.prices ?? '—'), number(s.max_drawdown?.peak_close), number(s.max_drawdown?.trough_close)]);
  return [performance, ...history, table('Price windows', ['Instrument', 'Window', 'Prices', 'Peak close', 'Trough close'], windows)];
}

/**
 * The daily closes the statistics were computed from, on one date axis (the union of the
 * instruments' trading dates): rebased to 100 at each one's first close so that instruments of any
 * price compare, and the drawdown — each close against the highest close before it.
 */
function priceCharts(prices, stats) {
  const dates = [...new Set(prices.flatMap((p) => p.closes.map(([date]) => date)))].sort();
  const position = new Map(dates.map((date, index) => [date, index]));
  const aligned = prices.map((p) => {
    const closes = new Array(dates.length).fill(null);
    for (const [date, close] of p.closes) closes[position.get(date)] = close;
    return { symbol: p.symbol, closes };
  });
  const rebased = aligned.map(({ symbol, closes }) => {
    const first = closes.find((close) => Number.isFinite(close));
    return { name: symbol, values: closes.map((close) => (Number.isFinite(close) ? (close / first) * 100 : null)) };
  });
  const drawdown = aligned.map(({ symbol, closes }) => {
    let peak = -Infinity;
    const values = closes.map((close) => {
      if (!Number.isFinite(close)) return null;
      peak = Math.max(peak, close);
      return close / peak - 1;
    });
    return { name: symbol, values };
  });
  const span = `${dates[0]} to ${dates[dates.length - 1]}, ${dates.length} trading days`;
  return [
    lineChart({
      title: 'Price history, rebased to 100',
      description: `Daily adjusted closes of ${prices.map((p) => p.symbol).join(', ')}, each divided by its first close in the window, ${span}`,
      labels: dates,
      series: rebased,
      format: (v) => number(v),
    }),
    lineChart({
      title: 'Drawdown from the running peak',
      description: stats.map((s) => `${s.symbol}: deepest ${percent(s.max_drawdown?.depth)}, from ${s.max_drawdown?.peak_date} to ${s.max_drawdown?.trough_date}`).join('; '),
      labels: dates,
      series: drawdown,
      format: percent,
    }),
  ];
}

/** Without the daily closes (analyses stored before they were kept): each deepest fall, peak to trough. */
function deepestFalls(all) {
  return lineChart({
    title: 'Deepest drawdown: from peak to trough',
    description: all.map((s) => `${s.symbol} fell ${percent(s.max_drawdown?.depth)} from ${s.max_drawdown?.peak_date} to ${s.max_drawdown?.trough_date}`).join('; '),
    labels: ['Peak', 'Trough'],
    series: all.map((s) => ({ name: `${s.symbol} (${s.max_drawdown?.peak_date} → ${s.max_drawdown?.trough_date})`, values: [0, s.max_drawdown?.depth ?? null] })),
    format: percent,
  });
}

function charts(kind, data) {
  const statements = Array.isArray(data.statements) ? data.statements : [];
  const figures = kind === 'market' ? marketCharts(data) : statements.length > 0 ? statementCharts(statements) : [];
  if (figures.length === 0) return null;
  return h('section', { class: 'card', 'aria-labelledby': 'charts-heading' }, h('h2', { id: 'charts-heading' }, 'Charts'), h('div', { class: 'charts' }, figures));
}

function loanSection(loan) {
  if (!loan) return null;
  const assessment = loan.assessment ?? {};
  const price = assessment.price;
  const figure = (value, unit) => number(value, unit ?? '', loan.currency);
  const reasons = (assessment.reasons ?? []).map((r) => [labelOf({ label: r.label, name: r.metric }), figure(r.value, r.unit), figure(r.threshold, r.unit), badge(r.outcome), r.statement]);
  const covenants = (assessment.covenants ?? []).map((c) => [labelOf({ label: c.label, name: c.metric }), c.kind === 'maximum' ? 'at most' : 'at least', multiple(c.threshold), c.basis]);
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'loan-heading' },
    h('h2', { id: 'loan-heading' }, 'Recommendation'),
    h('p', { class: 'recommendation' }, badge(loan.recommendation), ` for ${number(loan.amount, 'currency', loan.currency ?? 'USD')} ${words(loan.loan_type).toLowerCase()}`),
    h('dl', { class: 'summary' },
      h('dt', {}, 'Grade'), h('dd', {}, loan.grade ?? '—'),
      h('dt', {}, 'Probability of default'), h('dd', {}, percent(loan.pd)),
      price ? [h('dt', {}, 'Indicative all-in rate'), h('dd', {}, percent(price.all_in_rate))] : null,
      price ? [h('dt', {}, 'Grade spread'), h('dd', {}, percent(price.grade_spread))] : null,
    ),
    reasons.length > 0 ? table('Tests behind the recommendation', ['Metric', 'Value', 'Threshold', 'Outcome', 'Why'], reasons) : null,
    covenants.length > 0 ? table('Suggested covenants', ['Metric', 'Limit', 'Threshold', 'Basis'], covenants) : h('p', { class: 'muted' }, 'No covenant suggested.'),
  );
}

function notes(data) {
  const missing = data.missing_inputs ?? [];
  const methodology = data.methodology ?? [];
  if (missing.length === 0 && methodology.length === 0) return null;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'notes-heading' },
    h('h2', { id: 'notes-heading' }, 'Method and gaps'),
    missing.length > 0 ? h('details', {}, h('summary', {}, `${missing.length} inputs missing`), h('ul', {}, missing.map((m) => h('li', {}, String(m))))) : null,
    methodology.length > 0 ? h('details', {}, h('summary', {}, 'Methodology'), h('ul', {}, methodology.map((m) => h('li', {}, String(m))))) : null,
  );
}
