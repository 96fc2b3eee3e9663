import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import PromptKit
import TestSupport
import Testing

/// `scan --combined`: one request per conversation window for all five features, against the scripted server.
@Suite("Scan: combined requests")
struct ScanCombinedTests {
    static let features = ExtractionFeature.allCases.map(\.rawValue)

    static func combinedEngine(_ server: FakeOpenAIServer) throws -> ExtractionEngine {
        var engine = try ScanHarness.engine(server)
        engine.mode = .combined
        return engine
    }

    /// The last user message of a recorded request.
    static func lastUser(_ request: RecordedRequest) -> String { ScanRequests.userText(request) }

    @Test func aCombinedScanWritesTheRowsOfThePerFeatureScanWithAFifthOfTheRequests() async throws {
        let workload = try ScanHarness.workload(conversations: 4, active: 4, newMessages: 4)
        let server = try FakeOpenAIServer { ScanRequests.answer($0) }
        defer { server.stop() }
        let (perFeature, perFeatureRequests) = try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(server))
            #expect(summary.failed == 0, "\(summary.failures)")
            return (try await ScanHarness.rowSet(db), summary.requests)
        }
        let before = server.requests.count
        let (combined, combinedRequests) = try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let summary = try await ScanHarness.scan(db, try Self.combinedEngine(server))
            #expect(summary.failed == 0, "\(summary.failures)")
            return (try await ScanHarness.rowSet(db), summary.requests)
        }
        #expect(perFeature.contains { $0.hasPrefix("event ") })
        #expect(perFeature.contains { $0.hasPrefix("priority ") })
        #expect(perFeature.contains { $0.hasPrefix("deadline ") })
        #expect(combined == perFeature)
        #expect(perFeatureRequests == 4 * 5)
        #expect(combinedRequests == 4)
        let sent = Array(server.requests.dropFirst(before))
        #expect(sent.count == 4)
        #expect(sent.allSatisfy { ScanRequests.feature($0) == "combined" })
    }

    /// The wire shape: a Chat Completions request valid for OpenAI's OpenAPI description, `response_format` of type
    /// `json_schema`, strict, whose schema is the five feature schemas side by side, strict-mode clean.
    @Test func theCombinedRequestIsAStrictJSONSchemaRequestOpenAIAccepts() async throws {
        let workload = try ScanHarness.workload(conversations: 1, active: 1, newMessages: 3)
        let server = try FakeOpenAIServer { ScanRequests.answer($0) }
        defer { server.stop() }
        let engine = try Self.combinedEngine(server)
        try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let summary = try await ScanHarness.scan(db, engine)
            #expect(summary.failed == 0, "\(summary.failures)")
        }
        let request = try #require(server.requests.first?.json)
        let openAPI = try Self.openAPI()
        let schema = try JSONSchema(["$ref": "#/components/schemas/CreateChatCompletionRequest"], root: openAPI)
        let violations = schema.validate(request)
        #expect(violations.isEmpty, "\(violations.prefix(5))")

        let format = try #require(request["response_format"])
        #expect(format["type"] == "json_schema")
        #expect(format["json_schema"]?["strict"] == .bool(true))
        #expect(format["json_schema"]?["name"] == "combined")
        let sent = try #require(format["json_schema"]?["schema"])
        #expect(sent["properties"]?.objectValue?.keys == Self.features)
        #expect(sent["required"] == .array(Self.features.map { .string($0) }))
        #expect(sent["additionalProperties"] == .bool(false))
        #expect(StrictSchemaLint.problems(in: sent).isEmpty)
        #expect(sent == StrictSchemaLint.compactWireSchema(try engine.combinedSchema(ExtractionFeature.allCases)))
        #expect(!sent.serialized().contains("maxLength"))
        #expect(!sent.serialized().contains("copied verbatim"), "descriptions stay out of the strict wire schema")
        // Each part is exactly what the feature's own request sends.
        for feature in ExtractionFeature.allCases {
            let own = StrictSchemaLint.compactWireSchema(try engine.prompt(for: feature).outputSchema ?? .null)
            #expect(sent["properties"]?[feature.rawValue] == own, "\(feature.rawValue)")
        }
    }

    /// One feature's part invalid twice fails the conversation exactly as an invalid per-feature answer does: one re-ask
    /// with the errors (paths under that feature), then the same error, nothing written, retried by the next scan.
    @Test func anInvalidPartIsReaskedOnceThenFailsTheConversationLikeAnInvalidAnswer() async throws {
        let workload = try ScanHarness.workload(conversations: 1, active: 1, newMessages: 3)
        let broken: @Sendable (RecordedRequest) -> ScriptedReply = { request in
            if ScanRequests.feature(request) == "rsvps" { return .chat(content: #"{"rsvps":"none"}"#) }
            guard case .chat(let content, _, let usage) = ScanRequests.answer(request), ScanRequests.feature(request) == "combined",
                  case .object(var answer)? = try? JSONValue.parse(content) else { return ScanRequests.answer(request) }
            answer["rsvps"] = ["rsvps": "none"]
            return .chat(content: JSONValue.object(answer).serialized(), usage: usage)
        }
        // Today's behaviour, per feature.
        let perFeatureServer = try FakeOpenAIServer(fallback: broken)
        defer { perFeatureServer.stop() }
        let perFeatureError = try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(perFeatureServer))
            #expect(summary.failed == 1)
            return summary.failures.first?.error ?? ""
        }
        #expect(perFeatureError.hasPrefix("rsvps: the model's answer does not match the schema after one re-ask"), "\(perFeatureError)")

        // The re-ask of a combined request has no <messages> block of its own: answer it from the original one.
        let server = try FakeOpenAIServer { request in
            guard Self.lastUser(request).hasPrefix("Your answer is not valid") else { return broken(request) }
            let previous = request.json?["messages"]?.arrayValue?.dropLast().last?["content"]?.stringValue ?? ""
            return .chat(content: previous)
        }
        defer { server.stop() }
        try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let summary = try await ScanHarness.scan(db, try Self.combinedEngine(server))
            #expect(summary.failed == 1)
            #expect(summary.conversations == 0)
            let error = summary.failures.first?.error ?? ""
            #expect(error.hasPrefix("rsvps: the model's answer does not match the schema after one re-ask"), "\(error)")
            #expect(error.contains("$.rsvps.rsvps"), "\(error)")
            #expect(server.requests.count == 2)
            let reask = Self.lastUser(try #require(server.requests.last))
            #expect(reask.contains("$.rsvps.rsvps"), "\(reask)")
            #expect(!reask.contains("$.calendar_events"), "only the broken part is reported: \(reask)")
            // Nothing written; the watermark records the failure, so the next scan retries the conversation.
            #expect(try await ScanHarness.rowSet(db).allSatisfy { $0.hasPrefix("watermark ") })
            let failures: [Int] = try await db.pool.query("SELECT failures FROM scan_watermarks").map { try $0.decode("failures") }
            #expect(failures == [1])
        }
    }

    /// An invalid part corrected by the re-ask is stored like a corrected per-feature answer, and the re-ask is counted.
    @Test func aPartCorrectedByTheReaskIsStored() async throws {
        let workload = try ScanHarness.workload(conversations: 1, active: 1, newMessages: 3)
        let reference = try await TestDatabase.with { db in
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            try await ScanHarness.load(workload, into: db)
            _ = try await ScanHarness.scan(db, try Self.combinedEngine(server))
            return try await ScanHarness.rowSet(db)
        }
        let server = try FakeOpenAIServer { request in
            let reasked = Self.lastUser(request).hasPrefix("Your answer is not valid")
            guard reasked else {
                guard case .chat(let content, _, _) = ScanRequests.answer(request), case .object(var answer)? = try? JSONValue.parse(content)
                else { return ScanRequests.answer(request) }
                answer["deadlines"] = ["deadlines": [["task": 7]]]
                return .chat(content: JSONValue.object(answer).serialized())
            }
            // The corrected answer: the previous one with the valid deadlines part the first request would have had.
            let messages = request.json?["messages"]?.arrayValue ?? []
            guard messages.count >= 3, case .object(var previous)? = try? JSONValue.parse(messages[messages.count - 2]["content"]?.stringValue ?? ""),
                  case .object(var original)? = request.json else { return .error(status: 400, message: "unexpected re-ask") }
            original["messages"] = .array(Array(messages.dropLast(2)))
            var replay = request
            replay.json = .object(original)
            previous["deadlines"] = ScanRequests.featureAnswer("deadlines", replay)
            return .chat(content: JSONValue.object(previous).serialized())
        }
        defer { server.stop() }
        try await TestDatabase.with { db in
            try await ScanHarness.load(workload, into: db)
            let summary = try await ScanHarness.scan(db, try Self.combinedEngine(server))
            #expect(summary.failed == 0, "\(summary.failures)")
            #expect(summary.requests == 2)
            #expect(try await ScanHarness.rowSet(db) == reference)
        }
    }

    static func openAPI() throws -> JSONValue {
        let file = RepositoryPaths.root.deletingLastPathComponent().appendingPathComponent("shared/openai-openapi/openapi.json")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ScanTestError("required fixture is missing: \(file.path)")
        }
        return try JSONValue.parse(data)
    }
}
