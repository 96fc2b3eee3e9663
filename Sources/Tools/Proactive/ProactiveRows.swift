package import Core
package import Foundation

/// The rows the rules read, for many users at once (one read per table, not one per user).
package struct ProactiveRows: Sendable {
    package struct Event: Sendable, Hashable {
        package var userID: UUID
        package var id: UUID
        package var title: String
        package var date: LocalDate
        package var time: LocalTime?
        package var endTime: LocalTime?
        package var location: String?

        package init(userID: UUID, id: UUID, title: String, date: LocalDate, time: LocalTime?, endTime: LocalTime?, location: String?) {
            self.userID = userID
            self.id = id
            self.title = title
            self.date = date
            self.time = time
            self.endTime = endTime
            self.location = location
        }
    }

    package struct RSVP: Sendable, Hashable {
        package var userID: UUID
        package var id: UUID
        package var eventName: String
        package var deadline: LocalDate?
        package var eventDate: LocalDate
        package var requestedBy: String?
        package var conversation: String

        package init(userID: UUID, id: UUID, eventName: String, deadline: LocalDate?, eventDate: LocalDate, requestedBy: String?, conversation: String) {
            self.userID = userID
            self.id = id
            self.eventName = eventName
            self.deadline = deadline
            self.eventDate = eventDate
            self.requestedBy = requestedBy
            self.conversation = conversation
        }
    }

    package struct Deadline: Sendable, Hashable {
        package var userID: UUID
        package var id: UUID
        package var task: String
        package var deadline: LocalDate
        package var time: LocalTime?
        package var dueAt: Date?
        package var status: String

        package init(userID: UUID, id: UUID, task: String, deadline: LocalDate, time: LocalTime?, dueAt: Date?, status: String) {
            self.userID = userID
            self.id = id
            self.task = task
            self.deadline = deadline
            self.time = time
            self.dueAt = dueAt
            self.status = status
        }
    }

    package struct Reminder: Sendable, Hashable {
        package var userID: UUID
        package var id: UUID
        package var title: String
        package var at: Date

        package init(userID: UUID, id: UUID, title: String, at: Date) {
            self.userID = userID
            self.id = id
            self.title = title
            self.at = at
        }
    }

    /// Each user's time zone (every requested user that exists has one).
    package var zones: [UUID: TimeZone] = [:]
    package var events: [Event] = []
    package var rsvps: [RSVP] = []
    package var deadlines: [Deadline] = []
    package var reminders: [Reminder] = []

    package init() {}
}
