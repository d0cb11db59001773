#!/usr/bin/env bash
# Drives the requests measured in docs/scaling.md; each step between two marks of the measuring proxy (proxy.py).
#
# Usage: SPECPRESS_URL=http://127.0.0.1:47815 SPECPRESS_TOKEN=... PROXY_URL=http://127.0.0.1:47812 \
#          scripts/scaling/driver.sh step NAME COMMAND ARGS...
#   COMMAND: deploy DOC FILE (through bump-cli) | mkdoc SLUG | get PATH | getauth PATH
#   SPECPRESS_URL   specpress, through the client-side logging proxy
#   PROXY_URL       the measuring proxy between specpress and moto (its /__mark endpoint)
#   BUMP            bump-cli (default .tools/npm/node_modules/.bin/bump of this checkout)
#   SETTLE          seconds to wait after a step's request, for the asynchronous work it causes (default 1.5)
set -u
cd "$(dirname "$0")/../.."
B=${SPECPRESS_URL:?set SPECPRESS_URL}
TOK=${SPECPRESS_TOKEN:?set SPECPRESS_TOKEN}
PROXY=${PROXY_URL:?set PROXY_URL}
BUMP=${BUMP:-$PWD/.tools/npm/node_modules/.bin/bump}
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
mark() { curl -s "$PROXY/__mark?label=$1" >/dev/null; }
step() { local label=$1; shift; mark "begin:$label"; "$@"; sleep "${SETTLE:-1.5}"; mark "end:$label"; }
deploy() { BUMP_HOST=$B "$BUMP" deploy "$2" --doc "$1" --token "$TOK" 2>&1 | tail -2; }
mkdoc() { curl -s -X POST "$B/api/v1/docs" -H "Authorization: Token $TOK" -H 'Content-Type: application/json' -d "{\"name\":\"$1\",\"slug\":\"$1\"}" -o /dev/null -w "create $1 %{http_code}\n"; }
get() { curl -s --compressed -H 'Accept-Encoding: gzip' "$B$1" -o "$OUT" -w "GET $1 %{http_code} %{size_download}B %{time_total}s\n"; }
getauth() { curl -s -H "Authorization: Token $TOK" "$B$1" -o "$OUT" -w "GET $1 %{http_code} %{size_download}B %{time_total}s\n"; }
"$@"
