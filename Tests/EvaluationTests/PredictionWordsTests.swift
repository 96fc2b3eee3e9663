import Core
import Extractors
import Foundation
import JobsKit
import TestSupport
import Testing
import Evaluation

/// The eval report's predicted items carry the words behind them (issue 48 item 2): each item's date phrase and its
/// evidence (the text of the messages it cites), in report.json, report.html and report.md's misses.
@Suite("Eval report: predicted items' date phrases and evidence")
struct PredictionWordsTests {
    @Test("a real run's predicted items carry their date phrases in every report")
    func datePhrasesReachTheReports() async throws {
        var options = EvalRunOptions()
        options.fixturesPath = "\(EvalTestSupport.fixturesPath)/field-trip-deadlines.yaml"
        options.promptsPath = EvalTestSupport.promptsPath
        options.provider = .rules
        options.environment = [:]
        let run = try await EvalSession.run(options)
        let main = try #require(run.report.main)
        let details = main.score.fixtures.flatMap { $0.features.values }
        let predicted = details.flatMap { $0.matched.map(\.predicted) + $0.falsePositives.map(\.predicted) }
        let phrases = predicted.compactMap { $0["date_phrase"]?.stringValue }
        #expect(phrases.contains("the 30th") && phrases.contains("due this Friday"), "\(predicted)")
        // Expected items are the labels: they gain nothing.
        #expect(details.flatMap { $0.matched.map(\.expected) }.allSatisfy { $0["date_phrase"] == nil })
        let html = EvalHTML.render(run.report, fixtures: run.fixtures)
        #expect(html.contains("date_phrase: the 30th"), "the fixture section shows the phrase")
        let json = try JSONValue.parse(try run.report.jsonData())
        #expect(json.serialized().contains("\"date_phrase\":\"due this Friday\""))
        // Evidence: the text of the messages each item cites, `id: text`.
        let evidence = predicted.compactMap { $0["evidence"]?.arrayValue }.flatMap { $0 }.compactMap(\.stringValue)
        #expect(predicted.allSatisfy { $0["evidence"] != nil }, "every predicted item cites a message: \(predicted)")
        #expect(evidence.contains { $0.hasPrefix("m") && $0.contains(": ") && $0.contains("the 30th") }, "\(evidence)")
        #expect(html.contains("evidence: "), "the fixture section shows the evidence")
    }

    @Test("each predicted item gets its own words by its index")
    func wordsFollowThePredictionIndex() throws {
        let detail = FeatureDetail(
            matched: [MatchedPair(expectedIndex: 0, predictedIndex: 1, expected: ["title": "Picnic"], predicted: ["title": "Picnic"], fields: [:])],
            falsePositives: [FalsePositive(predictedIndex: 0, predicted: ["title": "Party"], dateMistake: false)],
            falseNegatives: [])
        let score = EvalScore(features: [:], micro: .zero, fixtures: [FixtureScore(fixture: "f", features: [.calendarEvents: detail])])
        let table: PredictionWords.Table = ["f": [.calendarEvents: [
            ["date_phrase": "Saturday", "evidence": "Party Saturday!"],
            ["date_phrase": "Friday 9am", "evidence": "Picnic Friday 9am"],
        ]]]
        let attached = try #require(PredictionWords.attach(table, to: score).fixtures.first?.features[.calendarEvents])
        #expect(attached.matched[0].predicted == ["title": "Picnic", "date_phrase": "Friday 9am", "evidence": "Picnic Friday 9am"])
        #expect(attached.falsePositives[0].predicted == ["title": "Party", "date_phrase": "Saturday", "evidence": "Party Saturday!"])
        #expect(EvalReport.itemText(attached.falsePositives[0].predicted) == "title: Party · date_phrase: Saturday · evidence: Party Saturday!")
    }
}
