/// Closed vocabularies of the extracted items; the raw values are what fixtures and models write. The categories
/// (`EventCategory`, `DecisionCategory`, `DeadlineCategory`) live in Features/FeatureCategories.swift, shared with the extractors.
package enum PriorityLevel: String, Sendable, Hashable, Codable, CaseIterable {
    case urgent, high, medium
}

package enum RSVPStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case pending, responded
}

package enum RSVPResponse: String, Sendable, Hashable, Codable, CaseIterable {
    case yes, no, maybe
}
