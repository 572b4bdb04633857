#!/usr/bin/env bash
# This build's champion against another build's champion (say the engine before a change),
# the other one played through its own `lounge ayo uci`:
#   bench/build-match.sh LOUNGE OTHER RULES MS GAMES [THREADS]
#   bench/build-match.sh target/release/lounge "$OLD/target/release/lounge" lagos 100 100 1
#   OTHER_ENDGAME_DIR="$OLD/data" bench/build-match.sh target/release/lounge \
#     "$OLD/target/release/lounge" abapa 100 100 1
# LOUNGE, OTHER: two built lounge binaries (build the other one from its own worktree, e.g.
# `git worktree add` of its commit and `cargo build --release` there). RULES: lagos,
# kontest, oware, ayoayo, or abapa (oware with grand_slam=captures_nothing). THREADS: games at
# once (1 by default; 2 makes them share the cores). OTHER_ENDGAME_DIR: the other build's own
# endgame databases (LOUNGE_HOUSE__ENDGAME_DIR for it alone); without it both read the
# configured endgame_dir (data/ of the folder this is run from). OPENING=2-4 random plies
# open each pair of games. Prints the match's result for LOUNGE.
set -euo pipefail

die() { printf 'build-match.sh: %s\n' "$*" >&2; exit 2; }
[ $# -ge 5 ] || die "usage: bench/build-match.sh LOUNGE OTHER RULES MS GAMES [THREADS]"
lounge=$1; other=$(realpath "$2"); rule_set=$3; ms=$4; games=$5; threads=${6:-1}
[ -x "$lounge" ] || die "$lounge is not executable"
[ -x "$other" ] || die "$other is not executable"
for v in "$ms" "$games" "$threads"; do
  [[ $v =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ] || die "MS, GAMES and THREADS are positive numbers"
done
case $rule_set in
  abapa) rules=(--rules oware --rule grand_slam=captures_nothing) ;;
  lagos | kontest | oware | ayoayo) rules=(--rules "$rule_set") ;;
  *) die "RULES is lagos, kontest, oware, ayoayo or abapa, not $rule_set" ;;
esac

# `--external` splits its command at spaces and sets no environment: a small launcher in a
# folder of our own starts the other build with its endgame folder.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
case $dir in *' '*) die "the temporary folder $dir holds a space" ;; esac
{
  echo '#!/usr/bin/env bash'
  if [ -n "${OTHER_ENDGAME_DIR:-}" ]; then
    printf 'LOUNGE_HOUSE__ENDGAME_DIR=%q\nexport LOUNGE_HOUSE__ENDGAME_DIR\n' "$(realpath "$OTHER_ENDGAME_DIR")"
  fi
  printf 'exec %q ayo uci "$@"\n' "$other"
} >"$dir/other"
chmod +x "$dir/other"

echo "champion of $lounge against the champion of $other: $rule_set, $games games, $ms ms" \
  "a move, $threads at once; $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1 /proc/loadavg)"
start=$SECONDS
"$lounge" ayo match champion external \
  --external "$dir/other ${rules[*]} --level champion" "${rules[@]}" \
  --movetime-ms "$ms" --games "$games" --threads "$threads" --opening-plies "${OPENING:-2-4}"
echo "match: $((SECONDS - start)) s"
