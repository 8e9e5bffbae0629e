// Chat: the analyst's conversations, their messages, and the workflows a turn launched shown as
// cards that follow the run to its end and link to its result.
//
// The conversations are the API's list of sessions (`GET /api/digitizer-chatbot/sessions`), the
// most recently active first, a page at a time: a session started anywhere — another browser, a
// script calling the API — is listed, and nothing about them is kept in the browser. An
// administrator's list holds everyone's sessions (as every list of the API does); another user's
// conversation can be read but not continued, so it is marked as theirs and opens without the
// message box.

import { getJson, getStream, postJson } from '../api.js';
import { dateTime } from '../format.js';
import { badge, errorBox, field, h, heading, progress, replace } from '../render.js';

const PAGE_SIZE = 20;
const POLL_MS = 1000;
const TERMINAL = new Set(['completed', 'failed']);

export async function show(view, [sessionId], context) {
  const { user, signal } = context;
  const list = h('ul', { class: 'session-list', 'aria-label': 'Conversations' });
  const listFooter = h('div', { class: 'slot' });
  const messages = h('ol', { class: 'messages', 'aria-label': 'Messages', 'aria-live': 'polite' });
  const status = h('div', { class: 'slot' });
  const input = h('textarea', { name: 'message', rows: '3', required: true, maxlength: '4000' });
  const send = h('button', { type: 'submit' }, 'Send');
  const form = h('form', { class: 'composer' }, field('Message', input, 'Ask, or launch a workflow: “analyse Apple Inc”, “research the impact of SOFR on leveraged loans”. Enter sends; Shift+Enter starts a new line.'), send, status);
  const readOnly = h('p', { class: 'muted read-only', hidden: true }, 'This is another user’s conversation: you can read it, and only they can continue it.');
  let current = sessionId === 'new' ? null : (sessionId ?? null);

  replace(
    view,
    heading('Chat'),
    h(
      'div',
      { class: 'chat' },
      h(
        'aside',
        { class: 'card sessions', 'aria-labelledby': 'sessions-heading' },
        h('h2', { id: 'sessions-heading' }, 'Conversations'),
        h('button', { type: 'button', class: 'secondary', onclick: () => context.go('#/chat/new') }, 'New conversation'),
        list,
        listFooter,
      ),
      h('section', { class: 'card conversation', 'aria-label': 'Conversation' }, messages, form, readOnly),
    ),
  );

  const conversations = sessionList(list, listFooter, context);
  const firstPage = conversations.load(1);
  if (!sessionId) {
    // No conversation named: open the analyst's most recently active one.
    const latest = (await firstPage)?.sessions.find((session) => session.owner_id === user.id);
    if (latest) {
      history.replaceState(null, '', `#/chat/${latest.session_id}`);
      current = latest.session_id;
    }
  }
  conversations.select(current);

  if (current) {
    replace(messages, h('li', {}, progress('Loading the conversation…')));
    try {
      const session = await getJson(`/api/digitizer-chatbot/sessions/${encodeURIComponent(current)}`, { signal });
      const theirs = session.owner_id !== user.id;
      replace(messages);
      for (const message of session.messages) messages.append(messageItem(message, signal, theirs ? 'The user' : 'You'));
      if (session.messages.length === 0) messages.append(emptyNote());
      if (theirs) {
        form.hidden = true;
        readOnly.hidden = false;
      }
    } catch (error) {
      if (error.name === 'AbortError') return;
      replace(messages, h('li', {}, errorBox(error)));
      current = null;
      conversations.select(null);
    }
  } else {
    replace(messages, emptyNote());
  }

  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text === '') return;
    send.disabled = true;
    messages.querySelector('.empty')?.remove();
    messages.append(messageItem({ role: 'user', content: text, at: new Date().toISOString() }, signal));
    replace(status, progress('Waiting for the reply…'));
    try {
      const body = { message: text };
      if (current) body.session_id = current;
      const reply = await postJson('/api/digitizer-chatbot/chat', body, { signal });
      if (!current) {
        current = reply.session_id;
        history.replaceState(null, '', `#/chat/${current}`);
      }
      messages.append(
        messageItem(
          { role: 'assistant', content: reply.response, workflow_launched: reply.workflow_launched, workflow_result: reply.workflow_result, at: new Date().toISOString() },
          signal,
        ),
      );
      input.value = '';
      replace(status);
      // The conversation is now the most recently active: it heads the first page.
      conversations.select(current);
      conversations.load(1);
    } catch (error) {
      if (error.name === 'AbortError') return;
      replace(status, errorBox(error));
    } finally {
      send.disabled = false;
      input.focus();
    }
  });
}

function emptyNote() {
  return h('li', { class: 'empty muted' }, 'No messages yet. Ask a question, or ask for an analysis or research and follow it here.');
}

/**
 * The list of conversations: its first page, and older pages appended on demand. Pages are
 * offsets into a list ordered by activity, so a conversation that becomes active meanwhile moves
 * to the top and shifts the rest down: a later page may repeat one already shown (dropped here by
 * its id), but cannot skip one.
 */
function sessionList(list, footer, context) {
  const { user, signal } = context;
  let shown = new Set();
  let selected = null;
  let loading = null;

  const mark = () => {
    for (const link of list.querySelectorAll('a[data-session]')) {
      if (link.dataset.session === selected) link.setAttribute('aria-current', 'true');
      else link.removeAttribute('aria-current');
    }
  };

  const load = async (page) => {
    loading?.abort();
    const mine = new AbortController();
    loading = mine;
    signal.addEventListener('abort', () => mine.abort(), { once: true });
    if (page === 1 && shown.size === 0) replace(footer, progress('Loading the conversations…'));
    try {
      const body = await getJson(`/api/digitizer-chatbot/sessions?page=${page}&limit=${PAGE_SIZE}`, { signal: mine.signal });
      if (page === 1) {
        list.replaceChildren();
        shown = new Set();
      }
      for (const session of body.sessions) {
        if (shown.has(session.session_id)) continue;
        shown.add(session.session_id);
        list.append(sessionItem(session, user));
      }
      if (shown.size === 0) list.append(h('li', { class: 'muted' }, 'None yet.'));
      const older = page < body.total_pages ? h('button', { type: 'button', class: 'secondary', onclick: () => load(page + 1) }, 'Show older conversations') : null;
      replace(footer, older);
      mark();
      return body;
    } catch (error) {
      if (error.name !== 'AbortError') replace(footer, errorBox(error));
      return null;
    }
  };

  return {
    load,
    select(id) {
      selected = id;
      mark();
    },
  };
}

/** One conversation of the list: its title, last activity and size, and whose it is when not the analyst's. */
function sessionItem(session, user) {
  const title = session.title ?? (session.message_count > 0 ? 'Launched workflows' : 'Empty conversation');
  const size = session.message_count === 1 ? '1 message' : `${session.message_count} messages`;
  const theirs = session.owner_id === user.id ? null : h('small', { class: 'muted owner' }, 'Another user’s conversation');
  return h(
    'li',
    {},
    h('a', { href: `#/chat/${session.session_id}`, dataset: { session: session.session_id } }, title),
    h('small', {}, `${dateTime(session.updated_at)} · ${size}`),
    theirs,
  );
}

function truncate(text, length) {
  const value = String(text);
  return value.length > length ? `${value.slice(0, length - 1)}…` : value;
}

/** One message; `asker` names who wrote the user's messages ("You", or another user's). */
function messageItem(message, signal, asker = 'You') {
  const item = h(
    'li',
    { class: `message ${message.role === 'user' ? 'from-user' : 'from-assistant'}` },
    h('span', { class: 'who' }, message.role === 'user' ? asker : 'Assistant'),
    h('p', { class: 'text' }, message.content),
    h('small', { class: 'muted' }, dateTime(message.at)),
  );
  if (message.workflow_launched && message.workflow_result) item.append(runCard(message.workflow_launched, message.workflow_result, signal));
  return item;
}

/** Where each kind of run is read and shown. */
function runTarget(kind, result) {
  if (kind === 'quant' && result.analysis_id) {
    return { id: result.analysis_id, title: 'Analysis', poll: `/api/quantitative-analysis/results/${result.analysis_id}`, screen: `#/analyses/${result.analysis_id}` };
  }
  if (kind === 'research' && result.research_id) {
    const poll = `/api/deep-research/results/${result.research_id}`;
    return { id: result.research_id, title: 'Research', poll, events: `${poll}/events`, screen: `#/research/${result.research_id}` };
  }
  if (kind === 'people' && result.people_id) {
    return { id: result.people_id, title: 'People research', poll: `/api/people/results/${result.people_id}`, screen: null };
  }
  return null;
}

/**
 * A launched run: its kind, status and progress, updated live until it ends — a research run from
 * its event stream, the others (which end within the chat turn, or have no stream) by reading
 * their result again — and a link to the result.
 */
function runCard(kind, launched, signal) {
  const target = runTarget(kind, launched);
  const card = h('div', { class: 'run-card', role: 'group', 'aria-label': `${kind} run` });
  if (!target) {
    replace(card, h('strong', {}, `Launched: ${kind}`), badge(launched.status));
    return card;
  }
  const state = h('span', {});
  const detail = h('div', { class: 'run-detail' });
  const link = target.screen ? h('a', { href: target.screen, class: 'run-link' }, 'Open the result') : null;
  replace(card, h('div', { class: 'run-head' }, h('strong', {}, target.title), state), detail, link);

  const render = (run) => {
    const status = run.status ?? 'pending';
    replace(state, badge(status));
    card.dataset.status = status;
    if (status === 'failed') {
      replace(detail, h('p', { class: 'error' }, run.error ? `The run failed: ${run.error}` : 'The run failed.'));
    } else if (!TERMINAL.has(status)) {
      replace(detail, progress(progressWords(kind, run), progressPercent(kind, run)));
    } else {
      replace(detail, summaryOf(kind, run));
    }
    return TERMINAL.has(status);
  };

  const poll = async () => {
    try {
      const run = await getJson(target.poll, { signal });
      if (!render(run)) setTimeout(poll, POLL_MS);
    } catch (error) {
      if (error.name === 'AbortError') return;
      replace(detail, errorBox(error));
    }
  };
  // Research progress as the stream tells it: status, iterations and sources so far.
  const follow = async () => {
    let ended = false;
    try {
      await getStream(target.events, (event) => {
        if (event.type === 'progress') {
          const { status, iterations, max_iterations: maxIterations, sources } = event.data;
          render({ status, max_iterations: maxIterations, statistics: { iterations, sources_used: sources } });
        } else if (event.type === 'completed' || event.type === 'failed') {
          ended = render(event.data);
        }
      }, { signal });
    } catch (error) {
      if (error.name === 'AbortError') return;
    }
    // The stream stopped before the end (a timeout, a dropped connection): reading takes over.
    if (!ended && !signal.aborted) poll();
  };
  render(launched);
  if (!TERMINAL.has(launched.status) || !launched.result) {
    if (target.events) follow();
    else poll();
  }
  return card;
}

function progressWords(kind, run) {
  if (kind === 'research') {
    const stats = run.statistics ?? {};
    const done = stats.iterations ?? 0;
    return `Researching: iteration ${done} of at most ${run.max_iterations ?? '?'}, ${stats.sources_used ?? 0} sources so far`;
  }
  return `The ${run.status ?? 'pending'} run is being followed…`;
}

function progressPercent(kind, run) {
  if (kind !== 'research' || !run.max_iterations) return null;
  return Math.min(95, Math.round(((run.statistics?.iterations ?? 0) / run.max_iterations) * 100));
}

function summaryOf(kind, run) {
  if (kind === 'research') {
    const answer = run.answer ? truncate(run.answer, 280) : 'Completed.';
    return h('p', {}, answer);
  }
  if (kind === 'people') {
    const band = run.result?.credit_assessment?.score_band ?? run.credit_assessment?.score_band;
    return h('p', {}, `${run.person_name ?? run.result?.person_name ?? 'The person'}: ${band ? `score band ${band}` : 'assessed'}.`);
  }
  const summary = run.result?.summary;
  return h('p', {}, summary ? truncate(summary, 280) : 'Completed.');
}
