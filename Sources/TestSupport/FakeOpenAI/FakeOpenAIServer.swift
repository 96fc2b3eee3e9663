package import Foundation
import Core
import NIOConcurrencyHelpers

/// A scripted OpenAI-compatible HTTP/1.1 server on 127.0.0.1, for testing the real client and transport end to end.
///
/// Replies come from a FIFO queue (`enqueue`), then from the fallback handler, else a 500 saying the script ran out.
/// Every request is recorded; every answer closes its connection. `stop()` (or deinit) ends the server.
package final class FakeOpenAIServer: Sendable {
    private let script: Script
    private let server: HTTPServer

    /// Binds an ephemeral port and starts serving at once.
    package init(fallback: (@Sendable (RecordedRequest) -> ScriptedReply)? = nil) throws {
        let script = Script(fallback: fallback)
        self.script = script
        server = try HTTPServer { await script.answer($0) }
    }

    package var port: UInt16 { server.port }
    /// `http://127.0.0.1:PORT/v1`, to use as the client's base URL.
    package var baseURL: URL { server.url.appendingPathComponent("v1") }

    /// Appends replies to the FIFO queue.
    package func enqueue(_ replies: ScriptedReply...) { script.enqueue(replies) }
    package func enqueue(_ replies: [ScriptedReply]) { script.enqueue(replies) }
    /// Answers requests once the queue is empty (e.g. replaying recorded answers keyed by the request).
    package func setFallback(_ handler: (@Sendable (RecordedRequest) -> ScriptedReply)?) { script.setFallback(handler) }
    /// Replies still queued.
    package var pendingReplies: Int { script.pendingReplies }
    /// Every request received so far, in arrival order.
    package var requests: [RecordedRequest] { script.requests }
    /// The Files and Batch endpoints (`/v1/files*`, `/v1/batches*`); other paths are answered as before.
    package var batches: FakeBatchEndpoints { script.batchEndpoints }

    /// Waits until at least `count` requests have arrived or `timeout` passes; returns what arrived.
    /// The default bound only stops a hung test: in a full parallel run on 2 cores the cooperative pool can be
    /// saturated for over a minute, so a send that is due at once may arrive 70 s later.
    package func waitForRequests(count: Int, timeout: Duration = .seconds(300)) async -> [RecordedRequest] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = requests
            if current.count >= count { return current }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return requests
    }

    /// Stops accepting, closes open connections and drops replies still waiting. Idempotent.
    package func stop() { server.stop() }
}

/// The queue, fallback and record of one fake server.
private final class Script: Sendable {
    private struct State {
        var queue: [ScriptedReply] = []
        var fallback: (@Sendable (RecordedRequest) -> ScriptedReply)?
        var requests: [RecordedRequest] = []
    }

    private let state = NIOLockedValueBox(State())
    let batchEndpoints = FakeBatchEndpoints()

    init(fallback: (@Sendable (RecordedRequest) -> ScriptedReply)?) {
        state.withLockedValue { $0.fallback = fallback }
    }

    func enqueue(_ replies: [ScriptedReply]) { state.withLockedValue { $0.queue += replies } }
    func setFallback(_ handler: (@Sendable (RecordedRequest) -> ScriptedReply)?) { state.withLockedValue { $0.fallback = handler } }
    var pendingReplies: Int { state.withLockedValue { $0.queue.count } }
    var requests: [RecordedRequest] { state.withLockedValue { $0.requests } }

    /// Records the request, waits out the reply's delays and gates (cancelled when the server stops), then renders it.
    func answer(_ request: HTTPServerRequest) async -> HTTPServerReply {
        let (recorded, reply) = record(request)
        var current = reply
        while true {
            if case .delay(let seconds, let then) = current {
                do { try await Task.sleep(for: .seconds(seconds)) } catch { return .close }
                current = then
            } else if case .held(let gate, let then) = current {
                guard await gate.pass(recorded) else { return .close }
                current = then
            } else {
                break
            }
        }
        let model = recorded.json?["model"]?.stringValue ?? "fake-model"
        switch current.render(sequence: recorded.index, model: model) {
        case .reset:
            return .reset
        case .response(let status, var headers, let body):
            if headers.keys.first(where: { $0.lowercased() == "x-request-id" }) == nil { headers["x-request-id"] = "req_fake_\(recorded.index)" }
            return .response(status: status, headers: headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
                             body: body, close: true)
        }
    }

    /// Records the request and picks its reply under one lock, so arrival order and reply order agree.
    private func record(_ request: HTTPServerRequest) -> (RecordedRequest, ScriptedReply) {
        let json = try? JSONValue.parse(request.body)
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            headers[name.lowercased()] = headers[name.lowercased()].map { "\($0), \(value)" } ?? value
        }
        return state.withLockedValue { state in
            let recorded = RecordedRequest(
                index: state.requests.count, method: request.method, path: request.uri, headers: headers,
                body: request.body, json: json, wasChunked: request.wasChunked, receivedAt: request.receivedAt
            )
            state.requests.append(recorded)
            let reply: ScriptedReply
            if let routed = batchEndpoints.reply(to: recorded, chat: state.fallback) {
                reply = routed
            } else if !state.queue.isEmpty {
                reply = state.queue.removeFirst()
            } else if let fallback = state.fallback {
                reply = fallback(recorded)
            } else {
                reply = .error(status: 500, message: "FakeOpenAIServer: no scripted reply left for request #\(recorded.index)", type: "server_error")
            }
            return (recorded, reply)
        }
    }
}

package struct FakeServerError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
