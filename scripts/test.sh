#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs its tools into ./.tools, checks formatting, lints,
# checks the dependencies (cargo-shear: none unused; cargo-deny: licences, bans, sources), validates
# the SAM template, starts moto on 127.0.0.1 for the SQS and second-DynamoDB runs, then
# runs every test of the workspace (end-to-end tests drive the real bump-cli against `specpress serve`, and against
# the Lambda functions as deployed: scripts/aws-local.sh),
# checks Specpress's own OpenAPI document with openapi-spec-validator and runs schemathesis against a
# live `specpress serve` with it (scripts/schemathesis.sh, about 3 minutes).
#
# Usage: scripts/test.sh            # everything
#        SKIP_LAMBDA_BUILD=1 scripts/test.sh   # skip the release build of the Lambda binaries
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CI="${CI:-false}"
export SAM_CLI_TELEMETRY=0
# One clean build per run: incremental caches would only add gigabytes of disk.
if [ "$CI" = "true" ]; then export CARGO_INCREMENTAL=0; fi
export SPECPRESS_CORPUS="${SPECPRESS_CORPUS:-$ROOT/../shared/corpus}"

step() { printf '\n==> %s\n' "$*"; }

step "installing test tools into .tools"
bash scripts/install-tools.sh
export PATH="$ROOT/.tools/venv/bin:$ROOT/.tools/npm/node_modules/.bin:$PATH"
export SPECPRESS_BUMP_CLI="$ROOT/.tools/npm/node_modules/.bin/bump"
export SPECPRESS_TOOLS_PYTHON="$ROOT/.tools/venv/bin/python"
export SPECPRESS_NODE_MODULES="$ROOT/.tools/npm/node_modules"
# What a person looks at is tested in a real browser: a missing Chromium fails the suite instead of skipping.
export SPECPRESS_BROWSER_REQUIRED="${SPECPRESS_BROWSER_REQUIRED:-1}"

if [ ! -d "$SPECPRESS_CORPUS" ]; then
  echo "error: the API corpus is missing at $SPECPRESS_CORPUS (set SPECPRESS_CORPUS)" >&2
  exit 1
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

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

mkdir -p "$ROOT/target"
step "starting moto server on 127.0.0.1"
MOTO_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
moto_server -H 127.0.0.1 -p "$MOTO_PORT" > "$ROOT/target/moto.log" 2>&1 &
MOTO_PID=$!
trap 'kill $MOTO_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if curl -sf -o /dev/null "http://127.0.0.1:$MOTO_PORT/moto-api/"; then break; fi
  sleep 0.2
done
curl -sf -o /dev/null "http://127.0.0.1:$MOTO_PORT/moto-api/" || { echo "moto did not start" >&2; cat "$ROOT/target/moto.log" >&2; exit 1; }
export SPECPRESS_TEST_MOTO_ENDPOINT="http://127.0.0.1:$MOTO_PORT"

step "building the specpress binary and the Lambda functions (debug) the end-to-end tests start"
# One build of all of them: tests/tests/aws_local.rs runs these very function binaries under cargo lambda's runtime
# API (scripts/aws-local.sh with AWS_LOCAL_SKIP_BUILD=1), so nothing is built twice.
cargo build --bins -p specpress -p deploy -p branches -p hubs -p docs -p docs-mcp -p try-it -p diffs -p webhooks \
  -p mcp-servers -p workflow-mcp -p webhook-delivery -p outbox-sweeper
export SPECPRESS_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/specpress"

step "cargo nextest run --workspace"
cargo nextest run --workspace --no-fail-fast

step "Specpress's own OpenAPI document: openapi-spec-validator, then schemathesis against specpress serve"
openapi-spec-validator shared/openapi/specpress-api.yaml
bash scripts/schemathesis.sh

if [ "${SKIP_LAMBDA_BUILD:-0}" != "1" ]; then
  step "cargo lambda build --release (every function)"
  cargo lambda build --release -p deploy -p diffs -p branches -p hubs -p docs -p docs-mcp -p try-it -p webhooks \
    -p mcp-servers -p workflow-mcp -p webhook-delivery -p outbox-sweeper
fi
step "all checks passed"
