import AgentRuntime
import Core
@testable import Extractors
import Foundation
import JobsKit
import Postgres
import PromptKit
import Testing
import TestSupport

// A sixth feature is one Swift type (this file's `Carpools`, with its scorer's shape `ScoredCarpool`), its prompt, its
// schema and its table's migration (Resources/SixthFeature/prompts/carpools.yaml, schemas/carpools.schema.json,
// migrations/carpools.sql), and one registry line (`registry` below). Nothing else in the code base changes: the
// engine, the combined prompt and its schema, the checks, the merge, the store, `scan`, the oracle, the eval runner,
// the fixture schema and checks, the scorer and the report lines all go through `Extractor` and the registry
// (SixthFeatureEvalTests scores it on Resources/SixthFeature/fixtures).

/// Who drives the children on which day.
struct CarpoolItem: Sendable, Hashable, Codable {
    var driver: String?
    var date: LocalDate
    var datePhrase: String?
    var modelDate: LocalDate?
    var sources: [String]
}

struct Carpools: Extractor {
    var id: ExtractionFeature { ExtractionFeature("carpools") }

    func decodeItems(_ answer: JSONValue, context: inout DecodeContext) -> [CarpoolItem] {
        Self.list(answer, "carpools").enumerated().compactMap { index, item in
            let label = "carpool \(index)"
            guard let grounded = context.grounded(item, label: label),
                  let (resolved, phrase) = context.requiredDate(item, field: "date", grounded: grounded, label: label) else { return nil }
            return CarpoolItem(driver: context.participant(item["driver"]), date: resolved.date, datePhrase: phrase,
                               modelDate: resolved.modelDate, sources: grounded.sources)
        }
    }

    var combinedRule: String {
        "who drives the children on which day. driver: sender alias of the parent who offers, or null. Cite the offer."
    }

    func mergeKey(_ item: CarpoolItem) -> String { "\(item.sources.first ?? ""):\(item.date.iso)" }

    func rulesAnswer(_ scan: RuleScan) -> JSONValue { ["carpools": []] }

    func writeRows(_ items: [CarpoolItem], prompt: PromptRef, to rows: inout RowWriter) async throws {
        for item in items {
            let key = "carpool:\(rows.conversation):\(mergeKey(item))"
            try await rows.upsert(id, key: key, sql: Self.upsertSQL, binds: rows.base(prompt) + [
                key, rows.conversationID, item.sources.first, item.driver, item.date, item.datePhrase, item.modelDate,
            ])
        }
    }

    var staleRowsSQL: String { "DELETE FROM carpools WHERE conversation_id = $1 \(RowWriter.serviceRowNotIn)" }

    /// Binds: $1 run_id, $2 prompt_id, $3 prompt_version, $4 model (`RowWriter.base`), then the row's own values from $5.
    static let upsertSQL = """
        INSERT INTO carpools (run_id, prompt_id, prompt_version, model, idempotency_key, conversation_id, message_id,
            driver_id, ride_date, date_phrase, model_date)
        VALUES ($1, $2, $3, $4, $5, $6, $7::uuid, $8::uuid, $9::date, $10, $11::date)
        ON CONFLICT (idempotency_key) DO UPDATE SET driver_id = EXCLUDED.driver_id, date_phrase = EXCLUDED.date_phrase,
            model_date = EXCLUDED.model_date, run_id = EXCLUDED.run_id, prompt_id = EXCLUDED.prompt_id,
            prompt_version = EXCLUDED.prompt_version, model = EXCLUDED.model, updated_at = now()
        WHERE (carpools.driver_id, carpools.date_phrase, carpools.model_date, carpools.prompt_id, carpools.prompt_version,
               carpools.model)
            IS DISTINCT FROM (EXCLUDED.driver_id, EXCLUDED.date_phrase, EXCLUDED.model_date, EXCLUDED.prompt_id,
               EXCLUDED.prompt_version, EXCLUDED.model)
        RETURNING (xmax = 0) AS inserted
        """

    func reportLine(_ item: CarpoolItem) -> String { "\(item.date.iso) \(item.driver ?? "someone") drives" }

    func scored(_ item: CarpoolItem, user: String) -> ScoredCarpool {
        ScoredCarpool(driver: item.driver, date: item.date, source: item.sources)
    }
}

/// A carpool offer as an eval fixture labels it (`expected.carpools`): paired on a shared source and the same day, the
/// driver compared on pairs; the driver must be a participant of the fixture.
struct ScoredCarpool: ScoredItem {
    var driver: String?
    var date: LocalDate
    var source: [String]

    static var feature: ExtractionFeature { ExtractionFeature("carpools") }

    static var labelSchema: JSONValue {
        [
            "type": "object",
            "required": ["driver", "date", "source"],
            "additionalProperties": false,
            "properties": [
                "driver": ["anyOf": [["$ref": "#/$defs/id"], ["type": "null"]]],
                "date": ["$ref": "#/$defs/date"],
                "source": ["$ref": "#/$defs/source"],
            ],
        ]
    }

    var sources: [String] { source }
    var keyDate: LocalDate? { date }
    var participantReferences: [(path: [JSONPathComponent], id: String)] { driver.map { [([.key("driver")], $0)] } ?? [] }

    func fieldResults(predicted p: ScoredCarpool) -> [(field: String, correct: Bool)] { [("driver", driver == p.driver)] }
}

@Suite struct SixthFeatureTests {
    static let carpools = Carpools()
    static let registry = FeatureRegistry.shipping.adding(carpools)

    static let ana = Extractors.Participant(id: "u-ana", name: "Ana Ruiz")
    static let dan = Extractors.Participant(id: "u-dan", name: "Dan Kim")
    /// Monday 2026-03-02 in New York: "tomorrow" is Tuesday March 3.
    static let input = ConversationInput(
        conversationID: "carpool-chat", name: "Carpool crew", isGroup: true, participants: [ana, dan],
        messages: [
            InputMessage(id: "msg-1", senderID: "u-dan", sentAt: ISO8601Instant.parse("2026-03-02T19:02:00-05:00")!,
                         text: "Can someone take the kids to swim tomorrow? I can't."),
            InputMessage(id: "msg-2", senderID: "u-ana", sentAt: ISO8601Instant.parse("2026-03-02T19:10:00-05:00")!,
                         text: "I'll drive tomorrow"),
        ],
        timeZone: TimeZone(identifier: "America/New_York")!, now: ISO8601Instant.parse("2026-03-02T20:00:00-05:00")!)

    /// The sixth feature's test resources (prompts/, schemas/, migrations/).
    static func resources() throws -> URL {
        guard let directory = Bundle.module.url(forResource: "SixthFeature", withExtension: nil) else {
            throw ExtractionError.invalidInput("the SixthFeature test resources are missing")
        }
        return directory
    }

    /// The shipped prompts plus the sixth feature's.
    static func prompts() throws -> PromptLibrary {
        let sixth = try PromptLibrary.load(directory: try resources().appendingPathComponent("prompts"))
        let shipped = try ExtractionHarness.prompts()
        return try PromptLibrary(prompts: shipped.all + sixth.all, pins: shipped.pins)
    }

    static func engine(_ server: FakeOpenAIServer, registry: FeatureRegistry = registry) throws -> ExtractionEngine {
        let client = server.client(retry: FakeOpenAIServer.quickRetries(1))
        return try ExtractionEngine(prompts: try prompts(), provider: LLMAnswerProvider(client: client, structuredOutput: .jsonSchema),
                                    registry: registry)
    }

    /// The model's answer, in the window's aliases: one good offer with the wrong date, one whose evidence is in no
    /// message, one that cites a message that does not exist.
    static func answer() -> JSONValue {
        let window = MessageWindow(messages: input.messages, participants: input.participants)
        let m1 = JSONValue.string(window.alias(ofMessage: "msg-1")!), m2 = JSONValue.string(window.alias(ofMessage: "msg-2")!)
        let anaAlias = JSONValue.string(window.alias(ofParticipant: "u-ana")!)
        return ["carpools": [
            ["driver": anaAlias, "date": "2026-03-04", "date_phrase": "tomorrow", "evidence": "I'll drive tomorrow",
             "source_message_ids": [m1, m2]],
            ["driver": anaAlias, "date": "2026-03-06", "date_phrase": nil, "evidence": "I can drive on Friday",
             "source_message_ids": [m2]],
            ["driver": nil, "date": "2026-03-03", "date_phrase": nil, "evidence": "I'll drive", "source_message_ids": ["m99"]],
        ]]
    }

    @Test func aSixthFeatureRunsThroughTheRealEngine() async throws {
        let server = try FakeOpenAIServer { _ in .chat(content: Self.answer().serialized()) }
        defer { server.stop() }
        let run = try await Self.engine(server).extract(Self.input, features: [Self.carpools.id])

        // The request: the feature's own prompt, rendered with the conversation, and its schema by name.
        #expect(server.requests.count == 1)
        let request = try #require(server.requests.first?.json)
        #expect(request["response_format"]?["json_schema"]?["name"]?.stringValue == "carpools")
        let prompt = request["messages"]?.arrayValue?.compactMap { $0["content"]?.stringValue }.joined(separator: "\n") ?? ""
        #expect(prompt.contains("You find carpool offers"))
        #expect(prompt.contains("I'll drive tomorrow"))

        // Decoded with the shared checks: real ids, code's date for "tomorrow", the two bad items dropped.
        #expect(run.extraction[Self.carpools] == [CarpoolItem(
            driver: "u-ana", date: LocalDate(iso: "2026-03-03")!, datePhrase: "tomorrow", modelDate: LocalDate(iso: "2026-03-04")!,
            sources: ["msg-1", "msg-2"])])
        #expect(run.extraction.count(Self.carpools.id) == 1)
        #expect(run.extraction.events.isEmpty && run.extraction.count(.calendarEvents) == 0)
        #expect(Set(run.extraction.notes.map(\.kind)) == [.dateCorrected, .noEvidence, .unknownSource])
        #expect(run.extraction.notes.allSatisfy { $0.feature == Self.carpools.id })
        #expect(run.prompts[Self.carpools.id] == PromptRef(id: "carpools", version: 1, model: "gpt-4o-mini"))

        // Its report lines and its list in `extract --json`.
        #expect(ExtractReport.items(Self.carpools.id, run.extraction) == ["2026-03-03 u-ana drives"])
        let json = try JSONValue.encode(run.extraction)
        #expect(json["carpools"]?.arrayValue?.count == 1)
        #expect(json["events"]?.arrayValue?.isEmpty == true)
    }

    @Test func overlappingWindowsMergeBySixthFeaturesKey() {
        var first = Extraction(), second = Extraction()
        let item = CarpoolItem(driver: nil, date: LocalDate(iso: "2026-03-03")!, sources: ["msg-2"])
        first[Self.carpools] = [item]
        second[Self.carpools] = [item, CarpoolItem(driver: nil, date: LocalDate(iso: "2026-03-04")!, sources: ["msg-2"])]
        first.merge(second)
        #expect(first[Self.carpools].map(\.date.iso) == ["2026-03-03", "2026-03-04"])
        #expect(first != Extraction() && Extraction() == { var e = Extraction(); e[Self.carpools] = []; return e }())
    }

    @Test func anAnswerOutsideTheSchemaIsRejectedAfterOneReask() async throws {
        let server = try FakeOpenAIServer { _ in .chat(content: #"{"carpools": [{"driver": 5}]}"#) }
        defer { server.stop() }
        do {
            _ = try await Self.engine(server).extract(Self.input, features: [Self.carpools.id])
            Issue.record("expected the schema to reject the answer")
        } catch ExtractionError.invalidOutput(let feature, let errors) {
            #expect(feature == Self.carpools.id)
            #expect(!errors.isEmpty)
        }
        #expect(server.requests.count == 2)
    }

    @Test func anEngineRunsOnlyTheFeaturesItsRegistryHolds() async throws {
        let server = try FakeOpenAIServer { _ in .chat(content: Self.answer().serialized()) }
        defer { server.stop() }
        await #expect(throws: ExtractionError.self) {
            _ = try await Self.engine(server, registry: .shipping).extract(Self.input, features: [Self.carpools.id])
        }
        #expect(server.requests.isEmpty)
        #expect(throws: ExtractionError.self) { _ = try FeatureRegistry.shipping.parseList("calendar_events,carpools") }
        #expect(try Self.registry.parseList("carpools,calendar_events") == [.calendarEvents, Self.carpools.id])
    }

    // MARK: Every path a shipped feature takes

    /// The model: Ana's offer for carpools in whatever window it is shown (aliases read back from the request), and
    /// for every other feature the answer that finds nothing, per-feature or combined.
    static func reply(_ request: RecordedRequest) -> ScriptedReply {
        let format = request.json?["response_format"]?["json_schema"]
        let schema = format?["schema"] ?? [:]
        let user = request.json?["messages"]?.arrayValue?.last?["content"]?.stringValue ?? ""
        let block = user.components(separatedBy: "<messages>\n").last?.components(separatedBy: "\n</messages>").first ?? ""
        let lines = MessageBlock.parse(block) ?? []
        func carpools() -> JSONValue {
            guard let ask = lines.first(where: { $0.text.hasPrefix("Can someone") }),
                  let offer = lines.first(where: { $0.text == "I'll drive tomorrow" }) else { return ["carpools": []] }
            return ["carpools": [[
                "driver": .string(offer.senderAlias), "date": "2026-03-03", "date_phrase": "tomorrow",
                "evidence": "I'll drive tomorrow", "source_message_ids": [.string(ask.alias), .string(offer.alias)],
            ]]]
        }
        let answer: JSONValue
        if format?["name"]?.stringValue == CombinedSchema.promptID {
            var parts = JSONObject()
            for key in schema["properties"]?.objectValue?.keys ?? [] {
                parts[key] = key == "carpools" ? carpools() : CombinedSchema.emptyAnswer(schema["properties"]?[key] ?? [:])
            }
            answer = .object(parts)
        } else {
            answer = format?["name"]?.stringValue == "carpools" ? carpools() : CombinedSchema.emptyAnswer(schema)
        }
        return .chat(content: answer.serialized())
    }

    @Test func combinedModeAsksForTheSixFeaturesInOneRequest() async throws {
        let server = try FakeOpenAIServer { Self.reply($0) }
        defer { server.stop() }
        var engine = try Self.engine(server)
        engine.mode = .combined
        let run = try await engine.extract(Self.input, features: Self.registry.ids)

        #expect(server.requests.count == 1)
        let request = try #require(server.requests.first?.json)
        let format = request["response_format"]?["json_schema"]
        #expect(format?["name"]?.stringValue == "combined")
        #expect(format?["schema"]?["properties"]?.objectValue?.keys == Self.registry.ids.map(\.rawValue))
        #expect(format?["schema"]?["properties"]?["carpools"]?["required"] == ["carpools"], "the part is the feature's own schema")
        // The prompt lists six features, the sixth from its own type; the example shows it finding nothing.
        let messages = request["messages"]?.arrayValue?.compactMap { $0["content"]?.stringValue } ?? []
        let system = messages.first ?? ""
        #expect(system.hasPrefix("You fill six lists for one busy parent"))
        #expect(system.contains("\n- deadlines: \(Deadlines().combinedRule)\n- carpools: \(Self.carpools.combinedRule)\n"),
                "the sixth feature's rule follows the five, from its own type")
        #expect(messages.count == 4)
        let example = try JSONValue.parse(messages.count > 2 ? messages[2] : "")
        #expect(example["carpools"] == ["carpools": []])
        #expect(example.objectValue?.keys == Self.registry.ids.map(\.rawValue))

        #expect(run.extraction[Self.carpools].map(\.date.iso) == ["2026-03-03"])
        #expect(run.extraction.count(.calendarEvents) == 0)
        #expect(run.prompts[Self.carpools.id]?.id == "combined")
    }

    @Test func theFiveFeaturesCombinedPromptIsUnchangedByTheRegistry() throws {
        let server = try FakeOpenAIServer { Self.reply($0) }
        defer { server.stop() }
        let five = try Self.engine(server, registry: .shipping).combinedPrompt()
        let six = try Self.engine(server).combinedPrompt()
        #expect(five.system.hasPrefix("You fill five lists") && !five.system.contains("carpools"))
        let deadlinesLine = "- deadlines: \(Deadlines().combinedRule)\n"
        #expect(five.system.contains(deadlinesLine))
        #expect(six.system == five.system
            .replacingOccurrences(of: "You fill five lists", with: "You fill six lists")
            .replacingOccurrences(of: deadlinesLine, with: deadlinesLine + "- carpools: \(Self.carpools.combinedRule)\n"))
        #expect(five.variables == ["messages", "now", "timezone", "user_name", "user_id", "conversation_name", "open_items"])
    }

    /// One group chat in the database: Dan asks, Ana offers; Olga is in another family's chats.
    struct Chat {
        let ana: UUID, dan: UUID, olga: UUID
        let conversation: UUID, ask: UUID, offer: UUID

        static func make(_ db: TestDatabase) async throws -> Chat {
            let chat = Chat(ana: UUID(), dan: UUID(), olga: UUID(), conversation: UUID(), ask: UUID(), offer: UUID())
            for (id, name) in [(chat.ana, "ana"), (chat.dan, "dan"), (chat.olga, "olga")] {
                let email = "\(name)-\(id.uuidString.prefix(6))@example.com"
                try await db.pool.query("INSERT INTO auth.users (id, email) VALUES ($1, $2)", [id, email])
                try await db.pool.query("INSERT INTO users (id, email, username, display_name) VALUES ($1, $2, $3, $4)",
                                        [id, email, email, name])
            }
            try await db.pool.query("INSERT INTO conversations (id, name, is_group) VALUES ($1, 'Carpool crew', true)", [chat.conversation])
            for member in [chat.ana, chat.dan] {
                try await db.pool.query("INSERT INTO conversation_participants (conversation_id, user_id) VALUES ($1, $2)",
                                        [chat.conversation, member])
            }
            // Mid-day in UTC, so "tomorrow" is March 3 in every zone a test session might use.
            for (id, sender, text, at) in [(chat.ask, chat.dan, "Can someone take the kids to swim tomorrow? I can't.", "2026-03-02 15:00:00"),
                                           (chat.offer, chat.ana, "I'll drive tomorrow", "2026-03-02 15:10:00")] {
                try await db.pool.query(
                    "INSERT INTO messages (id, conversation_id, sender_id, content, created_at) VALUES ($1, $2, $3, $4, $5::timestamp)",
                    [id, chat.conversation, sender, text, at])
            }
            return chat
        }

        /// The sixth feature's migration, from the test's own resources.
        static func migrate(_ db: TestDatabase) async throws {
            let sql = try String(contentsOf: try SixthFeatureTests.resources().appendingPathComponent("migrations/carpools.sql"), encoding: .utf8)
            try await db.pool.withConnection { try await $0.execute(script: sql) }
        }

        /// The carpool rows `user` can read through row level security (nil: anon, who cannot read the table at all).
        func visibleRows(to user: UUID?, _ db: TestDatabase) async throws -> [String] {
            try await db.asRole(user) { c in
                try await c.query("SELECT ride_date::text || ' ' || driver_id::text AS r FROM carpools").map { try $0.decode("r", as: String.self) }
            }
        }

        func input() -> ConversationInput {
            let ana = Extractors.Participant(id: self.ana.postgresValue, name: "ana")
            let dan = Extractors.Participant(id: self.dan.postgresValue, name: "dan")
            return ConversationInput(
                conversationID: conversation.postgresValue, name: "Carpool crew", isGroup: true, participants: [ana, dan],
                messages: [
                    InputMessage(id: ask.postgresValue, senderID: dan.id, sentAt: ISO8601Instant.parse("2026-03-02T15:00:00Z")!,
                                 text: "Can someone take the kids to swim tomorrow? I can't."),
                    InputMessage(id: offer.postgresValue, senderID: ana.id, sentAt: ISO8601Instant.parse("2026-03-02T15:10:00Z")!,
                                 text: "I'll drive tomorrow"),
                ],
                timeZone: TimeZone(identifier: "America/New_York")!, now: ISO8601Instant.parse("2026-03-02T20:00:00Z")!)
        }
    }

    @Test func theStoreWritesTheSixthFeaturesRowsIdempotentlyBehindRowLevelSecurity() async throws {
        try await TestDatabase.with { db in
            try await Chat.migrate(db)
            let chat = try await Chat.make(db)
            let store = ExtractionStore(registry: Self.registry)
            var extraction = Extraction()
            extraction[Self.carpools] = [CarpoolItem(driver: chat.ana.postgresValue, date: LocalDate(iso: "2026-03-03")!,
                                                     datePhrase: "tomorrow", sources: [chat.ask.postgresValue, chat.offer.postgresValue])]
            let provenance = ExtractionStore.Provenance(runID: nil, prompts: [Self.carpools.id: PromptRef(id: "carpools", version: 1, model: "m")])
            func write(_ extraction: Extraction, replace: Bool) async throws -> ExtractionStore.WriteSummary {
                try await db.pool.transaction { c in
                    try await store.write(extraction, input: chat.input(), features: [Self.carpools.id], provenance: provenance,
                                          replace: replace, now: ISO8601Instant.parse("2026-03-02T20:00:00Z")!, on: c)
                }
            }

            #expect(try await write(extraction, replace: false).inserted == ["carpools": 1])
            let again = try await write(extraction, replace: true)
            #expect(again.inserted.isEmpty && again.updated.isEmpty && again.removed.isEmpty, "a re-run leaves the row alone")
            let row = "2026-03-03 \(chat.ana.postgresValue)"
            #expect(try await chat.visibleRows(to: chat.ana, db) == [row])
            #expect(try await chat.visibleRows(to: chat.dan, db) == [row])
            #expect(try await chat.visibleRows(to: chat.olga, db).isEmpty, "not her conversation")
            await #expect(throws: PostgresError.self) { _ = try await chat.visibleRows(to: nil, db) }

            // Replace mode: the offer is gone from the chat's answer, so its row goes.
            #expect(try await write(Extraction(), replace: true).removed == ["carpools": 1])
            #expect(try await db.pool.query("SELECT count(*)::int AS n FROM carpools")[0].decode("n", as: Int.self) == 0)
        }
    }

    @Test func aScanRunsAndStoresTheSixthFeature() async throws {
        let server = try FakeOpenAIServer { Self.reply($0) }
        defer { server.stop() }
        try await TestDatabase.with { db in
            try await Chat.migrate(db)
            let chat = try await Chat.make(db)
            var options = ScanOptions()
            options.owner = "sixth-feature-test"
            options.concurrency = 1
            options.preFilter = false
            options.features = try Self.registry.parseList("carpools,calendar_events")
            let summary = try await ScanService(pool: db.pool, engine: try Self.engine(server), options: options)
                .run(now: ISO8601Instant.parse("2026-03-02T20:00:00Z")!)
            #expect(summary.failed == 0, "\(summary.failures)")
            #expect(Set(server.requests.compactMap { $0.json?["response_format"]?["json_schema"]?["name"]?.stringValue })
                    == ["carpools", "calendar_events"])
            #expect(try await chat.visibleRows(to: chat.dan, db) == ["2026-03-03 \(chat.ana.postgresValue)"])
            let provenance = try await db.pool.query("SELECT prompt_id, run_id = $1 AS ours FROM carpools", [summary.runID])
            #expect(try provenance.map { try $0.decode("prompt_id", as: String.self) } == ["carpools"])
            #expect(try provenance.map { try $0.decode("ours", as: Bool.self) } == [true])
        }
    }
}
