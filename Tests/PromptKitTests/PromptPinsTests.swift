import Foundation
import Testing
@testable import PromptKit

@Suite("Prompt pins and fingerprints")
struct PromptPinsTests {
    private func directory(_ files: [String: String]) throws -> URL {
        var all = ["schemas/tiny.json": tinySchema]
        for (name, text) in files { all["p/" + name] = text.replacingOccurrences(of: "schemas/", with: "../schemas/") }
        return try temporaryDirectory(all).appendingPathComponent("p")
    }

    /// A prompt file for `directory`'s layout (its schema one folder up).
    private func yaml(id: String = "demo", version: Int) -> String {
        promptYAML(id: id, version: version).replacingOccurrences(of: "schemas/", with: "../schemas/")
    }

    private func loadProblems(_ files: [String: String]) throws -> [String] {
        let dir = try directory(files)
        do {
            _ = try PromptLibrary.load(directory: dir)
            Issue.record("loading should have failed")
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func aNewVersionChangesNothingUntilItsPinMoves() throws {
        let dir = try directory(["demo.yaml": promptYAML(version: 1), "active.yaml": "demo: 1\n"])
        let before = try PromptLibrary.load(directory: dir)
        try yaml(version: 2).replacingOccurrences(of: "Be brief.", with: "Be very brief.")
            .write(to: dir.appendingPathComponent("demo.v2.yaml"), atomically: true, encoding: .utf8)
        let after = try PromptLibrary.load(directory: dir)
        #expect(after.latest(id: "demo")?.version == 2)
        #expect(after.active(id: "demo") == before.active(id: "demo"))
        #expect(after.active(id: "demo")?.version == 1)

        let overridden = try after.pinning(PromptPins(["demo": 2]))
        #expect(overridden.active(id: "demo")?.version == 2)
        #expect(after.active(id: "demo")?.version == 1, "an override is a copy, the loaded library keeps its pins")
        #expect(throws: PromptLoadError.self) { try after.pinning(PromptPins(["demo": 7])) }

        try "demo: 2\n".write(to: dir.appendingPathComponent("active.yaml"), atomically: true, encoding: .utf8)
        #expect(try PromptLibrary.load(directory: dir).active(id: "demo")?.version == 2)
    }

    @Test func severalVersionsWithoutAPinIsAnError() throws {
        let problems = try loadProblems(["demo.yaml": promptYAML(version: 1), "demo.v2.yaml": promptYAML(version: 2)])
        #expect(problems.count == 1)
        #expect(problems.first?.contains("demo has versions 1, 2: pin the one production uses") == true, "\(problems)")
    }

    @Test func aPinOfAMissingVersionPointsAtItsLine() throws {
        let problems = try loadProblems(["demo.yaml": promptYAML(version: 1), "active.yaml": "# pins\ndemo: 3\nother: x\n"])
        #expect(problems.contains { $0.hasSuffix("active.yaml:3: 'other': the version must be a positive integer, e.g. `other: 1`") }, "\(problems)")
        // The bad line is reported alone first; fixed, the missing version is named with the known ones.
        let missing = try loadProblems(["demo.yaml": promptYAML(version: 1), "active.yaml": "# pins\ndemo: 3\n"])
        #expect(missing.count == 1 && missing[0].hasSuffix("active.yaml:2: demo: no prompt version 3 (known: 1)"), "\(missing)")
    }

    @Test func overridesFromOptionsWinOverTheEnvironment() throws {
        let env = [PromptPins.environmentVariable: "demo=1, other=3"]
        let pins = try PromptPins.overrides(options: ["demo=2"], environment: env)
        #expect(pins.versions == ["demo": 2, "other": 3])
        #expect(try PromptPins.overrides(options: [], environment: [:]).versions.isEmpty)
        #expect(throws: PromptLoadError.self) { try PromptPins.overrides(options: ["demo=two"], environment: [:]) }
        #expect(throws: PromptLoadError.self) { try PromptPins.overrides(options: ["demo=1", "demo=2"], environment: [:]) }
        do {
            _ = try PromptPins.overrides(options: [], environment: [PromptPins.environmentVariable: "demo"])
        } catch {
            #expect(error.description.contains(PromptPins.environmentVariable) && error.description.contains("expected ID=VERSION"))
        }
    }

    @Test func theFingerprintFollowsTheContent() throws {
        let dir = try directory(["demo.yaml": promptYAML(version: 1), "other.yaml": promptYAML(id: "other", version: 1)])
        let library = try PromptLibrary.load(directory: dir)
        let demo = try #require(library.active(id: "demo"))
        let print = demo.fingerprint
        #expect(print.id == "demo" && print.version == 1)
        #expect(print.sha256.count == 64 && print.sha256.allSatisfy(\.isHexDigit))
        #expect(try PromptLibrary.load(directory: dir).active(id: "demo")?.fingerprint == print, "same files, same hash")
        #expect(library.active(id: "other")?.fingerprint.sha256 != print.sha256)

        try yaml(version: 1).replacingOccurrences(of: "Be brief.", with: "Be brief!")
            .write(to: dir.appendingPathComponent("demo.yaml"), atomically: true, encoding: .utf8)
        let edited = try #require(try PromptLibrary.load(directory: dir).active(id: "demo")?.fingerprint)
        #expect(edited.version == 1 && edited.sha256 != print.sha256, "same id and version, different text: different hash")
    }
}
