// A table's queue as guests use it: Chidi on a phone joins the second table's queue, is
// called to a seat in the bar and takes it; Ade joins, is called opposite and the game
// starts; Bisi joins the queue while they play and sees herself in it, then leaves it. The
// phone's page never grows wider than the phone; axe-core on a card showing the queue.
//
//   node tests/e2e/queue.mjs http://127.0.0.1:8080
import { launch, step, check, newSeen, clean, signIn, accessible, PHONE } from "./common.mjs";

const [base] = process.argv.slice(2);
if (!base) throw new Error("usage: queue.mjs BASE_URL");
const seen = newSeen();
const browser = await launch();

/// The second table's card on `page`.
const second = (page) => page.locator(".table").nth(1);

try {
  step("Chidi, on a phone, joins the second table's queue and is called to a seat");
  const chidi = await signIn(browser, base, "Chidi", seen, PHONE);
  await second(chidi).getByTestId("queue").tap();
  const call = chidi.getByTestId("queue-call");
  await call.filter({ hasText: "Your turn at table 2" }).waitFor();
  await call.locator(".left").filter({ hasText: /\d:\d\d left/ }).waitFor();
  await call.getByTestId("take-seat").tap();
  await second(chidi).getByTestId("seat-name").filter({ hasText: "Chidi" }).waitFor({ state: "attached" });
  check(await chidi.getByTestId("queue-call").count() === 0, "the call goes once the seat is taken");

  step("Ade joins the queue, is called opposite and sits: the game starts for both");
  const ade = await signIn(browser, base, "Ade", seen);
  await second(ade).getByTestId("queue").click();
  await ade.getByTestId("queue-call").getByTestId("take-seat").click();
  await ade.locator("#board .pit").first().waitFor();
  await chidi.locator("#board .pit").first().waitFor();

  step("Bisi joins the queue while they play, sees herself in it, and leaves it");
  const bisi = await signIn(browser, base, "Bisi", seen);
  await second(bisi).getByTestId("queue").click();
  await second(bisi).getByTestId("table-queue").filter({ hasText: "Queue: Bisi." }).waitFor();
  await second(chidi).getByTestId("table-queue").filter({ hasText: "Queue: Bisi." }).waitFor({ state: "attached" });
  await accessible(bisi, "a table card with its queue");
  await second(bisi).getByTestId("unqueue").click();
  await second(bisi).getByTestId("table-queue").filter({ hasText: "Queue: nobody waiting." }).waitFor();

  const w = await chidi.evaluate(() => document.documentElement.scrollWidth);
  check(w <= 390, `the phone's page is ${w} px wide`);
  clean(seen);
  console.log("ok");
} finally {
  await browser.close();
}
