// The board of the table being watched: pits and stores from the viewer's side, the sowing
// shown seed by seed, the preview of where a sowing ends, the last move marked, the move list,
// and playing by click, tap or the keys 1-6.

import { $, state, mySeat } from "./state.js";
import { send } from "./connection.js";
import { sow, landing, replay, sideOf } from "./sowing.js";
import { turnTitle, turnSound, notice } from "./ui.js";
import { showMatch, tick } from "./match.js";
import { familyOf, ratingOf } from "./profile.js";

const STEP_MS = 110;

const other = (side) => (side === "south" ? "north" : "south");

/// What the last move did, for its marks: kept on the game from the move's own message, or
/// worked out from the moves after a reload.
function lastMove(table) {
  const game = table.game;
  if (!game.last && game.moves && game.moves.length) game.last = replay(table.rules, game.moves, undefined, game.first).last;
  return game.last;
}

// From the viewer's side: their row along the bottom (pits 1-6 left to right, the way seeds
// go), the other row along the top the other way round, their store on their right.
export function showBoard(pits) {
  const table = state.tables.get(state.watching);
  const game = table && table.game;
  $("game").hidden = !game;
  if (!game) {
    turnTitle(false);
    return;
  }
  $("game").dataset.table = table.id;
  $("game").classList.toggle("mine", !!mySeat(table));
  $("game").dataset.game = game.id;
  const s = game.state;
  const animating = !!pits;
  pits = pits || s.pits;
  const seat = mySeat(table);
  const me = seat || "south";
  const them = other(me);
  const mine = me === "south" ? 0 : 6;
  const theirs = me === "south" ? 6 : 0;
  const turn = !!seat && s.status === "playing" && s.to_move === seat;
  // No move is taken while the socket is down: it would go nowhere.
  const canPlay = turn && !state.animation && !state.moving && state.online;
  showOffline(seat, s.status === "playing");
  const board = $("board");
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.pit : undefined;
  const players = game.players;
  const cells = [];
  const store = (side) => {
    const d = document.createElement("div");
    d.className = "store";
    d.dataset.testid = `store-${side}`;
    const count = document.createElement("span");
    count.textContent = s.stores[side === "south" ? 0 : 1];
    const owner = document.createElement("small");
    owner.textContent = side === seat ? "you" : players[side].name;
    d.append(count, owner);
    d.setAttribute("aria-label", `${side === seat ? "your" : players[side].name + "'s"} store: ${count.textContent} seeds`);
    return d;
  };
  const theirStore = store(them);
  theirStore.style.gridColumn = "1";
  cells.push(theirStore);
  for (let k = 5; k >= 0; k--) cells.push(pit(theirs + k, k + 1, pits, false, 1, 7 - k));
  for (let k = 0; k < 6; k++) cells.push(pit(mine + k, k + 1, pits, canPlay && s.legal.includes(k + 1), 2, k + 2));
  const myStore = store(me);
  myStore.style.gridColumn = "8";
  myStore.style.gridRow = "1 / span 2";
  cells.push(myStore);
  board.replaceChildren(...cells);
  // The last move stays marked once it has been shown: where it was sown from, what it took.
  const last = !animating && lastMove(table);
  if (last) {
    const from = (last.side === "south" ? 0 : 6) + last.number - 1;
    board.querySelector(`[data-pit="${from}"]`)?.classList.add("last-move");
    for (const i of last.captured) board.querySelector(`[data-pit="${i}"]`)?.classList.add("last-capture");
  }
  if (focused !== undefined) {
    const again = board.querySelector(`[data-pit="${focused}"]:not(:disabled)`);
    (again || board).focus();
  }
  // Each player's rating in the table's family, where the frames carry one.
  const family = familyOf(table.rules);
  const rated = (user) => (ratingOf(user, family) ? ` ${ratingOf(user, family)}` : "");
  $("opponent").textContent = `${players[them].name}${players[them].house ? " (house)" : ""} (${them})${rated(players[them])}`;
  $("myself").textContent = seat ? `You (${seat})${rated(players[me])}` : `${players[me].name} (${me})${rated(players[me])}`;
  // The score as the viewer sits: "you 26 – 8 Kemi", or the two names for an onlooker.
  const [mineStore, theirStoreCount] = [s.stores[me === "south" ? 0 : 1], s.stores[them === "south" ? 0 : 1]];
  $("score").textContent = `${seat ? "you" : players[me].name} ${mineStore} – ${theirStoreCount} ${players[them].name}`;
  // Whose turn it is, as soon as it is: the opponent's sowing may still be being shown.
  const onlooker = seat ? "" : "Watching · ";
  $("turn").textContent = s.status === "playing"
    ? (turn ? (canPlay ? yourTurnText() : "Your turn") : `${onlooker}${players[s.to_move].name} to sow`)
    : (seat ? "" : "Watching");
  turnTitle(turn);
  // Who started, when lots decided it (the first game of a match).
  $("lots").hidden = !game.lots;
  if (game.lots) {
    const starts = game.lots.starts;
    $("lots").textContent = `Lots drawn: ${starts.id === state.user.id ? "you start" : `${starts.name} starts`}`;
  }
  $("clock-me").dataset.side = me;
  $("clock-them").dataset.side = them;
  showMoves(table);
  showMatch(table, seat);
  tick();
}

/// How to play a move on this device: keys only where there is a keyboard to press them.
function yourTurnText() {
  const touch = navigator.maxTouchPoints > 0 && !matchMedia("(any-hover: hover)").matches;
  return touch ? "Your turn: tap a glowing pit" : "Your turn: pick a glowing pit or press 1–6";
}

/// While the socket is down the board says so, plainly, above it.
function showOffline(seat, playing) {
  const offline = !state.online && !!state.token;
  $("offline").hidden = !offline;
  $("game").classList.toggle("offline-board", offline);
  if (!offline) return;
  const again = Math.max(0, Math.round((state.retryAt - Date.now()) / 1000));
  const when = again ? `trying again in ${again} s` : "reconnecting";
  $("offline").textContent = seat && playing
    ? `Connection lost (${when}). No move can be sent until you are back; the clocks shown are not running for you.`
    : `Connection lost (${when}).`;
}

// The seconds to the next try, counting down while offline.
setInterval(() => {
  const table = state.tables.get(state.watching);
  if (!state.online && table && table.game) showOffline(mySeat(table), table.game.state.status === "playing");
}, 500);

/// The moves of the game beside the board: "1. 3 5×4" (the first mover's pit, the other's,
/// seeds taken).
function showMoves(table) {
  const game = table.game;
  const moves = game.moves || [];
  const list = $("moves");
  if (list.dataset.game === game.id && Number(list.dataset.count) === moves.length) return;
  list.dataset.game = game.id;
  list.dataset.count = String(moves.length);
  const items = [];
  let pits = Array(12).fill(4);
  let row = null;
  moves.forEach((number, ply) => {
    const side = sideOf(ply, game.first);
    const move = sow(table.rules, pits, side, number);
    pits = move.pits;
    const text = `${number}${move.taken ? "×" + move.taken : ""}`;
    if (ply % 2 === 0) {
      row = document.createElement("li");
      row.textContent = text;
      items.push(row);
    } else if (row) {
      row.textContent += ` ${text}`;
    }
  });
  list.replaceChildren(...items);
  list.scrollTop = list.scrollHeight;
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
    b.addEventListener("mouseenter", () => previewFrom(number));
    b.addEventListener("focus", () => previewFrom(number));
    b.addEventListener("mouseleave", clearPreview);
    b.addEventListener("blur", clearPreview);
    let pressed;
    const release = () => { clearTimeout(pressed); clearPreview(); };
    b.addEventListener("touchstart", () => { pressed = setTimeout(() => previewFrom(number), 350); }, { passive: true });
    b.addEventListener("touchend", release);
    b.addEventListener("touchmove", release, { passive: true });
    b.addEventListener("touchcancel", release);
  }
  return b;
}

/// Marks where the last seed of sowing `number` lands, under the table's rules (a relay
/// goes on from where it lands).
function previewFrom(number) {
  clearPreview();
  const table = state.tables.get(state.watching);
  const seat = mySeat(table);
  const at = landing(table.rules, table.game.state.pits, seat, number);
  if (at !== null) $("board").querySelector(`[data-pit="${at}"]`)?.classList.add("preview");
}

function clearPreview() {
  $("board").querySelectorAll(".preview").forEach((p) => p.classList.remove("preview"));
}

function play(number) {
  const table = state.tables.get(state.watching);
  if (state.moving) return;
  const move = { table: table.id, game: table.game.id, pit: number, version: table.version };
  if (!state.online || !send({ type: "move", table: move.table, pit: number, version: move.version })) {
    notice("You are offline: that move was not sent. Play it again when you are back.");
    return;
  }
  state.sent = move;
  state.moving = true;
  showBoard();
}

/// Back in the room after the socket went down with a move unanswered: the snapshot says
/// whether it arrived (the table moved on) or not (the same version, still our turn: it is
/// sent again with that version, which the server plays once at most).
export function resendPending() {
  const p = state.pending;
  state.pending = null;
  const table = p && state.tables.get(p.table);
  if (!table || !table.game || table.game.id !== p.game) return;
  const s = table.game.state;
  if (table.version === p.version && s.status === "playing" && s.to_move === mySeat(table)) {
    if (send({ type: "move", table: p.table, pit: p.pit, version: p.version })) {
      state.sent = p;
      state.moving = true;
      notice(`Your move (pit ${p.pit}) had not reached the server: it was sent again now that you are back.`);
    }
  } else if (table.version > p.version) {
    notice(`Your move (pit ${p.pit}) reached the server before the connection dropped.`);
  }
}

document.addEventListener("keydown", (event) => {
  if (event.target.matches("input, select, textarea")) return;
  if (event.ctrlKey || event.altKey || event.metaKey || event.repeat) return;
  const n = Number(event.key);
  if (!(n >= 1 && n <= 6)) return;
  const table = state.tables.get(state.watching);
  const s = table && table.game && table.game.state;
  const seat = table && mySeat(table);
  if (s && seat && s.status === "playing" && s.to_move === seat && s.legal.includes(n) && !state.moving) {
    event.preventDefault();
    if (!state.online) {
      notice("You are offline: that move was not sent. Play it again when you are back.");
      return;
    }
    if (state.animation) state.animation.skip();
    play(n);
  }
});

/// A move arrived (`game_state`) at the watched table: shown seed by seed from the board
/// before it, under the table's rules; a tap skips to the end.
export function animate(table, before, update) {
  // One sowing at a time: a running one ends at once (its final board is the one before).
  if (state.animation) state.animation.skip();
  const { seat, pit: number } = update.last_move;
  const move = sow(table.rules, before.pits, seat, number);
  table.game.last = { side: seat, number, captured: move.captured, taken: move.taken };
  let timer;
  const token = {};
  const done = () => {
    clearTimeout(timer);
    if (state.animation !== token) return;
    const then = token.then;
    state.animation = null;
    showBoard();
    for (const i of move.captured) $("board").querySelector(`[data-pit="${i}"]`)?.classList.add("captured");
    if (then) then();
  };
  token.skip = done;
  state.animation = token;
  const mine = mySeat(table);
  if (mine && update.state.status === "playing" && update.state.to_move === mine && seat !== mine) turnSound();
  // A long relay is shown faster: the whole of it within about six seconds.
  const stepMs = Math.max(12, Math.min(STEP_MS, 6000 / Math.max(1, move.steps.length)));
  let n = 0;
  const step = () => {
    if (state.animation !== token) return;
    if (n >= move.steps.length) return done();
    const { pits, at, lifted } = move.steps[n];
    showBoard(pits);
    $("board").querySelector(`[data-pit="${at}"]`)?.classList.add(lifted ? "lifted" : "sowing");
    n += 1;
    timer = setTimeout(step, stepMs);
  };
  step();
}

$("board").addEventListener("click", () => {
  if (state.animation) state.animation.skip();
});
