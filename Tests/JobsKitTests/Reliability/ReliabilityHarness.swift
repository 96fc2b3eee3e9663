import AgentRuntime
import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import PromptKit
import TestSupport
import Testing

/// What the reliability tests share: the real client and engine against a fake server, snapshots of the AI rows
/// that say whether a conversation was written whole or not at all, and the CLI as a child process.
enum Reliability {
    static let now = ScanHarness.now

    static var promptsURL: URL { RepositoryPaths.root.appendingPathComponent("prompts") }
    static func prompts() throws -> PromptLibrary { try PromptLibrary.load(directory: promptsURL) }

    /// The real client with a short per-attempt timeout and quick retries, so fault tests stay fast.
    /// The model timeout is far above a loaded run's stalls (a 400 ms one made a saturated full run read as a model
    /// outage and defer a whole scan); the tests that inject timeouts pass `faultTimeout`.
    static func client(_ server: FakeOpenAIServer, apiKey: String = FakeOpenAIServer.testAPIKey, attempts: Int = 3,
                       timeout: Duration = .seconds(30)) -> OpenAIClient {
        server.client(apiKey: apiKey, timeout: timeout, retry: FakeOpenAIServer.quickRetries(attempts), maxConcurrency: 64)
    }

    /// The timeout of tests whose scripted server delays answers past it (`ModelFault.timeout`).
    static let faultTimeout: Duration = .milliseconds(400)

    static func engine(_ server: FakeOpenAIServer, attempts: Int = 3, timeout: Duration = .seconds(30)) throws -> ExtractionEngine {
        try ExtractionEngine(prompts: try prompts(),
                             provider: LLMAnswerProvider(client: client(server, attempts: attempts, timeout: timeout), structuredOutput: .jsonSchema))
    }

    static func scan(_ db: TestDatabase, _ engine: ExtractionEngine, configure: (inout ScanOptions) -> Void = { _ in }) async throws -> ScanService.Summary {
        var options = ScanHarness.options()
        configure(&options)
        return try await ScanService(pool: db.pool, engine: engine, options: options).run(now: now)
    }

    /// Every AI row of one conversation (or all), by key and content: no ids, run ids or write times.
    static func aiRows(_ pool: PostgresPool, conversation: UUID? = nil) async throws -> [String] {
        let queries = [
            "SELECT 'event ' || row(idempotency_key, message_id, source_message_ids, title, date, time, end_time, location, category, confidence)::text AS r, conversation_id AS c FROM calendar_events",
            "SELECT 'decision ' || row(idempotency_key, message_id, decision_text, category, decided_by, deadline)::text AS r, conversation_id AS c FROM decisions",
            "SELECT 'priority ' || row(idempotency_key, message_id, priority, reason, action_required)::text AS r, conversation_id AS c FROM priority_messages",
            "SELECT 'rsvp ' || row(idempotency_key, user_id, event_name, requested_by, deadline, event_date, status, response)::text AS r, conversation_id AS c FROM rsvp_tracking",
            "SELECT 'deadline ' || row(idempotency_key, user_id, task, deadline, deadline_time, priority)::text AS r, conversation_id AS c FROM deadlines",
            "SELECT 'reminder ' || row(idempotency_key, user_id, title, reminder_time, priority, created_by)::text AS r, conversation_id AS c FROM reminders",
        ]
        var rows: [String] = []
        for sql in queries {
            let filtered = conversation == nil ? sql : "SELECT r FROM (\(sql)) AS t WHERE c = $1"
            rows += try await pool.query(filtered, conversation.map { [$0] } ?? []).map { try $0.decode("r", as: String.self) }
        }
        return rows.sorted()
    }

    /// The AI rows plus every conversation's watermark position: equal snapshots mean equal scan outcomes.
    static func outcome(_ pool: PostgresPool) async throws -> [String] {
        let watermarks = try await pool.query(
            "SELECT 'watermark ' || row(conversation_id, last_message_at AT TIME ZONE 'UTC', last_message_id)::text AS r FROM scan_watermarks ORDER BY 1")
        return try await aiRows(pool) + watermarks.map { try $0.decode("r", as: String.self) }
    }

    struct WatermarkRow: Equatable, CustomStringConvertible {
        var lastMessageAt: Date?
        var lastMessageID: UUID?
        var failures: Int
        var lastError: String?
        var leaseOwner: String?

        var description: String { "(\(lastMessageAt.map { "\($0)" } ?? "nil"), \(lastMessageID?.uuidString ?? "nil"), failures \(failures), lease \(leaseOwner ?? "nil"))" }
        var position: String { "\(lastMessageAt?.timeIntervalSince1970 ?? 0) \(lastMessageID?.uuidString ?? "-")" }
    }

    static func watermark(_ pool: PostgresPool, _ conversation: UUID) async throws -> WatermarkRow {
        let row = try #require(try await pool.query(
            "SELECT last_message_at, last_message_id, failures, last_error, lease_owner FROM scan_watermarks WHERE conversation_id = $1",
            [conversation]).first, "no watermark row for \(conversation)")
        return WatermarkRow(lastMessageAt: try row.decode("last_message_at"), lastMessageID: try row.decode("last_message_id"),
                            failures: try row.decode("failures"), lastError: try row.decode("last_error"),
                            leaseOwner: try row.decode("lease_owner"))
    }

    /// Row counts of every table in the test's schema: equal before and after means nothing was written.
    static func tableCounts(_ db: TestDatabase, excluding: Set<String> = []) async throws -> [String: Int] {
        let tables = try await db.pool.query(
            "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'", [db.schema])
        var counts: [String: Int] = [:]
        for row in tables {
            let table: String = try row.decode("t")
            guard !excluding.contains(table) else { continue }
            counts[table] = try await db.pool.query("SELECT count(*) AS n FROM \(db.schema).\"\(table)\"")[0].decode("n")
        }
        return counts
    }

    /// The conversation's prompt: the last user message with a `<messages>` block (examples come before it, and a
    /// re-ask's last message is the schema complaint).
    static func prompt(of request: RecordedRequest) -> String {
        let users = request.json?["messages"]?.arrayValue?.filter { $0["role"] == "user" }.compactMap { $0["content"]?.stringValue } ?? []
        return users.last { $0.contains("<messages>") } ?? ""
    }

    static func conversation(of request: RecordedRequest) -> String {
        let line = prompt(of: request).split(separator: "\n").first { $0.hasPrefix("Conversation: ") }
        return line.map { String($0.dropFirst("Conversation: ".count)) } ?? "?"
    }

    static var executable: URL { ScanHarness.executable }

    /// Every file under `directory` (an eval's report and cache) with its text, for the secret checks.
    static func files(under directory: URL) throws -> [(name: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil))
        var files: [(name: String, text: String)] = []
        for case let file as URL in enumerator {
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            files.append((file.lastPathComponent, String(decoding: data, as: UTF8.self)))
        }
        return files
    }

    /// The CLI with a clean environment: the test's database, and the fake server when one is given.
    static func cli(_ arguments: [String], databaseURL: String?, server: URL? = nil, apiKey: String? = "sk-test-not-a-real-key",
                    extra: [String: String] = [:], timeout: Double = 60) async throws -> (termination: SpawnedProcess.Termination, stdout: String, stderr: String) {
        try await SpawnedProcess.run(executable, arguments: arguments, environment: environment(databaseURL: databaseURL, server: server, apiKey: apiKey, extra: extra),
                                   timeout: timeout)
    }

    static func environment(databaseURL: String?, server: URL?, apiKey: String? = "sk-test-not-a-real-key", extra: [String: String] = [:]) -> [String: String] {
        var environment = SpawnedProcess.inheritedEnvironment()
        environment["DATABASE_URL"] = databaseURL
        environment["OPENAI_BASE_URL"] = server?.absoluteString
        if server != nil { environment["OPENAI_API_KEY"] = apiKey }
        environment["LOG_LEVEL"] = "error"
        environment.merge(extra) { _, new in new }
        return environment
    }
}

/// A counter shared with the fake server's handler threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    /// Adds one to `key` and returns the new count.
    func next(_ key: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        counts[key, default: 0] += 1
        return counts[key]!
    }

    func count(_ key: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[key, default: 0]
    }
}

/// A flag the test flips while the fake server's threads read it.
final class Switch: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Bool

    init(_ value: Bool) { self.value = value }

    var isOn: Bool {
        get { lock.lock(); defer { lock.unlock() }; return value }
        set { lock.lock(); value = newValue; lock.unlock() }
    }
}

struct ReliabilityTimeout: Error, CustomStringConvertible {
    let description: String
}

/// Runs `body`, cancelling it and throwing if it takes longer than `seconds`: a test of a hang must fail, not hang.
func withTimeout<T: Sendable>(_ seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw ReliabilityTimeout(description: "\(what) did not finish within \(seconds) s")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
