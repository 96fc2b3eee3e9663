import Foundation

/// A value behind a lock, for state the server's threads share with tests.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    package init(_ value: Value) { stored = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    /// The value, read or replaced whole under the lock.
    package var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}
