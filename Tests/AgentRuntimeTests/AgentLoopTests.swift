import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport

@Suite("Agent step loop")
struct AgentLoopTests {
    @Test("a three-step run calls two tools in parallel, feeds back both results in order, then answers")
    func threeStepRun() async throws {
        let journal = ToolJournal()
        let rendezvous: @Sendable (String) -> ClosureTool = { name in
            ClosureTool(name: name, parametersSchema: emptyObjectSchema) { _ in
                await journal.begin(name)
                // Each tool waits (bounded) for the other: only a parallel run lets both see each other.
                let sawBoth = await journal.waitUntilStarted(["alpha", "beta"])
                await journal.end()
                return ["tool": .string(name), "saw_other": .bool(sawBoth)]
            }
        }
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "call_a", name: "alpha", arguments: "{}"), (id: "call_b", name: "beta", arguments: "{}")], usage: FakeUsage(prompt: 100, completion: 10)),
            .toolCalls([(id: "call_w", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")], usage: FakeUsage(prompt: 200, completion: 20, cached: 50)),
            .chat(content: "Alpha, beta and Oslo are done.", usage: FakeUsage(prompt: 300, completion: 30))
        )
        let runner = try makeRunner(server, tools: [rendezvous("alpha"), rendezvous("beta"), WeatherTool(journal: journal)])
        let result = await runner.run(system: "You help parents.", user: "Check everything.")

        #expect(result.stopReason == .completed)
        #expect(result.finalText == "Alpha, beta and Oslo are done.")
        #expect(result.steps.count == 3)
        #expect(Set(await journal.starts) == ["alpha", "beta", "get_weather"])
        #expect(await journal.maxActive >= 2)

        let requests = server.requests
        try #require(requests.count == 3)
        #expect(requests[0].json?["tool_choice"] == "auto")
        #expect(requests[0].json?["tools"]?.arrayValue?.compactMap { $0["function"]?["name"]?.stringValue } == ["alpha", "beta", "get_weather"])
        let second = requests[1].toolResults
        #expect(second.map(\.id) == ["call_a", "call_b"])
        #expect(second.map { $0.content?["saw_other"] } == [true, true])
        #expect(second.map { $0.content?["tool"] } == ["alpha", "beta"])
        #expect(requests[1].messages[2]["tool_calls"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["call_a", "call_b"])
        #expect(requests[2].toolResults.last?.content == ["city": "Oslo", "forecast": "sunny"])
        #expect(result.messages.count == 8)  // system, user, assistant, 2 tools, assistant, tool, final assistant

        #expect(result.usage == Usage(promptTokens: 600, completionTokens: 60, totalTokens: 660, cachedPromptTokens: 50))
        #expect(result.steps.map(\.usage?.totalTokens) == [110, 220, 330])
        #expect(result.steps[0].toolCalls.map(\.status) == [.ok, .ok])
        #expect(result.steps[0].request.toolChoice == "auto")
        #expect(result.steps[2].finishReason == "stop")
    }

    @Test("reaching max steps makes the last call with tool_choice none and reports maxSteps")
    func maxSteps() async throws {
        let journal = ToolJournal()
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .toolCalls([(id: "c2", name: "get_weather", arguments: "{\"city\":\"Bergen\"}")]),
            .chat(content: "Forced answer.")
        )
        let runner = try makeRunner(server, tools: [WeatherTool(journal: journal)], limits: AgentLimits(maxSteps: 3))
        let result = await runner.run(system: "s", user: "u")
        #expect(result.stopReason == .maxSteps)
        #expect(result.finalText == "Forced answer.")
        let choices = server.requests.map { $0.json?["tool_choice"] }
        #expect(choices == ["auto", "auto", "none"])
        #expect(await journal.starts.count == 2)
    }

    @Test("tool calls on the forced last step are not run")
    func ignoredToolChoiceNone() async throws {
        let journal = ToolJournal()
        let server = try FakeOpenAIServer()
        server.enqueue(.toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]))
        let runner = try makeRunner(server, tools: [WeatherTool(journal: journal)], limits: AgentLimits(maxSteps: 1))
        let result = await runner.run(system: "s", user: "u")
        #expect(result.stopReason == .maxSteps)
        #expect(server.requests.first?.json?["tool_choice"] == "none")
        #expect(await journal.starts.isEmpty)
    }

    @Test("unknown tools, invalid JSON, schema-invalid arguments and a throwing tool become error results")
    func faultsGoBackToTheModel() async throws {
        let journal = ToolJournal()
        let exploding = ClosureTool(name: "calendar", parametersSchema: emptyObjectSchema) { _ in throw ToolExploded() }
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([
                (id: "c_unknown", name: "send_email", arguments: "{}"),
                (id: "c_json", name: "get_weather", arguments: "{city: Oslo"),
                (id: "c_schema", name: "get_weather", arguments: "{\"city\": 42}"),
                (id: "c_throw", name: "calendar", arguments: "{}"),
            ]),
            .chat(content: "Recovered.")
        )
        let runner = try makeRunner(server, tools: [WeatherTool(journal: journal), exploding])
        let result = await runner.run(system: "s", user: "u")
        #expect(result.stopReason == .completed)
        #expect(result.finalText == "Recovered.")
        #expect(await journal.starts.isEmpty)

        let results = try #require(server.requests.last).toolResults
        #expect(results.map(\.id) == ["c_unknown", "c_json", "c_schema", "c_throw"])
        let errors = results.map { $0.content?["error"]?.stringValue ?? "" }
        #expect(errors[0].contains("unknown tool 'send_email'") && errors[0].contains("calendar, get_weather"))
        #expect(errors[1].contains("not valid JSON"))
        #expect(errors[2].contains("$.city"))
        #expect(errors[3].contains("the calendar service is down"))
        #expect(errors.allSatisfy { $0.count <= 600 })
        #expect(result.steps[0].toolCalls.map(\.status) == [.unknownTool, .invalidJSON, .invalidArguments, .toolFailed])
    }

    @Test("a repeated identical call is refused once, and repeating again stops the run")
    func repeatedCall() async throws {
        let journal = ToolJournal()
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .toolCalls([(id: "c2", name: "get_weather", arguments: "{ \"city\" : \"Oslo\" }")]),
            .toolCalls([(id: "c3", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .chat(content: "never requested")
        )
        let runner = try makeRunner(server, tools: [WeatherTool(journal: journal)], limits: AgentLimits(maxSteps: 6))
        let result = await runner.run(system: "s", user: "u")
        #expect(result.stopReason == .repeatedToolCall)
        #expect(result.finalText == nil)
        #expect(await journal.starts.count == 1)
        #expect(server.requests.count == 3)
        let refusal = try #require(server.requests.last?.toolResults.last)
        #expect(refusal.id == "c2")
        #expect(refusal.content?["error"]?.stringValue?.contains("repeated call") == true)
        #expect(result.steps.map { $0.toolCalls.map(\.status) } == [[.ok], [.repeated], [.repeated]])
    }

    @Test("extra tool calls beyond the per-step limit are answered with an error, and the concurrency cap holds")
    func perStepLimitAndConcurrencyCap() async throws {
        let journal = ToolJournal()
        let slow = ClosureTool(name: "slow", parametersSchema: ["type": "object", "properties": ["n": ["type": "integer"]], "required": ["n"], "additionalProperties": false]) { arguments in
            await journal.begin("slow")
            try? await Task.sleep(for: .milliseconds(20))
            await journal.end()
            return ["n": arguments["n"] ?? nil]
        }
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls((1...4).map { (id: "c\($0)", name: "slow", arguments: "{\"n\":\($0)}") }),
            .chat(content: "ok")
        )
        let runner = try makeRunner(server, tools: [slow], limits: AgentLimits(maxToolCallsPerStep: 3, maxConcurrentToolCalls: 1))
        let result = await runner.run(system: "s", user: "u")
        #expect(result.stopReason == .completed)
        #expect(await journal.starts.count == 3)
        #expect(await journal.maxActive == 1)
        #expect(result.steps[0].toolCalls.map(\.status) == [.ok, .ok, .ok, .overLimit])
        let results = try #require(server.requests.last).toolResults
        #expect(results.map { $0.content?["n"] } == [1, 2, 3, nil])
    }

    @Test("the token budget stops the run before the next model call")
    func tokenBudget() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")], usage: FakeUsage(prompt: 40, completion: 10)), .chat(content: "never"))
        let runner = try makeRunner(server, tools: [WeatherTool(journal: ToolJournal())], limits: AgentLimits(tokenBudget: 50))
        let result = await runner.run(system: "s", user: "u")
        #expect(result.stopReason == .tokenBudget)
        #expect(server.requests.count == 1)
        #expect(result.usage.totalTokens == 50)
    }

    @Test("the wall-clock deadline cuts off a slow model call")
    func deadline() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.delay(10, then: .chat(content: "late")))
        // One second, not less: under a heavily loaded machine a 200 ms limit could pass before the request even
        // reached the server (seen once at load 14), failing the request count below for the wrong reason.
        let runner = try makeRunner(server, tools: [], limits: AgentLimits(timeLimit: .seconds(1)))
        let result = await runner.run(system: "s", user: "u")
        #expect(result.stopReason == .deadline)
        #expect(server.requests.count == 1)
        #expect(result.steps.first?.error == "deadline")
    }

    @Test("a model error ends the run with .error and keeps the trace")
    func modelError() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.error(status: 401, message: "Incorrect API key"))
        let result = await (try makeRunner(server, tools: [])).run(system: "s", user: "u")
        guard case .error(let why) = result.stopReason else {
            Issue.record("expected an error stop, got \(result.stopReason)")
            return
        }
        #expect(why.contains("401") && why.contains("Incorrect API key"))
        #expect(result.steps.count == 1)
    }

    @Test("a refusal ends the run with .refused")
    func refusal() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.refusal("I can't help with that."))
        let result = await (try makeRunner(server, tools: [])).run(system: "s", user: "u")
        #expect(result.stopReason == .refused("I can't help with that."))
        #expect(result.finalText == nil)
    }
}

@Suite("Agent structured output and traces")
struct AgentOutputTests {
    static let schema: JSONValue = [
        "type": "object", "properties": ["summary": ["type": "string"]], "required": ["summary"], "additionalProperties": false,
    ]

    @Test("an answer that breaks the output schema gets one re-ask naming the problem")
    func reaskThenValid() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "{\"summary\": 5}"), .chat(content: "{\"summary\": \"Soccer at 5\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let result = await (try makeRunner(server, tools: [])).run(system: "s", user: "u", output: output)
        #expect(result.stopReason == .completed)
        #expect(result.output == ["summary": "Soccer at 5"])
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[0].json?["response_format"] == ["type": "json_schema", "json_schema": ["name": "digest", "schema": Self.schema, "strict": true]])
        let reask = try #require(requests[1].messages.last?["content"]?.stringValue)
        #expect(requests[1].messages.last?["role"] == "user")
        #expect(reask.contains("$.summary"))
    }

    @Test("a second invalid answer ends the run with an error")
    func reaskThenStillInvalid() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "not json"), .chat(content: "{\"other\": 1}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let result = await (try makeRunner(server, tools: [])).run(system: "s", user: "u", output: output)
        guard case .error(let why) = result.stopReason else {
            Issue.record("expected an error stop, got \(result.stopReason)")
            return
        }
        #expect(why.contains("summary"))
        #expect(result.output == nil)
        #expect(server.requests.count == 2)
    }

    @Test("a schema-invalid forced final answer ends the run: no re-ask beyond maxSteps")
    func reaskNeverExceedsStepLimit() async throws {
        let journal = ToolJournal()
        let server = try FakeOpenAIServer()
        server.enqueue(
            .toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]),
            .toolCalls([(id: "c2", name: "get_weather", arguments: "{\"city\":\"Bergen\"}")]),
            .toolCalls([(id: "c3", name: "get_weather", arguments: "{\"city\":\"Tromso\"}")]),
            .toolCalls([(id: "c4", name: "get_weather", arguments: "{\"city\":\"Bodo\"}")]),
            .chat(content: "{\"summary\": 5}"),
            .chat(content: "{\"summary\": \"a sixth call\"}")
        )
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let runner = try makeRunner(server, tools: [WeatherTool(journal: journal)], limits: AgentLimits(maxSteps: 5))
        let result = await runner.run(system: "s", user: "u", output: output)
        #expect(server.requests.count == 5)
        #expect(result.steps.count == 5)
        guard case .error(let why) = result.stopReason else {
            Issue.record("expected an error stop, got \(result.stopReason)")
            return
        }
        #expect(why.contains("step limit"))
        #expect(result.output == nil)
    }

    @Test("a re-ask that fits in the step limit is made as the forced last call")
    func reaskFitsInsideLimit() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.chat(content: "{\"summary\": 5}"), .chat(content: "{\"summary\": \"ok\"}"))
        let output = try AgentOutputSchema(name: "digest", schema: Self.schema)
        let runner = try makeRunner(server, tools: [WeatherTool(journal: ToolJournal())], limits: AgentLimits(maxSteps: 2))
        let result = await runner.run(system: "s", user: "u", output: output)
        #expect(result.stopReason == .completed)
        #expect(result.output == ["summary": "ok"])
        #expect(server.requests.map { $0.json?["tool_choice"] } == ["auto", "none"])
    }

    @Test("a tool result over the byte limit is replaced by an error that asks for less")
    func oversizedToolResult() async throws {
        let huge = ClosureTool(name: "dump", parametersSchema: emptyObjectSchema) { _ in
            ["rows": .string(String(repeating: "x", count: 100_000))]
        }
        let server = try FakeOpenAIServer()
        server.enqueue(.toolCalls([(id: "c1", name: "dump", arguments: "{}")]), .chat(content: "done"))
        let runner = try makeRunner(server, tools: [huge], limits: AgentLimits(maxToolResultBytes: 4096))
        let result = await runner.run(system: "s", user: "u")
        #expect(result.stopReason == .completed)
        let sent = try #require(server.requests.last?.toolResults.first)
        let error = try #require(sent.content?["error"]?.stringValue)
        #expect(error.contains("4096-byte limit"))
        #expect((server.requests.last?.body.count ?? .max) < 10_000)
        #expect(result.steps[0].toolCalls.map(\.status) == [.resultTooLarge])
    }

    @Test("step traces encode to JSON with their tool calls")
    func traceJSON() async throws {
        let server = try FakeOpenAIServer()
        server.enqueue(.toolCalls([(id: "c1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}")]), .chat(content: "ok"))
        let result = await (try makeRunner(server, tools: [WeatherTool(journal: ToolJournal())])).run(system: "s", user: "u")
        let trace = try #require(result.steps.first)
        let json = trace.json
        #expect(json["index"] == 1)
        #expect(json["toolCalls"]?[0]?["status"] == "ok")
        #expect(json["toolCalls"]?[0]?["arguments"] == "{\"city\":\"Oslo\"}")
        #expect(json["request"]?["toolNames"] == ["get_weather"])
        let decoded = try JSONDecoder().decode(AgentStepTrace.self, from: json.serializedData())
        #expect(decoded == trace)
    }
}
