#!/usr/bin/env bash
# The start of an evening (examples/arenaload.rs) against one lounge binary, on loopback:
#   bench/arena-load.sh BUILD_DIR DB PLAYERS IDLE [SECONDS]
#   bench/arena-load.sh target/release sqlite 1000 9000 20   # 1,000 in the arena, 10,000 in all
# BUILD_DIR holds `lounge` (cargo build --release --bin lounge --example arenaload); the tool
# is ARENALOAD (default BUILD_DIR/examples/arenaload: one tool for a before/after pair). DB:
# sqlite (a file in the scratch folder) or pg (a new database on 127.0.0.1:5432, user
# postgres, dropped after). The hotel gets a lounge `arena` with PLAYERS/2 tables; an
# operator schedules a tournament there on a clock of 10+0, starting LEAD seconds (120)
# after it is scheduled, long enough for everyone to sign in and connect. THINK_MS (1000):
# how long a player waits before each move. LOUNGE_* settings in the environment reach the
# server too. Prints the tool's report and the server's store counters.
set -euo pipefail

die() { printf 'arena-load.sh: %s\n' "$*" >&2; exit 2; }
[ $# -ge 4 ] || die "usage: bench/arena-load.sh BUILD_DIR sqlite|pg PLAYERS IDLE [SECONDS]"
build=$(realpath "$1"); db=$2; players=$3; idle=$4; seconds=${5:-20}
think_ms=${THINK_MS:-1000}; lead=${LEAD:-120}
bin=$build/lounge
tool=${ARENALOAD:-$build/examples/arenaload}
[ -x "$bin" ] && [ -x "$tool" ] || die "no lounge or examples/arenaload in $build"
label=bench_$(date +%s)_$$
work=$(mktemp -d /tmp/arena-load.XXXXXX)
mkdir -p "$work/config" "$work/data"
printf '[[hotel.rooms]]\nid = "arena"\nname = "Arena"\nkind = "lounge"\ntables = %s\n' \
  "$(( (players + 1) / 2 ))" >"$work/config/local.toml"

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
ulimit -n "$(ulimit -Hn)"

pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  wait 2>/dev/null || true
  [ "$db" = pg ] && psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE IF EXISTS $label" >/dev/null 2>&1
  [ -n "${KEEP_LOG:-}" ] && cp "$work/server.log" "$KEEP_LOG"
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
url=http://127.0.0.1:18080
"$bin" serve --bind 127.0.0.1:18080 >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 600); do curl -fs -m 1 "$url/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
operator=$("$bin" admin token --subject bench --ttl 2h)
starts=$(date -u -d "+$lead seconds" +%Y-%m-%dT%H:%M:%SZ)
ends=$(date -u -d "+1 hour" +%Y-%m-%dT%H:%M:%SZ)
answer=$(curl -fs -X POST -H "Authorization: Bearer $operator" -H 'Content-Type: application/json' \
  -d "{\"name\": \"Evening arena\", \"room\": \"arena\", \"starts_at\": \"$starts\", \"ends_at\": \"$ends\", \"clock\": \"10+0\", \"rated\": false}" \
  "$url/api/v1/admin/tournaments") || die "scheduling the tournament failed: $(tail -5 "$work/server.log")"
id=$(printf '%s' "$answer" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tournament"]["id"])')
echo "load $(cut -d' ' -f1 /proc/loadavg) at $(date -u +%H:%M:%S) UTC: $db, $players players in a lounge of $(( (players + 1) / 2 )) tables, $idle idle, think $think_ms ms, start in $lead s"
"$tool" --url "$url" --room arena --tournament "$id" --players "$players" --idle "$idle" \
  --think-ms "$think_ms" --seconds "$seconds"
curl -s "$url/metrics" | grep -E '^lounge_(moves_total|store_seconds_(sum|count)) ' || true
