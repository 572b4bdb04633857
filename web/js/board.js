// The board of the table being watched: pits and stores from the viewer's side, the sowing
// shown seed by seed, the preview of where a sowing ends, the last move marked, the move list,
// and playing by click, tap or the keys 1-6.

import { $, state, mySeat } from "./state.js";
import { send } from "./connection.js";
import { sow, landing, replay } from "./sowing.js";
import { turnTitle, turnSound } from "./ui.js";
import { showMatch, tick } from "./match.js";

const STEP_MS = 110;

const other = (side) => (side === "south" ? "north" : "south");

/// What the last move did, for its marks: kept on the game from the move's own message, or
/// worked out from the moves after a reload.
function lastMove(table) {
  const game = table.game;
  if (!game.last && game.moves && game.moves.length) game.last = replay(table.rules, game.moves).last;
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
  const canPlay = turn && !state.animation && !state.moving;
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
  $("opponent").textContent = `${players[them].name}${players[them].house ? " (house)" : ""}`;
  $("myself").textContent = seat ? `You (${seat})` : `${players[me].name} (watching)`;
  // The score as the viewer sits: "you 26 – 8 Kemi", or the two names for an onlooker.
  const [mineStore, theirStoreCount] = [s.stores[me === "south" ? 0 : 1], s.stores[them === "south" ? 0 : 1]];
  $("score").textContent = `${seat ? "you" : players[me].name} ${mineStore} – ${theirStoreCount} ${players[them].name}`;
  // Whose turn it is, as soon as it is: the opponent's sowing may still be being shown.
  $("turn").textContent = s.status === "playing"
    ? (turn ? (canPlay ? "Your turn: pick a glowing pit or press 1–6" : "Your turn") : `${players[s.to_move].name} to sow`)
    : "";
  turnTitle(turn);
  $("clock-me").dataset.side = me;
  $("clock-them").dataset.side = them;
  showMoves(table);
  showMatch(table, seat);
  tick();
}

/// The moves of the game beside the board: "1. 3 5×4" (South's pit, North's pit, seeds taken).
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
    const side = ply % 2 === 0 ? "south" : "north";
    const move = sow(table.rules, pits, side, number);
    pits = move.pits;
    const text = `${number}${move.taken ? "×" + move.taken : ""}`;
    if (side === "south") {
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
  if (s && seat && s.status === "playing" && s.to_move === seat && s.legal.includes(n) && !state.moving) {
    event.preventDefault();
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
