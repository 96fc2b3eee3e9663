import AgentRuntime
import ArgumentParser
import Foundation
import Bench
import JobsKit
import JobsCLI

struct BenchAgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Measure the agent loop's overhead per run against `messageai-bench serve` at OPENAI_BASE_URL.",
        discussion: """
            Runs --runs agent runs (AgentRunner with the real OpenAI client) in this process, each with five in-memory \
            tools shaped like the real families, against the scripted server; every run must take exactly --steps \
            model calls (start the server with the same --steps). At zero server latency the time per run is the \
            loop's own cost. benchmarks/agents-sdk/run.sh runs the same workload with OpenAI's Agents SDK for Python.

            Example: OPENAI_BASE_URL=http://127.0.0.1:8089/v1 messageai-bench agent --runs 500 --steps 6 --json
            """
    )

    @Option(help: "Agent runs.")
    var runs: Int = 200

    @Option(help: "Model calls per run (the server's --steps).")
    var steps: Int = 6

    @Option(help: "Runs in flight at once.")
    var concurrency: Int = 1

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1, not \(runs)") }
        guard (1...100).contains(steps) else { throw ValidationError("--steps must be between 1 and 100, not \(steps)") }
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 256, not \(concurrency)") }
    }

    func run() async throws {
        output.bootstrap()
        let environment = BenchEnvironment.values
        guard let base = environment["OPENAI_BASE_URL"].flatMap({ $0.isEmpty ? nil : URL(string: $0) }) else {
            throw ValidationError("OPENAI_BASE_URL is not set: start `messageai-bench serve --steps \(steps)` and set OPENAI_BASE_URL to the URL it prints")
        }
        let client = OpenAIClient(configuration: LLMConfiguration(
            apiKey: environment["OPENAI_API_KEY"], baseURL: base, defaultModel: "bench-model", retryPolicy: .noRetries))
        var options = AgentBenchmark.Options(runs: runs, steps: steps)
        options.concurrency = concurrency
        let cpuBefore = ScanBenchmark.cpuSeconds()
        let result = try await AgentBenchmark(client: client).run(options)
        let cpuSeconds = ScanBenchmark.cpuSeconds() - cpuBefore
        if output.json {
            try Console.printJSON(result)
        } else {
            Console.print(String(
                format: "Agent loop: %d runs x %d steps in %.3f s = %.3f ms per run (concurrency %d; %d tool calls; %d prompt + %d completion tokens); CPU %.3f ms per run",
                result.runs, result.steps, result.seconds, result.msPerRun, result.concurrency, result.toolCalls,
                result.promptTokens, result.completionTokens, cpuSeconds * 1000 / Double(max(1, result.runs))))
        }
    }
}
