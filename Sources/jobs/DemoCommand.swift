import ArgumentParser
import JobsKit
import Foundation
import JobsCLI

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Demo data for a local database.",
        subcommands: [DemoLoadCommand.self]
    )
}

struct DemoLoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Insert four parent-group conversations with users and participants.",
        // Written out: the parser's own usage line runs past 80 columns (it is never wrapped).
        usage: "messageai-jobs demo load [--reset] [<options>]",
        discussion: """
            Loads a class group, a soccer carpool, a birthday party and a 1:1 between co-parents (8 users, \
            America/New_York). It plants a schedule conflict (Maria's soccer game and the party on the same \
            Saturday) and an RSVP Maria has not answered. Dates in the messages point at the coming days. \
            Rows have fixed ids: loading again inserts nothing. --reset deletes the demo rows (and anything \
            extracted from them) and loads them anew with fresh dates.

            Example: messageai-jobs demo load
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Delete the demo's rows first, then load them with dates relative to now.")
    var reset = false

    func run() async throws {
        output.bootstrap()
        let dataset = DemoDataset.make(now: Date())
        let report = try await database.assembly().withServices(connections: 1) {
            try await $0.demoLoader.load(dataset, reset: reset)
        }
        if output.json {
            try Console.printJSON(report)
        } else {
            Console.print("Demo data: \(report.users) users, \(report.conversations) conversations, \(report.messages) messages"
                + (report.inserted == 0 ? " (already loaded, nothing inserted)." : " (\(report.inserted) rows inserted)."))
        }
    }
}
