import ArgumentParser
import CLISupport
import Foundation
import JobsKit

struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requests",
        abstract: "The worker's queue (job_requests): enqueue work, list requests, retry or cancel them.",
        discussion: """
            extract and assist enqueue what the app enqueues by inserting into job_requests. list shows the queue; \
            retry sends failed (or cancelled) requests back to it with their attempts reset; cancel takes pending or \
            running ones out. Every retry and cancel is recorded in job_request_events with the status, attempts and \
            error the request had. `request` is the same command.

            Examples:
              messageai-jobs requests extract --conversation 00000000-de02-4000-8000-000000000003
              messageai-jobs requests list --status failed
              messageai-jobs requests retry --failed
              messageai-jobs requests cancel 42
            """,
        subcommands: [RequestExtractCommand.self, RequestAssistCommand.self, RequestsListCommand.self, RequestsRetryCommand.self,
                      RequestsCancelCommand.self],
        aliases: ["request"]
    )
}

struct RequestExtractCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Enqueue extraction of one conversation; prints the request's id.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs request extract --conversation <conversation> [<options>]",
        discussion: "Example: messageai-jobs request extract --conversation 00000000-de02-4000-8000-000000000003"
    )

    @Option(help: "The conversation's id (a UUID).")
    var conversation: UUID

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await RequestPrinter.enqueue(.extract, id: conversation, database: database, output: output)
    }
}

struct RequestAssistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assist",
        abstract: "Enqueue a proactive-assistant run for one user; prints the request's id.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs request assist --user <user> [<options>]",
        discussion: "Example: messageai-jobs request assist --user 00000000-de01-4000-8000-000000000001"
    )

    @Option(help: "The user's id (a UUID).")
    var user: UUID

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await RequestPrinter.enqueue(.assist, id: user, database: database, output: output)
    }
}

private enum RequestPrinter {
    struct Enqueued: Encodable {
        let id: Int64
        let kind: String
    }

    static func enqueue(_ kind: JobRequest.Kind, id target: UUID, database: DatabaseOptions, output: OutputOptions) async throws {
        output.bootstrap()
        let id = try await database.withPool(maxConnections: 1) { pool in
            try await JobRequestQueue(pool: pool).enqueue(kind, id: target)
        }
        if output.json {
            try Console.printJSON(Enqueued(id: id, kind: kind.rawValue))
        } else {
            Console.print("\(id)")
        }
    }
}
