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
#   SCHEMATHESIS_ARGS           more options for schemathesis (a run by hand)
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
# one address); 429 stays documented and is tested in shared/api-diffs. So is the failed-credential limit:
# schemathesis checks that every operation answers a wrong credential with 401 or 403, hundreds of times from one
# address, where the limit answers 429 after ten (documented; tested in tests/tests/http_api.rs and sessions.rs).
SPECPRESS_ORG_TOKEN="$TOKEN" \
SPECPRESS_ALLOW_LOOPBACK_URLS=true \
SPECPRESS_DIFF_RATE_PER_MINUTE=0 \
SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE=0 \
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

# Test data, so that operations on existing things reach past their 404: a documentation with two versions and a
# second branch, a hub, a webhook to a local receiver with one delivery, a diff, a preview, an MCP server with a
# deployed workflow and a secret; and throwaway ones for the operations that delete. Their ids are offered to
# schemathesis as dictionaries (scripts/schemathesis.toml binds them to path parameters with a probability, so
# unknown ids keep being generated too), in a configuration file written for this run.
RECEIVER_PORT=3001
export ST_RECEIVER_PORT=$RECEIVER_PORT
python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200); self.send_header("content-length", "0"); self.end_headers()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
' "$RECEIVER_PORT" &
RECEIVER_PID=$!
trap 'kill $RECEIVER_PID 2>/dev/null || true; cleanup' EXIT
FIXTURES="$ROOT/tests/fixtures"
# api METHOD PATH JSON -> the answer's `id` (fails the run when the answer is not a 2xx).
api() {
  local out
  out=$(curl -sS -f -X "$1" "$BASE/api/v1$2" -H "Authorization: Token $TOKEN" -H 'Content-Type: application/json' \
    --data-binary "$3") || { echo "fixture request $1 $2 failed" >&2; exit 1; }
  python3 -c 'import json,sys; d=json.loads(sys.stdin.read().strip() or "{}"); print(d.get("id", ""))' <<<"$out"
}
# json KEY VALUE ...: a JSON object of those strings (`true` stands for the boolean).
json() {
  python3 -c 'import json,sys; print(json.dumps({k: (True if v == "true" else v) for k, v in zip(sys.argv[1::2], sys.argv[2::2])}))' "$@"
}
text() { cat "$1"; }
V1=$(api POST /versions "$(json documentation st-doc auto_create_documentation true definition "$(text "$FIXTURES/petstore.yaml")")")
V2=$(api POST /versions "$(json documentation st-doc definition "$(text "$FIXTURES/petstore-v2.yaml")")")
api POST /versions "$(json documentation st-doc branch_name st-branch definition "$(text "$FIXTURES/petstore.yaml")")" >/dev/null
api POST /versions "$(json documentation st-doc branch_name st-gone definition "$(text "$FIXTURES/petstore.yaml")")" >/dev/null
api POST /hubs "$(json name 'Schemathesis hub' slug st-hub)" >/dev/null
HOOK=$(api POST /docs/st-doc/webhooks "$(json url "http://127.0.0.1:$RECEIVER_PORT/hook")")
HOOK_EDIT=$(api POST /docs/st-doc/webhooks "$(json url "http://127.0.0.1:$RECEIVER_PORT/edit")")
# Documentations to create webhooks on (at most 50 each).
for i in 1 2 3 4 5 6 7 8; do
  api POST /docs "$(json name "Schemathesis webhooks $i" slug "st-hooks-$i")" >/dev/null
done
HOOK_GONE=$(api POST /docs/st-doc/webhooks "$(json url "http://127.0.0.1:$RECEIVER_PORT/gone")")
DELIVERY=$(api POST "/docs/st-doc/webhooks/$HOOK/test" '{}')
HUB_HOOK=$(api POST /hubs/st-hub/webhooks "$(json url "http://127.0.0.1:$RECEIVER_PORT/hub")")
HUB_HOOK_EDIT=$(api POST /hubs/st-hub/webhooks "$(json url "http://127.0.0.1:$RECEIVER_PORT/hub-edit")")
HUB_HOOK_GONE=$(api POST /hubs/st-hub/webhooks "$(json url "http://127.0.0.1:$RECEIVER_PORT/hub-gone")")
HUB_DELIVERY=$(api POST "/hubs/st-hub/webhooks/$HUB_HOOK/test" '{}')
DIFF=$(api POST /diffs "$(json previous_definition "$(text "$FIXTURES/petstore.yaml")" definition "$(text "$FIXTURES/petstore-v2.yaml")")")
PREVIEW=$(api POST /previews "$(json definition "$(text "$FIXTURES/petstore.yaml")")")
api POST /mcp-servers "$(json name 'Schemathesis workflows' slug st-mcp)" >/dev/null
api POST /mcp-servers "$(json name 'Schemathesis throwaway' slug st-mcp-gone)" >/dev/null
MCP_DEPLOY=$(python3 -c '
import json, sys
d, o = open(sys.argv[1]).read(), open(sys.argv[2]).read()
print(json.dumps({"definition": d, "references": [{"location": "./petstore-openapi.yaml", "name": "petstore", "content": o}]}))
' "$FIXTURES/workflows/petstore-arazzo.yaml" "$FIXTURES/workflows/petstore-openapi.yaml")
MCP_VERSION=$(api POST /mcp-servers/st-mcp/deploy "$MCP_DEPLOY")
api PUT /mcp-servers/st-mcp/secrets/api_key '{"value": "st-secret"}' >/dev/null
CONFIG="$REPORT_DIR/schemathesis.toml"
{
  cat "$ROOT/scripts/schemathesis.toml"
  cat <<TOML

# Written by scripts/schemathesis.sh for this run: the ids of its test data.
[dictionaries.doc]
values = ["st-doc"]
[dictionaries.hub]
values = ["st-hub"]
[dictionaries.branch]
values = ["st-branch", "main"]
[dictionaries.version_id]
values = ["$V1", "$V2"]
[dictionaries.webhook_id]
values = ["$HOOK"]
[dictionaries.diff_id]
values = ["$DIFF"]
[dictionaries.preview_id]
values = ["$PREVIEW"]
[dictionaries.delivery]
values = ["$DELIVERY"]
[dictionaries.server]
values = ["st-mcp"]
[dictionaries.mcp_version]
values = ["$MCP_VERSION"]
[dictionaries.secret]
values = ["api_key"]
[dictionaries.webhook_edit]
values = ["$HOOK_EDIT"]
[dictionaries.hub_webhook_id]
values = ["$HUB_HOOK"]
[dictionaries.hub_webhook_edit]
values = ["$HUB_HOOK_EDIT"]
[dictionaries.hub_gone_id]
values = ["$HUB_HOOK_GONE"]
[dictionaries.hub_delivery]
values = ["$HUB_DELIVERY"]
[dictionaries.hook_docs]
values = ["st-hooks-1", "st-hooks-2", "st-hooks-3", "st-hooks-4", "st-hooks-5", "st-hooks-6", "st-hooks-7", "st-hooks-8"]
[dictionaries.gone_branch]
values = ["st-gone"]
[dictionaries.gone_id]
values = ["$HOOK_GONE"]
[dictionaries.gone_server]
values = ["st-mcp-gone"]
TOML
} > "$CONFIG"

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
# More options for a run by hand, e.g. SCHEMATHESIS_ARGS="--include-operation-id listDeliveries --report har".
# shellcheck disable=SC2206 # split into words on purpose
if [ -n "${SCHEMATHESIS_ARGS:-}" ]; then args+=($SCHEMATHESIS_ARGS); fi
status=0
SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$ROOT/scripts${PYTHONPATH:+:$PYTHONPATH}" \
  "$ST" --config-file "$CONFIG" --no-color "${args[@]}" || status=$?
if [ "$status" -ne 0 ]; then
  echo "schemathesis found problems (exit $status); server log: $REPORT_DIR/server.log" >&2
fi
exit "$status"
