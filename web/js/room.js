// The room: what the server says (one handler per message), who is in it, its tables as
// cards, its chat, and the hotel's rooms in the menu.

import { $, state, LEVELS, CLOCKS, BEST_OF, VERSIONED, LOUNGE, noteServerTime, serverNow, timeOf, seatAt, mySeat, matchInPlay } from "./state.js";
import { api, send, connect, enter } from "./connection.js";
import { button, option, notice, moderation } from "./ui.js";
import { showBoard, animate, resendPending } from "./board.js";
import {
  parseClock, controlText, bestOfText, scoreText, resultText,
  showInvitation, dropInvitation, dropInvitationsOutside, showDrawOffer, dropDrawOffer,
} from "./match.js";
import { presetName, howToPlay } from "./rules.js";
import { renderOccupant, showHomeInvitation, meet } from "./home.js";
import { showPage } from "./pages.js";
import { nameButton, familyOf } from "./profile.js";
import { queueRow, showCall, queueLeft } from "./queue.js";
import { seekHandlers, seekRoom, seekRefused, renderSeek } from "./seek.js";
import { arenaRoom, tournamentMessage, renderArena } from "./arena.js";

/// A table event that is not newer than what the client holds is old news (a move sent
/// again gets its answer again): dropped. At the table watched (or played at), one that skips
/// versions asks for what was missed; at the others the moves are not sent, so the versions
/// between are theirs.
function fresh(m) {
  const table = state.tables.get(m.table || m.id);
  if (!table || typeof m.version !== "number") return true;
  if (m.version <= table.version) return false;
  if (m.version > table.version + 1) {
    // Not watched: taken as it is, and the whole table asked for when it is watched.
    if (table.id !== state.watching && !seatAt(table)) {
      table.partial = true;
      return true;
    }
    send({ type: "sync", table: table.id, version: table.version });
    return false;
  }
  return true;
}

const handlers = {
  replaced() {
    state.replaced = true;
    notice("You opened the lounge somewhere else.", { ms: 0 });
    $("invitations").replaceChildren(button("Use it here", () => {
      state.replaced = false;
      $("invitations").replaceChildren();
      connect(state.room ? state.room.id : state.lastRoom);
    }));
  },
  server_closing() {
    state.closing = true;
    notice("The lounge is restarting; back in a moment…");
  },
  missed(m) {
    // Events of a table not watched (a watch changed since it was asked for) are old news.
    if (m.table !== state.watching && !seatAt(state.tables.get(m.table) || { seats: {} })) return;
    if (m.resync && m.snapshot) {
      state.tables.set(m.table, m.snapshot);
      renderTables();
      if (m.table === state.watching) showBoard();
      noteServerTime(m.snapshot.server_time);
    } else {
      for (const event of m.events) receive(event);
    }
  },
  welcome(m) {
    state.user = m.user;
  },
  room(m) {
    state.entering = null;
    state.enterTries = 0;
    const again = state.room && state.room.id === m.room.id;
    // A new connection (or room): the server let go of what the old one waited for.
    const fresh = !again || !state.online;
    // Table invitations belong to the room they were made in.
    if (!again) dropInvitationsOutside(m.room.id);
    state.room = m.room;
    state.lastRoom = m.room.id;
    localStorage.setItem("lounge.room", m.room.id);
    state.occupants = new Map(m.occupants.map((u) => [u.id, u]));
    state.tables = new Map(m.tables.map((t) => [t.id, t]));
    state.away = new Map((m.away || []).map((a) => [a.user.id, a]));
    for (const t of m.tables) noteServerTime(t.server_time);
    state.moving = false;
    // A sowing being shown ends at once (a result waiting for it is shown).
    if (state.animation) state.animation.skip();
    $("room-name").textContent = m.room.name;
    showHome(again);
    showSlowMode(m.slow_mode);
    showChat(m.chat);
    if (!again) showPage("lounge");
    // Back in the room (a reload, a new tab, a reconnect): at one's own board first.
    const own = [...state.tables.values()].find((t) => seatAt(t) && (matchInPlay(t) || (t.game && t.game.state.status === "playing")));
    const watching = own ? own.id : (state.tables.has(state.watching) ? state.watching : null);
    if (watching !== state.watching) $("result").textContent = "";
    state.watching = watching;
    // The server holds no watch for a connection new to the room: asked again, with the
    // version the snapshot gave (the answer is what came after it, usually nothing).
    if (watching) send({ type: "watch", table: watching, since: state.tables.get(watching).version });
    state.online = true;
    resendPending();
    renderRoom();
    renderRooms();
    seekRoom(m, fresh);
    arenaRoom(m.room, again);
  },
  table_status(m) {
    // Where the games not watched stand (the moves go only to those watching a table).
    for (const s of m.tables) {
      const table = state.tables.get(s.table);
      if (!table || !table.game || table.game.id !== s.game_id || s.table === state.watching || seatAt(table)) continue;
      table.game.state = { ...table.game.state, to_move: s.to_move, stores: s.stores, ply: s.ply };
      table.game.clock = s.clock;
      // Ahead of its version, without the moves between: the whole table when watched.
      table.partial = true;
    }
    renderTables();
  },
  room_changed(m) {
    state.room = m.room;
    $("room-name").textContent = m.room.name;
    renderRooms();
  },
  occupant_joined(m) {
    state.occupants.set(m.user.id, m.user);
    renderOccupants();
    renderTables();
    renderHome();
  },
  occupant_left(m) {
    state.occupants.delete(m.user.id);
    renderOccupants();
    renderTables();
    renderHome();
  },
  away(m) {
    state.away.set(m.user.id, m);
    renderTables();
    tickBoard();
  },
  back(m) {
    state.away.delete(m.user.id);
    renderTables();
    tickBoard();
  },
  table(m) {
    state.tables.set(m.id, m);
    renderTables();
    if (m.id === state.watching && !state.animation) showBoard();
  },
  table_removed(m) {
    state.tables.delete(m.table);
    if (state.watching === m.table) watch(null);
    renderTables();
  },
  game_started(m) {
    const table = state.tables.get(m.table);
    if (table) {
      table.game = {
        id: m.game_id, players: m.players, state: m.state, clock: m.clock, number: m.match ? m.match.game : 1, moves: [],
        first: m.first || "south", lots: m.lots || null, berserk: m.berserk,
      };
      table.match = m.match || table.match;
      table.version = m.version;
      // A new game from its start: nothing of it was missed yet.
      table.partial = false;
    }
    dropDrawOffer(m.table);
    const mine = [m.players.south.id, m.players.north.id].includes(state.user.id);
    if (mine || !state.watching) watch(m.table);
    renderTables();
    if (m.table === state.watching) {
      $("result").textContent = "";
      showBoard();
    }
    // One's own game begins: the board comes into view (on a phone it is below the tables).
    if (mine) boardIntoView();
  },
  game_state(m) {
    const table = state.tables.get(m.table);
    if (!table || !table.game) return;
    const before = table.game.state;
    table.game.state = m.state;
    table.game.clock = m.clock;
    table.game.moves = [...(table.game.moves || []), m.last_move.pit];
    table.game.last = null;
    table.version = m.version;
    if (m.last_move.seat === mySeat(table)) state.moving = false;
    dropDrawOffer(m.table);
    if (m.table === state.watching) animate(table, before, m);
    renderTables();
  },
  berserk(m) {
    // A player of an arena game halved their clock: the clocks and the version move on.
    const table = state.tables.get(m.table);
    if (!table) return;
    table.version = m.version;
    if (table.game) {
      table.game.clock = m.clock;
      table.game.berserk = [...new Set([...(table.game.berserk || []), m.seat])];
    }
    if (m.user.id !== state.user.id && m.table === state.watching) notice(`${m.user.name} went berserk: half the clock, a point more for a win.`);
    if (m.table === state.watching) showBoard();
    renderTables();
  },
  game_over(m) {
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
  },
  match_state(m) {
    // Between games: a start pressed, a game lost by not pressing it, the wait begun.
    const table = state.tables.get(m.table);
    if (!table) return;
    table.match = m.match;
    table.version = m.version;
    renderTables();
    if (m.table === state.watching && !state.animation) showBoard();
  },
  match_over(m) {
    const table = state.tables.get(m.table);
    if (!table) return;
    table.match = m.match;
    table.version = m.version;
    dropDrawOffer(m.table);
    for (const [id, a] of state.away) if (a.table === m.table) state.away.delete(id);
    renderTables();
    // The board shows the result once the last sowing has been shown.
    if (m.table === state.watching && !state.animation) showBoard();
  },
  queue_called: showCall,
  ...seekHandlers,
  tournament: tournamentMessage,
  queue_left: queueLeft,
  rematch_offered(m) {
    notice(`${m.from.name} wants a rematch.`);
    if (m.table === state.watching && !state.animation) showBoard();
  },
  invitation: showInvitation,
  invitation_sent() {
    notice("Invitation sent.");
  },
  invitation_declined(m) {
    notice("The invitation was declined.");
    dropInvitation(m.id);
  },
  invitation_expired(m) {
    const why = {
      settings_changed: "Withdrawn: the host chose other match settings.",
      withdrawn: "Withdrawn: the host stood up or went.",
      table_changed: "Withdrawn: the table changed.",
    }[m.reason] || "This invitation expired.";
    dropInvitation(m.id, why);
    notice(why.replace(/^Withdrawn/, "An invitation was withdrawn").replace(/^This invitation/, "An invitation"));
  },
  home_invitation: showHomeInvitation,
  draw_offered: showDrawOffer,
  draw_declined(m) {
    notice(m.scope === "match" ? "The offer to draw the match was declined." : "The draw offer was declined.");
  },
  chat(m) {
    addChatLine(m);
    $("chat").scrollTop = $("chat").scrollHeight;
  },
  // Civility: what moderation looks like to a guest.
  chat_removed(m) {
    $("chat").querySelector(`[data-line="${m.id}"]`)?.remove();
  },
  slow_mode: showSlowMode,
  muted(m) {
    moderation(m.until
      ? `You are muted until ${timeOf(m.until)}${m.reason ? ": " + m.reason : ""}.`
      : "You may chat again.");
  },
  put_out(m) {
    moderation(`You were put out of ${state.room ? state.room.name : "the room"}${m.reason ? ": " + m.reason : ""}. You may come back at ${timeOf(m.until)}.`);
    state.room = null;
    state.occupants = new Map();
    state.tables = new Map();
    // Out of the room, the server holds no watch: nothing to tell it.
    state.watching = null;
    watch(null);
    $("lounge").hidden = true;
  },
  room_closing() {
    notice("This room is closing after the games in play.", { ms: 0 });
  },
  room_closed(m) {
    notice("This room has closed.");
    state.tables = new Map();
    state.watching = null;
    watch(null);
    loadRooms();
    enter(m.room === LOUNGE ? "gist-lounge" : LOUNGE);
  },
  error(m) {
    // Every refusal says why in words (bad_settings, not_between_games, time_out,
    // no_rematch, rematch_void, ...): shown as it comes.
    state.moving = false;
    // Play someone now says its refusals in its own panel.
    if (seekRefused(m)) return;
    if (m.code === "unavailable" && state.entering && state.enterTries < 40) {
      // The room is moving to another server: `enter` again when it says, where one was going.
      const room = state.entering;
      state.enterTries += 1;
      notice("This room is moving to another server; back in a moment…");
      const wait = Math.min(5000, Math.max(200, (m.until || 0) - serverNow()));
      clearTimeout(state.enterTimer);
      state.enterTimer = setTimeout(() => { if (state.entering === room) enter(room); }, wait);
      return;
    }
    if (["door_closed", "no_such_room", "room_closing", "barred", "unavailable"].includes(m.code)) {
      state.entering = null;
      state.enterTries = 0;
    }
    notice(m.message);
    // In no room yet, and the room of last time is shut to us now: the lounge instead.
    if (!state.room && ["door_closed", "no_such_room", "room_closing", "barred"].includes(m.code) && state.lastRoom !== LOUNGE) {
      state.lastRoom = LOUNGE;
      enter(LOUNGE);
    }
    // A refused choice (bad_settings, ...) shows the table's settings again.
    renderTables();
    if (state.watching && !state.animation) showBoard();
  },
};

export function receive(m) {
  if (VERSIONED.includes(m.type) && !fresh(m)) return;
  noteServerTime(m.server_time);
  if (m.clock) noteServerTime(m.clock.server_time);
  const handle = handlers[m.type];
  if (handle) handle(m);
}

function boardIntoView() {
  // After the redraws this message starts (cards change height), on the next frame.
  requestAnimationFrame(() => {
    const box = $("game").getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) $("game").scrollIntoView({ block: "start" });
  });
}

function tickBoard() {
  if (state.watching && !state.animation) showBoard();
}

function renderRoom() {
  renderOccupants();
  renderTables();
  showBoard();
}

// ---- An apartment --------------------------------------------------------------------------------

/// In an apartment: what its owner placed there and whether they are home (read from the
/// server once a visit; the owner's coming and going from the room's list).
async function showHome(again) {
  const room = state.room;
  if (room.kind !== "apartment") {
    state.home = null;
    renderHome();
    return;
  }
  if (again && state.home && state.home.room === room.id) return renderHome();
  let home = null;
  try {
    home = await api("GET", "/apartments/" + encodeURIComponent(room.id));
  } catch (e) { /* the apartment shows without the line */ }
  // Gone elsewhere meanwhile: this answer is of no use.
  if (!state.room || state.room.id !== room.id) return;
  state.home = home;
  renderHome();
  renderTables();
}

function renderHome() {
  const home = state.room && state.room.kind === "apartment" ? state.home : null;
  $("home-line").hidden = !home;
  if (!home) return;
  const mine = home.owner.id === state.user.id;
  const here = state.occupants.has(home.owner.id);
  const who = mine ? "Your apartment" : `${home.owner.name}'s apartment`;
  const presence = mine ? "" : here ? ` · ${home.owner.name} is home` : ` · ${home.owner.name} is out`;
  const things = home.things.map(thingName);
  $("home-line").textContent = `${who}${presence} · ${things.length ? things.join(", ") : "nothing placed yet"}`;
}

/// "Iroko Ayo board (oiled)": a thing as the shop names it, with its wood and finish when
/// the name does not say them.
function thingName(t) {
  const extra = [t.wood, t.finish].filter((w) => w && !t.name.toLowerCase().includes(w.toLowerCase()));
  return extra.length ? `${t.name} (${extra.join(", ")})` : t.name;
}

function renderOccupants() {
  $("occupants").replaceChildren(...[...state.occupants.values()].map(renderOccupant));
  meet(state.occupants.values());
}

// ---- Chat ---------------------------------------------------------------------------------------

function addChatLine(m) {
  if ($("chat").querySelector(`[data-line="${m.id}"]`)) return;
  const li = document.createElement("li");
  const who = document.createElement("b");
  who.append(nameButton(m.user, { testid: "chat-name" }), ": ");
  li.append(who, m.text);
  li.dataset.line = m.id;
  $("chat").appendChild(li);
}

/// The room's recent lines (the snapshot's `chat`): what a reloaded page had seen. The
/// server's list replaces the page's, also on coming back to the same room (a restarted room
/// numbers its lines from 1 again).
function showChat(lines) {
  $("chat").replaceChildren();
  for (const line of lines || []) addChatLine(line);
  $("chat").scrollTop = $("chat").scrollHeight;
}

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("chat-text").value.trim();
  if (text) send({ type: "chat", text });
  $("chat-text").value = "";
});

function showSlowMode(slow) {
  const on = slow && slow.seconds > 0;
  $("slow-mode").hidden = !on;
  if (on) {
    $("slow-mode").textContent = `Slow mode: one line every ${slow.seconds} s` +
      (slow.auto ? ` (the room is busy, until ${timeOf(slow.until)})` : "");
  }
}

// ---- The hotel's rooms --------------------------------------------------------------------------

/// The public rooms, from the server: those an operator made too.
export async function loadRooms() {
  try {
    state.rooms = (await api("GET", "/rooms")).rooms;
  } catch (e) { /* the menu keeps what it had */ }
  renderRooms();
}

// Rooms an operator opens later show when the guest comes back to the tab.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && state.token) loadRooms();
});

function renderRooms() {
  const rooms = state.rooms.length ? state.rooms : [{ id: LOUNGE, name: "Surulere Games Lounge" }];
  $("room-menu").replaceChildren(...rooms.map((r) => {
    const b = button(r.name, () => enter(r.id), "room-" + r.id);
    b.className = "go" + (state.room && state.room.id === r.id ? " here" : "");
    b.dataset.room = r.id;
    if (state.room && state.room.id === r.id) b.setAttribute("aria-current", "true");
    return b;
  }));
}

// ---- Tables -------------------------------------------------------------------------------------

export function watch(tableId) {
  // The server sends a game's moves to its players and to those who watch its table: the
  // one shown. The answer (`missed`) brings the board up to date.
  if (tableId && tableId !== state.watching) {
    const table = state.tables.get(tableId);
    send(table && !table.partial ? { type: "watch", table: tableId, since: table.version } : { type: "watch", table: tableId });
  } else if (!tableId && state.watching) {
    send({ type: "unwatch" });
  }
  state.watching = tableId;
  state.animation = null;
  $("result").textContent = "";
  showBoard();
  renderTables();
}

function renderTables() {
  const tables = [...state.tables.values()];
  // A room to talk in (no tables): the chat takes the room's width.
  $("lounge").classList.toggle("talk", tables.length === 0);
  $("tables").replaceChildren(...tables.map((t, i) => {
    const div = document.createElement("div");
    div.className = "table" + (t.id === state.watching ? " watching" : "");
    div.dataset.table = t.id;
    const h = document.createElement("h4");
    // At home a table is the board its owner placed.
    const board = state.home && state.home.room === t.room && state.home.things.find((x) => x.table === t.id);
    h.textContent = `${board ? thingName(board) : `Table ${i + 1}`} · ${presetName(t.rules)} `;
    const help = button("How to play", () => showRules(t), "how-to-play");
    help.className = "link";
    h.appendChild(help);
    div.appendChild(h);
    const seat = seatAt(t);
    const playing = t.game && t.game.state.status === "playing";
    const inPlay = playing || matchInPlay(t);
    const how = document.createElement("div");
    how.className = "how";
    how.dataset.testid = "table-match";
    how.textContent = tableMatchText(t);
    if (how.textContent) div.appendChild(how);
    if (playing) {
      const game = document.createElement("div");
      game.className = "how";
      game.dataset.testid = "table-game";
      game.textContent = tableGameText(t);
      div.appendChild(game);
    }
    for (const side of ["south", "north"]) {
      const row = document.createElement("div");
      row.className = "seat";
      const who = t.seats[side];
      const label = document.createElement("span");
      const away = who && state.away.get(who.id)?.table === t.id && matchInPlay(t) ? " (away)" : "";
      // A name opens its card, its rating in the table's family beside it.
      if (who) label.append(`${side}: `, nameButton(who, { family: familyOf(t.rules), suffix: away, testid: "seat-name" }));
      else label.textContent = `${side}: free`;
      row.appendChild(label);
      // With guests queued a seat is for the one called to it.
      const q = t.queue;
      const queued = q && (q.waiting.length > 0 || q.called.length > 0)
        && !q.called.some((c) => c.user.id === state.user.id && c.seat === side);
      if (!who && !seat && !inPlay && !queued) row.appendChild(button("Sit", () => sit(t, side), `sit-${side}`));
      // Standing up is beside one's own name, apart from the match's choices.
      if (who && who.id === state.user.id && !inPlay) row.appendChild(button("Stand up", () => send({ type: "stand", table: t.id }), "stand"));
      div.appendChild(row);
    }
    const queue = queueRow(t);
    if (queue) div.appendChild(queue);
    div.appendChild(tableControls(t, seat, inPlay));
    return div;
  }));
  // Seats taken or freed change what the pool and the tournaments show.
  renderSeek();
  renderArena();
}

function tableControls(t, seat, inPlay) {
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
    form.append(field("Clock", clock), field("Games", bestOf));
    controls.appendChild(form);
  }
  if (seat && !inPlay) {
    if (!other) {
      const pick = document.createElement("select");
      pick.dataset.testid = "invite-who";
      for (const u of state.occupants.values()) {
        if (u.id !== state.user.id && !u.house) pick.appendChild(option(u.id, u.name));
      }
      remember(pick, t.id, "invitee");
      controls.appendChild(field("Opponent (in the room)", pick));
      controls.appendChild(button("Invite", () => pick.value && send({ type: "invite", table: t.id, user: pick.value }), "invite"));
    }
  }
  if (house) {
    const level = document.createElement("select");
    level.dataset.testid = "house-level";
    for (const l of LEVELS) level.appendChild(option(l, l));
    remember(level, t.id, "level");
    controls.appendChild(field("Baba Ayo's level", level));
    controls.appendChild(button("Play Baba Ayo", () => send({
      type: "play_house", table: t.id, level: level.value, clock: clock.value, best_of: Number(bestOf.value), seats: SEATS,
    }), "play-house"));
  }
  if (t.game) controls.appendChild(button(t.id === state.watching ? (seatAt(t) ? "Your board" : "Watching") : "Watch", () => watch(t.id)));
  return controls;
}

/// The clock and best-of selects of a table card. The host's show the table's settings and
/// change them (`set_match`); otherwise they are the viewer's choice for Baba Ayo.
function matchChoice(t, host) {
  const choices = (state.choices[t.id] = state.choices[t.id] || {});
  const clock = document.createElement("select");
  clock.dataset.testid = "match-clock";
  for (const [value, label] of CLOCKS) clock.appendChild(option(value, label));
  const bestOf = document.createElement("select");
  bestOf.dataset.testid = "match-best-of";
  for (const n of BEST_OF) bestOf.appendChild(option(String(n), n === 1 ? "one game" : `best of ${n}`));
  let [clockValue, bestOfValue] = [choices.clock || "none", choices.best_of || "1"];
  if (host && choices.unsent) {
    // Chosen before the seat was ours (a choice made as the sit went out, or for Baba Ayo):
    // the host's choice now, as it showed when they sat.
    choices.unsent = false;
    send({ type: "set_match", table: t.id, clock: clockValue, best_of: Number(bestOfValue), seats: SEATS });
  } else if (host && t.settings) {
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
    choices.unsent = !host;
    if (host) send({ type: "set_match", table: t.id, clock: clock.value, best_of: Number(bestOf.value), seats: SEATS });
  };
  clock.addEventListener("change", changed);
  bestOf.addEventListener("change", changed);
  return [clock, bestOf];
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

/// The card's line on the game in play: the seeds each side has taken and whose turn it is.
function tableGameText(t) {
  const s = t.game.state;
  const mover = s.to_move && t.game.players[s.to_move];
  return `Seeds ${s.stores[0]} – ${s.stores[1]}${mover ? ` · ${mover.name} to move` : ""}`;
}

// Everyone plays from the seat they took; lots decide only who starts (the match setting
// `seats`, which this client always asks for).
const SEATS = "kept";

/// Takes a seat. At a free table the sitter is its host, and the table keeps seats; opposite
/// a host the host's setting stands (another client's may be the protocol's default).
function sit(t, side) {
  const free = !t.seats.south && !t.seats.north;
  send(free ? { type: "sit", table: t.id, seat: side, seats: SEATS } : { type: "sit", table: t.id, seat: side });
}

/// A select with its word beside it, in sight (not only for a screen reader).
function field(text, select) {
  const label = document.createElement("label");
  label.className = "field";
  const word = document.createElement("span");
  word.textContent = text;
  label.append(word, select);
  return label;
}

/// Keeps a select's choice across redraws.
function remember(select, table, key) {
  const choices = (state.choices[table] = state.choices[table] || {});
  if (choices[key] && [...select.options].some((o) => o.value === choices[key])) select.value = choices[key];
  select.addEventListener("change", () => { choices[key] = select.value; });
}

/// The rules of a table, one click from its card (a dialog).
function showRules(t) {
  $("rules-title").textContent = `How to play: ${presetName(t.rules)}`;
  $("rules-text").replaceChildren(...howToPlay(t.rules).map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  $("rules").showModal();
}

$("rules-close").addEventListener("click", () => $("rules").close());
