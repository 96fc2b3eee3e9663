import Chrono
import FeatureKit
import JSONKit
import YAMLKit

/// A flagged message as a label holds it. Paired on the message id; priority and action are compared on pairs.
public struct ScoredPriorityMessage: Sendable, Hashable, Codable {
    /// The id of the flagged message.
    public var message: String
    public var priority: PriorityLevel
    public var actionRequired: Bool

    public init(message: String, priority: PriorityLevel, actionRequired: Bool) {
        self.message = message
        self.priority = priority
        self.actionRequired = actionRequired
    }

    enum CodingKeys: String, CodingKey {
        case message, priority
        case actionRequired = "action_required"
    }
}

extension ScoredPriorityMessage: ScoredItem {
    public static var feature: ExtractionFeature { .priorityMessages }

    public static var labelSchema: JSONValue {
        [
            "type": "object",
            "required": ["message", "priority", "action_required"],
            "additionalProperties": false,
            "properties": [
                "message": ["$ref": "#/$defs/id"],
                "priority": ["enum": .array(PriorityLevel.allCases.map { .string($0.rawValue) })],
                "action_required": ["type": "boolean"],
            ],
        ]
    }

    public var sources: [String] { [message] }
    public var keyDate: LocalDate? { nil }
    public var messageReferences: [(path: [JSONPathComponent], id: String)] { [([.key("message")], message)] }

    public func fieldResults(predicted p: ScoredPriorityMessage) -> [(field: String, correct: Bool)] {
        [("priority", priority == p.priority), ("action_required", actionRequired == p.actionRequired)]
    }
}

extension ExtractionSet {
    public var priorityMessages: [ScoredPriorityMessage] {
        get { self[ScoredPriorityMessage.self] }
        set { self[ScoredPriorityMessage.self] = newValue }
    }
}
