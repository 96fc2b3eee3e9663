/// The closed category vocabularies of events, decisions and deadlines, shared by the extractors (which write
/// them) and the scorer (which compares them). The raw values are what models, rules, fixtures and the tables'
/// `category` columns hold; a model's answer outside them is refused by the schema's enum.
package enum EventCategory: String, Sendable, Hashable, Codable, CaseIterable {
    case school, medical, activity, social, other
}

package enum DecisionCategory: String, Sendable, Hashable, Codable, CaseIterable {
    case carpool, activity, schedule, purchase, food, other
}

package enum DeadlineCategory: String, Sendable, Hashable, Codable, CaseIterable {
    case school, medical, activity, payment, other
}
