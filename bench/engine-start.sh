#!/usr/bin/env bash
# Baba Ayo's depth and speed from the start position, one thread, a fresh process each run
# (a cold table), through `lounge ayo engine` (which always searches, never the book):
#   bench/engine-start.sh BINARY RULES MS [RUNS]
#   bench/engine-start.sh target/release/lounge lagos 1000 3
#   bench/engine-start.sh target/release/lounge abapa 100 3
# RULES: lagos, kontest, oware or ayoayo, or abapa (oware with grand_slam=captures_nothing,
# Aalina's rules). MS: the time for the move. RUNS: 3 by default. The engine reads the
# endgame databases of the configured endgame_dir (data/ of the folder it is run from, or
# LOUNGE_HOUSE__ENDGAME_DIR). Needs jq. Prints depth, nodes and nodes a second each run
# (nodes over the time given: a search that ends early, the start proven, reads low).
set -euo pipefail

die() { printf 'engine-start.sh: %s\n' "$*" >&2; exit 2; }
[ $# -ge 3 ] || die "usage: bench/engine-start.sh BINARY RULES MS [RUNS]"
bin=$1; rules=$2; ms=$3; runs=${4:-3}
[ -x "$bin" ] || die "$bin is not executable (cargo build --release)"
[[ $ms =~ ^[0-9]+$ ]] && [ "$ms" -gt 0 ] || die "MS is a positive number, not $ms"
[[ $runs =~ ^[0-9]+$ ]] || die "RUNS is a number, not $runs"
command -v jq >/dev/null || die "jq is needed"

case $rules in
  abapa) preset=oware; rule='{"grand_slam": "captures_nothing"}' ;;
  lagos | kontest | oware | ayoayo) preset=$rules; rule='{}' ;;
  *) die "RULES is lagos, kontest, oware, ayoayo or abapa, not $rules" ;;
esac
request=$(jq -cn --arg r "$preset" --argjson rule "$rule" --argjson ms "$ms" \
  '{moves: [], movetime_ms: $ms, rules: $r, rule: $rule}')

echo "$bin, $rules, $ms ms, from the start; load average $(cut -d' ' -f1 /proc/loadavg)"
for i in $(seq "$runs"); do
  answer=$(printf '%s\n' "$request" | "$bin" ayo engine)
  if jq -e 'has("error")' >/dev/null <<<"$answer"; then
    die "the engine answered: $answer"
  fi
  jq -r --argjson ms "$ms" --arg i "$i" \
    '"run \($i): depth \(.depth), \(.nodes) nodes, \(.nodes / $ms / 1000 * 100 | round / 100) M nodes a second"' \
    <<<"$answer"
done
