import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI

/// `show --user` explains every item the app shows a parent (issue 48 item 2): each row her row level security lets
/// the app read is listed, with the messages it was read from, its date phrase and the run, prompt and model that
/// wrote it. Read through the binary after a scan of the demo.
@Suite("show --user: what the app shows a parent, and why")
struct ShowUserTests {
    @Test("every row she can read is listed with its evidence, date phrase and provenance; nothing of others'")
    func everyItemExplained() async throws {
        try await TestDatabase.with { db in
            _ = try await AssistDemoScene.scannedDemo(db)
            let maria = AssistDemoScene.maria
            let view = try await JobsBinary.json(ParentView.View.self, ["show", "--user", "demo"], db)
            #expect(view.userID == maria && view.userName == "Maria Lopez")
            let hers = try await db.pool.query("SELECT conversation_id FROM conversation_participants WHERE user_id = $1", [maria])
                .map { try $0.decode("conversation_id", as: UUID.self) }
            #expect(Set(view.conversations.map(\.id)) == Set(hers))
            // The same counts as the app's own reads (her conversations' rows; her own per-user rows).
            let expected: [String: Int] = [
                "calendar_events": try await Self.count(db, "calendar_events WHERE conversation_id = ANY($1::uuid[])", hers),
                "decisions": try await Self.count(db, "decisions WHERE conversation_id = ANY($1::uuid[])", hers),
                "priority_messages": try await Self.count(db, "priority_messages WHERE conversation_id = ANY($1::uuid[])", hers),
                "rsvp_tracking": try await Self.count(db, "rsvp_tracking WHERE user_id = $2", hers, maria),
                "deadlines": try await Self.count(db, "deadlines WHERE user_id = $2", hers, maria),
                "reminders": try await Self.count(db, "reminders WHERE user_id = $2", hers, maria),
            ]
            let shown = Dictionary(uniqueKeysWithValues: view.features.map { ($0.table, $0.items.count) })
            #expect(shown == expected)
            #expect(expected.values.reduce(0, +) >= 8, "the demo gives her items in most features")
            let run = try #require(try await db.pool.query("SELECT id FROM job_runs WHERE kind = 'scan'").first).decode("id", as: UUID.self)
            for feature in view.features where feature.table != "reminders" {
                for item in feature.items {
                    #expect(!item.sources.isEmpty && item.sources.allSatisfy { $0.text?.isEmpty == false && $0.sender != nil },
                            "\(feature.table) '\(item.text)' has no evidence")
                    #expect(item.provenance.runID == run && item.provenance.promptID != nil && item.provenance.model == "rules")
                }
            }
            let event = try #require(view.features.first { $0.table == "calendar_events" }?.items.first { $0.text.contains("birthday party") })
            let phrase = try #require(try await db.pool.query("SELECT date_phrase FROM calendar_events WHERE title ILIKE '%birthday party%'")
                .first?.decode("date_phrase", as: String?.self))
            #expect(event.datePhrase == phrase)
            #expect(event.sources.first?.text?.contains("Emma's 8th birthday party is \(phrase)") == true, "the phrase is in its evidence")

            let text = try await JobsBinary.run(["show", "--user", maria.postgresValue], db)
            #expect(text.code == 0, "\(text.stderr)")
            #expect(text.stdout.contains("date phrase: \"\(phrase)\""))
            #expect(text.stdout.contains("evidence: message ") && text.stdout.contains("provenance: run \(run.postgresValue), prompt "))

            // Maria's co-parent chat is not Dan's: refused for him, nothing shown.
            let dan = DemoDataset.userIDs.dan.postgresValue
            let refused = try await JobsBinary.run(["show", "--user", dan, "--conversation", DemoDataset.conversationIDs.coParents.postgresValue], db)
            #expect(refused.code != 0 && refused.stderr.contains("is not a participant"), "\(refused.stderr)")
            let dans = try await JobsBinary.json(ParentView.View.self, ["show", "--user", dan], db)
            #expect(!dans.conversations.map(\.id).contains(DemoDataset.conversationIDs.coParents))
            #expect(dans.features.allSatisfy { $0.items.allSatisfy { $0.conversationID != DemoDataset.conversationIDs.coParents } })
            let one = try await JobsBinary.json(ParentView.View.self, ["show", "--user", "demo", "--conversation", try #require(hers.first).postgresValue], db)
            #expect(one.features.allSatisfy { $0.items.allSatisfy { $0.conversationID == hers.first } })
        }
    }

    static func count(_ db: TestDatabase, _ from: String, _ conversations: [UUID], _ user: UUID? = nil) async throws -> Int {
        try await db.pool.query("SELECT count(*)::int AS n FROM \(from) AND cardinality($1::uuid[]) >= 0 AND ($2::uuid IS NULL OR true)", [conversations, user])[0].decode("n")
    }
}
