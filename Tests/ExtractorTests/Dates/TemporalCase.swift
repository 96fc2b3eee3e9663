import Core
import Extractors
import Foundation
import Testing

/// One row of a resolver table: the text, the message's sent instant and zone, and the value
/// expected for the single expression the text must yield.
struct TemporalCase: Sendable, CustomTestStringConvertible {
    let text: String
    let reference: String
    let zone: String
    let start: String
    let grain: TemporalExpression.Grain
    var isDeadline = false
    var endISO: String?

    var testDescription: String { "\"\(text)\" sent \(reference) in \(zone)" }

    static func day(_ text: String, _ reference: String, _ start: String, zone: String = TZ.newYork, deadline: Bool = false) -> Self {
        TemporalCase(text: text, reference: reference, zone: zone, start: start, grain: .day, isDeadline: deadline)
    }

    static func minute(
        _ text: String, _ reference: String, _ start: String, zone: String = TZ.newYork, deadline: Bool = false, end: String? = nil
    ) -> Self {
        TemporalCase(text: text, reference: reference, zone: zone, start: start, grain: .minute, isDeadline: deadline, endISO: end)
    }

    /// Resolves the text and checks it yields exactly the expected expression.
    func check() throws {
        let resolver = TemporalResolver(timeZone: try #require(TimeZone(identifier: zone)))
        let found = resolver.resolve(text, reference: try ReferenceInstant.parse(reference))
        try #require(found.count == 1, "expected one expression, got \(found.map(\.text))")
        let expression = found[0]
        #expect(expression.startISO == start)
        #expect(expression.grain == grain)
        #expect(expression.isDeadline == isDeadline)
        if let endISO { #expect(expression.endISO == endISO) }
        if grain == .day {
            #expect(expression.start == nil && expression.time == nil)
            #expect(expression.date.iso == start)
        } else {
            let instant = try #require(expression.start)
            #expect(expression.startISO.hasPrefix(expression.date.iso + "T" + (expression.time?.iso ?? "")))
            #expect(try ReferenceInstant.parse(start) == instant)
        }
    }
}

enum TZ {
    static let newYork = "America/New_York"
    static let london = "Europe/London"
    static let sydney = "Australia/Sydney"
}

/// Message sent times used across the tables (weekday checked with `cal`).
enum Sent {
    /// Monday 2026-03-02, 10:00 EST.
    static let monday = "2026-03-02T10:00:00-05:00"
    /// Saturday 2026-03-07, noon EST, the day before the US spring-forward.
    static let springEve = "2026-03-07T12:00:00-05:00"
    /// Saturday 2026-10-31, noon EDT, the day before the US fall-back.
    static let fallEve = "2026-10-31T12:00:00-04:00"
    /// Saturday 2026-11-21, Sunday 2026-11-22, Monday 2026-11-23 (10:00 EST).
    static let saturdayNov = "2026-11-21T10:00:00-05:00"
    static let sundayNov = "2026-11-22T10:00:00-05:00"
    static let mondayNov = "2026-11-23T10:00:00-05:00"
    /// Wednesday 2026-12-30, 09:00 EST.
    static let yearEnd = "2026-12-30T09:00:00-05:00"
    /// Sunday 2028-02-27 (leap year) and Saturday 2027-02-27 (not), noon EST.
    static let leapFeb = "2028-02-27T12:00:00-05:00"
    static let plainFeb = "2027-02-27T12:00:00-05:00"
}
