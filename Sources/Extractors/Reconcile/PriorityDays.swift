import Core
import Foundation

/// The day an urgent or high priority message stops mattering, when the answer does not say (`NewItem.until`): an
/// urgent one concerns the day it was sent or the next day it names ("school lets out at 1pm today", "no school
/// tomorrow"); a high one lasts until its request's date passes (FEATURES.md): the due date of a deadline or the
/// reply-by date of an invitation that rests on the same message, else the latest date it names, else until it is met.
/// "The concert is Thursday Dec 10; send a white t-shirt by Thursday" asks for the t-shirt by Thursday: the concert's
/// date is news, and the flag must not outlive the request by three weeks.
enum PriorityDays {
    static func fill(_ answer: inout NightAnswer, input: ConversationInput) {
        let resolver = TemporalResolver(timeZone: input.timeZone)
        let asked = requestDates(answer.newItems.map(\.body) + input.state.openItems.map(\.body))
        for index in answer.newItems.indices where answer.newItems[index].until == nil {
            guard case .priority(let item) = answer.newItems[index].body, let message = input.message(item.messageID) else { continue }
            let sent = LocalDate(message.sentAt, in: input.timeZone)
            let named = resolver.resolve(message.text, reference: message.sentAt).map(\.date).filter { $0 >= sent }
            switch item.priority {
            case "urgent": answer.newItems[index].until = named.filter { $0 <= sent.adding(days: 1) }.max() ?? sent
            case "high": answer.newItems[index].until = asked[item.messageID] ?? named.max()
            default: break
            }
        }
    }

    /// Per message id, the latest date a request resting on it is due: a deadline's date, an invitation's reply-by.
    static func requestDates(_ bodies: [ItemBody]) -> [String: LocalDate] {
        var dates: [String: LocalDate] = [:]
        func note(_ date: LocalDate?, _ sources: [String]) {
            guard let date else { return }
            for id in sources { dates[id] = max(dates[id] ?? date, date) }
        }
        for body in bodies {
            switch body {
            case .deadline(let item): note(item.deadline, item.sources)
            case .rsvp(let item): note(item.deadline, item.sources)
            case .event, .decision, .priority: break
            }
        }
        return dates
    }
}
