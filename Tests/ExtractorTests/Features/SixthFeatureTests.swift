import AgentRuntime
import Chrono
@testable import Extractors
import Foundation
import JSONKit
import JobsKit
import PromptKit
import Testing
import TestSupport

// A sixth feature is one Swift type (this file's `Carpools`) plus its prompt and schema
// (Resources/SixthFeature/prompts/carpools.yaml, schemas/carpools.schema.json). Nothing else in the code base
// changes: the engine, the checks, the merge and the report lines all go through `ParentFeature`.

/// Who drives the children on which day.
struct CarpoolItem: Sendable, Hashable, Codable {
    var driver: String?
    var date: LocalDate
    var datePhrase: String?
    var modelDate: LocalDate?
    var sources: [String]
}

struct Carpools: ParentFeature {
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

    func mergeKey(_ item: CarpoolItem) -> String { "\(item.sources.first ?? ""):\(item.date.iso)" }

    func rulesAnswer(_ scan: RuleScan) -> JSONValue { ["carpools": []] }

    /// A test feature has no table of its own.
    func writeRows(_ items: [CarpoolItem], prompt: PromptRef, to rows: inout RowWriter) async throws {}

    var staleRowsSQL: String { "SELECT 1 WHERE $1::uuid IS NULL AND $2::text[] IS NULL" }

    func reportLine(_ item: CarpoolItem) -> String { "\(item.date.iso) \(item.driver ?? "someone") drives" }
}

@Suite struct SixthFeatureTests {
    static let carpools = Carpools()
    static let registry = FeatureRegistry.parents.adding(carpools)

    static let ana = Participant(id: "u-ana", name: "Ana Ruiz")
    static let dan = Participant(id: "u-dan", name: "Dan Kim")
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

    /// The shipped prompts plus the sixth feature's.
    static func prompts() throws -> PromptLibrary {
        guard let directory = Bundle.module.url(forResource: "SixthFeature", withExtension: nil)?.appendingPathComponent("prompts") else {
            throw ExtractionError.invalidInput("the SixthFeature test resources are missing")
        }
        let sixth = try PromptLibrary.load(directory: directory)
        return try PromptLibrary(prompts: try ExtractionHarness.prompts().all + sixth.all)
    }

    static func engine(_ server: FakeOpenAIServer, registry: FeatureRegistry = registry) throws -> ExtractionEngine {
        let client = OpenAIClient(configuration: LLMConfiguration(
            apiKey: "sk-test-not-a-real-key", baseURL: server.baseURL, structuredOutput: .jsonSchema,
            retryPolicy: RetryPolicy(maxAttempts: 1, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20))))
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
        #expect(ExtractReport.items(Self.carpools.id, run.extraction, registry: Self.registry) == ["2026-03-03 u-ana drives"])
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
            _ = try await Self.engine(server, registry: .parents).extract(Self.input, features: [Self.carpools.id])
        }
        #expect(server.requests.isEmpty)
        #expect(throws: ExtractionError.self) { _ = try FeatureRegistry.parents.parseList("calendar_events,carpools") }
        #expect(try Self.registry.parseList("carpools,calendar_events") == [.calendarEvents, Self.carpools.id])
    }
}
