import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport

@Suite("Client response decoding")
struct ClientResponseTests {
    @Test("content, finish reason, usage with cached tokens and the interesting headers")
    func content() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.withHeaders(
            ["x-request-id": "req_123", "x-ratelimit-remaining-requests": "99", "x-ratelimit-remaining-tokens": "1500",
             "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s"],
            .chat(content: "Soccer is at 5.", finishReason: "length", usage: FakeUsage(prompt: 120, completion: 30, cached: 64, reasoning: 8))
        ))
        let result = try await makeClient(server).complete(helloRequest)
        let choice = result.response.firstChoice
        #expect(choice.message.content == "Soccer is at 5.")
        #expect(choice.message.refusal == nil)
        #expect(choice.message.toolCalls.isEmpty)
        #expect(choice.finishReason == .length)
        #expect(result.response.id == "chatcmpl-fake-0")
        #expect(result.response.model == "gpt-test")
        #expect(result.response.systemFingerprint == "fp_fake")
        #expect(result.response.usage == Usage(promptTokens: 120, completionTokens: 30, totalTokens: 150, cachedPromptTokens: 64, reasoningTokens: 8))
        #expect(result.attempts == 1)
        #expect(result.requestID == "req_123")
        #expect(result.rateLimit == RateLimitInfo(remainingRequests: 99, remainingTokens: 1500, resetRequests: "1s", resetTokens: "6m0s"))
    }

    @Test("a refusal has no content and the refusal text")
    func refusal() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.refusal("I can't help with that."))
        let message = try await makeClient(server).complete(helloRequest).response.firstChoice.message
        #expect(message.content == nil)
        #expect(message.refusal == "I can't help with that.")
    }

    @Test("tool calls keep their ids, names and raw argument strings")
    func toolCalls() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.toolCalls([(id: "call_a", name: "calendar", arguments: "{\"day\":\"2026-04-17\"}"), (id: "call_b", name: "todo", arguments: "not json")]))
        let choice = try await makeClient(server).complete(helloRequest).response.firstChoice
        #expect(choice.finishReason == .toolCalls)
        #expect(choice.message.toolCalls == [
            ToolCall(id: "call_a", name: "calendar", arguments: "{\"day\":\"2026-04-17\"}"),
            ToolCall(id: "call_b", name: "todo", arguments: "not json"),
        ])
    }

    @Test("extra fields are ignored and unknown finish reasons are kept")
    func tolerant() throws {
        let body: JSONValue = [
            "id": "x", "object": "chat.completion", "created": 1, "model": "m", "new_field": ["a": 1],
            "choices": [["index": 0, "finish_reason": "eos", "message": ["role": "assistant", "content": "hi", "annotations": []]]],
        ]
        let response = try ChatCompletionResponse.decode(body.serializedData())
        #expect(response.firstChoice.finishReason == .unknown("eos"))
        #expect(response.firstChoice.message.content == "hi")
        #expect(response.usage == nil)
    }

    @Test("missing required fields are errors naming the JSON path")
    func strictRequired() {
        let missingID: JSONValue = ["created": 1, "model": "m", "choices": [["index": 0, "finish_reason": "stop", "message": ["content": "x"]]]]
        let missingName: JSONValue = [
            "id": "x", "created": 1, "model": "m",
            "choices": [["index": 0, "finish_reason": "tool_calls", "message": ["tool_calls": [["id": "c", "function": ["arguments": "{}"]]]]]],
        ]
        let wrongType: JSONValue = ["id": "x", "created": "yesterday", "model": "m", "choices": [["index": 0, "finish_reason": "stop", "message": [:]]]]
        #expect(throws: ResponseDecodingError.self) { try ChatCompletionResponse.decode(missingID.serializedData()) }
        #expect(decodingMessage(missingID) == "id: missing")
        #expect(decodingMessage(missingName) == "choices[0].message.tool_calls[0].function.name: missing")
        #expect(decodingMessage(wrongType) == "created: expected an integer, found string")
    }

    private func decodingMessage(_ body: JSONValue) -> String? {
        do {
            _ = try ChatCompletionResponse.decode(body.serializedData())
            return nil
        } catch {
            return error.message
        }
    }

    @Test("malformed JSON is a decoding error and is not retried")
    func malformed() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.raw(Data("{\"id\": \"x\", \"choices\": [".utf8)))
        let error = await llmError { _ = try await makeClient(server).complete(helloRequest) }
        guard case .decoding(let why, let excerpt) = error else {
            Issue.record("expected a decoding error, got \(String(describing: error))")
            return
        }
        #expect(why.contains("not JSON"))
        #expect(excerpt.hasPrefix("{\"id\": \"x\""))
        #expect(server.requests.count == 1)
    }

    @Test("an empty choices array is a decoding error that says so")
    func emptyChoices() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.emptyChoices)
        let error = await llmError { _ = try await makeClient(server).complete(helloRequest) }
        guard case .decoding(let why, _) = error else {
            Issue.record("expected a decoding error, got \(String(describing: error))")
            return
        }
        #expect(why.contains("choices") && why.contains("empty"))
    }

    @Test("usage sums across calls")
    func usageSum() {
        let total = Usage(promptTokens: 10, completionTokens: 2, cachedPromptTokens: 4) + Usage(promptTokens: 5, completionTokens: 1)
        #expect(total == Usage(promptTokens: 15, completionTokens: 3, totalTokens: 18, cachedPromptTokens: 4, reasoningTokens: nil))
    }
}
