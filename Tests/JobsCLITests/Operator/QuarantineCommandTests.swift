import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing

/// An operator finds, reads and releases a quarantined conversation with the built binary alone (issue 38 item 2).
@Suite("quarantine: list, show, release, runs show and /metrics")
struct QuarantineCommandTests {
    struct Listed: Decodable {
        let conversation_id: String
        let quarantined: Bool
        let same_failures: Int
        let signature: String?
        let reason: String?
        let recent_failures: [Recent]
    }

    struct Recent: Decodable {
        let error: String
        let run_id: String?
        let counted: Bool
    }

    struct Released: Decodable { let released: [String] }

    /// Five conversations, two of which the model refuses (HTTP 400) for three nights: both quarantined.
    static func quarantineTwo(_ db: TestDatabase) async throws -> (poisoned: [UUID], lastRun: UUID) {
        let workload = try ScanHarness.workload(conversations: 5, active: 5, newMessages: 3, seed: 75)
        try await ScanHarness.load(workload, into: db)
        let poisoned = [workload.conversations[1], workload.conversations[3]]
        let server = try FakeOpenAIServer { request in
            poisoned.map(\.name).contains(ScanRequests.conversation(request))
                ? .error(status: 400, message: "this conversation's request is refused by the test")
                : ScanRequests.answer(request)
        }
        defer { server.stop() }
        let engine = try ScanHarness.engine(server)
        var last = try await ScanHarness.scan(db, engine)
        for _ in 0..<2 { last = try await ScanHarness.scan(db, engine) }
        #expect(Set(last.quarantined.map(\.conversationID)) == Set(poisoned.map(\.id)))
        return (poisoned.map(\.id).sorted { $0.postgresValue < $1.postgresValue }, last.runID)
    }

    @Test("list and show name the quarantined conversations and their last errors; runs show lists them; release takes one, then --all")
    func findReadRelease() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let (poisoned, runID) = try await Self.quarantineTwo(db)
            let ids = poisoned.map(\.postgresValue)

            let text = try await JobsBinary.run(["quarantine", "list"], db)
            #expect(text.code == 0, "\(text.stderr)")
            for id in ids { #expect(text.stdout.contains(id), "\(text.stdout)") }
            #expect(text.stdout.contains("2 in quarantine"))
            let listed = try await JobsBinary.json([Listed].self, ["quarantine", "list"], db)
            #expect(Set(listed.map(\.conversation_id)) == Set(ids))
            #expect(listed.allSatisfy { $0.quarantined && $0.same_failures == 3 && $0.signature == "model server: http 400" })
            #expect(listed.allSatisfy { $0.conversation_id == $0.conversation_id.lowercased() })

            let shown = try await JobsBinary.run(["quarantine", "show", ids[0]], db)
            #expect(shown.code == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("quarantined") && shown.stdout.contains("HTTP 400"))
            #expect(shown.stdout.contains("last errors (newest first)"))
            #expect(shown.stdout.contains("run \(runID.postgresValue)"), "the last error names the run: \(shown.stdout)")
            let detail = try await JobsBinary.json(Listed.self, ["quarantine", "show", ids[0]], db)
            #expect(detail.recent_failures.count == 3 && detail.recent_failures.allSatisfy { $0.counted && $0.error.contains("HTTP 400") })
            #expect(detail.recent_failures.first?.run_id == runID.postgresValue)

            let run = try await JobsBinary.run(["runs", "show", runID.postgresValue], db)
            #expect(run.code == 0, "\(run.stderr)")
            #expect(run.stdout.contains("quarantined by this run:"), "\(run.stdout)")
            for id in ids { #expect(run.stdout.contains("conversation \(id) (still quarantined)")) }

            let one = try await JobsBinary.json(Released.self, ["quarantine", "release", ids[0]], db)
            #expect(one.released == [ids[0]])
            #expect(try await JobsBinary.json([Listed].self, ["quarantine", "list"], db).map(\.conversation_id) == [ids[1]])
            let after = try await JobsBinary.run(["runs", "show", runID.postgresValue], db)
            #expect(after.stdout.contains("conversation \(ids[0]) (released since)"), "\(after.stdout)")
            // Its history stays readable.
            let released = try await JobsBinary.json(Listed.self, ["quarantine", "show", ids[0]], db)
            #expect(!released.quarantined && released.same_failures == 0 && released.recent_failures.count == 3)
            let again = try await JobsBinary.run(["quarantine", "release", ids[0]], db)
            #expect(again.code == 0 && again.stdout.contains("is not in quarantine"), "\(again.stdout)")

            let all = try await JobsBinary.run(["quarantine", "release", "--all"], db)
            #expect(all.code == 0 && all.stdout.contains("released \(ids[1])") && all.stdout.contains("1 conversation(s) released"))
            let empty = try await JobsBinary.run(["quarantine"], db)
            #expect(empty.code == 0 && empty.stdout.contains("No conversation is in quarantine."), "\(empty.stdout)")
            let state = try await db.pool.query("SELECT count(*) AS n FROM scan_watermarks WHERE quarantined_at IS NOT NULL")[0]
            #expect(try state.decode("n", as: Int.self) == 0)
        }
    }

    @Test("release refuses a missing id, both an id and --all, and an unknown conversation; show says not found")
    func badArgumentsAreRefused() async throws {
        try await TestDatabase.with { db in
            let neither = try await JobsBinary.run(["quarantine", "release"], db)
            #expect(neither.code == 64 && neither.stderr.contains("name one conversation id or pass --all"), "\(neither.stderr)")
            let unknown = UUID().postgresValue
            let both = try await JobsBinary.run(["quarantine", "release", unknown, "--all"], db)
            #expect(both.code == 64)
            let missing = try await JobsBinary.run(["quarantine", "release", unknown], db)
            #expect(missing.code != 0 && missing.stderr.contains("no conversation \(unknown)"), "\(missing.stderr)")
            let show = try await JobsBinary.run(["quarantine", "show", unknown], db)
            #expect(show.code != 0 && show.stderr.contains("no conversation \(unknown)"), "\(show.stderr)")
            let malformed = try await JobsBinary.run(["quarantine", "show", "not-an-id"], db)
            #expect(malformed.code == 64)
        }
    }

    @Test("the worker's /metrics counts quarantined conversations, and the count falls after a release")
    func metricsCountQuarantine() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let (poisoned, _) = try await Self.quarantineTwo(db)
            let port = try FreePort.find()
            let child = try JobsBinary.child(
                ["worker", "--provider", "rules", "--prompts", WorkerHarness.promptsPath, "--poll-seconds", "1", "--metrics-port", "\(port)"],
                environment: ["DATABASE_URL": db.connectionURL])
            defer { child.kill() }
            try await child.waitForStderr(containing: "serving /healthz, /readyz and /metrics on http://127.0.0.1:\(port)", timeout: 60)
            let endpoint = LoopbackEndpoint(port: port)
            try await waitUntil(30, "/metrics counts two quarantined conversations") {
                PrometheusText.value(try await endpoint.get("/metrics").text, "messageai_quarantined_conversations") == 2
            }
            let released = try await JobsBinary.run(["quarantine", "release", poisoned[0].postgresValue], db)
            #expect(released.code == 0)
            try await waitUntil(30, "/metrics counts one after the release") {
                PrometheusText.value(try await endpoint.get("/metrics").text, "messageai_quarantined_conversations") == 1
            }
        }
    }
}
