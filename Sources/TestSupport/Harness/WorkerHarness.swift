import AgentRuntime
import Core
import Extractors
package import Foundation
package import JobsKit
package import Postgres
import PromptKit
import JobsCLI

/// Demo data in a fresh database plus the pieces a worker needs, for the worker tests.
package enum WorkerHarness {
    /// Wednesday 2026-03-04, noon in New York (the demo's dates are relative to it).
    package static let now = FixedTime.wednesdayNoon
    package static let conversations = DemoDataset.conversationIDs
    package static let users = DemoDataset.userIDs

    package static var promptsPath: String { RepositoryPaths.root.appendingPathComponent("prompts").path }

    /// A fresh database with the demo conversations loaded.
    package static func withDemo<T: Sendable>(maxConnections: Int = 8, _ body: (TestDatabase) async throws -> T) async throws -> T {
        try await TestDatabase.with(maxConnections: maxConnections) { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: now))
            return try await body(db)
        }
    }

    /// Extraction with the rule-based provider: no LLM, fast, deterministic.
    package static func rulesHandler(_ pool: PostgresPool) throws -> JobRequestHandler {
        let engine = try ExtractionEngine(prompts: try ProviderFactory.library(promptsPath: promptsPath, environment: [:]), provider: RulesAnswerProvider())
        return JobRequestHandler(extract: ExtractService(pool: pool, engine: engine), assist: nil)
    }

    /// Extraction through the real OpenAI client against a fake server.
    /// `model`: every prompt's model replaced (nil: the prompts' own).
    package static func llmHandler(_ pool: PostgresPool, server: FakeOpenAIServer, model: String? = nil) throws -> JobRequestHandler {
        let client = server.client(retry: FakeOpenAIServer.quickRetries(1), maxConcurrency: 64)
        let engine = try ExtractionEngine(prompts: try ProviderFactory.library(promptsPath: promptsPath, environment: [:]),
                                          provider: LLMAnswerProvider(client: client, structuredOutput: .jsonSchema, modelOverride: model))
        return JobRequestHandler(extract: ExtractService(pool: pool, engine: engine), assist: nil)
    }

    /// Options for in-process tests: a unique owner, short backoff, a long poll unless told otherwise.
    package static func options(pollSeconds: Double = 30, once: Bool = false) -> WorkerOptions {
        var options = WorkerOptions()
        options.poll = .milliseconds(Int64(pollSeconds * 1000))
        options.once = once
        options.retry.baseDelay = .milliseconds(50)
        options.retry.maxDelay = .milliseconds(200)
        options.grace = .seconds(5)
        return options
    }

    /// Starts a serving worker and returns once it is listening and has made its first claim pass.
    package static func start(_ worker: RequestWorker) async throws -> Task<WorkerSummary, any Error> {
        let (ready, continuation) = AsyncStream<Void>.makeStream()
        let task = Task {
            defer { continuation.finish() }
            return try await worker.run(ready: { continuation.yield() })
        }
        var iterator = ready.makeAsyncIterator()
        if await iterator.next() == nil {
            _ = try await task.value
            throw HarnessError("the worker stopped before it was ready")
        }
        return task
    }

    package struct RequestRow: Sendable {
        package let status: String
        package let attempts: Int
        package let leaseOwner: String?
        package let leaseExpiresAt: Date?
        package let notBefore: Date
        package let runID: UUID?
        package let error: String?
        package let finishedAt: Date?
    }

    package static func row(_ id: Int64, _ pool: PostgresPool) async throws -> RequestRow {
        let rows = try await pool.query(
            "SELECT status, attempts, lease_owner, lease_expires_at, not_before, run_id, error, finished_at FROM job_requests WHERE id = $1",
            [id])
        guard let row = rows.first else { throw HarnessError("no job request \(id)") }
        return RequestRow(
            status: try row.decode("status"), attempts: try row.decode("attempts"), leaseOwner: try row.decode("lease_owner"),
            leaseExpiresAt: try row.decode("lease_expires_at"), notBefore: try row.decode("not_before"),
            runID: try row.decode("run_id"), error: try row.decode("error"), finishedAt: try row.decode("finished_at"))
    }

    /// Polls the table until every request is done or failed, or `timeout` passes (then throws, naming the stragglers).
    package static func waitUntilFinished(_ ids: [Int64], _ pool: PostgresPool, timeout: Double) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let open = try await pool.query(
                "SELECT id, status FROM job_requests WHERE id = ANY($1::bigint[]) AND status NOT IN ('done', 'failed') ORDER BY id", [ids])
            if open.isEmpty { return }
            if Date() > deadline {
                let states = try open.map { "\(try $0.decode("id", as: Int64.self)): \(try $0.decode("status", as: String.self))" }
                throw HarnessError("requests still open after \(timeout) s: \(states.joined(separator: ", "))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

package struct HarnessError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
