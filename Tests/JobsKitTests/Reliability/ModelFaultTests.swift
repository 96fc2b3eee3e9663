import AgentRuntime
import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing

/// What a model server can do wrong, injected into a real scan (ScanService, the openai provider, the real client,
/// a fake server on loopback). One conversation's deadlines request misbehaves while every other answer is good.
enum ModelFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case timeout, rateLimited, serverError, unavailable, connectionReset
    case truncatedJSON, emptyChoices, refusal, cutOffAtLength, schemaInvalid
    /// A refusal whose text carries U+0000, which Postgres cannot store in the recorded error.
    case refusalWithNUL

    var testDescription: String { rawValue }

    var reply: ScriptedReply {
        switch self {
        case .timeout: .delay(3, then: .chat(content: #"{"deadlines":[]}"#))
        case .rateLimited: .error(status: 429, message: "Rate limit reached for requests", type: "requests", headers: ["retry-after-ms": "20"])
        case .serverError: .error(status: 500, message: "The server had an error while processing your request", type: "server_error")
        case .unavailable: .status(503, body: "upstream connect error", headers: ["Content-Type": "text/plain"])
        case .connectionReset: .closeConnection
        case .truncatedJSON: .raw(Data(#"{"id":"chatcmpl-x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assis"#.utf8))
        case .emptyChoices: .emptyChoices
        case .refusal: .refusal("I'm sorry, I can't help with that.")
        case .cutOffAtLength: .chat(content: #"{"deadlines":[{"task":"Bring the permission"#, finishReason: "length")
        case .schemaInvalid: .chat(content: #"{"deadlines":[{"task":"Bring the form"}]}"#)
        case .refusalWithNUL: .refusal("I can't\u{0} help with that.")
        }
    }

    /// Worth another attempt: the client retries these, so one occurrence costs nothing.
    var isTransient: Bool { [.timeout, .rateLimited, .serverError, .unavailable, .connectionReset].contains(self) }

    /// A failure of the server, not of the conversation (a 5xx, a timeout, a reset): never counted toward quarantine.
    var isServerFailure: Bool { [.timeout, .serverError, .unavailable, .connectionReset].contains(self) }

    /// What the conversation's recorded error says when the fault persists.
    var expectedError: String {
        switch self {
        case .timeout: "timed out"
        case .rateLimited: "HTTP 429"
        case .serverError: "HTTP 500"
        case .unavailable: "HTTP 503"
        case .connectionReset: "LLM"
        case .truncatedJSON: "could not be decoded"
        case .emptyChoices: "no answer"
        case .refusal, .refusalWithNUL: "refused"
        case .cutOffAtLength: "cut off"
        case .schemaInvalid: "does not match the schema after one re-ask"
        }
    }
}

@Suite("Reliability: model server faults during a scan")
struct ModelFaultTests {
    /// Four active conversations; the second is the victim.
    static func workload() throws -> Workload { try ScanHarness.workload(conversations: 4, active: 4, newMessages: 4, seed: 41) }

    /// Good answers, except `fault` for the victim's deadlines request while `faulty` holds (`times` occurrences at most).
    static func server(victim: String, fault: ModelFault, faulty: Switch, times: Int = .max, counter: Counter) throws -> FakeOpenAIServer {
        try FakeOpenAIServer { request in
            let isTarget = Reliability.conversation(of: request) == victim && ScanRequests.feature(request) == "deadlines"
            if isTarget, faulty.isOn, counter.count("fault") < times {
                _ = counter.next("fault")
                return fault.reply
            }
            if isTarget { _ = counter.next("clean") }
            return ScanRequests.answer(request)
        }
    }

    @Test("a transient fault is retried and the scan completes every conversation", arguments: ModelFault.allCases.filter(\.isTransient))
    func transientFaultIsRetried(_ fault: ModelFault) async throws {
        try await TestDatabase.with { db in
            let workload = try Self.workload()
            try await ScanHarness.load(workload, into: db)
            let victim = workload.conversations[1]
            let counter = Counter()
            let server = try Self.server(victim: victim.name, fault: fault, faulty: Switch(true), times: 1, counter: counter)
            defer { server.stop() }

            let summary = try await Reliability.scan(db, try Reliability.engine(server, timeout: Reliability.faultTimeout))

            #expect(summary.failed == 0, "\(summary.failures)")
            #expect(summary.conversations == 4)
            #expect(counter.count("fault") == 1)
            #expect(counter.count("clean") == 1, "the faulted request was sent again once")
            #expect(try await Reliability.aiRows(db.pool, conversation: victim.id).contains { $0.hasPrefix("deadline ") })
            #expect(try await ScanHarness.scannedConversations(db) == Set(workload.conversations.map(\.id)))
        }
    }

    @Test("a persistent fault fails only its conversation: no rows, watermark kept; the next scan processes it",
          arguments: ModelFault.allCases)
    func persistentFaultFailsOneConversationCleanly(_ fault: ModelFault) async throws {
        try await TestDatabase.with { db in
            let workload = try Self.workload()
            try await ScanHarness.load(workload, into: db)
            let victim = workload.conversations[1]
            let before = try await Reliability.watermark(db.pool, victim.id)
            let faulty = Switch(true)
            let server = try Self.server(victim: victim.name, fault: fault, faulty: faulty, counter: Counter())
            defer { server.stop() }
            let engine = try Reliability.engine(server, timeout: Reliability.faultTimeout)

            let summary = try await Reliability.scan(db, engine)

            #expect(summary.conversations == 3)
            #expect(summary.failed == 1)
            let failure = try #require(summary.failures.first)
            #expect(failure.conversationID == victim.id)
            #expect(failure.error.contains(fault.expectedError), "\(failure.error)")
            // Its events and priority answers were good, but nothing of the conversation was written.
            #expect(try await Reliability.aiRows(db.pool, conversation: victim.id) == [])
            let after = try await Reliability.watermark(db.pool, victim.id)
            #expect(after.position == before.position, "the failed conversation's watermark moved: \(before) -> \(after)")
            #expect(after.failures == 1)
            #expect(after.lastError?.contains(fault.expectedError) == true)
            if fault.isServerFailure {
                // The server failing this conversation while it answered the others (issue 47): it counts toward
                // quarantine, under one signature whatever the failure was called (timeout, 5xx, reset).
                let streak = try await db.pool.query(
                    """
                    SELECT same_failures, recent_failures->0->>'signature' AS signature, jsonb_array_length(recent_failures) AS entries
                    FROM scan_watermarks WHERE conversation_id = $1
                    """, [victim.id])[0]
                #expect(try streak.decode("same_failures", as: Int.self) == 1)
                #expect(try streak.decode("entries", as: Int.self) == 1)
                #expect(try streak.decode("signature", as: String?.self) == "model server: no answer to this conversation while it answered others")
            }
            #expect(after.leaseOwner == nil)
            let others = Set(workload.conversations.map(\.id)).subtracting([victim.id])
            #expect(try await ScanHarness.scannedConversations(db) == others)
            for other in others { #expect(try await Reliability.aiRows(db.pool, conversation: other).isEmpty == false) }

            // The server recovers: the next scan picks up exactly the failed conversation.
            faulty.isOn = false
            let next = try await Reliability.scan(db, engine)
            #expect(next.failed == 0, "\(next.failures)")
            #expect(next.conversations == 1)
            let rows = try await Reliability.aiRows(db.pool, conversation: victim.id)
            #expect(rows.contains { $0.hasPrefix("event ") } && rows.contains { $0.hasPrefix("deadline ") })
            let recovered = try await Reliability.watermark(db.pool, victim.id)
            #expect(recovered.position != before.position)
            #expect(recovered.failures == 0)
        }
    }

    @Test("schema-valid answers citing messages that do not exist drop those items and nothing else")
    func hallucinatedCitationsAreDropped() async throws {
        try await TestDatabase.with { db in
            let workload = try Self.workload()
            try await ScanHarness.load(workload, into: db)
            let victim = workload.conversations[1]
            let elsewhere = try #require(workload.messages.first { $0.conversationID != victim.id })
            let server = try FakeOpenAIServer { request in
                guard ScanRequests.conversation(request) == victim.name else { return ScanRequests.answer(request) }
                switch ScanRequests.feature(request) {
                case "calendar_events":
                    // Made-up aliases, a raw id of another conversation's message, a nil UUID.
                    let events: JSONValue = ["events": .array([["m999"], [.string(elsewhere.id.uuidString.lowercased())], ["00000000-0000-0000-0000-000000000000"]].map { cited in
                        ["title": "Phantom", "date": "2026-03-10", "time": nil, "end_time": nil, "location": nil, "description": "",
                         "category": "other", "confidence": 0.9, "date_phrase": nil, "evidence": "Phantom", "source_message_ids": .array(cited)]
                    })]
                    return .chat(content: events.serialized())
                case "deadlines":
                    let deadlines: JSONValue = ["deadlines": [[
                        "task": "Phantom task", "deadline": "2026-03-12", "time": nil, "category": "other", "priority": "low",
                        "details": nil, "date_phrase": nil, "evidence": "Phantom", "source_message_ids": ["m0", "m-1", "p1"],
                    ]]]
                    return .chat(content: deadlines.serialized())
                default:
                    return ScanRequests.answer(request)
                }
            }
            defer { server.stop() }

            let summary = try await Reliability.scan(db, try Reliability.engine(server, timeout: Reliability.faultTimeout))

            #expect(summary.failed == 0, "\(summary.failures)")
            let rows = try await Reliability.aiRows(db.pool, conversation: victim.id)
            #expect(!rows.contains { $0.contains("Phantom") }, "\(rows)")
            #expect(rows.contains { $0.hasPrefix("priority ") }, "the conversation's good answers are still written")
            #expect(try await ScanHarness.scannedConversations(db).contains(victim.id))
            #expect(try await HostileChecks.rowsCitingOtherConversations(db.pool) == 0)
        }
    }
}
