import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport

/// Every number a model server sends is checked at the client (issue 47 item 1): a `usage` block no real request
/// could have is unknown (nil, never clamped), the answer itself still served; waits a server asks for cannot
/// overflow. Also (item 6) a body naming a key twice is refused, and the answer names the model that served it.
@Suite("Client: hostile numbers, duplicate keys, the served model")
struct HostileNumberTests {
    static func body(usage: String, model: String = "gpt-test-2026-01-01") -> Data {
        Data(#"{"id": "c1", "created": 1, "model": "\#(model)", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}], "usage": \#(usage)}"#.utf8)
    }

    @Test(arguments: [
        #"{"prompt_tokens": -5000000, "completion_tokens": 10}"#,
        #"{"prompt_tokens": 10, "completion_tokens": 9007199254740993}"#,
        #"{"prompt_tokens": 9223372036854775807, "completion_tokens": 9223372036854775807}"#,
        #"{"prompt_tokens": 99999999999999999999999, "completion_tokens": 1}"#,
        #"{"prompt_tokens": 1e308, "completion_tokens": 1}"#,
        #"{"prompt_tokens": 12.5, "completion_tokens": 1}"#,
        #"{"prompt_tokens": 12.0, "completion_tokens": 1}"#,
        #"{"prompt_tokens": "100", "completion_tokens": 1}"#,
        #"{"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": -1}"#,
        #"{"prompt_tokens": 10, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 11}}"#,
        #"{"prompt_tokens": 10, "completion_tokens": 1, "completion_tokens_details": {"reasoning_tokens": 2}}"#,
        #"{"prompt_tokens": 10000001, "completion_tokens": 0}"#,
        #"[1, 2]"#, #""many""#, #"true"#,
    ])
    func anImpossibleUsageIsUnknown(_ usage: String) throws {
        let response = try ChatCompletionResponse.decode(Self.body(usage: usage))
        #expect(response.usage == nil, "\(usage)")
        #expect(response.discardedUsage != nil)
        #expect(response.firstChoice.message.content == "Hi", "the answer itself is kept")
    }

    @Test func aRealUsageIsKept() throws {
        let response = try ChatCompletionResponse.decode(Self.body(usage: #"{"prompt_tokens": 10000000, "completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": 10000000}}"#))
        #expect(response.usage == Usage(promptTokens: 10_000_000, completionTokens: 0, totalTokens: 10_000_000, cachedPromptTokens: 10_000_000))
        #expect(response.discardedUsage == nil)
        #expect(try ChatCompletionResponse.decode(Self.body(usage: "null")).usage == nil)
    }

    @Test("the client serves the answer and reports no usage; the spend meter sums nothing impossible")
    func theClientServesTheAnswer() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.raw(Self.body(usage: #"{"prompt_tokens": -5000000, "completion_tokens": 9007199254740993}"#)))
        let result = try await makeClient(server).complete(helloRequest)
        #expect(result.response.usage == nil)
        #expect(result.response.firstChoice.message.content == "Hi")
    }

    @Test func aServersWaitCannotOverflow() {
        for headers in [["retry-after-ms": "1e30"], ["retry-after": "1e300"], ["retry-after-ms": "inf"], ["retry-after": "99999999999999999999"]] {
            let wait = RetryPolicy.retryAfter(headers: headers)
            #expect(wait.map { $0 > .seconds(86_400) && $0 <= .seconds(Duration.secondsBound) } ?? true, "\(headers)")
        }
        #expect(Duration.milliseconds(ofSeconds: .nan, rounding: .up) == .zero)
        #expect(Duration.milliseconds(ofSeconds: -.infinity, rounding: .up) == .seconds(-Duration.secondsBound))
        #expect(Duration.milliseconds(ofSeconds: 1e300, rounding: .up).wholeNanoseconds > 0)
    }

    @Test func aBodyNamingAKeyTwiceIsRefused() {
        #expect(throws: ResponseDecodingError.self) {
            try ChatCompletionResponse.decode(Data(#"{"id": "c1", "id": "c2", "created": 1, "model": "m", "choices": []}"#.utf8))
        }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(#"{"events": [], "events": [{"title": "x"}]}"#) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(#"{"a": {"b": 1, "b": 1}}"#) }
        #expect((try? JSONValue.parse(#"{"a": 1, "b": {"a": 2}}"#)) != nil, "the same key in two objects is fine")
    }

    @Test func theServedModelIsTheOneTheServerNames() throws {
        #expect(try ChatCompletionResponse.decode(Self.body(usage: "null")).servedModel == "gpt-test-2026-01-01")
        #expect(try ChatCompletionResponse.decode(Self.body(usage: "null", model: " ")).servedModel == nil)
        #expect(try ChatCompletionResponse.decode(Self.body(usage: "null", model: String(repeating: "m", count: 201))).servedModel == nil)
        #expect(try ChatCompletionResponse.decode(Self.body(usage: "null", model: #"m\u0000x"#)).servedModel == nil)
    }

    @Test("a key with a line break is refused before anything is sent, and never printed")
    func aKeyThatCannotBeSentIsRefusedUnprinted() async throws {
        let key = "sk-test-LINEBREAK-998877\r\nX-Injected: 1"
        #expect(throws: LLMSettingError.self) { try LLMConfiguration.fromEnvironment(["OPENAI_API_KEY": key]) }
        do {
            _ = try LLMConfiguration.fromEnvironment(["OPENAI_API_KEY": key])
        } catch {
            #expect(!"\(error)".contains("998877") && "\(error)".contains("OPENAI_API_KEY"), "\(error)")
        }
        for bad in ["sk-a b-12345678", "sk-\u{7F}-12345678", "sk-é-12345678"] {
            #expect(!LLMConfiguration.isSendable(apiKey: bad))
        }
        let server = try FakeOpenAIServer()
        let error = try #require(await llmError { _ = try await makeClient(server, apiKey: key).complete(helloRequest) })
        #expect(!error.description.contains("998877"), "\(error)")
        #expect(server.requests.isEmpty, "nothing was sent")
    }
}
