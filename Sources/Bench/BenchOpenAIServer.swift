import Extractors
package import Foundation
import Core
import JobsKit
import TestSupport

/// A minimal OpenAI-compatible server on 127.0.0.1 for the scan benchmark: it answers every Chat Completions
/// request after a fixed latency with a schema-valid answer for the requested feature (empty lists, except one
/// priority message citing the newest message, so the store writes a row per conversation). It keeps connections
/// alive, as OpenAI's API does (the transport's pool reuses them).
package final class BenchOpenAIServer: Sendable {
    /// Requests in flight a benchmark client may send it: it answers every request at once, as OpenAI's API does,
    /// so the client's per-server line (`LLMConfiguration.maxConcurrency`, 1 by default for a loopback URL) must
    /// not be what a benchmark measures.
    package static let clientConcurrency = 1_024

    package var port: UInt16 { server.port }
    package var baseURL: URL { server.url.appendingPathComponent("v1") }
    private let server: HTTPServer

    /// CPU seconds the server has used so far: its event-loop thread, which also computes every answer.
    package var cpuSeconds: Double { server.cpuSeconds }

    package init(latency: Duration) throws {
        server = try HTTPServer { request in
            let answer = BenchOpenAIServer.completion(for: request.body)
            return HTTPServerReply.response(status: 200, headers: [("Content-Type", "application/json")], body: answer).after(latency)
        }
    }

    /// Stops accepting and closes the connections clients keep open.
    package func stop() { server.stop() }

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

/// A benchmark setup problem, said plainly.
package struct BenchError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
