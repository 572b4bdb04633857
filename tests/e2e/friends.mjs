// Friends, as guests meet them: Ade opens Bisi's card from the room's list and follows her;
// his Friends page shows her online in the lounge, with "Go there" and "Invite home"; she
// hides where she is and he sees only that she is online; she leaves and he sees her offline;
// he unfollows her from her card. Chidi on a phone does the same without the page growing
// wider than the phone. axe-core on the Friends page.
//
//   node tests/e2e/friends.mjs http://127.0.0.1:8080
import { launch, step, check, newSeen, clean, signIn, accessible, idOf, watchPage, PHONE } from "./common.mjs";

const [base] = process.argv.slice(2);
if (!base) throw new Error("usage: friends.mjs BASE_URL");
const seen = newSeen();
const browser = await launch();

/// `user`'s row on the Friends page of `page`, once it says `text`: the page is read again
/// (as "Look again" does) until the server says so.
async function friendSays(page, user, text) {
  const row = page.locator(`[data-testid="friend"][data-user="${user}"]`);
  for (let tries = 0; tries < 20; tries++) {
    await page.getByTestId("friends-refresh").click();
    try {
      await row.getByTestId("friend-where").filter({ hasText: text }).waitFor({ timeout: 1000 });
      return row;
    } catch (e) { /* not yet: look again */ }
  }
  throw new Error(`the Friends page never said "${text}" of ${user}`);
}

try {
  step("Ade opens Bisi's card from the room's list and follows her");
  const ade = await signIn(browser, base, "Ade", seen);
  const bisi = await signIn(browser, base, "Bisi", seen);
  const bisiId = await idOf(bisi);
  await ade.locator(`#occupants [data-testid="occupant-name"][data-user="${bisiId}"]`).click();
  const card = ade.getByTestId("profile");
  await card.getByTestId("follow").filter({ hasText: /^Follow$/ }).click();
  await card.getByTestId("follow").filter({ hasText: /^Unfollow$/ }).waitFor();
  await card.getByTestId("profile-close").click();

  step("His Friends page shows her in the lounge, with Go there and Invite home");
  await ade.getByTestId("go-friends").click();
  const row = await friendSays(ade, bisiId, "in Surulere Games Lounge");
  await row.getByTestId("friend-go").waitFor();
  await row.getByTestId("friend-invite").waitFor();
  await accessible(ade, "the Friends page");

  step("She hides where she is: he sees only that she is online");
  await bisi.getByTestId("go-friends").click();
  await bisi.getByTestId("friends-empty").waitFor();
  await bisi.getByTestId("whereabouts-hidden").check();
  await friendSays(ade, bisiId, "online (keeps where private)");
  check(await row.getByTestId("friend-go").count() === 0, "no Go there to a room she hides");

  step("He invites her home from the list; she gets the invitation");
  await row.getByTestId("friend-invite").click();
  await bisi.getByTestId("home-invitation").waitFor();

  step("She leaves: offline");
  await bisi.context().close();
  await friendSays(ade, bisiId, "offline");

  step("He unfollows her from her card, opened from his list");
  await ade.getByTestId("friend-name").filter({ hasText: "Bisi" }).click();
  await card.getByTestId("follow").filter({ hasText: /^Unfollow$/ }).click();
  await card.getByTestId("follow").filter({ hasText: /^Follow$/ }).waitFor();
  await card.getByTestId("profile-close").click();
  await ade.getByTestId("go-friends").click();
  await ade.getByTestId("friends-empty").waitFor();

  step("Chidi on a phone follows Ade, finds him and goes there");
  const chidi = await signIn(browser, base, "Chidi", seen, PHONE);
  const adeId = await idOf(ade);
  await ade.locator("#friends-back").click();
  await chidi.locator(`#occupants [data-testid="occupant-name"][data-user="${adeId}"]`).tap();
  await chidi.getByTestId("profile").getByTestId("follow").filter({ hasText: /^Follow$/ }).tap();
  await chidi.getByTestId("profile").getByTestId("follow").filter({ hasText: /^Unfollow$/ }).waitFor();
  await chidi.getByTestId("profile-close").tap();
  await chidi.getByTestId("go-friends").tap();
  const his = await friendSays(chidi, adeId, "in Surulere Games Lounge");
  const w = await chidi.evaluate(() => document.documentElement.scrollWidth);
  check(w <= PHONE.viewport.width, `the phone's Friends page is ${w} px wide`);
  await his.getByTestId("friend-go").tap();
  await chidi.locator("#room-name", { hasText: "Surulere Games Lounge" }).waitFor();

  clean(seen);
  console.log("ok");
} finally {
  await browser.close();
}
