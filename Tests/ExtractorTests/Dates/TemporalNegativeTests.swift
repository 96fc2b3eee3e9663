import Extractors
import Foundation
import Testing

/// Numbers and words that are not dates or times must yield nothing.
@Suite struct TemporalNegativeTests {
    static let notTemporal: [String] = [
        "my son is 4",
        "we have 4 kids",
        "top 10 tips for packing lunches",
        "the score was 3-2",
        "we won 10-7",
        "it costs $25",
        "meet in room 12",
        "call me at 555-123-4567",
        "call 555-1234 after work",
        "(555) 123-4567",
        "add 1/2 cup of sugar",
        "she is in the 4th grade",
        "this is the 3rd time I asked",
        "we sat down together",
        "the sun is out",
        "I may be late",
        "50% off everything",
        "rated 4.5 stars",
        "24/7 support",
        "version 2.0 is out",
        "ticket #12",
        "my 2nd kid",
        "1,000 people came",
        "ages 5-7",
        "page 3 of the form",
        "he scored at 3 schools",
        "the 1990s were fun",
        "Order 12345 shipped",
        "I need 2 by then",
        "between 3 and 5 kids",
        "March madness starts soon",
        "we sat down at the table",
        "I have 3 kids at 2 schools",
    ]

    @Test(arguments: notTemporal) func yieldsNoExpression(_ text: String) throws {
        let resolver = TemporalResolver(timeZone: try #require(TimeZone(identifier: TZ.newYork)))
        let found = resolver.resolve(text, reference: try ReferenceInstant.parse(Sent.monday))
        #expect(found.isEmpty, "found \(found.map(\.text))")
        #expect(resolver.resolvePhrase(text, reference: try ReferenceInstant.parse(Sent.monday)) == nil)
    }
}
