// The hotel web client in headless Chromium: two people sign in, one invites the other, they
// play a whole game by clicking pits while an onlooker watches, the champions display shows
// the winner live; then a game against Baba Ayo played from the keyboard. Screenshots go to
// the folder given.
//
//   node tests/e2e/lounge.mjs http://127.0.0.1:8080 docs/screenshots
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";

const [base, shots = "docs/screenshots"] = process.argv.slice(2);
if (!base) throw new Error("usage: lounge.mjs BASE_URL [SCREENSHOT_DIR]");
mkdirSync(shots, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const step = (text) => console.log(`- ${text}`);

async function signIn(name, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on("pageerror", (e) => { throw new Error(`${name}: ${e.message}`); });
  await page.goto(base + "/");
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Walk in" }).click();
  await page.locator("#room-name", { hasText: "Surulere Games Lounge" }).waitFor();
  await page.locator(".table").first().waitFor();
  return page;
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
  const [a, b] = await Promise.all([
    playOut(ade),
    playOut(bisi),
    (async () => {
      await ade.waitForTimeout(1500);
      await ade.screenshot({ path: `${shots}/game.png`, fullPage: true });
      shot = true;
    })(),
  ]);
  if (!shot) throw new Error("no screenshot of the game");
  console.log(`  Ade sees: ${a}\n  Bisi sees: ${b}`);
  await chidi.getByTestId("result").filter({ hasText: /wins|Draw/ }).waitFor();
  const seen = (await chidi.getByTestId("result").textContent()).trim();
  if (seen !== a && !seen.includes(a.split(" (")[1] || "")) throw new Error(`the onlooker saw ${seen}`);

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

  step("Ade buys an Ayo board, places it at home and goes home");
  await ade.getByRole("button", { name: "Furniture shop" }).click();
  await ade.getByTestId("buy-ayo-board-iroko-oiled").click();
  await ade.getByTestId("place").first().click();
  await ade.locator("#inventory li", { hasText: "(at home)" }).waitFor();
  await ade.getByRole("button", { name: "My apartment" }).click();
  await ade.locator("#room-name", { hasText: "Ade's apartment" }).waitFor();
  await ade.locator(".table").first().waitFor();
  console.log("ok");
} finally {
  await browser.close();
}
