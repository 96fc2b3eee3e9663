package import Foundation
import JobsKit
import TestSupport

/// The scripted OpenAI-compatible server of the agent and token benchmarks, on 127.0.0.1 only: it answers
/// `POST …/chat/completions` with `AgentBenchmarkScript` after a fixed latency. Unlike `BenchOpenAIServer` (the scan
/// benchmark's, which answers only extractor requests and bills the raw body) it scripts tool calls and bills by
/// `TokenCostRule`, and it keeps connections alive, as both the Swift and the Python clients expect.
package final class AgentBenchmarkServer: Sendable {
    package var port: UInt16 { server.port }
    package var baseURL: URL { server.url.appendingPathComponent("v1") }
    package let steps: Int
    private let server: HTTPServer

    /// - Parameters:
    ///   - port: 0 picks a free port (read it back from `port`).
    ///   - steps: model calls per agent conversation: `steps - 1` tool rounds, then the answer.
    ///   - emulatePrefixCache: report `cached_tokens` as OpenAI's prefix caching would (`PrefixCacheEmulator`).
    ///     Opt-in: hashing every prompt costs the server about 0.15 ms a request, which `bench agent` would count as
    ///     the agent's time (a 6-step run went from about 3 to 4 ms).
    package init(port: UInt16 = 0, latency: Duration = .zero, steps: Int, emulatePrefixCache: Bool = false) throws {
        guard steps >= 1 else { throw BenchError("bench server: --steps must be at least 1, not \(steps)") }
        guard latency >= .zero else { throw BenchError("bench server: the latency must not be negative") }
        self.steps = steps
        let cache = emulatePrefixCache ? PrefixCacheEmulator() : nil
        do {
            server = try HTTPServer(port: port) { request in
                let (status, body) = request.uri.hasSuffix("/chat/completions") && request.method == "POST"
                    ? AgentBenchmarkScript.completion(for: request.body, steps: steps, cache: cache)
                    : (404, AgentBenchmarkScript.errorBody("only POST …/chat/completions is served, not \(request.method) \(request.uri)"))
                return HTTPServerReply.response(status: status, headers: [("Content-Type", "application/json")], body: body).after(latency)
            }
        } catch {
            throw BenchError("bench server: \(error)")
        }
    }

    /// Stops accepting and closes the connections clients keep open.
    package func stop() { server.stop() }
}
