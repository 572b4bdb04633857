// The furniture shop, what the guest owns, their apartment's door, and their account
// (a password for other devices, signing out on a shared computer).

import { $, randomKey } from "./state.js";
import { api } from "./connection.js";
import { button, notice } from "./ui.js";

export async function showShop() {
  $("lounge").hidden = true;
  $("shop").hidden = false;
  try {
    const [shop, me] = await Promise.all([api("GET", "/shop/items"), api("GET", "/me")]);
    $("coins").textContent = `· ${me.coins} coins`;
    $("items").replaceChildren(...shop.items.map((item) => {
      const li = document.createElement("li");
      const what = document.createElement("span");
      what.textContent = `${item.name} — ${item.price} coins` + (item.stock === null ? "" : ` (${item.stock} left)`);
      li.append(what, button("Buy", (event) => buy(item, event.currentTarget), `buy-${item.id}`));
      return li;
    }));
    $("inventory").replaceChildren(...me.inventory.map((owned) => {
      const li = document.createElement("li");
      const what = document.createElement("span");
      what.textContent = owned.item.name + (owned.table ? " (at home)" : "");
      li.appendChild(what);
      if (owned.item.kind === "ayo_board" && !owned.table) {
        li.appendChild(button("Place at home", async () => {
          try {
            await api("POST", "/me/apartment/boards", { board: owned.id });
            showShop();
          } catch (e) { shopError(e.message); }
        }, "place"));
      }
      return li;
    }));
    $("door").value = me.apartment.door;
    $("guests").textContent = me.apartment.guests.length
      ? "Guests: " + me.apartment.guests.map((g) => g.name).join(", ")
      : "No guests yet: invite people home from the room's list.";
  } catch (e) {
    shopError(e.message);
  }
}

// One key an item until its purchase is answered: pressing Buy again after a lost answer
// retries the same purchase, which the server applies once.
const keys = new Map();

async function buy(item, b) {
  b.disabled = true;
  if (!keys.has(item.id)) keys.set(item.id, randomKey());
  try {
    await api("POST", "/shop/purchases", { item: item.id }, { "Idempotency-Key": keys.get(item.id) });
    keys.delete(item.id);
    shopError("");
    notice(`Bought: ${item.name}.`);
    showShop();
  } catch (e) {
    // A refusal (4xx) is an answer: the next press is a new purchase.
    if (e.status >= 400 && e.status < 500) keys.delete(item.id);
    shopError(e.message);
    b.disabled = false;
  }
}

function shopError(text) {
  $("shop-error").textContent = text;
}

$("shop-back").addEventListener("click", () => { $("shop").hidden = true; $("lounge").hidden = false; });

$("door").addEventListener("change", async () => {
  try { await api("PUT", "/me/apartment/door", { door: $("door").value }); } catch (e) { shopError(e.message); }
});

$("password-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const current = $("password-current").value;
  try {
    await api("PUT", "/me/password", { password: $("password-new").value, ...(current ? { current } : {}) });
    $("password-result").textContent = "Password set: sign in with your name and it on any device.";
    $("password-current").value = "";
    $("password-new").value = "";
  } catch (e) {
    $("password-result").textContent = e.message;
  }
});
