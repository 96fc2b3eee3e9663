import ArgumentParser
import Foundation
import Bench
import JobsKit
import JobsCLI

struct BenchServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the scripted OpenAI-compatible server of the agent and token benchmarks until killed.",
        discussion: """
            Listens on 127.0.0.1 only and answers POST /v1/chat/completions without any state: an agent conversation \
            gets --steps minus one rounds of one tool call each (cycling through get_recent_messages, \
            get_upcoming_events, get_pending_rsvps, get_upcoming_deadlines and list_reminders; the round is one more \
            than the request's tool messages), then a final text answer. Requests with a response_format get a \
            schema-valid JSON answer. Usage is computed from the request, the same rule for every client: tokens = \
            ceil(UTF-8 bytes / 4) of the messages' text plus the tools and response_format JSON (prompt), and of the \
            answer (completion). With --emulate-prefix-cache, usage also carries prompt_tokens_details.cached_tokens \
            as OpenAI's automatic prefix caching would report it (off by default: it adds server time that \
            `bench agent` would count). Prints the base URL once listening.

            Example: messageai-bench serve --port 8089 --steps 6
            """
    )

    @Option(help: "Port on 127.0.0.1 (0 picks a free one and prints it).")
    var port: UInt16 = 0

    @Option(help: "Delay before every answer, in milliseconds.")
    var latencyMs: Int = 0

    @Option(help: "Model calls per agent conversation: steps minus one tool rounds, then the answer.")
    var steps: Int = 6

    @Flag(help: "Report usage.prompt_tokens_details.cached_tokens as OpenAI's prefix caching would (costs server time).")
    var emulatePrefixCache = false

    func validate() throws {
        guard latencyMs >= 0 else { throw ValidationError("--latency-ms must not be negative, not \(latencyMs)") }
        guard (1...100).contains(steps) else { throw ValidationError("--steps must be between 1 and 100, not \(steps)") }
    }

    func run() async throws {
        let server = try AgentBenchmarkServer(port: port, latency: .milliseconds(latencyMs), steps: steps,
                                              emulatePrefixCache: emulatePrefixCache)
        Console.print("listening on \(server.baseURL.absoluteString) (steps \(steps), latency \(latencyMs) ms"
                      + (emulatePrefixCache ? ", prefix caching emulated)" : ")"))
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
