import ArgumentParser
import Core
import Foundation
import JobsKit
import Extractors
import JobsCLI

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "What the app shows one parent now, feature by feature, and why: each item's evidence, date phrase and provenance.",
        usage: "messageai-jobs show --user <user> [--conversation <id>] [<options>]",
        discussion: """
            The rows her row level security lets the app read (the calendar events, decisions and priority messages of \
            her conversations; her own RSVPs, deadlines and reminders), each with the messages it was read from (sender, \
            time and text: its evidence), the words its date was read from (and the model's own date when code read them \
            differently), and the run, prompt version and model that wrote it. Read-only.

            Examples:
              messageai-jobs show --user demo
              messageai-jobs show --user 3f2a9c10 --conversation 00000000-de02 --json
            """
    )

    @Option(help: "The parent: her id or its first characters, or `demo` for the demo's parent.")
    var user: UserArgument

    @Option(help: "Only this conversation (its id or first characters); it must be one of hers.")
    var conversation: IDArgument?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        output.bootstrap()
        let view = try await database.assembly().withServices(connections: 1) { services in
            var conversationID: UUID?
            if let conversation { conversationID = try await conversation.prefix.resolve(in: .conversations, pool: services.pool) }
            return try await services.parentView.view(userID: try await user.resolve(pool: services.pool), conversationID: conversationID)
        }
        if output.json { return try Console.printJSON(view) }
        ParentViewText.print(view)
    }
}

/// The parent's view as text: per feature, each item, then its evidence, date phrase and provenance, indented.
enum ParentViewText {
    static func print(_ view: ParentView.View) {
        let names = Dictionary(uniqueKeysWithValues: view.conversations.map { ($0.id, $0.name ?? $0.id.uuidString.lowercased()) })
        let total = view.features.map(\.items.count).reduce(0, +)
        Console.print("\(view.userName ?? "user") (\(view.userID.uuidString.lowercased())): what the app shows now, "
                      + "\(total) item(s) from \(view.conversations.count) conversation(s)")
        for feature in view.features {
            Console.print("\n\(feature.table) (\(feature.items.count))")
            for item in feature.items {
                Console.print("- " + [item.date, item.text].compactMap { $0 }.joined(separator: "  ")
                              + (item.status.map { "  [\($0)]" } ?? "")
                              + (item.conversationID.flatMap { names[$0] }.map { "  in \"\($0.prefix(60))\"" } ?? ""))
                if let phrase = item.datePhrase { Console.print("    date phrase: \"\(phrase)\"") }
                if let modelDate = item.modelDate {
                    Console.print("    model's date: \(modelDate)" + (item.date?.hasPrefix(modelDate) == true ? " (code could not confirm it)" : " (code read the phrase differently)"))
                }
                if item.sources.isEmpty { Console.print("    evidence: none recorded") }
                for source in item.sources {
                    let when = source.sentAt.map { ISO8601Instant.string($0) } ?? "?"
                    Console.print("    evidence: message \(source.messageID.uuidString.lowercased()) (\(source.sender ?? "?"), \(when)): "
                                  + (source.text.map { "\"\($0.replacingOccurrences(of: "\n", with: " "))\"" } ?? "(deleted or missing)"))
                }
                Console.print("    provenance: \(item.provenance.text)")
            }
        }
    }
}
