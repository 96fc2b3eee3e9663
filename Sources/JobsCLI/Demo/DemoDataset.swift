package import Core
package import Foundation

/// Realistic parent-group conversations for a local database: a class group, a soccer carpool, a birthday
/// party and a 1:1 between co-parents. It plants what the product must catch: Maria's soccer game and the
/// birthday party overlap on the same Saturday, and Maria has not answered the party RSVP.
///
/// Dates in the text are written out ("Saturday, November 28") relative to the day it is built for, so the
/// demo is always about the coming days (tomorrow to two weeks ahead), with school events on school days and the
/// weekend's on the weekend whatever the day; message ids are fixed so loading twice changes nothing.
package struct DemoDataset: Sendable {
    package struct User: Sendable {
        package let id: UUID
        package let username: String
        package let displayName: String
        package let timeZone: String
        package var email: String { "\(username)@demo.messageai.test" }
    }

    package struct Message: Sendable {
        package let id: UUID
        package let senderID: UUID
        package let sentAt: Date
        package let text: String
    }

    package struct Conversation: Sendable {
        package let id: UUID
        package let name: String
        package let isGroup: Bool
        package let participantIDs: [UUID]
        package let messages: [Message]
    }

    package let users: [User]
    package let conversations: [Conversation]
    /// The user the demo is told from (the busy parent).
    package let mainUserID: UUID
    /// The Saturday of the planted conflict.
    package let conflictDay: LocalDate

    package static let timeZone = TimeZone(identifier: "America/New_York")!

    static func id(_ kind: Int, _ number: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-de%02x-4000-8000-%012x", kind, number))!
    }

    package static let userIDs = (maria: id(1, 1), dan: id(1, 2), priya: id(1, 3), tom: id(1, 4),
                                 alvarez: id(1, 5), alex: id(1, 6), coach: id(1, 7), jenny: id(1, 8))
    package static let conversationIDs = (classGroup: id(2, 1), carpool: id(2, 2), birthday: id(2, 3), coParents: id(2, 4))

    /// Builds the dataset for `now`: messages were sent in the last day and a half, events lie ahead.
    package static func make(now: Date) -> DemoDataset {
        let today = LocalDate(now, in: timeZone)
        // The first Saturday at least four days ahead (the game and the party): its Wednesday, the earliest day written
        // below, is then tomorrow at the soonest, so every date is still to come whatever the weekday and hour the demo
        // is loaded (in its zone), and the party RSVP and the library books, due that Wednesday, are at most a week ahead.
        // School days are Monday to Friday: the slips are due the first Friday after today (within the coming week, so
        // the proactive pass raises it on any day), the field trip is the Wednesday after, picture day the Tuesday after
        // the game, and the early dismissal the first school day after the message announcing it.
        var saturday = today.adding(days: 4)
        while saturday.isoWeekday != 6 { saturday = saturday.adding(days: 1) }
        let thursday = saturday.adding(days: -2)
        let wednesday = saturday.adding(days: -3)
        var slipsDue = today.adding(days: 1)
        while slipsDue.isoWeekday != 5 { slipsDue = slipsDue.adding(days: 1) }
        let fieldTrip = slipsDue.adding(days: 5)
        let pictureDay = saturday.adding(days: 3)
        let dismissalSent = now.addingTimeInterval(-3 * 3600)
        let dismissalSentDay = LocalDate(dismissalSent, in: timeZone)
        var dismissal = dismissalSentDay.adding(days: 1)
        while dismissal.isoWeekday > 5 { dismissal = dismissal.adding(days: 1) }
        let dismissalWords = dismissal == dismissalSentDay.adding(days: 1) ? "tomorrow" : "on \(spoken(dismissal))"
        let u = userIDs
        let c = conversationIDs

        func ago(_ hours: Double) -> Date { now.addingTimeInterval(-hours * 3600) }
        func messages(_ conversation: Int, _ items: [(UUID, Double, String)]) -> [Message] {
            items.enumerated().map { index, item in
                Message(id: id(3, conversation * 1000 + index + 1), senderID: item.0, sentAt: ago(item.1), text: item.2)
            }
        }

        let users = [
            User(id: u.maria, username: "maria", displayName: "Maria Lopez", timeZone: "America/New_York"),
            User(id: u.dan, username: "dan", displayName: "Dan Kim", timeZone: "America/New_York"),
            User(id: u.priya, username: "priya", displayName: "Priya Shah", timeZone: "America/New_York"),
            User(id: u.tom, username: "tom", displayName: "Tom Becker", timeZone: "America/New_York"),
            User(id: u.alvarez, username: "ms.alvarez", displayName: "Ms. Alvarez", timeZone: "America/New_York"),
            User(id: u.alex, username: "alex", displayName: "Alex Lopez", timeZone: "America/New_York"),
            User(id: u.coach, username: "coach.rivera", displayName: "Coach Rivera", timeZone: "America/New_York"),
            User(id: u.jenny, username: "jenny", displayName: "Jenny Park", timeZone: "America/New_York"),
        ]

        let conversations = [
            Conversation(
                id: c.classGroup, name: "Room 12 Parents (Ms. Alvarez)", isGroup: true,
                participantIDs: [u.alvarez, u.maria, u.dan, u.priya, u.tom],
                messages: messages(1, [
                    (u.alvarez, 26, "Hello Room 12 families! The field trip to the Science Museum is on \(spoken(fieldTrip)). Permission slips and the $15 fee are due by \(spoken(slipsDue))."),
                    (u.priya, 25, "Thanks! Is there a chaperone sign-up?"),
                    (u.alvarez, 24, "Yes, I need 3 chaperones. Also, picture day is \(spoken(pictureDay)) - please send the kids in their school shirts."),
                    (u.dan, 20, "I can chaperone!"),
                    (u.alvarez, 3, "URGENT: early dismissal \(dismissalWords) at 12:30 because of a water main repair. Please arrange pickup."),
                    (u.tom, 2, "Thanks for the heads up"),
                ])),
            Conversation(
                id: c.carpool, name: "U9 Soccer Carpool", isGroup: true,
                participantIDs: [u.coach, u.maria, u.dan, u.tom],
                messages: messages(2, [
                    (u.coach, 30, "Game this week: \(spoken(saturday)) from 10am to 12pm at Riverside Park, field 3. Please arrive by 9:30."),
                    (u.dan, 29, "I can drive Tuesdays and Thursdays to practice."),
                    (u.maria, 28, "Great, I'll take Mondays and Wednesdays then."),
                    (u.tom, 27, "Works for us. So the carpool is set: Dan on Tue/Thu, Maria on Mon/Wed."),
                    (u.coach, 4, "Snack duty for the game: Tom's family. Thanks!"),
                ])),
            Conversation(
                id: c.birthday, name: "Emma's 8th Birthday", isGroup: true,
                participantIDs: [u.jenny, u.maria, u.priya, u.dan],
                messages: messages(3, [
                    (u.jenny, 32, "You're invited! Emma's 8th birthday party is \(spoken(saturday)) from 11am to 1pm at Jump Zone (45 Oak St). Please RSVP by \(spoken(wednesday)) so I can order pizza!"),
                    (u.priya, 31, "Yes! Aanya will be there"),
                    (u.dan, 30, "Sorry, we're away that weekend, so no for us."),
                ])),
            Conversation(
                id: c.coParents, name: "Alex", isGroup: false,
                participantIDs: [u.maria, u.alex],
                messages: messages(4, [
                    (u.alex, 6, "Dentist for Sofia is \(spoken(thursday)) at 3:30pm at Dr. Chen's office. Can you take her?"),
                    (u.maria, 5, "Yes, I'll take her. Can you do soccer pickup on Saturday?"),
                    (u.alex, 4.8, "Sure."),
                    (u.alex, 1, "Also the library books are due back \(spoken(wednesday))."),
                ])),
        ]
        return DemoDataset(users: users, conversations: conversations, mainUserID: u.maria, conflictDay: saturday)
    }

    /// "Saturday, November 28".
    static func spoken(_ day: LocalDate) -> String {
        let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                      "October", "November", "December"]
        return "\(weekdays[day.isoWeekday - 1]), \(months[day.month - 1]) \(day.day)"
    }
}
