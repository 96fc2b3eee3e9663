package import AgentRuntime
import Foundation

/// Measures the agent loop's own cost: N runs of `AgentRunner` with the real client against a scripted server
/// (`messageai-bench serve`, or `AgentBenchmarkServer` in process) that answers instantly, so the time per
/// run is the loop, the client and the loopback HTTP, the same as the Python Agents SDK pays against that server.
package struct AgentBenchmark: Sendable {
    package struct Options: Sendable {
        package var runs: Int
        /// Model calls per run; must match the server's `--steps`.
        package var steps: Int
        /// Runs in flight at once.
        package var concurrency = 1
        package var model: String? = "bench-model"

        package init(runs: Int, steps: Int) {
            self.runs = runs
            self.steps = steps
        }
    }

    /// `runs`, `steps`, `seconds` and `ms_per_run` are the comparison's four keys; the rest are details.
    package struct Result: Sendable, Codable, Equatable {
        package var runs: Int
        package var steps: Int
        package var seconds: Double
        package var msPerRun: Double
        package var concurrency: Int
        package var toolCalls: Int
        package var promptTokens: Int
        package var completionTokens: Int

        enum CodingKeys: String, CodingKey {
            case runs, steps, seconds, concurrency
            case msPerRun = "ms_per_run"
            case toolCalls = "tool_calls"
            case promptTokens = "prompt_tokens"
            case completionTokens = "completion_tokens"
        }
    }

    package let client: any ChatCompleting

    package init(client: any ChatCompleting) { self.client = client }

    package func run(_ options: Options) async throws -> Result {
        guard options.runs >= 1 else { throw BenchError("--runs must be at least 1, not \(options.runs)") }
        guard (1...100).contains(options.steps) else { throw BenchError("--steps must be between 1 and 100, not \(options.steps)") }
        guard (1...256).contains(options.concurrency) else {
            throw BenchError("--concurrency must be between 1 and 256, not \(options.concurrency)")
        }
        let runner = AgentRunner(
            client: client, model: options.model, tools: try AgentBenchmarkTools.all(),
            limits: AgentLimits(maxSteps: options.steps, maxToolCallsPerStep: 8, maxConcurrentToolCalls: 4))
        let workers = min(options.concurrency, options.runs)
        let clock = ContinuousClock()
        let start = clock.now
        let results = try await withThrowingTaskGroup(of: [AgentRunResult].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var mine: [AgentRunResult] = []
                    for index in stride(from: worker, to: options.runs, by: workers) {
                        let result = await runner.run(system: AgentBenchmarkScript.systemPrompt, user: AgentBenchmarkScript.userPrompt)
                        try Self.check(result, run: index + 1, steps: options.steps)
                        mine.append(result)
                    }
                    return mine
                }
            }
            var all: [AgentRunResult] = []
            for try await batch in group { all += batch }
            return all
        }
        let elapsed = clock.now - start
        let seconds = elapsed.seconds
        return Result(
            runs: results.count, steps: options.steps, seconds: seconds, msPerRun: seconds * 1000 / Double(results.count),
            concurrency: workers, toolCalls: results.reduce(0) { $0 + $1.toolCallCount },
            promptTokens: results.reduce(0) { $0 + $1.usage.promptTokens },
            completionTokens: results.reduce(0) { $0 + $1.usage.completionTokens })
    }

    /// A run counts only if it took exactly the scripted path: `steps` model calls, one tool call per round, the answer.
    static func check(_ result: AgentRunResult, run: Int, steps: Int) throws {
        let ended: Bool = switch result.stopReason {
        case .completed, .maxSteps: result.finalText == AgentBenchmarkScript.finalAnswer
        default: false
        }
        let toolsRan = result.steps.allSatisfy { $0.toolCalls.allSatisfy { $0.status == .ok } }
        guard ended, toolsRan, result.steps.count == steps, result.toolCallCount == steps - 1 else {
            throw BenchError("""
                run \(run) did not follow the script: it stopped with \(result.stopReason) after \(result.steps.count) model call(s) \
                and \(result.toolCallCount) tool call(s)\(toolsRan ? "" : " (some failed)"), expected \(steps) calls, \(steps - 1) tool calls and the scripted answer. \
                Is OPENAI_BASE_URL a `messageai-bench serve --steps \(steps)`?
                """)
        }
    }
}
