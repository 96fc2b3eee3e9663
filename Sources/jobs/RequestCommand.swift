import ArgumentParser
import JobsKit
import Postgres
import Foundation
import JobsCLI

struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requests",
        abstract: "The worker's queue (job_requests): enqueue work, list requests, retry or cancel them.",
        discussion: """
            extract and assist enqueue what the app enqueues by inserting into job_requests; work that already waits \
            in a pending request is not enqueued twice (its id is printed). list shows the queue with each request's \
            worker and time; show lists one request's every attempt (worker, start, end, result, error); retry sends \
            failed (or cancelled) requests back to it with their attempts reset; cancel takes pending or running ones \
            out. Every retry and cancel is recorded in job_request_events with the status, attempts and error the \
            request had. `request` is the same command.

            Examples:
              messageai-jobs requests extract --conversation 00000000-de02-4000-8000-000000000003
              messageai-jobs requests list --status failed
              messageai-jobs requests show 42
              messageai-jobs requests retry --failed
              messageai-jobs requests cancel 42
            """,
        subcommands: [RequestExtractCommand.self, RequestAssistCommand.self, RequestsListCommand.self, RequestsShowCommand.self,
                      RequestsRetryCommand.self,
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

    @Option(help: "The conversation's id, or its first characters (at least 4).")
    var conversation: IDArgument

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await RequestPrinter.enqueue(.extract, database: database, output: output) { try await conversation.prefix.resolve(in: .conversations, pool: $0) }
    }
}

struct RequestAssistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assist",
        abstract: "Enqueue a proactive-assistant run for one user; prints the request's id.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs request assist --user <user> [<options>]",
        discussion: "Examples: messageai-jobs request assist --user 00000000-de01-4000-8000-000000000001\n          messageai-jobs request assist --user demo"
    )

    @Option(help: "The user's id, or its first characters (at least 4), or 'demo' for the demo's parent.")
    var user: UserArgument

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await RequestPrinter.enqueue(.assist, database: database, output: output) { try await user.resolve(pool: $0) }
    }
}

private enum RequestPrinter {
    struct Enqueued: Encodable {
        let id: Int64
        let kind: String
        /// False when a request for the same work was already pending: its id is printed, nothing new was queued.
        let created: Bool
    }

    static func enqueue(_ kind: JobRequest.Kind, database: DatabaseOptions, output: OutputOptions,
                        id: @escaping @Sendable (PostgresPool) async throws -> UUID) async throws {
        output.bootstrap()
        let enqueued = try await database.assembly().withServices(connections: 1) { services in
            try await services.requestQueue.enqueueOnce(kind, id: try await id(services.pool))
        }
        if output.json {
            try Console.printJSON(Enqueued(id: enqueued.id, kind: kind.rawValue, created: enqueued.created))
        } else {
            Console.print("\(enqueued.id)")
            if !enqueued.created {
                Console.error("request \(enqueued.id) for the same \(kind == .extract ? "conversation" : "user") was already pending: nothing new was enqueued")
            }
        }
    }
}
