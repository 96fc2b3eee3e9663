package import Core
package import Extractors
import Foundation

/// How a nightly scan runs.
package struct ScanOptions: Sendable {
    /// Conversations with the model at once (each worker also writes the one before and reads the one after).
    package var concurrency: Int = 4
    /// This process handles conversations whose hash falls in shard `index` of `count` (Kubernetes Indexed Jobs).
    package var shardIndex: Int = 0
    package var shardCount: Int = 1
    /// How long a claim is valid; a crashed scanner's claims are taken over after this.
    package var lease: Duration = .seconds(600)
    /// Earlier messages sent with the new ones, for context.
    package var contextMessages: Int = ConversationReader.defaultContextMessages
    /// The read cap: at most this many messages of a conversation are read at once (a first scan reads the newest;
    /// the older ones are skipped and counted in the summary and `job_runs.details`).
    package var maxMessages: Int = ConversationReader.defaultMaxMessages
    /// The features to run; nil: every feature of the engine's registry (`ScanService.features`).
    package var features: [ExtractionFeature]?
    /// Stop after this many conversations (nil: all).
    package var limit: Int?
    /// Identifies this process in leases.
    package var owner: String = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
    /// Chatter (small talk, emoji-only messages: `PreFilter`) is not sent to the model; a window of nothing else skips it.
    package var preFilter: Bool = true
    /// How long writing a conversation waits for a row lock another session holds (the app editing or deleting it)
    /// before that conversation fails and is retried next scan. nil: the connection's `lock_timeout`
    /// (`DATABASE_LOCK_TIMEOUT`, 30 s by default), the bound every statement of every command has.
    package var lockTimeout: Duration?
    /// A conversation that fails the same way on this many scans in a row is quarantined: passed over until an operator
    /// retries it (`--retry-quarantined`). 0: never.
    package var quarantineAfter: Int = 3
    /// Take this shard's quarantined conversations out of quarantine before scanning (`--retry-quarantined`).
    package var retryQuarantined = false
    /// Users' zones (`--timezone` / MESSAGEAI_TIMEZONE for users without a setting), for reading and writing.
    package var zones: UserTimeZonePolicy = .utc

    package init() {}

    /// Database connections a scan at `concurrency` needs by default. A worker uses the database for a small part of
    /// each conversation (claim, read, write) and waits on the model for the rest, so a few connections serve many
    /// workers; a connection per worker costs a backend each and counts against the server's connection limit
    /// (Supabase's is tens). The price is isolation: a write held up by a row lock (at most `lockTimeout`) holds one
    /// of these; raise `--db-connections` if that matters more. (Measured in benchmarks/RESULTS.md, section 4.)
    package static func defaultDatabaseConnections(concurrency: Int) -> Int { min(max(1, concurrency), 8) + 1 }

    /// Parses "i/N".
    package static func parseShard(_ text: String) throws -> (index: Int, count: Int) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (0..<count).contains(index) else {
            throw JobsError.invalidInput("shard '\(text)' must be i/N with 0 <= i < N, e.g. 0/4")
        }
        return (index, count)
    }
}
