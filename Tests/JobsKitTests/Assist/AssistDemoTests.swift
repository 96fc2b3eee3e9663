import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import PromptKit
import Testing
import TestSupport

/// The proactive assistant with an LLM on the demo data: a rule-based scan fills the calendar, code finds the
/// conflict and the RSVP, then a scripted model drives the real loop, client and tools over those findings.
@Suite struct AssistDemoTests {
    @Test func startsFromTheCodeFindingsExplainsThemAndCreatesOneReminderOnce() async throws {
        try await TestDatabase.with { db in
            let ids = try await AssistDemoScene.scannedDemo(db)
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let service = try AssistDemoScene.service(db, server)

            AssistDemoScene.script(server, ids)
            let first = try await service.run(userID: AssistDemoScene.maria, now: AssistDemoScene.now)
            #expect(first.stopReason == .completed)
            #expect(first.steps == 3)
            #expect(first.remindersCreated == 1)
            #expect(first.dropped.isEmpty, "\(first.dropped)")
            #expect(first.findings?["conflicts"]?[0]?["event_ids"]?.arrayValue?.count == 2)

            // The model was given the code's findings, citing the two events and the RSVP.
            let opening = try #require(server.requests.first?.json?["messages"]?[1]?["content"]?.stringValue)
            #expect(opening.contains(ids.game) && opening.contains(ids.party) && opening.contains(ids.rsvp))
            #expect(opening.contains("overlaps"))

            // The answer's strings are capped by the local schema; the strict schema sent carries no maxLength.
            let format = try #require(server.requests.first?.json?["response_format"])
            #expect(format["json_schema"]?["strict"] == true)
            #expect(!format.serialized().contains("maxLength"))
            let local = try #require(try AssistDemoScene.prompts().latest(id: "assistant")?.outputSchema)
            #expect(local.serialized().contains("maxLength"))
            guard case .object(var answer) = try #require(first.findings) else { Issue.record("the answer is not an object"); return }
            #expect(try JSONSchema(local).validate(.object(answer)).isEmpty)
            answer["summary"] = .string(String(repeating: "x", count: 5_000))
            #expect(!(try JSONSchema(local).validate(.object(answer))).isEmpty)

            // The conflict tool, run for real on the scanned demo data, agrees with the code: the game and the party.
            let second = try #require(server.requests.dropFirst().first?.json?["messages"]?.arrayValue)
            let conflicts = try JSONValue.parse(try #require(second.first { $0["tool_call_id"] == "call_1" }?["content"]?.stringValue))
            #expect(conflicts["pair_count"] == 1)
            #expect(second.filter { $0["role"] == "tool" }.map { $0["tool_call_id"] } == ["call_1", "call_2"])

            // The model's words and order are on the findings' rows; its run, tokens and reminder count in assistant_runs.
            let explained = try await db.pool.query(
                "SELECT kind, rank, explanation FROM assistant_findings WHERE user_id = $1 AND explanation IS NOT NULL ORDER BY kind", [AssistDemoScene.maria])
            #expect(try explained.map { try $0.decode("kind", as: String.self) } == ["conflict", "rsvp"])
            #expect(try explained[0].decode("rank", as: Int.self) == 1)
            #expect(try explained[0].decode("explanation", as: String.self).contains("Options: ask Alex"))
            let run = try #require(try await db.pool.query(
                "SELECT reminders_created, prompt_tokens, completion_tokens, findings_in FROM assistant_runs WHERE run_id = $1", [first.runID]).first)
            #expect(try run.decode("reminders_created", as: Int.self) == 1)
            #expect(try run.decode("prompt_tokens", as: Int.self) == first.usage.promptTokens && first.usage.promptTokens > 0)
            #expect(try run.decode("findings_in", as: Int.self) >= 2)
            #expect(try await db.pool.query("SELECT count(*) AS n FROM agent_traces WHERE run_id = $1", [first.runID])[0].decode("n", as: Int.self) == 3)

            // A second, identical run creates nothing new: no reminder, no finding (but the reminder the first run
            // created, due tomorrow morning, is now itself a finding: a reminder coming due).
            let count = "SELECT count(*) AS n FROM assistant_findings WHERE kind <> 'reminder'"
            let findingRows = try await db.pool.query(count)[0].decode("n", as: Int.self)
            AssistDemoScene.script(server, ids)
            let again = try await service.run(userID: AssistDemoScene.maria, now: AssistDemoScene.now)
            #expect(again.remindersCreated == 0)
            #expect(try await db.pool.query(
                "SELECT count(*) AS n FROM reminders WHERE user_id = $1 AND origin = 'assistant'", [AssistDemoScene.maria])[0].decode("n", as: Int.self) == 1)
            #expect(try await db.pool.query(count)[0].decode("n", as: Int.self) == findingRows)
            #expect(try await db.pool.query("SELECT count(*) AS n FROM assistant_findings WHERE kind = 'reminder'")[0].decode("n", as: Int.self) == 1)
            let lastRequest = try #require(server.requests.last?.json?["messages"]?.arrayValue)
            let duplicate = try #require(lastRequest.first { $0["tool_call_id"] == "call_3" }?["content"]?.stringValue)
            #expect(try JSONValue.parse(duplicate)["created"] == false)
        }
    }

    @Test func aModelThatInventsFindingsOrIdsIsCheckedAndDropped() async throws {
        try await TestDatabase.with { db in
            let ids = try await AssistDemoScene.scannedDemo(db)
            let dentist: String = try await db.pool.query(
                "SELECT id FROM calendar_events WHERE title ILIKE '%dentist%'")[0].decode("id", as: UUID.self).uuidString.lowercased()
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let invented = UUID().uuidString.lowercased()
            let answer: JSONValue = [
                "summary": "Three conflicts this week.",
                "conflicts": [
                    // Real: the code's conflict.
                    ["description": "The game and the party overlap.", "event_ids": [.string(ids.party), .string(ids.game)], "rank": 1],
                    // Real rows the tool returned, but no conflict code found: an invented finding.
                    ["description": "The game clashes with the dentist.", "event_ids": [.string(ids.game), .string(dentist)], "rank": 2],
                    // An id no tool returned.
                    ["description": "A made-up event.", "event_ids": [.string(ids.game), .string(invented)], "rank": 3],
                ],
                "pending_rsvps": [["rsvp_id": "r1", "note": "Not an id", "rank": 4]],
                "near_deadlines": [], "priority_messages": [], "suggested_actions": [],
            ]
            server.enqueue(
                .toolCalls([(id: "call_1", name: "get_upcoming_events", arguments: #"{"days":14}"#)]),
                .chat(content: answer.serialized()))
            let summary = try await AssistDemoScene.service(db, server).run(userID: AssistDemoScene.maria, now: AssistDemoScene.now)
            #expect(summary.stopReason == .completed)
            #expect(summary.dropped.map(\.reason) == [
                "not a finding code produced", "cites a row no tool returned: \(ids.game), \(invented)", "cites a row no tool returned: r1",
            ])
            #expect(summary.findings?["conflicts"]?.arrayValue?.count == 1)
            #expect(summary.findings?["pending_rsvps"]?.arrayValue?.isEmpty == true)
            // Nothing the model invented became a finding; the dropped items are on the run's record.
            #expect(try await db.pool.query("SELECT count(*) AS n FROM assistant_findings WHERE kind = 'conflict'")[0].decode("n", as: Int.self) == 1)
            #expect(try await db.pool.query(
                "SELECT count(*) AS n FROM assistant_findings WHERE cites::text LIKE '%' || $1 || '%' OR cites::text LIKE '%' || $2 || '%'",
                [dentist, invented])[0].decode("n", as: Int.self) == 0)
            let dropped: JSONValue = try await db.pool.query("SELECT dropped FROM assistant_runs WHERE run_id = $1", [summary.runID])[0].decode("dropped")
            #expect(dropped.arrayValue?.count == 3)
            #expect(try await db.pool.query(
                "SELECT count(*) AS n FROM assistant_findings WHERE explanation ILIKE '%dentist%' OR explanation ILIKE '%made-up%'")[0].decode("n", as: Int.self) == 0)
            #expect(AssistReport.text(summary).contains("DROPPED from the answer (conflicts): not a finding code produced"))
        }
    }

    @Test func thePassWithAnLLMRunsOncePerUserWithFindingsAndRecordsTokensPerUserAndPerNight() async throws {
        try await TestDatabase.with { db in
            _ = try await AssistDemoScene.scannedDemo(db)
            // Every user's run answers at once, ranking nothing: 120 prompt and 30 completion tokens each.
            let empty: JSONValue = ["summary": "Nothing new.", "conflicts": [], "pending_rsvps": [], "near_deadlines": [], "priority_messages": [], "suggested_actions": []]
            let server = try FakeOpenAIServer(fallback: { _ in .chat(content: empty.serialized(), usage: FakeUsage(prompt: 120, completion: 30)) })
            defer { server.stop() }
            let pass = ProactivePass(pool: db.pool, assistant: try AssistDemoScene.service(db, server))
            let summary = try await pass.run(.all, now: AssistDemoScene.now)
            let withFindings = try await db.pool.query(
                "SELECT count(DISTINCT user_id) AS n FROM assistant_findings WHERE status = 'open' AND NOT dismissed")[0].decode("n", as: Int.self)
            #expect(withFindings >= 1)
            #expect(summary.narrated == withFindings)
            #expect(server.requests.count == withFindings, "users with no finding cost no tokens")
            #expect(summary.usage.promptTokens == 120 * withFindings)
            let perUser = try await db.pool.query(
                "SELECT user_id, prompt_tokens, completion_tokens FROM assistant_runs WHERE run_id = $1", [summary.runID])
            #expect(perUser.count == withFindings)
            #expect(try perUser.allSatisfy { try $0.decode("prompt_tokens", as: Int.self) == 120 && $0.decode("completion_tokens", as: Int.self) == 30 })
            let night = try #require(try await db.pool.query("SELECT kind, prompt_tokens, completion_tokens, status FROM job_runs WHERE id = $1", [summary.runID]).first)
            #expect(try night.decode("prompt_tokens", as: Int.self) == 120 * withFindings)
            #expect(try night.decode("status", as: String.self) == "succeeded")
        }
    }

    @Test func aFailingModelLeavesTheTemplateFindingsAndIsReported() async throws {
        try await TestDatabase.with { db in
            _ = try await AssistDemoScene.scannedDemo(db)
            let server = try FakeOpenAIServer(fallback: { _ in .error(status: 400, message: "model not available") })
            defer { server.stop() }
            let summary = try await ProactivePass(pool: db.pool, assistant: try AssistDemoScene.service(db, server)).run(.all, now: AssistDemoScene.now)
            #expect(summary.narrated == 0 && summary.narrationFailed > 0)
            #expect(summary.usersFailed == 0, "the code's findings were written before the model was asked")
            let conflict = try #require(try await db.pool.query(
                "SELECT status, suggestion, explanation FROM assistant_findings WHERE user_id = $1 AND kind = 'conflict'", [AssistDemoScene.maria]).first)
            #expect(try conflict.decode("status", as: String.self) == "open")
            #expect(try conflict.decode("suggestion", as: String.self).contains("overlaps"))
            #expect(try conflict.decode("explanation", as: String?.self) == nil)
            let status: String = try await db.pool.query("SELECT status FROM job_runs WHERE id = $1", [summary.runID])[0].decode("status")
            #expect(status == "partial")
        }
    }

    @Test func unknownUserIsAClearErrorAndSendsNothing() async throws {
        try await TestDatabase.with { db in
            let server = try FakeOpenAIServer()
            defer { server.stop() }
            let service = AssistService(pool: db.pool, client: server.client(apiKey: nil, retry: RetryPolicy.modelCalls()),
                                        prompts: try AssistDemoScene.prompts())
            let missing = UUID()
            let error = await #expect(throws: JobsError.self) { try await service.run(userID: missing, now: AssistDemoScene.now) }
            #expect(error?.code == .notFound)
            #expect(error?.description == "no user with id \(missing.uuidString.lowercased())")
            #expect(server.requests.isEmpty)
        }
    }
}
