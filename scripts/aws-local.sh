#!/usr/bin/env bash
# Specpress "as on AWS", on this machine (docs/aws-local.md): every Lambda function of template.yaml under
# `cargo lambda watch` (the Lambda runtime API and function URLs, payload format 2.0 as API Gateway's HTTP API sends),
# with the template's routes (Cargo.toml's [workspace.metadata.lambda.watch.router], checked against template.yaml by
# tests/tests/aws_local.rs) and environment, over moto's DynamoDB and SQS (the table and queues created from the
# template's own definitions), the SQS event source of webhook-delivery and the sweeper's schedule (no SNS topic:
# mail-events only answers the start probe)
# (scripts/aws_local.py), and an organization token minted with `specpress admin mint-org-token`.
#
# Requests reach the functions as on AWS: API Gateway's part (routing with the template's routes, payload format 2.0
# events, its 10 MB / 6 MB / 30 s limits and answers, the 2.0 response mapping) is scripts/aws_local.py front on
# AWS_LOCAL_PORT; it invokes each function through cargo lambda's Invoke API. cargo lambda's own function URLs (same
# route table) stay on its port, logged as `lambda:` and written to $AWS_LOCAL_STATE/emulator.url.
#
# Usage: scripts/aws-local.sh
#   Prints `base: <URL>` and `token: <organization token>` once every function answers; runs until interrupted
#   (Ctrl-C), then stops everything it started.
# Environment: AWS_LOCAL_PORT (the API's port, default 9000), AWS_LOCAL_MOTO_PORT (default: a free port),
#   AWS_LOCAL_SCHEDULE_SECONDS (run the sweeper this often instead of its template schedule), AWS_LOCAL_SKIP_BUILD=1
#   (use what is already built), AWS_LOCAL_STATE (where logs and the env file go, default target/aws-local),
#   AWS_LOCAL_RELOAD=1 (cargo lambda builds each function itself and rebuilds it on change), AWS_LOCAL_BINARIES
#   (run these builds instead, e.g. target/lambda of `cargo lambda build --release`), AWS_LOCAL_EXTERNAL_FUNCTIONS=1
#   (start no function: the caller does, see tests/benches/cold_start.rs). Any SPECPRESS_* variable
#   set here reaches every function (over the template's value), e.g. SPECPRESS_WEBHOOK_RETRY_SCALE=0.001.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PORT="${AWS_LOCAL_PORT:-9000}"
STATE="${AWS_LOCAL_STATE:-$ROOT/target/aws-local}"
FUNCTIONS=(deploy branches hubs docs docs-mcp try-it diffs webhooks mcp-servers workflow-mcp webhook-delivery outbox-sweeper digests mail-events)
mkdir -p "$STATE"
log() { printf 'aws-local: %s\n' "$*" >&2; }

bash scripts/install-tools.sh >&2
PY="$ROOT/.tools/venv/bin/python"
export PATH="$ROOT/.tools/venv/bin:$PATH"
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

if [ "${AWS_LOCAL_SKIP_BUILD:-0}" != "1" ]; then
  log "building the functions and the specpress CLI (debug)"
  pkgs=()
  for f in "${FUNCTIONS[@]}"; do pkgs+=(-p "$f"); done
  # One build of all of them: the same feature set as scripts/test.sh's build, so nothing is rebuilt there.
  cargo build --bins "${pkgs[@]}" -p specpress >&2
fi
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

pids=()
cleanup() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 50); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
  log "stopped"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

MOTO_PORT="${AWS_LOCAL_MOTO_PORT:-$(free_port)}"
ENDPOINT="http://127.0.0.1:$MOTO_PORT"
setsid moto_server -H 127.0.0.1 -p "$MOTO_PORT" >"$STATE/moto.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do curl -sf -o /dev/null "$ENDPOINT/moto-api/" && break; sleep 0.2; done
curl -sf -o /dev/null "$ENDPOINT/moto-api/" || { log "moto did not start (see $STATE/moto.log)"; exit 1; }
log "moto: $ENDPOINT"
# Only moto is ever called: its credentials, never the caller's AWS ones.
export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION="${AWS_REGION:-us-east-1}"
unset AWS_PROFILE AWS_SESSION_TOKEN

"$PY" scripts/aws_local.py resources --endpoint "$ENDPOINT" --env-file "$STATE/functions.env" \
  --resources-file "$STATE/resources.json" --functions-file "$STATE/functions.txt"
set -a
# shellcheck disable=SC1091 # written just above
. "$STATE/functions.env"
set +a
log "table $SPECPRESS_TABLE, queue $SPECPRESS_QUEUE_URL"

TOKEN=$("$TARGET/debug/specpress" admin mint-org-token --table "$SPECPRESS_TABLE" --name "Local organization" | tail -n 1)

# The Lambda emulator listens on a port of its own; API Gateway's part (the front, scripts/aws_local.py front) on
# $PORT: the base users and bump-cli talk to.
LAMBDA_PORT="${AWS_LOCAL_LAMBDA_PORT:-$(free_port)}"
EMULATOR="http://127.0.0.1:$LAMBDA_PORT"
BASE="http://127.0.0.1:$PORT"
if [ "${AWS_LOCAL_RELOAD:-0}" = "1" ]; then
  # Development: cargo lambda builds each function on its first request and rebuilds it when its code changes.
  setsid cargo lambda watch --disable-cors --invoke-address 127.0.0.1 --invoke-port "$LAMBDA_PORT" \
    --env-file "$STATE/functions.env" >"$STATE/watch.log" 2>&1 &
  pids+=($!)
else
  # Default: cargo lambda provides the Lambda runtime API, the function URLs and the route table; each function is
  # the binary built above, started as Lambda starts it (its name, memory and the runtime API in the environment),
  # so a run builds nothing more and a process's start is measurable (docs/performance.md, cold starts).
  setsid cargo lambda watch --only-lambda-apis --disable-cors --invoke-address 127.0.0.1 --invoke-port "$LAMBDA_PORT" \
    --env-file "$STATE/functions.env" >"$STATE/watch.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$LAMBDA_PORT") 2>/dev/null && break; sleep 0.2; done
  if [ "${AWS_LOCAL_EXTERNAL_FUNCTIONS:-0}" != "1" ]; then
    BIN_DIR="${AWS_LOCAL_BINARIES:-$TARGET/debug}"
    while read -r fn memory timeout; do
      # A `cargo lambda build` output (<dir>/<fn>/bootstrap) or a plain cargo build (<dir>/<fn>).
      bin="$BIN_DIR/$fn"; [ -x "$BIN_DIR/$fn/bootstrap" ] && bin="$BIN_DIR/$fn/bootstrap"
      AWS_LAMBDA_FUNCTION_NAME="$fn" AWS_LAMBDA_FUNCTION_VERSION=1 AWS_LAMBDA_FUNCTION_MEMORY_SIZE="$memory" \
        AWS_LAMBDA_RUNTIME_API="$EMULATOR/.rt/$fn" SPECPRESS_LOCAL_FUNCTION_TIMEOUT="$timeout" \
        setsid "$bin" >"$STATE/$fn.log" 2>&1 &
      pids+=($!)
    done <"$STATE/functions.txt"
  fi
fi
WATCH_PID="${pids[1]}"
echo "$EMULATOR" >"$STATE/emulator.url"
log "lambda: $EMULATOR (cargo lambda's runtime API, Invoke API and function URLs)"
setsid "$PY" -u scripts/aws_local.py front --invoke "$EMULATOR" --port "$PORT" >"$STATE/front.log" 2>&1 &
pids+=($!)

if [ "${AWS_LOCAL_EXTERNAL_FUNCTIONS:-0}" = "1" ]; then
  # The caller starts the functions itself (the cold-start benchmark): their list is $STATE/functions.txt, their
  # environment $STATE/functions.env, the runtime API $EMULATOR/.rt/<name>.
  echo "base: $BASE"
  echo "token: $TOKEN"
  while true; do
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || { log "a component exited (see $STATE)"; exit 1; }; done
    sleep 1
  done
fi

# Every function answers before the base is printed: an HTTP function through one of its routes (an answer that
# carries our x-request-id, not an emulator error), the others through the Invoke API.
answers() {
  curl -s -o /dev/null -D - --max-time 60 "$BASE$1" 2>/dev/null | grep -qi '^x-request-id:'
}
probe_paths=(/api/v1/ping /api/v1/docs/none/branches /api/v1/hubs/none /static/none /doc/none/mcp /doc/none/try
  /api/v1/diffs/none /api/v1/docs/none/webhooks /api/v1/mcp-servers /mcp/none)
deadline=$((SECONDS + ${AWS_LOCAL_START_SECONDS:-600}))
for path in "${probe_paths[@]}"; do
  until answers "$path"; do
    if [ $SECONDS -gt $deadline ]; then log "no answer from $path (see $STATE)"; exit 1; fi
    if ! kill -0 "$WATCH_PID" 2>/dev/null; then log "cargo lambda watch exited (see $STATE/watch.log)"; exit 1; fi
    sleep 1
  done
done
# mail-events (SES bounces and complaints through SNS) gets an empty SNS event: no topic feeds it locally.
for fn in webhook-delivery outbox-sweeper digests mail-events; do
  case "$fn" in
    webhook-delivery | mail-events) event='{"Records":[]}' ;;
    *) event='{"source":"aws.events","detail-type":"Scheduled Event","detail":{}}' ;;
  esac
  until curl -sf -o /dev/null --max-time 120 -X POST -H 'content-type: application/json' -d "$event" \
    "$EMULATOR/2015-03-31/functions/$fn/invocations"; do
    if [ $SECONDS -gt $deadline ]; then log "$fn does not answer (see $STATE)"; exit 1; fi
    sleep 1
  done
done

setsid "$PY" -u scripts/aws_local.py events --endpoint "$ENDPOINT" --invoke "$EMULATOR" \
  --resources-file "$STATE/resources.json" --schedule-seconds "${AWS_LOCAL_SCHEDULE_SECONDS:-0}" \
  >"$STATE/events.log" 2>&1 &
pids+=($!)

echo "base: $BASE"
echo "token: $TOKEN"
log "running; logs in $STATE; Ctrl-C stops everything"
while true; do
  for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then log "a component exited (see $STATE)"; exit 1; fi
  done
  sleep 1
done
