package import Extractors
import Foundation

/// How many expected items cite only messages the scan's `PreFilter` would drop before asking a model.
///
/// Production holds back chatter (small talk, emoji-only messages) to save tokens; an expected item whose every acceptable
/// source is such a message could never be found by a filtered scan. On the labelled fixtures the count
/// must be 0 — that is the evidence that the pre-filter costs no recall.
package struct PreFilterAudit: Sendable, Hashable, Codable {
    package var features: [ExtractionFeature: PreFilterCount]
    /// The offending items, for the report.
    package var misses: [PreFilterMiss]
    package var messages: Int
    package var droppedMessages: Int

    package init(features: [ExtractionFeature: PreFilterCount], misses: [PreFilterMiss], messages: Int, droppedMessages: Int) {
        self.features = features
        self.misses = misses
        self.messages = messages
        self.droppedMessages = droppedMessages
    }

    /// Expected items of `features` whose sources would all be dropped.
    package var totalMisses: Int { misses.count }

    package static func audit(_ fixtures: [Fixture], features: [ExtractionFeature], scoring: ScoringRegistry = .shipping,
                             filter: PreFilter = PreFilter()) -> PreFilterAudit {
        var counts = Dictionary(uniqueKeysWithValues: features.map { ($0, PreFilterCount()) })
        var misses: [PreFilterMiss] = []
        var messages = 0
        var dropped = 0
        for fixture in fixtures {
            let timeZone = TimeZone(identifier: fixture.reference.timezone) ?? TimeZone(secondsFromGMT: 0)!
            var kept: [String: Bool] = [:]
            for message in fixture.messages {
                let input = InputMessage(id: message.id, senderID: message.sender, sentAt: message.sentAt.date, text: message.text)
                let needed = filter.needsModel(input, timeZone: timeZone)
                kept[message.id] = needed
                messages += 1
                if !needed { dropped += 1 }
            }
            for feature in features {
                for (index, sources) in (scoring.named(feature)?.sources(in: fixture.expected) ?? []).enumerated() {
                    counts[feature, default: PreFilterCount()].expected += 1
                    guard !sources.contains(where: { kept[$0] ?? true }) else { continue }
                    counts[feature, default: PreFilterCount()].onlyDropped += 1
                    misses.append(PreFilterMiss(fixture: fixture.id, feature: feature, expectedIndex: index, sources: sources))
                }
            }
        }
        return PreFilterAudit(features: counts, misses: misses, messages: messages, droppedMessages: dropped)
    }

    enum CodingKeys: String, CodingKey {
        case features, misses, messages
        case droppedMessages = "dropped_messages"
    }
}

package struct PreFilterCount: Sendable, Hashable, Codable {
    package var expected = 0
    /// Expected items whose every acceptable source the pre-filter drops; must be 0.
    package var onlyDropped = 0

    package init(expected: Int = 0, onlyDropped: Int = 0) {
        self.expected = expected
        self.onlyDropped = onlyDropped
    }

    enum CodingKeys: String, CodingKey {
        case expected
        case onlyDropped = "only_dropped"
    }
}

package struct PreFilterMiss: Sendable, Hashable, Codable {
    package var fixture: String
    package var feature: ExtractionFeature
    package var expectedIndex: Int
    package var sources: [String]

    package init(fixture: String, feature: ExtractionFeature, expectedIndex: Int, sources: [String]) {
        self.fixture = fixture
        self.feature = feature
        self.expectedIndex = expectedIndex
        self.sources = sources
    }

    enum CodingKeys: String, CodingKey {
        case fixture, feature, sources
        case expectedIndex = "expected_index"
    }
}
