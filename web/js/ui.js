// Small pieces every view uses: buttons, the notice line (which goes away when stale), the
// tab title that says when it is your turn, and the optional sound.

import { $ } from "./state.js";

export function button(text, onClick, testid) {
  const b = document.createElement("button");
  b.textContent = text;
  b.addEventListener("click", onClick);
  if (testid) b.dataset.testid = testid;
  return b;
}

export function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

let noticeTimer = null;

/// A line about what just happened ("Invitation sent."). It goes after `ms` (8 s by default):
/// a notice about something long past only confuses. `ms: 0` keeps it until the next one.
export function notice(text, { ms = 8000 } = {}) {
  clearTimeout(noticeTimer);
  $("notice").textContent = sentence(text);
  if (text && ms) noticeTimer = setTimeout(() => { $("notice").textContent = ""; }, ms);
}

/// What the server or the browser said, as a sentence for a guest: a capital first, no
/// code-like quotes, a full stop at the end ("too many changes at the tables: 30 a minute
/// at most; again in 5 s" reads "Too many changes at the tables: 30 a minute at most; again
/// in 5 s.").
export function sentence(text) {
  let s = String(text || "").replace(/`([^`]*)`/g, (_, code) => code.replace(/_/g, " ")).trim();
  if (!s) return "";
  s = s[0].toUpperCase() + s.slice(1);
  return /[.!?…]$/.test(s) ? s : s + ".";
}

/// Asks the guest to choose (an in-page dialog, not the browser's): resolves with the value
/// of the button pressed, or null when they close it.
export function ask(text, choices) {
  const dialog = $("ask");
  $("ask-text").textContent = text;
  return new Promise((done) => {
    $("ask-buttons").replaceChildren(...choices.map(([value, label]) => button(label, () => {
      dialog.close();
      done(value);
    }, "ask-" + value)));
    dialog.addEventListener("cancel", () => done(null), { once: true });
    dialog.showModal();
  });
}

/// A moderation notice stays until the next one (room changes do not clear it).
export function moderation(text) {
  $("moderation").textContent = text;
  $("moderation").hidden = !text;
}

const TITLE = document.title;

/// The tab says so when it is the guest's turn (a tab in the background too).
export function turnTitle(yourTurn) {
  const title = yourTurn ? `(Your turn) ${TITLE}` : TITLE;
  if (document.title !== title) document.title = title;
}

/// A short tone when the turn comes, if the guest switched sound on (kept per browser).
export function turnSound() {
  if (localStorage.getItem("lounge.sound") !== "on") return;
  try {
    const audio = turnSound.context || (turnSound.context = new AudioContext());
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch (e) { /* no audio here: the title still says it */ }
}

export function showSoundSetting() {
  const on = localStorage.getItem("lounge.sound") === "on";
  $("sound").textContent = on ? "Sound: on" : "Sound: off";
  $("sound").setAttribute("aria-pressed", String(on));
}

$("sound").addEventListener("click", () => {
  const on = localStorage.getItem("lounge.sound") === "on";
  localStorage.setItem("lounge.sound", on ? "off" : "on");
  showSoundSetting();
});
