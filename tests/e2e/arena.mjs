// An arena tournament as guests see it. An operator scheduled "Evening arena" in the lounge,
// at its second table (the Rust test, which also moves the hotel's clock: to the start once
// two have joined, past the end once their game is scored). Ade, on a desktop, finds it in
// the room counting down to its start, joins, leaves and joins again; the big screen shows
// it and says so while it cannot reach the lounge. Bisi, on a phone, joins; it starts, the
// room pairs them at its table and the game comes up as any other; a move, then Bisi
// resigns: the standings show the points in the room and on the big screen, and once its
// time is up the winner is named. axe-core on the room's panel (on a phone) and its standings.
//
//   node tests/e2e/arena.mjs http://127.0.0.1:8080 TOURNAMENT_ID
import { launch, step, check, newSeen, clean, signIn, accessible, playOne, watchPage, PHONE } from "./common.mjs";

const [base, id] = process.argv.slice(2);
if (!base || !id) throw new Error("usage: arena.mjs BASE_URL TOURNAMENT_ID");
const seen = newSeen();
const browser = await launch();

/// The tournament's card in the room on `page`.
const card = (page) => page.getByTestId("tournament").filter({ hasText: "Evening arena" });
/// `name`'s line of the standings on `page`'s card.
const standing = (page, name) => card(page).getByTestId("standing").filter({ hasText: name });

try {
  step("Ade finds the tournament in the room, counting down to its start; joins, leaves, joins again");
  const ade = await signIn(browser, base, "Ade", seen);
  await card(ade).getByTestId("tournament-status").filter({ hasText: /^Starts in \d+:\d\d$/ }).waitFor();
  await card(ade).getByTestId("tournament-about").filter({ hasText: /^10 min a move · .+ · rated · 0 players · at table 2$/ }).waitFor();
  await card(ade).getByTestId("tournament-join").click();
  await card(ade).getByTestId("tournament-me").filter({ hasText: "You are in: be in this room, seated nowhere, when it starts" }).waitFor();
  await card(ade).getByTestId("tournament-about").filter({ hasText: "· 1 player ·" }).waitFor();
  await card(ade).getByTestId("tournament-leave").click();
  await card(ade).getByTestId("tournament-about").filter({ hasText: "· 0 players ·" }).waitFor();
  check(await card(ade).getByTestId("tournament-me").count() === 0, "out of it, the card says nothing of Ade");
  await card(ade).getByTestId("tournament-join").click();
  await card(ade).getByTestId("tournament-about").filter({ hasText: "· 1 player ·" }).waitFor();

  step("The big screen shows it, and says so while it cannot reach the lounge");
  const tv = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  const screen = await tv.newPage();
  watchPage(screen, "screen", seen);
  await screen.goto(`${base}/tournaments/${encodeURIComponent(id)}`);
  await screen.getByTestId("screen-name").filter({ hasText: "Evening arena" }).waitFor();
  await screen.getByTestId("screen-about").filter({ hasText: "Arena · 10 min a move · rated · 1 player" }).waitFor();
  await screen.getByTestId("screen-status").filter({ hasText: /^Starts in \d+:\d\d$/ }).waitFor();
  await screen.getByTestId("screen-live").filter({ hasText: /^live$/ }).waitFor();
  await screen.route("**/api/v1/tournaments/**", (route) => route.abort());
  await screen.getByTestId("screen-live").filter({ hasText: "reconnecting…" }).waitFor();
  await screen.unroute("**/api/v1/tournaments/**");
  await screen.getByTestId("screen-live").filter({ hasText: /^live$/ }).waitFor();

  step("Bisi, on a phone, joins: it starts, and the room pairs them at its table");
  const bisi = await signIn(browser, base, "Bisi", seen, PHONE);
  await card(bisi).getByTestId("tournament-status").waitFor();
  await accessible(bisi, "the room's tournament, on a phone");
  await card(bisi).getByTestId("tournament-join").tap();
  for (const page of [ade, bisi]) {
    await page.locator("#board .pit").first().waitFor();
    await card(page).getByTestId("tournament-status").filter({ hasText: /^Running: ends in (\d+:)?\d+:\d\d$/ }).waitFor();
    await card(page).getByTestId("tournament-me").filter({ hasText: "You are playing your game of it at table 2." }).waitFor();
  }
  await screen.getByTestId("screen-status").filter({ hasText: /^Running · ends in / }).waitFor();
  await screen.getByTestId("screen-about").filter({ hasText: "· 2 players" }).waitFor();

  step("A move, then Bisi resigns: the standings show the points in the room and on the big screen");
  await playOne([ade, bisi]);
  await bisi.locator("#resign").tap();
  // The second press counts a moment after the first (a double tap is one press).
  await bisi.waitForTimeout(300);
  await bisi.locator("#resign", { hasText: "Really resign?" }).tap();
  await bisi.getByTestId("result").filter({ hasText: "Ade wins: you resigned" }).waitFor();
  for (const page of [ade, bisi]) {
    await standing(page, "Ade").getByTestId("standing-score").filter({ hasText: /^2$/ }).waitFor();
    await standing(page, "Ade").getByTestId("standing-games").filter({ hasText: /^1$/ }).waitFor();
    await standing(page, "Bisi").getByTestId("standing-score").filter({ hasText: /^0$/ }).waitFor();
    await standing(page, "Bisi").getByTestId("standing-games").filter({ hasText: /^1$/ }).waitFor();
  }
  await accessible(ade, "the tournament's standings in the room");
  const first = screen.getByTestId("screen-standing").first();
  await first.filter({ hasText: "Ade" }).getByTestId("screen-score").filter({ hasText: /^2$/ }).waitFor();
  await first.getByTestId("screen-games").filter({ hasText: /^1$/ }).waitFor();
  await screen.getByTestId("screen-standing").nth(1).filter({ hasText: "Bisi" }).getByTestId("screen-score").filter({ hasText: /^0$/ }).waitFor();

  step("Its time is up: the winner is named in the room and on the big screen");
  for (const page of [ade, bisi]) {
    await card(page).getByTestId("tournament-winner").filter({ hasText: "Winner: Ade" }).waitFor();
    await card(page).getByTestId("tournament-status").filter({ hasText: /^Finished\.$/ }).waitFor();
    check(await card(page).getByTestId("tournament-join").count() === 0, "a finished tournament takes nobody in");
  }
  await screen.getByTestId("screen-winner").filter({ hasText: "Winner: Ade" }).waitFor();
  await screen.getByTestId("screen-status").filter({ hasText: /^Finished$/ }).waitFor();

  const w = await bisi.evaluate(() => document.documentElement.scrollWidth);
  check(w <= 390, `the phone's page is ${w} px wide`);
  clean(seen);
  console.log("ok");
} finally {
  await browser.close();
}
