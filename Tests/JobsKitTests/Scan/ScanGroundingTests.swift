import Extractors
import Foundation
import Core
import JobsKit
import Postgres
import TestSupport
import Testing

@Suite("Scan: how items were grounded is in the run record")
struct ScanGroundingTests {
    /// Events quote their message with an emoji added (aligned), deadlines quote words no message says (dropped),
    /// priority messages quote exactly: the summary and `job_runs.item_counts.grounding` count each.
    @Test func runRecordCountsExactAlignedAndDroppedPerFeature() async throws {
        try await TestDatabase.with { db in
            let workload = try ScanHarness.workload(conversations: 6, active: 3)
            try await ScanHarness.load(workload, into: db)
            let server = try FakeOpenAIServer { request in
                let name = ScanRequests.feature(request)
                guard var answer = ScanRequests.featureAnswer(name, request)?.objectValue,
                      let key = answer.keys.first, var items = answer[key]?.arrayValue, var item = items.first?.objectValue else {
                    return ScanRequests.answer(request)
                }
                let quote = item["evidence"]?.stringValue ?? ""
                if name == "calendar_events" { item["evidence"] = .string(quote + " 🎉") }
                if name == "deadlines" { item["evidence"] = "Zanzibar giraffes juggle quietly" }
                items[0] = .object(item)
                answer[key] = .array(items)
                return .chat(content: JSONValue.object(answer).serialized(), usage: FakeUsage(prompt: 200, completion: 30))
            }
            defer { server.stop() }
            let summary = try await ScanHarness.scan(db, try ScanHarness.engine(server))
            #expect(summary.conversations == 3)
            #expect(summary.grounding["calendar_events"] == GroundingTally(aligned: 3))
            #expect(summary.grounding["deadlines"] == GroundingTally(dropped: 3))
            #expect(summary.grounding["priority_messages"] == GroundingTally(exact: 3))
            #expect(summary.items["deadlines"] == 0 && summary.items["calendar_events"] == 3)

            let row = try await db.pool.query("SELECT item_counts::text AS counts FROM job_runs WHERE id = $1", [summary.runID])[0]
            let counts = try JSONValue.parse(Data(try row.decode("counts", as: String.self).utf8))
            #expect(counts["grounding"]?["calendar_events"]?["aligned"]?.integerValue == 3)
            #expect(counts["grounding"]?["calendar_events"]?["exact"]?.integerValue == 0)
            #expect(counts["grounding"]?["deadlines"]?["dropped"]?.integerValue == 3)
            #expect(counts["grounding"]?["priority_messages"]?["exact"]?.integerValue == 3)
            #expect(counts["calendar_events"]?.integerValue == 3)
            #expect(ScanReport.text(summary).contains("Evidence not verbatim: calendar_events 3 aligned, 0 re-cited, 0 dropped; deadlines 0 aligned, 0 re-cited, 3 dropped"))
        }
    }
}
