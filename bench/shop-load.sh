#!/usr/bin/env bash
# One run of examples/shopload.rs (purchases from many connections at once) against a lounge
# binary on loopback, on SQLite or a new PostgreSQL database:
#   bench/shop-load.sh BUILD_DIR sqlite|pg [shopload flags...]
#   bench/shop-load.sh target/release sqlite --users 50 --workers 64 --seconds 20
#   bench/shop-load.sh target/release pg --users 1 --workers 50 --seconds 10 --hot
# BUILD_DIR holds `lounge` and `examples/shopload` (cargo build --release --bin lounge
# --example shopload). sqlite: a file in a scratch folder; pg: a new database on
# 127.0.0.1:5432, user postgres, dropped after. Every guest starts with 1,000,000 coins. The
# per-address caps (sign-ups, requests a second, connections) are raised, since every buyer
# comes from 127.0.0.1; the shop's own work (one transaction a purchase, a pool of 8
# connections) keeps its defaults. SHOP_PORT (18100). Prints the tool's report.
set -euo pipefail

die() { printf 'shop-load.sh: %s\n' "$*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: bench/shop-load.sh BUILD_DIR sqlite|pg [shopload flags...]"
build=$(realpath "$1"); db=$2
shift 2
bin=$build/lounge
tool=$build/examples/shopload
[ -x "$bin" ] && [ -x "$tool" ] || die "no lounge or examples/shopload in $build"
port=${SHOP_PORT:-18100}
url="http://127.0.0.1:$port"
if curl -fs -m 2 "$url/healthz" >/dev/null 2>&1; then
  die "something already answers on $url"
fi
label=shop_$(date +%s)_$$
work=$(mktemp -d)
mkdir -p "$work/config" "$work/data"

export LOUNGE_AUTH__SECRET=a-benchmark-secret-of-thirty-two-bytes-or-more
export LOUNGE_SHOP__WELCOME_COINS=1000000 LOUNGE_LOG=warn \
  LOUNGE_SERVER__SIGNUPS_PER_MINUTE=10000000 LOUNGE_SERVER__SIGNUP_BURST=10000000 \
  LOUNGE_SERVER__REQUESTS_PER_SEC=1000000 LOUNGE_SERVER__REQUEST_BURST=1000000 \
  LOUNGE_SERVER__CONNECTIONS_PER_ADDRESS=100000
case $db in
  pg)
    psql -q -h 127.0.0.1 -U postgres -c "CREATE DATABASE $label" >/dev/null
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/$label ;;
  sqlite) export DATABASE_URL=sqlite://$work/data/lounge.db ;;
  *) die "DB is sqlite or pg" ;;
esac

spid=
cleanup() {
  if [ -n "$spid" ]; then
    kill "$spid" 2>/dev/null || true
    wait "$spid" 2>/dev/null || true
  fi
  if [ "$db" = pg ]; then
    psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE IF EXISTS $label" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
"$bin" serve --bind "127.0.0.1:$port" >"$work/server.log" 2>&1 &
spid=$!
for _ in $(seq 300); do
  curl -fs -m 1 "$url/readyz" >/dev/null 2>&1 && break
  kill -0 "$spid" 2>/dev/null || { cat "$work/server.log" >&2; die "the server stopped at start"; }
  sleep 0.2
done
curl -fs -m 1 "$url/readyz" >/dev/null || die "no /readyz from $url in 60 s"
echo "load $(cut -d' ' -f1 /proc/loadavg) at $(date -u +%H:%M:%S) UTC: $db"
"$tool" --url "$url" "$@"
