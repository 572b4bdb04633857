// Homes: inviting someone home (they are told wherever they are, with a button that takes them
// there), visiting, and blocking, from the list of who is in the room.

import { $, state } from "./state.js";
import { api, enter } from "./connection.js";
import { button, notice } from "./ui.js";
import { nameButton } from "./profile.js";

/// One line of the room's list: the name, and for others Invite home, Visit, Block.
export function renderOccupant(u) {
  const li = document.createElement("li");
  li.dataset.user = u.id;
  // The name opens the guest's card; their Abapa rating beside it, when the room sent one.
  li.appendChild(nameButton(u, { family: "abapa", suffix: u.id === state.user.id ? " (you)" : "", testid: "occupant-name" }));
  if (u.id === state.user.id || u.house) return li;
  li.appendChild(button("Invite home", () => inviteHome(u), "invite-home"));
  // No visiting the owner's apartment from inside it.
  const atTheirs = state.room && state.room.kind === "apartment" && state.room.owner === u.id;
  if (!atTheirs) li.appendChild(button("Visit", () => enter("apartment-" + u.id), "visit"));
  const blocked = state.blocked.has(u.id);
  li.appendChild(button(blocked ? "Unblock" : "Block", async () => {
    try {
      await api(blocked ? "DELETE" : "PUT", "/me/blocks/" + encodeURIComponent(u.id));
      if (blocked) state.blocked.delete(u.id); else state.blocked.add(u.id);
      notice(blocked ? `${u.name} is no longer blocked.` : `${u.name} is blocked: you will not see their lines or invitations.`);
      li.replaceWith(renderOccupant(u));
    } catch (e) { notice(e.message); }
  }, blocked ? "unblock" : "block"));
  return li;
}

// Someone met is offered for an invitation home for this long after they were last seen.
const MET_FOR_MS = 30 * 60 * 1000;

/// People met this visit (in any room) may be invited home from anywhere: the list under the
/// room's ("Met earlier, not here now"), of those not in this room and seen in the last half
/// hour; who is here now is the room's own list above it.
export function meet(users) {
  const now = Date.now();
  for (const u of users) if (u.id !== state.user.id && !u.house) state.met.set(u.id, { ...u, seen: now });
  for (const [id, u] of state.met) if (state.occupants.has(id)) u.seen = now;
  const away = [...state.met.values()].filter((u) => !state.occupants.has(u.id) && now - u.seen < MET_FOR_MS);
  $("invite-home").hidden = away.length === 0;
  const pick = $("invite-home-who");
  const chosen = pick.value;
  pick.replaceChildren(...away.map((u) => {
    const o = document.createElement("option");
    o.value = u.id;
    o.textContent = u.name;
    return o;
  }));
  if (away.some((u) => u.id === chosen)) pick.value = chosen;
}

$("invite-home-button").addEventListener("click", () => {
  const u = state.met.get($("invite-home-who").value);
  if (u) inviteHome(u);
});

export async function inviteHome(u) {
  try {
    const answer = await api("POST", "/me/apartment/invitations", { user: u.id });
    notice(answer && answer.delivered === false
      ? `${u.name} may now visit your apartment (they are not connected: they will see it on your door's list).`
      : `${u.name} is invited to your apartment.`);
  } catch (e) { notice(e.message); }
}

/// Someone invites this guest home: a card with a button that takes them there.
export function showHomeInvitation(m) {
  $("invitations").querySelector(`[data-home="${CSS.escape(m.room)}"]`)?.remove();
  const div = document.createElement("div");
  div.className = "invitation";
  div.dataset.home = m.room;
  div.dataset.testid = "home-invitation";
  const text = document.createElement("span");
  text.textContent = `${m.from.name} invites you to ${m.name || "their apartment"}.`;
  div.append(
    text,
    button("Go there", () => { div.remove(); enter(m.room); }, "go-home-invitation"),
    button("Not now", () => div.remove(), "dismiss-home-invitation"),
  );
  $("invitations").appendChild(div);
}

/// The blocks this guest keeps (the server filters by them too).
export async function loadBlocks() {
  try {
    const answer = await api("GET", "/me/blocks");
    state.blocked = new Set(answer.blocks.map((u) => u.id));
  } catch (e) { /* the room works without: blocks are kept by the server */ }
}
