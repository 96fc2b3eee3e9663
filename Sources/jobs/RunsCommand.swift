import ArgumentParser
import JobsKit
import Core
import Foundation
import JobsCLI

struct RunsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "What ran (scans, extracts, assistant passes, batches), newest first, from job_runs.",
        discussion: """
            Each run with its status, start, duration, conversations or users, items, failures, model tokens, estimated \
            cost ("unknown" when the model has no price) and the build and prompt set it ran with. `runs show ID` lists \
            that run's failures with conversation, feature and error, and what the run was: an extract's conversation, a dry run \
            (marked "(dry run)" in the list too: it wrote nothing), the users a partial assist failed for, a stopped scan's \
            deferred and unreached conversations. A run whose process died (its heartbeat lapsed) \
            shows as abandoned ("no heartbeat since ...") at once, before any later job marks it, and --failed lists it. \
            The list ends with the listed runs' cost together (with --since 24h, the night's).

            Examples:
              messageai-jobs runs --since 24h
              messageai-jobs runs --failed --json
              messageai-jobs runs show 6f1c0d2e   # an id's first characters will do
            """,
        subcommands: [RunsListCommand.self, RunsShowCommand.self],
        defaultSubcommand: RunsListCommand.self
    )
}

struct RunsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "The last runs, newest first (the default `runs` subcommand).",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs runs [list] [--since <since>] [--failed] [<options>]"
    )

    @Option(help: "Only runs started since then: a date (2026-11-24, midnight UTC), a timestamp (2026-11-24T06:00:00Z) or a duration back from now (90m, 24h, 7d).")
    var since: String?

    @Flag(help: "Only runs that failed, were partial or abandoned, or had a failed conversation.")
    var failed = false

    @Option(help: "Only runs of this kind: scan, extract, assist or batch (the kinds recorded: the worker's requests are recorded as extract and assist runs; eval writes report files instead).")
    var kind: String?

    @Option(help: "How many runs at most.")
    var limit: Int = 20

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 10000") }
        if let since { _ = try sinceDate(since) }
        if let kind, !Self.recordedKinds.contains(kind) {
            let note = kind == "worker" ? " (the worker's requests are recorded as extract and assist runs)"
                : kind == "eval" ? " (eval records no runs: it writes report files, see `eval --report`)" : ""
            throw ValidationError("--kind '\(kind)' is not one of \(Self.recordedKinds.joined(separator: ", "))\(note)")
        }
    }

    /// The kinds of run this binary records in job_runs.
    static let recordedKinds = ["scan", "extract", "assist", "batch"]

    private func sinceDate(_ text: String) throws -> Date {
        do {
            return try RunHistory.since(text)
        } catch {
            throw ValidationError("--since \(error)")
        }
    }

    func run() async throws {
        output.bootstrap()
        let filter = RunHistory.Filter(since: try since.map(sinceDate), failedOnly: failed, kind: kind, limit: limit)
        let runs = try await database.assembly().withServices(connections: 1) { try await $0.runHistory.list(filter) }
        if output.json { return try Console.printJSON(runs) }
        guard !runs.isEmpty else { return Console.print("No runs" + (failed ? " that failed" : "") + (since.map { " since \($0)" } ?? "") + ".") }
        for run in runs { RunText.print(run) }
        Console.print(RunText.total(runs))
    }
}

struct RunsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "One run: its figures, the prompts it used, and its failures with conversation, feature and error.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs runs show <id> [<options>]"
    )

    @Argument(help: "The run's id as `runs` prints it, or its first characters (at least 4; an ambiguous prefix is refused, naming the matches).")
    var id: IDArgument

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        output.bootstrap()
        let (runID, detail) = try await database.assembly().withServices(connections: 1) { services -> (UUID, RunHistory.Detail?) in
            let runID = try await id.prefix.resolve(in: .jobRuns, pool: services.pool)
            return (runID, try await services.runHistory.show(runID))
        }
        guard let detail else { throw JobsError.notFound("no run with id \(runID.uuidString.lowercased()) in job_runs") }
        if output.json { return try Console.printJSON(detail) }
        RunText.print(detail.run)
        if !detail.run.prompts.isEmpty {
            Console.print("  prompts: " + detail.run.prompts.map { "\($0.id)@\($0.version) \($0.sha256.prefix(12))" }.joined(separator: ", "))
        }
        if !detail.requests.isEmpty { Console.print("  served requests: " + detail.requests.map(String.init).joined(separator: ", ")) }
        QuarantineText.printQuarantined(by: detail)
        RunText.printLeftOver(detail)
        if !detail.reasked.isEmpty { Console.print("  re-asked, then answered (what the model said first):") }
        for reasked in detail.reasked {
            Console.print("  - conversation \(reasked.conversationID?.uuidString.lowercased() ?? "?")")
            AnswerText.print(reasked.answers ?? [], indent: "    ")
        }
        guard !detail.failures.isEmpty else {
            return Console.print(detail.run.status == "succeeded" || detail.run.status == "running" ? "  no failures recorded"
                                 : "  no failures recorded by conversation or user (see the error above)")
        }
        Console.print("  failures:")
        for failure in detail.failures {
            let subject = [failure.conversationID.map { "conversation \($0.uuidString.lowercased())" },
                           failure.userID.map { "user \($0.uuidString.lowercased())" },
                           failure.feature.map { "feature \($0)" }].compactMap { $0 }
            Console.print("  - " + (subject.isEmpty ? "" : subject.joined(separator: ", ") + ": ") + failure.error)
            AnswerText.print(failure.answers ?? [], indent: "    ")
        }
        if detail.unlisted > 0 { Console.print("  … and \(detail.unlisted) more failed conversation(s) not listed (a run keeps its first \(RunFailure.recordedLimit))") }
    }
}

/// A run in two or three lines of text.
private enum RunText {
    static func print(_ run: RunHistory.Run) {
        let duration = run.lapsedAt.map { "no heartbeat since \(ISO8601Instant.string($0)) (killed?)" }
            ?? (run.finishedAt == nil ? "running for \(seconds(run.seconds))" : seconds(run.seconds))
        Console.print("\(run.id.uuidString.lowercased())  \(run.kind)\(run.dryRun ? " (dry run)" : "")  \(run.status)  \(ISO8601Instant.string(run.startedAt))  \(duration)")
        if let subject = subject(run) { Console.print("    " + subject) }
        var figures: [String] = []
        if let users = run.users {
            figures.append("\(users) user(s)" + ((run.usersFailed ?? 0) > 0 ? ", \(run.usersFailed ?? 0) failed" : ""))
        } else {
            figures.append("\(run.conversations) conversation(s)" + (run.conversationsFailed > 0 ? ", \(run.conversationsFailed) failed" : ""))
        }
        let counted = run.items.sorted { $0.key < $1.key }.filter { $0.value > 0 }.map { "\($0.key) \($0.value)" }
        figures.append("items: " + (counted.isEmpty ? "none" : counted.joined(separator: ", ")))
        figures.append("\(run.modelRequests) model request(s), \(run.promptTokens + run.completionTokens) tokens")
        figures.append("cost \(run.costText)")
        Console.print("    " + figures.joined(separator: "; "))
        let build = [run.buildVersion.map { "build \($0)" }, run.buildCommit.map { "commit \($0.prefix(12))" },
                     run.promptSetSHA256.map { "prompts \($0.prefix(12))" }, run.provider.map { "provider \($0)" },
                     run.model.map { "model \($0)" }].compactMap { $0 }
        if !build.isEmpty { Console.print("    " + build.joined(separator: ", ")) }
        if let error = run.error, run.status != "succeeded" { Console.print("    error: \(error.prefix(300))") }
    }

    /// What the run was for: an extract's conversation (and that a dry run wrote nothing), an assist's user, a
    /// proactive pass, a scan's shard.
    static func subject(_ run: RunHistory.Run) -> String? {
        var parts: [String] = []
        if let conversation = run.conversationID { parts.append("conversation \(conversation.uuidString.lowercased())") }
        if let user = run.userID { parts.append("user \(user.uuidString.lowercased())") }
        if run.mode == "proactive_pass" { parts.append("proactive pass") }
        if let shard = run.shard { parts.append("shard \(shard)") }
        if run.dryRun { parts.append("dry run: answers shown, nothing written") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The listed runs' estimated cost together: with `--since 24h`, the night's. Unknown runs are counted, not priced.
    static func total(_ runs: [RunHistory.Run]) -> String {
        let known = runs.compactMap(\.costUSD)
        let unknown = runs.count - known.count
        return "Estimated cost of these \(runs.count) run(s): " + (known.isEmpty ? "unknown" : String(format: "$%.4f", known.reduce(0, +)))
            + (unknown > 0 && !known.isEmpty ? " + \(unknown) run(s) at unknown cost" : "")
    }

    /// A stopped scan's conversations given back untouched (deferred) and never reached: what the next scan has to do.
    static func printLeftOver(_ detail: RunHistory.Detail) {
        for (label, count, ids) in [("deferred (given back untouched, failure counts unchanged)", detail.deferred, detail.deferredConversations),
                                    ("unreached (pending, never claimed before the run stopped)", detail.unreached, detail.unreachedConversations)] {
            guard let count, count > 0 else { continue }
            Console.print("  \(count) conversation(s) \(label):")
            for id in ids { Console.print("  - conversation \(id.uuidString.lowercased())") }
            if count > ids.count { Console.print("  … and \(count - ids.count) more") }
        }
    }

    static func seconds(_ value: Double) -> String {
        value < 120 ? String(format: "%.1f s", value) : String(format: "%.1f min", value / 60)
    }
}
