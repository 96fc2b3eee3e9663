import Core
import Foundation
import Logging
import Postgres

/// LISTENs on a dedicated connection (waiting occupies it, so it is never a pooled one) and rings the worker's
/// doorbell on every notification. A broken connection is reopened; the doorbell is rung after each reconnect
/// because notifications sent meanwhile are lost (the worker's poll would find their rows anyway).
struct NotificationListener: Sendable {
    let configuration: PostgresConfiguration
    let channel: String
    let control: WorkerControl
    /// Told of every completed wait and every failure: the health endpoint's view of the LISTEN connection.
    let health: WorkerHealth
    let metrics: WorkerMetrics
    let logger: Logger

    /// Reconnecting after a failure: 0.5 s doubling up to 2 s, for as long as the worker runs. A connection attempt to
    /// a database that is down costs next to nothing, and a longer wait kept `/healthz` failing for up to 30 s after
    /// the database was back and requests were already served (issue 47).
    static let reconnect = RetryPolicy(maxAttempts: .max, baseDelay: .milliseconds(500), maxDelay: .seconds(2))

    /// Connects and subscribes; throws when the database cannot be reached, so a misconfigured worker fails at start.
    func connect() async throws -> PostgresConnection {
        let connection = try await PostgresConnection.connect(configuration, logger: logger)
        do {
            try await connection.listen(channel)
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Serves notifications until cancelled, then closes the connection.
    func run(_ first: PostgresConnection) async {
        await health.listenerAlive()
        var connection: PostgresConnection? = first
        var failures = 0
        while !Task.isCancelled {
            do {
                guard let current = connection else {
                    let reopened = try await connect()
                    connection = reopened
                    await health.listenerAlive()
                    failures = 0
                    logger.notice("listening on '\(channel)' again")
                    await control.ring()
                    continue
                }
                let notification = try await current.waitForNotification(timeout: 5)
                await health.listenerAlive()
                if notification != nil {
                    metrics.notified()
                    await control.notified()
                }
            } catch is CancellationError {
                break
            } catch {
                if Task.isCancelled { break }
                await health.listenerDown("\(error)")
                failures += 1
                let wait = Self.reconnect.delay(afterAttempt: failures)
                logger.warning("LISTEN connection failed; reconnecting in \(wait.seconds) s (polling continues): \(error)")
                connection?.close()
                connection = nil
                try? await Task.sleep(for: wait)
            }
        }
        connection?.close()
    }
}
