#!/usr/bin/env bash
# The ERP side with curl: push a batch of products, safely retried.
#
#   SGW_URL=http://127.0.0.1:4000 SGW_TOKEN=sgw_… ./examples/erp-push.sh products.json [idempotency-key]
#
# products.json holds {"products": [...]} (or one product object). Every retry of this push carries
# the same Idempotency-Key, so a lost answer or a 503 never applies it twice: within 24 hours the
# service answers a repeated key with the first answer (header Idempotent-Replayed: true). Keep the
# key with the batch if you retry across runs (pass it as the second argument). curl retries 408,
# 429, 5xx and refused connections, waiting what Retry-After says.
set -euo pipefail

url="${SGW_URL:-http://127.0.0.1:4000}"
token="${SGW_TOKEN:?set SGW_TOKEN to a token with role erp (or integration)}"
batch="${1:?usage: erp-push.sh <products.json> [idempotency-key]}"
key="${2:-$(cat /proc/sys/kernel/random/uuid 2>/dev/null || uuidgen)}"

curl --silent --show-error --fail-with-body \
  --retry 8 --retry-connrefused --retry-max-time 120 \
  -X POST "$url/api/v1/products" \
  -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' \
  -H "Idempotency-Key: $key" \
  --data-binary "@$batch"
echo
