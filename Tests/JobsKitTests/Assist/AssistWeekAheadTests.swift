import AgentRuntime
import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import PromptKit
import Testing
import TestSupport
import JobsCLI

/// Issue 49: the assistant on the demo's coming week, against a model that knows only what it is told. On a server
/// that cannot take the schema with tools (OPENAI_TOOLS_WITH_SCHEMA=false) the first request already tells the
/// answer's schema, so the model answers once, on the step after its tools; the week's deadlines (the library books,
/// the slips due in five days) and the urgent early dismissal are findings, ranked, and `assist --show` prints them
/// with the summary, actions and reminder.
@Suite struct AssistWeekAheadTests {
    /// Sunday 2026-03-01, noon in New York: the demo's library books and RSVP are due Wednesday March 4, the slips and
    /// fee Friday March 6 (five days ahead: beyond the old three-day window), and the early dismissal is tomorrow.
    static let now = FixedTime.tuesdayNoon.addingTimeInterval(-2 * 86_400)

    static func schema() throws -> JSONValue { try #require(try AssistDemoScene.prompts().active(id: "assistant")?.outputSchema) }

    /// A model that answers only in a shape it was told: the request's schema (its format, or the text in its system
    /// prompt) must have the assistant's fields, else it answers in a guessed shape of its own. Its first step looks at
    /// the deadlines and a chat, then it raises every finding it was given.
    static func schemaToldModel(expecting fields: Set<String>) -> @Sendable (RecordedRequest) -> ScriptedReply {
        { answer($0.json ?? .null, expecting: fields) }
    }

    /// The schema-told model's reply to one request body.
    static func answer(_ body: JSONValue, expecting fields: Set<String>) -> ScriptedReply {
        let messages = body["messages"]?.arrayValue ?? []
        if !messages.contains(where: { $0["role"] == "tool" }), body["tool_choice"] != "none" {
            return .toolCalls([(id: "call_1", name: "get_upcoming_deadlines", arguments: #"{"days":7}"#),
                               (id: "call_2", name: "get_pending_rsvps", arguments: "{}")])
        }
        guard let told = FakeAssistantAnswer.toldSchema(body), FakeAssistantAnswer.fields(of: told) == fields else {
            return .chat(content: #"{"answer": "You have a busy week: the party clash is your one real clash."}"#)
        }
        let user = messages.first { $0["role"] == "user" }?["content"]?.stringValue ?? ""
        return .chat(content: FakeAssistantAnswer.raisingEvery(findingsIn: user).serialized())
    }

    /// The demo on Sunday, scanned by the rules, with a local server's settings: no schema on tool steps.
    static func service(_ db: TestDatabase, _ server: FakeOpenAIServer) async throws -> AssistService {
        _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: now))
        let rules = try ExtractionEngine(prompts: try AssistDemoScene.prompts(), provider: RulesAnswerProvider())
        let scan = try await ScanService(pool: db.pool, engine: rules, options: ScanOptions()).run(now: now)
        #expect(scan.failed == 0)
        var service = try AssistDemoScene.service(db, server)
        service.toolsWithSchema = false
        return service
    }

    @Test func theSchemaIsToldFromTheFirstStepSoTheAnswerIsWrittenOnce() async throws {
        try await TestDatabase.with { db in
            let schema = try Self.schema()
            let server = try FakeOpenAIServer(fallback: Self.schemaToldModel(expecting: FakeAssistantAnswer.fields(of: schema)))
            defer { server.stop() }
            let summary = try await Self.service(db, server).run(userID: AssistDemoScene.maria, now: Self.now)

            #expect(summary.stopReason == .completed, "\(summary.stopReason)")
            #expect(server.requests.count == 2, "tools, then the answer: no forced answer step, no answer written twice")
            let first = try #require(server.requests.first?.json)
            #expect(first["response_format"] == nil, "tool steps carry no format on this server")
            let system = try #require(first["messages"]?[0]?["content"]?.stringValue)
            for field in ["summary", "conflicts", "event_ids", "pending_rsvps", "rsvp_id", "near_deadlines", "deadline_id",
                          "priority_messages", "message_id", "note", "rank", "suggested_actions"] {
                #expect(system.contains(field), "the system prompt names \(field)")
            }
            #expect(FakeAssistantAnswer.toldSchema(first) == schema, "the first request carries the whole schema")
            #expect(!server.requests.contains { $0.json?["tool_choice"] == "none" })
            #expect(summary.dropped.isEmpty, "\(summary.dropped)")
        }
    }

    @Test func theModelIsHonestItAnswersInItsOwnShapeWhenToldNoSchema() throws {
        let schema = try Self.schema()
        let messages: JSONValue = [["role": "system", "content": "You are an assistant."], ["role": "user", "content": "[]"],
                                   ["role": "tool", "tool_call_id": "call_1", "content": "{}"]]
        let reply = Self.answer(["messages": messages], expecting: FakeAssistantAnswer.fields(of: schema))
        guard case .chat(let content, _, _) = reply else { Issue.record("expected a text answer"); return }
        #expect(!(try JSONSchema(schema).validate(try JSONValue.parse(content))).isEmpty, "a guessed shape fails the schema")
    }

    @Test func theWeeksDeadlinesAndTheUrgentMessageAreRankedFindingsAndShowPrintsThemOnce() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer(fallback: Self.schemaToldModel(expecting: FakeAssistantAnswer.fields(of: try Self.schema())))
            defer { server.stop() }
            let summary = try await Self.service(db, server).run(userID: AssistDemoScene.maria, now: Self.now)
            #expect(summary.findings != nil, "\(summary.stopReason)")

            let rows = try await db.pool.query(
                "SELECT kind, title, suggestion, rank FROM assistant_findings WHERE user_id = $1 AND status = 'open' ORDER BY rank",
                [AssistDemoScene.maria]).map {
                (kind: try $0.decode("kind", as: String.self), text: try $0.decode("title", as: String.self) + " " + $0.decode("suggestion", as: String.self),
                 rank: try $0.decode("rank", as: Int?.self))
            }
            func has(_ kind: String, _ words: String) -> Bool { rows.contains { $0.kind == kind && $0.text.lowercased().contains(words) } }
            #expect(has("deadline", "library books"), "\(rows)")
            #expect(has("deadline", "permission slip") && has("deadline", "friday"), "due in five days: \(rows)")
            #expect(has("priority", "early dismissal") && has("priority", "urgent"), "\(rows)")
            #expect(has("conflict", "overlaps") && has("rsvp", "jenny park"), "\(rows)")
            // The slip's message asks for the slip and fee: it is raised once, as the deadline, not again as a message.
            #expect(!rows.contains { $0.kind == "priority" && $0.text.lowercased().contains("permission slip") }, "\(rows)")
            // The early dismissal is one finding, not also a deadline or a second message.
            #expect(rows.filter { $0.text.lowercased().contains("early dismissal") }.count == 1, "\(rows)")
            // The answer ranked every one of them (reminders are not its to rank), all kinds together: 1, 2, 3, ... once each.
            let ranked = rows.filter { $0.kind != "reminder" }
            #expect(ranked.map(\.rank) == (1...ranked.count).map { Optional($0) }, "\(rows)")

            // What the parent sees, from the stored rows: each finding once, in rank, then the summary and actions.
            let shown = try await Reliability.cli(["assist", "--show", "--user", "demo"], databaseURL: db.connectionURL)
            #expect(shown.termination == .exit(0), "\(shown.stderr)")
            let text = shown.stdout
            #expect(text.contains("Assistant: Here is what needs you this week."), "\(text)")
            #expect(text.contains("Suggested:\n  - Answer the open invitations"), "\(text)")
            #expect(text.components(separatedBy: "[deadline]").count - 1 == rows.filter { $0.kind == "deadline" }.count, "\(text)")
            #expect(text.components(separatedBy: "early dismissal").count - 1 == 2, "the finding and its note, once each: \(text)")
            let json = try await Reliability.cli(["assist", "--show", "--user", "demo", "--json"], databaseURL: db.connectionURL)
            let view = try JSONValue.parse(json.stdout)
            #expect(view["summary"] == "Here is what needs you this week.")
            #expect(view["findings"]?.arrayValue?.compactMap { $0["rank"]?.integerValue } == (1...ranked.count).map { Int64($0) })
            #expect(view["suggested_actions"] == ["Answer the open invitations"])
            // The run's own report prints each finding once (no separate "Conflicts" list before them).
            let report = AssistReport.text(summary)
            #expect(report.components(separatedBy: "[conflict]").count - 1 == 1 && !report.contains("Conflicts:"), "\(report)")
        }
    }
}
