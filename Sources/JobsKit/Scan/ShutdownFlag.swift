import Foundation

/// Set once, from a synchronous shutdown handler, and read by the scan's workers before each claim: no claim starts
/// after the handler has returned (an actor hop would leave a window in which one still could).
final class ShutdownFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
