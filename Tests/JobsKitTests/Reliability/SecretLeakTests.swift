import Foundation
import Core
import Extractors
import JobsKit
import Postgres
import TestSupport
import Testing
import JobsCLI

/// The API key and the database password never leave the process: not in logs (`-v`, debug level), errors,
/// job_runs, watermarks, agent traces, findings, or eval reports and caches. A hostile proxy echoes the key back.
@Suite("Reliability: secrets")
struct SecretLeakTests {
    static let apiKey = "sk-test-SECRET-1234567890"
    static let password = "hunter2-SECRET"
    /// Parts of each secret that are searched for, so a partly cut or re-encoded secret is caught too.
    static let needles = ["1234567890", "SECRET-12345", "hunter2"]

    /// The test database's URL with a password (the local cluster trusts loopback, so any password connects).
    static func urlWithPassword(_ db: TestDatabase) throws -> String {
        let url = db.connectionURL
        try #require(url.contains("://postgres@"), "expected a postgres:// URL for user postgres, got \(url)")
        return url.replacingOccurrences(of: "://postgres@", with: "://postgres:\(password)@")
    }

    static let extractorFeatures = Set(FeatureRegistry.shipping.ids.map(\.rawValue))

    /// A server that puts the Authorization header it received into its error bodies and, once, into a 500.
    static func echoingServer(failing victim: String?) throws -> FakeOpenAIServer {
        let first = Switch(true)
        return try FakeOpenAIServer { request in
            let auth = request.header("authorization") ?? "none"
            if first.isOn {
                first.isOn = false
                return .status(500, body: "upstream rejected \(auth)", headers: ["Content-Type": "text/plain"])
            }
            if !extractorFeatures.contains(ScanRequests.feature(request)) {
                return .error(status: 401, message: "Incorrect API key provided: \(auth)")
            }
            if let victim, ScanRequests.conversation(request) == victim {
                return .error(status: 400, message: "invalid key \(auth) for this request")
            }
            return ScanRequests.answer(request)
        }
    }

    static func expectClean(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for needle in needles {
            #expect(!text.contains(needle), "\(what) contains a secret: …\(excerpt(text, around: needle))…", sourceLocation: sourceLocation)
        }
    }

    static func excerpt(_ text: String, around needle: String) -> String {
        guard let range = text.range(of: needle) else { return "" }
        let start = text.index(range.lowerBound, offsetBy: -80, limitedBy: text.startIndex) ?? text.startIndex
        let end = text.index(range.upperBound, offsetBy: 80, limitedBy: text.endIndex) ?? text.endIndex
        return String(text[start..<end])
    }

    /// Every row of every table in the schema, as JSON text.
    static func everyRow(_ db: TestDatabase) async throws -> String {
        let tables = try await db.pool.query(
            "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'", [db.schema])
        var text = ""
        for table in try tables.map({ try $0.decode("t", as: String.self) }) {
            for row in try await db.pool.query("SELECT row_to_json(x)::text AS j FROM \(db.schema).\"\(table)\" x") {
                text += table + " " + (try row.decode("j", as: String.self)) + "\n"
            }
        }
        return text
    }

    @Test("scan, extract, assist and eval with -v: no secret in output, logs, rows or report files")
    func secretsStayHidden() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 3, active: 3, newMessages: 3, seed: 61)
            try await ScanHarness.load(workload, into: db)
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let victim = workload.conversations[0]
            let server = try Self.echoingServer(failing: victim.name)
            defer { server.stop() }
            let databaseURL = try Self.urlWithPassword(db)
            func run(_ arguments: [String], server url: URL? = server.baseURL) async throws -> (SpawnedProcess.Termination, String) {
                var environment = Reliability.environment(databaseURL: databaseURL, server: url, apiKey: Self.apiKey)
                environment["LOG_LEVEL"] = nil
                let result = try await SpawnedProcess.run(Reliability.executable, arguments: arguments, environment: environment, timeout: 120)
                return (result.termination, result.stdout + "\n" + result.stderr)
            }
            // Per-feature requests (`--per-feature`): the fake model refuses one feature of the victim, which a combined request would hide.
            let prompts = ["--prompts", Reliability.promptsURL.path]
            var outputs: [(String, String)] = []

            let scan = try await run(["scan", "-v", "--provider", "openai", "--per-feature", "--no-prefilter"] + prompts)
            #expect(scan.0 == .exit(2), "\(scan.1.suffix(2000))")
            #expect(scan.1.contains("HTTP 400"), "the failure is reported: \(scan.1.suffix(1000))")
            outputs.append(("scan", scan.1))

            let extract = try await run(["extract", "-v", "--provider", "openai", "--per-feature", "--conversation", victim.id.uuidString] + prompts)
            #expect(extract.0 != .exit(0))
            #expect(extract.1.contains("HTTP 400"))
            outputs.append(("extract", extract.1))

            let assist = try await run(["assist", "-v", "--user", DemoDataset.userIDs.maria.uuidString] + prompts)
            #expect(assist.0 != .exit(0))
            outputs.append(("assist", assist.1))

            let report = FileManager.default.temporaryDirectory.appendingPathComponent("secret-report-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: report) }
            let eval = try await run(["eval", "-v", "--provider", "openai", "--fixtures", RepositoryPaths.root.appendingPathComponent("evals/fixtures/birthday-invite-pending.yaml").path,
                                      "--report", report.appendingPathComponent("out").path, "--cache-dir", report.appendingPathComponent("cache").path] + prompts)
            outputs.append(("eval", eval.1))

            // The database itself unreachable, or refusing: the URL with its password is not echoed.
            let port = try FreePort.find()
            for url in ["postgresql://postgres:\(Self.password)@127.0.0.1:\(port)/messageai", databaseURL.replacingOccurrences(of: "/messageai_test", with: "/no_such_database")] {
                var environment = Reliability.environment(databaseURL: url, server: nil)
                environment["LOG_LEVEL"] = "debug"
                let result = try await SpawnedProcess.run(Reliability.executable, arguments: ["scan", "-v", "--provider", "rules"] + prompts,
                                                        environment: environment, timeout: 60)
                #expect(result.termination != .exit(0))
                #expect(result.stderr.contains("could not connect"), "\(result.stderr)")
                outputs.append(("bad database", result.stdout + result.stderr))
            }

            for (what, text) in outputs { Self.expectClean(text, what) }
            let rows = try await Self.everyRow(db)
            #expect(rows.contains("HTTP 400"), "the failures were recorded")
            #expect(rows.contains("agent_traces"), "the assistant's steps were recorded")
            Self.expectClean(rows, "the database")
            let files = try Reliability.files(under: report)
            for file in files { Self.expectClean(file.text, file.name) }
            #expect(files.count >= 3, "the eval wrote its report and cache")
            // The proxy really did see (and echo) the key, so the redaction is what kept it out.
            #expect(server.requests.contains { $0.header("authorization") == "Bearer \(Self.apiKey)" })
        }
    }
}
