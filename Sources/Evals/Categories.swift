import FeatureKit
/// Closed vocabularies of the extracted items; the raw values are what fixtures and models write. The categories
/// (`EventCategory`, `DecisionCategory`, `DeadlineCategory`) live in FeatureKit, shared with the extractors.
public enum PriorityLevel: String, Sendable, Hashable, Codable, CaseIterable {
    case urgent, high, medium
}

public enum RSVPStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case pending, responded
}

public enum RSVPResponse: String, Sendable, Hashable, Codable, CaseIterable {
    case yes, no, maybe
}
