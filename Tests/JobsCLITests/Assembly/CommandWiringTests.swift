import Foundation
import TestSupport
import Testing
import Postgres

/// Commands parse, call the assembly and a service, and print (issue 39, "Done when"): no file of the CLI opens a
/// database pool or calls another command, and only one reads the process environment (below the two executables'
/// entry points, nothing does).
@Suite("Commands hold no wiring")
struct CommandWiringTests {
    static func sources(_ folder: String = "Sources/jobs") throws -> [(name: String, text: String)] {
        let root = RepositoryPaths.root.appendingPathComponent(folder)
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

    static func readsTheEnvironment(_ text: String) -> Bool {
        text.contains("ProcessInfo.processInfo.environment") || text.contains("getenv(")
    }

    @Test func onlyOneFileReadsTheProcessEnvironment() throws {
        let readers = try Self.sources().filter { Self.readsTheEnvironment($0.text) }
        #expect(readers.map(\.name) == ["Support/CommandAssembly.swift"])
    }

    /// Library code (the run recorder's lease, the shared CLI options, the benchmarks) takes the environment as a
    /// value: only the two executables' entry points read it (and the test support, which plays a deployment).
    @Test func belowTheEntryPointsNothingReadsTheProcessEnvironment() throws {
        let files = try Self.sources("Sources")
        #expect(files.count > 100, "found the source files")
        let readers = files.filter { !$0.name.hasPrefix("TestSupport/") && Self.readsTheEnvironment($0.text) }.map(\.name).sorted()
        #expect(readers == ["jobs/Support/CommandAssembly.swift", "messageai-bench/BenchEnvironment.swift"])
    }
}
