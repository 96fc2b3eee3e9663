import Evals
import Extractors
import Foundation
import JobsKit

/// One provider and prompt-version choice to run over the fixtures.
public struct EvalVariantSpec: Sendable {
    public var id: String
    public var role: VariantRole
    public var label: String
    public var engine: ExtractionEngine
    /// The features this variant asks for itself.
    public var features: [ExtractionFeature]
    /// Counts cache hits of this variant's LLM client; nil for the rule-based provider.
    public var cacheStats: CacheStats?

    public init(id: String, role: VariantRole, label: String, engine: ExtractionEngine, features: [ExtractionFeature], cacheStats: CacheStats? = nil) {
        self.id = id
        self.role = role
        self.label = label
        self.engine = engine
        self.features = features
        self.cacheStats = cacheStats
    }
}

/// What running one variant over the fixtures produced, before scoring.
public struct EvalVariantOutcome: Sendable {
    /// Keyed by fixture id; only the variant's own features are filled.
    public var predictions: [String: PredictedItems] = [:]
    public var usage = TokenUsage()
    public var requests = 0
    public var reasks = 0
    /// Sorted by fixture, then feature.
    public var errors: [EvalUnitError] = []
    /// Per feature: items re-cited or dropped by the evidence check, model dates kept unconfirmed.
    public var grounding: [ExtractionFeature: GroundingCounts] = [:]

    public init() {}
}

/// Progress of one variant: fixtures finished out of all.
public struct EvalProgress: Sendable {
    public let variant: String
    public let done: Int
    public let total: Int
}

/// Runs the extractors over fixtures exactly as production does: a `ConversationInput` per fixture and
/// `ExtractionEngine.extract`. Each feature is extracted on its own, so one failing feature (an answer still
/// invalid after the re-ask, an HTTP error) costs only that feature of that fixture; the run goes on.
public struct EvalRunner: Sendable {
    /// Fixtures in flight at once; each asks for its features concurrently, as a production extraction does.
    public var concurrency: Int

    public init(concurrency: Int = 4) {
        self.concurrency = max(1, concurrency)
    }

    public func run(_ variant: EvalVariantSpec, fixtures: [Fixture],
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
                outcome.predictions[id] = result.predicted
                outcome.usage += result.usage
                outcome.requests += result.requests
                outcome.reasks += result.reasks
                outcome.errors += result.errors
                outcome.grounding.merge(result.grounding, uniquingKeysWith: +)
                done += 1
                progress?(EvalProgress(variant: variant.id, done: done, total: fixtures.count))
                startNext()
            }
        }
        let order = Dictionary(uniqueKeysWithValues: fixtures.enumerated().map { ($0.element.id, $0.offset) })
        outcome.errors.sort {
            (order[$0.fixture] ?? 0, ScoredFeature.ids.firstIndex(of: $0.feature) ?? 0)
                < (order[$1.fixture] ?? 0, ScoredFeature.ids.firstIndex(of: $1.feature) ?? 0)
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
    }

    static func run(_ fixture: Fixture, variant: EvalVariantSpec) async -> FixtureOutcome {
        var outcome = FixtureOutcome()
        let input: ConversationInput
        do {
            input = try FixtureConversation.input(fixture)
        } catch {
            outcome.errors = variant.features.map { EvalUnitError(fixture: fixture.id, feature: $0, message: "\(error)") }
            return outcome
        }
        let engine = variant.engine
        let user = fixture.reference.user
        if engine.combined { return await runCombined(fixture, input: input, variant: variant) }
        let results = await withTaskGroup(of: (ExtractionFeature, Result<ExtractionRun, any Error>).self) { group in
            for feature in variant.features {
                group.addTask {
                    do {
                        // Await into a local before building the tuple: Swift 6.3.1's optimizer drops the tuple's first
                        // element when it is built around the `try await` inside this do/catch in a task, so `feature`
                        // came back as garbage and release builds crashed (Tests/Reproducers/TaskTupleMiscompile).
                        let run = try await engine.extract(input, features: [feature])
                        return (feature, .success(run))
                    } catch {
                        return (feature, .failure(error))
                    }
                }
            }
            var collected: [ExtractionFeature: Result<ExtractionRun, any Error>] = [:]
            for await (feature, result) in group { collected[feature] = result }
            return collected
        }
        for feature in variant.features {
            switch results[feature] {
            case .success(let run)?:
                ScoredFeature.named(feature)?.copy(from: PredictionMapping.predicted(run.extraction, user: user), into: &outcome.predicted)
                outcome.usage += run.usage
                outcome.requests += run.requests
                outcome.reasks += run.reasks
                outcome.grounding[feature] = Self.grounding(run.extraction.notes)
            case .failure(let error)?:
                // An answer still invalid after its re-ask: the re-ask happened, count it.
                if case ExtractionError.invalidOutput? = error as? ExtractionError { outcome.reasks += 1 }
                outcome.errors.append(EvalUnitError(fixture: fixture.id, feature: feature, message: "\(error)"))
            case nil:
                break
            }
        }
        return outcome
    }

    /// A combined engine answers every feature in one request per window: one extraction, split into the features;
    /// when it fails, every feature of the fixture fails with it (that is the combined mode's cost, and it is counted).
    static func runCombined(_ fixture: Fixture, input: ConversationInput, variant: EvalVariantSpec) async -> FixtureOutcome {
        var outcome = FixtureOutcome()
        do {
            let run = try await variant.engine.extract(input, features: variant.features)
            let predicted = PredictionMapping.predicted(run.extraction, user: fixture.reference.user)
            for feature in variant.features {
                ScoredFeature.named(feature)?.copy(from: predicted, into: &outcome.predicted)
                outcome.grounding[feature] = grounding(run.extraction.notes.filter { $0.feature == feature })
            }
            outcome.usage = run.usage
            outcome.requests = run.requests
            outcome.reasks = run.reasks
        } catch {
            if case ExtractionError.invalidOutput? = error as? ExtractionError { outcome.reasks += 1 }
            outcome.errors = variant.features.map { EvalUnitError(fixture: fixture.id, feature: $0, message: "\(error)") }
        }
        return outcome
    }

    static func grounding(_ notes: [ExtractionNote]) -> GroundingCounts {
        GroundingCounts(recited: notes.count { $0.kind == .recited }, dropped: notes.count { $0.kind == .noEvidence },
                        datesUnconfirmed: notes.count { $0.kind == .dateUnconfirmed })
    }
}
