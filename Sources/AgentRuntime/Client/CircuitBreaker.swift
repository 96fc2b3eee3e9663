package import Foundation
import NIOConcurrencyHelpers

/// Stops asking a model server that is down. After `threshold` attempts in a row fail below HTTP (refused, reset,
/// timed out) or with a 5xx, the breaker opens: every attempt fails at once with `LLMError.serverUnavailable`, so an
/// outage costs a few requests instead of every retry of every conversation. After `cooldown` one attempt is let
/// through as a probe (half-open): an answer closes the breaker, a failure opens it again for twice as long (at most
/// `maxCooldown`). Any answer below 500 (a 4xx, a 429) proves the server is up and resets the count.
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

    package let server: String
    package let threshold: Int
    package let cooldown: Duration
    package let maxCooldown: Duration

    private struct Box {
        var state = State.closed
        var consecutiveFailures = 0
        var currentCooldown: Duration
        var outage: Outage?
        /// Attempts refused while open or half-open.
        var refused = 0
    }

    private let box: NIOLockedValueBox<Box>

    /// The default threshold: a call's own retries (4 attempts) cannot open it alone; a fifth failure in a row can.
    package static let defaultThreshold = 5
    package static let defaultCooldown: Duration = .seconds(30)

    package init(server: String, threshold: Int = CircuitBreaker.defaultThreshold, cooldown: Duration = CircuitBreaker.defaultCooldown,
                maxCooldown: Duration = .seconds(300)) {
        self.server = server
        self.threshold = max(1, threshold)
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

    /// Sends `request` through `transport` unless the breaker refuses it (throws `LLMError.serverUnavailable`), and
    /// counts the outcome. Cancellation counts as neither success nor failure. `admitted` runs once the attempt is let
    /// through, just before it goes on the wire.
    package func send(_ request: HTTPRequest, via transport: any HTTPTransport, admitted: () -> Void = {}) async throws -> HTTPResponse {
        let probe = try admit()
        admitted()
        do {
            let response = try await transport.send(request)
            if response.status >= 500 {
                failed("HTTP \(response.status)", probe: probe)
            } else {
                succeeded()
            }
            return response
        } catch {
            if Task.isCancelled || error is CancellationError || (error as? TransportError) == .cancelled {
                abandoned(probe: probe)
            } else if case TransportError.responseTooLarge = error {
                succeeded()  // the server answered
            } else {
                failed(String(describing: error), probe: probe)
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

    func succeeded() {
        box.withLockedValue { box in
            box.state = .closed
            box.consecutiveFailures = 0
            box.currentCooldown = cooldown
            box.outage = nil
        }
    }

    func failed(_ why: String, probe: Bool, now: ContinuousClock.Instant = .now) {
        box.withLockedValue { box in
            box.consecutiveFailures += 1
            let last = String(why.prefix(300))
            if probe || box.state == .halfOpen {
                box.currentCooldown = min(box.currentCooldown * 2, maxCooldown)
                box.state = .open(until: now + box.currentCooldown)
            } else if box.consecutiveFailures >= threshold {
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
