// Play someone now: the room's pool (docs/protocol.md, "Play someone now"). A small form (the
// rule family of the room's tables, a clock, rated or casual, the opponent's rating if the
// guest cares) and its button; while the guest waits, how many wait for the same game and
// Cancel; a pairing in the bar with its time to answer, Accept or Decline; after a long wait
// with nobody, Baba Ayo offered at a free table.

import { $, state, CLOCKS, LEVELS, serverNow, countdown, timeOf, seatAt, matchInPlay } from "./state.js";
import { send } from "./connection.js";
import { button, option, notice, sentence, turnSound } from "./ui.js";
import { parseClock, controlText } from "./match.js";
import { familyOf, ratingOf } from "./profile.js";
import { tableName } from "./queue.js";

const FAMILIES = {
  abapa: "Abapa (one lap, captures of 2 and 3)",
  ayoayo: "Ayoayo (relay sowing, fours)",
};
const FAMILY_SHORT = { abapa: "Abapa", ayoayo: "Ayoayo" };
// The clock a seek asks for when the guest does not choose (the server's default too).
const DEFAULT_CLOCK = "5m";

// The refs of what this module sent, so a refusal of one is shown here, in the panel.
const sent = new Set();
// A refusal that lasts (`seek_cooldown`): until when (server ms), shown counting down.
let coolingUntil = 0;

/// The clock as the server writes it in `seeking` and `seeks` ("5m" is "300s").
function clockKey(word) {
  const c = parseClock(word);
  if (c.kind === "none") return "none";
  if (c.kind === "game") return `${c.minutes}+${c.increment_seconds}`;
  return `${c.seconds}s`;
}

/// "Abapa · 5 min a move · rated".
function kindText(family, clock, rated) {
  return `${FAMILY_SHORT[family] || family} · ${controlText(parseClock(clock))} · ${rated ? "rated" : "casual"}`;
}

/// How many wait in the room's pool for that game (those with a pairing open are not counted).
function waitingFor(family, clock, rated) {
  const c = state.seekCounts.find((x) => x.family === family && x.clock === clock && x.rated === rated);
  return c ? c.waiting : 0;
}

/// The rule families the room's tables play, in the tables' order.
function familiesHere() {
  const found = [];
  for (const t of state.tables.values()) {
    const f = familyOf(t.rules);
    if (f && !found.includes(f)) found.push(f);
  }
  return found;
}

function seatedHere() {
  return [...state.tables.values()].some((t) => seatAt(t));
}

/// The panel as things stand: the form, or the wait with its count and Cancel.
export function renderSeek() {
  const families = familiesHere();
  $("seek").hidden = !state.room || families.length === 0;
  if ($("seek").hidden) return;
  const family = $("seek-family");
  if ([...family.options].map((o) => o.value).join() !== families.join()) {
    const was = family.value;
    family.replaceChildren(...families.map((f) => option(f, FAMILIES[f] || f)));
    if (families.includes(was)) family.value = was;
  }
  const seated = seatedHere();
  // Sitting down anywhere in the room takes the guest out of the pool.
  if (seated && state.seek) endSeek();
  const waiting = !!state.seek;
  $("seek-form").hidden = waiting;
  $("seek-waiting").hidden = !waiting;
  $("seek-button").disabled = seated || !!state.pairing;
  if (waiting) {
    const s = state.seek;
    const n = waitingFor(s.family, s.clock, s.rated);
    $("seek-count").textContent = n > 1 ? `${n} waiting for this game, you included.` : "Nobody else is waiting for this game yet.";
  } else if (seated) {
    $("seek-count").textContent = "You have a seat here: stand up to look for an opponent.";
  } else {
    const n = waitingFor(family.value, clockKey($("seek-clock").value), $("seek-rated").value === "rated");
    $("seek-count").textContent = n ? `${n} waiting for this game now.` : "Nobody is waiting for this game yet.";
  }
  tick();
}

/// A `room` snapshot: the pool's counts, and the guest out of any pool when the room is
/// another or the connection new (the server let the old one's seek go).
export function seekRoom(m, fresh) {
  state.seekCounts = m.seeks || [];
  if (fresh) {
    endSeek();
    dropPairing();
    coolingUntil = 0;
    $("seek-error").textContent = "";
  }
  renderSeek();
}

function endSeek() {
  state.seek = null;
  $("invitations").querySelectorAll("[data-testid=seek-house]").forEach((d) => d.remove());
}

function dropPairing() {
  state.pairing = null;
  $("invitations").querySelectorAll("[data-pairing]").forEach((d) => d.remove());
}

/// Sends `message` from this module, keeping its ref to know its refusal.
function sendOwn(message) {
  if (!send(message)) return notice("Not connected just now: try again in a moment.");
  sent.add(message.ref);
}

export const seekHandlers = {
  seeking(m) {
    state.seek = { family: m.family, clock: m.clock, rated: m.rated, since: m.since };
    coolingUntil = 0;
    $("seek-error").textContent = "";
    renderSeek();
  },
  seeks(m) {
    state.seekCounts = m.counts;
    renderSeek();
  },
  pairing(m) {
    $("invitations").querySelectorAll("[data-pairing]").forEach((d) => d.remove());
    const div = document.createElement("div");
    div.className = "invitation";
    div.dataset.pairing = m.pairing;
    div.dataset.testid = "pairing";
    const text = document.createElement("span");
    const rating = ratingOf(m.opponent, m.family);
    text.textContent = `A game now against ${m.opponent.name}${rating ? ` (${rating})` : ""}: ${kindText(m.family, m.clock, m.rated)}, at ${tableName(m.table)}.`;
    const left = document.createElement("span");
    left.className = "left";
    left.dataset.testid = "pairing-left";
    const answer = (accept) => {
      sendOwn({ type: "pairing_answer", pairing: m.pairing, accept });
      if (!state.pairing || state.pairing.id !== m.pairing) return;
      state.pairing[accept ? "accepted" : "declined"] = true;
      div.querySelectorAll("button").forEach((b) => b.remove());
      text.textContent = accept ? `You accepted: waiting for ${m.opponent.name} to accept…` : "You declined the game.";
    };
    div.append(text, left, button("Accept", () => answer(true), "pairing-accept"), button("Decline", () => answer(false), "pairing-decline"));
    $("invitations").appendChild(div);
    state.pairing = { id: m.pairing, until: m.until, opponent: m.opponent, left, accepted: false, declined: false };
    turnSound();
    renderSeek();
  },
  pairing_over(m) {
    const mine = state.pairing && state.pairing.id === m.pairing ? state.pairing : { accepted: false, declined: false, opponent: null };
    dropPairing();
    const who = mine.opponent ? mine.opponent.name : "Your opponent";
    // Who is still in the pool follows from the reason and one's own answer.
    const back = {
      started: false,
      declined: !mine.declined,
      lapsed: mine.accepted,
      left: !seatedHere(),
      table_taken: true,
    }[m.reason] ?? false;
    const words = {
      started: "Both accepted: your game begins.",
      declined: mine.declined ? "You declined the game: you may look again after a short wait." : `${who} declined: still looking for an opponent.`,
      lapsed: mine.accepted ? `${who} did not answer in time: still looking for an opponent.` : "You did not answer in time: you may look again after a short wait.",
      left: back ? `${who} went: still looking for an opponent.` : "",
      table_taken: "The table was taken meanwhile: still looking for an opponent.",
    }[m.reason];
    if (!back) endSeek();
    if (words) notice(words);
    renderSeek();
  },
  seek_house(m) {
    $("invitations").querySelectorAll("[data-testid=seek-house]").forEach((d) => d.remove());
    const div = document.createElement("div");
    div.className = "invitation";
    div.dataset.testid = "seek-house";
    const text = document.createElement("span");
    text.textContent = `Nobody yet for ${FAMILY_SHORT[m.family] || m.family} after ${Math.round(m.waited_ms / 1000)} s. Baba Ayo would play you now.`;
    const level = document.createElement("select");
    level.dataset.testid = "seek-house-level";
    level.setAttribute("aria-label", "Baba Ayo's level");
    for (const l of LEVELS) level.appendChild(option(l, l));
    level.value = "normal";
    div.append(
      text,
      level,
      button("Play Baba Ayo", () => playHouse(m.family, level.value, div), "seek-play-house"),
      button("Keep looking", () => div.remove(), "seek-keep-looking"),
    );
    $("invitations").appendChild(div);
  },
};

/// Baba Ayo at a free table of the family, with the clock the guest sought; sitting there
/// takes the guest out of the pool.
function playHouse(family, level, offer) {
  const free = [...state.tables.values()].find((t) => familyOf(t.rules) === family
    && !t.seats.south && !t.seats.north && !matchInPlay(t)
    && !(t.queue && (t.queue.waiting.length || t.queue.called.length)));
  if (!free) {
    $("seek-error").textContent = "No table is free for Baba Ayo just now: still looking for an opponent.";
    return;
  }
  offer.remove();
  sendOwn({ type: "play_house", table: free.id, level, clock: state.seek ? state.seek.clock : DEFAULT_CLOCK, best_of: 1, seats: "kept" });
}

/// A refusal of something this module sent, shown in the panel: true when it was one.
export function seekRefused(m) {
  if (!sent.delete(m.ref)) return false;
  if (m.code === "no_such_pairing") dropPairing();
  if (m.code === "seek_cooldown" && m.until) {
    coolingUntil = m.until;
  } else {
    $("seek-error").textContent = sentence(m.message);
  }
  renderSeek();
  return true;
}

/// The moving parts: the pairing's time to answer, the wait so far, the cooldown.
function tick() {
  if (state.pairing) setText(state.pairing.left, `${countdown(state.pairing.until)} left`);
  if (state.seek) {
    const secs = Math.max(0, Math.floor((serverNow() - state.seek.since) / 1000));
    setText($("seek-waiting-text"), `Looking for an opponent: ${kindText(state.seek.family, state.seek.clock, state.seek.rated)}. Waiting ${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}.`);
  }
  if (coolingUntil) {
    if (serverNow() >= coolingUntil) {
      coolingUntil = 0;
      setText($("seek-error"), "");
    } else {
      setText($("seek-error"), `You let a game go, so you may look again at ${timeOf(coolingUntil)} (in ${countdown(coolingUntil)}).`);
    }
  }
}

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

setInterval(tick, 250);

for (const [value, label] of CLOCKS) $("seek-clock").appendChild(option(value, label));
$("seek-clock").value = DEFAULT_CLOCK;
for (const id of ["seek-family", "seek-clock", "seek-rated"]) $(id).addEventListener("change", renderSeek);

$("seek-form").addEventListener("submit", (event) => {
  event.preventDefault();
  $("seek-error").textContent = "";
  const message = {
    type: "seek",
    family: $("seek-family").value,
    clock: $("seek-clock").value,
    rated: $("seek-rated").value === "rated",
  };
  // The range is the guest's only when they give it; the server judges it.
  for (const [id, key] of [["seek-min", "min_rating"], ["seek-max", "max_rating"]]) {
    const value = $(id).value.trim();
    if (value) message[key] = Math.round(Number(value));
  }
  sendOwn(message);
});

$("unseek").addEventListener("click", () => {
  // No reply but the room's counts: the guest is out at once.
  sendOwn({ type: "unseek" });
  endSeek();
  renderSeek();
});
