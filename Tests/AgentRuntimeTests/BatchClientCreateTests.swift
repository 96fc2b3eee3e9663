import AgentRuntime
import Foundation
import Core
import TestSupport
import Testing

/// Uploads and batch creates are not idempotent: a create whose answer is lost must not be sent again blindly.
@Suite("Batch client creates")
struct BatchClientCreateTests {
    func makeBatchClient(_ server: FakeOpenAIServer, attempts: Int = 3) -> OpenAIBatchClient {
        OpenAIBatchClient(configuration: server.client(apiKey: "sk-test-key", retry: FakeOpenAIServer.quickRetries(attempts)).configuration)
    }

    static let line = #"{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}"# + "\n"

    @Test("an upload whose answer was lost is found in the file list, not uploaded twice")
    func uploadAnswerLost() async throws {
        let server = try FakeOpenAIServer(fallback: { _ in .chat(content: "{}") })
        defer { server.stop() }
        server.batches.loseAnswers(toNextCreates: 1)
        let client = makeBatchClient(server)
        let file = try await client.uploadBatchFile(Data(Self.line.utf8), filename: "messageai-scan-1.jsonl")
        #expect(server.batches.uploads.count == 1)
        #expect(file.id == server.batches.uploads.first?.id)
        #expect(server.requests.map { "\($0.method) \($0.path.split(separator: "?").first ?? "")" } == ["POST /v1/files", "GET /v1/files"])
    }

    @Test("a batch create whose answer was lost is found by its input file, not created twice")
    func createAnswerLost() async throws {
        let server = try FakeOpenAIServer(fallback: { _ in .chat(content: "{}") })
        defer { server.stop() }
        let client = makeBatchClient(server)
        let file = try await client.uploadBatchFile(Data(Self.line.utf8), filename: "messageai-scan-2.jsonl")
        server.batches.loseAnswers(toNextCreates: 1)
        let batch = try await client.createBatch(inputFileID: file.id, metadata: ["messageai_batch_id": "b2"])
        #expect(server.batches.batches.count == 1)
        #expect(batch.id == server.batches.batches.first?.id)
        #expect(batch.inputFileID == file.id)
    }

    @Test("when the lost create did not happen, the lookup finds nothing and the create is sent again once")
    func createNotApplied() async throws {
        let server = try FakeOpenAIServer(fallback: { _ in .chat(content: "{}") })
        defer { server.stop() }
        let client = makeBatchClient(server)
        let file = try await client.uploadBatchFile(Data(Self.line.utf8), filename: "messageai-scan-3.jsonl")
        // A 503 from a proxy in front of the API: nothing was created.
        server.batches.refuseNextCreates(1)
        let batch = try await client.createBatch(inputFileID: file.id)
        #expect(server.batches.batches.count == 1)
        #expect(batch.inputFileID == file.id)
        let paths = server.requests.map { "\($0.method) \($0.path.split(separator: "?").first ?? "")" }
        #expect(paths == ["POST /v1/files", "POST /v1/batches", "GET /v1/batches", "POST /v1/batches"])
    }

    @Test("the batch client honours the policy's total budget")
    func totalBudget() async throws {
        let server = try FakeOpenAIServer(fallback: { _ in .chat(content: "{}") })
        defer { server.stop() }
        let file = try await makeBatchClient(server).uploadBatchFile(Data(Self.line.utf8), filename: "messageai-scan-4.jsonl")
        server.batches.refuseNextCreates(5, retryAfter: "2")
        let client = OpenAIBatchClient(configuration: server.client(apiKey: "sk-test-key", retry: RetryPolicy.modelCalls(maxAttempts: 5, totalBudget: .seconds(1))).configuration)
        await #expect(throws: LLMError.self) { _ = try await client.createBatch(inputFileID: file.id) }
        #expect(server.requests.count == 2)
        #expect(server.batches.batches.isEmpty)
    }
}
