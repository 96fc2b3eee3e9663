package import Core

/// A decision as a label holds it. Paired on a shared source alone; the category is compared on pairs.
package struct ScoredDecision: Sendable, Hashable, Codable {
    package var decision: String
    package var category: DecisionCategory
    package var source: [String]

    package init(decision: String, category: DecisionCategory, source: [String]) {
        self.decision = decision
        self.category = category
        self.source = source
    }
}

extension ScoredDecision: ScoredItem {
    package static var feature: ExtractionFeature { .decisions }

    package static var labelSchema: JSONValue {
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

    package var sources: [String] { source }
    package var keyDate: LocalDate? { nil }

    package func fieldResults(predicted p: ScoredDecision) -> [(field: String, correct: Bool)] {
        [("category", category == p.category)]
    }
}

extension ExtractionSet {
    package var decisions: [ScoredDecision] {
        get { self[ScoredDecision.self] }
        set { self[ScoredDecision.self] = newValue }
    }
}
