// The way to the server: HTTP calls with the access token (refreshed when it ends), the
// sign-in grant and its refresh credential, and the WebSocket, opened with a single-use ticket
// so no token ever sits in a URL (Chromium prints a failed socket's URL in the console).

import { $, state } from "./state.js";
import { notice, sentence } from "./ui.js";

// What the other modules do with what arrives; set by main.js (no import cycle).
export const hooks = { receive: () => {}, signedOut: () => {}, connection: () => {} };

/// A request that never got an answer (the network, the server down): said for a guest, not
/// as the browser's "Failed to fetch".
export const UNREACHABLE = "The hotel cannot be reached just now. Check your connection and try again.";

export async function api(method, path, body, headers = {}, retried = false) {
  let response;
  try {
    response = await fetch("/api/v1" + path, {
      method,
      headers: {
        ...(body ? { "Content-Type": "application/json" } : {}),
        ...(state.token ? { Authorization: "Bearer " + state.token } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (e) {
    const error = new Error(UNREACHABLE);
    error.status = 0;
    throw error;
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (response.status === 401 && data && data.error && data.error.code === "token_expired" && !retried && state.refresh) {
    // The short-lived token ran out: refresh it once and ask again.
    if (await refreshToken()) return api(method, path, body, headers, true);
  }
  if (!response.ok) {
    const error = new Error(sentence((data && data.error && data.error.message) || `The hotel answered ${response.status} ${response.statusText}`));
    error.code = data && data.error && data.error.code;
    error.status = response.status;
    throw error;
  }
  return data;
}

// A sign-in answers an access token (an hour) and this device's refresh credential, kept in
// localStorage: the client refreshes before the token ends and at every start, so a guest comes
// back as the same avatar after a week away or a browser restart.

/// This browser's device key, made once and kept through sign-outs: the lounge rates no game
/// between two accounts that signed in with one key (docs/protocol.md, Ratings).
export function deviceKey() {
  let key = localStorage.getItem("lounge.device_key");
  if (!key || !/^[A-Za-z0-9_-]{16,128}$/.test(key)) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    key = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("lounge.device_key", key);
  }
  return key;
}

/// Keeps a grant (`{token, expires_in, refresh, user}`) and plans the next refresh.
export function adopt(answer) {
  state.token = answer.token;
  state.user = answer.user;
  state.refresh = answer.refresh;
  localStorage.setItem("lounge.token", answer.token);
  localStorage.setItem("lounge.user", JSON.stringify(answer.user));
  localStorage.setItem("lounge.refresh", answer.refresh);
  clearTimeout(state.refreshTimer);
  // At four fifths of its life, so a slow network still beats the end.
  state.refreshTimer = setTimeout(refreshToken, answer.expires_in * 800);
}

/// Takes the grant another tab of this browser stored: true when there is a newer one than
/// `spent`.
function adoptStored(spent) {
  const refresh = localStorage.getItem("lounge.refresh");
  const token = localStorage.getItem("lounge.token");
  if (!refresh || refresh === spent || !token) return false;
  state.refresh = refresh;
  state.token = token;
  state.user = JSON.parse(localStorage.getItem("lounge.user") || "null") || state.user;
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(refreshToken, 60000);
  return true;
}

/// Exchanges the refresh credential for a new token and credential; false (signed out) when it
/// is refused. The tabs of one browser share the credential, and presenting a spent one signs
/// the device out: so one tab refreshes at a time (a mark in localStorage, no Web Locks, which
/// need a secure origin), and a tab that finds the credential already renewed takes the
/// other's grant instead.
export async function refreshToken() {
  await new Promise((done) => setTimeout(done, Math.random() * 200));
  let refresh = localStorage.getItem("lounge.refresh");
  if (!refresh) return false;
  const busy = Number(localStorage.getItem("lounge.refreshing") || 0);
  if (busy > Date.now()) {
    await new Promise((done) => setTimeout(done, Math.min(5000, busy - Date.now()) + 100));
    if (adoptStored(refresh)) return true;
    refresh = localStorage.getItem("lounge.refresh");
    if (!refresh) return false;
  }
  localStorage.setItem("lounge.refreshing", String(Date.now() + 5000));
  try {
    const response = await fetch("/api/v1/auth/refresh", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ refresh }),
    });
    if (response.ok) {
      adopt(await response.json());
      return true;
    }
    if (response.status === 401) {
      if (adoptStored(refresh)) return true;
      signOut("Your session ended: sign in again.");
      return false;
    }
  } catch (e) {
    // Offline: try again in a while, with the token we hold.
  } finally {
    localStorage.removeItem("lounge.refreshing");
  }
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(refreshToken, 30000);
  return Boolean(state.token);
}

/// Forgets this browser's grant and shows the sign-in card with `text`.
export function signOut(text) {
  localStorage.removeItem("lounge.token");
  localStorage.removeItem("lounge.user");
  localStorage.removeItem("lounge.refresh");
  clearTimeout(state.refreshTimer);
  clearTimeout(state.retryTimer);
  state.refresh = null;
  state.token = null;
  state.replaced = false;
  state.online = false;
  state.pending = null;
  const ws = state.ws;
  state.ws = null;
  if (ws) ws.close();
  hooks.signedOut();
  $("signin-error").textContent = text;
}

/// Opens the socket and enters `room` (its snapshot brings the tables, games, seats and chat
/// back). A refused ticket or token signs out; anything else retries, slower each time.
export async function connect(room) {
  clearTimeout(state.retryTimer);
  let ticket;
  try {
    ticket = (await api("POST", "/auth/ws-ticket")).ticket;
  } catch (e) {
    if (e.status === 401) return signOut("Your session ended: sign in again.");
    if (e.code === "banned") return signOut(e.message);
    return retry(room);
  }
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // `lounge.batch`: several messages may come in one frame, as a JSON array; this client
  // reads those (a client that does not ask gets one object a frame).
  const ws = new WebSocket(`${scheme}://${location.host}/ws?ticket=${encodeURIComponent(ticket)}`, ["lounge.batch"]);
  state.ws = ws;
  ws.onopen = () => {
    state.retries = 0;
    // A new socket: tries of `enter` on the old one are over.
    clearTimeout(state.enterTimer);
    state.enterTries = 0;
    enter(room);
  };
  // A socket this client has moved on from says nothing more. A frame holds one message, or
  // several sent together as a JSON array (oldest first).
  ws.onmessage = (event) => {
    const data = JSON.parse(event.data);
    for (const m of Array.isArray(data) ? data : [data]) {
      if (state.ws === ws) hooks.receive(m);
    }
  };
  ws.onclose = (event) => {
    if (state.ws !== ws) return;
    if (state.online) state.offlineAt = Date.now() + state.offset;
    state.online = false;
    // A move sent and not answered may or may not have arrived: kept, to be sent again with
    // the version it was made at once the room's snapshot says it did not.
    if (state.moving && state.sent) state.pending = state.sent;
    state.moving = false;
    hooks.connection();
    if (state.replaced) return;
    // Closed on purpose (flooding, a ban): the reason says which, and no retry helps.
    if (event.code === 1008) return notice(`Disconnected: ${event.reason || "too many messages"}.`, { ms: 0 });
    retry(state.room ? state.room.id : room);
  };
}

function retry(room) {
  if (state.closing) {
    // A server restarting said so first: its rooms are already moving to another, and
    // coming back at once (spread a little, not all in the same instant) finds them there.
    state.closing = false;
    clearTimeout(state.retryTimer);
    state.retryTimer = setTimeout(() => { if (state.token) connect(room); }, 200 + Math.random() * 600);
    return;
  }
  const wait = Math.min(30000, 1500 * 2 ** state.retries);
  state.retries += 1;
  state.retryAt = Date.now() + wait;
  notice(`Connection lost; reconnecting in ${Math.round(wait / 1000)} s…`, { ms: wait });
  clearTimeout(state.retryTimer);
  state.retryTimer = setTimeout(() => { if (state.token) connect(room); }, wait);
  hooks.connection();
}

/// Sends `message` on the open socket; false (nothing sent) while there is none.
export function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) {
    message.ref = ++state.ref;
    state.ws.send(JSON.stringify(message));
    return true;
  }
  return false;
}

/// Goes to another room on the open socket (the room answers with its snapshot).
export function enter(room) {
  state.entering = room;
  // Not connected yet (a tab opened at a link to a game): the connection enters it.
  if (!state.ws) return void connect(room);
  send({ type: "enter", room });
}
