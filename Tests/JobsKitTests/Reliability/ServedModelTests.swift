import Foundation
import JobsKit
import TestSupport
import Testing

/// Rows record the model the server answered with (the response's `model`), not the one the request named
/// (issue 47 item 6): a proxy or an alias (`gpt-4o-mini` served as `gpt-4o-mini-2024-07-18`) is visible per row.
@Suite("Reliability: the served model")
struct ServedModelTests {
    @Test func rowsRecordTheModelThatAnswered() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 2, active: 2, newMessages: 3, seed: 347)
            try await ScanHarness.load(workload, into: db)
            let counter = Counter()
            let server = try FakeOpenAIServer { request in
                HostileNumbersWorkerTests.hostile(ScanRequests.answer(request), usage: #"{"prompt_tokens": 20, "completion_tokens": 5}"#,
                                                 sequence: 2 * counter.next("requests") + 1)
            }
            defer { server.stop() }
            let summary = try await Reliability.scan(db, try ScanHarness.engine(server)) { $0.preFilter = false }
            #expect(summary.failed == 0, "\(summary.failures)")
            let asked = Set(server.requests.compactMap { $0.json?["model"]?.stringValue })
            #expect(!asked.isEmpty && !asked.contains("hostile-model"))
            for table in ["calendar_events", "priority_messages", "deadlines"] {
                let models = try await db.pool.query("SELECT DISTINCT model FROM \(table)").map { try $0.decode("model", as: String.self) }
                #expect(models == ["hostile-model"], "\(table): \(models), asked for \(asked)")
            }
        }
    }
}
