import Foundation
package import Logging

/// A bounded set of connections shared by concurrent tasks. Each task borrows one connection for the length
/// of a closure; broken connections (a restarted server, `pg_terminate_backend`) are dropped and replaced.
package actor PostgresPool {
    package nonisolated let configuration: PostgresConfiguration
    package nonisolated let maxConnections: Int
    /// How long a task may wait for a free connection before failing.
    package nonisolated let acquireTimeout: Double
    private let logger: Logger

    private var idle: [PostgresConnection] = []
    private var openCount = 0
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<PostgresConnection?, any Error>)] = []
    private var nextWaiterID: UInt64 = 0
    private var isShutDown = false

    package init(
        configuration: PostgresConfiguration,
        maxConnections: Int = 8,
        acquireTimeout: Double = 30,
        logger: Logger = Logger(label: "messageai.postgres.pool")
    ) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.configuration = configuration
        self.maxConnections = maxConnections
        self.acquireTimeout = acquireTimeout
        self.logger = logger
    }

    /// Lends a connection to `body` and takes it back afterwards, whatever happens.
    @discardableResult
    package nonisolated func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await acquire()
        do {
            let value = try await body(connection)
            await release(connection)
            return value
        } catch {
            await release(connection)
            throw error
        }
    }

    /// Runs `body` in a transaction on a pooled connection (see `PostgresConnection.transaction`).
    @discardableResult
    package nonisolated func transaction<T: Sendable>(
        isolation: PostgresIsolation = .readCommitted,
        retries: Int = 0,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection { connection in
            try await connection.transaction(isolation: isolation, retries: retries, body)
        }
    }

    /// A one-statement convenience.
    @discardableResult
    package nonisolated func query(_ sql: String, _ binds: [any PostgresEncodable] = []) async throws -> PostgresRows {
        try await withConnection { try await $0.query(sql, binds) }
    }

    /// Closes idle connections now and the others as they come back.
    package func shutdown() {
        isShutDown = true
        for connection in idle { connection.close() }
        openCount -= idle.count
        idle.removeAll()
        for waiter in waiters {
            waiter.continuation.resume(throwing: PostgresError(kind: .usage, message: "the connection pool was shut down"))
        }
        waiters.removeAll()
    }

    /// Connections currently open (idle or lent), for tests and metrics.
    package var openConnections: Int { openCount }

    // MARK: - Internals

    private nonisolated func acquire() async throws -> PostgresConnection {
        while true {
            guard let reserved = try await reserve() else {
                // A slot is ours: open a new connection outside the actor.
                do {
                    return try await PostgresConnection.connect(configuration, logger: logger)
                } catch {
                    await slotFreed()
                    throw error
                }
            }
            if reserved.isUsable { return reserved }
            logger.info("dropping a broken pooled connection")
            reserved.close()
            await slotFreed()
            // The slot is free again: try once more, which will open a fresh connection.
        }
    }

    /// An idle connection, or nil meaning "a slot is reserved for you: open one".
    private func reserve() async throws -> PostgresConnection? {
        if isShutDown { throw PostgresError(kind: .usage, message: "the connection pool was shut down") }
        if let connection = idle.popLast() { return connection }
        if openCount < maxConnections {
            openCount += 1
            return nil
        }
        nextWaiterID += 1
        let id = nextWaiterID
        let timeout = acquireTimeout
        let maximum = maxConnections
        return try await withCheckedThrowingContinuation { continuation in
            waiters.append((id, continuation))
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(timeout))
                await self?.expireWaiter(id, maxConnections: maximum)
            }
        }
    }

    private func expireWaiter(_ id: UInt64, maxConnections: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        let waiter = waiters.remove(at: index)
        waiter.continuation.resume(throwing: PostgresError(
            kind: .usage, message: "timed out after \(acquireTimeout)s waiting for one of \(maxConnections) database connections"))
    }

    private func release(_ connection: PostgresConnection) async {
        if isShutDown || !connection.isReusable {
            connection.close()
            slotFreed()
            return
        }
        if !waiters.isEmpty {
            waiters.removeFirst().continuation.resume(returning: connection)
        } else {
            idle.append(connection)
        }
    }

    /// A connection went away: hand its slot to a waiter (who opens a new one) or shrink.
    private func slotFreed() {
        if !waiters.isEmpty, !isShutDown {
            waiters.removeFirst().continuation.resume(returning: nil)
        } else {
            openCount -= 1
        }
    }
}
