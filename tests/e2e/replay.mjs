// Every game kept, as a guest meets it: Ade and Bisi play a short game and Ade resigns; Ade
// finds it in his games (filtered by opponent and result), replays it with the keys, opens
// the link at a move in a new tab, asks Baba Ayo to review a longer game (Tunde's, played
// by the test first) and sees the graph, a mark and the better pit; Bisi's card opens from
// the room's list; and a phone does the same without the page growing wider than the phone.
//
//   node tests/e2e/replay.mjs http://127.0.0.1:8080 <a finished game of many moves>
import { launch, step, check, newSeen, clean, signIn, startGame, playOne, accessible, idOf, watchPage, PHONE } from "./common.mjs";

const [base, longGame] = process.argv.slice(2);
if (!base || !longGame) throw new Error("usage: replay.mjs BASE_URL GAME_ID");
const seen = newSeen();
const shots = process.env.LOUNGE_SCREENSHOTS || "target/screenshots";
const shot = (page, name) => page.screenshot({ path: `${shots}/${name}.png`, fullPage: true }).catch(() => {});
const browser = await launch();

/// The replay board's pits as the API numbers them (0-11), and its stores.
async function replayBoard(page) {
  return page.evaluate(() => {
    const pits = Array(12).fill(null);
    for (const p of document.querySelectorAll("#replay-board .pit")) pits[Number(p.dataset.pit)] = Number(p.firstChild.textContent);
    const store = (side) => Number(document.querySelector(`[data-testid="replay-store-${side}"] span`).textContent);
    return { pits, stores: [store("south"), store("north")] };
  });
}

/// The game as the API serves it, read in the page.
async function served(page, id) {
  return page.evaluate(async (id) => (await fetch(`/api/v1/games/${id}`)).json(), id);
}

async function atPly(page, ply) {
  await page.locator(`[data-testid="replay-ply"][data-ply="${ply}"]`).waitFor();
}

async function boardIs(page, game, ply) {
  const want = ply ? game.plies[ply - 1].board : game.start;
  const got = await replayBoard(page);
  check(JSON.stringify(got) === JSON.stringify(want), `at move ${ply} the board is ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
}

/// The page's width and what sticks out past the screen's edge, if anything.
async function widths(page) {
  return page.evaluate(() => {
    const over = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && e.getClientRects().length && !e.closest(".bar"));
    return { scroll: document.documentElement.scrollWidth, over: over.slice(0, 3).map((e) => e.id || e.className || e.tagName) };
  });
}

async function fitsPhone(page, what) {
  const w = await widths(page);
  check(w.scroll <= PHONE.viewport.width && w.over.length === 0, `${what}: the page is ${w.scroll} px wide (${w.over.join(", ")})`);
}

try {
  step("Ade and Bisi play four moves; Ade resigns");
  const ade = await signIn(browser, base, "Ade", seen);
  const bisi = await signIn(browser, base, "Bisi", seen);
  await startGame(ade, bisi, "Bisi");
  for (let k = 0; k < 4; k++) {
    const { page } = await playOne([ade, bisi]);
    await page.locator(`#moves li`).first().waitFor();
    await ade.waitForFunction((n) => [...document.querySelectorAll("#moves li")].map((li) => li.textContent.trim().split(/\s+/).length).reduce((a, b) => a + b, 0) >= n, k + 1);
  }
  await ade.locator("#resign").click();
  await ade.waitForTimeout(300);
  await ade.locator("#resign", { hasText: "Really resign?" }).click();
  await ade.getByTestId("result").filter({ hasText: "you resigned" }).waitFor();

  step("Ade's games: the one against Bisi, found by opponent and by result");
  await ade.getByTestId("go-games").click();
  const row = ade.locator(`[data-testid="history-games"] li`, { hasText: "Bisi" });
  await row.first().waitFor();
  check((await row.first().textContent()).includes("Lost"), `the row says ${await row.first().textContent()}`);
  await ade.getByTestId("history-result").selectOption("won");
  await ade.getByTestId("history-empty").filter({ hasText: "No game matches" }).waitFor();
  await ade.getByTestId("history-result").selectOption("lost");
  await ade.getByTestId("history-opponent").fill("bis");
  await row.first().waitFor();
  await ade.getByTestId("history-opponent").fill("nobody");
  await ade.getByTestId("history-empty").waitFor();
  await ade.getByTestId("history-opponent").fill("");
  await ade.getByTestId("history-result").selectOption("");
  const gameId = await row.first().getAttribute("data-game");
  await row.first().getByTestId("history-open").click();

  step("The replay opens at the end; ← → Home End step through it");
  const game = await served(ade, gameId);
  const total = game.plies.length;
  check(total === 4, `the game has ${total} moves`);
  await atPly(ade, total);
  check(ade.url().endsWith(`#game/${gameId}/${total}`), `the address is ${ade.url()}`);
  await boardIs(ade, game, total);
  await ade.keyboard.press("Home");
  await atPly(ade, 0);
  await boardIs(ade, game, 0);
  await ade.keyboard.press("ArrowRight");
  await atPly(ade, 1);
  await boardIs(ade, game, 1);
  await ade.keyboard.press("ArrowRight");
  await atPly(ade, 2);
  await boardIs(ade, game, 2);
  await ade.keyboard.press("End");
  await atPly(ade, total);
  await ade.keyboard.press("ArrowLeft");
  await atPly(ade, total - 1);
  await boardIs(ade, game, total - 1);
  await ade.locator(`[data-testid="replay-move"][data-ply="2"]`).click();
  await atPly(ade, 2);
  check((await ade.getByTestId("replay-ply").textContent()).startsWith("Move 2 of 4"), "the move shown is not said");

  step("The link at move 2, opened in a new tab, shows move 2 (and leaves the lounge tab alone)");
  await ade.getByTestId("replay-copy").click();
  const link = await ade.getByTestId("replay-link").inputValue();
  check(link.endsWith(`#game/${gameId}/2`), `the link is ${link}`);
  const tab = await ade.context().newPage();
  watchPage(tab, "Ade's new tab", seen);
  await tab.goto(link);
  await atPly(tab, 2);
  await boardIs(tab, game, 2);
  await tab.goto(base + `/#game/${gameId}?ply=3`);
  await tab.reload();
  await atPly(tab, 3);
  await tab.close();
  await ade.waitForTimeout(300);
  check(!(await ade.locator("#notice", { hasText: "somewhere else" }).count()), "the new tab took the lounge's connection");

  step("Baba Ayo reviews a longer game: the graph, a mark, the better pit on the board");
  await ade.evaluate((id) => { location.hash = `game/${id}`; }, longGame);
  const long = await served(ade, longGame);
  await atPly(ade, long.plies.length);
  await ade.getByTestId("review-ask").click();
  await ade.locator(`[data-testid="review-graph"]`).waitFor({ timeout: 60000 });
  const review = await ade.evaluate(async (id) => (await fetch(`/api/v1/games/${id}/review`)).json(), longGame);
  check(review.status === "done", `the review is ${review.status}`);
  const better = review.moves.find((m) => m.mark && m.best) || review.moves.find((m) => m.best);
  check(better, "Baba Ayo found no better move in a game of random moves");
  await ade.locator(`[data-testid="replay-move"][data-ply="${better.ply}"]`).click();
  await atPly(ade, better.ply);
  const graphPly = await ade.locator(`[data-testid="review-graph"] .now`).getAttribute("data-ply");
  check(Number(graphPly) === better.ply, `the graph marks move ${graphPly}`);
  const side = better.side;
  await ade.locator(`[data-testid="replay-pit-${side}-${better.best}"].best`).waitFor();
  const said = await ade.getByTestId("review-at").textContent();
  check(said.includes(`pit ${better.best}`), `at move ${better.ply} the review says ${said}`);
  if (better.mark) {
    check(said.includes(better.mark), `a ${better.mark} is not said: ${said}`);
    check(await ade.locator(`[data-testid="replay-move"][data-ply="${better.ply}"].${better.mark}`).count() === 1, "the move list does not mark it");
  }
  await shot(ade, "replay-review");
  await accessible(ade, "the replay with its review");

  step("Bisi's card from the room's list: record, recent game, head-to-head; Escape closes it");
  await ade.locator("#replay-back-room").click();
  await ade.locator("#lounge").waitFor();
  const bisiId = await idOf(bisi);
  await ade.locator(`#occupants [data-testid="occupant-name"][data-user="${bisiId}"]`).click();
  const card = ade.getByTestId("profile");
  await card.getByTestId("profile-record").filter({ hasText: "Won 1" }).waitFor();
  await card.getByTestId("profile-h2h").filter({ hasText: "lost 1" }).waitFor();
  await card.getByTestId("profile-game").filter({ hasText: "Ade" }).first().waitFor();
  await shot(ade, "profile-card");
  await accessible(ade, "the profile card");
  await ade.keyboard.press("Escape");
  check(!(await card.isVisible()), "Escape left the card open");
  await ade.locator(`#occupants [data-testid="occupant-name"][data-user="${bisiId}"]`).click();
  await card.getByTestId("profile-games").click();
  await ade.locator(`#history-title`, { hasText: "Games of Bisi" }).waitFor();
  await ade.locator(`[data-testid="history-games"] li`, { hasText: "Won" }).first().waitFor();

  step("A name in chat opens its card too");
  await ade.locator("#history-back").click();
  await ade.locator("#lounge").waitFor();
  await bisi.locator("#chat-text").fill("good game");
  await bisi.getByRole("button", { name: "Send" }).click();
  await ade.locator(`#chat [data-testid="chat-name"][data-user="${bisiId}"]`).first().click();
  await card.getByTestId("profile-record").filter({ hasText: "Won 1" }).waitFor();
  await card.getByTestId("profile-close").click();

  step("Ratings beside names where the room's frames carry them (Abapa's in the room, the table's family at a table)");
  await bisi.evaluate(async () => {
    const { receive } = await import("/js/room.js");
    const { state } = await import("/js/state.js");
    const rated = { id: "rated-guest", name: "Zainab", ratings: { abapa: "1540?", ayoayo: "1498" } };
    receive({ type: "occupant_joined", room: state.room.id, user: rated });
    const table = [...state.tables.values()].find((t) => !t.seats.south && !t.seats.north && t.rules.preset === "lagos");
    receive({ ...table, type: "table", version: table.version + 1, seats: { south: rated, north: null } });
  });
  const rating = await bisi.locator(`#occupants [data-user="rated-guest"] [data-testid="rating"]`).textContent();
  check(rating.trim() === "1540?", `the room shows ${rating} beside the name`);
  const atTable = await bisi.locator(`.table [data-testid="seat-name"][data-user="rated-guest"] [data-testid="rating"]`).textContent();
  check(atTable.trim() === "1540?", `the table shows ${atTable} beside the name`);

  step("A phone: Ade's games, the replay stepped by taps, Ade's card, all within 390 px");
  const chidi = await signIn(browser, base, "Chidi", seen, PHONE);
  await fitsPhone(chidi, "the lounge");
  const adeId = await idOf(ade);
  await chidi.evaluate((id) => { location.hash = `history/${id}`; }, adeId);
  const chidiRow = chidi.locator(`[data-testid="history-games"] li`, { hasText: "Bisi" });
  await chidiRow.first().waitFor();
  await fitsPhone(chidi, "a history");
  await shot(chidi, "history-phone");
  await chidiRow.first().getByTestId("history-open").click();
  await atPly(chidi, total);
  await fitsPhone(chidi, "a replay");
  await chidi.getByTestId("replay-first").tap();
  await atPly(chidi, 0);
  await chidi.getByTestId("replay-forward").tap();
  await atPly(chidi, 1);
  await boardIs(chidi, game, 1);
  await shot(chidi, "replay-phone");
  await chidi.locator("#replay-back-room").tap();
  await chidi.locator(`#occupants [data-testid="occupant-name"][data-user="${adeId}"]`).tap();
  await chidi.getByTestId("profile").getByTestId("profile-record").filter({ hasText: "lost 1" }).waitFor();
  const box = await chidi.getByTestId("profile").boundingBox();
  check(box.x >= 0 && box.x + box.width <= PHONE.viewport.width, `the card spans ${box.x}..${box.x + box.width}`);
  await fitsPhone(chidi, "a profile card");
  await shot(chidi, "profile-phone");
  await chidi.getByTestId("profile-close").tap();

  clean(seen);
  console.log("ok");
} finally {
  await browser.close();
}
