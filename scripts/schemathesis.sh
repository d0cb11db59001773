#!/usr/bin/env bash
# schemathesis against a live `specpress serve`, with Specpress's own OpenAPI document (issue 21).
#
# Starts the server on a fresh data directory with a known organization token, fetches the document it serves
# (/api/v1/openapi.json) and runs every schemathesis check (`--checks all`: documented status codes, response
# schemas, headers and content types, no 5xx, negative and positive data, unsupported methods, ignored auth,
# use-after-free and resource availability through the document's links) with a bounded number of examples per
# operation and a time budget. Exits non-zero when schemathesis finds anything.
#
# Everything runs in a private network namespace (user + network, loopback only): the server is started with
# loopback webhook and diff URLs allowed, so fuzzed webhook subscriptions and URL diffs reach nothing but
# 127.0.0.1 inside the namespace, and no packet can leave it. Without `unshare` the run refuses to start.
#
# Usage: scripts/schemathesis.sh
#   SPECPRESS_BIN               the binary (default target/debug/specpress, built by scripts/test.sh)
#   SCHEMATHESIS_MAX_EXAMPLES   examples per operation and phase (default 25)
#   SCHEMATHESIS_MAX_TIME       seconds for the whole run (default 180)
#   SCHEMATHESIS_SEED           a seed to reproduce a run (default: random, printed by schemathesis)
#   SCHEMATHESIS_REPORT_DIR     where the JUnit report goes (default target/schemathesis)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

if [ "${SPECPRESS_IN_NETNS:-}" != "1" ]; then
  command -v unshare >/dev/null || { echo "error: unshare(1) is required to isolate the run" >&2; exit 1; }
  export SPECPRESS_IN_NETNS=1
  exec unshare --user --map-root-user --net -- bash "$0" "$@"
fi
ip link set lo up

BIN="${SPECPRESS_BIN:-$ROOT/target/debug/specpress}"
ST="${SCHEMATHESIS:-$ROOT/.tools/venv/bin/st}"
[ -x "$BIN" ] || { echo "error: $BIN is missing (cargo build -p specpress --bin specpress)" >&2; exit 1; }
[ -x "$ST" ] || { echo "error: $ST is missing (scripts/install-tools.sh)" >&2; exit 1; }
REPORT_DIR="${SCHEMATHESIS_REPORT_DIR:-$ROOT/target/schemathesis}"
mkdir -p "$REPORT_DIR"

DATA="$(mktemp -d)"
PORT=3000
BASE="http://127.0.0.1:$PORT"
TOKEN="st-$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$DATA"
}
trap cleanup EXIT

# The per-client diff rate limit is lifted for the run (schemathesis sends far more than 120 diffs a minute from
# one address); 429 stays documented and is tested in shared/api-diffs.
SPECPRESS_ORG_TOKEN="$TOKEN" \
SPECPRESS_ALLOW_LOOPBACK_URLS=true \
SPECPRESS_DIFF_RATE_PER_MINUTE=0 \
SPECPRESS_WEBHOOK_RETRY_SCALE=0.001 \
SPECPRESS_LOG=warn \
  "$BIN" serve --port "$PORT" --data-dir "$DATA" > "$REPORT_DIR/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 200); do
  if curl -sf -o /dev/null "$BASE/api/v1/ping"; then break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$REPORT_DIR/server.log" >&2; exit 1; }
  sleep 0.1
done
curl -sf -o /dev/null "$BASE/api/v1/ping" || { echo "specpress serve did not start" >&2; cat "$REPORT_DIR/server.log" >&2; exit 1; }

args=(
  run "$BASE/api/v1/openapi.json"
  --checks all
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-25}"
  --max-time "${SCHEMATHESIS_MAX_TIME:-180}"
  --header "Authorization: Token $TOKEN"
  --request-timeout 30
  --workers 1
  --report junit --report-dir "$REPORT_DIR"
)
if [ -n "${SCHEMATHESIS_SEED:-}" ]; then args+=(--seed "$SCHEMATHESIS_SEED"); fi
status=0
"$ST" --config-file "$ROOT/scripts/schemathesis.toml" --no-color "${args[@]}" || status=$?
if [ "$status" -ne 0 ]; then
  echo "schemathesis found problems (exit $status); server log: $REPORT_DIR/server.log" >&2
fi
exit "$status"
