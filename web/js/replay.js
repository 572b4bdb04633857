// A finished game replayed (`GET /games/{id}`): the board at any move, stepped with buttons
// or the keys ← → Home End, a move list to jump from, the clocks as they stood, and a link to
// the move shown. Baba Ayo's review (review.js) marks the moves and draws their values.

import { $, state } from "./state.js";
import { api } from "./connection.js";
import { notice } from "./ui.js";
import { showPage, gameLink } from "./pages.js";
import { presetName } from "./rules.js";
import { loadReview, reviewAt, showReviewAt, resetReview } from "./review.js";

const other = (side) => (side === "south" ? "north" : "south");
const SIDE = { south: "South", north: "North" };
const MARK = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const RESULT = { south_won: "south", north_won: "north", draw: null };

// The game shown, the move it is at (0: before the first), and the side drawn at the bottom.
const replay = { game: null, ply: 0, bottom: "south", seq: 0 };

/// Opens game `id` at move `ply` (the last when not given).
export async function showReplay(id, ply) {
  showPage("replay-page");
  if (replay.game && replay.game.id === id) return go(ply ?? replay.game.plies.length);
  const seq = ++replay.seq;
  replay.game = null;
  resetReview();
  $("replay-title").textContent = "Loading the game…";
  $("replay-body").hidden = true;
  let game;
  try {
    game = await api("GET", "/games/" + encodeURIComponent(id));
  } catch (e) {
    if (seq !== replay.seq) return;
    $("replay-title").textContent = e.code === "game_in_play" ? "This game is still being played: it can be replayed once it is over." : e.status === 404 ? "No such game." : e.message;
    return;
  }
  if (seq !== replay.seq) return;
  replay.game = game;
  // A player sees the game from their own seat, as they played it.
  replay.bottom = state.user && game.players.north.id === state.user.id ? "north" : "south";
  const { south, north } = game.players;
  $("replay-title").textContent = `${south.name} – ${north.name}`;
  $("replay-about").textContent = about(game);
  $("replay-body").hidden = false;
  showMoves();
  go(ply ?? game.plies.length);
  loadReview(game, () => { showMoves(); go(replay.ply); });
}

function nameOf(side) {
  return replay.game.players[side].name;
}

/// "Lagos rules · 3 + 2 · game 2 of the match · South won (resigned) · 7 Dec 2026, 18:30".
function about(game) {
  const clock = game.clock && game.clock.kind !== "none"
    ? (game.clock.kind === "game" ? `${game.clock.minutes} + ${game.clock.increment_seconds}` : `${game.clock.seconds} s a move`)
    : "no clock";
  const winner = RESULT[game.result];
  const result = winner ? `${game.players[winner].name} won` : "drawn";
  const reason = String(game.end_reason).replace(/_/g, " ");
  const number = game.number ? ` · game ${game.number} of its match` : "";
  return `${presetName(game.rules)} · ${clock}${number} · ${result} (${reason}) · ${new Date(game.started_at).toLocaleString()}`;
}

/// Shows the board after move `ply` (0: the start), within the game.
function go(ply) {
  const game = replay.game;
  if (!game) return;
  replay.ply = Math.max(0, Math.min(game.plies.length, Number.isFinite(ply) ? ply : game.plies.length));
  const n = replay.ply;
  const move = n ? game.plies[n - 1] : null;
  const board = move ? move.board : game.start;
  const review = reviewAt(n);
  drawBoard(board, move, review);
  showClocks(move ? move.clocks_ms : game.start_clocks_ms);
  $("replay-ply").dataset.ply = String(n);
  $("replay-ply").textContent = plyText(n, move, review);
  for (const b of $("replay-moves").querySelectorAll("button")) {
    const current = Number(b.dataset.ply) === n;
    b.classList.toggle("current", current);
    if (current) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current");
  }
  keepInSight($("replay-moves"));
  $("replay-first").disabled = $("replay-back").disabled = n === 0;
  $("replay-last").disabled = $("replay-forward").disabled = n === game.plies.length;
  $("replay-link").value = gameLink(game.id, n);
  $("replay-history").textContent = `Games of ${nameOf(replay.bottom)}`;
  // The address names the move shown (a review arriving after the guest left changes nothing).
  if (!$("replay-page").hidden) history.replaceState(null, "", `#game/${encodeURIComponent(game.id)}/${n}`);
  showReviewAt(n);
}

/// The current move's row within the list's own scroll, the page left where it is.
function keepInSight(list) {
  const row = list.querySelector(".current")?.parentElement;
  if (!row) return;
  if (row.offsetTop < list.scrollTop || row.offsetTop + row.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = row.offsetTop - list.clientHeight / 2;
  }
}

function plyText(n, move, review) {
  const total = replay.game.plies.length;
  if (!move) return `Start · ${total} ${total === 1 ? "move" : "moves"} in the game`;
  const took = move.captured ? `, took ${move.captured}` : "";
  const mark = review && review.mark ? ` · ${review.mark}` : "";
  const best = review && review.best ? ` · Baba Ayo would have sown pit ${review.best}` : "";
  return `Move ${n} of ${total}: ${nameOf(move.side)} (${SIDE[move.side]}) sowed pit ${move.pit}${took}${mark}${best}`;
}

/// The board from the bottom side's seat, as board.js draws a table's: their row along the
/// bottom left to right, the other row along the top, each store on its owner's right.
function drawBoard(board, move, review) {
  const me = replay.bottom;
  const them = other(me);
  const base = (side) => (side === "south" ? 0 : 6);
  const cells = [store(them, board, "1", "1 / span 2")];
  for (let k = 5; k >= 0; k--) cells.push(pit(them, k + 1, board.pits[base(them) + k], 1, 7 - k));
  for (let k = 0; k < 6; k++) cells.push(pit(me, k + 1, board.pits[base(me) + k], 2, k + 2));
  cells.push(store(me, board, "8", "1 / span 2"));
  $("replay-board").replaceChildren(...cells);
  const at = (side, number) => $("replay-board").querySelector(`[data-pit="${base(side) + number - 1}"]`);
  if (move) at(move.side, move.pit)?.classList.add("last-move");
  // Where Baba Ayo would have sown instead, on the mover's row.
  if (move && review && review.best) at(move.side, review.best)?.classList.add("best");
}

function pit(side, number, seeds, row, column) {
  const d = document.createElement("div");
  d.className = "pit";
  d.setAttribute("role", "img");
  d.style.gridRow = String(row);
  d.style.gridColumn = String(column);
  d.dataset.pit = String((side === "south" ? 0 : 6) + number - 1);
  d.dataset.testid = `replay-pit-${side}-${number}`;
  d.setAttribute("aria-label", `${nameOf(side)}'s pit ${number}: ${seeds} seeds`);
  d.innerHTML = `${seeds}<small>${number}</small>`;
  return d;
}

function store(side, board, column, rows) {
  const d = document.createElement("div");
  d.className = "store";
  d.dataset.testid = `replay-store-${side}`;
  d.style.gridColumn = column;
  d.style.gridRow = rows;
  const count = document.createElement("span");
  count.textContent = board.stores[side === "south" ? 0 : 1];
  const owner = document.createElement("small");
  owner.textContent = nameOf(side);
  d.append(count, owner);
  d.setAttribute("aria-label", `${nameOf(side)}'s store: ${count.textContent} seeds`);
  return d;
}

/// Both clocks as they stood after the move shown, the bottom side's below the board.
function showClocks(clocks) {
  const me = replay.bottom;
  $("replay-name-top").textContent = `${nameOf(other(me))} (${other(me)})`;
  $("replay-name-bottom").textContent = `${nameOf(me)} (${me})`;
  for (const [id, side] of [["replay-clock-top", other(me)], ["replay-clock-bottom", me]]) {
    $(id).hidden = !clocks;
    if (clocks) $(id).textContent = clockText(clocks[side === "south" ? 0 : 1]);
  }
}

function clockText(ms) {
  const total = Math.ceil(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/// The moves, a turn a row ("1. 3 5×4"), each a button that shows the board after it.
function showMoves() {
  const game = replay.game;
  const rows = [];
  let row = null;
  game.plies.forEach((move, i) => {
    const n = i + 1;
    if (i % 2 === 0) {
      row = document.createElement("li");
      const turn = document.createElement("span");
      turn.className = "turn";
      turn.textContent = `${i / 2 + 1}.`;
      row.appendChild(turn);
      rows.push(row);
    }
    const review = reviewAt(n);
    const b = document.createElement("button");
    b.type = "button";
    b.className = "ply" + (review && review.mark ? ` ${review.mark}` : "");
    b.dataset.ply = String(n);
    b.dataset.testid = "replay-move";
    b.textContent = `${move.pit}${move.captured ? "×" + move.captured : ""}${review && review.mark ? MARK[review.mark] : ""}`;
    b.setAttribute("aria-label", `move ${n}, ${nameOf(move.side)}: pit ${move.pit}${move.captured ? `, took ${move.captured}` : ""}${review && review.mark ? `, ${review.mark}` : ""}`);
    b.addEventListener("click", () => go(n));
    row.appendChild(b);
  });
  $("replay-moves").replaceChildren(...rows);
}

$("replay-first").addEventListener("click", () => go(0));
$("replay-back").addEventListener("click", () => go(replay.ply - 1));
$("replay-forward").addEventListener("click", () => go(replay.ply + 1));
$("replay-last").addEventListener("click", () => go(Infinity));
$("replay-flip").addEventListener("click", () => {
  replay.bottom = other(replay.bottom);
  go(replay.ply);
});
$("replay-history").addEventListener("click", () => {
  const user = replay.game && replay.game.players[replay.bottom];
  if (user) location.hash = "history/" + encodeURIComponent(user.id);
});
$("replay-back-room").addEventListener("click", () => { location.hash = ""; });

/// Copies the link to the move shown; where the page may not use the clipboard (plain http
/// at a LAN address), the link is selected for the guest to copy.
$("replay-copy").addEventListener("click", async () => {
  const link = $("replay-link");
  try {
    await navigator.clipboard.writeText(link.value);
    notice("Link copied: it opens this game at this move.");
  } catch (e) {
    link.select();
    const copied = document.execCommand && document.execCommand("copy");
    notice(copied ? "Link copied: it opens this game at this move." : "The link is selected: copy it from the box.");
  }
});

const KEYS = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };

document.addEventListener("keydown", (event) => {
  if ($("replay-page").hidden || !replay.game || !(event.key in KEYS)) return;
  if (event.target.matches("input, select, textarea") || event.ctrlKey || event.altKey || event.metaKey) return;
  if ($("profile").open) return;
  event.preventDefault();
  const step = KEYS[event.key];
  go(Number.isFinite(step) ? replay.ply + step : step < 0 ? 0 : Infinity);
});
