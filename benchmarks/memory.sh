#!/usr/bin/env bash
# Peak memory of one nightly scan at 1x, 4x and 16x a workload (default 1000 / 4000 / 16000 conversations).
# Each workload is loaded into its own scratch database by a separate process; the scan then runs alone in
# its own process under /usr/bin/time against `messageai-bench serve`, so the number is the scan's.
# Needs the local database (scripts/local-db start) and GNU time (apt-get install time).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
BASE=${BASE:-1000}
LATENCY_MS=${LATENCY_MS:-50}
swift build -c release --product messageai-jobs >/dev/null
swift build -c release --product messageai-bench >/dev/null
bin="$(swift build -c release --show-bin-path)/messageai-jobs"
bench="$(swift build -c release --show-bin-path)/messageai-bench"
admin="$(scripts/local-db url | sed 's#/[^/]*$#/postgres#')"
"$bench" serve --port 18089 --latency-ms "$LATENCY_MS" >/dev/null 2>&1 &
serve=$!
trap 'kill $serve 2>/dev/null || true' EXIT
sleep 1
for factor in 1 4 16; do
  n=$((BASE * factor))
  db="messageai_mem_$n"
  psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
  url="${admin%/*}/$db"
  DATABASE_URL="$url" "$bin" migrate --dev >/dev/null
  DATABASE_URL="$url" "$bench" workload --conversations "$n" --days 7 --seed 1 --now 2026-03-04T12:00:00Z >/dev/null
  DATABASE_URL="$url" OPENAI_BASE_URL=http://127.0.0.1:18089/v1 /usr/bin/time -v \
    "$bin" scan --provider openai --concurrency 8 --json >/dev/null 2>/tmp/messageai-mem-$n.err || true
  echo "${factor}x ($n conversations): $(grep 'Maximum resident' /tmp/messageai-mem-$n.err | sed 's/^\s*//'), $(grep 'Elapsed' /tmp/messageai-mem-$n.err | sed 's/^\s*//')"
  psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
done
