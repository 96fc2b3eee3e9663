package import Foundation
package import Core

/// What the fake server answers to one request.
package indirect enum ScriptedReply: Sendable {
    /// A normal answer with text content.
    case chat(content: String, finishReason: String = "stop", usage: FakeUsage = FakeUsage())
    /// An answer that calls tools; `arguments` is sent verbatim, so it may be invalid JSON on purpose.
    case toolCalls([(id: String, name: String, arguments: String)], usage: FakeUsage = FakeUsage())
    /// The model declined: `content` null, `refusal` set.
    case refusal(String, usage: FakeUsage = FakeUsage())
    /// Any status with a literal body, e.g. 429 with `retry-after`, 401, 500.
    case status(Int, body: String = "", headers: [String: String] = [:])
    /// A 200 whose body is this JSON, for shapes the other cases do not cover.
    case json(JSONValue, headers: [String: String] = [:])
    /// A 200 with these bytes as the body: malformed or truncated JSON.
    case raw(Data)
    /// Waits, then answers with `then` (or not at all if the server stops first).
    case delay(Double, then: ScriptedReply)
    /// Answers with `then` once the gate is opened (or not at all if the server stops first).
    case held(ReplyGate, then: ScriptedReply)
    /// Closes the connection without answering (a reset).
    case closeConnection
    /// A well-formed response with `choices: []`.
    case emptyChoices
    /// Adds headers to another reply (e.g. `x-ratelimit-remaining-requests`).
    case withHeaders([String: String], ScriptedReply)

    /// An OpenAI-shaped error body.
    package static func error(status: Int, message: String, type: String = "invalid_request_error", headers: [String: String] = [:]) -> ScriptedReply {
        let body: JSONValue = ["error": ["message": .string(message), "type": .string(type), "param": nil, "code": nil]]
        return .status(status, body: body.serialized(), headers: headers)
    }
}

/// Token counts the fake reports; `total` is derived.
package struct FakeUsage: Sendable, Hashable {
    package var prompt: Int
    package var completion: Int
    package var cached: Int?
    package var reasoning: Int?

    package init(prompt: Int = 10, completion: Int = 5, cached: Int? = nil, reasoning: Int? = nil) {
        self.prompt = prompt
        self.completion = completion
        self.cached = cached
        self.reasoning = reasoning
    }

    var json: JSONValue {
        var object: JSONObject = [
            "prompt_tokens": .integer(Int64(prompt)),
            "completion_tokens": .integer(Int64(completion)),
            "total_tokens": .integer(Int64(prompt + completion)),
        ]
        if let cached { object["prompt_tokens_details"] = ["cached_tokens": .integer(Int64(cached)), "audio_tokens": 0] }
        if let reasoning { object["completion_tokens_details"] = ["reasoning_tokens": .integer(Int64(reasoning))] }
        return .object(object)
    }
}

/// A rendered reply: either bytes to send or a connection reset.
enum RenderedReply {
    case response(status: Int, headers: [String: String], body: Data)
    case reset
}

extension ScriptedReply {
    /// Renders the reply as Chat Completions JSON; `sequence` makes ids unique, `model` echoes the request's model.
    func render(sequence: Int, model: String) -> RenderedReply {
        switch self {
        case .chat(let content, let finishReason, let usage):
            let message: JSONValue = ["role": "assistant", "content": .string(content), "refusal": nil]
            return completion(sequence: sequence, model: model, choices: [choice(message, finishReason: finishReason)], usage: usage)
        case .toolCalls(let calls, let usage):
            let toolCalls = calls.map { call -> JSONValue in
                ["id": .string(call.id), "type": "function", "function": ["name": .string(call.name), "arguments": .string(call.arguments)]]
            }
            let message: JSONValue = ["role": "assistant", "content": nil, "tool_calls": .array(toolCalls), "refusal": nil]
            return completion(sequence: sequence, model: model, choices: [choice(message, finishReason: "tool_calls")], usage: usage)
        case .refusal(let text, let usage):
            let message: JSONValue = ["role": "assistant", "content": nil, "refusal": .string(text)]
            return completion(sequence: sequence, model: model, choices: [choice(message, finishReason: "stop")], usage: usage)
        case .emptyChoices:
            return completion(sequence: sequence, model: model, choices: [], usage: FakeUsage())
        case .status(let status, let body, let headers):
            var all = headers
            if all.keys.first(where: { $0.lowercased() == "content-type" }) == nil { all["Content-Type"] = "application/json" }
            return .response(status: status, headers: all, body: Data(body.utf8))
        case .json(let value, let headers):
            return .response(status: 200, headers: headers.merging(["Content-Type": "application/json"]) { own, _ in own }, body: value.serializedData())
        case .raw(let bytes):
            return .response(status: 200, headers: ["Content-Type": "application/json"], body: bytes)
        case .delay(_, let then), .held(_, let then):
            return then.render(sequence: sequence, model: model)
        case .closeConnection:
            return .reset
        case .withHeaders(let extra, let inner):
            guard case .response(let status, let headers, let body) = inner.render(sequence: sequence, model: model) else { return .reset }
            return .response(status: status, headers: headers.merging(extra) { _, new in new }, body: body)
        }
    }

    private func choice(_ message: JSONValue, finishReason: String) -> JSONValue {
        ["index": 0, "message": message, "logprobs": nil, "finish_reason": .string(finishReason)]
    }

    private func completion(sequence: Int, model: String, choices: [JSONValue], usage: FakeUsage) -> RenderedReply {
        let body: JSONValue = [
            "id": .string("chatcmpl-fake-\(sequence)"),
            "object": "chat.completion",
            "created": 1_767_225_600,
            "model": .string(model),
            "choices": .array(choices),
            "usage": usage.json,
            "system_fingerprint": "fp_fake",
            "service_tier": "default",
        ]
        return .response(status: 200, headers: ["Content-Type": "application/json"], body: body.serializedData())
    }
}
