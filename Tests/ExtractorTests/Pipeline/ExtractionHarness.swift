import AgentRuntime
import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import PromptKit
import TestSupport
import JobsCLI

/// The demo conversations in a fresh database, a fake OpenAI server answering per feature, and the real
/// client, engine and store between them.
struct ExtractionHarness {
    /// Wednesday 2026-03-04, noon in New York: the demo's Saturday is March 7, its Thursday March 5.
    static let now = FixedTime.wednesdayNoon
    static let birthday = DemoDataset.conversationIDs.birthday

    let db: TestDatabase
    let server: FakeOpenAIServer
    let engine: ExtractionEngine

    static func prompts() throws -> PromptLibrary {
        try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
    }

    /// Runs `body` with everything set up; `answers` maps a feature name to its JSON answer (or a reply).
    static func with<T: Sendable>(
        structuredOutput: StructuredOutputMode = .jsonSchema,
        reply: @escaping @Sendable (String, RecordedRequest) -> ScriptedReply,
        _ body: (ExtractionHarness) async throws -> T
    ) async throws -> T {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: now))
            let server = try FakeOpenAIServer { request in reply(feature(of: request), request) }
            defer { server.stop() }
            let client = server.client(structuredOutput: structuredOutput)
            let provider = LLMAnswerProvider(client: client, structuredOutput: structuredOutput)
            let engine = try ExtractionEngine(prompts: try prompts(), provider: provider)
            return try await body(ExtractionHarness(db: db, server: server, engine: engine))
        }
    }

    /// Which feature a request is for: the schema name (json_schema), else the schema's root property (json_object).
    static func feature(of request: RecordedRequest) -> String {
        if let name = request.json?["response_format"]?["json_schema"]?["name"]?.stringValue { return name }
        let roots = ["events": "calendar_events", "decisions": "decisions", "messages": "priority_messages",
                     "rsvps": "rsvps", "deadlines": "deadlines"]
        let keys = request.json?["response_format"]?["schema"]?["properties"]?.objectValue?.keys ?? []
        return keys.compactMap { roots[$0] }.first ?? "?"
    }

    func extract(_ features: [ExtractionFeature] = ExtractionFeature.allCases, dryRun: Bool = false) async throws -> ExtractService.Summary {
        try await ExtractService(pool: db.pool, engine: engine)
            .run(conversationID: Self.birthday, features: features, dryRun: dryRun, now: Self.now)
    }

    func count(_ table: String) async throws -> Int {
        try await db.pool.query("SELECT count(*) AS n FROM \(table)")[0].decode("n")
    }

    /// Every AI row's id, key and update time: equal snapshots mean nothing was inserted, deleted or touched.
    func snapshot() async throws -> [String] {
        var rows: [String] = []
        for table in ["calendar_events", "decisions", "rsvp_tracking", "deadlines", "reminders"] {
            for row in try await db.pool.query("SELECT id::text || ' ' || idempotency_key || ' ' || updated_at::text AS r FROM \(table) ORDER BY 1") {
                rows.append(table + " " + (try row.decode("r", as: String.self)))
            }
        }
        for row in try await db.pool.query("SELECT message_id::text || ' ' || updated_at::text AS r FROM priority_messages ORDER BY 1") {
            rows.append("priority " + (try row.decode("r", as: String.self)))
        }
        return rows
    }
}

/// Answers for the birthday conversation. Its messages are m1 (Jenny's invitation), m2 (Priya: yes), m3 (Dan: no);
/// participants by id are p1 Maria, p2 Dan, p3 Priya, p4 Jenny.
enum BirthdayAnswers {
    static let events: JSONValue = ["events": [[
        "title": "Emma's 8th birthday party", "date": "2026-03-07", "time": "11:00", "end_time": "13:00",
        "location": "Jump Zone (45 Oak St)", "description": "Birthday party", "category": "social", "confidence": 0.9,
        "date_phrase": "Saturday, March 7 from 11am to 1pm", "evidence": "Emma's 8th birthday party is", "source_message_ids": ["m1"],
    ]]]
    static let rsvps: JSONValue = ["rsvps": [[
        "event": "Emma's 8th birthday party", "event_date": "2026-03-07", "deadline": "2026-03-05", "requested_by": "p4",
        "date_phrase": "Saturday, March 7", "deadline_phrase": "by Thursday, March 5", "evidence": "Please RSVP by",
        "source_message_ids": ["m1"],
        "responses": [
            ["participant_id": "p3", "response": "yes", "message_id": "m2"],
            ["participant_id": "p2", "response": "no", "message_id": "m3"],
        ],
    ]]]
    static let deadlines: JSONValue = ["deadlines": [[
        "task": "RSVP for Emma's party", "deadline": "2026-03-05", "time": nil, "category": "other", "priority": "medium",
        "details": nil, "date_phrase": "by Thursday, March 5", "evidence": "Please RSVP by", "source_message_ids": ["m1"],
    ]]]
    static let empty: [String: JSONValue] = ["decisions": ["decisions": []], "priority_messages": ["messages": []]]

    static func answer(_ feature: String) -> JSONValue {
        switch feature {
        case "calendar_events": events
        case "rsvps": rsvps
        case "deadlines": deadlines
        default: empty[feature] ?? [feature: []]
        }
    }

    static func reply(_ feature: String, _ request: RecordedRequest) -> ScriptedReply {
        .chat(content: answer(feature).serialized(), usage: FakeUsage(prompt: 300, completion: 40, cached: 100))
    }
}
