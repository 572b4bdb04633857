// Play someone now as guests use it: Ade, on a phone, asks for a game and waits; Bisi sees
// him waiting for that game and asks for it too, and both are offered it in the bar, counting
// down. Bisi declines: Ade waits on, and Bisi may not look again for a while (the panel says
// until when). Chidi asks; he and Ade both accept, the game starts at a table and a move is
// played. Dayo asks for a game nobody else wants and, after a while (the Rust test moves the
// hotel's clock on), is offered Baba Ayo, who plays him. axe-core on the panel and the
// offers; the phone's page never grows wider than the phone.
//
//   node tests/e2e/seek.mjs http://127.0.0.1:8080
import { launch, step, check, newSeen, clean, signIn, accessible, playOne, PHONE } from "./common.mjs";

const [base] = process.argv.slice(2);
if (!base) throw new Error("usage: seek.mjs BASE_URL");
const seen = newSeen();
const browser = await launch();

/// The play-now panel on `page`.
const panel = (page) => page.getByTestId("seek");

try {
  step("Ade, on a phone, asks for a game now and waits");
  const ade = await signIn(browser, base, "Ade", seen, PHONE);
  await panel(ade).getByTestId("seek-count").filter({ hasText: "Nobody is waiting for this game yet." }).waitFor();
  await panel(ade).getByTestId("seek-button").tap();
  await panel(ade).getByTestId("seek-waiting").filter({ hasText: "Looking for an opponent: Abapa · 5 min a move · rated." }).waitFor();
  await panel(ade).getByTestId("seek-count").filter({ hasText: "Nobody else is waiting for this game yet." }).waitFor();
  check(await panel(ade).getByTestId("seek-button").isHidden(), "the form gives way to the wait");

  step("Bisi sees him waiting for that game and asks for it: both are offered it, counting down");
  const bisi = await signIn(browser, base, "Bisi", seen);
  await panel(bisi).getByTestId("seek-count").filter({ hasText: "1 waiting for this game now." }).waitFor();
  await panel(bisi).getByTestId("seek-button").click();
  for (const [page, other] of [[ade, "Bisi"], [bisi, "Ade"]]) {
    const offer = page.getByTestId("pairing").filter({ hasText: `A game now against ${other}: Abapa · 5 min a move · rated, at table ` });
    await offer.waitFor();
    await offer.getByTestId("pairing-left").filter({ hasText: /\d:\d\d left/ }).waitFor();
  }
  await accessible(ade, "the play-now panel and a game offered, on a phone");

  step("Bisi declines: Ade waits on; Bisi may not look again yet, and is told until when");
  await bisi.getByTestId("pairing").getByTestId("pairing-decline").click();
  await ade.getByTestId("pairing").waitFor({ state: "detached" });
  await ade.locator("#notice", { hasText: "Bisi declined: still looking for an opponent." }).waitFor();
  await panel(ade).getByTestId("seek-waiting").waitFor();
  await bisi.getByTestId("pairing").waitFor({ state: "detached" });
  await panel(bisi).getByTestId("seek-button").click();
  await panel(bisi).getByTestId("seek-error").filter({ hasText: /^You let a game go, so you may look again at .+ \(in 0:[0-3]\d\)\.$/ }).waitFor();
  check(await panel(bisi).getByTestId("seek-waiting").isHidden(), "a refused seek waits for nothing");

  step("Chidi asks for the same game: he and Ade both accept, and it starts at a table");
  const chidi = await signIn(browser, base, "Chidi", seen);
  await panel(chidi).getByTestId("seek-button").click();
  await ade.getByTestId("pairing").filter({ hasText: "against Chidi" }).getByTestId("pairing-accept").tap();
  await ade.getByTestId("pairing").filter({ hasText: "You accepted: waiting for Chidi to accept…" }).waitFor();
  await chidi.getByTestId("pairing").filter({ hasText: "against Ade" }).getByTestId("pairing-accept").click();
  await ade.locator("#board .pit").first().waitFor();
  await chidi.locator("#board .pit").first().waitFor();
  await ade.getByTestId("pairing").waitFor({ state: "detached" });
  await panel(chidi).getByTestId("seek-count").filter({ hasText: "You have a seat here: stand up to look for an opponent." }).waitFor();
  // Onlookers see the table taken by the two.
  await bisi.locator(".table").filter({ hasText: "Ade" }).filter({ hasText: "Chidi" }).waitFor();

  step("A move is played, and both boards show it");
  await playOne([ade, chidi]);
  await ade.locator("#moves li").first().waitFor();
  await chidi.locator("#moves li").first().waitFor();

  step("Dayo asks for a casual 10 + 5 game nobody else wants: after a while Baba Ayo is offered, and plays him");
  const dayo = await signIn(browser, base, "Dayo", seen);
  await panel(dayo).getByTestId("seek-clock").selectOption("10+5");
  await panel(dayo).getByTestId("seek-rated").selectOption("casual");
  await panel(dayo).getByTestId("seek-button").click();
  await panel(dayo).getByTestId("seek-waiting").filter({ hasText: "Looking for an opponent: Abapa · 10 + 5 · casual." }).waitFor();
  // The Rust test moves the hotel's clock on once he waits alone for that game.
  const house = dayo.getByTestId("seek-house");
  await house.filter({ hasText: "Nobody yet for Abapa after 45 s. Baba Ayo would play you now." }).waitFor();
  await accessible(dayo, "Baba Ayo offered after a wait");
  await house.getByTestId("seek-house-level").selectOption("easy");
  await house.getByTestId("seek-play-house").click();
  await dayo.locator("#board .pit").first().waitFor();
  await dayo.locator("#opponent", { hasText: "Baba Ayo (house)" }).waitFor();
  check(await house.count() === 0, "the offer goes once taken");
  await panel(dayo).getByTestId("seek-count").filter({ hasText: "You have a seat here: stand up to look for an opponent." }).waitFor();
  check(await panel(dayo).getByTestId("seek-waiting").isHidden(), "seated, Dayo waits in no pool");

  const w = await ade.evaluate(() => document.documentElement.scrollWidth);
  check(w <= 390, `the phone's page is ${w} px wide`);
  clean(seen);
  console.log("ok");
} finally {
  await browser.close();
}
