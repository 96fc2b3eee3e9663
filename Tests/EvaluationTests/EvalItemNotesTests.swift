import Extractors
import Foundation
import Core
import JobsKit
import TestSupport
import Testing
import Evaluation

/// The eval report says per item why the checks dropped it, and prices no server whose prices are unknown (issue 38).
@Suite("Eval report: per-item drop reasons, no guessed price")
struct EvalItemNotesTests {
    @Test("an item whose evidence is in no message is listed under its fixture as dropped, with why; a loopback server has no price")
    func droppedItemsSayWhy() async throws {
        let path = EvalTestSupport.fixturesPath + "/birthday-invite-pending.yaml"
        let fixture = try FixtureLoader.loadFile(path)
        let phantom: JSONValue = ["events": [[
            "title": "Phantom rocket launch", "date": "2026-03-10", "time": nil, "end_time": nil, "location": nil, "description": "",
            "category": "other", "confidence": 0.9, "date_phrase": nil, "evidence": "the rocket launches from the school roof",
            "source_message_ids": ["m1"],
        ]]]
        let server = try FakeOpenAIServer { _ in .chat(content: phantom.serialized()) }
        defer { server.stop() }
        var options = EvalTestSupport.options(fixtures: path, server: server, cache: try EvalTestSupport.temporaryDirectory("cache"))
        options.features = [.calendarEvents]

        let report = try await EvalSession.run(options).report
        let main = try #require(report.main)
        let note = try #require(main.notes?.first { $0.kind == "no_evidence" }, "\(main.notes ?? [])")
        #expect(note.fixture == fixture.id && note.feature == .calendarEvents && note.dropped)
        #expect(note.message.contains("Phantom rocket launch"), "\(note.message)")
        let html = EvalHTML.render(report, fixtures: [fixture])
        #expect(html.contains("Dropped or corrected by the checks") && html.contains("no_evidence") && html.contains("Phantom rocket launch"))
        let json = String(decoding: try report.jsonData(), as: UTF8.self)
        #expect(json.contains("\"no_evidence\""))

        // 127.0.0.1 is not OpenAI's API: gpt-4o-mini's list price does not apply to it.
        let cost = try #require(main.cost)
        #expect(cost.usd == nil, "a local server was priced: \(cost)")
        #expect(cost.unknownReason?.contains("not OpenAI's API") == true, "\(cost)")
    }
}
