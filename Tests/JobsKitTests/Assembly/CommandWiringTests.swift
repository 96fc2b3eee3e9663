import Foundation
import TestSupport
import Testing

/// Commands parse, call the assembly and a service, and print (issue 39, "Done when"): no file of the CLI opens a
/// database pool or calls another command, and only one reads the process environment.
@Suite("Commands hold no wiring")
struct CommandWiringTests {
    static func sources() throws -> [(name: String, text: String)] {
        let root = RepositoryPaths.root.appendingPathComponent("Sources/jobs")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map {
            (String($0.path.dropFirst(root.path.count + 1)), try String(contentsOf: $0, encoding: .utf8))
        }
    }

    @Test func noCommandOpensAPoolOrCallsAnotherCommand() throws {
        let files = try Self.sources()
        #expect(files.count > 15, "found the command files")
        // A static function of a command type (`AssistCommand.pass(`, `BatchCommand.submit(`), not its `.self`.
        let otherCommand = try Regex(#"\b[A-Z][A-Za-z]*Command\.[a-z][A-Za-z]*\("#)
        for (name, text) in files {
            #expect(!text.contains("withPool("), "\(name) opens a pool")
            #expect(!text.contains("PostgresPool("), "\(name) opens a pool")
            #expect(text.firstMatch(of: otherCommand) == nil, "\(name) calls another command")
        }
    }

    @Test func onlyOneFileReadsTheProcessEnvironment() throws {
        let readers = try Self.sources().filter { $0.text.contains("ProcessInfo.processInfo.environment") || $0.text.contains("getenv(") }
        #expect(readers.map(\.name) == ["Support/CommandAssembly.swift"])
    }
}
