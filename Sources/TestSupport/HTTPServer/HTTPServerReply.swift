package import Foundation

/// What `HTTPServer` does with one request: answer it, or fail the way a broken server or proxy does.
package indirect enum HTTPServerReply: Sendable {
    /// A response with a `Content-Length` body. With `close`, or when the request asked for it, the response says
    /// `Connection: close` and the connection is closed once it is written; otherwise it stays open for the next request.
    case response(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data(), close: Bool = false)
    /// A response with `Transfer-Encoding: chunked` and no `Content-Length`, its body sent in chunks of `chunkSize` bytes.
    case chunked(status: Int, headers: [(name: String, value: String)] = [], body: Data, chunkSize: Int = 4096, close: Bool = true)
    /// Closes the connection without answering (FIN): a stale keep-alive connection, a server that went away.
    case close
    /// Resets the connection without answering (RST), as a crashed server or proxy does.
    case reset
    /// Does `then` after `delay`, timed by the server's event loop: a slow model costs no thread and no CPU while it waits.
    case delayed(Duration, then: HTTPServerReply)
}

extension HTTPServerReply {
    /// This reply after `delay`, or at once when the delay is not positive.
    package func after(_ delay: Duration) -> HTTPServerReply {
        delay > .zero ? .delayed(delay, then: self) : self
    }
}
