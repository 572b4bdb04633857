// Baba Ayo's review of the game replayed: asked for (`POST /games/{id}/review`), then read
// as it ends (`GET .../review?wait=30`); drawn as his value for South at every move (inline
// SVG, in seeds), the move shown marked on it, and each move's mark and better pit.

import { $ } from "./state.js";
import { api } from "./connection.js";

const SVG = "http://www.w3.org/2000/svg";
const [W, H] = [600, 140];

// The game's review: its moves by ply once done; `seq` tells a stale answer from another
// game's or an earlier one's.
const review = { game: null, moves: null, seq: 0, redraw: null, status: "" };

export function resetReview() {
  review.seq += 1;
  Object.assign(review, { game: null, moves: null, redraw: null, status: "" });
  $("review-graph").replaceChildren();
  $("review-graph").hidden = true;
  $("review-at").textContent = "";
  $("review-status").textContent = "";
  $("review-ask").hidden = true;
}

/// The reviewed move `ply` (from 1), once the review is done.
export function reviewAt(ply) {
  return (review.moves && review.moves.get(ply)) || null;
}

/// Reads the game's review if one was asked for; otherwise offers to ask. `redraw()` is
/// called once the review is in, for the moves and the board to show it.
export async function loadReview(game, redraw) {
  const seq = review.seq;
  Object.assign(review, { game, redraw });
  // Nobody asked yet (the game says so): offered.
  if (!game.review) {
    $("review-ask").hidden = game.plies.length === 0;
    return;
  }
  try {
    const found = await api("GET", `/games/${encodeURIComponent(game.id)}/review`);
    if (seq === review.seq) follow(found, seq);
  } catch (e) {
    if (seq === review.seq) $("review-status").textContent = e.message;
  }
}

$("review-ask").addEventListener("click", async () => {
  const seq = review.seq;
  const game = review.game;
  if (!game) return;
  $("review-ask").disabled = true;
  $("review-status").textContent = "Asking Baba Ayo…";
  try {
    const asked = await api("POST", `/games/${encodeURIComponent(game.id)}/review`);
    if (seq === review.seq) follow(asked, seq);
  } catch (e) {
    if (seq !== review.seq) return;
    $("review-status").textContent = e.code === "no_reviews_left"
      ? "You have asked Baba Ayo for all the reviews he gives a guest in one day. Ask again tomorrow."
      : e.message;
  } finally {
    $("review-ask").disabled = false;
  }
});

/// Shows `r` and, while it waits its turn, asks again until it ends.
async function follow(r, seq) {
  const game = review.game;
  while (r.status === "waiting") {
    $("review-ask").hidden = true;
    $("review-status").textContent = "Baba Ayo is looking at the game…";
    try {
      r = await api("GET", `/games/${encodeURIComponent(game.id)}/review?wait=30`);
    } catch (e) {
      if (seq !== review.seq) return;
      $("review-status").textContent = e.message;
      await new Promise((done) => setTimeout(done, 3000));
    }
    if (seq !== review.seq) return;
  }
  if (r.status === "failed") {
    $("review-status").textContent = `Baba Ayo could not review this game${r.error ? ": " + r.error : ""}.`;
    return;
  }
  $("review-ask").hidden = true;
  review.moves = new Map(r.moves.map((m) => [m.ply, m]));
  const marks = r.moves.filter((m) => m.mark).length;
  $("review-status").textContent = `Baba Ayo's review: ${marks} ${marks === 1 ? "move" : "moves"} marked. The line is his value for South, in seeds, move by move.`;
  if (review.redraw) review.redraw();
}

/// Baba Ayo's value for South after move `ply` (0: before the first).
function southValue(ply) {
  const m = review.moves.get(ply || 1);
  if (!m) return null;
  const value = ply ? m.after : m.before;
  return m.side === "south" ? value : -value;
}

/// The graph with move `ply` marked, and what Baba Ayo says of that move.
export function showReviewAt(ply) {
  if (!review.moves || !review.game) return;
  const total = review.game.plies.length;
  const values = [];
  for (let n = 0; n <= total; n++) values.push(southValue(n));
  const known = values.filter((v) => v !== null);
  const top = Math.max(4, ...known.map(Math.abs));
  const x = (n) => (total ? (n / total) * (W - 20) + 10 : W / 2);
  const y = (v) => H / 2 - (v / top) * (H / 2 - 10);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `Baba Ayo's value for South at each move, from ${-top} to ${top} seeds; move ${ply} marked${values[ply] !== null ? `: ${values[ply]} seeds` : ""}`);
  svg.dataset.testid = "review-graph";
  const add = (name, attrs) => {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    svg.appendChild(e);
    return e;
  };
  add("line", { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: "zero" });
  const points = values.map((v, n) => (v === null ? null : `${x(n).toFixed(1)},${y(v).toFixed(1)}`)).filter(Boolean);
  add("polyline", { points: points.join(" "), class: "value" });
  for (const m of review.moves.values()) {
    if (m.mark) add("circle", { cx: x(m.ply), cy: y(southValue(m.ply) ?? 0), r: 4, class: `mark ${m.mark}` });
  }
  add("line", { x1: x(ply), x2: x(ply), y1: 0, y2: H, class: "now", "data-ply": ply });
  $("review-graph").replaceChildren(svg);
  $("review-graph").hidden = false;
  const m = ply ? review.moves.get(ply) : null;
  const value = values[ply];
  const lead = value === null ? "" : value === 0 ? "Level." : `${value > 0 ? "South" : "North"} ahead by ${Math.abs(value)} ${Math.abs(value) === 1 ? "seed" : "seeds"}${m && m.exact ? " (proven)" : ""}.`;
  let said = "";
  if (m && m.mark) said = ` ${m.mark === "inaccuracy" ? "An" : "A"} ${m.mark}: it gave away ${m.loss} ${m.loss === 1 ? "seed" : "seeds"}.`;
  if (m && m.best) said += ` Baba Ayo would have sown pit ${m.best} (marked on the board).`;
  $("review-at").textContent = `${lead}${said}`;
  $("review-at").dataset.mark = (m && m.mark) || "";
}
