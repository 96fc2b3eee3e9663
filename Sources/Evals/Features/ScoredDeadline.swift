import Chrono
import FeatureKit
import JSONKit

/// A deadline as a label holds it. Paired on a shared source and the same `deadline`; the category is compared on pairs.
public struct ScoredDeadline: Sendable, Hashable, Codable {
    public var task: String
    public var deadline: LocalDate
    public var category: DeadlineCategory
    public var source: [String]

    public init(task: String, deadline: LocalDate, category: DeadlineCategory, source: [String]) {
        self.task = task
        self.deadline = deadline
        self.category = category
        self.source = source
    }
}

extension ScoredDeadline: ScoredItem {
    public static var feature: ExtractionFeature { .deadlines }

    public static var labelSchema: JSONValue {
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

    public var sources: [String] { source }
    public var keyDate: LocalDate? { deadline }

    public func fieldResults(predicted p: ScoredDeadline) -> [(field: String, correct: Bool)] {
        [("category", category == p.category)]
    }
}

extension ExtractionSet {
    public var deadlines: [ScoredDeadline] {
        get { self[ScoredDeadline.self] }
        set { self[ScoredDeadline.self] = newValue }
    }
}
