// Research: a question queued for the research workers, the analyst's runs, and a run's answer
// with its numbered citations (each opens its source), knowledge items and statistics. A run that
// is still going is followed on its event stream (`…/events`) until it ends.

import { getJson, getStream, postJson } from '../api.js';
import { dateTime, words } from '../format.js';
import { badge, errorBox, externalLink, field, h, heading, pager, progress, replace, table } from '../render.js';

const POLL_MS = 1000;
const PAGE_SIZE = 20;

export async function show(view, [researchId], context) {
  if (researchId) return showRun(view, researchId, context);
  const listSlot = h('div', { class: 'slot' });
  replace(view, heading('Research'), queryForm(context), h('section', { class: 'card', 'aria-labelledby': 'runs-heading' }, h('h2', { id: 'runs-heading' }, 'Your research'), listSlot));
  await renderPage(listSlot, 1, context);
}

function queryForm(context) {
  const query = h('textarea', { name: 'query', rows: '2', required: true, maxlength: '2000' });
  const iterations = h('input', { name: 'max_iterations', type: 'number', min: '1', max: '20', value: '5' });
  const status = h('div', { class: 'slot', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Start the research');
  const form = h('form', { class: 'card', 'aria-labelledby': 'ask-heading' }, h('h2', { id: 'ask-heading' }, 'New research'), field('Question', query, 'For example: What is the impact of SOFR on leveraged loans?'), field('Iterations at most', iterations), submit, status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    replace(status, progress('Queueing…'));
    try {
      const queued = await postJson('/api/deep-research/query', { query: query.value.trim(), max_iterations: Number(iterations.value) }, { signal: context.signal });
      context.go(`#/research/${queued.research_id}`);
    } catch (error) {
      if (error.name !== 'AbortError') replace(status, errorBox(error));
      submit.disabled = false;
    }
  });
  return form;
}

async function renderPage(slot, page, context) {
  replace(slot, progress('Loading research…'));
  try {
    const body = await getJson(`/api/deep-research/results?page=${page}&limit=${PAGE_SIZE}`, { signal: context.signal });
    if (body.research.length === 0) {
      replace(slot, h('p', { class: 'muted' }, 'No research yet.'));
      return;
    }
    const rows = body.research.map((run) => [h('a', { href: `#/research/${run.research_id}` }, run.query), badge(run.status), String(run.statistics?.sources_used ?? 0), dateTime(run.created_at)]);
    replace(slot, table(null, ['Question', 'Status', 'Sources', 'Asked'], rows, { className: 'list' }), pager(page, body.total_pages, (next) => renderPage(slot, next, context)));
  } catch (error) {
    if (error.name !== 'AbortError') replace(slot, errorBox(error));
  }
}

async function showRun(view, id, context) {
  const body = h('div', { class: 'research-run' }, progress('Loading the research…'));
  replace(view, h('p', {}, h('a', { href: '#/research' }, '← All research')), heading('Research'), body);
  const path = `/api/deep-research/results/${encodeURIComponent(id)}`;
  const finished = (run) => run.status === 'completed' || run.status === 'failed';
  const load = async () => {
    try {
      const run = await getJson(path, { signal: context.signal });
      renderRun(body, run);
      if (!finished(run)) setTimeout(load, POLL_MS);
    } catch (error) {
      if (error.name !== 'AbortError') replace(body, errorBox(error));
    }
  };
  try {
    const run = await getJson(path, { signal: context.signal });
    renderRun(body, run);
    if (finished(run)) return;
    // Followed on the run's event stream: each change of its progress brings the run's gathered
    // knowledge anew, its end the whole run. Should the stream stop early, reading again takes over.
    let ended = false;
    await getStream(`${path}/events`, async (event) => {
      if (event.type === 'completed' || event.type === 'failed') {
        ended = true;
        renderRun(body, event.data);
      } else if (event.type === 'progress') {
        renderRun(body, await getJson(path, { signal: context.signal }));
      }
    }, { signal: context.signal });
    if (!ended && !context.signal.aborted) await load();
  } catch (error) {
    if (error.name !== 'AbortError') replace(body, errorBox(error));
  }
}

/** Where a source opens: an internal document in the console, a web page in a new tab. */
function sourceLink(source, text) {
  const internal = /^\/api\/documents\/(\d+)$/.exec(source.url ?? '');
  if (internal) return h('a', { href: `#/documents/${internal[1]}` }, text);
  return externalLink(source.url, text);
}

/** The answer as text, with each `[n]` a link to `sources[n-1]`. */
function citedAnswer(answer, sources) {
  const paragraph = h('p', { class: 'answer' });
  const pattern = /\[(\d+)\]/g;
  let last = 0;
  for (const match of answer.matchAll(pattern)) {
    paragraph.append(document.createTextNode(answer.slice(last, match.index)));
    const source = sources[Number(match[1]) - 1];
    if (source) {
      const link = sourceLink(source, `[${match[1]}]`);
      link.classList.add('citation');
      link.title = source.title ?? source.url;
      paragraph.append(link);
    } else {
      paragraph.append(document.createTextNode(match[0]));
    }
    last = match.index + match[0].length;
  }
  paragraph.append(document.createTextNode(answer.slice(last)));
  return paragraph;
}

function renderRun(slot, run) {
  const stats = run.statistics ?? {};
  const running = run.status !== 'completed' && run.status !== 'failed';
  const sources = run.sources ?? [];
  replace(
    slot,
    h('section', { class: 'card', 'aria-labelledby': 'question' }, h('h2', { id: 'question' }, run.query), h('p', {}, badge(run.status), ` asked ${dateTime(run.created_at)}`, run.completed_at ? `, answered ${dateTime(run.completed_at)}` : '')),
    running ? progress(`Researching: iteration ${stats.iterations ?? 0} of at most ${run.max_iterations}; ${stats.sources_used ?? 0} sources so far`, Math.min(95, Math.round(((stats.iterations ?? 0) / (run.max_iterations || 1)) * 100))) : null,
    run.status === 'failed' ? h('p', { class: 'error', role: 'alert' }, `The research failed: ${run.error ?? 'no reason was given'}.`) : null,
    run.answer
      ? h('section', { class: 'card', 'aria-labelledby': 'answer-heading' }, h('h2', { id: 'answer-heading' }, 'Answer'), citedAnswer(run.answer, sources), h('small', { class: 'muted' }, run.answer_method === 'llm' ? 'Written by the language model from the sources below.' : 'Quoted from the sources below.'))
      : null,
    sources.length > 0
      ? h('section', { class: 'card', 'aria-labelledby': 'sources-heading' }, h('h2', { id: 'sources-heading' }, 'Sources'), h('ol', { class: 'sources' }, sources.map((source) => h('li', {}, sourceLink(source, source.title || source.url), h('small', { class: 'muted' }, ` ${source.origin === 'internal' ? 'your document' : source.provider ?? 'web'}`)))))
      : null,
    (run.knowledge_items ?? []).length > 0
      ? h('section', { class: 'card', 'aria-labelledby': 'knowledge-heading' }, h('h2', { id: 'knowledge-heading' }, 'Knowledge items'), h('ul', { class: 'knowledge' }, run.knowledge_items.map((item) => h('li', {}, h('strong', {}, item.title), h('p', {}, item.content), h('small', {}, 'From: ', (item.sources ?? []).map((source, i) => [i > 0 ? ', ' : '', sourceLink(source, source.title || source.url)]))))))
      : null,
    h('section', { class: 'card', 'aria-labelledby': 'stats-heading' }, h('h2', { id: 'stats-heading' }, 'Statistics'), statistics(stats)),
  );
}

function statistics(stats) {
  const rows = Object.entries(stats)
    .filter(([, value]) => typeof value === 'number')
    .map(([name, value]) => [words(name), String(Math.round(value * 100) / 100)]);
  const errors = (stats.provider_errors ?? []).map((e) => `${e.provider} (${e.stage}, iteration ${e.iteration}): ${e.message}`);
  return [table(null, ['Statistic', 'Value'], rows), errors.length > 0 ? h('details', {}, h('summary', {}, `${errors.length} provider errors`), h('ul', {}, errors.map((e) => h('li', {}, e)))) : null];
}
