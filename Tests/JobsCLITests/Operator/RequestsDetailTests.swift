import Foundation
import Core
import JobsKit
import TestSupport
import Testing
import JobsCLI

/// Requests like a queue's UI (issue 38): every attempt shown, owner and time listed, short ids, no duplicate work.
@Suite("Requests: show, short ids, one pending request per piece of work")
struct RequestsDetailTests {

    @Test("the same work is enqueued once; `requests show` lists the attempt with its worker, times and result")
    func showAndUniqueKey() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let conversation = DemoDataset.conversationIDs.birthday.uuidString.lowercased()
            let first = try await JobsBinary.run(["requests", "extract", "--conversation", conversation, "--json"], db)
            let second = try await JobsBinary.run(["requests", "extract", "--conversation", conversation, "--json"], db)
            #expect(first.code == 0 && second.code == 0, "\(first.stderr) \(second.stderr)")
            let a = try JSONValue.parse(Data(first.stdout.utf8)), b = try JSONValue.parse(Data(second.stdout.utf8))
            #expect(a["id"] == b["id"] && a["created"] == .bool(true) && b["created"] == .bool(false), "\(a) \(b)")
            // The app's own INSERT of the same work is skipped too, not queued twice nor refused with an error.
            let inserted = try await db.pool.query(
                "INSERT INTO job_requests (kind, conversation_id) VALUES ('extract', $1) RETURNING id", [DemoDataset.conversationIDs.birthday])
            #expect(inserted.isEmpty)
            #expect(try await db.pool.query("SELECT count(*) AS n FROM job_requests")[0].decode("n", as: Int.self) == 1)
            let id = try #require(a["id"]?.integerValue)

            let worker = try await JobsBinary.run(["worker", "--once", "--provider", "rules"], db, timeout: 120)
            #expect(worker.code == 0, "\(worker.stderr)")
            let shown = try await JobsBinary.run(["requests", "show", "\(id)", "--json"], db)
            #expect(shown.code == 0, "\(shown.stderr)")
            let detail = try JSONValue.parse(Data(shown.stdout.utf8))
            #expect(detail["request"]?["status"] == "done")
            let attempt = try #require(detail["attempts"]?[0])
            #expect(detail["attempts"]?.arrayValue?.count == 1)
            #expect(attempt["result"] == "done" && attempt["attempt"] == .integer(1))
            #expect(attempt["owner"]?.stringValue?.isEmpty == false)
            #expect(attempt["started_at"]?.stringValue != nil && attempt["finished_at"]?.stringValue != nil)
            #expect(attempt["run_id"]?.stringValue == detail["request"]?["run_id"]?.stringValue)
            #expect((attempt["seconds"]?.doubleValue ?? -1) >= 0)
            let text = try await JobsBinary.run(["requests", "show", "\(id)"], db)
            #expect(text.stdout.contains("#1 by \(attempt["owner"]?.stringValue ?? "?")") && text.stdout.contains(": done"), "\(text.stdout)")
            let listed = try await JobsBinary.run(["requests", "list"], db)
            #expect(listed.stdout.contains("worker \(attempt["owner"]?.stringValue ?? "?")") && listed.stdout.contains("took "), "\(listed.stdout)")

            // Done: the same work may be enqueued again.
            let third = try await JobsBinary.run(["requests", "extract", "--conversation", conversation, "--json"], db)
            #expect(try JSONValue.parse(Data(third.stdout.utf8))["created"] == .bool(true))
        }
    }

    @Test("a short id prefix works where a full id does; an ambiguous one is refused, naming the matches")
    func shortIDs() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            // The demo's conversations share their first 30 characters.
            let ambiguous = try await JobsBinary.run(["requests", "extract", "--conversation", "00000000-de02"], db)
            #expect(ambiguous.code == 1)
            #expect(ambiguous.stderr.contains("ambiguous") && ambiguous.stderr.contains(DemoDataset.conversationIDs.birthday.uuidString.lowercased()),
                    "\(ambiguous.stderr)")
            let unknown = try await JobsBinary.run(["runs", "show", "abcdef12"], db)
            #expect(unknown.code == 1 && unknown.stderr.contains("no run id starts with 'abcdef12'"), "\(unknown.stderr)")
            #expect(try await JobsBinary.run(["runs", "show", "xyz"], db).code == 64, "not an id: a usage error")

            let scan = try await JobsBinary.run(["scan", "--provider", "rules", "--no-assist", "--json"], db, timeout: 120)
            let runID = try #require(try JSONValue.parse(Data(scan.stdout.utf8))["run_id"]?.stringValue, "\(scan.stderr)")
            #expect(runID == runID.lowercased(), "ids are lowercase in --json")
            let shown = try await JobsBinary.run(["runs", "show", String(runID.prefix(8))], db)
            #expect(shown.code == 0, "\(shown.stderr)")
            #expect(shown.stdout.hasPrefix(runID), "\(shown.stdout)")
        }
    }

    @Test("runs --kind offers only the kinds that are recorded")
    func runsKinds() async throws {
        try await TestDatabase.with { db in
            for kind in ["worker", "eval"] {
                let refused = try await JobsBinary.run(["runs", "--kind", kind], db)
                #expect(refused.code == 64, "\(kind): \(refused.stderr)")
                #expect(refused.stderr.contains("scan, extract, assist, batch"), "\(refused.stderr)")
            }
            #expect(try await JobsBinary.run(["runs", "--kind", "batch"], db).code == 0)
        }
    }
}
