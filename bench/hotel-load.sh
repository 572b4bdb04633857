#!/usr/bin/env bash
# One load run of examples/loadtest.rs against N instances of a lounge binary, on loopback:
#   bench/hotel-load.sh BUILD_DIR DB CLUSTER N USERS [SECONDS]
#   bench/hotel-load.sh target/release pg on 1 19900 60     # the 20k run, fenced, one instance
#   bench/hotel-load.sh target/release sqlite off 1 19900 60
#   bench/hotel-load.sh target/release pg on 3 10000 60     # run A on three instances
# BUILD_DIR holds `lounge` and `examples/loadtest` (cargo build --release --bin lounge
# --example loadtest). DB: sqlite (a file in the scratch folder) or pg (a new database on
# 127.0.0.1:5432, user postgres, dropped after). CLUSTER: on (Redis on 127.0.0.1:6379 under a
# key prefix of the run's own) or off. 1,000 rooms of ten tables, 2,000 games, a move every
# 2 s. LOADTEST=PATH runs another build's tool (one tool for a before/after pair).
# Other loads, by environment: THINK_MS (2000; 0 = move as fast as the server answers),
# GAMES (2000), ROOMS (1000, of ten tables each), CLOCK (the tool's --clock, e.g. 10+5;
# none by default). LOUNGE_* settings already in the environment reach the server too.
# REVIEWS=N (one instance): first plays quick games in rooms of their own (warm-*, users
# "Warm i"), then asks Baba Ayo, as an operator, to review N of them (house.review_ms 60 s
# each unless set), so reviews run through the whole measured run; their count at the end.
# WARM=1 (one instance): the same warm-up, no review asked: the baseline to set beside REVIEWS.
# Prints the tool's report, then each instance's store and cluster counters.
set -euo pipefail

die() { printf 'hotel-load.sh: %s\n' "$*" >&2; exit 2; }
[ $# -ge 5 ] || die "usage: bench/hotel-load.sh BUILD_DIR sqlite|pg on|off N USERS [SECONDS]"
build=$(realpath "$1"); db=$2; cluster=$3; n=$4; users=$5; seconds=${6:-60}
think_ms=${THINK_MS:-2000}; games=${GAMES:-2000}; rooms=${ROOMS:-1000}
clock=(); if [ -n "${CLOCK:-}" ]; then clock=(--clock "$CLOCK"); fi
bin=$build/lounge
tool=${LOADTEST:-$build/examples/loadtest}
[ -x "$bin" ] && [ -x "$tool" ] || die "no lounge or examples/loadtest in $build"
label=bench_$(date +%s)_$$
work=$(mktemp -d /tmp/hotel-load.XXXXXX)
mkdir -p "$work/config" "$work/data"
reviews=${REVIEWS:-0}
warm=${WARM:-0}
[ "$reviews" -gt 0 ] && warm=1
{
  for r in $(seq "$rooms"); do
    printf '[[hotel.rooms]]\nid = "load-%s"\nname = "Load %s"\nkind = "lounge"\ntables = 10\n\n' "$r" "$r"
  done
  if [ "$reviews" -gt 0 ]; then
    for r in 1 2; do
      printf '[[hotel.rooms]]\nid = "warm-%s"\nname = "Warm %s"\nkind = "lounge"\ntables = 10\n\n' "$r" "$r"
    done
  fi
} >"$work/config/local.toml"
if [ "$warm" = 1 ]; then
  [ "$n" = 1 ] || die "REVIEWS and WARM want one instance"
  export LOUNGE_HOUSE__REVIEW_MS=${LOUNGE_HOUSE__REVIEW_MS:-60000}
fi

export LOUNGE_AUTH__SECRET=a-benchmark-secret-of-thirty-two-bytes-or-more
export LOUNGE_SERVER__SIGNUPS_PER_MINUTE=10000000 LOUNGE_SERVER__SIGNUP_BURST=10000000 \
  LOUNGE_SERVER__WS_CONNECTIONS_PER_ADDRESS=100000 LOUNGE_SERVER__WS_MESSAGES_PER_SEC=1000 \
  LOUNGE_SERVER__CONNECTIONS_PER_ADDRESS=100000 LOUNGE_SERVER__REQUESTS_PER_SEC=1000000 \
  LOUNGE_SERVER__REQUEST_BURST=1000000 LOUNGE_CIVILITY__TABLE_CHANGES_BURST=100000 \
  LOUNGE_SERVER__WS_BURST=1000 LOUNGE_LOG=warn
case $db in
  pg)
    psql -q -h 127.0.0.1 -U postgres -c "CREATE DATABASE $label" >/dev/null
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/$label ;;
  sqlite) export DATABASE_URL=sqlite://$work/data/lounge.db ;;
  *) die "DB is sqlite or pg" ;;
esac
if [ "$cluster" = on ]; then
  export LOUNGE_CLUSTER__ENABLED=true LOUNGE_CHAMPIONS__REDIS_URL=redis://127.0.0.1:6379 \
    LOUNGE_CHAMPIONS__REDIS_KEY_PREFIX=$label:
fi
ulimit -n "$(ulimit -Hn)"

pids=(); urls=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ "$db" = pg ] && psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE IF EXISTS $label" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
for i in $(seq 0 $((n - 1))); do
  port=$((18080 + i))
  LOUNGE_CLUSTER__INSTANCE_ID=i$i "$bin" serve --bind 127.0.0.1:$port >"$work/i$i.log" 2>&1 &
  pids+=($!); urls+=("http://127.0.0.1:$port")
done
for u in "${urls[@]}"; do
  for _ in $(seq 600); do curl -fs -m 1 "$u/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
done
# The games to review: quick ones, finished, in rooms of their own; then N asked for.
games_to_review=()
if [ "$warm" = 1 ]; then
  "$tool" --url "${urls[0]}" --rooms warm --names Warm --users 40 --games 20 --think-ms 0 \
    --seconds 15 >"$work/warm.log" 2>&1 || { cat "$work/warm.log"; die "the warm-up run failed"; }
  echo "warm-up played"
fi
if [ "$reviews" -gt 0 ]; then
  finished="SELECT id FROM games WHERE status <> 'playing' ORDER BY id LIMIT $reviews"
  case $db in
    pg) mapfile -t games_to_review < <(psql -qtA -h 127.0.0.1 -U postgres -d "$label" -c "$finished") ;;
    sqlite) mapfile -t games_to_review < <(python3 -c 'import sqlite3,sys; [print(r[0]) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]' "$work/data/lounge.db" "$finished") ;;
  esac
  operator=$("$bin" admin token --subject bench --ttl 2h)
  for g in "${games_to_review[@]}"; do
    curl -fs -X POST -H "Authorization: Bearer $operator" "${urls[0]}/api/v1/games/$g/review" >/dev/null
  done
  echo "${#games_to_review[@]} reviews asked for, ${LOUNGE_HOUSE__REVIEW_MS} ms each"
fi
echo "load $(cut -d' ' -f1 /proc/loadavg) at $(date -u +%H:%M:%S) UTC: $db, cluster $cluster, $n instance(s), $users users, $games games, think $think_ms ms, $rooms rooms${CLOCK:+, clock $CLOCK}"
"$tool" --url "$(IFS=,; echo "${urls[*]}")" --server-pid "$(IFS=,; echo "${pids[*]}")" \
  --users "$users" --games "$games" --think-ms "$think_ms" --seconds "$seconds" \
  ${clock[@]+"${clock[@]}"}
for u in "${urls[@]}"; do
  echo "$u:"
  curl -s "$u/metrics" | grep -E '^lounge_(moves_total|store_seconds_(sum|count)|cluster_redis_round_trips_total|relayed_(commands|frames)_total|leases_lost_total|rooms_owned) ' || true
done
if [ "$reviews" -gt 0 ]; then
  done_reviews=0
  for g in "${games_to_review[@]}"; do
    curl -fs "${urls[0]}/api/v1/games/$g/review" | grep -q '"status":"done"' && done_reviews=$((done_reviews + 1))
  done
  echo "reviews done by the end: $done_reviews of ${#games_to_review[@]}"
fi
