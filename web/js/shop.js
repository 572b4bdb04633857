// The furniture shop, what the guest owns, and their apartment: its door, who may come, and
// what stands in it.

import { $, randomKey } from "./state.js";
import { api } from "./connection.js";
import { button, notice } from "./ui.js";
import { showPage } from "./pages.js";

export async function showShop() {
  showPage("shop");
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
    const home = me.inventory.filter((o) => o.table || o.item.kind !== "ayo_board");
    $("placed").textContent = home.length
      ? `Visitors see: ${home.map((o) => o.item.name).join(", ")}.`
      : "Nothing yet: buy furniture or an Ayo board and place the board at home.";
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

$("shop-back").addEventListener("click", () => showPage("lounge"));

$("door").addEventListener("change", async () => {
  try { await api("PUT", "/me/apartment/door", { door: $("door").value }); } catch (e) { shopError(e.message); }
});
