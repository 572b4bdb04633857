#!/usr/bin/env bash
# Baba Ayo (the champion) against Aalina under Aalina's rules (Abapa: oware, a grand slam
# captures nothing), through `lounge ayo match ... external`:
#   bench/aalina-match.sh LOUNGE AALINA MS GAMES [THREADS]
#   bench/aalina-match.sh target/release/lounge "$HOME/engines/aalina" 100 100     # 100 ms a move
#   bench/aalina-match.sh target/release/lounge "$HOME/engines/aalina" 1000 20 2   # 1 s a move
# LOUNGE: a built lounge (cargo build --release). AALINA: the path of an Aalina you have
# already built yourself (joansalasoler/oware, with its opening book and endgame table): an
# executable that starts it and speaks the UCI-like protocol of Oware engines on standard
# input and output, for instance a two-line shell script around its `java` command. This
# script never downloads, builds nor installs Aalina or anything else; the path may not hold
# spaces (`--external` splits the command at spaces). THREADS: games at once (2).
# First builds the 12-seed Abapa bounds database with LOUNGE (a few seconds) into the
# configured endgame_dir (data/ of the folder it is run from, or LOUNGE_HOUSE__ENDGAME_DIR);
# SKIP_ENDGAME=1 uses the one there. OPENING=2-4 random plies open each pair of games.
set -euo pipefail

die() { printf 'aalina-match.sh: %s\n' "$*" >&2; exit 2; }
[ $# -ge 4 ] || die "usage: bench/aalina-match.sh LOUNGE AALINA MS GAMES [THREADS]"
lounge=$1; aalina=$2; ms=$3; games=$4; threads=${5:-2}
[ -x "$lounge" ] || die "$lounge is not executable (cargo build --release)"
[ -f "$aalina" ] && [ -x "$aalina" ] || die "no executable Aalina at $aalina (build it yourself first; see the usage above)"
case $aalina in *' '*) die "the Aalina path may not hold spaces: $aalina" ;; esac
for v in "$ms" "$games" "$threads"; do
  [[ $v =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ] || die "MS, GAMES and THREADS are positive numbers"
done

rules=(--rules oware --rule grand_slam=captures_nothing)
if [ "${SKIP_ENDGAME:-0}" != 1 ]; then
  echo "building the 12-seed Abapa bounds database"
  start=$SECONDS
  "$lounge" ayo endgame "${rules[@]}" 12
  echo "built in $((SECONDS - start)) s"
fi
echo "champion against $aalina: $games games, $ms ms a move, $threads at once;" \
  "$(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1 /proc/loadavg)"
start=$SECONDS
"$lounge" ayo match champion external --external "$aalina" "${rules[@]}" \
  --movetime-ms "$ms" --games "$games" --threads "$threads" --opening-plies "${OPENING:-2-4}"
echo "match: $((SECONDS - start)) s"
