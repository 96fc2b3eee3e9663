import Core
import Extractors
import Foundation
import JobsKit
import Postgres
import TestSupport
import Testing
import NIOConcurrencyHelpers

/// Nights through the real binary (`messageai-jobs scan` / `extract`) against Postgres and the scripted model server:
/// each night adds messages to a chat and runs the command; the script answers what a model reading that night's
/// messages would (new items only: the answer's `known` list is the prompt side's). The binary reads the real clock, so
/// the chat's messages are a few hours old and its items a few days ahead.
@Suite("Nights: one truth through the binary", .serialized)
struct NightsBinaryTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let today = LocalDate(Date(), in: utc)
    static let partyDay = today.adding(days: 7)
    static let replyBy = today.adding(days: 4)

    /// "December 13" for a date, as a parent writes it.
    static func words(_ date: LocalDate) -> String {
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        return "\(months[date.month - 1]) \(date.day)"
    }

    /// A message of the request: its alias, its sender's alias and its text.
    struct Line: Sendable {
        let id: String, sender: String, text: String
    }

    /// What the script answers for one request: items per feature (the combined schema's keys), from the request's lines.
    typealias Script = @Sendable ([Line]) -> [String: [JSONValue]]

    static func server(_ script: NIOLockedValueBox<Script>) throws -> FakeOpenAIServer {
        try FakeOpenAIServer { request in
            let lines = ScanRequests.messageLines(request).map {
                Line(id: $0["id"]?.stringValue ?? "", sender: $0["sender_id"]?.stringValue ?? "", text: $0["text"]?.stringValue ?? "")
            }
            let schema = request.json?["response_format"]?["json_schema"]?["schema"] ?? [:]
            let items = script.withLockedValue { $0 }(lines)
            var answer = JSONObject()
            for (feature, part) in schema["properties"]?.objectValue ?? JSONObject() {
                var object = CombinedSchema.emptyAnswer(part).objectValue ?? JSONObject()
                if let list = items[feature], let key = object.keys.first { object[key] = .array(list) }
                answer[feature] = .object(object)
            }
            return .chat(content: JSONValue.object(answer).serialized(), usage: FakeUsage(prompt: 300, completion: 40))
        }
    }

    static func line(_ lines: [Line], _ words: String) -> Line? { lines.last { $0.text.contains(words) } }

    static func event(_ title: String, _ date: LocalDate, time: String?, _ line: Line) -> JSONValue {
        ["title": .string(title), "date": .string(date.iso), "time": time.map(JSONValue.string) ?? .null, "end_time": nil, "location": nil,
         "description": "", "category": "social", "confidence": 0.9, "date_phrase": nil, "evidence": .string(line.text),
         "source_message_ids": [.string(line.id)]]
    }

    static func deadline(_ task: String, _ date: LocalDate, _ line: Line) -> JSONValue {
        ["task": .string(task), "deadline": .string(date.iso), "time": nil, "category": "school", "priority": "high", "details": nil,
         "date_phrase": nil, "evidence": .string(line.text), "source_message_ids": [.string(line.id)]]
    }

    static func scan(_ db: TestDatabase, _ server: FakeOpenAIServer?, provider: String = "openai") async throws -> JSONValue {
        var env = ["DATABASE_URL": db.connectionURL, "LOG_LEVEL": "error"]
        if let server { env["OPENAI_BASE_URL"] = server.baseURL.absoluteString; env["OPENAI_API_KEY"] = "sk-test-not-a-real-key" }
        let run = try await JobsBinary.run(["scan", "--provider", provider, "--prompts", ScanHarness.promptsPath, "--no-assist",
                                               "--no-prefilter", "--json"], environment: env)
        #expect(run.code == 0, "\(run.stderr)")
        return try JSONValue.parse(run.stdout)
    }

    static func count(_ db: TestDatabase, _ sql: String, _ binds: [any PostgresEncodable] = []) async throws -> Int {
        try await db.pool.query(sql, binds)[0].decode("n")
    }

    /// Night 1's messages are five hours old, night 2's three, night 3's one.
    static func at(night: Int, _ n: Int) -> Date { Date().addingTimeInterval(Double(-7 + 2 * night) * 3600 + Double(n)) }

    @Test("a re-posted deadline is one deadline and one reminder per parent; a re-mention in other words is one event")
    func repostsAndRementions() async throws {
        try await TestDatabase.with { db in
            var chat = try await NightChat.make(db)
            let day = Self.partyDay
            try await chat.say(chat.teacher, "Permission slip and $15 due \(Self.words(day))", at: Self.at(night: 1, 0), db)
            try await chat.say(chat.maria, "Emma's birthday party on \(Self.words(day)) at 2pm at Jump Zone!", at: Self.at(night: 1, 1), db)
            let script = NIOLockedValueBox<Script>({ lines in
                var items: [String: [JSONValue]] = [:]
                if let slip = Self.line(lines, "Permission slip") { items["deadlines"] = [Self.deadline("Permission slip and $15", day, slip)] }
                if let party = Self.line(lines, "party") {
                    let title = party.text.contains("birthday") ? "Emma's birthday party" : "Emma's party"
                    items["calendar_events"] = [Self.event(title, day, time: "14:00", party)]
                }
                return items
            })
            let server = try Self.server(script)
            defer { server.stop() }
            _ = try await Self.scan(db, server)
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM deadlines WHERE conversation_id = $1", [chat.conversation]) == 2)
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM reminders WHERE conversation_id = $1", [chat.conversation]) == 2)

            // Night 2: the teacher re-posts the slip, Dan mentions the party in other words; the script finds both again.
            try await chat.say(chat.teacher, "Reminder: Permission slip and $15 due \(Self.words(day))!", at: Self.at(night: 2, 0), db)
            try await chat.say(chat.dan, "Looking forward to Emma's party on \(Self.words(day)) at 2pm", at: Self.at(night: 2, 1), db)
            let second = try await Self.scan(db, server)
            #expect(second["conversations"] == 1)
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM deadlines WHERE conversation_id = $1", [chat.conversation]) == 2,
                    "one per parent, not two")
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM reminders WHERE conversation_id = $1", [chat.conversation]) == 2)
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM calendar_events WHERE conversation_id = $1 AND closed_at IS NULL",
                                         [chat.conversation]) == 1)
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM tracked_items WHERE conversation_id = $1", [chat.conversation]) == 2)
            let sources: [String] = try await db.pool.query(
                "SELECT source_message_ids::text[] AS s FROM calendar_events WHERE conversation_id = $1", [chat.conversation])[0].decode("s")
            #expect(sources.count == 2, "the event rests on both mentions")
        }
    }

    @Test("an RSVP answered after its invitation left the window updates the one RSVP row")
    func lateRSVPInABusyChat() async throws {
        try await TestDatabase.with { db in
            var chat = try await NightChat.make(db)
            let day = Self.partyDay, replyBy = Self.replyBy
            try await chat.say(chat.maria, "Emma's birthday party \(Self.words(day)) at 2pm, please RSVP by \(Self.words(replyBy))",
                               at: Self.at(night: 1, 0), db)
            let script = NIOLockedValueBox<Script>({ lines in
                // Maria's alias: she sent the invitation and the odd chatter.
                guard let maria = lines.first(where: { $0.text.contains("please RSVP") || $0.text.hasPrefix("Maria here") })?.sender
                else { return [:] }
                if let invitation = Self.line(lines, "please RSVP") {
                    return ["rsvps": [["event": "Emma's birthday party", "event_date": .string(day.iso), "deadline": .string(replyBy.iso),
                                       "requested_by": .string(maria), "date_phrase": nil, "deadline_phrase": nil,
                                       "evidence": .string(invitation.text), "source_message_ids": [.string(invitation.id)], "responses": []]]]
                }
                // The invitation is out of the window: the answer is a new item citing the reply, as today's prompt asks.
                guard let reply = Self.line(lines, "we'll come") else { return [:] }
                return ["rsvps": [["event": "Emma's birthday party", "event_date": .string(day.iso), "deadline": .string(replyBy.iso),
                                   "requested_by": .string(maria), "date_phrase": nil, "deadline_phrase": nil, "evidence": .string(reply.text),
                                   "source_message_ids": [.string(reply.id)],
                                   "responses": [["participant_id": .string(reply.sender), "response": "yes", "message_id": .string(reply.id)]]]]]
            })
            let server = try Self.server(script)
            defer { server.stop() }
            _ = try await Self.scan(db, server)
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM rsvp_tracking WHERE conversation_id = $1 AND status = 'pending'",
                                         [chat.conversation]) == 2, "Dan and the teacher owe an answer")

            // Night 2: 25 messages of chatter; night 3: Dan answers, the invitation out of the 20 messages of context.
            for n in 0..<25 {
                try await chat.say(n % 2 == 0 ? chat.teacher : chat.maria,
                                   n % 2 == 0 ? "Carpool note \(n): pickup at the usual corner" : "Maria here, carpool note \(n) noted",
                                   at: Self.at(night: 2, n), db)
            }
            _ = try await Self.scan(db, server)
            try await chat.say(chat.dan, "Yes, we'll come to Emma's birthday party!", at: Self.at(night: 3, 0), db)
            _ = try await Self.scan(db, server)
            let shown = ScanRequests.messageLines(try #require(server.requests.last)).compactMap { $0["text"]?.stringValue }
            #expect(!shown.contains { $0.contains("please RSVP") }, "the invitation was not in night 2's request")
            let rows = try await db.pool.query(
                "SELECT user_id, status, response FROM rsvp_tracking WHERE conversation_id = $1", [chat.conversation])
            #expect(rows.count == 2, "one RSVP row per guest, not a second invitation")
            for row in rows where try row.decode("user_id", as: UUID.self) == chat.dan {
                #expect(try row.decode("status", as: String.self) == "responded")
                #expect(try row.decode("response", as: String?.self) == "yes")
            }
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM rsvp_tracking WHERE conversation_id = $1 AND user_id = $2 AND status = 'responded'",
                                         [chat.conversation, chat.dan]) == 1)
        }
    }

    @Test("a scan with the LLM then with --provider rules writes one event")
    func providerSwitch() async throws {
        try await TestDatabase.with { db in
            var chat = try await NightChat.make(db)
            let day = Self.partyDay
            try await chat.say(chat.teacher, "Soccer game on \(Self.words(day)) at Lincoln Park", at: Self.at(night: 1, 0), db)
            // The model reads no time.
            let script = NIOLockedValueBox<Script>({ lines in
                guard let game = Self.line(lines, "Soccer game") else { return [:] }
                return ["calendar_events": [Self.event("Soccer game", day, time: nil, game)]]
            })
            let server = try Self.server(script)
            defer { server.stop() }
            _ = try await Self.scan(db, server)
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM calendar_events WHERE conversation_id = $1", [chat.conversation]) == 1)

            try await chat.say(chat.teacher, "Reminder: soccer game on \(Self.words(day)) at 10am at Lincoln Park", at: Self.at(night: 2, 0), db)
            let rules = try await Self.scan(db, nil, provider: "rules")
            #expect(rules["items"]?["calendar_events"]?.integerValue == 1, "the rules read the game (with its time): \(rules)")
            #expect(try await Self.count(db, "SELECT count(*) AS n FROM calendar_events WHERE conversation_id = $1", [chat.conversation]) == 1)
            let sources: [String] = try await db.pool.query(
                "SELECT source_message_ids::text[] AS s FROM calendar_events WHERE conversation_id = $1", [chat.conversation])[0].decode("s")
            #expect(sources.count == 2, "the rules' event is the model's item, now resting on both messages")
        }
    }

    @Test("scan, extract and batch collect over the same chat and answers end in the same rows")
    func scanAndExtractAgree() async throws {
        let day = Self.partyDay
        let script = NIOLockedValueBox<Script>({ lines in
            var items: [String: [JSONValue]] = [:]
            if let slip = Self.line(lines, "Permission slip") { items["deadlines"] = [Self.deadline("Permission slip and $15", day, slip)] }
            if let party = Self.line(lines, "party") { items["calendar_events"] = [Self.event("Emma's birthday party", day, time: "14:00", party)] }
            return items
        })
        let template = NightChat()
        let ids = (UUID(), UUID())
        func load(_ db: TestDatabase) async throws -> NightChat {
            var chat = try await NightChat.make(db, like: template)
            try await chat.say(chat.teacher, "Permission slip and $15 due \(Self.words(day))", at: Self.at(night: 1, 0), db, id: ids.0)
            try await chat.say(chat.maria, "Emma's birthday party on \(Self.words(day)) at 2pm", at: Self.at(night: 1, 1), db, id: ids.1)
            return chat
        }
        func rows(_ db: TestDatabase) async throws -> [String] {
            var out: [String] = []
            for sql in [
                "SELECT row(idempotency_key, title, date, time, source_message_ids, closed_at IS NULL)::text AS r FROM calendar_events",
                "SELECT row(idempotency_key, item_key, user_id, task, deadline, status, closed_at IS NULL)::text AS r FROM deadlines",
                "SELECT row(idempotency_key, title, status)::text AS r FROM reminders",
                "SELECT row(ref, feature, item, status)::text AS r FROM tracked_items",
            ] { out += try await db.pool.query(sql).map { try $0.decode("r", as: String.self) } }
            return out.sorted()
        }
        let scanned = try await TestDatabase.with { db in
            _ = try await load(db)
            let server = try Self.server(script)
            defer { server.stop() }
            _ = try await Self.scan(db, server)
            return try await rows(db)
        }
        let extracted = try await TestDatabase.with { db in
            let chat = try await load(db)
            let server = try Self.server(script)
            defer { server.stop() }
            let run = try await JobsBinary.run(
                ["extract", "--conversation", chat.conversation.postgresValue, "--provider", "openai", "--prompts", ScanHarness.promptsPath, "--json"],
                environment: ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString,
                              "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error"])
            #expect(run.code == 0, "\(run.stderr)")
            // A second extract over the whole chat changes nothing.
            let again = try await JobsBinary.run(
                ["extract", "--conversation", chat.conversation.postgresValue, "--provider", "openai", "--prompts", ScanHarness.promptsPath, "--json"],
                environment: ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString,
                              "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error"])
            #expect(again.code == 0, "\(again.stderr)")
            let written = try JSONValue.parse(again.stdout)["written"]
            let inserted = written?["inserted"]?.objectValue?.isEmpty ?? false
            let removed = written?["removed"]?.objectValue?.isEmpty ?? false
            #expect(inserted && removed, "\(String(describing: written))")
            return try await rows(db)
        }
        let collected = try await TestDatabase.with { db in
            _ = try await load(db)
            let server = try Self.server(script)
            defer { server.stop() }
            let env = ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString,
                       "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error"]
            let submit = try await JobsBinary.run(["scan", "--batch", "--provider", "openai", "--prompts", ScanHarness.promptsPath,
                                                      "--no-prefilter", "--json"], environment: env)
            #expect(submit.code == 0, "\(submit.stderr)")
            let collect = try await JobsBinary.run(["batch", "collect", "--prompts", ScanHarness.promptsPath, "--json"], environment: env)
            #expect(collect.code == 0, "\(collect.stderr)")
            return try await rows(db)
        }
        #expect(scanned == collected, "batch collect writes what scan writes")
        #expect(scanned.count == 7, "an event, a deadline and a reminder per parent, two tracked items: \(scanned)")
        #expect(scanned == extracted)
    }
}
