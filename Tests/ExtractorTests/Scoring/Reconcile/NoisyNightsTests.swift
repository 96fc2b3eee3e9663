@testable import Extractors
import Core
import Foundation
import Testing

/// Every nights fixture of evals/nights played with the labels' answers plus noise on every night: a wrong ref, every
/// open item re-sent as new (as a model re-reading the context would), an invented item, every open event re-dated with
/// no message behind it. What is right is
/// kept (every night still exactly the labels), what is invented refused.
@Suite("Reconciliation over the nights fixtures, with noisy answers")
struct NoisyNightsTests {
    static var nights: String { TestPaths.repoRoot.appendingPathComponent("evals/nights").path }

    @Test func noiseOnEveryNightChangesNothingShownAndIsRefused() throws {
        let fixtures = try FixtureLoader.load(path: Self.nights).filter { $0.nights != nil }
        #expect(!fixtures.isEmpty)
        var refused: [Refusal.Kind: Int] = [:]
        var predictions: [String: PredictedItems] = [:]
        for fixture in fixtures {
            let zone = try #require(TimeZone(identifier: fixture.reference.timezone))
            let user = fixture.reference.user
            var state = ConversationState()
            var earlier: [FixtureMessage] = []
            for (index, night) in (fixture.nights ?? []).enumerated() {
                let request = NightRequest(now: night.now.date, timeZone: zone, shownRefs: Set(state.openItems.map(\.ref)),
                                           shownMessages: Set((earlier.suffix(20) + night.messages).map(\.id)),
                                           participants: Set(fixture.participants.map(\.id)))
                var answer = LabelAnswers.answer(state, request: request, expected: night.expected, user: user)
                answer.verdicts.append(Verdict(ref: "e999", .cancelled))
                answer.newItems += state.openItems.map { NewItem($0.body) }
                answer.newItems.append(NewItem(.event(EventItem(
                    title: "Zoo trip", date: LocalDate(night.now.date, in: zone).adding(days: 9), time: nil, endTime: nil, location: nil,
                    description: "", category: .social, confidence: 0.9, datePhrase: nil, modelDate: nil, sources: ["invented-message"]))))
                for item in state.openItems {
                    guard case .event(var event) = item.body else { continue }
                    event.date = event.date.adding(days: 1)
                    answer.verdicts.append(Verdict(ref: item.ref, .changed(.event(event))))
                }
                let result = Reconciliation.apply(state, request: request, answer: answer)
                for (kind, count) in result.refusalCounts { refused[kind, default: 0] += count }
                state = result.state
                var predicted = PredictedItems()
                let view = state.view(for: user, now: night.now.date, timeZone: zone)
                for feature in FeatureRegistry.shipping.features { feature.scored(view, user: user, into: &predicted) }
                predictions[Fixture.nightID(fixture.id, index + 1)] = predicted
                earlier += night.messages
            }
        }
        let score = Scorer.score(fixtures: fixtures.flatMap(\.nightFixtures), predictions: predictions)
        let summary = try #require(NightsSummary(score, fixtures: fixtures, features: ScoringRegistry.shipping.ids))
        for night in summary.nights where !night.exact {
            Issue.record("\(night.fixture) night \(night.night) is not shown exactly right under noise: \(night.metrics)")
        }
        #expect(summary.micro.f1 == 1)
        let nightCount = fixtures.map { $0.nights?.count ?? 0 }.reduce(0, +)
        #expect(refused[.unknownRef] == nightCount, "one wrong ref per night, each refused")
        #expect(refused[.notCitedInRequest] ?? 0 >= nightCount, "the invented item of every night is refused")
        // Re-dated with no message behind it: refused as a move nothing backs, or as a second verdict on a changed item.
        #expect((refused[.unbackedMove] ?? 0) + (refused[.repeatedVerdict] ?? 0) > 0)
    }
}
