package import Foundation
import NIOConcurrencyHelpers

/// Stops asking a model server that is down, and only then: it opens on the server's state, not on a few requests
/// the server fails. With no answer in between, it opens when `threshold` attempts in a row could not connect
/// (refused, reset: nothing reached the server, whatever was asked), or when attempts failed with a 5xx or a timeout
/// (which a server that is up can give some requests) for `calls` different calls that began after its last answer,
/// or for `quietPeriod` since the first of them. So a server that answers half the conversations and fails the others
/// keeps being asked (its answers reset the count), while a full outage is stopped within seconds. Open, every attempt
/// fails at once with `LLMError.serverUnavailable`. After `cooldown` one attempt is let through as a probe
/// (half-open): an answer closes the breaker, a failure opens it again for twice as long (at most `maxCooldown`). Any
/// answer below 500 (a 4xx, a 429) proves the server is up and resets the count.
///
/// One breaker per server for the whole process (`shared(for:)`), like `ServerConcurrencyLimit`: the scan's
/// extractors, its proactive pass and the worker's requests all see the same outage.
package final class CircuitBreaker: Sendable {
    package enum State: Sendable, Equatable {
        case closed
        /// Failing fast until `until`; then one probe is let through.
        case open(until: ContinuousClock.Instant)
        /// A probe is on the wire; other attempts fail fast until it ends.
        case halfOpen
    }

    /// What the breaker knows of an outage, for errors, summaries and run records.
    package struct Outage: Sendable, Equatable, CustomStringConvertible {
        /// The server, without credentials (`http://127.0.0.1:8080/v1`).
        package let server: String
        /// Attempts in a row that failed before the breaker opened (or reopened).
        package let failures: Int
        /// The last failure, as the client described it.
        package let lastError: String
        /// When the next probe may go out.
        package let probeAt: ContinuousClock.Instant

        package var description: String {
            "the model server \(server) is unavailable: \(failures) requests in a row failed (circuit breaker open); last error: \(lastError)"
        }
    }

    /// One call (all the attempts of one request) as the breaker counts it: its retries are one call, and a call
    /// that began before the server's last answer is no evidence about the server since.
    package struct Call: Sendable {
        let id: UInt64
        let started: ContinuousClock.Instant
    }

    /// How an attempt failed, as evidence about the server.
    enum FailureKind: Sendable {
        /// Nothing reached the server (refused, reset, unreachable): the whole server's state.
        case connection
        /// A 5xx or a timeout: a server that is up may give these to some requests and answer others.
        case answer
    }

    package let server: String
    package let threshold: Int
    package let calls: Int
    package let quietPeriod: Duration
    package let cooldown: Duration
    let maxCooldown: Duration

    private struct Box {
        var state = State.closed
        var consecutiveFailures = 0
        /// Of those, failures to connect in a row.
        var connectionFailures = 0
        /// Calls begun after the last answer that have failed since it (at most `calls` are kept).
        var failedCalls: Set<UInt64> = []
        /// The first failure since the last answer.
        var failingSince: ContinuousClock.Instant?
        var lastAnswer: ContinuousClock.Instant?
        var nextCall: UInt64 = 0
        var currentCooldown: Duration
        var outage: Outage?
        /// Attempts refused while open or half-open.
        var refused = 0
    }

    private let box: NIOLockedValueBox<Box>

    /// The default threshold: a call's own retries (4 attempts) cannot open it alone; a fifth failure in a row can.
    static let defaultThreshold = 5
    /// Calls failing with 5xx or timeouts, with no answer in between, that open the breaker: when half of a night's
    /// conversations fail, 20 of them in a row come about once in a million, while a full outage of a scan with 4
    /// conversations at a time reaches 20 in about 5 seconds.
    package static let defaultCalls = 20
    /// How long a server may fail requests with no answer before the breaker opens, whatever the number of calls (a
    /// hung server whose every request times out).
    static let defaultQuietPeriod: Duration = .seconds(30)
    static let defaultCooldown: Duration = .seconds(30)

    package init(server: String, threshold: Int = CircuitBreaker.defaultThreshold, calls: Int = CircuitBreaker.defaultCalls,
                quietPeriod: Duration = CircuitBreaker.defaultQuietPeriod, cooldown: Duration = CircuitBreaker.defaultCooldown,
                maxCooldown: Duration = .seconds(300)) {
        self.server = server
        self.threshold = max(1, threshold)
        self.calls = max(1, calls)
        self.quietPeriod = quietPeriod
        self.cooldown = cooldown
        self.maxCooldown = max(cooldown, maxCooldown)
        box = NIOLockedValueBox(Box(currentCooldown: cooldown))
    }

    package var state: State { box.withLockedValue { $0.state } }
    /// Open or half-open: attempts are refused (except the one probe).
    package var isOpen: Bool { box.withLockedValue { $0.state != .closed } }
    /// The outage while the breaker is open or half-open; nil while it is closed.
    package var outage: Outage? { box.withLockedValue { $0.state == .closed ? nil : $0.outage } }
    /// Attempts refused so far (never sent).
    package var refused: Int { box.withLockedValue { $0.refused } }
    /// When the server last answered (any status below 500); nil if it never has in this process.
    package var lastAnswer: ContinuousClock.Instant? { box.withLockedValue { $0.lastAnswer } }

    /// A new call, to pass with each of its attempts.
    package func call(now: ContinuousClock.Instant = .now) -> Call {
        box.withLockedValue { box in
            box.nextCall += 1
            return Call(id: box.nextCall, started: now)
        }
    }

    /// Sends `request` through `transport` unless the breaker refuses it (throws `LLMError.serverUnavailable`), and
    /// counts the outcome for `call` (nil: the attempt is a call of its own). Cancellation counts as neither success
    /// nor failure. `admitted` runs once the attempt is let through, just before it goes on the wire. `describe` says
    /// what a 5xx answer was for the outage's last error (by default its status; a caller that can redact the body
    /// adds an excerpt of it).
    package func send(_ request: HTTPRequest, via transport: any HTTPTransport, call: Call? = nil,
                      describe: (HTTPResponse) -> String = { "HTTP \($0.status)" },
                      admitted: () -> Void = {}) async throws -> HTTPResponse {
        let call = call ?? self.call()
        let probe = try admit()
        admitted()
        do {
            let response = try await transport.send(request)
            if response.status >= 500 {
                failed(describe(response), kind: .answer, call: call, probe: probe)
            } else {
                succeeded()
            }
            return response
        } catch {
            if Task.isCancelled || error is CancellationError || (error as? TransportError) == .cancelled {
                abandoned(probe: probe)
            } else if case TransportError.responseTooLarge = error {
                succeeded()  // the server answered
            } else if case TransportError.timedOut = error {
                failed(String(describing: error), kind: .answer, call: call, probe: probe)
            } else {
                failed(String(describing: error), kind: .connection, call: call, probe: probe)
            }
            throw error
        }
    }

    /// Lets an attempt through (returning whether it is the half-open probe) or throws `LLMError.serverUnavailable`.
    func admit(now: ContinuousClock.Instant = .now) throws(LLMError) -> Bool {
        let refusal: Outage? = box.withLockedValue { box in
            switch box.state {
            case .closed:
                return nil
            case .open(let until) where now >= until:
                box.state = .halfOpen
                return nil
            case .open, .halfOpen:
                box.refused += 1
                return box.outage ?? Outage(server: server, failures: box.consecutiveFailures, lastError: "unknown", probeAt: now)
            }
        }
        if let refusal { throw .serverUnavailable(refusal) }
        return box.withLockedValue { $0.state == .halfOpen }
    }

    func succeeded(now: ContinuousClock.Instant = .now) {
        box.withLockedValue { box in
            box.state = .closed
            box.consecutiveFailures = 0
            box.connectionFailures = 0
            box.failedCalls = []
            box.failingSince = nil
            box.lastAnswer = now
            box.currentCooldown = cooldown
            box.outage = nil
        }
    }

    func failed(_ why: String, kind: FailureKind = .connection, call: Call? = nil, probe: Bool, now: ContinuousClock.Instant = .now) {
        box.withLockedValue { box in
            box.consecutiveFailures += 1
            box.connectionFailures = kind == .connection ? box.connectionFailures + 1 : 0
            if box.failingSince == nil { box.failingSince = now }
            if let call, box.lastAnswer.map({ call.started > $0 }) ?? true, box.failedCalls.count < calls {
                box.failedCalls.insert(call.id)
            }
            let last = String(why.prefix(300))
            if probe || box.state == .halfOpen {
                box.currentCooldown = min(box.currentCooldown * 2, maxCooldown)
                box.state = .open(until: now + box.currentCooldown)
            } else if box.consecutiveFailures >= threshold, box.connectionFailures >= threshold || box.failedCalls.count >= calls
                        || box.failingSince.map({ now - $0 >= quietPeriod }) == true {
                if case .open = box.state {} else { box.state = .open(until: now + box.currentCooldown) }
            } else {
                return
            }
            let until = if case .open(let until) = box.state { until } else { now }
            box.outage = Outage(server: server, failures: box.consecutiveFailures, lastError: last, probeAt: until)
        }
    }

    /// A probe that ended without an outcome (cancelled): the next attempt may probe at once.
    private func abandoned(probe: Bool) {
        guard probe else { return }
        box.withLockedValue { box in
            if box.state == .halfOpen { box.state = .open(until: .now) }
        }
    }

    private static let registry = NIOLockedValueBox([String: CircuitBreaker]())

    /// The process's one breaker for the server at `baseURL`.
    package static func shared(for baseURL: URL) -> CircuitBreaker {
        let key = baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        return registry.withLockedValue { breakers in
            if let existing = breakers[key] { return existing }
            let created = CircuitBreaker(server: TransportErrorText.server(baseURL))
            breakers[key] = created
            return created
        }
    }
}
