#!/usr/bin/env bash
# Times `lounge ayo replay` over an archive of GAMES copies of one legal game:
#   bench/replay-archive.sh BINARY [GAMES] [LINE]
#   bench/replay-archive.sh target/release/lounge 200000      # the figure in BENCHMARKS.md
# BINARY: a built lounge (cargo build --release). GAMES: 200000 by default. LINE: the game,
# pit numbers 1-6 South first (default: a legal 16-ply lagos game). The archive is written
# to a temporary file, removed after; the replay's JSON output is thrown away. Prints wall
# time and peak resident memory (GNU time), and plies a second.
set -euo pipefail

die() { printf 'replay-archive.sh: %s\n' "$*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: bench/replay-archive.sh BINARY [GAMES] [LINE]"
bin=$1
games=${2:-200000}
line=${3:-"3 1 6 2 4 5 1 3 2 6 5 4 1 2 3 6"}
[ -x "$bin" ] || die "$bin is not executable (cargo build --release)"
[[ $games =~ ^[0-9]+$ ]] && [ "$games" -gt 0 ] || die "GAMES is a positive number, not $games"
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) is needed for the peak memory"

archive=$(mktemp)
trap 'rm -f "$archive"' EXIT
awk -v n="$games" -v l="$line" 'BEGIN { for (i = 0; i < n; i++) print l }' >"$archive"
plies=$(( games * $(wc -w <<<"$line") ))

echo "replaying $games games ($plies plies) with $bin; load average $(cut -d' ' -f1 /proc/loadavg)"
report=$(mktemp)
trap 'rm -f "$archive" "$report"' EXIT
/usr/bin/time -o "$report" -f "%e %M" "$bin" ayo replay <"$archive" >/dev/null
read -r seconds kib <"$report"
awk -v s="$seconds" -v k="$kib" -v p="$plies" -v g="$games" 'BEGIN {
  printf "%.2f s, %.1f MB resident at most", s, k / 1024
  if (s > 0) printf ", %.0f games and %.1f M plies a second", g / s, p / s / 1e6
  printf "\n"
}'
