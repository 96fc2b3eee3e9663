import AgentRuntime
import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import Testing
import TestSupport
import NIOConcurrencyHelpers

@Suite struct ExtractPipelineTests {
    @Test func scriptedAnswersBecomeRowsAndARerunChangesNothing() async throws {
        try await ExtractionHarness.with(reply: BirthdayAnswers.reply) { h in
            let first = try await h.extract()
            #expect(first.items == ["calendar_events": 1, "decisions": 0, "priority_messages": 0, "rsvps": 1, "deadlines": 1])
            #expect(first.requests == 5)  // one per feature for the conversation, not one per user
            #expect(first.usage.promptTokens == 1500 && first.usage.cachedPromptTokens == 500)

            let event = try await h.db.pool.query(
                "SELECT title, date, time, end_time, starts_at, location, category, conversation_id FROM calendar_events")[0]
            #expect(try event.decode("date", as: LocalDate.self).iso == "2026-03-07")
            #expect(try event.decode("time", as: LocalTime.self).iso == "11:00")
            #expect(try event.decode("end_time", as: LocalTime.self).iso == "13:00")
            #expect(try event.decode("starts_at", as: Date.self) == ISO8601Instant.parse("2026-03-07T16:00:00Z"))
            #expect(try event.decode("conversation_id", as: UUID.self) == ExtractionHarness.birthday)

            // Everyone but Jenny (who asked) owes an answer; status comes from who answered.
            let rsvps = try await h.db.pool.query(
                "SELECT u.username, r.status, r.response FROM rsvp_tracking r JOIN users u ON u.id = r.user_id ORDER BY 1")
            let statuses = try rsvps.map { "\(try $0.decode("username", as: String.self)):\(try $0.decode("status", as: String.self)):\(try $0.decode("response", as: String?.self) ?? "-")" }
            #expect(statuses == ["dan:responded:no", "maria:pending:-", "priya:responded:yes"])

            // Deadlines for the three parents (not the announcer), each with a reminder the evening before at 18:00 local,
            // titled and marked the way the PRD's Edge Function wrote them.
            #expect(try await h.count("deadlines") == 3)
            let reminders = try await h.db.pool.query("SELECT DISTINCT reminder_time, title, created_by, origin FROM reminders")
            #expect(reminders.count == 1)
            #expect(try reminders[0].decode("reminder_time", as: Date.self) == ISO8601Instant.parse("2026-03-04T18:00:00-05:00"))
            #expect(try reminders[0].decode("title", as: String.self).hasPrefix("Reminder: "))
            #expect(try reminders[0].decode("created_by", as: String.self) == "ai")
            #expect(try reminders[0].decode("origin", as: String.self) == "extractor")
            #expect(first.written?.remindersCreated == 3)

            let provenance = try await h.db.pool.query("SELECT DISTINCT prompt_id, prompt_version, model, run_id FROM deadlines")
            #expect(provenance.count == 1)
            #expect(try provenance[0].decode("run_id", as: UUID.self) == first.runID)

            let before = try await h.snapshot()
            let second = try await h.extract()
            #expect(try await h.snapshot() == before)
            #expect(second.written?.inserted.isEmpty == true)
            #expect(second.written?.updated.isEmpty == true)
            #expect(second.written?.remindersCreated == 0)
            let runs = try await h.db.pool.query("SELECT count(*) AS n FROM job_runs WHERE status = 'succeeded' AND kind = 'extract'")
            #expect(try runs[0].decode("n", as: Int.self) == 2)
        }
    }

    @Test func invalidAnswerIsReaskedOnceThenFailsWithItsPathAndNothingChanges() async throws {
        let broken: JSONValue = ["deadlines": [["task": "Pay", "deadline": "next Friday", "time": nil, "category": "payment",
                                                "priority": "high", "details": nil, "date_phrase": nil, "source_message_ids": ["m1"]]]]
        try await ExtractionHarness.with(reply: { feature, request in
            feature == "deadlines" ? .chat(content: broken.serialized()) : BirthdayAnswers.reply(feature, request)
        }) { h in
            let error = await #expect(throws: ExtractionError.self) { try await h.extract() }
            #expect(error?.description.contains("$.deadlines[0].deadline") == true)
            let deadlineRequests = h.server.requests.filter { ExtractionHarness.feature(of: $0) == "deadlines" }
            #expect(deadlineRequests.count == 2)
            // The re-ask carries only the last answer and its errors: two messages more than the first request.
            let firstCount = deadlineRequests[0].json?["messages"]?.arrayValue?.count ?? 0
            let retry = try #require(deadlineRequests[1].json?["messages"]?.arrayValue)
            #expect(retry.count == firstCount + 2)
            #expect(retry[firstCount]["role"] == "assistant" && retry[firstCount]["content"] == .string(broken.serialized()))
            #expect(retry[firstCount + 1]["content"]?.stringValue?.contains("$.deadlines[0].deadline") == true)
            // Nothing was written for any feature, and the run is recorded as failed.
            #expect(try await h.snapshot().isEmpty)
            let status = try await h.db.pool.query("SELECT status, error, requests FROM job_runs")[0]
            #expect(try status.decode("status", as: String.self) == "failed")
            // The requests it spent are recorded although the run failed: at least the two for deadlines.
            #expect(try status.decode("requests", as: Int.self) >= 2)
        }
    }

    /// Issue 14 item 4: a hostile server's over-long field fails validation (after the one re-ask) instead of being
    /// stored; the caps are enforced locally and never sent in the strict-mode schema.
    @Test func anOverLongFieldIsRejectedAndTheCapsStayLocal() async throws {
        var huge = BirthdayAnswers.events
        if case .object(var root) = huge, case .array(var items)? = root["events"], case .object(var item) = items[0] {
            item["title"] = .string(String(repeating: "A", count: 100_000))
            items[0] = .object(item)
            root["events"] = .array(items)
            huge = .object(root)
        }
        let answer = huge
        try await ExtractionHarness.with(reply: { feature, request in
            feature == "calendar_events" ? .chat(content: answer.serialized()) : BirthdayAnswers.reply(feature, request)
        }) { h in
            let error = await #expect(throws: ExtractionError.self) { try await h.extract([.calendarEvents]) }
            #expect(error?.description.contains("$.events[0].title: expected at most 200 character(s)") == true, "\(String(describing: error))")
            #expect(try await h.count("calendar_events") == 0)
            let sent = try #require(h.server.requests.first?.json?["response_format"]?["json_schema"]?["schema"])
            #expect(!sent.serialized().contains("maxLength"))
            #expect(sent["properties"]?["events"]?["items"]?["properties"]?["evidence"] != nil)
            // The re-ask sends the 100,000-character answer cut to its bound, head and tail, with a note of the cut.
            let requests = h.server.requests
            try #require(requests.count == 2)
            let echoed = try #require(requests[1].json?["messages"]?.arrayValue?.last { $0["role"] == "assistant" }?["content"]?.stringValue)
            #expect(echoed.count <= AnswerExcerpt.defaultLimit + 100)
            #expect(echoed.contains("characters of this answer cut"))
            #expect(requests[1].body.count < requests[0].body.count + 6_000)
            // The failed run records both requests and their tokens.
            let run = try await h.db.pool.query("SELECT status, requests, prompt_tokens FROM job_runs WHERE kind = 'extract'")[0]
            #expect(try run.decode("status", as: String.self) == "failed")
            #expect(try run.decode("requests", as: Int.self) == 2)
            #expect(try run.decode("prompt_tokens", as: Int.self) > 0)
        }
    }

    /// Evidence that is in another message moves the citation there; evidence that is nowhere drops the item.
    @Test func evidenceIsCheckedAgainstTheCitedMessage() async throws {
        let answer: JSONValue = ["decisions": [
            ["decision": "Aanya comes", "category": "other", "decided_by": nil, "deadline": nil, "date_phrase": nil,
             "evidence": "Aanya will be there", "source_message_ids": ["m1"]],
            ["decision": "Invented", "category": "other", "decided_by": nil, "deadline": nil, "date_phrase": nil,
             "evidence": "nobody said this", "source_message_ids": ["m1"]],
            // Case, runs of whitespace, curly quotes and surrounding quotes do not matter.
            ["decision": "Party at Jump Zone", "category": "food", "decided_by": nil, "deadline": nil, "date_phrase": nil,
             "evidence": "\u{201C}YOU\u{2019}RE   invited!\n emma\u{2019}s 8th\u{201D}", "source_message_ids": ["m1"]],
        ]]
        try await ExtractionHarness.with(reply: { feature, request in
            feature == "decisions" ? .chat(content: answer.serialized()) : BirthdayAnswers.reply(feature, request)
        }) { h in
            let summary = try await h.extract([.decisions])
            #expect(summary.items["decisions"] == 2)
            #expect(summary.notes.contains { $0.contains("recited") && $0.contains("m2") })
            #expect(summary.notes.contains { $0.contains("no_evidence") && $0.contains("Invented") })
        }
    }

    @Test func aFailedRunLeavesEarlierRowsUntouched() async throws {
        let failing = NIOLockedValueBox(false)
        try await ExtractionHarness.with(reply: { feature, request in
            failing.withLockedValue { $0 } && feature == "rsvps" ? .chat(content: "{\"rsvps\": [{\"event\": 1}]}") : BirthdayAnswers.reply(feature, request)
        }) { h in
            _ = try await h.extract()
            let before = try await h.snapshot()
            failing.withLockedValue { $0 = true }
            await #expect(throws: ExtractionError.self) { try await h.extract() }
            #expect(try await h.snapshot() == before)
        }
    }

    @Test func hallucinatedSourceIdIsDroppedAndReported() async throws {
        let invented: JSONValue = ["events": [
            ["title": "Ghost meeting", "date": "2026-03-09", "time": nil, "end_time": nil, "location": nil, "description": "",
             "category": "other", "confidence": 0.8, "date_phrase": nil, "evidence": "Ghost", "source_message_ids": ["m99"]],
        ]]
        try await ExtractionHarness.with(reply: { feature, request in
            feature == "calendar_events" ? .chat(content: invented.serialized()) : BirthdayAnswers.reply(feature, request)
        }) { h in
            let summary = try await h.extract()
            #expect(summary.items["calendar_events"] == 0)
            #expect(summary.notes.contains { $0.contains("unknown_source") && $0.contains("m99") })
            #expect(try await h.count("calendar_events") == 0)
        }
    }

    @Test func modelDateIsReplacedByTheResolvedPhraseAndKept() async throws {
        var wrong = BirthdayAnswers.events
        if case .object(var root) = wrong, case .array(var items)? = root["events"], case .object(var item) = items[0] {
            item["date"] = "2026-03-08"
            items[0] = .object(item)
            root["events"] = .array(items)
            wrong = .object(root)
        }
        let answer = wrong
        try await ExtractionHarness.with(reply: { feature, request in
            feature == "calendar_events" ? .chat(content: answer.serialized()) : BirthdayAnswers.reply(feature, request)
        }) { h in
            let summary = try await h.extract([.calendarEvents])
            #expect(summary.notes.contains { $0.contains("date_corrected") })
            let row = try await h.db.pool.query("SELECT date, model_date FROM calendar_events")[0]
            #expect(try row.decode("date", as: LocalDate.self).iso == "2026-03-07")
            #expect(try row.decode("model_date", as: LocalDate?.self)?.iso == "2026-03-08")
        }
    }

    @Test func truncatedAnswerFailsFastWithoutReask() async throws {
        try await ExtractionHarness.with(reply: { feature, request in
            feature == "decisions" ? .chat(content: "{\"decisions\": [", finishReason: "length") : BirthdayAnswers.reply(feature, request)
        }) { h in
            let error = await #expect(throws: ExtractionError.self) { try await h.extract() }
            #expect(error == .truncated(feature: .decisions, maxTokens: 1500) || error?.description.contains("cut off") == true)
            #expect(h.server.requests.filter { ExtractionHarness.feature(of: $0) == "decisions" }.count == 1)
        }
    }

    @Test func requestBodiesConformToOpenAIsSchema() async throws {
        let openAPI = try JSONValue.parse(Data(contentsOf: RepositoryPaths.root
            .deletingLastPathComponent().appendingPathComponent("shared/openai-openapi/openapi.json")))
        let schema = try JSONSchema(["$ref": "#/components/schemas/CreateChatCompletionRequest"], root: openAPI)
        for mode in [StructuredOutputMode.jsonSchema, .jsonObject] {
            try await ExtractionHarness.with(structuredOutput: mode, reply: BirthdayAnswers.reply) { h in
                _ = try await h.extract(dryRun: true)
                #expect(h.server.requests.count == 5)
                for request in h.server.requests {
                    let body = try #require(request.json)
                    #expect(schema.validate(body).isEmpty, "\(schema.validate(body).prefix(3))")
                    #expect(request.path == "/v1/chat/completions")
                    #expect(request.header("authorization") == "Bearer sk-test-not-a-real-key")
                    if mode == .jsonObject {
                        #expect(body["response_format"]?["type"] == "json_object")
                        #expect(body["messages"]?[0]?["content"]?.stringValue?.contains("JSON Schema") == true)
                    } else {
                        #expect(body["response_format"]?["json_schema"]?["strict"] == true)
                    }
                }
                #expect(try await h.snapshot().isEmpty)  // dry run wrote nothing
            }
        }
    }

    @Test func unknownConversationIsAClearError() async throws {
        try await ExtractionHarness.with(reply: BirthdayAnswers.reply) { h in
            let missing = UUID()
            let error = await #expect(throws: JobsError.self) {
                try await ExtractService(pool: h.db.pool, engine: h.engine).run(conversationID: missing, features: [.decisions], dryRun: false)
            }
            #expect(error?.code == .notFound)
            #expect(error?.description == "no conversation with id \(missing.uuidString.lowercased())")
            #expect(h.server.requests.isEmpty)
        }
    }
}


@Suite struct DecisionAndPriorityRowsTests {
    static let decisions: JSONValue = ["decisions": [[
        "decision": "Pizza for Emma's party", "category": "food", "decided_by": "p4", "deadline": "2026-03-05",
        "date_phrase": "by Thursday, March 5", "evidence": "so I can order pizza!", "source_message_ids": ["m1"],
    ]]]
    static let priorities: JSONValue = ["messages": [
        ["message_id": "m1", "priority": "high", "reason": "Asks for an RSVP by Thursday", "action_required": true, "evidence": "Please RSVP"],
        ["message_id": "m1", "priority": "urgent", "reason": "the same message twice", "action_required": false, "evidence": "Please RSVP"],
    ]]

    @Test func decisionsAndPriorityMessagesBecomeRowsOnce() async throws {
        try await ExtractionHarness.with(reply: { feature, request in
            switch feature {
            case "decisions": .chat(content: Self.decisions.serialized())
            case "priority_messages": .chat(content: Self.priorities.serialized())
            default: BirthdayAnswers.reply(feature, request)
            }
        }) { h in
            let summary = try await h.extract([.decisions, .priorityMessages])
            #expect(summary.items == ["decisions": 1, "priority_messages": 1])
            let decision = try await h.db.pool.query(
                "SELECT d.decision_text, d.category, d.deadline, u.username FROM decisions d JOIN users u ON u.id = d.decided_by")[0]
            #expect(try decision.decode("decision_text", as: String.self) == "Pizza for Emma's party")
            #expect(try decision.decode("category", as: String.self) == "food")
            #expect(try decision.decode("deadline", as: LocalDate.self).iso == "2026-03-05")
            #expect(try decision.decode("username", as: String.self) == "jenny")
            let priority = try await h.db.pool.query(
                "SELECT p.priority, p.action_required, m.content FROM priority_messages p JOIN messages m ON m.id = p.message_id")
            try #require(priority.count == 1)  // a message flagged twice is one row, the first answer's
            #expect(try priority[0].decode("priority", as: String.self) == "high")
            #expect(try priority[0].decode("action_required", as: Bool.self))
            #expect(try priority[0].decode("content", as: String.self).hasPrefix("You're invited"))
            let before = try await h.snapshot()
            _ = try await h.extract([.decisions, .priorityMessages])
            #expect(try await h.snapshot() == before)
        }
    }
}

@Suite struct ExtractLockTimeoutTests {
    @Test func aRowLockHeldElsewhereFailsTheRunInsteadOfStallingIt() async throws {
        try await ExtractionHarness.with(reply: BirthdayAnswers.reply) { h in
            _ = try await h.extract([.calendarEvents])
            let before = try await h.snapshot()
            // Another session holds the event row, as an app transaction might.
            let holder = try await PostgresConnection.connect(h.db.configuration)
            try await holder.query("BEGIN")
            try await holder.query("SELECT id FROM calendar_events FOR UPDATE")
            // Held until the run has returned: without a lock timeout the run would wait for it, and the safety bound
            // below (one minute, far beyond the 0.3 s timeout) would then let go, the run succeed and this test fail.
            let release = Task {
                try? await Task.sleep(for: .seconds(60))
                if !Task.isCancelled { try await holder.query("ROLLBACK") }
            }
            var service = ExtractService(pool: h.db.pool, engine: h.engine)
            service.lockTimeout = .milliseconds(300)
            let error = await #expect(throws: PostgresError.self) {
                try await service.run(conversationID: ExtractionHarness.birthday, features: [.calendarEvents], dryRun: false,
                                      now: ExtractionHarness.now)
            }
            #expect(error?.sqlState == .lockNotAvailable)
            release.cancel()
            try await release.value
            try await holder.query("ROLLBACK")
            holder.close()
            #expect(try await h.snapshot() == before)
        }
    }
}
