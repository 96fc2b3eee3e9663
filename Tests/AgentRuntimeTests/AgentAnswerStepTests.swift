import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport

/// Servers that cannot combine tools with a response format (llama.cpp), the first step's tool_choice, and the
/// bound on what a re-ask sends back.
@Suite("Agent: tool steps without a schema, the answer step, bounded re-asks")
struct AgentAnswerStepTests {
    static let schema: JSONValue = [
        "type": "object", "properties": ["summary": ["type": "string", "maxLength": 200]], "required": ["summary"],
        "additionalProperties": false,
    ]

    func runner(_ server: FakeOpenAIServer, maxSteps: Int = 5, toolsWithSchema: Bool = false,
                first: ToolChoice = .auto, named: Bool = true, tools: [any AgentTool]? = nil) throws -> AgentRunner {
        var runner = try makeRunner(server, tools: tools ?? [WeatherTool(journal: ToolJournal())], limits: AgentLimits(maxSteps: maxSteps))
        runner.toolsWithSchema = toolsWithSchema
        runner.firstToolChoice = first
        runner.namedToolChoice = named
        return runner
    }

    static func twoTools() -> [any AgentTool] {
        [WeatherTool(journal: ToolJournal()), ClosureTool(name: "get_calendar") { _ in ["events": []] }]
    }

    @Test("a named first tool goes in the spec's named form where the server takes it; later steps are auto")
    func firstToolNamed() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .chat(content: "{\"summary\": \"Sunny\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let result = await (try runner(server, first: .function("get_weather"), tools: Self.twoTools())).run(system: "s", user: "u", output: output)
        #expect(result.stopReason == .completed)
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[0].json?["tool_choice"] == ["type": "function", "function": ["name": "get_weather"]])
        #expect(requests[0].json?["tools"]?.arrayValue?.count == 2)
        #expect(requests[0].json?["parallel_tool_calls"] == false)
        #expect(requests[1].json?["tool_choice"] == "auto")
        #expect(result.toolCallCount == 1)
    }

    @Test("without the named form (llama.cpp) a named first tool is that tool alone with required; the next step offers all")
    func firstToolNamedCompatible() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .chat(content: "{\"summary\": \"Sunny\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let run = try runner(server, maxSteps: 2, first: .function("get_weather"), named: false, tools: Self.twoTools())
        let result = await run.run(system: "s", user: "u", output: output)
        #expect(result.output == ["summary": "Sunny"], "the answer on the last allowed call, in the schema")
        let requests = server.requests
        try #require(requests.count == 2, "maxSteps counts every call")
        #expect(requests[0].json?["tool_choice"] == "required")
        #expect(requests[0].json?["tools"]?.arrayValue?.compactMap { $0["function"]?["name"]?.stringValue } == ["get_weather"])
        #expect(requests[0].json?["response_format"] == nil)
        #expect(requests[0].json?["parallel_tool_calls"] == false, "one call of that tool")
        #expect(requests[1].json?["parallel_tool_calls"] == nil)
        #expect(requests[1].json?["tool_choice"] == "none")
        #expect(requests[1].json?["tools"]?.arrayValue?.count == 2)
        #expect(run.firstRequest(system: "s", user: "u", output: output).tools.map(\.name) == ["get_weather"])
    }

    @Test("a first tool that is not a tool of the run stops it before any call, naming the tools")
    func firstToolUnknown() async throws {
        let server = try FakeOpenAIServer()
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let result = await (try runner(server, first: .function("get_wether"))).run(system: "s", user: "u", output: output)
        #expect(server.requests.isEmpty)
        guard case .error(let why) = result.stopReason else {
            Issue.record("expected an error stop, got \(result.stopReason)")
            return
        }
        #expect(why.contains("get_wether") && why.contains("get_weather"))
    }

    @Test("an answer with a list over its maxItems keeps the first items instead of a re-ask")
    func answerListCut() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "{\"summary\": \"ok\", \"notes\": [\"a\", \"b\", \"c\"]}"))
        let schema: JSONValue = [
            "type": "object", "properties": ["summary": ["type": "string"], "notes": ["type": "array", "maxItems": 2, "items": ["type": "string"]]],
            "required": ["summary", "notes"], "additionalProperties": false,
        ]
        let output = try AgentOutputSchema(name: "digest", schema: schema)
        let result = await (try makeRunner(server, tools: [])).run(system: "s", user: "u", output: output)
        #expect(result.stopReason == .completed)
        #expect(result.output == ["summary": "ok", "notes": ["a", "b"]])
        #expect(server.requests.count == 1)
    }

    @Test("tool steps carry no response_format; an answer in the schema on a tool step is taken as it is")
    func toolStepsWithoutFormat() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .chat(content: "{\"summary\": \"Sunny in Oslo\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let result = await (try runner(server)).run(system: "s", user: "u", output: output)
        #expect(result.stopReason == .completed)
        #expect(result.output == ["summary": "Sunny in Oslo"])
        let requests = server.requests
        try #require(requests.count == 2)
        for request in requests {
            #expect(request.json?["response_format"] == nil)
            #expect(request.json?["tool_choice"] == "auto")
            #expect(request.json?["tools"]?.arrayValue?.count == 1)
        }
        #expect(result.toolCallCount == 1)
        // The schema the tool steps do not carry is in the system prompt from the first step, so the model knows it.
        for request in requests {
            #expect(request.messages.first?["content"] == .string(SchemaInPrompt.appending(Self.schema, to: "s")))
        }
    }

    @Test("the schema goes in the prompt only where no request of the run carries it: a strict format on every step does")
    func schemaInPromptOnlyWhereNeeded() async throws {
        for (toolsWithSchema, format, inPrompt) in [(true, ResponseFormat.jsonSchema(name: "digest", schema: Self.schema, strict: true), false),
                                                    (false, .jsonSchema(name: "digest", schema: Self.schema, strict: true), true),
                                                    (true, .jsonObject(schema: nil), true)] {
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            server.enqueue(.chat(content: "{\"summary\": \"Sunny\"}"))
            let output = try AgentOutputSchema(name: "digest", schema: Self.schema, responseFormat: format)
            let run = try runner(server, toolsWithSchema: toolsWithSchema)
            let result = await run.run(system: "s", user: "u", output: output)
            #expect(result.stopReason == .completed)
            let system = server.requests.first?.messages.first?["content"]?.stringValue
            #expect(system == (inPrompt ? SchemaInPrompt.appending(Self.schema, to: "s") : "s"), "toolsWithSchema \(toolsWithSchema), \(format)")
            #expect(run.firstRequest(system: "s", user: "u", output: output).messages.first == .system(system ?? ""),
                    "the preview sends what the run sends")
        }
    }

    @Test("prose on a tool step gets one answer step: tool_choice none and the schema")
    func proseThenAnswerStep() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .chat(content: "It is sunny in Oslo, so soccer can go ahead."),
            .chat(content: "{\"summary\": \"Soccer goes ahead\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let result = await (try runner(server)).run(system: "s", user: "u", output: output)
        #expect(result.stopReason == .completed)
        #expect(result.output == ["summary": "Soccer goes ahead"])
        let requests = server.requests
        try #require(requests.count == 3)
        #expect(requests[1].json?["response_format"] == nil)
        #expect(requests[2].json?["tool_choice"] == "none")
        #expect(requests[2].json?["response_format"]?["type"] == "json_schema")
        #expect(requests[2].json?["response_format"]?["json_schema"]?["name"] == "digest")
        #expect(requests[2].messages.last?["role"] == "user")
        #expect(result.steps.count == 3)
        #expect(result.attempts == 3)
    }

    @Test("maxSteps counts the answer step: prose on the last-but-nothing step ends the run, no extra call")
    func answerStepCountsAgainstMaxSteps() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .chat(content: "prose, not JSON"),
            .chat(content: "{\"summary\": \"never asked\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        // Two calls: the second is the last one allowed, so it is already the forced answer step with the schema.
        let result = await (try runner(server, maxSteps: 2)).run(system: "s", user: "u", output: output)
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests[1].json?["tool_choice"] == "none")
        #expect(requests[1].json?["response_format"]?["type"] == "json_schema")
        guard case .error = result.stopReason else {
            Issue.record("expected an error stop, got \(result.stopReason)")
            return
        }
    }

    @Test("with toolsWithSchema (OpenAI) every step carries the schema, as before")
    func combinedOnOpenAI() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .chat(content: "{\"summary\": \"Sunny\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let result = await (try runner(server, toolsWithSchema: true)).run(system: "s", user: "u", output: output)
        #expect(result.stopReason == .completed)
        #expect(server.requests.allSatisfy { $0.json?["response_format"]?["type"] == "json_schema" })
    }

    @Test("the first step's tool_choice can be required; later steps go back to auto")
    func firstToolChoiceRequired() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .chat(content: "{\"summary\": \"Sunny\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        _ = await (try runner(server, first: .required)).run(system: "s", user: "u", output: output)
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[0].json?["tool_choice"] == "required")
        #expect(requests[1].json?["tool_choice"] == "auto")
    }

    @Test("a re-ask sends the failed answer cut to its bound, head and tail with a note")
    func reaskIsBounded() async throws {
        let server = try FakeOpenAIServer()
        let long = "{\"summary\": 5, \"padding\": \"" + String(repeating: "x", count: 20_000) + "\"} TAIL-MARK"
        server.enqueue(.chat(content: long), .chat(content: "{\"summary\": \"fixed\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let result = await (try makeRunner(server, tools: [])).run(system: "s", user: "u", output: output)
        #expect(result.stopReason == .completed)
        let requests = server.requests
        try #require(requests.count == 2)
        let echoed = try #require(requests[1].messages.first { $0["role"] == "assistant" }?["content"]?.stringValue)
        #expect(echoed.count <= AnswerExcerpt.defaultLimit + 100)
        #expect(echoed.hasPrefix("{\"summary\": 5"))
        #expect(echoed.hasSuffix("TAIL-MARK"))
        #expect(echoed.contains("characters of this answer cut"))
        #expect(requests[1].body.count < 8_000)
    }

    @Test("AnswerExcerpt keeps short text whole and cuts long text to its limit")
    func excerptBounds() {
        #expect(AnswerExcerpt.cut("short", limit: 100) == "short")
        let cut = AnswerExcerpt.cut(String(repeating: "a", count: 600) + String(repeating: "b", count: 600), limit: 300)
        #expect(cut.hasPrefix(String(repeating: "a", count: 200)))
        #expect(cut.hasSuffix(String(repeating: "b", count: 100)))
        #expect(cut.contains("[… 900 characters of this answer cut …]"))
    }
}
