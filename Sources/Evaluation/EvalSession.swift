import Core
package import AgentRuntime
package import Extractors
package import Foundation
import PromptKit

/// What `messageai-jobs eval` was asked to do.
package struct EvalRunOptions: Sendable {
    package var fixturesPath = "evals/fixtures"
    /// The features to run and score; nil: every feature of `registry`.
    package var features: [ExtractionFeature]?
    /// The features an engine can run and the scorer scores (the shipping registry unless the caller gives another).
    package var registry: FeatureRegistry = .shipping

    /// The features of the run, in registry order.
    var chosenFeatures: [ExtractionFeature] { features.map { picked in registry.ids.filter(picked.contains) } ?? registry.ids }
    package var promptsPath: String?
    package var provider: ProviderChoice = .auto
    package var model: String?
    /// Prompt versions of the main variant (absent: the version pinned in `active.yaml`).
    package var promptVersions: [ExtractionFeature: Int] = [:]
    /// `id=N` pins for prompts that are not one feature's (`combined=2`), applied to the library of every variant.
    package var promptPins: [String] = []
    /// Versions of a second LLM variant, run beside the main one.
    package var compareVersions: [ExtractionFeature: Int] = [:]
    /// How every variant asks (`ExtractionEngine.mode`); `eval` passes the scan's mode (`RequestMode.resolve`).
    package var mode = RequestMode.perFeature
    /// Also run the main variant's provider and versions in this other mode, side by side (`--compare combined` or
    /// `--compare per-feature`).
    package var compareMode: RequestMode?
    package var readCache = true
    package var cacheDirectory = URL(fileURLWithPath: ".eval-cache")
    package var concurrency = 4
    package var windowing = Windowing()
    /// `--provider recorded`: the folder of answer files (`RecordedAnswerBook`).
    package var answersDirectory: URL?
    /// The model server a live run calls (the CLI passes its settings' `llm`, flags applied); nil: none configured.
    package var llm: LLMConfiguration?
    /// Where the `MESSAGEAI_*` settings (the fixtures' and prompts' home, prompt pins) and, for recorded and exported
    /// requests, the `OPENAI_*` request options are read from (the CLI passes its settings' environment).
    package var environment: [String: String] = [:]
    /// The process's one rate limiter (`Assembly.limiter`): every request that misses the answer cache asks it
    /// first; cache hits do not (they reach no server). Nil: no limit.
    package var limiter: RateLimiter?

    package init() {}
}

/// A finished run: the report and the fixtures it was scored on (the HTML shows their messages).
package struct EvalRun: Sendable {
    package var report: EvalReport
    package var fixtures: [Fixture]
    /// Shown on stderr, e.g. that `auto` fell back to the rule-based provider.
    package var notice: String?
}

/// Builds the variants (main, optional compare, rule-based baseline), runs and scores them.
package enum EvalSession {
    package static func run(_ options: EvalRunOptions, now: Date = Date(),
                           progress: (@Sendable (EvalProgress) -> Void)? = nil) async throws -> EvalRun {
        let scoring = options.registry.scoring
        let fixtures = try loadFixtures(options, scoring: scoring)
        let features = options.chosenFeatures
        guard !features.isEmpty else { throw EvalRunError("--features names no feature") }
        let library = try loadPrompts(options.promptsPath, pins: options.promptPins, environment: options.environment)
        try checkVersions(options, features: features, library: library)
        var book: RecordedAnswerBook?
        var llm: LLMVariants?
        var notice: String?
        if options.provider == .recorded {
            let recorded = try await recordedLLM(options, fixtures: fixtures, features: features, library: library)
            (llm, book) = (recorded.llm, recorded.book)
        } else if options.provider == .labels {
            llm = nil
        } else {
            (llm, notice) = try resolveLLM(options)
        }
        try checkCompare(options, llm: llm)

        let specs = try variantSpecs(options, llm: llm, library: library, features: features)
        if let same = unchangedCombinedNotice(specs, options: options) { notice = [notice, same].compactMap { $0 }.joined(separator: "\n") }
        let variants = try await runVariants(specs, fixtures: fixtures, features: features, scoring: scoring,
                                             concurrency: options.concurrency, progress: progress)
        var report = EvalReport(
            createdAt: ISO8601Instant.string(now), fixturesPath: options.fixturesPath, fixtureCount: fixtures.count,
            features: features, variants: variants,
            preFilter: PreFilterAudit.audit(fixtures, features: features, scoring: scoring))
        report.gitCommit = gitCommit()
        report.recordedAnswers = await book?.summary
        return EvalRun(report: report, fixtures: fixtures, notice: notice)
    }

    /// A warning when `--compare FEATURE=N` in combined mode sends the very combined request the main variant sends: the
    /// compared version's `combined_rule` is the pinned one's, so only per-feature requests would differ.
    static func unchangedCombinedNotice(_ specs: [EvalVariantSpec], options: EvalRunOptions) -> String? {
        guard let main = specs.first(where: { $0.role == .main }), let compare = specs.first(where: { $0.id == "llm-compare" }),
              compare.engine.mode == .combined, compare.features.count > 1,
              let before = try? main.engine.combinedPrompt(), let after = try? compare.engine.combinedPrompt(),
              before.fingerprint == after.fingerprint else { return nil }
        let picks = options.compareVersions.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: " ")
        return "--compare \(picks): the combined request is the same as the main variant's (the compared version's combined_rule "
            + "is the pinned one's), so the figures cannot change. Edit its combined_rule, or compare per-feature requests with --per-feature."
    }

    /// The fixtures under `options.fixturesPath`, each labelling every feature `scoring` scores.
    static func loadFixtures(_ options: EvalRunOptions, scoring: ScoringRegistry) throws -> [Fixture] {
        if let missing = ProviderFactory.missingFixtures(options.fixturesPath, environment: options.environment) {
            throw EvalRunError(.fixturesDoNotLoad, missing)
        }
        do {
            return try FixtureLoader.load(path: ProviderFactory.homePath(options.fixturesPath, environment: options.environment),
                                          scoring: scoring)
        } catch {
            throw EvalRunError(.fixturesDoNotLoad, "the fixtures do not load:\n\(error)")
        }
    }

    /// The LLM a run asks (nil: the rule-based provider only), with the cache statistics of its main variant and how
    /// to make another provider over the same cache for a compared variant.
    struct LLMVariants: Sendable {
        /// The provider's name in variant labels.
        let name: String
        let provider: LLMAnswerProvider
        let stats: CacheStats
        let makeProvider: @Sendable (CacheStats) -> LLMAnswerProvider

        init(name: String = "openai", stats: CacheStats, makeProvider: @escaping @Sendable (CacheStats) -> LLMAnswerProvider) {
            self.name = name
            self.provider = makeProvider(stats)
            self.stats = stats
            self.makeProvider = makeProvider
        }
    }

    /// `--provider recorded`: the run's requests (`RequestExport.plan`), each answered from its file in the answers folder.
    static func recordedLLM(_ options: EvalRunOptions, fixtures: [Fixture], features: [ExtractionFeature],
                            library: PromptLibrary) async throws -> (llm: LLMVariants, book: RecordedAnswerBook) {
        guard let directory = options.answersDirectory else { throw EvalRunError("--provider recorded needs --answers DIR") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw EvalRunError("--answers \(directory.path): no such directory (export the requests with --export-requests first)")
        }
        let plan = try await RequestExport.plan(options, fixtures: fixtures, features: features, library: library, answers: directory)
        let configuration = try RequestExport.configuration(options.environment)
        let book = RecordedAnswerBook(directory: directory, plan: plan)
        let model = options.model
        let llm = LLMVariants(name: "recorded", stats: CacheStats()) { stats in
            ProviderFactory.llmProvider(configuration, modelOverride: model, transport: RecordedAnswersTransport(book: book, stats: stats))
        }
        return (llm, book)
    }

    /// The provider `options` pick, and the notice to show when `auto` fell back to the rule-based provider.
    static func resolveLLM(_ options: EvalRunOptions) throws -> (LLMVariants?, notice: String?) {
        switch try ProviderFactory.resolve(options.provider, configuration: options.llm) {
        case .rules(let fallback):
            let notice = fallback == nil ? nil
                : "No LLM configured (OPENAI_API_KEY and OPENAI_BASE_URL are unset): evaluating the rule-based provider only."
            return (nil, notice)
        case .llm(let configuration):
            let directory = options.cacheDirectory
            let readCache = options.readCache
            let model = options.model
            let limiter = options.limiter
            let make: @Sendable (CacheStats) -> LLMAnswerProvider = { stats in
                let cache = CachingTransport(base: AsyncHTTPClientTransport.shared, directory: directory, readCache: readCache, stats: stats)
                return ProviderFactory.llmProvider(configuration, modelOverride: model, transport: cache) { client -> any ChatCompleting in
                    guard let limiter else { return client }
                    return CacheFirstClient(client: client, cache: cache, limiter: limiter)
                }
            }
            return (LLMVariants(stats: CacheStats(), makeProvider: make), nil)
        }
    }

    /// Comparisons that cannot be made: combined beside picked versions, or versions without an LLM.
    static func checkCompare(_ options: EvalRunOptions, llm: LLMVariants?) throws {
        if options.provider == .labels, options.compareMode != nil || !options.compareVersions.isEmpty {
            throw EvalRunError("--compare needs an LLM provider: the labels provider answers from the labels, whatever the prompt or mode")
        }
        if let other = options.compareMode {
            guard other != options.mode else {
                throw EvalRunError("--compare \(other): the main variant already makes \(other) requests; compare with the other mode")
            }
            guard options.compareVersions.isEmpty else {
                throw EvalRunError("--compare \(other) cannot be mixed with FEATURE=VERSION picks: run them separately")
            }
        }
        if llm == nil, !options.compareVersions.isEmpty {
            throw EvalRunError("--compare needs an LLM provider: the rule-based provider ignores the prompt text, so both versions would score the same")
        }
    }

    /// The variants to run, in report order: the LLM (and its compared versions), the rule-based provider (the main
    /// variant without an LLM, else the baseline), then the combined request if asked for.
    static func variantSpecs(_ options: EvalRunOptions, llm: LLMVariants?, library: PromptLibrary,
                             features: [ExtractionFeature]) throws -> [EvalVariantSpec] {
        func engine(_ provider: any AnswerProvider, _ versions: [ExtractionFeature: Int]) throws -> ExtractionEngine {
            var built = try ExtractionEngine(prompts: library, provider: provider, windowing: options.windowing, promptVersions: versions,
                                             registry: options.registry)
            built.mode = options.mode
            return built
        }

        var specs: [EvalVariantSpec] = []
        if let llm {
            let mainEngine = try engine(llm.provider, options.promptVersions)
            specs.append(EvalVariantSpec(id: "llm", role: .main, label: try label(llm.name, mainEngine, features, changed: []),
                                         engine: mainEngine, features: features, cacheStats: llm.stats))
            if !options.compareVersions.isEmpty {
                let stats = CacheStats()
                let versions = options.promptVersions.merging(options.compareVersions) { _, new in new }
                let compareEngine = try engine(llm.makeProvider(stats), versions)
                let changed = features.filter { options.compareVersions[$0] != nil }
                // The same request mode as the main variant. Combined: the one request per window, assembled with the
                // compared versions' rules, answers every feature, as production's would once the pins move; so every
                // feature is this variant's own. Per feature: only the changed features are asked again.
                let combined = compareEngine.mode == .combined && features.count > 1
                specs.append(EvalVariantSpec(id: "llm-compare", role: .compare,
                                             label: try label(llm.name, compareEngine, combined ? features : changed, changed: changed),
                                             engine: compareEngine, features: combined ? features : changed, cacheStats: stats))
            }
        }
        let labels = options.provider == .labels
        if labels {
            specs.append(EvalVariantSpec(id: "labels", role: .main, label: "labels (the fixtures' own labels as answers)",
                                         engine: try engine(LabelsAnswerProvider(), options.promptVersions), features: features))
        }
        let rulesEngine = try engine(RulesAnswerProvider(), options.promptVersions)
        specs.append(EvalVariantSpec(id: "rules", role: llm == nil && !labels ? .main : .rulesBaseline, label: "rules (no LLM)",
                                     engine: rulesEngine, features: features))

        if let other = options.compareMode {
            // The same provider and versions in the other request mode; every feature is the variant's own.
            let stats = llm == nil ? nil : CacheStats()
            let provider: any AnswerProvider = if let llm, let stats { llm.makeProvider(stats) }
                else { RulesAnswerProvider() }
            var otherEngine = try engine(provider, options.promptVersions)
            otherEngine.mode = other
            let label: String
            if other == .combined {
                let prompt = try otherEngine.combinedPrompt()
                label = "\(otherEngine.provider.name) \(otherEngine.provider.modelName(for: prompt)) with \(prompt.id)@\(prompt.version)"
            } else {
                label = try Self.label(otherEngine.provider.name, otherEngine, features, changed: []) + " (per-feature requests)"
            }
            specs.append(EvalVariantSpec(id: other.rawValue, role: .compare, label: label,
                                         engine: otherEngine, features: features, cacheStats: stats))
        }
        return specs
    }

    /// Runs each variant over the fixtures and scores it on the fixtures' `features` lists.
    static func runVariants(_ specs: [EvalVariantSpec], fixtures: [Fixture], features: [ExtractionFeature],
                            scoring: ScoringRegistry, concurrency: Int,
                            progress: (@Sendable (EvalProgress) -> Void)?) async throws -> [EvalVariantReport] {
        let runner = EvalRunner(concurrency: concurrency)
        // A nights fixture is scored night by night, each night as a fixture of its own (`Fixture.nightFixtures`).
        let scored = fixtures.flatMap { $0.nights == nil ? [$0] : $0.nightFixtures }.map { restrict($0, to: features, scoring: scoring) }
        var variants: [EvalVariantReport] = []
        var mainPredictions: [String: PredictedItems] = [:]
        var mainWords: PredictionWords.Table = [:]
        for spec in specs {
            let outcome = await runner.run(spec, fixtures: fixtures, progress: progress)
            var predictions = outcome.predictions
            var words = outcome.words
            if spec.role == .main { (mainPredictions, mainWords) = (predictions, words) }
            if spec.role == .compare {
                // Features this variant did not change are the main variant's answers, so only the change is measured.
                for feature in features where !spec.features.contains(feature) {
                    for (fixture, items) in mainPredictions {
                        predictions[fixture, default: PredictedItems()].copy(feature, from: items)
                        words[fixture, default: [:]][feature] = mainWords[fixture]?[feature]
                    }
                }
            }
            let score = PredictionWords.attach(words, to: Scorer.score(fixtures: scored, predictions: predictions, scoring: scoring))
            var report = try await variantReport(spec, outcome: outcome, score: score, features: features)
            report.nights = NightsSummary(score, fixtures: fixtures, features: features, failed: Set(report.errors.map(\.fixture)))
            report.refusals = outcome.refusals.isEmpty ? nil : outcome.refusals
            variants.append(report)
        }
        return variants
    }

    /// The checkout's commit, `-dirty` when files differ from it; nil outside a git checkout or without git.
    static func gitCommit() -> String? {
        func git(_ arguments: [String]) -> String? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["git"] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch { return nil }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { return nil }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let commit = git(["rev-parse", "--short=12", "HEAD"]), !commit.isEmpty else { return nil }
        let dirty = git(["status", "--porcelain", "--untracked-files=no"]).map { !$0.isEmpty } ?? false
        return commit + (dirty ? "-dirty" : "")
    }

    /// `feature=N` pairs from repeated options (`calendar_events=4`) for features of `registry`, naming the bad one.
    package static func parseVersionPicks(_ values: [String], option: String,
                                          registry: FeatureRegistry = .shipping) throws -> [ExtractionFeature: Int] {
        var picks: [ExtractionFeature: Int] = [:]
        for value in values {
            let parts = value.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let feature = registry.feature(ExtractionFeature(parts[0]))?.id, let version = Int(parts[1]), version > 0 else {
                throw EvalRunError("\(option) '\(value)': expected FEATURE=VERSION, e.g. calendar_events=2 "
                                   + "(features: \(registry.ids.map(\.rawValue).joined(separator: ", ")))")
            }
            guard picks[feature] == nil else { throw EvalRunError("\(option) names \(feature.rawValue) twice") }
            picks[feature] = version
        }
        return picks
    }

    /// The library with its pins, as production loads it (`MESSAGEAI_PROMPT_VERSIONS` included).
    static func loadPrompts(_ path: String?, pins: [String], environment: [String: String]) throws -> PromptLibrary {
        do {
            return try ProviderFactory.library(promptsPath: path, versions: pins, environment: environment)
        } catch let error as ProviderError {
            throw EvalRunError(.promptsDoNotLoad, error.description)
        }
    }

    static func checkVersions(_ options: EvalRunOptions, features: [ExtractionFeature], library: PromptLibrary) throws {
        for (option, picks) in [("--prompt-version", options.promptVersions), ("--compare", options.compareVersions)] {
            for feature in options.registry.ids {
                guard let version = picks[feature] else { continue }
                guard features.contains(feature) else {
                    throw EvalRunError("\(option) \(feature.rawValue)=\(version): \(feature.rawValue) is not among --features")
                }
                guard library.prompt(id: feature.rawValue, version: version) != nil else {
                    let known = library.all.filter { $0.id == feature.rawValue }.map { String($0.version) }.joined(separator: ", ")
                    throw EvalRunError("\(option) \(feature.rawValue)=\(version): no such prompt version (known: \(known.isEmpty ? "none" : known))")
                }
            }
        }
    }

    /// The fixture with the lists of unscored features emptied, so they count in no number.
    static func restrict(_ fixture: Fixture, to features: [ExtractionFeature], scoring: ScoringRegistry) -> Fixture {
        var copy = fixture
        for feature in scoring.ids where !features.contains(feature) {
            copy.expected.copy(feature, from: PredictedItems())
        }
        return copy
    }

    static func prompts(_ engine: ExtractionEngine, _ features: [ExtractionFeature]) throws -> [ExtractionFeature: PromptRef] {
        var refs: [ExtractionFeature: PromptRef] = [:]
        for feature in features {
            // A combined engine asks every feature with the combined prompt (one feature alone still goes per feature).
            let prompt = engine.mode == .combined && features.count > 1 ? try engine.combinedPrompt() : try engine.prompt(for: feature)
            refs[feature] = PromptRef(id: prompt.id, version: prompt.version, model: engine.provider.modelName(for: prompt),
                                      sha256: prompt.fingerprint.sha256)
        }
        return refs
    }

    static func label(_ provider: String, _ engine: ExtractionEngine, _ features: [ExtractionFeature], changed: [ExtractionFeature]) throws -> String {
        let refs = try prompts(engine, features)
        let models = Set(refs.values.map(\.model)).sorted().joined(separator: ", ")
        guard !changed.isEmpty else { return "\(provider) \(models)" }
        let picked = try changed.map { feature in "\(feature.rawValue)@\(try engine.prompt(for: feature).version)" }
        let sent = Set(changed.compactMap { refs[$0].map { "\($0.id)@\($0.version)" } }).sorted()
        // A combined request carries the changed versions' rules: name both what was sent and what was picked.
        return "\(provider) \(models) with " + (sent == picked.sorted() ? picked.joined(separator: " ")
            : "\(sent.joined(separator: " ")) (\(picked.joined(separator: " ")))")
    }

    static func variantReport(_ spec: EvalVariantSpec, outcome: EvalVariantOutcome, score: EvalScore,
                              features: [ExtractionFeature]) async throws -> EvalVariantReport {
        // A compare variant asks only the features it changed (one alone goes per feature): those refs are what it
        // sent; the others are the main variant's answers, asked as the main variant asked them.
        let refs = try prompts(spec.engine, features).merging(try prompts(spec.engine, spec.features)) { _, ran in ran }
        let cache = await spec.cacheStats?.snapshot
        // With an LLM, every HTTP call went through the cache layer, failed extractions' calls included.
        let requests = cache.map { $0.hits + $0.misses } ?? outcome.requests
        var report = EvalVariantReport(
            id: spec.id, role: spec.role, label: spec.label, provider: spec.engine.provider.name,
            model: Set(refs.values.map(\.model)).sorted().joined(separator: ", "), prompts: refs, ranFeatures: spec.features,
            usage: outcome.usage, requests: requests, reasks: outcome.reasks,
            cache: cache, errors: outcome.errors, score: score, grounding: outcome.grounding)
        let paid = cache?.networkUsage ?? outcome.usage
        report.cost = RunCost.estimate(paid,
                                       engine: spec.engine, features: spec.features)
        report.latency = EvalLatency(outcome.latenciesMs)
        report.notes = outcome.notes
        return report
    }
}
