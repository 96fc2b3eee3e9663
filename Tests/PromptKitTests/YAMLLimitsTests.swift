import Foundation
import Core
import Testing
@testable import PromptKit

/// Reading YAML is bounded: an alias bomb, a huge expansion or a deep nesting is refused with the file and line,
/// before it is expanded (the bomb below would be 9^9 = 387 million scalars).
@Suite("YAML limits")
struct YAMLLimitsTests {
    /// Nine levels, each a list of nine aliases to the level before.
    static let bomb: String = {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        var lines = ["a: &a [x,x,x,x,x,x,x,x,x]"]
        for (previous, name) in zip(names, names.dropFirst()) {
            lines.append("\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]")
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    @Test func theAliasBombIsRefusedWithFileAndLine() {
        #expect(Self.bomb.utf8.count < 400)
        #expect {
            _ = try YAMLJSON.parse(Self.bomb, file: "prompts/bomb.yaml")
        } throws: { error in
            guard let error = error as? FileProblem else { return false }
            return error.file == "prompts/bomb.yaml" && error.line >= 1 && error.message.contains("alias references")
                && error.description.hasPrefix("prompts/bomb.yaml:")
        }
    }

    @Test func aWideExpansionIsBoundedByTheNodeLimit() {
        // Few alias references, many nodes: 3 aliases to a list of 40,000 scalars.
        let big = "a: &a [" + Array(repeating: "x", count: 40_000).joined(separator: ",") + "]\nb: [*a, *a, *a]\n"
        #expect {
            _ = try YAMLJSON.parse(big, file: "wide.yaml")
        } throws: { error in
            (error as? FileProblem)?.message.contains("nodes") == true && (error as? FileProblem)?.line == 1
        }
    }

    @Test func deepNestingIsRefused() {
        let deep = "a: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "\n"
        #expect {
            _ = try YAMLJSON.parse(deep, file: "deep.yaml")
        } throws: { error in
            (error as? FileProblem)?.message.contains("nested") == true && (error as? FileProblem)?.line == 1
        }
    }

    @Test func ordinaryAliasesStillWork() throws {
        let doc = try YAMLJSON.parse("base: &b {k: v}\nuse: [*b, *b]\n", file: "ok.yaml")
        #expect(doc.root["use"] == .array([["k": "v"], ["k": "v"]]))
    }

    @Test func aPromptFileWithTheBombIsAProblemOfThatFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("yaml-bomb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.bomb.write(to: directory.appendingPathComponent("bomb.yaml"), atomically: true, encoding: .utf8)
        #expect {
            _ = try PromptLibrary.load(directory: directory)
        } throws: { error in
            guard let error = error as? PromptLoadError, let problem = error.problems.first else { return false }
            return problem.file.hasSuffix("/bomb.yaml") && problem.line >= 1 && problem.message.contains("alias")
        }
    }
}
