package import AgentRuntime
package import Core
package import Extractors
package import Foundation
package import JobsKit
import Postgres
import PromptKit

/// A generated workload in a fresh database and a scan wired to a fake OpenAI server through the real client.
package enum ScanHarness {
    /// Wednesday 2026-03-04, noon in New York: the end of the workload's last day.
    package static let now = FixedTime.wednesdayNoon

    package static var promptsPath: String { RepositoryPaths.root.appendingPathComponent("prompts").path }

    package static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("messageai-jobs")
    }

    /// `active` conversations get `newMessages` (about) on the last day; the others only have history.
    package static func workload(conversations: Int, active: Int, newMessages: Int = 6, seed: UInt64 = 11) throws -> Workload {
        var spec = WorkloadSpec(conversations: conversations, days: 3, seed: seed, now: now)
        spec.activeShare = Double(active) / Double(conversations)
        spec.newMessagesPerActive = newMessages
        return try WorkloadGenerator.make(spec)
    }

    package static func load(_ workload: Workload, into db: TestDatabase) async throws {
        _ = try await WorkloadLoader(pool: db.pool).load(workload)
    }

    /// `breaker` nil: the client's own breaker with the default threshold.
    package static func engine(_ server: FakeOpenAIServer, retry: RetryPolicy = FakeOpenAIServer.quickRetries(2),
                       limiter: RateLimiter? = nil, breaker: CircuitBreaker? = nil) throws -> ExtractionEngine {
        let client = server.client(retry: retry, maxConcurrency: 64, breaker: breaker)
        let limited: any ChatCompleting = limiter.map { RateLimitedClient(inner: client, limiter: $0) } ?? client
        let prompts = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        return try ExtractionEngine(prompts: prompts, provider: LLMAnswerProvider(client: limited, structuredOutput: .jsonSchema))
    }

    /// Every new message goes to the model (no pre-filter), so request contents are predictable.
    package static func options(owner: String = "test-scanner", concurrency: Int = 2, contextMessages: Int = 20) -> ScanOptions {
        var options = ScanOptions()
        options.owner = owner
        options.concurrency = concurrency
        options.contextMessages = contextMessages
        options.preFilter = false
        return options
    }

    package static func scan(_ db: TestDatabase, _ engine: ExtractionEngine, _ options: ScanOptions = options()) async throws -> ScanService.Summary {
        try await ScanService(pool: db.pool, engine: engine, options: options).run(now: now)
    }

    /// Conversation ids whose watermark a scan has moved.
    package static func scannedConversations(_ db: TestDatabase) async throws -> Set<UUID> {
        Set(try await db.pool.query("SELECT conversation_id FROM scan_watermarks WHERE run_id IS NOT NULL").map { try $0.decode("conversation_id") })
    }

    /// The AI rows and watermarks by key and content (no ids, run ids or timestamps of writing), for comparing runs.
    package static func rowSet(_ db: TestDatabase) async throws -> [String] {
        let queries = [
            "SELECT 'event ' || row(idempotency_key, conversation_id, message_id, source_message_ids, title, date, time, category, confidence)::text AS r FROM calendar_events",
            "SELECT 'priority ' || row(idempotency_key, message_id, conversation_id, priority, reason, action_required)::text AS r FROM priority_messages",
            "SELECT 'deadline ' || row(idempotency_key, item_key, conversation_id, user_id, task, deadline)::text AS r FROM deadlines",
            "SELECT 'watermark ' || row(conversation_id, last_message_at, last_message_id, failures)::text AS r FROM scan_watermarks",
        ]
        var rows: [String] = []
        for sql in queries { rows += try await db.pool.query(sql).map { try $0.decode("r", as: String.self) } }
        return rows.sorted()
    }
}

/// What the fake server is asked, read from recorded request bodies.
package enum ScanRequests {
    /// The feature: the response format's schema name.
    package static func feature(_ request: RecordedRequest) -> String {
        request.json?["response_format"]?["json_schema"]?["name"]?.stringValue ?? "?"
    }

    /// The text of the last user message (the examples come before it).
    package static func userText(_ request: RecordedRequest) -> String {
        request.json?["messages"]?.arrayValue?.last { $0["role"]?.stringValue == "user" }?["content"]?.stringValue ?? ""
    }

    /// The `Conversation:` line of the prompt (workload names are numbered, so unique).
    package static func conversation(_ request: RecordedRequest) -> String? {
        userText(request).split(separator: "\n").first { $0.hasPrefix("Conversation: ") }.map { String($0.dropFirst("Conversation: ".count)) }
    }

    /// The lines of the `<messages>` block, read back (`MessageBlock.parse`) as objects: id, sender_id, day, time, text.
    package static func messageLines(_ request: RecordedRequest) -> [JSONValue] {
        let text = userText(request)
        guard let open = text.range(of: "<messages>\n", options: .backwards),
              let close = text.range(of: "\n</messages>", range: open.upperBound..<text.endIndex) else { return [] }
        return (MessageBlock.parse(String(text[open.upperBound..<close.lowerBound])) ?? []).map {
            ["id": .string($0.alias), "sender_id": .string($0.senderAlias), "day": .string($0.day), "time": .string($0.time), "text": .string($0.text)]
        }
    }

    /// A schema-valid answer that yields rows: an event and a priority flag citing the newest message shown,
    /// a deadline citing the first; nothing for the other features. Deterministic in the request's messages. The dates
    /// are near the end of the workload messages' date window (366 days), ahead of a test's fixed clock and of the real
    /// one the binary reads: nothing dated before today is written.
    package static func answer(_ request: RecordedRequest) -> ScriptedReply {
        guard !messageLines(request).isEmpty else { return .error(status: 400, message: "no <messages> block") }
        let name = feature(request)
        let answer: JSONValue?
        if name == "combined" {
            // The combined schema's properties, each answered as that feature's request would be.
            let properties = request.json?["response_format"]?["json_schema"]?["schema"]?["properties"]?.objectValue ?? JSONObject()
            var parts = JSONObject()
            for key in properties.keys { parts[key] = featureAnswer(key, request) }
            answer = parts.keys.count == properties.keys.count ? .object(parts) : nil
        } else {
            answer = featureAnswer(name, request)
        }
        guard let answer else { return .error(status: 400, message: "unknown feature") }
        return .chat(content: answer.serialized(), usage: FakeUsage(prompt: 200, completion: 30))
    }

    /// The answer `answer(_:)` gives for one feature: for a feature it has no answer of its own for, the answer that
    /// finds nothing in the shape of the feature's schema in the request; nil without messages.
    package static func featureAnswer(_ feature: String, _ request: RecordedRequest) -> JSONValue? {
        let lines = messageLines(request)
        guard let newest = lines.last?["id"], let oldest = lines.first?["id"] else { return nil }
        let text = lines.last?["text"]?.stringValue ?? ""
        // Evidence: words copied from the cited message, as the extractors require.
        func quote(_ line: JSONValue?) -> JSONValue { .string(String((line?["text"]?.stringValue ?? "").prefix(40))) }
        switch feature {
        case "calendar_events":
            return ["events": [[
                "title": .string("About: " + text.prefix(40)), "date": "2027-02-26", "time": nil, "end_time": nil, "location": nil,
                "description": "", "category": "other", "confidence": 0.7, "date_phrase": nil, "evidence": quote(lines.last),
                "source_message_ids": [newest],
            ]]]
        case "priority_messages":
            return ["messages": [["message_id": newest, "priority": "high", "reason": .string("Newest: " + text.prefix(30)), "action_required": false,
                                    "evidence": quote(lines.last)]]]
        case "deadlines":
            return ["deadlines": [[
                "task": .string("Task: " + (lines.first?["text"]?.stringValue ?? "").prefix(30)), "deadline": "2027-02-28", "time": nil,
                "category": "other", "priority": "low", "details": nil, "date_phrase": nil, "evidence": quote(lines.first),
                "source_message_ids": [oldest],
            ]]]
        case "decisions": return ["decisions": []]
        case "rsvps": return ["rsvps": []]
        default: return CombinedSchema.emptyAnswer(schema(of: feature, request))
        }
    }

    /// An item on every feature resting on `line` alone (cited, its first 40 characters quoted and used as the item's
    /// text, so the evidence and field checks pass), each dated `date` with `phrase`: what an obedient or
    /// date-confused model answers. A priority flag needs no date.
    package static func itemsOnEveryFeature(_ request: RecordedRequest, citing line: JSONValue?, date: String, phrase: JSONValue = nil) -> ScriptedReply {
        guard let id = line?["id"] else { return .error(status: 400, message: "no <messages> block") }
        let quote = JSONValue.string(String((line?["text"]?.stringValue ?? "").prefix(40)))
        let day = JSONValue.string(date)
        let answer: JSONValue = switch feature(request) {
        case "calendar_events":
            ["events": [["title": quote, "date": day, "time": nil, "end_time": nil, "location": nil, "description": "", "category": "other",
                         "confidence": 0.8, "date_phrase": phrase, "evidence": quote, "source_message_ids": [id]]]]
        case "deadlines":
            ["deadlines": [["task": quote, "deadline": day, "time": nil, "category": "payment", "priority": "urgent", "details": nil,
                            "date_phrase": phrase, "evidence": quote, "source_message_ids": [id]]]]
        case "decisions":
            ["decisions": [["decision": quote, "category": "schedule", "decided_by": nil, "deadline": day, "date_phrase": phrase,
                            "evidence": quote, "source_message_ids": [id]]]]
        case "rsvps":
            ["rsvps": [["event": quote, "event_date": day, "deadline": day, "requested_by": nil, "date_phrase": phrase,
                        "deadline_phrase": phrase, "evidence": quote, "source_message_ids": [id], "responses": []]]]
        case "priority_messages":
            ["messages": [["message_id": id, "priority": "urgent", "reason": "asked to", "action_required": true, "evidence": quote]]]
        default:
            CombinedSchema.emptyAnswer(schema(of: feature(request), request))
        }
        return .chat(content: answer.serialized(), usage: FakeUsage(prompt: 100, completion: 30))
    }

    /// The schema `request` asks `feature` to answer in: the request's own, or its part of a combined schema.
    package static func schema(of feature: String, _ request: RecordedRequest) -> JSONValue {
        let format = request.json?["response_format"]?["json_schema"]
        if format?["name"]?.stringValue == feature { return format?["schema"] ?? [:] }
        return format?["schema"]?["properties"]?[feature] ?? [:]
    }
}

package struct ScanTestError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
