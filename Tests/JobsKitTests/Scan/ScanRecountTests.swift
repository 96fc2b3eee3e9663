import Foundation
@testable import JobsKit
import Testing

/// A conversation counted as failed on a dead connection whose COMMIT landed all the same is counted as done at
/// the end of the run; the other failures stay failures.
@Suite("Scan: failures on a dead connection are recounted")
struct ScanRecountTests {
    @Test func onlyFailuresOnADeadConnectionThatCommittedAreRecounted() async {
        let state = ScanState(summary: ScanService.Summary(runID: UUID(), provider: "rules"))
        let (landed, lost, modelError) = (UUID(), UUID(), UUID())
        await state.record(failure: landed, error: "server closed the connection", unrecorded: "no connection", deadConnection: true)
        await state.record(failure: lost, error: "server closed the connection", deadConnection: true)
        await state.record(failure: modelError, error: "model refused")
        #expect(await state.failedOnDeadConnection == [landed, lost])

        // `modelError` is not a suspect: even if asked about, it stays a failure.
        await state.recount(committed: [landed, modelError])
        let summary = await state.finish()
        #expect(summary.failed == 2)
        #expect(summary.conversations == 1)
        #expect(Set(summary.failures.map(\.conversationID)) == [lost, modelError])
        #expect(summary.unrecordedFailures.isEmpty)
    }
}
