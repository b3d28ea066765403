#!/usr/bin/env bash
# The README's Quick start, followed literally on a fresh clone and timed (issue 15): clone,
# `npm install`, `npm start`, a token while the server runs, push, poll, acknowledge.
#
#   scripts/newcomer.sh [repository] [branch]      (default: this checkout, its current branch)
#
# Uses PORT (default 4000) and a temporary directory, removed at the end unless KEEP=1.
set -euo pipefail

repo=${1:-$(git rev-parse --show-toplevel)}
branch=${2:-$(git -C "$repo" rev-parse --abbrev-ref HEAD)}
port=${PORT:-4000}
base="http://127.0.0.1:$port"
work=$(mktemp -d "${TMPDIR:-/tmp}/sgw-newcomer-XXXXXX")
server_pid=

finish() {
  if [ -n "$server_pid" ]; then kill -TERM -- "-$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap finish EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%6.1f s", b - a }'; }
step() { printf '\n== %s\n' "$*" >&2; }
expect_2xx() { # method url [curl args…]: fails unless the answer is 2xx, prints the body
  local method=$1 url=$2 code
  shift 2
  code=$(curl -sS -o "$work/body" -w '%{http_code}' -X "$method" "$url" "$@")
  cat "$work/body" >&2
  echo >&2
  [[ $code == 2* ]] || { echo "newcomer: $method $url answered $code" >&2; exit 1; }
}

step "git clone ($branch)"
git clone -q --branch "$branch" "$repo" "$work/sync-gateway"
cd "$work/sync-gateway"

step 'npm install'
t0=$(now)
npm install --no-audit --no-fund 2>&1 | tee "$work/install.log" >&2
t_installed=$(now)
engine_warnings=$(grep -c 'EBADENGINE Unsupported engine' "$work/install.log" || true)

step "npm start (PORT=$port)"
# A process group of its own, so that the end of the script stops npm and the server together.
PORT=$port setsid npm start >"$work/server.log" 2>&1 &
server_pid=$!
until curl -sf "$base/health" >/dev/null; do
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo 'newcomer: the server stopped' >&2; exit 1; }
  sleep 0.2
done
t_started=$(now)
grep -o 'no API token yet[^"]*' "$work/server.log" | head -1 >&2 || true

step 'node bin/sync-gateway.js token create --name erp   (the server keeps running)'
node bin/sync-gateway.js token create --name erp | tee "$work/token.out" >&2
TOKEN=$(tail -n1 "$work/token.out")
t_token=$(now)

step 'push, poll, acknowledge'
expect_2xx POST "$base/api/v1/products" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"products":[{"external_id":"SKU-1","name":"Espresso cup","price":7.5}]}'
expect_2xx GET "$base/api/v1/updated-products" -H "Authorization: Bearer $TOKEN"
t_polled=$(now)
grep -q '"SKU-1"' "$work/body" || { echo 'newcomer: SKU-1 is not in the poll' >&2; exit 1; }
expect_2xx DELETE "$base/api/v1/updated-products/1" -H "Authorization: Bearer $TOKEN"
t_acked=$(now)

cat <<REPORT
newcomer path on a fresh clone of $branch (node $(node --version), $(nproc) cores):
  npm install                          $(elapsed "$t0" "$t_installed")   ($engine_warnings EBADENGINE warnings)
  npm start until /health answers      $(elapsed "$t_installed" "$t_started")
  token create while it runs           $(elapsed "$t_started" "$t_token")
  push and first 2xx poll              $(elapsed "$t_token" "$t_polled")
  acknowledged                         $(elapsed "$t_polled" "$t_acked")
  start ready → first 2xx poll         $(elapsed "$t_started" "$t_polled")
  clone → acknowledged                 $(elapsed "$t0" "$t_acked")
REPORT
