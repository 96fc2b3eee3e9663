import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI

/// One id rule everywhere (issue 48 item 8): a unique prefix of any id, `demo` wherever a user is taken, and clear
/// errors for an unknown or ambiguous prefix, through the built binary.
@Suite("one id rule: prefixes and demo in every command")
struct IdRuleTests {
    @Test("quarantine show and release take a conversation id's first characters, like runs show")
    func quarantineTakesPrefixes() async throws {
        try await TestDatabase.with(maxConnections: 6) { db in
            let (poisoned, _) = try await QuarantineCommandTests.quarantineTwo(db)
            let ids = poisoned.map(\.postgresValue)
            let prefix = String(ids[0].prefix(8))
            let shown = try await JobsBinary.run(["quarantine", "show", prefix], db)
            #expect(shown.code == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains(ids[0]) && shown.stdout.contains("quarantined"), "\(shown.stdout)")
            let released = try await JobsBinary.json(QuarantineCommandTests.Released.self, ["quarantine", "release", prefix], db)
            #expect(released.released == [ids[0]])

            let unknown = try await JobsBinary.run(["quarantine", "show", "ffffffff"], db)
            #expect(unknown.code == 1 && unknown.stderr.contains("no conversation id starts with 'ffffffff' in conversations"), "\(unknown.stderr)")
            let malformed = try await JobsBinary.run(["quarantine", "release", "xyz"], db)
            #expect(malformed.code == 64 && malformed.stderr.contains("The value 'xyz' is invalid"), "\(malformed.stderr)")

            // A user's first characters work wherever a user is taken (the workload's users have random ids).
            let users: [UUID] = try await db.pool.query("SELECT id FROM users ORDER BY id", []).map { try $0.decode("id") }
            let user = try #require(users.first).postgresValue
            let unique = try #require((8...36).lazy.map { String(user.prefix($0)) }
                .first { prefix in prefix.last != "-" && users.filter { $0.postgresValue.hasPrefix(prefix) }.count == 1 })
            let enqueued = try await JobsBinary.run(["requests", "assist", "--user", unique], db)
            #expect(enqueued.code == 0, "\(enqueued.stderr)")
            let listed = try await JobsBinary.run(["requests", "show", enqueued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)], db)
            #expect(listed.stdout.contains(user), "\(listed.stdout)")
            let nobody = try await JobsBinary.run(["assist", "--show", "--user", "ffffffff"], db)
            #expect(nobody.code == 1 && nobody.stderr.contains("no user id starts with 'ffffffff' in users"), "\(nobody.stderr)")
        }
    }

    @Test("an ambiguous prefix is refused naming the ids it matches; requests assist and assist --show take demo and prefixes")
    func demoAndAmbiguousPrefixes() async throws {
        try await TestDatabase.with { db in
            #expect(try await JobsBinary.run(["demo", "load"], db).code == 0)
            // The demo's conversations are 00000000-de02-4000-8000-00000000000N: "00000000-de02" matches them all.
            let ambiguous = try await JobsBinary.run(["quarantine", "show", "00000000-de02"], db)
            #expect(ambiguous.code == 1, "\(ambiguous.stderr)")
            #expect(ambiguous.stderr.contains("the conversation id prefix '00000000-de02' is ambiguous: it matches 00000000-de02-4000-8000-000000000001"),
                    "\(ambiguous.stderr)")

            let demo = DemoDataset.userIDs.maria.postgresValue
            struct Enqueued: Decodable { let id: Int64; let kind: String }
            let byDemo = try await JobsBinary.json(Enqueued.self, ["requests", "assist", "--user", "demo"], db)
            #expect(byDemo.kind == "assist")
            let shown = try await JobsBinary.run(["requests", "show", String(byDemo.id)], db)
            #expect(shown.stdout.contains(demo), "the request is for the demo's parent: \(shown.stdout)")
            // The whole id finds the same pending request.
            let byID = try await JobsBinary.run(["requests", "assist", "--user", demo], db)
            #expect(byID.code == 0 && byID.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(byDemo.id), "\(byID.stderr)")

            #expect(try await JobsBinary.run(["assist", "--all", "--provider", "rules"], db).code == 0)
            let byName = try await JobsBinary.run(["assist", "--show", "--user", "demo"], db)
            let byWholeID = try await JobsBinary.run(["assist", "--show", "--user", demo], db)
            #expect(byName.code == 0 && byWholeID.code == 0, "\(byWholeID.stderr)")
            #expect(byName.stdout == byWholeID.stdout && byName.stdout.contains("attention"))
            let ambiguousUser = try await JobsBinary.run(["assist", "--show", "--user", "00000000-de01"], db)
            #expect(ambiguousUser.code == 1 && ambiguousUser.stderr.contains("the user id prefix '00000000-de01' is ambiguous"), "\(ambiguousUser.stderr)")
        }
    }
}
