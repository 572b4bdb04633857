// A guest stays themselves in the hotel web client (issue 15): signed in once, the browser
// closed and opened again on the same profile, they come back as the same avatar (same id, same
// coins) through the refresh credential the client keeps; a password set in the client signs
// them in on a new device; signing out revokes the credential on the server.
//
//   node tests/e2e/identity.mjs http://127.0.0.1:8080
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [base] = process.argv.slice(2);
if (!base) throw new Error("usage: identity.mjs BASE_URL");
const options = {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
  headless: true,
};
const step = (text) => console.log(`- ${text}`);
const check = (ok, what) => { if (!ok) throw new Error(what); };
const profile = mkdtempSync(join(tmpdir(), "lounge-profile-"));

/// A page of a browser on `profile`, at the lounge.
async function open(dir) {
  const context = await chromium.launchPersistentContext(dir, options);
  const page = context.pages()[0] || await context.newPage();
  page.on("pageerror", (e) => { throw new Error(e.message); });
  await page.goto(base + "/");
  return { context, page };
}

/// Who the page is signed in as, asked of the server with the page's own token.
async function whoAmI(page) {
  return page.evaluate(async () => {
    const token = localStorage.getItem("lounge.token");
    const me = await fetch("/api/v1/me", { headers: { Authorization: "Bearer " + token } });
    const body = await me.json();
    return { id: body.user?.id, name: body.user?.name, coins: body.coins, token, refresh: localStorage.getItem("lounge.refresh") };
  });
}

const inRoom = (page) => page.locator("#room-name", { hasText: "Surulere Games Lounge" }).waitFor();

try {
  let { context, page } = await open(profile);
  await page.getByLabel("Your name").fill("Ireti");
  await page.getByRole("button", { name: "Walk in" }).click();
  await inRoom(page);
  // Buy a chair, so the coins are this guest's own and not a newcomer's 500.
  await page.getByRole("button", { name: "Furniture shop" }).click();
  await page.getByTestId("buy-rattan-chair").click();
  await page.locator("#coins", { hasText: "460" }).waitFor();
  const first = await whoAmI(page);
  check(first.id && first.name === "Ireti" && first.coins === 460 && first.refresh, `signed in: ${JSON.stringify(first)}`);
  step(`signed in as ${first.name} (${first.id}), ${first.coins} coins`);
  await context.close();

  ({ context, page } = await open(profile));
  await inRoom(page);
  const back = await whoAmI(page);
  check(back.id === first.id && back.coins === 460, `the same avatar: ${JSON.stringify(back)}`);
  check(back.refresh !== first.refresh, "the credential was refreshed at start");
  step("the browser opened again: the same avatar, the same coins, a new credential");

  // A password, set in the client (on the Me page), then signing out: not asked, with one.
  await page.getByTestId("go-me").click();
  await page.getByLabel("New password").fill("moonlight on the lagoon");
  await page.getByRole("button", { name: "Set password" }).click();
  await page.locator("#password-result", { hasText: "Password set" }).waitFor();
  await page.getByTestId("me-sign-out").click();
  await page.getByRole("button", { name: "Walk in" }).waitFor();
  const revoked = await fetch(base + "/api/v1/auth/refresh", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ refresh: back.refresh }),
  });
  check(revoked.status === 401, `after sign-out the credential is refused: ${revoked.status}`);
  check(await page.evaluate(() => localStorage.getItem("lounge.refresh")) === null, "forgotten");
  step("signed out: the credential is refused");
  await context.close();

  // A new device: name and password.
  const phone = mkdtempSync(join(tmpdir(), "lounge-profile-"));
  ({ context, page } = await open(phone));
  await page.getByText("Been here before on another device?").click();
  await page.locator("#signin-name").fill("Ireti");
  await page.locator("#signin-password").fill("moonlight on the lagoon");
  await page.getByRole("button", { name: "Sign in" }).click();
  await inRoom(page);
  const there = await whoAmI(page);
  check(there.id === first.id && there.coins === 460, `a new device: ${JSON.stringify(there)}`);
  step("a new device with name and password: the same avatar");
  await context.close();
  rmSync(phone, { recursive: true, force: true });
  console.log("ok");
} finally {
  rmSync(profile, { recursive: true, force: true });
}
