import Core
import Foundation

/// Chat lines of busy parents, with real dates, times, RSVPs and deadlines computed from the day each message
/// is sent, so the extractors have real work. Roughly a third is plain chatter the pre-filter can drop.
struct WorkloadText {
    /// The local date the message is sent on and the child it talks about.
    let day: LocalDate
    let kid: String

    static let kids = ["Emma", "Noah", "Olivia", "Liam", "Ava", "Mateo", "Sofia", "Lucas", "Mia", "Ethan", "Zoe", "Leo"]
    static let places = ["Lincoln Field", "Jump Zone (45 Oak St)", "the school gym", "Maple Park", "the library",
                         "Dr. Patel's office", "the community pool", "Room 4B", "the rec center", "Riverside Elementary"]
    static let events = ["soccer practice", "the science fair", "picture day", "the class field trip", "swim lessons",
                         "the bake sale", "parent-teacher conferences", "the school concert", "piano recital", "the book fair"]
    static let forms = ["permission slip for the zoo trip", "field trip fee ($15)", "yearbook order", "camp registration",
                        "lunch account top-up", "sports physical form", "photo order", "library books"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                         "October", "November", "December"]
    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let chatter = ["Thanks!", "Sounds good", "lol", "Got it 👍", "See you there", "Thank you so much!", "Haha yes",
                          "Running 5 min late", "Love it", "Great idea", "Ok!", "❤️", "Same here", "Good to know"]
    static let replies = ["We'll be there!", "Count us in 🎉", "Yes! {kid} is so excited", "Sorry, {kid} can't make it",
                          "Maybe, it depends on practice", "We're in", "Unfortunately we're out of town that weekend"]

    func line(_ rng: inout SplitMix64) -> String {
        let roll = rng.int(0...99)
        switch roll {
        case 0..<32: return rng.pick(Self.chatter)
        case 32..<48: return event(&rng)
        case 48..<56: return rsvpRequest(&rng)
        case 56..<66: return rng.pick(Self.replies).replacingOccurrences(of: "{kid}", with: kid)
        case 66..<77: return deadline(&rng)
        case 77..<85: return decision(&rng)
        case 85..<94: return question(&rng)
        default: return urgent(&rng)
        }
    }

    private func event(_ rng: inout SplitMix64) -> String {
        let (date, phrase) = future(&rng)
        let what = rng.pick(Self.events)
        switch rng.int(0...2) {
        case 0: return "\(what.prefix(1).uppercased() + what.dropFirst()) is \(phrase) at \(time(&rng)) at \(rng.pick(Self.places))."
        case 1: return "Reminder: \(what) \(phrase), \(time(&rng))."
        default: return "Heads up, \(what) moved to \(Self.weekday(date)) \(Self.monthDay(date)) at \(time(&rng))."
        }
    }

    private func rsvpRequest(_ rng: inout SplitMix64) -> String {
        let (date, phrase) = future(&rng, within: 6...20)
        let by = date.adding(days: -rng.int(2...4))
        let start = rng.int(10...16)
        return "\(kid)'s birthday party is \(phrase), \(Self.hour(start))-\(Self.hour(start + 2)) at \(rng.pick(Self.places)). "
            + "Please RSVP by \(Self.weekday(by)) \(by.month)/\(by.day)!"
    }

    private func deadline(_ rng: inout SplitMix64) -> String {
        let (date, phrase) = future(&rng, within: 1...14)
        let form = rng.pick(Self.forms)
        switch rng.int(0...2) {
        case 0: return "The \(form) is due \(phrase)."
        case 1: return "Don't forget: \(form) by \(Self.weekday(date)) \(date.month)/\(date.day) at \(time(&rng))."
        default: return "Teacher says the \(form) has to be in by \(phrase), no exceptions."
        }
    }

    private func decision(_ rng: inout SplitMix64) -> String {
        let a = rng.int(0...4), b = (a + rng.int(1...4)) % 5
        switch rng.int(0...2) {
        case 0: return "Ok, decided: I'll drive on \(Self.weekdays[a])s and you take \(Self.weekdays[b])s."
        case 1: return "Let's go with pizza for the team party then."
        default: return "We agreed \(kid) does swim on \(Self.weekdays[a])s instead of soccer."
        }
    }

    private func question(_ rng: inout SplitMix64) -> String {
        let (_, phrase) = future(&rng, within: 1...7)
        switch rng.int(0...2) {
        case 0: return "Who can drive \(phrase)?"
        case 1: return "Does anyone know what time pickup is \(phrase)?"
        default: return "Is \(rng.pick(Self.events)) still on \(phrase)?"
        }
    }

    private func urgent(_ rng: inout SplitMix64) -> String {
        switch rng.int(0...2) {
        case 0: return "URGENT: school closes early today at \(Self.hour(rng.int(12...14))) because of the storm. Please arrange pick-up."
        case 1: return "Practice is cancelled tonight, field is flooded!"
        default: return "Can someone grab \(kid) at \(Self.hour(rng.int(15...17))) today? I'm stuck at work."
        }
    }

    /// A future date and one of the ways parents write it.
    private func future(_ rng: inout SplitMix64, within range: ClosedRange<Int> = 1...21) -> (LocalDate, String) {
        let offset = rng.int(range)
        let date = day.adding(days: offset)
        let phrase: String
        switch (offset, rng.int(0...3)) {
        case (1, 0...1): phrase = "tomorrow"
        case (2...6, 0): phrase = "this \(Self.weekday(date))"
        case (_, 1): phrase = "on \(Self.weekday(date)), \(Self.months[date.month - 1]) \(date.day)"
        case (_, 2): phrase = "on \(date.month)/\(date.day)"
        default: phrase = "on \(Self.months[date.month - 1]) \(date.day)"
        }
        return (date, phrase)
    }

    private func time(_ rng: inout SplitMix64) -> String {
        let hour = rng.int(8...19)
        let minute = rng.pick([0, 0, 0, 15, 30, 45])
        let h12 = hour > 12 ? hour - 12 : hour
        let suffix = hour < 12 ? "am" : "pm"
        return minute == 0 ? "\(h12)\(suffix)" : "\(h12):\(minute < 10 ? "0" : "")\(minute)\(suffix)"
    }

    static func hour(_ hour: Int) -> String { hour == 12 ? "12pm" : hour > 12 ? "\(hour - 12)pm" : "\(hour)am" }
    static func weekday(_ date: LocalDate) -> String { weekdays[date.isoWeekday - 1] }
    static func monthDay(_ date: LocalDate) -> String { "\(months[date.month - 1]) \(date.day)" }
}
