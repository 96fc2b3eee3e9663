import Testing
@testable import JobsKit

/// `/healthz` follows the database back promptly (issue 47): the LISTEN connection is retried at most 2 s apart however
/// long the database was down (the waits doubled to 30 s before, so the probe failed for up to half a minute after the
/// database returned and requests were already served again).
@Suite struct ListenerReconnectTests {
    @Test func theReconnectWaitStaysShortHoweverLongTheOutage() {
        let waits = (1...40).map { NotificationListener.reconnect.delay(afterAttempt: $0) }
        #expect(waits.allSatisfy { $0 <= .seconds(2) }, "\(waits)")
        #expect(waits.first == .milliseconds(500), "the first retry is quick")
    }
}
