import Foundation
import JobsKit
import Postgres
import TestSupport

/// A loaded workload and a scan whose every model request is held until the test opens the gate: for watching what
/// the scan does while the model works (read ahead, shutdown, cancellation).
struct HeldScanScene {
    let db: TestDatabase
    let server: FakeOpenAIServer
    let gate: ReplyGate
    let service: ScanService
    let owner: String

    static func with(conversations: Int, concurrency: Int, seed: UInt64, owner: String,
                     _ body: (HeldScanScene) async throws -> Void) async throws {
        try await TestDatabase.with(maxConnections: 8) { db in
            let workload = try ScanHarness.workload(conversations: conversations, active: conversations, newMessages: 3, seed: seed)
            try await ScanHarness.load(workload, into: db)
            let gate = ReplyGate()
            let server = try FakeOpenAIServer { .held(gate, then: ScanRequests.answer($0)) }
            defer {
                gate.open()
                server.stop()
            }
            let options = ScanHarness.options(owner: owner, concurrency: concurrency)
            let service = ScanService(pool: db.pool, engine: try ScanHarness.engine(server), options: options)
            try await body(HeldScanScene(db: db, server: server, gate: gate, service: service, owner: owner))
        }
    }
}
