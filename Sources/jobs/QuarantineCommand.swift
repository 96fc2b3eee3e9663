import ArgumentParser
import JobsKit
import Core
import Foundation
import JobsCLI

struct QuarantineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarantine",
        abstract: "Conversations the scan passes over because they failed the same way on several nights in a row.",
        discussion: """
            A conversation is quarantined after `scan --quarantine-after` scans in a row (default 3) failed with the \
            same signature: where it failed and the error's class (e.g. "model answer: invalid output"), whatever \
            feature failed first. 5xx answers and timeouts for a conversation while the model server answers others \
            count as one signature, whatever they were called. Outages (the model server answering no one, the \
            database unreachable, rate limits) never count. `quarantine show ID` prints its last errors; `quarantine release ID` (or --all) \
            lets the next scan try it again.

            Examples:
              messageai-jobs quarantine list
              messageai-jobs quarantine show 6f1c0d2e-0b6a-4f43-9a57-2f0b3d7e1c11
              messageai-jobs quarantine release --all --json
            """,
        subcommands: [QuarantineListCommand.self, QuarantineShowCommand.self, QuarantineReleaseCommand.self],
        defaultSubcommand: QuarantineListCommand.self
    )
}

struct QuarantineListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Quarantined conversations, longest in quarantine first (the default `quarantine` subcommand).",
        usage: "messageai-jobs quarantine list [--limit <limit>] [<options>]"
    )

    @Option(help: "How many conversations at most.")
    var limit: Int = 1000

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 100000") }
    }

    func run() async throws {
        output.bootstrap()
        let entries = try await database.assembly().withServices(connections: 1) { try await $0.quarantine.list(limit: limit) }
        if output.json { return try Console.printJSON(entries) }
        guard !entries.isEmpty else { return Console.print("No conversation is in quarantine.") }
        for entry in entries { QuarantineText.print(entry, recent: false) }
        Console.print("\(entries.count) in quarantine: `messageai-jobs quarantine show ID` prints a conversation's last errors, "
                      + "`messageai-jobs quarantine release ID` (or --all) lets the next scan try it again.")
    }
}

struct QuarantineShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "One conversation: whether it is quarantined, why, and its last errors (newest first).",
        usage: "messageai-jobs quarantine show <id> [<options>]"
    )

    @Argument(help: "The conversation's id, or its first characters (at least 4).")
    var id: IDArgument

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        output.bootstrap()
        let (conversation, entry) = try await database.assembly().withServices(connections: 1) { services in
            let conversation = try await id.prefix.resolve(in: .conversations, pool: services.pool)
            return (conversation, try await services.quarantine.show(conversation))
        }
        guard let entry else {
            throw JobsError.notFound("no conversation \(conversation.uuidString.lowercased()) in scan_watermarks (no scan has seen it)")
        }
        if output.json { return try Console.printJSON(entry) }
        QuarantineText.print(entry, recent: true)
    }
}

struct QuarantineReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Take conversations out of quarantine: the next scan tries them again (their error history stays).",
        usage: "messageai-jobs quarantine release <id> | --all [<options>]"
    )

    @Argument(help: "The conversation's id, or its first characters (at least 4).")
    var id: IDArgument?

    @Flag(help: "Every quarantined conversation.")
    var all = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (id != nil) != all else { throw ValidationError("name one conversation id or pass --all (not both)") }
    }

    private struct Released: Encodable {
        let released: [String]
    }

    func run() async throws {
        output.bootstrap()
        let (conversation, released) = try await database.assembly().withServices(connections: 1) { services -> (UUID?, [UUID]) in
            var conversation: UUID?
            if let id { conversation = try await id.prefix.resolve(in: .conversations, pool: services.pool) }
            let quarantine = services.quarantine
            let released = try await quarantine.release(conversation.map { .conversation($0) } ?? .all)
            if released.isEmpty, let conversation, try await quarantine.show(conversation) == nil {
                throw JobsError.notFound("no conversation \(conversation.uuidString.lowercased()) in scan_watermarks (no scan has seen it)")
            }
            return (conversation, released)
        }
        if output.json { return try Console.printJSON(Released(released: released.map { $0.uuidString.lowercased() })) }
        if released.isEmpty {
            return Console.print(conversation.map { "Conversation \($0.uuidString.lowercased()) is not in quarantine." } ?? "No conversation is in quarantine.")
        }
        for id in released { Console.print("released \(id.uuidString.lowercased())") }
        Console.print("\(released.count) conversation(s) released: the next scan tries them again.")
    }
}

/// Quarantine entries as text, for `quarantine` and `runs show`.
enum QuarantineText {
    static func print(_ entry: Quarantine.Entry, recent: Bool) {
        let id = entry.conversationID.uuidString.lowercased()
        let name = entry.conversationName.map { " \"\($0.prefix(60))\"" } ?? ""
        if let at = entry.quarantinedAt {
            Console.print("\(id)\(name)  quarantined \(ISO8601Instant.string(at))  after \(entry.sameFailures) failed scan(s) in a row")
        } else {
            Console.print("\(id)\(name)  not quarantined  \(entry.sameFailures) failed scan(s) in a row, \(entry.failures) since its last success")
        }
        if let signature = entry.signature { Console.print("    signature: \(signature)") }
        if let reason = entry.reason ?? entry.lastError { Console.print("    error: \(reason.prefix(recent ? 1000 : 300))") }
        guard recent else { return }
        guard !entry.recent.isEmpty else { return Console.print("    no failures recorded") }
        Console.print("    last errors (newest first):")
        for failure in entry.recent {
            let run = failure.runID.map { " run \($0.uuidString.lowercased())" } ?? ""
            let counted = failure.signature == nil ? " (an outage: not counted)" : ""
            Console.print("    - \(ISO8601Instant.string(failure.at))\(run)\(counted): \(failure.error.prefix(1000))")
            AnswerText.print(failure.answers ?? [], indent: "      ")
        }
    }

    /// `runs show`'s lines for the conversations a scan quarantined.
    static func printQuarantined(by detail: RunHistory.Detail) {
        if !detail.quarantined.isEmpty {
            Console.print("  quarantined by this run:")
            for entry in detail.quarantined {
                let state = entry.isQuarantined ? "still quarantined" : "released since"
                Console.print("  - conversation \(entry.conversationID.uuidString.lowercased()) (\(state)): \((entry.reason ?? entry.lastError ?? "").prefix(300))")
            }
        }
        if let total = detail.quarantinedTotal, total > 0 {
            Console.print("  \(total) conversation(s) in quarantine when it ended: `messageai-jobs quarantine list`")
        }
    }
}
