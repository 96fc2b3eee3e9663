public import ArgumentParser  // public: UUID (Foundation) is public, so its conformance below is too.
public import Foundation
import JobsKit
import Postgres
import JobsCLI

/// Ids are parsed once, by the argument parser: a malformed id is a usage error naming the flag (exit code 64),
/// and the commands receive a `UUID`, never a string to force-unwrap.
extension UUID: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        self.init(uuidString: argument)
    }

    public var defaultValueDescription: String { uuidString.lowercased() }
}

/// `--user`: `demo` for the demo's parent, a whole UUID, or its first characters (at least 4) like every other id
/// argument; anything else is a usage error (exit 64). A prefix is resolved against `users` when the command runs.
enum UserArgument: ExpressibleByArgument, Sendable {
    case demo
    case prefix(IDPrefix)

    init?(argument: String) {
        if argument == "demo" {
            self = .demo
        } else if let prefix = IDPrefix(argument) {
            self = .prefix(prefix)
        } else {
            return nil
        }
    }

    /// The id without a query: the demo parent's, or a whole UUID; nil for a prefix.
    var knownID: UUID? {
        switch self {
        case .demo: DemoDataset.make(now: Date()).mainUserID
        case .prefix(let prefix): prefix.uuid
        }
    }

    /// The user's whole id: a prefix must match exactly one row of `users` (else not found, exit 3, or ambiguous).
    func resolve(pool: PostgresPool) async throws -> UUID {
        if let knownID { return knownID }
        guard case .prefix(let prefix) = self else { preconditionFailure("demo has a known id") }
        return try await prefix.resolve(in: .users, pool: pool)
    }

    /// As `resolve(pool:)`, opening the database only when a prefix needs it.
    func resolve(_ assembly: Assembly) async throws -> UUID {
        if let knownID { return knownID }
        return try await assembly.withServices(connections: 1) { try await resolve(pool: $0.pool) }
    }
}

/// An id argument that takes the whole UUID or its first characters (`runs show a4573e95`), resolved against its table
/// when the command runs; a malformed one is a usage error (exit 64).
struct IDArgument: ExpressibleByArgument, Sendable {
    let prefix: IDPrefix

    init?(argument: String) {
        guard let prefix = IDPrefix(argument) else { return nil }
        self.prefix = prefix
    }

    var defaultValueDescription: String { prefix.text }
}
