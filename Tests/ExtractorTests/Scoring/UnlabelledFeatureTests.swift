import Core
@testable import Extractors
import Testing

/// A fixture with no list for a feature is not labelled for it: that feature's predictions on it count in no number.
/// An empty list still says "nothing to find", so a prediction there is a false positive.
@Suite("Unlabelled features")
struct UnlabelledFeatureTests {
    /// `FixtureLoaderTests.valid` without its `deadlines` list.
    static let withoutDeadlines = FixtureLoaderTests.valid.replacingOccurrences(of: "  deadlines: []\n", with: "")

    /// A deadline the fixture's chat does not hold, and the picnic as labelled.
    static func predictions(_ fixture: Fixture) -> PredictedItems {
        var predicted = fixture.expected
        predicted[ScoredDeadline.self] = [ScoredDeadline(task: "RSVP", deadline: LocalDate(iso: "2026-03-05")!, category: .school,
                                                         source: ["m1"])]
        return predicted
    }

    @Test func aMissingListLoadsAsUnlabelledAndAnEmptyOneAsLabelled() throws {
        #expect(Self.withoutDeadlines != FixtureLoaderTests.valid)
        let unlabelled = try FixtureLoader.parse(Self.withoutDeadlines, file: "evals/fixtures/tiny.yaml")
        #expect(unlabelled.unlabelled == [.deadlines])
        #expect(!unlabelled.labels(.deadlines) && unlabelled.labels(.decisions))
        let labelled = try FixtureLoader.parse(FixtureLoaderTests.valid, file: "evals/fixtures/tiny.yaml")
        #expect(labelled.unlabelled.isEmpty && labelled.labels(.deadlines))
        #expect(labelled.expected == unlabelled.expected, "the items are the same; only what the fixture claims to know differs")
    }

    @Test func predictionsForAnUnlabelledFeatureAreNotFalsePositives() throws {
        let unlabelled = try FixtureLoader.parse(Self.withoutDeadlines, file: "evals/fixtures/tiny.yaml")
        let score = Scorer.score(fixtures: [unlabelled], predictions: [unlabelled.id: Self.predictions(unlabelled)])
        #expect(score.features[.deadlines]?.metrics == Metrics(tp: 0, fp: 0, fn: 0))
        #expect(score.fixtures.first?.features[.deadlines] == nil, "the fixture is not scored for deadlines")
        #expect(score.features[.calendarEvents]?.metrics == Metrics(tp: 1, fp: 0, fn: 0), "its other features score as before")
        #expect(score.micro == Metrics(tp: 2, fp: 0, fn: 0))
    }

    @Test func predictionsForAnExplicitlyEmptyListAreFalsePositives() throws {
        let labelled = try FixtureLoader.parse(FixtureLoaderTests.valid, file: "evals/fixtures/tiny.yaml")
        let score = Scorer.score(fixtures: [labelled], predictions: [labelled.id: Self.predictions(labelled)])
        #expect(score.features[.deadlines]?.metrics == Metrics(tp: 0, fp: 1, fn: 0))
        #expect(score.fixtures.first?.features[.deadlines]?.falsePositives.count == 1)
        #expect(score.micro == Metrics(tp: 2, fp: 1, fn: 0))
    }

    @Test func aFeatureIsScoredOnTheFixturesThatLabelIt() throws {
        // Two fixtures, one labelling deadlines (empty) and one not: only the first counts the stray deadline.
        let labelled = try FixtureLoader.parse(FixtureLoaderTests.valid, file: "evals/fixtures/tiny.yaml")
        var unlabelled = try FixtureLoader.parse(Self.withoutDeadlines.replacingOccurrences(of: "id: tiny", with: "id: other"),
                                                 file: "evals/fixtures/other.yaml")
        unlabelled.expected = labelled.expected
        let score = Scorer.score(fixtures: [labelled, unlabelled], predictions: [
            labelled.id: Self.predictions(labelled), unlabelled.id: Self.predictions(unlabelled),
        ])
        #expect(score.features[.deadlines]?.metrics == Metrics(tp: 0, fp: 1, fn: 0))
        #expect(score.features[.calendarEvents]?.metrics == Metrics(tp: 2, fp: 0, fn: 0))
    }
}
