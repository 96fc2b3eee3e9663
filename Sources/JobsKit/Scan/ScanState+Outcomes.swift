import AgentRuntime
import Extractors
import Foundation

extension ScanState {
    /// A conversation this run worked on but could not commit because its lease was taken over (`ScanLeaseLost`):
    /// neither scanned nor failed (its requests and tokens count all the same: the run's meter saw them).
    func record(lostLease id: UUID) {
        summary.lostLeases += 1
        if summary.lostLeaseConversations.count < 50 { summary.lostLeaseConversations.append(id) }
    }
}

extension ScanState {
    /// A conversation whose work was cancelled before it committed: released, neither scanned nor failed.
    func record(interrupted id: UUID) {
        summary.interrupted += 1
    }
}

extension ScanState {
    /// Conversations counted as failed whose COMMIT, it turns out, landed: done after all (their row counts are
    /// unknown, so none are added), and no longer failures of this run.
    func recount(committed ids: Set<UUID>) {
        guard !ids.isEmpty else { return }
        let landed = Set(failedOnDeadConnection.filter(ids.contains))
        summary.failed -= landed.count
        summary.conversations += landed.count
        summary.failures.removeAll { landed.contains($0.conversationID) }
        summary.unrecordedFailures.removeAll { landed.contains($0.conversationID) }
        failedOnDeadConnection.removeAll(where: landed.contains)
    }
}

extension ScanState {
    /// A conversation whose COMMIT landed although the run was cancelled around it: done, its counts unknown.
    func record(committedUncounted id: UUID) {
        summary.conversations += 1
    }
}

extension ScanState {
    /// A conversation given back untouched because of an outage: neither scanned nor failed.
    func record(deferred id: UUID) {
        summary.deferred += 1
        if summary.deferredConversations.count < RunFailure.recordedLimit { summary.deferredConversations.append(id) }
    }
}
