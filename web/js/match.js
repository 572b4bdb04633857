// The match around the board: the score, the clocks, the game's and the match's buttons
// (resigning asks once more), the wait between games, results, the rematch, an opponent who
// dropped and their grace counting down; invitations with their countdown, and draw offers.

import { $, state, serverNow, countdown, matchInPlay } from "./state.js";
import { send } from "./connection.js";
import { button, notice } from "./ui.js";

// ---- Words -----------------------------------------------------------------------------------

/// A time control as the server writes one (`{"kind": "game", "minutes": 3, ...}`) from the
/// word a client sends (`"3+2"`), and back.
export function parseClock(word) {
  if (!word || word === "none") return { kind: "none" };
  const plus = word.match(/^(\d+)\+(\d+)$/);
  if (plus) return { kind: "game", minutes: Number(plus[1]), increment_seconds: Number(plus[2]) };
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[word.slice(-1)];
  return { kind: "per_move", seconds: Number(word.slice(0, -1)) * (unit || 1) };
}

/// "3 + 2", "90 s a move", "no clock".
export function controlText(control) {
  if (!control || control.kind === "none") return "no clock";
  if (control.kind === "game") return `${control.minutes} + ${control.increment_seconds}`;
  const s = control.seconds;
  if (s % 86400 === 0) return `${s / 86400} day${s > 86400 ? "s" : ""} a move`;
  if (s % 3600 === 0) return `${s / 3600} hour${s > 3600 ? "s" : ""} a move`;
  if (s % 60 === 0) return `${s / 60} min a move`;
  return `${s} s a move`;
}

export function bestOfText(n) {
  return n > 1 ? `best of ${n}` : "one game";
}

/// Half points as people write them: 1½, ½, 2.
function points(p) {
  const whole = Math.floor(p);
  const half = p - whole >= 0.5;
  return half ? (whole ? `${whole}½` : "½") : String(whole);
}

/// The match score as the viewer sees it: "you 1½ – ½ Bisi", or "Ade 1½ – ½ Bisi" for an
/// onlooker.
export function scoreText(m) {
  const me = m.players.findIndex((p) => p.id === state.user.id);
  const [a, b] = me === 1 ? [1, 0] : [0, 1];
  const name = (i) => (i === me ? "you" : m.players[i].name);
  return `${name(a)} ${points(m.points[a])} – ${points(m.points[b])} ${name(b)}`;
}

const GAME_WINS = { resigned: " by resignation", timeout: " on time", not_started: " (not started)", abandoned: " (abandoned)" };

/// Who won a game of the match, and how: "Ade won on time", "draw".
function gameWinner(m, g) {
  if (g.result === "draw") return "draw";
  const id = g.result === "south_won" ? g.south : g.north;
  const who = m.players.find((p) => p.id === id);
  return `${who ? (who.id === state.user.id ? "you" : who.name) : "?"} won${GAME_WINS[g.reason] || ""}`;
}

const MATCH_ENDS = {
  games: "",
  resigned: "resigned",
  agreed_draw: "agreed draw",
  no_start: "nobody started the next game",
  abandoned: "abandoned",
  called_off: "called off",
};

/// "Baba Ayo wins the match 2–0", "You win the match: Bisi resigned it at 1–1 in games",
/// "Match drawn 1½–1½ (agreed draw)".
function matchResultText(m) {
  const why = MATCH_ENDS[m.end_reason] ?? String(m.end_reason || "").replace(/_/g, " ");
  if (!m.winner) return `Match drawn ${points(m.points[0])}–${points(m.points[1])}${why ? ` (${why})` : ""}`;
  const w = m.players.findIndex((p) => p.id === m.winner.id);
  const score = `${points(m.points[w])}–${points(m.points[1 - w])}`;
  const who = m.winner.id === state.user.id ? "You win the match" : `${m.winner.name} wins the match`;
  if (!why) return `${who} ${score}`;
  // Not won on the games' score: the score is where it stood when the match ended.
  const loser = m.players[1 - w];
  const them = loser.id === state.user.id ? "you" : loser.name;
  if (m.end_reason === "resigned") return `${who}: ${them} resigned it at ${score} in games`;
  if (m.end_reason === "abandoned") return `${who}: ${them} left it at ${score} in games`;
  return `${who} (${why}) at ${score} in games`;
}

/// The rule behind a reason, from the hotel's settings (`GET /champions/rules`, read once).
function accountRule() {
  const r = state.wallRules;
  if (!r || !r.new_account_secs) return "";
  const hours = Math.round(r.new_account_secs / 3600);
  const age = hours >= 1 ? `${hours} hour${hours === 1 ? "" : "s"}` : `${Math.round(r.new_account_secs / 60)} minutes`;
  return ` (an account counts once it is ${age} old or has played ${r.new_account_games} games against people)`;
}

// Why a win is not on today's champions wall, in the guest's words, with the rule.
const NOT_ON_THE_WALL = {
  house: () => "games against Baba Ayo go on the house board (see Champions)",
  too_few_moves: () => `too few moves were played${state.wallRules ? ` (each side must make ${state.wallRules.min_moves})` : ""}`,
  new_account: () => `the winner's account is too new${accountRule()}`,
  new_opponent: () => `the loser's account is too new${accountRule()}`,
  per_opponent_cap: () => `enough wins over this opponent today${state.wallRules ? ` (${state.wallRules.per_opponent_cap} a day count)` : ""}`,
};

function wallText(wall) {
  if (!wall) return "";
  if (wall.counts) return ". It counts for today's champions wall.";
  const why = NOT_ON_THE_WALL[wall.reason];
  return why ? `. Not on the champions wall: ${why()}.` : "";
}

// How a game ended, said of its loser (or of the board).
const GAME_ENDS = {
  majority: () => "more than half the seeds",
  no_legal_move: () => "no move was left",
  no_capture_limit: () => "too long without a capture",
  repetition: () => "the position came round again",
  resigned: (loser) => `${loser} resigned`,
  timeout: (loser) => `${loser === "you" ? "your" : loser + "'s"} time ran out`,
  abandoned: (loser) => `${loser} left the game`,
  agreed_draw: () => "agreed",
};

/// A game's end in words, as people say a result: "You win: more than half the seeds, 26–8",
/// "Baba Ayo wins: you resigned", "Draw: agreed, 20–20".
export function resultText(m) {
  const game = state.tables.get(m.table)?.game;
  const reason = (GAME_ENDS[m.reason] || (() => String(m.reason || "").replace(/_/g, " ")));
  if (m.result === "draw") return `Draw: ${reason("")}, ${m.state.stores[0]}–${m.state.stores[1]}`;
  const [winner, loser] = m.result === "south_won"
    ? [game?.players.south, game?.players.north]
    : [game?.players.north, game?.players.south];
  const [a, b] = m.result === "north_won" ? [m.state.stores[1], m.state.stores[0]] : m.state.stores;
  const who = winner && winner.id === state.user.id ? "You win" : `${winner ? winner.name : "?"} wins`;
  const them = loser && loser.id === state.user.id ? "you" : (loser ? loser.name : "?");
  // Seeds matter when the board decided; a resignation at 0–0 says nothing of them.
  const seeds = ["resigned", "timeout", "abandoned"].includes(m.reason) ? "" : `, ${a}–${b}`;
  return `${who}: ${reason(them)}${seeds}${wallText(m.wall)}`;
}

// ---- The match bar and buttons ------------------------------------------------------------------

/// The match around the board: the score, the buttons for a game and for the match, the wait
/// between games, the result, the rematch, an opponent away.
export function showMatch(table, seat) {
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
  // Berserk: in an arena game that allows it, before one's own first move, once.
  const ownPlies = game && game.moves ? game.moves.filter((_, i) => (i % 2 === 0) === (game.first === seat)).length : 0;
  $("berserk").hidden = !(seat && playing && Array.isArray(game.berserk) && !game.berserk.includes(seat) && ownPlies === 0);
  // A confirmation asked about another game, or of a button gone, is off.
  for (const id of ["resign", "resign-match"]) {
    if (confirming.has(id) && confirming.get(id).game !== gameShown()) disarm(id);
  }
  if (!confirming.has("resign")) $("resign").textContent = series ? "Resign game" : "Resign";
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
    $("rematch-area").dataset.other = r.pressed[1 - rematcher] && !other.house ? `${other.name} wants a rematch` : "";
  }
}

// Resigning asks once more: the first press turns the button into "Really resign?" for a few
// seconds; the second resigns.
// The second press counts only after a moment (a double click is one press) and only for the
// game it was asked about.
const confirming = new Map();

function gameShown() {
  const table = state.tables.get(state.watching);
  return table && table.game ? `${table.id}/${table.game.id}` : null;
}

function disarm(id) {
  const armed = confirming.get(id);
  if (!armed) return;
  clearTimeout(armed.timer);
  confirming.delete(id);
  $(id).textContent = armed.was;
  $(id).classList.remove("confirming");
}

function confirmThen(id, question, act) {
  $(id).addEventListener("click", () => {
    const armed = confirming.get(id);
    if (armed && armed.game === gameShown()) {
      if (Date.now() - armed.at < 250) return;
      disarm(id);
      act();
      return;
    }
    disarm(id);
    const was = $(id).textContent;
    $(id).textContent = question;
    $(id).classList.add("confirming");
    const timer = setTimeout(() => disarm(id), 4000);
    confirming.set(id, { timer, was, at: Date.now(), game: gameShown() });
  });
}

confirmThen("resign", "Really resign? Press again", () => {
  send({ type: "resign", table: state.watching, scope: "game" });
});
confirmThen("resign-match", "Resign the whole match? Press again", () => {
  send({ type: "resign", table: state.watching, scope: "match" });
});
$("berserk").addEventListener("click", () => {
  send({ type: "berserk", table: state.watching });
  $("berserk").hidden = true;
});
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

// ---- Clocks and countdowns ----------------------------------------------------------------------

/// Milliseconds left on `side`'s clock now: its running clock counts down from the server's
/// reading, and stops at 0 (the server decides when the flag falls).
function clockLeft(clock, side, now) {
  const ms = side === "south" ? clock.south_ms : clock.north_ms;
  if (clock.running !== side) return ms;
  return Math.max(0, ms - Math.max(0, now - clock.server_time));
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

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/// The moving parts, ten times a second: the clocks, the countdowns between games and for a
/// rematch, a player away in their grace, and invitations running out.
export function tick() {
  tickInvitations();
  const table = state.tables.get(state.watching);
  const game = table && table.game;
  const clock = game && game.clock;
  for (const id of ["clock-me", "clock-them"]) {
    const el = $(id);
    el.hidden = !clock;
    if (!clock) continue;
    const side = el.dataset.side;
    // Offline, the server's clocks are not known here: shown stopped where they were.
    const offline = !state.online;
    const left = clockLeft(clock, side, offline ? state.offlineAt : serverNow());
    const text = formatClock(left);
    const label = `${side}'s clock: ${text}${offline ? " (not running while you are offline)" : ""}`;
    if (el.textContent !== text) el.textContent = text;
    if (el.getAttribute("aria-label") !== label) el.setAttribute("aria-label", label);
    el.classList.toggle("stopped", offline);
    el.classList.toggle("running", !offline && clock.running === side);
    el.classList.toggle("low", left < 10000);
  }
  if (!table || !game) return;
  const m = table.match;
  if (!$("between").hidden && m && m.between) {
    const ready = m.players.map((p, i) => `${p.name} ${m.between.ready[i] ? "✓" : "…"}`).join(" · ");
    setText($("between-text"), `Game ${m.game}: ${ready} · ${countdown(m.between.deadline_ms)} to start`);
  }
  if (!$("rematch-area").hidden && table.rematch) {
    const other = $("rematch-area").dataset.other;
    setText($("rematch-text"), `${other ? other + " · " : ""}${countdown(table.rematch.deadline_ms)} left for a rematch`);
  }
  // A player of this game dropped: say so, with the grace counting down.
  // (Until they are `back`, the match ends, or the seat is no longer theirs.)
  const away = [...state.away.values()].filter((a) => a.table === table.id && table.seats[a.seat]?.id === a.user.id && matchInPlay(table));
  $("away").hidden = away.length === 0;
  if (away.length) {
    setText($("away"), away.map((a) => `${a.user.name} lost their connection: ${countdown(a.until)} to come back before the game is lost`).join(" · "));
  }
}

setInterval(tick, 100);

// ---- Invitations and draws ----------------------------------------------------------------------

/// An invitation to a table, with Accept and Decline and its time left; when it runs out it
/// says so and goes a little later.
export function showInvitation(m) {
  const div = document.createElement("div");
  div.className = "invitation";
  div.dataset.id = m.id;
  div.dataset.testid = "invitation";
  const text = document.createElement("span");
  const how = m.settings ? ` ${controlText(m.settings.clock)}, ${bestOfText(m.settings.best_of)}.` : "";
  text.textContent = `${m.from.name} invites you to play Ayo.${how}`;
  const left = document.createElement("span");
  left.className = "left";
  left.dataset.testid = "invitation-left";
  div.append(
    text,
    left,
    button("Accept", () => { send({ type: "respond", invitation: m.id, accept: true }); dropInvitation(m.id); }, "accept"),
    button("Decline", () => { send({ type: "respond", invitation: m.id, accept: false }); dropInvitation(m.id); }, "decline"),
  );
  $("invitations").appendChild(div);
  if (m.expires_at) state.invitations.set(m.id, { expires_at: m.expires_at, left, room: m.room });
}

/// Entering another room: the table invitations of the room left are void.
export function dropInvitationsOutside(room) {
  $("invitations").querySelectorAll("[data-id]").forEach((div) => {
    const invitation = state.invitations.get(div.dataset.id);
    if (!invitation || invitation.room !== room) dropInvitation(div.dataset.id);
  });
}

/// An invitation answered, withdrawn or run out: its card goes (with `text`, it stays a few
/// seconds saying what became of it).
export function dropInvitation(id, text) {
  const div = $("invitations").querySelector(`[data-id="${CSS.escape(String(id))}"]`);
  state.invitations.delete(id);
  if (!div) return;
  if (!text) return div.remove();
  div.classList.add("expired");
  div.querySelectorAll("button").forEach((b) => b.remove());
  div.querySelector(".left")?.replaceChildren(text);
  setTimeout(() => div.remove(), 5000);
}

function tickInvitations() {
  for (const [id, invitation] of state.invitations) {
    if (serverNow() >= invitation.expires_at) dropInvitation(id, "This invitation expired.");
    else setText(invitation.left, `${countdown(invitation.expires_at)} left`);
  }
}

export function dropDrawOffer(table) {
  $("invitations").querySelectorAll(`[data-draw="${CSS.escape(table)}"]`).forEach((d) => d.remove());
}

export function showDrawOffer(m) {
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
