// Whom the guest follows and where they are now (`GET /me/following`): online or not, the
// room they are in unless they hide it, with "Go there" and "Invite home"; hiding one's own
// room (`/me/whereabouts`); and the Follow button of a profile card.

import { $, state } from "./state.js";
import { api, enter } from "./connection.js";
import { button, notice } from "./ui.js";
import { showPage } from "./pages.js";
import { inviteHome } from "./home.js";

// While the page is open its list is read again this often: friends come and go.
const LOOK_EVERY_MS = 20000;
let lookTimer = null;

/// Whom the guest follows, for the cards' buttons.
export async function loadFollowing() {
  try {
    const answer = await api("GET", "/me/following");
    state.following = new Set(answer.following.map((f) => f.user.id));
  } catch (e) { /* the cards ask again when pressed */ }
}

/// "Follow" or "Unfollow" for `user` on their card; none on one's own or Baba Ayo's.
export function followButton(user) {
  if (!state.user || user.id === state.user.id || user.house) return null;
  const following = () => (state.following || new Set()).has(user.id);
  const b = button("", async () => {
    const was = following();
    try {
      await api(was ? "DELETE" : "PUT", "/me/following/" + encodeURIComponent(user.id));
      if (!state.following) state.following = new Set();
      if (was) state.following.delete(user.id); else state.following.add(user.id);
      notice(was ? `You no longer follow ${user.name}.` : `You follow ${user.name}: find them under Friends.`);
      label();
    } catch (e) { notice(e.message); }
  }, "follow");
  const label = () => {
    b.textContent = following() ? "Unfollow" : "Follow";
    b.setAttribute("aria-pressed", String(following()));
  };
  label();
  return b;
}

/// The friends page, read fresh, then again now and then while it is shown.
export async function showFriends() {
  showPage("friends-page");
  clearTimeout(lookTimer);
  try {
    const [list, mine] = await Promise.all([api("GET", "/me/following"), api("GET", "/me/whereabouts")]);
    $("whereabouts-hidden").checked = mine.hidden;
    state.following = new Set(list.following.map((f) => f.user.id));
    $("friends").replaceChildren(...list.following.map(row));
    $("friends-empty").hidden = list.following.length > 0;
  } catch (e) {
    notice(e.message);
  }
  // One timer, however many reads were under way at once.
  clearTimeout(lookTimer);
  lookTimer = setTimeout(() => { if (!$("friends-page").hidden) showFriends(); }, LOOK_EVERY_MS);
}

/// One friend: name (opens their card), where they are, and what one can do about it.
function row(f) {
  const li = document.createElement("li");
  li.dataset.testid = "friend";
  li.dataset.user = f.user.id;
  const name = button(f.user.name, () => { location.hash = "profile/" + encodeURIComponent(f.user.id); }, "friend-name");
  name.className = "link";
  const where = document.createElement("span");
  where.dataset.testid = "friend-where";
  where.className = f.online ? "online" : "offline";
  where.textContent = !f.online ? " · offline"
    : f.room ? ` · in ${f.room.name}`
    : f.hidden ? " · online (keeps where private)" : " · online, in no room";
  li.append(name, where);
  if (f.room) {
    li.append(" ", button("Go there", () => { showPage("lounge"); enter(f.room.id); }, "friend-go"));
  }
  li.append(" ", button("Invite home", () => inviteHome(f.user), "friend-invite"));
  return li;
}

$("go-friends").addEventListener("click", showFriends);
$("friends-refresh").addEventListener("click", showFriends);
$("friends-back").addEventListener("click", () => showPage("lounge"));
$("whereabouts-hidden").addEventListener("change", async (event) => {
  const hidden = event.target.checked;
  try {
    await api("PUT", "/me/whereabouts", { hidden });
    notice(hidden ? "Those who follow you no longer see which room you are in." : "Those who follow you see which room you are in.");
  } catch (e) {
    event.target.checked = !hidden;
    notice(e.message);
  }
});
