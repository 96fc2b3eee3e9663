import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a request could not be read; the connection is then closed without a response.
struct HTTPReadError: Error, CustomStringConvertible {
    let description: String
}

/// The head and body of one HTTP/1.1 request.
struct ParsedRequest {
    var method: String
    var path: String
    var headers: [String: String]
    var body: Data
    var wasChunked: Bool
}

/// Blocking reads and writes on one accepted socket. Reads time out (SO_RCVTIMEO) so a silent client cannot pin a thread.
struct HTTPConnection {
    static let maxHeadBytes = 64 * 1024
    static let maxBodyBytes = 64 * 1024 * 1024

    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32, readTimeoutSeconds: Int = 5) {
        self.fd = fd
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads one request. Answers `Expect: 100-continue` so clients that wait for it send their body at once.
    mutating func readRequest() throws -> ParsedRequest {
        let head = try readHead()
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3 else { throw HTTPReadError(description: "bad request line: \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw HTTPReadError(description: "bad header line: \(line)") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        if headers["expect"]?.lowercased() == "100-continue" {
            try write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        let chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
        let body: [UInt8]
        if chunked {
            body = try readChunkedBody()
        } else if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0, length <= Self.maxBodyBytes else {
                throw HTTPReadError(description: "bad content-length: \(lengthText)")
            }
            body = try readExactly(length)
        } else {
            body = []
        }
        return ParsedRequest(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: Data(body), wasChunked: chunked)
    }

    private mutating func readHead() throws -> String {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var searchFrom = 0
        while true {
            if buffer.count >= 4, max(0, searchFrom - 3) <= buffer.count - 4 {
                for start in max(0, searchFrom - 3)...(buffer.count - 4) where buffer[start..<start + 4].elementsEqual(terminator) {
                    let head = String(decoding: buffer[..<start], as: UTF8.self)
                    buffer.removeFirst(start + 4)
                    return head
                }
                searchFrom = buffer.count
            }
            guard buffer.count < Self.maxHeadBytes else { throw HTTPReadError(description: "request head too large") }
            try fill()
        }
    }

    private mutating func readLine() throws -> String {
        while true {
            if let lf = buffer.firstIndex(of: 10) {
                let line = buffer[..<lf]
                buffer.removeFirst(lf + 1)
                return String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
            }
            guard buffer.count < Self.maxHeadBytes else { throw HTTPReadError(description: "line too long") }
            try fill()
        }
    }

    private mutating func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    private mutating func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try readLine()
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else { throw HTTPReadError(description: "bad chunk size: \(sizeLine)") }
            if size == 0 {
                while try !readLine().isEmpty {}  // trailers, then the blank line
                return body
            }
            guard body.count + size <= Self.maxBodyBytes else { throw HTTPReadError(description: "body too large") }
            body += try readExactly(size)
            guard try readLine().isEmpty else { throw HTTPReadError(description: "chunk not followed by CRLF") }
        }
    }

    private mutating func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if received > 0 {
            buffer += chunk[..<received]
        } else if received == 0 {
            throw HTTPReadError(description: "connection closed by the client")
        } else if errno == EINTR {
            return
        } else {
            throw HTTPReadError(description: "read failed: errno \(errno)")
        }
    }

    /// Writes all bytes; MSG_NOSIGNAL so a client that went away cannot kill the test process with SIGPIPE.
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw HTTPReadError(description: "write failed: errno \(errno)")
            }
            offset += sent
        }
    }

    func writeResponse(status: Int, headers: [String: String], body: Data) throws {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try write(Array(head.utf8) + Array(body))
    }

    /// Closes with RST instead of FIN, as a crashed server or proxy would.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
