import Foundation
import Core
import TestSupport
import Testing

/// What an operator reads on stderr: `LOG_FORMAT=json` lines from a real scan, the per-conversation and final lines,
/// the ids on the model client's lines, and an unknown `LOG_LEVEL` refused before any work.
@Suite("Operator logs")
struct OperatorLogTests {
    /// Every line of `stderr` parsed as a JSON object; a line that is not one fails the test.
    static func records(_ stderr: String) throws -> [JSONObject] {
        try stderr.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            let value: JSONValue
            do {
                value = try JSONValue.parse(String(line))
            } catch {
                Issue.record("not a JSON line: \(line)")
                throw error
            }
            guard let object = value.objectValue else { throw JSONLineError(line: String(line)) }
            for field in ["time", "level", "label", "message"] where object[field]?.stringValue == nil {
                Issue.record("no \(field) in \(line)")
            }
            return object
        }
    }

    struct JSONLineError: Error { let line: String }

    @Test func aRulesScanWithLogFormatJSONWritesOneJSONObjectPerLine() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 6, active: 6, newMessages: 4)
            try await ScanHarness.load(workload, into: db)
            let child = try ScanChild.start(
                ["scan", "--provider", "rules", "--prompts", ScanHarness.promptsPath, "--json"],
                environment: ["DATABASE_URL": db.connectionURL, "LOG_FORMAT": "json", "LOG_LEVEL": "debug"])
            #expect(try await child.waitForExit(timeout: 120) == .exit(0), "stderr: \(child.stderr)")
            let summary = try JSONValue.parse(Data(child.stdout.utf8))
            let runID = try #require(summary["run_id"]?.stringValue)
            let records = try Self.records(child.stderr)

            let scanned = records.filter { $0["message"]?.stringValue == "conversation scanned" }
            #expect(scanned.count == 6)
            #expect(Set(scanned.compactMap { $0["conversation"]?.stringValue }) == Set(workload.conversations.map { $0.id.uuidString.lowercased() }))
            for line in scanned {
                #expect(line["level"]?.stringValue == "info")
                #expect(line["run"]?.stringValue == runID)
                for field in ["new_messages", "items", "inserted", "requests", "prompt_tokens", "completion_tokens", "ms"] {
                    #expect(line[field]?.integerValue != nil, "\(field) is a JSON number in \(line)")
                }
            }
            let finished = records.filter { $0["message"]?.stringValue == "scan finished" }
            try #require(finished.count == 1)
            let last = finished[0]
            #expect(last["run"]?.stringValue == runID)
            #expect(last["status"]?.stringValue == "succeeded")
            #expect(last["conversations"] == .integer(6))
            #expect(last["failed"] == .integer(0))
            let items = summary["items"]?.objectValue.map { $0.reduce(Int64(0)) { $0 + ($1.value.integerValue ?? 0) } }
            #expect(last["items"]?.integerValue == items)
            #expect(last["seconds"]?.doubleValue != nil)
            // The summary's lists are capped; the count of conversations with findings is not.
            let found = summary["found"]?.arrayValue ?? []
            #expect(!found.isEmpty)
            #expect(found.allSatisfy { ($0["items"]?.arrayValue?.count ?? 0) <= 10 })
            #expect((summary["conversations_with_findings"]?.integerValue ?? 0) >= Int64(found.count))
        }
    }

    @Test func theModelClientsLinesCarryTheRunConversationAndFeature() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 2, active: 2, newMessages: 3)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { ScanRequests.answer($0) }
            defer { server.stop() }
            let key = "sk-test-not-a-real-key-but-long-enough"
            let child = try ScanChild.start(
                ["scan", "--provider", "openai", "--prompts", ScanHarness.promptsPath, "--no-prefilter", "--no-assist", "--json"],
                // Upper case: LOG_LEVEL is case-insensitive.
                environment: ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString, "OPENAI_API_KEY": key,
                              "LOG_FORMAT": "JSON", "LOG_LEVEL": "DEBUG"])
            #expect(try await child.waitForExit(timeout: 120) == .exit(0), "stderr: \(child.stderr)")
            #expect(!child.stderr.contains(key))
            let attempts = try Self.records(child.stderr).filter { $0["message"]?.stringValue == "LLM attempt finished" }
            #expect(attempts.count == server.requests.count)
            #expect(attempts.count >= 2)  // one combined request (the default) for each of the two conversations
            let ids = Set(workload.conversations.map { $0.id.uuidString.lowercased() })
            for line in attempts {
                #expect(line["label"]?.stringValue == "messageai.llm")
                #expect(line["run"]?.stringValue?.count == 36)
                #expect(line["conversation"]?.stringValue.map(ids.contains) == true, "\(line)")
                #expect(line["feature"]?.stringValue == "calendar_events,decisions,priority_messages,rsvps,deadlines", "\(line)")
            }
        }
    }

    @Test func theWorkerLogsOneJSONLinePerRequestServedWithItsIdAndKind() async throws {
        try await WorkerHarness.withDemo { db in
            let environment = ["DATABASE_URL": db.connectionURL]
            let enqueue = try ScanChild.start(
                ["request", "extract", "--conversation", WorkerHarness.conversations.birthday.uuidString], environment: environment)
            #expect(try await enqueue.waitForExit(timeout: 30).code == 0)
            let id = try #require(Int64(enqueue.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "stdout: \(enqueue.stdout)")
            let worker = try ScanChild.start(
                ["worker", "--once", "--provider", "rules", "--prompts", WorkerHarness.promptsPath],
                environment: environment.merging(["LOG_FORMAT": "json", "LOG_LEVEL": "info"]) { _, new in new })
            #expect(try await worker.waitForExit(timeout: 60).code == 0, "stderr: \(worker.stderr)")
            let served = try Self.records(worker.stderr).filter { $0["request"]?.integerValue == id && $0["result"] != nil }
            try #require(served.count == 1, "stderr: \(worker.stderr)")
            #expect(served[0]["level"]?.stringValue == "info")
            #expect(served[0]["kind"]?.stringValue == "extract")
            #expect(served[0]["result"]?.stringValue == "done")
            #expect(served[0]["run"]?.stringValue?.count == 36)
            #expect(served[0]["attempt"] == .integer(1) && served[0]["seconds"]?.doubleValue != nil, "numbers as JSON numbers: \(served[0])")
        }
    }

    @Test func anUnknownLogLevelStopsTheCommandBeforeAnyWork() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 2, active: 2, newMessages: 3)
            try await ScanHarness.load(workload, into: db)
            let child = try ScanChild.start(
                ["scan", "--provider", "rules", "--prompts", ScanHarness.promptsPath],
                environment: ["DATABASE_URL": db.connectionURL, "LOG_LEVEL": "loud"])
            let status = try await child.waitForExit(timeout: 60)
            #expect(status.code != 0)
            #expect(child.stderr.contains("LOG_LEVEL='loud' is not valid: expected trace, debug, info, notice, warning, error, critical"))
            let runs = try await db.pool.query("SELECT count(*)::int AS n FROM job_runs")
            #expect(try runs.first?.decode("n", as: Int.self) == 0)
        }
    }
}
