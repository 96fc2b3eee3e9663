import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The listening socket of the benchmark servers: bound to 127.0.0.1 only, so a benchmark never opens a port to
/// the network.
enum LoopbackListener {
    /// A socket listening on 127.0.0.1:`port` (0 picks a free port) and the port it got.
    static func open(port: UInt16 = 0, backlog: Int32) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("bench server: socket() failed (errno \(errno))") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let code = errno
            close(fd)
            throw BenchError("bench server: cannot listen on 127.0.0.1:\(port) (errno \(code)\(code == EADDRINUSE ? ": the port is in use" : ""))")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Accepts connections on `listenFD` until `stopped` is set or the socket is shut down, and serves each on a
    /// thread of its own (the benchmark servers are plain blocking code, kept out of the measured process's pools).
    /// `afterEach` runs after every accept, for the scan server's CPU meter. Closes `listenFD` when it returns.
    static func acceptLoop(_ listenFD: Int32, stopped: BenchFlag, connections: OpenConnections,
                           afterEach: () -> Void = {}, serve: @escaping @Sendable (Int32) -> Void) {
        defer { close(listenFD) }
        while !stopped.isSet {
            defer { afterEach() }
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            // Kept-alive connections answer small writes at once instead of after a delayed ACK.
            var one: Int32 = 1
            _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            guard connections.insert(client) else {
                close(client)
                return
            }
            let thread = Thread { serve(client) }
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }
}
