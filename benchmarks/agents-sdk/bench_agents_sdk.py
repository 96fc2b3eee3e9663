"""The agent benchmark's workload with OpenAI's Agents SDK for Python, against `messageai-bench serve`.

The same task, prompts and five tools (same names, argument shapes and fixed JSON results) as
`messageai-bench agent`: each run makes --steps model calls, --steps - 1 of them answered with one tool call,
then the final answer. Only the runs are timed (not imports or start-up), as on the Swift side.
Keep SYSTEM_PROMPT, USER_PROMPT, FINAL_ANSWER and RESULTS equal to Sources/JobsKit/Bench/AgentBenchmarkScript.swift
(a test checks that they are).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from agents.items import ToolCallOutputItem
from openai import AsyncOpenAI

SYSTEM_PROMPT = "You are the MessageAI assistant for a busy parent. Use the tools to look at their week, then answer briefly."
USER_PROMPT = "What do I need to do this week?"
FINAL_ANSWER = "This week: return the zoo permission slip by Friday, answer Emma's party RSVP by Tuesday, and soccer practice is Thursday at 17:30."

RESULTS = {
    "get_recent_messages": '{"messages":[{"conversation":"Room 4B parents","sender":"Maria Lopez","sent_at":"2026-03-02T18:04:00-05:00","text":"Picture day is Thursday, please send the form by Wednesday."}],"count":1,"truncated":false}',
    "get_upcoming_events": '{"from":"2026-03-03","through":"2026-03-10","time_zone":"America/New_York","events":[{"id":"e1","title":"Soccer practice","date":"2026-03-05","time":"17:30","location":"Lincoln Field"}],"count":1,"truncated":false}',
    "get_pending_rsvps": '''{"rsvps":[{"id":"r1","event_name":"Emma's birthday party","event_date":"2026-03-14","deadline":"2026-03-10","days_until_deadline":7,"requested_by":"Dan Kim","conversation":"Birthday planning"}],"count":1}''',
    "get_upcoming_deadlines": '{"deadlines":[{"id":"d1","task":"Return the zoo permission slip","deadline":"2026-03-06","deadline_time":null,"category":"school","priority":"high","days_left":3}],"count":1,"truncated":false}',
    "list_reminders": '{"reminders":[{"id":"m1","title":"Reminder: zoo permission slip","remind_at":"2026-03-05T18:00:00-05:00","priority":"high","status":"pending","created_by":"ai"}],"count":1,"truncated":false}',
}


@function_tool
def get_recent_messages(conversation_id: str | None, days: int, limit: int) -> str:
    """Benchmark stand-in for the get_recent_messages tool family."""
    return RESULTS["get_recent_messages"]


@function_tool
def get_upcoming_events(days: int) -> str:
    """Benchmark stand-in for the get_upcoming_events tool family."""
    return RESULTS["get_upcoming_events"]


@function_tool
def get_pending_rsvps(limit: int) -> str:
    """Benchmark stand-in for the get_pending_rsvps tool family."""
    return RESULTS["get_pending_rsvps"]


@function_tool
def get_upcoming_deadlines(days: int) -> str:
    """Benchmark stand-in for the get_upcoming_deadlines tool family."""
    return RESULTS["get_upcoming_deadlines"]


@function_tool
def list_reminders(include_done: bool, limit: int) -> str:
    """Benchmark stand-in for the list_reminders tool family."""
    return RESULTS["list_reminders"]


def check(result, run: int, steps: int) -> tuple[int, int, int]:
    """A run counts only if it took the scripted path; returns its tool calls and tokens."""
    calls = len(result.raw_responses)
    tools = sum(isinstance(item, ToolCallOutputItem) for item in result.new_items)
    if result.final_output != FINAL_ANSWER or calls != steps or tools != steps - 1:
        raise SystemExit(
            f"run {run} did not follow the script: {calls} model call(s), {tools} tool call(s), "
            f"answer {result.final_output!r}; expected {steps} calls, {steps - 1} tool calls and the scripted answer. "
            f"Is the base URL a `messageai-bench serve --steps {steps}`?"
        )
    usage = result.context_wrapper.usage
    return tools, usage.input_tokens, usage.output_tokens


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"), help="the bench server (default: $OPENAI_BASE_URL)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print {runs, steps, seconds, ms_per_run, ...} as JSON")
    args = parser.parse_args()
    if not args.base_url:
        raise SystemExit("no server: pass --base-url or set OPENAI_BASE_URL to the URL `messageai-bench serve` prints")
    if args.runs < 1 or not 1 <= args.steps <= 100 or args.concurrency < 1:
        raise SystemExit("--runs and --concurrency must be at least 1, --steps between 1 and 100")

    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=args.base_url, api_key="unused", max_retries=0)
    agent = Agent(
        name="MessageAI assistant",
        instructions=SYSTEM_PROMPT,
        tools=[get_recent_messages, get_upcoming_events, get_pending_rsvps, get_upcoming_deadlines, list_reminders],
        model=OpenAIChatCompletionsModel(model="bench-model", openai_client=client),
    )
    gate = asyncio.Semaphore(args.concurrency)

    async def one(run: int) -> tuple[int, int, int]:
        async with gate:
            result = await Runner.run(agent, USER_PROMPT, max_turns=args.steps)
            return check(result, run, args.steps)

    start = time.perf_counter()
    outcomes = await asyncio.gather(*(one(run + 1) for run in range(args.runs)))
    seconds = time.perf_counter() - start
    await client.close()

    report = {
        "runs": args.runs,
        "steps": args.steps,
        "seconds": seconds,
        "ms_per_run": seconds * 1000 / args.runs,
        "concurrency": args.concurrency,
        "tool_calls": sum(o[0] for o in outcomes),
        "prompt_tokens": sum(o[1] for o in outcomes),
        "completion_tokens": sum(o[2] for o in outcomes),
        "python": sys.version.split()[0],
    }
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        print(
            f"Agents SDK: {report['runs']} runs x {report['steps']} steps in {seconds:.3f} s = {report['ms_per_run']:.3f} ms per run "
            f"(concurrency {args.concurrency}; {report['tool_calls']} tool calls; "
            f"{report['prompt_tokens']} prompt + {report['completion_tokens']} completion tokens)"
        )


if __name__ == "__main__":
    asyncio.run(main())
