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
//   ui.js          buttons, notices, the tab title, sound

import { $, state, LOUNGE } from "./state.js";
import { api, adopt, refreshToken, connect, hooks, enter, deviceKey } from "./connection.js";
import { receive, loadRooms, watch } from "./room.js";
import { loadBlocks } from "./home.js";
import { showShop } from "./shop.js";
import { showMe, signOutAsked } from "./me.js";
import { showBoard } from "./board.js";
import { showSoundSetting, moderation } from "./ui.js";

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
  for (const id of ["chat", "occupants", "invitations", "tables", "room-name", "me"]) $(id).replaceChildren();
  moderation("");
  $("nav").hidden = true;
  $("account").hidden = true;
  $("lounge").hidden = true;
  $("shop").hidden = true;
  $("me-page").hidden = true;
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
  loadRooms();
  connect(state.lastRoom);
}

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
