// Moderation as a guest sees it, in headless Chromium: a chat line an operator takes away
// disappears, slow mode is shown, a muted guest is told until when (and their line is
// refused), a guest blocks another from the list of people in the room, and a guest put out
// of the room is told so. The operator's side is the admin API, with the token given.
//
//   node tests/e2e/moderation.mjs http://127.0.0.1:8080 ADMIN_TOKEN [SCREENSHOT_DIR]
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";

const [base, admin, shots = process.env.LOUNGE_SCREENSHOTS || "target/screenshots"] = process.argv.slice(2);
if (!base || !admin) throw new Error("usage: moderation.mjs BASE_URL ADMIN_TOKEN [SCREENSHOT_DIR]");
mkdirSync(shots, { recursive: true });
const ROOM = "surulere-games-lounge";

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const step = (text) => console.log(`- ${text}`);

async function signIn(name) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => { throw new Error(`${name}: ${e.message}`); });
  await page.goto(base + "/");
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Walk in" }).click();
  await page.locator("#room-name", { hasText: "Surulere Games Lounge" }).waitFor();
  const user = await page.evaluate(() => JSON.parse(localStorage.getItem("lounge.user")));
  return { page, id: user.id };
}

/// The operator's request; fails unless the status is `expect`.
async function operator(method, path, body, expect) {
  const response = await fetch(base + "/api/v1/admin" + path, {
    method,
    headers: { Authorization: "Bearer " + admin, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (response.status !== expect) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
}

async function say(page, text) {
  await page.getByLabel("Say something").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

try {
  step("two guests in the lounge");
  const ade = await signIn("Ade");
  const bisi = await signIn("Bisi");
  await ade.page.locator(`#occupants li[data-user="${bisi.id}"]`).waitFor();

  step("a rude line, taken away by an operator, disappears for everyone");
  await say(bisi.page, "something rude");
  const line = ade.page.locator("#chat li", { hasText: "something rude" });
  await line.waitFor();
  const id = await line.getAttribute("data-line");
  await operator("DELETE", `/rooms/${ROOM}/chat/${id}`, null, 204);
  await line.waitFor({ state: "detached" });
  await bisi.page.locator("#chat li", { hasText: "something rude" }).waitFor({ state: "detached" });

  step("slow mode is shown");
  await operator("PUT", `/rooms/${ROOM}/slow-mode`, { seconds: 30 }, 200);
  for (const { page } of [ade, bisi]) {
    await page.getByTestId("slow-mode").filter({ hasText: "one line every 30 s" }).waitFor();
  }
  await say(ade.page, "first line");
  await ade.page.locator("#chat li", { hasText: "first line" }).waitFor();
  await say(ade.page, "second line");
  await ade.page.locator("#notice", { hasText: "slow mode" }).waitFor();
  await ade.page.screenshot({ path: `${shots}/moderation-slow-mode.png` });

  step("a muted guest is told until when, and their line is refused");
  await operator("PUT", `/users/${bisi.id}/mute`, { seconds: 300, reason: "cool off" }, 200);
  await bisi.page.getByTestId("moderation").filter({ hasText: "You are muted until" }).waitFor();
  await bisi.page.getByTestId("moderation").filter({ hasText: "cool off" }).waitFor();
  await say(bisi.page, "can I speak?");
  await bisi.page.locator("#notice", { hasText: "muted" }).waitFor();
  await bisi.page.screenshot({ path: `${shots}/moderation-muted.png` });

  step("a guest blocks another from the list of people in the room");
  const row = ade.page.locator(`#occupants li[data-user="${bisi.id}"]`);
  await row.getByRole("button", { name: "Block" }).click();
  await ade.page.locator("#notice", { hasText: "Bisi is blocked" }).waitFor();
  await row.getByRole("button", { name: "Unblock" }).waitFor();
  const blocks = await ade.page.evaluate(async () => {
    const r = await fetch("/api/v1/me/blocks", { headers: { Authorization: "Bearer " + localStorage.getItem("lounge.token") } });
    return r.json();
  });
  if (blocks.blocks.length !== 1 || blocks.blocks[0].id !== bisi.id) throw new Error(JSON.stringify(blocks));

  step("a guest put out of the room is told so");
  await operator("POST", `/rooms/${ROOM}/put-out`, { user: bisi.id, seconds: 600, reason: "spamming" }, 200);
  await bisi.page.getByTestId("moderation").filter({ hasText: "You were put out of Surulere Games Lounge: spamming" }).waitFor();
  await bisi.page.locator("#lounge").waitFor({ state: "hidden" });
  await ade.page.locator(`#occupants li[data-user="${bisi.id}"]`).waitFor({ state: "detached" });
  await bisi.page.screenshot({ path: `${shots}/moderation-put-out.png` });
  // Coming back is refused, and says why.
  await bisi.page.getByRole("button", { name: "Surulere Games Lounge" }).click();
  await bisi.page.locator("#notice", { hasText: "put out" }).waitFor();

  console.log("ok");
} finally {
  await browser.close();
}
