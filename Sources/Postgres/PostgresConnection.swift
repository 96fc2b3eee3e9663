import CLibPQ
import Dispatch
import Foundation
import Glibc
package import Logging

/// One libpq connection. It serves one statement at a time: blocking libpq calls run on the connection's own
/// serial queue so they never block Swift's cooperative thread pool. Share connections through `PostgresPool`.
package final class PostgresConnection: @unchecked Sendable {
    // All access to `handle` happens on `queue`; that serialization is what makes the unchecked Sendable sound.
    private let handle: OpaquePointer
    private let cancelHandle: OpaquePointer?
    private let queue: DispatchQueue
    private var isClosed = false
    let configuration: PostgresConfiguration
    let logger: Logger

    private init(handle: OpaquePointer, configuration: PostgresConfiguration, logger: Logger) {
        self.handle = handle
        self.cancelHandle = PQgetCancel(handle)
        self.configuration = configuration
        self.logger = logger
        self.queue = DispatchQueue(label: "messageai.postgres.connection")
    }

    deinit {
        if let cancelHandle { PQfreeCancel(cancelHandle) }
        if !isClosed { PQfinish(handle) }
    }

    /// Opens a connection. Fails with a `.connection` error that names host, port and database, never the password.
    package static func connect(
        _ configuration: PostgresConfiguration,
        logger: Logger = Logger(label: "messageai.postgres")
    ) async throws -> PostgresConnection {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PostgresConnection, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try openBlocking(configuration, logger: logger) })
            }
        }
    }

    private static func openBlocking(_ configuration: PostgresConfiguration, logger: Logger) throws -> PostgresConnection {
        // Keywords override what the connection string says only where it says nothing (expand_dbname).
        var keywords = ["dbname", "connect_timeout", "fallback_application_name", "client_encoding"]
        var values = [configuration.connectionString, String(configuration.connectTimeout), configuration.applicationName, "UTF8"]
        if let options = configuration.options {
            keywords.append("options")
            values.append(options)
        }
        let handle: OpaquePointer? = withCStringArray(keywords) { keywordPointers in
            withCStringArray(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let handle else {
            throw PostgresError(kind: .connection, message: "could not allocate a libpq connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let target = describeTarget(handle)
            let reason = configuration.redact(lastError(handle))
            PQfinish(handle)
            throw PostgresError(kind: .connection, message: "could not connect to \(target): \(reason)")
        }
        // Server NOTICEs ("relation already exists, skipping") are not errors; keep them off stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        do {
            try applyBounds(configuration, on: handle)
        } catch {
            PQfinish(handle)
            throw error
        }
        let connection = PostgresConnection(handle: handle, configuration: configuration, logger: logger)
        logger.debug("connected", metadata: ["target": "\(describeTarget(handle))"])
        return connection
    }

    /// Sets the session's lock and statement timeouts, so every statement run on this connection is bounded.
    private static func applyBounds(_ configuration: PostgresConfiguration, on handle: OpaquePointer) throws {
        var settings: [(String, String)] = []
        if let seconds = configuration.lockTimeout { settings.append(("lock_timeout", Duration.seconds(seconds).postgresMilliseconds)) }
        if let seconds = configuration.statementTimeout { settings.append(("statement_timeout", Duration.seconds(seconds).postgresMilliseconds)) }
        for (name, value) in settings {
            let sql = "SELECT set_config($1, $2, false)"
            let result = withOptionalCStringArray([name, value]) { PQexecParams(handle, sql, 2, nil, $0, nil, nil, 0) }
            defer { if let result { PQclear(result) } }
            guard let result, PQresultStatus(result) == PGRES_TUPLES_OK else {
                throw PostgresError(kind: .connection, message: "could not set \(name) on \(describeTarget(handle)): "
                                    + configuration.redact(lastError(handle)))
            }
        }
    }

    /// "host 127.0.0.1 port 5432 database app" for messages; libpq fills in defaults and PG* variables.
    static func describeTarget(_ handle: OpaquePointer) -> String {
        func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "?" }
        let host = text(PQhost(handle))
        let hostText = host.hasPrefix("/") ? "socket \(host)" : "host \(host)"
        return "\(hostText) port \(text(PQport(handle))) database \(text(PQdb(handle)))"
    }

    static func lastError(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Where this connection goes, without credentials.
    package var target: String { queue.sync { Self.describeTarget(handle) } }

    /// "host:port/database" (a socket directory in place of the host), without credentials: for one-line messages.
    package var address: String {
        queue.sync {
            func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "?" }
            return "\(text(PQhost(handle))):\(text(PQport(handle)))/\(text(PQdb(handle)))"
        }
    }

    /// The server process id serving this connection (for pg_terminate_backend in tests and diagnostics).
    package var backendPID: Int32 { queue.sync { PQbackendPID(handle) } }

    /// False once the socket broke or the connection was closed; the pool replaces such connections.
    var isUsable: Bool {
        queue.sync {
            guard !isClosed else { return false }
            // An idle connection has nothing to read. If the socket is readable, the server sent something
            // (a termination notice, then EOF): read until it is drained so a dead socket shows up now.
            for _ in 0..<4 {
                var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 0) > 0 else { break }
                if PQconsumeInput(handle) == 0 { return false }
            }
            return PQstatus(handle) == CONNECTION_OK
        }
    }

    /// Usable and outside any transaction: safe to hand to the next borrower.
    var isReusable: Bool {
        isUsable && queue.sync { PQtransactionStatus(handle) == PQTRANS_IDLE }
    }

    package func close() {
        queue.sync {
            guard !isClosed else { return }
            isClosed = true
            PQfinish(handle)
        }
    }

    // MARK: - Statements

    /// Runs one parameterized statement (`$1`, `$2`...) and returns its rows. Values are sent separately from
    /// the SQL text, so no value can change the statement.
    @discardableResult
    package func query(_ sql: String, _ binds: [any PostgresEncodable] = []) async throws -> PostgresRows {
        let texts = binds.map { $0.postgresText }
        // Byte-wise: cheap (no bridging through NSString), and a NUL followed by a combining mark is found too, where
        // a character-wise search would let it through to be cut off by libpq.
        if let index = texts.firstIndex(where: { $0?.utf8.contains(0) ?? false }) {
            throw PostgresError(kind: .usage, message: "parameter $\(index + 1) contains a NUL character, which Postgres text cannot store")
        }
        return try await run(sql: sql) { handle in
            withOptionalCStringArray(texts) { values in
                PQexecParams(handle, sql, Int32(texts.count), nil, values, nil, nil, 0)
            }
        }
    }

    /// Runs SQL text with no parameters, possibly several statements (migrations). Never pass user data here.
    package func execute(script sql: String) async throws {
        _ = try await run(sql: sql) { handle in PQexec(handle, sql) }
    }

    private func run(sql: String, _ body: @escaping @Sendable (OpaquePointer) -> OpaquePointer?) async throws -> PostgresRows {
        try Task.checkCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PostgresRows, any Error>) in
                queue.async { [self] in
                    continuation.resume(with: Result { try runBlocking(sql: sql, body) })
                }
            }
        } onCancel: {
            cancelRunningStatement()
        }
    }

    private func runBlocking(sql: String, _ body: (OpaquePointer) -> OpaquePointer?) throws -> PostgresRows {
        guard !isClosed else { throw PostgresError(kind: .usage, message: "the connection is closed") }
        let result = body(handle)
        defer { if let result { PQclear(result) } }
        guard let result else {
            var error = PostgresError(kind: .connection, message: configuration.redact(Self.lastError(handle)))
            error.statement = Self.abbreviate(sql)
            throw error
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(result: result)
        default:
            var error = Self.serverError(result, handle: handle)
            error.statement = Self.abbreviate(sql)
            if PQstatus(handle) != CONNECTION_OK {
                error = PostgresError(kind: .connection, message: error.message, sqlState: error.sqlState)
                error.statement = Self.abbreviate(sql)
            }
            throw error
        }
    }

    private static func serverError(_ result: OpaquePointer, handle: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let message = field("M") ?? lastError(handle)
        var error = PostgresError(kind: .server, message: message, sqlState: field("C").map(SQLState.init(rawValue:)))
        error.detail = field("D")
        error.hint = field("H")
        error.constraint = field("n")
        error.table = field("t")
        error.column = field("c")
        return error
    }

    static func abbreviate(_ sql: String) -> String {
        let collapsed = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return collapsed.count > 160 ? String(collapsed.prefix(157)) + "..." : collapsed
    }

    /// Asks the server to cancel the statement in flight (called from another thread on task cancellation).
    private func cancelRunningStatement() {
        guard let cancelHandle else { return }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancelHandle, &buffer, Int32(buffer.count))
    }

    // MARK: - Used by notifications

    /// Runs a blocking body on the connection's queue with the raw handle.
    func withHandle<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async { [self] in
                guard !isClosed else {
                    continuation.resume(throwing: PostgresError(kind: .usage, message: "the connection is closed"))
                    return
                }
                continuation.resume(with: Result { try body(handle) })
            }
        }
    }
}

// MARK: - C string arrays

func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicates: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer { duplicates.forEach { free($0) } }
    let constants = duplicates.map { UnsafePointer($0) }
    return constants.withUnsafeBufferPointer { body($0.baseAddress!) }
}

func withOptionalCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    if strings.isEmpty { return body(nil) }
    let duplicates: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
    defer { duplicates.forEach { free($0) } }
    let constants = duplicates.map { UnsafePointer($0) }
    return constants.withUnsafeBufferPointer { body($0.baseAddress!) }
}
