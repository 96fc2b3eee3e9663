import AgentRuntime
import Core
@testable import Extractors
import Foundation
@testable import JobsKit
import Postgres
import Testing
import TestSupport
import Evaluation
import JobsCLI

/// The sixth feature (`Carpools`, SixthFeatureTests) registered the way the binary would register it, one line
/// (`FeatureRegistry.shipping.adding(Carpools())`), and run through the services the commands use: `scan` per feature
/// and combined, `scan --batch` (submit and collect), `extract`, the request worker, `eval` on the shipped corpus beside
/// the feature's own fixture, and the rows it writes behind row level security (its table from the test's own
/// migration). No shipped fixture, prompt or schema is edited: the shipped fixtures have no carpools list, so they
/// are not labelled for it.
@Suite struct SixthFeatureShippingTests {
    /// The registry the binary uses, plus the sixth feature.
    static let registry = FeatureRegistry.shipping.adding(Carpools())
    static let carpools = ExtractionFeature("carpools")
    static let now = ISO8601Instant.parse("2026-03-02T20:00:00Z")!

    @Test func theRegistryIsTheShippingOnePlusOne() {
        #expect(Self.registry.ids == FeatureRegistry.shipping.ids + [Self.carpools])
        #expect(SixthFeatureTests.registry.ids == Self.registry.ids)
    }

    @Test func aScanWithNoFeatureListRunsEveryRegisteredFeatureCombinedAndPerFeature() async throws {
        for mode in [RequestMode.combined, .perFeature] {
            let server = try FakeOpenAIServer { SixthFeatureTests.reply($0) }
            defer { server.stop() }
            try await TestDatabase.with { db in
                try await SixthFeatureTests.Chat.migrate(db)
                let chat = try await SixthFeatureTests.Chat.make(db)
                var engine = try SixthFeatureTests.engine(server, registry: Self.registry)
                engine.mode = mode
                var options = ScanOptions()
                options.owner = "sixth-feature-shipping"
                options.concurrency = 1
                options.preFilter = false
                let service = ScanService(pool: db.pool, engine: engine, options: options)
                #expect(service.features == Self.registry.ids, "no --features: every registered feature")
                let summary = try await service.run(now: Self.now)
                #expect(summary.failed == 0, "\(summary.failures)")

                let names = server.requests.compactMap { $0.json?["response_format"]?["json_schema"]?["name"]?.stringValue }
                if mode == .combined {
                    #expect(names == ["combined"])
                    let parts = server.requests.first?.json?["response_format"]?["json_schema"]?["schema"]?["properties"]?.objectValue?.keys
                    #expect(parts == Self.registry.ids.map(\.rawValue))
                } else {
                    #expect(Set(names) == Set(Self.registry.ids.map(\.rawValue)))
                }
                // Its rows, behind row level security; its count and its line in the scan's summary and run record.
                #expect(try await chat.visibleRows(to: chat.dan, db) == ["2026-03-03 \(chat.ana.postgresValue)"])
                #expect(try await chat.visibleRows(to: chat.olga, db).isEmpty)
                #expect(summary.items["carpools"] == 1)
                #expect(summary.found.flatMap(\.items).map(\.summary) == ["carpools: 2026-03-03 \(chat.ana.postgresValue) drives"])
                let recorded = try await db.pool.query("SELECT options->'features' AS f FROM job_runs WHERE id = $1", [summary.runID])
                #expect(try recorded.first?.decode("f", as: JSONValue.self) == .array(Self.registry.ids.map { .string($0.rawValue) }))
            }
        }
    }

    @Test func extractAndTheWorkerWriteTheSixthFeature() async throws {
        let server = try FakeOpenAIServer { SixthFeatureTests.reply($0) }
        defer { server.stop() }
        try await TestDatabase.with { db in
            try await SixthFeatureTests.Chat.migrate(db)
            let chat = try await SixthFeatureTests.Chat.make(db)
            let extract = ExtractService(pool: db.pool, engine: try SixthFeatureTests.engine(server, registry: Self.registry))

            let dry = try await extract.run(conversationID: chat.conversation, features: Self.registry.ids, dryRun: true, now: Self.now)
            #expect(dry.items["carpools"] == 1 && dry.written == nil)
            let report = ExtractReport.text(dry, features: Self.registry.ids)
            #expect(report.contains("  carpools          1\n      - 2026-03-03 \(chat.ana.postgresValue) drives"), "\(report)")
            let json = try JSONValue.encode(dry)
            #expect(json["extraction"]?["carpools"]?.arrayValue?.count == 1)
            #expect(try await chat.visibleRows(to: chat.ana, db).isEmpty, "a dry run writes nothing")

            let wet = try await extract.run(conversationID: chat.conversation, features: Self.registry.ids, dryRun: false, now: Self.now)
            #expect(wet.written?.inserted["carpools"] == 1)
            #expect(try await chat.visibleRows(to: chat.ana, db) == ["2026-03-03 \(chat.ana.postgresValue)"])

            // The worker's handler asks every feature of its extract service's engine unless told otherwise.
            let handler = JobRequestHandler(extract: extract, assist: nil)
            #expect(handler.features == Self.registry.ids)
        }
    }

    @Test func aBatchScanSubmitsAndCollectsTheSixthFeature() async throws {
        for mode in [RequestMode.combined, .perFeature] {
            let server = try FakeOpenAIServer(fallback: { SixthFeatureTests.reply($0) })
            defer { server.stop() }
            try await TestDatabase.with { db in
                try await SixthFeatureTests.Chat.migrate(db)
                let chat = try await SixthFeatureTests.Chat.make(db)
                var engine = try SixthFeatureTests.engine(server, registry: Self.registry)
                engine.mode = mode
                let client = OpenAIBatchClient(configuration: server.client().configuration)
                var options = BatchOptions()
                options.scan.preFilter = false
                let submitted = try await BatchSubmitService(pool: db.pool, engine: engine, client: client, options: options).run(now: Self.now)
                #expect(submitted.conversations == 1 && submitted.failed == 0, "\(submitted.failures)")
                let stored = try await db.pool.query("SELECT features FROM llm_batches WHERE id = $1", [submitted.batchID])
                #expect(try stored.first?.decode("features", as: [String].self) == Self.registry.ids.map(\.rawValue))

                let collected = try await BatchCollectService(pool: db.pool, engine: engine, client: client).run(now: Self.now)
                #expect(collected.map(\.applied) == [1] && collected.map(\.failed) == [0], "\(collected.flatMap(\.failures))")
                #expect(collected.first?.items["carpools"] == 1)
                #expect(try await chat.visibleRows(to: chat.dan, db) == ["2026-03-03 \(chat.ana.postgresValue)"], "\(mode)")
            }
        }
    }

    /// The binary's own wiring: `Settings` from an environment and the command's flags, with the registry above, then
    /// `Assembly` and its `Services`, as every command builds them. Scan (combined, the default), `scan --batch` and
    /// `extract` each write the sixth feature's row through it, in a fresh schema.
    @Test func theCommandsAssemblyRunsTheSixthFeature() async throws {
        let corpus = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: corpus.root) }
        enum Path: CaseIterable { case scan, batch, extract }
        for path in Path.allCases {
            let server = try FakeOpenAIServer(fallback: { SixthFeatureTests.reply($0) })
            defer { server.stop() }
            try await TestDatabase.with { db in
                try await SixthFeatureTests.Chat.migrate(db)
                let chat = try await SixthFeatureTests.Chat.make(db)
                var flags = Settings.Flags()
                flags.provider = .openai
                flags.prompts = corpus.prompts.path
                let settings = try Settings(environment: ["OPENAI_BASE_URL": server.baseURL.absoluteString, "OPENAI_API_KEY": "sk-test"],
                                            flags: flags, registry: Self.registry)
                let services = Services(assembly: Assembly(settings: settings), pool: db.pool)
                var scan = ScanOptions()
                scan.owner = "sixth-feature-assembly"
                scan.preFilter = false
                switch path {
                case .scan:
                    let service = try services.scan(scan, assist: false)
                    #expect(service.features == Self.registry.ids)
                    let summary = try await service.run(now: Self.now)
                    #expect(summary.failed == 0 && summary.items["carpools"] == 1, "\(summary.failures)")
                    let parts = server.requests.first?.json?["response_format"]?["json_schema"]?["schema"]?["properties"]?.objectValue?.keys
                    #expect(parts == Self.registry.ids.map(\.rawValue), "one combined request naming every registered feature")
                case .batch:
                    let submitted = try await services.batchSubmit(scan).run(now: Self.now)
                    #expect(submitted.conversations == 1 && submitted.failed == 0, "\(submitted.failures)")
                    let collected = try await services.batchCollect().run(now: Self.now)
                    #expect(collected.first?.items["carpools"] == 1, "\(collected.flatMap(\.failures))")
                case .extract:
                    let summary = try await services.extract().run(conversationID: chat.conversation, features: settings.registry.ids,
                                                                   dryRun: false, now: Self.now)
                    #expect(summary.written?.inserted["carpools"] == 1)
                }
                #expect(try await chat.visibleRows(to: chat.dan, db) == ["2026-03-03 \(chat.ana.postgresValue)"], "\(path)")
                #expect(try await chat.visibleRows(to: chat.olga, db).isEmpty, "\(path)")
            }
        }
    }

    /// The shipped fixtures (which have no carpools list) beside the sixth feature's own, in one folder.
    static func corpus() throws -> (fixtures: URL, prompts: URL, root: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sixth-shipping-\(UUID().uuidString)")
        let copies: [(from: [URL], to: String)] = [
            ([RepositoryPaths.root.appendingPathComponent("evals/fixtures"), try SixthFeatureTests.resources().appendingPathComponent("fixtures")],
             "fixtures"),
            ([RepositoryPaths.root.appendingPathComponent("prompts"), try SixthFeatureTests.resources().appendingPathComponent("prompts")], "prompts"),
            ([RepositoryPaths.root.appendingPathComponent("schemas"), try SixthFeatureTests.resources().appendingPathComponent("schemas")], "schemas"),
        ]
        for (sources, folder) in copies {
            let target = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            for source in sources {
                for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
                    try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: target.appendingPathComponent(name))
                }
            }
        }
        return (root.appendingPathComponent("fixtures"), root.appendingPathComponent("prompts"), root)
    }

    @Test func evalScoresTheSixthFeatureOnlyWhereItIsLabelledAndTheFiveAsBefore() async throws {
        let corpus = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: corpus.root) }
        func run(_ registry: FeatureRegistry, fixtures: String) async throws -> EvalRun {
            var options = EvalRunOptions()
            options.registry = registry
            options.fixturesPath = fixtures
            options.promptsPath = corpus.prompts.path
            options.provider = .rules
            options.environment = [:]
            options.concurrency = 2
            return try await EvalSession.run(options)
        }
        let six = try await run(Self.registry, fixtures: corpus.fixtures.path)
        let five = try await run(.shipping, fixtures: RepositoryPaths.root.appendingPathComponent("evals/fixtures").path)

        #expect(six.report.features == Self.registry.ids, "no --features: every registered feature")
        #expect(six.fixtures.count == five.fixtures.count + 1)
        // Every shipped fixture loads unchanged, not labelled for carpools; the feature's own fixture is.
        #expect(six.fixtures.filter { $0.id != "carpool-offers" }.allSatisfy { $0.unlabelled == [Self.carpools] })
        #expect(six.fixtures.first { $0.id == "carpool-offers" }?.unlabelled.isEmpty == true)

        let main = try #require(six.report.main), before = try #require(five.report.main)
        #expect(main.errors.isEmpty && before.errors.isEmpty, "\(main.errors) \(before.errors)")
        // Carpools is scored on its one labelled fixture (the rules find no carpools: two misses), on no other.
        #expect(main.score.features[Self.carpools]?.metrics == Metrics(tp: 0, fp: 0, fn: 2))
        let scoredFor = main.score.fixtures.filter { $0.features[Self.carpools] != nil }.map(\.fixture)
        #expect(scoredFor == ["carpool-offers"])
        // On every shipped fixture the five features score exactly as in a run without the sixth.
        let old = Dictionary(uniqueKeysWithValues: before.score.fixtures.map { ($0.fixture, $0) })
        for fixture in main.score.fixtures where fixture.fixture != "carpool-offers" {
            #expect(fixture.features == old[fixture.fixture]?.features, "\(fixture.fixture)")
        }
    }
}
