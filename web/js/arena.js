// The room's arena tournaments (docs/protocol.md, "Arena tournaments"): each with its name,
// its status and the time to its start or end, Join or Leave, its standings as the room
// tells them (`tournament`), its winner once over, and a link to its big-screen page. A
// guest who is paired plays at a table like any game: the board comes up by itself.

import { $, state, serverNow, countdown, seatAt, matchInPlay } from "./state.js";
import { api } from "./connection.js";
import { button, notice } from "./ui.js";
import { parseClock, controlText } from "./match.js";
import { presetName } from "./rules.js";
import { nameButton, familyOf } from "./profile.js";
import { tableName } from "./queue.js";

// A refused Join or Leave, by tournament, shown on its card until the next try.
const errors = new Map();
// What the list last showed: drawn again only when something in it changed (the room's
// messages come often; a card redrawn under a finger loses the tap).
let shown = "";

// The tournaments this guest is in (`GET /api/v1/me/tournaments`, read on entering a room),
// kept as they join and leave here.
let mine = new Set();

function joined() {
  return mine;
}

// Left here since the page loaded: an older answer of the server's does not put them back.
const left = new Set();

function setJoined(id, inIt) {
  if (inIt) {
    mine.add(id);
    left.delete(id);
  } else {
    mine.delete(id);
    left.add(id);
  }
}

/// Signing out: nothing of the guest's tournaments stays.
export function forgetArenas() {
  mine = new Set();
  left.clear();
  state.tournaments = new Map();
  shown = "";
}

/// A tournament view from the room or HTTP, kept when it is this room's. A finished one is
/// not taken back to an earlier status by a slower answer.
function keep(t) {
  if (!state.room || t.room !== state.room.id) return null;
  const had = state.tournaments.get(t.id);
  if (had && had.status === "finished" && t.status !== "finished") return had;
  state.tournaments.set(t.id, t);
  return had || null;
}

/// A `room` snapshot: another room's tournaments go, and this one's are read (the room
/// tells them only as they change).
export async function arenaRoom(room, again) {
  if (!again) {
    state.tournaments = new Map();
    errors.clear();
  }
  renderArena();
  if (room.kind === "apartment") return;
  try {
    const [{ tournaments }, me] = await Promise.all([api("GET", "/tournaments"), api("GET", "/me/tournaments")]);
    for (const t of tournaments) keep(t);
    // A Join or Leave pressed while this was read stands.
    for (const id of me.joined) if (!left.has(id)) mine.add(id);
  } catch (e) { /* the room's messages bring them */ }
  renderArena();
}

/// `tournament`: one of the room's, as it stands now.
export function tournamentMessage(m) {
  const t = m.tournament;
  const had = keep(t);
  const inIt = joined().has(t.id);
  if (had && had.status !== t.status) {
    if (t.status === "running" && inIt) notice(`${t.name} has begun: you are paired as soon as a table is free.`);
    if (t.status === "finished") notice(t.winner ? `${t.name} is over: ${t.winner.name} wins.` : `${t.name} is over.`);
  }
  renderArena();
}

/// The table where the guest plays a game of `t` now, if any.
function playingAt(t) {
  if (t.status !== "running" && t.status !== "ending") return null;
  const table = t.tables.map((id) => state.tables.get(id)).find((x) => x && seatAt(x) && matchInPlay(x));
  return table ? table.id : null;
}

export function renderArena() {
  const list = [...state.tournaments.values()]
    .filter((t) => state.room && t.room === state.room.id)
    .sort((a, b) => a.starts_at - b.starts_at);
  $("arena").hidden = list.length === 0;
  const mine = joined();
  const key = JSON.stringify([list, [...mine], list.map(playingAt), [...errors]]);
  if (key !== shown) {
    shown = key;
    $("arena-list").replaceChildren(...list.map((t) => card(t, mine.has(t.id))));
  }
  tick();
}

function card(t, inIt) {
  const li = document.createElement("li");
  li.className = "arena-card";
  li.dataset.testid = "tournament";
  li.dataset.tournament = t.id;
  const h = document.createElement("h4");
  h.textContent = t.name;
  const when = line("arena-when", "tournament-status");
  when.dataset.status = t.status;
  const about = line("arena-about", "tournament-about");
  const players = `${t.players} player${t.players === 1 ? "" : "s"}`;
  about.textContent = [controlText(parseClock(t.clock)), presetName(t.rules), t.rated ? "rated" : "casual", players,
    ...(t.invited_only ? ["by invitation"] : []), `at ${tablesText(t.tables)}`].join(" · ");
  li.append(h, when, about);
  const me = line("arena-me", "tournament-me");
  const table = playingAt(t);
  me.textContent = table ? `You are playing your game of it at ${tableName(table)}.`
    : !inIt || t.status === "finished" ? ""
    : t.status === "upcoming" ? "You are in: be in this room, seated nowhere, when it starts, and you are paired."
    : t.status === "running" ? "You are in: stay in this room, seated nowhere, and you are paired as soon as a table is free."
    : "You are in. Time is up: no new games.";
  if (me.textContent) li.appendChild(me);
  const actions = document.createElement("p");
  actions.className = "actions arena-actions";
  if (t.status !== "finished") {
    actions.appendChild(inIt
      ? button("Leave", () => joinOrLeave(t, true), "tournament-leave")
      : button("Join", () => joinOrLeave(t, false), "tournament-join"));
  }
  const screen = document.createElement("a");
  screen.href = "/tournaments/" + encodeURIComponent(t.id);
  screen.target = "_blank";
  screen.rel = "noopener";
  screen.dataset.testid = "tournament-screen";
  screen.textContent = "Standings on the big screen";
  actions.appendChild(screen);
  li.appendChild(actions);
  if (errors.has(t.id)) {
    const error = line("arena-error", "tournament-error");
    error.setAttribute("role", "alert");
    error.textContent = errors.get(t.id);
    li.appendChild(error);
  }
  if (t.winner) {
    const winner = line("arena-winner", "tournament-winner");
    winner.textContent = `Winner: ${t.winner.name}`;
    li.appendChild(winner);
  }
  li.appendChild(standings(t));
  return li;
}

/// "table 2", "tables 1, 2 and 3".
function tablesText(ids) {
  const names = ids.map(tableName);
  if (names.length < 2 || !names.every((n) => n.startsWith("table "))) return names.join(", ");
  const numbers = names.map((n) => n.slice("table ".length));
  return `tables ${numbers.slice(0, -1).join(", ")} and ${numbers[numbers.length - 1]}`;
}

function line(className, testid) {
  const p = document.createElement("p");
  p.className = className;
  p.dataset.testid = testid;
  return p;
}

/// The best ten: rank, name (opens their card), a mark while their points are doubled,
/// score and games.
function standings(t) {
  if (!t.standings.length) {
    // The route's standings list those with a game scored; the room's, everyone in.
    const empty = line("arena-empty", "standings");
    empty.textContent = t.players ? "No games scored yet." : "Nobody has joined yet.";
    return empty;
  }
  const table = document.createElement("table");
  table.className = "standings";
  table.dataset.testid = "standings";
  const caption = document.createElement("caption");
  caption.textContent = `Standings of ${t.name}`;
  caption.className = "visually-hidden";
  const head = document.createElement("thead");
  head.innerHTML = '<tr><th scope="col">#</th><th scope="col">Player</th><th scope="col" class="num">Score</th><th scope="col" class="num">Games</th></tr>';
  const body = document.createElement("tbody");
  t.standings.forEach((s, i) => {
    const tr = document.createElement("tr");
    tr.dataset.testid = "standing";
    tr.dataset.user = s.user.id;
    if (state.user && s.user.id === state.user.id) tr.className = "me";
    const who = document.createElement("td");
    who.appendChild(nameButton(s.user, { family: familyOf(t.rules), testid: "standing-name" }));
    if (s.wins_in_a_row >= 2) {
      const streak = document.createElement("span");
      streak.className = "streak";
      streak.dataset.testid = "streak";
      streak.title = `${s.wins_in_a_row} wins in a row: points doubled`;
      // Words, not an emoji: a screen without an emoji font shows a box.
      streak.textContent = "×2";
      const said = document.createElement("span");
      said.className = "visually-hidden";
      said.textContent = `${s.wins_in_a_row} wins in a row, points doubled`;
      streak.appendChild(said);
      who.appendChild(streak);
    }
    tr.append(cell(String(i + 1)), who, cell(String(s.score), "num", "standing-score"), cell(String(s.games), "num", "standing-games"));
    body.appendChild(tr);
  });
  table.append(caption, head, body);
  return table;
}

function cell(text, className, testid) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  if (testid) td.dataset.testid = testid;
  return td;
}

async function joinOrLeave(t, leaving) {
  try {
    await api(leaving ? "DELETE" : "PUT", "/me/tournaments/" + encodeURIComponent(t.id));
    setJoined(t.id, !leaving);
    errors.delete(t.id);
    notice(leaving ? `You left ${t.name}; your score stays if you join again.` : `You joined ${t.name}.`);
  } catch (e) {
    errors.set(t.id, e.message);
  }
  // The players and standings as they are now (the room tells them only as it reads them).
  try {
    keep((await api("GET", "/tournaments/" + encodeURIComponent(t.id))).tournament);
  } catch (e) { /* the room's messages bring them */ }
  renderArena();
}

/// The countdowns to each tournament's start or end.
function tick() {
  for (const p of $("arena-list").querySelectorAll("[data-testid=tournament-status]")) {
    const t = state.tournaments.get(p.closest("[data-tournament]").dataset.tournament);
    if (!t) continue;
    const now = serverNow();
    const text = t.status === "upcoming" ? (now < t.starts_at ? `Starts in ${countdown(t.starts_at)}` : "Starting…")
      : t.status === "running" ? `Running: ends in ${countdown(t.ends_at)}`
      : t.status === "ending" ? "Time is up: the last games are finishing."
      : "Finished.";
    if (p.textContent !== text) p.textContent = text;
  }
}

setInterval(tick, 500);
