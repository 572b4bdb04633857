// A table's queue: who waits on the table's card with Join and Leave, and the call to a seat
// in the bar over the bottom of the screen (it asks for an answer), counting down.

import { $, state, serverNow, countdown, seatAt } from "./state.js";
import { send } from "./connection.js";
import { button, notice } from "./ui.js";

/// The queue's line on a table's card: who waits, the winner staying on, and the guest's
/// own Join or Leave. Nothing for a table without a queue.
export function queueRow(t) {
  const q = t.queue;
  if (!q) return null;
  const row = document.createElement("div");
  row.className = "queue";
  row.dataset.testid = "table-queue";
  const me = state.user && state.user.id;
  const inIt = q.waiting.some((u) => u.id === me) || q.called.some((c) => c.user.id === me);
  const names = [...q.called.map((c) => `${c.user.name} (called)`), ...q.waiting.map((u) => u.name)];
  const text = document.createElement("span");
  let words = names.length ? `Queue: ${names.join(", ")}.` : "Queue: nobody waiting.";
  if (q.streak && q.streak.wins > 0) {
    const who = Object.values(t.seats).find((u) => u && u.id === q.streak.user);
    if (who) words += ` ${who.name} has won ${q.streak.wins} in a row (stands after ${q.straight_wins}).`;
  }
  text.textContent = words;
  row.appendChild(text);
  if (inIt) row.appendChild(button("Leave queue", () => send({ type: "unqueue", table: t.id }), "unqueue"));
  else if (!seatAt(t)) row.appendChild(button("Join queue", () => send({ type: "queue", table: t.id }), "queue"));
  return row;
}

/// `queue_called`: the seat is the guest's to take, in the bar, with its time left.
export function showCall(m) {
  dropCall(m.table);
  const div = document.createElement("div");
  div.className = "invitation";
  div.dataset.queue = m.table;
  div.dataset.testid = "queue-call";
  const text = document.createElement("span");
  text.textContent = `Your turn at ${tableName(m.table)}: take the ${m.seat} seat.`;
  const left = document.createElement("span");
  left.className = "left";
  div.append(
    text,
    left,
    button("Sit", () => { send({ type: "sit", table: m.table, seat: m.seat }); dropCall(m.table); }, "take-seat"),
    button("Leave queue", () => { send({ type: "unqueue", table: m.table }); dropCall(m.table); }, "decline-seat"),
  );
  $("invitations").appendChild(div);
  state.calls.set(m.table, { until: m.until, left });
}

/// `queue_left`: the call (if any) goes, and the guest is told why in words.
export function queueLeft(m) {
  dropCall(m.table);
  const why = {
    asked: "You left the queue.",
    lapsed: "Your turn at the table passed: you were not seated in time.",
    gone: "You left the room, and your place in the queue.",
    seated_elsewhere: "You sat at another table, so you left the queue.",
    closed: "The table's queue closed.",
  }[m.reason] || "You are out of the queue.";
  notice(why);
}

export function dropCall(table) {
  state.calls.delete(table);
  $("invitations").querySelectorAll(`[data-queue="${CSS.escape(table)}"]`).forEach((d) => d.remove());
}

/// The calls' countdowns, with the other moving parts.
function tickCalls() {
  for (const [table, call] of state.calls) {
    if (serverNow() >= call.until) dropCall(table);
    else if (call.left.textContent !== `${countdown(call.until)} left`) call.left.textContent = `${countdown(call.until)} left`;
  }
}

setInterval(tickCalls, 250);

export function tableName(id) {
  const i = [...state.tables.keys()].indexOf(id);
  return i >= 0 ? `table ${i + 1}` : "the table";
}
