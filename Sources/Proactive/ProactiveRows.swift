import Chrono
import Foundation

/// The rows the rules read, for many users at once (one read per table, not one per user).
public struct ProactiveRows: Sendable {
    public struct Event: Sendable, Hashable {
        public var userID: UUID
        public var id: UUID
        public var title: String
        public var date: LocalDate
        public var time: LocalTime?
        public var endTime: LocalTime?
        /// The extractor's instants, when it stored them; NULL on rows the app wrote itself.
        public var startsAt: Date?
        public var endsAt: Date?
        public var location: String?
    }

    public struct RSVP: Sendable, Hashable {
        public var userID: UUID
        public var id: UUID
        public var eventName: String
        public var deadline: LocalDate?
        public var eventDate: LocalDate
        public var requestedBy: String?
        public var conversation: String
    }

    public struct Deadline: Sendable, Hashable {
        public var userID: UUID
        public var id: UUID
        public var task: String
        public var deadline: LocalDate
        public var time: LocalTime?
        public var dueAt: Date?
        public var status: String
    }

    public struct Reminder: Sendable, Hashable {
        public var userID: UUID
        public var id: UUID
        public var title: String
        public var at: Date
    }

    /// Each user's time zone (every requested user that exists has one).
    public var zones: [UUID: TimeZone] = [:]
    public var events: [Event] = []
    public var rsvps: [RSVP] = []
    public var deadlines: [Deadline] = []
    public var reminders: [Reminder] = []

    public init() {}
}
