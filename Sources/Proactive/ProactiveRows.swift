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
        public var location: String?

        public init(userID: UUID, id: UUID, title: String, date: LocalDate, time: LocalTime?, endTime: LocalTime?, location: String?) {
            self.userID = userID
            self.id = id
            self.title = title
            self.date = date
            self.time = time
            self.endTime = endTime
            self.location = location
        }
    }

    public struct RSVP: Sendable, Hashable {
        public var userID: UUID
        public var id: UUID
        public var eventName: String
        public var deadline: LocalDate?
        public var eventDate: LocalDate
        public var requestedBy: String?
        public var conversation: String

        public init(userID: UUID, id: UUID, eventName: String, deadline: LocalDate?, eventDate: LocalDate, requestedBy: String?, conversation: String) {
            self.userID = userID
            self.id = id
            self.eventName = eventName
            self.deadline = deadline
            self.eventDate = eventDate
            self.requestedBy = requestedBy
            self.conversation = conversation
        }
    }

    public struct Deadline: Sendable, Hashable {
        public var userID: UUID
        public var id: UUID
        public var task: String
        public var deadline: LocalDate
        public var time: LocalTime?
        public var dueAt: Date?
        public var status: String

        public init(userID: UUID, id: UUID, task: String, deadline: LocalDate, time: LocalTime?, dueAt: Date?, status: String) {
            self.userID = userID
            self.id = id
            self.task = task
            self.deadline = deadline
            self.time = time
            self.dueAt = dueAt
            self.status = status
        }
    }

    public struct Reminder: Sendable, Hashable {
        public var userID: UUID
        public var id: UUID
        public var title: String
        public var at: Date

        public init(userID: UUID, id: UUID, title: String, at: Date) {
            self.userID = userID
            self.id = id
            self.title = title
            self.at = at
        }
    }

    /// Each user's time zone (every requested user that exists has one).
    public var zones: [UUID: TimeZone] = [:]
    public var events: [Event] = []
    public var rsvps: [RSVP] = []
    public var deadlines: [Deadline] = []
    public var reminders: [Reminder] = []

    public init() {}
}
