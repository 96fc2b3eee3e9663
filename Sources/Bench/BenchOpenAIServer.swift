import Extractors
import Foundation
import JSONKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal OpenAI-compatible server on 127.0.0.1 for the scan benchmark: it answers every Chat Completions
/// request after a fixed latency with a schema-valid answer for the requested feature (empty lists, except one
/// priority message citing the newest message, so the store writes a row per conversation). It keeps connections
/// alive, as OpenAI's API does (the transport's pool reuses them); one thread per connection. Shipping code cannot
/// link the test target's `FakeOpenAIServer`, and this needs none of its scripting.
public final class BenchOpenAIServer: Sendable {
    /// Requests in flight a benchmark client may send it: it answers every request at once, as OpenAI's API does,
    /// so the client's per-server line (`LLMConfiguration.maxConcurrency`, 1 by default for a loopback URL) must
    /// not be what a benchmark measures.
    public static let clientConcurrency = 1_024

    public let port: UInt16
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }
    private let listenFD: Int32
    private let latency: Duration
    private let stopped = BenchFlag()
    private let connections = OpenConnections()
    private let cpu = ThreadCPUMeter()

    /// CPU seconds the server's own threads (accept loop and one per connection) have used so far, counted after
    /// every answer.
    public var cpuSeconds: Double { cpu.seconds }

    public init(latency: Duration) throws {
        self.latency = latency
        (listenFD, port) = try LoopbackListener.open(backlog: 256)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops accepting (the accept loop then closes the socket) and closes the connections clients keep open.
    public func stop() {
        guard stopped.set() else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))
        connections.shutdownAll()
    }

    private func acceptLoop() {
        var counted = cpu.addCallingThread()
        LoopbackListener.acceptLoop(listenFD, stopped: stopped, connections: connections,
                                    afterEach: { counted = cpu.addCallingThread(since: counted) }) { [self] in serve($0) }
    }

    /// Answers requests on one connection until the client closes it or asks to.
    private func serve(_ fd: Int32) {
        var counted: UInt64 = 0
        // Declared first, so it runs last: the thread's CPU up to its end, the close included.
        defer { cpu.addCallingThread(since: counted) }
        defer {
            connections.remove(fd)
            close(fd)
        }
        var reader = HTTPRequestReader(fd: fd)
        while let request = reader.next() {
            Thread.sleep(forTimeInterval: Double(latency.components.seconds) + Double(latency.components.attoseconds) / 1e18)
            let answer = Self.completion(for: request.body)
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(answer.count)\r\n"
                + (request.wantsClose ? "Connection: close\r\n" : "") + "\r\n"
            var bytes = Data(head.utf8)
            bytes.append(answer)
            counted = cpu.addCallingThread(since: counted)
            guard AgentBenchmarkServer.sendAll(bytes, to: fd), !request.wantsClose else { return }
        }
    }

    /// A Chat Completions response whose usage estimates tokens as bytes / 4.
    static func completion(for body: Data) -> Data {
        let request = try? JSONValue.parse(body)
        let content = answer(for: request).serialized()
        let response: JSONValue = [
            "id": "chatcmpl-bench", "object": "chat.completion", "created": 1_767_225_600,
            "model": .string(request?["model"]?.stringValue ?? "bench"),
            "choices": [["index": 0, "message": ["role": "assistant", "content": .string(content)], "finish_reason": "stop"]],
            "usage": ["prompt_tokens": .integer(Int64(body.count / 4)), "completion_tokens": .integer(Int64(content.utf8.count / 4 + 1)),
                      "total_tokens": .integer(Int64(body.count / 4 + content.utf8.count / 4 + 1))],
        ]
        return response.serializedData()
    }

    static func answer(for request: JSONValue?) -> JSONValue {
        switch request?["response_format"]?["json_schema"]?["name"]?.stringValue {
        case "calendar_events": return ["events": []]
        case "decisions": return ["decisions": []]
        case "rsvps": return ["rsvps": []]
        case "deadlines": return ["deadlines": []]
        case "priority_messages":
            guard let newest = newestMessageLine(request) else { return ["messages": []] }
            let alias = newest.alias
            let evidence = String(newest.text.prefix(40))
            return ["messages": [["message_id": .string(alias), "priority": "medium", "reason": "benchmark", "action_required": false,
                                  "evidence": .string(evidence.isEmpty ? alias : evidence)]]]
        case CombinedSchema.promptID?:
            // One property per feature the combined schema asks for, each that feature's answer.
            var parts = JSONObject()
            let properties = request?["response_format"]?["json_schema"]?["schema"]?["properties"]?.objectValue ?? JSONObject()
            for name in properties.keys {
                var single = request?.objectValue ?? JSONObject()
                single["response_format"] = ["json_schema": ["name": .string(name), "schema": properties[name] ?? [:]]]
                parts[name] = answer(for: .object(single))
            }
            return .object(parts)
        default:
            // Any other feature: the answer that finds nothing, in the shape its schema asks for.
            return CombinedSchema.emptyAnswer(request?["response_format"]?["json_schema"]?["schema"] ?? [:])
        }
    }

    /// The last message line (`MessageBlock`) in the last `<messages>` block of the last user message.
    static func newestMessageLine(_ request: JSONValue?) -> MessageBlock.Line? {
        let user = request?["messages"]?.arrayValue?.last { $0["role"]?.stringValue == "user" }
        guard let text = user?["content"]?.stringValue, let open = text.range(of: "<messages>\n", options: .backwards),
              let close = text.range(of: "\n</messages>", range: open.upperBound..<text.endIndex) else { return nil }
        return MessageBlock.parse(String(text[open.upperBound..<close.lowerBound]))?.last
    }
}

/// A one-way flag shared by the server's threads.
final class BenchFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    /// Sets the flag; false when it was already set.
    func set() -> Bool {
        lock.withLock {
            defer { value = true }
            return !value
        }
    }
}

/// A benchmark setup problem, said plainly.
public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
