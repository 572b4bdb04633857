// Which page the guest sees (the lounge, the shop, Me, a history, a replay), and the links
// that open one: `#game/<id>/<ply>` (or `?ply=<n>`), `#history/<user>`, `#profile/<user>`.

import { $ } from "./state.js";

const PAGES = ["lounge", "shop", "me-page", "friends-page", "history-page", "replay-page"];
// The pages a link names: leaving them for another drops the link from the address bar.
const LINKED = ["history-page", "replay-page"];

export function showPage(id) {
  const moved = $(id).hidden;
  for (const page of PAGES) $(page).hidden = page !== id;
  if (!LINKED.includes(id) && /^#(game|history)\//.test(location.hash)) {
    history.replaceState(null, "", location.pathname + location.search);
  }
  if (moved) window.scrollTo(0, 0);
}

/// What the address's hash names: {page: "game", id, ply} | {page: "history", id} |
/// {page: "profile", id} | null.
export function linked() {
  const parts = location.hash.replace(/^#/, "").split("/");
  const id = parts[1] ? decodeURIComponent(parts[1].split("?")[0]) : "";
  if (!id) return null;
  if (parts[0] === "game") {
    const ply = /[?&]ply=(\d+)/.exec(location.hash)?.[1] ?? parts[2];
    return { page: "game", id, ply: ply === undefined || ply === "" ? null : Number(ply) };
  }
  if (parts[0] === "history" || parts[0] === "profile") return { page: parts[0], id };
  return null;
}

/// The link to game `id` at `ply`, whole.
export function gameLink(id, ply) {
  return `${location.origin}${location.pathname}#game/${encodeURIComponent(id)}/${ply}`;
}
