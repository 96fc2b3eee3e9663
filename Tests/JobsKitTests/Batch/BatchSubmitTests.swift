import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import PromptKit
import Testing
import TestSupport

@Suite(.serialized) struct BatchSubmitTests {
    @Test func submittedLinesAndBatchRequestConformToOpenAIsSchemas() async throws {
        let openAPI = try BatchHarness.openAPI()
        let chatSchema = try JSONSchema(["$ref": "#/components/schemas/CreateChatCompletionRequest"], root: openAPI)
        let batchSchema = try JSONSchema(["$ref": "#/components/schemas/CreateBatchRequest"], root: openAPI)
        let batchObjectSchema = try JSONSchema(["$ref": "#/components/schemas/Batch"], root: openAPI)
        let fileSchema = try JSONSchema(["$ref": "#/components/schemas/OpenAIFile"], root: openAPI)
        try await BatchHarness.with(lifecycle: .holdInProgress) { h in
            let summary = try await h.submit(mode: .perFeature)
            #expect(summary.status == .submitted)
            #expect(summary.conversations == 4)
            #expect(summary.failed == 0)

            // The upload: multipart with purpose "batch" and one JSONL line per request.
            let upload = try #require(h.server.requests.first { $0.path == "/v1/files" })
            #expect(upload.method == "POST")
            #expect(upload.header("content-type")?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(upload.header("authorization") == "Bearer sk-test-not-a-real-key")
            #expect(h.server.batches.uploads.first?.purpose == "batch")
            let lines = try h.uploadedLines()
            #expect(lines.count == summary.requests)
            #expect(lines.count == 4 * 5)  // four short conversations, five features, one window each
            var customIDs: Set<String> = []
            for line in lines {
                #expect(line.objectValue?.keys.sorted() == ["body", "custom_id", "method", "url"])
                #expect(line["method"] == "POST" && line["url"] == "/v1/chat/completions")
                let body = try #require(line["body"])
                let problems = chatSchema.validate(body)
                #expect(problems.isEmpty, "\(problems.prefix(3))")
                #expect(body["response_format"]?["json_schema"]?["strict"] == true)
                let customID = try #require(line["custom_id"]?.stringValue)
                #expect(customID.hasPrefix(summary.batchID.uuidString.lowercased() + ":"))
                customIDs.insert(customID)
            }
            #expect(customIDs.count == lines.count)

            // The batch request: conforms to CreateBatchRequest and points at the uploaded file.
            let create = try #require(h.server.requests.first { $0.path == "/v1/batches" })
            let createBody = try #require(create.json)
            #expect(batchSchema.validate(createBody).isEmpty, "\(batchSchema.validate(createBody).prefix(3))")
            #expect(createBody["input_file_id"]?.stringValue == h.server.batches.uploads.first?.id)
            #expect(createBody["endpoint"] == "/v1/chat/completions" && createBody["completion_window"] == "24h")
            #expect(createBody["metadata"]?["messageai_batch_id"]?.stringValue == summary.batchID.uuidString.lowercased())
            // And the fake's answer is a Batch as the spec describes it (so the client is tested against the real shape).
            let remote = try await h.client.batch(try #require(summary.remoteBatchID))
            #expect(remote.status == .inProgress)
            let batchJSON = try JSONValue.parse(try await h.rawGet("batches/\(remote.id)"))
            #expect(batchObjectSchema.validate(batchJSON).isEmpty, "\(batchObjectSchema.validate(batchJSON).prefix(3))")

            let fileJSON = try JSONValue.parse(try await h.rawGet("files/\(try #require(h.server.batches.uploads.first?.id))"))
            #expect(fileSchema.validate(fileJSON).isEmpty, "\(fileSchema.validate(fileJSON).prefix(3))")
            h.server.batches.complete()
            let completedJSON = try JSONValue.parse(try await h.rawGet("batches/\(remote.id)"))
            #expect(batchObjectSchema.validate(completedJSON).isEmpty, "\(batchObjectSchema.validate(completedJSON).prefix(3))")
            #expect(completedJSON["output_file_id"]?.stringValue != nil)

            // Recorded: the batch, its conversations and items; the conversations leased to the batch past the window.
            #expect(try await h.count("SELECT count(*) AS n FROM llm_batches WHERE status = 'submitted' AND remote_batch_id = $1",
                                      [summary.remoteBatchID]) == 1)
            #expect(try await h.count("SELECT count(*) AS n FROM llm_batch_items WHERE batch_id = $1", [summary.batchID]) == lines.count)
            let items = try await h.db.pool.query("SELECT custom_id FROM llm_batch_items")
            #expect(Set(try items.map { try $0.decode("custom_id", as: String.self) }) == customIDs)
            let marks = try await h.watermarks()
            #expect(marks.count == 4)
            for mark in marks.values {
                #expect(mark.leaseOwner == "batch:" + summary.batchID.uuidString.lowercased())
                #expect(mark.lastMessageID == nil)
                #expect((mark.leaseExpires ?? .distantPast) > Date().addingTimeInterval(24 * 3600))
            }
            #expect(h.server.requests.allSatisfy { $0.path != "/v1/chat/completions" })  // nothing asked synchronously
        }
    }

    @Test func collectBeforeCompletionWritesNothingAndASynchronousScanSkipsTheBatch() async throws {
        try await BatchHarness.with(lifecycle: .holdInProgress) { h in
            let submitted = try await h.submit(mode: .perFeature)
            let marksBefore = try await h.watermarks()
            let collected = try await h.collect()
            #expect(collected.count == 1)
            #expect(collected.first?.remoteStatus == "in_progress")
            #expect(collected.first?.status == .submitted)
            #expect(collected.first?.applied == 0)
            #expect(try await h.rows().isEmpty)
            #expect(try await h.watermarks() == marksBefore)

            let scan = try await h.syncScan(mode: .perFeature)
            #expect(scan.conversations == 0 && scan.failed == 0)
            #expect(h.server.requests.allSatisfy { $0.path != "/v1/chat/completions" })
            #expect(try await h.rows().isEmpty)

            // A second submit finds nothing to claim.
            let second = try await h.submit(mode: .perFeature)
            #expect(second.status == .empty && second.conversations == 0)
            #expect(h.server.batches.uploads.count == 1)
            let listing = try await BatchStatusService(pool: h.db.pool).list()
            #expect(listing.map(\.status.rawValue).sorted() == ["empty", "submitted"])
            #expect(listing.first { $0.id == submitted.batchID }?.requests == submitted.requests)
        }
    }

    @Test func aRefusedBatchReleasesEveryConversationAndRecordsWhy() async throws {
        try await BatchHarness.with { h in
            h.server.batches.rejectCreates("quota exceeded for batch tokens")
            let error = await #expect(throws: LLMError.self) { try await h.submit(mode: .perFeature) }
            #expect(error?.description.contains("HTTP 400") == true && error?.description.contains("quota exceeded") == true)
            #expect(try await h.watermarks().values.allSatisfy { $0.leaseOwner == nil && $0.lastMessageID == nil && $0.failures == 0 })
            let listing = try #require(try await BatchStatusService(pool: h.db.pool).list().first)
            #expect(listing.status == .failed && listing.error?.contains("quota exceeded") == true)
            #expect(try await h.count("SELECT count(*) AS n FROM job_runs WHERE kind = 'batch' AND status = 'failed'") == 1)

            // Nothing is lost: the next attempt claims the same conversations.
            h.server.batches.rejectCreates(nil)
            let retry = try await h.submit(mode: .perFeature)
            #expect(retry.status == .submitted && retry.conversations == 4)
        }
    }

    @Test func promptsNamingDifferentModelsAreRefusedBeforeAnythingIsClaimed() async throws {
        try await BatchHarness.with { h in
            // A provider whose model differs per prompt cannot share one batch file.
            struct PerFeatureModel: AnswerProvider {
                var name: String { "openai" }
                func modelName(for prompt: Prompt) -> String { prompt.id == "rsvps" ? "gpt-4o" : prompt.model }
                func answer(_ request: AnswerRequest) async throws -> ProviderAnswer { ProviderAnswer(json: .null) }
            }
            let engine = try ExtractionEngine(prompts: h.engine.prompts, provider: PerFeatureModel())
            let error = await #expect(throws: JobsError.self) {
                try await BatchSubmitService(pool: h.db.pool, engine: engine, client: h.client, options: BatchOptions()).run(now: BatchHarness.now)
            }
            #expect(error?.code == .invalidInput)
            #expect(error?.description.contains("only one model") == true && error?.description.contains("--model") == true)
            #expect(try await h.watermarks().values.allSatisfy { $0.leaseOwner == nil })
            #expect(h.server.requests.isEmpty)
        }
    }
}

extension BatchHarness {
    /// The fake server's raw answer to a GET, to check its shape against the spec.
    func rawGet(_ path: String) async throws -> Data {
        let response = try await AsyncHTTPClientTransport.shared.send(HTTPRequest(
            method: "GET", url: server.baseURL.appendingPathComponent(path), timeout: .seconds(5)))
        return response.body
    }
}
