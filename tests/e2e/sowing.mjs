// The web client's sowing (web/js/sowing.js) against the engine: for each game, every state
// of `lounge ayo replay --trace` must follow from the one before by the client's own sowing of
// the move played, under the same rules. Run by tests/it/web_client.rs.
//
//   node tests/e2e/sowing.mjs RULES_JSON MOVES_FILE TRACE_FILE
import { readFileSync } from "node:fs";
import { sow } from "../../web/js/sowing.js";

const [rulesJson, movesFile, traceFile] = process.argv.slice(2);
const rules = JSON.parse(rulesJson);
const games = readFileSync(movesFile, "utf8").split("\n").filter((l) => l.trim()).map((l) => l.trim().split(/\s+/).map(Number));
const trace = readFileSync(traceFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const SWEEPS = ["no_legal_move", "no_capture_limit", "repetition"];
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

let checked = 0;
let relays = 0;
for (const [g, moves] of games.entries()) {
  const states = trace.filter((l) => l.game === g);
  if (states.length !== moves.length + 1) throw new Error(`game ${g}: ${states.length} states for ${moves.length} moves`);
  for (let k = 0; k < moves.length; k++) {
    const before = states[k];
    const after = states[k + 1];
    const side = before.to_move;
    const move = sow(rules, before.pits, side, moves[k]);
    const stores = before.stores.slice();
    stores[side === "south" ? 0 : 1] += move.taken;
    let pits = move.pits;
    if (after.status !== "playing" && SWEEPS.includes(after.end_reason)) {
      // The game ended with the sweep: each side adds its own row to its store.
      stores[0] += pits.slice(0, 6).reduce((a, b) => a + b, 0);
      stores[1] += pits.slice(6).reduce((a, b) => a + b, 0);
      pits = Array(12).fill(0);
    }
    if (!same(pits, after.pits) || !same(stores, after.stores)) {
      throw new Error(`game ${g} ply ${k + 1}: ${side} sows ${moves[k]} from ${JSON.stringify(before.pits)} ${JSON.stringify(before.stores)}: ` +
        `the client makes ${JSON.stringify(pits)} ${JSON.stringify(stores)}, the engine ${JSON.stringify(after.pits)} ${JSON.stringify(after.stores)}`);
    }
    if (move.steps.some((s) => s.lifted)) relays += 1;
    checked += 1;
  }
}
console.log(`${rules.preset} sowing ${rules.sowing} capture ${rules.capture}: ${checked} moves in ${games.length} games agree (${relays} relays)`);
console.log("ok");
