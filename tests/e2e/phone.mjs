// One long word in chat must not break the room for anyone: on a 390 px phone the page stays
// 390 px wide after an 85-character link and a 500-character word, the board fits the screen,
// and taps on pits and on Resign land where they look.
//
//   node tests/e2e/phone.mjs http://127.0.0.1:8080
import { launch, step, check, newSeen, clean, signIn, startGame, playOne } from "./common.mjs";

const [base] = process.argv.slice(2);
if (!base) throw new Error("usage: phone.mjs BASE_URL");
const seen = newSeen();
const browser = await launch();
const PHONE = { width: 390, height: 844 };

/// The page's width and its widest element past the screen's edge, if any.
async function widths(page) {
  return page.evaluate(() => {
    const over = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && e.getClientRects().length);
    return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, over: over.slice(0, 3).map((e) => e.id || e.className || e.tagName) };
  });
}

try {
  step("Ade on a desktop, Chidi on a phone; Ade pastes a long link and a 500-letter word");
  const ade = await signIn(browser, base, "Ade", seen);
  const chidi = await signIn(browser, base, "Chidi", seen, PHONE);
  await ade.locator("#occupants li", { hasText: "Chidi" }).waitFor();
  const link = "https://example.com/" + "lagos-hotel-surulere-games-lounge-".repeat(2) + "ayo?x=1";
  check(link.length >= 85, `the link is ${link.length} long`);
  const word = "ayo".repeat(166) + "oo";
  check(word.length === 500, `the word is ${word.length} long`);
  for (const text of [link, word]) {
    await ade.locator("#chat-text").fill(text);
    await ade.getByRole("button", { name: "Send" }).click();
    await chidi.locator("#chat li", { hasText: text.slice(0, 40) }).last().waitFor();
  }
  let w = await widths(chidi);
  check(w.scroll <= PHONE.width, `the phone's page is ${w.scroll} px wide (${w.over.join(", ")})`);

  step("Ade invites Chidi; the board fits the phone and taps land on the pits");
  await startGame(ade, chidi, "Chidi");
  w = await widths(chidi);
  check(w.scroll <= PHONE.width, `with the board the phone's page is ${w.scroll} px wide (${w.over.join(", ")})`);
  const board = await chidi.locator("#board").boundingBox();
  check(board.x >= 0 && board.x + board.width <= PHONE.width, `the board spans ${board.x}..${board.x + board.width}`);
  let chidiMoved = 0;
  for (let k = 0; k < 6 && chidiMoved < 2; k++) {
    const { page } = await playOne([ade, chidi]);
    if (page === chidi) chidiMoved += 1;
    await page.locator("#moves li").first().waitFor();
  }
  check(chidiMoved >= 1, "Chidi's taps played no move");
  await chidi.screenshot({ path: `${process.env.LOUNGE_SCREENSHOTS || "target/screenshots"}/phone-long-words.png`, fullPage: true }).catch(() => {});

  step("Chidi resigns with two taps on Resign");
  await chidi.locator("#resign").click();
  // The second press counts a moment after the first (a double click is one press).
  await chidi.waitForTimeout(300);
  await chidi.locator("#resign", { hasText: "Really resign?" }).click();
  await chidi.getByTestId("result").filter({ hasText: "Ade wins: you resigned" }).waitFor();
  w = await widths(chidi);
  check(w.scroll <= PHONE.width, `after the game the phone's page is ${w.scroll} px wide`);
  clean(seen);
  console.log("ok");
} finally {
  await browser.close();
}
