// What the web client's browser tests share: Chromium, signing in, and a watch on every page
// for what must never happen (a script error, a 404, a token in a URL or in the console).
import { chromium } from "playwright-core";

export const step = (text) => console.log(`- ${text}`);
export const check = (ok, what) => { if (!ok) throw new Error(what); };

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
}

/// Every page of a test is watched: script errors fail the test at once; 404s, URLs holding a
/// token and console lines naming one are kept for `clean`.
export function watchPage(page, name, seen) {
  page.on("pageerror", (e) => { seen.errors.push(`${name}: ${e.message}`); });
  page.on("response", (r) => { if (r.status() === 404) seen.missing.push(`${name}: ${r.url()}`); });
  page.on("request", (r) => { if (/[?&]token=/.test(r.url())) seen.leaks.push(`${name}: ${r.url()}`); });
  page.on("websocket", (ws) => {
    seen.sockets.push(ws.url());
    if (/[?&]token=/.test(ws.url())) seen.leaks.push(`${name}: ${ws.url()}`);
  });
  page.on("console", (m) => { if (/token=|eyJ[A-Za-z0-9_-]{10,}\./.test(m.text())) seen.leaks.push(`${name} console: ${m.text()}`); });
  page.on("dialog", (d) => { seen.errors.push(`${name}: a dialog: ${d.message()}`); d.dismiss().catch(() => {}); });
}

export function newSeen() {
  return { errors: [], missing: [], leaks: [], sockets: [] };
}

/// Nothing went wrong on any page watched.
export function clean(seen) {
  check(seen.errors.length === 0, `page errors: ${seen.errors.join("; ")}`);
  check(seen.missing.length === 0, `404s: ${seen.missing.join("; ")}`);
  check(seen.leaks.length === 0, `a token in a URL or the console: ${seen.leaks.join("; ")}`);
}

/// A new browser context (a device) signed in as a new guest `name`, in the lounge. `device`:
/// a viewport, or a context's options (`PHONE`); `prepare(context)` runs before the page opens.
export async function signIn(browser, base, name, seen, device = { width: 1280, height: 900 }, prepare = null) {
  const context = await browser.newContext(device.width ? { viewport: device } : device);
  if (prepare) await prepare(context);
  const page = await context.newPage();
  watchPage(page, name, seen);
  await page.goto(base + "/");
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Walk in" }).click();
  await page.locator("#room-name", { hasText: "Surulere Games Lounge" }).waitFor();
  await page.locator(".table").first().waitFor();
  return page;
}

/// The id of the guest signed in on `page`.
export async function idOf(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem("lounge.user")).id);
}

/// Host `host` sits South at the first table with `clock`, invites `guest`, who accepts.
/// The clock is chosen on the free table's card, before sitting: the choice is the host's
/// once seated (the card is drawn again as the seat is taken, and a choice made on the card
/// being replaced must not be lost).
export async function startGame(host, guest, guestName, clock = "none") {
  const table = host.locator(".table").first();
  await table.getByTestId("match-clock").selectOption(clock);
  await table.getByTestId("sit-south").click();
  await table.getByTestId("invite-who").waitFor();
  const shown = await table.getByTestId("match-clock").inputValue();
  if (shown !== clock) throw new Error(`the clock chosen before sitting: ${shown}, not ${clock}`);
  await host.locator(".table").first().getByTestId("invite-who").selectOption({ label: guestName });
  await host.locator(".table").first().getByTestId("invite").click();
  const invitation = guest.getByTestId("invitation");
  await invitation.waitFor();
  await guest.getByTestId("invitation-left").filter({ hasText: /\d:\d\d left/ }).waitFor();
  await invitation.getByTestId("accept").click();
  await host.locator("#board .pit").first().waitFor();
  await guest.locator("#board .pit").first().waitFor();
}

/// Plays one glowing pit on whichever of `pages` has the move; its number.
export async function playOne(pages) {
  for (let tries = 0; tries < 400; tries++) {
    for (const page of pages) {
      const legal = page.locator(".pit.legal");
      if (await legal.count()) {
        const pick = legal.first();
        const number = (await pick.getAttribute("data-testid")).replace("pit-", "");
        await pick.click();
        return { page, number: Number(number) };
      }
    }
    await pages[0].waitForTimeout(25);
  }
  throw new Error("nobody could move");
}

/// axe-core's checks of labels and contrast on what `page` shows now: fails on any violation.
export async function accessible(page, what) {
  const axe = new URL("./node_modules/axe-core/axe.min.js", import.meta.url).pathname;
  if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.addScriptTag({ path: axe });
  const result = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: "rule", values: ["label", "select-name", "button-name", "label-title-only", "color-contrast", "aria-input-field-name"] },
  }));
  const found = result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
  check(found.length === 0, `${what}: axe finds ${found.join("; ")}`);
}

/// Whether `locator`'s box is inside the viewport of its page, wholly.
export async function inView(page, locator) {
  const box = await locator.boundingBox();
  const { height, width } = page.viewportSize();
  return !!box && box.y >= 0 && box.y + box.height <= height + 1 && box.x >= 0 && box.x + box.width <= width + 1;
}

/// A phone, as a guest holds one: 390x844, touch, no hover.
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
