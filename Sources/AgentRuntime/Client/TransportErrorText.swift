import Foundation
import NIOCore

/// Error text a person can act on: which server, and what the socket said, without NIO's internal wording.
enum TransportErrorText {
    /// `connection refused (errno 111)` rather than NIO's `connection reset (error set): Connection refused) (errno: 111)`:
    /// the operating system's own message for the errno, which already says what happened.
    static func describe(_ error: IOError) -> String {
        let code = error.errnoCode
        guard code != 0, let message = strerror(code) else { return error.description }
        return String(cString: message).lowercased() + " (errno \(code))"
    }

    /// `http://127.0.0.1:8080/v1`: the server a request went to, without user, password, query or fragment (they
    /// could carry credentials).
    static func server(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "the configured server" }
        parts.user = nil
        parts.password = nil
        parts.query = nil
        parts.fragment = nil
        return parts.string ?? "the configured server"
    }
}
