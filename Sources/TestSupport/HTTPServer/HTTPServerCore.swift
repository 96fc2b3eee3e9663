import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The state a server shares with its connections' handlers and running handler tasks.
final class HTTPServerCore: Sendable {
    private struct State {
        var accepting = true
        var stopped = false
        var accepted = 0
        var open: [ObjectIdentifier: any Channel] = [:]
        var running = 0
        var groupReleased = false
        var finalCPUSeconds = 0.0
    }

    let handler: HTTPServer.Handler
    let options: HTTPServer.Options
    private let group: MultiThreadedEventLoopGroup
    private let cpuClock: clockid_t
    private let state = NIOLockedValueBox(State())

    init(group: MultiThreadedEventLoopGroup, cpuClock: clockid_t, options: HTTPServer.Options,
         handler: @escaping HTTPServer.Handler) {
        self.group = group
        self.cpuClock = cpuClock
        self.options = options
        self.handler = handler
    }

    var acceptedConnections: Int { state.withLockedValue { $0.accepted } }
    var openConnections: Int { state.withLockedValue { $0.open.count } }

    var cpuSeconds: Double {
        // Read under the lock: once stopped the thread may be gone, and its clock with it.
        state.withLockedValue { $0.stopped ? $0.finalCPUSeconds : ServerThread.cpuSeconds(cpuClock) }
    }

    /// The connection's 1-based number, or nil when the server no longer accepts or is at its connection cap (the
    /// connection is then closed).
    func admit(_ channel: any Channel) -> Int? {
        let number = state.withLockedValue { state -> Int? in
            guard state.accepting, !state.stopped else { return nil }
            if let cap = options.maxConnections, state.open.count >= cap { return nil }
            state.accepted += 1
            state.open[ObjectIdentifier(channel)] = channel
            return state.accepted
        }
        if number != nil {
            channel.closeFuture.whenComplete { [self] _ in
                state.withLockedValue { _ = $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
            }
        }
        return number
    }

    /// Stops admitting connections; the ones open now, or nil when that had happened already.
    func refuseNewConnections() -> [any Channel]? {
        state.withLockedValue { state in
            guard state.accepting, !state.stopped else { return nil }
            state.accepting = false
            return Array(state.open.values)
        }
    }

    /// Marks the server stopped; the connections still open, or nil when it had stopped already.
    func stop() -> [any Channel]? {
        state.withLockedValue { state in
            guard !state.stopped else { return nil }
            state.finalCPUSeconds = ServerThread.cpuSeconds(cpuClock)
            state.stopped = true
            state.accepting = false
            return Array(state.open.values)
        }
    }

    /// Runs the handler on a task of its own and passes its reply to `deliver` on `loop`, unless the server stopped
    /// meanwhile. Nil when the server has stopped.
    func run(_ request: HTTPServerRequest, on loop: any EventLoop,
             deliver: @escaping @Sendable (HTTPServerReply) -> Void) -> Task<Void, Never>? {
        let admitted = state.withLockedValue { state -> Bool in
            guard !state.stopped else { return false }
            state.running += 1
            return true
        }
        guard admitted else { return nil }
        let body: @Sendable () async -> Void = { [self] in
            let reply = await handler(request)
            state.withLockedValue { state in
                // The loop lives while a handler runs (`releaseGroupIfIdle`), so it is there to take the reply.
                if !state.stopped { loop.execute { deliver(reply) } }
                state.running -= 1
            }
            releaseGroupIfIdle()
        }
        if options.handlersOnServerThread, #available(macOS 15.0, *) {
            return Task(executorPreference: LoopTaskExecutor(loop), operation: body)
        }
        return Task(operation: body)
    }

    /// Shuts the event-loop group down once the server stopped and no handler is running, exactly once.
    func releaseGroupIfIdle() {
        let release = state.withLockedValue { state -> Bool in
            guard state.stopped, state.running == 0, !state.groupReleased else { return false }
            state.groupReleased = true
            return true
        }
        if release { group.shutdownGracefully { _ in } }
    }
}
