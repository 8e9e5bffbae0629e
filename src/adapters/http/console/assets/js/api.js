// The console's only door to the service: every call to the public API goes through here.
//
// The tokens live in this module's variables and nowhere else (never localStorage or
// sessionStorage, never a cookie): a page reload signs the analyst out, and nothing another tab or
// an extension reads from storage can act as them. An expired access token is renewed quietly with
// the refresh token (once, shared by every call that met the 401) and the call is repeated.

let session = null; // { access, refresh, user }
let refreshing = null; // the one refresh in flight, shared by concurrent 401s
const listeners = new Set();

/** An error answer of the API, or a failure to reach it, told in words. */
export class ApiError extends Error {
  constructor(status, message, detail, retryAfter) {
    super(message);
    this.status = status;
    this.detail = detail ?? null;
    this.retryAfter = retryAfter ?? null;
  }
}

/** Calls `listener(user or null)` whenever the analyst signs in or out. */
export function onSessionChange(listener) {
  listeners.add(listener);
}

export function currentUser() {
  return session ? session.user : null;
}

function setSession(next) {
  session = next;
  for (const listener of listeners) listener(currentUser());
}

function adopt(tokens) {
  setSession({ access: tokens.access_token, refresh: tokens.refresh_token, user: tokens.user });
  return tokens.user;
}

/** The error a failed response carries, with its `message`, `detail` and `Retry-After`. */
async function errorOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not the API's JSON (a proxy's page, an empty body): described by its status below.
  }
  const retryAfter = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
  const message =
    body && typeof body.message === 'string' && body.message !== ''
      ? body.message
      : `the service answered ${response.status} ${response.statusText}`.trim();
  return new ApiError(response.status, message, body ? body.detail : null, Number.isFinite(retryAfter) ? retryAfter : null);
}

async function send(method, path, { json, form, signal, token } = {}) {
  const headers = { accept: 'application/json' };
  let body;
  if (json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(json);
  } else if (form !== undefined) {
    body = form; // the browser writes the multipart boundary itself
  }
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    return await fetch(path, { method, headers, body, signal, credentials: 'omit', cache: 'no-store' });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, 'The service could not be reached. Check the connection and try again.');
  }
}

/** Renews the token pair; on failure the analyst is signed out (their sign-in has ended). */
async function refreshTokens() {
  if (!session) return false;
  if (!refreshing) {
    const refresh = session.refresh;
    refreshing = (async () => {
      const response = await send('POST', '/api/auth/refresh', { json: { refresh_token: refresh } });
      if (!response.ok) {
        setSession(null);
        return false;
      }
      adopt(await response.json());
      return true;
    })().finally(() => {
      refreshing = null;
    });
  }
  return refreshing;
}

/**
 * An authenticated call: the raw Response when it succeeded, an ApiError otherwise. A 401 is
 * retried once after a quiet refresh.
 */
export async function call(method, path, options = {}) {
  if (!session) throw new ApiError(401, 'You are signed out. Sign in to go on.');
  let response = await send(method, path, { ...options, token: session.access });
  if (response.status === 401 && (await refreshTokens())) {
    response = await send(method, path, { ...options, token: session.access });
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

export async function getJson(path, options) {
  return (await call('GET', path, options)).json();
}

export async function postJson(path, json, options = {}) {
  const response = await call('POST', path, { ...options, json });
  return response.status === 204 ? null : response.json();
}

export async function patchJson(path, json, options = {}) {
  return (await call('PATCH', path, { ...options, json })).json();
}

export async function postForm(path, form, options = {}) {
  return (await call('POST', path, { ...options, form })).json();
}

/**
 * Signs in with e-mail and password, from a device the service may know by `deviceToken`; resolves
 * to the user and the device token the service hands out for next time.
 */
export async function signIn(email, password, deviceToken = null) {
  const json = deviceToken ? { email, password, device_token: deviceToken } : { email, password };
  const response = await send('POST', '/api/auth/login', { json });
  if (!response.ok) throw await errorOf(response);
  const body = await response.json();
  return { user: adopt(body), deviceToken: body.device_token ?? null };
}

/** Asks for a wallet's SIWE challenge: `{nonce, message, expires_at}`. */
export async function walletChallenge(address) {
  const response = await send('POST', '/api/auth/wallet/nonce', { json: { wallet_address: address } });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

/** Signs in with a signed SIWE message; resolves to the user. */
export async function walletSignIn(address, signature, message) {
  const response = await send('POST', '/api/auth/wallet', {
    json: { wallet_address: address, signature, message },
  });
  if (!response.ok) throw await errorOf(response);
  return adopt(await response.json());
}

/** Signs out everywhere the service says sign-out reaches, and forgets the tokens either way. */
export async function signOut() {
  if (!session) return;
  const { access, refresh } = session;
  setSession(null);
  try {
    await send('POST', '/api/auth/logout', { json: { refresh_token: refresh }, token: access });
  } catch {
    // Already forgotten here; the refresh token expires on its own.
  }
}

/**
 * Posts `json` to an endpoint that answers Server-Sent Events (`stream: true`) and hands each
 * event `{type, data}` to `onEvent`. Resolves when the stream ends.
 */
export async function postStream(path, json, onEvent, options = {}) {
  return readStream('POST', path, onEvent, { ...options, json });
}

/** Follows an event stream (`GET …/events`), handing each event `{type, data}` to `onEvent`. */
export async function getStream(path, onEvent, options = {}) {
  return readStream('GET', path, onEvent, options);
}

/**
 * EventSource cannot send the Authorization header, so a stream is read with fetch and a reader.
 * Resolves when the stream ends.
 */
async function readStream(method, path, onEvent, options) {
  const response = await call(method, path, options);
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream')) {
    // The service answered at once (an error it found before starting): hand it over as one event.
    onEvent({ type: 'completed', data: await response.json() });
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const event = parseFrame(frame);
      if (event) await onEvent(event);
    }
  }
}

/** One SSE frame's `event:` and JSON `data:` lines; comments (keep-alives) give nothing. */
function parseFrame(frame) {
  let name = 'message';
  const data = [];
  for (const line of frame.split(/\r?\n/)) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return null;
  try {
    const payload = JSON.parse(data.join('\n'));
    return { type: payload.type ?? name, data: payload.data ?? payload };
  } catch {
    return null;
  }
}
