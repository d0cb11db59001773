#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs its tools into ./.tools, checks formatting, lints, checks the
# dependencies (cargo-shear: none unused; cargo-deny: licences, bans, sources), validates the SAM template, starts
# moto on 127.0.0.1 for the SQS and second-DynamoDB runs, then runs every test of the workspace (end-to-end tests
# drive the real bump-cli against `specpress serve`, and against the Lambda functions as deployed:
# scripts/aws-local.sh), checks Specpress's own OpenAPI document with openapi-spec-validator and runs schemathesis
# against a live `specpress serve` with it (scripts/schemathesis.sh, about 3 minutes).
#
# One build serves everything: the workspace is built once for the host's target triple (explicitly, as
# `cargo lambda build` builds), the Lambda packages (`target/lambda/<function>/bootstrap`) are made from those very
# artifacts, and the as-deployed tests run them. The tools install in the background while the code compiles. Each
# step prints its duration, and a summary closes the run, so the next regression shows.
#
# Usage: scripts/test.sh                         # everything
#        LAMBDA_RELEASE=1 scripts/test.sh        # also the optimized Lambda build `sam build` makes (~20 min more)
#
# CI is the one switch of the suite: under CI=true a test whose tool is missing fails; elsewhere it is reported as
# ignored (shared/testkit). This script installs every tool first, so here nothing is ignored.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CI="${CI:-false}"
export SAM_CLI_TELEMETRY=0
# One clean build per run: incremental caches would only add gigabytes of disk.
if [ "$CI" = "true" ]; then export CARGO_INCREMENTAL=0; fi
export SPECPRESS_CORPUS="${SPECPRESS_CORPUS:-$ROOT/../shared/corpus}"
HOST=$(rustc -vV | sed -n 's/^host: //p')
export CARGO_BUILD_TARGET="$HOST"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BUILT="$TARGET_DIR/$HOST/debug"
mkdir -p "$TARGET_DIR"

# The Lambda functions (template.yaml's functions, each a package of functions/).
FUNCTIONS=(deploy diffs branches hubs docs docs-mcp try-it webhooks mcp-servers workflow-mcp webhook-delivery outbox-sweeper digests mail-events)
package_args() { for f in "$@"; do printf -- '-p\n%s\n' "$f"; done; }
mapfile -t FUNCTION_PACKAGES < <(package_args "${FUNCTIONS[@]}")

RUN_START=$SECONDS
STEP_NAME=""
STEP_START=$SECONDS
SUMMARY=()
end_step() {
  if [ -n "$STEP_NAME" ]; then
    local took=$((SECONDS - STEP_START))
    printf '    (%s: %dm%02ds)\n' "$STEP_NAME" $((took / 60)) $((took % 60))
    SUMMARY+=("$(printf '%4dm%02ds  %s' $((took / 60)) $((took % 60)) "$STEP_NAME")")
  fi
}
step() {
  end_step
  STEP_NAME="$*"
  STEP_START=$SECONDS
  printf '\n==> %s\n' "$*"
}
summary() {
  end_step
  STEP_NAME=""
  printf '\nStep durations:\n'
  printf '%s\n' "${SUMMARY[@]}"
  local total=$((SECONDS - RUN_START))
  printf '%4dm%02ds  total\n' $((total / 60)) $((total % 60))
}
trap 'status=$?; summary; exit $status' EXIT

if [ ! -d "$SPECPRESS_CORPUS" ]; then
  echo "error: the API corpus is missing at $SPECPRESS_CORPUS (set SPECPRESS_CORPUS)" >&2
  exit 1
fi

# Under CI the tools install in the background while the code compiles (every test runs there whatever a build
# finds installed); elsewhere first, so that the build finds them and marks nothing ignored.
if [ "$CI" = "true" ]; then
  step "installing test tools into .tools (in the background, while the code compiles)"
  bash scripts/install-tools.sh >"$TARGET_DIR/install-tools.log" 2>&1 &
  TOOLS_PID=$!
else
  step "installing test tools into .tools"
  bash scripts/install-tools.sh >"$TARGET_DIR/install-tools.log" 2>&1 || { cat "$TARGET_DIR/install-tools.log" >&2; exit 1; }
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "building the workspace once: every binary and test for $HOST"
cargo build --workspace --bins
cargo nextest run --workspace --no-run

if [ "$CI" = "true" ]; then
  step "waiting for the tools"
  if ! wait "$TOOLS_PID"; then
    cat "$TARGET_DIR/install-tools.log" >&2
    echo "error: installing the test tools failed" >&2
    exit 1
  fi
fi
cat "$TARGET_DIR/install-tools.log"
export PATH="$ROOT/.tools/venv/bin:$ROOT/.tools/npm/node_modules/.bin:$PATH"
export SPECPRESS_BUMP_CLI="$ROOT/.tools/npm/node_modules/.bin/bump"
export SPECPRESS_TOOLS_PYTHON="$ROOT/.tools/venv/bin/python"
export SPECPRESS_NODE_MODULES="$ROOT/.tools/npm/node_modules"
export SPECPRESS_BIN="$BUILT/specpress"

# Issue 27: the dependency graph. cargo-shear fails on a dependency a crate declares and never uses (or uses only
# in tests, benches or examples, and so should be a dev-dependency); a dependency declared only for its features
# is listed under [package.metadata.cargo-shear] in its Cargo.toml.
step "cargo shear: no unused dependency"
cargo shear --locked --deny-warnings

# Licences, bans (no `*` requirement; duplicate versions are warned about) and sources (crates.io only), see
# deny.toml. Not `advisories`: the RustSec database it needs is cloned from GitHub, which this network cannot
# reach, and no package registry ships a copy (deny.toml says more).
step "cargo deny check licenses bans sources"
cargo deny --locked check --hide-inclusion-graph licenses bans sources

step "sam validate --lint"
sam validate --lint --region us-east-1
cfn-lint template.yaml

# The Lambda packages, from the build above (no second compilation): what the as-deployed tests run. The whole
# workspace is selected, as in the build above, so that cargo unifies the same features and reuses every artifact
# (selecting only the function packages unifies fewer and recompiles for about 2.5 minutes); the extra package of the
# `specpress` binary is unused.
step "cargo lambda build (every function, from the same build)"
cargo lambda build --compiler cargo --target "$HOST" --workspace
for f in "${FUNCTIONS[@]}"; do
  [ -x "$TARGET_DIR/lambda/$f/bootstrap" ] || { echo "error: no Lambda package for $f" >&2; exit 1; }
done
export AWS_LOCAL_BINARIES="$TARGET_DIR/lambda"

step "starting moto server on 127.0.0.1"
MOTO_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
moto_server -H 127.0.0.1 -p "$MOTO_PORT" > "$TARGET_DIR/moto.log" 2>&1 &
MOTO_PID=$!
trap 'status=$?; kill $MOTO_PID 2>/dev/null || true; summary; exit $status' EXIT
for _ in $(seq 1 100); do
  if curl -sf -o /dev/null "http://127.0.0.1:$MOTO_PORT/moto-api/"; then break; fi
  sleep 0.2
done
curl -sf -o /dev/null "http://127.0.0.1:$MOTO_PORT/moto-api/" || { echo "moto did not start" >&2; cat "$TARGET_DIR/moto.log" >&2; exit 1; }
export SPECPRESS_TEST_MOTO_ENDPOINT="http://127.0.0.1:$MOTO_PORT"

step "cargo nextest run --workspace"
cargo nextest run --workspace --no-fail-fast

step "Specpress's own OpenAPI document: openapi-spec-validator, then schemathesis against specpress serve"
openapi-spec-validator shared/openapi/specpress-api.yaml
bash scripts/schemathesis.sh

if [ "${LAMBDA_RELEASE:-0}" = "1" ]; then
  step "cargo lambda build --release (every function, as sam build makes them)"
  cargo lambda build --release "${FUNCTION_PACKAGES[@]}"
fi
step "all checks passed"
