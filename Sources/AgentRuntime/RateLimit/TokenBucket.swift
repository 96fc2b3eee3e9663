/// A budget that refills continuously up to `capacity` over a minute. Taking more than is left drives the level
/// below zero: the debt is a reservation of future capacity, and its size says how long the taker must wait.
/// Waiters are therefore served in the order they asked, without waking up to compete.
struct TokenBucket: Sendable, Hashable {
    let capacity: Double
    let refillPerSecond: Double
    private(set) var level: Double
    private var updatedAt: Duration

    init(perMinute: Int, now: Duration) {
        capacity = Double(max(1, perMinute))
        refillPerSecond = capacity / 60
        level = capacity
        updatedAt = now
    }

    mutating func refill(to now: Duration) {
        guard now > updatedAt else { return }
        level = min(capacity, level + (now - updatedAt).seconds * refillPerSecond)
        updatedAt = now
    }

    /// Reserves `amount` (at most the capacity, so an oversized request waits for a full bucket rather than
    /// forever) and returns the wait until the reservation is covered.
    mutating func take(_ amount: Double, now: Duration) -> Duration {
        refill(to: now)
        level -= min(amount, capacity)
        return level >= 0 ? .zero : .milliseconds(ofSeconds: -level / refillPerSecond, rounding: .up)
    }

    /// Returns capacity (a cancelled reservation, an over-estimate); a negative amount charges more.
    mutating func give(_ amount: Double, now: Duration) {
        refill(to: now)
        level = min(capacity, level + amount)
    }

    /// The server knows better: never believe more is left than it says.
    mutating func cap(atMost remaining: Int, now: Duration) {
        refill(to: now)
        level = min(level, Double(max(0, remaining)))
    }
}
