// A player reloads mid-game, or closes the tab and comes back: they are back at their board,
// their seat and their clock, with the chat lines they had seen and the moves so far (the last
// one marked). Meanwhile the opponent is told at once that they dropped, with the grace
// counting down. Along the way: the invitation's countdown, "Your turn" in the turn line and
// the tab title, the score and the stores from each player's side, resigning asked twice, and
// no token in any URL or console line, no 404.
//
//   node tests/e2e/reload.mjs http://127.0.0.1:8080
import { launch, step, check, newSeen, clean, signIn, watchPage, startGame, playOne } from "./common.mjs";

const [base] = process.argv.slice(2);
if (!base) throw new Error("usage: reload.mjs BASE_URL");
const seen = newSeen();
const browser = await launch();

/// The page whose turn it is now, and the other.
async function turnOrder(a, b) {
  for (let tries = 0; tries < 200; tries++) {
    for (const [p, q] of [[a, b], [b, a]]) {
      if ((await p.locator("#turn").textContent()).startsWith("Your turn")) return [p, q];
    }
    await a.waitForTimeout(25);
  }
  throw new Error("nobody's turn");
}

try {
  step("Ade invites Bisi to a 5 + 0 game; the invitation counts down; they chat");
  let ade = await signIn(browser, base, "Ade", seen);
  const bisi = await signIn(browser, base, "Bisi", seen);
  await ade.locator("#occupants li", { hasText: "Bisi" }).waitFor();
  await startGame(ade, bisi, "Bisi", "5+0");
  await ade.locator("#chat-text").fill("Ẹ kú àárọ̀, Bisi");
  await ade.getByRole("button", { name: "Send" }).click();
  await bisi.locator("#chat li", { hasText: "Ẹ kú àárọ̀, Bisi" }).waitFor();

  step("two moves; the turn line and the tab title say whose turn it is");
  for (let k = 0; k < 2; k++) {
    await playOne([ade, bisi]);
    // Both pages have the move before the turn is read: a click is not yet an acknowledged move.
    for (const page of [ade, bisi]) await page.locator(`#moves[data-count="${k + 1}"]`).waitFor({ state: "attached" });
  }
  const [toMove, waiting] = await turnOrder(ade, bisi);
  check((await toMove.title()).startsWith("(Your turn)"), `the title of the player to move: ${await toMove.title()}`);
  check(!(await waiting.title()).startsWith("(Your turn)"), `the title of the other: ${await waiting.title()}`);
  for (const page of [ade, bisi]) {
    await page.getByTestId("score").filter({ hasText: /^you \d+ – \d+ (Ade|Bisi)$/ }).waitFor();
    const mine = await page.locator("#clock-me").getAttribute("data-side");
    await page.getByTestId(`store-${mine}`).filter({ hasText: "you" }).waitFor();
    await page.locator(".pit.last-move").waitFor();
    await page.getByTestId("clock-me").waitFor();
  }
  const side = await ade.locator("#clock-me").getAttribute("data-side");
  const moves = (await ade.locator("#moves").textContent()).trim();

  step("Ade reloads: back at the board, seat, clock, chat and moves");
  await ade.reload();
  await ade.locator("#board .pit").first().waitFor();
  await ade.locator("#myself", { hasText: `You (${side})` }).waitFor();
  await ade.getByTestId("clock-me").waitFor();
  await ade.locator("#chat li", { hasText: "Ẹ kú àárọ̀, Bisi" }).waitFor();
  check((await ade.locator("#moves").textContent()).trim() === moves, `the moves after a reload: ${await ade.locator("#moves").textContent()} (were ${moves})`);
  check(await ade.locator(".pit.last-move").count() === 1, "the last move is marked after a reload");
  await ade.locator(".table.watching").waitFor();

  step("Ade closes the tab: Bisi is told at once, with the grace counting down");
  const context = ade.context();
  await ade.close();
  await bisi.getByTestId("away").filter({ hasText: /Ade lost their connection: \d:\d\d to come back/ }).waitFor();
  await bisi.locator(".table .seat", { hasText: "Ade (away)" }).waitFor();

  step("Ade comes back in a new tab: at the board; Bisi's notice goes");
  ade = await context.newPage();
  watchPage(ade, "Ade again", seen);
  await ade.goto(base + "/");
  await ade.locator("#board .pit").first().waitFor();
  await ade.locator("#myself", { hasText: `You (${side})` }).waitFor();
  await ade.locator("#chat li", { hasText: "Ẹ kú àárọ̀, Bisi" }).waitFor();
  await bisi.getByTestId("away").waitFor({ state: "hidden" });

  step("Bisi resigns: asked once more first (a double click is one press)");
  await bisi.locator("#resign").dblclick();
  await bisi.locator("#resign", { hasText: "Really resign?" }).waitFor();
  await bisi.waitForTimeout(300);
  check(!(await bisi.getByTestId("result").textContent()).trim(), "one press resigned the game");
  await bisi.locator("#resign").click();
  await ade.getByTestId("result").filter({ hasText: "You win: Bisi resigned" }).waitFor();
  await bisi.getByTestId("result").filter({ hasText: "Ade wins: you resigned" }).waitFor();
  await bisi.locator("#resign").waitFor({ state: "hidden" });

  step("every socket was opened with a ticket");
  check(seen.sockets.length >= 3 && seen.sockets.every((u) => /[?&]ticket=/.test(u)), `sockets: ${seen.sockets.join(", ")}`);
  clean(seen);
  console.log("ok");
} finally {
  await browser.close();
}
