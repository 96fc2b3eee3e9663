import Foundation

/// Holds the replies sent through it (`ScriptedReply.held`) until a test opens it, so a test decides when a model
/// request ends instead of guessing a delay. Records what it holds, so the test can wait until a request is in flight.
public final class ReplyGate: Sendable {
    private let state = Locked<(open: Bool, held: [RecordedRequest])>((false, []))

    public init() {}

    /// Lets every held reply (and every later one) through.
    public func open() { state.withLock { $0.open = true } }
    public var isOpen: Bool { state.withLock { $0.open } }
    /// The requests whose replies were held here, in arrival order (including ones let through since).
    public var held: [RecordedRequest] { state.withLock { $0.held } }

    func hold(_ request: RecordedRequest) { state.withLock { $0.held.append(request) } }
}
