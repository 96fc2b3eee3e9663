import AgentRuntime
import Foundation
import Core
import JobsKit
import Postgres
import Testing
import TestSupport
import JobsCLI

/// `prompts render --prompt assistant --user`: the first request of the user's assistant run, printed without
/// calling a model or keeping anything, and byte for byte what the run then sends.
@Suite struct AssistRenderTests {
    /// `AssistDemoScene.now`, as the command takes it.
    static let at = "2026-03-03T17:00:00Z"

    static func findingCount(_ db: TestDatabase) async throws -> Int {
        try await db.pool.query("SELECT count(*) AS n FROM assistant_findings")[0].decode("n")
    }

    static func render(_ arguments: [String], _ db: TestDatabase, server: FakeOpenAIServer) async throws
        -> (termination: SpawnedProcess.Termination, stdout: String, stderr: String) {
        // A base URL and no key: the server's settings shape the request, and nothing may be sent to it.
        try await Reliability.cli(["prompts", "render"] + arguments, databaseURL: db.connectionURL, server: nil,
                                  extra: ["OPENAI_BASE_URL": server.baseURL.absoluteString])
    }

    @Test func rendersTheFirstRequestTheRunSendsAndKeepsNothing() async throws {
        try await TestDatabase.with { db in
            let ids = try await AssistDemoScene.scannedDemo(db)
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let prompts = RepositoryPaths.root.appendingPathComponent("prompts").path

            let rendered = try await Self.render(["--prompt", "assistant", "--user", "demo", "--now", Self.at, "--prompts", prompts], db, server: server)
            #expect(rendered.termination == .exit(0), "\(rendered.stderr)")
            #expect(server.requests.isEmpty, "rendering called the model")
            #expect(try await Self.findingCount(db) == 0, "the refreshed findings were rolled back")

            let body = try JSONValue.parse(rendered.stdout)
            #expect(body["model"] == "gpt-4o-mini")
            #expect(body["messages"]?[0]?["role"] == "system")
            let opening = try #require(body["messages"]?[1]?["content"]?.stringValue)
            #expect(opening.contains("I'm Maria Lopez") && opening.contains("Tuesday 2026-03-03"), "\(opening)")
            #expect(opening.contains(ids.game) && opening.contains(ids.party) && opening.contains(ids.rsvp), "code's findings cite the rows: \(opening)")
            let tools = Set(body["tools"]?.arrayValue?.compactMap { $0["function"]?["name"]?.stringValue } ?? [])
            #expect(tools.isSuperset(of: ["check_conflicts", "get_pending_rsvps", "create_reminder", "get_upcoming_deadlines"]), "\(tools)")
            #expect(body["tool_choice"] == "auto")
            // A local server gets tool steps without the schema (OPENAI_TOOLS_WITH_SCHEMA's default off OpenAI), so the
            // system prompt carries its text from the first step.
            #expect(body["response_format"] == nil)
            let system = try #require(body["messages"]?[0]?["content"]?.stringValue)
            #expect(system.contains(SchemaInPrompt.lead) && system.hasSuffix("\"additionalProperties\":false}"), "\(system.suffix(200))")

            // The run, assembled as `assist --user` assembles it, sends exactly that body first.
            let environment = ["OPENAI_BASE_URL": server.baseURL.absoluteString, "OPENAI_API_KEY": "sk-test-not-a-real-key"]
            var flags = Settings.Flags()
            flags.prompts = prompts
            let assembly = Assembly(settings: try Settings(environment: environment, flags: flags))
            let service = try #require(try assembly.assistant(pool: db.pool, .openai))
            AssistDemoScene.script(server, ids)
            let run = try await service.run(userID: AssistDemoScene.maria, now: AssistDemoScene.now)
            #expect(run.findings != nil, "\(run.stopReason)")
            let sent = try #require(server.requests.first?.json)
            #expect(sent == body, "the rendered request differs from the one the run sent")
        }
    }

    @Test func theServerSettingsAndOptionsShapeTheRequestAndBadInputIsNamed() async throws {
        try await TestDatabase.with { db in
            _ = try await AssistDemoScene.scannedDemo(db)
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let prompts = ["--prompts", RepositoryPaths.root.appendingPathComponent("prompts").path]
            let maria = ["--user", AssistDemoScene.maria.uuidString.lowercased(), "--now", Self.at]
            let user = ["--prompt", "assistant"] + maria

            let openAI = try await Reliability.cli(["prompts", "render"] + user + prompts + ["--first-tool-choice", "required"],
                                                   databaseURL: db.connectionURL, server: nil)
            #expect(openAI.termination == .exit(0), "\(openAI.stderr)")
            let body = try JSONValue.parse(openAI.stdout)
            #expect(body["tool_choice"] == "required")
            #expect(body["response_format"]?["json_schema"]?["name"] == "assistant_findings", "OpenAI takes tools with the schema")
            #expect(body["messages"]?[0]?["content"]?.stringValue?.contains(SchemaInPrompt.lead) == false, "so its prompt does not")
            #expect(body["response_format"]?["json_schema"]?["schema"]?.serialized().contains("maxItems") == false,
                    "OpenAI's wire schema is as before: the caps are checked locally")

            // A tool by name: OpenAI gets the spec's named form with every tool; a local server (which reads an object
            // as "auto") gets that tool alone with "required".
            let named = try await Reliability.cli(["prompts", "render"] + user + prompts + ["--first-tool-choice", "get_upcoming_events"],
                                                  databaseURL: db.connectionURL, server: nil)
            #expect(named.termination == .exit(0), "\(named.stderr)")
            let namedBody = try JSONValue.parse(named.stdout)
            #expect(namedBody["tool_choice"] == ["type": "function", "function": ["name": "get_upcoming_events"]])
            #expect((namedBody["tools"]?.arrayValue?.count ?? 0) > 1)
            let local = try await Self.render(user + prompts + ["--first-tool-choice", "get_upcoming_events"], db, server: server)
            #expect(local.termination == .exit(0), "\(local.stderr)")
            let localBody = try JSONValue.parse(local.stdout)
            #expect(localBody["tool_choice"] == "required")
            #expect(localBody["tools"]?.arrayValue?.compactMap { $0["function"]?["name"]?.stringValue } == ["get_upcoming_events"])
            let none = try await Self.render(user + prompts + ["--first-tool-choice", "none"], db, server: server)
            #expect(try JSONValue.parse(none.stdout)["tool_choice"] == "none", "\(none.stderr)")
            let unknown = try await Self.render(user + prompts + ["--first-tool-choice", "get_calendar"], db, server: server)
            #expect(unknown.termination == .exit(64) && unknown.stderr.contains("'get_calendar'")
                    && unknown.stderr.contains("get_upcoming_events"), "\(unknown.stderr)")
            let assistUnknown = try await Reliability.cli(["assist", "--user", "demo", "--first-tool-choice", "calendar"],
                                                          databaseURL: db.connectionURL, server: nil)
            #expect(assistUnknown.termination == .exit(64) && assistUnknown.stderr.contains("check_conflicts"), "\(assistUnknown.stderr)")

            let pinned = try await Self.render(["--prompt", "assistant@3"] + maria + prompts, db, server: server)
            let unpinned = try await Self.render(user + prompts, db, server: server)
            #expect(pinned.termination == .exit(0) && pinned.stdout == unpinned.stdout, "@3 is the pinned version: \(pinned.stderr)")
            let missing = try await Self.render(["--prompt", "assistant@9"] + maria + prompts, db, server: server)
            #expect(missing.termination != .exit(0) && missing.stderr.contains("assistant: no prompt version 9"), "\(missing.stderr)")

            let stranger = try await Self.render(["--prompt", "assistant", "--user", UUID().uuidString] + prompts, db, server: server)
            #expect(stranger.termination != .exit(0) && stranger.stderr.contains("no user with id"), "\(stranger.stderr)")
            let noUser = try await Self.render(["--prompt", "assistant"] + prompts, db, server: server)
            #expect(noUser.termination == .exit(64) && noUser.stderr.contains("--prompt assistant needs --user"), "\(noUser.stderr)")
            let badNow = try await Self.render(["--prompt", "assistant", "--user", "demo", "--now", "tomorrow"] + prompts, db, server: server)
            #expect(badNow.termination == .exit(64) && badNow.stderr.contains("--now 'tomorrow'"), "\(badNow.stderr)")
            let extractorForUser = try await Self.render(["--prompt", "calendar_events", "--user", "demo"] + prompts, db, server: server)
            #expect(extractorForUser.termination == .exit(64) && extractorForUser.stderr.contains("needs --fixture"), "\(extractorForUser.stderr)")
            #expect(server.requests.isEmpty)
            #expect(try await Self.findingCount(db) == 0)
        }
    }
}
