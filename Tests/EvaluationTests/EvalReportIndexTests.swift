import Extractors
import Foundation
import Core
import JobsKit
import TestSupport
import Testing
import Evaluation
import NIOConcurrencyHelpers

/// The HTML report's fixture index after a real compare run against a baseline: each row's data attributes, which
/// the page's sort and filters read, say which fixtures changed, failed and regressed, and which way.
@Suite("Eval report fixture index")
struct EvalReportIndexTests {
    /// One row of `#fx-index` as its data attributes give it.
    struct Row {
        var delta: Double
        var f1: Double
        var regression: Double
        var changed: Bool
        var imperfect: Bool
        var failed: Bool
        var regressed: Bool
    }

    static func rows(_ html: String) throws -> [String: Row] {
        let pattern = try NSRegularExpression(pattern:
            ##"<tr data-delta="([-0-9.]+)" data-f1="([-0-9.]+)" data-regression="([-0-9.]+)" data-changed="(true|false)" "##
            + ##"data-imperfect="(true|false)" data-failed="(true|false)" data-regressed="(true|false)"[^>]*><td><a href="#fx-([^"]+)">"##)
        var rows: [String: Row] = [:]
        for match in pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            func group(_ index: Int) -> String { String(html[Range(match.range(at: index), in: html)!]) }
            rows[group(8)] = Row(delta: Double(group(1)) ?? .nan, f1: Double(group(2)) ?? .nan, regression: Double(group(3)) ?? .nan,
                                 changed: group(4) == "true", imperfect: group(5) == "true", failed: group(6) == "true",
                                 regressed: group(7) == "true")
        }
        return rows
    }

    /// The fixture a request is about (`EvalTestSupport.fixture(of:among:)`).
    static func fixtureID(_ request: RecordedRequest, among fixtures: [Fixture]) -> String? {
        request.json.flatMap { EvalTestSupport.fixture(of: $0, among: fixtures)?.id }
    }

    @Test("a compare run against a baseline marks the changed, failed and regressed fixtures, with the sign of each change")
    func indexMarksChangedFailedAndRegressed() async throws {
        let root = try EvalTestSupport.temporaryDirectory("report")
        for folder in ["prompts", "schemas"] {
            try FileManager.default.copyItem(at: RepositoryPaths.root.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
        }
        // The candidate is version 3, a copy of the pinned version 2 with one line added.
        let pinned = try String(contentsOf: root.appendingPathComponent("prompts/calendar_events.v4.yaml"), encoding: .utf8)
        let candidate = pinned.replacingOccurrences(of: "\nversion: 4\n", with: "\nversion: 5\n")
            .replacingOccurrences(of: "\nsystem: |\n", with: "\nsystem: |\n  (Candidate two.)\n")
        #expect(candidate.contains("version: 5") && candidate.contains("(Candidate two.)"))
        try candidate.write(to: root.appendingPathComponent("prompts/calendar_events.v5.yaml"), atomically: true, encoding: .utf8)

        let fixtures = try EvalTestSupport.realFixtures()
        let withEvents = fixtures.filter { !$0.expected.calendarEvents.isEmpty }.map(\.id).sorted()
        try #require(withEvents.count >= 5)
        let worseOnMain = Set(withEvents[0..<2]), worseOnCandidate = Set(withEvents[2..<4]), brokenOnCandidate = withEvents[4]

        // Calendar answers: empty (nothing found) or schema-invalid for the chosen fixtures and prompt version.
        let degrade = NIOLockedValueBox(false)
        let answers = LabelledAnswers(fixtures)
                let server = try FakeOpenAIServer { request in
            let system = request.json?["messages"]?[0]?["content"]?.stringValue ?? ""
            let candidate = system.contains("(Candidate two.)")
            let calendar = request.json?["response_format"]?["json_schema"]?["name"]?.stringValue == "calendar_events"
            if degrade.withLockedValue({ $0 }), calendar, let fixture = Self.fixtureID(request, among: fixtures) {
                if candidate, fixture == brokenOnCandidate { return .chat(content: #"{"not_the_schema": true}"#) }
                if candidate ? worseOnCandidate.contains(fixture) : worseOnMain.contains(fixture) {
                    return .chat(content: #"{"events": []}"#)
                }
            }
            return answers.reply(request)
        }
        defer { server.stop() }

        var options = EvalTestSupport.options(fixtures: EvalTestSupport.fixturesPath, server: server, cache: root.appendingPathComponent("cache-1"))
        options.promptsPath = root.appendingPathComponent("prompts").path
        let before = try await EvalSession.run(options)
        _ = try EvalReportWriter.write(before.report, fixtures: before.fixtures, to: root.appendingPathComponent("baseline"))

        degrade.withLockedValue { $0 = true }
        options.cacheDirectory = root.appendingPathComponent("cache-2")
        options.compareVersions = [.calendarEvents: 5]
        let after = try await EvalSession.run(options)
        var report = after.report
        let baselinePath = root.appendingPathComponent("baseline/report.json").path
        report.baseline = try BaselineComparison.compare(current: report, baseline: try EvalReport.load(path: baselinePath), baselinePath: baselinePath)
        _ = try EvalReportWriter.write(report, fixtures: after.fixtures, to: root.appendingPathComponent("gate"))

        let html = try String(contentsOf: root.appendingPathComponent("gate/report.html"), encoding: .utf8)
        let rows = try Self.rows(html)
        #expect(rows.count == fixtures.count, "one index row per fixture")
        #expect(Set(rows.filter(\.value.changed).keys) == worseOnMain.union(worseOnCandidate).union([brokenOnCandidate]))
        #expect(Set(rows.filter(\.value.failed).keys) == [brokenOnCandidate])
        #expect(Set(rows.filter(\.value.regressed).keys) == worseOnMain)
        for id in worseOnMain { #expect((rows[id]?.delta ?? 0) > 0, "\(id): the candidate found what main missed") }
        for id in worseOnCandidate.union([brokenOnCandidate]) { #expect((rows[id]?.delta ?? 0) < 0, "\(id): the candidate missed") }
        #expect(rows.filter { !$0.value.changed }.allSatisfy { $0.value.delta == 0 })
        #expect(html.contains("data-sort=\"delta\"") && html.contains("data-filter=\"regressed\""))
        // Sort and filter by F1 and by regression: the rows carry both, and the headers and filter read them.
        #expect(html.contains("data-sort=\"f1\"") && html.contains("data-sort=\"regression\"") && html.contains("data-filter=\"imperfect\""))
        for id in worseOnMain {
            #expect((rows[id]?.regression ?? 0) < 0, "\(id): its F1 fell against the baseline")
            #expect(rows[id]?.imperfect == true && (rows[id]?.f1 ?? 1) < 1)
        }
        #expect(rows.filter { !$0.value.regressed }.allSatisfy { $0.value.regression == 0 })
        #expect(rows.allSatisfy { $0.value.imperfect == ($0.value.f1 < 0.9995) })
        #expect(html.contains("class=\"banner\"") && html.contains(brokenOnCandidate), "the failed extraction heads the page")
        #expect(html.contains("<td>llm-compare: calendar_events</td></tr>"), "the index names the failed variant and feature")
        #expect(html.components(separatedBy: " ✗</td>").count - 1 == 1, "one F1 cell is marked as scored on a failed extraction")
        #expect(html.contains(">changed (5)</button>") && html.contains(">extraction failed (1)</button>") && html.contains(">regressed (2)</button>"))
        #expect(html.contains(">F1 below 1 (\(rows.filter(\.value.imperfect).count))</button>"))
    }
}
