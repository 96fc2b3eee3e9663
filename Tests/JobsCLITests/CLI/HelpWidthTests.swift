import Foundation
import TestSupport
import Testing

/// `--help` of every subcommand, from the real binary's parser, fits an 80-column terminal and prints each default
/// once: the texts are paragraphs the parser wraps to `COLUMNS`, not lines broken by hand.
@Suite("Help width")
struct HelpWidthTests {
    static func help(_ path: [String], columns: Int) async throws -> String {
        let environment = SpawnedProcess.inheritedEnvironment().merging(["COLUMNS": "\(columns)"]) { _, new in new }
        let result = try await SpawnedProcess.run(ScanHarness.executable, arguments: path + ["--help"], environment: environment)
        #expect(result.termination == .exit(0), "\(path) --help: \(result.stderr)")
        return result.stdout
    }

    /// The names under `SUBCOMMANDS:` (the parser's own `help` is skipped), up to the blank line that ends the list.
    static func subcommands(_ help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        var names: [String] = []
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            // A subcommand starts two spaces in; its abstract's continuation lines are indented further. Aliases
            // follow the name after a comma ("requests, request").
            guard line.hasPrefix("  "), !line.hasPrefix("   "),
                  let name = line.split(separator: " ").first.map({ String($0.split(separator: ",")[0]) }),
                  name.allSatisfy({ $0.isLowercase || $0 == "-" }), name != "help" else { continue }
            names.append(name)
        }
        return names
    }

    @Test func everySubcommandsHelpFitsEightyColumnsAndPrintsEachDefaultOnce() async throws {
        var queue: [[String]] = [[]]
        var seen: [[String]] = []
        while let path = queue.first {
            queue.removeFirst()
            try #require(path.count <= 3 && seen.count < 60, "runaway subcommand discovery at \(path)")
            seen.append(path)
            let text = try await Self.help(path, columns: 80)
            let long = text.split(separator: "\n").filter { $0.count > 80 }
            #expect(long.isEmpty, "messageai-jobs \(path.joined(separator: " ")) --help has lines over 80 columns:\n\(long.joined(separator: "\n"))")
            // A default written by hand and one added by the parser: "(default: all). (default: calendar_events,...)".
            let flattened = text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
            #expect(flattened.range(of: #"\(default: [^)]*\)\.? \(default: "#, options: .regularExpression) == nil,
                    "messageai-jobs \(path.joined(separator: " ")) --help prints a default twice")
            queue += Self.subcommands(text).map { path + [$0] }
        }
        // The commands an operator runs are all there (and were checked).
        for command in ["scan", "extract", "assist", "worker", "eval", "prompts", "migrate", "demo", "batch", "requests", "runs"] {
            #expect(seen.contains([command]), "no \(command) in the SUBCOMMANDS of messageai-jobs --help")
        }
        #expect(seen.count >= 15)
    }

    @Test func aWideTerminalGetsLongLinesFromTheSameParagraphs() async throws {
        // Reflowed, not cut: at 200 columns the scan's first paragraph is one long line.
        let text = try await Self.help(["scan"], columns: 200)
        #expect(text.split(separator: "\n").contains { $0.count > 120 })
    }
}
