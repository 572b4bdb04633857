// What a move does to the board, as the engine does it (src/ayo/board/sowing.rs), under every
// rule switch: one lap or relay sowing, the 2-or-3 capture backwards or collecting fours, the
// grand slam that takes nothing. The board uses it to preview where a sowing ends and to show
// it seed by seed; tests/e2e/sowing.mjs checks it against `lounge ayo replay --trace`.
// Pure: no DOM, so Node can import it too.
//
// Pits are indices 0..11: South's pits 1-6 are 0-5, North's 6-11; seeds go up the indices.

/// The guard against an endless relay, as the engine's `MAX_RELAY_LAPS`.
export const MAX_RELAY_LAPS = 192;

const owns = (side, i) => (side === "south" ? i < 6 : i >= 6);

/// The pit index of `side`'s pit `number` (1..6).
export function pitIndex(side, number) {
  return (side === "south" ? 0 : 6) + number - 1;
}

/// Sows `side`'s pit `number` (1..6) of `pits` under `rules` (a table's `rules`).
/// Returns `{pits, steps, captured, taken, grandSlam}`: the board after the move, each seed
/// dropped (`{pits, at, collected}` after it, in order; a relay lift is `{pits, at, lifted}`),
/// the indices the move took seeds from, how many it took, and whether it would have taken
/// every seed of the opponent's row and so took none.
export function sow(rules, before, side, number) {
  const pits = before.slice();
  const origin = pitIndex(side, number);
  const steps = [];
  const collectedAt = [];
  let hand = pits[origin];
  if (hand === 0) return { pits, steps, captured: [], taken: 0, grandSlam: false };
  pits[origin] = 0;
  let from = origin;
  let at = from;
  let collected = 0;
  for (let laps = 1; ; laps++) {
    let madeFour = false;
    while (hand > 0) {
      at = (at + 1) % 12;
      // Twelve or more seeds skip the pit this lap was lifted from.
      if (at === from) at = (at + 1) % 12;
      pits[at] += 1;
      hand -= 1;
      madeFour = rules.capture === "four" && pits[at] === 4;
      if (madeFour) {
        pits[at] = 0;
        collected += 4;
        collectedAt.push(at);
      }
      steps.push({ pits: pits.slice(), at, collected: madeFour });
    }
    const landed = pits[at];
    const stops = rules.sowing !== "relay"
      || madeFour
      || landed === 1
      || (rules.capture === "two_three" && !owns(side, at) && (landed === 2 || landed === 3))
      || laps >= MAX_RELAY_LAPS;
    if (stops) break;
    hand = landed;
    pits[at] = 0;
    from = at;
    steps.push({ pits: pits.slice(), at, lifted: true });
  }
  if (rules.capture === "four") {
    return { pits, steps, captured: collectedAt, taken: collected, grandSlam: false };
  }
  return { ...captureTwoThree(pits, side, at), steps };
}

/// The last seed landed in `last`: take 2s and 3s backwards along the opponent's row, unless
/// that would take every seed there (a grand slam, which takes nothing).
function captureTwoThree(pits, side, last) {
  const none = { pits, captured: [], taken: 0, grandSlam: false };
  if (owns(side, last)) return none;
  const first = side === "south" ? 6 : 0;
  const captured = [];
  let taken = 0;
  for (let i = last; i >= first && (pits[i] === 2 || pits[i] === 3); i--) {
    taken += pits[i];
    captured.push(i);
  }
  if (taken === 0) return none;
  const row = pits.slice(first, first + 6).reduce((a, b) => a + b, 0);
  if (taken === row) return { ...none, grandSlam: true };
  const after = pits.slice();
  for (const i of captured) after[i] = 0;
  return { pits: after, captured, taken, grandSlam: false };
}

/// Where the last seed of a move ends up (the pit to mark in a preview).
export function landing(rules, pits, side, number) {
  const { steps } = sow(rules, pits, side, number);
  const drops = steps.filter((s) => !s.lifted);
  return drops.length ? drops[drops.length - 1].at : null;
}

/// The side that makes move `ply` (from 0) of a game `first` began.
export function sideOf(ply, first = "south") {
  const second = first === "south" ? "north" : "south";
  return ply % 2 === 0 ? first : second;
}

/// The position of a game from the start after `moves` (pit numbers, `first`'s first), with
/// what the last move did: for the move list and the last move's marks after a reload.
export function replay(rules, moves, start = { pits: Array(12).fill(4), stores: [0, 0] }, first = "south") {
  let pits = start.pits.slice();
  const stores = start.stores.slice();
  let last = null;
  moves.forEach((number, ply) => {
    const side = sideOf(ply, first);
    const move = sow(rules, pits, side, number);
    stores[side === "south" ? 0 : 1] += move.taken;
    pits = move.pits;
    last = { side, number, captured: move.captured, taken: move.taken };
  });
  return { pits, stores, last };
}
