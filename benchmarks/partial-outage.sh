#!/usr/bin/env bash
# Issue 47's partial outage at full size: a scripted OpenAI-compatible server on loopback answers 503 (its body
# echoing the key) for half of N conversations and answers the others; every night each conversation gets a new
# message. Checks that every healthy conversation is scanned each night, the failing ones are quarantined after 3
# nights with their own causes, and that the same server failing everything is still stopped by the breaker; prints
# each night's figures. It is the suite's PartialOutageTests (40 conversations there), scaled up.
#   benchmarks/partial-outage.sh [CONVERSATIONS (1000)] [CONCURRENCY (4, the scan's default)]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PARTIAL_OUTAGE_CONVERSATIONS="${1:-1000}" PARTIAL_OUTAGE_CONCURRENCY="${2:-4}"
exec scripts/test --filter PartialOutageTests
