// The hotel web client: the reference client of the lounge protocol (docs in README.md).
"use strict";

const $ = (id) => document.getElementById(id);
const LEVELS = ["easy", "normal", "champion"];
const STEP_MS = 110;

const state = {
  token: localStorage.getItem("lounge.token"),
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
  choices: {},         // table id -> {level, invitee}: kept across redraws
  lastRoom: localStorage.getItem("lounge.room") || "surulere-games-lounge",
};

// ---- HTTP -----------------------------------------------------------------------------------

async function api(method, path, body, headers = {}) {
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
  if (!response.ok) throw new Error((data && data.error && data.error.message) || response.statusText);
  return data;
}

// ---- Sign in and the socket -------------------------------------------------------------------

$("signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("signin-error").textContent = "";
  try {
    const answer = await api("POST", "/auth/guest", { name: $("name").value });
    state.token = answer.token;
    state.user = answer.user;
    localStorage.setItem("lounge.token", answer.token);
    localStorage.setItem("lounge.user", JSON.stringify(answer.user));
    start();
  } catch (e) {
    $("signin-error").textContent = e.message;
  }
});

function start() {
  $("signin").hidden = true;
  $("nav").hidden = false;
  $("lounge").hidden = false;
  $("me").textContent = state.user.name;
  connect(state.lastRoom);
}

function signOut(text) {
  localStorage.removeItem("lounge.token");
  localStorage.removeItem("lounge.user");
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
    if (event.code === 1008) return notice("Disconnected: too many messages.");
    if (!opened) {
      // Refused before the upgrade: an expired or unknown token signs out.
      try {
        await api("GET", "/me");
      } catch (e) {
        if (/token|sign in/i.test(e.message)) return signOut("Your session ended: pick a name again.");
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

function receive(m) {
  if (["table", "game_started", "game_state", "game_over"].includes(m.type) && !fresh(m)) return;
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
      state.moving = false;
      $("room-name").textContent = m.room.name;
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
        table.game = { id: m.game_id, players: m.players, state: m.state };
        table.version = m.version;
      }
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
      table.version = m.version;
      if (m.last_move.seat === mySeat(table)) state.moving = false;
      dropDrawOffer(m.table);
      if (m.table === state.watching) animate(before, m);
      break;
    }
    case "game_over": {
      const table = state.tables.get(m.table);
      if (table && table.game) table.game.state = m.state;
      if (table) table.version = m.version;
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
      break;
    case "draw_offered":
      showDrawOffer(m);
      break;
    case "draw_declined":
      notice("The draw offer was declined.");
      break;
    case "chat": {
      const li = document.createElement("li");
      li.textContent = `${m.user.name}: ${m.text}`;
      $("chat").appendChild(li);
      $("chat").scrollTop = $("chat").scrollHeight;
      break;
    }
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
      state.moving = false;
      notice(m.message);
      break;
  }
}

function resultText(m) {
  const game = state.tables.get(m.table)?.game;
  if (m.result === "draw") return `Draw (${m.reason.replace(/_/g, " ")})`;
  const winner = m.result === "south_won" ? game?.players.south : game?.players.north;
  const who = winner && winner.id === state.user.id ? "You win" : `${winner ? winner.name : "?"} wins`;
  return `${who} (${m.reason.replace(/_/g, " ")}) ${m.state.stores[0]}–${m.state.stores[1]}`;
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
    }
    return li;
  }));
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
    for (const side of ["south", "north"]) {
      const row = document.createElement("div");
      row.className = "seat";
      const who = t.seats[side];
      const label = document.createElement("span");
      label.textContent = `${side}: ${who ? who.name : "free"}`;
      row.appendChild(label);
      if (!who && !seat && !playing) row.appendChild(button("Sit", () => send({ type: "sit", table: t.id, seat: side }), `sit-${side}`));
      div.appendChild(row);
    }
    const controls = document.createElement("div");
    controls.className = "controls";
    if (seat && !playing) {
      const other = t.seats[seat === "south" ? "north" : "south"];
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
    if (!playing && (!t.seats.south || seat) && (!t.seats.north || seat) && !(t.seats.south && t.seats.north)) {
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
      controls.appendChild(button("Play Baba Ayo", () => send({ type: "play_house", table: t.id, level: level.value }), "play-house"));
    }
    if (t.game) controls.appendChild(button(t.id === state.watching ? "Watching" : "Watch", () => watch(t.id)));
    div.appendChild(controls);
    return div;
  }));
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
  $("game-actions").hidden = !(seat && s.status === "playing");
}

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

$("resign").addEventListener("click", () => send({ type: "resign", table: state.watching }));
$("offer-draw").addEventListener("click", () => {
  send({ type: "offer_draw", table: state.watching });
  notice("Draw offered.");
});

// ---- Invitations and draws --------------------------------------------------------------------

function showInvitation(m) {
  const div = document.createElement("div");
  div.className = "invitation";
  div.dataset.id = m.id;
  div.dataset.testid = "invitation";
  const text = document.createElement("span");
  text.textContent = `${m.from.name} invites you to play Ayo.`;
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
  const text = document.createElement("span");
  text.textContent = `${m.from.name} offers a draw.`;
  div.append(
    text,
    button("Accept the draw", () => { send({ type: "answer_draw", table: m.table, accept: true }); div.remove(); }),
    button("Play on", () => { send({ type: "answer_draw", table: m.table, accept: false }); div.remove(); }),
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

if (state.token && state.user) start();
