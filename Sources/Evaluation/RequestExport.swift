import AgentRuntime
package import Extractors
package import Foundation
import Core
import PromptKit

/// Every request an eval run would send, found by running the real engine over every fixture, unit and window with
/// a client whose transport records the bodies (`CapturingTransport`); nothing is rebuilt by hand and nothing is sent.
package struct RequestPlan: Sendable {
    /// `per_feature` or `combined` (the main variant's requests).
    package var mode: String
    /// `combined`, the `FEATURE=VERSION` picks of `--compare`, or empty.
    package var compare: [String]
    package var fixtureCount: Int
    package var model: String
    /// Every prompt a request of the plan uses, sorted by id then version.
    package var prompts: [PromptRef]
    /// In variant, fixture, unit, window order; each file once.
    package var requests: [ExportedRequest]
}

package enum RequestExport {
    /// The settings export and recorded runs both use: the `OPENAI_*` settings that shape a request body (model,
    /// structured-output mode, max-tokens field, schema bounds), never a key, and a placeholder server nothing is sent to.
    static func configuration(_ environment: [String: String]) throws -> LLMConfiguration {
        var environment = environment
        environment["OPENAI_API_KEY"] = nil
        if (environment["OPENAI_BASE_URL"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            environment["OPENAI_BASE_URL"] = "http://recorded.invalid/v1"
        }
        do {
            guard let configuration = try LLMConfiguration.fromEnvironment(environment) else {
                throw EvalRunError("no model configuration could be built for recorded requests")
            }
            return configuration
        } catch let error as LLMSettingError {
            throw EvalRunError(error.description)
        }
    }

    /// The requests the run `options` describe would send (the rule-based baseline sends none). `answers`: the answers
    /// already recorded (an export's own folder), which a nights fixture's later nights depend on.
    package static func plan(_ options: EvalRunOptions, answers: URL? = nil) async throws -> RequestPlan {
        let scoring = options.registry.scoring
        let fixtures = try EvalSession.loadFixtures(options, scoring: scoring)
        let features = options.chosenFeatures
        guard !features.isEmpty else { throw EvalRunError("--features names no feature") }
        let library = try EvalSession.loadPrompts(options.promptsPath, pins: options.promptPins, environment: options.environment)
        try EvalSession.checkVersions(options, features: features, library: library)
        return try await plan(options, fixtures: fixtures, features: features, library: library, answers: answers)
    }

    /// `answers`: the folder of recorded answers a nights fixture's later nights depend on (the answers folder of a
    /// recorded run, the export folder of an export); nil: only each nights fixture's first night.
    static func plan(_ options: EvalRunOptions, fixtures: [Fixture], features: [ExtractionFeature],
                     library: PromptLibrary, answers: URL? = nil) async throws -> RequestPlan {
        let configuration = try configuration(options.environment)
        let log = CapturingTransport.Log()
        let model = options.model
        let llm = EvalSession.LLMVariants(name: "capture", stats: CacheStats()) { _ in
            ProviderFactory.llmProvider(configuration, modelOverride: model, transport: CapturingTransport(log: log))
        }
        try EvalSession.checkCompare(options, llm: llm)
        let specs = try EvalSession.variantSpecs(options, llm: llm, library: library, features: features)
            .filter { $0.cacheStats != nil }

        var requests: [ExportedRequest] = []
        var seen: Set<String> = []
        var prompts: Set<PromptRef> = []
        for spec in specs {
            let engine = spec.engine
            let units: [[ExtractionFeature]] = engine.mode == .combined && spec.features.count > 1 ? [spec.features] : spec.features.map { [$0] }
            for unit in units {
                let prompt = unit.count > 1 ? try engine.combinedPrompt() : try engine.prompt(for: unit[0])
                prompts.insert(PromptRef(id: prompt.id, version: prompt.version, model: engine.provider.modelName(for: prompt),
                                         sha256: prompt.fingerprint.sha256))
                let name = unit.count > 1 ? CombinedSchema.promptID : unit[0].rawValue
                // A nights fixture's requests are each night's, carrying the state the recorded answers of the nights
                // before it made (`NightsPlayer.playRequests`); with no answer yet for a night, the fixture stops there.
                func captured(_ id: String) async {
                    for (window, body) in await log.take().enumerated() {
                        let request = ExportedRequest(fixture: id, unit: name, window: window, promptID: prompt.id,
                                                      promptVersion: prompt.version, body: body)
                        if seen.insert(request.requestPath).inserted { requests.append(request) }
                    }
                }
                for fixture in fixtures {
                    if fixture.nights != nil {
                        do {
                            try await NightsPlayer.playRequests(fixture, features: unit, engine: engine) { id, input in
                                let replay = answers.map { (directory: $0, folder: ExportedRequest.folder(id), unit: "\(name)@\(prompt.version)") }
                                await log.start(replay: replay)
                                let run = try? await engine.extract(input, features: unit)
                                await captured(id)
                                return await log.missing || answers == nil ? nil : run
                            }
                        } catch {
                            throw EvalRunError(.invalidFixture, "fixture '\(fixture.id)': \(error)")
                        }
                        continue
                    }
                    let inputs: [(id: String, input: ConversationInput)]
                    do {
                        inputs = try NightsPlayer.inputs(fixture)
                    } catch {
                        throw EvalRunError(.invalidFixture, "fixture '\(fixture.id)': \(error)")
                    }
                    for (id, input) in inputs {
                        await log.start(replay: nil)
                        do {
                            _ = try await engine.extract(input, features: unit)
                        } catch {
                            throw EvalRunError("fixture '\(id)' \(name): the requests could not be captured: \(error)")
                        }
                        await captured(id)
                    }
                }
            }
        }
        var compare = options.compareVersions.map { "\($0.key.rawValue)=\($0.value)" }.sorted()
        if let other = options.compareMode { compare.append(other.rawValue) }
        return RequestPlan(
            mode: options.mode == .combined ? "combined" : "per_feature", compare: compare, fixtureCount: fixtures.count,
            model: Set(prompts.map(\.model)).sorted().joined(separator: ", "),
            prompts: prompts.sorted { ($0.id, $0.version) < ($1.id, $1.version) }, requests: requests)
    }

    /// Writes one `<fixture>/<stem>.request.md` per request and `manifest.json`; returns the number of request files.
    /// Files of an earlier export under other names are left alone (the manifest lists the current ones).
    @discardableResult
    package static func write(_ plan: RequestPlan, to directory: URL) throws -> Int {
        do {
            for request in plan.requests {
                let file = directory.appendingPathComponent(request.requestPath)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(ExportedRequest.markdown(body: request.body, header: request.header).utf8).write(to: file, options: .atomic)
            }
            try Data((manifest(plan).serialized(pretty: true) + "\n").utf8)
                .write(to: directory.appendingPathComponent("manifest.json"), options: .atomic)
        } catch {
            throw EvalRunError(.reportNotWritten, "\(directory.path): the request files cannot be written: \(error)")
        }
        return plan.requests.count
    }

    static func manifest(_ plan: RequestPlan) -> JSONValue {
        [
            "format": 1,
            "mode": .string(plan.mode),
            "compare": .array(plan.compare.map(JSONValue.string)),
            "fixture_count": .integer(Int64(plan.fixtureCount)),
            "request_count": .integer(Int64(plan.requests.count)),
            "model": .string(plan.model),
            "prompts": .array(plan.prompts.map { prompt in
                ["id": .string(prompt.id), "version": .integer(Int64(prompt.version)), "sha256": prompt.sha256.map(JSONValue.string) ?? .null]
            }),
            "answer_files": "the same relative path with .request.md replaced by .answer.json, holding the JSON object a model would return",
            "files": .array(plan.requests.map { request in
                [
                    "request_file": .string(request.requestPath),
                    "answer_file": .string(request.answerPath),
                    "fixture": .string(request.fixture),
                    "feature": .string(request.unit),
                    "window": .integer(Int64(request.window)),
                    "prompt": .string("\(request.promptID)@\(request.promptVersion)"),
                    "body_sha256": .string(request.sha256),
                ]
            }),
        ]
    }
}
