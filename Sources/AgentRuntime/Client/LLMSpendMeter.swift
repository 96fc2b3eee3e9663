import NIOConcurrencyHelpers

/// Counts what a job asked of the model server — every HTTP attempt, failed ones and retries included, and the
/// tokens of every answer, rejected ones included — so its record is true even when the job fails half-way.
/// `OpenAIClient` adds to the meter bound to the task (`LLMSpendMeter.$current`); child tasks share it.
package final class LLMSpendMeter: Sendable {
    @TaskLocal package static var current: LLMSpendMeter?

    private let state = NIOLockedValueBox((attempts: 0, usage: Usage.zero, sent: 0))

    package init() {}

    /// Adds one call's attempts and, when it was answered, its usage.
    package func add(attempts: Int, usage: Usage?) {
        state.withLockedValue { state in
            state.attempts += attempts
            if let usage { state.usage += usage }
        }
    }

    /// Counts one attempt as it goes on the wire, before any answer: a process stopped while it waits still knows
    /// it asked (and probably paid for) one more request.
    func noteSent() {
        state.withLockedValue { $0.sent += 1 }
    }

    /// HTTP attempts so far.
    package var attempts: Int { state.withLockedValue { $0.attempts } }
    /// Attempts sent so far, answered or not.
    package var sent: Int { state.withLockedValue { $0.sent } }
    /// Attempts on the wire whose outcome is not counted yet: their tokens are unknown.
    package var inFlight: Int { state.withLockedValue { max(0, $0.sent - $0.attempts) } }
    /// Tokens reported so far.
    package var usage: Usage { state.withLockedValue { $0.usage } }

    /// Runs `body` with a fresh meter bound to it and returns the meter with the body's result.
    static func measuring<T: Sendable>(_ body: () async throws -> T) async rethrows -> (value: T, meter: LLMSpendMeter) {
        let meter = LLMSpendMeter()
        let value = try await $current.withValue(meter) { try await body() }
        return (value, meter)
    }
}
