import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport

@Suite("Client request body and headers")
struct ClientRequestTests {
    @Test("a minimal request sends only model and messages, with no nulls")
    func minimalBody() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "Hi"))
        _ = try await makeClient(server).complete(helloRequest)
        let body = try #require(server.requests.first?.json)
        #expect(body.objectValue?.keys.sorted() == ["messages", "model"])
        #expect(body["model"] == "gpt-test")
        #expect(body["messages"] == [["role": "system", "content": "You are terse."], ["role": "user", "content": "Hello"]])
        #expect(nullPaths(body).isEmpty)
    }

    @Test("tools, tool_choice, response_format, sampling and token fields have the Chat Completions shape")
    func fullBody() throws {
        let schema: JSONValue = ["type": "object", "properties": ["q": ["type": "string"]], "required": ["q"], "additionalProperties": false]
        let request = ChatCompletionRequest(
            model: "m",
            messages: [
                .user("find"),
                .assistant(content: nil, toolCalls: [ToolCall(id: "call_1", name: "search", arguments: "{\"q\":\"x\"}")]),
                .tool(toolCallID: "call_1", content: "{\"hits\":0}"),
            ],
            temperature: 0.25,
            seed: 7,
            maxCompletionTokens: 300,
            tools: [ToolDefinition(name: "search", description: "Search messages", parameters: schema, strict: true)],
            toolChoice: .function("search"),
            parallelToolCalls: false,
            responseFormat: .jsonSchema(name: "answer", schema: schema, strict: true)
        )
        let body = request.body(tokenField: .maxCompletionTokens)
        #expect(nullPaths(body).isEmpty)
        #expect(body["temperature"] == 0.25)
        #expect(body["seed"] == 7)
        #expect(body["max_completion_tokens"] == 300)
        #expect(body["max_tokens"] == nil)
        #expect(body["parallel_tool_calls"] == false)
        #expect(body["tools"] == [["type": "function", "function": ["name": "search", "description": "Search messages", "parameters": schema, "strict": true]]])
        #expect(body["tool_choice"] == ["type": "function", "function": ["name": "search"]])
        #expect(body["response_format"] == ["type": "json_schema", "json_schema": ["name": "answer", "schema": schema, "strict": true]])
        #expect(body["messages"]?[1] == [
            "role": "assistant",
            "tool_calls": [["id": "call_1", "type": "function", "function": ["name": "search", "arguments": "{\"q\":\"x\"}"]]],
        ])
        #expect(body["messages"]?[2] == ["role": "tool", "tool_call_id": "call_1", "content": "{\"hits\":0}"])
        let legacy = request.body(tokenField: .maxTokens)
        #expect(legacy["max_tokens"] == 300)
        #expect(legacy["max_completion_tokens"] == nil)
    }

    @Test("tool_choice string forms", arguments: [(ToolChoice.auto, "auto"), (.disabled, "none"), (.required, "required")])
    func toolChoiceForms(choice: ToolChoice, expected: String) {
        let body = ChatCompletionRequest(model: "m", messages: [.user("x")], toolChoice: choice).body()
        #expect(body["tool_choice"] == .string(expected))
    }

    @Test("the provider's max-tokens field reaches the server")
    func maxTokensFieldPerProvider() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "a"), .chat(content: "b"))
        var request = helloRequest
        request.maxCompletionTokens = 64
        _ = try await makeClient(server, maxTokensField: .maxCompletionTokens).complete(request)
        _ = try await makeClient(server, maxTokensField: .maxTokens).complete(request)
        let bodies = server.requests.compactMap(\.json)
        #expect(bodies.count == 2)
        #expect(bodies.first?["max_completion_tokens"] == 64 && bodies.first?["max_tokens"] == nil)
        #expect(bodies.last?["max_tokens"] == 64 && bodies.last?["max_completion_tokens"] == nil)
    }

    @Test("json_object providers get the schema inside response_format")
    func responseFormatPerProvider() {
        let schema: JSONValue = ["type": "object"]
        let wire: JSONValue = ["type": "object", "additionalProperties": false]
        let strict = StructuredOutputMode.jsonSchema.responseFormat(name: "events", schema: schema, wireSchema: wire)
        let loose = StructuredOutputMode.jsonObject.responseFormat(name: "events", schema: schema, wireSchema: wire)
        #expect(strict.json == ["type": "json_schema", "json_schema": ["name": "events", "schema": wire, "strict": true]])
        #expect(loose.json == ["type": "json_object", "schema": schema])
        #expect(ResponseFormat.jsonObject(schema: nil).json == ["type": "json_object"])
        #expect(ResponseFormat.text.json == ["type": "text"])
    }

    @Test("POST to {base}/chat/completions with a bearer key only when one is configured")
    func pathAndAuthorization() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "a"), .chat(content: "b"))
        _ = try await makeClient(server, apiKey: "sk-abc").complete(helloRequest)
        _ = try await makeClient(server, apiKey: nil).complete(helloRequest)
        let requests = server.requests
        #expect(requests.map(\.method) == ["POST", "POST"])
        #expect(requests.map(\.path) == ["/v1/chat/completions", "/v1/chat/completions"])
        #expect(requests.first?.header("authorization") == "Bearer sk-abc")
        #expect(requests.last?.header("authorization") == nil)
        #expect(requests.first?.header("content-type") == "application/json")
    }

    @Test("a trailing slash on the base URL is tolerated")
    func trailingSlash() throws {
        let configuration = LLMConfiguration(baseURL: try #require(URL(string: "http://localhost:8080/v1//")))
        #expect(configuration.chatCompletionsURL.absoluteString == "http://localhost:8080/v1/chat/completions")
    }

    @Test("the default model fills in; no model at all fails before any request")
    func defaultModel() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "a"))
        _ = try await makeClient(server, model: "configured-model").complete(helloRequest)
        #expect(server.requests.first?.json?["model"] == "configured-model")
        let error = await llmError { _ = try await makeClient(server, model: nil).complete(helloRequest) }
        guard case .invalidRequest(let why) = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(why.contains("OPENAI_MODEL"))
        #expect(server.requests.count == 1)
    }

    @Test("a large body arrives whole (libcurl sends Expect: 100-continue)")
    func largeBody() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "ok"))
        let big = String(repeating: "abcdefghij", count: 100_000)
        _ = try await makeClient(server).complete(ChatCompletionRequest(messages: [.user(big)]))
        #expect(server.requests.first?.json?["messages"]?[0]?["content"] == .string(big))
    }
}

@Suite("LLM configuration from the environment")
struct LLMConfigurationTests {
    @Test("no key and no base URL means no LLM")
    func nothingConfigured() throws {
        #expect(try LLMConfiguration.fromEnvironment([:]) == nil)
        #expect(try LLMConfiguration.fromEnvironment(["OPENAI_API_KEY": "  ", "OPENAI_MODEL": "gpt-x"]) == nil)
    }

    @Test("a key alone targets OpenAI with strict schemas")
    func keyOnly() throws {
        let configuration = try #require(try LLMConfiguration.fromEnvironment(["OPENAI_API_KEY": "sk-1", "OPENAI_MODEL": "gpt-x"]))
        #expect(configuration.apiKey == "sk-1")
        #expect(configuration.baseURL == LLMConfiguration.openAIBaseURL)
        #expect(configuration.defaultModel == "gpt-x")
        #expect(configuration.structuredOutput == .jsonSchema)
        #expect(configuration.maxTokensField == .maxCompletionTokens)
    }

    @Test("a local server needs only a base URL and can change provider quirks")
    func localServer() throws {
        let configuration = try #require(try LLMConfiguration.fromEnvironment([
            "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1/",
            "OPENAI_STRUCTURED_OUTPUT": "json_object",
            "OPENAI_MAX_TOKENS_FIELD": "max_tokens",
        ]))
        #expect(configuration.apiKey == nil)
        #expect(configuration.chatCompletionsURL.absoluteString == "http://127.0.0.1:8000/v1/chat/completions")
        #expect(configuration.structuredOutput == .jsonObject)
        #expect(configuration.maxTokensField == .maxTokens)
    }
}
