// Homes and rooms: an invitation home reaches the guest in whatever room they are, with a
// button that takes them there (even once the host has gone home and is listed nowhere the
// guest is); the menu lists the rooms an operator made, and how to play at a table is one click
// away; the Gist Lounge uses a desktop's width.
//
//   node tests/e2e/home.mjs http://127.0.0.1:8080 ROOM_NAME
import { launch, step, check, newSeen, clean, signIn } from "./common.mjs";

const [base, roomName] = process.argv.slice(2);
if (!roomName) throw new Error("usage: home.mjs BASE_URL ROOM_NAME");
const seen = newSeen();
const browser = await launch();
const WIDE = { width: 1920, height: 1080 };

try {
  step("Ade and Bisi meet in the lounge; Bisi goes to the Gist Lounge, Ade goes home");
  const ade = await signIn(browser, base, "Ade", seen);
  const bisi = await signIn(browser, base, "Bisi", seen, WIDE);
  await ade.locator("#occupants li", { hasText: "Bisi" }).waitFor();
  await bisi.getByTestId("room-menu").getByRole("button", { name: "Gist Lounge" }).click();
  await bisi.locator("#room-name", { hasText: "Gist Lounge" }).waitFor();
  const chat = await bisi.locator("#chat").boundingBox();
  check(chat.width >= WIDE.width * 0.4, `the Gist Lounge's chat is ${chat.width} px wide on a ${WIDE.width} px screen`);
  await ade.getByRole("button", { name: "My apartment" }).click();
  await ade.locator("#room-name", { hasText: "Ade's apartment" }).waitFor();

  step("Ade invites Bisi home from there; Bisi, in the Gist Lounge, is told and goes");
  await ade.getByTestId("invite-home-who").selectOption({ label: "Bisi" });
  await ade.getByTestId("invite-home-button").click();
  await ade.locator("#notice", { hasText: "Bisi is invited to your apartment" }).waitFor();
  const card = bisi.getByTestId("home-invitation");
  await card.filter({ hasText: "Ade invites you to Ade's apartment" }).waitFor();
  await card.getByTestId("go-home-invitation").click();
  await bisi.locator("#room-name", { hasText: "Ade's apartment" }).waitFor();
  await ade.locator("#occupants li", { hasText: "Bisi" }).waitFor();

  step(`the menu lists ${roomName}, which an operator made; Bisi goes there`);
  const go = bisi.getByTestId("room-menu").getByRole("button", { name: roomName });
  await go.click();
  await bisi.locator("#room-name", { hasText: roomName }).waitFor();
  const table = bisi.locator(".table").first();
  await table.locator("h4", { hasText: "relay sowing" }).waitFor();

  step("how to play at that table: its rules, one click away");
  await table.getByTestId("how-to-play").click();
  await bisi.getByTestId("rules").filter({ hasText: "lift that pit too and keep sowing" }).waitFor();
  await bisi.getByTestId("rules").filter({ hasText: "exactly 4" }).waitFor();
  await bisi.getByRole("button", { name: "Close" }).click();
  await bisi.getByTestId("rules").waitFor({ state: "hidden" });
  clean(seen);
  console.log("ok");
} finally {
  await browser.close();
}
