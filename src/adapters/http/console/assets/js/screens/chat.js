// Chat: the analyst's conversations, their messages, and the workflows a turn launched shown as
// cards that follow the run to its end and link to its result.
//
// The API lists no sessions, only reads one by id, so the console remembers the ids of the
// sessions this analyst started in this browser (ids only, never a token or a message: a session
// id is useless without the owner's token) and reads each one back from the API.

import { ApiError, getJson, postJson } from '../api.js';
import { dateTime } from '../format.js';
import { badge, errorBox, field, h, heading, progress, replace } from '../render.js';

const REMEMBERED = 30;
const POLL_MS = 1000;
const TERMINAL = new Set(['completed', 'failed']);

function memoryKey(user) {
  return `creditflow.chat-sessions.${user.id}`;
}

function rememberedSessions(user) {
  try {
    const ids = JSON.parse(window.localStorage.getItem(memoryKey(user)) ?? '[]');
    return Array.isArray(ids) ? ids.filter((id) => typeof id === 'string' && /^[\w-]{1,64}$/.test(id)) : [];
  } catch {
    return [];
  }
}

function remember(user, id) {
  const ids = [id, ...rememberedSessions(user).filter((known) => known !== id)].slice(0, REMEMBERED);
  try {
    window.localStorage.setItem(memoryKey(user), JSON.stringify(ids));
  } catch {
    // Storage full or refused: the session is still open in this tab.
  }
}

function forget(user, id) {
  const ids = rememberedSessions(user).filter((known) => known !== id);
  try {
    window.localStorage.setItem(memoryKey(user), JSON.stringify(ids));
  } catch {
    // Refused storage: the id stays listed and says it is unavailable.
  }
}

export async function show(view, [sessionId], context) {
  const { user, signal } = context;
  const list = h('ul', { class: 'session-list', 'aria-label': 'Conversations' });
  const messages = h('ol', { class: 'messages', 'aria-label': 'Messages', 'aria-live': 'polite' });
  const status = h('div', { class: 'slot' });
  const input = h('textarea', { name: 'message', rows: '3', required: true, maxlength: '4000', placeholder: 'Ask, or launch a workflow: “analyse Apple Inc”, “research the impact of SOFR on leveraged loans”' });
  const send = h('button', { type: 'submit' }, 'Send');
  const form = h('form', { class: 'composer' }, field('Message', input, 'Enter sends; Shift+Enter starts a new line.'), send, status);
  let current = sessionId ?? null;

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
      ),
      h('section', { class: 'card conversation', 'aria-label': 'Conversation' }, messages, form),
    ),
  );

  if (current === 'new') current = null;
  else if (!current) {
    const [latest] = rememberedSessions(user);
    if (latest) {
      history.replaceState(null, '', `#/chat/${latest}`);
      current = latest;
    }
  }
  renderSessionList(list, user, current, signal);

  if (current) {
    replace(messages, h('li', {}, progress('Loading the conversation…')));
    try {
      const session = await getJson(`/api/digitizer-chatbot/sessions/${encodeURIComponent(current)}`, { signal });
      remember(user, current);
      replace(messages);
      for (const message of session.messages) messages.append(messageItem(message, signal));
      if (session.messages.length === 0) messages.append(emptyNote());
    } catch (error) {
      if (error.name === 'AbortError') return;
      if (error instanceof ApiError && error.status === 404) forget(user, current);
      replace(messages, h('li', {}, errorBox(error)));
      current = null;
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
      remember(user, current);
      messages.append(
        messageItem(
          { role: 'assistant', content: reply.response, workflow_launched: reply.workflow_launched, workflow_result: reply.workflow_result, at: new Date().toISOString() },
          signal,
        ),
      );
      input.value = '';
      replace(status);
      renderSessionList(list, user, current, signal);
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

/** The remembered sessions, each titled by its first message (read from the API). */
async function renderSessionList(list, user, current, signal) {
  const ids = rememberedSessions(user);
  if (current && !ids.includes(current)) ids.unshift(current);
  replace(list, ids.length === 0 ? h('li', { class: 'muted' }, 'None yet.') : null);
  for (const id of ids) {
    const link = h('a', { href: `#/chat/${id}` }, 'Conversation');
    if (id === current) link.setAttribute('aria-current', 'true');
    const when = h('small', {});
    list.append(h('li', {}, link, when));
    getJson(`/api/digitizer-chatbot/sessions/${encodeURIComponent(id)}`, { signal })
      .then((session) => {
        const first = session.messages.find((m) => m.role === 'user');
        link.textContent = first ? truncate(first.content, 60) : 'Empty conversation';
        when.textContent = dateTime(session.updated_at);
      })
      .catch((error) => {
        if (error instanceof ApiError && error.status === 404) forget(user, id);
        if (error.name !== 'AbortError') link.textContent = 'Conversation (unavailable)';
      });
  }
}

function truncate(text, length) {
  const value = String(text);
  return value.length > length ? `${value.slice(0, length - 1)}…` : value;
}

function messageItem(message, signal) {
  const item = h(
    'li',
    { class: `message ${message.role === 'user' ? 'from-user' : 'from-assistant'}` },
    h('span', { class: 'who' }, message.role === 'user' ? 'You' : 'Assistant'),
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
    return { id: result.research_id, title: 'Research', poll: `/api/deep-research/results/${result.research_id}`, screen: `#/research/${result.research_id}` };
  }
  if (kind === 'people' && result.people_id) {
    return { id: result.people_id, title: 'People research', poll: `/api/people/results/${result.people_id}`, screen: null };
  }
  return null;
}

/**
 * A launched run: its kind, status and progress, updated by polling its result until it ends (the
 * API has no stream for runs a chat turn launched), and a link to the result.
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
  render(launched);
  if (!TERMINAL.has(launched.status) || !launched.result) poll();
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
