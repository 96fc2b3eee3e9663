/// The five things the extractors find; raw values are the keys used in fixtures, predictions and reports.
public enum Feature: String, Sendable, Hashable, Codable, CaseIterable, CodingKeyRepresentable {
    case calendarEvents = "calendar_events"
    case decisions
    case priorityMessages = "priority_messages"
    case rsvps
    case deadlines
}
