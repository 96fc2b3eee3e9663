import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport
import JobsCLI

/// The commands as a user runs them: `scan` runs the pass after extraction unless `--no-assist`; `assist --all`
/// runs it alone; `assist --show --user demo` prints what the demo parent must see.
@Suite struct ProactiveCLITests {
    static func count(_ db: TestDatabase) async throws -> Int {
        try await db.pool.query("SELECT count(*) AS n FROM assistant_findings")[0].decode("n")
    }

    @Test func scanRunsThePassUnlessNoAssistAndAssistAllRunsItAlone() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let prompts = ["--prompts", RepositoryPaths.root.appendingPathComponent("prompts").path]
            let skipped = try await Reliability.cli(["scan", "--provider", "rules", "--no-assist"] + prompts, databaseURL: db.connectionURL)
            #expect(skipped.termination == .exit(0), "\(skipped.stderr)")
            #expect(!skipped.stdout.contains("Proactive pass"))
            #expect(try await Self.count(db) == 0)

            let pass = try await Reliability.cli(["assist", "--all", "--provider", "rules"], databaseURL: db.connectionURL)
            #expect(pass.termination == .exit(0), "\(pass.stderr)")
            #expect(pass.stdout.contains("Proactive pass: 8 users checked"), "\(pass.stdout)")
            let found = try await Self.count(db)
            #expect(found >= 2)

            let scan = try await Reliability.cli(["scan", "--provider", "rules"] + prompts, databaseURL: db.connectionURL)
            #expect(scan.termination == .exit(0), "\(scan.stderr)")
            #expect(scan.stdout.contains("Proactive pass:") && scan.stdout.contains("(0 new, 0 resolved)"), "\(scan.stdout)")
            #expect(try await Self.count(db) == found)

            let shown = try await Reliability.cli(["assist", "--show", "--user", "demo"], databaseURL: db.connectionURL)
            #expect(shown.termination == .exit(0), "\(shown.stderr)")
            #expect(shown.stdout.contains("What needs Maria Lopez's attention:"))
            #expect(shown.stdout.contains("overlaps") && shown.stdout.contains("Riverside Park") && shown.stdout.contains("Jump Zone"), "\(shown.stdout)")
            #expect(shown.stdout.contains("You have not answered Jenny Park's invitation"), "\(shown.stdout)")
        }
    }
}
