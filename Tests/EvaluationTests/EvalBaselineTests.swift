import AgentRuntime
import Core
import Extractors
import Foundation
import JobsKit
import Testing
import Evaluation
import TestSupport

/// Baseline deltas, regressions and gates on small hand-made reports.
@Suite("Eval baseline comparison")
struct EvalBaselineTests {
    static func fixture(_ id: String, events: [ScoredEvent], deadlines: [ScoredDeadline] = []) -> Fixture {
        let at = Timestamp(iso: "2026-03-02T08:00:00-05:00")!
        return Fixture(
            id: id, description: id, reference: FixtureReference(now: at, timezone: "America/New_York", user: "a"),
            participants: [FixtureParticipant(id: "a", name: "A")],
            messages: ["m1", "m2", "m3"].map { FixtureMessage(id: $0, sender: "a", sentAt: at, text: "text of \($0)") },
            expected: ExtractionSet(events, deadlines))
    }

    static func event(_ day: String, _ source: String) -> ScoredEvent {
        ScoredEvent(title: "Event \(source)", date: LocalDate(iso: day)!, category: .school, source: [source])
    }

    static func deadline(_ day: String, _ source: String) -> ScoredDeadline {
        ScoredDeadline(task: "Task \(source)", deadline: LocalDate(iso: day)!, category: .school, source: [source])
    }

    static func report(_ fixtures: [Fixture], _ predictions: [String: PredictedItems], features: [ExtractionFeature] = [.calendarEvents, .deadlines]) -> EvalReport {
        let score = Scorer.score(fixtures: fixtures, predictions: predictions)
        let variant = EvalVariantReport(
            id: "llm", role: .main, label: "openai test", provider: "openai", model: "test", prompts: [:], ranFeatures: features,
            usage: TokenUsage(), requests: 0, reasks: 0, cache: nil, errors: [], score: score)
        return EvalReport(createdAt: "2026-03-02T00:00:00Z", fixturesPath: "hand-made", fixtureCount: fixtures.count,
                          features: features, variants: [variant], preFilter: PreFilterAudit.audit(fixtures, features: features))
    }

    // Fixture "steady" is perfect in both runs; "worse" loses an event; "better" gains its deadline; "fresh" is new.
    static let steady = fixture("steady", events: [event("2026-03-05", "m1")])
    static let worse = fixture("worse", events: [event("2026-03-05", "m1"), event("2026-03-06", "m2")])
    static let better = fixture("better", events: [], deadlines: [deadline("2026-03-09", "m3")])
    static let fresh = fixture("fresh", events: [event("2026-03-07", "m1")])

    static let before = report([steady, worse, better], [
        "steady": PredictedItems([event("2026-03-05", "m1")]),
        "worse": PredictedItems([event("2026-03-05", "m1"), event("2026-03-06", "m2")]),
        "better": PredictedItems(),
    ])
    static let after = report([steady, worse, better, fresh], [
        "steady": PredictedItems([event("2026-03-05", "m1")]),
        "worse": PredictedItems([event("2026-03-05", "m1"), event("2026-03-09", "m2")]),
        "better": PredictedItems([deadline("2026-03-09", "m3")]),
        "fresh": PredictedItems([event("2026-03-07", "m1")]),
    ])

    @Test("deltas per feature and micro are current minus baseline; only fixtures that got worse are regressions")
    func deltasAndRegressions() throws {
        let comparison = try BaselineComparison.compare(current: Self.after, baseline: Self.before, baselinePath: "old/report.json")
        let beforeMain = try #require(Self.before.main), afterMain = try #require(Self.after.main)

        let events = try #require(comparison.features[.calendarEvents])
        #expect(events.baseline == beforeMain.score.features[.calendarEvents]?.metrics)
        #expect(events.current == afterMain.score.features[.calendarEvents]?.metrics)
        // Before: 3 TP of 3. After: "worse" has one date wrong (1 FP + 1 FN), "fresh" adds 1 TP.
        #expect(events.baseline == Metrics(tp: 3, fp: 0, fn: 0))
        #expect(events.current == Metrics(tp: 3, fp: 1, fn: 1))
        #expect(events.f1Delta == Metrics(tp: 3, fp: 1, fn: 1).f1 - 1)
        #expect(events.f1Delta < 0)
        let deadlines = try #require(comparison.features[.deadlines])
        #expect(deadlines.recallDelta == 1)
        #expect(comparison.micro.baseline == Metrics(tp: 3, fp: 0, fn: 1))
        #expect(comparison.micro.current == Metrics(tp: 4, fp: 1, fn: 1))
        #expect(comparison.micro.f1Delta == Metrics(tp: 4, fp: 1, fn: 1).f1 - Metrics(tp: 3, fp: 0, fn: 1).f1)

        #expect(comparison.regressions.map(\.fixture) == ["worse"])
        let regression = try #require(comparison.regressions.first)
        #expect(regression.baseline.tp == 2 && regression.current.tp == 1)
        #expect(regression.features == [.calendarEvents])
        #expect(comparison.newFixtures == ["fresh"])
    }

    @Test("gates: --fail-under on micro F1 and --max-regression against the baseline")
    func gates() throws {
        // after vs before: one more TP but a wrong date (FP + FN) — micro F1 drops from 6/7 to 4/5.
        var report = Self.after
        report.baseline = try BaselineComparison.compare(current: Self.after, baseline: Self.before, baselinePath: "old/report.json")
        let micro = try #require(report.main).score.micro.f1
        let drop = -(report.baseline?.micro.f1Delta ?? 0)
        #expect(abs(drop - (6.0 / 7.0 - 4.0 / 5.0)) < 1e-12)
        #expect(EvalGates.failures(report, failUnder: micro, maxRegression: drop + 0.001).isEmpty)
        #expect(EvalGates.failures(report, failUnder: micro + 0.001, maxRegression: nil).count == 1)
        let failures = EvalGates.failures(report, failUnder: nil, maxRegression: drop - 0.001)
        #expect(failures.count == 1)
        #expect(failures.first?.contains("old/report.json") == true)

        // The reverse direction is an improvement: no regression budget needed.
        var reverse = Self.before
        reverse.baseline = try BaselineComparison.compare(current: Self.before, baseline: Self.after, baselinePath: "new/report.json")
        #expect((reverse.baseline?.micro.f1Delta ?? 0) > 0)
        #expect(EvalGates.failures(reverse, failUnder: nil, maxRegression: 0).isEmpty)
        #expect(EvalGates.failures(Self.before, failUnder: nil, maxRegression: 0.1) == ["--max-regression needs --baseline"])
    }

    @Test("a report survives report.json and loads back as a baseline; a bad file names itself")
    func roundTrip() throws {
        let directory = try EvalTestSupport.temporaryDirectory("baseline")
        let path = directory.appendingPathComponent("report.json").path
        try Self.before.jsonData().write(to: URL(fileURLWithPath: path))
        let loaded = try EvalReport.load(path: path)
        #expect(loaded.main?.score == Self.before.main?.score)
        let viaFile = try BaselineComparison.compare(current: Self.after, baseline: loaded, baselinePath: path)
        let direct = try BaselineComparison.compare(current: Self.after, baseline: Self.before, baselinePath: path)
        #expect(viaFile.micro == direct.micro && viaFile.regressions == direct.regressions)

        let text = Self.after.summaryText()
        #expect(text.contains("calendar_events"))

        let bad = directory.appendingPathComponent("bad.json").path
        try Data(#"{"format": 1, "variants": []}"#.utf8).write(to: URL(fileURLWithPath: bad))
        #expect {
            _ = try EvalReport.load(path: bad)
        } throws: { error in
            "\(error)".contains(bad) && "\(error)".contains("missing field")
        }
    }

    @Test("the HTML and Markdown show the baseline deltas and the regressed fixture")
    func baselineRendering() throws {
        var report = Self.after
        report.baseline = try BaselineComparison.compare(current: Self.after, baseline: Self.before, baselinePath: "old/<report>.json")
        let html = EvalHTML.render(report, fixtures: [Self.steady, Self.worse, Self.better, Self.fresh])
        #expect(html.contains("Versus baseline"))
        #expect(html.contains("old/&lt;report&gt;.json"))
        #expect(html.contains("href=\"#fx-worse\""))
        let markdown = report.markdown()
        #expect(markdown.contains("Regressed fixtures"))
        #expect(markdown.contains("- worse: F1"))
        #expect(report.summaryText().contains("1 fixtures regressed"))
    }
}
