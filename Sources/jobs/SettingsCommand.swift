import ArgumentParser
import JobsKit
import Foundation

struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Every environment variable this binary reads: its values, default and the flag that overrides it.",
        discussion: """
            Every command checks them all before it does anything: a variable set to a value it does not take stops \
            the command (exit code 64) with an error naming the variable and its values. An empty variable counts as unset.
            """
    )

    @Flag(name: .long, help: "Print machine-readable JSON on stdout instead of text.")
    var json = false

    private struct Row: Encodable {
        let name: String
        let values: String
        let `default`: String
        let flag: String?
    }

    func run() throws {
        guard json else { return Console.print(EnvironmentSettings.table) }
        try Console.printJSON(EnvironmentSettings.all.map { Row(name: $0.name, values: $0.allowed, default: $0.defaultValue, flag: $0.flag) })
    }
}
