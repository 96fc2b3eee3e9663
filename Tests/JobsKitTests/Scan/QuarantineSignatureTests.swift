import AgentRuntime
import Extractors
import Foundation
import Core
@testable import JobsKit
import Postgres
import TestSupport
import Testing
import NIOConcurrencyHelpers

/// A conversation that fails the same way night after night is quarantined whichever feature happens to fail, and an
/// outage (the model server or the database down, busy or slow) never counts against it (issue 35 item 3, issue 38
/// item 2).
@Suite("Scan: a stable failure signature")
struct QuarantineSignatureTests {
    @Test("outage errors have no signature: transport, timeout, 5xx, 429, rate limit, lost database, busy database")
    func outagesNeverCount() {
        let outages: [any Error] = [
            LLMError.transport("connection refused"), LLMError.timeout(.seconds(60)),
            LLMError.http(status: 503, message: "down", requestID: nil), LLMError.http(status: 500, message: "oops", requestID: nil),
            LLMError.http(status: 502, message: "bad gateway", requestID: nil), LLMError.http(status: 429, message: "slow down", requestID: nil),
            LLMError.http(status: 401, message: "bad key", requestID: nil),
            LLMError.retriesExhausted(attempts: 3, last: .http(status: 503, message: "down", requestID: nil)),
            LLMError.retriesExhausted(attempts: 3, last: .transport("reset")),
            RateLimitError.waitTooLong(needed: .seconds(400), limit: .seconds(300)),
            PostgresError(kind: .connection, message: "could not connect"),
            PostgresError(kind: .server, message: "too many clients", sqlState: SQLState("53300")),
            PostgresError(kind: .server, message: "out of memory", sqlState: SQLState("53200")),
            PostgresError(kind: .server, message: "terminating connection", sqlState: .adminShutdown),
            PostgresError(kind: .server, message: "statement timeout", sqlState: .queryCanceled),
            PostgresError(kind: .server, message: "lock timeout", sqlState: .lockNotAvailable),
            PostgresError(kind: .server, message: "read only", sqlState: SQLState("25006")),
            PostgresError(kind: .server, message: "i/o error", sqlState: SQLState("58030")),
            CancellationError(),
        ]
        for error in outages { #expect(FailureSignature.of(error) == nil, "\(error) counted toward quarantine") }
    }

    @Test("the conversation's own faults have one signature whatever feature failed, and say where")
    func faultsAreStableAcrossFeatures() {
        let invalid = ExtractionFeature.allCases.map { FailureSignature.of(ExtractionError.invalidOutput(feature: $0, errors: ["/x: wrong"])) }
        #expect(Set(invalid).count == 1, "\(invalid)")
        #expect(invalid.first == "model answer: invalid output")
        let truncated = ExtractionFeature.allCases.map { FailureSignature.of(ExtractionError.truncated(feature: $0, maxTokens: 100)) }
        #expect(Set(truncated) == ["model answer: truncated"])
        let refused = ExtractionFeature.allCases.map { FailureSignature.of(ExtractionError.refused(feature: $0, reason: "no \($0.rawValue)")) }
        #expect(Set(refused) == ["model answer: refused"])
        #expect(FailureSignature.of(LLMError.http(status: 400, message: "context length exceeded", requestID: "r1"))
                == FailureSignature.of(LLMError.retriesExhausted(attempts: 2, last: .http(status: 400, message: "bad \(UUID())", requestID: nil))))
        #expect(FailureSignature.of(LLMError.decoding("no choices", bodyExcerpt: "{}"))?.hasPrefix("model server") == true)
        let constraint = PostgresError(kind: .server, message: "duplicate key 42", sqlState: .uniqueViolation)
        #expect(FailureSignature.of(constraint)?.hasPrefix("database 23505") == true)
    }

    /// The model answers one feature of the poison conversation with JSON that never fits its schema (re-asked, then
    /// failed); which feature rotates night by night, as when every feature fails and a different one comes first.
    @Test("the failing feature rotates over three nights: the conversation is still quarantined on the third")
    func rotatingFeatureIsQuarantined() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let workload = try ScanHarness.workload(conversations: 3, active: 3, newMessages: 3, seed: 73)
            try await ScanHarness.load(workload, into: db)
            let poison = workload.conversations[1]
            let failing = NIOLockedValueBox("decisions")
            let server = try FakeOpenAIServer { request in
                // The re-ask carries no conversation block: it fails the same way.
                let conversation = ScanRequests.conversation(request)
                if conversation == poison.name || conversation == nil, ScanRequests.feature(request) == failing.withLockedValue({ $0 }) {
                    return .chat(content: #"{"unexpected": true}"#)
                }
                return ScanRequests.answer(request)
            }
            defer { server.stop() }
            let engine = try ScanHarness.engine(server)
            var signatures: [String?] = []
            var counts: [Int] = []
            var quarantinedOn: Int?
            for (night, feature) in ["decisions", "calendar_events", "rsvps"].enumerated() {
                failing.withLockedValue { $0 = feature }
                let summary = try await ScanHarness.scan(db, engine)
                #expect(summary.failed == 1 && summary.failures.first?.conversationID == poison.id, "\(summary.failures)")
                #expect(summary.failures.first?.error.contains(feature) == true, "night \(night + 1) fails on \(feature)")
                let row = try await db.pool.query(
                    "SELECT failure_signature, same_failures, quarantined_at FROM scan_watermarks WHERE conversation_id = $1", [poison.id])[0]
                signatures.append(try row.decode("failure_signature"))
                counts.append(try row.decode("same_failures"))
                if quarantinedOn == nil, try row.decode("quarantined_at", as: Date?.self) != nil { quarantinedOn = night + 1 }
            }
            #expect(Set(signatures) == ["model answer: invalid output"], "\(signatures)")
            #expect(counts == [1, 2, 3])
            #expect(quarantinedOn == 3)
            let recent = try #require(try await Quarantine(pool: db.pool).show(poison.id))
            #expect(recent.recent.count == 3)
            #expect(recent.recent.first?.error.contains("rsvps") == true, "newest first: \(recent.recent.map(\.error))")
        }
    }

    @Test("three nights of a 503 outage move no conversation's count: the breaker stops each scan and gives them back untouched")
    func anOutageNeverCounts() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let workload = try ScanHarness.workload(conversations: 3, active: 3, newMessages: 3, seed: 74)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { _ in .error(status: 503, message: "the model is down", type: "server_error") }
            defer { server.stop() }
            let engine = try ScanHarness.engine(server)
            for _ in 0..<3 {
                let summary = try await ScanHarness.scan(db, engine)
                #expect(summary.quarantined.isEmpty)
                // Deferred once the breaker is open (a conversation whose requests failed just before it opened fails).
                #expect(summary.outage != nil && summary.failed + summary.deferred == 3 && summary.deferred >= 1, "\(summary)")
            }
            let rows = try await db.pool.query("SELECT same_failures, failure_signature, quarantined_at, recent_failures FROM scan_watermarks")
            #expect(rows.count == 3)
            for row in rows {
                #expect(try row.decode("same_failures", as: Int.self) == 0)
                #expect(try row.decode("failure_signature", as: String?.self) == nil)
                #expect(try row.decode("quarantined_at", as: Date?.self) == nil)
            }
            // A deferred conversation is given back untouched; a failed one's history marks it as not counted.
            for conversation in workload.conversations {
                let entry = try #require(try await Quarantine(pool: db.pool).show(conversation.id))
                #expect(entry.recent.count == entry.failures && entry.recent.allSatisfy { $0.signature == nil }, "\(entry.recent)")
            }
        }
    }
}
