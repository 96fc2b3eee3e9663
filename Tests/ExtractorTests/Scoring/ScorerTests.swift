@testable import Extractors
import Core
import Testing

@Suite("Scorer")
struct ScorerTests {
    let fixture = Make.fixture("f1", expected: Make.standardExpected)

    /// `p: nil` when nothing was predicted: precision is undefined, never a perfect 1.
    private func expectMetrics(_ m: Metrics, tp: Int, fp: Int, fn: Int, p: Double?, r: Double, f1: Double,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(m.tp == tp, sourceLocation: sourceLocation)
        #expect(m.fp == fp, sourceLocation: sourceLocation)
        #expect(m.fn == fn, sourceLocation: sourceLocation)
        if let p {
            #expect(m.precision.map { abs($0 - p) < 1e-9 } == true, "precision \(String(describing: m.precision))", sourceLocation: sourceLocation)
        } else {
            #expect(m.precision == nil, "precision \(String(describing: m.precision))", sourceLocation: sourceLocation)
        }
        #expect(abs(m.recall - r) < 1e-9, "recall \(m.recall)", sourceLocation: sourceLocation)
        #expect(abs(m.f1 - f1) < 1e-9, "f1 \(m.f1)", sourceLocation: sourceLocation)
    }

    private func feature(_ score: EvalScore, _ f: ExtractionFeature) -> FeatureScore { score.features[f]! }

    @Test func perfectPredictions() {
        let score = Scorer.score(fixtures: [fixture], predictions: ["f1": Make.standardExpected])
        expectMetrics(feature(score, .calendarEvents).metrics, tp: 2, fp: 0, fn: 0, p: 1, r: 1, f1: 1)
        for f in [ExtractionFeature.decisions, .priorityMessages, .rsvps, .deadlines] {
            expectMetrics(feature(score, f).metrics, tp: 1, fp: 0, fn: 0, p: 1, r: 1, f1: 1)
            #expect(feature(score, f).dateMistakes == 0)
        }
        expectMetrics(score.micro, tp: 6, fp: 0, fn: 0, p: 1, r: 1, f1: 1)
        #expect(feature(score, .calendarEvents).fieldAccuracy["time"] == FieldAccuracy(correct: 2, total: 2))
        #expect(feature(score, .priorityMessages).fieldAccuracy["action_required"] == FieldAccuracy(correct: 1, total: 1))
    }

    @Test func perfectPredictionsOnTheRealCorpus() throws {
        let fixtures = try FixtureLoader.loadDirectory(TestPaths.fixtures)
        let predictions = Dictionary(uniqueKeysWithValues: fixtures.map { ($0.id, $0.expected) })
        let score = Scorer.score(fixtures: fixtures, predictions: predictions)
        let expectedTotal = fixtures.reduce(0) { sum, f in sum + ScoringRegistry.shipping.ids.reduce(0) { $0 + f.expected.count(of: $1) } }
        expectMetrics(score.micro, tp: expectedTotal, fp: 0, fn: 0, p: 1, r: 1, f1: 1)
        #expect(score.fixtures.count == fixtures.count)
    }

    @Test func duplicatePredictionIsOneTruePositiveAndOneFalsePositive() {
        let e0 = Make.standardExpected.calendarEvents[0]
        let score = Scorer.score(fixtures: [fixture], predictions: ["f1": ExtractionSet([e0, e0])])
        // The duplicate is a FP; the second expected event was never predicted.
        expectMetrics(feature(score, .calendarEvents).metrics, tp: 1, fp: 1, fn: 1, p: 0.5, r: 0.5, f1: 0.5)
        #expect(feature(score, .calendarEvents).dateMistakes == 0)
    }

    @Test func wrongDateWithAcceptableSourceIsADateMistake() {
        let wrong = Make.deadline("2026-03-05", ["m2"])
        let score = Scorer.score(fixtures: [fixture], predictions: ["f1": ExtractionSet([wrong])])
        expectMetrics(feature(score, .deadlines).metrics, tp: 0, fp: 1, fn: 1, p: 0, r: 0, f1: 0)
        #expect(feature(score, .deadlines).dateMistakes == 1)
        let detail = score.fixtures[0].features[.deadlines]!
        #expect(detail.falsePositives.map(\.dateMistake) == [true])
        #expect(detail.falseNegatives.map(\.expectedIndex) == [0])
    }

    @Test func wrongDateNextToACorrectPredictionStillCountsAsDateMistake() {
        let e = Make.standardExpected.rsvps[0]
        let wrong = Make.rsvp("2026-03-08", ["m1"])
        let unrelated = Make.rsvp("2026-03-08", ["m7"])
        let score = Scorer.score(fixtures: [fixture], predictions: ["f1": ExtractionSet([wrong, e, unrelated])])
        expectMetrics(feature(score, .rsvps).metrics, tp: 1, fp: 2, fn: 0, p: 1.0 / 3, r: 1, f1: 0.5)
        #expect(feature(score, .rsvps).dateMistakes == 1)
    }

    @Test func extraItemsAreFalsePositives() {
        let predicted = ExtractionSet([Make.decision(["m5"]), Make.decision(["m9"])],
                                      [Make.priority("m3"), Make.priority("m1"), Make.priority("m2")])
        let score = Scorer.score(fixtures: [fixture], predictions: ["f1": predicted])
        expectMetrics(feature(score, .decisions).metrics, tp: 1, fp: 1, fn: 0, p: 0.5, r: 1, f1: 2.0 / 3)
        expectMetrics(feature(score, .priorityMessages).metrics, tp: 1, fp: 2, fn: 0, p: 1.0 / 3, r: 1, f1: 0.5)
        // Decisions and priorities have no key date, so they never count date mistakes.
        #expect(feature(score, .decisions).dateMistakes == 0)
    }

    @Test func emptyFeaturesFollowTheDocumentedConventions() {
        let empty = Make.fixture("empty", expected: ExtractionSet())
        let nothing = Scorer.score(fixtures: [empty], predictions: [:])
        for f in ScoringRegistry.shipping.ids {
            expectMetrics(feature(nothing, f).metrics, tp: 0, fp: 0, fn: 0, p: nil, r: 1, f1: 1)
        }
        expectMetrics(nothing.micro, tp: 0, fp: 0, fn: 0, p: nil, r: 1, f1: 1)

        let falseAlarm = Scorer.score(fixtures: [empty], predictions: ["empty": ExtractionSet([Make.decision(["m1"])])])
        expectMetrics(feature(falseAlarm, .decisions).metrics, tp: 0, fp: 1, fn: 0, p: 0, r: 1, f1: 0)
        expectMetrics(feature(falseAlarm, .rsvps).metrics, tp: 0, fp: 0, fn: 0, p: nil, r: 1, f1: 1)
    }

    @Test func missingPredictionsAreAllFalseNegatives() {
        let other = Make.fixture("f2", expected: ExtractionSet([Make.deadline("2026-03-10", ["m1"])]))
        let score = Scorer.score(fixtures: [fixture, other], predictions: ["f2": other.expected])
        expectMetrics(feature(score, .calendarEvents).metrics, tp: 0, fp: 0, fn: 2, p: nil, r: 0, f1: 0)
        expectMetrics(feature(score, .deadlines).metrics, tp: 1, fp: 0, fn: 1, p: 1, r: 0.5, f1: 2.0 / 3)
        expectMetrics(score.micro, tp: 1, fp: 0, fn: 6, p: 1, r: 1.0 / 7, f1: 0.25)
    }

    @Test func anyAcceptableSourceMatches() {
        for cited in [["m2"], ["m3"], ["m3", "m8"]] {
            let p = Make.event("2026-03-09", cited)
            let score = Scorer.score(fixtures: [fixture], predictions: ["f1": ExtractionSet([p])])
            expectMetrics(feature(score, .calendarEvents).metrics, tp: 1, fp: 0, fn: 1, p: 1, r: 0.5, f1: 2.0 / 3)
        }
        let unrelated = Make.event("2026-03-09", ["m4"])
        let score = Scorer.score(fixtures: [fixture], predictions: ["f1": ExtractionSet([unrelated])])
        expectMetrics(feature(score, .calendarEvents).metrics, tp: 0, fp: 1, fn: 2, p: 0, r: 0, f1: 0)
        #expect(feature(score, .calendarEvents).dateMistakes == 0)
    }

    @Test func maximumMatchingBeatsGreedy() {
        // Expected A accepts only m1, B only m2. The first prediction cites both and looks most like A
        // (same category), so a greedy pairing gives it A and strands the second, which cites only m1.
        let expected = ExtractionSet([Make.decision(["m1"], category: .food), Make.decision(["m2"], category: .carpool)])
        let f = Make.fixture("g", expected: expected)
        let predicted = ExtractionSet([Make.decision(["m1", "m2"], category: .food), Make.decision(["m1"], category: .food)])
        let score = Scorer.score(fixtures: [f], predictions: ["g": predicted])
        expectMetrics(feature(score, .decisions).metrics, tp: 2, fp: 0, fn: 0, p: 1, r: 1, f1: 1)
        let pairs = score.fixtures[0].features[.decisions]!.matched.map { [$0.expectedIndex, $0.predictedIndex] }
        #expect(pairs == [[0, 1], [1, 0]])
    }

    @Test func matchingPrefersThePartnerWithMoreCorrectFields() {
        // Two events share source and date; the prediction order is reversed. Pairing by index would
        // swap them and mark both times wrong.
        let expected = ExtractionSet([Make.event("2026-05-30", ["m1"], time: "09:00"),
                                      Make.event("2026-05-30", ["m1"], time: "13:00")])
        let f = Make.fixture("t", expected: expected)
        let predicted = ExtractionSet([Make.event("2026-05-30", ["m1"], time: "13:00"),
                                       Make.event("2026-05-30", ["m1"], time: "09:00")])
        let score = Scorer.score(fixtures: [f], predictions: ["t": predicted])
        expectMetrics(feature(score, .calendarEvents).metrics, tp: 2, fp: 0, fn: 0, p: 1, r: 1, f1: 1)
        #expect(feature(score, .calendarEvents).fieldAccuracy["time"] == FieldAccuracy(correct: 2, total: 2))
    }

    @Test func fieldAccuracyRules() {
        let predicted = ExtractionSet(
            [Make.event("2026-03-07", ["m1"], time: "11:30", location: "  riverside PARK "),
             Make.event("2026-03-09", ["m2"], location: "Gym", category: .activity)],
            [Make.priority("m3", .high, action: true)],
            [Make.rsvp("2026-03-07", ["m1"], status: .responded, response: .yes)])
        let score = Scorer.score(fixtures: [fixture], predictions: ["f1": predicted])
        let events = feature(score, .calendarEvents).fieldAccuracy
        #expect(events["time"] == FieldAccuracy(correct: 1, total: 2))  // 11:30 ≠ 11:00; null = null
        #expect(events["location"] == FieldAccuracy(correct: 1, total: 2))  // trimmed, case-insensitive; "Gym" ≠ null
        #expect(events["category"] == FieldAccuracy(correct: 1, total: 2))
        #expect(events["time"]?.accuracy == 0.5)
        let priority = feature(score, .priorityMessages).fieldAccuracy
        #expect(priority["priority"] == FieldAccuracy(correct: 0, total: 1))
        #expect(priority["action_required"] == FieldAccuracy(correct: 1, total: 1))
        let rsvp = feature(score, .rsvps).fieldAccuracy
        #expect(rsvp["status"] == FieldAccuracy(correct: 0, total: 1))
        #expect(rsvp["response"] == FieldAccuracy(correct: 0, total: 1))
        #expect(feature(score, .deadlines).fieldAccuracy.isEmpty)
    }

    @Test("a place is the same when one's words are all among the other's, and only then", arguments: [
        ("Chiquipark Moncloa", "Chiquipark de Moncloa", true), ("the gym", "School gym", true),
        ("École Jean-Jaurès", "ecole jean jaures", true), ("Jump Zone", "Jump Zone, Main St", true),
        ("Mariana's house (Av. Coyoacán 1520)", "Casa de Mariana, Av. Coyoacán 1520", false),
        ("school courtyard", "Cour de l'école", false), ("Gym B", "Gym A", false), ("Gym", nil, false), (nil, nil, true),
        ("  ", nil, true), ("the", "the", true), ("Mariana's house", "mariana house", true), ("l'école", "Ecole", true),
    ] as [(String?, String?, Bool)])
    func placesCompareByTheirWords(_ a: String?, _ b: String?, _ same: Bool) {
        #expect(FieldComparison.sameLocation(a, b) == same)
        #expect(FieldComparison.sameLocation(b, a) == same)
    }

    @Test func jsonHasTheDocumentedKeys() throws {
        let score = Scorer.score(fixtures: [fixture], predictions: ["f1": Make.standardExpected])
        let json = try JSONValue.encode(score)
        for f in ScoringRegistry.shipping.ids {
            for key in ["tp", "fp", "fn", "precision", "recall", "f1"] {
                #expect(json["features"]?[f.rawValue]?[key] != nil, "features.\(f.rawValue).\(key)")
            }
        }
        #expect(json["micro"]?["tp"] == .integer(6))
        #expect(json["micro"]?["f1"]?.doubleValue == 1)
        #expect(score.table().contains("calendar_events"))
    }
}
