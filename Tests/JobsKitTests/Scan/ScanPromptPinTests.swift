import Foundation
import Core
import JobsKit
import PromptKit
import TestSupport
import Testing

/// A new prompt version lands beside the old one and changes nothing `scan` sends until its pin moves; each run
/// records the prompts it used, with their hashes, in `job_runs.prompts`.
@Suite("Scan with pinned prompts", .serialized)
struct ScanPromptPinTests {
    static let marker = "VERSION-TWO-MARKER"

    /// A copy of prompts/ and schemas/ with a `calendar_events` version 5 (a copy of the pinned version 4) whose system
    /// text carries `marker`.
    static func promptsWithCandidate() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for folder in ["prompts", "schemas"] {
            try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
        }
        let prompts = root.appendingPathComponent("prompts")
        let v2 = try String(contentsOf: prompts.appendingPathComponent("calendar_events.v4.yaml"), encoding: .utf8)
        let v3 = v2.replacingOccurrences(of: "\nversion: 4\n", with: "\nversion: 5\n")
            .replacingOccurrences(of: "You find the calendar events", with: "\(marker) You find the calendar events")
        #expect(v3 != v2 && v3.contains(marker) && v3.contains("\nversion: 5\n"))
        try v3.write(to: prompts.appendingPathComponent("calendar_events.v5.yaml"), atomically: true, encoding: .utf8)
        return prompts
    }

    struct Scanned {
        let systemTexts: [String]
        let prompts: JSONValue
    }

    /// One CLI scan of a small workload in a fresh database; the system messages the fake model received and the
    /// run's `job_runs.prompts`.
    static func scan(prompts: URL, arguments: [String] = [], environment: [String: String] = [:]) async throws -> Scanned {
        try await TestDatabase.with(maxConnections: 4) { db in
            try await ScanHarness.load(try ScanHarness.workload(conversations: 2, active: 2), into: db)
            let server = try FakeOpenAIServer { request in
                let name = request.json?["response_format"]?["json_schema"]?["name"]?.stringValue ?? "calendar_events"
                return .chat(content: LabelledAnswers.empty(name).serialized())
            }
            defer { server.stop() }
            let env = ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString,
                       "OPENAI_API_KEY": "sk-test-not-a-real-key", "LOG_LEVEL": "error"].merging(environment) { $1 }
            let run = try await JobsBinary.run(
                ["scan", "--provider", "openai", "--prompts", prompts.path, "--features", "calendar_events", "--no-assist", "--no-prefilter"]
                    + arguments, environment: env)
            #expect(run.code == 0, "\(run.stderr)")
            let systems = server.requests.compactMap { $0.json?["messages"]?[0]?["content"]?.stringValue }
            #expect(!systems.isEmpty, "the scan sent no request")
            let row = try await db.pool.query("SELECT prompts FROM job_runs WHERE kind = 'scan' ORDER BY started_at DESC LIMIT 1")
            return Scanned(systemTexts: systems, prompts: try row[0].decode("prompts"))
        }
    }

    static func recorded(_ scanned: Scanned) -> [String: (Int, String)] {
        var out: [String: (Int, String)] = [:]
        for item in scanned.prompts.arrayValue ?? [] {
            if let id = item["id"]?.stringValue, case .integer(let version)? = item["version"], let sha = item["sha256"]?.stringValue {
                out[id] = (Int(version), sha)
            }
        }
        return out
    }

    @Test("landing calendar_events v5 changes nothing scan sends until the pin, an option or the environment moves it")
    func candidateStaysOffUntilPinned() async throws {
        let prompts = try Self.promptsWithCandidate()
        let library = try PromptLibrary.load(directory: prompts)
        let pinned = try #require(library.prompt(id: "calendar_events", version: 4)).fingerprint
        let candidate = try #require(library.prompt(id: "calendar_events", version: 5)).fingerprint
        #expect(pinned.sha256 != candidate.sha256)

        let landed = try await Self.scan(prompts: prompts)
        #expect(landed.systemTexts.allSatisfy { !$0.contains(Self.marker) }, "version 5 went live without its pin moving")
        let original = try await Self.scan(prompts: RepositoryPaths.root.appendingPathComponent("prompts"))
        #expect(Set(landed.systemTexts) == Set(original.systemTexts), "the same system text as before v5 landed")
        #expect(Self.recorded(landed)["calendar_events"]?.0 == 4 && Self.recorded(landed)["calendar_events"]?.1 == pinned.sha256)

        let option = try await Self.scan(prompts: prompts, arguments: ["--prompt-version", "calendar_events=5"])
        #expect(option.systemTexts.allSatisfy { $0.contains(Self.marker) })
        #expect(Self.recorded(option)["calendar_events"]?.0 == 5 && Self.recorded(option)["calendar_events"]?.1 == candidate.sha256)

        let environment = try await Self.scan(prompts: prompts, environment: [PromptPins.environmentVariable: "calendar_events=5"])
        #expect(environment.systemTexts.allSatisfy { $0.contains(Self.marker) })

        var pins = try String(contentsOf: prompts.appendingPathComponent("active.yaml"), encoding: .utf8)
        pins = pins.replacingOccurrences(of: "calendar_events: 4", with: "calendar_events: 5")
        try pins.write(to: prompts.appendingPathComponent("active.yaml"), atomically: true, encoding: .utf8)
        let moved = try await Self.scan(prompts: prompts)
        #expect(moved.systemTexts.allSatisfy { $0.contains(Self.marker) }, "the pin moved: version 5 is live")
    }

    @Test("prompts render without @5 renders the pinned version")
    func renderUsesThePin() async throws {
        let prompts = try Self.promptsWithCandidate()
        let fixtures = RepositoryPaths.root.appendingPathComponent("evals/fixtures").path
        let pinned = try await JobsBinary.run(
            ["prompts", "render", "--prompt", "calendar_events", "--fixture", "class-picnic", "--prompts", prompts.path, "--fixtures", fixtures],
            environment: [:])
        #expect(pinned.code == 0, "\(pinned.stderr)")
        #expect(!pinned.stdout.contains(Self.marker))
        let original = try await JobsBinary.run(
            ["prompts", "render", "--prompt", "calendar_events", "--fixture", "class-picnic", "--prompts", ScanHarness.promptsPath, "--fixtures", fixtures],
            environment: [:])
        #expect(pinned.stdout == original.stdout, "landing v5 changed the rendered request")
        let candidate = try await JobsBinary.run(
            ["prompts", "render", "--prompt", "calendar_events@5", "--fixture", "class-picnic", "--prompts", prompts.path, "--fixtures", fixtures],
            environment: [:])
        #expect(candidate.code == 0 && candidate.stdout.contains(Self.marker))
    }
}
