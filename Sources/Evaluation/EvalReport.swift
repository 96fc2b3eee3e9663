package import AgentRuntime
package import Core
package import Extractors
package import Foundation

/// Everything one `eval` run measured: written as `report.json`, rendered as Markdown and HTML, and read back
/// as the `--baseline` of a later run.
package struct EvalReport: Sendable, Codable {
    /// Bumped when a field changes meaning, so an old baseline is refused instead of misread.
    package var format = EvalReport.currentFormat
    package var createdAt: String
    package var fixturesPath: String
    package var fixtureCount: Int
    /// The features run and scored; the others are left out of every number.
    package var features: [ExtractionFeature]
    /// The main variant first, then a compared prompt version (if any), then the rule-based baseline.
    package var variants: [EvalVariantReport]
    package var preFilter: PreFilterAudit
    package var baseline: BaselineComparison?
    /// The commit the run was made from (`git rev-parse`), when it ran in a git checkout.
    var gitCommit: String?
    /// `--provider recorded`: answers used, missing and stale.
    package var recordedAnswers: RecordedAnswersSummary?
    /// The gates the run was held to and its exit status (absent in reports written before it was kept).
    package var gate: EvalGateVerdict?

    static let currentFormat = 1

    package init(createdAt: String, fixturesPath: String, fixtureCount: Int, features: [ExtractionFeature], variants: [EvalVariantReport],
                preFilter: PreFilterAudit, baseline: BaselineComparison? = nil) {
        self.createdAt = createdAt
        self.fixturesPath = fixturesPath
        self.fixtureCount = fixtureCount
        self.features = features
        self.variants = variants
        self.preFilter = preFilter
        self.baseline = baseline
    }

    /// The variant gates and baselines judge.
    package var main: EvalVariantReport? { variants.first { $0.role == .main } }

    enum CodingKeys: String, CodingKey {
        case format, features, variants, baseline, gate
        case createdAt = "created_at"
        case fixturesPath = "fixtures_path"
        case fixtureCount = "fixture_count"
        case preFilter = "pre_filter"
        case gitCommit = "git_commit"
        case recordedAnswers = "recorded_answers"
    }
}

package enum VariantRole: String, Sendable, Hashable, Codable {
    /// The provider and prompt versions asked for; the one gates judge.
    case main
    /// The main variant with `--compare` prompt versions.
    case compare
    /// The rule-based provider, shown beside an LLM so a prompt is never judged without a floor.
    case rulesBaseline = "rules_baseline"
}

/// One provider + prompt versions over all fixtures.
package struct EvalVariantReport: Sendable, Codable {
    package var id: String
    package var role: VariantRole
    /// Human-readable: provider, model and the prompt versions that differ from the main variant.
    package var label: String
    package var provider: String
    package var model: String
    package var prompts: [ExtractionFeature: PromptRef]
    /// Features this variant ran itself; a compare variant takes the others from the main variant.
    package var ranFeatures: [ExtractionFeature]
    /// Tokens of every answer used, served from the cache or not (a failed extraction's answers are not used).
    @ReportTokens package var usage: TokenUsage
    /// HTTP requests made (cache hits included), or provider calls without an LLM.
    package var requests: Int
    package var reasks: Int
    /// Nil when no LLM was asked.
    package var cache: CacheSummary?
    package var errors: [EvalUnitError]
    package var score: EvalScore
    /// Per feature: the evidence check's re-cited and dropped items and the dates kept from the model (absent in
    /// reports written before the check).
    package var grounding: [ExtractionFeature: GroundingCounts]?
    /// The tokens this run paid for (the network's when answers are cached) at list prices.
    package var cost: RunCost?
    /// Time per extraction (absent in reports written before it was measured).
    package var latency: EvalLatency?
    /// Why each dropped or corrected item was (absent in reports written before they were kept).
    package var notes: [EvalItemNote]?
    /// Nights fixtures' figures (per night, last nights, micro over all nights, nights shown exactly right); absent
    /// when the run had none.
    package var nights: NightsSummary?
    /// Parts of the answers the reconciliation refused, per kind (absent when none were).
    package var refusals: [String: Int]?

    package init(id: String, role: VariantRole, label: String, provider: String, model: String, prompts: [ExtractionFeature: PromptRef],
                ranFeatures: [ExtractionFeature], usage: TokenUsage, requests: Int, reasks: Int, cache: CacheSummary?,
                errors: [EvalUnitError], score: EvalScore, grounding: [ExtractionFeature: GroundingCounts]? = nil) {
        self.id = id
        self.role = role
        self.label = label
        self.provider = provider
        self.model = model
        self.prompts = prompts
        self.ranFeatures = ranFeatures
        self.usage = usage
        self.requests = requests
        self.reasks = reasks
        self.cache = cache
        self.errors = errors
        self.score = score
        self.grounding = grounding
    }

    enum CodingKeys: String, CodingKey {
        case id, role, label, provider, model, prompts, usage, requests, reasks, cache, errors, score, grounding, cost, latency, notes,
             nights, refusals
        case ranFeatures = "ran_features"
    }
}

/// Wall-clock time of one variant's extractions, cache hits included (a cached run measures the pipeline, not the model).
package struct EvalLatency: Sendable, Hashable, Codable {
    package var count: Int
    var p50Ms: Double
    var p95Ms: Double
    var maxMs: Double

    package init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func quantile(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))] }
        count = sorted.count
        p50Ms = quantile(0.5)
        p95Ms = quantile(0.95)
        maxMs = sorted[sorted.count - 1]
    }

    enum CodingKeys: String, CodingKey {
        case count
        case p50Ms = "p50_ms"
        case p95Ms = "p95_ms"
        case maxMs = "max_ms"
    }
}

/// A fixture and feature whose extraction failed; it counts as predicting nothing.
/// Why the checks dropped or corrected one item of a fixture (an evidence not in the chat, an invented message id, a
/// date recomputed from its phrase): the engine's note, kept per item for the report.
package struct EvalItemNote: Sendable, Hashable, Codable {
    package var fixture: String
    package var feature: ExtractionFeature
    /// `no_evidence`, `unknown_source`, `dropped`, `date_corrected`, `date_unconfirmed`, `recited`, `aligned_evidence`.
    package var kind: String
    package var message: String
    /// Whether the item was dropped (not only corrected).
    package var dropped: Bool

    package init(fixture: String, note: ExtractionNote) {
        self.fixture = fixture
        feature = note.feature
        kind = note.kind.rawValue
        message = note.message
        dropped = note.kind == .noEvidence || note.droppedItem || note.kind == .dropped
    }
}

/// One failed extraction: one request unit (a feature, or one combined request for every feature) of one fixture.
package struct EvalUnitError: Sendable, Hashable, Codable {
    package var fixture: String
    /// The feature, or `combined` for a combined request (its features in `features`).
    package var feature: ExtractionFeature
    package var message: String
    /// True when the model server's circuit breaker refused or ended the extraction (an outage, not the fixture's
    /// fault); absent otherwise.
    package var outage: Bool?
    /// A failed combined request: the features it took down with it (each counts as predicting nothing). One error
    /// per request, not one per feature.
    package var features: [ExtractionFeature]?

    package init(fixture: String, feature: ExtractionFeature, message: String, outage: Bool = false, features: [ExtractionFeature]? = nil) {
        self.fixture = fixture
        self.feature = feature
        self.message = message
        self.outage = outage ? true : nil
        self.features = features
    }

    /// The failed unit as reports name it: `calendar_events`, or `combined (calendar_events, decisions, ...)`.
    package var unit: String {
        features.map { "\(feature.rawValue) (\($0.map(\.rawValue).joined(separator: ", ")))" } ?? feature.rawValue
    }

    /// The message without the feature name it often starts with, for lines that already name the feature.
    package var detail: String {
        let prefix = "\(feature.rawValue): "
        return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    }
}

extension EvalReport {
    /// Pretty, key-sorted JSON, so two reports diff line by line.
    package func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads a `report.json`, saying which file is wrong and why.
    package static func load(path: String) throws -> EvalReport {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EvalRunError("\(path): cannot read the baseline report")
        }
        let report: EvalReport
        do {
            report = try JSONDecoder().decode(EvalReport.self, from: data)
        } catch {
            throw EvalRunError("\(path): not an eval report.json: \(Self.describe(error))")
        }
        guard report.format == currentFormat else {
            throw EvalRunError("\(path): report format \(report.format), this version reads format \(currentFormat); re-run the baseline")
        }
        return report
    }

    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
            return keys.isEmpty ? "$" : "$" + keys
        }
        switch decoding {
        case .keyNotFound(let key, let context): return "\(path(context)): missing field '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(decoding)"
        }
    }
}

/// Why an eval run could not start or finish, with a `code` callers branch on and a message that says what to fix.
/// One struct for the module, in the style of AsyncHTTPClient's `HTTPClientError`.
package struct EvalRunError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; compared by kind only, never by message.
    package typealias Code = ErrorCode<EvalRunError>

    package let code: Code
    /// The whole user-visible text.
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A usage error: the options given cannot run.
    package init(_ message: String) { self.init(.usage, message) }

    package var description: String { message }
}

extension ErrorCode where Domain == EvalRunError {
    /// Options that contradict each other or name what does not exist (`--features`, `--compare`, pins).
    package static var usage: Self { Self("usage") }
    /// The fixture files do not load; the message lists every problem with its file and line.
    package static var fixturesDoNotLoad: Self { Self("fixturesDoNotLoad") }
    /// The prompt set does not load or is not found.
    package static var promptsDoNotLoad: Self { Self("promptsDoNotLoad") }
    /// A fixture loaded but cannot become a conversation (an unknown `reference.timezone`).
    package static var invalidFixture: Self { Self("invalidFixture") }
    /// The report directory cannot be created.
    package static var reportNotWritten: Self { Self("reportNotWritten") }
}
