import Foundation
import TestSupport
import Testing

/// docs/pipeline.md is the architecture's front door: the files it names must exist, and its maps must list every
/// target of Package.swift and every folder of the pipeline's home, so a move or a new folder fails here until the
/// document follows.
@Suite("docs/pipeline.md matches the code")
struct PipelineDocTests {
    static let root = RepositoryPaths.root
    static let text = (try? String(contentsOf: root.appendingPathComponent("docs/pipeline.md"), encoding: .utf8)) ?? ""

    /// Every `Sources/...`, `Tests/...`, `prompts/...` or `schemas/...` path in backticks (patterns such as
    /// `<Feature>` left out).
    static var namedPaths: [String] {
        let pattern = /`((?:Sources|Tests|prompts|schemas)\/[^`<>*]+)`/
        return text.matches(of: pattern).map { String($0.output.1) }
    }

    @Test("every path it names exists")
    func namedPathsExist() {
        #expect(!Self.text.isEmpty, "docs/pipeline.md is missing or empty")
        let paths = Self.namedPaths
        #expect(paths.count >= 60, "only \(paths.count) paths named")
        let missing = paths.filter { !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent($0).path) }
        #expect(missing.isEmpty, "named but not in the repository: \(missing)")
    }

    @Test("its target table lists every target of Package.swift")
    func everyTargetIsListed() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let targets = manifest.matches(of: /\.(?:target|executableTarget|systemLibrary)\(\s*name: "([^"]+)"/).map { String($0.output.1) }
        #expect(targets.count >= 12)
        let rows = Set(Self.text.matches(of: /^\| \d \| ([A-Za-z-]+) \|/.anchorsMatchLineEndings()).map { String($0.output.1) })
        #expect(Set(targets) == rows, "Package.swift: \(targets.sorted()), docs/pipeline.md: \(rows.sorted())")
        let tests = manifest.matches(of: /\.testTarget\(\s*name: "([^"]+)"/).map { String($0.output.1) }
        for test in tests { #expect(Self.text.contains(test), "test target \(test) not named") }
    }

    @Test("its folder map lists every folder of Sources/Extractors and every feature's folder")
    func everyExtractorsFolderIsListed() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources/Extractors").path)
        #expect(folders.count >= 8)
        for folder in folders { #expect(Self.text.contains("`Sources/Extractors/\(folder)`"), "Sources/Extractors/\(folder) not in the map") }
        let features = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources/Extractors/Features").path)
            .filter { !$0.hasSuffix(".swift") }
        #expect(features.count == 5)
        for feature in features {
            let files = try FileManager.default.contentsOfDirectory(
                atPath: Self.root.appendingPathComponent("Sources/Extractors/Features/\(feature)").path)
            // The feature's type, its scored type and its rules, as the map says.
            #expect(files.contains("\(feature).swift"), "\(feature): \(files)")
            #expect(files.contains { $0.hasPrefix("Scored") }, "\(feature): \(files)")
            #expect(files.contains { $0.hasSuffix("Rules.swift") }, "\(feature): \(files)")
        }
    }
}
