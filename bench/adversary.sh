#!/usr/bin/env bash
# One scenario of examples/adversary.rs against a lounge binary, on loopback:
#   bench/adversary.sh BINARY SCENARIO [adversary flags...]
#   bench/adversary.sh target/release/lounge draw-spam --spammers 6 --seconds 60
#   bench/adversary.sh target/release/lounge churn --baseline       # the victim alone
# Starts BINARY in a fresh scratch folder (SQLite there, its own config/local.toml), waits for
# /healthz, runs the tool (by default the `adversary` example beside BINARY, target/*/examples;
# ADVERSARY=PATH for another), stops the server and sums up its log's warnings and errors.
# Environment: ADVERSARY_PORT (18090), ADVERSARY_KEEP=1 keeps the scratch folder.
set -euo pipefail

die() { printf 'adversary.sh: %s\n' "$*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: bench/adversary.sh BINARY SCENARIO [flags...]"
bin=$(realpath "$1") || die "no binary $1"
scenario=$2
shift 2
[ -x "$bin" ] || die "$bin is not executable"
tool=${ADVERSARY:-$(dirname "$bin")/examples/adversary}
[ -x "$tool" ] || die "no tool at $tool (cargo build --release --example adversary, or ADVERSARY=PATH)"
port=${ADVERSARY_PORT:-18090}
url="http://127.0.0.1:$port"
if curl -fs -m 2 "$url/healthz" >/dev/null 2>&1; then
  die "something already answers on $url"
fi

work=$(mktemp -d /tmp/adversary.XXXXXX)
mkdir -p "$work/config" "$work/data"
# The adversaries connect from 127.0.0.1, the victims from 127.0.0.2. Sign-ups and WebSockets
# an address are raised so the adversary's own guests get in; nothing else is loosened: the
# defences under test (connections, streams, requests a second, body time) keep their defaults.
cat >"$work/config/local.toml" <<EOF
[server]
bind = "127.0.0.1:$port"
signups_per_minute = 6000
signup_burst = 1000
ws_connections_per_address = 1000

[[hotel.rooms]]
id = "adv"
name = "Adversary"
kind = "lounge"
tables = 16
EOF

# The flood needs every descriptor both processes may have.
ulimit -n "$(ulimit -Hn)"

spid=
cleanup() {
  if [ -n "$spid" ] && kill -0 "$spid" 2>/dev/null; then
    kill -TERM "$spid" 2>/dev/null || true
    for _ in $(seq 1 75); do kill -0 "$spid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$spid" 2>/dev/null || true
  fi
  if [ "${ADVERSARY_KEEP:-0}" = 1 ]; then
    echo "scratch folder kept: $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# SQLite in the scratch folder and the in-process champions wall: none of the caller's
# database, Redis or LOUNGE_* settings reach the server.
for v in $(compgen -e | grep '^LOUNGE_' || true); do unset "$v"; done
(
  cd "$work"
  exec env -u DATABASE_URL -u REDIS_URL LOUNGE_LOG="${ADVERSARY_LOG:-warn}" "$bin" serve --bind "127.0.0.1:$port"
) >"$work/server.log" 2>&1 &
spid=$!
for _ in $(seq 1 300); do
  curl -fs -m 2 "$url/healthz" >/dev/null 2>&1 && break
  kill -0 "$spid" 2>/dev/null || { cat "$work/server.log" >&2; die "the server stopped at start"; }
  sleep 0.2
done
curl -fs -m 2 "$url/healthz" >/dev/null || die "no /healthz from $url in 60 s"
curl -fs -m 2 --interface 127.0.0.2 "$url/healthz" >/dev/null \
  || die "the victims' address 127.0.0.2 does not reach $url"

echo "server $bin (pid $spid) on $url, scratch $work; load average $(cut -d' ' -f1 /proc/loadavg)"
rc=0
"$tool" "$scenario" --url "$url" --server-pid "$spid" "$@" || rc=$?

# What the server said while it was measured: warnings and errors, alike lines counted once.
log="$work/server.log"
total=$(grep -cE '\b(WARN|ERROR)\b' "$log" || true)
echo
echo "server log: $total warning/error lines$([ "$total" -gt 0 ] && echo ', most frequent:')"
grep -E '\b(WARN|ERROR)\b' "$log" \
  | sed -E 's/^[0-9T:.Z-]+ +//; s/[0-9a-f]{8}-[0-9a-f-]{27}/<id>/g; s/[0-9]+/N/g' \
  | cut -c1-200 | sort | uniq -c | sort -rn | head -8 || true
exit "$rc"
