// The hotel's network: the lounge served on 0.0.0.0 and opened over plain http at the
// machine's own address (not loopback), where the page is not a secure origin and
// `crypto.randomUUID` does not exist. Signing in, playing and buying work there; signing out on
// the shared lobby computer leaves nothing of the guest in the browser.
//
//   node tests/e2e/lan.mjs http://10.0.0.5:8080
import { launch, step, check, newSeen, clean, signIn } from "./common.mjs";

const [base] = process.argv.slice(2);
if (!base) throw new Error("usage: lan.mjs BASE_URL");
check(!/\/\/(127\.|localhost|\[::1\])/.test(base), `${base} is a loopback address: the test means nothing there`);
const seen = newSeen();
const browser = await launch();

try {
  step(`Kemi walks in at ${base}`);
  const kemi = await signIn(browser, base, "Kemi", seen);
  check(await kemi.evaluate(() => !window.isSecureContext), "the page is a secure origin: the test means nothing");
  check(await kemi.evaluate(() => typeof crypto.randomUUID !== "function"), "crypto.randomUUID exists here");

  step("Kemi buys a chair and an Ayo board");
  await kemi.getByRole("button", { name: "Furniture shop" }).click();
  await kemi.locator("#coins", { hasText: "500" }).waitFor();
  await kemi.getByTestId("buy-rattan-chair").click();
  await kemi.locator("#coins", { hasText: "460" }).waitFor();
  await kemi.getByTestId("buy-ayo-board-iroko-oiled").click();
  await kemi.locator("#inventory li", { hasText: "Iroko" }).waitFor();
  check(!(await kemi.getByTestId("shop-error").textContent()).trim(), `the shop says: ${await kemi.getByTestId("shop-error").textContent()}`);

  step("she plays Baba Ayo a move");
  await kemi.getByRole("button", { name: "Back to the room" }).click();
  const table = kemi.locator(".table").first();
  await table.getByTestId("house-level").selectOption("easy");
  await table.getByTestId("play-house").click();
  await kemi.locator("#opponent", { hasText: "Baba Ayo" }).waitFor();

  step("she signs out of the lobby computer, told first that without a password she is gone");
  await kemi.getByTestId("sign-out").click();
  await kemi.getByTestId("ask").filter({ hasText: "You have no password" }).waitFor();
  await kemi.getByTestId("ask-anyway").click();
  await kemi.getByRole("button", { name: "Walk in" }).waitFor();
  const kept = await kemi.evaluate(() => Object.keys(localStorage).filter((k) => /token|refresh|user/.test(k)));
  check(kept.length === 0, `still in the browser: ${kept.join(", ")}`);
  await kemi.reload();
  await kemi.getByRole("button", { name: "Walk in" }).waitFor();
  check(await kemi.locator("#nav").isHidden(), "signed in again after a reload");
  clean(seen);
  console.log("ok");
} finally {
  await browser.close();
}
