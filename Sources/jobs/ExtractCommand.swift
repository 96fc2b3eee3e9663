import ArgumentParser
import JobsKit
import Extractors
import Foundation
import JobsCLI

struct ExtractCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Run the extractors on one conversation and store what they find.",
        discussion: """
            Reads the conversation's messages, runs the chosen features (one combined request per window for all of \
            them, or with --per-feature one per feature and window; never per user), validates every answer against its JSON Schema, checks cited message ids and recomputes dates, then \
            writes all rows in one transaction. Running it twice leaves the same rows. The run is recorded in job_runs.

            Examples:
              messageai-jobs extract --conversation 00000000-de02-4000-8000-000000000001
              messageai-jobs extract --conversation ID --features calendar_events,rsvps --dry-run --json
            """
    )

    @Option(help: "The conversation's id, or its first characters (at least 4).")
    var conversation: IDArgument

    @Option(name: .customLong("features"), help: ExtractionFeature.listHelp())
    var featureList: String?
    var features: String { featureList ?? ExtractionFeature.allNames }

    @Flag(help: "Extract and print, but write nothing.")
    var dryRun = false

    @OptionGroup var providerOptions: ProviderOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var zones: TimeZoneOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try ExtractionFeature.parseList(features)
    }

    func run() async throws {
        output.bootstrap()
        let chosen = try ExtractionFeature.parseList(features)
        let assembly = try Assembly.command {
            $0.take(providerOptions)
            $0.take(database)
            $0.take(zones)
        }
        let summary = try await assembly.withServices { services in
            try await services.extract().run(conversationID: try await conversation.prefix.resolve(in: .conversations, pool: services.pool),
                                             features: chosen, dryRun: dryRun, now: await DatabaseClock.now(services.pool))
        }
        if output.json {
            try Console.printJSON(summary)
        } else {
            Console.print(ExtractReport.text(summary, features: chosen))
        }
    }
}
