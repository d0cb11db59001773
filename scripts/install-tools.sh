#!/usr/bin/env bash
# Installs the test tools into ./.tools (idempotent): a Python venv with moto, the SAM CLI,
# cargo-lambda, zig and the Standard Webhooks reference library, and an npm prefix with the
# official bump-cli and the api-smart-diff peer used by the diff benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/.tools"
mkdir -p "$TOOLS"
stamp="$TOOLS/.installed-v1"
if [ -f "$stamp" ]; then exit 0; fi
if [ ! -x "$TOOLS/venv/bin/python" ]; then python3 -m venv "$TOOLS/venv"; fi
"$TOOLS/venv/bin/pip" install -q --disable-pip-version-check \
  'moto[server]==5.2.5' 'aws-sam-cli==1.170.0' 'cargo-lambda==1.9.2' 'ziglang==0.17.1' \
  'standardwebhooks==1.1.0'
mkdir -p "$TOOLS/npm"
npm install --silent --no-audit --no-fund --prefix "$TOOLS/npm" bump-cli@2.11.0 api-smart-diff@1.0.6 standardwebhooks@1.1.1 >/dev/null
touch "$stamp"
