import Foundation
import Core
@testable import JobsKit
import Testing

/// The nightly text summary caps what it lists per conversation and per user and says how many were left out; the
/// JSON keeps the totals.
@Suite("Summary caps")
struct SummaryCapsTests {
    @Test func theScanSummaryListsTheFirstConversationsAndSaysHowManyMoreHadFindings() throws {
        var summary = ScanService.Summary(runID: UUID(), provider: "rules")
        summary.conversations = 204
        summary.conversationsWithFindings = 204
        summary.found = (0..<ScanReport.conversationsListed).map { index in
            ScanService.Found(conversationID: UUID(), conversation: "Class group \(index)",
                              items: (0..<ScanReport.itemsPerConversation).map {
                                  ScanService.FoundItem(feature: "calendar_events", fields: ["title": .string("event \($0)")],
                                                        summary: "calendar_events: event \($0)")
                              }, more: index == 0 ? 37 : 0)
        }
        let text = ScanReport.text(summary)
        let lines = text.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("  - ") }.count == ScanReport.conversationsListed * ScanReport.itemsPerConversation)
        #expect(lines.contains("  … and 37 more findings"))
        #expect(lines.contains("… 184 more conversations with findings (rows in the feature tables)"))
        #expect(lines.filter { $0.contains("more findings") }.count == 1)
    }

    @Test func theProactiveSummaryCapsFindingsPerUserAndCountsTheUsersNotShown() {
        var summary = ProactivePass.Summary(runID: UUID())
        let finding = { (index: Int) in
            OpenFinding(userID: UUID(), kind: "deadline", subjectKey: "d\(index)", severity: "medium", dueAt: nil,
                        title: "Deadline \(index)", suggestion: "Permission slip \(index) is due", explanation: nil, rank: nil, cites: [])
        }
        summary.shown = [ProactivePass.UserFindings(userID: UUID(), name: "Maria", findings: (0..<2_805).map(finding))]
        summary.usersWithFindings = 41
        let lines = ProactiveReport.text(summary).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("  - [deadline]") }.count == ProactiveReport.findingsPerUser)
        #expect(lines.contains("  … and \(2_805 - ProactiveReport.findingsPerUser) more findings"))
        #expect(lines.contains("… and 40 more users with open findings (assistant_findings)"))
        #expect(lines.count < 20)
    }
}
