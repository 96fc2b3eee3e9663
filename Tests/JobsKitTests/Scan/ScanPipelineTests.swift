import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// The scan's pipeline (issue 15): while a worker's conversation waits on the model, the next one is already claimed
/// and read, so the model slot never waits on the database; and nothing of that changes what is written.
@Suite("Scan: reading ahead while the model works")
struct ScanPipelineTests {
    @Test("one worker claims and reads the next conversation while the model holds the first, and commits each once")
    func oneWorkerReadsAheadDuringTheModelCall() async throws {
        try await HeldScanScene.with(conversations: 3, concurrency: 1, seed: 152, owner: "pipeline-test") { scene in
            let (db, gate) = (scene.db, scene.gate)
            let service = scene.service
            let running = Task { try await service.run(now: ScanHarness.now) }

            // Claiming ahead and sending the first conversation's requests run side by side: wait for both.
            try await waitUntil(30, "a second conversation claimed while the first waits on the model") {
                guard !gate.held.isEmpty else { return false }
                return try await db.pool.query("SELECT 1 FROM scan_watermarks WHERE lease_owner = $1", ["pipeline-test"]).count == 2
            }
            let withTheModel = Set(gate.held.compactMap(ScanRequests.conversation))
            #expect(withTheModel.count == 1, "one worker sends one conversation to the model at a time: \(withTheModel)")
            #expect(try await ScanHarness.scannedConversations(db).isEmpty, "nothing is committed while the model holds the answer")

            gate.open()
            let summary = try await withTimeout(60, "the scan to finish") { try await running.value }
            #expect(summary.conversations == 3 && summary.failed == 0 && summary.interrupted == 0)
            #expect(try await ScanHarness.scannedConversations(db).count == 3)
            #expect(try await db.pool.query("SELECT 1 FROM scan_watermarks WHERE lease_owner IS NOT NULL").isEmpty)
        }
    }
}
