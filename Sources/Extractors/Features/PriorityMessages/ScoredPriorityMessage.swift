package import Core

/// A flagged message as a label holds it. Paired on the message id; priority and action are compared on pairs.
package struct ScoredPriorityMessage: Sendable, Hashable, Codable {
    /// The id of the flagged message.
    package var message: String
    package var priority: PriorityLevel
    package var actionRequired: Bool

    package init(message: String, priority: PriorityLevel, actionRequired: Bool) {
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
    package static var feature: ExtractionFeature { .priorityMessages }

    package static var labelSchema: JSONValue {
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

    package var sources: [String] { [message] }
    package var keyDate: LocalDate? { nil }
    package var messageReferences: [(path: [JSONPathComponent], id: String)] { [([.key("message")], message)] }

    package func fieldResults(predicted p: ScoredPriorityMessage) -> [(field: String, correct: Bool)] {
        [("priority", priority == p.priority), ("action_required", actionRequired == p.actionRequired)]
    }
}

extension ExtractionSet {
    package var priorityMessages: [ScoredPriorityMessage] {
        get { self[ScoredPriorityMessage.self] }
        set { self[ScoredPriorityMessage.self] = newValue }
    }
}
