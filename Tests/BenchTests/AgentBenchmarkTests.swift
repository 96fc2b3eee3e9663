import AgentRuntime
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Bench
import JobsKit
import Core
import Testing
import TestSupport

@Suite("Bench agent")
struct AgentBenchmarkTests {
    static func client(_ server: AgentBenchmarkServer) -> OpenAIClient {
        OpenAIClient(configuration: LLMConfiguration(baseURL: server.baseURL, defaultModel: "bench-model", retryPolicy: .noRetries))
    }

    @Test(arguments: [1, 2])
    func tinyRunsAgainstTheInProcessServerFollowTheScript(concurrency: Int) async throws {
        let server = try AgentBenchmarkServer(steps: 4)
        defer { server.stop() }
        var options = AgentBenchmark.Options(runs: 3, steps: 4)
        options.concurrency = concurrency
        let result = try await AgentBenchmark(client: Self.client(server)).run(options)
        #expect(result.runs == 3)
        #expect(result.steps == 4)
        #expect(result.toolCalls == 3 * 3)
        #expect(result.promptTokens > 0 && result.completionTokens > 0)
        #expect(result.seconds > 0)
        #expect(abs(result.msPerRun - result.seconds * 1000 / 3) < 1e-9)

        let json = try JSONValue.parse(JSONEncoder().encode(result))
        let keys = Set(try #require(json.objectValue).keys)
        #expect(keys.isSuperset(of: ["runs", "steps", "seconds", "ms_per_run"]))
        #expect(json["runs"]?.integerValue == 3)
        #expect(json["steps"]?.integerValue == 4)
    }

    @Test func aServerScriptedForOtherStepsIsReportedNotMeasured() async throws {
        let server = try AgentBenchmarkServer(steps: 3)
        defer { server.stop() }
        let error = await #expect(throws: BenchError.self) {
            _ = try await AgentBenchmark(client: Self.client(server)).run(AgentBenchmark.Options(runs: 1, steps: 4))
        }
        #expect(error?.description.contains("did not follow the script") == true)
        #expect(error?.description.contains("--steps 4") == true)
    }

    @Test func theServerAnswersOnlyChatCompletions() async throws {
        let server = try AgentBenchmarkServer(steps: 2)
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("models"))
        request.httpMethod = "GET"
        let response = try await URLSession.shared.data(for: request).1 as? HTTPURLResponse
        #expect(response?.statusCode == 404)
    }

    /// The Python Agents SDK script must run the same workload: same prompts, answer and tool results.
    @Test func thePythonScriptRepeatsTheScriptsPromptsAndToolResults() throws {
        let script = RepositoryPaths.root.appendingPathComponent("benchmarks/agents-sdk/bench_agents_sdk.py")
        let text = try String(contentsOf: script, encoding: .utf8)
        for needle in [AgentBenchmarkScript.systemPrompt, AgentBenchmarkScript.userPrompt, AgentBenchmarkScript.finalAnswer] {
            #expect(text.contains(needle), "bench_agents_sdk.py lacks \(needle)")
        }
        for tool in AgentBenchmarkScript.tools {
            #expect(text.contains("def \(tool.name)("), "bench_agents_sdk.py has no tool \(tool.name)")
            #expect(text.contains(tool.result), "bench_agents_sdk.py returns another result for \(tool.name)")
            // The Swift tool's result reaches the model re-serialized: it must stay byte-identical.
            #expect(try JSONValue.parse(tool.result).serialized() == tool.result)
        }
    }
}
