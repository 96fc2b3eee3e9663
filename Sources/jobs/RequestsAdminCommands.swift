import ArgumentParser
import JobsKit
import Core
import Foundation
import JobsCLI

/// `--status`: the statuses a request can have.
enum RequestStatusArgument: String, ExpressibleByArgument, CaseIterable {
    case pending, running, done, failed, cancelled

    var status: JobRequestAdmin.Status { JobRequestAdmin.Status(rawValue: rawValue)! }
}

struct RequestsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List job requests (the newest --limit, oldest first), with their attempts and last error.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs requests list [--status <status>] [<options>]",
        discussion: "Example: messageai-jobs requests list --status failed --json"
    )

    @Option(help: "Only requests with this status.")
    var status: RequestStatusArgument?

    @Option(help: "How many requests at most (the newest).")
    var limit: Int = 100

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 100000") }
    }

    func run() async throws {
        output.bootstrap()
        let requests = try await database.assembly().withServices(connections: 1) {
            try await $0.requestAdmin.list(status: status?.status, limit: limit)
        }
        if output.json { return try Console.printJSON(requests) }
        guard !requests.isEmpty else {
            return Console.print(status.map { "No \($0.rawValue) requests." } ?? "No requests.")
        }
        for request in requests {
            Console.print(RequestText.line(request))
            if let error = request.error { Console.print("    error: \(error.prefix(500))") }
        }
        let failed = requests.filter { $0.status == "failed" }.count
        if failed > 0 { Console.print("\(failed) failed: `messageai-jobs requests retry --failed` sends them back to the queue.") }
    }
}

struct RequestsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "One request with every attempt (worker, start, time, result, error) and every retry or cancel.",
        usage: "messageai-jobs requests show <id> [<options>]",
        discussion: "Example: messageai-jobs requests show 42 --json"
    )

    @Argument(help: "The request's id, as `requests list` prints it.")
    var id: Int64

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        output.bootstrap()
        let detail = try await database.assembly().withServices(connections: 1) { try await $0.requestAdmin.show(id) }
        guard let detail else { throw JobsError.notFound("no job request with id \(id)") }
        if output.json { return try Console.printJSON(detail) }
        Console.print(RequestText.line(detail.request))
        if let error = detail.request.error { Console.print("    error: \(error)") }
        Console.print(detail.attempts.isEmpty ? "  no attempts yet" : "  attempts:")
        for attempt in detail.attempts {
            let ended = attempt.finishedAt.map { "ended \(ISO8601Instant.string($0))" }
                ?? (detail.request.status == "running" && attempt.owner == detail.request.leaseOwner ? "running" : "no end recorded (its worker stopped)")
            var line = "  - #\(attempt.attempt) by \(attempt.owner): started \(ISO8601Instant.string(attempt.startedAt)), \(ended)"
            if let seconds = attempt.seconds, attempt.finishedAt != nil || ended == "running" { line += String(format: " (%.2f s)", seconds) }
            if let result = attempt.result { line += ": \(result)" }
            if let run = attempt.runID { line += ", run \(run.uuidString.lowercased())" }
            Console.print(line)
            if let error = attempt.error { Console.print("      error: \(error.prefix(500))") }
            AnswerText.print(attempt.answers ?? [], indent: "      ")
        }
        for event in detail.events {
            Console.print("  \(event.action) by \(event.actor) at \(ISO8601Instant.string(event.at)) (it was \(event.previousStatus), "
                          + "\(event.previousAttempts) attempt(s))" + (event.previousError.map { ": \($0.prefix(300))" } ?? ""))
        }
    }
}

/// A request in one line, as `requests list` and `requests show` print it.
enum RequestText {
    static func line(_ request: JobRequestAdmin.Listing) -> String {
        var line = "\(request.id)  \(request.kind)  \(request.status)  \(request.target)  attempts \(request.attempts)"
        if request.retries > 0 { line += ", retried \(request.retries)×" }
        if let owner = request.owner { line += "  worker \(owner)" }
        if let seconds = request.elapsedSeconds {
            line += request.status == "running" ? String(format: "  running for %.1f s", seconds) : String(format: "  took %.1f s", seconds)
        }
        line += "  created \(ISO8601Instant.string(request.createdAt))"
        if let run = request.runID { line += "  run \(run.uuidString.lowercased())" }
        return line
    }
}

struct RequestsRetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Send requests back to the queue: pending, attempts reset, due now (a worker takes them at once).",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs requests retry [<ids> ...] [--failed] [<options>]",
        discussion: """
            Takes failed, cancelled or pending requests (a pending one waiting out its backoff becomes due now); \
            running and done ones are refused. The error and attempts each had are kept in job_request_events.

            Examples:
              messageai-jobs requests retry 42 43
              messageai-jobs requests retry --failed
            """
    )

    @Argument(help: "The requests' ids.")
    var ids: [Int64] = []

    @Flag(help: "Every failed request.")
    var failed = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard failed ? ids.isEmpty : !ids.isEmpty else { throw ValidationError("give request ids or --failed (one of them)") }
    }

    func run() async throws {
        output.bootstrap()
        let retried = try await database.assembly().withServices(connections: 1) {
            try await $0.requestAdmin.retry(failed ? nil : ids)
        }
        try RequestsAdminPrinter.report("retried", retried, output: output)
    }
}

struct RequestsCancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Take pending or running requests out of the queue (status cancelled; `requests retry` brings them back).",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs requests cancel <ids> ... [<options>]",
        discussion: "Example: messageai-jobs requests cancel 42"
    )

    @Argument(help: "The requests' ids.")
    var ids: [Int64]

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        output.bootstrap()
        let cancelled = try await database.assembly().withServices(connections: 1) { try await $0.requestAdmin.cancel(ids) }
        try RequestsAdminPrinter.report("cancelled", cancelled, output: output)
    }
}

private enum RequestsAdminPrinter {
    struct Changed: Encodable {
        let action: String
        let ids: [Int64]
    }

    static func report(_ action: String, _ ids: [Int64], output: OutputOptions) throws {
        if output.json { return try Console.printJSON(Changed(action: action, ids: ids)) }
        Console.print(ids.isEmpty ? "Nothing to do: no request was \(action)."
                      : "\(ids.count) request(s) \(action): \(ids.map(String.init).joined(separator: ", ")).")
    }
}
