/// How many reminders one run may still create. An actor because the agent runs tool calls in parallel:
/// a slot is reserved before the insert and given back when nothing was inserted, so parallel calls can never
/// overshoot the limit.
package actor ReminderBudget {
    package nonisolated let limit: Int
    private var used = 0

    package init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Takes one slot; false when none is left.
    package func reserve() -> Bool {
        guard used < limit else { return false }
        used += 1
        return true
    }

    /// Returns a slot reserved for a creation that did not happen (a duplicate, a failed insert).
    package func release() {
        used = max(0, used - 1)
    }

    package var remaining: Int { limit - used }
}
