#!/usr/bin/env bash
# The scan benchmark: builds the CLI in release mode, starts the project's local PostgreSQL, and runs
# `messageai-bench scan` (a scratch schema, a generated workload, the real scan against an in-process
# fake OpenAI-compatible server at a fixed latency, then again at zero latency). Arguments go to `messageai-bench scan`.
#
#   benchmarks/scan.sh --conversations 2000 --latency-ms 800 --concurrency 8
#   benchmarks/scan.sh --conversations 2000 --latency-ms 800 --concurrency 8 --json > result.json
#
# SCRATCH (default .build-bench) is the build directory; DATABASE_URL, when set, is used instead of the local DB.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scratch="${SCRATCH:-.build-bench}"

swift build -c release --scratch-path "$scratch" --product messageai-bench >&2
if [ -z "${DATABASE_URL:-}" ]; then
  scripts/local-db start >&2
  DATABASE_URL="$(scripts/local-db url)"
  export DATABASE_URL
fi
exec "$scratch/release/messageai-bench" scan --prompts "$root/prompts" "$@"
