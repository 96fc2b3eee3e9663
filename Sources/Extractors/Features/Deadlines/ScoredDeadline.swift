package import Core

/// A deadline as a label holds it. Paired on a shared source and the same `deadline`; the category is compared on pairs.
package struct ScoredDeadline: Sendable, Hashable, Codable {
    package var task: String
    package var deadline: LocalDate
    package var category: DeadlineCategory
    package var source: [String]

    package init(task: String, deadline: LocalDate, category: DeadlineCategory, source: [String]) {
        self.task = task
        self.deadline = deadline
        self.category = category
        self.source = source
    }
}

extension ScoredDeadline: ScoredItem {
    package static var feature: ExtractionFeature { .deadlines }

    package static var labelSchema: JSONValue {
        [
            "type": "object",
            "required": ["task", "deadline", "category", "source"],
            "additionalProperties": false,
            "properties": [
                "task": ["type": "string", "minLength": 1],
                "deadline": ["$ref": "#/$defs/date"],
                "category": ["enum": .array(DeadlineCategory.allCases.map { .string($0.rawValue) })],
                "source": ["$ref": "#/$defs/source"],
            ],
        ]
    }

    package var sources: [String] { source }
    package var keyDate: LocalDate? { deadline }

    package func fieldResults(predicted p: ScoredDeadline) -> [(field: String, correct: Bool)] {
        [("category", category == p.category)]
    }
}

extension ExtractionSet {
    package var deadlines: [ScoredDeadline] {
        get { self[ScoredDeadline.self] }
        set { self[ScoredDeadline.self] = newValue }
    }
}
