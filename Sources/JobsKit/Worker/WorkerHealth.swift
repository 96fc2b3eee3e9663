import Foundation

/// What the worker knows about its own liveness, for `/healthz` and `/readyz`.
///
/// The signals are ones the worker produces anyway, so a probe costs no query: the LISTEN connection reports each
/// wait it completes (at least every 5 s, and a dead backend breaks the wait at once), and the main loop reports
/// each pass and whether its last claim query reached the database.
package actor WorkerHealth {
    /// A probe's answer: `live` for `/healthz`, `ready` for `/readyz`, and why not when either is false.
    package struct Report: Sendable, Equatable {
        package let live: Bool
        package let ready: Bool
        package let reasons: [String]
    }

    private enum Listener {
        /// `--once`: the worker polls only.
        case notUsed
        case connecting
        case listening
        case down(since: ContinuousClock.Instant, error: String)
    }

    private var listener: Listener = .connecting
    private var listenerCheckedAt: ContinuousClock.Instant?
    private var loopAt: ContinuousClock.Instant?
    private var claimError: String?
    private var firstPassDone = false
    private var stopping = false
    private var loopStaleAfter: Duration = .seconds(60)

    /// A listener that has not finished a wait for this long is stuck (a wait lasts at most 5 s).
    static let listenerStaleAfter: Duration = .seconds(30)

    package init() {}

    func starting(usesListener: Bool, poll: Duration) {
        listener = usesListener ? .connecting : .notUsed
        // The loop wakes at least once per poll; give it three polls (and queries their time) before calling it stuck.
        loopStaleAfter = poll * 3 + .seconds(30)
    }

    func listenerAlive() {
        listener = .listening
        listenerCheckedAt = .now
    }

    func listenerDown(_ error: String) {
        if case .down = listener { return }
        listener = .down(since: .now, error: Self.oneLine(error))
    }

    /// How a main-loop pass went with the database.
    enum ClaimPass {
        case succeeded
        /// Every slot was busy: no claim query ran, so the last one's outcome still stands.
        case skipped
        case failed(String)
    }

    func loopPassed(claimed: ClaimPass) {
        loopAt = .now
        switch claimed {
        case .succeeded:
            claimError = nil
            firstPassDone = true
        case .skipped:
            break
        case .failed(let error):
            claimError = Self.oneLine(error)
        }
    }

    func beginStopping() { stopping = true }

    /// libpq's messages span lines; a probe answers one reason per line, at most 200 characters.
    private static func oneLine(_ text: String) -> String {
        String(text.split(whereSeparator: \.isWhitespace).joined(separator: " ").prefix(200))
    }

    /// The probes' answer now.
    package func report(now: ContinuousClock.Instant = .now) -> Report {
        var problems: [String] = []
        switch listener {
        case .notUsed:
            break
        case .connecting:
            problems.append("LISTEN connection not open yet")
        case .listening:
            if let checked = listenerCheckedAt, now - checked > Self.listenerStaleAfter {
                problems.append("LISTEN connection silent for \(Int((now - checked).seconds)) s")
            }
        case .down(let since, let error):
            problems.append("LISTEN connection down for \(Int((now - since).seconds)) s: \(error)")
        }
        if let error = claimError { problems.append("last claim query failed: \(error)") }
        if let loopAt {
            if now - loopAt > loopStaleAfter { problems.append("worker loop stuck for \(Int((now - loopAt).seconds)) s") }
        } else if claimError == nil {
            problems.append("worker starting")
        }
        let live = problems.isEmpty
        var reasons = problems
        if live, !firstPassDone { reasons.append("first claim pass not done") }
        if stopping { reasons.append("stopping") }
        return Report(live: live, ready: live && firstPassDone && !stopping, reasons: reasons)
    }
}
