// How to play at a table: its rules in plain words, from the table's own switches (so a
// table whose rules were changed says what it really plays). The client's own text; the
// hotel's guide is the reference.

const PRESETS = {
  lagos: "Lagos Hotel's own rules (Abapa)",
  kontest: "Kontest's tournament Abapa",
  oware: "Oware, as the mancala encyclopaedia gives it",
  ayoayo: "Ayo with relay sowing and fours collected",
};

/// The name of a table's rule set, for its card: "Lagos rules".
export function presetName(rules) {
  return PRESETS[rules.preset] || rules.preset;
}

/// The rules of `rules` as a list of sentences.
export function howToPlay(rules) {
  const lines = [
    "The board has two rows of six pits, 4 seeds in each. Your row is the one nearest you; your store is on your right. South moves first.",
  ];
  if (rules.sowing === "relay") {
    lines.push("On your turn, lift all the seeds of one of your pits and sow them one by one into the following pits, anticlockwise. If the last seed lands in a pit that already held seeds, lift that pit too and keep sowing; your turn ends when the last seed lands in an empty pit.");
  } else {
    lines.push("On your turn, lift all the seeds of one of your pits and sow them one by one into the following pits, anticlockwise, round into your opponent's row.");
  }
  lines.push("With 12 or more seeds, sowing goes round the board and skips the pit it started from.");
  if (rules.capture === "four") {
    lines.push("Every time a seed you drop makes a pit hold exactly 4, on either row, you collect those 4 into your store.");
  } else {
    lines.push("If your last seed lands in your opponent's row and makes 2 or 3 seeds there, you capture them, and also the pits just before it on their row while they hold 2 or 3.");
    lines.push(rules.grand_slam === "illegal"
      ? "You may not capture every seed your opponent has in one move (a grand slam) unless no other move is allowed; then it captures nothing."
      : "A move that would capture every seed your opponent has (a grand slam) may be played but captures nothing.");
  }
  lines.push("If your opponent's row is empty you must give them seeds when any move can; if none can, the game ends and each side keeps the seeds on its own row.");
  if (rules.no_capture_limit > 0) {
    lines.push(`After ${rules.no_capture_limit} moves in a row (counting both players) without a capture, the game ends and each side adds the seeds on its own row to its store.`);
  }
  if (rules.repetition === "ends_game") {
    lines.push("If a position comes round again, the game ends and each side keeps the seeds on its own row.");
  }
  lines.push(rules.capture === "four"
    ? "The first to collect 25 seeds wins; 24 each is a draw."
    : "Whoever captures 25 seeds or more wins; 24 each is a draw.");
  lines.push(rules.timeout === "draw_if_cannot_win"
    ? "With a clock, running out of time loses, unless your opponent could not win any more even with every seed left: then it is a draw."
    : "With a clock, running out of time loses.");
  return lines;
}
