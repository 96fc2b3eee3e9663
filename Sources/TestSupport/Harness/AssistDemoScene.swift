import AgentRuntime
import Core
import Extractors
package import Foundation
import JobsCLI
package import JobsKit
import Postgres
package import PromptKit

/// The proactive assistant with an LLM on the demo data: a rule-based scan fills the calendar, code finds the
/// conflict and the RSVP, then a scripted model drives the real loop, client and tools over those findings.
package enum AssistDemoScene {
    /// Tuesday 2026-03-03, noon in New York: the demo's soccer game and birthday party are both on its conflict day,
    /// Saturday March 7, and the party RSVP is due tomorrow, Wednesday March 4.
    package static let now = FixedTime.tuesdayNoon
    package static let maria = DemoDataset.userIDs.maria

    package static func prompts() throws -> PromptLibrary { try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts")) }

    /// The demo, scanned by the rules (no pass): the ids of the game, the party and Maria's party RSVP.
    package static func scannedDemo(_ db: TestDatabase) async throws -> (game: String, party: String, rsvp: String) {
        _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: now))
        let rules = try ExtractionEngine(prompts: try prompts(), provider: RulesAnswerProvider())
        let scan = try await ScanService(pool: db.pool, engine: rules, options: ScanOptions()).run(now: now)
        guard scan.failed == 0 else { throw HarnessError("the rule-based scan of the demo failed \(scan.failed) conversations") }
        func id(_ sql: String) async throws -> String {
            try await db.pool.query(sql, [maria])[0].decode("id", as: UUID.self).uuidString.lowercased()
        }
        let events = "SELECT e.id FROM calendar_events e JOIN conversation_participants cp ON cp.conversation_id = e.conversation_id AND cp.user_id = $1 WHERE "
        return (try await id(events + "e.title ILIKE '%game%'"), try await id(events + "e.title ILIKE '%birthday%'"),
                try await id("SELECT id FROM rsvp_tracking WHERE user_id = $1"))
    }

    /// Three steps: look at conflicts and pending RSVPs in parallel, create a reminder, answer.
    package static func script(_ server: FakeOpenAIServer, _ ids: (game: String, party: String, rsvp: String)) {
        let findings: JSONValue = [
            "summary": "Saturday's soccer game overlaps Emma's party, and you have not answered the party RSVP.",
            "conflicts": [["description": "Both are Saturday late morning. Options: ask Alex to take Sofia to the game, or arrive at the party at 12:15.",
                           "event_ids": [.string(ids.game), .string(ids.party)], "rank": 1]],
            "pending_rsvps": [["rsvp_id": .string(ids.rsvp), "note": "Answer Jenny by tomorrow", "rank": 2]],
            "near_deadlines": [], "priority_messages": [], "suggested_actions": ["Ask Alex to take Sofia to the game"],
        ]
        server.enqueue(
            .toolCalls([(id: "call_1", name: "check_conflicts", arguments: #"{"event_id":null,"date":null,"start_time":null,"end_time":null}"#),
                        (id: "call_2", name: "get_pending_rsvps", arguments: "{}")]),
            .toolCalls([(id: "call_3", name: "create_reminder",
                         arguments: #"{"title":"Answer Emma's party RSVP","remind_at":"2026-03-05T09:00:00-05:00","priority":"high","deadline_id":null}"#)]),
            .chat(content: findings.serialized()))
    }

    package static func service(_ db: TestDatabase, _ server: FakeOpenAIServer) throws -> AssistService {
        AssistService(pool: db.pool, client: server.client(apiKey: "sk-test", retry: RetryPolicy.modelCalls()),
                      prompts: try prompts())
    }
}
