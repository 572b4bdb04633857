// A guest's games, newest first (`GET /users/{id}/matches`, paged with `before`): filtered by
// opponent and result, each finished game opening its replay. The guest's own from the menu,
// anyone's from their profile card.

import { $, state } from "./state.js";
import { api } from "./connection.js";
import { button } from "./ui.js";
import { showPage } from "./pages.js";

const PAGE = 20;
const RESULT = { won: "Won", lost: "Lost", draw: "Drawn", playing: "In play" };
const REASON = {
  majority: "by seeds", no_legal_move: "no move left", no_capture_limit: "no capture for too long",
  repetition: "by repetition", resigned: "resigned", agreed_draw: "agreed", timeout: "on time",
  abandoned: "abandoned", not_started: "not started",
};

// The list shown: whose, the games read so far (one row a game), and the next page's key.
// `seq` tells an answer for a list since replaced from the current one's.
const shown = { user: null, games: [], next: null, seq: 0 };

/// The games of user `id`, from the newest.
export async function showHistory(id) {
  showPage("history-page");
  Object.assign(shown, { user: { id, name: "" }, games: [], next: null });
  $("history-title").textContent = "Games";
  $("history-games").replaceChildren();
  await more();
}

/// The next page of matches, each game of them a row.
async function more() {
  const seq = ++shown.seq;
  $("history-more").disabled = true;
  const id = shown.user.id;
  const query = `?limit=${PAGE}${shown.next ? "&before=" + encodeURIComponent(shown.next) : ""}`;
  try {
    const page = await api("GET", `/users/${encodeURIComponent(id)}/matches${query}`);
    if (seq !== shown.seq) return;
    shown.user = page.user;
    shown.next = page.next;
    for (const m of page.matches) {
      const games = [...m.games].sort((a, b) => b.number - a.number);
      for (const g of games) shown.games.push(row(m, g, page.user.id));
    }
    render();
  } catch (e) {
    if (seq !== shown.seq) return;
    $("history-empty").textContent = e.status === 404 ? "No such guest." : e.message;
    $("history-empty").hidden = false;
  } finally {
    $("history-more").disabled = false;
  }
}

/// A game as a row: the opponent and the result as the guest whose history this is saw it.
function row(m, g, me) {
  const side = g.south_id === me ? "south" : "north";
  const opponent = m.players.find((p) => p.id !== me) || m.players[0];
  let result = "playing";
  if (g.status === "draw") result = "draw";
  else if (g.status !== "playing") result = g.status === `${side}_won` ? "won" : "lost";
  const many = m.best_of > 1 ? ` · game ${g.number} of best of ${m.best_of}` : "";
  return { id: g.id, opponent, result, reason: g.end_reason, plies: g.plies, at: g.ended_at || g.started_at, side, many };
}

function render() {
  const mine = shown.user.id === (state.user && state.user.id);
  $("history-title").textContent = mine ? "Your games" : `Games of ${shown.user.name}`;
  const who = $("history-opponent").value.trim().toLowerCase();
  const result = $("history-result").value;
  const games = shown.games.filter((g) => (!who || g.opponent.name.toLowerCase().includes(who)) && (!result || g.result === result));
  $("history-games").replaceChildren(...games.map((g) => {
    const li = document.createElement("li");
    li.dataset.game = g.id;
    li.dataset.result = g.result;
    const text = document.createElement("span");
    const reason = g.reason && REASON[g.reason] ? ` (${REASON[g.reason]})` : "";
    text.textContent = `${RESULT[g.result]}${reason} against ${g.opponent.name}${g.opponent.house ? " (house)" : ""}, as ${g.side} · ${g.plies} moves${g.many} · ${new Date(g.at).toLocaleString()}`;
    li.appendChild(text);
    if (g.result !== "playing") {
      li.appendChild(button("Replay", () => { location.hash = "game/" + encodeURIComponent(g.id); }, "history-open"));
    }
    return li;
  }));
  const empty = games.length === 0;
  $("history-empty").hidden = !empty;
  $("history-empty").textContent = shown.games.length ? "No game matches those choices." : "No games yet.";
  $("history-more").hidden = !shown.next;
}

$("history-opponent").addEventListener("input", () => shown.user && render());
$("history-result").addEventListener("change", () => shown.user && render());
$("history-more").addEventListener("click", more);
