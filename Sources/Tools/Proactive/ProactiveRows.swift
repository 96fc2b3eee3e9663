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
        /// The item it is (`Scope.eventItem`): two rows of one item never conflict.
        package var item: String?

        package init(userID: UUID, id: UUID, title: String, date: LocalDate, time: LocalTime?, endTime: LocalTime?, location: String?,
                     item: String? = nil) {
            self.item = item
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

    /// An urgent or high priority message of one of the user's conversations, sent by someone else and not
    /// dismissed, that no deadline or RSVP of the user rests on (those raise it as their own finding, or it is met).
    package struct Priority: Sendable, Hashable {
        package var userID: UUID
        package var messageID: UUID
        package var priority: String
        package var reason: String
        package var sentAt: Date
        /// The earliest day of an event extracted from the message: the day it concerns, when known.
        package var eventDay: LocalDate?
        package var sender: String?
        package var conversation: String
        package var text: String

        package init(userID: UUID, messageID: UUID, priority: String, reason: String, sentAt: Date, eventDay: LocalDate?,
                     sender: String?, conversation: String, text: String) {
            self.userID = userID
            self.messageID = messageID
            self.priority = priority
            self.reason = reason
            self.sentAt = sentAt
            self.eventDay = eventDay
            self.sender = sender
            self.conversation = conversation
            self.text = text
        }
    }

    /// Each user's time zone (every requested user that exists has one).
    package var zones: [UUID: TimeZone] = [:]
    package var events: [Event] = []
    package var rsvps: [RSVP] = []
    package var deadlines: [Deadline] = []
    package var reminders: [Reminder] = []
    package var priorities: [Priority] = []

    package init() {}
}
