import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One blocking TCP exchange: sends bytes, reads until the server ends the connection, and says how it ended.
package enum RawHTTPExchange {
    package enum Ending: Equatable, Sendable { case closed, reset, timedOut }
    /// Nothing listens on the port.
    package struct Refused: Error {}
    /// The socket could not be made or the request not sent.
    package struct Failed: Error, CustomStringConvertible { package let description: String }

    /// The exchange on a thread of its own: Swift's pool has one thread per core, and a test that blocked them in
    /// socket reads would starve every other task of the test run, the servers' handlers included.
    package static func exchange(port: UInt16, _ request: String) async throws -> (text: String, ending: Ending) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try exchange(port: port, request) }) }.start()
        }
    }

    package static func exchange(port: UInt16, _ request: String) throws -> (text: String, ending: Ending) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failed(description: "socket(): errno \(errno)") }
        defer { close(fd) }
        // Far above a loaded machine's stalls (a full parallel test run has stalled 60 s at its start); each exchange ends
        // as soon as the server closes or answers.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Refused() }
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw Failed(description: "send(): errno \(errno)")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { response += buffer[..<n]; continue }
            let ending: Ending = n == 0 ? .closed : errno == ECONNRESET ? .reset : .timedOut
            return (String(decoding: response, as: UTF8.self), ending)
        }
    }
}
