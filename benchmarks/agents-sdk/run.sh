#!/usr/bin/env bash
# Agent loop overhead: our AgentRunner (Swift) against OpenAI's Agents SDK for Python, on the same workload and the
# same scripted loopback server (`messageai-bench serve`): N runs of S model calls each, S-1 of them answered
# with a tool call, then the final answer. Prints both and the ratio (target: ours at most a fifth of the SDK's).
#
#   benchmarks/agents-sdk/run.sh                      # 200 runs x 6 steps at 0 ms latency, one run at a time
#   RUNS=500 STEPS=6 LATENCY_MS=0 CONCURRENCY=1 benchmarks/agents-sdk/run.sh
#
# BENCH_BIN=path/to/messageai-bench skips the release build; SCRATCH_PATH=dir builds with --scratch-path dir.
# The virtualenv lives in benchmarks/agents-sdk/.venv (git-ignored); openai-agents is pinned in requirements.txt.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${RUNS:-200}"
steps="${STEPS:-6}"
latency="${LATENCY_MS:-0}"
concurrency="${CONCURRENCY:-1}"

if [ -z "${BENCH_BIN:-}" ]; then
  scratch=()
  if [ -n "${SCRATCH_PATH:-}" ]; then scratch=(--scratch-path "$SCRATCH_PATH"); fi
  echo "building messageai-bench (release)..." >&2
  (cd "$root" && swift build -c release --product messageai-bench "${scratch[@]}" >&2)
  BENCH_BIN="$(cd "$root" && swift build -c release "${scratch[@]}" --show-bin-path)/messageai-bench"
fi
[ -x "$BENCH_BIN" ] || { echo "run.sh: no executable at $BENCH_BIN" >&2; exit 1; }

if [ ! -x "$here/.venv/bin/python" ]; then
  echo "creating $here/.venv..." >&2
  python3 -m venv "$here/.venv"
fi
"$here/.venv/bin/pip" install -q -r "$here/requirements.txt" >&2
python="$here/.venv/bin/python"

port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
log="$(mktemp)"
"$BENCH_BIN" serve --port "$port" --latency-ms "$latency" --steps "$steps" >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do
  grep -q "^listening on" "$log" && break
  kill -0 "$server" 2>/dev/null || { cat "$log" >&2; echo "run.sh: messageai-bench serve did not start" >&2; exit 1; }
  sleep 0.1
done
grep -q "^listening on" "$log" || { cat "$log" >&2; echo "run.sh: messageai-bench serve did not start within 10 s" >&2; exit 1; }
url="http://127.0.0.1:$port/v1"
echo "server: $url (steps $steps, latency $latency ms); $runs runs each, concurrency $concurrency" >&2

sdk="$("$python" "$here/bench_agents_sdk.py" --base-url "$url" --runs "$runs" --steps "$steps" --concurrency "$concurrency" --json)"
ours="$(OPENAI_BASE_URL="$url" "$BENCH_BIN" agent --runs "$runs" --steps "$steps" --concurrency "$concurrency" --json)"

SDK_JSON="$sdk" OURS_JSON="$ours" "$python" - <<'PY'
import json, os
sdk, ours = json.loads(os.environ["SDK_JSON"]), json.loads(os.environ["OURS_JSON"])
for name, r in (("OpenAI Agents SDK (Python)", sdk), ("messageai-jobs AgentRunner (Swift)", ours)):
    print(f"{name:36} {r['runs']} runs x {r['steps']} steps in {r['seconds']:.3f} s = {r['ms_per_run']:.3f} ms per run")
ratio = ours["ms_per_run"] / sdk["ms_per_run"]
print(f"ours / SDK per run: {ratio:.3f} (the SDK takes {1 / ratio:.1f}x as long); target <= 0.2: {'met' if ratio <= 0.2 else 'MISSED'}")
print(json.dumps({"agents_sdk": sdk, "ours": ours, "ratio": ratio}, sort_keys=True))
PY
