#!/usr/bin/env bash
# Baba Ayo's search speed on a fixed set of late-game lagos positions, where the endgame
# database is met, for one build or for several compared in the same minutes:
#   bench/engine-positions.sh make BINARY OUT [GAMES] [SEED]
#   bench/engine-positions.sh speed POSITIONS MS BINARY[@ENDGAME_DIR] [BINARY[@ENDGAME_DIR]...]
#
#   bench/engine-positions.sh make target/release/lounge positions.txt 30 1
#   bench/engine-positions.sh speed positions.txt 200 target/release/lounge@data OLD/lounge@old-data
#
# make: GAMES (30) games of `normal` against itself under lagos, each from a random first
#   move (SEED seeds the draws), played through `lounge ayo engine` at MAKE_MS (100) ms a
#   move; every tenth ply from 40 to 80 of each game still going (STEP=10, FROM=40, TO=85
#   to change) is written to OUT, one position a line as its JSON list of moves.
# speed: each position sent to `lounge ayo engine` as {"moves": [...], "movetime_ms": MS,
#   "rules": "lagos"} (the champion), one process a build and round; the builds take turns,
#   ROUNDS (2) times. Prints nodes a second (the nodes over the time given) and mean depth.
#   @ENDGAME_DIR runs that build with LOUNGE_HOUSE__ENDGAME_DIR=ENDGAME_DIR (a database of
#   its own, built by `lounge ayo endgame N` of that build); without it, the configured one.
# Compare builds on the same positions file: its set is not the one of BENCHMARKS.md's log
# (made by a script that was not kept), so absolute figures match only roughly. Needs jq.
set -euo pipefail

die() { printf 'engine-positions.sh: %s\n' "$*" >&2; exit 2; }
usage="usage: bench/engine-positions.sh make BINARY OUT [GAMES] [SEED]
       bench/engine-positions.sh speed POSITIONS MS BINARY[@ENDGAME_DIR]..."
[ $# -ge 1 ] || die "$usage"
command -v jq >/dev/null || die "jq is needed"

make_positions() {
  local bin=$1 out=$2 games=${3:-30} seed=${4:-1}
  local step=${STEP:-10} from=${FROM:-40} to=${TO:-85} make_ms=${MAKE_MS:-100}
  [ -x "$bin" ] || die "$bin is not executable"
  [[ $games =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] || die "GAMES and SEED are numbers"
  RANDOM=$seed
  : >"$out"
  coproc ENGINE { "$bin" ayo engine; }
  local g moves answer ply kept=0
  for g in $(seq "$games"); do
    moves="[$(( RANDOM % 6 + 1 ))]"
    ply=1
    while [ "$ply" -le "$to" ]; do
      if [ "$ply" -ge "$from" ] && [ $(( (ply - from) % step )) -eq 0 ]; then
        echo "$moves" >>"$out"
        kept=$((kept + 1))
      fi
      jq -cn --argjson m "$moves" --argjson ms "$make_ms" \
        '{moves: $m, rules: "lagos", level: "normal", movetime_ms: $ms}' >&"${ENGINE[1]}"
      IFS= read -r answer <&"${ENGINE[0]}" || die "the engine stopped"
      # The game is over (or the request refused): this game gives no more positions.
      if jq -e 'has("error")' >/dev/null <<<"$answer"; then
        # a position written at this ply is over already: take it back
        if [ "$ply" -ge "$from" ] && [ $(( (ply - from) % step )) -eq 0 ]; then
          sed -i '$d' "$out"
          kept=$((kept - 1))
        fi
        break
      fi
      moves=$(jq -c --argjson a "$answer" '. + [$a.move]' <<<"$moves")
      ply=$((ply + 1))
    done
    echo "game $g: $((ply - 1)) plies played, $kept positions so far" >&2
  done
  local engine_pid=$ENGINE_PID engine_in=${ENGINE[1]}
  exec {engine_in}>&-
  wait "$engine_pid" 2>/dev/null || true
  echo "$kept positions in $out"
}

speed() {
  local positions=$1 ms=$2
  shift 2
  [ -s "$positions" ] || die "no positions in $positions"
  [[ $ms =~ ^[0-9]+$ ]] && [ "$ms" -gt 0 ] || die "MS is a positive number, not $ms"
  [ $# -ge 1 ] || die "$usage"
  requests=$(mktemp)   # global: the EXIT trap reads it
  trap 'rm -f "$requests"' EXIT
  jq -c --argjson ms "$ms" '{moves: ., movetime_ms: $ms, rules: "lagos"}' "$positions" >"$requests"
  local n
  n=$(wc -l <"$requests")
  echo "$n positions, $ms ms each, $(date -u +%H:%M) UTC, load average $(cut -d' ' -f1 /proc/loadavg)"
  local round spec bin dir
  for round in $(seq "${ROUNDS:-2}"); do
    for spec in "$@"; do
      bin=${spec%%@*}
      dir=
      if [ "$spec" != "$bin" ]; then dir=${spec#*@}; fi
      [ -x "$bin" ] || die "$bin is not executable"
      if [ -n "$dir" ]; then
        LOUNGE_HOUSE__ENDGAME_DIR=$dir "$bin" ayo engine <"$requests"
      else
        "$bin" ayo engine <"$requests"
      fi | jq -rs --arg who "$spec" --arg r "$round" --argjson ms "$ms" '
        (map(select(has("error"))) | length) as $bad
        | map(select(has("nodes"))) as $ok
        | if ($ok | length) == 0 then "round \($r) \($who): no answers (\($bad) errors)"
          else "round \($r) \($who): \(($ok | map(.nodes) | add) / ($ok | length) / $ms / 1000 * 100 | round / 100) M nodes a second, mean depth \(($ok | map(.depth) | add) / ($ok | length) * 100 | round / 100)\(if $bad > 0 then ", \($bad) errors" else "" end)"
          end'
    done
  done
}

case $1 in
  make) shift; [ $# -ge 2 ] || die "$usage"; make_positions "$@" ;;
  speed) shift; [ $# -ge 3 ] || die "$usage"; speed "$@" ;;
  *) die "$usage" ;;
esac
