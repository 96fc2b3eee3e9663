/// Closed vocabularies of the extracted items; the raw values are what fixtures and models write.
public enum EventCategory: String, Sendable, Hashable, Codable, CaseIterable {
    case school, medical, activity, social, other
}

public enum DecisionCategory: String, Sendable, Hashable, Codable, CaseIterable {
    case carpool, activity, schedule, purchase, food, other
}

public enum DeadlineCategory: String, Sendable, Hashable, Codable, CaseIterable {
    case school, medical, activity, payment, other
}

public enum PriorityLevel: String, Sendable, Hashable, Codable, CaseIterable {
    case urgent, high, medium
}

public enum RSVPStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case pending, responded
}

public enum RSVPResponse: String, Sendable, Hashable, Codable, CaseIterable {
    case yes, no, maybe
}
