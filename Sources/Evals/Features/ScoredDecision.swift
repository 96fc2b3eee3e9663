import Chrono
import FeatureKit
import JSONKit

/// A decision as a label holds it. Paired on a shared source alone; the category is compared on pairs.
public struct ScoredDecision: Sendable, Hashable, Codable {
    public var decision: String
    public var category: DecisionCategory
    public var source: [String]

    public init(decision: String, category: DecisionCategory, source: [String]) {
        self.decision = decision
        self.category = category
        self.source = source
    }
}

extension ScoredDecision: ScoredItem {
    public static var feature: ExtractionFeature { .decisions }

    public static var labelSchema: JSONValue {
        [
            "type": "object",
            "required": ["decision", "category", "source"],
            "additionalProperties": false,
            "properties": [
                "decision": ["type": "string", "minLength": 1],
                "category": ["enum": .array(DecisionCategory.allCases.map { .string($0.rawValue) })],
                "source": ["$ref": "#/$defs/source"],
            ],
        ]
    }

    public var sources: [String] { source }
    public var keyDate: LocalDate? { nil }

    public func fieldResults(predicted p: ScoredDecision) -> [(field: String, correct: Bool)] {
        [("category", category == p.category)]
    }
}

extension ExtractionSet {
    public var decisions: [ScoredDecision] {
        get { self[ScoredDecision.self] }
        set { self[ScoredDecision.self] = newValue }
    }
}
