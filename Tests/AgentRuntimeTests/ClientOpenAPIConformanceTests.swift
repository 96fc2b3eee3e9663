import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport

/// Our request bodies and the fake server's responses, checked against OpenAI's own OpenAPI description
/// (`shared/openai-openapi/openapi.json` beside the package root), with the package's JSON Schema validator.
@Suite("Wire shapes match OpenAI's OpenAPI description")
struct ClientOpenAPIConformanceTests {
    struct FixtureMissing: Error, CustomStringConvertible { let description: String }

    static let openAPI: Result<JSONValue, FixtureMissing> = Result { () throws(FixtureMissing) in
        let file = RepositoryPaths.root.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("shared/openai-openapi/openapi.json")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw FixtureMissing(description: "required fixture is missing: \(file.path)")
        }
        do { return try JSONValue.parse(data) } catch { throw FixtureMissing(description: "\(file.path): \(error)") }
    }

    private func schema(_ name: String) throws -> JSONSchema {
        try JSONSchema(["$ref": .string("#/components/schemas/\(name)")], root: try Self.openAPI.get())
    }

    static let parameters: JSONValue = ["type": "object", "properties": ["day": ["type": "string"]], "required": ["day"], "additionalProperties": false]

    static let requests: [ChatCompletionRequest] = [
        ChatCompletionRequest(model: "gpt-4o-mini", messages: [.system("s"), .user("u")]),
        ChatCompletionRequest(
            model: "gpt-4o-mini",
            messages: [
                .system("s"), .user("u"),
                .assistant(content: nil, toolCalls: [ToolCall(id: "call_1", name: "calendar", arguments: "{\"day\":\"2026-04-17\"}")]),
                .tool(toolCallID: "call_1", content: "{\"events\":[]}"),
                .assistant(content: "Nothing on Friday.", toolCalls: []),
            ],
            temperature: 0, seed: 42, maxCompletionTokens: 500,
            tools: [ToolDefinition(name: "calendar", description: "Events on a day", parameters: parameters)],
            toolChoice: .function("calendar"), parallelToolCalls: true,
            responseFormat: .jsonSchema(name: "answer", schema: parameters, strict: true)
        ),
        ChatCompletionRequest(model: "m", messages: [.user("u")], tools: [ToolDefinition(name: "calendar", description: "", parameters: parameters)], toolChoice: .disabled, responseFormat: .text),
        ChatCompletionRequest(model: "m", messages: [.user("u")], tools: [ToolDefinition(name: "calendar", description: "d", parameters: parameters)], toolChoice: .required, responseFormat: .jsonObject(schema: nil)),
    ]

    @Test("request bodies validate against CreateChatCompletionRequest", arguments: requests.indices)
    func requestBodies(index: Int) throws {
        let body = Self.requests[index].body(tokenField: .maxCompletionTokens)
        let violations = try schema("CreateChatCompletionRequest").validate(body)
        #expect(violations.isEmpty, "\(violations.prefix(5))")
    }

    @Test("the check can fail: a malformed body is rejected")
    func negativeControl() throws {
        guard case .object(var body) = Self.requests[0].body() else { throw FixtureMissing(description: "body is not an object") }
        body["tool_choice"] = "sometimes"
        body["messages"] = [["role": "tool", "content": "missing tool_call_id"]]
        #expect(!(try schema("CreateChatCompletionRequest").validate(.object(body)).isEmpty))
    }

    @Test("fake server replies validate against CreateChatCompletionResponse")
    func fakeResponses() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(
            .chat(content: "hi", usage: FakeUsage(cached: 3, reasoning: 2)),
            .toolCalls([(id: "c", name: "calendar", arguments: "{}")]),
            .refusal("no")
        )
        let responseSchema = try schema("CreateChatCompletionResponse")
        var bodies: [JSONValue] = []
        for _ in 0..<3 {
            // The transport returns raw bodies; fetch them through it so the shape checked is what went over the wire.
            let request = HTTPRequest(
                url: server.baseURL.appendingPathComponent("chat/completions"),
                headers: ["Content-Type": "application/json"],
                body: helloRequest.body().serializedData(),
                timeout: .seconds(10)
            )
            let response = try await AsyncHTTPClientTransport.shared.send(request)
            bodies.append(try JSONValue.parse(response.body))
        }
        for body in bodies {
            let violations = responseSchema.validate(body)
            #expect(violations.isEmpty, "\(violations.prefix(5))")
        }
    }
}
