import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One accepted connection: reads requests whole, hands them to the server's handler one at a time, and carries
/// out each reply on the event loop.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let core: ServerCore
    private let connection: Int
    private var context: ChannelHandlerContext?
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// Requests read while an earlier one on this connection is still being answered.
    private var waiting: [LoopbackRequest] = []
    private var busy = false
    private var received = 0
    private var task: Task<Void, Never>?
    private var timer: Scheduled<Void>?

    init(core: ServerCore, connection: Int) {
        self.core = core
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            // Clients that send this (libcurl for large bodies) hold the body back until they hear it.
            if head.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
        case .body(var part):
            guard head != nil else { return }
            guard body.readableBytes + part.readableBytes <= LoopbackHTTPServer.maxBodyBytes else {
                head = nil
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&part)
        case .end:
            guard let head else { return }
            self.head = nil
            waiting.append(LoopbackRequest(
                method: head.method.rawValue, uri: head.uri, version: "\(head.version)",
                headers: head.headers.map { (name: $0.name, value: $0.value) }, body: Data(body.readableBytesView),
                wasChunked: head.headers["transfer-encoding"].contains { $0.lowercased().contains("chunked") },
                keepAlive: head.isKeepAlive, connection: connection, indexOnConnection: received, receivedAt: .now))
            received += 1
            startNext(context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        task?.cancel()
        timer?.cancel()
        waiting = []
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func startNext(_ context: ChannelHandlerContext) {
        guard !busy, !waiting.isEmpty else { return }
        busy = true
        let request = waiting.removeFirst()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        task = core.run(request, on: context.eventLoop) { reply in
            handler.value.perform(reply, keepAlive: request.keepAlive)
        }
    }

    private func perform(_ reply: LoopbackReply, keepAlive: Bool) {
        guard let context else { return }
        switch reply {
        case .delayed(let delay, let then):
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
                self.timer = nil
                self.perform(then, keepAlive: keepAlive)
            }
        case .response(let status, let headers, let body, let close):
            var head = responseHead(status, headers, close: close || !keepAlive)
            head.headers.replaceOrAdd(name: "Content-Length", value: "\(body.count)")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if !body.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil) }
            finish(context, close: close || !keepAlive)
        case .chunked(let status, let headers, let body, let chunkSize, let close):
            var head = responseHead(status, headers, close: close || !keepAlive)
            head.headers.remove(name: "Content-Length")
            head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            var offset = body.startIndex
            while offset < body.endIndex {
                let end = min(offset + max(1, chunkSize), body.endIndex)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body[offset..<end])))), promise: nil)
                offset = end
            }
            finish(context, close: close || !keepAlive)
        case .close:
            context.close(promise: nil)
        case .reset:
            // SO_LINGER 0 turns the close into a RST; set at once, since this runs on the channel's loop.
            _ = (context.channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            context.close(promise: nil)
        }
    }

    private func responseHead(_ status: Int, _ headers: [(name: String, value: String)], close: Bool) -> HTTPResponseHead {
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
        for header in headers { head.headers.add(name: header.name, value: header.value) }
        if close { head.headers.replaceOrAdd(name: "Connection", value: "close") }
        return head
    }

    /// Ends the response; then closes the connection once it is written, or takes the next request.
    private func finish(_ context: ChannelHandlerContext, close: Bool) {
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if close {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        } else {
            busy = false
            startNext(context)
        }
    }
}
