#!/usr/bin/env bash
# The proactive pass benchmark: builds the CLI in release mode, starts the project's local PostgreSQL, and runs
# `messageai-bench proactive` (a scratch schema, the generated workload with its whole history extracted by
# the rules, the pass offline twice, then with an in-process fake model). Arguments go to `messageai-bench proactive`.
#
#   benchmarks/proactive.sh --conversations 2000 --seed 42
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
exec "$scratch/release/messageai-bench" proactive --prompts "$root/prompts" "$@"
