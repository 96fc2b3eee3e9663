import Foundation
import JobsKit
import TestSupport
import Testing
import JobsCLI

/// `prompts diff`'s unified diff reads like `diff -u`: the same hunks, headers and line marks for edits whose
/// alignment is unambiguous (compared with the system's diff).
@Suite struct UnifiedDiffTests {
    static let base = (1...30).map { "line \($0)" }

    static func systemDiff(_ old: [String], _ new: [String]) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("udiff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try (old.joined(separator: "\n") + "\n").write(to: directory.appendingPathComponent("a"), atomically: true, encoding: .utf8)
        try (new.joined(separator: "\n") + "\n").write(to: directory.appendingPathComponent("b"), atomically: true, encoding: .utf8)
        let child = try SpawnedProcess(URL(fileURLWithPath: "/usr/bin/diff"),
                                       arguments: ["-u", "--label", "old", "--label", "new", "a", "b"], environment: [:], directory: directory)
        _ = try await child.waitForExit(timeout: 30)
        return child.stdout.hasSuffix("\n") ? String(child.stdout.dropLast()) : child.stdout
    }

    @Test(arguments: [
        "one line changed", "two changes far apart", "inserted at the start", "removed at the end", "changes close together",
    ])
    func hunksMatchDiffU(_ name: String) async throws {
        var new = Self.base
        switch name {
        case "one line changed": new[14] = "line 15, edited"
        case "two changes far apart": new[2] = "three"; new[26] = "twenty-seven"
        case "inserted at the start": new.insert(contentsOf: ["new first", "new second"], at: 0)
        case "removed at the end": new.removeLast(2)
        default: new[10] = "eleven"; new.remove(at: 14)
        }
        let ours = try #require(UnifiedDiff.diff(Self.base, new, oldName: "old", newName: "new"))
        #expect(ours == (try await Self.systemDiff(Self.base, new)), "\(name):\n\(ours)")
    }

    @Test func sameTextHasNoDiff() {
        #expect(UnifiedDiff.diff(Self.base, Self.base, oldName: "a", newName: "b") == nil)
    }
}
