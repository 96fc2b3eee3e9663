package import Foundation
package import Postgres

/// A throwaway PostgreSQL server of a test's own (initdb in a temporary directory, its own port and socket), for
/// faults no shared server may suffer: a restart in the middle of a scan. Like `scripts/local-db`, it runs the
/// server binaries as the `postgres` user when the tests run as root (initdb refuses root).
package final class PrivatePostgresCluster: Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package let port: Int
    package let directory: URL
    private let binaries: URL

    private var dataDirectory: URL { directory.appendingPathComponent("data") }
    private var socketDirectory: URL { directory.appendingPathComponent("run") }
    private var logFile: URL { directory.appendingPathComponent("server.log") }

    /// Trust authentication on loopback, user `postgres`.
    package func connectionString(database: String = "postgres") -> String {
        "postgresql://postgres@127.0.0.1:\(port)/\(database)"
    }

    private init(port: Int, directory: URL, binaries: URL) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
    }

    /// Initialises and starts a new cluster (about a second).
    package static func start() async throws -> PrivatePostgresCluster {
        let binaries = try findBinaries()
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("pgfault-\(UUID().uuidString.prefix(8).lowercased())")
        let cluster = PrivatePostgresCluster(port: try FreePort.find(), directory: directory, binaries: binaries)
        do {
            try FileManager.default.createDirectory(at: cluster.dataDirectory, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: cluster.socketDirectory, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: cluster.logFile.path, contents: nil)
            if isRoot { try await run(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres", directory.path], asOwner: false) }
            try await cluster.server("initdb", ["-D", cluster.dataDirectory.path, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"])
            try await cluster.startServer()
        } catch {
            await cluster.destroy()
            throw error
        }
        return cluster
    }

    /// Runs `body` with a new cluster and always destroys it afterwards.
    package static func with<T: Sendable>(_ body: (PrivatePostgresCluster) async throws -> T) async throws -> T {
        let cluster = try await start()
        do {
            let value = try await body(cluster)
            await cluster.destroy()
            return value
        } catch {
            await cluster.destroy()
            throw error
        }
    }

    /// Creates a database, with the app's and the service's tables unless `migrate` is false, and returns where it is.
    package func createDatabase(_ name: String, migrate: Bool = true) async throws -> PostgresConfiguration {
        let admin = try await PostgresConnection.connect(PostgresConfiguration(connectionString: connectionString()))
        defer { admin.close() }
        try await admin.query("CREATE DATABASE \"\(name)\"")
        let configuration = PostgresConfiguration(connectionString: connectionString(database: name))
        if migrate {
            let pool = PostgresPool(configuration: configuration, maxConnections: 1)
            do {
                try await Migrator(pool: pool).migrate([MigrationSet.dev(), MigrationSet.service()])
                await pool.shutdown()
            } catch {
                await pool.shutdown()
                throw error
            }
        }
        return configuration
    }

    /// Stops the server the way an operator's restart does (`-m fast`: sessions are terminated, transactions rolled
    /// back), then starts it again on the same port.
    package func restart() async throws {
        try await server("pg_ctl", ["-D", dataDirectory.path, "-m", "fast", "-w", "-t", "30", "stop"])
        try await startServer()
    }

    /// Stops the server at once, as a crash or a lost machine would (`-m immediate`); `startAgain()` brings it back.
    package func stop() async throws {
        try await server("pg_ctl", ["-D", dataDirectory.path, "-m", "immediate", "-w", "-t", "30", "stop"])
    }

    /// Starts the server again on the same port after `stop()`.
    package func startAgain() async throws {
        try await startServer()
    }

    /// Stops the server at once and deletes its files. Never throws: it runs on every path out of a test.
    package func destroy() async {
        _ = try? await server("pg_ctl", ["-D", dataDirectory.path, "-m", "immediate", "-w", "-t", "30", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    private func startServer() async throws {
        let options = "-p \(port) -k \(socketDirectory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40"
        try await server("pg_ctl", ["-D", dataDirectory.path, "-l", logFile.path, "-w", "-t", "30", "-o", options, "start"])
    }

    private func server(_ tool: String, _ arguments: [String]) async throws {
        do {
            try await Self.run(binaries.appendingPathComponent(tool), arguments, asOwner: Self.isRoot)
        } catch let failure as Failure {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw Failure(description: failure.description + (log.isEmpty ? "" : "\nserver log:\n" + log.suffix(2000)))
        }
    }

    private static var isRoot: Bool { getuid() == 0 }

    /// Runs a server tool through a shell that first closes every inherited descriptor above stderr: Foundation's
    /// `Process` learns that a child ended when a socket the child inherited closes, and the server that `pg_ctl start`
    /// leaves running would otherwise hold that socket (and any other test's) open for as long as it lives.
    private static func run(_ executable: URL, _ arguments: [String], asOwner: Bool) async throws {
        let command = asOwner ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable.path] + arguments : [executable.path] + arguments
        let closeInherited = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ] 2>/dev/null; then eval "exec $n>&-"; fi; done; exec "$@""#
        let (program, fullArguments) = (URL(fileURLWithPath: "/bin/bash"), ["-c", closeInherited, "bash"] + command)
        var environment = SpawnedProcess.inheritedEnvironment()
        environment["LC_ALL"] = "C.UTF-8"
        let result = try await SpawnedProcess.run(program, arguments: fullArguments, environment: environment, timeout: 60)
        guard result.termination == .exit(0) else {
            throw Failure(description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed (\(result.termination)): \(result.stderr)\(result.stdout)")
        }
    }

    /// The newest installed server's binaries, e.g. /usr/lib/postgresql/15/bin.
    private static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw Failure(description: "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin: apt-get install -y postgresql")
    }
}
