// A guest's profile card (`GET /users/{id}`): ratings, won/drawn/lost, recent games (each
// opens its replay), the viewer's record against them, and a way to all their games. Opened
// from any name shown (the room's list, a table's seats, chat); names carry their rating
// where the server sends one.

import { $ } from "./state.js";
import { api } from "./connection.js";
import { button } from "./ui.js";
import { followButton } from "./friends.js";

/// The rating family a table's rules are rated in: one lap and captures of 2-3 is `abapa`
/// (lagos, kontest, oware), relay sowing with fours `ayoayo`; anything else is not rated.
export function familyOf(rules) {
  if (!rules) return null;
  if (rules.sowing === "single" && rules.capture === "two_three") return "abapa";
  if (rules.sowing === "relay" && rules.capture === "four") return "ayoayo";
  if (!rules.sowing) return rules.preset === "ayoayo" ? "ayoayo" : "abapa";
  return null;
}

/// A user's shown rating in `family` ("1540?"), if the frame carried one.
export function ratingOf(user, family) {
  return (user && user.ratings && family && user.ratings[family]) || "";
}

/// A name as a button that opens its card: "Kemi 1540?" with the rating when known.
export function nameButton(user, { family = null, suffix = "", testid = "name" } = {}) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "name link";
  b.dataset.testid = testid;
  b.dataset.user = user.id;
  b.textContent = user.name + suffix;
  const rating = ratingOf(user, family);
  if (rating) {
    const r = document.createElement("span");
    r.className = "rating";
    r.dataset.testid = "rating";
    r.textContent = ` ${rating}`;
    b.appendChild(r);
  }
  b.setAttribute("aria-label", `${user.name}${rating ? `, rated ${rating}` : ""}: profile`);
  b.addEventListener("click", (event) => {
    event.stopPropagation();
    showProfile(user);
  });
  return b;
}

const RESULT = { won: "Won", lost: "Lost", draw: "Drew" };

/// The card of `user` ({id, name}), read fresh from the server.
export async function showProfile(user) {
  const dialog = $("profile");
  $("profile-name").textContent = user.name || "";
  $("profile-body").replaceChildren(line("Loading…"));
  $("profile-games-slot").replaceChildren();
  if (!dialog.open) dialog.showModal();
  let p;
  try {
    p = await api("GET", "/users/" + encodeURIComponent(user.id));
  } catch (e) {
    $("profile-body").replaceChildren(line(e.status === 404 ? "No such guest." : e.message));
    return;
  }
  $("profile-name").textContent = p.user.name + (p.user.house ? " (house)" : "");
  const parts = [];
  parts.push(line(p.ratings.length
    ? "Rating: " + p.ratings.map((r) => `${r.shown} ${r.family === "abapa" ? "Abapa" : "Ayoayo"} (${r.games} ${r.games === 1 ? "game" : "games"})`).join(" · ")
    : "Not rated yet.", "profile-ratings"));
  const rec = p.record;
  parts.push(line(`Won ${rec.won} · drawn ${rec.drawn} · lost ${rec.lost}`, "profile-record"));
  if (p.head_to_head) {
    const g = p.head_to_head.games;
    parts.push(line(g.played
      ? `You against ${p.user.name}: won ${g.won[0]}, lost ${g.won[1]}, drawn ${g.drawn} (${g.played} ${g.played === 1 ? "game" : "games"})`
      : `You have not played ${p.user.name} yet.`, "profile-h2h"));
  }
  if (p.recent.length) {
    const h = document.createElement("h4");
    h.textContent = "Recent games";
    const list = document.createElement("ul");
    list.className = "recent";
    list.dataset.testid = "profile-recent";
    for (const g of p.recent) {
      const li = document.createElement("li");
      const change = g.rating ? ` (${g.rating.change >= 0 ? "+" : ""}${Math.round(g.rating.change)})` : "";
      const open = button(`${RESULT[g.result] || g.result} against ${g.opponent.name}${change}`, () => openGame(g.game), "profile-game");
      open.className = "link";
      li.appendChild(open);
      if (g.ended_at) li.append(` · ${new Date(g.ended_at).toLocaleDateString()}`);
      list.appendChild(li);
    }
    parts.push(h, list);
  }
  const games = button(`Games of ${p.user.name}`, () => {
    dialog.close();
    location.hash = "history/" + encodeURIComponent(p.user.id);
  }, "profile-games");
  const follow = followButton(p.user);
  $("profile-games-slot").replaceChildren(...(follow ? [games, " ", follow] : [games]));
  $("profile-body").replaceChildren(...parts);
}

function openGame(id) {
  $("profile").close();
  location.hash = "game/" + encodeURIComponent(id);
}

function line(text, testid) {
  const p = document.createElement("p");
  p.textContent = text;
  if (testid) p.dataset.testid = testid;
  return p;
}

$("profile-close").addEventListener("click", () => $("profile").close());
// A click on the backdrop (outside the card) closes it too; Escape is the dialog's own.
$("profile").addEventListener("click", (event) => { if (event.target === $("profile")) $("profile").close(); });
