package import AgentRuntime
package import Core
package import Extractors
package import Foundation
package import JobsKit
package import Postgres
import PromptKit
import JobsCLI

/// The demo conversations in a fresh database, a fake OpenAI server with the Files and Batch endpoints, and the
/// real clients, engine and services between them.
package struct BatchHarness {
    /// Wednesday 2026-03-04, noon in New York.
    package static let now = FixedTime.wednesdayNoon
    package static let birthday = DemoDataset.conversationIDs.birthday

    package let db: TestDatabase
    package let server: FakeOpenAIServer
    package let engine: ExtractionEngine
    package let client: OpenAIBatchClient

    package static func openAPI() throws -> JSONValue {
        try JSONValue.parse(Data(contentsOf: RepositoryPaths.root.deletingLastPathComponent().appendingPathComponent("shared/openai-openapi/openapi.json")))
    }

    /// Runs `body` with the demo loaded; every chat request (synchronous or a batch line) is answered by `reply`.
    package static func with<T: Sendable>(
        lifecycle: FakeBatchEndpoints.Lifecycle = .completeAtOnce,
        reply: @escaping @Sendable (RecordedRequest) -> ScriptedReply = GenericAnswers.reply,
        _ body: (BatchHarness) async throws -> T
    ) async throws -> T {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: now))
            let server = try FakeOpenAIServer(fallback: reply)
            defer { server.stop() }
            server.batches.setLifecycle(lifecycle)
            let configuration = server.client().configuration
            let provider = LLMAnswerProvider(client: OpenAIClient(configuration: configuration), structuredOutput: .jsonSchema)
            let engine = try ExtractionEngine(prompts: try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts")),
                                              provider: provider)
            return try await body(BatchHarness(db: db, server: server, engine: engine, client: OpenAIBatchClient(configuration: configuration)))
        }
    }

    /// Submits with the harness's engine in `mode` (every caller states which path it tests).
    package func submit(limit: Int? = nil, mode: RequestMode) async throws -> BatchSubmitService.Summary {
        var options = BatchOptions()
        options.scan.limit = limit
        var engine = self.engine
        engine.mode = mode
        return try await BatchSubmitService(pool: db.pool, engine: engine, client: client, options: options).run(now: Self.now)
    }

    package func collect(_ batchID: UUID? = nil) async throws -> [BatchCollectService.Summary] {
        try await BatchCollectService(pool: db.pool, engine: engine, client: client).run(batchID: batchID, now: Self.now)
    }

    package func syncScan(mode: RequestMode) async throws -> ScanService.Summary {
        var options = ScanOptions()
        options.concurrency = 1
        var engine = self.engine
        engine.mode = mode
        return try await ScanService(pool: db.pool, engine: engine, options: options).run(now: Self.now)
    }

    /// Every AI row's content without ids, run ids and times that differ between databases, sorted.
    package func rows() async throws -> [String] {
        var rows: [String] = []
        for table in ["calendar_events", "decisions", "priority_messages", "rsvp_tracking", "deadlines", "reminders"] {
            for row in try await db.pool.query(
                "SELECT (to_jsonb(t) - ARRAY['id', 'run_id', 'created_at', 'updated_at', 'deadline_id'])::text AS r FROM \(table) t") {
                rows.append(table + " " + (try row.decode("r", as: String.self)))
            }
        }
        return rows.sorted()
    }

    /// Every AI row with its update time: equal snapshots mean nothing was inserted, deleted or touched.
    package func touched() async throws -> [String] {
        var rows: [String] = []
        for table in ["calendar_events", "decisions", "priority_messages", "rsvp_tracking", "deadlines", "reminders"] {
            for row in try await db.pool.query("SELECT (to_jsonb(t))::text AS r FROM \(table) t") {
                rows.append(table + " " + (try row.decode("r", as: String.self)))
            }
        }
        return rows.sorted()
    }

    package struct Watermark: Sendable, Equatable {
        package let lastMessageID: UUID?
        package let leaseOwner: String?
        package let leaseExpires: Date?
        package let failures: Int
    }

    package func watermarks() async throws -> [UUID: Watermark] {
        var result: [UUID: Watermark] = [:]
        for row in try await db.pool.query(
            "SELECT conversation_id, last_message_id, lease_owner, lease_expires_at, failures FROM scan_watermarks") {
            result[try row.decode("conversation_id")] = Watermark(
                lastMessageID: try row.decode("last_message_id"), leaseOwner: try row.decode("lease_owner"),
                leaseExpires: try row.decode("lease_expires_at"), failures: try row.decode("failures"))
        }
        return result
    }

    package func count(_ sql: String, _ binds: [any PostgresEncodable] = []) async throws -> Int {
        try await db.pool.query(sql, binds)[0].decode("n")
    }

    /// The uploaded batch input file's lines, parsed.
    package func uploadedLines() throws -> [JSONValue] {
        let uploads = server.batches.uploads
        guard uploads.count == 1 else { throw HarnessError("expected one uploaded batch file, found \(uploads.count)") }
        return try String(decoding: uploads[0].content, as: UTF8.self).split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    /// Which feature a chat request is for: its schema name.
    package static func feature(of request: RecordedRequest) -> String {
        request.json?["response_format"]?["json_schema"]?["name"]?.stringValue ?? "?"
    }
}

/// Valid answers for any demo conversation: each cites m1 (every window has it), so every feature writes rows. Their
/// dates (Saturday 2027-02-27, Thursday 2027-02-25) are near the end of the demo messages' date window (366 days), so
/// they are ahead of a test's fixed clock and of the real one the binary reads: nothing dated before today is written.
package enum GenericAnswers {
    /// `evidence`: words copied from the window's m1, as the extractors require; each item is named by those words too,
    /// so the field check finds it backed by the message it cites. Another feature gets the answer that finds nothing
    /// in the shape of `schema` (its schema in the request).
    package static func answer(_ feature: String, evidence: String = "m1", schema: JSONValue = [:]) -> JSONValue {
        let evidence = JSONValue.string(evidence)
        return switch feature {
        case "calendar_events":
            ["events": [["title": evidence, "date": "2027-02-27", "time": "11:00", "end_time": nil, "location": nil,
                         "description": "From the chat", "category": "social", "confidence": 0.8, "date_phrase": nil,
                         "evidence": evidence, "source_message_ids": ["m1"]]]]
        case "decisions":
            ["decisions": [["decision": evidence, "category": "schedule", "decided_by": "p1", "deadline": nil,
                            "date_phrase": nil, "evidence": evidence, "source_message_ids": ["m1"]]]]
        case "priority_messages":
            ["messages": [["message_id": "m1", "priority": "high", "reason": "Needs an answer", "action_required": true, "evidence": evidence]]]
        case "rsvps":
            ["rsvps": [["event": evidence, "event_date": "2027-02-27", "deadline": "2027-02-25", "requested_by": "p1",
                        "date_phrase": nil, "deadline_phrase": nil, "evidence": evidence, "source_message_ids": ["m1"],
                        "responses": [["participant_id": "p2", "response": "yes", "message_id": "m2"]]]]]
        case "deadlines":
            ["deadlines": [["task": evidence, "deadline": "2027-02-25", "time": nil, "category": "other", "priority": "medium",
                            "details": nil, "date_phrase": nil, "evidence": evidence, "source_message_ids": ["m1"]]]]
        case CombinedSchema.promptID:
            // One combined request: each feature the schema asks for, answered as its own request would be.
            .object(combined(schema, evidence: evidence.stringValue ?? "m1"))
        default:
            CombinedSchema.emptyAnswer(schema)
        }
    }

    package static func combined(_ schema: JSONValue, evidence: String) -> JSONObject {
        var object = JSONObject()
        for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
            object[name] = answer(name, evidence: evidence, schema: schema["properties"]?[name] ?? [:])
        }
        return object
    }

    /// The answer's JSON text for `request` (per feature, or combined).
    package static func replyContent(_ request: RecordedRequest) -> String {
        let m1 = ScanRequests.messageLines(request).first { $0["id"]?.stringValue == "m1" }?["text"]?.stringValue ?? "m1"
        let schema = request.json?["response_format"]?["json_schema"]?["schema"] ?? [:]
        return answer(BatchHarness.feature(of: request), evidence: String(m1.prefix(40)), schema: schema).serialized()
    }

    @Sendable package static func reply(_ request: RecordedRequest) -> ScriptedReply {
        .chat(content: replyContent(request), usage: FakeUsage(prompt: 200, completion: 30))
    }
}
