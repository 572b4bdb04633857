// The hotel web client: the reference client of the lounge protocol (docs/protocol.md).
// ES modules, no build step, nothing from a CDN:
//   state.js       what the client holds, the server's clock
//   connection.js  HTTP, the sign-in grant and its refresh, the WebSocket (by ticket)
//   room.js        what the server says, the room, its tables, chat, the rooms menu
//   board.js       the board, sowing shown, the last move, the move list
//   sowing.js      what a move does under every rule (pure; checked against the engine)
//   match.js       the match, clocks, results, invitations, draws
//   home.js        invitations home, visits, blocks
//   shop.js        the shop, the apartment's door, what stands at home
//   me.js          the guest's own place: password, devices, blocks, signing out
//   rules.js       how to play at a table
//   pages.js       which page shows, and the links that open one (#game/…, #history/…)
//   history.js     a guest's games, filtered, each opening its replay
//   friends.js     whom the guest follows and where they are; following from a card
//   replay.js      a finished game move by move, its clocks, a link to a move
//   review.js      Baba Ayo's review of it: asked for, graphed, moves marked
//   profile.js     a guest's card from their name: ratings, record, recent games
//   queue.js       a table's queue: joining it, the call to a seat
//   seek.js        play someone now: the room's pool, pairings, Baba Ayo after a wait
//   arena.js       the room's arena tournaments: joining, countdowns, standings
//   ui.js          buttons, notices, the tab title, sound

import { $, state, LOUNGE } from "./state.js";
import { api, adopt, refreshToken, connect, hooks, enter, deviceKey } from "./connection.js";
import { receive, loadRooms, watch } from "./room.js";
import { loadBlocks } from "./home.js";
import { showShop } from "./shop.js";
import { showMe, signOutAsked } from "./me.js";
import { showBoard } from "./board.js";
import { showSoundSetting, moderation } from "./ui.js";
import { showPage, linked } from "./pages.js";
import { showHistory } from "./history.js";
import { loadFollowing } from "./friends.js";
import { showReplay } from "./replay.js";
import { showProfile } from "./profile.js";
import { forgetArenas } from "./arena.js";

hooks.receive = receive;
// The socket went down or is being tried again: the board says so.
hooks.connection = () => { if (state.watching && !state.animation) showBoard(); };
// Signed out (on a shared lobby computer, say): nothing of this guest stays for the next.
hooks.signedOut = () => {
  localStorage.removeItem("lounge.room");
  state.lastRoom = LOUNGE;
  state.room = null;
  state.tables = new Map();
  state.occupants = new Map();
  state.watching = null;
  state.away = new Map();
  state.met = new Map();
  state.invitations = new Map();
  state.choices = {};
  state.blocked = new Set();
  state.following = new Set();
  state.seek = null;
  state.pairing = null;
  forgetArenas();
  for (const id of ["chat", "occupants", "invitations", "tables", "room-name", "me"]) $(id).replaceChildren();
  moderation("");
  $("nav").hidden = true;
  $("account").hidden = true;
  $("lounge").hidden = true;
  $("shop").hidden = true;
  $("me-page").hidden = true;
  $("friends-page").hidden = true;
  $("history-page").hidden = true;
  $("replay-page").hidden = true;
  if ($("profile").open) $("profile").close();
  $("signin").hidden = false;
  document.title = "Lagos Hotel · Surulere Games Lounge";
};

async function start() {
  $("signin").hidden = true;
  $("nav").hidden = false;
  $("account").hidden = false;
  $("lounge").hidden = false;
  $("me").textContent = state.user.name;
  showSoundSetting();
  // What keeps a win off the wall, to say so beside a result.
  api("GET", "/champions/rules").then((rules) => { state.wallRules = rules; }, () => {});
  await loadBlocks();
  loadFollowing();
  loadRooms();
  // A link to a game or a history opens it without the lounge's connection, which would take
  // over the guest's other tab (one at a board, say); the lounge connects when shown.
  const link = linked();
  if (link && link.page !== "profile") return route();
  connect(state.lastRoom);
  if (link) route();
}

/// Shows what the address's hash names: a replay, a history, a profile over the lounge, or
/// the lounge.
function route() {
  if (!state.token || !state.user) return;
  const link = linked();
  if (link && link.page === "game") return showReplay(link.id, link.ply ?? undefined);
  if (link && link.page === "history") return showHistory(link.id);
  if ($("lounge").hidden) showPage("lounge");
  if (!state.ws) connect(state.lastRoom);
  if (link && link.page === "profile") {
    history.replaceState(null, "", location.pathname + location.search);
    showProfile({ id: link.id });
  }
}

window.addEventListener("hashchange", route);

$("signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("signin-error").textContent = "";
  try {
    adopt(await api("POST", "/auth/guest", { name: $("name").value, device_key: deviceKey() }));
    start();
  } catch (e) {
    $("signin-error").textContent = e.message;
  }
});

$("password-signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("signin-error").textContent = "";
  try {
    adopt(await api("POST", "/auth/sign-in", { name: $("signin-name").value, password: $("signin-password").value, device_key: deviceKey() }));
    $("signin-password").value = "";
    start();
  } catch (e) {
    $("signin-error").textContent = e.message;
  }
});

$("go-home").addEventListener("click", () => enter("apartment-" + state.user.id));
$("go-shop").addEventListener("click", showShop);
$("go-me").addEventListener("click", showMe);
$("go-games").addEventListener("click", () => { location.hash = "history/" + encodeURIComponent(state.user.id); });
$("history-back").addEventListener("click", () => { location.hash = ""; });

// Signing out on a shared lobby computer: asked first when it would lose the guest.
for (const id of ["nav-sign-out", "me-sign-out"]) {
  $(id).addEventListener("click", () => signOutAsked(() => watch(null)));
}

// At start: a new token from the refresh credential (the old one may have expired while the
// browser was closed), then in, back in the room (and at the board) one was in.
(async () => {
  if (localStorage.getItem("lounge.refresh")) {
    if (await refreshToken()) start();
  } else if (state.token && state.user) {
    start();
  }
})();
