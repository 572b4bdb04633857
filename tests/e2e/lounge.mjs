// The hotel web client in headless Chromium: two people sign in, one invites the other, they
// play a whole game by clicking pits while an onlooker watches, the champions display shows
// the winner live; then a game against Baba Ayo played from the keyboard, and a timed best of
// 3 against him (clocks, resigning a game, the start press between games, resigning the match,
// the rematch button). Screenshots go to the folder given, else to $LOUNGE_SCREENSHOTS (which
// tests/it/browser.rs sets to <target>/tmp/screenshots), else to target/screenshots; never over
// the tracked docs/screenshots unless asked to.
//
//   node tests/e2e/lounge.mjs http://127.0.0.1:8080 [SCREENSHOT_DIR]
import { mkdirSync } from "node:fs";
import { launch, newSeen, clean, signIn as walkIn } from "./common.mjs";

const [base, shots = process.env.LOUNGE_SCREENSHOTS || "target/screenshots"] = process.argv.slice(2);
if (!base) throw new Error("usage: lounge.mjs BASE_URL [SCREENSHOT_DIR]");
mkdirSync(shots, { recursive: true });

const browser = await launch();
const step = (text) => console.log(`- ${text}`);
// Every page is watched (script errors, 404s, tokens in URLs): checked at the end.
const watched = newSeen();
const signIn = (name, viewport) => walkIn(browser, base, name, watched, viewport);

/// "2:59" or "0:09.3" as milliseconds.
function clockMs(text) {
  const parts = text.trim().split(":").map(Number);
  if (parts.some((n) => Number.isNaN(n))) throw new Error(`not a clock: ${text}`);
  return parts.reduce((total, n) => total * 60 + n, 0) * 1000;
}

/// Both clocks on `page`'s board, in milliseconds: [mine, theirs].
async function clocks(page) {
  const mine = page.getByTestId("clock-me");
  const theirs = page.getByTestId("clock-them");
  await mine.waitFor();
  await theirs.waitFor();
  return [clockMs(await mine.textContent()), clockMs(await theirs.textContent())];
}

/// Plays random glowing pits on `page` until its board shows a result.
async function playOut(page, { keyboard = false } = {}) {
  const result = page.getByTestId("result");
  for (let moves = 0; moves < 2000; moves++) {
    if ((await result.textContent()).trim()) return (await result.textContent()).trim();
    const legal = page.locator(".pit.legal");
    const count = await legal.count();
    if (count === 0) {
      // Not our turn, or a sowing being shown: tap to skip it, and wait a little.
      await page.locator("#board").click({ position: { x: 5, y: 5 } }).catch(() => {});
      await page.waitForTimeout(30);
      continue;
    }
    const pick = legal.nth(Math.floor(Math.random() * count));
    const number = (await pick.getAttribute("data-testid")).replace("pit-", "");
    if (keyboard) {
      await page.locator("#board").focus();
      await page.keyboard.press(number);
    } else {
      await pick.click().catch(() => {});
    }
    await page.waitForTimeout(20);
  }
  throw new Error("the game never ended");
}

try {
  step("three people sign in; the display is on the wall");
  const ade = await signIn("Ade");
  const bisi = await signIn("Bisi");
  const chidi = await signIn("Chidi", { width: 390, height: 844 }); // a phone
  const wallContext = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  const wall = await wallContext.newPage();
  await wall.goto(base + "/champions");
  await wall.locator("#status", { hasText: "live" }).waitFor();
  await ade.locator(".occupants li", { hasText: "Bisi" }).waitFor();
  await ade.screenshot({ path: `${shots}/lounge.png`, fullPage: true });

  step("Ade sits, invites Bisi; Bisi accepts");
  const table = ade.locator(".table").first();
  await table.getByTestId("sit-south").click();
  await table.getByTestId("invite-who").selectOption({ label: "Bisi" });
  await table.getByTestId("invite").click();
  await bisi.getByTestId("invitation").getByTestId("accept").click();
  await ade.locator("#board .pit").first().waitFor();
  await bisi.locator("#board .pit").first().waitFor();

  step("Chidi watches the table");
  await chidi.locator(".table").first().getByRole("button", { name: /Watch/ }).click();
  await chidi.locator("#board .pit").first().waitFor();

  step("they play the game out by clicking pits");
  let shot = false;
  let followed = false;
  const [a, b] = await Promise.all([
    playOut(ade),
    playOut(bisi),
    (async () => {
      // The moves reach only those watching the table: Chidi's client asked for them
      // (`watch`), and his move list grows while the game is on.
      await chidi.getByTestId("moves").locator("li").nth(2).waitFor();
      followed = (await chidi.getByTestId("result").textContent()).trim() === "";
    })(),
    (async () => {
      await ade.waitForTimeout(1500);
      await ade.screenshot({ path: `${shots}/game.png`, fullPage: true });
      shot = true;
    })(),
  ]);
  if (!shot) throw new Error("no screenshot of the game");
  if (!followed) throw new Error("the onlooker's move list did not grow during the game");
  console.log(`  Ade sees: ${a}\n  Bisi sees: ${b}`);
  await chidi.getByTestId("result").filter({ hasText: /wins|Draw/ }).waitFor();
  const seen = (await chidi.getByTestId("result").textContent()).trim();
  // The same end in the onlooker's words: "Ade wins: ..." where Ade read "You win: ...".
  const how = a.split(": ").slice(1).join(": ").split(". ")[0];
  if (!how || !seen.includes(how)) throw new Error(`the onlooker saw ${seen}, Ade ${a}`);
  const played = await ade.getByTestId("moves").locator("li").count();
  const listed = await chidi.getByTestId("moves").locator("li").count();
  if (played === 0 || listed !== played) throw new Error(`the onlooker's move list has ${listed} of ${played} lines`);

  step("Ade asks Bisi for a rematch; Bisi is told");
  await ade.locator("#rematch", { hasText: "Rematch" }).click();
  await ade.locator("#rematch", { hasText: "Waiting for Bisi" }).waitFor();
  await bisi.locator("#rematch-text", { hasText: "Ade wants a rematch" }).waitFor();
  await bisi.locator("#rematch", { hasText: "Rematch" }).waitFor();

  step("the champions display shows the winner");
  if (!a.startsWith("Draw")) {
    const winner = a.startsWith("You win") ? "Ade" : "Bisi";
    await wall.locator("#rows td", { hasText: winner }).waitFor({ timeout: 5000 });
  }
  await wall.screenshot({ path: `${shots}/champions.png` });

  step("Ade plays Baba Ayo from the keyboard");
  await ade.getByRole("button", { name: "Surulere Games Lounge" }).click();
  const second = ade.locator(".table").nth(1);
  await second.getByTestId("house-level").selectOption("easy");
  await second.getByTestId("play-house").click();
  await ade.locator("#opponent", { hasText: "Baba Ayo" }).waitFor();
  const house = await playOut(ade, { keyboard: true });
  console.log(`  against Baba Ayo: ${house}`);

  step("Ade plays Baba Ayo a best of 3 on 3 + 2");
  const third = ade.locator(".table").nth(2);
  await third.getByTestId("match-clock").selectOption("3+2");
  await third.getByTestId("match-best-of").selectOption("3");
  await third.getByTestId("house-level").selectOption("easy");
  await third.getByTestId("play-house").click();
  const series = ade.getByTestId("series");
  await series.filter({ hasText: "best of 3 · game 1 · 3 + 2" }).waitFor();
  await ade.locator("#opponent", { hasText: "Baba Ayo" }).waitFor();
  await third.getByTestId("table-match").filter({ hasText: "3 + 2 · best of 3" }).waitFor();
  const firstGame = await ade.locator("#game").getAttribute("data-game");
  for (const ms of await clocks(ade)) {
    if (!(ms > 170000 && ms <= 182000)) throw new Error(`a clock of a fresh 3 + 2 game shows ${ms} ms`);
  }
  // Baba Ayo answers in milliseconds: soon it is Ade's clock that runs, and it counts down.
  const myClock = ade.locator("#clock-me.running");
  await myClock.waitFor();
  const before = clockMs(await myClock.textContent());
  await ade.waitForTimeout(1300);
  const after = clockMs(await myClock.textContent());
  if (!(after < before && after >= before - 3000)) throw new Error(`Ade's clock went from ${before} to ${after} ms`);
  if ((await ade.locator(".clock.running").count()) !== 1) throw new Error("one clock runs at a time");
  await ade.screenshot({ path: `${shots}/series.png`, fullPage: true });
  await chidi.locator(".table").nth(2).getByRole("button", { name: /Watch/ }).click();
  await chidi.getByTestId("clock-them").waitFor();
  await chidi.screenshot({ path: `${shots}/series-phone.png`, fullPage: true });

  step("Ade resigns game 1, presses start for game 2");
  await ade.locator("#resign", { hasText: "Resign game" }).click();
  // The second press counts a moment after the first (a double click is one press).
  await ade.waitForTimeout(300);
  await ade.locator("#resign", { hasText: "Really resign?" }).click();
  await series.filter({ hasText: /Baba Ayo 1 –|– 1 Baba Ayo/ }).waitFor();
  await series.filter({ hasText: "game 2" }).waitFor();
  const start = ade.locator("#start-game", { hasText: "Start game 2" });
  await start.waitFor();
  await ade.getByTestId("between").filter({ hasText: /Baba Ayo ✓/ }).waitFor();
  await start.click();
  await ade.locator(`#game:not([data-game="${firstGame}"])`).waitFor();
  await ade.getByTestId("between").waitFor({ state: "hidden" });
  for (const ms of await clocks(ade)) {
    if (!(ms > 170000 && ms <= 182000)) throw new Error(`a clock of game 2 shows ${ms} ms`);
  }
  await chidi.getByTestId("series").filter({ hasText: "game 2" }).waitFor();

  step("Ade resigns the match; Baba Ayo wins it, a rematch is on offer");
  await ade.locator("#resign-match").click();
  // The second press counts a moment after the first (a double click is one press).
  await ade.waitForTimeout(300);
  await ade.locator("#resign-match", { hasText: "Resign the whole match?" }).click();
  await ade.getByTestId("match-result").filter({ hasText: /Baba Ayo wins the match: you resigned it at 2–0 in games/ }).waitFor();
  await ade.locator("#rematch", { hasText: "Rematch" }).waitFor();
  await chidi.getByTestId("match-result").filter({ hasText: /Baba Ayo wins the match/ }).waitFor();
  if (await chidi.locator("#rematch-area").isVisible()) throw new Error("the rematch is offered to an onlooker");
  console.log(`  the match: ${(await ade.getByTestId("match-result").textContent()).trim()}`);

  step("Ade buys an Ayo board, places it at home and goes home");
  await ade.getByRole("button", { name: "Furniture shop" }).click();
  await ade.getByTestId("buy-ayo-board-iroko-oiled").click();
  await ade.getByTestId("place").first().click();
  await ade.locator("#inventory li", { hasText: "(at home)" }).waitFor();
  await ade.getByRole("button", { name: "My apartment" }).click();
  await ade.locator("#room-name", { hasText: "Ade's apartment" }).waitFor();
  await ade.locator(".table").first().waitFor();
  clean(watched);
  console.log("ok");
} finally {
  await browser.close();
}
