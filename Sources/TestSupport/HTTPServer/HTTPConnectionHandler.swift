import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One accepted connection: reads requests whole, hands them to the server's handler one at a time, and carries
/// out each reply on the event loop.
final class HTTPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What an over-limit body may still send after its 413, read and dropped so that closing does not reset the
    /// connection before the client has read the answer.
    static let maxDrainedBytes = 1 << 20

    private let core: HTTPServerCore
    private let connection: Int
    private var context: ChannelHandlerContext?
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// Bytes of an over-limit body read since its 413; nil while the request being read is within the limit.
    private var drained: Int?
    /// The 413's write, which the close waits for.
    private var refusal: EventLoopFuture<Void>?
    /// Requests read while an earlier one on this connection is still being answered.
    private var waiting: [(request: HTTPServerRequest, head: HTTPRequestHead)] = []
    private var busy = false
    private var received = 0
    private var task: Task<Void, Never>?
    private var timer: Scheduled<Void>?

    init(core: HTTPServerCore, connection: Int) {
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
            drained = nil
            // Clients that send this (libcurl for large bodies) hold the body back until they hear it.
            if head.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
        case .body(var part):
            if let bytes = drained {
                drained = bytes + part.readableBytes
                if bytes + part.readableBytes > Self.maxDrainedBytes { context.close(promise: nil) }
                return
            }
            guard let head else { return }
            guard body.readableBytes + part.readableBytes <= core.options.maxBodyBytes else {
                refuse(head, context)
                return
            }
            body.writeBuffer(&part)
        case .end:
            if drained != nil {
                refusal?.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                return
            }
            guard let head else { return }
            self.head = nil
            waiting.append((HTTPServerRequest(
                method: head.method.rawValue, uri: head.uri, version: "\(head.version)",
                headers: head.headers.map { (name: $0.name, value: $0.value) }, body: Data(body.readableBytesView),
                wasChunked: head.headers["transfer-encoding"].contains { $0.lowercased().contains("chunked") },
                keepAlive: head.isKeepAlive, connection: connection, indexOnConnection: received, receivedAt: .now), head))
            received += 1
            startNext(context)
        }
    }

    /// An over-limit body: 413 at once, the rest of the body read and dropped (up to `maxDrainedBytes`) so that the
    /// client reads the answer before the connection closes at the body's end. While an earlier request's answer is
    /// still due the connection is closed at once instead, so answers stay in order.
    private func refuse(_ head: HTTPRequestHead, _ context: ChannelHandlerContext) {
        self.head = nil
        body.clear()
        guard !busy, waiting.isEmpty else {
            context.close(promise: nil)
            return
        }
        drained = 0
        let text = Array("request body over \(core.options.maxBodyBytes) bytes\n".utf8)
        var answer = responseHead(413, [("Content-Type", "text/plain; charset=utf-8")], version: head.version, close: true)
        answer.headers.replaceOrAdd(name: "Content-Length", value: "\(text.count)")
        context.write(wrapOutboundOut(.head(answer)), promise: nil)
        if head.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: text)))), promise: nil) }
        refusal = context.writeAndFlush(wrapOutboundOut(.end(nil)))
    }

    func channelInactive(context: ChannelHandlerContext) {
        task?.cancel()
        timer?.cancel()
        waiting = []
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // Quiet while an answer is being prepared is the server's time, however long a busy machine takes.
        if !busy, waiting.isEmpty { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func startNext(_ context: ChannelHandlerContext) {
        guard !busy, !waiting.isEmpty else { return }
        busy = true
        let (request, head) = waiting.removeFirst()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        task = core.run(request, on: context.eventLoop) { reply in
            handler.value.perform(reply, to: head)
        }
    }

    private func perform(_ reply: HTTPServerReply, to request: HTTPRequestHead) {
        guard let context else { return }
        let keepAlive = request.isKeepAlive
        // A response to HEAD has the headers GET would have and no body.
        let sendsBody = request.method != .HEAD
        switch reply {
        case .delayed(let delay, let then):
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
                self.timer = nil
                self.perform(then, to: request)
            }
        case .response(let status, let headers, let body, let close):
            var head = responseHead(status, headers, version: request.version, close: close || !keepAlive)
            head.headers.replaceOrAdd(name: "Content-Length", value: "\(body.count)")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if sendsBody, !body.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil) }
            finish(context, close: close || !keepAlive)
        case .chunked(let status, let headers, let body, let chunkSize, let close):
            var head = responseHead(status, headers, version: request.version, close: close || !keepAlive)
            head.headers.remove(name: "Content-Length")
            head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            var offset = body.startIndex
            while sendsBody, offset < body.endIndex {
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

    private func responseHead(_ status: Int, _ headers: [(name: String, value: String)], version: HTTPVersion,
                              close: Bool) -> HTTPResponseHead {
        var head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status))
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
