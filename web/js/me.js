// "Me": the guest's own place: their name and coins, a password (to come back on another
// device), the devices signed in, whom they block, and signing out, which asks first when it
// would lose the guest for good.

import { $, state } from "./state.js";
import { api, signOut } from "./connection.js";
import { button, notice, ask } from "./ui.js";
import { showPage } from "./pages.js";

/// Shows the Me page, read fresh from the server.
export async function showMe() {
  showPage("me-page");
  $("password-result").textContent = "";
  try {
    const [me, devices, blocks] = await Promise.all([api("GET", "/me"), api("GET", "/me/devices"), api("GET", "/me/blocks")]);
    $("me-name").textContent = me.user.name;
    $("me-coins").textContent = `${me.coins} coins · ${me.inventory.length} things owned`;
    showPassword(me.password);
    $("devices").replaceChildren(...devices.devices.map((d) => {
      const li = document.createElement("li");
      const what = document.createElement("span");
      what.textContent = `${d.label || "a device"}${d.current ? " (this one)" : ""} · last used ${new Date(d.last_used_at).toLocaleString()}`;
      li.appendChild(what);
      if (!d.current) {
        li.appendChild(button("Sign it out", async () => {
          try {
            await api("DELETE", "/me/devices/" + encodeURIComponent(d.id));
            li.remove();
          } catch (e) { notice(e.message); }
        }, "sign-out-device"));
      }
      return li;
    }));
    $("blocks").replaceChildren(...(blocks.blocks.length ? blocks.blocks.map((u) => {
      const li = document.createElement("li");
      const who = document.createElement("span");
      who.textContent = u.name;
      li.append(who, button("Unblock", async () => {
        try {
          await api("DELETE", "/me/blocks/" + encodeURIComponent(u.id));
          state.blocked.delete(u.id);
          li.remove();
          notice(`${u.name} is no longer blocked.`);
        } catch (e) { notice(e.message); }
      }, "unblock"));
      return li;
    }) : [Object.assign(document.createElement("li"), { textContent: "Nobody." })]));
  } catch (e) {
    $("password-result").textContent = e.message;
  }
}

function showPassword(has) {
  $("password-state").textContent = has
    ? "You have a password: sign in with your name and it on any device."
    : "You have no password yet. Without one, signing out or losing this browser loses your name, coins and things for good.";
  $("password-current").hidden = !has;
  $("password-current-label").hidden = !has;
  $("sign-out-warning").textContent = has ? "" : "You have no password: you could not come back as yourself.";
}

/// Asks before signing out a guest who could not come back (no password), then signs out:
/// this device's refresh credential stops working on the server too, and nothing of the
/// guest stays in the browser. `leave` runs before the socket goes.
export async function signOutAsked(leave) {
  let me = null;
  try { me = await api("GET", "/me"); } catch (e) { /* asked below, not knowing */ }
  if (!me || !me.password) {
    const what = me
      ? `You have no password. Signing out now loses ${me.user.name} for good: the name, ${me.coins} coins and ${me.inventory.length} things owned. Nobody could sign in as you again.`
      : "If you have no password, signing out loses this guest for good: the name, coins and things owned.";
    const choice = await ask(what, [["password", "Set a password first"], ["anyway", "Sign out anyway"], ["stay", "Stay signed in"]]);
    if (choice === "password") return showMe();
    if (choice !== "anyway") return;
  }
  try { await api("POST", "/auth/sign-out"); } catch (e) { /* signed out here either way */ }
  leave();
  signOut("You are signed out.");
}

$("password-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const current = $("password-current").value;
  try {
    await api("PUT", "/me/password", { password: $("password-new").value, ...(current ? { current } : {}) });
    $("password-result").textContent = "Password set: sign in with your name and it on any device.";
    $("password-current").value = "";
    $("password-new").value = "";
    showPassword(true);
  } catch (e) {
    $("password-result").textContent = e.message;
  }
});

$("me-back").addEventListener("click", () => showPage("lounge"));
