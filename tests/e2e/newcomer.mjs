// What a newcomer and a phone player meet, each step a thing they once broke on: offers in
// view on a phone, a move during an outage never silently lost, onlookers' labels, errors in
// words, seats kept and the lots shown, the wall's rule said, result lines, the phone's
// header, board and buttons, labels in sight, an apartment that shows what is in it, and who
// is here apart from who was met. axe-core checks labels and contrast on the lounge and the
// board, on a desktop and a phone.
//
//   node tests/e2e/newcomer.mjs http://127.0.0.1:8080 HOUSE_WINNER_NAME
import { launch, step, check, newSeen, clean, signIn, playOne, accessible, inView, PHONE, watchPage } from "./common.mjs";

const [base, houseWinner] = process.argv.slice(2);
if (!base || !houseWinner) throw new Error("usage: newcomer.mjs BASE_URL HOUSE_WINNER_NAME");
const seen = newSeen();
const browser = await launch();
const shots = process.env.LOUNGE_SCREENSHOTS || "target/screenshots";
const DESK = { width: 1366, height: 800 };

// Ade's socket runs through a switch the test holds: up, cut (the socket closed and no new
// one let through), or swallowing his next move and then cutting (a move lost in flight).
const line = { up: true, open: [], swallowMove: false };
function cut() {
  line.up = false;
  for (const [page, server] of line.open.splice(0)) {
    page.close({ code: 1012, reason: "the line was cut" }).catch(() => {});
    server.close().catch(() => {});
  }
}
async function switchboard(context) {
  await context.routeWebSocket(/\/ws/, (ws) => {
    if (!line.up) {
      ws.close({ code: 1012, reason: "down" }).catch(() => {});
      return;
    }
    const server = ws.connectToServer();
    line.open.push([ws, server]);
    ws.onMessage((message) => {
      if (line.swallowMove && JSON.parse(message).type === "move") {
        line.swallowMove = false;
        cut();
        return;
      }
      server.send(message);
    });
  });
  await context.route("**/api/v1/auth/ws-ticket", (route) => (line.up ? route.continue() : route.abort("connectionrefused")));
}

/// Every word of every visible button of `page` under `scope` sits on one line.
async function wordsWhole(page, scope) {
  return page.evaluate((scope) => {
    const broken = [];
    for (const b of document.querySelectorAll(`${scope} button`)) {
      if (!b.offsetParent) continue;
      const text = b.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) continue;
      let at = 0;
      for (const word of text.textContent.split(" ")) {
        const range = document.createRange();
        range.setStart(text, at);
        range.setEnd(text, at + word.length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(`${b.textContent} (${word})`);
        at += word.length + 1;
      }
    }
    return broken;
  }, scope);
}

try {
  step("Ade (a desktop), Bisi (a desktop) and Chidi (a phone) walk in");
  const ade = await signIn(browser, base, "Ade", seen, DESK, switchboard);
  const bisi = await signIn(browser, base, "Bisi", seen, DESK);
  const chidi = await signIn(browser, base, "Chidi", seen, PHONE);
  await ade.locator("#occupants li", { hasText: "Chidi" }).waitFor();

  step("the lounge: labels in sight, nothing under the header, no gap before the chat");
  await accessible(ade, "the lounge on a desktop");
  await accessible(chidi, "the lounge on a phone");
  const unlabelled = await ade.evaluate(() => [...document.querySelectorAll("#tables select")]
    .filter((s) => { const l = s.closest("label"); return !l || !l.offsetParent || !l.textContent.replace(s.textContent, "").trim(); })
    .map((s) => s.dataset.testid));
  check(unlabelled.length === 0, `selects without a visible label: ${unlabelled.join(", ")}`);
  check(!(await ade.locator("#notice").isVisible()), "an empty notice takes room under the header");
  const gap = await ade.evaluate(() => {
    const cards = [...document.querySelectorAll("#tables .table")].map((c) => c.getBoundingClientRect().right);
    return document.getElementById("tables").getBoundingClientRect().right - Math.max(...cards);
  });
  check(gap <= 4, `${gap} px of nothing between the last table and the chat`);
  const header = await chidi.locator("header.bar").boundingBox();
  check(header.height <= 64, `the phone's header is ${header.height} px high`);

  step("Ade sits north at table 1 with 5 minutes a move and invites Chidi, who looks at the bottom of the page");
  const table = ade.locator(".table").first();
  await table.getByTestId("match-clock").selectOption("5m");
  await table.getByTestId("sit-north").click();
  await table.getByTestId("stand").waitFor();
  check(await table.locator(".seat", { hasText: "Ade" }).getByTestId("stand").isVisible(), "Stand up is not beside Ade's seat");
  await chidi.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await table.getByTestId("invite-who").selectOption({ label: "Chidi" });
  await table.getByTestId("invite").click();
  const invitation = chidi.getByTestId("invitation");
  await invitation.getByTestId("invitation-left").filter({ hasText: /\d:\d\d left/ }).waitFor();
  check(await inView(chidi, invitation), "the invitation is out of the phone's view");
  await chidi.screenshot({ path: `${shots}/phone-invitation.png` });

  step("Chidi accepts: seats as they sat, the lots drawn shown, the board in the phone's view");
  await invitation.getByTestId("accept").click();
  await chidi.locator("#board .pit").first().waitFor();
  await ade.locator("#board .pit").first().waitFor();
  await ade.locator("#myself", { hasText: "You (north)" }).waitFor();
  await chidi.locator("#myself", { hasText: "You (south)" }).waitFor();
  const lots = (await chidi.getByTestId("lots").textContent()).trim();
  check(/^Lots drawn: (you start|Ade starts)$/.test(lots), `Chidi reads: ${lots}`);
  const box = await chidi.locator("#board").boundingBox();
  check(box.y >= 0 && box.y < PHONE.viewport.height / 2, `the phone's board begins at ${box.y} px`);
  const chidiStarts = lots === "Lots drawn: you start";
  const [first, second] = chidiStarts ? [chidi, ade] : [ade, chidi];
  await first.locator(".pit.legal").first().waitFor();
  const turnText = (await first.locator("#turn").textContent()).trim();
  check(chidiStarts ? !turnText.includes("1–6") && turnText.includes("tap") : turnText.includes("1–6"), `${chidiStarts ? "Chidi's phone" : "Ade's desktop"} says: ${turnText}`);
  const broken = await wordsWhole(chidi, "#game");
  check(broken.length === 0, `buttons broken inside a word on the phone: ${broken.join("; ")}`);
  await accessible(ade, "the board on a desktop");
  await accessible(chidi, "the board on a phone");

  step("Bisi watches: the players are named by their seats, Bisi as the one watching");
  await bisi.locator(".table").first().getByRole("button", { name: "Watch" }).click();
  await bisi.locator("#board .pit").first().waitFor();
  const names = `${await bisi.locator("#myself").textContent()} | ${await bisi.locator("#opponent").textContent()}`;
  check(!names.includes("watching") && names.includes("Ade (north)") && names.includes("Chidi (south)"), `the onlooker reads: ${names}`);
  await bisi.locator("#turn", { hasText: "Watching" }).waitFor();

  step("a move each until it is Ade's turn");
  await playOne([first]);
  await second.locator(".pit.legal").first().waitFor();
  if (second !== ade) {
    await playOne([second]);
    await ade.locator(".pit.legal").first().waitFor();
  }

  step("Ade's line is cut on his turn: the board says so, takes no move, the clocks stop for him");
  cut();
  await ade.getByTestId("offline").filter({ hasText: "Connection lost" }).waitFor();
  check(await ade.locator(".pit.legal").count() === 0, "pits glow while the socket is down");
  check(await ade.locator("#clock-me.stopped").isVisible(), "Ade's clock does not show it stopped");
  await ade.locator("#board").focus();
  // Some of his pits are empty: every key, the legal ones among them.
  for (const key of "123456") await ade.keyboard.press(key);
  await ade.locator("#notice", { hasText: "You are offline: that move was not sent" }).waitFor();
  await ade.screenshot({ path: `${shots}/board-offline.png` });
  line.up = true;
  await ade.getByTestId("offline").waitFor({ state: "hidden", timeout: 15000 });
  const before = await ade.getByTestId("moves").textContent();

  step("back: his move is lost in flight as the line goes again; at reconnect it is sent with its version");
  line.swallowMove = true;
  await ade.locator(".pit.legal").first().click();
  await ade.getByTestId("offline").waitFor();
  line.up = true;
  await ade.locator("#notice", { hasText: "was sent again now that you are back" }).waitFor({ timeout: 15000 });
  await chidi.locator(".pit.legal").first().waitFor();
  check((await ade.getByTestId("moves").textContent()) !== before, "the move sent again is not in Ade's list");

  step("Ade offers a draw while Chidi looks at the board: the offer is in view");
  await chidi.locator("#board").scrollIntoViewIfNeeded();
  await ade.locator("#offer-draw").click();
  const offer = chidi.getByTestId("draw-offer");
  await offer.waitFor();
  check(await inView(chidi, offer), "the draw offer is out of the phone's view");
  check(await inView(chidi, chidi.locator("#board .pit").first()), "the offer took the board's place");
  await chidi.screenshot({ path: `${shots}/phone-draw-offer.png` });
  await offer.getByTestId("decline-draw").click();

  step("Chidi resigns: the result in words, and why it is not on the wall");
  await chidi.locator("#resign").click();
  await chidi.waitForTimeout(300);
  await chidi.locator("#resign", { hasText: "Really resign?" }).click();
  await chidi.getByTestId("result").filter({ hasText: "Ade wins: you resigned" }).waitFor();
  const result = (await ade.getByTestId("result").textContent()).trim();
  check(/^You win: Chidi resigned\. Not on the champions wall: the winner's account is too new \(an account counts once it is .+ old or has played \d+ games against people\)\.$/.test(result), `Ade reads: ${result}`);

  step("the champions display: its rule, and the house board beside the wall");
  const wall = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  watchPage(wall, "wall", seen);
  await wall.goto(base + "/champions");
  await wall.getByTestId("wall-rule").filter({ hasText: /^A win counts when .*games against people/ }).waitFor();
  await wall.getByTestId("house-board").filter({ hasText: houseWinner }).waitFor();
  await wall.screenshot({ path: `${shots}/champions-house-board.png` });

  step("Ade furnishes his apartment and goes home; Bisi sees him among those met, not here now");
  await ade.getByRole("button", { name: "Furniture shop" }).click();
  await ade.getByTestId("buy-rattan-chair").click();
  await ade.locator("#inventory li", { hasText: "chair" }).waitFor();
  await ade.getByTestId("buy-ayo-board-iroko-oiled").click();
  await ade.getByTestId("place").click();
  await ade.getByTestId("placed").filter({ hasText: /Iroko.*chair|chair.*Iroko/i }).waitFor();
  await ade.getByRole("button", { name: "My apartment" }).click();
  await ade.getByTestId("home-line").filter({ hasText: "Your apartment" }).waitFor();
  await bisi.locator("#occupants li", { hasText: "Ade" }).waitFor({ state: "detached" });
  await bisi.locator("label[for=invite-home-who]", { hasText: "Met earlier, not here now" }).waitFor();
  check((await bisi.locator("#invite-home-who option").allTextContents()).includes("Ade"), "Ade is not among those met");

  step("Ade invites Bisi home; she goes and sees what is in it, and whether he is home");
  await ade.locator("#invite-home-who").selectOption({ label: "Bisi" });
  await ade.getByTestId("invite-home-button").click();
  const home = bisi.getByTestId("home-invitation");
  await home.waitFor();
  check(await inView(bisi, home), "the invitation home is out of view");
  await home.getByTestId("go-home-invitation").click();
  await bisi.getByTestId("home-line").filter({ hasText: /Ade's apartment · Ade is home · .*Iroko.*chair/i }).waitFor();
  check((await bisi.locator("#tables .table h4").first().textContent()).includes("Iroko"), "the placed board is just a table card");
  check(await bisi.locator("#occupants li", { hasText: "Ade" }).getByTestId("visit").count() === 0, "Visit is offered in Ade's own apartment");
  await bisi.screenshot({ path: `${shots}/apartment-visit.png` });
  await ade.getByRole("button", { name: "Surulere Games Lounge" }).click();
  await bisi.getByTestId("home-line").filter({ hasText: "Ade is out" }).waitFor();

  step("errors read as sentences: the network down, a name taken");
  const newcomer = await browser.newContext({ viewport: DESK });
  const page = await newcomer.newPage();
  watchPage(page, "newcomer", seen);
  await page.goto(base + "/");
  await newcomer.setOffline(true);
  await page.getByLabel("Your name").fill("Dayo");
  await page.getByRole("button", { name: "Walk in" }).click();
  await page.locator("#signin-error", { hasText: "The hotel cannot be reached just now" }).waitFor();
  await newcomer.setOffline(false);
  await page.getByLabel("Your name").fill("Ade");
  await page.getByRole("button", { name: "Walk in" }).click();
  await page.locator("#signin-error").filter({ hasText: /\w/ }).waitFor();
  const taken = (await page.locator("#signin-error").textContent()).trim();
  check(/^[A-Z][^`]*[.!?]$/.test(taken) && !/Failed to fetch/.test(taken), `the name taken reads: ${taken}`);
  await newcomer.close();

  step("Bisi, with no password, signs out: asked first; she sets a password on her Me page");
  await bisi.getByTestId("sign-out").click();
  await bisi.getByTestId("ask").filter({ hasText: "You have no password" }).waitFor();
  await bisi.getByTestId("ask-stay").click();
  check(await bisi.locator("#nav").isVisible(), "staying signed in signed out");
  await bisi.getByTestId("sign-out").click();
  await bisi.getByTestId("ask-password").click();
  await bisi.locator("#me-page").waitFor();
  await bisi.getByTestId("devices").locator("li", { hasText: "(this one)" }).waitFor();
  await accessible(bisi, "the Me page");
  await bisi.getByLabel("New password").fill("moonlight on the lagoon");
  await bisi.getByRole("button", { name: "Set password" }).click();
  await bisi.locator("#password-result", { hasText: "Password set" }).waitFor();
  await bisi.screenshot({ path: `${shots}/me.png` });
  await bisi.getByTestId("me-sign-out").click();
  await bisi.getByRole("button", { name: "Walk in" }).waitFor();
  check(!(await bisi.getByTestId("ask").isVisible()), "asked again with a password set");

  clean(seen);
  console.log("ok");
} catch (e) {
  // What the pages said goes with the failure: a script error is usually the cause.
  console.log(`page errors: ${seen.errors.join("; ") || "none"}`);
  throw e;
} finally {
  await browser.close();
}
