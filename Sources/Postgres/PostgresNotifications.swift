import CLibPQ
import Foundation
import Glibc

/// A NOTIFY received on a LISTENing connection.
package struct PostgresNotification: Sendable, Hashable {
    package let channel: String
    package let payload: String
    /// The server process that sent it.
    let senderPID: Int32
}

extension PostgresConnection {
    /// Subscribes this connection to a channel. Use a dedicated connection for listening: waiting for
    /// notifications occupies it.
    package func listen(_ channel: String) async throws {
        let quoted = try await quoteIdentifier(channel)
        try await query("LISTEN \(quoted)")
    }

    /// Sends a notification (any connection may send).
    package func notify(_ channel: String, payload: String = "") async throws {
        try await query("SELECT pg_notify($1, $2)", [channel, payload])
    }

    /// Waits until a notification arrives or `timeout` seconds pass (nil). Checks for cancellation
    /// at least every 250 ms so a stopping worker is not held up.
    package func waitForNotification(timeout: Double) async throws -> PostgresNotification? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            try Task.checkCancellation()
            let remaining = deadline.timeIntervalSinceNow
            let slice = max(0, min(0.25, remaining))
            let received = try await withHandle { handle -> PostgresNotification? in
                try Self.pollNotification(handle, waitSeconds: slice)
            }
            if let received { return received }
            if remaining <= 0.25 { return nil }
        }
    }

    private static func pollNotification(_ handle: OpaquePointer, waitSeconds: Double) throws -> PostgresNotification? {
        func next() -> PostgresNotification? {
            guard let raw = PQnotifies(handle) else { return nil }
            defer { PQfreemem(raw) }
            return PostgresNotification(
                channel: String(cString: raw.pointee.relname),
                payload: String(cString: raw.pointee.extra),
                senderPID: raw.pointee.be_pid)
        }
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(kind: .connection, message: lastError(handle))
        }
        if let ready = next() { return ready }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        let status = poll(&descriptor, 1, Int32(waitSeconds * 1000))
        if status < 0, errno != EINTR {
            throw PostgresError(kind: .connection, message: "waiting for notifications failed: \(String(cString: strerror(errno)))")
        }
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(kind: .connection, message: lastError(handle))
        }
        return next()
    }

    private func quoteIdentifier(_ name: String) async throws -> String {
        try await withHandle { handle in
            guard let escaped = PQescapeIdentifier(handle, name, name.utf8.count) else {
                throw PostgresError(kind: .usage, message: "invalid identifier '\(name)': \(Self.lastError(handle))")
            }
            defer { PQfreemem(escaped) }
            return String(cString: escaped)
        }
    }
}
