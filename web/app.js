// The hotel web client: the reference client of the lounge protocol (docs in README.md).
"use strict";

const $ = (id) => document.getElementById(id);
const LEVELS = ["easy", "normal", "champion"];
const STEP_MS = 110;
// How a table's matches may be played (`set_match`, `play_house`): the values the server reads.
const CLOCKS = [
  ["none", "No clock"],
  ["60s", "1 min a move"],
  ["5m", "5 min a move"],
  ["1h", "1 hour a move"],
  ["1d", "1 day a move"],
  ["3+2", "3 + 2"],
  ["5+0", "5 + 0"],
  ["10+5", "10 + 5"],
];
const BEST_OF = [1, 3, 5, 7];
// Table events: each carries the table's version after it.
const VERSIONED = ["table", "game_started", "game_state", "game_over", "match_state", "match_over"];

const state = {
  token: localStorage.getItem("lounge.token"),
  refresh: localStorage.getItem("lounge.refresh"),
  refreshTimer: null,
  user: JSON.parse(localStorage.getItem("lounge.user") || "null"),
  ws: null,
  room: null,          // {id, name, kind, owner}
  occupants: new Map(), // id -> user
  tables: new Map(),   // id -> table view
  watching: null,      // table id shown on the board
  shown: null,         // the state the board shows (may lag during an animation)
  animation: null,     // {skip} while sowing is shown
  preview: null,
  ref: 0,
  retries: 0,
  replaced: false,
  moving: false,       // a move sent, its answer not yet here
  choices: {},         // table id -> {level, invitee, clock, best_of}: kept across redraws
  offsets: [],         // recent (server_time - local time) samples
  offset: 0,           // the server's clock minus ours: the largest recent sample (the least delayed)
  lastRoom: localStorage.getItem("lounge.room") || "surulere-games-lounge",
  blocked: new Set(),  // user ids this guest blocks (civility)
};

// ---- HTTP -----------------------------------------------------------------------------------

async function api(method, path, body, headers = {}, retried = false) {
  const response = await fetch("/api/v1" + path, {
    method,
    headers: {
      ...(body ? { "Content-Type": "application/json" } : {}),
      ...(state.token ? { Authorization: "Bearer " + state.token } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (response.status === 401 && data && data.error && data.error.code === "token_expired" && !retried && state.refresh) {
    // The short-lived token ran out: refresh it once and ask again.
    if (await refreshToken()) return api(method, path, body, headers, true);
  }
  if (!response.ok) {
    const error = new Error((data && data.error && data.error.message) || response.statusText);
    error.code = data && data.error && data.error.code;
    error.status = response.status;
    throw error;
  }
  return data;
}

// ---- Sign in and the socket -------------------------------------------------------------------

// A sign-in answers an access token (an hour) and this device's refresh credential, kept in
// localStorage: the client refreshes before the token ends and at every start, so a guest comes
// back as the same avatar after a week away or a browser restart.

/// Keeps a grant (`{token, expires_in, refresh, user}`) and plans the next refresh.
function adopt(answer) {
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
async function refreshToken() {
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

$("signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("signin-error").textContent = "";
  try {
    adopt(await api("POST", "/auth/guest", { name: $("name").value }));
    start();
  } catch (e) {
    $("signin-error").textContent = e.message;
  }
});

$("password-signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("signin-error").textContent = "";
  try {
    adopt(await api("POST", "/auth/sign-in", { name: $("signin-name").value, password: $("signin-password").value }));
    $("signin-password").value = "";
    start();
  } catch (e) {
    $("signin-error").textContent = e.message;
  }
});

function start() {
  loadBlocks();
  $("signin").hidden = true;
  $("nav").hidden = false;
  $("lounge").hidden = false;
  $("me").textContent = state.user.name;
  connect(state.lastRoom);
}

function signOut(text) {
  localStorage.removeItem("lounge.token");
  localStorage.removeItem("lounge.user");
  localStorage.removeItem("lounge.refresh");
  clearTimeout(state.refreshTimer);
  state.refresh = null;
  state.token = null;
  state.ws = null;
  $("nav").hidden = true;
  $("lounge").hidden = true;
  $("shop").hidden = true;
  $("signin").hidden = false;
  $("signin-error").textContent = text;
}

function connect(room) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws?token=${encodeURIComponent(state.token)}`);
  state.ws = ws;
  let opened = false;
  ws.onopen = () => {
    opened = true;
    state.retries = 0;
    send({ type: "enter", room });
  };
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = async (event) => {
    if (state.ws !== ws) return;
    if (state.replaced) return;
    // Closed on purpose (flooding, a ban): the reason says which, and no retry helps.
    if (event.code === 1008) return notice(`Disconnected: ${event.reason || "too many messages"}.`);
    if (!opened) {
      // Refused before the upgrade: an expired token is refreshed (api does it); a refused
      // refresh or an unknown user signs out.
      try {
        await api("GET", "/me");
      } catch (e) {
        if (e.status === 401) return signOut("Your session ended: sign in again.");
        if (e.code === "banned") return signOut(e.message);
      }
    }
    const wait = Math.min(30000, 1500 * 2 ** state.retries);
    state.retries += 1;
    notice(`Connection lost; reconnecting in ${Math.round(wait / 1000)} s…`);
    setTimeout(() => connect(state.room ? state.room.id : room), wait);
  };
}

function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) {
    message.ref = ++state.ref;
    state.ws.send(JSON.stringify(message));
  }
}

function notice(text) {
  $("notice").textContent = text;
}

// ---- What the server says ---------------------------------------------------------------------

/// A table event that is not newer than what the client holds is old news (a move sent
/// again gets its answer again): dropped. One that skips versions asks for what was missed.
function fresh(m) {
  const table = state.tables.get(m.table || m.id);
  if (!table || typeof m.version !== "number") return true;
  if (m.version <= table.version) return false;
  if (m.version > table.version + 1) {
    send({ type: "sync", table: table.id, version: table.version });
    return false;
  }
  return true;
}

/// The server's clock now, in milliseconds since 1970, as far as we can tell.
function serverNow() {
  return Date.now() + state.offset;
}

/// A server time seen in a message: the clock offset is the largest of the recent samples
/// (a message only ever arrives later than it was sent, never earlier).
function noteServerTime(serverTime) {
  if (typeof serverTime !== "number") return;
  state.offsets.push(serverTime - Date.now());
  if (state.offsets.length > 16) state.offsets.shift();
  state.offset = Math.max(...state.offsets);
}

function receive(m) {
  if (VERSIONED.includes(m.type) && !fresh(m)) return;
  noteServerTime(m.server_time);
  if (m.clock) noteServerTime(m.clock.server_time);
  switch (m.type) {
    case "replaced":
      state.replaced = true;
      notice("You opened the lounge somewhere else.");
      $("invitations").replaceChildren(button("Use it here", () => {
        state.replaced = false;
        $("invitations").replaceChildren();
        connect(state.room ? state.room.id : state.lastRoom);
      }));
      break;
    case "server_closing":
      notice("The lounge is restarting; back in a moment…");
      break;
    case "missed":
      if (m.resync && m.snapshot) {
        state.tables.set(m.table, m.snapshot);
        renderTables();
        if (m.table === state.watching) showBoard();
        noteServerTime(m.snapshot.server_time);
      } else {
        for (const event of m.events) receive(event);
      }
      break;
    case "welcome":
      state.user = m.user;
      break;
    case "room":
      if (!state.room || state.room.id !== m.room.id) $("chat").replaceChildren();
      state.room = m.room;
      state.lastRoom = m.room.id;
      localStorage.setItem("lounge.room", m.room.id);
      state.occupants = new Map(m.occupants.map((u) => [u.id, u]));
      state.tables = new Map(m.tables.map((t) => [t.id, t]));
      for (const t of m.tables) noteServerTime(t.server_time);
      state.moving = false;
      $("room-name").textContent = m.room.name;
      showSlowMode(m.slow_mode);
      $("shop").hidden = true;
      $("lounge").hidden = false;
      $("invitations").replaceChildren();
      notice("");
      if (!state.tables.has(state.watching)) watch(null);
      renderRoom();
      break;
    case "room_changed":
      state.room = m.room;
      $("room-name").textContent = m.room.name;
      break;
    case "occupant_joined":
      state.occupants.set(m.user.id, m.user);
      renderOccupants();
      renderTables();
      break;
    case "occupant_left":
      state.occupants.delete(m.user.id);
      renderOccupants();
      renderTables();
      break;
    case "table":
      state.tables.set(m.id, m);
      renderTables();
      if (m.id === state.watching && !state.animation) showBoard();
      break;
    case "table_removed":
      state.tables.delete(m.table);
      if (state.watching === m.table) watch(null);
      renderTables();
      break;
    case "game_started": {
      const table = state.tables.get(m.table);
      if (table) {
        table.game = { id: m.game_id, players: m.players, state: m.state, clock: m.clock, number: m.match ? m.match.game : 1 };
        table.match = m.match || table.match;
        table.version = m.version;
      }
      dropDrawOffer(m.table);
      const mine = [m.players.south.id, m.players.north.id].includes(state.user.id);
      if (mine || !state.watching) watch(m.table);
      renderTables();
      if (m.table === state.watching) {
        $("result").textContent = "";
        showBoard();
      }
      break;
    }
    case "game_state": {
      const table = state.tables.get(m.table);
      if (!table || !table.game) break;
      const before = table.game.state;
      table.game.state = m.state;
      table.game.clock = m.clock;
      table.version = m.version;
      if (m.last_move.seat === mySeat(table)) state.moving = false;
      dropDrawOffer(m.table);
      if (m.table === state.watching) animate(before, m);
      break;
    }
    case "game_over": {
      const table = state.tables.get(m.table);
      if (table && table.game) {
        table.game.state = m.state;
        table.game.clock = m.clock;
      }
      if (table) {
        table.version = m.version;
        if (m.match) table.match = m.match;
      }
      state.moving = false;
      dropDrawOffer(m.table);
      if (m.table === state.watching) {
        const finish = () => {
          showBoard();
          $("result").textContent = resultText(m);
        };
        if (state.animation) state.animation.then = finish; else finish();
      }
      renderTables();
      break;
    }
    case "match_state": {
      // Between games: a start pressed, a game lost by not pressing it, the wait begun.
      const table = state.tables.get(m.table);
      if (!table) break;
      table.match = m.match;
      table.version = m.version;
      renderTables();
      if (m.table === state.watching && !state.animation) showBoard();
      break;
    }
    case "match_over": {
      const table = state.tables.get(m.table);
      if (!table) break;
      table.match = m.match;
      table.version = m.version;
      dropDrawOffer(m.table);
      renderTables();
      // The board shows the result once the last sowing has been shown.
      if (m.table === state.watching && !state.animation) showBoard();
      break;
    }
    case "rematch_offered":
      notice(`${m.from.name} wants a rematch.`);
      if (m.table === state.watching && !state.animation) showBoard();
      break;
    case "invitation":
      showInvitation(m);
      break;
    case "invitation_sent":
      notice("Invitation sent.");
      break;
    case "invitation_declined":
      notice("The invitation was declined.");
      $("invitations").querySelector(`[data-id="${m.id}"]`)?.remove();
      break;
    case "invitation_expired":
      $("invitations").querySelector(`[data-id="${m.id}"]`)?.remove();
      notice({
        settings_changed: "An invitation was withdrawn: the host chose other match settings.",
        withdrawn: "An invitation was withdrawn: the host stood up.",
        table_changed: "An invitation was withdrawn: the table changed.",
      }[m.reason] || "An invitation expired.");
      break;
    case "draw_offered":
      showDrawOffer(m);
      break;
    case "draw_declined":
      notice(m.scope === "match" ? "The offer to draw the match was declined." : "The draw offer was declined.");
      break;
    case "chat": {
      const li = document.createElement("li");
      li.textContent = `${m.user.name}: ${m.text}`;
      li.dataset.line = m.id;
      $("chat").appendChild(li);
      $("chat").scrollTop = $("chat").scrollHeight;
      break;
    }
    // Civility: what moderation looks like to a guest.
    case "chat_removed":
      $("chat").querySelector(`[data-line="${m.id}"]`)?.remove();
      break;
    case "slow_mode":
      showSlowMode(m);
      break;
    case "muted":
      moderation(m.until
        ? `You are muted until ${timeOf(m.until)}${m.reason ? ": " + m.reason : ""}.`
        : "You may chat again.");
      break;
    case "put_out":
      moderation(`You were put out of ${state.room ? state.room.name : "the room"}${m.reason ? ": " + m.reason : ""}. You may come back at ${timeOf(m.until)}.`);
      state.room = null;
      state.occupants = new Map();
      state.tables = new Map();
      watch(null);
      $("lounge").hidden = true;
      break;
    case "room_closing":
      notice("This room is closing after the games in play.");
      break;
    case "room_closed":
      notice("This room has closed.");
      state.tables = new Map();
      watch(null);
      connectTo(m.room === "surulere-games-lounge" ? "gist-lounge" : "surulere-games-lounge");
      break;
    case "error":
      // Every refusal says why in words (bad_settings, not_between_games, time_out,
      // no_rematch, rematch_void, ...): shown as it comes.
      state.moving = false;
      notice(m.message);
      // A refused choice (bad_settings, ...) shows the table's settings again.
      renderTables();
      if (state.watching && !state.animation) showBoard();
      break;
  }
}

function resultText(m) {
  const game = state.tables.get(m.table)?.game;
  if (m.result === "draw") return `Draw (${m.reason.replace(/_/g, " ")})`;
  const winner = m.result === "south_won" ? game?.players.south : game?.players.north;
  const who = winner && winner.id === state.user.id ? "You win" : `${winner ? winner.name : "?"} wins`;
  return `${who} (${m.reason.replace(/_/g, " ")}) ${m.state.stores[0]}–${m.state.stores[1]}${wallText(m.wall)}`;
}

// Why a win is not on today's champions wall, in the guest's words.
const NOT_ON_THE_WALL = {
  house: "games against Baba Ayo go on the house board",
  too_few_moves: "too few moves were played",
  new_account: "the winner's account is too new",
  new_opponent: "the loser's account is too new",
  per_opponent_cap: "enough wins over this opponent today",
};

function wallText(wall) {
  if (!wall) return "";
  if (wall.counts) return " · counts for today's champions";
  const why = NOT_ON_THE_WALL[wall.reason];
  return why ? ` · not on the champions wall: ${why}` : "";
}

// ---- The room ---------------------------------------------------------------------------------

function connectTo(room) {
  send({ type: "enter", room });
}

document.querySelectorAll("button.go[data-room]").forEach((b) =>
  b.addEventListener("click", () => connectTo(b.dataset.room)));
$("go-home").addEventListener("click", () => connectTo("apartment-" + state.user.id));

function renderRoom() {
  renderOccupants();
  renderTables();
  showBoard();
}

function renderOccupants() {
  const list = $("occupants");
  list.replaceChildren(...[...state.occupants.values()].map((u) => {
    const li = document.createElement("li");
    li.dataset.user = u.id;
    const name = document.createElement("span");
    name.textContent = u.name + (u.id === state.user.id ? " (you)" : "");
    li.appendChild(name);
    if (u.id !== state.user.id && !u.house) {
      li.appendChild(button("Invite home", async () => {
        try {
          await api("POST", "/me/apartment/guests", { user: u.id });
          notice(`${u.name} may now visit your apartment.`);
        } catch (e) { notice(e.message); }
      }));
      li.appendChild(button("Visit", () => connectTo("apartment-" + u.id)));
      const blocked = state.blocked.has(u.id);
      li.appendChild(button(blocked ? "Unblock" : "Block", async () => {
        try {
          await api(blocked ? "DELETE" : "PUT", "/me/blocks/" + encodeURIComponent(u.id));
          if (blocked) state.blocked.delete(u.id); else state.blocked.add(u.id);
          notice(blocked ? `${u.name} is no longer blocked.` : `${u.name} is blocked: you will not see their lines or invitations.`);
          renderOccupants();
        } catch (e) { notice(e.message); }
      }, blocked ? "unblock" : "block"));
    }
    return li;
  }));
}

// ---- Civility ----------------------------------------------------------------------------------

/// A server time (ms) as the guest's clock shows it.
function timeOf(ms) {
  return new Date(ms - state.offset).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/// A moderation notice stays until the next one (room changes do not clear it).
function moderation(text) {
  $("moderation").textContent = text;
  $("moderation").hidden = !text;
}

function showSlowMode(slow) {
  const on = slow && slow.seconds > 0;
  $("slow-mode").hidden = !on;
  if (on) {
    $("slow-mode").textContent = `Slow mode: one line every ${slow.seconds} s` +
      (slow.auto ? ` (the room is busy, until ${timeOf(slow.until)})` : "");
  }
}

async function loadBlocks() {
  try {
    const answer = await api("GET", "/me/blocks");
    state.blocked = new Set(answer.blocks.map((u) => u.id));
    renderOccupants();
  } catch (e) { /* the room works without: blocks are kept by the server */ }
}

function button(text, onClick, testid) {
  const b = document.createElement("button");
  b.textContent = text;
  b.addEventListener("click", onClick);
  if (testid) b.dataset.testid = testid;
  return b;
}

/// The viewer's seat: in the game on the table (its players stay after they stand up), or
/// at the table.
function mySeat(table) {
  const players = table.game && table.game.players;
  if (players) {
    if (players.south.id === state.user.id) return "south";
    if (players.north.id === state.user.id) return "north";
    if (table.game.state.status === "playing") return null;
  }
  if (table.seats.south && table.seats.south.id === state.user.id) return "south";
  if (table.seats.north && table.seats.north.id === state.user.id) return "north";
  return null;
}

/// Where the viewer sits at the table now (nowhere once a game is over and they stood up).
function seatAt(table) {
  if (table.seats.south && table.seats.south.id === state.user.id) return "south";
  if (table.seats.north && table.seats.north.id === state.user.id) return "north";
  return null;
}

function renderTables() {
  const tables = [...state.tables.values()];
  $("tables").replaceChildren(...tables.map((t, i) => {
    const div = document.createElement("div");
    div.className = "table" + (t.id === state.watching ? " watching" : "");
    div.dataset.table = t.id;
    const h = document.createElement("h4");
    h.textContent = `Table ${i + 1} · ${t.rules.preset}`;
    div.appendChild(h);
    const seat = seatAt(t);
    const playing = t.game && t.game.state.status === "playing";
    const inPlay = playing || matchInPlay(t);
    const how = document.createElement("div");
    how.className = "how";
    how.dataset.testid = "table-match";
    how.textContent = tableMatchText(t);
    if (how.textContent) div.appendChild(how);
    for (const side of ["south", "north"]) {
      const row = document.createElement("div");
      row.className = "seat";
      const who = t.seats[side];
      const label = document.createElement("span");
      label.textContent = `${side}: ${who ? who.name : "free"}`;
      row.appendChild(label);
      if (!who && !seat && !inPlay) row.appendChild(button("Sit", () => send({ type: "sit", table: t.id, seat: side }), `sit-${side}`));
      div.appendChild(row);
    }
    const controls = document.createElement("div");
    controls.className = "controls";
    const other = seat && t.seats[seat === "south" ? "north" : "south"];
    // The host (seated, nobody opposite, no match in play) chooses how the table plays; at a
    // free table the same choice goes with a game against Baba Ayo.
    const host = seat && !other && !inPlay;
    const house = !inPlay && (!t.seats.south || seat) && (!t.seats.north || seat) && !(t.seats.south && t.seats.north);
    let clock, bestOf;
    if (host || house) {
      [clock, bestOf] = matchChoice(t, host);
      const form = document.createElement("div");
      form.className = "match-form";
      form.append(clock, bestOf);
      controls.appendChild(form);
    }
    if (seat && !inPlay) {
      if (!other) {
        const pick = document.createElement("select");
        pick.setAttribute("aria-label", "Invite someone in the room");
        pick.dataset.testid = "invite-who";
        for (const u of state.occupants.values()) {
          if (u.id === state.user.id) continue;
          const o = document.createElement("option");
          o.value = u.id;
          o.textContent = u.name;
          pick.appendChild(o);
        }
        remember(pick, t.id, "invitee");
        controls.appendChild(pick);
        controls.appendChild(button("Invite", () => pick.value && send({ type: "invite", table: t.id, user: pick.value }), "invite"));
      }
      controls.appendChild(button("Stand up", () => send({ type: "stand", table: t.id })));
    }
    if (house) {
      const level = document.createElement("select");
      level.setAttribute("aria-label", "Baba Ayo's level");
      level.dataset.testid = "house-level";
      for (const l of LEVELS) {
        const o = document.createElement("option");
        o.value = l;
        o.textContent = l;
        level.appendChild(o);
      }
      remember(level, t.id, "level");
      controls.appendChild(level);
      controls.appendChild(button("Play Baba Ayo", () => send({
        type: "play_house", table: t.id, level: level.value, clock: clock.value, best_of: Number(bestOf.value),
      }), "play-house"));
    }
    if (t.game) controls.appendChild(button(t.id === state.watching ? "Watching" : "Watch", () => watch(t.id)));
    div.appendChild(controls);
    return div;
  }));
}

/// A match at the table not over yet (a game of it in play, or the next one awaited).
function matchInPlay(table) {
  return !!(table.match && table.match.status !== "over");
}

/// The clock and best-of selects of a table card. The host's show the table's settings and
/// change them (`set_match`); otherwise they are the viewer's choice for Baba Ayo.
function matchChoice(t, host) {
  const choices = (state.choices[t.id] = state.choices[t.id] || {});
  const clock = document.createElement("select");
  clock.setAttribute("aria-label", "Clock");
  clock.dataset.testid = "match-clock";
  for (const [value, label] of CLOCKS) clock.appendChild(option(value, label));
  const bestOf = document.createElement("select");
  bestOf.setAttribute("aria-label", "Games in the match");
  bestOf.dataset.testid = "match-best-of";
  for (const n of BEST_OF) bestOf.appendChild(option(String(n), n === 1 ? "one game" : `best of ${n}`));
  let [clockValue, bestOfValue] = [choices.clock || "none", choices.best_of || "1"];
  if (host && t.settings) {
    clockValue = clockWord(t.settings.clock);
    bestOfValue = String(t.settings.best_of);
  }
  // A clock set elsewhere that the list has not got (another client's "90s").
  if (![...clock.options].some((o) => o.value === clockValue)) clock.appendChild(option(clockValue, controlText(parseClock(clockValue))));
  clock.value = clockValue;
  bestOf.value = bestOfValue;
  const changed = () => {
    choices.clock = clock.value;
    choices.best_of = bestOf.value;
    if (host) send({ type: "set_match", table: t.id, clock: clock.value, best_of: Number(bestOf.value) });
  };
  clock.addEventListener("change", changed);
  bestOf.addEventListener("change", changed);
  return [clock, bestOf];
}

function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

/// A time control as the server writes one (`{"kind": "game", "minutes": 3, ...}`) from the
/// word a client sends (`"3+2"`), and back.
function parseClock(word) {
  if (!word || word === "none") return { kind: "none" };
  const plus = word.match(/^(\d+)\+(\d+)$/);
  if (plus) return { kind: "game", minutes: Number(plus[1]), increment_seconds: Number(plus[2]) };
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[word.slice(-1)];
  return { kind: "per_move", seconds: Number(word.slice(0, -1)) * (unit || 1) };
}

function clockWord(control) {
  if (!control || control.kind === "none") return "none";
  if (control.kind === "game") return `${control.minutes}+${control.increment_seconds}`;
  const known = CLOCKS.find(([value]) => {
    const c = parseClock(value);
    return c.kind === "per_move" && c.seconds === control.seconds;
  });
  return known ? known[0] : `${control.seconds}s`;
}

/// "3 + 2", "90 s a move", "no clock".
function controlText(control) {
  if (!control || control.kind === "none") return "no clock";
  if (control.kind === "game") return `${control.minutes} + ${control.increment_seconds}`;
  const s = control.seconds;
  if (s % 86400 === 0) return `${s / 86400} day${s > 86400 ? "s" : ""} a move`;
  if (s % 3600 === 0) return `${s / 3600} hour${s > 3600 ? "s" : ""} a move`;
  if (s % 60 === 0) return `${s / 60} min a move`;
  return `${s} s a move`;
}

function bestOfText(n) {
  return n > 1 ? `best of ${n}` : "one game";
}

/// The card's line on how the table plays: the match in play (with its score), the host's
/// settings for the next, or at a free table how the last series ended (settings go back to
/// none / one game when someone sits there).
function tableMatchText(t) {
  const m = t.match;
  if (matchInPlay(t)) {
    const text = `${controlText(m.clock)} · ${bestOfText(m.best_of)}`;
    return m.best_of > 1 ? `${text} · ${scoreText(m)}` : text;
  }
  if (t.seats.south || t.seats.north) {
    const settings = t.settings || { clock: { kind: "none" }, best_of: 1 };
    return `${controlText(settings.clock)} · ${bestOfText(settings.best_of)}`;
  }
  if (m && m.best_of > 1) return `Last match: ${scoreText(m)}`;
  return "";
}

/// Half points as people write them: 1½, ½, 2.
function points(p) {
  const whole = Math.floor(p);
  const half = p - whole >= 0.5;
  return half ? (whole ? `${whole}½` : "½") : String(whole);
}

/// "Ade 1½ – ½ Bisi".
function scoreText(m) {
  return `${m.players[0].name} ${points(m.points[0])} – ${points(m.points[1])} ${m.players[1].name}`;
}

/// Keeps a select's choice across redraws.
function remember(select, table, key) {
  const choices = (state.choices[table] = state.choices[table] || {});
  if (choices[key] && [...select.options].some((o) => o.value === choices[key])) select.value = choices[key];
  select.addEventListener("change", () => { choices[key] = select.value; });
}

function watch(tableId) {
  state.watching = tableId;
  state.animation = null;
  $("result").textContent = "";
  showBoard();
  renderTables();
}

// ---- The board --------------------------------------------------------------------------------

// From the viewer's side: their row along the bottom (pits 1-6 left to right, the way seeds
// go), the other row along the top the other way round, their store on their right.
function showBoard(pits) {
  const table = state.tables.get(state.watching);
  const game = table && table.game;
  $("game").hidden = !game;
  if (!game) return;
  $("game").dataset.table = table.id;
  $("game").dataset.game = game.id;
  const s = game.state;
  pits = pits || s.pits;
  const seat = mySeat(table);
  const me = seat || "south";
  const them = me === "south" ? "north" : "south";
  const mine = me === "south" ? 0 : 6;
  const theirs = me === "south" ? 6 : 0;
  const myTurn = seat && s.status === "playing" && s.to_move === seat && !state.animation && !state.moving;
  const board = $("board");
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.pit : undefined;
  const cells = [];
  const store = (side) => {
    const d = document.createElement("div");
    d.className = "store";
    d.dataset.testid = `store-${side}`;
    d.textContent = s.stores[side === "south" ? 0 : 1];
    return d;
  };
  const theirStore = store(them);
  theirStore.style.gridColumn = "1";
  cells.push(theirStore);
  for (let k = 5; k >= 0; k--) cells.push(pit(theirs + k, k + 1, pits, false, 1, 7 - k));
  for (let k = 0; k < 6; k++) cells.push(pit(mine + k, k + 1, pits, myTurn && s.legal.includes(k + 1), 2, k + 2));
  const myStore = store(me);
  myStore.style.gridColumn = "8";
  myStore.style.gridRow = "1 / span 2";
  cells.push(myStore);
  board.replaceChildren(...cells);
  if (focused !== undefined) {
    const again = board.querySelector(`[data-pit="${focused}"]:not(:disabled)`);
    (again || board).focus();
  }
  const players = game.players;
  $("opponent").textContent = `${players[them].name}${players[them].house ? " (house)" : ""}`;
  $("myself").textContent = seat ? `You (${seat})` : `${players[me].name} (watching)`;
  $("turn").textContent = s.status === "playing"
    ? (myTurn ? "Your turn: pick a glowing pit or press 1–6" : `${players[s.to_move].name} to sow`)
    : "";
  $("clock-me").dataset.side = me;
  $("clock-them").dataset.side = them;
  showMatch(table, seat);
  tick();
}

/// The match around the board: the score, the buttons for a game and for the match, the wait
/// between games, the result, the rematch.
function showMatch(table, seat) {
  const game = table.game;
  const m = table.match;
  const series = m && m.best_of > 1;
  const playing = game.state.status === "playing";
  const mine = !!(m && seat && m.players.some((p) => p.id === state.user.id));
  const live = mine && m.status !== "over";
  // The score, best of N, game k; or only the clock of a single timed game.
  const timed = game.clock || (m && m.clock.kind !== "none");
  $("series-bar").hidden = !(series || timed);
  if (m) {
    const parts = [];
    if (series) parts.push(scoreText(m), bestOfText(m.best_of), m.status === "over" ? "final" : `game ${m.game}`);
    if (m.clock.kind !== "none") parts.push(controlText(m.clock));
    // Each part on one line when the bar wraps (a phone).
    $("series").replaceChildren(...parts.flatMap((part, i) => {
      const span = document.createElement("span");
      span.textContent = part;
      return i ? [" · ", span] : [span];
    }));
    $("series-games").textContent = series && m.games.length
      ? m.games.map((g) => `${g.number}: ${gameWinner(m, g)}`).join(" · ")
      : "";
  } else {
    $("series").textContent = game.clock ? controlText(game.clock.control) : "";
    $("series-games").textContent = "";
  }
  // Buttons: a game in play (the game's, and with a series the match's too), between games
  // only the match's.
  const between = live && m.status === "between_games";
  $("game-actions").hidden = !((seat && playing) || between);
  $("resign").hidden = !(seat && playing);
  $("offer-draw").hidden = !(seat && playing);
  $("resign").textContent = series ? "Resign game" : "Resign";
  $("offer-draw").textContent = series ? "Offer draw (game)" : "Offer a draw";
  $("resign-match").hidden = !(series && ((seat && playing) || between));
  $("offer-draw-match").hidden = !(series && ((seat && playing) || between));
  // Between games: who pressed start, and until when.
  $("between").hidden = !(m && m.status === "between_games" && m.between);
  if (!$("between").hidden) {
    const me = m.players.findIndex((p) => p.id === state.user.id);
    const pressed = me >= 0 && m.between.ready[me];
    $("start-game").hidden = !(live && me >= 0);
    $("start-game").disabled = pressed;
    $("start-game").textContent = pressed
      ? `Waiting for ${m.players[1 - me].name}`
      : `Start game ${m.game}`;
    $("between").dataset.deadline = String(m.between.deadline_ms);
  }
  // The match's result, once the last sowing is shown.
  const over = m && m.status === "over" && m.best_of > 1 && !state.animation;
  $("match-result").hidden = !over;
  $("match-result").textContent = over ? matchResultText(m) : "";
  // The rematch, for the last match's players while it is on offer.
  const r = table.rematch;
  const rematcher = r ? r.players.findIndex((p) => p.id === state.user.id) : -1;
  $("rematch-area").hidden = !(r && rematcher >= 0 && !state.animation && !matchInPlay(table));
  if (!$("rematch-area").hidden) {
    const other = r.players[1 - rematcher];
    $("rematch").disabled = r.pressed[rematcher];
    $("rematch").textContent = r.pressed[rematcher] ? `Waiting for ${other.name}` : "Rematch";
    $("rematch-area").dataset.deadline = String(r.deadline_ms);
    $("rematch-area").dataset.other = r.pressed[1 - rematcher] && !other.house ? `${other.name} wants a rematch` : "";
  }
}

const GAME_WINS = { resigned: " by resignation", timeout: " on time", not_started: " (not started)", abandoned: " (abandoned)" };

/// Who won a game of the match, and how: "Ade won on time", "draw".
function gameWinner(m, g) {
  if (g.result === "draw") return "draw";
  const id = g.result === "south_won" ? g.south : g.north;
  const who = m.players.find((p) => p.id === id);
  return `${who ? who.name : "?"} won${GAME_WINS[g.reason] || ""}`;
}

const MATCH_ENDS = {
  games: "",
  resigned: "resigned",
  agreed_draw: "agreed draw",
  no_start: "nobody started the next game",
  abandoned: "abandoned",
  called_off: "called off",
};

/// "Match: Baba Ayo wins 2–0 (resigned)", "Match drawn 1½–1½ (agreed draw)".
function matchResultText(m) {
  const why = MATCH_ENDS[m.end_reason] ?? String(m.end_reason || "").replace(/_/g, " ");
  const tail = why ? ` (${why})` : "";
  if (!m.winner) return `Match drawn ${points(m.points[0])}–${points(m.points[1])}${tail}`;
  const w = m.players.findIndex((p) => p.id === m.winner.id);
  const score = `${points(m.points[w])}–${points(m.points[1 - w])}`;
  const who = m.winner.id === state.user.id ? "You win the match" : `${m.winner.name} wins the match`;
  return `${who} ${score}${tail}`;
}

// ---- Clocks and countdowns ------------------------------------------------------------------

/// Milliseconds left on `side`'s clock now: its running clock counts down from the server's
/// reading, and stops at 0 (the server decides when the flag falls).
function clockLeft(clock, side) {
  const ms = side === "south" ? clock.south_ms : clock.north_ms;
  if (clock.running !== side) return ms;
  return Math.max(0, ms - Math.max(0, serverNow() - clock.server_time));
}

/// m:ss, h:mm:ss for long ones, tenths under 10 s.
function formatClock(ms) {
  if (ms < 10000) {
    const tenths = Math.floor(ms / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const total = Math.floor(ms / 1000);
  const [h, m, sec] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
}

/// "2:45" to a server deadline, in whole seconds.
function countdown(deadlineMs) {
  const total = Math.ceil(Math.max(0, deadlineMs - serverNow()) / 1000);
  const [h, m, sec] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
}

/// The moving parts of the board, ten times a second: the clocks and the countdowns.
function tick() {
  const table = state.tables.get(state.watching);
  const game = table && table.game;
  const clock = game && game.clock;
  for (const id of ["clock-me", "clock-them"]) {
    const el = $(id);
    el.hidden = !clock;
    if (!clock) continue;
    const side = el.dataset.side;
    const left = clockLeft(clock, side);
    const text = formatClock(left);
    if (el.textContent !== text) {
      el.textContent = text;
      el.setAttribute("aria-label", `${side}'s clock: ${text}`);
    }
    el.classList.toggle("running", clock.running === side);
    el.classList.toggle("low", left < 10000);
  }
  if (!table || !game) return;
  const m = table.match;
  if (!$("between").hidden && m && m.between) {
    const ready = m.players.map((p, i) => `${p.name} ${m.between.ready[i] ? "✓" : "…"}`).join(" · ");
    const text = `Game ${m.game}: ${ready} · ${countdown(m.between.deadline_ms)} to start`;
    if ($("between-text").textContent !== text) $("between-text").textContent = text;
  }
  if (!$("rematch-area").hidden && table.rematch) {
    const other = $("rematch-area").dataset.other;
    const text = `${other ? other + " · " : ""}${countdown(table.rematch.deadline_ms)} left for a rematch`;
    if ($("rematch-text").textContent !== text) $("rematch-text").textContent = text;
  }
}

setInterval(tick, 100);

function pit(index, number, pits, legal, row, column) {
  const b = document.createElement("button");
  b.className = "pit" + (legal ? " legal" : "");
  b.style.gridRow = String(row);
  b.style.gridColumn = String(column);
  b.dataset.pit = String(index);
  b.dataset.testid = legal ? `pit-${number}` : `pit-index-${index}`;
  b.setAttribute("aria-label", `${row === 2 ? "your" : "their"} pit ${number}: ${pits[index]} seeds`);
  b.disabled = !legal;
  b.innerHTML = `${pits[index]}<small>${number}</small>`;
  if (legal) {
    b.addEventListener("click", () => play(number));
    b.addEventListener("mouseenter", () => previewFrom(index));
    b.addEventListener("focus", () => previewFrom(index));
    b.addEventListener("mouseleave", clearPreview);
    b.addEventListener("blur", clearPreview);
    let pressed;
    const release = () => { clearTimeout(pressed); clearPreview(); };
    b.addEventListener("touchstart", () => { pressed = setTimeout(() => previewFrom(index), 350); }, { passive: true });
    b.addEventListener("touchend", release);
    b.addEventListener("touchmove", release, { passive: true });
    b.addEventListener("touchcancel", release);
  }
  return b;
}

// Where the last seed of a sowing from `index` lands (a lap of 12 or more skips the pit it
// started from).
function landing(index, seeds) {
  let at = index;
  for (let n = 0; n < seeds; n++) {
    at = (at + 1) % 12;
    if (at === index) at = (at + 1) % 12;
  }
  return at;
}

function previewFrom(index) {
  clearPreview();
  const s = state.tables.get(state.watching).game.state;
  const at = landing(index, s.pits[index]);
  $("board").querySelector(`[data-pit="${at}"]`)?.classList.add("preview");
}

function clearPreview() {
  $("board").querySelectorAll(".preview").forEach((p) => p.classList.remove("preview"));
}

function play(number) {
  const table = state.tables.get(state.watching);
  if (state.moving) return;
  state.moving = true;
  send({ type: "move", table: table.id, pit: number, version: table.version });
  showBoard();
}

document.addEventListener("keydown", (event) => {
  if (event.target.matches("input, select, textarea")) return;
  if (event.ctrlKey || event.altKey || event.metaKey || event.repeat) return;
  const n = Number(event.key);
  if (!(n >= 1 && n <= 6)) return;
  const table = state.tables.get(state.watching);
  const s = table && table.game && table.game.state;
  const seat = table && mySeat(table);
  if (s && seat && s.status === "playing" && s.to_move === seat && s.legal.includes(n) && !state.animation && !state.moving) {
    event.preventDefault();
    play(n);
  }
});

// Sowing shown seed by seed from the board before the move; a tap skips to the end.
function animate(before, update) {
  // One sowing at a time: a running one ends at once (its final board is the one before).
  if (state.animation) state.animation.skip();
  const seat = update.last_move.seat;
  const from = (seat === "south" ? 0 : 6) + update.last_move.pit - 1;
  const pits = before.pits.slice();
  let seeds = pits[from];
  pits[from] = 0;
  let at = from;
  const steps = [];
  while (seeds > 0) {
    at = (at + 1) % 12;
    if (at === from) continue;
    pits[at] += 1;
    seeds -= 1;
    steps.push({ pits: pits.slice(), at });
  }
  // Captured pits: emptied by the capture (only when the move captured something).
  const captured = [];
  for (let i = 0; update.captured > 0 && i < 12; i++) {
    if (i !== from && pits[i] > 0 && update.state.pits[i] === 0) captured.push(i);
  }
  let timer;
  const token = {};
  const done = () => {
    clearTimeout(timer);
    if (state.animation !== token) return;
    const then = token.then;
    state.animation = null;
    showBoard();
    for (const i of captured) $("board").querySelector(`[data-pit="${i}"]`)?.classList.add("captured");
    if (then) then();
  };
  token.skip = done;
  state.animation = token;
  let n = 0;
  const step = () => {
    if (state.animation !== token) return;
    if (n >= steps.length) return done();
    showBoard(steps[n].pits);
    $("board").querySelector(`[data-pit="${steps[n].at}"]`)?.classList.add("sowing");
    n += 1;
    timer = setTimeout(step, STEP_MS);
  };
  step();
}

$("board").addEventListener("click", () => {
  if (state.animation) state.animation.skip();
});

$("resign").addEventListener("click", () => send({ type: "resign", table: state.watching, scope: "game" }));
$("resign-match").addEventListener("click", () => send({ type: "resign", table: state.watching, scope: "match" }));
$("offer-draw").addEventListener("click", () => {
  send({ type: "offer_draw", table: state.watching, scope: "game" });
  notice("Draw offered.");
});
$("offer-draw-match").addEventListener("click", () => {
  send({ type: "offer_draw", table: state.watching, scope: "match" });
  notice("A draw of the match offered.");
});
$("start-game").addEventListener("click", () => {
  send({ type: "start", table: state.watching });
  $("start-game").disabled = true;
});
$("rematch").addEventListener("click", () => {
  send({ type: "rematch", table: state.watching });
  $("rematch").disabled = true;
});

// ---- Invitations and draws --------------------------------------------------------------------

function showInvitation(m) {
  const div = document.createElement("div");
  div.className = "invitation";
  div.dataset.id = m.id;
  div.dataset.testid = "invitation";
  const text = document.createElement("span");
  const how = m.settings ? ` ${controlText(m.settings.clock)}, ${bestOfText(m.settings.best_of)}.` : "";
  text.textContent = `${m.from.name} invites you to play Ayo.${how}`;
  div.append(
    text,
    button("Accept", () => { send({ type: "respond", invitation: m.id, accept: true }); div.remove(); }, "accept"),
    button("Decline", () => { send({ type: "respond", invitation: m.id, accept: false }); div.remove(); }, "decline"),
  );
  $("invitations").appendChild(div);
}

function dropDrawOffer(table) {
  $("invitations").querySelectorAll(`[data-draw="${table}"]`).forEach((d) => d.remove());
}

function showDrawOffer(m) {
  const div = document.createElement("div");
  div.className = "invitation";
  div.dataset.draw = m.table;
  div.dataset.testid = "draw-offer";
  div.dataset.scope = m.scope || "game";
  const text = document.createElement("span");
  const series = state.tables.get(m.table)?.match?.best_of > 1;
  text.textContent = m.scope === "match"
    ? `${m.from.name} offers to draw the match.`
    : `${m.from.name} offers a draw${series ? " of this game" : ""}.`;
  div.append(
    text,
    button("Accept", () => { send({ type: "answer_draw", table: m.table, accept: true }); div.remove(); }, "accept-draw"),
    button("Decline", () => { send({ type: "answer_draw", table: m.table, accept: false }); div.remove(); }, "decline-draw"),
  );
  $("invitations").appendChild(div);
}

// ---- Chat -------------------------------------------------------------------------------------

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("chat-text").value.trim();
  if (text) send({ type: "chat", text });
  $("chat-text").value = "";
});

// ---- Shop and home ----------------------------------------------------------------------------

$("go-shop").addEventListener("click", showShop);
$("shop-back").addEventListener("click", () => { $("shop").hidden = true; $("lounge").hidden = false; });

async function showShop() {
  $("lounge").hidden = true;
  $("shop").hidden = false;
  try {
    const [shop, me] = await Promise.all([api("GET", "/shop/items"), api("GET", "/me")]);
    $("coins").textContent = `· ${me.coins} coins`;
    $("items").replaceChildren(...shop.items.map((item) => {
      const li = document.createElement("li");
      const what = document.createElement("span");
      what.textContent = `${item.name} — ${item.price} coins` + (item.stock === null ? "" : ` (${item.stock} left)`);
      li.append(what, button("Buy", async () => {
        try {
          await api("POST", "/shop/purchases", { item: item.id }, { "Idempotency-Key": crypto.randomUUID() });
          showShop();
        } catch (e) { notice(e.message); alert(e.message); }
      }, `buy-${item.id}`));
      return li;
    }));
    $("inventory").replaceChildren(...me.inventory.map((owned) => {
      const li = document.createElement("li");
      const what = document.createElement("span");
      what.textContent = owned.item.name + (owned.table ? " (at home)" : "");
      li.appendChild(what);
      if (owned.item.kind === "ayo_board" && !owned.table) {
        li.appendChild(button("Place at home", async () => {
          try {
            await api("POST", "/me/apartment/boards", { board: owned.id });
            showShop();
          } catch (e) { alert(e.message); }
        }, "place"));
      }
      return li;
    }));
    $("door").value = me.apartment.door;
    $("guests").textContent = me.apartment.guests.length
      ? "Guests: " + me.apartment.guests.map((g) => g.name).join(", ")
      : "No guests yet: invite people home from the room's list.";
  } catch (e) {
    notice(e.message);
  }
}

$("door").addEventListener("change", async () => {
  try { await api("PUT", "/me/apartment/door", { door: $("door").value }); } catch (e) { alert(e.message); }
});

$("password-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const current = $("password-current").value;
  try {
    await api("PUT", "/me/password", { password: $("password-new").value, ...(current ? { current } : {}) });
    $("password-result").textContent = "Password set: sign in with your name and it on any device.";
    $("password-current").value = "";
    $("password-new").value = "";
  } catch (e) {
    $("password-result").textContent = e.message;
  }
});

$("sign-out").addEventListener("click", async () => {
  // This device's refresh credential stops working on the server too.
  try { await api("POST", "/auth/sign-out"); } catch (e) { /* signed out here either way */ }
  if (state.ws) state.ws.close();
  signOut("");
});

// At start: a new token from the refresh credential (the old one may have expired while the
// browser was closed), then in.
(async () => {
  if (localStorage.getItem("lounge.refresh")) {
    if (await refreshToken()) start();
  } else if (state.token && state.user) {
    start();
  }
})();
