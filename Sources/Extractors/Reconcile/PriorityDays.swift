import Core
import Foundation

/// The day an urgent or high priority message stops mattering, when the answer does not say (`NewItem.until`): an
/// urgent one concerns the day it was sent or the next day it names ("school lets out at 1pm today", "no school
/// tomorrow"); a high one lasts until the latest date it names, if any (a request due Friday), else until it is met.
enum PriorityDays {
    static func fill(_ answer: inout NightAnswer, input: ConversationInput) {
        let resolver = TemporalResolver(timeZone: input.timeZone)
        for index in answer.newItems.indices where answer.newItems[index].until == nil {
            guard case .priority(let item) = answer.newItems[index].body, let message = input.message(item.messageID) else { continue }
            let sent = LocalDate(message.sentAt, in: input.timeZone)
            let named = resolver.resolve(message.text, reference: message.sentAt).map(\.date).filter { $0 >= sent }
            switch item.priority {
            case "urgent": answer.newItems[index].until = named.filter { $0 <= sent.adding(days: 1) }.max() ?? sent
            case "high": answer.newItems[index].until = named.max()
            default: break
            }
        }
    }
}
