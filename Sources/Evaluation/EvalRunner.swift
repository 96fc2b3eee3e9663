package import AgentRuntime
package import Extractors
import Core
import Foundation

/// One provider and prompt-version choice to run over the fixtures.
package struct EvalVariantSpec: Sendable {
    package var id: String
    package var role: VariantRole
    package var label: String
    package var engine: ExtractionEngine
    /// The features this variant asks for itself.
    package var features: [ExtractionFeature]
    /// Counts cache hits of this variant's LLM client; nil for the rule-based provider.
    package var cacheStats: CacheStats?

    package init(id: String, role: VariantRole, label: String, engine: ExtractionEngine, features: [ExtractionFeature], cacheStats: CacheStats? = nil) {
        self.id = id
        self.role = role
        self.label = label
        self.engine = engine
        self.features = features
        self.cacheStats = cacheStats
    }
}

/// What running one variant over the fixtures produced, before scoring.
package struct EvalVariantOutcome: Sendable {
    /// Keyed by fixture id; only the variant's own features are filled.
    package var predictions: [String: PredictedItems] = [:]
    package var usage = TokenUsage()
    package var requests = 0
    package var reasks = 0
    /// Sorted by fixture, then feature.
    package var errors: [EvalUnitError] = []
    /// Per feature: items re-cited or dropped by the evidence check, model dates kept unconfirmed.
    package var grounding: [ExtractionFeature: GroundingCounts] = [:]
    /// Wall-clock milliseconds of each extraction (one feature, or one combined unit), cache hits included.
    var latenciesMs: [Double] = []
    /// Per item the checks dropped or corrected, why (the engine's notes), sorted by fixture.
    package var notes: [EvalItemNote] = []
    /// Parts of the answers the reconciliation refused (nights, and every fixture with `--provider labels`), per kind.
    package var refusals: [String: Int] = [:]
    /// Each predicted item's date phrases and evidence, for the reports (`PredictionWords`).
    package var words: PredictionWords.Table = [:]

    package init() {}
}

/// Progress of one variant: fixtures finished out of all.
package struct EvalProgress: Sendable {
    package let variant: String
    package let done: Int
    package let total: Int
}

/// Runs the extractors over fixtures exactly as production does: a `ConversationInput` per fixture and
/// `ExtractionEngine.extract`, in the variant's request mode. A failing unit (an answer still invalid after the
/// re-ask, an HTTP error) costs only that unit of that fixture, one feature or the combined request; the run goes on.
package struct EvalRunner: Sendable {
    /// Fixtures in flight at once; each asks for its features concurrently, as a production extraction does.
    package var concurrency: Int

    package init(concurrency: Int = 4) {
        self.concurrency = max(1, concurrency)
    }

    package func run(_ variant: EvalVariantSpec, fixtures: [Fixture],
                    progress: (@Sendable (EvalProgress) -> Void)? = nil) async -> EvalVariantOutcome {
        var outcome = EvalVariantOutcome()
        let limit = concurrency
        await withTaskGroup(of: (String, FixtureOutcome).self) { group in
            var next = 0
            func startNext() {
                guard next < fixtures.count else { return }
                let fixture = fixtures[next]
                next += 1
                group.addTask { (fixture.id, await Self.run(fixture, variant: variant)) }
            }
            for _ in 0..<limit { startNext() }
            var done = 0
            for await (id, result) in group {
                if result.nights.isEmpty {
                    outcome.predictions[id] = result.predicted
                } else {
                    outcome.predictions.merge(result.nights) { _, night in night }
                }
                outcome.refusals.merge(result.refusals, uniquingKeysWith: +)
                outcome.words[id] = result.words
                outcome.usage += result.usage
                outcome.requests += result.requests
                outcome.reasks += result.reasks
                outcome.errors += result.errors
                outcome.grounding.merge(result.grounding, uniquingKeysWith: +)
                outcome.latenciesMs += result.latenciesMs
                outcome.notes += result.notes
                done += 1
                progress?(EvalProgress(variant: variant.id, done: done, total: fixtures.count))
                startNext()
            }
        }
        let order = Dictionary(uniqueKeysWithValues: fixtures.enumerated().map { ($0.element.id, $0.offset) })
        let features = variant.engine.registry.ids
        outcome.notes.sort { (order[$0.fixture] ?? 0) < (order[$1.fixture] ?? 0) }
        outcome.errors.sort {
            (order[$0.fixture] ?? 0, features.firstIndex(of: $0.feature) ?? 0)
                < (order[$1.fixture] ?? 0, features.firstIndex(of: $1.feature) ?? 0)
        }
        return outcome
    }

    struct FixtureOutcome: Sendable {
        var predicted = PredictedItems()
        var usage = TokenUsage()
        var requests = 0
        var reasks = 0
        var errors: [EvalUnitError] = []
        var grounding: [ExtractionFeature: GroundingCounts] = [:]
        var latenciesMs: [Double] = []
        var notes: [EvalItemNote] = []
        /// A nights fixture's predictions, one per night (`Fixture.nightID`); empty for a one-night fixture.
        var nights: [String: PredictedItems] = [:]
        var refusals: [String: Int] = [:]
        var words: [ExtractionFeature: [JSONValue]] = [:]
    }

    static func run(_ fixture: Fixture, variant: EvalVariantSpec) async -> FixtureOutcome {
        if fixture.nights != nil || variant.engine.provider is LabelsAnswerProvider {
            return await NightsPlayer.play(fixture, variant: variant)
        }
        var outcome = FixtureOutcome()
        let input: ConversationInput
        do {
            input = try FixtureConversation.input(fixture)
        } catch {
            outcome.errors = unitErrors(fixture.id, features: variant.features, error: error, combined: variant.engine.mode == .combined)
            return outcome
        }
        let engine = variant.engine
        let user = fixture.reference.user
        let texts = Dictionary(input.messages.map { ($0.id, $0.text) }, uniquingKeysWith: { first, _ in first })
        // A unit is what one extraction answers: each feature alone, or all of them when the engine is combined (one
        // request per window; when it fails, every feature of the fixture fails with it, and that cost is counted).
        let units: [[ExtractionFeature]] = engine.mode == .combined ? [variant.features] : variant.features.map { [$0] }
        let results = await withTaskGroup(of: (Int, Result<ExtractionRun, any Error>, Double).self) { group in
            for (index, features) in units.enumerated() {
                group.addTask {
                    let clock = ContinuousClock()
                    let start = clock.now
                    func elapsed() -> Double { (clock.now - start).seconds * 1000 }
                    do {
                        // Await into a local before building the tuple: Swift 6.3.1's optimizer drops the tuple's first
                        // element when it is built around the `try await` inside this do/catch in a task, so the index
                        // came back as garbage and release builds crashed (Tests/Reproducers/TaskTupleMiscompile).
                        let run = try await engine.extract(input, features: features)
                        let ms = elapsed()
                        return (index, .success(run), ms)
                    } catch {
                        let ms = elapsed()
                        return (index, .failure(error), ms)
                    }
                }
            }
            var collected: [Int: Result<ExtractionRun, any Error>] = [:]
            for await (index, result, ms) in group {
                collected[index] = result
                outcome.latenciesMs.append(ms)
            }
            return collected
        }
        for (index, features) in units.enumerated() {
            switch results[index] {
            case .success(let run)?:
                for feature in features {
                    // Each feature maps its own items to the scorer's shape (`Extractor.scored`).
                    if let parent = engine.registry.feature(feature) {
                        parent.scored(run.extraction, user: user, into: &outcome.predicted)
                        outcome.words[feature] = PredictionWords.words(parent, run.extraction, messages: texts)
                    }
                    outcome.grounding[feature] = Self.grounding(run.extraction.notes.filter { $0.feature == feature },
                                                                 tally: run.extraction.grounding[feature] ?? GroundingTally())
                    outcome.notes += run.extraction.notes.filter { $0.feature == feature }.map { EvalItemNote(fixture: fixture.id, note: $0) }
                }
                outcome.usage += run.usage
                outcome.requests += run.requests
                outcome.reasks += run.reasks
            case .failure(let error)?:
                // An answer still invalid after its re-ask: the re-ask happened, count it.
                if case ExtractionError.invalidOutput? = error as? ExtractionError { outcome.reasks += 1 }
                outcome.errors += unitErrors(fixture.id, features: features, error: error, combined: engine.mode == .combined)
            case nil:
                break
            }
        }
        return outcome
    }

    /// The errors of one failed unit: one per feature asked alone, one for a combined request (naming its features),
    /// so a failed request counts once. A recorded run's missing answer is named as such (`RecordedAnswerBook.problem`).
    static func unitErrors(_ fixture: String, features: [ExtractionFeature], error: any Error, combined: Bool) -> [EvalUnitError] {
        let message = RecordedAnswerBook.problem(error) ?? "\(error)"
        let outage = (error as? LLMError)?.outage != nil
        if combined, features.count > 1 {
            return [EvalUnitError(fixture: fixture, feature: ExtractionFeature(CombinedSchema.promptID), message: message, outage: outage, features: features)]
        }
        return features.map { EvalUnitError(fixture: fixture, feature: $0, message: message, outage: outage) }
    }

    package static func grounding(_ notes: [ExtractionNote], tally: GroundingTally = GroundingTally()) -> GroundingCounts {
        GroundingCounts(exact: tally.exact, aligned: tally.aligned, recited: tally.recited,
                        dropped: notes.count { $0.kind == .noEvidence },
                        datesUnconfirmed: notes.count { $0.kind == .dateUnconfirmed },
                        droppedUnknownIDs: notes.count { $0.kind == .unknownSource && $0.droppedItem },
                        droppedOther: notes.count { $0.kind == .dropped },
                        droppedInjection: notes.count { $0.kind == .injection },
                        droppedUnbacked: notes.count { $0.kind == .unbacked }, fieldsCleared: notes.count { $0.kind == .fieldCleared })
    }
}
